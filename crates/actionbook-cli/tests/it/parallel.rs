//! Many CLI processes at once on one session.

use crate::need_chromium;
use crate::support::{Env, site};

#[test]
fn thirty_two_parallel_clients() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let sid = env.start(&["--open-url", &index]);
    env.run(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ])
    .ok();
    let mut children = Vec::new();
    for i in 0..32 {
        let (args, expect): (Vec<String>, &str) = match i % 4 {
            0 => (
                vec!["title".into(), "--tab".into(), "t1".into()],
                "Fixture Home",
            ),
            1 => (
                vec!["url".into(), "--tab".into(), "t1".into()],
                "index.html",
            ),
            2 => (
                vec!["title".into(), "--tab".into(), "t2".into()],
                "Page Two",
            ),
            _ => (vec!["list-tabs".into()], "\"total_tabs\":2"),
        };
        let mut full: Vec<String> = vec!["browser".into()];
        full.extend(args);
        full.extend(["--session".to_string(), sid.clone(), "--json".to_string()]);
        let refs: Vec<&str> = full.iter().map(String::as_str).collect();
        let child = env
            .command(&refs)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        children.push((child, expect));
    }
    for (child, expect) in children {
        let out = child.wait_with_output().expect("wait");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(expect), "expected {expect} in {stdout}");
    }
    // Every state file is still valid JSON.
    for entry in walk(&env.home.join("sessions")) {
        if entry.extension().is_some_and(|e| e == "json") {
            let bytes = std::fs::read(&entry).expect("read state");
            assert!(
                serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
                "{}",
                entry.display()
            );
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
