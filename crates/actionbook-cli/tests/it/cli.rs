//! Commands that need no browser: help, version, usage errors, unknown sessions (spec 5.1, 5.3, 5.4).

use crate::support::Env;

#[test]
fn version_and_help_have_no_context() {
    let env = Env::new();
    let r = env.run(&["--version"]).ok();
    assert_eq!(r.stdout.trim(), env!("CARGO_PKG_VERSION"));
    let v = env.run(&["--version", "--json"]).ok().json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["command"], "version");
    assert_eq!(v["data"], env!("CARGO_PKG_VERSION"));
    assert!(v.get("context").is_none(), "{v}");
    for key in ["ok", "command", "data", "error", "meta"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    let v = env.run(&["help", "--json"]).ok().json();
    assert_eq!(v["command"], "help");
    assert!(
        v["data"].as_str().is_some_and(|s| s.contains("snapshot")),
        "{v}"
    );
    assert!(v.get("context").is_none());
    let text = env.run(&["help"]).ok().stdout;
    assert!(
        text.contains("start") && text.contains("list-tabs"),
        "{text}"
    );
}

#[test]
fn every_command_help_has_an_example() {
    let env = Env::new();
    for sub in [
        "start",
        "list-sessions",
        "status",
        "close",
        "restart",
        "list-tabs",
        "new-tab",
        "open",
        "close-tab",
        "goto",
        "back",
        "forward",
        "reload",
        "snapshot",
        "click",
        "fill",
        "eval",
        "title",
        "url",
    ] {
        let r = env.run(&["browser", sub, "--help"]).ok();
        assert!(
            r.stdout.contains("Example:\n  actionbook browser"),
            "{sub}: {}",
            r.stdout
        );
    }
}

#[test]
fn usage_errors_are_envelopes_with_json_and_exit_2() {
    let env = Env::new();
    let r = env.run(&["browser", "title", "--session", "s1", "--json"]);
    assert_eq!(r.code, 2, "{r:?}");
    let v = r.json();
    assert_eq!(v["ok"], false);
    assert_eq!(v["command"], "browser title");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--tab")),
        "{v}"
    );
    assert_eq!(v["data"], serde_json::Value::Null);

    let r = env.run(&["browser", "goto", "--bogus", "--json"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.json()["error"]["code"], "INVALID_ARGUMENT");

    // Without --json: the spec's error line, then clap's help on what was wrong, on stderr;
    // nothing on stdout.
    let r = env.run(&["browser", "title", "--session", "s1"]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.starts_with("error INVALID_ARGUMENT: "), "{r:?}");
    assert!(r.stderr.contains("--tab"), "{r:?}");
    let r = env.run(&[
        "browser",
        "scroll",
        "sideways",
        "--session",
        "s1",
        "--tab",
        "t1",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("error INVALID_ARGUMENT: invalid value 'sideways'"),
        "{r:?}"
    );
    assert!(r.stderr.contains("into-view"), "the possible values: {r:?}");
}

#[test]
fn unknown_session_and_close_are_clean() {
    let env = Env::new();
    let v = env.json(&["browser", "status", "--session", "nosuch"]);
    assert_eq!(v["error"]["code"], "SESSION_NOT_FOUND");
    assert_eq!(v["context"]["session_id"], "nosuch");
    let r = env.run(&["browser", "title", "--session", "nosuch", "--tab", "t1"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(
        r.stderr
            .starts_with("error SESSION_NOT_FOUND: session 'nosuch' not found"),
        "{r:?}"
    );
    let v = env.json(&["browser", "close", "--session", "nosuch"]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["data"]["closed_tabs"], 0);
    assert_eq!(v["meta"]["warnings"].as_array().map(Vec::len), Some(1));
    // An id no session can have is not "already closed": the caller mistyped it.
    for bad in ["../x", "a b", "S1"] {
        let v = env.json(&["browser", "close", "--session", bad]);
        assert_eq!(v["ok"], false, "{v}");
        assert_eq!(v["error"]["code"], "SESSION_NOT_FOUND", "{v}");
    }
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 0);
    assert!(v.get("context").is_none());
    assert_eq!(
        env.run(&["browser", "list-sessions"]).ok().stdout,
        "0 sessions\n"
    );
}

#[test]
fn bad_session_id_is_invalid_argument() {
    let env = Env::new();
    let v = env.json(&["browser", "start", "--set-session-id", "Bad_ID"]);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("^[a-z][a-z0-9_-]{1,63}$"))
    );
    let v = env.json(&["browser", "start", "--mode", "extension"]);
    assert_eq!(v["error"]["code"], "UNSUPPORTED_OPERATION");
}

#[test]
fn home_and_socket_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.run(&["browser", "list-sessions"]).ok();
    let mode = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode(&env.home).ok(), Some(0o700));
    assert_eq!(mode(&env.home.join("daemon.sock")).ok(), Some(0o600));
    assert!(env.home.join("daemon.version").exists());
}

#[test]
fn closed_stdout_is_a_quiet_exit() {
    let env = Env::new();
    let mut child = env
        .command(&["help"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take()); // reader gone before the write
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn missing_browser_names_the_path_and_the_fix() {
    let env = Env::new();
    let v = env
        .command(&["browser", "start", "--headless", "--json"])
        .env(
            "ACTIONBOOK_BROWSER_EXECUTABLE_PATH",
            "/nonexistent/chromium",
        )
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&v.stdout).expect("json");
    assert_eq!(v["error"]["code"], "BROWSER_NOT_FOUND", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("/nonexistent/chromium"), "{msg}");
    assert!(msg.contains("apt-get install"), "{msg}");
    // No session was created and the id was not used up.
    assert_eq!(
        env.json(&["browser", "list-sessions"])["data"]["total_sessions"],
        0
    );
}

/// `eval -` with a terminal on stdin: nobody pipes code in, so reading would wait for a person
/// forever (the reference suite's `eval -` on a pty hung the CLI). It is a usage error at once.
#[test]
fn eval_from_stdin_on_a_terminal_is_refused_not_awaited() {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let env = Env::new();
    // The master stays open (held here) so the terminal is live: a read on it would block.
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("openpt");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_string_lossy().as_ref())
        .expect("open the terminal");
    let mut c = env.command(&[
        "browser",
        "eval",
        "-",
        "--session",
        "nosuch",
        "--tab",
        "t1",
        "--json",
    ]);
    c.stdin(slave)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    let limit = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().expect("try_wait").is_none() && std::time::Instant::now() < limit {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if child.try_wait().expect("try_wait").is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("eval - on a terminal was still waiting for input after 20 s");
    }
    let out = child.wait_with_output().expect("output");
    drop(master);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json envelope");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("terminal") && message.contains("pipe"),
        "{v}"
    );
}
