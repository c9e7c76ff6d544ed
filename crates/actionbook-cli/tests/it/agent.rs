//! The agent layer through the binary and its daemon: `browser ai` prints each step on stderr as
//! it ends, and a client stopped by Ctrl-C stops the loop in the daemon (its model call dropped,
//! no action after), leaving the session usable; `ai-cache` is a command of the tree.

use std::io::BufRead;
use std::process::Stdio;
use std::time::{Duration, Instant};

use actionbook_agent::testing::{ModelServer, hold, last_user_text, ref_of, tool_calls};
use serde_json::json;

use crate::mcp::Client;
use crate::need_chromium;
use crate::support::{Env, Fixture, on};

/// A scripted model on a runtime of its own (these tests are synchronous).
struct Model {
    server: ModelServer,
    _runtime: tokio::runtime::Runtime,
}

impl Model {
    fn start(
        script: impl Fn(usize, &serde_json::Value) -> actionbook_agent::testing::Answer
        + Send
        + Sync
        + 'static,
    ) -> Model {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("model runtime");
        let server = runtime.block_on(ModelServer::start(script));
        Model {
            server,
            _runtime: runtime,
        }
    }
}

/// Waits until `done` holds, at most `limit`.
fn eventually(limit: Duration, done: impl Fn() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

#[test]
fn ai_shows_each_step_on_stderr_and_stops_in_the_daemon_when_its_client_is_interrupted() {
    need_chromium!();
    let env = Env::new();
    let site = Fixture::start();
    site.html(
        "/form.html",
        "<!doctype html><title>Form</title><input id=f aria-label=From>\
         <button onclick=\"n.textContent=+n.textContent+1\">Add</button> <span id=n>0</span>",
    );
    // Step 1 fills the field; the second call is held until the client gives up on it; were it
    // answered, a click would follow.
    let model = Model::start(|n, body| match n {
        0 => match ref_of(&last_user_text(body), "textbox \"From\"") {
            Some(r) => tool_calls(&[("fill", json!({ "ref": r, "value": "Miami" }))]),
            None => tool_calls(&[("fail", json!({ "reason": "no field" }))]),
        },
        _ => hold(),
    });
    let sid = env.start(&["--open-url", &site.url("/form.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let mut child = env
        .command(
            &[
                &["browser", "ai", "fill the form", "--timeout", "60000"][..],
                &t,
            ]
            .concat(),
        )
        .env("ACTIONBOOK_LLM_PROVIDER", "openai")
        .env("ACTIONBOOK_LLM_BASE_URL", model.server.base_url())
        .env("ACTIONBOOK_LLM_MODEL", "scripted-1")
        .env("ACTIONBOOK_LLM_API_KEY", "sk-test")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the client");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
    assert!(
        line.starts_with("step 1: fill @e") && line.contains("textbox \"From\""),
        "{line:?}"
    );
    assert!(
        eventually(Duration::from_secs(10), || model.server.requests().len()
            == 2),
        "the second model call never came"
    );
    // Ctrl-C.
    let pid = child.id().to_string();
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status();
    assert!(interrupted.is_ok_and(|s| s.success()));
    let _ = child.wait();
    // The daemon drops the model call it was waiting on, and runs nothing after.
    assert!(
        eventually(Duration::from_secs(10), || model.server.dropped() == 1),
        "the loop kept waiting on its model after its client was gone"
    );
    let value = on(&env, &t, &["eval", "f.value + ' ' + n.textContent"]);
    assert_eq!(value["data"]["value"], "Miami 0", "{value}");
    assert_eq!(model.server.requests().len(), 2);
}

#[test]
fn ai_cache_is_in_the_tree_and_lists_an_empty_cache() {
    let env = Env::new();
    let listed = env.json(&["ai-cache", "list"]);
    assert_eq!(listed["ok"], true, "{listed}");
    assert_eq!(listed["command"], "ai-cache list");
    assert_eq!(listed["data"]["entries"], json!([]), "{listed}");
    let help = env.run(&["ai-cache", "--help"]);
    assert!(
        help.stdout.contains("list") && help.stdout.contains("clear"),
        "{help:?}"
    );
    let cleared = env.run(&["ai-cache", "clear"]);
    assert_eq!(cleared.code, 0, "{cleared:?}");
    assert!(cleared.stdout.contains("removed: 0"), "{cleared:?}");
}

#[test]
fn mcp_sends_the_loops_steps_as_progress_and_a_cancel_stops_it_in_the_daemon() {
    need_chromium!();
    let env = Env::new();
    let site = Fixture::start();
    site.html(
        "/form.html",
        "<!doctype html><title>Form</title><input id=f aria-label=From>",
    );
    let model = Model::start(|n, body| match n {
        0 => match ref_of(&last_user_text(body), "textbox \"From\"") {
            Some(r) => tool_calls(&[("fill", json!({ "ref": r, "value": "Miami" }))]),
            None => tool_calls(&[("fail", json!({ "reason": "no field" }))]),
        },
        _ => hold(),
    });
    let base_url = model.server.base_url();
    let vars = [
        ("ACTIONBOOK_LLM_PROVIDER", "openai"),
        ("ACTIONBOOK_LLM_BASE_URL", base_url.as_str()),
        ("ACTIONBOOK_LLM_MODEL", "scripted-1"),
        ("ACTIONBOOK_LLM_API_KEY", "sk-test"),
    ];
    let mut c = Client::spawn_with(&env, &["--tools", "all"], &vars);
    c.initialize();
    let started = c.call_ok(
        "browser_start",
        json!({ "headless": true, "open_url": site.url("/form.html") }),
    );
    let sid = started["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let call = json!({
        "jsonrpc": "2.0", "id": 900, "method": "tools/call",
        "params": { "name": "browser_ai", "_meta": { "progressToken": "p-1" },
                    "arguments": { "task": "fill the form", "session": sid, "tab": "t1", "timeout": 60000 } }
    });
    c.send_line(&call.to_string());
    let note = c.read();
    assert_eq!(note["method"], "notifications/progress", "{note}");
    assert_eq!(note["params"]["progressToken"], "p-1", "{note}");
    assert_eq!(note["params"]["progress"], 1, "{note}");
    assert!(
        note["params"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("step 1: fill @e")),
        "{note}"
    );
    assert!(
        eventually(Duration::from_secs(10), || model.server.requests().len()
            == 2),
        "the second model call never came"
    );
    c.send_line(
        &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 900 } })
            .to_string(),
    );
    assert!(
        eventually(Duration::from_secs(10), || model.server.dropped() == 1),
        "the loop kept waiting on its model after the cancel"
    );
    // No answer to the cancelled call: the next message is the ping's.
    let pong = c.rpc("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
    let title = c.call_ok("browser_title", json!({ "session": sid, "tab": "t1" }));
    assert_eq!(title["data"]["value"], "Form", "{title}");
    assert_eq!(model.server.requests().len(), 2);
}

/// The agent crate's stdio MCP test server (Python's stdlib only): `lookup {key}`.
const KV_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../agent/tests/agent/fixtures/kv_server.py"
);

#[test]
fn perform_runs_an_mcp_servers_tool_from_the_flag_through_the_daemon_and_mcp_cannot_name_one() {
    need_chromium!();
    let env = Env::new();
    let site = Fixture::start();
    site.html("/p.html", "<!doctype html><title>P</title><p>hello</p>");
    let model = Model::start(|_, _| tool_calls(&[("kv__lookup", json!({ "key": "coupon" }))]));
    let sid = env.start(&["--open-url", &site.url("/p.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = dir.path().join("kv.pid");
    let line = format!(
        "kv=python3 {KV_SERVER} serve {} coupon=SAVE-42",
        pidfile.display()
    );
    let llm = |c: &mut std::process::Command| {
        c.env("ACTIONBOOK_LLM_PROVIDER", "openai")
            .env("ACTIONBOOK_LLM_BASE_URL", model.server.base_url())
            .env("ACTIONBOOK_LLM_MODEL", "scripted-1")
            .env("ACTIONBOOK_LLM_API_KEY", "sk-test");
    };
    let mut c = env.command(
        &[
            &[
                "browser",
                "perform",
                "look up the coupon",
                "--mcp-server",
                &line,
            ][..],
            &t,
        ]
        .concat(),
    );
    llm(&mut c);
    let out = c.output().expect("run actionbook");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("kv__lookup"), "{stdout}");
    assert!(stdout.contains("result: SAVE-42"), "{stdout}");
    // The daemon ran the server for the command and it is gone after.
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .expect("the server wrote its pid");
    assert!(
        eventually(Duration::from_secs(5), || !std::path::Path::new(&format!(
            "/proc/{pid}"
        ))
        .exists()),
        "the MCP server {pid} outlived the command"
    );

    // An MCP client cannot make the engine run a program: the argument is not in the schema.
    let other = dir.path().join("never.pid");
    let mut client = Client::spawn(&env, &["--tools", "all"]);
    client.initialize();
    let refused = client.rpc(
        "tools/call",
        json!({ "name": "browser_ai", "arguments": {
            "task": "t", "session": sid, "tab": "t1", "timeout": 10000,
            "mcp_server": [format!("python3 {KV_SERVER} serve {}", other.display())] } }),
    );
    let said = refused.to_string();
    assert!(
        said.contains("mcp_server") && said.contains("unknown argument"),
        "{said}"
    );
    assert!(!other.exists(), "the server ran");
}
