//! Navigation and context updates (spec 5.6, section 9).

use crate::need_chromium;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Env, RefusedPort, on, ref_of, site, value, value_until};

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
    // A reload of a slow page out of time is a timeout, the load stopped and the page still
    // there: not a page "not responding" (left loading, the old page answered nothing).
    let v = env.json(
        &[
            &[
                "browser",
                "goto",
                &f.url("/slow.html"),
                "--timeout",
                "20000",
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(&[&["browser", "reload", "--timeout", "1000"][..], &t].concat());
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    assert_eq!(
        v["error"]["message"], "browser reload timed out after 1000ms",
        "{v}"
    );
    assert_eq!(v["context"]["title"], "Slow", "{v}");
    let v = env.json(
        &[
            &["browser", "eval", "document.title", "--timeout", "3000"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["data"]["value"], "Slow", "{v}");
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

/// Page A (with an out-of-process iframe) and page B, both allowed into the back/forward cache
/// (the fixture's default `no-store` keeps pages out of it). A records each `pageshow`
/// (`persisted`: restored from the cache) in `window.shows` and the last message a frame posted
/// to it in `window.lastMessage`; the iframe's buttons fetch, throw and add an element late.
fn cacheable_site() -> crate::support::Fixture {
    let f = crate::support::Fixture::start();
    let html = |path: &str, body: &str| {
        f.route_with(
            path,
            "200 OK",
            &[("Cache-Control", "no-cache")],
            "text/html; charset=utf-8",
            body,
        );
    };
    let shows = "<script>window.shows = []; addEventListener('pageshow', e => shows.push(e.persisted)); \
         addEventListener('message', e => { window.lastMessage = e.data; });</script>";
    html(
        "/bf/a.html",
        &format!(
            r#"<!doctype html><html><head><title>Cached A</title></head><body>{shows}
<h1>Page A</h1>
<iframe id="o" title="Remote frame" src="{}" width="500" height="300"></iframe>
<iframe id="s" title="Same frame" src="/bf/s.html" width="300" height="80"></iframe>
</body></html>"#,
            f.cross_site_url("/bf/o.html")
        ),
    );
    html(
        "/bf/o.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body>
<script>
window.n = 0;
function get(path, tag) {
  fetch(path).then(r => r.text()).then(t => { console.log(tag + ' got ' + t); top.postMessage(tag + ':' + t, '*'); });
}
</script>
<button onclick="get('/bf/data?from=oop&n=' + (++n), 'oop' + n)">Remote fetch</button>
<button onclick="get('/bf/routed?n=' + (++n), 'routed' + n)">Remote routed</button>
<button onclick="setTimeout(() => { throw new Error('oop boom ' + (++n)); })">Remote throw</button>
<button onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'late' + (++n); p.textContent = 'late'; document.body.appendChild(p); top.postMessage('late' + n, '*'); }, 800)">Remote later</button>
<input aria-label="Remote field" oninput="top.postMessage('input:' + this.value, '*')">
</body></html>"#,
    );
    html(
        "/bf/s.html",
        "<!doctype html><html><body><script>function get() { return fetch('/bf/data?from=same').then(r => r.text()); }</script>Same</body></html>",
    );
    f.route("/bf/data", "text/plain", "real", Duration::ZERO);
    f.route(
        "/bf/slow",
        "text/plain",
        "slow",
        Duration::from_millis(1500),
    );
    f.route("/bf/routed", "text/plain", "unrouted", Duration::ZERO);
    html(
        "/bf/b.html",
        "<!doctype html><html><head><title>Page B</title></head><body><h1>Page B</h1>\
         <script>window.shows = []; addEventListener('pageshow', e => shows.push(e.persisted));</script></body></html>",
    );
    f
}

/// Snapshots until the iframe's buttons have refs; returns the snapshot.
fn snapshot_with_oopif(env: &Env, t: &[&str]) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let snap = on(env, t, &["snapshot"]);
        let has = snap["data"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|n| n["role"] == "button" && n["name"] == "Remote fetch" && n["ref"].is_string());
        if has || Instant::now() > until {
            return snap;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Clicks the iframe's button `name` (a ref of a fresh snapshot) and waits for the message it
/// posts to the top page.
fn click_in_oopif(env: &Env, t: &[&str], name: &str, message: &str) {
    let snap = snapshot_with_oopif(env, t);
    let v = on(env, t, &["click", &ref_of(&snap, "button", name)]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value_until(env, t, "window.lastMessage", &message.into()),
        message
    );
}

/// The request `network requests` lists whose URL ends with `end`.
fn request_to(env: &Env, t: &[&str], end: &str) -> Value {
    let v = on(env, t, &["network", "requests"]);
    assert_eq!(v["ok"], true, "{v}");
    v["data"]["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with(end)))
        .cloned()
        .unwrap_or_else(|| panic!("no request to {end}: {v}"))
}

/// Reads `logs <which>` until an entry's text is `text` (frames log asynchronously).
fn assert_logged(env: &Env, t: &[&str], which: &str, text: &str) {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let v = on(env, t, &["logs", which]);
        let found = v["data"]["items"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|i| i["text"].as_str().is_some_and(|x| x.contains(text)));
        if found {
            return;
        }
        assert!(
            Instant::now() < until,
            "{text:?} never in logs {which}: {v}"
        );
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// Loads B, then A (so the tab's recorders see A's documents arrive), then B again, and goes
/// back: A is restored from the back/forward cache. Returns (A's URL, B's URL).
fn restore_a(env: &Env, t: &[&str], f: &crate::support::Fixture) -> (String, String) {
    let (a, b) = (f.url("/bf/a.html"), f.url("/bf/b.html"));
    let v = on(env, t, &["goto", &a]);
    assert_eq!(v["ok"], true, "{v}");
    snapshot_with_oopif(env, t);
    let v = on(env, t, &["goto", &b]);
    assert_eq!(v["ok"], true, "{v}");
    // There is no load event to wait for: the answer comes at once.
    let started = Instant::now();
    let v = on(env, t, &["back"]);
    assert!(started.elapsed() < Duration::from_secs(10), "{v}");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["from_url"], b.as_str(), "{v}");
    assert_eq!(v["data"]["to_url"], a.as_str(), "{v}");
    assert_eq!(v["context"]["url"], a.as_str(), "{v}");
    assert_eq!(v["context"]["title"], "Cached A", "{v}");
    // Not vacuous: A came back from the cache (its second `pageshow` is a persisted one).
    assert_eq!(value(env, t, "JSON.stringify(shows)"), "[false,true]");
    (a, b)
}

/// What a page restored from the back/forward cache (the same documents; its OOPIF announced
/// again on new sessions; no load event) does with the engine's services: the network recorder
/// records what the page, its in-process frame and its OOPIF request afterwards (the page's
/// were ended at once as requests of a replaced document, their responses lost, and `wait
/// network-idle` did not wait for them), a route set before leaving applies in the restored
/// OOPIF, the console recorder reports both; refs of a new snapshot act in the OOPIF, one of
/// before leaving is refused as stale; `wait element`, `fill`, `screenshot` work.
#[test]
fn a_page_restored_from_the_back_forward_cache_works_in_every_service() {
    need_chromium!();
    let env = Env::new();
    let f = cacheable_site();
    let sid = env.start(&["--open-url", &f.url("/bf/b.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["goto", &f.url("/bf/a.html")]);
    assert_eq!(v["ok"], true, "{v}");
    let before = snapshot_with_oopif(&env, &t);
    let old_fetch = ref_of(&before, "button", "Remote fetch");
    // A route set before leaving still applies in the restored OOPIF (a new session).
    let v = on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/bf/routed*",
            "--fulfill",
            "--body",
            "mocked",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    let (_, b) = restore_a(&env, &t, &f);

    // The ref of before leaving: the same document, but refs are dropped on a history move.
    let v = on(&env, &t, &["click", &old_fetch]);
    assert_eq!(v["error"]["code"], "STALE_ELEMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("is from an earlier page")),
        "{v}"
    );
    assert_eq!(value(&env, &t, "String(window.lastMessage)"), "undefined");

    // Requests after the restore: the OOPIF's, the page's (one slow, so in flight a while) and
    // its in-process frame's; idle only once the slow one ended.
    click_in_oopif(&env, &t, "Remote fetch", "oop1:real");
    let v = on(
        &env,
        &t,
        &[
            "eval",
            "fetch('/bf/slow?from=top').then(r => r.text()).then(t => console.log('top got ' + t)), 1",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &["eval", "document.getElementById('s').contentWindow.get()"],
    );
    assert_eq!(v["data"]["value"], "real", "{v}");
    let started = Instant::now();
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "idle while the page's slow request was in flight: {v}"
    );
    for end in [
        "/bf/data?from=oop&n=1",
        "/bf/slow?from=top",
        "/bf/data?from=same",
    ] {
        let r = request_to(&env, &t, end);
        assert_eq!(r["status"], 200, "{r}");
        assert_eq!(r["failure"], Value::Null, "{r}");
    }
    assert_eq!(
        request_to(&env, &t, "/bf/data?from=oop&n=1")["target_type"],
        "iframe"
    );
    click_in_oopif(&env, &t, "Remote routed", "routed2:mocked");

    // Console messages and errors of the page and of the OOPIF.
    assert_logged(&env, &t, "console", "oop1 got real");
    assert_logged(&env, &t, "console", "top got slow");
    let snap = snapshot_with_oopif(&env, &t);
    let v = on(
        &env,
        &t,
        &["click", &ref_of(&snap, "button", "Remote throw")],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &[
            "eval",
            "setTimeout(() => { throw new Error('top boom'); }), 1",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_logged(&env, &t, "errors", "oop boom 3");
    assert_logged(&env, &t, "errors", "top boom");

    // Waiting for what the OOPIF adds, filling in it, a screenshot.
    let v = on(
        &env,
        &t,
        &["click", &ref_of(&snap, "button", "Remote later")],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &["wait", "element", "#late4", "--timeout", "8000"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &["fill", &ref_of(&snap, "textbox", "Remote field"), "hi"],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &"input:hi".into()),
        "input:hi"
    );
    let shot = env.home.join("bf.png");
    let v = on(&env, &t, &["screenshot", &shot.display().to_string()]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 0), "{v}");

    // Forward (B from the cache) and back again: the OOPIF on yet another session.
    let v = on(&env, &t, &["forward"]);
    assert_eq!(v["context"]["url"], b.as_str(), "{v}");
    assert_eq!(v["context"]["title"], "Page B", "{v}");
    assert_eq!(value(&env, &t, "JSON.stringify(shows)"), "[false,true]");
    let v = on(&env, &t, &["back"]);
    assert_eq!(v["context"]["title"], "Cached A", "{v}");
    assert_eq!(
        value(&env, &t, "JSON.stringify(shows)"),
        "[false,true,true]"
    );
    click_in_oopif(&env, &t, "Remote fetch", "oop5:real");
    click_in_oopif(&env, &t, "Remote routed", "routed6:mocked");
    let v = on(
        &env,
        &t,
        &["eval", "fetch('/bf/data?from=top2').then(r => r.text())"],
    );
    assert_eq!(v["data"]["value"], "real", "{v}");
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert_eq!(v["ok"], true, "{v}");
    for end in ["/bf/data?from=oop&n=5", "/bf/data?from=top2"] {
        assert_eq!(request_to(&env, &t, end)["status"], 200);
    }
    assert_logged(&env, &t, "console", "oop5 got real");
}

/// `wait navigation` and restores from the back/forward cache: one during the wait is seen; one
/// the page made since the previous command counts (as a document that arrived since then does;
/// the restored document is an old one, so its age said nothing), once; the one `back` made
/// itself does not.
#[test]
fn wait_navigation_sees_a_restore_from_the_back_forward_cache() {
    need_chromium!();
    let env = Env::new();
    let f = cacheable_site();
    let sid = env.start(&["--open-url", &f.url("/bf/b.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let (a, b) = restore_a(&env, &t, &f);
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "600"]);
    assert_eq!(
        v["error"]["code"], "TIMEOUT",
        "back's own restore is no news: {v}"
    );

    // During the wait.
    let v = on(
        &env,
        &t,
        &["eval", "setTimeout(() => history.forward(), 500), 1"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "8000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["observed_value"]["url"], b.as_str(), "{v}");
    assert_eq!(v["context"]["title"], "Page B", "{v}");
    assert_eq!(value(&env, &t, "JSON.stringify(shows)"), "[false,true]");

    // Before the wait: it counts, once.
    let v = on(
        &env,
        &t,
        &["eval", "setTimeout(() => history.back(), 50), 1"],
    );
    assert_eq!(v["ok"], true, "{v}");
    std::thread::sleep(Duration::from_millis(1500));
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "3000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["observed_value"]["url"], a.as_str(), "{v}");
    assert_eq!(v["context"]["title"], "Cached A", "{v}");
    assert_eq!(
        value(&env, &t, "JSON.stringify(shows)"),
        "[false,true,true]"
    );
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "600"]);
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    // Refs of A while the page moves by itself (no command drops them): refused while A is in
    // the cache (B shows: nothing acted on), valid again once A is restored (the same document).
    let snap = snapshot_with_oopif(&env, &t);
    let fetch = ref_of(&snap, "button", "Remote fetch");
    let heading = ref_of(&snap, "heading", "Page A");
    let v = on(
        &env,
        &t,
        &["eval", "setTimeout(() => history.forward(), 50), 1"],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value_until(&env, &t, "document.title", &"Page B".into()),
        "Page B"
    );
    for (args, r) in [(["click", &fetch], &fetch), (["text", &heading], &heading)] {
        let v = on(&env, &t, &args);
        assert_eq!(v["error"]["code"], "STALE_ELEMENT", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(r.as_str()) && m.contains("browser snapshot")),
            "{v}"
        );
    }
    let v = on(
        &env,
        &t,
        &["eval", "setTimeout(() => history.back(), 50), 1"],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value_until(&env, &t, "document.title", &"Cached A".into()),
        "Cached A"
    );
    assert_eq!(value(&env, &t, "String(window.lastMessage)"), "undefined");
    let v = on(&env, &t, &["click", &fetch]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &"oop1:real".into()),
        "oop1:real"
    );
    let v = on(&env, &t, &["text", &heading]);
    assert_eq!(v["data"]["value"], "Page A", "{v}");
}

/// A page its server answered with an HTTP error is loaded (what the server sent shows, as in a
/// browser), and the answer says which status it came with: goto, reload, new-tab and
/// `start --open-url`. A page that loaded fine gets no such warning.
#[test]
fn a_page_served_with_an_http_error_is_said_so() {
    need_chromium!();
    let f = site();
    f.route_with(
        "/broken.html",
        "500 Internal Server Error",
        &[],
        "text/html",
        "<title>Oops</title>server trouble",
    );
    let env = Env::new();
    let warned = |v: &Value, part: &str| {
        assert_eq!(v["ok"], true, "{v}");
        assert!(
            v["meta"]["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| w.as_str().is_some_and(|w| w.contains(part))),
            "no {part:?}: {v}"
        );
    };
    let missing = f.url("/missing.html");
    let v = env.json(&["browser", "start", "--headless", "--open-url", &missing]);
    warned(
        &v,
        &format!("--open-url: the server answered HTTP 404 for {missing}"),
    );
    let sid = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["goto", &f.url("/index.html")]);
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");
    let v = on(&env, &t, &["goto", &f.url("/broken.html")]);
    warned(&v, "the server answered HTTP 500");
    assert_eq!(v["context"]["title"], "Oops", "{v}");
    warned(&on(&env, &t, &["reload"]), "HTTP 500");
    let v = on(&env, &t, &["back"]);
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");
    let v = env.json(&["browser", "new-tab", &missing, "--session", &sid]);
    warned(
        &v,
        &format!("t2: the server answered HTTP 404 for {missing}"),
    );
    // A page whose own `performance` throws still loads and answers, with nothing to say, and
    // is clicked (the probe reads the browser's event counts and the time origin there).
    f.html(
        "/odd.html",
        "<title>Odd</title><button onclick=\"document.title = 'Hit'\">B</button>\
         <script>Object.defineProperty(window, 'performance', \
         { get() { throw new Error('mine') } });</script>",
    );
    let v = on(&env, &t, &["goto", &f.url("/odd.html")]);
    assert_eq!(
        (
            v["ok"].as_bool(),
            v["context"]["title"].as_str(),
            v["meta"]["warnings"].clone()
        ),
        (Some(true), Some("Odd"), serde_json::json!([])),
        "{v}"
    );
    let v = on(&env, &t, &["click", "button"]);
    assert_eq!(
        (v["ok"].as_bool(), v["context"]["title"].as_str()),
        (Some(true), Some("Hit")),
        "{v}"
    );
}

#[test]
fn goto_says_what_is_wrong_and_can_wait_less() {
    need_chromium!();
    let f = site();
    f.route("/never.png", "image/png", "", Duration::from_secs(60));
    f.html(
        "/stuck.html",
        "<title>Stuck</title><button id=\"b\" onclick=\"document.title = 'Hit'\">B</button>\
         <img src=\"/never.png\">",
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // Out of time with only an image loading: said so, with what is still loading.
    let v = on(
        &env,
        &t,
        // Long enough for a busy machine to parse the page; the image never comes.
        &["goto", &f.url("/stuck.html"), "--timeout", "8000"],
    );
    crate::support::assert_failure(
        &v,
        "TIMEOUT",
        "the page's document is parsed and usable, but it had not finished loading: still loading",
    );
    assert_eq!(
        v["error"]["details"]["pending"],
        serde_json::json!([f.url("/never.png")]),
        "{v}"
    );
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("--wait-until domcontentloaded")),
        "{v}"
    );
    // And the page is usable.
    assert_eq!(on(&env, &t, &["click", "#b"])["ok"], true);
    assert_eq!(value(&env, &t, "document.title"), "Hit");
    // Waiting less: the document parsed, or only arrived.
    for until in ["domcontentloaded", "commit"] {
        assert_eq!(on(&env, &t, &["goto", &f.url("/index.html")])["ok"], true);
        let v = on(
            &env,
            &t,
            &[
                "goto",
                &f.url("/stuck.html"),
                "--wait-until",
                until,
                "--timeout",
                "20000",
            ],
        );
        assert_eq!(v["ok"], true, "{until}: {v}");
        assert_eq!(v["context"]["url"], f.url("/stuck.html"), "{v}");
    }
    assert_eq!(
        value(&env, &t, "document.querySelector('#b') !== null"),
        true
    );
    // A reload out of time names what is loading as goto does (read before the load is stopped:
    // stopping ends the requests).
    let v = on(&env, &t, &["reload", "--timeout", "8000"]);
    crate::support::assert_failure(&v, "TIMEOUT", "had not finished loading: still loading");
    assert_eq!(
        v["error"]["details"]["pending"],
        serde_json::json!([f.url("/never.png")]),
        "{v}"
    );
    let v = on(
        &env,
        &t,
        &["goto", &f.url("/index.html"), "--wait-until", "soon"],
    );
    crate::support::assert_failure(&v, "INVALID_ARGUMENT", "soon");
    // A server asking for HTTP authentication: the error says how to give the credentials.
    f.route_with(
        "/private.html",
        "401 Unauthorized",
        &[("WWW-Authenticate", "Basic realm=\"test\"")],
        "text/html",
        "<title>Denied</title>",
    );
    let v = on(&env, &t, &["goto", &f.url("/private.html")]);
    crate::support::assert_failure(&v, "NAVIGATION_FAILED", "ERR_INVALID_AUTH_CREDENTIALS");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("https://user:password@host/path")),
        "{v}"
    );
}

/// A page whose script never ends (an endless loop keeps its main thread busy): a command that
/// runs out of time on it says the page is not responding and how to get out (it said "increase
/// --timeout or retry"), and `reload` and `goto` of a page of the same site stop the script and
/// load (they could not: the busy renderer held them up until their timeout).
#[test]
fn a_page_busy_for_good_is_said_and_reload_or_goto_get_out() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let page2 = f.url("/page2.html");
    let sid = env.start(&["--open-url", &index]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let hang = || {
        let v = on(
            &env,
            &t,
            &["eval", "setTimeout(() => { for (;;) {} }, 1500); 1"],
        );
        // Later than the eval's own answer, which reads the page after the script.
        assert_eq!(v["ok"], true, "{v}");
        std::thread::sleep(Duration::from_millis(2000));
    };

    hang();
    let v = on(
        &env,
        &t,
        &["wait", "element", "#nothing", "--timeout", "1500"],
    );
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the page is not responding (a script keeps its main thread busy"),
        "{v}"
    );
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.starts_with("`browser reload` or `browser goto` stops")),
        "{v}"
    );
    let stopped = "that script was stopped so the page could be loaded";
    let v = on(&env, &t, &["reload", "--timeout", "20000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["meta"]["warnings"].to_string().contains(stopped), "{v}");
    assert_eq!(value(&env, &t, "1 + 1"), 2);

    hang();
    let v = on(&env, &t, &["goto", &page2, "--timeout", "20000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    assert!(v["meta"]["warnings"].to_string().contains(stopped), "{v}");
    // A page that answers is left alone: nothing said.
    let v = on(&env, &t, &["goto", &index]);
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");

    // Busy before the daemon attached (it was killed): no new connection can stop the script,
    // and a reload from one broke the tab for good (INTERNAL_ERROR "Not attached to an active
    // page" to every command after). Said, with the way out, which works.
    hang();
    env.kill_daemon();
    for cmd in ["reload", "title"] {
        let v = on(&env, &t, &[cmd, "--timeout", "20000"]);
        assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("does not answer: a script keeps it busy")
                    && m.contains("close the tab")),
            "{v}"
        );
    }
    assert_eq!(on(&env, &t, &["close-tab"])["ok"], true);
    let v = env.json(&["browser", "new-tab", &page2, "--session", sid.as_str()]);
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
}

/// A snapshot prints a same-origin link's URL from its path, and `goto` loads such a path from
/// the tab's origin; a link to another origin keeps its full URL.
#[test]
fn same_origin_links_print_paths_that_goto_loads() {
    need_chromium!();
    let env = Env::new();
    let f = crate::support::Fixture::start();
    let other = f.cross_site_url("/far.html");
    f.html(
        "/links.html",
        &format!(
            "<title>Links</title><a href=\"/dir/near.html?q=1#top\">Near</a> \
             <a href=\"{other}\">Far</a>"
        ),
    );
    f.html("/dir/near.html", "<title>Near page</title><p>here</p>");
    let sid = env.start(&["--open-url", &f.url("/links.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["snapshot"]);
    assert_eq!(v["ok"], true, "{v}");
    let path = v["data"]["path"].as_str().unwrap_or_default().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(text.contains("- /url: /dir/near.html?q=1#top"), "{text}");
    assert!(text.contains(&format!("- /url: {other}")), "{text}");
    assert!(!text.contains(&f.url("/dir")), "{text}");

    let v = on(&env, &t, &["goto", "/dir/near.html?q=1#top"]);
    assert_eq!(
        v["context"]["url"],
        f.url("/dir/near.html?q=1#top").as_str(),
        "{v}"
    );
    assert_eq!(v["data"]["title"], "Near page", "{v}");
    assert_eq!(v["data"]["requested_url"], "/dir/near.html?q=1#top", "{v}");
    // A path where there is no page to resolve it against, and `new-tab` with one: refused.
    let v = env.json(&[&["browser", "goto", "about:blank"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(&[&["browser", "goto", "/dir/near.html"][..], &t].concat());
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("full URL")),
        "{v}"
    );
    let v = env.json(&["browser", "new-tab", "/dir/near.html", "--session", &sid]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}
