//! The whole stack in-process, as an embedding program uses it: the engine of `actionbook-cli`
//! (no daemon) over a real headless Chromium, on a page served here with an out-of-process iframe;
//! and the tab's network recorder on its own, recording or (a ring of 0) not.

use actionbook::bench_support::RecorderProbe;
use actionbook::commands::observation::Title;
use actionbook::{Engine, EngineConfig, Home, Request, TabTarget};
use cdp_protocol::page;
use cdp_protocol::testing::{
    FixtureServer, chromium_available, launch_test_browser, open_blank_page,
};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

const MAIN: &str = r#"<!doctype html><html><head><title>embedding</title></head><body>
<h1>Embedding</h1>
<label>Name <input id="name"></label>
<iframe id="child" title="Child frame" src="CHILD" style="border:7px solid;padding:3px"></iframe>
<script>
  window.addEventListener('message', e => { document.title = String(e.data); });
</script>
</body></html>"#;

const CHILD: &str = r#"<!doctype html><html><body>
<label>Inner <input id="inner"></label>
<button id="go" onclick="parent.postMessage('child got ' + document.getElementById('inner').value, '*')">Send</button>
</body></html>"#;

/// Runs one command through the engine and returns its envelope as JSON.
async fn run(engine: &Engine, words: &[&str], executable: &Path) -> Value {
    let mut request = match actionbook_cli::cli::request_from_args(words.iter().copied()) {
        Ok(r) => r,
        Err(e) => panic!("{words:?} should parse: {e}"),
    };
    request.env.browser_executable = Some(executable.to_path_buf());
    let envelope = engine.execute(request).await;
    match serde_json::from_str(&envelope.to_json()) {
        Ok(v) => v,
        Err(e) => panic!("envelope JSON: {e}"),
    }
}

/// A Chromium wrapper that adds site isolation, so the localhost iframe is out of process.
fn wrapper(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("chromium-site-isolated.sh");
    let script = "#!/bin/sh\nexec /usr/bin/chromium --site-per-process \"$@\"\n";
    std::fs::write(&path, script).expect("write wrapper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod wrapper");
    path
}

/// Pids of processes whose command line mentions `needle` (the test's own home directory).
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

fn kill_all(pids: &[u32]) {
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
}

fn ref_of(snapshot: &str, line_start: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.trim_start().starts_with(line_start))
        .unwrap_or_else(|| panic!("no line starting with {line_start:?} in:\n{snapshot}"));
    let at = line
        .find("[ref=")
        .unwrap_or_else(|| panic!("no ref on {line:?}"));
    let rest = &line[at + 5..];
    format!("@{}", &rest[..rest.find(']').unwrap_or(rest.len())])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_engine_drives_a_page_across_an_out_of_process_iframe() {
    if !chromium_available() {
        panic!("/usr/bin/chromium is required (apt-get install -y chromium)");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let needle = home.display().to_string();
    let exe = wrapper(dir.path());
    let server = FixtureServer::start().await;
    server.route("/child.html", "text/html", CHILD);
    server.route(
        "/main.html",
        "text/html",
        MAIN.replace("CHILD", &server.cross_site_url("/child.html")),
    );
    let engine = Engine::new(EngineConfig {
        home: Home::at(&home),
    })
    .expect("engine");

    let result = tokio::time::timeout(Duration::from_secs(120), async {
        let url = server.url("/main.html");
        let v = run(
            &engine,
            &[
                "browser",
                "start",
                "--headless",
                "--set-session-id",
                "emb",
                "--open-url",
                &url,
            ],
            &exe,
        )
        .await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["context"]["session_id"], "emb");
        assert_eq!(v["context"]["tab_id"], "t1");
        assert_eq!(v["context"]["title"], "embedding");

        let tab = ["--session", "emb", "--tab", "t1"];
        let v = run(
            &engine,
            &[&["browser", "snapshot"][..], &tab].concat(),
            &exe,
        )
        .await;
        assert_eq!(v["ok"], true, "{v}");
        let path = v["data"]["path"].as_str().expect("snapshot path");
        let text = std::fs::read_to_string(path).expect("snapshot file");
        // The OOPIF's controls are nested under the iframe line, with refs.
        let iframe_line = text
            .lines()
            .position(|l| l.contains("iframe \"Child frame\""))
            .unwrap_or_else(|| panic!("iframe line missing:\n{text}"));
        let inner = ref_of(&text, "- textbox \"Inner\"");
        let send = ref_of(&text, "- button \"Send\"");
        let inner_line = text
            .lines()
            .position(|l| l.contains(&format!("[ref={}]", &inner[1..])))
            .unwrap_or(0);
        assert!(
            inner_line > iframe_line,
            "OOPIF content must come under its iframe:\n{text}"
        );

        let v = run(
            &engine,
            &[&["browser", "fill", &inner, "across sites"][..], &tab].concat(),
            &exe,
        )
        .await;
        assert_eq!(v["ok"], true, "{v}");
        let v = run(
            &engine,
            &[&["browser", "click", &send][..], &tab].concat(),
            &exe,
        )
        .await;
        assert_eq!(v["ok"], true, "{v}");
        // The child posts its input's value to the parent, which puts it in the title.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let v = run(&engine, &[&["browser", "title"][..], &tab].concat(), &exe).await;
            if v["data"]["value"] == "child got across sites" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the click in the OOPIF did not land: {v}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        // A typed command, no argv: what an embedder or an MCP server sends.
        let typed = engine
            .execute(Request::new(Title {
                target: TabTarget::new("emb", "t1"),
            }))
            .await;
        assert!(typed.ok(), "{}", typed.to_json());
        assert_eq!(
            typed.to_text().lines().last(),
            Some("child got across sites")
        );

        // A typed request is checked as the CLI checks its words: a JPEG quality past 100 (the
        // schema's bound, which serde does not enforce) is refused, not passed to Chromium.
        let shot = actionbook::Command::from_json(
            actionbook::CommandName::BrowserScreenshot,
            serde_json::json!({
                "path": dir.path().join("q.jpg").to_string_lossy(),
                "session": "emb",
                "tab": "t1",
                "screenshot_quality": 200,
            }),
        )
        .expect("a screenshot request");
        let v: Value = serde_json::from_str(&engine.execute(Request::new(shot)).await.to_json())
            .expect("an envelope");
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");

        // Bad input answers with an envelope and the right code; the session stays usable.
        assert!(
            actionbook_cli::cli::request_from_args(["browser", "goto"]).is_err(),
            "a missing URL is a usage error"
        );
        let v = run(
            &engine,
            &["browser", "title", "--session", "nope", "--tab", "t1"],
            &exe,
        )
        .await;
        assert_eq!(v["error"]["code"], "SESSION_NOT_FOUND", "{v}");
        let v = run(
            &engine,
            &[
                &["browser", "click", "#missing", "--timeout", "300"][..],
                &tab,
            ]
            .concat(),
            &exe,
        )
        .await;
        assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
        let v = run(
            &engine,
            &[&["browser", "eval", "1 + 1"][..], &tab].concat(),
            &exe,
        )
        .await;
        assert_eq!(v["data"]["value"], 2, "{v}");

        let v = run(&engine, &["browser", "close", "--session", "emb"], &exe).await;
        assert_eq!(v["ok"], true, "{v}");
    })
    .await;

    // Every browser process of this test is gone after close (and is killed if the test failed).
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = processes_mentioning(&needle);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = processes_mentioning(&needle);
    }
    kill_all(&left);
    result.expect("the embedded session finished within its time limit");
    assert!(
        left.is_empty(),
        "browser processes left after close: {left:?}"
    );
}

/// Requests the recorder saw of a load of `url` (21 requests), its ring `capacity` (0: off).
async fn recorder_saw(browser: &cdp_protocol::Browser, url: &str, capacity: usize) -> usize {
    let (target_id, session) = match open_blank_page(browser).await {
        Ok(p) => p,
        Err(e) => panic!("open a page: {e}"),
    };
    let conn = browser.connection().clone();
    let probe = match RecorderProbe::start(&conn, &target_id, &session, capacity).await {
        Ok(p) => p,
        Err(e) => panic!("start the recorder: {e}"),
    };
    let mut loaded = session.subscribe::<page::LoadEventFired>();
    if let Err(e) = session.send(&page::Enable).await {
        panic!("Page.enable: {e}");
    }
    let nav = page::Navigate {
        url: url.to_string(),
        ..Default::default()
    };
    if let Err(e) = session.send(&nav).await {
        panic!("navigate: {e}");
    }
    match tokio::time::timeout(Duration::from_secs(30), loaded.recv()).await {
        Ok(Some(Ok(_))) => {}
        other => panic!("no load event: {other:?}"),
    }
    // The recorder applies the load's events on a task of its own: given time to (the whole
    // load for a recording one, a while for one that should see nothing).
    let until = Instant::now() + Duration::from_secs(if capacity > 0 { 10 } else { 1 });
    while probe.seen() < 21 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = probe.seen();
    probe.stop().await;
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorder_with_a_ring_of_zero_leaves_the_network_domain_off() {
    if !chromium_available() {
        panic!("/usr/bin/chromium is required (apt-get install -y chromium)");
    }
    let server = FixtureServer::start().await;
    let imgs: String = (0..20)
        .map(|i| format!("<img src=\"/pixel.gif?i={i}\" width=1 height=1>"))
        .collect();
    server.route(
        "/many.html",
        "text/html",
        format!("<!doctype html><title>many</title>{imgs}"),
    );
    server.route("/pixel.gif", "image/gif", b"GIF89a".to_vec());
    let browser = launch_test_browser().await;
    let url = server.url("/many.html");
    let recording = recorder_saw(&browser, &url, 500).await;
    assert!(
        recording >= 21,
        "a recording recorder saw {recording} of 21"
    );
    // With a ring of 0 no request is seen at all: Chromium sent no Network event.
    assert_eq!(recorder_saw(&browser, &url, 0).await, 0);
    let _ = browser.close().await;
}
