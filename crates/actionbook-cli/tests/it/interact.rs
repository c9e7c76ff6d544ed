// Over 1,000 lines on purpose: one command group's end-to-end tests beside the fixture pages and
// helpers they share; each test is an independent scenario.
//! `fill` only types into the element it was given, `click` takes `x,y` coordinates, and a ref from
//! a page that a click navigated away from is reported stale, never as an internal error.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, eventually, ref_of, site};

/// Runs `browser <args...>` on the tab with `--json`.
fn on(env: &Env, t: &[&str], args: &[&str]) -> Value {
    env.json(&[&["browser"][..], args, t].concat())
}

/// Evaluates `code` in the tab and returns its value.
fn eval(env: &Env, t: &[&str], code: &str) -> Value {
    let v = on(env, t, &["eval", code]);
    assert_eq!(v["ok"], true, "eval {code}: {v}");
    v["data"]["value"].clone()
}

#[track_caller]
fn assert_error(v: &Value, code: &str, message_part: &str) {
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains(message_part),
        "message {msg:?} lacks {message_part:?}"
    );
}

const FIELDS: &str = r#"<!doctype html><html><head><title>Fields</title></head><body>
<input id="text" type="text"><input id="email" type="email"><input id="num" type="number">
<input id="date" type="date"><input id="off" type="text" disabled><input id="ro" type="text" readonly value="keep">
<input id="thief" type="text" style="display: none">
<input id="other" type="text">
<input id="radio" type="radio"><input id="file" type="file"><input id="range" type="range">
<input id="well" type="color" oninput="window.wellInput = this.value">
<textarea id="area"></textarea>
<div id="edit" contenteditable="true">old</div>
<input id="controlled" type="text">
<script>
  // A React-style controlled input: the instance value setter records what the framework last set;
  // an input event whose value differs from the record is the only way the app learns of typing.
  window.seen = [];
  const c = document.getElementById('controlled');
  const proto = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  let tracked = '';
  Object.defineProperty(c, 'value', {
    get() { return proto.get.call(this); },
    set(v) { tracked = String(v); proto.set.call(this, v); },
  });
  c.addEventListener('input', () => {
    if (c.value !== tracked) { tracked = c.value; window.seen.push(c.value); }
  });
</script>
</body></html>"#;

#[test]
fn fill_refuses_elements_that_take_no_text_and_never_types_elsewhere() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/fields.html", FIELDS);
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let v = on(&env, &t, &["fill", "#name", "abc"]);
    assert_eq!(v["ok"], true, "{v}");
    // The differential-run repro: focus stays on #name, the checkbox fill must not type into it.
    let v = on(&env, &t, &["fill", "#agree", "on"]);
    assert_error(&v, "INVALID_ARGUMENT", "<input type=checkbox>");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("use click")
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#name').value"),
        "abc"
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#agree').checked"),
        false
    );
    assert_error(
        &on(&env, &t, &["fill", "#color", "green"]),
        "INVALID_ARGUMENT",
        "<select>",
    );
    assert_error(
        &on(&env, &t, &["fill", "#submit", "x"]),
        "INVALID_ARGUMENT",
        "<button>",
    );
    assert_error(
        &on(&env, &t, &["fill", "h1", "x"]),
        "INVALID_ARGUMENT",
        "<h1>",
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#name').value"),
        "abc"
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#color').value"),
        "red"
    );

    assert_eq!(on(&env, &t, &["goto", &f.url("/fields.html")])["ok"], true);
    for (sel, what) in [
        ("#radio", "<input type=radio>"),
        ("#file", "<input type=file>"),
        ("#range", "<input type=range>"),
        ("#off", "disabled"),
        ("#ro", "read-only"),
    ] {
        assert_error(
            &on(&env, &t, &["fill", sel, "zz"]),
            "INVALID_ARGUMENT",
            what,
        );
    }
    assert_eq!(
        eval(&env, &t, "document.querySelector('#ro').value"),
        "keep"
    );
    // A text field that cannot take focus (not rendered): focus stays on #other, and the text
    // must not land there.
    assert_eq!(on(&env, &t, &["fill", "#other", "first"])["ok"], true);
    assert_error(
        &on(&env, &t, &["fill", "#thief", "secret"]),
        "INVALID_ARGUMENT",
        "did not take keyboard focus",
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#other').value"),
        "first"
    );
    assert_eq!(eval(&env, &t, "document.querySelector('#thief').value"), "");

    // Text-like fields keep working, and a fill replaces the old content.
    for (sel, text) in [
        ("#text", "hello"),
        ("#email", "a@b.example"),
        ("#num", "42"),
        ("#area", "two\nlines"),
        ("#date", "2024-05-06"),
    ] {
        let v = on(&env, &t, &["fill", sel, text]);
        assert_eq!(v["ok"], true, "{sel}: {v}");
        let code = format!("document.querySelector('{sel}').value");
        assert_eq!(eval(&env, &t, &code), text, "{sel}");
    }
    assert_eq!(on(&env, &t, &["fill", "#text", "again"])["ok"], true);
    assert_eq!(
        eval(&env, &t, "document.querySelector('#text').value"),
        "again"
    );
    assert_eq!(on(&env, &t, &["fill", "#edit", "new text"])["ok"], true);
    assert_eq!(
        eval(&env, &t, "document.querySelector('#edit').textContent"),
        "new text"
    );
    assert_error(
        &on(&env, &t, &["fill", "#date", "not a date"]),
        "INVALID_ARGUMENT",
        "is not a value it takes (YYYY-MM-DD",
    );
    // A slider and a color well are set as a date is (they take no typed text); a value they
    // would turn into another silently is refused, a slider's bound is said.
    let v = on(&env, &t, &["fill", "#range", "70"]);
    assert_eq!(
        (
            v["ok"].as_bool(),
            v["meta"]["warnings"].as_array().map(Vec::len)
        ),
        (Some(true), Some(0)),
        "{v}"
    );
    assert_eq!(
        eval(&env, &t, "document.querySelector('#range').value"),
        "70"
    );
    let v = on(&env, &t, &["fill", "#range", "150"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("it kept 100, not 150")),
        "{v}"
    );
    let v = on(&env, &t, &["fill", "#well", "#FF8800"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        (
            eval(&env, &t, "document.querySelector('#well').value"),
            eval(&env, &t, "window.wellInput")
        ),
        (json!("#ff8800"), json!("#ff8800"))
    );
    for (sel, text, takes) in [
        ("#well", "orange", "#rrggbb"),
        ("#range", "", "a range takes a number"),
    ] {
        assert_error(
            &on(&env, &t, &["fill", sel, text]),
            "INVALID_ARGUMENT",
            takes,
        );
    }
    assert_eq!(
        (
            eval(&env, &t, "document.querySelector('#well').value"),
            eval(&env, &t, "document.querySelector('#range').value")
        ),
        (json!("#ff8800"), json!("100"))
    );

    // The controlled input sees both the typed value and the clearing.
    assert_eq!(on(&env, &t, &["fill", "#controlled", "typed"])["ok"], true);
    assert_eq!(on(&env, &t, &["fill", "#controlled", ""])["ok"], true);
    assert_eq!(
        eval(&env, &t, "JSON.stringify(window.seen)"),
        r#"["typed",""]"#
    );
}

const TARGETS: &str = r#"<!doctype html><html><head><title>Targets</title>
<style>body { margin: 0 } #hit, #field, #go { position: absolute; left: 0; width: 100px; height: 40px }</style>
</head><body>
<button id="hit" style="top: 0" onclick="window.hits = (window.hits || 0) + 1">Hit</button>
<input id="field" style="top: 100px" aria-label="Field">
<a id="go" style="top: 200px; display: block" href="/page2.html">Away</a>
</body></html>"#;

#[test]
fn click_takes_viewport_coordinates() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/targets.html", TARGETS);
    let sid = env.start(&["--open-url", &f.url("/targets.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let v = on(&env, &t, &["click", "10,10"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser click");
    assert_eq!(
        v["data"]["target"],
        serde_json::json!({ "coordinates": "10,10" })
    );
    assert_eq!(v["data"]["changed"]["url_changed"], false);
    assert_eq!(eval(&env, &t, "window.hits"), 1);
    // Spaces and decimals.
    assert_eq!(on(&env, &t, &["click", " 20.5 , 30 "])["ok"], true);
    assert_eq!(eval(&env, &t, "window.hits"), 2);
    let text = env
        .run(&[&["browser", "click", "10,10"][..], &t].concat())
        .ok();
    assert!(
        text.stdout.contains("ok browser click\ntarget: 10,10"),
        "{text:?}"
    );
    assert_eq!(eval(&env, &t, "window.hits"), 3);

    // Focus: clicking into the field moves it, clicking it again does not.
    let v = on(&env, &t, &["click", "50,120"]);
    assert_eq!(v["data"]["changed"]["focus_changed"], true, "{v}");
    assert_eq!(eval(&env, &t, "document.activeElement.id"), "field");
    let v = on(&env, &t, &["click", "50,120"]);
    assert_eq!(v["data"]["changed"]["focus_changed"], false, "{v}");

    assert_error(
        &on(&env, &t, &["click", "99999,5"]),
        "INVALID_ARGUMENT",
        "outside the viewport",
    );
    assert_error(
        &on(&env, &t, &["click", "1.2.3,5"]),
        "INVALID_ARGUMENT",
        "x,y",
    );
    assert_eq!(eval(&env, &t, "window.hits"), 3);

    // A click at a link's position navigates: context follows, like a selector click.
    let v = on(&env, &t, &["click", "50,220"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["url"], f.url("/page2.html").as_str());
    assert_eq!(v["context"]["title"], "Page Two");
    assert_eq!(v["data"]["changed"]["url_changed"], true);
    assert_eq!(v["data"]["changed"]["focus_changed"], true);
}

/// `--force` skips the checks, not the need for a point to act at: an element that renders no
/// box fails at once (INVALID_ARGUMENT saying so, nothing done), instead of after the whole
/// `--timeout` (it waited for a box the user had asked not to wait for).
#[test]
fn a_forced_click_on_an_element_without_a_box_fails_at_once() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/nobox.html",
        r#"<!doctype html><title>No box</title>
<button id="gone" style="display: none" onclick="window.hits = 1">Gone</button>
<div id="flat" style="width: 0; height: 0; overflow: hidden" onclick="window.hits = 2">flat</div>
<button id="shown" onclick="window.hits = 3">Shown</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/nobox.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for (sel, action) in [("#gone", "click"), ("#flat", "click"), ("#gone", "hover")] {
        let started = Instant::now();
        let v = on(&env, &t, &[action, sel, "--force", "--timeout", "8000"]);
        assert_error(&v, "INVALID_ARGUMENT", "renders no box");
        assert_eq!(
            v["error"]["details"],
            serde_json::json!({ "selector": sel, "reason": "not visible" }),
            "{v}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{action} {sel} --force took {:?}: {v}",
            started.elapsed()
        );
    }
    assert_eq!(eval(&env, &t, "window.hits || 0"), 0);
    let r = env.run(&[&["browser", "click", "#gone", "--force"][..], &t].concat());
    assert!(
        r.stderr.contains(
            "error INVALID_ARGUMENT: browser click --force: #gone renders no box (display: none"
        ),
        "{r:?}"
    );
    // A rendered element is clicked as before.
    assert_eq!(on(&env, &t, &["click", "#shown", "--force"])["ok"], true);
    assert_eq!(eval(&env, &t, "window.hits"), 3);
}

/// Nor does `--force` skip the need for the point to be in the viewport: an element that stays
/// outside it though scrolled into view (fixed above the page, moved far left as a skip link is,
/// moved out of the top of a container that clips it) fails at once, INVALID_ARGUMENT saying so
/// with nothing pressed, instead of after the whole `--timeout`. One that scrolling brings into
/// view (far down the page, in a container scrolled away from it, clipped by its container) is
/// clicked.
#[test]
fn a_forced_click_on_an_element_never_in_view_fails_at_once() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/offscreen.html",
        r##"<!doctype html><title>Off screen</title><style>body { margin: 0 }</style>
<div style="overflow: hidden; height: 60px; width: 300px">
  <button id="lifted" style="position: relative; top: -200px" onclick="window.hits = 1">Lifted</button>
</div>
<div id="box" style="overflow: hidden; height: 60px; width: 300px">
  <button id="back" onclick="window.hits = 'back'">Back</button><div style="height: 2000px"></div>
</div>
<div style="overflow: hidden; height: 40px; width: 300px">
  <div style="height: 45px"></div><button id="peek" onclick="window.hits = 'peek'">Peek</button>
</div>
<div style="overflow: hidden; height: 30px; width: 100px; position: relative">
  <button id="side" style="position: absolute; left: 120px" onclick="window.hits = 'side'">Side</button>
</div>
<button id="above" style="position: fixed; top: -500px" onclick="window.hits = 2">Above</button>
<a id="skip" href="#main" style="position: absolute; left: -9999px" onclick="window.hits = 3">Skip</a>
<div style="height: 3000px"></div>
<button id="far" onclick="window.hits = 'far'">Far</button>
<script>document.getElementById('box').scrollTop = 1000;</script>"##,
    );
    let sid = env.start(&["--open-url", &f.url("/offscreen.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for (sel, action) in [
        ("#above", "click"),
        ("#skip", "click"),
        ("#lifted", "click"),
        ("#above", "hover"),
    ] {
        let started = Instant::now();
        let v = on(&env, &t, &[action, sel, "--force", "--timeout", "8000"]);
        assert_error(
            &v,
            "INVALID_ARGUMENT",
            "outside the viewport even after scrolling",
        );
        assert_eq!(
            v["error"]["details"],
            serde_json::json!({ "selector": sel, "reason": "outside viewport" }),
            "{v}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{action} {sel} --force took {:?}: {v}",
            started.elapsed()
        );
    }
    assert_eq!(eval(&env, &t, "window.hits || 0"), 0);
    // Without --force it is still waited for (it may slide in): TIMEOUT naming why.
    let v = on(&env, &t, &["click", "#above", "--timeout", "600"]);
    assert_error(&v, "TIMEOUT", "outside the viewport");
    // Scrolling brings these into view: clicked. (`#peek` and `#side` are inside the viewport
    // but hidden by their overflow-clipping container: they were pressed where they are hidden,
    // and the container took the press.)
    for (sel, hit) in [
        ("#far", "far"),
        ("#back", "back"),
        ("#peek", "peek"),
        ("#side", "side"),
    ] {
        let v = on(&env, &t, &["click", sel, "--force"]);
        assert_eq!(v["ok"], true, "{sel}: {v}");
        assert_eq!(eval(&env, &t, "window.hits"), hit);
    }
}

fn ref_number(r: &str) -> u32 {
    r.trim_start_matches("@e").parse().expect("ref number")
}

#[test]
fn a_ref_from_before_a_click_navigation_is_stale() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let snap = on(&env, &t, &["snapshot"]);
    let submit = ref_of(&snap, "button", "Submit");
    let link = ref_of(&snap, "link", "Go to page two");
    let v = on(&env, &t, &["click", &link]);
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    // Nothing was focused before, nothing is on the new page (the reference CLI says false too).
    assert_eq!(v["data"]["changed"]["focus_changed"], false, "{v}");

    let v = on(&env, &t, &["click", &submit]);
    assert_error(&v, "STALE_ELEMENT", "browser snapshot");
    assert_eq!(v["error"]["retryable"], false, "{v}");
    assert_error(
        &on(&env, &t, &["fill", &submit, "x"]),
        "STALE_ELEMENT",
        "earlier page",
    );
    // A ref never handed out is simply not found.
    let v = on(&env, &t, &["click", "@e9999"]);
    assert_error(&v, "ELEMENT_NOT_FOUND", "@e9999");
    // A failure names the page it happened on (spec 3.1), in JSON and in the text header.
    let page2 = f.url("/page2.html");
    assert_eq!(v["context"]["url"], page2.as_str(), "{v}");
    let mut args = vec!["browser", "click", "@e9999"];
    args.extend_from_slice(&t);
    let r = env.run(&args);
    assert_ne!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .starts_with(&format!("[{sid} t1] {page2}\nerror ELEMENT_NOT_FOUND: ")),
        "{r:?}"
    );
    // Numbering goes on, so the new page's refs never reuse the old numbers.
    let snap = on(&env, &t, &["snapshot"]);
    let back = ref_of(&snap, "link", "Back home");
    assert!(ref_number(&back) > ref_number(&link), "{back} after {link}");
    assert_error(
        &on(&env, &t, &["click", &submit]),
        "STALE_ELEMENT",
        "earlier page",
    );

    // A navigation the click did not wait for (started by script) keeps the table, and the old
    // node is still reported stale instead of leaking the CDP error.
    let v = on(&env, &t, &["click", &back]);
    assert_eq!(v["context"]["title"], "Fixture Home", "{v}");
    let snap = on(&env, &t, &["snapshot"]);
    let submit = ref_of(&snap, "button", "Submit");
    let v = on(
        &env,
        &t,
        &[
            "eval",
            "setTimeout(() => { location.href = '/page2.html'; }, 0); 1",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    eventually("the scheduled navigation", || {
        eval(&env, &t, "document.title") == "Page Two"
    });
    let v = on(&env, &t, &["click", &submit]);
    assert_eq!(v["ok"], false, "{v}");
    let code = v["error"]["code"].as_str().unwrap_or_default();
    assert!(
        code == "STALE_ELEMENT" || code == "ELEMENT_NOT_FOUND",
        "{v}"
    );
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("snapshot"),
        "{v}"
    );

    // goto (and back, reload) restart the numbering: until the next snapshot hands numbers out
    // again, a ref of the page before is stale too (it was ELEMENT_NOT_FOUND).
    on(&env, &t, &["goto", &f.url("/index.html")]);
    let snap = on(&env, &t, &["snapshot"]);
    let submit = ref_of(&snap, "button", "Submit");
    on(&env, &t, &["goto", &f.url("/page2.html")]);
    on(&env, &t, &["back"]);
    assert_error(
        &on(&env, &t, &["fill", &submit, "x"]),
        "STALE_ELEMENT",
        "earlier page",
    );
}

/// Every way a click starts a navigation itself updates the context to the new page (spec 11.1):
/// a link, a form submission, a handler setting location. Each five times: the click must not
/// return before the navigation is seen. A handler that navigates from a timer of its own is
/// seen by the click or, at the latest, by the next command.
#[test]
fn clicks_that_navigate_report_the_new_page() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/ways.html",
        r#"<!doctype html><title>Ways</title>
<a id="link" href="/page2.html">link</a>
<form action="/page2.html"><button id="submit">submit</button></form>
<button id="handler" onclick="location.href = '/page2.html'">handler</button>
<button id="later" onclick="setTimeout(() => location.href = '/page2.html', 0)">later</button>
<button id="stay" onclick="document.title = 'Stayed'">stay</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/ways.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for _ in 0..5 {
        for id in ["#link", "#submit", "#handler"] {
            on(&env, &t, &["goto", &f.url("/ways.html")]);
            let v = on(&env, &t, &["click", id]);
            assert_eq!(v["ok"], true, "{id}: {v}");
            let url = v["context"]["url"].as_str().unwrap_or_default();
            assert!(url.starts_with(&f.url("/page2.html")), "{id}: {v}");
            assert_eq!(v["context"]["title"], "Page Two", "{id}: {v}");
            assert_eq!(v["data"]["changed"]["url_changed"], true, "{id}: {v}");
        }
        on(&env, &t, &["goto", &f.url("/ways.html")]);
        let v = on(&env, &t, &["click", "#later"]);
        assert_eq!(v["ok"], true, "{v}");
        // The page navigates on a timer after the click: no timing is assumed.
        eventually("the navigation the click scheduled", || {
            on(&env, &t, &["title"])["data"]["value"] == "Page Two"
        });
        on(&env, &t, &["goto", &f.url("/ways.html")]);
        let v = on(&env, &t, &["click", "#stay"]);
        assert_eq!(v["context"]["title"], "Stayed", "{v}");
        assert_eq!(v["data"]["changed"]["url_changed"], false, "{v}");
    }
}

/// A click answers with what its handlers and its default action did, wherever the page does it:
/// a form submitted from a handler (`submit()`, `requestSubmit()`) is waited for like a submit
/// button's, a link inside a shadow root (open or closed) like any link; a submit handler that
/// prevents the submission, a checkbox's change handler and a label passing the click on to its
/// checkbox run before the answer (the click reports once the default action is done, not as
/// soon as the click handlers ran). Each three times.
#[test]
fn clicks_report_what_their_default_action_did() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/actions.html",
        r#"<!doctype html><title>Actions</title>
<form id="go" action="/page2.html"><input name="q" value="1"></form>
<button id="submit-call" type="button" onclick="document.forms.go.submit()">submit()</button>
<button id="request-call" type="button" onclick="document.forms.go.requestSubmit()">requestSubmit()</button>
<form id="kept" action="/page2.html" onsubmit="event.preventDefault(); document.title = 'Handled'">
  <button id="kept-submit">kept</button></form>
<input id="box" type="checkbox" onchange="document.title = 'Changed ' + this.checked">
<input id="box2" type="checkbox" onchange="document.title = 'Labelled ' + this.checked">
<label id="label" for="box2">the second box</label>
<button id="plain" type="button" onclick="document.title = 'Plain'">plain</button>
<link-box id="open-link" mode="open"></link-box><link-box id="closed-link" mode="closed"></link-box>
<script>
  // A link inside a custom element's shadow root: an open one the page's script can see into, a
  // closed one it cannot.
  customElements.define('link-box', class extends HTMLElement {
    connectedCallback() {
      const root = this.attachShadow({ mode: this.getAttribute('mode') });
      root.innerHTML = '<a href="/page2.html" style="display:inline-block;padding:4px">' + this.id + '</a>';
    }
  });
</script>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/actions.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for _ in 0..3 {
        for id in [
            "#submit-call",
            "#request-call",
            "#open-link",
            "#closed-link",
        ] {
            on(&env, &t, &["goto", &f.url("/actions.html")]);
            let v = on(&env, &t, &["click", id]);
            assert_eq!(v["ok"], true, "{id}: {v}");
            assert_eq!(v["context"]["title"], "Page Two", "{id}: {v}");
            assert_eq!(v["data"]["changed"]["url_changed"], true, "{id}: {v}");
        }
        on(&env, &t, &["goto", &f.url("/actions.html")]);
        for (id, title) in [
            ("#kept-submit", "Handled"),
            ("#box", "Changed true"),
            ("#label", "Labelled true"),
            ("#plain", "Plain"),
            ("#box", "Changed false"),
        ] {
            let v = on(&env, &t, &["click", id]);
            assert_eq!(v["ok"], true, "{id}: {v}");
            assert_eq!(v["context"]["title"], title, "{id}: {v}");
            assert_eq!(v["data"]["changed"]["url_changed"], false, "{id}: {v}");
        }
    }
}

/// A click on a submit button (and Enter in a form) whose form the browser's validation stops
/// (it fires `invalid` at the bad fields, focuses the first: no `submit`, no navigation) is ok
/// with a warning naming the first invalid field, its message and how many more there are: by
/// CSS, by ref, by XPath (the careful path), in a shadow root, and for `press Enter` (with a
/// submit button or without) and a newline typed. No
/// warning when the form went, when it is `novalidate` or the button `formnovalidate`, when the
/// page's submit handler kept it, nor for a click into an invalid field, a checkbox whose change
/// handler validates, or a submit button whose click handler cancels and validates itself. (It
/// answered ok alone: an agent believed the form submitted.)
#[test]
fn a_submission_the_browsers_validation_stops_is_warned_of() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/order.html",
        r#"<!doctype html><title>Order</title>
<form id="order" action="/page2.html">
  <input name="qty" type="number" max="5" value="9" aria-label="Quantity">
  <input id="email" type="email" value="nope" aria-label="Email">
  <input name="note" required aria-label="Note">
  <input id="agree" type="checkbox" aria-label="Agree" onchange="this.form.reportValidity()">
  <button type="submit">Place order</button>
</form>
<form action="/page2.html"><input name="c" required aria-label="Checked">
  <button id="custom" onclick="event.preventDefault(); this.form.reportValidity()">Check</button></form>
<form action="/page2.html" novalidate><input name="n" type="number" max="5" value="9" aria-label="Loose">
  <button id="loose">Loose</button></form>
<form action="/page2.html"><input name="m" required aria-label="Skipped">
  <button id="skip" formnovalidate>Skip</button></form>
<form action="/page2.html" onsubmit="event.preventDefault(); window.kept++">
  <input name="k" value="ok" aria-label="Kept"><button id="kept">Kept</button></form>
<form action="/page2.html"><input name="solo" type="email" value="x" aria-label="Solo"></form>
<div id="host"></div>
<script>
  // A form inside a shadow root: its `invalid` events do not leave the root.
  document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
    '<form action="/page2.html"><input name="inner" required aria-label="Inner">'
    + '<button>Shadow order</button></form>';
  window.submits = 0; window.invalids = 0; window.kept = 0;
  addEventListener('submit', () => window.submits++, true);
  addEventListener('invalid', () => window.invalids++, true);
</script>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/order.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let message = |css: &str| {
        let m = eval(
            &env,
            &t,
            &format!("document.querySelector('{css}').validationMessage"),
        );
        format!("{:?}", m.as_str().unwrap_or_default())
    };
    let stopped = |field: &str, message: &str, more: &str| {
        format!(
            "the form was not submitted: the browser's validation stopped it at {field} \
             ({message}){more}"
        )
    };
    let warnings = |v: &Value| v["meta"]["warnings"].clone();

    // Three invalid fields: named the first, counted the rest; by CSS, by ref, by XPath.
    let snap = on(&env, &t, &["snapshot"]);
    let place = ref_of(&snap, "button", "Place order");
    let qty = stopped(
        "input[name=qty]",
        &message("[name=qty]"),
        " and 2 more invalid fields",
    );
    for (n, target) in [
        "button[type=submit]",
        place.as_str(),
        "//button[text()='Place order']",
    ]
    .into_iter()
    .enumerate()
    {
        let v = on(&env, &t, &["click", target]);
        assert_eq!(v["ok"], true, "{target}: {v}");
        assert_eq!(warnings(&v), json!([qty]), "{target}: {v}");
        assert_eq!(v["data"]["changed"]["url_changed"], false, "{target}: {v}");
        assert_eq!(
            eval(
                &env,
                &t,
                "[window.submits, window.invalids, document.activeElement.name]"
            ),
            json!([0, 3 * (n + 1), "qty"]),
            "{target}"
        );
    }
    // A form inside a shadow root.
    let v = on(
        &env,
        &t,
        &["click", &ref_of(&snap, "button", "Shadow order")],
    );
    let inner = message("#host').shadowRoot.querySelector('[name=inner]");
    let inner = stopped("input[name=inner]", &inner, "");
    assert_eq!(warnings(&v), json!([inner]), "{v}");
    // One invalid field fixed: the next one is named (by its id), one more counted.
    assert_eq!(on(&env, &t, &["fill", "[name=qty]", "3"])["ok"], true);
    let v = on(&env, &t, &["click", "button[type=submit]"]);
    let email = stopped(
        "input#email",
        &message("#email"),
        " and 1 more invalid field",
    );
    assert_eq!(warnings(&v), json!([email]), "{v}");

    // Not the browser's validation stopping a submission: a click into an invalid field, a
    // checkbox whose change handler validates the form, a submit button whose click handler
    // cancels and validates itself.
    for target in ["[name=note]", "#agree", "#custom"] {
        let was = eval(&env, &t, "window.invalids");
        let v = on(&env, &t, &["click", target]);
        assert_eq!(v["ok"], true, "{target}: {v}");
        assert_eq!(warnings(&v), json!([]), "{target}: {v}");
        if target != "[name=note]" {
            // The page did validate.
            assert_ne!(eval(&env, &t, "window.invalids"), was, "{target}");
        }
    }

    // Enter in the bad field (its implicit submission), and a newline typed.
    assert_eq!(on(&env, &t, &["fill", "[name=qty]", "9"])["ok"], true);
    assert_eq!(on(&env, &t, &["focus", "[name=qty]"])["ok"], true);
    let v = on(&env, &t, &["press", "Enter"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(warnings(&v), json!([qty]), "{v}");
    // A form without a submit button, whose one field Enter submits.
    assert_eq!(on(&env, &t, &["focus", "[name=solo]"])["ok"], true);
    let v = on(&env, &t, &["press", "Enter"]);
    let solo = stopped("input[name=solo]", &message("[name=solo]"), "");
    assert_eq!(warnings(&v), json!([solo]), "{v}");
    assert_eq!(on(&env, &t, &["fill", "[name=qty]", "3"])["ok"], true);
    assert_eq!(on(&env, &t, &["fill", "#email", "a@b.c"])["ok"], true);
    let v = on(&env, &t, &["type", "[name=note]", "\n"]);
    assert_eq!(v["ok"], true, "{v}");
    let note = stopped("input[name=note]", &message("[name=note]"), "");
    assert!(
        v["meta"]["warnings"]
            .as_array()
            .is_some_and(|w| w.contains(&json!(note))),
        "{note:?} in {v}"
    );
    assert_eq!(eval(&env, &t, "window.submits"), 0);

    // Valid now: submitted, no warning.
    assert_eq!(on(&env, &t, &["fill", "[name=note]", "x"])["ok"], true);
    let v = on(&env, &t, &["click", "button[type=submit]"]);
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    assert_eq!(warnings(&v), json!([]), "{v}");

    // Not validated (`novalidate`, `formnovalidate`): submitted as they are.
    for target in ["#loose", "#skip"] {
        on(&env, &t, &["goto", &f.url("/order.html")]);
        let v = on(&env, &t, &["click", target]);
        assert_eq!(v["context"]["title"], "Page Two", "{target}: {v}");
        assert_eq!(warnings(&v), json!([]), "{target}: {v}");
    }
    // Kept by the page's own submit handler: its choice, no warning.
    on(&env, &t, &["goto", &f.url("/order.html")]);
    let v = on(&env, &t, &["click", "#kept"]);
    assert_eq!(warnings(&v), json!([]), "{v}");
    assert_eq!(
        eval(&env, &t, "[window.kept, window.submits, window.invalids]"),
        json!([1, 1, 0])
    );
}

/// Elements inside a closed shadow root (reached by their refs) are acted on as any other: the
/// hit test looks through the roots holding the element (the page's `elementFromPoint` stops at
/// their host), the input is seen where it arrives (events are retargeted to the host outside),
/// and a link in there is still a link whose navigation the click waits for. They were "covered
/// by div#host" (a click timed out), and fill, type and press reported the input lost though
/// the field took it.
#[test]
fn elements_inside_a_closed_shadow_root_are_acted_on_as_any_other() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/closed.html",
        r#"<!doctype html><title>Closed</title><div id="host"></div>
<script>
  const root = document.getElementById('host').attachShadow({ mode: 'closed' });
  root.innerHTML = '<label>Inner <input id="i"></label>'
    + '<button onclick="document.title = \'Pressed \' + this.getRootNode().getElementById(\'i\').value">Inner button</button>'
    + '<input type="checkbox" aria-label="Inner box" onchange="document.title = \'Box \' + this.checked">'
    + '<a href="/page2.html" style="display:inline-block;padding:4px">Inner link</a>';
</script>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/closed.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for _ in 0..2 {
        on(&env, &t, &["goto", &f.url("/closed.html")]);
        let snap = on(&env, &t, &["snapshot"]);
        let field = ref_of(&snap, "textbox", "Inner");
        let button = ref_of(&snap, "button", "Inner button");
        let boxed = ref_of(&snap, "checkbox", "Inner box");
        let link = ref_of(&snap, "link", "Inner link");
        let timeout = ["--timeout", "5000"];
        for args in [
            vec!["fill", field.as_str(), "abc"],
            vec!["type", field.as_str(), "de"],
            vec!["press", "x"],
            vec!["hover", button.as_str()],
        ] {
            let v = on(&env, &t, &[&args[..], &timeout].concat());
            assert_eq!(v["ok"], true, "{args:?}: {v}");
        }
        let v = on(&env, &t, &["click", &button, "--timeout", "5000"]);
        assert_eq!(v["context"]["title"], "Pressed abcdex", "{v}");
        let v = on(&env, &t, &["click", &boxed, "--timeout", "5000"]);
        assert_eq!(v["context"]["title"], "Box true", "{v}");
        let v = on(&env, &t, &["click", &link, "--timeout", "5000"]);
        assert_eq!(
            (
                v["context"]["title"].as_str(),
                v["data"]["changed"]["url_changed"].as_bool()
            ),
            (Some("Page Two"), Some(true)),
            "{v}"
        );
    }
}

/// A click whose navigation commits late reports the page it led to, loaded: the engine waits for
/// the commit, then for the new page's load. (It read the old page's load state, complete
/// already, while the commit lagged; the URL and title it read next reached the new document
/// just after its commit, before its load: under load, the title was often still empty.) A
/// navigation that never commits (a 204, a `mailto:` or `javascript:` link) does not hold the
/// answer up.
#[test]
fn a_click_whose_navigation_commits_late_reports_the_page_it_led_to() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    // Slow to answer, and its load (which sets the title) waits for a slow image.
    f.route(
        "/slow-next.html",
        "text/html; charset=utf-8",
        r#"<!doctype html><title>Next</title><img src="/slow.gif">
<script>window.onload = () => { document.title = 'Next loaded'; };</script>"#,
        Duration::from_millis(300),
    );
    f.route("/slow.gif", "image/gif", "", Duration::from_millis(600));
    f.route_with("/nothing", "204 No Content", &[], "text/plain", "");
    f.html(
        "/late.html",
        r#"<!doctype html><title>Late</title>
<form id="go" action="/slow-next.html"><input name="q" value="1"></form>
<a id="link" href="/slow-next.html">link</a>
<button id="submit-call" type="button" onclick="busy(); document.forms.go.submit()">submit()</button>
<button id="request-call" type="button" onclick="busy(); document.forms.go.requestSubmit()">requestSubmit()</button>
<a id="nothing" href="/nothing">204</a>
<a id="mail" href="mailto:someone@example.com">mail</a>
<script>
  // A task queued before the form's navigation task that keeps the page busy: the navigation is
  // announced at once, and starts long after.
  function busy() {
    const c = new MessageChannel();
    c.port1.onmessage = () => { const t = Date.now(); while (Date.now() - t < 400) {} };
    c.port2.postMessage(0);
  }
</script>
<a id="js" href="javascript:void(document.title = 'Scripted')">js</a>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/late.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for id in ["#link", "#submit-call", "#request-call"] {
        on(&env, &t, &["goto", &f.url("/late.html")]);
        let v = on(&env, &t, &["click", id]);
        assert_eq!(v["ok"], true, "{id}: {v}");
        assert_eq!(v["context"]["title"], "Next loaded", "{id}: {v}");
        assert_eq!(v["data"]["changed"]["url_changed"], true, "{id}: {v}");
    }
    on(&env, &t, &["goto", &f.url("/late.html")]);
    for (id, title) in [("#nothing", "Late"), ("#mail", "Late"), ("#js", "Scripted")] {
        let started = Instant::now();
        let v = on(&env, &t, &["click", id]);
        assert_eq!(v["ok"], true, "{id}: {v}");
        assert_eq!(v["data"]["changed"]["url_changed"], false, "{id}: {v}");
        eventually("the page to show the click's doing", || {
            on(&env, &t, &["title"])["data"]["value"] == title
        });
        // Not held up to the command's timeout (30 s) by a commit that never comes.
        assert!(started.elapsed() < Duration::from_secs(15), "{id}: {v}");
    }
}

/// A click in a tab that is not the frontmost one (a later new-tab hid it) lands like any other:
/// Chromium does not acknowledge input sent to a hidden page.
#[test]
fn click_in_a_background_tab() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    env.run(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ])
    .ok();
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    assert_eq!(eval(&env, &t1, "document.visibilityState"), "hidden");
    let v = env.json(
        &[
            &["browser", "click", "#submit", "--timeout", "10000"][..],
            &t1,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "clicked", "the handler ran: {v}");
    // And back in the other tab, which is now the hidden one.
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    let v = env.json(
        &[
            &["browser", "click", "#back", "--timeout", "10000"][..],
            &t2,
        ]
        .concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["context"]["title"], "Fixture Home",
        "the link navigated: {v}"
    );
}

/// Pages a tab opens itself (a `target=_blank` link, `window.open`) become tabs of the session:
/// listed by list-tabs and addressable, even before anything listed them.
#[test]
fn pages_a_tab_opens_become_tabs() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/opener.html",
        r#"<!doctype html><title>Opener</title>
<a id="blank" target="_blank" href="/page2.html">new tab</a>
<button id="open" onclick="window.open('/index.html')">open</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/opener.html")]);
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t1, &["click", "#blank"]);
    assert_eq!(v["ok"], true, "{v}");
    eventually("the target=_blank tab", || {
        let v = env.json(&["browser", "list-tabs", "--session", &sid]);
        v["data"]["total_tabs"] == 2 && v["data"]["tabs"][1]["title"] == "Page Two"
    });
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["total_tabs"], 2, "{v}");
    assert_eq!(v["data"]["tabs"][1]["tab_id"], "t2", "{v}");
    assert_eq!(v["data"]["tabs"][1]["title"], "Page Two", "{v}");
    // Addressed directly, without a list-tabs first.
    let v = on(&env, &t1, &["click", "#open"]);
    assert_eq!(v["ok"], true, "{v}");
    let t3 = ["--session", sid.as_str(), "--tab", "t3"];
    eventually("the window.open tab", || {
        on(&env, &t3, &["title"])["data"]["value"] == "Fixture Home"
    });
    let v = on(&env, &t3, &["title"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    let v = on(&env, &t3, &["click", "#submit"]);
    assert_eq!(v["context"]["title"], "clicked", "{v}");
    let v = on(&env, &t1, &["title"]);
    assert_eq!(v["data"]["value"], "Opener", "{v}");
    let v = env.json(&["browser", "close-tab", "--session", &sid, "--tab", "t2"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["total_tabs"], 2, "t1 and t3 stay: {v}");
}

/// An action that opens a tab (a `target=_blank` link, `window.open`) names it in its answer
/// (`data.new_tab_id`, text `new_tab_id: tN`), recorded at once: `--tab tN` takes it right after.
/// (The answer did not name it: the user could not know which tab to address.)
#[test]
fn an_action_that_opens_a_tab_names_it() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/opener.html",
        r#"<!doctype html><title>Opener</title><style>button, a { display: block; margin: 10px }</style>
<a id="blank" target="_blank" href="/page2.html">new tab</a>
<button id="open" onclick="window.open('/index.html')">open</button>
<button id="two" onclick="window.open('/page2.html'); window.open('/index.html')">two</button>
<button id="stay" onclick="document.title = 'stayed'">stay</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/opener.html")]);
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    let tab = |id: &str| -> Vec<String> {
        ["--session", sid.as_str(), "--tab", id]
            .map(str::to_string)
            .to_vec()
    };
    let addressed = |id: &str, title: &str| {
        let t = tab(id);
        let t: Vec<&str> = t.iter().map(String::as_str).collect();
        // Known at once (no list-tabs first); its page may still be loading.
        let v = on(&env, &t, &["url"]);
        assert_eq!(v["ok"], true, "{id}: {v}");
        eventually(&format!("{id} titled {title}"), || {
            on(&env, &t, &["title"])["data"]["value"] == title
        });
    };

    let v = on(&env, &t1, &["click", "#blank"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["new_tab_id"], "t2", "{v}");
    assert_eq!(v["context"]["tab_id"], "t1", "{v}");
    addressed("t2", "Page Two");
    // The careful path (a point) names it too.
    let at = eval(
        &env,
        &t1,
        "(() => { const r = document.getElementById('open').getBoundingClientRect(); return Math.round(r.left + 5) + ',' + Math.round(r.top + 5); })()",
    );
    let v = on(&env, &t1, &["click", at.as_str().unwrap_or_default()]);
    assert_eq!(v["data"]["new_tab_id"], "t3", "{v}");
    addressed("t3", "Fixture Home");
    // Text mode.
    let r = env
        .run(&[&["browser", "click", "#blank"][..], &t1].concat())
        .ok();
    assert!(
        r.stdout
            .ends_with("ok browser click\ntarget: #blank\nnew_tab_id: t4\n"),
        "{r:?}"
    );
    // Enter on the link opens one as well.
    assert_eq!(on(&env, &t1, &["focus", "#blank"])["ok"], true);
    let v = on(&env, &t1, &["press", "Enter"]);
    assert_eq!(v["data"]["new_tab_id"], "t5", "{v}");
    // A second window.open in the same click is blocked (one popup per user activation): the
    // one that opened is named, nothing else said.
    let v = on(&env, &t1, &["click", "#two"]);
    assert_eq!(v["data"]["new_tab_id"], "t6", "{v}");
    assert_eq!(v["meta"]["warnings"], serde_json::json!([]), "{v}");
    addressed("t6", "Page Two");
    // A click that opens nothing names nothing.
    let v = on(&env, &t1, &["click", "#stay"]);
    assert_eq!(v["context"]["title"], "stayed", "{v}");
    assert!(v["data"].get("new_tab_id").is_none(), "{v}");
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(v["data"]["total_tabs"], 6, "{v}");

    // From an out-of-process iframe (it asks for the window on its own session): named too, by
    // a click and by Enter.
    f.html(
        "/oop-opener.html",
        r#"<!doctype html><title>Framed opener</title><style>button, a { display: block; margin: 10px }</style>
<a id="fblank" target="_blank" href="/page2.html">new tab</a>
<button id="fopen" onclick="window.open('/index.html')">open</button>"#,
    );
    f.html(
        "/oop-host.html",
        &format!(
            r#"<!doctype html><title>Host</title><iframe id="f" src="{}" style="width:300px;height:150px"></iframe>"#,
            f.cross_site_url("/oop-opener.html")
        ),
    );
    assert_eq!(
        on(&env, &t1, &["goto", &f.url("/oop-host.html")])["ok"],
        true
    );
    let v = on(
        &env,
        &t1,
        &["wait", "element", "#fblank", "--timeout", "10000"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&env, &t1, &["click", "#fblank"]);
    assert_eq!(v["data"]["new_tab_id"], "t7", "{v}");
    addressed("t7", "Page Two");
    let v = on(&env, &t1, &["click", "#fopen"]);
    assert_eq!(v["data"]["new_tab_id"], "t8", "{v}");
    addressed("t8", "Fixture Home");
    assert_eq!(on(&env, &t1, &["focus", "#fblank"])["ok"], true);
    let v = on(&env, &t1, &["press", "Enter"]);
    assert_eq!(v["data"]["new_tab_id"], "t9", "{v}");
}

/// A page's JavaScript dialogs never block its tab: alerts are accepted, confirms and prompts
/// dismissed, and the command that saw one reports it in a warning.
#[test]
fn dialogs_are_answered_and_reported() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/dialogs.html",
        r#"<!doctype html><title>Dialogs</title>
<button id="alert" onclick="alert('hello'); document.title = 'after alert'">alert</button>
<button id="confirm" onclick="document.title = 'confirm ' + confirm('sure?')">confirm</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/dialogs.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["click", "#alert", "--timeout", "10000"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "after alert", "{v}");
    assert_warned(&v, "alert dialog \"hello\" accepted");
    let v = on(&env, &t, &["click", "#confirm", "--timeout", "10000"]);
    assert_eq!(v["context"]["title"], "confirm false", "{v}");
    assert_warned(&v, "confirm dialog \"sure?\" dismissed");
    let v = on(&env, &t, &["eval", "prompt('name?')", "--timeout", "10000"]);
    assert_eq!(v["data"]["value"], Value::Null, "{v}");
    assert_warned(&v, "prompt dialog \"name?\" dismissed");
    // One the page opens between commands does not block the next one.
    // (The next command reports it once the timer has fired: polled, a loaded machine's timer
    // may fire late.)
    eval(&env, &t, "setTimeout(() => alert('later'), 50); 1");
    let mut v = Value::Null;
    eventually("the later alert reported", || {
        v = on(&env, &t, &["title", "--timeout", "10000"]);
        assert_eq!(v["data"]["value"], "confirm false", "{v}");
        v["meta"]["warnings"].to_string().contains("later")
    });
    assert_warned(&v, "alert dialog \"later\" accepted");
}

/// `browser dialog` says how the tab answers the dialogs that ask: the next one, or every one
/// (kept across a daemon restart) until `default`; alerts, which ask nothing, leave a one-time
/// answer for the dialog that does (there was no way to answer OK: a confirm was always false).
#[test]
fn dialog_answers_the_next_or_every_dialog_as_told() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/ask.html",
        r#"<!doctype html><title>Ask</title>
<button id="confirm" onclick="document.title = 'confirm ' + confirm('sure?')">confirm</button>
<button id="both" onclick="alert('note'); document.title = 'both ' + confirm('really?')">both</button>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/ask.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["dialog", "accept"]);
    assert_eq!(
        v["data"],
        json!({"answer": "accept", "applies_to": "next"}),
        "{v}"
    );
    let v = on(&env, &t, &["click", "#confirm"]);
    assert_eq!(v["context"]["title"], "confirm true", "{v}");
    assert_warned(
        &v,
        "confirm dialog \"sure?\" accepted, as `browser dialog` said",
    );
    // Used up: the default again, which says how to agree.
    let v = on(&env, &t, &["click", "#confirm"]);
    assert_eq!(v["context"]["title"], "confirm false", "{v}");
    assert_warned(&v, "dismissed (`browser dialog accept` before the command");
    // An alert first leaves the answer for the confirm after it.
    on(&env, &t, &["dialog", "accept"]);
    let v = on(&env, &t, &["click", "#both"]);
    assert_eq!(v["context"]["title"], "both true", "{v}");

    // Every prompt, with a text, across a daemon restart.
    let v = on(&env, &t, &["dialog", "accept", "--text", "Ada", "--always"]);
    assert_eq!(
        v["data"],
        json!({"answer": "accept", "text": "Ada", "applies_to": "every"}),
        "{v}"
    );
    assert_eq!(eval(&env, &t, "prompt('name?')"), "Ada");
    env.kill_daemon();
    let v = on(&env, &t, &["eval", "prompt('again?')"]);
    assert_eq!(v["data"]["value"], "Ada", "{v}");
    assert_warned(
        &v,
        "prompt dialog \"again?\" accepted with \"Ada\", as `browser dialog` said",
    );
    let v = on(&env, &t, &["dialog", "default"]);
    assert_eq!(v["data"]["applies_to"], "every", "{v}");
    assert_eq!(eval(&env, &t, "prompt('name?')"), Value::Null);

    // A command that fails still tells the dialog it met (it was not kept for the next one).
    let v = on(
        &env,
        &t,
        &["eval", "confirm('go on?'); throw new Error('boom')"],
    );
    assert_eq!(v["error"]["code"], "EVAL_FAILED", "{v}");
    assert_warned(&v, "confirm dialog \"go on?\" dismissed");
    let v = on(&env, &t, &["title"]);
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");

    // What makes no sense is said, and changes nothing.
    let v = on(&env, &t, &["dialog", "default", "--always"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = on(&env, &t, &["dialog", "dismiss", "--text", "x"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let r = env.run(&[
        "browser",
        "dialog",
        "maybe",
        "--session",
        sid.as_str(),
        "--tab",
        "t1",
    ]);
    assert_ne!(r.code, 0, "{r:?}");
}

/// Asserts one of the answer's warnings contains `text`.
#[track_caller]
fn assert_warned(v: &Value, text: &str) {
    assert!(
        v["meta"]["warnings"].as_array().is_some_and(|w| w
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.contains(text)))),
        "warning {text:?} in {v}"
    );
}

/// A page whose listeners cannot send their report (here the page breaks `JSON.stringify` while
/// a press is on) still gets clicks that are confirmed (the engine asks the listeners after the
/// input), by CSS selector and by ref, each delivered once.
#[test]
fn a_click_is_confirmed_when_the_listeners_cannot_report() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/no-binding.html",
        "<!doctype html><title>no binding</title>\
         <button id=b onclick=\"window.clicks = (window.clicks || 0) + 1\">Go</button>\
         <script>const keep = JSON.stringify; addEventListener('mousedown', () => { \
           JSON.stringify = () => { throw new Error('no reports here'); }; \
           setTimeout(() => { JSON.stringify = keep; }, 2000); }, true);</script>",
    );
    let sid = env.start(&["--open-url", &f.url("/no-binding.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = crate::support::on(&env, &t, &["click", "#b"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(crate::support::value(&env, &t, "window.clicks"), 1);
    let snap = crate::support::on(&env, &t, &["snapshot"]);
    let r = ref_of(&snap, "button", "Go");
    let v = crate::support::on(&env, &t, &["click", &r]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(crate::support::value(&env, &t, "window.clicks"), 2);
}

#[test]
fn timeouts_out_of_range_are_refused_and_the_longest_one_works() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // More than a page's timer takes is refused before anything runs (the largest panicked a
    // daemon task; past 2^31 - 1 ms, fill answered a failure after the text landed).
    for bad in ["2147483648", "18446744073709551615"] {
        let v = on(&env, &t, &["fill", "#name", "X", "--timeout", bad]);
        assert_error(&v, "INVALID_ARGUMENT", "--timeout");
    }
    assert_eq!(eval(&env, &t, "document.querySelector('#name').value"), "");
    // The longest works: the text lands and the answer says so.
    let v = on(
        &env,
        &t,
        &["fill", "#name", "Ada", "--timeout", "2147483647"],
    );
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&env, &t, &["type", "#name", "!", "--timeout", "2147483647"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        eval(&env, &t, "document.querySelector('#name').value"),
        "Ada!"
    );
    // A command whose browser calls run out of its time is the command timing out, not a CDP
    // call's message (`cdp: Page.bringToFront: no response after 1ms`).
    let v = on(&env, &t, &["click", "#submit", "--timeout", "1"]);
    assert_error(&v, "TIMEOUT", "browser click timed out after 1ms");
}

/// A page that stops every pointer and mouse event in its own capture listener on the window,
/// registered at load (before any listener of the engine's), recording each with its target.
const STOPS_POINTER: &str = r#"<!doctype html><html><head><title>Stops</title>
<style>body { margin: 0; height: 3000px }
  #b, #h, #c, #cover, #trap, #far { position: absolute; left: 0; width: 120px; height: 40px }
  #b { top: 0 } #h { top: 60px } #c, #cover { top: 120px } #cover { background: #888 }
  #trap { top: 180px } #far { top: 2500px }
  #h:hover { outline: 2px solid red }</style></head><body>
<button id="b">Go</button><button id="h">Hover</button>
<button id="c">Covered</button><div id="cover">Cover</div>
<button id="trap">Trap</button><button id="far">Far</button>
<script>
  window.got = [];
  const kinds = ['pointermove', 'mousemove', 'pointerover', 'mouseover', 'pointerout', 'mouseout',
    'pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu'];
  for (const t of kinds) window.addEventListener(t, (e) => {
    const id = e.target.id || e.target.localName;
    if (!/move$/.test(t)) {
      got.push(t + ':' + id);
      if (parent !== window) parent.postMessage(t + ':' + id, '*');
    }
    // The trap: a lid laid over it as the pointer arrives, before the press.
    if (id === 'trap' && !document.getElementById('lid')) {
      const lid = document.createElement('div');
      lid.id = 'lid';
      lid.textContent = 'Lid';
      lid.style.cssText = 'position: absolute; left: 0; top: 180px; width: 120px; height: 40px; background: #444';
      document.body.append(lid);
    }
    e.stopImmediatePropagation();
  }, true);
</script></body></html>"#;

/// A press the page received is done even when the page stops every pointer event before anyone
/// else sees it (its own capture listener on the window, registered first): click by CSS, by ref,
/// double, by XPath and at coordinates (the careful path), and hover, are ok and the page got
/// each press once. An element covered at the point is still refused, naming what covers it,
/// and so is one a cover is laid over as the pointer arrives (the press went to the cover).
#[test]
fn pointer_events_a_page_stops_first_arrived() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/stops.html", STOPS_POINTER);
    let sid = env.start(&["--open-url", &f.url("/stops.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let clicks = |id: &str| {
        let code = format!("got.filter(e => e === 'click:{id}').length");
        crate::support::value(&env, &t, &code)
    };
    let presses = |id: &str| {
        let code =
            format!("got.filter(e => e === 'pointerdown:{id}' || e === 'mousedown:{id}').length");
        crate::support::value(&env, &t, &code)
    };
    let timeout = ["--timeout", "4000"];
    // The quick path: by CSS, by ref, a double click.
    let v = on(&env, &t, &[&["click", "#b"][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["warnings"], Value::Null, "{v}");
    assert_eq!((clicks("b"), presses("b")), (1.into(), 2.into()));
    let snap = crate::support::on(&env, &t, &["snapshot"]);
    let r = ref_of(&snap, "button", "Go");
    let v = on(&env, &t, &[&["click", r.as_str()][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(clicks("b"), 2);
    let v = on(
        &env,
        &t,
        &[&["click", "#b", "--count", "2"][..], &timeout].concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(clicks("b"), 4);
    assert_eq!(
        crate::support::value(&env, &t, "got.filter(e => e === 'dblclick:b').length"),
        1
    );
    // The careful path: by XPath, at coordinates, scrolled into view.
    let v = on(
        &env,
        &t,
        &[&["click", "//button[@id='b']"][..], &timeout].concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(clicks("b"), 5);
    let v = on(&env, &t, &[&["click", "20,20"][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(clicks("b"), 6);
    let v = on(&env, &t, &[&["click", "#far"][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(clicks("far"), 1);
    crate::support::value(&env, &t, "scrollTo(0, 0); 1");
    // Hover: the page saw the pointer come over the element, which is hovered.
    let v = on(&env, &t, &[&["hover", "#h"][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        crate::support::value(
            &env,
            &t,
            "got.includes('pointerover:h') && document.querySelector('#h').matches(':hover')"
        ),
        true
    );
    // A drag: pressed on the source, released on the destination.
    let n = crate::support::value(&env, &t, "got.length");
    let v = on(&env, &t, &[&["drag", "#h", "#b"][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    let code = format!("got.slice({n}).filter(e => /^pointer(down|up)/.test(e)).join()");
    assert_eq!(
        crate::support::value(&env, &t, &code),
        "pointerdown:h,pointerup:b"
    );
    // Covered: refused, naming the cover; nothing pressed there.
    let v = on(&env, &t, &["click", "#c", "--timeout", "1500"]);
    crate::support::assert_failure(&v, "TIMEOUT", "#c is covered by div#cover 'Cover'");
    // A lid laid over the element as the pointer arrives takes the press: not done, the lid is
    // named, and the element never got a press.
    let v = on(&env, &t, &["click", "#trap", "--timeout", "1500"]);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["details"]["by"], "div#lid 'Lid'", "{v}");
    assert_eq!((clicks("trap"), presses("trap")), (0.into(), 0.into()));
    assert_eq!(presses("c"), 0);

    // The same page in an out-of-process frame (the careful path): click and hover by ref.
    f.html(
        "/oop-stops.html",
        &format!(
            r#"<!doctype html><title>Outer</title>
<script>window.remote = []; addEventListener('message', (e) => remote.push(e.data));</script>
<iframe src="{}" style="width: 400px; height: 300px; border: 0"></iframe>"#,
            f.cross_site_url("/stops.html")
        ),
    );
    let v = on(&env, &t, &["goto", &f.url("/oop-stops.html")]);
    assert_eq!(v["ok"], true, "{v}");
    let snap = crate::support::on(&env, &t, &["snapshot"]);
    let go = ref_of(&snap, "button", "Go");
    let hover = ref_of(&snap, "button", "Hover");
    let v = on(&env, &t, &[&["click", go.as_str()][..], &timeout].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = on(
        &env,
        &t,
        &[&["hover", hover.as_str()][..], &timeout].concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    let code = "remote.filter(e => /^(click|pointerdown|pointerover):/.test(e)).join()";
    assert_eq!(
        crate::support::value(&env, &t, code),
        "pointerover:b,pointerdown:b,click:b,pointerover:h"
    );
}
