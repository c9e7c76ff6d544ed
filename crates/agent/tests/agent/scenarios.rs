// Over 1,000 lines on purpose: the agent's scenarios beside the fixture sites and scripted models
// they share; each test is an independent scenario.
//! The scenarios: perform on a login form in an OOPIF, the cache, an `ai` task across two pages
//! with a late element, `extract` with a repair, a model that never says done, a 429.

use cdp_protocol::testing::FixtureServer;
use envelope::CommandName;
use serde_json::{Value, json};

use crate::Harness;
use actionbook_agent::testing::{
    Answer, ModelServer, all_user_text, content, hold, last_user_text, ref_of, tool_calls,
    user_images,
};

const HTML: &str = "text/html; charset=utf-8";
const SECRET: &str = "hunter2-secret";

fn login_site(server: &FixtureServer) {
    let top = format!(
        "<!doctype html><title>Shop</title><h1>Shop</h1>\
         <iframe src=\"{}\" style=\"width:500px;height:300px\"></iframe>",
        server.cross_site_url("/login.html")
    );
    server.route("/", HTML, top);
    server.route(
        "/login.html",
        HTML,
        "<!doctype html><title>Login</title>\
         <label>User <input id=u></label>\
         <label>Password <input id=p type=password></label>\
         <button type=button onclick=\"document.getElementById('out').textContent='Welcome '+u.value+' ('+p.value.length+' chars, '+(p.value==='hunter2-secret'?'right':'wrong')+')'\">Sign in</button>\
         <p id=out></p>",
    );
}

/// The login script: reads the instruction and the snapshot it was sent, picks the element.
fn login_model(_n: usize, body: &Value) -> Answer {
    let text = last_user_text(body);
    let instruction = text.lines().next().unwrap_or_default().to_lowercase();
    let pick = |needle: &str| ref_of(&text, needle).unwrap_or_else(|| "e999".into());
    if instruction.contains("user name") {
        tool_calls(&[(
            "fill",
            json!({ "ref": pick("textbox \"User\""), "value": "ada" }),
        )])
    } else if instruction.contains("password") {
        tool_calls(&[(
            "fill",
            json!({ "ref": pick("textbox \"Password\""), "value": "<<pw>>" }),
        )])
    } else if instruction.contains("sign in") {
        tool_calls(&[("click", json!({ "ref": pick("button \"Sign in\"") }))])
    } else {
        tool_calls(&[(
            "not_possible",
            json!({ "reason": "the page has no logout control" }),
        )])
    }
}

async fn perform(h: &Harness, instruction: &str, extra: Value) -> Value {
    let mut args = json!({ "instruction": instruction, "var": [format!("pw={SECRET}")] });
    if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    Harness::json(
        &h.tab_command(CommandName::BrowserPerform, args, 30_000)
            .await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perform_logs_in_through_an_oopif_and_never_shows_the_secret() {
    let site = FixtureServer::start().await;
    login_site(&site);
    let model = ModelServer::start(login_model).await;
    let Some(h) = Harness::start(&site.url("/"), model.base_url()).await else {
        return;
    };
    let mut answers = Vec::new();
    for instruction in [
        "fill the user name with ada",
        "fill the password with <<pw>>",
        "click sign in",
    ] {
        let a = perform(&h, instruction, json!({})).await;
        assert_eq!(a["ok"], true, "{instruction}: {a}");
        answers.push(a);
    }
    assert_eq!(answers[0]["data"]["action"], "fill");
    assert_eq!(answers[0]["data"]["role"], "textbox");
    assert_eq!(answers[0]["data"]["cached"], false);
    assert_eq!(answers[0]["data"]["usage"]["input_tokens"], 100);
    assert_eq!(answers[1]["data"]["arguments"]["value"], "<<pw>>");
    assert_eq!(answers[2]["data"]["action"], "click");
    assert_eq!(answers[2]["data"]["name"], "Sign in");
    // Where the element is: its XPath in the OOPIF's document, and that frame's URL.
    assert_eq!(
        answers[0]["data"]["xpath"], "/html/body/label[1]/input",
        "{}",
        answers[0]
    );
    assert_eq!(answers[2]["data"]["xpath"], "/html/body/button");
    let frame = answers[2]["data"]["frame"].as_str().unwrap_or_default();
    assert!(
        frame.starts_with("http://localhost:") && frame.ends_with("/login.html"),
        "{}",
        answers[2]
    );
    // The page got the real value, substituted at the moment it was typed.
    let shown = h
        .tab_command(
            CommandName::BrowserWaitText,
            json!({ "text": "Welcome ada (14 chars, right)" }),
            10_000,
        )
        .await;
    assert!(shown.ok(), "{}", shown.to_json());

    let sent = model.requests();
    assert_eq!(sent.len(), 3, "one model call a perform");
    for body in &sent {
        let text = last_user_text(body);
        // The snapshot of every frame, the OOPIF's form included, with refs.
        assert!(text.contains("textbox \"User\""), "{text}");
        assert!(text.contains("[ref=e"), "{text}");
        let tools: Vec<&str> = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str())
            .collect();
        for t in [
            "click",
            "fill",
            "type",
            "press",
            "select",
            "hover",
            "check",
            "scroll",
            "wait",
            "goto",
            "not_possible",
        ] {
            assert!(tools.contains(&t), "{t} not offered: {tools:?}");
        }
        assert_eq!(body["model"], "scripted-1");
    }
    assert!(last_user_text(&sent[1]).contains("Variables: <<pw>>"));
    let everything = format!(
        "{}{}{}",
        serde_json::to_string(&sent).unwrap_or_default(),
        serde_json::to_string(&answers).unwrap_or_default(),
        h.home_bytes()
    );
    assert!(
        !everything.contains(SECRET),
        "the secret was written or sent"
    );
    assert!(
        !everything.contains("sk-test-key-123"),
        "the API key was written"
    );

    // What the page cannot do is an error naming why, and nothing acts.
    let refused = perform(&h, "click logout", json!({})).await;
    assert_eq!(refused["ok"], false, "{refused}");
    assert_eq!(refused["error"]["code"], "ELEMENT_NOT_FOUND", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no logout control")),
        "{refused}"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_replays_with_no_model_call_until_the_page_changes() {
    let site = FixtureServer::start().await;
    counter_site(&site, 0);
    let model = ModelServer::start(|_, body| {
        let text = last_user_text(body);
        let r = ref_of(&text, "button \"").unwrap_or_default();
        tool_calls(&[("click", json!({ "ref": r }))])
    })
    .await;
    let Some(h) = Harness::start(&site.url("/counter.html"), model.base_url()).await else {
        return;
    };
    let first = perform(&h, "click the add button", json!({})).await;
    assert_eq!(first["data"]["cached"], false, "{first}");
    let second = perform(&h, "click the add button", json!({})).await;
    assert_eq!(second["ok"], true, "{second}");
    assert_eq!(second["data"]["cached"], true, "{second}");
    assert_eq!(second["data"]["usage"]["input_tokens"], 0);
    assert_eq!(model.requests().len(), 1, "the replay asked the model");
    // It aimed by the recorded XPath, checked by role and name, with no snapshot: no ref.
    assert!(second["data"].get("ref").is_none(), "{second}");
    assert_eq!(second["data"]["xpath"], "/html/body/button", "{second}");
    assert_eq!(second["data"]["name"], "Add", "{second}");
    let count = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "n.textContent" }),
            10_000,
        )
        .await;
    assert!(count.to_json().contains("\"2\""), "{}", count.to_json());
    let cache =
        std::fs::read_to_string(h.dir.path().join("home/agent-cache.json")).unwrap_or_default();
    assert!(cache.contains("click the add button"), "{cache}");

    // Another button now sits at the recorded XPath: it is not clicked; the page is looked at
    // whole and the one "Add" button found again replays (a ref this time), still no model.
    let other = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "const b = document.createElement('button'); b.textContent = 'Other'; \
                             b.onclick = () => { window.otherClicked = true }; document.body.prepend(b)" }),
            10_000,
        )
        .await;
    assert!(other.ok(), "{}", other.to_json());
    let moved = perform(&h, "click the add button", json!({})).await;
    assert_eq!(moved["ok"], true, "{moved}");
    assert_eq!(moved["data"]["cached"], true, "{moved}");
    assert!(moved["data"]["ref"].is_string(), "{moved}");
    assert_eq!(moved["data"]["name"], "Add", "{moved}");
    assert_eq!(model.requests().len(), 1, "the replay asked the model");
    let state = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "[n.textContent, !!window.otherClicked]; document.querySelector('button').remove(); [n.textContent, !!window.otherClicked]" }),
            10_000,
        )
        .await;
    assert!(
        state.to_json().contains("[\"3\",false]"),
        "{}",
        state.to_json()
    );

    // --no-cache asks the model.
    let fresh = perform(&h, "click the add button", json!({ "no_cache": true })).await;
    assert_eq!(fresh["data"]["cached"], false, "{fresh}");
    assert_eq!(model.requests().len(), 2);

    // The button is renamed: the cached target no longer matches, the model is asked again.
    let renamed = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "document.querySelector('button').textContent = 'Increase'" }),
            10_000,
        )
        .await;
    assert!(renamed.ok(), "{}", renamed.to_json());
    let changed = perform(&h, "click the add button", json!({})).await;
    assert_eq!(changed["ok"], true, "{changed}");
    assert_eq!(changed["data"]["cached"], false, "{changed}");
    assert_eq!(changed["data"]["name"], "Increase");
    assert_eq!(model.requests().len(), 3);

    // What the cache holds, inspectable and cleared by page.
    let list = |page: Option<&str>| {
        let args = page.map_or(json!({}), |p| json!({ "page": p }));
        h.run_env(CommandName::AiCacheList, args, h.client_env(), 10_000)
    };
    let listed = Harness::json(&list(None).await);
    assert_eq!(listed["ok"], true, "{listed}");
    let entries = listed["data"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(entries.len(), 1, "{listed}");
    assert_eq!(entries[0]["instruction"], "click the add button");
    assert_eq!(entries[0]["action"], "click");
    assert_eq!(entries[0]["name"], "Increase");
    assert_eq!(entries[0]["xpath"], "/html/body/button");
    let page = site.url("/counter.html?x=1");
    let elsewhere = Harness::json(&list(Some("http://127.0.0.1:1/other")).await);
    assert_eq!(elsewhere["data"]["entries"], json!([]), "{elsewhere}");
    let cleared = Harness::json(
        &h.run_env(
            CommandName::AiCacheClear,
            json!({ "page": page }),
            h.client_env(),
            10_000,
        )
        .await,
    );
    assert_eq!(cleared["data"]["removed"], 1, "{cleared}");
    assert_eq!(cleared["data"]["left"], 0, "{cleared}");
    assert_eq!(
        Harness::json(&list(None).await)["data"]["entries"],
        json!([])
    );
    // Forgotten: the model is asked again.
    let again = perform(&h, "click the add button", json!({})).await;
    assert_eq!(again["data"]["cached"], false, "{again}");
    assert_eq!(again["data"]["dom_cached"], false, "{again}");
    assert_eq!(model.requests().len(), 4);

    // --dom-cache: the page is read from the tab's last snapshot while the tab is at its URL (no
    // capture: a change since is not seen), captured again once the URL moved.
    let unseen = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "document.querySelector('button').textContent = 'Plus'" }),
            10_000,
        )
        .await;
    assert!(unseen.ok(), "{}", unseen.to_json());
    let reused = perform(
        &h,
        "click the add button",
        json!({ "dom_cache": true, "no_cache": true }),
    )
    .await;
    assert_eq!(reused["ok"], true, "{reused}");
    assert_eq!(reused["data"]["dom_cached"], true, "{reused}");
    assert!(last_user_text(&model.requests()[4]).contains("button \"Increase\""));
    let moved = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "history.pushState({}, '', '?moved=1'), 1" }),
            10_000,
        )
        .await;
    assert!(moved.ok(), "{}", moved.to_json());
    let fresh = perform(
        &h,
        "click the add button",
        json!({ "dom_cache": true, "no_cache": true }),
    )
    .await;
    assert_eq!(fresh["data"]["dom_cached"], false, "{fresh}");
    assert!(last_user_text(&model.requests()[5]).contains("button \"Plus\""));
    let count = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "n.textContent" }),
            10_000,
        )
        .await;
    assert!(count.to_json().contains("\"8\""), "{}", count.to_json());
    h.close().await;
}

/// `/counter.html`: a button `Add` counting up in `#n` from `start`.
/// One instruction cached on two pages whose buttons sit at different XPaths (the second page has
/// a decoy where the first page's button is): each replays on its own page's element, with no
/// snapshot and no model call, whichever entry is the newest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_instruction_replays_on_each_page_by_that_pages_entry() {
    let site = FixtureServer::start().await;
    counter_site(&site, 0);
    site.route(
        "/counter2.html",
        HTML,
        "<!doctype html><title>Counter 2</title>\
         <button onclick=\"window.decoy = (window.decoy || 0) + 1\">Decoy</button>\
         <div><button onclick=\"n.textContent=+n.textContent+1\">Add</button></div> <span id=n>0</span>"
            .to_string(),
    );
    let model = ModelServer::start(|_, body| {
        let text = last_user_text(body);
        let r = ref_of(&text, "button \"Add\"").unwrap_or_default();
        tool_calls(&[("click", json!({ "ref": r }))])
    })
    .await;
    let Some(h) = Harness::start(&site.url("/counter.html"), model.base_url()).await else {
        return;
    };
    let asked = perform(&h, "add one", json!({})).await;
    assert_eq!(asked["data"]["cached"], false, "{asked}");
    goto(&h, &site.url("/counter2.html")).await;
    let asked = perform(&h, "add one", json!({})).await;
    assert_eq!(asked["data"]["cached"], false, "{asked}");
    assert_eq!(asked["data"]["xpath"], "/html/body/div/button", "{asked}");
    assert_eq!(model.requests().len(), 2);

    // Back on the first page: the newest entry (the second page's) is not this page's.
    goto(&h, &site.url("/counter.html")).await;
    let replayed = perform(&h, "add one", json!({})).await;
    assert_eq!(replayed["data"]["cached"], true, "{replayed}");
    assert_eq!(replayed["data"]["xpath"], "/html/body/button", "{replayed}");
    assert!(
        replayed["data"].get("ref").is_none(),
        "no snapshot: {replayed}"
    );
    assert_eq!(counts(&h).await, json!([1, 0]));

    // And on the second page its own entry, never the decoy at the first page's XPath.
    goto(&h, &site.url("/counter2.html")).await;
    let replayed = perform(&h, "add one", json!({})).await;
    assert_eq!(replayed["data"]["cached"], true, "{replayed}");
    assert_eq!(
        replayed["data"]["xpath"], "/html/body/div/button",
        "{replayed}"
    );
    assert_eq!(counts(&h).await, json!([1, 0]));
    assert_eq!(model.requests().len(), 2, "a replay asked the model");
    h.close().await;
}

async fn goto(h: &Harness, url: &str) {
    let r = h
        .tab_command(CommandName::BrowserGoto, json!({ "url": url }), 10_000)
        .await;
    assert!(r.ok(), "{}", r.to_json());
}

/// The counter page's count and its decoy's clicks.
async fn counts(h: &Harness) -> Value {
    let v = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "[+n.textContent, window.decoy || 0]" }),
            10_000,
        )
        .await;
    Harness::json(&v)["data"]["value"].clone()
}

fn counter_site(server: &FixtureServer, start: u32) {
    server.route(
        "/counter.html",
        HTML,
        format!(
            "<!doctype html><title>Counter</title>\
             <button onclick=\"n.textContent=+n.textContent+1\">Add</button> <span id=n>{start}</span>"
        ),
    );
}

fn flight_site(server: &FixtureServer) {
    server.route(
        "/search.html",
        HTML,
        "<!doctype html><title>Flights</title>\
         <input id=f aria-label=From> <input id=t aria-label=To>\
         <button onclick=\"location.href='/results.html?from='+encodeURIComponent(f.value)+'&to='+encodeURIComponent(t.value)\">Search</button>",
    );
    server.route(
        "/results.html",
        HTML,
        "<!doctype html><title>Results</title><h1>Results</h1><div id=r></div>\
         <script>const q=new URLSearchParams(location.search);\
         setTimeout(()=>{const p=document.createElement('p');p.textContent='Flight '+q.get('from')+' to '+q.get('to')+': $199';r.append(p)},700)</script>",
    );
}

/// The flight site's model: fills From with Miami and To with `to`, searches, waits for the late
/// result, then answers `found(the result's line)`.
fn flight_model(
    to: &'static str,
    found: fn(&str) -> Answer,
) -> impl Fn(usize, &Value) -> Answer + Send + Sync + 'static {
    move |_, body| {
        let text = last_user_text(body);
        if let (Some(from), Some(field), Some(go)) = (
            ref_of(&text, "textbox \"From\""),
            ref_of(&text, "textbox \"To\""),
            ref_of(&text, "button \"Search\""),
        ) {
            return tool_calls(&[
                ("fill", json!({ "ref": from, "value": "Miami" })),
                ("fill", json!({ "ref": field, "value": to })),
                ("click", json!({ "ref": go })),
            ]);
        }
        match text.lines().find(|l| l.contains("Flight Miami")) {
            Some(line) => found(line.trim()),
            None => tool_calls(&[("wait", json!({ "text": "Flight" }))]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_runs_a_task_across_two_pages_with_a_late_element() {
    let site = FixtureServer::start().await;
    flight_site(&site);
    let model = ModelServer::start(flight_model("<<city>>", |line| {
        tool_calls(&[("done", json!({ "result": line }))])
    }))
    .await;
    let Some(h) = Harness::start(&site.url("/search.html"), model.base_url()).await else {
        return;
    };
    // The destination is a variable: the results page shows it and carries it in its URL.
    let env = h
        .tab_command(
            CommandName::BrowserAi,
            json!({ "task": "search for flights from Miami to <<city>>", "max_steps": 6,
                    "trace": "trace", "var": ["city=New Orleans"] }),
            60_000,
        )
        .await;
    let a = Harness::json(&env);
    assert_eq!(a["ok"], true, "{a}");
    assert!(
        a["data"]["result"]
            .as_str()
            .is_some_and(|r| r.contains("Flight Miami to <<city>>: $199")),
        "the page's echo reached the model masked: {a}"
    );
    let answer = a.to_string();
    assert!(
        !answer.contains("New Orleans") && !answer.contains("New%20Orleans"),
        "{answer}"
    );
    let steps = a["data"]["steps"].as_array().cloned().unwrap_or_default();
    assert!(steps.len() >= 2, "{a}");
    assert_eq!(steps[0]["actions"].as_array().map(Vec::len), Some(3), "{a}");
    assert_eq!(steps[0]["diff"], false);
    assert_eq!(a["data"]["usage"]["input_tokens"], 100 * steps.len() as u64);
    assert!(
        a["context"]["url"]
            .as_str()
            .is_some_and(|u| u.contains("/results.html")),
        "{a}"
    );
    let sent = model.requests();
    assert_eq!(sent.len(), steps.len());
    let everything = serde_json::to_string(&sent).unwrap_or_default();
    assert!(
        !everything.contains("New Orleans") && !everything.contains("New%20Orleans"),
        "the value reached the model: {everything}"
    );
    assert!(everything.contains("to=<<city>>"), "{everything}");
    // The second request carries the first step's outcomes back to the model.
    let second = serde_json::to_string(&sent[1]).unwrap_or_default();
    assert!(second.contains("ok: fill @e"), "{second}");
    assert!(second.contains("ok: click @e"), "{second}");
    // The task is said once, not resent every step.
    assert_eq!(all_user_text(&sent[1]).matches("Task: ").count(), 1);
    // --trace: a file a step, with what was sent and what ran; the variable's value in none.
    let dir = h.dir.path().join("trace");
    let first = std::fs::read_to_string(dir.join("step-1.json")).unwrap_or_default();
    let first: Value = serde_json::from_str(&first).unwrap_or_default();
    assert_eq!(first["step"], 1, "{first}");
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .is_some_and(|t| t.contains("Task: search")),
        "{first}"
    );
    assert_eq!(
        first["actions"].as_array().map(Vec::len),
        Some(3),
        "{first}"
    );
    for n in 1..=steps.len() {
        let text = std::fs::read_to_string(dir.join(format!("step-{n}.json"))).unwrap_or_default();
        assert!(text.contains("\"step\""), "step {n} not written");
        assert!(
            !text.contains("XK-secret-77") && !text.contains("sk-test-key-123"),
            "{text}"
        );
    }
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_run_again_replays_its_cached_steps_and_asks_the_model_only_for_the_rest() {
    let site = FixtureServer::start().await;
    flight_site(&site);
    let model = ModelServer::start(flight_model("Boston", |line| {
        tool_calls(&[("done", json!({ "result": line }))])
    }))
    .await;
    let Some(h) = Harness::start(&site.url("/search.html"), model.base_url()).await else {
        return;
    };
    let task = json!({ "task": "find a flight from Miami to Boston", "max_steps": 6 });
    let first = Harness::json(
        &h.tab_command(CommandName::BrowserAi, task.clone(), 60_000)
            .await,
    );
    assert_eq!(first["ok"], true, "{first}");
    let asked_first = model.requests().len();
    let steps = first["data"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(steps.len(), asked_first, "{first}");
    assert!(steps.iter().all(|s| s.get("cached").is_none()), "{first}");

    // Again, from the search page: step 1 (fill, fill, click) replays with no model call.
    let back = h
        .tab_command(
            CommandName::BrowserGoto,
            json!({ "url": site.url("/search.html") }),
            10_000,
        )
        .await;
    assert!(back.ok(), "{}", back.to_json());
    let again = Harness::json(
        &h.tab_command(CommandName::BrowserAi, task.clone(), 60_000)
            .await,
    );
    assert_eq!(again["ok"], true, "{again}");
    assert!(
        again["data"]["result"]
            .as_str()
            .is_some_and(|r| r.contains("Boston: $199")),
        "{again}"
    );
    let steps = again["data"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(steps[0]["cached"], true, "{again}");
    assert_eq!(
        steps[0]["actions"].as_array().map(Vec::len),
        Some(3),
        "{again}"
    );
    assert_eq!(steps[0]["usage"]["input_tokens"], 0, "{again}");
    let sent = model.requests();
    assert!(sent.len() < 2 * asked_first, "step 1 asked the model again");
    // The model's first message of the run says the task, what the replay did, the whole page.
    let told = last_user_text(&sent[asked_first]);
    assert!(told.contains("Task: find a flight"), "{told}");
    assert!(
        told.contains("replayed from the cache") && told.contains("step 1: fill @e"),
        "{told}"
    );
    assert!(told.contains("Page: "), "{told}");

    // ai-cache list shows the step.
    let listed = Harness::json(
        &h.run_env(CommandName::AiCacheList, json!({}), h.client_env(), 10_000)
            .await,
    );
    let cached = &listed["data"]["ai_steps"][0];
    assert_eq!(
        cached["task"], "find a flight from Miami to Boston",
        "{listed}"
    );
    assert_eq!(cached["step"], 1, "{listed}");
    assert_eq!(cached["hits"], 1, "{listed}");
    assert_eq!(cached["actions"][2], "click button \"Search\"", "{listed}");

    // --no-cache: every step is the model's.
    let back = h
        .tab_command(
            CommandName::BrowserGoto,
            json!({ "url": site.url("/search.html") }),
            10_000,
        )
        .await;
    assert!(back.ok(), "{}", back.to_json());
    let before = model.requests().len();
    let mut fresh = task.clone();
    fresh["no_cache"] = json!(true);
    let fresh = Harness::json(&h.tab_command(CommandName::BrowserAi, fresh, 60_000).await);
    assert_eq!(fresh["ok"], true, "{fresh}");
    let steps = fresh["data"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(model.requests().len() - before, steps.len());
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_stopped_mid_step_answers_its_steps_and_leaves_the_session_usable() {
    let site = FixtureServer::start().await;
    flight_site(&site);
    // Step 1 fills the first field; the second model call never answers.
    let model = ModelServer::start(|n, body| match n {
        0 => match ref_of(&last_user_text(body), "textbox \"From\"") {
            Some(from) => tool_calls(&[("fill", json!({ "ref": from, "value": "Miami" }))]),
            None => tool_calls(&[("fail", json!({ "reason": "no From field" }))]),
        },
        _ => hold(),
    })
    .await;
    let Some(h) = Harness::start(&site.url("/search.html"), model.base_url()).await else {
        return;
    };
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = lines.clone();
    let asker = actionbook::commands::extension::Asker::with_progress(move |l| {
        if let Ok(mut v) = seen.lock() {
            v.push(l.to_string());
        }
    });
    // The caller hangs up once the loop waits on its second model call.
    let gone = async {
        while model.requests().len() < 2 {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let env = h
        .tab_command_until_gone(
            CommandName::BrowserAi,
            json!({ "task": "search for flights from Miami", "max_steps": 5 }),
            &asker,
            gone,
        )
        .await;
    let a = Harness::json(&env);
    assert_eq!(a["ok"], false, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("stopped")),
        "{a}"
    );
    let steps = a["error"]["details"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(steps.len(), 1, "{a}");
    assert_eq!(steps[0]["actions"][0]["action"], "fill", "{a}");
    let progress = lines.lock().map(|v| v.clone()).unwrap_or_default();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert!(progress[0].starts_with("step 1: fill @e"), "{progress:?}");
    assert_eq!(model.requests().len(), 2, "no model call after the stop");
    // What step 1 did stays done, and the tab answers at once.
    let value = h
        .tab_command(
            CommandName::BrowserValue,
            json!({ "selector": "#f" }),
            10_000,
        )
        .await;
    assert!(value.to_json().contains("Miami"), "{}", value.to_json());
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_that_never_says_done_stops_at_max_steps_with_its_steps() {
    let site = FixtureServer::start().await;
    flight_site(&site);
    let model = ModelServer::start(|_, _| tool_calls(&[("wait", json!({ "ms": 10 }))])).await;
    let Some(h) = Harness::start(&site.url("/search.html"), model.base_url()).await else {
        return;
    };
    let a = Harness::json(
        &h.tab_command(
            CommandName::BrowserAi,
            json!({ "task": "do something forever", "max_steps": 3 }),
            60_000,
        )
        .await,
    );
    assert_eq!(a["ok"], false, "{a}");
    assert_eq!(a["error"]["code"], "TIMEOUT", "{a}");
    assert_eq!(a["error"]["details"]["max_steps"], 3, "{a}");
    assert_eq!(
        a["error"]["details"]["steps"].as_array().map(Vec::len),
        Some(3),
        "{a}"
    );
    assert_eq!(model.requests().len(), 3);
    // The session is still usable.
    let title = h
        .tab_command(CommandName::BrowserTitle, json!({}), 10_000)
        .await;
    assert!(title.ok(), "{}", title.to_json());
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_reads_a_table_into_a_schema_repairing_one_bad_answer() {
    let site = FixtureServer::start().await;
    site.route(
        "/prices.html",
        HTML,
        "<!doctype html><title>Prices</title><table><tr><th>Item</th><th>Price</th></tr>\
         <tr><td>Apple</td><td>1.50</td></tr><tr><td>Pear</td><td>2.25</td></tr></table>",
    );
    // First answer: a price as a string (off the schema); then the right one; then (the
    // second extract) always wrong.
    let model = ModelServer::start(|n, _| match n {
        0 => content(r#"{"data": {"rows": [{"item": "Apple", "price": "1.50"}]}, "refs": []}"#),
        1 => content(
            r#"{"data": {"rows": [{"item": "Apple", "price": 1.5}, {"item": "Pear", "price": 2.25}]}, "refs": ["e3", "e5"]}"#,
        ),
        _ => content(r#"{"data": {"rows": "none"}, "refs": []}"#),
    })
    .await;
    let Some(h) = Harness::start(&site.url("/prices.html"), model.base_url()).await else {
        return;
    };
    let schema = json!({
        "type": "object", "required": ["rows"],
        "properties": { "rows": { "type": "array", "items": {
            "type": "object", "required": ["item", "price"],
            "properties": { "item": { "type": "string" }, "price": { "type": "number" } } } } }
    });
    std::fs::write(h.dir.path().join("prices.json"), schema.to_string()).expect("schema file");
    let a = Harness::json(
        &h.tab_command(
            CommandName::BrowserExtract,
            json!({ "what": "every item with its price", "schema": "prices.json" }),
            30_000,
        )
        .await,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(
        a["data"]["value"]["rows"][1],
        json!({ "item": "Pear", "price": 2.25 })
    );
    assert_eq!(a["data"]["refs"], json!(["e3", "e5"]));
    assert_eq!(a["data"]["repaired"], true);
    let sent = model.requests();
    assert_eq!(
        sent[0]["response_format"]["type"], "json_schema",
        "{}",
        sent[0]
    );
    assert_eq!(
        sent[0]["response_format"]["json_schema"]["schema"]["properties"]["data"],
        schema
    );
    assert!(
        last_user_text(&sent[0]).contains("cell \"Pear\""),
        "{}",
        last_user_text(&sent[0])
    );
    assert!(last_user_text(&sent[1]).contains("$.data.rows[0].price: expected number"));

    let bad = Harness::json(
        &h.tab_command(
            CommandName::BrowserExtract,
            json!({ "what": "every item with its price", "schema": "prices.json" }),
            30_000,
        )
        .await,
    );
    assert_eq!(bad["ok"], false, "{bad}");
    assert_eq!(bad["error"]["code"], "API_ERROR", "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("$.data.rows: expected array")),
        "{bad}"
    );
    assert_eq!(
        model.requests().len(),
        4,
        "one repair round, then the error"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limited_model_is_asked_again_and_a_bad_key_is_a_clear_error() {
    let site = FixtureServer::start().await;
    login_site(&site);
    let model = ModelServer::start(|n, body| match n {
        0 => Answer {
            status: 429,
            body: json!({ "error": { "message": "slow down" } }),
            retry_after: Some(0),
        },
        1 => login_model(n, body),
        _ => Answer {
            status: 401,
            body: json!({ "error": { "message": "bad key" } }),
            retry_after: None,
        },
    })
    .await;
    let Some(h) = Harness::start(&site.url("/"), model.base_url()).await else {
        return;
    };
    let a = perform(&h, "fill the user name with ada", json!({})).await;
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(model.requests().len(), 2);
    let b = perform(&h, "click sign in", json!({})).await;
    assert_eq!(b["ok"], false, "{b}");
    assert_eq!(b["error"]["code"], "API_ERROR", "{b}");
    assert_eq!(b["error"]["retryable"], false, "{b}");
    assert!(
        b["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("ACTIONBOOK_LLM_API_KEY")),
        "{b}"
    );
    assert!(!b.to_string().contains("sk-test-key-123"));
    h.close().await;
}

/// A program's own action: keeps the notes it is given, and reads the tab's title through the
/// engine's commands as it runs.
#[derive(Debug, Default)]
struct SaveNote(std::sync::Mutex<Vec<String>>);

#[async_trait::async_trait]
impl actionbook_agent::CustomAction for SaveNote {
    fn name(&self) -> &str {
        "save_note"
    }
    fn description(&self) -> &str {
        "Save a note for the user"
    }
    fn input_schema(&self) -> Value {
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] })
    }
    async fn run(
        &self,
        input: Value,
        cx: actionbook_agent::ActionCx<'_>,
    ) -> Result<String, String> {
        let title = actionbook::commands::observation::Title {
            target: cx.target.clone(),
        };
        let env = cx.runner.run(actionbook::Request::new(title)).await;
        if !env.ok() {
            return Err(format!("no title: {}", env.to_json()));
        }
        let text = input["text"].as_str().unwrap_or_default().to_string();
        if let Ok(mut notes) = self.0.lock() {
            notes.push(text.clone());
        }
        Ok(format!("saved {text:?}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_ai_runs_in_a_session_of_its_own_and_offers_the_programs_actions() {
    let site = FixtureServer::start().await;
    flight_site(&site);
    // Registered once in this process (no other test registers actions).
    let notes = std::sync::Arc::new(SaveNote::default());
    assert!(actionbook_agent::add_action(notes.clone()));
    assert!(
        !actionbook_agent::add_action(notes.clone()),
        "a name is taken once"
    );
    // Ours keep their names.
    #[derive(Debug)]
    struct Impostor;
    #[async_trait::async_trait]
    impl actionbook_agent::CustomAction for Impostor {
        fn name(&self) -> &str {
            "click"
        }
        fn description(&self) -> &str {
            ""
        }
        fn input_schema(&self) -> Value {
            json!({})
        }
        async fn run(&self, _: Value, _: actionbook_agent::ActionCx<'_>) -> Result<String, String> {
            Ok(String::new())
        }
    }
    assert!(!actionbook_agent::add_action(std::sync::Arc::new(Impostor)));

    let model = ModelServer::start(flight_model("Boston", |line| {
        tool_calls(&[
            ("save_note", json!({ "text": line })),
            ("done", json!({ "result": "noted" })),
        ])
    }))
    .await;
    let Some(h) = Harness::start(&site.url("/"), model.base_url()).await else {
        return;
    };
    let a = Harness::json(
        &h.run_env(
            CommandName::Ai,
            json!({ "task": "note the flight from Miami to Boston", "url": site.url("/search.html"),
                    "max_steps": 6, "visual": true }),
            h.client_env(),
            60_000,
        )
        .await,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["data"]["result"], "noted", "{a}");
    let steps = a["data"]["steps"].as_array().cloned().unwrap_or_default();
    let saved = steps
        .iter()
        .flat_map(|s| s["actions"].as_array().cloned().unwrap_or_default())
        .find(|o| o["action"] == "save_note")
        .unwrap_or_default();
    assert!(
        saved["result"].as_str().is_some_and(|r| r.contains("$199")),
        "{a}"
    );
    assert!(
        notes
            .0
            .lock()
            .map(|n| n.iter().any(|t| t.contains("Flight Miami to Boston")))
            .unwrap_or(false),
        "the action did not run"
    );
    // --visual: each step shows the model the annotated viewport, only the newest one resent.
    let sent = model.requests();
    for (n, body) in sent.iter().enumerate() {
        let images = user_images(body);
        assert_eq!(images.len(), 1, "request {n}: {images:?}");
        assert!(
            images[0].starts_with("data:image/jpeg;base64,/9j/") && images[0].len() > 2000,
            "request {n}: {}",
            &images[0][..images[0].len().min(80)]
        );
    }
    assert!(
        sent[0]["messages"][0]["content"]
            .as_str()
            .is_some_and(|s| s.contains("label [N]")),
        "{}",
        sent[0]["messages"][0]
    );
    // The tool was offered beside ours.
    let offered = serde_json::to_string(&model.requests()[0]["tools"]).unwrap_or_default();
    assert!(
        offered.contains("save_note") && offered.contains("\"click\""),
        "{offered}"
    );
    // Its session is gone; the harness's own is left.
    let sessions = Harness::json(
        &h.run_env(
            CommandName::BrowserListSessions,
            json!({}),
            h.client_env(),
            10_000,
        )
        .await,
    );
    assert_eq!(sessions["data"]["total_sessions"], 1, "{sessions}");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perform_and_extract_speak_anthropic_messages_end_to_end() {
    let site = FixtureServer::start().await;
    counter_site(&site, 41);
    // Anthropic's Messages shapes: a tool_use block for perform, the schema's tool for extract.
    let model = ModelServer::start(|_, body| {
        let text = last_user_text(body);
        let block = match body["tool_choice"]["name"].as_str() {
            Some(tool) => json!({ "type": "tool_use", "id": "toolu_x", "name": tool,
                                  "input": { "data": { "count": 42 }, "refs": [] } }),
            None => json!({ "type": "tool_use", "id": "toolu_1", "name": "click",
                            "input": { "ref": ref_of(&text, "button \"Add\"").unwrap_or_default() } }),
        };
        Answer {
            status: 200,
            body: json!({ "content": [block], "stop_reason": "tool_use",
                          "usage": { "input_tokens": 70, "output_tokens": 7 } }),
            retry_after: None,
        }
    })
    .await;
    let anthropic_url = format!("http://127.0.0.1:{}", model.port);
    let Some(h) = Harness::start(&site.url("/counter.html"), anthropic_url.clone()).await else {
        return;
    };
    let mut env = h.client_env();
    env.llm
        .insert("ACTIONBOOK_LLM_PROVIDER".into(), "anthropic".into());
    env.llm
        .insert("ACTIONBOOK_LLM_MODEL".into(), "claude-scripted".into());
    let on_tab = |args: Value| {
        let mut args = args;
        args["session"] = json!(crate::SID);
        args["tab"] = json!(h.tab);
        args
    };
    let done = Harness::json(
        &h.run_env(
            CommandName::BrowserPerform,
            on_tab(json!({ "instruction": "click add" })),
            env.clone(),
            30_000,
        )
        .await,
    );
    assert_eq!(done["ok"], true, "{done}");
    assert_eq!(done["data"]["name"], "Add", "{done}");
    assert_eq!(done["data"]["usage"]["input_tokens"], 70, "{done}");
    assert_eq!(done["data"]["model"], "claude-scripted", "{done}");
    let sent = model.requests();
    let first = &sent[0];
    assert_eq!(first["model"], "claude-scripted");
    assert!(
        first["system"]
            .as_str()
            .is_some_and(|s| s.contains("accessibility snapshot")),
        "{first}"
    );
    assert!(first["max_tokens"].as_u64().is_some(), "{first}");
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"click") && tools.contains(&"not_possible"),
        "{tools:?}"
    );
    assert!(first["tools"][0]["input_schema"].is_object(), "{first}");
    assert!(
        last_user_text(first).contains("button \"Add\" [ref=e"),
        "{first}"
    );

    let read = Harness::json(
        &h.run_env(
            CommandName::BrowserExtract,
            on_tab(json!({ "what": "the counter's value" })),
            env,
            30_000,
        )
        .await,
    );
    assert_eq!(read["ok"], true, "{read}");
    assert_eq!(read["data"]["value"]["count"], 42, "{read}");
    let count = h
        .tab_command(
            CommandName::BrowserEval,
            json!({ "code": "n.textContent" }),
            10_000,
        )
        .await;
    assert!(count.to_json().contains("\"42\""), "{}", count.to_json());
    h.close().await;
}

#[test]
fn agent_commands_default_to_minutes_not_the_engines_30_s() {
    use actionbook::{Command, Request};
    actionbook_agent::register();
    let on_tab = |name, args: Value| {
        let mut args = args;
        args["session"] = json!("s1");
        args["tab"] = json!("t1");
        Request::new(Command::from_json(name, args).expect("decodes"))
    };
    let ai = on_tab(CommandName::BrowserAi, json!({ "task": "x" }));
    assert_eq!(ai.timeout_or_default(), Some(600_000));
    assert_eq!(ai.with_timeout_ms(5).timeout_or_default(), Some(5));
    let perform = on_tab(CommandName::BrowserPerform, json!({ "instruction": "x" }));
    assert_eq!(perform.timeout_or_default(), Some(120_000));
    let title = on_tab(CommandName::BrowserTitle, json!({}));
    assert_eq!(
        title.timeout_or_default(),
        None,
        "the engine's own commands keep theirs"
    );
}
