//! Crash safety: the daemon killed between commands, the browser killed under a session.

use std::time::Duration;

use crate::need_chromium;
use crate::support::{Env, kill, site, start_with_endpoint, wait_gone};

#[test]
fn kill_9_of_the_daemon_keeps_session_tab_and_page() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    env.run(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ])
    .ok();
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    env.run(&[&["browser", "eval", "window.marker = 'kept'"][..], &t2].concat())
        .ok();
    let browsers = env.main_browser_pids();
    assert_eq!(browsers.len(), 1);
    let old_daemon = env.daemon_pid().expect("daemon pid");

    env.kill_daemon();
    assert!(!crate::support::alive(old_daemon));

    // Same session, same tabs, same page (JS state survives: it is the same document).
    let v = env.json(&[&["browser", "eval", "window.marker"][..], &t2].concat());
    assert_eq!(v["data"]["value"], "kept", "{v}");
    assert_ne!(env.daemon_pid(), Some(old_daemon));
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["total_tabs"], 2, "{v}");
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Fixture Home");
    assert_eq!(
        env.main_browser_pids(),
        browsers,
        "browser process count changed"
    );
    // New tabs continue the numbering.
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/index.html"),
        "--session",
        &sid,
    ]);
    assert_eq!(v["context"]["tab_id"], "t3");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["sessions"][0]["status"], "running");

    // Closing a browser launched by the previous daemon leaves no process behind.
    env.kill_daemon();
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["data"]["closed_tabs"], 3, "{v}");
    for pid in env.browser_pids() {
        assert!(
            wait_gone(pid, Duration::from_secs(5)),
            "chromium {pid} survived close"
        );
    }
}

#[test]
fn killed_browser_gives_a_clear_error_and_restart_recovers() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    for pid in env.main_browser_pids() {
        kill(pid);
        assert!(wait_gone(pid, Duration::from_secs(5)));
    }
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "CDP_CONNECTION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("restart")),
        "{v}"
    );
    let v = env.json(&["browser", "status", "--session", &sid]);
    assert_eq!(v["data"]["session"]["status"], "crashed", "{v}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(
        v["data"]["total_sessions"], 1,
        "a crashed session must stay listed"
    );

    let v = env.json(&["browser", "restart", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["session"]["session_id"], sid.as_str());
    assert_eq!(v["data"]["session"]["status"], "running");
    let v = env.json(&[
        "browser",
        "goto",
        &f.url("/page2.html"),
        "--session",
        &sid,
        "--tab",
        "t1",
    ]);
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
}

#[test]
fn a_daemon_of_another_build_is_replaced_and_sessions_survive() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let old_daemon = env.daemon_pid().expect("daemon");
    let old_version = std::fs::read_to_string(env.home.join("daemon.version")).expect("version");
    // A copy of the binary has another mtime, hence another build id.
    let copy = env
        .home
        .parent()
        .expect("dir")
        .join("actionbook-other-build");
    std::fs::copy(env!("CARGO_BIN_EXE_actionbook"), &copy).expect("copy binary");
    let out = env
        .command(&[
            "browser",
            "title",
            "--session",
            &sid,
            "--tab",
            "t1",
            "--json",
        ])
        .output()
        .expect("run");
    assert!(out.status.success());
    let mut cmd = std::process::Command::new(&copy);
    cmd.args([
        "browser",
        "title",
        "--session",
        &sid,
        "--tab",
        "t1",
        "--json",
    ])
    .env("ACTIONBOOK_HOME", &env.home);
    let out = cmd.output().expect("run copy");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not an envelope ({e}), exit {:?}: stdout {:?} stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    assert!(
        wait_gone(old_daemon, Duration::from_secs(5)),
        "old daemon still running"
    );
    let new_version = std::fs::read_to_string(env.home.join("daemon.version")).expect("version");
    assert_ne!(old_version, new_version);
    // Back to the original binary: replaced again, still the same session.
    let v = env.json(&["browser", "url", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], f.url("/index.html").as_str(), "{v}");
}

/// Crashes the renderer of a page target, as an out-of-memory kill would (`Page.crash` from a
/// separate CDP client, so the daemon learns of it only from the browser).
fn crash_page(cdp_endpoint: &str, target_id: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (conn, _) = cdp_protocol::connect(cdp_endpoint, &[])
            .await
            .expect("connect");
        let page = conn
            .browser()
            .attach_to_target(&cdp_protocol::TargetId::from(target_id))
            .await
            .expect("attach");
        // Subscribed first: the crash is done only once Chromium says so (a loaded machine takes
        // its time to kill the renderer, and a client attaching before then sees it crash live).
        let mut crashed = page.subscribe::<cdp_protocol::inspector::TargetCrashed>();
        // No answer comes from a renderer that is gone.
        let _ = page
            .call_timeout(
                "Page.crash",
                serde_json::json!({}),
                Duration::from_millis(500),
            )
            .await;
        let _ = tokio::time::timeout(Duration::from_secs(10), crashed.recv()).await;
    });
}

/// The answer of a command on a tab whose page crashed: CDP_CONNECTION_FAILED saying so, with
/// the reload remedy.
fn assert_crashed(v: &serde_json::Value) {
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "CDP_CONNECTION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("crashed") && m.contains("browser reload")),
        "{v}"
    );
}

#[test]
fn a_crashed_page_answers_at_once_and_reload_or_goto_bring_it_back() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let (sid, endpoint, target) = start_with_endpoint(&env, &f.url("/index.html"));
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // Attached before the crash, so the daemon's session sees it happen.
    env.json(&[&["browser", "title"][..], &t].concat());

    crash_page(&endpoint, &target);
    // Not a wait for --timeout: the tab knows its page is gone.
    for cmd in [
        &["browser", "eval", "1+1"][..],
        &["browser", "snapshot"],
        &["browser", "title"],
    ] {
        assert_crashed(&env.json(&[cmd, &t, &["--timeout", "20000"]].concat()));
    }
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["total_tabs"], 1, "the tab stays: {v}");
    let v = env.json(&[&["browser", "reload"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
    let v = env.json(&[&["browser", "eval", "6*7"][..], &t].concat());
    assert_eq!(v["data"]["value"], 42, "{v}");

    crash_page(&endpoint, &target);
    assert_crashed(&env.json(&[&["browser", "url"][..], &t].concat()));
    let v = env.json(&[&["browser", "goto", &f.url("/page2.html")][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["from_url"], f.url("/index.html"), "{v}");
    assert_eq!(v["context"]["title"], "Page Two", "{v}");

    // A crash while a command runs ends that command (the promise would settle only after 10 s).
    let crasher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(800));
        crash_page(&endpoint, &target);
    });
    let v = env.json(
        &[
            &[
                "browser",
                "eval",
                "new Promise(r => setTimeout(() => r('late'), 10000))",
            ][..],
            &t,
            &["--timeout", "20000"],
        ]
        .concat(),
    );
    crasher.join().expect("crasher");
    assert_crashed(&v);
    let v = env.json(&[&["browser", "reload"][..], &t].concat());
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
}

#[test]
fn a_page_that_crashed_while_no_daemon_was_attached_is_reported_and_reloads() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let (sid, endpoint, target) = start_with_endpoint(&env, &f.url("/index.html"));
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    env.kill_daemon();
    crash_page(&endpoint, &target);

    // The new daemon attaches to a page that is already gone: Chromium tells a new session so
    // only when it enables the Inspector domain, which the attach does; the page is reported
    // crashed, as one that crashed under a daemon is (it was a TIMEOUT "does not answer" after
    // 5 s, with no word of the crash).
    for cmd in [&["browser", "title"][..], &["browser", "eval", "1"]] {
        assert_crashed(&env.json(&[cmd, &t, &["--timeout", "20000"]].concat()));
    }
    let v = env.json(&[&["browser", "reload"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
    let v = env.json(&[&["browser", "goto", &f.url("/page2.html")][..], &t].concat());
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    let v = env.json(&[&["browser", "back"][..], &t].concat());
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
}
