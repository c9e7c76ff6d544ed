//! What a snapshot (and `state`, `box`) says about an element matches what Chromium lets a user
//! do with it: links inside inline SVG and controls in canvas fallback content are listed, content
//! behind a modal dialog is not offered as usable, and what a closed `<details>` holds is not
//! visible.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture, on, ref_of, value};

/// A snapshot's envelope and its text (read from the file it was saved to).
fn snapshot(env: &Env, t: &[&str]) -> (Value, String) {
    let v = on(env, t, &["snapshot"]);
    assert_eq!(v["ok"], true, "{v}");
    let path = v["data"]["path"]
        .as_str()
        .expect("snapshot path")
        .to_string();
    let text = std::fs::read_to_string(&path).expect("snapshot file");
    (v, text)
}

/// The snapshot line of the node with this role and name.
fn line<'a>(text: &'a str, role: &str, name: &str) -> &'a str {
    let head = format!("- {role} \"{name}\"");
    text.lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no {head} in\n{text}"))
}

#[test]
fn snapshot_lists_svg_links_and_canvas_fallback_controls() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/drawn.html",
        r#"<!doctype html><title>drawn</title><body>
<svg width="200" height="60"><a href="/x" onclick="window.svg=(window.svg||0)+1;return false"><text x="10" y="30">Go</text></a></svg>
<canvas width="200" height="50"><button id="cb" onclick="window.pressed=(window.pressed||0)+1">Canvas button</button></canvas>
</body>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/drawn.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let (snap, text) = snapshot(&env, &t);
    // Both are in Chromium's accessibility tree, focusable and operable: both get refs.
    let go = ref_of(&snap, "link", "Go");
    let canvas = ref_of(&snap, "button", "Canvas button");
    assert!(line(&text, "link", "Go").ends_with(&format!("[ref={}]:", &go[1..])));
    // The SVG link is drawn: a click lands on it.
    let v = on(&env, &t, &["click", &go]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "window.svg"), 1);
    // Canvas fallback is never laid out: a click is refused at once (it could wait forever),
    // saying what it is and what works instead.
    let started = Instant::now();
    let v = on(&env, &t, &["click", &canvas, "--timeout", "20000"]);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("fallback content of a <canvas>"), "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("browser focus"),
        "{v}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the refusal waited: {:?}",
        started.elapsed()
    );
    assert_eq!(value(&env, &t, "window.pressed || 0"), 0);
    // The ref works as a keyboard user's way in.
    let v = on(&env, &t, &["focus", &canvas]);
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&env, &t, &["press", "Enter"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "window.pressed"), 1);
}

#[test]
fn content_behind_a_modal_dialog_is_shown_disabled_and_state_says_so() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/modal.html",
        r#"<!doctype html><title>modal</title><body>
<button id="bg">Background</button>
<a id="more" href="/more">More</a>
<div inert><button id="inert">Inert</button></div>
<dialog id="dlg"><p>Sure?</p><button id="ok">OK</button></dialog>
</body>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/modal.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let (_, text) = snapshot(&env, &t);
    assert!(!line(&text, "button", "Background").contains("[disabled]"));
    let state = |sel: &str| {
        let v = on(&env, &t, &["state", sel]);
        assert_eq!(v["ok"], true, "{v}");
        v["data"]["state"].clone()
    };
    assert_eq!(state("#bg")["enabled"], true);
    // Under [inert] no user can reach it, whatever the button's own attributes say.
    assert_eq!(state("#inert")["enabled"], false);

    value(&env, &t, "document.getElementById('dlg').showModal(), 1");
    let (snap, text) = snapshot(&env, &t);
    // The page behind stays in view (it is what the dialog is about) but marked unusable, as
    // disabled controls are; the dialog's own controls are not.
    assert!(
        line(&text, "button", "Background").contains("[disabled]"),
        "{text}"
    );
    assert!(line(&text, "link", "More").contains("[disabled]"), "{text}");
    assert!(
        !line(&text, "button", "OK").contains("[disabled]"),
        "{text}"
    );
    // The refs stay: an agent can still name them (a click then says what covers them).
    ref_of(&snap, "button", "Background");
    let s = state("#bg");
    assert_eq!(s["enabled"], false, "{s}");
    assert_eq!(s["visible"], true, "{s}");
    assert_eq!(state("#more")["enabled"], false);
    assert_eq!(state("#ok")["enabled"], true);

    // Closed again, the page is usable again.
    value(&env, &t, "document.getElementById('dlg').close(), 1");
    let (_, text) = snapshot(&env, &t);
    assert!(!line(&text, "button", "Background").contains("[disabled]"));
    assert_eq!(state("#bg")["enabled"], true);
}

#[test]
fn closed_details_content_is_not_visible_and_has_no_box() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html(
        "/details.html",
        r#"<!doctype html><title>details</title><body>
<details id="d"><summary>More</summary><button id="hid">Hidden inside</button></details>
<div style="content-visibility: hidden"><button id="cv">Skipped</button></div>
</body>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/details.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // A forced layout gives the skipped content boxes (Chromium skips painting it, not laying it
    // out on demand); nothing of it is shown all the same.
    value(
        &env,
        &t,
        "document.getElementById('hid').getBoundingClientRect().height + \
         document.getElementById('cv').getBoundingClientRect().height > 0",
    );
    for sel in ["#hid", "#cv"] {
        let v = on(&env, &t, &["state", sel]);
        assert_eq!(v["data"]["state"]["visible"], false, "{sel}: {v}");
        let v = on(&env, &t, &["box", sel]);
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["data"]["value"]["width"], 0.0, "{sel}: {v}");
        assert_eq!(v["data"]["value"]["height"], 0.0, "{sel}: {v}");
    }
    let v = on(&env, &t, &["query", "count", "button:visible"]);
    assert_eq!(v["data"]["count"], 0, "{v}");
    let (_, text) = snapshot(&env, &t);
    assert!(!text.contains("Hidden inside"), "{text}");
    assert!(!text.contains("Skipped"), "{text}");
    line(&text, "button", "More");

    // Opened, it is there.
    value(&env, &t, "document.getElementById('d').open = true, 1");
    let (snap, _) = snapshot(&env, &t);
    ref_of(&snap, "button", "Hidden inside");
    let v = on(&env, &t, &["state", "#hid"]);
    assert_eq!(v["data"]["state"]["visible"], true, "{v}");
    let v = on(&env, &t, &["box", "#hid"]);
    assert!(
        v["data"]["value"]["height"].as_f64().unwrap_or(0.0) > 0.0,
        "{v}"
    );
}
