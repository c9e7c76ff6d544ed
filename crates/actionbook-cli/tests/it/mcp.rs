//! `actionbook mcp` driven by a test MCP client: the server is a child process speaking JSON-RPC
//! lines over its pipes, against a real Chromium and pages served on 127.0.0.1.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, assert_failure, site};

/// How long a test waits for one answer (a browser start under load included).
const ANSWER: Duration = Duration::from_secs(90);

/// A minimal MCP client: requests with sequential ids, answers matched by id.
pub(crate) struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Client {
    pub(crate) fn spawn(env: &Env, args: &[&str]) -> Client {
        Client::spawn_with(env, args, &[])
    }

    /// [`Client::spawn`] with these variables in the server's environment.
    pub(crate) fn spawn_with(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Client {
        let mut command = env.command(&[&["mcp"][..], args].concat());
        command.envs(vars.iter().copied());
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn actionbook mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next message from the server.
    pub(crate) fn read(&self) -> Value {
        let line = self.lines.recv_timeout(ANSWER).expect("an answer in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its whole response (result or error).
    pub(crate) fn rpc(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let answer = self.read();
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// A request that must succeed: its result.
    pub(crate) fn ok(&mut self, method: &str, params: Value) -> Value {
        let answer = self.rpc(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// A tool call: its result (a tool result, failed or not).
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.ok("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A tool call that must succeed: the envelope.
    pub(crate) fn call_ok(&mut self, tool: &str, arguments: Value) -> Value {
        let r = self.call(tool, arguments);
        assert_eq!(r["isError"], false, "{tool}: {r}");
        assert_eq!(r["structuredContent"]["ok"], true, "{tool}: {r}");
        r["structuredContent"].clone()
    }

    pub(crate) fn initialize(&mut self) -> Value {
        let r = self.ok(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "it", "version": "0"}}),
        );
        self.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// Every tool, following `nextCursor`; and the number of pages.
    fn list_all(&mut self) -> (Vec<Value>, usize) {
        let (mut tools, mut pages, mut cursor) = (Vec::new(), 0, Value::Null);
        loop {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            let r = self.ok("tools/list", params);
            pages += 1;
            tools.extend(r["tools"].as_array().cloned().unwrap_or_default());
            match r.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = c.clone(),
                _ => return (tools, pages),
            }
            assert!(pages < 100, "tools/list never ends");
        }
    }

    /// Closes stdin and waits for the server to exit: its exit status code.
    fn close_and_wait(&mut self) -> Option<i32> {
        drop(self.stdin.take());
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tool's schema is a JSON Schema object every property of which is typed and documented, and
/// whose required fields exist.
#[track_caller]
fn assert_valid_tool(tool: &Value) {
    let name = tool["name"].as_str().unwrap_or_default();
    assert!(!name.is_empty() && name.len() <= 64, "{tool}");
    assert!(
        tool["description"].as_str().is_some_and(|d| !d.is_empty()),
        "{tool}"
    );
    let schema = &tool["inputSchema"];
    assert_eq!(schema["type"], "object", "{tool}");
    let props = schema["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{tool}"));
    for (field, p) in props {
        assert!(p.is_object(), "{name}.{field}: {p}");
        assert!(
            p.get("type").is_some()
                || p.get("enum").is_some()
                || p.get("anyOf").is_some()
                || p.get("oneOf").is_some(),
            "{name}.{field} has no type: {p}"
        );
        assert!(
            p["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}.{field}: {p}"
        );
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        assert!(
            props.contains_key(r.as_str().unwrap_or_default()),
            "{name}: required {r}"
        );
    }
    assert!(!schema.to_string().contains("$ref"), "{tool}");
    for hint in ["readOnlyHint", "destructiveHint", "idempotentHint"] {
        assert!(tool["annotations"][hint].is_boolean(), "{tool}");
    }
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn an_mcp_client_lists_tools_and_drives_a_page_through_the_daemon() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let mut c = Client::spawn(&env, &["--tools", "all", "--page-size", "4"]);

    let init = c.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18", "{init}");
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    assert_eq!(init["serverInfo"]["name"], "actionbook");
    assert_eq!(c.ok("ping", json!({})), json!({}));

    // Every command of the table is a tool, four to a page: the engine's own and the agent layer's.
    let (tools, pages) = c.list_all();
    actionbook_agent::register();
    let all = actionbook::commands::extension::all_commands();
    assert_eq!(tools.len(), all.len());
    assert_eq!(all.len(), actionbook::COMMANDS.len() + 6);
    for agent in [
        "browser_perform",
        "browser_ai",
        "browser_extract",
        "ai",
        "ai_cache_list",
        "ai_cache_clear",
    ] {
        assert!(tools.iter().any(|t| t["name"] == agent), "{agent} missing");
    }
    assert_eq!(pages, tools.len().div_ceil(4));
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    tools.iter().for_each(assert_valid_tool);
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), tools.len(), "duplicate tool names");
    let click = tools
        .iter()
        .find(|t| t["name"] == "browser_click")
        .expect("browser_click");
    assert_eq!(click["annotations"]["readOnlyHint"], false);
    let snapshot = tools
        .iter()
        .find(|t| t["name"] == "browser_snapshot")
        .expect("snapshot");
    assert_eq!(snapshot["annotations"]["readOnlyHint"], true);
    let bad = c.rpc("tools/list", json!({"cursor": "nope"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // Start, snapshot, click a ref, read the result.
    let start = c.call_ok(
        "browser_start",
        json!({"headless": true, "open_url": f.url("/index.html")}),
    );
    let sid = start["context"]["session_id"]
        .as_str()
        .expect("session id")
        .to_string();
    let nav = c.call_ok(
        "browser_goto",
        json!({"session": sid, "tab": "t1", "url": f.url("/page2.html")}),
    );
    assert_eq!(nav["context"]["title"], "Page Two", "{nav}");
    c.call_ok("browser_back", json!({"session": sid, "tab": "t1"}));
    let snap = c.call("browser_snapshot", json!({"session": sid, "tab": "t1"}));
    assert_eq!(snap["isError"], false, "{snap}");
    let submit = snap["structuredContent"]["data"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["role"] == "button" && n["name"] == "Submit")
        .and_then(|n| n["ref"].as_str())
        .map(|r| format!("@{r}"))
        .unwrap_or_else(|| panic!("no Submit button in {snap}"));
    // The agent reads the tree itself in the text content, not only the file's path.
    let text = text_of(&snap);
    assert!(text.contains("output saved to"), "{text}");
    let line = format!("button \"Submit\" [ref={}]", &submit[1..]);
    assert!(text.contains(&line), "{line} not in {text}");
    assert!(text.contains("Conformance Fixture"), "{text}");
    let clicked = c.call(
        "browser_click",
        json!({"session": sid, "tab": "t1", "selector": submit}),
    );
    assert_eq!(clicked["isError"], false, "{clicked}");
    assert!(
        text_of(&clicked).starts_with(&format!("[{sid} t1]")),
        "{clicked}"
    );
    let title = c.call_ok("browser_title", json!({"session": sid, "tab": "t1"}));
    assert_eq!(title["data"]["value"], "clicked", "{title}");

    // Failures are tool results with isError and the envelope, not protocol errors.
    let bad = c.call(
        "browser_click",
        json!({"session": sid, "tab": "t1", "selector": 5}),
    );
    assert_eq!(bad["isError"], true, "{bad}");
    assert_eq!(bad["structuredContent"]["ok"], false);
    assert_eq!(
        bad["structuredContent"]["error"]["code"], "INVALID_ARGUMENT",
        "{bad}"
    );
    assert!(text_of(&bad).contains("INVALID_ARGUMENT"), "{bad}");
    let typo = c.call(
        "browser_title",
        json!({"session": sid, "tab": "t1", "tabs": "t2"}),
    );
    assert_eq!(
        typo["structuredContent"]["error"]["code"], "INVALID_ARGUMENT",
        "{typo}"
    );
    let missing = c.call(
        "browser_click",
        json!({"session": sid, "tab": "t1", "selector": "#nope", "timeout": 1500}),
    );
    assert_eq!(missing["isError"], true, "{missing}");
    assert_eq!(
        missing["structuredContent"]["error"]["code"], "ELEMENT_NOT_FOUND",
        "{missing}"
    );
    let gone = c.call("browser_title", json!({"session": "nosuch", "tab": "t1"}));
    assert_eq!(
        gone["structuredContent"]["error"]["code"], "SESSION_NOT_FOUND",
        "{gone}"
    );
    let unknown = c.rpc(
        "tools/call",
        json!({"name": "browser_fly", "arguments": {}}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let method = c.rpc("resources/list", json!({}));
    assert_eq!(method["error"]["code"], -32601, "{method}");
    c.send_line("{not json");
    let parse = c.read();
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{parse}"
    );

    // The CLI shares the session: it sees the tab the MCP client opened.
    let opened = c.call_ok(
        "browser_new_tab",
        json!({"session": sid, "urls": [f.url("/page2.html")]}),
    );
    let tab = opened["context"]["tab_id"]
        .as_str()
        .expect("new tab id")
        .to_string();
    let tabs = env.json(&["browser", "list-tabs", "--session", &sid]);
    let listed = tabs["data"]["tabs"].as_array().cloned().unwrap_or_default();
    assert!(
        listed
            .iter()
            .any(|t| t["tab_id"] == tab.as_str() && t["url"] == f.url("/page2.html").as_str()),
        "{tabs}"
    );

    // End of input: the server exits cleanly; the session outlives it.
    assert_eq!(c.close_and_wait(), Some(0));
    let status = env.json(&["browser", "status", "--session", &sid]);
    assert_eq!(status["ok"], true, "{status}");
}

#[test]
fn a_fixed_session_in_process_serves_the_core_profile() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let mut c = Client::spawn(&env, &["--session", "work", "--in-process"]);
    c.initialize();
    let (tools, pages) = c.list_all();
    assert_eq!(pages, 1);
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for core in [
        "browser_start",
        "browser_snapshot",
        "browser_click",
        "browser_fill",
        "browser_goto",
        "browser_list_tabs",
    ] {
        assert!(names.contains(&core), "{core} missing from {names:?}");
    }
    assert!(!names.contains(&"browser_title"), "{names:?}");
    for t in &tools {
        assert_valid_tool(t);
        assert!(
            t["inputSchema"]["properties"].get("session").is_none(),
            "{t}"
        );
    }

    let start = c.call_ok(
        "browser_start",
        json!({"headless": true, "open_url": f.url("/index.html")}),
    );
    assert_eq!(start["context"]["session_id"], "work", "{start}");
    c.call_ok(
        "browser_fill",
        json!({"tab": "t1", "selector": "#name", "text": "Ada"}),
    );
    let value = c.call_ok(
        "browser_eval",
        json!({"tab": "t1", "code": "document.querySelector('#name').value"}),
    );
    assert_eq!(value["data"]["value"], "Ada", "{value}");
    let off = c.rpc(
        "tools/call",
        json!({"name": "browser_title", "arguments": {"tab": "t1"}}),
    );
    assert_eq!(
        off["error"]["code"], -32602,
        "a tool outside the profile is unknown: {off}"
    );

    // A call in flight when input ends is still answered before the server exits.
    let id = 99;
    c.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "browser_eval", "arguments": {"tab": "t1", "code": "new Promise(r => setTimeout(() => r(7), 500))"}}}).to_string());
    assert_eq!(c.close_and_wait(), Some(0));
    let answer = c.read();
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["data"]["value"], 7,
        "{answer}"
    );
    // The browser outlives the in-process engine: the CLI's daemon re-attaches to it.
    let title = env.json(&["browser", "title", "--session", "work", "--tab", "t1"]);
    assert_eq!(title["data"]["value"], "Fixture Home", "{title}");
}

/// Every published schema says what its tool accepts: a valid object schema whose `required`
/// names exist, and a call without any one of them is refused naming it; the bounds a schema
/// states (quality, selector count, timeout) are the ones calls get; eval takes the code itself.
/// No browser: every call here is refused before anything runs, or needs none.
#[test]
fn every_schema_says_what_its_tool_accepts() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--tools", "all", "--in-process"]);
    c.initialize();
    let (tools, _) = c.list_all();
    assert!(tools.len() > 50, "{}", tools.len());
    let refused = |r: &Value, part: &str| {
        assert_eq!(r["isError"], true, "{r}");
        assert_failure(&r["structuredContent"], "INVALID_ARGUMENT", part);
    };
    for tool in &tools {
        assert_valid_tool(tool);
        let name = tool["name"].as_str().unwrap_or_default();
        let required: Vec<&str> = tool["inputSchema"]["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for left_out in &required {
            let arguments: serde_json::Map<String, Value> = required
                .iter()
                .filter(|r| *r != left_out)
                .map(|r| (r.to_string(), json!("x")))
                .collect();
            let r = c.call(name, Value::Object(arguments));
            refused(&r, &format!("missing argument \"{left_out}\""));
        }
    }
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let t = json!({"session": "s1", "tab": "t1"});
    let with = |extra: Value| {
        let mut args = t.clone();
        if let (Some(a), Value::Object(e)) = (args.as_object_mut(), extra) {
            a.extend(e);
        }
        args
    };

    let quality = &find("browser_screenshot")["inputSchema"]["properties"]["screenshot_quality"];
    assert_eq!(
        (quality["minimum"].clone(), quality["maximum"].clone()),
        (json!(0), json!(100))
    );
    let r = c.call(
        "browser_screenshot",
        with(json!({"path": "a.jpg", "screenshot_quality": 200})),
    );
    refused(&r, "screenshot_quality must be at most 100");

    let selectors = &find("browser_batch_click")["inputSchema"]["properties"]["selectors"];
    assert_eq!(selectors["minItems"], 2, "{selectors}");
    let r = c.call("browser_batch_click", with(json!({"selectors": ["#a"]})));
    refused(&r, "selectors needs at least 2 items");

    // `timeout` as the CLI's --timeout: 0 allowed (no time given), negative refused.
    let timeout = &find("browser_list_sessions")["inputSchema"]["properties"]["timeout"];
    assert_eq!(timeout["minimum"], 0, "{timeout}");
    let r = c.call("browser_list_sessions", json!({"timeout": 0}));
    assert_ne!(
        r["structuredContent"]["error"]["code"], "INVALID_ARGUMENT",
        "{r}"
    );
    let r = c.call("browser_list_sessions", json!({"timeout": -1}));
    refused(&r, "timeout must be at least 0");

    let eval = find("browser_eval");
    let schema = &eval["inputSchema"];
    assert!(schema["properties"].get("file").is_none(), "{eval}");
    assert!(
        schema["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("code"))),
        "{eval}"
    );
    assert!(!eval.to_string().contains("stdin"), "{eval}");
    refused(
        &c.call("browser_eval", with(json!({"code": "-"}))),
        "send the code itself",
    );
    refused(
        &c.call("browser_eval", with(json!({"code": "1", "file": "a.js"}))),
        "unknown argument \"file\"",
    );
    assert_eq!(c.close_and_wait(), Some(0));
}

/// A request whose id is null is invalid (MCP forbids null ids): answered -32600 with a null
/// id, not taken for a notification and left unanswered.
#[test]
fn a_request_with_a_null_id_is_answered_invalid() {
    let env = Env::new();
    let mut c = Client::spawn(&env, &["--in-process"]);
    c.initialize();
    c.send_line(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    let answer = c.read();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // Still serving.
    assert_eq!(c.ok("ping", json!({})), json!({}));
    assert_eq!(c.close_and_wait(), Some(0));
}

/// A wait cancelled by the client (`notifications/cancelled`) stops as a wait whose CLI client
/// is gone does: its tab is free at once (not held for its whole timeout) and the cancelled
/// request gets no response. Through the daemon and in process alike.
#[test]
fn a_cancelled_wait_stops_frees_its_tab_and_is_not_answered() {
    need_chromium!();
    let f = site();
    for mode in [&[][..], &["--in-process"][..]] {
        let env = Env::new();
        let mut c = Client::spawn(
            &env,
            &[&["--tools", "core,browser_title"][..], mode].concat(),
        );
        c.initialize();
        let start = c.call_ok(
            "browser_start",
            json!({"headless": true, "open_url": f.url("/index.html")}),
        );
        let sid = start["context"]["session_id"]
            .as_str()
            .expect("session id")
            .to_string();
        let waiting = c.next_id;
        c.next_id += 1;
        c.send_line(
            &json!({"jsonrpc": "2.0", "id": waiting, "method": "tools/call", "params": {
                "name": "browser_wait_condition",
                "arguments": {"session": sid, "tab": "t1", "expression": "false", "timeout": 600000}
            }})
            .to_string(),
        );
        c.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": waiting, "reason": "the user gave up"}})
            .to_string(),
        );
        // Not held until the wait's 10 minutes: the tab answers within the title's own timeout.
        let title = c.call(
            "browser_title",
            json!({"session": sid, "tab": "t1", "timeout": 20000}),
        );
        assert_eq!(
            title["structuredContent"]["data"]["value"], "Fixture Home",
            "{mode:?}: {title}"
        );
        c.call_ok("browser_close", json!({"session": sid}));
        // The server exits at end of input once its calls are done: the wait is not one of them.
        assert_eq!(c.close_and_wait(), Some(0), "{mode:?}");
        let rest: Vec<String> = c.lines.try_iter().collect();
        assert!(
            rest.iter()
                .all(|l| !l.contains(&format!("\"id\":{waiting},"))),
            "{mode:?}: the cancelled request was answered: {rest:?}"
        );
    }
}
