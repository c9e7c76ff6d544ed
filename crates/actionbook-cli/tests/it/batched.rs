//! The reference CLI's batch commands: `browser batch-new-tab` / `batch-open` (every URL's
//! outcome), `browser batch-snapshot --tabs` (one envelope, one result per tab, a missing tab an
//! error result) and `browser batch-click` (in order, the first failure stops it with
//! BATCH_CLICK_ERROR saying where to resume).

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, assert_failure, on, ref_of, site, text, value};

fn tab_ids(v: &Value) -> Vec<String> {
    v["data"]["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["tab_id"].as_str().map(String::from))
        .collect()
}

#[test]
fn batch_new_tab_opens_every_url_and_reports_each_failure() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let (home, two) = (f.url("/index.html"), f.url("/page2.html"));

    let v = env.json(&[
        "browser",
        "batch-open",
        "--urls",
        &home,
        &two,
        "--tabs",
        "inbox",
        "settings",
        "--session",
        &sid,
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser batch-new-tab", "{v}");
    assert_eq!(v["context"]["session_id"], sid.as_str());
    assert!(v["context"].get("tab_id").is_none_or(Value::is_null), "{v}");
    assert_eq!(v["data"]["action"], "batch-new-tab");
    assert_eq!(v["data"]["opened"], 2);
    assert_eq!(tab_ids(&v), ["inbox", "settings"]);
    assert_eq!(v["data"]["tabs"][0]["title"], "Fixture Home");
    assert_eq!(v["data"]["tabs"][1]["title"], "Page Two");
    assert!(v["data"]["tabs"][1]["native_tab_id"].is_string(), "{v}");
    let listed = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(listed["data"]["total_tabs"], 3, "{listed}");

    // Text, as the reference prints it: the session header, `ok`, then a line per tab.
    let out = env.run(&[
        "browser",
        "batch-new-tab",
        "--urls",
        &two,
        "--session",
        &sid,
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        &lines[..3],
        [
            format!("[{sid}]").as_str(),
            "ok browser batch-new-tab",
            "1 tab opened"
        ],
        "{out:?}"
    );
    assert!(
        lines[3].starts_with("[t") && lines[3].ends_with("/page2.html"),
        "{out:?}"
    );

    // A URL that does not load is reported by its position; the others still open.
    let dead = "http://127.0.0.1:1/nothing-listens-here";
    let v = env.json(&[
        "browser",
        "batch-new-tab",
        "--urls",
        &home,
        dead,
        &two,
        "--session",
        &sid,
    ]);
    assert_failure(&v, "BATCH_OPEN_ERROR", "1 of 3 URLs did not load");
    let d = &v["error"]["details"];
    assert_eq!(d["completed"], 2, "{v}");
    assert_eq!(d["failed_index"], 1, "{v}");
    assert_eq!(d["failed_url"], dead, "{v}");
    assert_eq!(d["failures"][0]["index"], 1, "{v}");
    assert_eq!(d["failures"][0]["code"], "NAVIGATION_FAILED", "{v}");
    assert_eq!(d["tabs"].as_array().map(Vec::len), Some(2), "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.starts_with("opened 2/3")),
        "{v}"
    );

    // Bad requests are refused before any tab opens.
    let before =
        env.json(&["browser", "list-tabs", "--session", &sid])["data"]["total_tabs"].clone();
    let v = env.json(&[
        "browser",
        "batch-new-tab",
        "--urls",
        &home,
        &two,
        "--tabs",
        "only-one",
        "--session",
        &sid,
    ]);
    assert_failure(
        &v,
        "INVALID_ARGUMENT",
        "--tabs length (1) must match --urls length (2)",
    );
    let v = env.json(&[
        "browser",
        "batch-new-tab",
        "--urls",
        &home,
        &two,
        "--tabs",
        "same",
        "same",
        "--session",
        &sid,
    ]);
    assert_failure(&v, "INVALID_ARGUMENT", "given twice");
    let after =
        env.json(&["browser", "list-tabs", "--session", &sid])["data"]["total_tabs"].clone();
    assert_eq!(before, after);
    let v = env.json(&[
        "browser",
        "batch-new-tab",
        "--urls",
        &home,
        "--session",
        "nope",
    ]);
    assert_failure(&v, "SESSION_NOT_FOUND", "nope");
}

#[test]
fn batch_snapshot_captures_each_tab_and_reports_a_missing_one() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let opened = env.json(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ]);
    let t2 = opened["context"]["tab_id"]
        .as_str()
        .unwrap_or("t2")
        .to_string();

    let v = env.json(&[
        "browser",
        "batch-snapshot",
        "--tabs",
        "t1",
        &t2,
        "t9",
        "--interactive",
        "--session",
        &sid,
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser batch-snapshot");
    assert_eq!(v["context"]["session_id"], sid.as_str());
    assert_eq!(v["data"]["format"], "batch-snapshot");
    let results = v["data"]["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3, "{v}");
    let first = &results[0];
    assert_eq!(first["tab_id"], "t1");
    assert_eq!(first["status"], "ok", "{v}");
    assert_eq!(first["title"], "Fixture Home");
    assert!(
        std::path::Path::new(first["path"].as_str().unwrap_or_default()).is_file(),
        "{v}"
    );
    assert!(
        first["stats"]["node_count"].as_u64().unwrap_or(0) >= 4,
        "{v}"
    );
    assert_eq!(results[1]["tab_id"], t2.as_str());
    assert_eq!(results[1]["status"], "ok", "{v}");
    assert_eq!(results[1]["title"], "Page Two");
    assert_eq!(results[2]["tab_id"], "t9");
    assert_eq!(results[2]["status"], "error");
    assert_eq!(results[2]["code"], "TAB_NOT_FOUND", "{v}");
    assert!(
        results[2]["message"]
            .as_str()
            .is_some_and(|m| m.contains("t9"))
    );

    // The refs it hands out are the tab's: a click on one lands.
    let wrapped = serde_json::json!({ "data": first });
    let submit = ref_of(&wrapped, "button", "Submit");
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let clicked = on(&env, &t, &["click", &submit]);
    assert_eq!(clicked["ok"], true, "{clicked}");
    assert_eq!(value(&env, &t, "document.title"), "clicked");

    let out = env.run(&[
        "browser",
        "batch-snapshot",
        "--tabs",
        "t1",
        "t9",
        "--session",
        &sid,
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], format!("[{sid}]"), "{out:?}");
    assert_eq!(lines[1], "2 tabs", "{out:?}");
    assert!(lines[2].starts_with("[t1] http://"), "{out:?}");
    assert!(lines[3].starts_with("output saved to /"), "{out:?}");
    assert_eq!(lines[4], "[t9]", "{out:?}");
    assert!(lines[5].starts_with("error TAB_NOT_FOUND: "), "{out:?}");

    let v = env.json(&[
        "browser",
        "batch-snapshot",
        "--tabs",
        "t1",
        "--session",
        "nope",
    ]);
    assert_failure(&v, "SESSION_NOT_FOUND", "nope");
}

#[test]
fn batch_click_clicks_in_order_and_stops_at_the_first_failure() {
    need_chromium!();
    let f = site();
    f.html(
        "/clicks.html",
        r#"<!doctype html><html><head><title>Clicks</title></head><body>
<script>window.log = [];</script>
<button id="a" onclick="log.push('a')">A</button>
<button id="b" onclick="log.push('b')">B</button>
<button id="c" onclick="log.push('c')">C</button>
</body></html>"#,
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/clicks.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let snap = on(&env, &t, &["snapshot", "--interactive"]);
    let b = ref_of(&snap, "button", "B");
    let v = on(&env, &t, &["batch-click", "#a", &b, "//button[@id='c']"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser batch-click");
    assert_eq!(v["context"]["tab_id"], "t1");
    assert_eq!(v["data"]["action"], "batch-click");
    assert_eq!(v["data"]["clicks"], 3);
    assert_eq!(v["data"]["results"][1]["index"], 1);
    assert_eq!(v["data"]["results"][1]["selector"], b.as_str());
    assert_eq!(value(&env, &t, "log.join()"), "a,b,c");

    let v = on(
        &env,
        &t,
        &["batch-click", "#a", "#missing", "#c", "--timeout", "3000"],
    );
    assert_failure(
        &v,
        "BATCH_CLICK_ERROR",
        "click failed at index 1 (selector: #missing)",
    );
    assert_eq!(v["error"]["details"]["completed"], 1, "{v}");
    assert_eq!(v["error"]["details"]["failed_index"], 1, "{v}");
    assert_eq!(v["error"]["details"]["failed_selector"], "#missing", "{v}");
    assert_eq!(
        v["error"]["details"]["cause"]["code"], "ELEMENT_NOT_FOUND",
        "{v}"
    );
    assert_eq!(
        v["error"]["hint"], "completed 1/3, retry from index 1",
        "{v}"
    );
    // The click after the failed one did not run.
    assert_eq!(value(&env, &t, "log.join()"), "a,b,c,a");

    // A malformed selector anywhere in the batch is refused before the first click (the first
    // was clicked, then the batch stopped).
    for bad in ["###bad", "//button[", "@x1"] {
        let v = on(&env, &t, &["batch-click", "#a", bad]);
        assert_failure(&v, "INVALID_ARGUMENT", "selector 2 of 2");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.ends_with("nothing was clicked")),
            "{v}"
        );
    }
    assert_eq!(value(&env, &t, "log.join()"), "a,b,c,a", "nothing clicked");

    let out = text(&env, &t, &["batch-click", "#b", "#c"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!("[{sid} t1] http://")),
        "{out:?}"
    );
    assert_eq!(
        &lines[1..],
        [
            "ok browser batch-click",
            "clicks: 2",
            "  target: #b",
            "  target: #c"
        ],
        "{out:?}"
    );

    // One selector is a usage error, as in the reference CLI.
    let one = text(&env, &t, &["batch-click", "#a"]);
    assert_eq!(one.code, 2, "{one:?}");
}
