//! Navigation and context updates (spec 5.6, section 9).

use crate::need_chromium;
use crate::support::{Env, RefusedPort, site};

#[test]
fn goto_back_forward_reload_update_context() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let page2 = f.url("/page2.html");
    let sid = env.start(&["--open-url", &index]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let r = env
        .run(&[&["browser", "goto", &page2][..], &t].concat())
        .ok();
    assert_eq!(
        r.stdout,
        format!("[s1 t1] {page2}\nok browser goto\ntitle: Page Two\n")
    );
    let v = env.json(&[&["browser", "back"][..], &t].concat());
    assert_eq!(v["data"]["kind"], "back");
    assert_eq!(v["data"]["from_url"], page2.as_str());
    assert_eq!(v["data"]["to_url"], index.as_str());
    assert_eq!(v["data"]["requested_url"], serde_json::Value::Null);
    assert_eq!(v["context"]["url"], index.as_str());
    assert_eq!(v["context"]["title"], "Fixture Home");
    let v = env.json(&[&["browser", "forward"][..], &t].concat());
    assert_eq!(v["context"]["url"], page2.as_str());
    assert_eq!(v["context"]["title"], "Page Two");
    let v = env.json(&[&["browser", "reload"][..], &t].concat());
    assert_eq!(v["data"]["kind"], "reload");
    assert_eq!(v["context"]["url"], page2.as_str());
    let v = env.json(&[&["browser", "goto", &index][..], &t].concat());
    assert_eq!(v["data"]["requested_url"], index.as_str());
    assert_eq!(v["data"]["from_url"], page2.as_str());
    assert_eq!(v["data"]["to_url"], index.as_str());
    assert_eq!(v["data"]["title"], "Fixture Home");
    assert_eq!(v["context"]["title"], "Fixture Home");
}

#[test]
fn navigation_failures_and_timeouts() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // A port nobody listens on.
    let refused = RefusedPort::new();
    let dead = refused.url("/");
    // Not a URL at all: refused, the tab left where it was (it went to Chromium as a host name
    // and came back NAVIGATION_FAILED on an error page).
    let v = env.json(&[&["browser", "goto", "not a url"][..], &t].concat());
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert_eq!(v["context"]["url"], f.url("/index.html"), "{v}");
    let v = env.json(&[&["browser", "goto", &dead][..], &t].concat());
    assert_eq!(v["error"]["code"], "NAVIGATION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("net::ERR_")),
        "{v}"
    );
    assert_eq!(v["context"]["tab_id"], "t1");

    let v = env.json(
        &[
            &["browser", "goto", &f.url("/slow.html"), "--timeout", "1000"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let r = env.run(&[&["browser", "goto", &f.url("/page2.html")][..], &t].concat());
    assert_eq!(r.code, 0, "tab unusable after a timeout: {r:?}");
    assert_eq!(
        env.json(&[&["browser", "title"][..], &t].concat())["data"]["value"],
        "Page Two"
    );
}

/// URLs as typed: scheme-less input is https (as the reference CLI reads it), code-carrying
/// schemes are refused before anything is opened.
#[test]
fn typed_urls_are_normalized_and_dangerous_ones_refused() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // The fixture speaks plain HTTP, so the https:// it becomes fails the TLS handshake.
    let bare = f.url("/page2.html").replace("http://", "");
    let v = env.json(&[&["browser", "goto", &bare][..], &t].concat());
    assert_eq!(v["error"]["code"], "NAVIGATION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("https://{bare}")) && m.contains("net::ERR_")),
        "{v}"
    );
    for bad in ["javascript:alert(1)", "data:text/html,<title>x</title>"] {
        let v = env.json(&[&["browser", "goto", bad][..], &t].concat());
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("dangerous URL protocol blocked")),
            "{v}"
        );
        let v = env.json(&[
            "browser",
            "new-tab",
            &f.url("/page2.html"),
            bad,
            "--session",
            &sid,
        ]);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    }
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(
        v["data"]["total_tabs"], 1,
        "no tab opened for a refused URL: {v}"
    );
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--open-url",
        "javascript:1",
    ]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 1, "no session started: {v}");
    let v = env.json(
        &[
            &[
                "browser",
                "goto",
                &f.url("/page2.html")
                    .to_uppercase()
                    .replace("/PAGE2.HTML", "/page2.html"),
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(
        v["context"]["title"], "Page Two",
        "an upper-case scheme is a scheme: {v}"
    );
}

/// A page whose renderer stays busy longer than one quick CDP read (a big page parsing and laying
/// out; here a script that holds the main thread for 7 s) still loads within `--timeout`: the
/// readyState read that cannot answer meanwhile is not the command's deadline. The old waiter
/// answered "browser goto timed out after 30000ms" about 5 s in, leaving the page half loaded.
#[test]
fn goto_waits_out_a_busy_renderer_within_its_timeout() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/busy.html",
        "<!doctype html><title>Busy</title><p>parsed</p>\
         <script>const end = Date.now() + 7000; while (Date.now() < end) {}</script>\
         <p>after</p>",
    );
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let busy = f.url("/busy.html");
    let started = std::time::Instant::now();
    let v = env.json(&[&["browser", "goto", &busy, "--timeout", "60000"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(7),
        "answered before the page's script let it load: {v}"
    );
    assert_eq!(v["data"]["to_url"], busy.as_str(), "{v}");
    assert_eq!(v["context"]["title"], "Busy", "{v}");
    let v = env.json(&[&["browser", "eval", "document.readyState"][..], &t].concat());
    assert_eq!(v["data"]["value"], "complete", "{v}");

    // A deadline shorter than the busy spell is still a TIMEOUT, and the tab works after it.
    let v = env.json(&[&["browser", "goto", &busy, "--timeout", "2000"][..], &t].concat());
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let v = env.json(&[&["browser", "goto", &f.url("/page2.html")][..], &t].concat());
    assert_eq!(
        v["context"]["title"], "Page Two",
        "tab unusable after the timeout: {v}"
    );
}
