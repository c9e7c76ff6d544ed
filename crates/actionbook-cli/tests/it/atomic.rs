//! Crash-atomic structural commands: the daemon aborted (`ACTIONBOOK_TEST_ABORT_AT`, a test-only
//! hook that calls `std::process::abort()` at a named step) in the middle of `start`, `new-tab`,
//! `restart` and `close`; the next command's daemon must find a working session with all its tabs,
//! or nothing: no Chromium without a record, no session without its first tab, no target no tab
//! owns.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Run, site, wait_gone};

/// Runs the CLI with the daemon told to abort at `step`; the command's own outcome does not
/// matter (the client may retry on a new daemon), only what the next engine finds.
fn run_aborting(env: &Env, step: &str, args: &[&str]) -> Run {
    let out = env
        .command(args)
        .env("ACTIONBOOK_TEST_ABORT_AT", step)
        .output()
        .expect("run actionbook");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Waits (bounded) until the daemon that aborted is gone, so the next command meets a new one;
/// asserts it did abort at `step` (a step that never runs would make the test prove nothing).
fn wait_daemon_gone(env: &Env, step: &str, pid: Option<u32>) {
    let log = std::fs::read_to_string(env.home.join("daemon.log")).unwrap_or_default();
    assert!(
        log.contains(&format!("aborting at step {step} ")),
        "the daemon did not abort at {step}: {log}"
    );
    if let Some(pid) = pid {
        assert!(
            wait_gone(pid, Duration::from_secs(10)),
            "daemon {pid} did not abort"
        );
    }
}

/// Main browser processes (not helpers) whose command line names `profile`.
fn browsers_on(env: &Env, profile: &Path) -> Vec<u32> {
    let needle = format!("--user-data-dir={}", profile.display());
    env.main_browser_pids()
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    String::from_utf8_lossy(&c)
                        .replace('\0', " ")
                        .contains(&needle)
                })
                .unwrap_or(false)
        })
        .collect()
}

/// Waits (bounded) until no main browser runs on `profile`.
fn no_browser_on(env: &Env, profile: &Path) -> bool {
    for _ in 0..100 {
        if browsers_on(env, profile).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn record(env: &Env, sid: &str) -> Value {
    let path = env.home.join("sessions").join(sid).join("session.json");
    serde_json::from_slice(&std::fs::read(&path).expect("session.json")).expect("record")
}

fn auto_profile(env: &Env, sid: &str) -> PathBuf {
    env.home.join("auto-profiles").join(sid)
}

/// The page targets of the browser behind `endpoint` (a second CDP client), by id.
fn page_targets(endpoint: &str) -> BTreeSet<String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (conn, _) = cdp_protocol::connect(endpoint, &[]).await.expect("connect");
        let r = conn
            .browser()
            .send_timeout(
                &cdp_protocol::target::GetTargets::default(),
                Duration::from_secs(10),
            )
            .await
            .expect("Target.getTargets");
        r.target_infos
            .into_iter()
            .filter(|t| t.r#type == "page")
            .map(|t| t.target_id.into_inner())
            .collect()
    })
}

/// The tabs' target ids as `list-tabs` reports them.
fn tab_targets(env: &Env, sid: &str) -> BTreeSet<String> {
    let v = env.json(&["browser", "list-tabs", "--session", sid]);
    assert_eq!(v["ok"], true, "{v}");
    v["data"]["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["native_tab_id"].as_str().expect("native id").to_string())
        .collect()
}

/// Asserts the session works: running, and its first tab answers.
#[track_caller]
fn assert_working(env: &Env, sid: &str, tab: &str) {
    let v = env.json(&["browser", "status", "--session", sid]);
    assert_eq!(v["data"]["session"]["status"], "running", "{v}");
    let v = env.json(&["browser", "eval", "6*7", "--session", sid, "--tab", tab]);
    assert_eq!(v["data"]["value"], 42, "{v}");
}

#[test]
fn a_start_cut_off_at_any_step_leaves_a_working_session_or_nothing() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let url = f.url("/index.html");
    for (i, step) in [
        "start.intent",
        "start.launched",
        "start.recorded",
        "start.tab_recorded",
    ]
    .into_iter()
    .enumerate()
    {
        let sid = format!("cut{i}");
        let daemon = env.daemon_pid();
        run_aborting(
            &env,
            step,
            &[
                "browser",
                "start",
                "--headless",
                "--set-session-id",
                &sid,
                "--open-url",
                &url,
                "--json",
            ],
        );
        wait_daemon_gone(&env, step, daemon.or_else(|| env.daemon_pid()));
        let v = env.json(&["browser", "list-sessions"]);
        let listed = v["data"]["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|s| s["session_id"] == sid.as_str());
        let profile = auto_profile(&env, &sid);
        if step == "start.tab_recorded" {
            // The session had its tab: it is kept, and works.
            assert!(listed, "{step}: the session with its tab was lost: {v}");
            assert_working(&env, &sid, "t1");
            assert_eq!(browsers_on(&env, &profile).len(), 1, "{step}");
        } else {
            assert!(!listed, "{step}: a session without its first tab: {v}");
            assert!(
                no_browser_on(&env, &profile),
                "{step}: Chromium left running without a record"
            );
            assert!(!profile.exists(), "{step}: its own profile was left");
            assert!(
                !env.home.join("sessions").join(&sid).exists(),
                "{step}: its files were left"
            );
        }
    }
    // The id is free again for a start that is not cut off.
    let v = env.json(&["browser", "start", "--headless", "--set-session-id", "cut0"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["reused"], false, "{v}");
}

#[test]
fn a_new_tab_cut_off_at_any_step_leaves_no_target_without_a_tab() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let mut want_tabs = 1;
    for step in ["new_tab.target_created", "new_tab.tab_recorded"] {
        let daemon = env.daemon_pid();
        run_aborting(
            &env,
            step,
            &[
                "browser",
                "new-tab",
                &f.url("/page2.html"),
                "--session",
                &sid,
                "--json",
            ],
        );
        wait_daemon_gone(&env, step, daemon);
        let tabs = tab_targets(&env, &sid);
        let endpoint = record(&env, &sid)["cdp_endpoint"]
            .as_str()
            .expect("endpoint")
            .to_string();
        assert_eq!(
            page_targets(&endpoint),
            tabs,
            "{step}: the browser's pages and the session's tabs differ"
        );
        if step == "new_tab.tab_recorded" {
            want_tabs += 1;
        }
        assert_eq!(tabs.len(), want_tabs, "{step}");
    }
    // The recorded tab works (its load was cut off: it loads now).
    let v = env.json(&[
        "browser",
        "goto",
        &f.url("/page2.html"),
        "--session",
        &sid,
        "--tab",
        "t2",
    ]);
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
}

#[test]
fn a_restart_cut_off_at_any_step_is_finished_by_the_next_daemon() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let profile = auto_profile(&env, &sid);
    for step in [
        "restart.old_closed",
        "restart.launched",
        "restart.recorded",
        "restart.tab_recorded",
    ] {
        let before = record(&env, &sid)["cdp_endpoint"].clone();
        let daemon = env.daemon_pid();
        run_aborting(
            &env,
            step,
            &["browser", "restart", "--session", &sid, "--json"],
        );
        wait_daemon_gone(&env, step, daemon);
        assert_working(&env, &sid, "t1");
        let rec = record(&env, &sid);
        assert_ne!(rec["cdp_endpoint"], before, "{step}: not restarted");
        assert_eq!(
            browsers_on(&env, &profile).len(),
            1,
            "{step}: one browser for the session"
        );
        let endpoint = rec["cdp_endpoint"].as_str().expect("endpoint");
        assert_eq!(page_targets(endpoint), tab_targets(&env, &sid), "{step}");
    }
}

#[test]
fn a_close_cut_off_after_its_browser_is_gone_is_finished_by_the_next_daemon() {
    need_chromium!();
    let env = Env::new();
    let sid = env.start(&[]);
    let profile = auto_profile(&env, &sid);
    let daemon = env.daemon_pid();
    run_aborting(
        &env,
        "close.browser_closed",
        &["browser", "close", "--session", &sid, "--json"],
    );
    wait_daemon_gone(&env, "close.browser_closed", daemon);
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(
        v["data"]["total_sessions"], 0,
        "a closed session came back: {v}"
    );
    assert!(no_browser_on(&env, &profile));
    assert!(!profile.exists(), "its own profile was left");
    assert!(!env.home.join("sessions").join(&sid).exists());
}
