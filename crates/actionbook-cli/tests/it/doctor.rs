//! `actionbook doctor` on a real Chromium: a healthy home passes every check (a headless launch
//! included) and exits 0; a browser that is not there, a broken `config.toml` and a session whose
//! browser was killed are each named with their fix, and a failure exits 1.

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, kill, wait_gone};

/// The checks of a `doctor --json` run, by name, and its exit code.
fn doctor(env: &Env, browser: Option<&str>) -> (i32, Value) {
    let mut c = env.command(&["doctor", "--json"]);
    if let Some(b) = browser {
        c.env("ACTIONBOOK_BROWSER_EXECUTABLE_PATH", b);
    }
    let out = c.output().expect("run actionbook doctor");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

#[track_caller]
fn check<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["data"]["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no check {name}: {v}"))
}

#[test]
fn doctor_passes_a_healthy_home_and_names_each_fault_with_its_fix() {
    need_chromium!();
    let env = Env::new();
    let (code, v) = doctor(&env, None);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "doctor");
    assert_eq!(v["data"]["healthy"], true, "{v}");
    let names: Vec<&str> = v["data"]["checks"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        names,
        [
            "browser", "launch", "home", "daemon", "config", "api", "disk", "sessions"
        ]
    );
    for c in v["data"]["checks"].as_array().into_iter().flatten() {
        assert_eq!(c["status"], "ok", "{c}");
        assert!(c.get("fix").is_none(), "{c}");
    }
    assert!(
        check(&v, "browser")["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Chromium")),
        "{v}"
    );
    assert!(
        check(&v, "launch")["detail"]
            .as_str()
            .is_some_and(|d| d.contains("answered over CDP")),
        "{v}"
    );
    // The text form: one line per check.
    let out = env.run(&["doctor"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.lines().any(|l| l.starts_with("ok    launch")),
        "{}",
        out.stdout
    );

    // No browser: both browser checks fail, with the fix; exit 1.
    let (code, v) = doctor(&env, Some("/nonexistent/chromium"));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["data"]["healthy"], false, "{v}");
    let b = check(&v, "browser");
    assert_eq!(b["status"], "fail", "{v}");
    assert!(
        b["detail"]
            .as_str()
            .is_some_and(|d| d.contains("/nonexistent/chromium")
                && d.contains("ACTIONBOOK_BROWSER_EXECUTABLE_PATH")),
        "{b}"
    );
    assert!(
        b["fix"]
            .as_str()
            .is_some_and(|f| f.contains("apt-get install chromium")),
        "{b}"
    );
    assert_eq!(check(&v, "launch")["status"], "fail", "{v}");
    let out = env
        .command(&["doctor"])
        .env(
            "ACTIONBOOK_BROWSER_EXECUTABLE_PATH",
            "/nonexistent/chromium",
        )
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.starts_with("fail  browser")),
        "{text}"
    );
    assert!(text.contains("fix: install Chromium"), "{text}");

    // A session whose browser was killed: named, with the commands that settle it.
    let sid = env.start(&[]);
    for pid in env.main_browser_pids() {
        kill(pid);
        wait_gone(pid, std::time::Duration::from_secs(5));
    }
    let (code, v) = doctor(&env, None);
    assert_eq!(code, 0, "a warning is no failure: {v}");
    let s = check(&v, "sessions");
    assert_eq!(s["status"], "warn", "{v}");
    assert!(
        s["detail"]
            .as_str()
            .is_some_and(|d| d.contains(&format!("browser gone: {sid}"))),
        "{s}"
    );
    assert!(
        s["fix"]
            .as_str()
            .is_some_and(|f| f.contains(&format!("close --session {sid}"))),
        "{s}"
    );
    assert_eq!(check(&v, "daemon")["status"], "ok", "{v}");

    // A config.toml that is not TOML fails its check.
    std::fs::write(env.home.join("config.toml"), "this is [not toml").expect("write config");
    let (code, v) = doctor(&env, None);
    assert_eq!(code, 1, "{v}");
    let c = check(&v, "config");
    assert_eq!(c["status"], "fail", "{v}");
    assert!(
        c["fix"]
            .as_str()
            .is_some_and(|f| f.contains("setup --reset")),
        "{c}"
    );
    let _ = env.run(&["browser", "close", "--session", &sid]);
}
