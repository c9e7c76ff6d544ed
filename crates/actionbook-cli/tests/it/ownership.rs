//! What a home owns: a session record whose browser pid now belongs to another process is not
//! reported running and `close` never signals that process; one engine per home.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, alive, kill, wait_gone};

/// Field 22 of `/proc/<pid>/stat`: the start time, in clock ticks since boot.
fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    after
        .split_whitespace()
        .nth(19)
        .and_then(|s| s.parse().ok())
        .expect("start time")
}

/// Kills the session's browser, then rewrites its record as if the pid had been reused by
/// `stranger` (pid and start time both forged: only the command line tells them apart).
fn record_pid_reused_by(env: &Env, sid: &str, stranger: u32) {
    env.kill_daemon();
    for pid in env.browser_pids() {
        kill(pid);
        assert!(wait_gone(pid, Duration::from_secs(5)));
    }
    let path = env.home.join("sessions").join(sid).join("session.json");
    let text = std::fs::read_to_string(&path).expect("session.json");
    let mut rec: Value = serde_json::from_str(&text).expect("record");
    rec["browser_pid"] = stranger.into();
    if let Some(identity) = rec.get_mut("browser_identity").filter(|v| v.is_object()) {
        identity["pid"] = stranger.into();
        identity["start_time"] = start_time(stranger).into();
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&rec).expect("encode")).expect("write");
}

#[test]
fn a_reused_browser_pid_is_not_running_and_close_leaves_that_process_alive() {
    need_chromium!();
    let env = Env::new();
    let sid = env.start(&[]);
    let mut sleep = Command::new("sleep")
        .arg("120")
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn sleep");
    let stranger = sleep.id();
    record_pid_reused_by(&env, &sid, stranger);

    let v = env.json(&["browser", "list-sessions"]);
    let status = &v["data"]["sessions"][0]["status"];
    assert_ne!(status, "running", "{v}");
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    std::thread::sleep(Duration::from_millis(300));
    let survived = alive(stranger);
    let _ = sleep.kill();
    let _ = sleep.wait();
    assert!(
        survived,
        "close signalled a process that is not its browser"
    );
}

#[test]
fn an_in_process_engine_on_a_home_with_a_live_daemon_is_refused_naming_the_daemon() {
    let env = Env::new();
    // Any command starts the daemon.
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["ok"], true, "{v}");
    let daemon = env.daemon_pid().expect("daemon pid");
    let err = actionbook::Engine::new(actionbook::EngineConfig {
        home: actionbook::Home::at(&env.home),
    })
    .expect_err("a second engine on a served home");
    assert!(
        matches!(err, actionbook::CliError::HomeInUse { holder: Some(p), .. } if p == daemon),
        "{err:?}"
    );
    assert!(err.to_string().contains(&daemon.to_string()), "{err}");
    // The daemon is unaffected.
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(env.daemon_pid(), Some(daemon));
}

#[test]
fn a_user_named_profile_survives_the_close_of_a_session_whose_auto_profile_has_its_name() {
    need_chromium!();
    let env = Env::new();
    let named = env.home.join("profiles").join("session-xy");
    let sid = env.start(&["--profile", "session-xy"]);
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(named.is_dir(), "close removed the user's named profile");
    std::fs::write(named.join("user-file"), b"keep me").expect("write");

    let sid = env.start(&["--set-session-id", "xy"]);
    assert_eq!(sid, "xy");
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        named.join("user-file").is_file(),
        "closing session xy deleted the user's profile session-xy"
    );
}

#[test]
fn an_endpoint_s_credentials_are_never_printed() {
    need_chromium!();
    let env = Env::new();
    let f = crate::support::site();
    let (_sid, ws, _target) = crate::support::start_with_endpoint(&env, &f.url("/index.html"));
    let secret = ws.replacen("ws://", "ws://agent:hunter2@", 1) + "?token=hunter3";
    for args in [
        vec![
            "browser",
            "start",
            "--cdp-endpoint",
            secret.as_str(),
            // The page there (its 127.0.0.1 URL is printed), not a new blank one.
            "--attach-existing",
            "--json",
        ],
        vec![
            "browser",
            "start",
            "--cdp-endpoint",
            secret.as_str(),
            // The page there (its 127.0.0.1 URL is printed), not a new blank one.
            "--attach-existing",
            "--set-session-id",
            "cloud",
        ],
    ] {
        let run = env.run(&args);
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains("127.0.0.1"), "{all}");
        assert!(
            !all.contains("hunter2") && !all.contains("hunter3"),
            "{all}"
        );
    }
}
