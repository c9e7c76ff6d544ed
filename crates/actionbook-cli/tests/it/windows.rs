//! Window ids: `w0` for the first window, `--new-window` gives the next, `--window wN` opens in it
//! (checked against Chromium's own window ids), ids kept across a daemon restart.

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, site};

/// Chromium's window id of each target, asked over a second CDP connection to the session's browser.
fn chromium_windows(env: &Env, sid: &str, targets: &[&str]) -> Vec<i64> {
    let path = env.home.join("sessions").join(sid).join("session.json");
    let rec: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("session.json")).expect("json");
    let endpoint = rec["cdp_endpoint"].as_str().expect("endpoint").to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (conn, _) = cdp_protocol::connect(&endpoint, &[])
            .await
            .expect("connect");
        let mut out = Vec::new();
        for t in targets {
            let v = conn
                .browser()
                .call_timeout(
                    "Browser.getWindowForTarget",
                    json!({ "targetId": t }),
                    std::time::Duration::from_secs(5),
                )
                .await
                .expect("getWindowForTarget");
            out.push(v["windowId"].as_i64().expect("windowId"));
        }
        conn.close().await;
        out
    })
}

fn native(v: &Value) -> String {
    v["data"]["tab"]["native_tab_id"]
        .as_str()
        .expect("native_tab_id")
        .to_string()
}

#[test]
fn new_window_and_window_ids() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let page2 = f.url("/page2.html");
    let sid = env.start(&["--open-url", &index]);
    let s = ["--session", sid.as_str()];

    // One window: no window_id anywhere.
    let v = env.json(&[&["browser", "title", "--tab", "t1"][..], &s].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["context"].get("window_id").is_none(), "{v}");

    let v = env.json(&[&["browser", "new-tab", &page2, "--new-window"][..], &s].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["tab_id"], "t2", "{v}");
    assert_eq!(v["context"]["window_id"], "w1", "{v}");
    assert_eq!(v["data"]["new_window"], true, "{v}");
    let t2 = native(&v);

    let v = env.json(&[&["browser", "new-tab", &index, "--window", "w0"][..], &s].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["tab_id"], "t3", "{v}");
    assert_eq!(v["context"]["window_id"], "w0", "{v}");
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
    assert_eq!(v["data"]["new_window"], false, "{v}");
    let t3 = native(&v);

    let v = env.json(&[&["browser", "list-tabs"][..], &s].concat());
    assert_eq!(v["data"]["total_tabs"], 3, "{v}");
    let t1 = v["data"]["tabs"][0]["native_tab_id"]
        .as_str()
        .expect("t1 native")
        .to_string();
    let w = chromium_windows(&env, &sid, &[&t1, &t2, &t3]);
    assert_ne!(w[0], w[1], "--new-window opened no new window");
    assert_eq!(w[2], w[0], "--window w0 did not open in the first window");

    // Tab-level commands carry the tab's window while there are several.
    let v = env.json(&[&["browser", "url", "--tab", "t2"][..], &s].concat());
    assert_eq!(v["context"]["window_id"], "w1", "{v}");
    let v = env.json(&[&["browser", "title", "--tab", "t3"][..], &s].concat());
    assert_eq!(v["context"]["window_id"], "w0", "{v}");

    // Text output is the plain new-tab format.
    let r = env
        .run(&[&["browser", "new-tab", &page2, "--window", "w1"][..], &s].concat())
        .ok();
    assert_eq!(
        r.stdout,
        format!("[{sid} t4] {page2}\nok browser new-tab\ntitle: Page Two\n")
    );

    // Unknown and malformed window ids.
    for bad in ["w9", "window1", "w01"] {
        let r = env.run(
            &[
                &["browser", "new-tab", &index, "--window", bad, "--json"][..],
                &s,
            ]
            .concat(),
        );
        assert_ne!(r.code, 0, "{r:?}");
        let v = r.json();
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{bad}: {v}");
        assert_eq!(v["context"]["session_id"], sid.as_str(), "{v}");
    }
    let v = env.json(
        &[
            &[
                "browser",
                "new-tab",
                &index,
                "--window",
                "w0",
                "--new-window",
            ][..],
            &s,
        ]
        .concat(),
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = env.json(&[&["browser", "list-tabs"][..], &s].concat());
    assert_eq!(
        v["data"]["total_tabs"], 4,
        "a failed new-tab left a tab behind: {v}"
    );

    // The window ids survive a daemon restart.
    env.kill_daemon();
    let v = env.json(&[&["browser", "new-tab", &index, "--window", "w1"][..], &s].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["tab_id"], "t5", "{v}");
    assert_eq!(v["context"]["window_id"], "w1", "{v}");
    let t5 = native(&v);
    let v = env.json(&[&["browser", "title", "--tab", "t1"][..], &s].concat());
    assert_eq!(v["context"]["window_id"], "w0", "{v}");
    assert_eq!(chromium_windows(&env, &sid, &[&t5])[0], w[1]);

    // Several URLs with --new-window all go to one new window (w2).
    let v = env.json(
        &[
            &["browser", "new-tab", &index, &page2, "--new-window"][..],
            &s,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["window_id"], "w2", "{v}");
    let ids: Vec<String> = v["data"]["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .map(|t| t["native_tab_id"].as_str().expect("native").to_string())
        .collect();
    let ww = chromium_windows(&env, &sid, &[&ids[0], &ids[1]]);
    assert_eq!(ww[0], ww[1], "{v}");
    assert!(ww[0] != w[0] && ww[0] != w[1], "{v}");

    // Closing every tab of w1 and w2 leaves one window: no window_id, and w1 cannot be used.
    for t in ["t2", "t4", "t5", "t6", "t7"] {
        env.run(&[&["browser", "close-tab", "--tab", t][..], &s].concat())
            .ok();
    }
    let v = env.json(&[&["browser", "title", "--tab", "t1"][..], &s].concat());
    assert!(v["context"].get("window_id").is_none(), "{v}");
    let v = env.json(&[&["browser", "new-tab", &index, "--window", "w1"][..], &s].concat());
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    // A new window does not reuse a closed window's id.
    let v = env.json(&[&["browser", "new-tab", &index, "--new-window"][..], &s].concat());
    assert_eq!(v["context"]["window_id"], "w3", "{v}");

    // With every tab closed there is no window left: a new tab opens one (it was
    // INTERNAL_ERROR "no browser is open", and the session could open no tab again).
    let v = env.json(&[&["browser", "list-tabs"][..], &s].concat());
    let open: Vec<String> = v["data"]["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["tab_id"].as_str().map(str::to_string))
        .collect();
    for t in &open {
        env.run(&[&["browser", "close-tab", "--tab", t.as_str()][..], &s].concat())
            .ok();
    }
    let v = env.json(&[&["browser", "list-tabs"][..], &s].concat());
    assert_eq!(v["data"]["total_tabs"], 0, "{v}");
    let v = env.json(&[&["browser", "new-tab", &page2][..], &s].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    let tab = v["context"]["tab_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let v = env.json(&[&["browser", "viewport", "--tab", &tab][..], &s].concat());
    assert_eq!(
        v["data"],
        serde_json::json!({"width": 1280, "height": 720}),
        "{v}"
    );
}
