//! The end-to-end slice across frames: snapshot, click and fill by ref in the main frame, a
//! same-origin iframe, a nested iframe, an out-of-process iframe and a shadow root.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, on, ref_of, site, value};

/// Evaluates until the value matches (frames load asynchronously).
fn eval_until(env: &Env, t: &[&str], code: &str, want: &Value) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let v = env.json(&[&["browser", "eval", code][..], t].concat());
        if &v["data"]["value"] == want || Instant::now() > until {
            return v["data"]["value"].clone();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

const SAME: &str = "document.querySelector('#same').contentDocument";

#[test]
fn snapshot_click_fill_in_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/frames.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // Wait for the OOPIF to be up.
    let ready = format!("!!{SAME}.querySelector('#oop') && {SAME}.readyState === 'complete'");
    assert_eq!(
        eval_until(&env, &t, &ready, &Value::Bool(true)),
        Value::Bool(true)
    );
    std::thread::sleep(Duration::from_millis(300));

    let snap = env.json(&[&["browser", "snapshot"][..], &t].concat());
    assert_eq!(snap["ok"], true, "{snap}");
    let path = snap["data"]["path"].as_str().expect("path").to_string();
    assert!(
        path.starts_with(&env.home.join("sessions").join(&sid).display().to_string()),
        "{path}"
    );
    assert!(path.ends_with(".yaml"));
    let text = std::fs::read_to_string(&path).expect("snapshot file");
    for needle in [
        "Top input",
        "Shadow input",
        "Same button",
        "Nested input",
        "Remote button",
        "Remote input",
    ] {
        assert!(
            text.contains(needle),
            "{needle} missing from snapshot:\n{text}"
        );
    }
    assert!(
        snap["data"]["stats"]["node_count"].as_u64().unwrap_or(0) >= 6,
        "{snap}"
    );
    let top = ref_of(&snap, "textbox", "Top input");
    let shadow = ref_of(&snap, "textbox", "Shadow input");
    let same_btn = ref_of(&snap, "button", "Same button");
    let nested = ref_of(&snap, "textbox", "Nested input");
    let remote_btn = ref_of(&snap, "button", "Remote button");
    let remote_input = ref_of(&snap, "textbox", "Remote input");

    // Text form of snapshot: header, note, path.
    let r = env.run(&[&["browser", "snapshot"][..], &t].concat()).ok();
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{r:?}");
    assert!(lines[1].starts_with("Refs are stable"));
    assert!(lines[2].starts_with("output saved to "));

    // Click in the same-origin iframe.
    let r = env
        .run(&[&["browser", "click", &same_btn][..], &t].concat())
        .ok();
    assert_eq!(r.stdout.lines().nth(1), Some("ok browser click"));
    assert_eq!(
        r.stdout.lines().nth(2),
        Some(format!("target: {same_btn}").as_str())
    );
    assert_eq!(
        eval_until(&env, &t, &format!("{SAME}.defaultView.clicked"), &1.into()),
        1
    );
    // Click in the out-of-process iframe (it posts a message to the top page).
    env.run(&[&["browser", "click", &remote_btn][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"remote-clicked".into()),
        "remote-clicked"
    );
    // Fill in the OOPIF, the nested frame, the shadow root.
    let v = env.json(&[&["browser", "fill", &remote_input, "over there"][..], &t].concat());
    assert_eq!(v["data"]["value_summary"]["text_length"], 10, "{v}");
    assert_eq!(
        eval_until(
            &env,
            &t,
            "window.lastMessage",
            &"remote-input:over there".into()
        ),
        "remote-input:over there"
    );
    env.run(&[&["browser", "fill", &nested, "deep"][..], &t].concat())
        .ok();
    let nested_value = format!(
        "{SAME}.querySelector('#nested').contentDocument.querySelector('#nested-input').value"
    );
    assert_eq!(eval_until(&env, &t, &nested_value, &"deep".into()), "deep");
    env.run(&[&["browser", "fill", &shadow, "in shadow"][..], &t].concat())
        .ok();
    let shadow_value = "document.querySelector('#host').shadowRoot.querySelector('#shadow').value";
    assert_eq!(
        eval_until(&env, &t, shadow_value, &"in shadow".into()),
        "in shadow"
    );
    let r = env
        .run(&[&["browser", "fill", &top, "Alice"][..], &t].concat())
        .ok();
    assert!(
        r.stdout
            .ends_with("ok browser fill\ntarget: ".to_string().as_str())
            || r.stdout.contains("text_length: 5"),
        "{r:?}"
    );
    // Fill replaces the value.
    env.run(&[&["browser", "fill", &top, "Bob"][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(
            &env,
            &t,
            "document.querySelector('#top').value",
            &"Bob".into()
        ),
        "Bob"
    );

    // 100 kB goes in at once (one input event), not key by key.
    let big = "x".repeat(100_000);
    env.run(&[
        "browser",
        "eval",
        "window.inputs = 0",
        "--session",
        &sid,
        "--tab",
        "t1",
    ])
    .ok();
    env.run(&[&["browser", "fill", &top, &big][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(
            &env,
            &t,
            "document.querySelector('#top').value.length",
            &100_000.into()
        ),
        100_000
    );
    assert_eq!(
        env.json(&[&["browser", "eval", "window.inputs"][..], &t].concat())["data"]["value"],
        1
    );

    // CSS and XPath reach into frames too.
    env.run(&[&["browser", "click", "#same-btn"][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(&env, &t, &format!("{SAME}.defaultView.clicked"), &2.into()),
        2
    );
    env.run(&[&["browser", "fill", "#oop-input", "css"][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"remote-input:css".into()),
        "remote-input:css"
    );
    env.run(&[&["browser", "fill", "//input[@id='top']", "xpath"][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(
            &env,
            &t,
            "document.querySelector('#top').value",
            &"xpath".into()
        ),
        "xpath"
    );
    // A CSS selector is waited for (within --timeout) before it is reported missing.
    let v = env.json(&[&["browser", "click", "#nope", "--timeout", "2000"][..], &t].concat());
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND");
    let v = env.json(&[&["browser", "click", "@e9999"][..], &t].concat());
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND");

    // Refs stay put when an iframe is inserted before the others.
    env.run(&[&["browser", "eval", "document.body.insertBefore(Object.assign(document.createElement('iframe'), {src: '/page2.html', title: 'Inserted'}), document.body.firstChild); 1"][..], &t].concat()).ok();
    std::thread::sleep(Duration::from_millis(500));
    let again = env.json(&[&["browser", "snapshot"][..], &t].concat());
    assert_eq!(ref_of(&again, "textbox", "Top input"), top);
    assert_eq!(ref_of(&again, "button", "Same button"), same_btn);
    assert_eq!(ref_of(&again, "textbox", "Nested input"), nested);
    assert_eq!(ref_of(&again, "button", "Remote button"), remote_btn);

    // Refs survive a daemon crash.
    env.kill_daemon();
    env.run(&[&["browser", "click", &same_btn][..], &t].concat())
        .ok();
    assert_eq!(
        eval_until(&env, &t, &format!("{SAME}.defaultView.clicked"), &3.into()),
        3
    );
}

#[test]
fn click_that_navigates_updates_the_context() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = env.json(&[&["browser", "click", "#next"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["url"], f.url("/page2.html").as_str());
    assert_eq!(v["context"]["title"], "Page Two");
    assert_eq!(v["data"]["changed"]["url_changed"], true);
    let v = env.json(&[&["browser", "click", "#back"][..], &t].concat());
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
    let snap = env.json(&[&["browser", "snapshot", "--interactive"][..], &t].concat());
    let submit = ref_of(&snap, "button", "Submit");
    env.run(&[&["browser", "click", &submit][..], &t].concat())
        .ok();
    assert_eq!(
        env.json(&[&["browser", "title"][..], &t].concat())["data"]["value"],
        "clicked"
    );
}

/// Page A (with an out-of-process iframe holding a nested one) and page B, both allowed into the
/// back/forward cache (the fixture's default `no-store` keeps pages out of it). Every frame posts
/// what happened in it to the top page (`window.lastMessage`); the top page records each
/// `pageshow` (`persisted`: restored from the cache) in `window.shows`.
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
        "/bf-a.html",
        &format!(
            r#"<!doctype html><html><head><title>Cached A</title></head><body>{shows}
<h1>Page A</h1>
<iframe id="o" title="Remote frame" src="{}" width="400" height="250"></iframe>
</body></html>"#,
            f.cross_site_url("/bf-o.html")
        ),
    );
    html(
        "/bf-o.html",
        &format!(
            r#"<!doctype html><html><head><title>Remote</title></head><body>
<script>window.n = 0;</script>
<button id="b" onclick="this.textContent = 'Pressed ' + (++n); top.postMessage('clicked:' + n, '*')">Remote press</button>
<input id="i" aria-label="Remote field" oninput="top.postMessage('input:' + this.value, '*')"
  onkeydown="if (event.key === 'Enter') top.postMessage('key:' + this.value, '*')">
<iframe id="n" title="Nested frame" src="{}" width="300" height="80"></iframe>
</body></html>"#,
            f.url("/bf-n.html")
        ),
    );
    html(
        "/bf-n.html",
        r#"<!doctype html><html><head><title>Nested</title></head><body>
<button onclick="top.postMessage('nested:' + (window.k = (window.k || 0) + 1), '*')">Nested press</button>
</body></html>"#,
    );
    html(
        "/bf-b.html",
        "<!doctype html><html><head><title>Page B</title></head><body><h1>Page B</h1>\
         <script>window.shows = []; addEventListener('pageshow', e => shows.push(e.persisted));</script></body></html>",
    );
    f
}

/// Snapshots until the remote button (named `remote`) and the nested one have refs; returns
/// (remote button, remote field, nested button).
fn oopif_refs(env: &Env, t: &[&str], remote: &str) -> (String, String, String) {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let snap = env.json(&[&["browser", "snapshot"][..], t].concat());
        let has = |role: &str, name: &str| {
            snap["data"]["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|n| n["role"] == role && n["name"] == name && n["ref"].is_string())
        };
        if (has("button", remote) && has("button", "Nested press")) || Instant::now() > until {
            return (
                ref_of(&snap, "button", remote),
                ref_of(&snap, "textbox", "Remote field"),
                ref_of(&snap, "button", "Nested press"),
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `back`/`forward` restore a page from the back/forward cache: its out-of-process iframes (and
/// the one nested in them) are in the snapshot with refs, and click, fill and press act in them.
#[test]
fn oopifs_of_a_page_restored_from_the_back_forward_cache_work() {
    need_chromium!();
    let env = Env::new();
    let f = cacheable_site();
    let a = f.url("/bf-a.html");
    let sid = env.start(&["--open-url", &a]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    oopif_refs(&env, &t, "Remote press");

    let v = env.json(&[&["browser", "goto", &f.url("/bf-b.html")][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(&[&["browser", "back"][..], &t].concat());
    assert_eq!(v["context"]["url"], a.as_str(), "{v}");
    // Not vacuous: page A came back from the cache (its second `pageshow` is a persisted one).
    let shows = env.json(&[&["browser", "eval", "JSON.stringify(shows)"][..], &t].concat());
    assert_eq!(shows["data"]["value"], "[false,true]", "{shows}");

    let (button, field, nested) = oopif_refs(&env, &t, "Remote press");
    let v = env.json(&[&["browser", "click", &button][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"clicked:1".into()),
        "clicked:1"
    );
    let v = env.json(&[&["browser", "fill", &field, "hi"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"input:hi".into()),
        "input:hi"
    );
    let v = env.json(&[&["browser", "press", "Enter"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"key:hi".into()),
        "key:hi"
    );
    let v = env.json(&[&["browser", "click", &nested][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"nested:1".into()),
        "nested:1"
    );

    // Forward (B from the cache) and back again: the same documents, still working.
    let v = env.json(&[&["browser", "forward"][..], &t].concat());
    assert_eq!(v["context"]["title"], "Page B", "{v}");
    let shows = env.json(&[&["browser", "eval", "JSON.stringify(shows)"][..], &t].concat());
    assert_eq!(shows["data"]["value"], "[false,true]", "{shows}");
    let v = env.json(&[&["browser", "back"][..], &t].concat());
    assert_eq!(v["context"]["url"], a.as_str(), "{v}");
    let shows = env.json(&[&["browser", "eval", "JSON.stringify(shows)"][..], &t].concat());
    assert_eq!(shows["data"]["value"], "[false,true,true]", "{shows}");
    // The button kept the text the first click gave it: the restored document, not a reload.
    let (button, _, nested) = oopif_refs(&env, &t, "Pressed 1");
    let v = env.json(&[&["browser", "click", &button][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"clicked:2".into()),
        "clicked:2"
    );
    let v = env.json(&[&["browser", "click", &nested][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval_until(&env, &t, "window.lastMessage", &"nested:2".into()),
        "nested:2"
    );
    let snap = env.json(&[&["browser", "snapshot"][..], &t].concat());
    ref_of(&snap, "button", "Pressed 2");
}

#[test]
fn eval_runs_in_the_document_of_a_frame() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/frames.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let eval_in = |frame: &str, code: &str| on(&env, &t, &["eval", code, "--frame", frame]);
    // A same-process iframe, and an out-of-process one inside it.
    assert_eq!(eval_in("#same", "document.title")["data"]["value"], "Same");
    let remote_origin = f.cross_site_url("/").trim_end_matches('/').to_string();
    let v = eval_in("#oop", "[document.title, location.origin]");
    assert_eq!(
        v["data"]["value"],
        serde_json::json!(["Remote", remote_origin]),
        "{v}"
    );
    // Top-level await and the frame's own errors.
    let v = eval_in(
        "#oop",
        "await new Promise(r => setTimeout(() => r(document.querySelector('#oop-btn').textContent), 10))",
    );
    assert_eq!(v["data"]["value"], "Remote button", "{v}");
    crate::support::assert_failure(
        &eval_in("#oop", "document.querySelector('#top').value"),
        "EVAL_FAILED",
        "null",
    );
    // Not a frame element, or no element.
    crate::support::assert_failure(
        &eval_in("#top", "1"),
        "INVALID_ARGUMENT",
        "is not an <iframe>",
    );
    crate::support::assert_failure(&eval_in("#missing", "1"), "ELEMENT_NOT_FOUND", "#missing");
    // Without --frame, the page's own document.
    assert_eq!(value(&env, &t, "document.title"), "Frames");
}

/// `eval --element`: the code gets the element as `el`, in the element's own document (an
/// out-of-process frame's too), by any selector; errors keep the user's line numbers, and nothing
/// of the hand-over is left in the page.
#[test]
fn eval_gets_an_element_of_any_frame_as_el() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/frames.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let eval_on = |el: &str, code: &str| on(&env, &t, &["eval", code, "--element", el]);
    let v = eval_on("#top", "el.id + ' ' + document.title");
    assert_eq!(v["data"]["value"], "top Frames", "{v}");
    // Inside the out-of-process frame: its document, its origin.
    let remote_origin = f.cross_site_url("/").trim_end_matches('/').to_string();
    let v = eval_on(
        "#oop-btn",
        "await new Promise(r => setTimeout(r, 10)); [el.textContent, location.origin]",
    );
    assert_eq!(
        v["data"]["value"],
        serde_json::json!(["Remote button", remote_origin]),
        "{v}"
    );
    // By ref, as snapshots give them.
    let snap = on(&env, &t, &["snapshot"]);
    let remote_ref = snap["data"]["nodes"]
        .as_array()
        .and_then(|ns| ns.iter().find(|n| n["name"] == "Remote button"))
        .map(|n| format!("@{}", n["ref"].as_str().unwrap_or("")))
        .unwrap_or_default();
    let v = eval_on(&remote_ref, "el.tagName");
    assert_eq!(v["data"]["value"], "BUTTON", "{v}");
    // The code may name its own `el`; an error's line is the user's.
    let v = eval_on("#top", "const el = 7;\nel * 6");
    assert_eq!(v["data"]["value"], 42, "{v}");
    let v = eval_on("#top", "1;\nel.nope.x");
    assert_eq!(v["error"]["code"], "EVAL_FAILED", "{v}");
    assert_eq!(v["error"]["details"]["line"], 2, "{v}");
    // Code that does not parse (the hand-over never taken back by the script itself).
    let v = eval_on("#top", "el.(");
    assert_eq!(v["error"]["code"], "EVAL_FAILED", "{v}");
    // Nothing left behind, in either document.
    let leftover =
        "Object.getOwnPropertyNames(globalThis).filter(k => k.startsWith('__actionbook')).length";
    assert_eq!(value(&env, &t, leftover), 0);
    let v = on(&env, &t, &["eval", leftover, "--frame", "#oop"]);
    assert_eq!(v["data"]["value"], 0, "{v}");
    // No such element; or both --frame and --element.
    crate::support::assert_failure(&eval_on("#missing", "1"), "ELEMENT_NOT_FOUND", "#missing");
    let v = on(
        &env,
        &t,
        &["eval", "1", "--element", "#top", "--frame", "#oop"],
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}
