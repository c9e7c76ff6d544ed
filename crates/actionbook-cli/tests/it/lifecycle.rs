//! Sessions and tabs (spec 5.1, 5.2, 5.4; sections 7 and 8), in text and JSON.

use std::time::Duration;

use crate::need_chromium;
use crate::support::{Env, on, site, value, wait_gone, write_script};

#[test]
fn ids_contexts_and_tabs() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");

    // 5.2: auto ids from a global counter; --open-url reports the loaded page.
    let v = env.json(&["browser", "start", "--headless", "--open-url", &index]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser start");
    assert_eq!(v["context"]["session_id"], "s1");
    assert_eq!(v["context"]["tab_id"], "t1");
    assert_eq!(v["context"]["url"], index.as_str());
    assert_eq!(v["context"]["title"], "Fixture Home");
    assert_eq!(v["data"]["session"]["mode"], "local");
    assert_eq!(v["data"]["session"]["status"], "running");
    assert_eq!(v["data"]["session"]["headless"], true);
    assert!(
        v["data"]["session"]["cdp_endpoint"]
            .as_str()
            .is_some_and(|s| s.starts_with("ws://"))
    );
    assert_eq!(v["data"]["tab"]["title"], "Fixture Home");
    assert!(v["data"]["tab"]["native_tab_id"].is_string());
    assert_eq!(v["data"]["reused"], false);
    for key in ["ok", "command", "data", "error", "meta"] {
        assert!(v.get(key).is_some());
    }
    assert_eq!(v["meta"]["truncated"], false);
    assert_eq!(v["meta"]["pagination"], serde_json::Value::Null);

    let r = env.run(&["browser", "start", "--headless"]).ok();
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("[s2 t1] "), "{r:?}");
    assert_eq!(lines[1], "ok browser start");
    assert_eq!(lines[2], "mode: local");
    assert_eq!(lines[3], "status: running");
    assert!(lines[4].starts_with("title: "));

    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--set-session-id",
        "research-google",
    ]);
    assert_eq!(v["context"]["session_id"], "research-google");
    let v = env.json(&["browser", "start", "--set-session-id", "research-google"]);
    assert_eq!(v["data"]["reused"], true, "{v}");
    assert_eq!(v["context"]["session_id"], "research-google");

    // Tabs t1, t2, t3; never reused after close.
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        "s1",
    ]);
    assert_eq!(v["context"]["tab_id"], "t2", "{v}");
    assert_eq!(v["data"]["tab"]["title"], "Page Two");
    assert_eq!(v["data"]["created"], true);
    let r = env
        .run(&["browser", "open", &index, "--session", "s1"])
        .ok();
    assert_eq!(
        r.stdout,
        format!("[s1 t3] {index}\nok browser new-tab\ntitle: Fixture Home\n")
    );
    let v = env.json(&["browser", "close-tab", "--session", "s1", "--tab", "t2"]);
    assert_eq!(v["data"]["closed_tab_id"], "t2");
    assert_eq!(v["context"]["tab_id"], "t2");
    let r = env
        .run(&["browser", "close-tab", "--session", "s1", "--tab", "t3"])
        .ok();
    assert_eq!(r.stdout, "[s1 t3]\nok browser close-tab\n");
    let v = env.json(&["browser", "new-tab", &index, "--session", "s1"]);
    assert_eq!(v["context"]["tab_id"], "t4");
    let v = env.json(&["browser", "title", "--session", "s1", "--tab", "t2"]);
    assert_eq!(v["error"]["code"], "TAB_NOT_FOUND");
    assert_eq!(v["context"]["session_id"], "s1");

    let v = env.json(&["browser", "list-tabs", "--session", "s1"]);
    assert_eq!(v["data"]["total_tabs"], 2);
    assert_eq!(v["context"]["session_id"], "s1");
    assert!(v["context"].get("tab_id").is_none());
    let r = env.run(&["browser", "list-tabs", "--session", "s1"]).ok();
    assert!(
        r.stdout.starts_with("[s1]\n2 tabs\n[t1] Fixture Home\n"),
        "{r:?}"
    );

    let r = env.run(&["browser", "status", "--session", "s1"]).ok();
    assert_eq!(r.stdout, "[s1]\nstatus: running\nmode: local\ntabs: 2\n");
    let v = env.json(&["browser", "status", "--session", "s1"]);
    assert_eq!(v["data"]["session"]["tabs_count"], 2);
    assert_eq!(v["data"]["tabs"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        v["data"]["capabilities"],
        serde_json::json!({"snapshot": true, "pdf": true, "upload": true})
    );

    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 3);
    let r = env.run(&["browser", "list-sessions"]).ok();
    assert!(r.stdout.starts_with("3 sessions\n["), "{r:?}");

    // Close: every browser goes away.
    let v = env.json(&["browser", "close", "--session", "s1"]);
    assert_eq!(v["data"]["closed_tabs"], 2);
    assert_eq!(v["data"]["status"], "closed");
    let r = env.run(&["browser", "close", "--session", "s2"]).ok();
    assert_eq!(r.stdout, "[s2]\nok browser close\nclosed_tabs: 1\n");
    env.run(&["browser", "close", "--session", "research-google"])
        .ok();
    assert_eq!(
        env.json(&["browser", "list-sessions"])["data"]["total_sessions"],
        0
    );
    for pid in env.browser_pids() {
        assert!(
            wait_gone(pid, Duration::from_secs(5)),
            "chromium {pid} survived close"
        );
    }
    // The counter is global: the next auto id is s3, not s1.
    let v = env.json(&["browser", "start", "--headless"]);
    assert_eq!(v["context"]["session_id"], "s3");
}

#[test]
fn profile_in_use_and_restart() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    env.start(&["--profile", "work", "--open-url", &f.url("/index.html")]);
    // Start with a profile in use attaches to the session that has it ("create or attach")...
    let browsers = env.browser_pids();
    let v = env.json(&["browser", "start", "--headless", "--profile", "work"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["reused"], true, "{v}");
    assert_eq!(v["context"]["session_id"], "s1", "{v}");
    assert_eq!(v["data"]["tab"]["url"], f.url("/index.html"), "{v}");
    assert_eq!(env.browser_pids(), browsers, "another browser was started");
    // ... but a new session under another id cannot have it.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--profile",
        "work",
        "--set-session-id",
        "other",
    ]);
    assert_eq!(v["error"]["code"], "SESSION_ALREADY_EXISTS", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("'work'") && m.contains("'s1'")),
        "{v}"
    );
    // The hint names the way to the holder.
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("--session s1") && h.contains("browser close --session s1")),
        "{v}"
    );
    let r = env.run(&["browser", "restart", "--session", "s1"]).ok();
    assert_eq!(r.stdout, "[s1 t1]\nok browser restart\nstatus: running\n");
    let v = env.json(&["browser", "restart", "--session", "s1"]);
    assert_eq!(v["data"]["reopened"], true);
    assert_eq!(v["data"]["session"]["session_id"], "s1");
    assert_eq!(v["data"]["session"]["tabs_count"], 1);
    assert_eq!(env.main_browser_pids().len(), 1, "restart leaked a browser");
    let v = env.json(&["browser", "url", "--session", "s1", "--tab", "t1"]);
    assert_eq!(v["ok"], true, "{v}");
}

#[test]
fn cdp_endpoint_attaches_and_close_detaches() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--open-url",
        &f.url("/index.html"),
    ]);
    let ws = v["data"]["session"]["cdp_endpoint"]
        .as_str()
        .expect("ws")
        .to_string();
    let owner = env.main_browser_pids();
    assert_eq!(owner.len(), 1);
    // A second session attached to the first one's browser (cloud mode is a remote endpoint).
    let v = env.json(&[
        "browser",
        "start",
        "--cdp-endpoint",
        &ws,
        "--set-session-id",
        "remote",
        // Its existing tab, not a context of its own (tests/it/remote.rs has those).
        "--attach-existing",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["session"]["mode"], "cloud");
    assert_eq!(
        v["context"]["title"], "Fixture Home",
        "adopts the existing page: {v}"
    );
    let v = env.json(&["browser", "title", "--session", "remote", "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Fixture Home");
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--header",
        "nocolon",
        "--cdp-endpoint",
        &ws,
    ]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    // An endpoint that is no URL of a browser is the caller's mistake, said before any connect.
    for bad in ["", "not a url", "ftp://127.0.0.1:9222", "ws://"] {
        let v = env.json(&["browser", "start", "--cdp-endpoint", bad]);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{bad:?}: {v}");
    }
    // --headless cannot change a running browser: said so.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--cdp-endpoint",
        &ws,
        "--set-session-id",
        "remote2",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("--headless true has no effect")),
        "{v}"
    );
    env.run(&["browser", "close", "--session", "remote2"]).ok();
    // Closing the attached session leaves the browser running, its tabs open, and says so.
    let v = env.json(&["browser", "close", "--session", "remote"]);
    assert_eq!(
        (v["ok"].as_bool(), v["data"]["closed_tabs"].as_u64()),
        (Some(true), Some(0)),
        "{v}"
    );
    assert!(
        v["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("not launched by this session")),
        "{v}"
    );
    assert_eq!(env.main_browser_pids(), owner);
    let v = env.json(&["browser", "title", "--session", "s1", "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
}

#[test]
fn headless_default_comes_from_the_environment() {
    need_chromium!();
    let env = Env::new();
    let out = env
        .command(&["browser", "start", "--json"])
        .env("ACTIONBOOK_BROWSER_HEADLESS", "true")
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["data"]["session"]["headless"], true, "{v}");
    let out = env
        .command(&["browser", "start", "--json", "--profile", "other"])
        .env("ACTIONBOOK_BROWSER_HEADLESS", "0")
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // The test wrapper keeps Chromium headless; the session records what was asked for.
    assert_eq!(v["data"]["session"]["headless"], false, "{v}");
}

#[test]
fn headless_takes_an_optional_value() {
    need_chromium!();
    let env = Env::new();
    let out = env
        .command(&["browser", "start", "--headless", "false", "--json"])
        .env("ACTIONBOOK_BROWSER_HEADLESS", "true")
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        v["data"]["session"]["headless"], false,
        "--headless false wins: {v}"
    );
    let v = env.json(&["browser", "start", "--headless", "true", "--profile", "p2"]);
    assert_eq!(v["data"]["session"]["headless"], true, "{v}");
    let v = env.json(&["browser", "start", "--profile", "p3", "--headless"]);
    assert_eq!(v["data"]["session"]["headless"], true, "{v}");
    let r = env.run(&["browser", "start", "--headless", "maybe"]);
    assert_eq!(r.code, 2, "{r:?}");
}

/// `start --set-session-id` of an existing session: `--open-url` loads in its first tab, and a
/// different `--profile` is refused instead of silently ignored (as the reference CLI does).
#[test]
fn reusing_a_session_loads_open_url_and_checks_the_profile() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--set-session-id",
        "work",
        "--profile",
        "mine",
    ]);
    assert_eq!(v["data"]["reused"], false, "{v}");
    let v = env.json(&[
        "browser",
        "start",
        "--set-session-id",
        "work",
        "--open-url",
        &f.url("/page2.html"),
    ]);
    assert_eq!(v["data"]["reused"], true, "{v}");
    assert_eq!(v["context"]["url"], f.url("/page2.html"), "{v}");
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    assert_eq!(v["data"]["tab"]["title"], "Page Two", "{v}");
    let v = env.json(&["browser", "title", "--session", "work", "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Page Two", "{v}");
    let v = env.json(&[
        "browser",
        "start",
        "--set-session-id",
        "work",
        "--profile",
        "mine",
    ]);
    assert_eq!(v["data"]["reused"], true, "the same profile is fine: {v}");
    // `--session` is the same flag (the reference CLI's get-or-create): attaches here...
    let v = env.json(&["browser", "start", "--session", "work"]);
    assert_eq!(
        (&v["data"]["reused"], &v["data"]["session"]["session_id"]),
        (
            &serde_json::Value::from(true),
            &serde_json::Value::from("work")
        ),
        "{v}"
    );
    let v = env.json(&[
        "browser",
        "start",
        "--session",
        "work",
        "--profile",
        "other",
    ]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("bound to profile 'mine'")),
        "{v}"
    );
    // ...and creates one with that id when none runs.
    let v = env.json(&["browser", "start", "--headless", "--session", "fresh"]);
    assert_eq!(
        (&v["data"]["reused"], &v["data"]["session"]["session_id"]),
        (
            &serde_json::Value::from(false),
            &serde_json::Value::from("fresh")
        ),
        "{v}"
    );
}

/// Several URLs, some of which do not load: non-zero exit, and both the opened tabs and the failed
/// URLs are reported (spec 8.2); a tab opened on its first page has no history to go back to.
#[test]
fn new_tab_reports_opened_tabs_and_failed_urls() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let dead = "http://127.0.0.1:9/"; // discard port: connection refused
    let r = env.run(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        dead,
        "--session",
        &sid,
        "--json",
    ]);
    assert_eq!(r.code, 1, "{r:?}");
    let v = r.json();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "NAVIGATION_FAILED", "{v}");
    let details = &v["error"]["details"];
    assert_eq!(details["opened_tabs"][0]["tab_id"], "t2", "{v}");
    assert_eq!(details["opened_tabs"][0]["title"], "Page Two", "{v}");
    assert_eq!(details["failed_urls"][0]["url"], dead, "{v}");
    assert_eq!(details["failed_urls"][0]["tab_id"], "t3", "{v}");
    assert_eq!(
        details["failed_urls"][0]["code"], "NAVIGATION_FAILED",
        "{v}"
    );
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("1 of 2 URLs did not load"), "{v}");
    assert_eq!(
        message.matches(dead).count(),
        2,
        "the URL once as given, once in Chromium's error: {v}"
    );
    let r = env.run(&["browser", "new-tab", dead, "--session", &sid]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("error NAVIGATION_FAILED: 1 of 1 URLs did not load"),
        "{r:?}"
    );

    // A page slower than --timeout: TIMEOUT naming the tab, which goes on loading and shows the
    // page (it was stopped on our internal blank marker for good).
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/slow.html"),
        "--session",
        &sid,
        "--timeout",
        "1500",
    ]);
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let slow_tab = v["error"]["details"]["failed_urls"][0]["tab_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!slow_tab.is_empty(), "{v}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let v = env.json(&["browser", "title", "--session", &sid, "--tab", &slow_tab]);
        if v["data"]["value"] == "Slow" {
            assert!(
                !v.to_string().contains("#actionbook-"),
                "no internal URL: {v}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slow tab never showed its page: {v}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }

    // t2 was opened on page2: nothing before it.
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    let v = env.json(&[&["browser", "back"][..], &t2].concat());
    assert_eq!(v["error"]["code"], "NAVIGATION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no previous page in history")),
        "{v}"
    );
    let v = env.json(&[&["browser", "forward"][..], &t2].concat());
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no next page in history")),
        "{v}"
    );
    let v = env.json(&[&["browser", "title"][..], &t2].concat());
    assert_eq!(v["data"]["value"], "Page Two", "still on page two: {v}");
    // The first tab, opened by start --open-url, likewise.
    let v = env.json(&["browser", "back", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["error"]["code"], "NAVIGATION_FAILED", "{v}");
}

/// `start --timeout` bounds the launch (no fixed startup cap of its own): a browser that takes
/// longer than the timeout to come up fails the start with TIMEOUT, at the timeout, leaving no
/// session behind.
#[test]
fn start_honours_timeout_for_the_launch() {
    need_chromium!();
    let env = Env::new();
    let slow = env.home.with_file_name("slow-chromium.sh");
    write_script(
        &slow,
        "#!/bin/sh\nsleep 12\nexec /usr/bin/chromium \"$@\"\n",
    );
    let v = env.start_with_browser(&slow, 2000);
    // The browser shows up after 12 s: a launch that waited a fixed cap (20 s before) instead of
    // the 2 s asked would have answered ok.
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");
}

/// A start abandoned at its `--timeout` ends the whole process group of the browser it
/// spawned: a wrapper that double-forks a child (neither the browser's descendant nor naming its
/// profile) leaves nothing running.
#[test]
fn an_abandoned_start_leaves_no_child_of_a_wrapper() {
    let env = Env::new();
    let arg = format!(
        "4{}.{}",
        std::process::id(),
        env.home.to_string_lossy().len()
    );
    let wrapper = env.home.with_file_name("forking-browser.sh");
    write_script(
        &wrapper,
        &format!("#!/bin/sh\n(sleep {arg} &)\nexec sleep 600\n"),
    );
    let v = env.start_with_browser(&wrapper, 1500);
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let want = format!("sleep\0{arg}\0");
    let left = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == want.as_bytes()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !left().is_empty() {
        if std::time::Instant::now() >= until {
            for pid in left() {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid])
                    .status();
            }
            panic!("the wrapper's child outlived the abandoned start");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// `close` keeps the last snapshot file of each tab (the path `snapshot` last reported still
/// reads) and nothing else of the session; `close --purge` keeps nothing.
#[test]
fn close_keeps_each_tab_s_last_snapshot_unless_purged() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let snap = |sid: &str, tab: &str| {
        let v = env.json(&["browser", "snapshot", "--session", sid, "--tab", tab]);
        let path = v["data"]["path"].as_str();
        std::path::PathBuf::from(path.unwrap_or_else(|| panic!("no path: {v}")))
    };
    let first = snap(&sid, "t1");
    let last = snap(&sid, "t1");
    assert_ne!(first, last);
    env.run(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ])
    .ok();
    let other = snap(&sid, "t2");
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        last.exists() && other.exists(),
        "the last snapshots were removed"
    );
    assert!(!first.exists(), "an older snapshot was kept");
    let dir = env.home.join("sessions").join(&sid);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir kept for the snapshots")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left.len(), 2, "only the two last snapshots stay: {left:?}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");

    let sid = env.start(&[]);
    let path = snap(&sid, "t1");
    let v = env.json(&["browser", "close", "--session", &sid, "--purge"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!path.exists());
    assert!(!env.home.join("sessions").join(&sid).exists());
}

/// Waits (bounded) for a file a held command writes.
fn wait_for_file(path: &std::path::Path) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < until,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A tab command that finishes after a `restart` replaced its tab (the new first tab has the
/// same id) writes nothing onto the new tab: a `goto` held past the restart leaves the new t1's
/// URL and title alone, a held `snapshot` leaves it without the old page's refs, and a held
/// `mouse-move` leaves its cursor where it was.
#[test]
fn a_command_finishing_after_restart_never_writes_onto_the_new_tab() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let dir = env.home.join("sessions").join(&sid);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let held = |hold: &str, args: &[&str]| {
        let mut c = env.command(&[&["browser"][..], args, &t, &["--json"]].concat());
        c.env("ACTIONBOOK_TEST_ABORT_AT", format!("hold:{hold}"))
            .stdout(std::process::Stdio::piped());
        let child = c.spawn().expect("spawn");
        wait_for_file(&dir.join(format!("held-{hold}")));
        let v = env.json(&["browser", "restart", "--session", &sid]);
        assert_eq!(v["ok"], true, "{v}");
        std::fs::write(dir.join(format!("release-{hold}")), b"").expect("release");
        let out = child.wait_with_output().expect("wait");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let page2 = f.url("/page2.html");
    let late = held("goto.loaded", &["goto", &page2]);
    // The record itself (list-tabs would refresh it from the browser).
    let rec = std::fs::read_to_string(dir.join("session.json")).expect("session.json");
    assert!(
        !rec.contains("page2") && !rec.contains("Page Two"),
        "the late goto ({late}) wrote onto the new tab: {rec}"
    );
    let v = env.json(&[
        "browser",
        "goto",
        &f.url("/index.html"),
        "--session",
        &sid,
        "--tab",
        "t1",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    let late = held("snapshot.captured", &["snapshot"]);
    assert!(
        !dir.join("refs-t1.json").exists(),
        "the late snapshot ({}) left its refs on the new tab",
        &late[..late.len().min(300)]
    );
    // The pointer the old tab moved is not the new tab's.
    let late = held("pointer.moved", &["mouse-move", "10,20"]);
    let v = env.json(&[
        "browser",
        "cursor-position",
        "--session",
        &sid,
        "--tab",
        "t1",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        (v["data"]["x"].as_f64(), v["data"]["y"].as_f64()),
        (Some(0.0), Some(0.0)),
        "the late mouse-move ({late}) moved the new tab's cursor: {v}"
    );
}

/// A `session.json` a newer build wrote (its `schema` above ours) is not used even though it
/// decodes: it is reported, its id refused, its interrupted command (an `intent.json`) left for
/// that build, and nothing is changed on disk.
#[test]
fn a_record_from_a_newer_build_is_kept_and_never_used() {
    need_chromium!();
    let env = Env::new();
    let dir = env.home.join("sessions").join("xy");
    std::fs::create_dir_all(&dir).expect("session dir");
    let record = serde_json::json!({
        "schema": 99, "session_id": "xy", "mode": "local", "headless": true, "launched": true,
        "cdp_endpoint": "ws://127.0.0.1:9/devtools/browser/x", "status": "running", "next_tab": 2,
        "tabs": [{"tab_id": "t1", "target_id": "A"}], "a_field_of_schema_99": true,
    })
    .to_string();
    std::fs::write(dir.join("session.json"), &record).expect("write record");
    let intent = br#"{"kind": "close", "purge": true}"#;
    std::fs::write(dir.join("intent.json"), intent).expect("write intent");
    std::fs::write(dir.join("snapshot_t1_1.yaml"), b"- a newer build's file").expect("file");

    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");
    let warnings = v["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("session 'xy' is unreadable")
            && warnings.contains("written by a newer actionbook (record schema 99"),
        "{v}"
    );
    let v = env.json(&["browser", "status", "--session", "xy"]);
    assert_eq!(v["ok"], false, "{v}");
    let v = env.json(&["browser", "start", "--headless", "--set-session-id", "xy"]);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "SESSION_ALREADY_EXISTS", "{v}");
    assert!(env.browser_pids().is_empty(), "a browser was started");
    assert_eq!(
        std::fs::read_to_string(dir.join("session.json")).expect("record kept"),
        record
    );
    assert_eq!(
        std::fs::read(dir.join("intent.json")).expect("intent kept"),
        intent
    );
    assert!(
        dir.join("snapshot_t1_1.yaml").exists(),
        "the newer build's file was removed"
    );
}

/// A `session.json` that does not decode is kept and reported, and its id is not reused: an
/// auto id skips it and `start --set-session-id` with it refuses before starting anything.
#[test]
fn an_unreadable_record_is_kept_reported_and_never_overwritten() {
    need_chromium!();
    let env = Env::new();
    let dir = env.home.join("sessions").join("xy");
    std::fs::create_dir_all(&dir).expect("session dir");
    let garbage = b"{\"session_id\": \"xy\", truncated";
    std::fs::write(dir.join("session.json"), garbage).expect("write record");

    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");
    let warnings = v["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("session 'xy' is unreadable") && warnings.contains("session.json"),
        "{v}"
    );

    let v = env.json(&["browser", "start", "--headless", "--set-session-id", "xy"]);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "SESSION_ALREADY_EXISTS", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot be read") && m.contains("nothing was started")),
        "{v}"
    );
    assert!(env.browser_pids().is_empty(), "a browser was started");
    assert_eq!(
        std::fs::read(dir.join("session.json")).expect("record kept"),
        garbage
    );
}

/// A record that did not decode when the daemon started, repaired (or moved back) later, is
/// taken up again without restarting the daemon: its session answers and is listed, the browser
/// it names kept. One deleted since is no longer reported.
#[test]
fn a_repaired_record_is_taken_up_again() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let record_path = env.home.join("sessions").join(&sid).join("session.json");
    let record = std::fs::read(&record_path).expect("record");
    // Damaged while no daemon runs: the next one cannot read it.
    env.kill_daemon();
    std::fs::write(&record_path, &record[..record.len() / 2]).expect("damage");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");
    assert!(
        v["meta"]["warnings"].to_string().contains("is unreadable"),
        "{v}"
    );
    // Its commands say why (close too: nothing was closed).
    for args in [
        [&["browser", "title"][..], &t].concat(),
        vec!["browser", "close", "--session", &sid],
    ] {
        let v = env.json(&args);
        assert_eq!(
            (
                v["error"]["code"].as_str(),
                v["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("its record does not decode"))
            ),
            (Some("SESSION_NOT_FOUND"), true),
            "{args:?}: {v}"
        );
    }
    // Repaired: the same daemon takes it up.
    let daemon = env.live_daemon_pid();
    std::fs::write(&record_path, &record).expect("repair");
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(
        (
            v["data"]["total_sessions"].as_u64(),
            v["meta"]["warnings"].clone()
        ),
        (Some(1), serde_json::json!([])),
        "{v}"
    );
    assert_eq!(env.live_daemon_pid(), daemon, "the daemon was restarted");
    // A damaged record deleted by hand is no longer reported.
    let dir = env.home.join("sessions").join("zz");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("session.json"), b"{").expect("garbage");
    env.kill_daemon();
    let v = env.json(&["browser", "list-sessions"]);
    assert!(v["meta"]["warnings"].to_string().contains("'zz'"), "{v}");
    std::fs::remove_dir_all(&dir).expect("delete");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");
    env.json(&["browser", "close", "--session", &sid]);
}

/// A script that closes its own page (`window.close()` in a popup) answers with its value, a
/// warning that the tab closed and the page's last known URL; the tab is gone afterwards.
#[test]
fn an_eval_that_closes_its_page_answers_its_value() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    value(&env, &t1, "window.open(location.href, '_blank'); 1");
    let mut popup = None;
    for _ in 0..50 {
        let v = env.json(&["browser", "list-tabs", "--session", &sid]);
        let tabs = v["data"]["tabs"].as_array().cloned().unwrap_or_default();
        popup = tabs
            .iter()
            .filter_map(|t| t["tab_id"].as_str())
            .find(|id| *id != "t1")
            .map(str::to_string);
        if popup.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let popup = popup.expect("the popup is listed as a tab");
    let t2 = ["--session", sid.as_str(), "--tab", popup.as_str()];
    let v = on(&env, &t2, &["eval", "window.close(); 42"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["value"], 42, "{v}");
    // The page's last known URL, or none (a popup closed before any command read its URL).
    assert!(
        v["context"]["url"].is_null() || v["context"]["url"] == f.url("/index.html").as_str(),
        "{v}"
    );
    let warned = v["meta"]["warnings"].to_string();
    assert!(warned.contains("closed"), "{v}");
    let v = on(&env, &t2, &["title"]);
    assert_eq!(v["error"]["code"], "TAB_NOT_FOUND", "{v}");
}

#[test]
fn a_page_without_a_title_has_none_in_the_tab_list() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/untitled.html", "<!doctype html><p>no title here</p>");
    let sid = env.start(&["--open-url", &f.url("/untitled.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // Chromium shows the URL in place of a missing title; the tab list says what `title` says.
    assert_eq!(on(&env, &t, &["title"])["data"]["value"], "");
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["tabs"][0]["title"], "", "{v}");
    let v = env.json(&["browser", "status", "--session", &sid]);
    assert_eq!(v["data"]["tabs"][0]["title"], "", "{v}");
}
