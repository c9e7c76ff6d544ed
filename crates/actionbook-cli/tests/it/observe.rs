// Over 1,000 lines on purpose: the observation commands' end-to-end tests beside the fixture and
// helpers they share; each test is an independent scenario.
//! Observation commands end to end (spec 10.2–10.3, 10.6–10.13): query and its cardinality rules,
//! the read commands, describe, state, inspect-point, screenshots (annotated ones decoded pixel by
//! pixel), PDFs, and console/error logs from every frame, on a fixture with a form, a list of
//! `.item`s, a same-origin iframe, an out-of-process iframe and a shadow root.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture, differs, png_pixels, ref_of};

fn fixture() -> Fixture {
    let f = Fixture::start();
    let remote = f.cross_site_url("/remote.html");
    f.html(
        "/obs.html",
        &format!(
            r#"<!doctype html><html><head><!-- a comment --><title>Observe</title>
<style>body {{ margin: 0; font: 16px sans-serif }} #big {{ height: 2000px }}</style></head><body>
<h1 id="title">Observe fixture</h1>
<p id="intro">Hello <b>agent</b>, this is a test page.</p>
<form onsubmit="return false">
  <label for="name">Name</label><input id="name" name="name" type="text" placeholder="Your name" data-testid="name-input">
  <input type="checkbox" id="agree" checked><label for="agree">I agree</label>
  <button id="submit" type="submit" style="color: rgb(255, 0, 0)">Submit</button>
  <button id="off" disabled>Disabled</button>
</form>
<ul id="people"><li id="john">John Smith <button id="edit">Edit</button></li></ul>
<div class="list">
  <div class="item">Item A</div>
  <div class="item">Item B</div>
  <div class="item" style="display:none">Item Hidden</div>
  <div class="item"><span>Item C</span></div>
</div>
<div id="host"></div>
<iframe id="same" title="Same frame" src="/same.html" style="position:absolute;left:0;top:600px;width:300px;height:120px;border:0"></iframe>
<iframe id="oop" title="Remote frame" src="{remote}" style="position:absolute;left:400px;top:600px;width:300px;height:120px;border:5px solid #000;padding:3px"></iframe>
<div id="big"></div>
<script>
  const root = document.getElementById('host').attachShadow({{mode: 'open'}});
  root.innerHTML = '<input id="shadow" aria-label="Shadow input"><span class="item">Shadow item</span>';
  console.log('inline', 42, {{a: 1}});
  console.warn('careful');
</script>
</body></html>"#
        ),
    );
    f.html(
        "/same.html",
        r#"<!doctype html><html><body style="margin:0"><input id="inner" aria-label="Inner field" style="position:absolute;left:10px;top:10px"><script>console.info('from same frame')</script></body></html>"#,
    );
    f.html(
        "/remote.html",
        r#"<!doctype html><html><body style="margin:0;background:#fff">
<button id="rb" style="position:absolute;left:20px;top:20px;width:120px;height:40px">Remote button</button>
<script>console.error('from the oopif'); setTimeout(() => { throw new Error('remote boom'); }, 0);</script>
</body></html>"#,
    );
    f.html(
        "/errors.html",
        r#"<!doctype html><html><head><title>Errors</title></head><body>
<img src="/missing.png">
<script>
  console.log('first load line');
  setTimeout(() => { throw new Error('boom'); }, 0);
  Promise.reject(new TypeError('nobody handles me'));
</script></body></html>"#,
    );
    f.html(
        "/article.html",
        r#"<!doctype html><html><head><title>Article</title></head><body>
<nav class="site-nav"><a href="/">Home</a> <a href="/news">News nav link</a></nav>
<header class="site-header">Site banner text</header>
<aside class="sidebar"><p>Related sidebar story that is long enough to be a paragraph, with commas, and more.</p></aside>
<div class="content">
  <article>
    <h1>The headline</h1>
    <p>First paragraph of the article, which is long enough to count as real content here.</p>
    <div class="ad-banner">Buy now ad text</div>
    <p>Second paragraph, continuing the story with more words and a few commas, like this.</p>
  </article>
</div>
<footer>Footer copyright text</footer>
</body></html>"#,
    );
    f
}

/// Runs a tab command (text output) and returns the run.
fn tab_run(env: &Env, args: &[&str], t: &[&str]) -> crate::support::Run {
    env.run(&[args, t].concat())
}

fn tab_json(env: &Env, args: &[&str], t: &[&str]) -> Value {
    env.json(&[args, t].concat())
}

/// Waits until `code` evaluates to true in the page.
fn until_true(env: &Env, t: &[&str], code: &str) {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let v = tab_json(env, &["browser", "eval", code], t);
        if v["data"]["value"] == Value::Bool(true) {
            return;
        }
        assert!(Instant::now() < until, "never true: {code}: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

const OOPIF_READY: &str = "(() => { const f = document.querySelector('#oop'); return !!f && document.readyState === 'complete'; })()";

fn body(run: &crate::support::Run) -> Vec<String> {
    run.stdout.lines().skip(1).map(str::to_string).collect()
}

#[test]
fn query_follows_the_cardinality_rules_and_its_selectors_reselect() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/obs.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // all: in document order, the shadow root's item after its host, hidden ones included.
    let v = tab_json(&env, &["browser", "query", "all", ".item"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser query");
    assert_eq!(v["data"]["mode"], "all");
    assert_eq!(v["data"]["count"], 5, "{v}");
    let items = v["data"]["items"].as_array().cloned().unwrap_or_default();
    let texts: Vec<&str> = items.iter().filter_map(|i| i["text"].as_str()).collect();
    assert_eq!(
        texts,
        ["Item A", "Item B", "Item Hidden", "Item C", "Shadow item"],
        "{v}"
    );
    assert_eq!(items[2]["visible"], false);
    assert_eq!(items[0]["visible"], true);
    assert_eq!(items[0]["tag"], "div");
    // Each item's selector finds exactly that element again (the shadow one by XPath).
    for (i, item) in items.iter().enumerate() {
        let sel = item["selector"].as_str().unwrap_or_default();
        let c = tab_json(&env, &["browser", "query", "count", sel], &t);
        assert_eq!(c["data"]["count"], 1, "{sel}: {c}");
        let one = tab_json(&env, &["browser", "query", "one", sel], &t);
        assert_eq!(
            one["data"]["item"]["text"], item["text"],
            "{i} {sel}: {one}"
        );
        let html = tab_json(&env, &["browser", "html", sel], &t);
        assert_eq!(html["ok"], true, "{sel}: {html}");
    }
    assert!(
        items[4]["selector"]
            .as_str()
            .unwrap_or("")
            .contains("#shadow-root"),
        "{v}"
    );
    // A CSS selector that matches only inside an open shadow root finds that element for every
    // command, as query finds it (attr, fill, click answered ELEMENT_NOT_FOUND).
    let one = tab_json(&env, &["browser", "query", "one", "#shadow"], &t);
    assert_eq!(one["ok"], true, "{one}");
    let v = tab_json(&env, &["browser", "attr", "#shadow", "aria-label"], &t);
    assert_eq!(v["data"]["value"], "Shadow input", "{v}");
    let v = tab_json(
        &env,
        &["browser", "fill", "#shadow", "through the root"],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = tab_json(
        &env,
        &[
            "browser",
            "eval",
            "document.querySelector('#host').shadowRoot.querySelector('#shadow').value",
        ],
        &t,
    );
    assert_eq!(v["data"]["value"], "through the root", "{v}");
    let r = tab_run(&env, &["browser", "query", "all", ".item:visible"], &t).ok();
    let lines = body(&r);
    assert_eq!(lines[0], "4 matches", "{r:?}");
    assert!(lines[1].starts_with("1. "), "{r:?}");
    assert_eq!(lines[2], "   Item A");

    // one: exactly one; more is MULTIPLE_MATCHES with count and samples; none ELEMENT_NOT_FOUND.
    let v = tab_json(
        &env,
        &["browser", "query", "one", ".item:contains(Item B)"],
        &t,
    );
    assert_eq!(v["data"]["count"], 1, "{v}");
    let sel = v["data"]["item"]["selector"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(!sel.contains("contains"), "{sel}");
    assert_eq!(
        tab_json(&env, &["browser", "text", &sel], &t)["data"]["value"],
        "Item B"
    );
    let r = tab_run(&env, &["browser", "query", "one", "#name"], &t).ok();
    assert_eq!(body(&r), ["1 match", "selector: #name", "text: "], "{r:?}");
    let v = tab_json(&env, &["browser", "query", "one", ".item"], &t);
    assert_eq!(v["error"]["code"], "MULTIPLE_MATCHES", "{v}");
    assert_eq!(v["error"]["details"]["count"], 5);
    assert_eq!(
        v["error"]["details"]["sample_selectors"]
            .as_array()
            .map(Vec::len),
        Some(5)
    );
    assert_eq!(v["data"], Value::Null);
    let v = tab_json(&env, &["browser", "query", "one", ".nomatch"], &t);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    assert_eq!(v["error"]["details"]["selector"], ".nomatch");
    // Like MULTIPLE_MATCHES: the query and the count (the reference CLI's details).
    assert_eq!(
        (
            &v["error"]["details"]["query"],
            &v["error"]["details"]["count"]
        ),
        (&Value::from(".nomatch"), &Value::from(0)),
        "{v}"
    );
    // nth: 1-based; 0 and past the end are INDEX_OUT_OF_RANGE.
    let r = tab_run(&env, &["browser", "query", "nth", "2", ".item"], &t).ok();
    assert_eq!(body(&r)[0], "match 2/5", "{r:?}");
    assert_eq!(body(&r)[2], "text: Item B");
    for n in ["0", "9"] {
        let v = tab_json(&env, &["browser", "query", "nth", n, ".item"], &t);
        assert_eq!(v["error"]["code"], "INDEX_OUT_OF_RANGE", "{n}: {v}");
        assert_eq!(v["error"]["details"]["count"], 5);
    }
    // all / count with no match succeed.
    let v = tab_json(&env, &["browser", "query", "all", ".nomatch"], &t);
    assert_eq!(
        (v["ok"].clone(), v["data"]["count"].clone()),
        (true.into(), 0.into())
    );
    assert_eq!(v["data"]["items"], serde_json::json!([]));
    let v = tab_json(&env, &["browser", "query", "count", ".nomatch"], &t);
    assert_eq!(
        v["data"],
        serde_json::json!({"mode": "count", "query": ".nomatch", "count": 0})
    );
    let r = tab_run(&env, &["browser", "query", "count", ".item"], &t).ok();
    assert_eq!(body(&r), ["5"]);
    // More matches than `all` lists: the real count, the first 1000, and meta says it is cut.
    let add = "for (let i = 0; i < 1200; i++) { const p = document.createElement('p'); \
               p.className = 'many'; p.textContent = 'm' + i; document.body.appendChild(p); } 1";
    assert_eq!(tab_json(&env, &["browser", "eval", add], &t)["ok"], true);
    let v = tab_json(&env, &["browser", "query", "all", ".many"], &t);
    assert_eq!(v["data"]["count"], 1200, "{v}");
    assert_eq!(v["data"]["items"].as_array().map(Vec::len), Some(1000));
    assert_eq!(v["meta"]["truncated"], true);
    assert_eq!(
        v["meta"]["warnings"][0],
        "1200 matches; the first 1000 are listed"
    );
    let clear = "document.querySelectorAll('.many').forEach(p => p.remove()); 1";
    assert_eq!(tab_json(&env, &["browser", "eval", clear], &t)["ok"], true);
    // The other pseudo-classes, and XPath.
    for (q, n) in [
        ("input:checked", 1),
        ("button:disabled", 1),
        ("form button:enabled", 1),
        ("li:has(> button:contains(Edit))", 1),
        ("div:has(> span:visible)", 1),
        (".list > .item:hidden", 1),
        (".list > .item:not(:visible)", 1),
        (".list > .item:not(:contains(Item B), :hidden)", 2),
        // Playwright's :has-text(): case and runs of whitespace aside, unlike :contains().
        (".list > .item:has-text(ITEM   b)", 1),
        (".list > .item:contains(item b)", 0),
        ("li:has(> button:has-text(  edit ))", 1),
        ("//div[@class='item']", 4),
        ("/html[1]/body[1]/h1[1]", 1),
    ] {
        let v = tab_json(&env, &["browser", "query", "count", q], &t);
        assert_eq!(v["data"]["count"], n, "{q}: {v}");
    }
    // Bad queries: the parser's message, INVALID_ARGUMENT.
    for q in ["div[", "//div[", "div:is(:visible)", ".a:contains(x"] {
        let v = tab_json(&env, &["browser", "query", "all", q], &t);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{q}: {v}");
        assert!(!v["error"]["message"].as_str().unwrap_or("").is_empty());
    }
    // Playwright's own engines are named, with what to write instead.
    for q in ["text=Item B", "div:text(\"Item B\")"] {
        let v = tab_json(&env, &["browser", "query", "all", q], &t);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{q}: {v}");
        let msg = v["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(":has-text(text)"), "{q}: {msg}");
    }
}

#[test]
fn read_commands_describe_state_and_inspect_point_in_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/obs.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(&env, &t, OOPIF_READY);

    // A desktop-sized viewport by default.
    let r = tab_run(&env, &["browser", "viewport"], &t).ok();
    assert_eq!(body(&r), ["1280x720"], "{r:?}");
    let v = tab_json(&env, &["browser", "viewport"], &t);
    assert_eq!(v["data"], serde_json::json!({"width": 1280, "height": 720}));

    // Text bodies print the value directly.
    let r = tab_run(&env, &["browser", "text", "#intro"], &t).ok();
    assert_eq!(body(&r), ["Hello agent, this is a test page."]);
    let r = tab_run(&env, &["browser", "html", "#intro"], &t).ok();
    assert_eq!(
        body(&r),
        [r#"<p id="intro">Hello <b>agent</b>, this is a test page.</p>"#]
    );
    let v = tab_json(&env, &["browser", "html", "#intro"], &t);
    assert_eq!(v["data"]["target"]["selector"], "#intro");
    let v = tab_json(&env, &["browser", "text", "//h1"], &t);
    assert_eq!(v["data"]["value"], "Observe fixture");
    tab_run(&env, &["browser", "fill", "#name", "Bob"], &t).ok();
    let r = tab_run(&env, &["browser", "value", "#name"], &t).ok();
    assert_eq!(body(&r), ["Bob"]);
    let v = tab_json(&env, &["browser", "value", "#intro"], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let r = tab_run(&env, &["browser", "attr", "#name", "placeholder"], &t).ok();
    assert_eq!(body(&r), ["Your name"]);
    let v = tab_json(&env, &["browser", "attr", "#name", "nope"], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = tab_json(&env, &["browser", "attrs", "#name"], &t);
    assert_eq!(v["data"]["value"]["placeholder"], "Your name", "{v}");
    assert_eq!(v["data"]["value"]["data-testid"], "name-input");
    let r = tab_run(&env, &["browser", "attrs", "#name"], &t).ok();
    assert!(body(&r).contains(&"type: text".to_string()), "{r:?}");
    let v = tab_json(
        &env,
        &["browser", "styles", "#submit", "color", "display"],
        &t,
    );
    assert_eq!(v["data"]["value"]["color"], "rgb(255, 0, 0)", "{v}");
    let r = tab_run(&env, &["browser", "styles", "#submit", "color"], &t).ok();
    assert_eq!(body(&r), ["color: rgb(255, 0, 0)"]);
    let v = tab_json(&env, &["browser", "styles", "#submit", "colr"], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");

    // Box: in top-level viewport coordinates, also inside the OOPIF (iframe at 400,600 with a
    // 5px border and 3px padding: content at 408,608; the button at 20,20 inside).
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    let remote = ref_of(&snap, "button", "Remote button");
    let inner = ref_of(&snap, "textbox", "Inner field");
    let shadow = ref_of(&snap, "textbox", "Shadow input");
    let name = ref_of(&snap, "textbox", "Name");
    let v = tab_json(&env, &["browser", "box", &remote], &t);
    assert_eq!(v["data"]["value"]["x"], 428, "{v}");
    assert_eq!(v["data"]["value"]["y"], 628, "{v}");
    assert_eq!(v["data"]["value"]["width"], 120, "{v}");
    let r = tab_run(&env, &["browser", "box", &remote], &t).ok();
    assert_eq!(
        body(&r),
        ["x: 428", "y: 628", "width: 120", "height: 40"],
        "{r:?}"
    );
    let v = tab_json(&env, &["browser", "text", &remote], &t);
    assert_eq!(v["data"]["value"], "Remote button", "{v}");
    let v = tab_json(&env, &["browser", "attr", &shadow, "id"], &t);
    assert_eq!(v["data"]["value"], "shadow", "{v}");

    // Describe.
    let r = tab_run(&env, &["browser", "describe", "#submit"], &t).ok();
    assert_eq!(body(&r), ["button \"Submit\""]);
    let v = tab_json(&env, &["browser", "describe", "#submit"], &t);
    assert_eq!(v["data"]["role"], "button");
    assert_eq!(v["data"]["tag"], "button");
    assert_eq!(v["data"]["attributes"]["type"], "submit");
    assert_eq!(
        v["data"]["state"],
        serde_json::json!({"visible": true, "enabled": true})
    );
    assert_eq!(v["data"]["nearby"], Value::Null);
    let v = tab_json(&env, &["browser", "describe", "#off"], &t);
    assert_eq!(
        v["data"]["summary"], "button \"Disabled\" [disabled]",
        "{v}"
    );
    let v = tab_json(&env, &["browser", "describe", "#agree"], &t);
    assert_eq!(
        v["data"]["summary"], "checkbox \"I agree\" [checked]",
        "{v}"
    );
    let v = tab_json(&env, &["browser", "describe", "#edit", "--nearby"], &t);
    assert_eq!(
        v["data"]["nearby"]["parent"], "listitem \"John Smith\"",
        "{v}"
    );
    assert_eq!(
        v["data"]["nearby"]["previous_sibling"], "text \"John Smith\"",
        "{v}"
    );
    assert_eq!(v["data"]["nearby"]["next_sibling"], Value::Null, "{v}");
    // Siblings and children whose text is one level down (plain `<div>`s, which Chromium's tree
    // ignores, and a `<span>` inside one) are named by it; a hidden one and the list bullet are not.
    let v = tab_json(
        &env,
        &[
            "browser",
            "describe",
            ".list .item:nth-of-type(2)",
            "--nearby",
        ],
        &t,
    );
    assert_eq!(
        v["data"]["nearby"]["previous_sibling"], "div \"Item A\"",
        "{v}"
    );
    assert_eq!(v["data"]["nearby"]["next_sibling"], "div \"Item C\"", "{v}");
    let v = tab_json(&env, &["browser", "describe", ".list", "--nearby"], &t);
    assert_eq!(
        v["data"]["nearby"]["children"],
        serde_json::json!(["div \"Item A\"", "div \"Item B\"", "div \"Item C\""]),
        "{v}"
    );
    let v = tab_json(&env, &["browser", "describe", "#john", "--nearby"], &t);
    assert_eq!(
        v["data"]["nearby"]["children"],
        serde_json::json!(["text \"John Smith\"", "button \"Edit\""]),
        "{v}"
    );
    // Selectors that name no element are refused as such (not an internal error).
    for (sel, what) in [("/", "the document"), ("//comment()", "a comment")] {
        let v = tab_json(&env, &["browser", "describe", sel], &t);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{sel}: {v}");
        let msg = v["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains(what), "{sel}: {v}");
    }
    let r = tab_run(&env, &["browser", "describe", "#edit", "--nearby"], &t).ok();
    assert_eq!(
        body(&r),
        [
            "button \"Edit\"",
            "parent: listitem \"John Smith\"",
            "previous_sibling: text \"John Smith\""
        ],
        "{r:?}"
    );

    // State, focus followed into the same-origin iframe.
    let r = tab_run(&env, &["browser", "state", "#agree"], &t).ok();
    assert_eq!(
        body(&r),
        [
            "visible: true",
            "enabled: true",
            "checked: true",
            "focused: false",
            "editable: false",
            "selected: false"
        ]
    );
    tab_run(&env, &["browser", "fill", &inner, "x"], &t).ok();
    let v = tab_json(&env, &["browser", "state", &inner], &t);
    assert_eq!(v["data"]["state"]["focused"], true, "{v}");
    assert_eq!(v["data"]["state"]["editable"], true, "{v}");
    let v = tab_json(&env, &["browser", "state", "#name"], &t);
    assert_eq!(v["data"]["state"]["focused"], false, "{v}");
    // Focus inside the out-of-process iframe (a click focuses the button), asked in its process.
    tab_run(&env, &["browser", "click", &remote], &t).ok();
    let v = tab_json(&env, &["browser", "state", &remote], &t);
    assert_eq!(v["data"]["state"]["focused"], true, "{v}");
    assert_eq!(v["data"]["state"]["editable"], false, "{v}");
    let v = tab_json(&env, &["browser", "state", &inner], &t);
    assert_eq!(v["data"]["state"]["focused"], false, "{v}");
    let v = tab_json(&env, &["browser", "state", "#off"], &t);
    assert_eq!(v["data"]["state"]["enabled"], false, "{v}");
    // A checkbox a script made indeterminate: the spec's boolean, the mixed state said beside it.
    let mix = "document.querySelector('#agree').indeterminate = true; 1";
    assert_eq!(tab_json(&env, &["browser", "eval", mix], &t)["ok"], true);
    let v = tab_json(&env, &["browser", "state", "#agree"], &t);
    assert_eq!(v["data"]["state"]["checked"], true, "{v}");
    let w = v["meta"]["warnings"][0].as_str().unwrap_or("");
    assert!(
        w.contains("mixed state") && w.contains("`checked: true`"),
        "{v}"
    );
    let v = tab_json(&env, &["browser", "describe", "#agree"], &t);
    assert!(ends_with_word(&v["data"]["summary"], "[mixed]"), "{v}");
    let v = tab_json(&env, &["browser", "state", "#name"], &t);
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");

    // Inspect-point: main frame, and the inner button of the OOPIF (with its ref).
    let v = tab_json(&env, &["browser", "inspect-point", "450,640"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["element"]["role"], "button", "{v}");
    assert_eq!(v["data"]["element"]["name"], "Remote button", "{v}");
    assert_eq!(
        format!("@{}", v["data"]["element"]["ref"].as_str().unwrap_or("")),
        remote,
        "{v}"
    );
    let sel = v["data"]["element"]["selector"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(
        tab_json(&env, &["browser", "text", &sel], &t)["data"]["value"],
        "Remote button"
    );
    let r = tab_run(&env, &["browser", "inspect-point", "450,640"], &t).ok();
    assert_eq!(body(&r)[0], "button \"Remote button\"", "{r:?}");
    assert_eq!(body(&r)[2], "point: 450,640", "{r:?}");
    assert_eq!(body(&r)[3], format!("ref: {remote}"), "{r:?}");
    let point_of = |sel: &str| {
        let b = tab_json(&env, &["browser", "box", sel], &t);
        format!(
            "{},{}",
            b["data"]["value"]["x"].as_f64().unwrap_or(0.0) + 5.0,
            b["data"]["value"]["y"].as_f64().unwrap_or(0.0) + 5.0
        )
    };
    let inspect = |point: &str, depth: &str| {
        tab_json(
            &env,
            &["browser", "inspect-point", point, "--parent-depth", depth],
            &t,
        )
    };
    let v = inspect(&point_of("#title"), "1");
    assert_eq!(v["data"]["element"]["role"], "heading", "{v}");
    assert_eq!(v["data"]["element"]["selector"], "#title", "{v}");
    // Parents are the elements that mean something (the body is ignored), never the document.
    assert_eq!(v["data"]["parents"], serde_json::json!([]), "{v}");
    let edit = point_of("#edit");
    let v = inspect(&edit, "1");
    assert_eq!(v["data"]["element"]["selector"], "#edit", "{v}");
    let roles = |v: &Value| -> Vec<String> {
        v["data"]["parents"]
            .as_array()
            .map(|ps| ps.iter().map(|p| p["role"].to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(roles(&v), ["\"listitem\""], "{v}");
    // Up to the top, each found again by its selector.
    let v = inspect(&edit, "50");
    assert_eq!(roles(&v), ["\"listitem\"", "\"list\""], "{v}");
    for p in v["data"]["parents"].as_array().cloned().unwrap_or_default() {
        let sel = p["selector"].as_str().unwrap_or_default();
        let d = tab_json(&env, &["browser", "describe", sel], &t);
        assert_eq!(d["data"]["role"], p["role"], "parent {p} of {v}: {d}");
    }
    for bad in ["5000,10", "a,b", "10", "-1,5"] {
        let v = tab_json(&env, &["browser", "inspect-point", bad], &t);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{bad}: {v}");
    }

    // Errors: no match, bad selector, unknown ref.
    let v = tab_json(&env, &["browser", "text", "#nope"], &t);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    assert_eq!(v["error"]["details"]["selector"], "#nope");
    let v = tab_json(&env, &["browser", "html", "div["], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = tab_json(&env, &["browser", "describe", "@e9999"], &t);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap_or("")
            .contains("snapshot"),
        "{v}"
    );
    // A ref whose element was removed is stale, for every read command; after `goto` (which
    // starts the numbering again) an old ref is stale or not found, named, with the way out.
    let gone = |v: &Value, codes: &[&str]| {
        let code = v["error"]["code"].as_str().unwrap_or_default();
        assert!(codes.contains(&code), "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap_or("").contains(&name),
            "{v}"
        );
        assert!(
            v["error"]["hint"]
                .as_str()
                .unwrap_or("")
                .contains("snapshot"),
            "{v}"
        );
    };
    tab_json(
        &env,
        &[
            "browser",
            "eval",
            "document.getElementById('name').remove()",
        ],
        &t,
    );
    for cmd in [
        &["browser", "text"][..],
        &["browser", "state"],
        &["browser", "box"],
    ] {
        gone(
            &tab_json(&env, &[cmd, &[name.as_str()]].concat(), &t),
            &["STALE_ELEMENT"],
        );
    }
    tab_run(&env, &["browser", "goto", &f.url("/article.html")], &t).ok();
    for cmd in [&["browser", "text"][..], &["browser", "describe"]] {
        let v = tab_json(&env, &[cmd, &[name.as_str()]].concat(), &t);
        gone(&v, &["STALE_ELEMENT", "ELEMENT_NOT_FOUND"]);
    }
}

/// A page scrolled down to two iframes (a same-origin one and an out-of-process one that is itself
/// scrolled): `inspect-point` takes viewport points, as a screenshot shows them.
fn scrolled_frames_fixture() -> Fixture {
    let f = Fixture::start();
    let remote = f.cross_site_url("/deep.html");
    f.html(
        "/scrolled.html",
        &format!(
            r#"<!doctype html><html><head><title>Scrolled</title><style>body {{ margin: 0 }}</style></head><body>
<div id="spacer" style="height:3000px">Spacer</div>
<iframe id="same" title="Same frame" src="/near.html" style="position:absolute;left:0;top:1500px;width:300px;height:120px;border:0"></iframe>
<iframe id="oop" title="Remote frame" src="{remote}" style="position:absolute;left:400px;top:1500px;width:300px;height:120px;border:5px solid #000;padding:3px"></iframe>
</body></html>"#
        ),
    );
    f.html(
        "/near.html",
        r#"<!doctype html><html><body style="margin:0"><input id="near" aria-label="Near field" style="position:absolute;left:10px;top:10px;width:100px;height:20px"></body></html>"#,
    );
    // Scrolled by 80 at load: the list's top shows 20px below the frame's content top.
    f.html(
        "/deep.html",
        r#"<!doctype html><html><body style="margin:0;height:3000px">
<ul style="position:absolute;left:0;top:100px;margin:0;padding:0 0 0 20px;list-style:none">
<li id="entry" style="position:relative;height:40px">Entry <button id="deep" style="position:absolute;left:100px;top:0;width:100px;height:30px">Deep button</button></li></ul>
<script>scrollTo(0, 80);</script>
</body></html>"#,
    );
    f
}

#[test]
fn inspect_point_takes_viewport_points_through_scrolled_frames() {
    need_chromium!();
    let env = Env::new();
    let f = scrolled_frames_fixture();
    let sid = env.start(&["--open-url", &f.url("/scrolled.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(
        &env,
        &t,
        "document.readyState === 'complete' && !!document.querySelector('#same').contentDocument?.querySelector('#near')",
    );
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    let deep = ref_of(&snap, "button", "Deep button");
    let near = ref_of(&snap, "textbox", "Near field");
    let oop = ref_of(&snap, "iframe", "Remote frame");
    // The frames' tops at viewport y 200; the remote content box at 408,208, its button at
    // 120,20 of the frame's viewport (100 down its document, which is scrolled by 80).
    until_true(&env, &t, "(scrollTo(0, 1300), scrollY === 1300)");
    // Until the remote frame has scrolled itself too (its script may run after the snapshot saw
    // the button; box answers in viewport coordinates).
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let b = tab_json(&env, &["browser", "box", &deep], &t);
        let at = (&b["data"]["value"]["x"], &b["data"]["value"]["y"]);
        if at == (&Value::from(528), &Value::from(228)) {
            break;
        }
        assert!(
            Instant::now() < until,
            "the remote button never at 528,228: {b}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let inspect = |point: &str, depth: &str| {
        tab_json(
            &env,
            &["browser", "inspect-point", point, "--parent-depth", depth],
            &t,
        )
    };
    let r = |v: &Value| format!("@{}", v["ref"].as_str().unwrap_or_default());

    // Inside the out-of-process frame: the button, its ref, a selector the other commands take,
    // and its parents up to (not including) the frame's document.
    let v = inspect("560,240", "5");
    assert_eq!(v["ok"], true, "{v}");
    let el = &v["data"]["element"];
    assert_eq!(
        (&el["role"], &el["name"]),
        (&"button".into(), &"Deep button".into()),
        "{v}"
    );
    assert_eq!(r(el), deep, "{v}");
    let sel = el["selector"].as_str().unwrap_or_default();
    let text = tab_json(&env, &["browser", "text", sel], &t);
    assert_eq!(text["data"]["value"], "Deep button", "{sel}: {text}");
    let roles: Vec<&str> = v["data"]["parents"]
        .as_array()
        .map(|ps| ps.iter().filter_map(|p| p["role"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(roles, ["listitem", "list"], "{v}");
    for p in v["data"]["parents"].as_array().cloned().unwrap_or_default() {
        let sel = p["selector"].as_str().unwrap_or_default();
        let d = tab_json(&env, &["browser", "describe", sel], &t);
        assert_eq!(d["data"]["role"], p["role"], "parent {p} of {v}: {d}");
    }

    // Inside the same-origin frame.
    let v = inspect("20,215", "0");
    let el = &v["data"]["element"];
    assert_eq!(
        (&el["role"], &el["name"]),
        (&"textbox".into(), &"Near field".into()),
        "{v}"
    );
    assert_eq!(r(el), near, "{v}");
    let sel = el["selector"].as_str().unwrap_or_default();
    let d = tab_json(&env, &["browser", "describe", sel], &t);
    assert_eq!(d["data"]["summary"], "textbox \"Near field\"", "{sel}: {d}");

    // On the remote frame's border or padding, each side: the <iframe> element itself.
    for point in ["402,240", "713,240", "450,203", "450,333"] {
        let v = inspect(point, "0");
        let el = &v["data"]["element"];
        assert_eq!(el["role"], "iframe", "{point}: {v}");
        assert_eq!(r(el), oop, "{point}: {v}");
        // Pointer commands at such a point find the frame element too (not nothing inside it).
        let h = tab_json(&env, &["browser", "hover", point, "--timeout", "5000"], &t);
        assert_eq!(h["ok"], true, "hover {point}: {h}");
    }
    // The page itself, where the frames are not.
    let v = inspect("350,100", "0");
    assert_eq!(v["data"]["element"]["selector"], "#spacer", "{v}");
}

/// The answer's warnings.
fn warnings(v: &Value) -> Vec<String> {
    v["meta"]["warnings"]
        .as_array()
        .map(|ws| {
            ws.iter()
                .filter_map(|w| w.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_selector_matching_several_elements_uses_the_first_and_says_so() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/many.html",
        r#"<!doctype html><html><head><title>Many</title></head><body>
<section class="sect"><h2>First section</h2></section><section class="sect"><h2>Second section</h2></section>
<div class="item">Item A</div><div class="item">Item B</div><div class="item">Item C</div>
<button class="b" onclick="window.hits = (window.hits || '') + '1'">One</button>
<button class="b" onclick="window.hits = (window.hits || '') + '2'">Two</button>
<p id="only">Only one</p>
<div id="host"></div>
<script>
  window.hits = '';
  document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
    '<span class="s">Shadow one</span><span class="s">Shadow two</span>';
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/many.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let used = |sel: &str, n: usize| vec![format!("{sel} matched {n} elements; used the first")];

    // Reads: the first, said.
    let v = tab_json(&env, &["browser", "text", ".item"], &t);
    assert_eq!(v["data"]["value"], "Item A", "{v}");
    assert_eq!(warnings(&v), used(".item", 3), "{v}");
    let r = tab_run(&env, &["browser", "text", ".item"], &t).ok();
    assert!(
        r.stdout
            .contains("warning: .item matched 3 elements; used the first"),
        "{r:?}"
    );
    let v = tab_json(&env, &["browser", "text", "//div[@class='item']"], &t);
    assert_eq!(v["data"]["value"], "Item A", "{v}");
    assert_eq!(warnings(&v), used("//div[@class='item']", 3), "{v}");
    let v = tab_json(&env, &["browser", "text", ".s"], &t);
    assert_eq!(v["data"]["value"], "Shadow one", "{v}");
    assert_eq!(warnings(&v), used(".s", 2), "{v}");
    let v = tab_json(&env, &["browser", "describe", ".b"], &t);
    assert_eq!(v["data"]["name"], "One", "{v}");
    assert_eq!(warnings(&v), used(".b", 2), "{v}");
    // One match (and a ref, and a command after an ambiguous one): nothing to say.
    let v = tab_json(&env, &["browser", "text", "#only"], &t);
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
    let v = tab_json(&env, &["browser", "text", "//p"], &t);
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");

    // The snapshot's subtree.
    let v = tab_json(&env, &["browser", "snapshot", "--selector", ".sect"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), used(".sect", 2), "{v}");
    let names: Vec<&str> = v["data"]["nodes"]
        .as_array()
        .map(|ns| ns.iter().filter_map(|n| n["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(names.contains(&"First section"), "{v}");
    assert!(!names.contains(&"Second section"), "{v}");

    // Actions: the quick click, the careful one (a hover), each on the first.
    let v = tab_json(&env, &["browser", "click", ".b"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), used(".b", 2), "{v}");
    let v = tab_json(&env, &["browser", "eval", "window.hits"], &t);
    assert_eq!(v["data"]["value"], "1", "{v}");
    let v = tab_json(&env, &["browser", "hover", ".item"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), used(".item", 3), "{v}");
    let v = tab_json(&env, &["browser", "click", "#only"], &t);
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
}

/// The commands that act on an element take the selectors `query` takes (`:contains()`,
/// `:visible`, `:has()`/`:not()` around them), in any frame and open shadow root, with the first
/// of several used and said (they were INVALID_ARGUMENT: the browser's CSS parser refused them).
#[test]
fn the_commands_that_act_take_the_selectors_query_takes() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/ext.html",
        r#"<!doctype html><html><head><title>Ext</title></head><body>
<div class="item">Item A</div><div class="item">Item B</div><div class="item">Item C</div>
<button onclick="window.hits += '1'">One</button><button onclick="window.hits += '2'">Two</button>
<input id="h" style="display:none"><input id="v">
<div id="host"></div>
<iframe srcdoc="<button onclick='parent.inner = 1'>Inner</button>"></iframe>
<script>
  window.hits = ''; window.inner = 0;
  document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
    '<span class="s">Shadow one</span><span class="s">Shadow two</span>';
  setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Later</p>'), 600);
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/ext.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let eval = |js: &str| tab_json(&env, &["browser", "eval", js], &t)["data"]["value"].clone();

    let v = tab_json(&env, &["browser", "click", "button:contains(\"Two\")"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
    assert_eq!(eval("window.hits"), "2");
    let v = tab_json(&env, &["browser", "text", ".item:contains(B)"], &t);
    assert_eq!(v["data"]["value"], "Item B", "{v}");
    let v = tab_json(&env, &["browser", "text", ".item:not(:contains(A))"], &t);
    assert_eq!(v["data"]["value"], "Item B", "{v}");
    assert_eq!(
        warnings(&v),
        vec![".item:not(:contains(A)) matched 2 elements; used the first".to_string()],
        "{v}"
    );
    let v = tab_json(&env, &["browser", "text", ".s:contains(two)"], &t);
    assert_eq!(v["data"]["value"], "Shadow two", "{v}");
    let v = tab_json(&env, &["browser", "fill", "input:visible", "typed"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(eval("document.getElementById('v').value"), "typed");
    assert_eq!(eval("document.getElementById('h').value"), "");
    // The n-th match of an XPath, written the usual way (a parenthesized path), in every command
    // that takes a selector: query's too.
    let v = tab_json(&env, &["browser", "click", "(//button)[1]"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(eval("window.hits"), "21");
    let v = tab_json(
        &env,
        &["browser", "text", "( //div[@class='item'] )[3]"],
        &t,
    );
    assert_eq!(v["data"]["value"], "Item C", "{v}");
    let v = tab_json(
        &env,
        &["browser", "query", "one", "(//div[@class='item'])[2]"],
        &t,
    );
    assert_eq!(v["data"]["item"]["text"], "Item B", "{v}");
    // In a frame's document, as CSS is.
    let v = tab_json(&env, &["browser", "click", "button:contains(Inner)"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(eval("window.inner"), 1);
    // Waited for, as any selector.
    let v = tab_json(
        &env,
        &[
            "browser",
            "wait",
            "element",
            "p:contains(Later)",
            "--timeout",
            "10000",
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    // Nothing matched, and a selector that is not one.
    let v = tab_json(
        &env,
        &[
            "browser",
            "click",
            "button:contains(Nope)",
            "--timeout",
            "300",
        ],
        &t,
    );
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    let v = tab_json(
        &env,
        &["browser", "click", "p:visible(", "--timeout", "300"],
        &t,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = tab_json(
        &env,
        &[
            "browser",
            "batch-click",
            "button:contains(One)",
            "div:has(:contains(x)",
        ],
        &t,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert_eq!(eval("window.hits"), "21", "nothing was clicked");
}

/// The refs of every node with this role and name in a snapshot envelope, in order.
fn refs_of(snapshot: &Value, role: &str, name: &str) -> Vec<String> {
    snapshot["data"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["role"] == role && n["name"] == name)
        .filter_map(|n| n["ref"].as_str().map(|r| format!("@{r}")))
        .collect()
}

#[test]
fn stale_ref_messages_count_what_they_say() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/rows.html",
        r#"<!doctype html><html><head><title>Rows</title></head><body>
<ul id="list"></ul><input id="solo" aria-label="Solo">
<script>
  let rows = ['a', 'b', 'c'];
  function render() { document.getElementById('list').innerHTML = rows.map(r => '<li>' + r + ' <button>Delete</button></li>').join(''); }
  render();
</script></body></html>"#,
    );
    f.html(
        "/other.html",
        "<!doctype html><title>Other</title><p>Other page</p>",
    );
    let sid = env.start(&["--open-url", &f.url("/rows.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let first = refs_of(
        &tab_json(&env, &["browser", "snapshot"], &t),
        "button",
        "Delete",
    );
    assert_eq!(first.len(), 3, "{first:?}");
    // The list is drawn again with one row less: every button is a new node with a new ref.
    tab_json(
        &env,
        &["browser", "eval", "rows = ['b', 'c']; render()"],
        &t,
    );
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    let second = refs_of(&snap, "button", "Delete");
    assert_eq!(second.len(), 2, "{snap}");
    assert!(
        second.iter().all(|r| !first.contains(r)),
        "{first:?} {second:?}"
    );
    let solo = ref_of(&snap, "textbox", "Solo");

    // A ref of the first snapshot: the refs it could be confused with are those the table holds
    // (two of the first snapshot, removed since, and two of the second), named and counted so.
    let v = tab_json(&env, &["browser", "text", &first[0]], &t);
    assert_eq!(v["error"]["code"], "STALE_ELEMENT", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    let others = [&first[1..], &second[..]].concat().join(", ");
    assert!(
        msg.contains(&format!(
            "4 other refs given on this page were also button \"Delete\" ({others})"
        )),
        "{msg}"
    );
    assert!(!msg.contains("last snapshot"), "{msg}");
    // A node both snapshots saw keeps its ref.
    let v = tab_json(&env, &["browser", "describe", &solo], &t);
    assert_eq!(v["data"]["name"], "Solo", "{v}");

    // After a navigation: refs beyond the new page's numbering are from the earlier page; a
    // number never handed out is not found.
    tab_run(&env, &["browser", "goto", &f.url("/other.html")], &t).ok();
    for r in [&second[1], &solo] {
        let v = tab_json(&env, &["browser", "text", r], &t);
        assert_eq!(v["error"]["code"], "STALE_ELEMENT", "{r}: {v}");
        let msg = v["error"]["message"].as_str().unwrap_or_default();
        assert!(msg.contains("from an earlier page"), "{r}: {msg}");
    }
    let v = tab_json(&env, &["browser", "text", "@e99"], &t);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
}

/// `text` of an element the page does not show says so: `innerText` of an element not displayed
/// is the text it holds, and of one `visibility: hidden` nothing (both are the browser's own
/// answers, kept as the reference gives them); a shown one has no warning.
#[test]
fn text_of_a_hidden_element_says_it_is_not_shown() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/hidden.html",
        r#"<!doctype html><title>Hidden</title>
<div id="none" style="display: none">held but not displayed</div>
<div style="display: none"><p id="inner">inside a hidden box</p></div>
<div id="invisible" style="visibility: hidden">held but invisible</div>
<div id="shown">shown <span style="display: none">part</span>text</div>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/hidden.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for (sel, value, warning) in [
        ("#none", "held but not displayed", "#none is not displayed"),
        ("#inner", "inside a hidden box", "#inner is not displayed"),
        (
            "#invisible",
            "",
            "the 18 characters of text it holds are not shown",
        ),
    ] {
        let v = tab_json(&env, &["browser", "text", sel], &t);
        assert_eq!(v["data"]["value"], value, "{v}");
        let w = warnings(&v);
        assert!(w.len() == 1 && w[0].contains(warning), "{sel}: {v}");
    }
    let v = tab_json(&env, &["browser", "text", "#shown"], &t);
    assert_eq!(v["data"]["value"], "shown text", "{v}");
    assert!(warnings(&v).is_empty(), "{v}");
}

#[test]
fn readability_returns_the_article_only() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/article.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = tab_json(
        &env,
        &["browser", "text", "body", "--mode", "readability"],
        &t,
    );
    let text = v["data"]["value"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("The headline"), "{text}");
    assert!(text.contains("First paragraph"), "{text}");
    assert!(text.contains("Second paragraph"), "{text}");
    for noise in [
        "News nav link",
        "Site banner",
        "Related sidebar",
        "Buy now",
        "Footer copyright",
    ] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    let raw = tab_json(&env, &["browser", "text", "body"], &t);
    assert!(
        raw["data"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("Footer copyright")
    );
}

#[test]
fn screenshots_pdfs_and_annotations() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/obs.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(&env, &t, OOPIF_READY);
    let out = tempfile::tempdir().expect("tempdir");
    let p = |name: &str| out.path().join(name).display().to_string();

    let plain = p("plain.png");
    let r = tab_run(&env, &["browser", "screenshot", &plain], &t).ok();
    assert_eq!(
        body(&r),
        ["ok browser screenshot", &format!("path: {plain}")],
        "{r:?}"
    );
    let v = tab_json(&env, &["browser", "screenshot", &plain], &t);
    assert_eq!(v["data"]["artifact"]["mime_type"], "image/png");
    let size = std::fs::metadata(&plain).map(|m| m.len()).unwrap_or(0);
    assert_eq!(v["data"]["artifact"]["bytes"], size);
    let base = png_pixels(Path::new(&plain));
    assert_eq!((base.0, base.1), (1280, 720));

    // Relative paths are the caller's.
    let mut c = env.command(&[&["browser", "screenshot", "rel.png"][..], &t].concat());
    c.current_dir(out.path());
    assert!(c.status().map(|s| s.success()).unwrap_or(false));
    assert!(out.path().join("rel.png").exists());

    // Full page, jpeg, element clip.
    let full = p("full.png");
    tab_run(&env, &["browser", "screenshot", &full, "--full"], &t).ok();
    let fp = png_pixels(Path::new(&full));
    assert!(fp.1 > 2000, "{}x{}", fp.0, fp.1);
    let jpg = p("shot.jpg");
    let v = tab_json(
        &env,
        &["browser", "screenshot", &jpg, "--screenshot-quality", "40"],
        &t,
    );
    assert_eq!(v["data"]["artifact"]["mime_type"], "image/jpeg", "{v}");
    let bytes = std::fs::read(&jpg).unwrap_or_default();
    assert_eq!(&bytes[..3], &[0xff, 0xd8, 0xff]);
    let v = tab_json(
        &env,
        &[
            "browser",
            "screenshot",
            &p("x.png"),
            "--screenshot-format",
            "jpeg",
        ],
        &t,
    );
    assert_eq!(v["data"]["artifact"]["mime_type"], "image/jpeg", "{v}");
    // The name says PNG, the bytes are JPEG: the answer says so.
    assert!(
        v["meta"]["warnings"].to_string().contains("image/png"),
        "{v}"
    );
    let el = p("el.png");
    tab_run(
        &env,
        &["browser", "screenshot", &el, "--selector", "#submit"],
        &t,
    )
    .ok();
    let b = tab_json(&env, &["browser", "box", "#submit"], &t);
    let ep = png_pixels(Path::new(&el));
    let bw = b["data"]["value"]["width"].as_f64().unwrap_or(0.0);
    assert!((f64::from(ep.0) - bw).abs() <= 1.0, "{} vs {b}", ep.0);

    // Annotate: labels where the refs are (also inside the OOPIF, and on an element users act on
    // without an interactive role, which had none), gone from the page after.
    let v = tab_json(
        &env,
        &[
            "browser",
            "eval",
            "document.body.insertAdjacentHTML('beforeend', '<div id=\"clicky\" onclick=\"1\" \
             style=\"position:absolute;left:700px;top:440px;width:80px;height:30px;cursor:pointer\">\
             Choose fruit</div>'); 1",
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    let clicky = ref_of(&snap, "generic", "Choose fruit");
    let remote = ref_of(&snap, "button", "Remote button");
    let name = ref_of(&snap, "textbox", "Name");
    let inner = ref_of(&snap, "textbox", "Inner field");
    tab_run(&env, &["browser", "screenshot", &plain], &t).ok();
    let base = png_pixels(Path::new(&plain));
    let ann = p("ann.png");
    let v = tab_json(&env, &["browser", "screenshot", &ann, "--annotate"], &t);
    assert_eq!(v["ok"], true, "{v}");
    let a = png_pixels(Path::new(&ann));
    for r in [&remote, &inner, &name, &clicky] {
        let b = tab_json(&env, &["browser", "box", r], &t);
        let (x, y) = (
            b["data"]["value"]["x"].as_f64().unwrap_or(0.0) as u32,
            b["data"]["value"]["y"].as_f64().unwrap_or(0.0) as u32,
        );
        // The label sits on the box's top-left corner (above it when there is room).
        let top = y.saturating_sub(16);
        assert!(
            differs(&a, &base, x, top, 30, 22),
            "no label at {r} ({x},{y})"
        );
    }
    let left = tab_json(
        &env,
        &[
            "browser",
            "eval",
            "document.querySelectorAll('[data-actionbook-annotations]').length",
        ],
        &t,
    );
    assert_eq!(left["data"]["value"], 0, "{left}");
    // Far from any element the image is unchanged.
    assert!(!differs(&a, &base, 900, 300, 50, 50));

    // Files: a missing directory names the path and leaves nothing behind.
    let missing = out.path().join("no/such/dir/x.png").display().to_string();
    let v = tab_json(&env, &["browser", "screenshot", &missing], &t);
    assert_eq!(v["error"]["code"], "ARTIFACT_WRITE_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains(&missing),
        "{v}"
    );
    let v = tab_json(
        &env,
        &["browser", "pdf", &out.path().display().to_string()],
        &t,
    );
    assert_eq!(v["error"]["code"], "ARTIFACT_WRITE_FAILED", "{v}");
    // A directory that exists but takes no new file: sysfs refuses them even to root (the tests
    // run as root here, so a chmod'ed directory would not do).
    if Path::new("/sys/fs").is_dir() {
        for cmd in ["screenshot", "pdf"] {
            let unwritable = format!("/sys/fs/actionbook-test-{cmd}.out");
            let v = tab_json(&env, &["browser", cmd, &unwritable], &t);
            assert_eq!(v["error"]["code"], "ARTIFACT_WRITE_FAILED", "{v}");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap_or("")
                    .contains(&unwritable),
                "{v}"
            );
            assert!(!Path::new(&unwritable).exists());
        }
    }
    // A parent that is a file; the existing file is left as it was.
    let under_file = format!("{plain}/x.png");
    let v = tab_json(&env, &["browser", "screenshot", &under_file], &t);
    assert_eq!(v["error"]["code"], "ARTIFACT_WRITE_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains(&under_file),
        "{v}"
    );
    assert_eq!(png_pixels(Path::new(&plain)).2, base.2);
    let leftovers: Vec<_> = std::fs::read_dir(out.path())
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let pdf = p("page.pdf");
    let r = tab_run(&env, &["browser", "pdf", &pdf], &t).ok();
    assert_eq!(body(&r), ["ok browser pdf", &format!("path: {pdf}")]);
    let v = tab_json(&env, &["browser", "pdf", &pdf], &t);
    assert_eq!(v["data"]["artifact"]["mime_type"], "application/pdf");
    assert!(std::fs::read(&pdf).unwrap_or_default().starts_with(b"%PDF"));

    // A tab in the background is captured too, every time (its hidden page drew no frame: every
    // other capture ran out of time).
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/same.html"),
        "--session",
        &sid,
    ]);
    assert_eq!(v["ok"], true, "{v}");
    for i in 0..3 {
        let shot = p(&format!("background{i}.png"));
        let v = tab_json(
            &env,
            &["browser", "screenshot", &shot, "--timeout", "8000"],
            &t,
        );
        assert_eq!(v["ok"], true, "capture {i}: {v}");
        let v = env.json(&["browser", "eval", "1", "--session", &sid, "--tab", "t2"]);
        assert_eq!(v["ok"], true, "{v}");
        let v = env.json(&[
            "browser",
            "screenshot",
            &p("t2.png"),
            "--session",
            &sid,
            "--tab",
            "t2",
        ]);
        assert_eq!(v["ok"], true, "{v}");
    }
}

#[test]
fn window_size_sets_the_viewport() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&[
        "--window-size",
        "800x600",
        "--open-url",
        &f.url("/article.html"),
    ]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = tab_json(&env, &["browser", "viewport"], &t);
    assert_eq!(
        v["data"],
        serde_json::json!({"width": 800, "height": 600}),
        "{v}"
    );
    let v = env.json(&["browser", "start", "--headless", "--window-size", "12x"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}

fn logs(env: &Env, t: &[&str], extra: &[&str]) -> Value {
    let v = tab_json(env, &[&["browser", "logs"][..], extra].concat(), t);
    assert_eq!(v["ok"], true, "{v}");
    v
}

fn texts(v: &Value) -> Vec<String> {
    v["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["text"].as_str().map(str::to_string))
        .collect()
}

/// Reads a log until it has an entry containing `needle` (frames log asynchronously).
fn logs_until(env: &Env, t: &[&str], which: &str, needle: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let v = logs(env, t, &[which]);
        if texts(&v).iter().any(|x| x.contains(needle)) {
            return v;
        }
        assert!(
            Instant::now() < until,
            "{needle} never in logs {which}: {v}"
        );
        std::thread::sleep(Duration::from_millis(150));
    }
}

#[test]
fn logs_from_the_first_load_and_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&[]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    tab_run(&env, &["browser", "goto", &f.url("/obs.html")], &t).ok();

    // The inline script ran during goto: its messages are there, with the frame's URL.
    let v = logs_until(&env, &t, "console", "from the oopif");
    let items = v["data"]["items"].as_array().cloned().unwrap_or_default();
    let inline = items
        .iter()
        .find(|i| i["text"] == "inline 42 {a: 1}")
        .unwrap_or_else(|| panic!("no inline line: {v}"));
    assert_eq!(inline["level"], "log");
    assert_eq!(inline["frame_url"], f.url("/obs.html"), "{v}");
    assert_eq!(inline["source"], f.url("/obs.html"), "{v}");
    let remote = items
        .iter()
        .find(|i| i["text"] == "from the oopif")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(remote["level"], "error");
    assert_eq!(remote["frame_url"], f.cross_site_url("/remote.html"), "{v}");
    assert!(texts(&v).contains(&"from same frame".to_string()), "{v}");
    let r = tab_run(&env, &["browser", "logs", "console", "--level", "warn"], &t).ok();
    let lines = body(&r);
    assert_eq!(lines[0], "1 log", "{r:?}");
    assert!(
        lines[1].starts_with("warn ") && lines[1].ends_with(" careful"),
        "{r:?}"
    );
    let v = logs(&env, &t, &["console", "--tail", "1"]);
    assert_eq!(v["data"]["items"].as_array().map(Vec::len), Some(1));
    let last_id = v["data"]["items"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let v = logs(&env, &t, &["console", "--since", &last_id]);
    assert_eq!(v["data"]["items"], serde_json::json!([]), "{v}");
    let v = tab_json(&env, &["browser", "logs", "console", "--level", "loud"], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
    let v = tab_json(&env, &["browser", "logs", "console", "--since", "12"], &t);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");

    // Errors: an uncaught one in the OOPIF, then a page with a throw, a rejection, a 404.
    logs_until(&env, &t, "errors", "remote boom");
    tab_run(&env, &["browser", "goto", &f.url("/errors.html")], &t).ok();
    let v = logs_until(&env, &t, "errors", "Failed to load resource");
    let v = if texts(&v).iter().any(|x| x.contains("boom")) {
        v
    } else {
        logs_until(&env, &t, "errors", "Uncaught Error: boom")
    };
    let all = texts(&v);
    assert!(all.iter().any(|x| x == "Uncaught Error: boom"), "{v}");
    assert!(
        all.iter()
            .any(|x| x.starts_with("Uncaught (in promise) TypeError: nobody handles me")),
        "{v}"
    );
    let v = logs(&env, &t, &["errors", "--source", "missing.png"]);
    assert_eq!(v["data"]["items"].as_array().map(Vec::len), Some(1), "{v}");
    // The log outlives navigations; first-load lines of the new page are there too.
    let v = logs_until(&env, &t, "console", "first load line");
    assert!(texts(&v).contains(&"careful".to_string()));
    let max_id = |v: &Value| {
        v["data"]["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["id"].as_str()?.strip_prefix("log-")?.parse::<u64>().ok())
            .max()
            .unwrap_or(0)
    };
    let before = max_id(&v);

    // A new daemon: the current document's lines come back (Chromium replays them), numbered
    // after the ids handed out before.
    env.kill_daemon();
    let v = logs_until(&env, &t, "console", "first load line");
    assert!(max_id(&v) > before, "{before} vs {v}");
    assert!(
        !texts(&v).contains(&"careful".to_string()),
        "an earlier document's line came back: {v}"
    );
    // Clear holds across a restart too.
    let v = logs(&env, &t, &["console", "--clear"]);
    assert_eq!(v["data"]["cleared"], true);
    assert_eq!(
        logs(&env, &t, &["console"])["data"]["items"],
        serde_json::json!([])
    );
    env.kill_daemon();
    assert_eq!(
        logs(&env, &t, &["console"])["data"]["items"],
        serde_json::json!([])
    );
    // A --clear of a tail says what it removed unseen.
    tab_run(
        &env,
        &[
            "browser",
            "eval",
            "console.log('c1'); console.log('c2'); console.log('c3'); 1",
        ],
        &t,
    )
    .ok();
    logs_until(&env, &t, "console", "c3");
    let v = logs(&env, &t, &["console", "--tail", "1", "--clear"]);
    assert_eq!(texts(&v), ["c3"], "{v}");
    assert_eq!(
        v["meta"]["warnings"][0],
        "--clear removed 2 console entries that were not shown (filtered out by --level, --source or --since, or older than --tail's)",
        "{v}"
    );
    // A message past the tab's 8 KiB a message is cut, and the answer says which and how long.
    tab_run(
        &env,
        &[
            "browser",
            "eval",
            "console.log('y'.repeat(20000)); console.log('short one'); 1",
        ],
        &t,
    )
    .ok();
    let v = logs_until(&env, &t, "console", "short one");
    let long = v["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["text"].as_str().is_some_and(|x| x.starts_with("yyy")))
        .unwrap_or_else(|| panic!("no long line: {v}"));
    let id = long["id"].as_str().unwrap_or_default();
    assert_eq!(
        long["text"].as_str().map(|x| (x.len(), x.ends_with("y…"))),
        Some((8192 + '…'.len_utf8(), true)),
        "{v}"
    );
    assert_eq!(v["meta"]["truncated"], true, "{v}");
    let warned = "one message is cut at 8 KiB";
    assert!(
        v["meta"]["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|w| w
                .as_str()
                .is_some_and(|w| w.contains(warned) && w.contains(&format!("{id} (20000 bytes)")))),
        "{v}"
    );
    let v = logs(&env, &t, &["console", "--since", id]);
    assert_eq!(
        (v["meta"]["truncated"].as_bool(), texts(&v)),
        (Some(false), vec!["short one".to_string()]),
        "{v}"
    );
}

/// A generated element: tag, classes, id, own text, children.
#[derive(Debug, Clone)]
struct Gen {
    tag: &'static str,
    classes: Vec<&'static str>,
    id: Option<&'static str>,
    text: &'static str,
    children: Vec<Gen>,
}

fn gen_tree() -> impl proptest::strategy::Strategy<Value = Vec<Gen>> {
    use proptest::prelude::*;
    let leaf = (
        prop::sample::select(vec!["div", "span", "li", "p"]),
        prop::sample::subsequence(vec!["a", "b"], 0..=2),
        prop::option::of(prop::sample::select(vec!["x", "y"])),
        prop::sample::select(vec!["t1", "t2", ""]),
    )
        .prop_map(|(tag, classes, id, text)| Gen {
            tag,
            classes,
            id,
            text,
            children: Vec::new(),
        });
    let node = leaf.prop_recursive(2, 12, 3, |inner| {
        (
            prop::sample::select(vec!["div", "li", "p"]),
            prop::sample::subsequence(vec!["a", "b"], 0..=2),
            prop::option::of(prop::sample::select(vec!["x", "y"])),
            prop::sample::select(vec!["t1", "t2", ""]),
            prop::collection::vec(inner, 0..3),
        )
            .prop_map(|(tag, classes, id, text, children)| Gen {
                tag,
                classes,
                id,
                text,
                children,
            })
    });
    prop::collection::vec(node, 1..5)
}

/// One generated element as a query sees it: `(tag, classes, textContent)`.
type Flat = (String, Vec<String>, String);

/// A query and which [`Flat`] elements it must match.
type Case = (&'static str, fn(&Flat) -> bool);

/// HTML of the nodes (each numbered by `data-k` in document order) and their [`Flat`] facts.
fn render(nodes: &[Gen], html: &mut String, flat: &mut Vec<Flat>) -> String {
    let mut text_all = String::new();
    for n in nodes {
        let k = flat.len();
        flat.push((
            n.tag.to_string(),
            n.classes.iter().map(|c| c.to_string()).collect(),
            String::new(),
        ));
        html.push_str(&format!("<{} data-k=\"{k}\"", n.tag));
        if !n.classes.is_empty() {
            html.push_str(&format!(" class=\"{}\"", n.classes.join(" ")));
        }
        if let Some(id) = n.id {
            html.push_str(&format!(" id=\"{id}\""));
        }
        html.push('>');
        html.push_str(n.text);
        let inner = render(&n.children, html, flat);
        html.push_str(&format!("</{}>", n.tag));
        let text = format!("{}{inner}", n.text);
        flat[k].2 = text.clone();
        text_all.push_str(&text);
    }
    text_all
}

#[test]
fn query_all_selectors_reselect_exactly_their_element() {
    use proptest::strategy::{Strategy, ValueTree};
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html("/blank.html", "<!doctype html><title>blank</title>");
    let sid = env.start(&["--open-url", &f.url("/blank.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let queries: [Case; 4] = [
        (".a", |e| e.1.iter().any(|c| c == "a")),
        ("div", |e| e.0 == "div"),
        (".a:contains(t1)", |e| {
            e.1.iter().any(|c| c == "a") && e.2.contains("t1")
        }),
        ("li.b:visible, p:contains(t2)", |e| {
            (e.0 == "li" && e.1.iter().any(|c| c == "b")) || (e.0 == "p" && e.2.contains("t2"))
        }),
    ];
    for case in 0..6 {
        let nodes = gen_tree().new_tree(&mut runner).expect("tree").current();
        let mut html = String::from("<!doctype html><html><body><ul>");
        let mut flat = Vec::new();
        render(&nodes, &mut html, &mut flat);
        html.push_str("</ul></body></html>");
        let path = format!("/gen{case}.html");
        f.html(&path, &html);
        tab_run(&env, &["browser", "goto", &f.url(&path)], &t).ok();
        let (q, pred) = queries[case % queries.len()];
        let want: Vec<String> = flat
            .iter()
            .enumerate()
            .filter(|(_, e)| pred(e))
            .map(|(k, _)| k.to_string())
            .collect();
        let v = tab_json(&env, &["browser", "query", "all", q], &t);
        assert_eq!(v["data"]["count"], want.len(), "{q} on {html}: {v}");
        let items = v["data"]["items"].as_array().cloned().unwrap_or_default();
        for (item, k) in items.iter().zip(&want) {
            let sel = item["selector"].as_str().unwrap_or_default();
            let c = tab_json(&env, &["browser", "query", "count", sel], &t);
            assert_eq!(c["data"]["count"], 1, "{sel} on {html}: {c}");
            let a = tab_json(&env, &["browser", "attr", sel, "data-k"], &t);
            assert_eq!(a["data"]["value"], k.as_str(), "{sel} on {html}: {a}");
        }
    }
}

/// Width and height from a PNG's header (without decoding a possibly huge image).
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_default();
    assert!(
        bytes.len() > 24 && &bytes[..8] == b"\x89PNG\r\n\x1a\n",
        "{path:?} is no PNG"
    );
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (be(16), be(20))
}

#[test]
fn captures_are_bounded_honest_about_their_format_and_leave_the_page_as_it_was() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    // 200,000 letters without a break: a page about 1.95 million CSS pixels wide.
    f.html(
        "/wide.html",
        "<!doctype html><title>Wide</title><p id=w></p>\
         <div id=bottom style=\"margin-top:3000px\">bottom</div>\
         <script>w.textContent = 'W'.repeat(200000)</script>",
    );
    let sid = env.start(&["--open-url", &f.url("/wide.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let out = tempfile::tempdir().expect("tempdir");
    let p = |name: &str| out.path().join(name).display().to_string();
    let scroll_y = |env: &Env| {
        tab_json(env, &["browser", "eval", "window.scrollY"], &t)["data"]["value"].clone()
    };

    // The whole page does not fit one capture: its top left is taken, and the answer says so.
    let full = p("full.png");
    let v = tab_json(&env, &["browser", "screenshot", &full, "--full"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["meta"]["truncated"], true, "{v}");
    assert!(
        v["meta"]["warnings"]
            .to_string()
            .contains("more than one capture holds"),
        "{v}"
    );
    let (w, h) = png_size(Path::new(&full));
    assert!((10_000..=32_000).contains(&w) && h >= 720, "{w}x{h}");
    assert!(u64::from(w) * u64::from(h) <= 50_000_000, "{w}x{h}");
    // The browser is fine after it.
    let v = tab_json(&env, &["browser", "screenshot", &p("after.png")], &t);
    assert_eq!(v["ok"], true, "{v}");
    let v = tab_json(&env, &["browser", "title"], &t);
    assert_eq!(v["data"]["value"], "Wide", "{v}");

    // An element far down is captured without leaving the page scrolled.
    assert_eq!(scroll_y(&env), 0);
    let v = tab_json(
        &env,
        &[
            "browser",
            "screenshot",
            &p("bottom.png"),
            "--selector",
            "#bottom",
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(scroll_y(&env), 0);
    // --full and --selector ask for two different things.
    let v = tab_json(
        &env,
        &[
            "browser",
            "screenshot",
            &p("both.png"),
            "--full",
            "--selector",
            "#bottom",
        ],
        &t,
    );
    assert_eq!(v["ok"], false, "{v}");
    assert!(v.to_string().contains("--full"), "{v}");

    // The bytes are what the name and the answer say: webp is WebP; a name of a format not
    // written here gets PNG with a warning.
    let webp = p("shot.webp");
    let v = tab_json(&env, &["browser", "screenshot", &webp], &t);
    assert_eq!(v["data"]["artifact"]["mime_type"], "image/webp", "{v}");
    let bytes = std::fs::read(&webp).unwrap_or_default();
    assert!(bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP");
    let gif = p("shot.gif");
    let v = tab_json(&env, &["browser", "screenshot", &gif], &t);
    assert_eq!(v["data"]["artifact"]["mime_type"], "image/png", "{v}");
    assert!(
        v["meta"]["warnings"]
            .to_string()
            .contains("the file is PNG"),
        "{v}"
    );
    png_size(Path::new(&gif));
}

#[test]
fn annotations_stay_inside_the_frames_that_show_them() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    // An inner frame larger than the outer one that holds it: "Far" lies outside what the outer
    // frame shows, "Edge" half inside.
    f.html(
        "/nest.html",
        "<!doctype html><title>Nest</title><body style=\"margin:0\">\
         <iframe id=outer src=\"/outer.html\" style=\"position:absolute;left:50px;top:50px;\
         width:300px;height:200px;border:0\"></iframe></body>",
    );
    f.html(
        "/outer.html",
        "<!doctype html><body style=\"margin:0;background:#eee\">\
         <iframe id=inner src=\"/inner.html\" style=\"position:absolute;left:0;top:0;\
         width:900px;height:700px;border:0\"></iframe></body>",
    );
    f.html(
        "/inner.html",
        "<!doctype html><body style=\"margin:0\">\
         <button style=\"position:absolute;left:10px;top:10px;width:80px;height:30px\">Near</button>\
         <button style=\"position:absolute;left:500px;top:400px;width:80px;height:30px\">Far</button>\
         <button style=\"position:absolute;left:250px;top:100px;width:120px;height:30px\">Edge</button>\
         </body>",
    );
    let sid = env.start(&["--open-url", &f.url("/nest.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(
        &env,
        &t,
        "(() => { try { const d = outer.contentDocument.querySelector('#inner').contentDocument; \
         return d.readyState === 'complete' && d.querySelectorAll('button').length === 3; } \
         catch (e) { return false; } })()",
    );
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    ref_of(&snap, "button", "Far");
    let out = tempfile::tempdir().expect("tempdir");
    let plain = out.path().join("plain.png");
    let ann = out.path().join("ann.png");
    let v = tab_json(
        &env,
        &["browser", "screenshot", &plain.display().to_string()],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = tab_json(
        &env,
        &[
            "browser",
            "screenshot",
            &ann.display().to_string(),
            "--annotate",
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    let base = png_pixels(&plain);
    let a = png_pixels(&ann);
    // Labelled inside the outer frame ("Near" at 60,60)...
    assert!(differs(&a, &base, 60, 60, 80, 30), "no label on Near");
    // ...and nothing drawn where the outer frame (50,50 300x200) does not show its content: not
    // at "Far" (550,450), not the right half of "Edge" (300..420), not the inner frame's edges.
    assert!(!differs(&a, &base, 540, 430, 110, 60), "Far is outlined");
    assert!(
        !differs(&a, &base, 352, 0, 928, 720),
        "drawn right of the outer frame"
    );
    assert!(
        !differs(&a, &base, 0, 252, 1280, 468),
        "drawn below the outer frame"
    );
}

#[test]
fn element_captures_leave_every_scroll_position_as_it_was() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    // "Deep" is far down a scroll container, far down a same-origin iframe, far down the page.
    f.html(
        "/scrolls.html",
        "<!doctype html><title>Scrolls</title><body style=\"margin:0\">\
         <div style=\"height:2000px\"></div>\
         <iframe id=f src=\"/deep.html\" style=\"width:400px;height:200px;border:0\"></iframe>\
         <div style=\"height:2000px\"></div></body>",
    );
    f.html(
        "/deep.html",
        "<!doctype html><body style=\"margin:0\"><div style=\"height:1500px\"></div>\
         <div id=box style=\"height:100px;overflow:auto\"><div style=\"height:900px\"></div>\
         <button id=deep>Deep</button></div><div style=\"height:1500px\"></div></body>",
    );
    let sid = env.start(&["--open-url", &f.url("/scrolls.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(
        &env,
        &t,
        "(() => { try { return !!f.contentDocument.querySelector('#deep'); } catch (e) { return false; } })()",
    );
    let snap = tab_json(&env, &["browser", "snapshot"], &t);
    let deep = ref_of(&snap, "button", "Deep");
    let scrolls = "[scrollX, scrollY, f.contentWindow.scrollY, \
                   f.contentDocument.querySelector('#box').scrollTop].join()";
    let before = tab_json(&env, &["browser", "eval", scrolls], &t);
    assert_eq!(before["data"]["value"], "0,0,0,0", "{before}");
    let out = tempfile::tempdir().expect("tempdir");
    let shot = out.path().join("deep.png");
    let v = tab_json(
        &env,
        &[
            "browser",
            "screenshot",
            &shot.display().to_string(),
            "--selector",
            &deep,
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");
    let (w, h, _) = png_pixels(&shot);
    assert!(w > 10 && h > 10, "{w}x{h}");
    let after = tab_json(&env, &["browser", "eval", scrolls], &t);
    assert_eq!(after["data"]["value"], before["data"]["value"], "{after}");
}

/// Whether `v` is a string whose last word is `word`.
fn ends_with_word(v: &serde_json::Value, word: &str) -> bool {
    v.as_str()
        .and_then(|s| s.split_whitespace().last())
        .is_some_and(|w| w == word)
}

/// Playwright's role selector (`role=button[name="..."]`) in the commands that act on one element:
/// by role and accessible name (a substring, case aside; `s` for the exact name) and state, in
/// every frame
/// (an out-of-process one too), hidden elements never, the first of several used and said.
#[test]
fn role_selectors_find_by_role_and_name_in_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let remote = f.cross_site_url("/role-remote.html");
    f.html(
        "/role-remote.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body>
<button onclick="this.textContent = 'Remote clicked'">Remote OK</button></body></html>"#,
    );
    f.html(
        "/roles.html",
        &format!(
            r#"<!doctype html><html><head><title>Roles</title></head><body>
<button onclick="window.hits += 'd'">Save   draft</button><button onclick="window.hits += 's'">Save</button>
<button style="display:none">Secret</button>
<label>Email <input id="email"></label>
<label><input type="checkbox" id="alpha" checked> Alpha</label><label><input type="checkbox" id="beta"> Beta</label>
<button disabled>Send</button>
<iframe id="oop" title="Remote" src="{remote}"></iframe>
<script>window.hits = '';</script></body></html>"#
        ),
    );
    let sid = env.start(&["--open-url", &f.url("/roles.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    until_true(&env, &t, OOPIF_READY);
    let eval = |js: &str| tab_json(&env, &["browser", "eval", js], &t)["data"]["value"].clone();
    let act = |args: &[&str]| tab_json(&env, &[&["browser"][..], args].concat(), &t);

    // A substring of the name, case and spacing aside: both Save buttons match, the first is used.
    let v = act(&["click", "role=button[name=\"save DRAFT\"]"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
    let v = act(&["click", "role=button[name=save]"]);
    assert_eq!(
        warnings(&v),
        vec!["role=button[name=save] matched 2 elements; used the first".to_string()],
        "{v}"
    );
    // The exact name (`s`): only the second.
    let v = act(&["click", "role=button[name=\"Save\" s]"]);
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
    assert_eq!(eval("window.hits"), "dds");
    // A textbox by its label's name.
    let v = act(&["fill", "role=textbox[name=email]", "ada@example.com"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval("document.getElementById('email').value"),
        "ada@example.com"
    );
    // In the out-of-process iframe, and read back there by its new name.
    let v = act(&["click", "role=button[name=\"Remote OK\"]"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = act(&["text", "role=button[name=\"remote clicked\"]"]);
    assert_eq!(v["data"]["value"], "Remote clicked", "{v}");
    // By state: the unchecked checkbox; then none is left unchecked.
    let v = act(&["click", "role=checkbox[checked=false]"]);
    assert_eq!(warnings(&v), Vec::<String>::new(), "{v}");
    assert_eq!(eval("document.getElementById('beta').checked"), true);
    let v = act(&["text", "role=checkbox[checked=false]"]);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    let v = act(&["text", "role=button[disabled]"]);
    assert_eq!(v["data"]["value"], "Send", "{v}");
    // A hidden element is no match: not found.
    let v = act(&["text", "role=button[name=Secret]"]);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    // Waited for, as any selector: a heading a timer adds.
    let add = "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<h2>Done now</h2>'), 800), 1";
    assert_eq!(act(&["eval", add])["ok"], true);
    let v = act(&[
        "wait",
        "element",
        "role=heading[name=\"done\"]",
        "--timeout",
        "10000",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    // What it does not take, said plainly.
    let v = act(&["click", "role=heading[level=2]"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("[level] is not supported") && !msg.contains("Playwright"),
        "{msg}"
    );
    let v = act(&["query", "all", "role=button"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}

/// A selector that runs away in the page (an extension quadratic over a big page) is stopped
/// there when its command gives up: the tab answers the next command at once instead of staying
/// busy with it. `wait text` on that page answers.
#[test]
fn a_runaway_selector_does_not_hold_the_tab() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/big.html",
        r#"<!doctype html><html><head><title>Big</title></head><body><main id="m"></main>
<script>
  const m = document.getElementById('m');
  for (let i = 0; i < 4000; i++) { const d = document.createElement('div'); d.innerHTML = '<p><span>row ' + i + ' needle</span></p>'; m.appendChild(d); }
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/big.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let slow = "*:has-text(needle):not(:has(*:has-text(needle))):not(:has(*:has-text(row)))";
    let v = tab_json(&env, &["browser", "text", slow, "--timeout", "1500"], &t);
    assert_eq!(v["ok"], false, "{v}");
    let v = tab_json(&env, &["browser", "title", "--timeout", "5000"], &t);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["value"], "Big", "{v}");
    // `wait text` says the same as that selector without its cost: one pass over the page's text.
    let v = tab_json(
        &env,
        &[
            "browser",
            "wait",
            "text",
            "ROW 3999 needle",
            "--timeout",
            "10000",
        ],
        &t,
    );
    assert_eq!(v["ok"], true, "{v}");
}
