//! The action policy (issue 40) on real Chromium: `browser start --confirm-actions` holds a
//! command back (CONFIRMATION_REQUIRED, saying what would run, and nothing runs) until it is
//! repeated with its one-time token; `--deny-actions` refuses outright; a token is spent by one
//! attempt and bound to its exact command; secrets stay `<<name>>`; the policy outlives a
//! daemon killed with SIGKILL; batch stops at a held-back step; an MCP client confirms with the
//! `confirm` argument; an agent's held-back step ends its loop without asking its model again.

use std::io::Write;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::mcp::Client;
use crate::need_chromium;
use crate::support::{Env, Fixture, Run, assert_failure, on};

const PAGE: &str = r#"<!doctype html><html><head><title>Counter</title></head><body>
<button id="inc" onclick="n.textContent = +n.textContent + 1">Add one</button>
<button id="other" onclick="o.textContent = +o.textContent + 1">Other</button>
<span id="n">0</span> <span id="o">0</span>
<label for="pw">Password</label><input id="pw" type="text">
</body></html>"#;

fn page() -> Fixture {
    let f = Fixture::start();
    f.html("/counter.html", PAGE);
    f
}

/// The text of `selector` (`text` is a read: no policy covers it).
#[track_caller]
fn read(env: &Env, t: &[&str], selector: &str) -> String {
    let v = on(env, t, &["text", selector]);
    assert_eq!(v["ok"], true, "{v}");
    v["data"]["value"].as_str().unwrap_or_default().to_string()
}

/// The token of a CONFIRMATION_REQUIRED answer.
#[track_caller]
fn token_of(v: &Value) -> String {
    assert_eq!(v["error"]["code"], "CONFIRMATION_REQUIRED", "{v}");
    let t = v["error"]["details"]["token"].as_str().unwrap_or_default();
    assert_eq!(t.len(), 32, "{v}");
    t.to_string()
}

fn session_of(v: &Value) -> String {
    assert_eq!(v["ok"], true, "{v}");
    v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_confirmed_click_runs_once_and_a_token_fits_only_its_command() {
    need_chromium!();
    let f = page();
    let env = Env::new();
    let url = f.url("/counter.html");
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--confirm-actions",
        "click",
        "--deny-actions",
        "eval",
        "--open-url",
        &url,
    ]);
    let sid = session_of(&v);
    assert_eq!(v["data"]["confirm_actions"], json!(["click"]), "{v}");
    assert_eq!(v["data"]["deny_actions"], json!(["eval"]), "{v}");
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // Held back: what would run, the element read without acting, and nothing ran.
    let v = on(&env, &t, &["click", "#inc"]);
    let token = token_of(&v);
    let d = &v["error"]["details"];
    assert_eq!(d["command"], "browser click", "{v}");
    assert_eq!(d["action"], "click", "{v}");
    assert_eq!(d["target"], "#inc", "{v}");
    assert_eq!(d["element"]["role"], "button", "{v}");
    assert_eq!(d["element"]["name"], "Add one", "{v}");
    assert_eq!(d["expires_in_ms"], 300_000, "{v}");
    assert_eq!(v["context"]["tab_id"], "t1", "{v}");
    assert_eq!(v["error"]["retryable"], false, "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("--confirm")),
        "{v}"
    );
    assert_eq!(read(&env, &t, "#n"), "0");

    // Confirmed: it runs, once.
    let v = on(&env, &t, &["click", "#inc", "--confirm", &token]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(read(&env, &t, "#n"), "1");
    // The same token again: refused (a new token offered), and nothing ran.
    let v = on(&env, &t, &["click", "#inc", "--confirm", &token]);
    let again = token_of(&v);
    assert_ne!(again, token);
    assert!(
        v["error"]["details"]["refused_token"]
            .as_str()
            .is_some_and(|r| r.contains("unknown")),
        "{v}"
    );
    assert_eq!(read(&env, &t, "#n"), "1");
    // A token of one selector replayed on another: refused, and spent.
    let v = on(&env, &t, &["click", "#other", "--confirm", &again]);
    assert!(
        v["error"]["details"]["refused_token"]
            .as_str()
            .is_some_and(|r| r.contains("another command")),
        "{v}"
    );
    assert_eq!(read(&env, &t, "#o"), "0");
    let v = on(&env, &t, &["click", "#inc", "--confirm", &again]);
    token_of(&v);
    assert_eq!(read(&env, &t, "#n"), "1");

    // Denied: refused outright, a token changes nothing.
    let v = on(&env, &t, &["eval", "n.textContent = 'x'"]);
    assert_failure(&v, "ACCESS_DENIED", "eval");
    let v = on(
        &env,
        &t,
        &["eval", "n.textContent = 'x'", "--confirm", &token],
    );
    assert_failure(&v, "ACCESS_DENIED", "--deny-actions");
    assert_eq!(read(&env, &t, "#n"), "1");

    // The text form tells the token too.
    let out = env.run(&[&["browser", "click", "#inc"][..], &t].concat());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("error CONFIRMATION_REQUIRED: browser click #inc (button \"Add one\")")
            && out.stderr.contains("--confirm "),
        "{out:?}"
    );

    // Unknown names are refused, naming the known ones; nothing starts.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--confirm-actions",
        "click,teleport",
    ]);
    assert_failure(&v, "INVALID_ARGUMENT", "\"teleport\"");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("upload") && m.contains("navigate")),
        "{v}"
    );

    // The policy outlives the daemon (kill -9); its tokens do not.
    let v = on(&env, &t, &["click", "#inc"]);
    let before = token_of(&v);
    env.kill_daemon();
    let v = on(&env, &t, &["click", "#inc", "--confirm", &before]);
    token_of(&v);
    assert!(
        v["error"]["details"]["refused_token"]
            .as_str()
            .is_some_and(|r| r.contains("restarted")),
        "{v}"
    );
    assert_eq!(read(&env, &t, "#n"), "1");
    let v = on(&env, &t, &["eval", "1"]);
    assert_failure(&v, "ACCESS_DENIED", "eval");

    // A later start tightens the policy, never loosens it.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--session",
        &sid,
        "--confirm-actions",
        "fill",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["data"]["confirm_actions"],
        json!(["click", "fill"]),
        "{v}"
    );
    assert_eq!(v["data"]["deny_actions"], json!(["eval"]), "{v}");
    let v = on(&env, &t, &["fill", "#pw", "abc"]);
    token_of(&v);
    // Close is never held back.
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn a_held_back_fill_shows_its_secret_as_written_and_never_its_value() {
    need_chromium!();
    let f = page();
    let env = Env::new();
    let url = f.url("/counter.html");
    const PW: &str = "S3cr3t-xyz";
    let secret = format!("pw={PW}");
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--secret",
        &secret,
        "--confirm-actions",
        "input",
        "--open-url",
        &url,
    ]);
    let sid = session_of(&v);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let args = [&["browser", "fill", "#pw", "<<pw>>"][..], &t].concat();
    let json_out = env.run(&[&args[..], &["--json"]].concat());
    let v = json_out.json();
    let token = token_of(&v);
    assert_eq!(v["error"]["details"]["value"], "<<pw>>", "{v}");
    assert_eq!(v["error"]["details"]["element"]["name"], "Password", "{v}");
    let text_out = env.run(&args);
    for out in [&json_out, &text_out] {
        assert!(
            !out.stdout.contains(PW) && !out.stderr.contains(PW),
            "{out:?}"
        );
    }
    // The value typed as it is is masked too.
    let v = on(&env, &t, &["fill", "#pw", PW]);
    assert_eq!(v["error"]["details"]["value"], "<<pw>>", "{v}");
    assert!(!v.to_string().contains(PW), "{v}");
    // Confirmed: the page gets the value.
    let v = on(&env, &t, &["fill", "#pw", "<<pw>>", "--confirm", &token]);
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &[
            "eval",
            &format!("document.getElementById('pw').value === '{PW}'"),
        ],
    );
    assert_eq!(v["data"]["value"], true, "{v}");
}

/// Runs `actionbook batch --json` with `input` on stdin.
fn batch(env: &Env, input: &str) -> Run {
    let mut child = env
        .command(&["batch", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn batch");
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).expect("write the batch");
    }
    let out = child.wait_with_output().expect("batch ends");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn a_batch_stops_at_a_held_back_step_and_a_json_line_confirms_it() {
    need_chromium!();
    let f = page();
    let env = Env::new();
    let url = f.url("/counter.html");
    // The policy from the caller's environment, as a new session's default.
    let out = env
        .command(&[
            "browser",
            "start",
            "--headless",
            "--open-url",
            &url,
            "--json",
        ])
        .env("ACTIONBOOK_CONFIRM_ACTIONS", "click")
        .output()
        .expect("start");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let sid = session_of(&v);
    assert_eq!(v["data"]["confirm_actions"], json!(["click"]), "{v}");
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let lines = format!(
        "browser click '#inc' --session {sid} --tab t1\n\
         browser click '#other' --session {sid} --tab t1 --confirm 0123\n\
         browser title --session {sid} --tab t1\n"
    );
    let out = batch(&env, &lines);
    assert_eq!(out.code, 1, "{out:?}");
    let answers: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        answers.len(),
        1,
        "the batch ran past the held-back step: {out:?}"
    );
    let token = token_of(&answers[0]);
    assert_eq!(read(&env, &t, "#n"), "0");

    // Its details are a JSON line's: sent back with the token, exactly that runs.
    let d = &answers[0]["error"]["details"];
    let line = json!({"command": d["command"], "args": d["arguments"], "confirm": token});
    let out = batch(
        &env,
        &format!("{line}\nbrowser title --session {sid} --tab t1\n"),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.lines().count(), 2, "{out:?}");
    assert_eq!(read(&env, &t, "#n"), "1");
}

#[test]
fn an_mcp_client_gets_the_confirmation_and_confirms_with_the_token() {
    need_chromium!();
    let f = page();
    let env = Env::new();
    let url = f.url("/counter.html");
    let mut c = Client::spawn(&env, &["--tools", "all"]);
    c.initialize();
    let tools = c.ok("tools/list", json!({}));
    let schema_of = |name: &str| {
        tools["tools"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["name"] == name))
            .map(|t| t["inputSchema"].clone())
            .unwrap_or_default()
    };
    assert!(
        schema_of("browser_click")["properties"]
            .get("confirm")
            .is_some(),
        "{tools}"
    );
    assert!(
        schema_of("browser_title")["properties"]
            .get("confirm")
            .is_none()
    );
    let v = c.call_ok(
        "browser_start",
        json!({"headless": true, "open_url": url, "confirm_actions": "click"}),
    );
    let sid = session_of(&v);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let r = c.call(
        "browser_click",
        json!({"selector": "#inc", "session": sid, "tab": "t1"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    let token = token_of(&r["structuredContent"]);
    assert_eq!(read(&env, &t, "#n"), "0");
    c.call_ok(
        "browser_click",
        json!({"selector": "#inc", "session": sid, "tab": "t1", "confirm": token}),
    );
    assert_eq!(read(&env, &t, "#n"), "1");
    let r = c.call(
        "browser_click",
        json!({"selector": "#inc", "session": sid, "tab": "t1", "confirm": token}),
    );
    token_of(&r["structuredContent"]);
    assert_eq!(read(&env, &t, "#n"), "1");
}

#[test]
fn an_agents_held_back_click_ends_its_loop_and_its_command_can_be_confirmed() {
    use actionbook_agent::testing::{ModelServer, last_user_text, ref_of, tool_calls};
    need_chromium!();
    let f = page();
    let env = Env::new();
    let url = f.url("/counter.html");
    // Clicks the button; any later call would say it is done (the loop must not get there).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("model runtime");
    let model = runtime.block_on(ModelServer::start(|n, body| {
        match (n, ref_of(&last_user_text(body), "button \"Add one\"")) {
            (0, Some(r)) => tool_calls(&[("click", json!({ "ref": r }))]),
            (0, None) => tool_calls(&[("fail", json!({ "reason": "no button" }))]),
            _ => tool_calls(&[("done", json!({ "result": "clicked" }))]),
        }
    }));
    let sid = env.start(&["--confirm-actions", "click", "--open-url", &url]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let out = env
        .command(
            &[
                &["browser", "ai", "add one", "--timeout", "60000", "--json"][..],
                &t,
            ]
            .concat(),
        )
        .env("ACTIONBOOK_LLM_PROVIDER", "openai")
        .env("ACTIONBOOK_LLM_BASE_URL", model.base_url())
        .env("ACTIONBOOK_LLM_MODEL", "scripted-1")
        .env("ACTIONBOOK_LLM_API_KEY", "sk-test")
        .output()
        .expect("run ai");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let token = token_of(&v);
    assert_eq!(v["command"], "browser ai", "{v}");
    let d = &v["error"]["details"];
    assert_eq!(d["command"], "browser click", "{v}");
    assert!(d["steps"].as_array().is_some_and(|s| s.len() == 1), "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("agent")),
        "{v}"
    );
    assert_eq!(model.requests().len(), 1, "the model was asked again");
    assert_eq!(read(&env, &t, "#n"), "0");
    // The agent's command, sent as it is with the token, runs once.
    let line = json!({"command": d["command"], "args": d["arguments"], "confirm": token});
    let out = batch(&env, &format!("{line}\n"));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(read(&env, &t, "#n"), "1");
}
