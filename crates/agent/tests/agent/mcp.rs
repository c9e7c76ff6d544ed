//! External MCP servers' tools as actions: a real stdio server process (`fixtures/kv_server.py`,
//! Python's stdlib only) whose `lookup {key}` holds a value the page needs; the scripted model
//! calls `<server>__lookup`, then fills the value in. Every test checks the server's process is
//! gone once the command answered.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cdp_protocol::testing::FixtureServer;
use envelope::CommandName;
use serde_json::{Value, json};

use crate::Harness;
use actionbook_agent::testing::{Answer, ModelServer, all_user_text, hold, ref_of, tool_calls};

const HTML: &str = "text/html; charset=utf-8";
const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/agent/fixtures/kv_server.py"
);

fn coupon_site(server: &FixtureServer) {
    server.route(
        "/coupon.html",
        HTML,
        "<!doctype html><title>Checkout</title>\
         <label>Coupon <input id=c></label>\
         <button type=button onclick=\"out.textContent='Applied '+c.value\">Apply</button>\
         <p id=out></p>",
    );
}

/// `python3 kv_server.py MODE PIDFILE coupon=SAVE-42`, as one `--mcp-server` line.
fn server_line(mode: &str, pidfile: &Path) -> String {
    format!(
        "python3 {SCRIPT} {mode} {} coupon=SAVE-42",
        pidfile.display()
    )
}

/// The pid the server wrote, once it ran.
fn pid_of(pidfile: &Path) -> Option<u32> {
    std::fs::read_to_string(pidfile).ok()?.trim().parse().ok()
}

/// Whether the process is gone (no `/proc` entry: exited and reaped), looking again for a few
/// seconds (the command's end reaps it as it returns; a loaded machine may lag).
async fn gone(pid: u32) -> bool {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if !proc_dir.exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Every tool message of a request, in order.
fn tool_results(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect()
}

/// The tool named `name` of a request, as offered.
fn offered(body: &Value, name: &str) -> Value {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == name)
        .cloned()
        .unwrap_or_default()
}

/// Looks the coupon up, fills in what the tool answered, applies it, says done: read from what
/// the request carries (the tool results so far), as a model would.
fn coupon_model(_n: usize, body: &Value) -> Answer {
    let results = tool_results(body);
    if results.iter().any(|r| r.starts_with("ok: fill")) {
        return tool_calls(&[("done", json!({ "result": "applied" }))]);
    }
    let Some(value) = results
        .iter()
        .find_map(|r| r.strip_prefix("ok: ").map(str::to_string))
    else {
        return tool_calls(&[("kv_server__lookup", json!({ "key": "coupon" }))]);
    };
    let text = all_user_text(body);
    let field = ref_of(&text, "textbox \"Coupon\"").unwrap_or_default();
    let apply = ref_of(&text, "button \"Apply\"").unwrap_or_default();
    tool_calls(&[
        ("fill", json!({ "ref": field, "value": value })),
        ("click", json!({ "ref": apply })),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ai_calls_an_mcp_servers_tool_and_fills_in_its_answer() {
    let site = FixtureServer::start().await;
    coupon_site(&site);
    let model = ModelServer::start(coupon_model).await;
    let Some(h) = Harness::start(&site.url("/coupon.html"), model.base_url()).await else {
        return;
    };
    let pidfile = h.dir.path().join("serve.pid");
    let env = h
        .tab_command(
            CommandName::BrowserAi,
            json!({ "task": "apply the coupon stored under the key coupon",
                    "mcp_server": [server_line("serve", &pidfile)], "max_steps": 5 }),
            60_000,
        )
        .await;
    let a = Harness::json(&env);
    assert_eq!(a["ok"], true, "{a}");
    // The page got the value the server holds.
    let shown = h
        .tab_command(
            CommandName::BrowserWaitText,
            json!({ "text": "Applied SAVE-42" }),
            10_000,
        )
        .await;
    assert!(shown.ok(), "{}", shown.to_json());
    let sent = model.requests();
    assert_eq!(sent.len(), 3, "{a}");
    // The model was offered the server's tool, named after the server, with its schema, beside
    // ours.
    let lookup = offered(&sent[0], "kv_server__lookup");
    assert_eq!(
        lookup["function"]["parameters"]["properties"]["key"]["type"], "string",
        "{}",
        sent[0]["tools"]
    );
    assert_eq!(lookup["function"]["parameters"]["required"], json!(["key"]));
    assert!(
        lookup["function"]["description"]
            .as_str()
            .is_some_and(|d| d.contains("Look up the value")),
        "{lookup}"
    );
    assert_eq!(offered(&sent[0], "click")["function"]["name"], "click");
    // Its answer came back to the model in the next request.
    assert!(
        tool_results(&sent[1]).iter().any(|r| r == "ok: SAVE-42"),
        "{:?}",
        tool_results(&sent[1])
    );
    // And into the step's record.
    let step = &a["data"]["steps"][0];
    assert_eq!(step["actions"][0]["action"], "kv_server__lookup", "{a}");
    assert_eq!(step["actions"][0]["arguments"]["key"], "coupon", "{a}");
    assert_eq!(step["actions"][0]["result"], "SAVE-42", "{a}");
    assert_eq!(a["data"]["steps"][1]["actions"][0]["action"], "fill", "{a}");
    // The server ran for the command and is gone after it.
    let pid = pid_of(&pidfile).expect("the server wrote its pid");
    assert!(gone(pid).await, "the MCP server {pid} outlived the command");
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perform_runs_a_config_files_mcp_server_with_variables_substituted() {
    let site = FixtureServer::start().await;
    coupon_site(&site);
    // The model passes the variable as written; the server gets its value.
    let model =
        ModelServer::start(|_, _| tool_calls(&[("kv__lookup", json!({ "key": "<<which>>" }))]))
            .await;
    let Some(h) = Harness::start(&site.url("/coupon.html"), model.base_url()).await else {
        return;
    };
    let pidfile = h.dir.path().join("perform.pid");
    let home = h.dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[llm]\nmodel = \"ignored\"\n\n[[llm.mcp_servers]]\nname = \"kv\"\ncommand = \"python3\"\n\
             args = [{SCRIPT:?}, \"serve\", {:?}, \"coupon=SAVE-42\"]\ntimeout_ms = 10000\n\
             [llm.mcp_servers.env]\nKV_UNUSED = \"1\"\n",
            pidfile.display().to_string()
        ),
    )
    .expect("config");
    let a = Harness::json(
        &h.tab_command(
            CommandName::BrowserPerform,
            json!({ "instruction": "look up <<which>>", "var": ["which=coupon"] }),
            30_000,
        )
        .await,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["data"]["action"], "kv__lookup", "{a}");
    assert_eq!(a["data"]["result"], "SAVE-42", "{a}");
    assert_eq!(a["data"]["arguments"]["key"], "<<which>>", "{a}");
    assert_eq!(a["data"]["cached"], false, "{a}");
    let pid = pid_of(&pidfile).expect("the server wrote its pid");
    assert!(gone(pid).await, "the MCP server {pid} outlived the command");
    // What the tool says when it fails is the action's error.
    let failed = Harness::json(
        &h.tab_command(
            CommandName::BrowserPerform,
            json!({ "instruction": "look up <<which>>", "var": ["which=nothing"] }),
            30_000,
        )
        .await,
    );
    assert_eq!(failed["error"]["code"], "UNSUPPORTED_OPERATION", "{failed}");
    assert_eq!(
        failed["error"]["message"], "kv__lookup failed: no value for <<which>>",
        "{failed}"
    );
    // A broken entry is a clear error, before any model call.
    std::fs::write(
        home.join("config.toml"),
        "[[llm.mcp_servers]]\nname = \"kv\"\nargs = [\"x\"]\n",
    )
    .expect("config");
    let before = model.requests().len();
    let bad = Harness::json(
        &h.tab_command(
            CommandName::BrowserPerform,
            json!({ "instruction": "look up the coupon", "no_cache": true }),
            30_000,
        )
        .await,
    );
    assert_eq!(bad["error"]["code"], "INVALID_ARGUMENT", "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("mcp_servers") && m.contains("command")),
        "{bad}"
    );
    assert_eq!(model.requests().len(), before, "the model was asked");
    h.close().await;
}

/// Runs `ai` with one server line and the command's `timeout`; the envelope as JSON.
async fn ai_with(h: &Harness, line: &str, timeout: u64) -> Value {
    Harness::json(
        &h.tab_command(
            CommandName::BrowserAi,
            json!({ "task": "apply the coupon", "mcp_server": [line], "max_steps": 3 }),
            timeout,
        )
        .await,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_servers_that_cannot_start_or_go_silent_or_die_are_clear_errors() {
    let site = FixtureServer::start().await;
    coupon_site(&site);
    let model = ModelServer::start(coupon_model).await;
    let Some(h) = Harness::start(&site.url("/coupon.html"), model.base_url()).await else {
        return;
    };
    // A command that does not exist.
    let a = ai_with(&h, "/nonexistent/kv-mcp-server --stdio", 30_000).await;
    assert_eq!(a["error"]["code"], "INVALID_ARGUMENT", "{a}");
    let message = a["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("/nonexistent/kv-mcp-server") && message.contains("not found"),
        "{a}"
    );
    assert_eq!(a["error"]["details"]["server"], "kv-mcp-server", "{a}");

    // A server that exits at once: what it said on stderr is in the error.
    let pidfile = h.dir.path().join("exit.pid");
    let a = ai_with(&h, &server_line("exit", &pidfile), 30_000).await;
    assert_eq!(a["error"]["code"], "API_ERROR", "{a}");
    let message = a["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("exited before answering initialize")
            && message.contains("no database configured"),
        "{a}"
    );
    assert!(gone(pid_of(&pidfile).expect("it ran")).await);
    assert!(model.requests().is_empty(), "the model was asked");

    // A server that never answers `initialize`: an error within the command's timeout.
    let pidfile = h.dir.path().join("silent.pid");
    let started = Instant::now();
    let a = ai_with(&h, &server_line("silent", &pidfile), 2_000).await;
    assert_eq!(a["error"]["code"], "TIMEOUT", "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not answer initialize")),
        "{a}"
    );
    assert!(started.elapsed() < Duration::from_secs(20), "it hung");
    let pid = pid_of(&pidfile).expect("it ran");
    assert!(
        gone(pid).await,
        "the silent server {pid} outlived the command"
    );
    assert!(model.requests().is_empty(), "the model was asked");

    // A server that answers garbage: no answer is read from it, so the same, never a hang.
    let pidfile = h.dir.path().join("garbage.pid");
    let a = ai_with(&h, &server_line("garbage", &pidfile), 2_000).await;
    assert_eq!(a["error"]["code"], "TIMEOUT", "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did not answer initialize")),
        "{a}"
    );
    assert!(gone(pid_of(&pidfile).expect("it ran")).await);
    assert!(model.requests().is_empty(), "the model was asked");

    // A server that dies when called: the loop ends with the steps taken.
    let pidfile = h.dir.path().join("die.pid");
    let a = ai_with(&h, &server_line("die", &pidfile), 30_000).await;
    assert_eq!(a["error"]["code"], "API_ERROR", "{a}");
    let message = a["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("kv_server stopped answering") && message.contains("crashed on a call"),
        "{a}"
    );
    let steps = a["error"]["details"]["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(steps.len(), 1, "{a}");
    assert!(gone(pid_of(&pidfile).expect("it ran")).await);

    // A server that never answers a call: an error within the command's timeout.
    let pidfile = h.dir.path().join("hang.pid");
    let started = Instant::now();
    let a = ai_with(&h, &server_line("hang", &pidfile), 4_000).await;
    assert_eq!(a["error"]["code"], "TIMEOUT", "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("kv_server did not answer a tools/call")),
        "{a}"
    );
    assert!(started.elapsed() < Duration::from_secs(20), "it hung");
    assert_eq!(
        a["error"]["details"]["steps"].as_array().map(Vec::len),
        Some(1),
        "{a}"
    );
    assert!(gone(pid_of(&pidfile).expect("it ran")).await);
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_ai_leaves_no_mcp_server_nor_its_children_behind() {
    let site = FixtureServer::start().await;
    coupon_site(&site);
    // Step 1 calls the server; the second model call never answers.
    let model = ModelServer::start(|n, body| match n {
        0 => coupon_model(n, body),
        _ => hold(),
    })
    .await;
    let Some(h) = Harness::start(&site.url("/coupon.html"), model.base_url()).await else {
        return;
    };
    let pidfile = h.dir.path().join("cancel.pid");
    let childfile = h.dir.path().join("cancel.pid.child");
    let asker = actionbook::commands::extension::Asker::default();
    // The caller hangs up once the loop waits on its second model call.
    let gone_caller = async {
        while model.requests().len() < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let env = h
        .tab_command_until_gone(
            CommandName::BrowserAi,
            json!({ "task": "apply the coupon", "mcp_server": [server_line("family", &pidfile)],
                    "max_steps": 5 }),
            &asker,
            gone_caller,
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
    assert_eq!(
        a["error"]["details"]["steps"][0]["actions"][0]["result"], "SAVE-42",
        "{a}"
    );
    let pid = pid_of(&pidfile).expect("the server wrote its pid");
    assert!(
        gone(pid).await,
        "the MCP server {pid} outlived the cancelled command"
    );
    // What the server started went with it (its process group was killed).
    let child = pid_of(&childfile).expect("the server wrote its child's pid");
    assert!(
        gone(child).await,
        "the server's child {child} outlived the command"
    );
    h.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shot_ai_runs_its_mcp_servers_beside_a_browser_of_its_own() {
    let site = FixtureServer::start().await;
    coupon_site(&site);
    let model = ModelServer::start(coupon_model).await;
    let Some(h) = Harness::start(&site.url("/"), model.base_url()).await else {
        return;
    };
    let pidfile = h.dir.path().join("one-shot.pid");
    let a = Harness::json(
        &h.run_env(
            CommandName::Ai,
            json!({ "task": "apply the coupon", "url": site.url("/coupon.html"), "max_steps": 5,
                    "mcp_server": [server_line("serve", &pidfile)] }),
            h.client_env(),
            60_000,
        )
        .await,
    );
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(
        a["data"]["steps"][0]["actions"][0]["result"], "SAVE-42",
        "{a}"
    );
    assert_eq!(
        a["data"]["steps"][1]["actions"][0]["arguments"]["value"], "SAVE-42",
        "{a}"
    );
    let pid = pid_of(&pidfile).expect("the server wrote its pid");
    assert!(gone(pid).await, "the MCP server {pid} outlived the command");
    h.close().await;
}
