//! Sessions on a remote browser (`--cdp-endpoint`): a Chromium the test launches itself with
//! `--remote-debugging-port=0`, several sessions on it, each in a browser context of its own.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, assert_failure, on, site, value};

/// A Chromium launched by the test (not by actionbook), reachable at `http://127.0.0.1:<port>`;
/// killed on drop. Its profile is under the test's home, so `Env` ends it too.
pub struct RemoteBrowser {
    child: Child,
    /// The DevTools port.
    pub port: u16,
}

impl RemoteBrowser {
    /// Launches Chromium on an ephemeral DevTools port, showing `url` in its first tab.
    pub fn launch(env: &Env, name: &str, url: &str) -> RemoteBrowser {
        let dir: PathBuf = env.home.join(format!("remote-{name}"));
        std::fs::create_dir_all(&dir).expect("profile dir");
        let child = Command::new("/usr/bin/chromium")
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
                &format!("--user-data-dir={}", dir.display()),
                url,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("launch chromium");
        // Chromium writes the port it was given to DevToolsActivePort (first line).
        let file = dir.join("DevToolsActivePort");
        let until = Instant::now() + Duration::from_secs(20);
        let port = loop {
            if let Some(p) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|s| s.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break p;
            }
            assert!(Instant::now() < until, "no DevToolsActivePort in {dir:?}");
            std::thread::sleep(Duration::from_millis(50));
        };
        RemoteBrowser { child, port }
    }

    /// Its browser WebSocket URL (`/json/version`'s `webSocketDebuggerUrl`).
    pub fn ws_url(&self) -> String {
        let endpoint = self.endpoint();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let (conn, ws) = cdp_protocol::connect(&endpoint, &[])
                .await
                .expect("connect");
            conn.close().await;
            ws
        })
    }

    /// Its HTTP endpoint.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Whether the browser process is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the browser (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The browser's page targets as `(target id, browser context id, url)`, read over a CDP
    /// connection of the test's own.
    pub fn pages(&self) -> Vec<(String, String, String)> {
        let endpoint = self.endpoint();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let (conn, _) = cdp_protocol::connect(&endpoint, &[])
                .await
                .expect("connect");
            let v = conn
                .browser()
                .call_timeout(
                    "Target.getTargets",
                    serde_json::json!({}),
                    Duration::from_secs(5),
                )
                .await
                .expect("getTargets");
            conn.close().await;
            v["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t["type"] == "page")
                .map(|t| {
                    let s = |k: &str| t[k].as_str().unwrap_or_default().to_string();
                    (s("targetId"), s("browserContextId"), s("url"))
                })
                .collect()
        })
    }
}

impl Drop for RemoteBrowser {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `browser start --cdp-endpoint <endpoint> --set-session-id <sid> <extra...>`: the envelope.
fn start_on(env: &Env, endpoint: &str, sid: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "browser",
        "start",
        "--cdp-endpoint",
        endpoint,
        "--set-session-id",
        sid,
    ];
    args.extend_from_slice(extra);
    let v = env.json(&args);
    assert_eq!(v["ok"], true, "start {sid}: {v}");
    v
}

/// The session's tabs as `(tab id, target id)`.
fn tabs_of(env: &Env, sid: &str) -> Vec<(String, String)> {
    let v = env.json(&["browser", "list-tabs", "--session", sid]);
    assert_eq!(v["ok"], true, "{v}");
    v["data"]["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["tab_id"].as_str().unwrap_or_default().to_string(),
                t["native_tab_id"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The session's record on disk.
pub fn record(env: &Env, sid: &str) -> Value {
    let path = env.home.join("sessions").join(sid).join("session.json");
    serde_json::from_slice(&std::fs::read(&path).expect("session.json")).expect("json")
}

#[test]
fn sessions_on_one_remote_browser_each_have_their_own_context() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let mut rb = RemoteBrowser::launch(&env, "a", &f.url("/page2.html"));
    let endpoint = rb.endpoint();
    let existing = rb.pages();
    assert_eq!(existing.len(), 1, "{existing:?}");
    let sids = ["r1", "r2", "r3", "r4"];
    for sid in sids {
        let v = start_on(&env, &endpoint, sid, &["--open-url", &f.url("/index.html")]);
        assert_eq!(v["data"]["tab"]["title"], "Fixture Home", "{v}");
    }
    // Each in a context of its own, none the browser's default (where its first tab is).
    let contexts: Vec<String> = sids
        .iter()
        .map(|s| {
            let rec = record(&env, s);
            assert_eq!(rec["context_owned"], true, "{rec}");
            rec["browser_context_id"]
                .as_str()
                .expect("context id")
                .to_string()
        })
        .collect();
    for (i, c) in contexts.iter().enumerate() {
        assert_ne!(c, &existing[0].1, "a session took the default context");
        assert!(!contexts[i + 1..].contains(c), "shared context {c}");
    }
    // Cookies and localStorage set in one session are not seen in another.
    let t = |sid: &'static str| ["--session", sid, "--tab", "t1"];
    value(
        &env,
        &t("r1"),
        "document.cookie = 'who=r1; path=/'; localStorage.setItem('who', 'r1'); 1",
    );
    assert_eq!(value(&env, &t("r1"), "document.cookie"), "who=r1");
    for sid in ["r2", "r3", "r4"] {
        assert_eq!(value(&env, &t(sid), "document.cookie"), "", "{sid}");
        assert_eq!(
            value(&env, &t(sid), "localStorage.getItem('who')"),
            Value::Null,
            "{sid}"
        );
        let v = env.json(&["browser", "cookies", "list", "--session", sid]);
        assert_eq!(v["data"]["items"].as_array().map(Vec::len), Some(0), "{v}");
    }
    let v = env.json(&["browser", "cookies", "list", "--session", "r1"]);
    assert_eq!(v["data"]["items"][0]["value"], "r1", "{v}");
    // Saved state is the session's own context's, and loads into the other session's only.
    let file = env.home.with_file_name("r1-state.json");
    let path = file.display().to_string();
    let v = env.json(&["browser", "storage-state", "save", &path, "--session", "r1"]);
    assert_eq!(v["ok"], true, "{v}");
    let saved = std::fs::read_to_string(&file).unwrap_or_default();
    let state: Value = serde_json::from_str(&saved).unwrap_or(Value::Null);
    let names: Vec<String> = state["cookies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{}={}",
                c["name"].as_str().unwrap_or(""),
                c["value"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(names, vec!["who=r1".to_string()], "{saved}");
    let v = env.json(&["browser", "storage-state", "load", &path, "--session", "r2"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["cookies"], 1, "{v}");
    assert_eq!(value(&env, &t("r2"), "document.cookie"), "who=r1");
    for sid in ["r3", "r4"] {
        assert_eq!(value(&env, &t(sid), "document.cookie"), "", "{sid}");
    }
    assert_eq!(value(&env, &t("r2"), "localStorage.getItem('who')"), "r1");
    let v = env.json(&["browser", "cookies", "clear", "--session", "r2"]);
    assert_eq!(v["ok"], true, "{v}");
    value(&env, &t("r2"), "localStorage.clear(); 1");
    // Tab lists are disjoint, and none holds the browser's own tab; a new tab stays in its session.
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        "r2",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    let mut seen: Vec<String> = Vec::new();
    let mut before: Vec<Vec<(String, String)>> = Vec::new();
    for sid in sids {
        let tabs = tabs_of(&env, sid);
        let want = if sid == "r2" { 2 } else { 1 };
        assert_eq!(tabs.len(), want, "{sid}: {tabs:?}");
        for (_, target) in &tabs {
            assert_ne!(target, &existing[0].0, "{sid} lists the browser's own tab");
            assert!(!seen.contains(target), "{target} listed twice");
            seen.push(target.clone());
        }
        before.push(tabs);
    }
    // Closing one session disposes its context (its tab is gone), the browser and the others go on.
    let v = env.json(&["browser", "close", "--session", "r4"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["closed_tabs"], 1, "{v}");
    assert!(rb.running());
    let pages = rb.pages();
    assert!(
        !pages.iter().any(|p| p.1 == contexts[3]),
        "r4's tab is still open: {pages:?}"
    );
    assert!(pages.iter().any(|p| p.0 == existing[0].0), "{pages:?}");
    for sid in ["r1", "r2", "r3"] {
        let v = on(&env, &t(sid), &["title"]);
        assert_eq!(v["data"]["value"], "Fixture Home", "{sid}: {v}");
    }
    // A daemon killed: a new one finds each session's context, tabs and ids again.
    env.kill_daemon();
    for (i, sid) in ["r1", "r2", "r3"].into_iter().enumerate() {
        assert_eq!(tabs_of(&env, sid), before[i], "{sid}");
        let v = on(&env, &t(sid), &["title"]);
        assert_eq!(v["data"]["value"], "Fixture Home", "{sid}: {v}");
    }
    assert_eq!(
        value(&env, &t("r1"), "localStorage.getItem('who')"),
        "r1",
        "r1's storage survived the daemon"
    );
    assert_eq!(
        value(&env, &t("r2"), "localStorage.getItem('who')"),
        Value::Null
    );
    // A restart gives the session a new context of its own (the old one disposed).
    let v = env.json(&["browser", "restart", "--session", "r3"]);
    assert_eq!(v["ok"], true, "{v}");
    let renewed = record(&env, "r3")["browser_context_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!renewed.is_empty() && renewed != contexts[2], "{renewed}");
    let pages = rb.pages();
    assert!(!pages.iter().any(|p| p.1 == contexts[2]), "{pages:?}");
    assert_eq!(pages.iter().filter(|p| p.1 == renewed).count(), 1);
    // The tab the browser had is driven only when asked for.
    let v = start_on(&env, &endpoint, "shared", &["--attach-existing"]);
    assert_eq!(v["data"]["tab"]["title"], "Page Two", "{v}");
    assert_eq!(
        v["data"]["tab"]["native_tab_id"], existing[0].0,
        "the existing tab: {v}"
    );
    assert_eq!(tabs_of(&env, "shared").len(), 1);
    let v = env.json(&["browser", "close", "--session", "shared"]);
    assert_eq!(v["data"]["closed_tabs"], 0, "{v}");
    assert!(rb.pages().iter().any(|p| p.0 == existing[0].0));
    // A session of its own is the default; --attach-existing without an endpoint is refused.
    let v = env.json(&["browser", "start", "--attach-existing"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--cdp-endpoint");
}

#[test]
fn a_remote_browser_gone_for_good_is_named_at_once_and_the_others_go_on() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let mut gone = RemoteBrowser::launch(&env, "gone", "about:blank");
    let stays = RemoteBrowser::launch(&env, "stays", "about:blank");
    // Credentials in the endpoint are never printed, in the error either.
    let secret = gone.endpoint().replace("http://", "http://agent:hunter2@") + "/?token=hunter3";
    start_on(&env, &secret, "ra", &["--open-url", &f.url("/index.html")]);
    start_on(
        &env,
        &stays.endpoint(),
        "rb",
        &["--open-url", &f.url("/index.html")],
    );
    gone.kill();
    let port = format!("127.0.0.1:{}", gone.port);
    // A long --timeout: the answer comes from the refused connection, not from waiting it out.
    for args in [
        &["title"][..],
        &["snapshot"][..],
        &["goto", &f.url("/page2.html")][..],
    ] {
        let v = on(
            &env,
            &["--session", "ra", "--tab", "t1", "--timeout", "60000"],
            args,
        );
        assert_failure(&v, "CDP_CONNECTION_FAILED", &port);
        assert!(
            !v.to_string().contains("hunter"),
            "a credential printed: {v}"
        );
    }
    let v = env.json(&["browser", "status", "--session", "ra"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&env, &["--session", "rb", "--tab", "t1"], &["title"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    // Closing the session of the gone browser is prompt and clean.
    let v = env.json(&["browser", "close", "--session", "ra"]);
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn upload_to_a_remote_browser_sends_the_files_bytes_to_the_page() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/upload.html",
        r#"<!doctype html><title>Upload</title>
<input type="file" id="one" onchange="window.changes = (window.changes || 0) + 1">
<input type="file" id="many" multiple oninput="window.inputs = (window.inputs || 0) + 1">"#,
    );
    let rb = RemoteBrowser::launch(&env, "up", "about:blank");
    start_on(
        &env,
        &rb.endpoint(),
        "up",
        &["--open-url", &f.url("/upload.html")],
    );
    // Files only this machine has (the browser is told no path of ours).
    let dir = tempfile::tempdir().expect("dir");
    let a = dir.path().join("report.txt");
    let b = dir.path().join("data.bin");
    std::fs::write(&a, "quarterly numbers\n").expect("a");
    std::fs::write(&b, [0u8, 1, 2, 255, 254]).expect("b");
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let t = ["--session", "up", "--tab", "t1"];
    let v = on(&env, &t, &["upload", "#one", &a]);
    assert_eq!(v["ok"], true, "{v}");
    let got = value(
        &env,
        &t,
        "(async () => { const f = document.querySelector('#one').files[0]; \
         return [f.name, f.type, await f.text(), window.changes]; })()",
    );
    assert_eq!(
        got,
        serde_json::json!(["report.txt", "text/plain", "quarterly numbers\n", 1])
    );
    let v = on(&env, &t, &["upload", "#many", &a, &b]);
    assert_eq!(v["ok"], true, "{v}");
    let got = value(
        &env,
        &t,
        "(async () => { const fs = document.querySelector('#many').files; \
         return [fs.length, Array.from(new Uint8Array(await fs[1].arrayBuffer())), window.inputs]; })()",
    );
    assert_eq!(got, serde_json::json!([2, [0, 1, 2, 255, 254], 1]));
    // One input, two files: refused as for a local browser.
    let v = on(&env, &t, &["upload", "#one", &a, &b]);
    assert_failure(&v, "INVALID_ARGUMENT", "takes one file");
}
