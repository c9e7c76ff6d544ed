//! The daemon across builds: a client of another build or protocol version makes the daemon
//! restart, but never drops the commands it is running; clients that arrive meanwhile wait and
//! are served by the new daemon.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, holding, site, wait_gone};

/// Sends one raw frame (4-byte little-endian length, then JSON) and reads the answer.
fn raw_request(socket: &Path, frame: &Value) -> Value {
    let mut s = UnixStream::connect(socket).expect("connect to the daemon");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let body = serde_json::to_vec(frame).expect("encode");
    let len = u32::try_from(body.len()).expect("small frame");
    s.write_all(&len.to_le_bytes()).expect("write length");
    s.write_all(&body).expect("write body");
    let mut len = [0u8; 4];
    s.read_exact(&mut len).expect("read length");
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut body).expect("read body");
    serde_json::from_slice(&body).expect("decode the answer")
}

/// `browser goto url --json` on tab t1 of `sid`, run in a thread and given 1.5 s to be under way.
fn goto_in_flight(
    env: &Env,
    sid: &str,
    url: &str,
) -> std::thread::JoinHandle<std::io::Result<std::process::Output>> {
    let mut goto = env.command(&[
        "browser",
        "goto",
        url,
        "--session",
        sid,
        "--tab",
        "t1",
        "--json",
    ]);
    let goto = std::thread::spawn(move || goto.output());
    std::thread::sleep(Duration::from_millis(1500));
    goto
}

#[test]
fn another_build_restarts_the_daemon_after_the_commands_in_flight() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let old_daemon = env.daemon_pid().expect("the daemon's pid");
    let socket = env.home.join("daemon.sock");

    // A goto whose page answers after 6 s...
    let slow = f.url("/slow.html");
    let goto = goto_in_flight(&env, &sid, &slow);

    // ...while a client of an older protocol and another build connects.
    let older = raw_request(
        &socket,
        &json!({"v": 1, "build": "0.0.1+elsewhere", "request": {"command": "browser title",
                "args": {"target": {"session": sid, "tab": "t1"}}}}),
    );
    assert_eq!(older["kind"], "restart", "{older}");
    assert!(
        older["drain_ms"].as_u64().is_some_and(|ms| ms > 1000),
        "the goto in flight still has time: {older}"
    );
    // A client of this very build is told to wait as well: the draining daemon runs nothing new.
    let build = std::fs::read_to_string(env.home.join("daemon.version")).expect("daemon.version");
    let same = raw_request(
        &socket,
        &json!({"v": 2, "build": build, "text": false, "request": {"command":
                {"command": "browser url", "args": {"session": sid, "tab": "t1"}}}}),
    );
    assert_eq!(same["kind"], "restart", "{same}");
    // A CLI started meanwhile waits for the restart and is answered by the new daemon.
    let mut url = env.command(&["browser", "url", "--session", &sid, "--tab", "t1"]);
    let url = std::thread::spawn(move || url.output());

    // The goto in flight answers, with its page.
    let out = goto.join().expect("goto thread").expect("run goto");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("goto: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["title"], "Slow", "{v}");

    // The old daemon exits once it is done; the session lives on under the new one.
    assert!(
        wait_gone(old_daemon, Duration::from_secs(30)),
        "the old daemon did not exit after its commands"
    );
    let out = url.join().expect("url thread").expect("run url");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("[{sid} t1] {slow}\n{slow}\n")
    );
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Slow", "{v}");
    assert_ne!(env.daemon_pid(), Some(old_daemon));
}

#[test]
fn a_request_this_build_cannot_read_is_an_envelope_naming_its_command() {
    let env = Env::new();
    // Start the daemon (a command that needs no browser).
    env.run(&["browser", "list-sessions"]).ok();
    let build = std::fs::read_to_string(env.home.join("daemon.version")).expect("daemon.version");
    let socket = env.home.join("daemon.sock");
    let frame = |command: Value| json!({"v": 2, "build": build, "text": false, "request": {"command": command}});
    // A known command whose request does not decode.
    let bad = raw_request(
        &socket,
        &frame(json!({"command": "browser goto", "args": {"session": "s1"}})),
    );
    assert_eq!(bad["kind"], "reply", "{bad}");
    let envelope: Value =
        serde_json::from_str(bad["envelope"].as_str().unwrap_or("")).expect("json");
    assert_eq!(envelope["command"], "browser goto", "{envelope}");
    assert_eq!(envelope["ok"], false);
    // A command this build does not know is named as sent, never as `help`.
    let unknown = raw_request(
        &socket,
        &frame(json!({"command": "browser teleport", "args": {}})),
    );
    let envelope: Value =
        serde_json::from_str(unknown["envelope"].as_str().unwrap_or("")).expect("json");
    assert_eq!(envelope["command"], "browser teleport", "{envelope}");
    assert_eq!(envelope["error"]["code"], "INTERNAL_ERROR", "{envelope}");
    // The daemon still serves.
    assert_eq!(
        env.run(&["browser", "list-sessions"]).ok().stdout,
        "0 sessions\n"
    );
}

#[test]
fn an_unknown_subcommand_is_named_as_typed() {
    let env = Env::new();
    let r = env.run(&["browser", "clik", "@e1", "--session", "s1", "--json"]);
    assert_eq!(r.code, 2, "{r:?}");
    let v = r.json();
    assert_eq!(v["command"], "browser clik", "{v}");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
}

#[test]
fn a_daemon_whose_home_is_deleted_closes_its_browsers_and_exits() {
    need_chromium!();
    let env = Env::new();
    env.start(&[]);
    let daemon = env.daemon_pid().expect("daemon pid");
    let browsers = env.main_browser_pids();
    assert_eq!(browsers.len(), 1, "one browser: {browsers:?}");
    // Chromium keeps writing into its profile under the home (and may recreate it): retry until
    // the tree is gone once; the session records do not come back.
    let until = Instant::now() + Duration::from_secs(10);
    while env.home.exists() && Instant::now() < until {
        let _ = std::fs::remove_dir_all(&env.home);
    }
    assert!(!env.home.join("sessions").exists(), "home deleted");
    assert!(
        wait_gone(daemon, Duration::from_secs(30)),
        "a daemon no client can reach exits"
    );
    for pid in browsers {
        assert!(
            wait_gone(pid, Duration::from_secs(10)),
            "its browser {pid} is closed: no record is left to re-attach to it"
        );
    }
}

/// The session (`setsid`) of a process, from `/proc/PID/stat`.
fn session_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the `(comm)` field: state, ppid, pgrp, session.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(3)?.parse().ok()
}

/// The daemon leads a session of its own, not its first client's (no terminal hangup or job
/// control reaches it, and a scheduler that groups by session gives it its own share), and the
/// browsers it starts are in that session.
#[test]
fn the_daemon_and_its_browsers_are_in_a_session_of_their_own() {
    need_chromium!();
    let env = Env::new();
    env.start(&[]);
    let daemon = env.daemon_pid().expect("daemon pid");
    assert_eq!(
        session_of(daemon),
        Some(daemon),
        "the daemon leads its session"
    );
    let ours = session_of(std::process::id()).expect("this test's session");
    assert_ne!(ours, daemon, "not the client's session");
    let browsers = env.main_browser_pids();
    assert!(!browsers.is_empty(), "a browser runs");
    for pid in browsers {
        assert_eq!(
            session_of(pid),
            Some(daemon),
            "browser {pid} is in the daemon's session"
        );
    }
}

/// The daemon runs in `/` (it pins no client's directory), and a home too deep for a Unix
/// socket's `sun_path` still gets a daemon (its socket lives in a short runtime directory).
#[test]
fn the_daemon_runs_in_root_and_a_deep_home_still_gets_one() {
    let env = Env::new();
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["ok"], true, "{v}");
    let pid = env.daemon_pid().expect("daemon pid");
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/cwd")).expect("cwd"),
        Path::new("/")
    );

    let deep = env.home.with_file_name("d".repeat(120)).join("home");
    let run = |args: &[&str]| {
        let out = env
            .command(args)
            .env("ACTIONBOOK_HOME", &deep)
            .output()
            .expect("run");
        serde_json::from_slice::<Value>(&out.stdout)
            .unwrap_or_else(|_| json!({"stderr": String::from_utf8_lossy(&out.stderr)}))
    };
    let v = run(&["browser", "list-sessions", "--json"]);
    let deep_pid = std::fs::read_to_string(deep.join("daemon.pid"))
        .ok()
        .and_then(|p| p.trim().parse::<u32>().ok());
    let again = run(&["browser", "list-sessions", "--json"]);
    if let Some(p) = deep_pid {
        // SIGTERM: the daemon exits and removes its socket (a SIGKILL would leave the file).
        let _ = std::process::Command::new("kill")
            .arg(p.to_string())
            .status();
        if !wait_gone(p, Duration::from_secs(10)) {
            crate::support::kill(p);
        }
    }
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(again["ok"], true, "{again}");
    assert!(deep_pid.is_some(), "no daemon for the deep home");
}

/// A daemon killed while it runs a command: the client answers an envelope naming the session
/// and tab, retryable only when running the command again is safe (an `eval` that had run in
/// part is not; a wait for an element is).
#[test]
fn a_daemon_gone_mid_command_answers_retryable_only_when_a_retry_is_safe() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let cases = [
        (
            vec![
                "eval",
                "window.__runs = (window.__runs || 0) + 1; await new Promise(r => setTimeout(r, 60000)); 1",
                "--timeout",
                "90000",
            ],
            false,
        ),
        (
            vec!["wait", "element", "#never", "--timeout", "90000"],
            true,
        ),
    ];
    for (args, retryable) in cases {
        let client = holding(&env, &t, &args);
        env.kill_daemon();
        let out = client.wait_with_output().expect("the client");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert_eq!(v["ok"], false, "{args:?}: {v}");
        assert_eq!(v["error"]["code"], "INTERNAL_ERROR", "{args:?}: {v}");
        assert_eq!(v["error"]["retryable"], retryable, "{args:?}: {v}");
        assert_eq!(v["context"]["session_id"], sid.as_str(), "{args:?}: {v}");
        assert_eq!(v["context"]["tab_id"], "t1", "{args:?}: {v}");
        assert!(v["meta"]["duration_ms"].as_u64().unwrap_or(0) > 0, "{v}");
        // The next command finds the session again (a new daemon).
        let v = crate::support::on(&env, &t, &["title"]);
        assert_eq!(v["ok"], true, "{v}");
    }
}

/// A navigation begun before the daemon was killed and not committed yet holds the messages of
/// the new daemon's page session until it commits (Chromium's doing): the next commands wait for
/// it instead of calling the page unresponsive after 5 s, and `wait navigation` takes it as the
/// navigation it waits for.
#[test]
fn a_navigation_under_way_across_a_daemon_restart_is_waited_for() {
    need_chromium!();
    let f = site();
    f.route(
        "/slow1.html",
        "text/html",
        "<title>Slow one</title><p>slow",
        Duration::from_secs(8),
    );
    f.route(
        "/slow2.html",
        "text/html",
        "<title>Slow two</title><p>slow",
        Duration::from_secs(8),
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for (page, then) in [
        ("/slow1.html", vec!["url", "--timeout", "30000"]),
        (
            "/slow2.html",
            vec!["wait", "navigation", "--timeout", "30000"],
        ),
    ] {
        let goto = holding(&env, &t, &["goto", &f.url(page), "--timeout", "60000"]);
        env.kill_daemon();
        let _ = goto.wait_with_output();
        let v = crate::support::on(&env, &t, &then);
        assert_eq!(
            v["ok"], true,
            "{then:?} after a restart mid-navigation: {v}"
        );
        assert_eq!(v["context"]["url"], f.url(page), "{v}");
        let v = crate::support::on(&env, &t, &["title"]);
        assert_eq!(v["ok"], true, "{v}");
    }
}

#[test]
fn daemon_stop_lets_commands_finish_and_sessions_outlive_it_and_restart_starts_another() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let v = env.json(&["daemon", "status"]);
    assert_eq!(
        (v["ok"].as_bool(), v["data"]["status"].as_str()),
        (Some(true), Some("stopped")),
        "{v}"
    );
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let first = env.daemon_pid().expect("the daemon's pid");
    let v = env.json(&["daemon", "status"]);
    assert_eq!(
        (v["data"]["status"].as_str(), v["data"]["pid"].as_u64()),
        (Some("running"), Some(u64::from(first))),
        "{v}"
    );
    // A restart: another daemon at once, the session still there.
    let v = env.json(&["daemon", "restart"]);
    assert_eq!(v["data"]["status"], "running", "{v}");
    assert_eq!(v["data"]["previous_pid"], first, "{v}");
    let second = env.daemon_pid().expect("the new daemon's pid");
    assert_ne!(second, first);
    assert_eq!(v["data"]["pid"], second, "{v}");
    assert!(
        wait_gone(first, Duration::from_secs(10)),
        "the first daemon exited"
    );
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");

    // A stop while a goto runs: the goto answers with its page, then the daemon is gone.
    let slow = f.url("/slow.html");
    let goto = goto_in_flight(&env, &sid, &slow);
    let v = env.json(&["daemon", "stop"]);
    assert_eq!(
        (
            v["data"]["status"].as_str(),
            v["data"]["previous_pid"].as_u64()
        ),
        (Some("stopped"), Some(u64::from(second))),
        "{v}"
    );
    let out = goto.join().expect("goto thread").expect("run goto");
    let g: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("goto: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(g["data"]["title"], "Slow", "{g}");
    assert!(
        wait_gone(second, Duration::from_secs(1)),
        "stop returned before the daemon exited"
    );
    let v = env.json(&["daemon", "status"]);
    assert_eq!(v["data"]["status"], "stopped", "{v}");
    let v = env.json(&["daemon", "stop"]);
    assert_eq!(v["meta"]["warnings"][0], "no daemon was running", "{v}");
    // The next command starts a daemon that takes the session up again, browser and page.
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Slow", "{v}");
}

/// A daemon with nothing to do exits after its idle timeout. (Its loop remade the idle sleep on
/// every turn, and the socket check turns it every 2 s: no daemon ever idled out.) One with a
/// session open stays: the session's request log and buffers live in it.
#[test]
fn an_idle_daemon_exits_after_its_idle_timeout() {
    need_chromium!();
    let env = Env::new();
    let out = env
        .command(&["browser", "start", "--set-session-id", "idle", "--json"])
        .env("ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS", "3")
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let pid = env.live_daemon_pid().expect("a daemon serves the home");
    std::thread::sleep(Duration::from_secs(9));
    assert_eq!(
        env.live_daemon_pid(),
        Some(pid),
        "the daemon left with a session open"
    );
    let r = env.run(&["browser", "close", "--session", "idle"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        wait_gone(pid, Duration::from_secs(30)),
        "the daemon was still running 30 s after the last session closed (idle timeout 3 s)"
    );
    let env = Env::new();
    let out = env
        .command(&["browser", "list-sessions", "--json"])
        .env("ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS", "3")
        .output()
        .expect("run");
    assert!(out.status.success(), "{out:?}");
    let pid = env.live_daemon_pid().expect("a daemon serves the home");
    assert!(
        wait_gone(pid, Duration::from_secs(30)),
        "the daemon was still running 30 s after its last command (idle timeout 3 s)"
    );
}
