//! Snapshot limits: a capture that runs out of time says which limit it hit, and the tab keeps
//! working afterwards.

use crate::need_chromium;
use crate::support::{Env, Fixture};

/// A 20,000-element page under a `--timeout` far below what its capture needs: TIMEOUT naming
/// `--timeout`, and the next snapshot on the same tab (default timeout) succeeds in full.
#[test]
fn snapshot_out_of_time_names_the_limit_and_leaves_the_tab_working() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let rows: String = (0..5_000)
        .map(|i| format!("<div><p>row {i}</p><button>Go {i}</button><span>s</span></div>"))
        .collect();
    f.html(
        "/big.html",
        &format!("<!doctype html><title>big</title><body>{rows}</body>"),
    );
    let sid = env.start(&["--open-url", &f.url("/big.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // The first snapshot attaches the frame graph, so the short deadline below is spent in the
    // capture itself.
    let v = env.json(&[&["browser", "snapshot"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(&[&["browser", "snapshot", "--timeout", "5"][..], &t].concat());
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("--timeout"), "{v}");
    let v = env.json(&[&["browser", "snapshot", "--interactive"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let buttons = v["data"]["nodes"]
        .as_array()
        .map_or(0, |n| n.iter().filter(|n| n["role"] == "button").count());
    assert_eq!(buttons, 5_000, "{v}");
}

/// A page whose snapshot prints more lines than the line limit (lowered through
/// `ACTIONBOOK_SNAPSHOT_MAX_LINES` in the daemon's environment, so a small page trips it): a
/// clear UNSUPPORTED_OPERATION naming the lines, the limit and the ways to narrow; each of those
/// ways then answers, and the tab keeps working.
#[test]
fn snapshot_over_the_line_limit_says_how_to_narrow_and_leaves_the_tab_working() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let rows: String = (0..400)
        .map(|i| format!("<li><p>row {i}</p><span>s {i}</span><button>Go {i}</button></li>"))
        .collect();
    f.html(
        "/big.html",
        &format!("<!doctype html><title>big</title><main><ul>{rows}</ul></main>"),
    );
    // The daemon reads the limit from the environment it was started with.
    let out = env
        .command(&[
            "browser",
            "start",
            "--headless",
            "--open-url",
            &f.url("/big.html"),
            "--json",
        ])
        .env("ACTIONBOOK_SNAPSHOT_MAX_LINES", "600")
        .output()
        .expect("run actionbook");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("start answers JSON");
    assert_eq!(v["ok"], true, "{v}");
    let sid = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let snap = |extra: &[&str]| env.json(&[&["browser", "snapshot"][..], &t, extra].concat());

    let v = snap(&[]);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "UNSUPPORTED_OPERATION", "{v}");
    let lines = v["error"]["details"]["lines"].as_u64().unwrap_or(0);
    assert!(lines > 600, "{v}");
    assert_eq!(v["error"]["details"]["limit"], 600, "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("600") && message.contains("lines"), "{v}");
    let hint = v["error"]["hint"].as_str().unwrap_or_default();
    for way in ["--interactive", "--depth", "--selector", "--max-bytes"] {
        assert!(hint.contains(way), "{way} missing from the hint: {v}");
    }
    // The text form says the same.
    let run = env.run(&[&["browser", "snapshot"][..], &t].concat());
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("UNSUPPORTED_OPERATION")
            || run.stderr.contains("UNSUPPORTED_OPERATION"),
        "{run:?}"
    );

    // Each way of narrowing answers: the 400 buttons alone, a shallow tree, a subtree, pages.
    let v = snap(&["--interactive"]);
    assert_eq!(v["ok"], true, "{v}");
    let buttons = v["data"]["nodes"]
        .as_array()
        .map_or(0, |n| n.iter().filter(|n| n["role"] == "button").count());
    assert_eq!(buttons, 400, "{v}");
    let v = snap(&["--depth", "1"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = snap(&["--selector", "li:nth-child(3)"]);
    assert_eq!(v["ok"], true, "{v}");
    let names: Vec<&str> = v["data"]["nodes"]
        .as_array()
        .map(|n| n.iter().filter_map(|n| n["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(names.contains(&"Go 2"), "{v}");
    let v = snap(&["--max-bytes", "4000"]);
    assert_eq!(v["ok"], true, "{v}");
    let pages = v["data"]["pages"].as_u64().unwrap_or(0);
    assert!(pages > 1, "{v}");
    assert!(
        !v["meta"]["warnings"]
            .to_string()
            .contains("over the budget"),
        "{v}"
    );
    // A row longer than the budget is kept whole on a page of its own, and the page says so.
    let v = env.json(
        &[
            &[
                "browser",
                "eval",
                "const p = document.createElement('p'); p.textContent = 'lorem ipsum '.repeat(2000); document.body.append(p); 1",
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = snap(&["--max-bytes", "4000"]);
    let pages = v["data"]["pages"].as_u64().unwrap_or(0);
    // (page, its file's size then) of each page that says it is over the budget.
    let over: Vec<(u64, u64)> = (1..=pages)
        .filter_map(|n| {
            let v = snap(&["--page", &n.to_string()]);
            let said = v["meta"]["warnings"]
                .to_string()
                .contains("over the budget of 4000");
            let file = v["data"]["path"].as_str().unwrap_or_default();
            let bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
            said.then_some((n, bytes))
        })
        .collect();
    assert_eq!(over.len(), 1, "pages: {pages}, over: {over:?}");
    assert!(over[0].1 > 24_000, "{over:?}");

    // The tab still works: a click by ref from the narrowed snapshot lands.
    let v = snap(&["--interactive"]);
    let go0 = crate::support::ref_of(&v, "button", "Go 0");
    let v = env.json(&[&["browser", "click", go0.as_str()][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(
        &[
            &[
                "browser",
                "eval",
                "document.querySelectorAll('button').length",
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["value"], 400, "{v}");
}
