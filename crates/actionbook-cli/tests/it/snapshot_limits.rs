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
