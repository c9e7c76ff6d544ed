//! Pointer actions: click (by ref, CSS, XPath and coordinates; in a same-origin iframe, a nested
//! one and an OOPIF), auto-wait and the checks that name what they saw, buttons and counts,
//! `--new-tab`, hover, mouse-move and cursor-position, drag.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, assert_failure, on, ref_of, site, text, value, value_until};

const SAME: &str = "document.querySelector('#same').contentDocument";

#[test]
fn click_by_ref_css_xpath_and_point_in_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/nested.html",
        r#"<!doctype html><html><head><title>Nested</title></head><body>
<input id="nested-input" aria-label="Nested input">
<button id="nested-btn" onclick="window.hits = (window.hits || 0) + 1">Nested button</button></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/frames.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let nested = format!("{SAME}.querySelector('#nested').contentWindow");
    let ready = format!(
        "!!{SAME} && {SAME}.readyState === 'complete' && {nested}.document.readyState === 'complete'"
    );
    assert_eq!(value_until(&env, &t, &ready, &json!(true)), true);

    // The OOPIF's button, by CSS (the click waits for it to be there).
    let r = text(&env, &t, &["click", "#oop-btn"]).ok();
    assert_eq!(
        r.stdout,
        format!(
            "[{sid} t1] {}\nok browser click\ntarget: #oop-btn\n",
            f.url("/frames.html")
        )
    );
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &json!("remote-clicked")),
        "remote-clicked"
    );
    value(&env, &t, "window.lastMessage = null; 1");

    // By ref, in the same-origin iframe and the nested one.
    let snap = on(&env, &t, &["snapshot"]);
    let same_btn = ref_of(&snap, "button", "Same button");
    let nested_btn = ref_of(&snap, "button", "Nested button");
    let remote_btn = ref_of(&snap, "button", "Remote button");
    let v = on(&env, &t, &["click", &same_btn]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["command"], "browser click");
    assert_eq!(v["data"]["action"], "click");
    assert_eq!(v["data"]["target"], json!({ "selector": same_btn }));
    assert_eq!(
        v["data"]["changed"],
        json!({ "url_changed": false, "focus_changed": true })
    );
    assert_eq!(value(&env, &t, &format!("{SAME}.defaultView.clicked")), 1);
    assert_eq!(on(&env, &t, &["click", &nested_btn])["ok"], true);
    assert_eq!(value(&env, &t, &format!("{nested}.hits")), 1);
    assert_eq!(on(&env, &t, &["click", &remote_btn])["ok"], true);
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &json!("remote-clicked")),
        "remote-clicked"
    );
    // By XPath (found in whichever frame has it).
    assert_eq!(
        on(&env, &t, &["click", "//button[@id='nested-btn']"])["ok"],
        true
    );
    assert_eq!(value(&env, &t, &format!("{nested}.hits")), 2);

    // By coordinates: the point of the nested button and of the OOPIF's, in page coordinates.
    let point = |code: &str| -> String {
        let v = value(&env, &t, code);
        format!("{},{}", v[0], v[1])
    };
    let nested_at = point(&format!(
        "(() => {{ const f = document.querySelector('#same').getBoundingClientRect(); \
         const g = {SAME}.querySelector('#nested').getBoundingClientRect(); \
         const b = {nested}.document.querySelector('#nested-btn').getBoundingClientRect(); \
         return [Math.round(f.left + g.left + b.left + b.width / 2 + 4), Math.round(f.top + g.top + b.top + b.height / 2 + 4)]; }})()"
    ));
    let v = on(&env, &t, &["click", &nested_at]);
    assert_eq!(
        v["data"]["target"],
        json!({ "coordinates": nested_at }),
        "{v}"
    );
    assert_eq!(value(&env, &t, &format!("{nested}.hits")), 3);
    // Inside the OOPIF: its content starts at the iframe's content box (border 2px by default);
    // the button is the first thing in its body (margin 8px).
    let remote_at = point(&format!(
        "(() => {{ const f = document.querySelector('#same').getBoundingClientRect(); \
         const o = {SAME}.querySelector('#oop').getBoundingClientRect(); \
         return [Math.round(f.left + o.left + 2 + 8 + 10), Math.round(f.top + o.top + 2 + 8 + 5)]; }})()"
    ));
    value(&env, &t, "window.lastMessage = null; 1");
    assert_eq!(on(&env, &t, &["click", &remote_at])["ok"], true);
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &json!("remote-clicked")),
        "remote-clicked"
    );
}

/// Pages whose elements are not ready: late, covered, disabled, hidden, moving.
fn waiting_site() -> Fixture {
    let f = site();
    f.html(
        "/waits.html",
        r#"<!doctype html><html><head><title>Waits</title><style>
  body { margin: 0 }
  #shade { position: fixed; left: 0; top: 0; width: 400px; height: 300px; background: rgba(0,0,0,.4) }
  #curtain { position: fixed; left: 0; top: 320px; width: 400px; height: 100px; background: #fff }
  @keyframes slide { from { transform: translateX(0) } to { transform: translateX(300px) } }
  #moving { animation: slide 2s linear infinite; position: absolute; left: 0; top: 450px }
</style></head><body>
<button id="under" style="position: absolute; left: 20px; top: 20px" onclick="window.underClicks = (window.underClicks || 0) + 1">Under</button>
<button id="hidden-forever" style="position: fixed; left: 20px; top: 340px">Behind the curtain</button>
<button id="off" disabled style="position: absolute; left: 500px; top: 20px">Off</button>
<button id="gone" style="display: none">Gone</button>
<button id="moving">Moving</button>
<div id="shade" class="shade" onclick="window.shadeClicks = (window.shadeClicks || 0) + 1">Please wait</div>
<div id="curtain" class="curtain wide">Curtain</div>
<script>
  window.downs = [];
  document.addEventListener('mousedown', e => downs.push(e.target.id), true);
  setTimeout(() => document.getElementById('shade').remove(), 1200);
  setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'Late';
    b.onclick = () => { window.lateClicks = (window.lateClicks || 0) + 1; }; document.body.appendChild(b); }, 800);
</script>
</body></html>"#,
    );
    f
}

#[test]
fn clicks_wait_for_elements_and_name_the_check_that_never_passed() {
    need_chromium!();
    let env = Env::new();
    let f = waiting_site();
    let sid = env.start(&["--open-url", &f.url("/waits.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // Covered until a timer removes the overlay: the click waits, and only the button gets it.
    let v = on(&env, &t, &["click", "#under"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "window.underClicks"), 1);
    assert_eq!(value(&env, &t, "window.shadeClicks || 0"), 0);
    assert_eq!(value(&env, &t, "JSON.stringify(downs)"), r#"["under"]"#);
    // A button that appears late.
    let v = on(&env, &t, &["click", "#late"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "window.lateClicks"), 1);

    let timed_out = |sel: &str, reason: &str| -> Value {
        let started = Instant::now();
        let v = on(&env, &t, &["click", sel, "--timeout", "1500"]);
        assert_failure(&v, "TIMEOUT", sel);
        assert_eq!(v["error"]["details"]["reason"], reason, "{v}");
        assert_eq!(v["error"]["details"]["selector"], sel, "{v}");
        assert!(
            started.elapsed() >= Duration::from_millis(1400),
            "{sel} gave up early: {v}"
        );
        v
    };
    let v = timed_out("#off", "disabled");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("is disabled")),
        "{v}"
    );
    timed_out("#gone", "not visible");
    timed_out("#moving", "moving");
    let v = timed_out("#hidden-forever", "covered");
    assert_eq!(
        v["error"]["details"]["by"], "div#curtain.curtain.wide 'Curtain'",
        "{v}"
    );
    // Text: the check and what covers it.
    let r = text(&env, &t, &["click", "#hidden-forever", "--timeout", "800"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(
            "error TIMEOUT: browser click timed out after 800ms: #hidden-forever is covered by div#curtain.curtain.wide 'Curtain'"
        ),
        "{r:?}"
    );
    // --force skips the checks but not the confirmation: the curtain took the press, once (a
    // second press would only give it another click).
    let v = on(
        &env,
        &t,
        &["click", "#hidden-forever", "--force", "--timeout", "3000"],
    );
    assert_failure(&v, "INTERNAL_ERROR", "did not reach #hidden-forever");
    assert_eq!(v["error"]["details"]["reason"], "covered", "{v}");
    assert_eq!(
        v["error"]["details"]["by"], "div#curtain.curtain.wide 'Curtain'",
        "{v}"
    );
    // An element that never appears is not found, after the wait.
    let started = Instant::now();
    let v = on(&env, &t, &["click", "#never", "--timeout", "1000"]);
    assert_failure(&v, "ELEMENT_NOT_FOUND", "#never");
    assert!(started.elapsed() >= Duration::from_millis(900), "{v}");
    // Nothing the failures did reached the page.
    assert_eq!(
        value(&env, &t, "JSON.stringify(downs)"),
        r#"["under","late","curtain"]"#
    );
}

/// An overlay the page shows when the pointer arrives (and hides when pressed) is seen before
/// anything is pressed: the click waits for it to go and, as it stays, times out naming it;
/// neither the overlay nor the button was pressed (a press is sent only once the hover is seen
/// on the element, and never twice).
#[test]
fn an_overlay_shown_by_the_pointer_arriving_is_seen_before_pressing() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/ambush.html",
        r#"<!doctype html><html><head><title>Ambush</title><style>
  body { margin: 0 }
  #cover { display: none; position: fixed; left: 0; top: 0; width: 300px; height: 200px; background: #eee }
</style></head><body>
<button id="b" style="position: absolute; left: 40px; top: 40px" onclick="window.clicks = (window.clicks || 0) + 1">Button</button>
<div id="cover">Cover</div>
<script>
  window.downs = [];
  document.addEventListener('mousedown', e => downs.push(e.target.id), true);
  const cover = document.getElementById('cover');
  document.getElementById('b').addEventListener('mousemove', () => { cover.style.display = 'block'; }, { once: true });
  cover.addEventListener('mousedown', () => { cover.style.display = 'none'; });
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/ambush.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["click", "#b", "--timeout", "1500"]);
    assert_failure(&v, "TIMEOUT", "#b is covered by div#cover 'Cover'");
    assert_eq!(v["error"]["retryable"], true, "{v}");
    assert_eq!(value(&env, &t, "JSON.stringify(downs)"), "[]");
    assert_eq!(value(&env, &t, "window.clicks || 0"), 0);
}

/// A button the page re-renders when the pointer comes over it (React-like: its hover state
/// swaps it for a fresh copy that the same selector matches) is clicked once, `ok`: the press
/// the copy takes is the button's, not a miss to press again. By CSS (the quick path) and by
/// XPath (the careful path, which checks the hover before pressing).
#[test]
fn a_button_re_rendered_on_hover_is_clicked_once() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/rerender.html",
        r#"<!doctype html><html><head><title>clicks 0</title><style>body { margin: 0 }</style></head><body>
<div id="root"><button id="b" class="btn" style="position: absolute; left: 40px; top: 40px">Save</button></div>
<script>
  // Handlers delegated to the document, as a framework's are: a copy of the button keeps them.
  window.clicks = 0; window.renders = 0; window.downs = [];
  let hovered = false;
  document.addEventListener('mouseover', e => {
    const b = e.target.closest && e.target.closest('#b');
    if (!b || hovered) return;
    hovered = true; window.renders++;
    b.replaceWith(b.cloneNode(true));
  });
  document.addEventListener('mousedown', e => downs.push(e.target.isConnected), true);
  document.addEventListener('click', e => {
    if (e.target.closest && e.target.closest('#b')) { window.clicks++; document.title = 'clicks ' + window.clicks; }
  });
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/rerender.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for sel in ["#b", "//button[@id='b']"] {
        let v = on(&env, &t, &["goto", &f.url("/rerender.html")]);
        assert_eq!(v["ok"], true, "{v}");
        let v = on(&env, &t, &["click", sel]);
        assert_eq!(v["ok"], true, "{sel}: {v}");
        assert_eq!(v["meta"]["warnings"], json!([]), "{sel}: {v}");
        // Re-rendered once, pressed once (on the copy), clicked once.
        assert_eq!(
            value(&env, &t, "JSON.stringify([clicks, renders, downs])"),
            "[1,1,[true]]",
            "{sel}"
        );
        assert_eq!(value(&env, &t, "document.title"), "clicks 1", "{sel}");
    }
}

/// A button whose hover shows an overlay over it. A click sees the overlay after the move and
/// presses nothing (TIMEOUT naming it, retryable: nothing happened). A forced click (no checks)
/// presses once and the overlay takes it: the error says the input went to the overlay, at once
/// (not after the timeout), and is not retryable; the overlay got exactly one click, the button
/// none.
#[test]
fn a_press_taken_by_an_overlay_shown_on_hover_names_it_and_is_not_retried() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/hover-overlay.html",
        r#"<!doctype html><html><head><title>Hover overlay</title><style>
  body { margin: 0 }
  #overlay { display: none; position: fixed; left: 0; top: 0; width: 400px; height: 300px; background: rgba(0,0,0,.3) }
</style></head><body>
<button id="b" style="position: absolute; left: 40px; top: 40px" onclick="window.buttonClicks++">Button</button>
<div id="overlay" onclick="window.overlayClicks++">Overlay</div>
<script>
  window.buttonClicks = 0; window.overlayClicks = 0;
  document.getElementById('b').addEventListener('mouseenter', () => {
    document.getElementById('overlay').style.display = 'block';
  });
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/hover-overlay.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for sel in ["#b", "//button[@id='b']"] {
        let v = on(&env, &t, &["goto", &f.url("/hover-overlay.html")]);
        assert_eq!(v["ok"], true, "{v}");
        let v = on(&env, &t, &["click", sel, "--timeout", "1500"]);
        assert_failure(&v, "TIMEOUT", "is covered by div#overlay 'Overlay'");
        assert_eq!(v["error"]["retryable"], true, "{v}");
        assert_eq!(
            value(&env, &t, "JSON.stringify([buttonClicks, overlayClicks])"),
            "[0,0]",
            "{sel}"
        );
    }

    let v = on(&env, &t, &["goto", &f.url("/hover-overlay.html")]);
    assert_eq!(v["ok"], true, "{v}");
    let started = Instant::now();
    let v = on(&env, &t, &["click", "#b", "--force", "--timeout", "20000"]);
    let took = started.elapsed();
    assert_failure(
        &v,
        "INTERNAL_ERROR",
        "the input did not reach #b: it went to div#overlay 'Overlay' instead",
    );
    assert_eq!(v["error"]["details"]["by"], "div#overlay 'Overlay'", "{v}");
    assert_eq!(v["error"]["details"]["reason"], "covered", "{v}");
    assert_eq!(v["error"]["retryable"], false, "{v}");
    // Answered once the press was judged, not after the timeout.
    assert!(took < Duration::from_secs(10), "took {took:?}: {v}");
    assert_eq!(
        value(&env, &t, "JSON.stringify([buttonClicks, overlayClicks])"),
        "[0,1]"
    );
}

#[test]
fn buttons_counts_new_tab_and_hover() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/buttons.html",
        r#"<!doctype html><html><head><title>Buttons</title><style>
  .menu ul { display: none } .menu:hover ul { display: block }
</style></head><body>
<button id="b" onclick="window.clicks = (window.clicks || 0) + 1" ondblclick="window.dbl = (window.dbl || 0) + 1"
  oncontextmenu="window.ctx = (window.ctx || 0) + 1; return false" onauxclick="if (event.button === 1) window.aux = (window.aux || 0) + 1">Button</button>
<div class="menu" id="menu">Menu<ul><li><a href="/page2.html" id="entry">Menu entry</a></li></ul></div>
<a id="away" href="/page2.html">Away</a>
<p id="plain">plain text</p>
</body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/buttons.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // A real double click: clickCount 1 then 2 (two clicks, one dblclick).
    assert_eq!(on(&env, &t, &["click", "#b", "--count", "2"])["ok"], true);
    assert_eq!(
        value(&env, &t, "[window.clicks, window.dbl]"),
        json!([2, 1])
    );
    // Right click opens the contextmenu handler; middle is an auxclick.
    let v = on(&env, &t, &["click", "#b", "--button", "right"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "window.ctx"), 1, "{v}");
    assert_eq!(
        on(&env, &t, &["click", "#b", "--button", "middle"])["ok"],
        true
    );
    assert_eq!(value(&env, &t, "window.aux"), 1);
    assert_eq!(value(&env, &t, "window.clicks"), 2);
    let v = on(&env, &t, &["click", "#b", "--count", "0"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--count");
    let r = text(&env, &t, &["click", "#b", "--button", "back"]);
    assert_eq!(r.code, 2, "{r:?}");

    // Hover: the :hover menu is in the next snapshot.
    let snap = on(&env, &t, &["snapshot"]);
    assert!(
        !snap["data"]["nodes"].to_string().contains("Menu entry"),
        "{snap}"
    );
    let r = text(&env, &t, &["hover", "#menu"]).ok();
    assert!(
        r.stdout.ends_with("ok browser hover\ntarget: #menu\n"),
        "{r:?}"
    );
    let snap = on(&env, &t, &["snapshot"]);
    let entry = ref_of(&snap, "link", "Menu entry");
    let v = on(&env, &t, &["hover", &entry]);
    assert_eq!(v["data"]["action"], "hover", "{v}");

    // --new-tab opens the link's address in a new tab and names it; the page stays.
    let v = on(&env, &t, &["click", "#away", "--new-tab"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["new_tab_id"], "t2", "{v}");
    assert_eq!(v["context"]["tab_id"], "t1");
    assert_eq!(v["context"]["title"], "Buttons");
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    assert_eq!(
        value_until(&env, &t2, "document.title", &json!("Page Two")),
        "Page Two"
    );
    let r = text(&env, &t, &["click", "#away", "--new-tab"]).ok();
    assert!(r.stdout.contains("new_tab_id: t3"), "{r:?}");
    // Not a link: clicked, and said so.
    let v = on(&env, &t, &["click", "#plain", "--new-tab"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["data"]["new_tab_id"].is_null(), "{v}");
    assert!(
        v["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("not a link")),
        "{v}"
    );
}

#[test]
fn a_link_opened_in_a_background_tab_becomes_a_tab() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/bg.html",
        r#"<!doctype html><title>Background</title><a id="away" href="/page2.html">Away</a>
<a id="other" href="/index.html">Other</a>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/bg.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let tab_ids = || -> Vec<String> {
        let v = env.json(&["browser", "list-tabs", "--session", &sid]);
        v["data"]["tabs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["tab_id"].as_str().map(str::to_string))
            .collect()
    };
    // A middle click opens the link in a background tab, with no opener: named and listed,
    // the page left as it was.
    let v = on(&env, &t, &["click", "#away", "--button", "middle"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["new_tab_id"], "t2", "{v}");
    assert_eq!(v["data"]["changed"]["url_changed"], false, "{v}");
    assert_eq!(v["context"]["title"], "Background", "{v}");
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    assert_eq!(
        value_until(&env, &t2, "document.title", &json!("Page Two")),
        "Page Two"
    );
    // Control+Enter on a focused link does the same.
    assert_eq!(on(&env, &t, &["focus", "#other"])["ok"], true);
    let v = on(&env, &t, &["press", "Control+Enter"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["new_tab_id"], "t3", "{v}");
    assert_eq!(tab_ids(), ["t1", "t2", "t3"]);
    // Closing the session closes them too (they are its tabs).
    let v = env.json(&["browser", "close", "--session", &sid]);
    assert_eq!(v["data"]["closed_tabs"], 3, "{v}");
}

#[test]
fn mouse_move_cursor_position_and_drag() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/drag.html",
        r#"<!doctype html><html><head><title>Drag</title><style>
  body { margin: 0 } li { padding: 10px; margin: 4px; background: #eee; width: 200px }
</style></head><body>
<ul id="list"><li draggable="true" id="i1">One</li><li draggable="true" id="i2">Two</li><li draggable="true" id="i3">Three</li></ul>
<div id="box" style="width: 100px; height: 100px; background: #ccf; position: absolute; left: 400px; top: 20px"></div>
<iframe id="fr" style="position: absolute; left: 50px; top: 400px; width: 200px; height: 100px; border: 0" srcdoc="<body style='margin:0'><div id=zone style='height:100px'>zone</div><script>
  window.drops = []; window.clicks = 0;
  const z = document.getElementById('zone');
  z.addEventListener('dragover', e => e.preventDefault());
  z.addEventListener('drop', e => { e.preventDefault(); drops.push(e.dataTransfer.getData('text/plain')); });
  z.addEventListener('click', () => clicks++);
</script></body>"></iframe>
<script>
  let dragged = null;
  for (const li of document.querySelectorAll('li')) {
    li.addEventListener('dragstart', e => { dragged = li; e.dataTransfer.setData('text/plain', li.id); });
    li.addEventListener('dragover', e => e.preventDefault());
    li.addEventListener('drop', e => { e.preventDefault(); if (dragged && dragged !== li) li.parentNode.insertBefore(dragged, li); });
  }
  // A drag made of mouse events (no HTML5 drag and drop).
  const box = document.getElementById('box'); let grab = null;
  box.addEventListener('mousedown', e => { grab = [e.clientX - box.offsetLeft, e.clientY - box.offsetTop]; });
  document.addEventListener('mousemove', e => { if (grab) { box.style.left = (e.clientX - grab[0]) + 'px'; box.style.top = (e.clientY - grab[1]) + 'px'; } });
  document.addEventListener('mouseup', () => { grab = null; });
  window.moves = 0; document.addEventListener('mousemove', () => window.moves++);
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/drag.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["cursor-position"]);
    assert_eq!(v["data"], json!({ "x": 0, "y": 0 }), "{v}");

    let r = text(&env, &t, &["mouse-move", "300,250"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser mouse-move\ntarget: 300,250\n"),
        "{r:?}"
    );
    assert!(value(&env, &t, "window.moves").as_u64() >= Some(1));
    let r = text(&env, &t, &["cursor-position"]).ok();
    assert!(r.stdout.ends_with("\n300,250\n"), "{r:?}");
    assert_failure(
        &on(&env, &t, &["mouse-move", "#box"]),
        "INVALID_ARGUMENT",
        "x,y",
    );
    // The position is the tab's, and outlives the daemon.
    env.kill_daemon();
    let v = on(&env, &t, &["cursor-position"]);
    assert_eq!(v["data"], json!({ "x": 300, "y": 250 }), "{v}");

    // HTML5 drag and drop reorders the list.
    let v = on(&env, &t, &["drag", "#i3", "#i1"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["data"]["destination"],
        json!({ "selector": "#i1" }),
        "{v}"
    );
    assert_eq!(
        value(
            &env,
            &t,
            "Array.from(document.querySelectorAll('li')).map(l => l.id).join()"
        ),
        "i3,i1,i2"
    );
    // A mouse drag to coordinates moves the box there (its centre under the pointer).
    let r = text(&env, &t, &["drag", "#box", "500,300"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser drag\ntarget: #box\ndestination: 500,300\n"),
        "{r:?}"
    );
    assert_eq!(
        value(&env, &t, "[box.offsetLeft, box.offsetTop]"),
        json!([450, 250])
    );
    assert_eq!(
        on(&env, &t, &["cursor-position"])["data"],
        json!({ "x": 500, "y": 300 })
    );

    // A frame element as the destination: the drop lands in the document inside it (once), and
    // is confirmed there. Hover and click on a frame element reach the document inside it.
    let frame = "document.getElementById('fr').contentWindow";
    let v = on(&env, &t, &["drag", "#i2", "#fr"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["data"]["destination"],
        json!({ "selector": "#fr" }),
        "{v}"
    );
    assert_eq!(value(&env, &t, &format!("{frame}.drops")), json!(["i2"]));
    assert_eq!(on(&env, &t, &["hover", "#fr"])["ok"], true);
    let v = on(&env, &t, &["click", "#fr"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, &format!("{frame}.clicks")), json!(1));
}

/// An `<option>` of a closed drop-down `<select>` has no box: a click on it (by CSS, XPath or a
/// snapshot ref) chooses it as `select` does, `input` and `change` fired, `ok`. A disabled option
/// (itself or by its `<optgroup>`) or one of a disabled select is refused at once, as are clicks
/// that mean nothing on it (right, double, `--new-tab`). An option of a list box has a box and is
/// clicked as any element (a real press).
#[test]
fn a_click_on_an_option_of_a_closed_select_chooses_it() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/options.html",
        r#"<!doctype html><html><head><title>Options</title></head><body>
<label for="size">Size</label>
<select id="size">
  <option value="s">Small</option><option value="m">Medium</option>
  <option value="l" disabled>Large</option>
  <optgroup label="Special" disabled><option value="xl">Extra large</option></optgroup>
</select>
<select id="off" disabled aria-label="Off"><option value="a">A</option><option value="b">B</option></select>
<select id="list" size="3" aria-label="List"><option value="x">X</option><option value="y">Y</option><option value="z">Z</option></select>
<script>
  window.events = []; window.downs = [];
  for (const id of ['size', 'off', 'list']) {
    const s = document.getElementById(id);
    for (const t of ['input', 'change']) s.addEventListener(t, () => events.push(id + ' ' + t + ' ' + s.value));
  }
  document.addEventListener('mousedown', (e) => downs.push(e.target.value), true);
</script></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/options.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let events = || value(&env, &t, "JSON.stringify([size.value, events, downs])");
    let long = ["--timeout", "60000"];

    // By CSS (the quick path's selector form), by XPath and by the snapshot's ref.
    let v = on(
        &env,
        &t,
        &[&["click", "select#size option[value=m]"][..], &long].concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["action"], "click", "{v}");
    assert_eq!(
        v["data"]["target"],
        json!({ "selector": "select#size option[value=m]" }),
        "{v}"
    );
    assert_eq!(events(), r#"["m",["size input m","size change m"],[]]"#);
    let v = on(
        &env,
        &t,
        &[&["click", "//select[@id='size']/option[1]"][..], &long].concat(),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        events(),
        r#"["s",["size input m","size change m","size input s","size change s"],[]]"#
    );
    let snap = on(&env, &t, &["snapshot"]);
    let medium = ref_of(&snap, "option", "Medium");
    let v = on(&env, &t, &[&["click", medium.as_str()][..], &long].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "size.value"), "m");
    assert_eq!(value(&env, &t, "events.length"), 6);

    // Refused at once (a long timeout: only the refusal answers before it), nothing changed.
    let refused = |sel: &str, extra: &[&str], part: &str| {
        let v = on(&env, &t, &[&["click", sel][..], extra, &long].concat());
        assert_failure(&v, "INVALID_ARGUMENT", part);
        assert_eq!(v["error"]["retryable"], false, "{v}");
    };
    refused(
        "#size option[value=l]",
        &[],
        "option #size option[value=l] is disabled: nothing was selected",
    );
    refused("#size option[value=xl]", &[], "is disabled");
    refused(
        "#off option[value=b]",
        &[],
        "the <select> of option #off option[value=b] is disabled",
    );
    refused(
        "#size option[value=s]",
        &["--button", "right"],
        "is an <option> of a closed <select>, which a click chooses",
    );
    refused("#size option[value=s]", &["--count", "2"], "--count 2");
    refused("#size option[value=s]", &["--new-tab"], "--new-tab");
    // Nothing to point at for a hover.
    let v = on(
        &env,
        &t,
        &[&["hover", "#size option[value=s]"][..], &long].concat(),
    );
    assert_failure(
        &v,
        "INVALID_ARGUMENT",
        "is an <option> of a closed <select>",
    );
    assert_eq!(
        v["error"]["details"]["reason"], "option of a closed select",
        "{v}"
    );
    // `select` still wants the <select> itself.
    let v = on(&env, &t, &["select", "#size option[value=s]", "s"]);
    assert_failure(&v, "INVALID_ARGUMENT", "is an <option>");
    assert_eq!(value(&env, &t, "size.value"), "m");
    assert_eq!(value(&env, &t, "events.length"), 6);

    // A list box's option is pressed as any element: the press is the page's own.
    let v = on(&env, &t, &["click", "#list option[value=y]"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value(
            &env,
            &t,
            "JSON.stringify([list.value, events.slice(6), downs])"
        ),
        r#"["y",["list input y","list change y"],["y"]]"#
    );
}

/// Everything outside an open modal dialog is inert: a click there fails at the first look (a
/// long timeout: only the refusal answers before it), naming the dialog, not retryable; inside
/// the dialog clicks work (quick path, careful path, ref). Content under `[inert]` is refused the
/// same way.
#[test]
fn a_click_behind_a_modal_dialog_or_on_inert_content_fails_at_once() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/modal.html",
        r#"<!doctype html><html><head><title>Modal</title></head><body>
<button id="behind" onclick="clicks.push('behind')">Behind</button>
<button id="off" disabled>Off</button>
<iframe id="fr" srcdoc="<button id='in-frame' onclick='parent.clicks.push(1)'>In a frame</button>"></iframe>
<div id="app" class="shell main" inert><button id="frozen" onclick="clicks.push('frozen')">Frozen</button></div>
<dialog id="confirm" class="sheet wide" aria-labelledby="confirm-title">
  <h2 id="confirm-title">Delete the file?</h2>
  <button id="yes" onclick="clicks.push('yes')">Yes</button>
</dialog>
<script>window.clicks = []; document.getElementById('confirm').showModal();</script>
</body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/modal.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let long = ["--timeout", "60000"];
    let dialog = "dialog#confirm 'Delete the file?'";

    // By CSS (the quick path), XPath (the careful one), in a frame behind the dialog, forced.
    // Disabled as well: the dialog is what keeps it out of reach, not something a wait mends.
    for sel in [
        "#behind",
        "//button[@id='behind']",
        "//button[@id='in-frame']",
        "#off",
    ] {
        let v = on(&env, &t, &[&["click", sel][..], &long].concat());
        assert_failure(
            &v,
            "INVALID_ARGUMENT",
            &format!("browser click: {sel} is behind the modal dialog {dialog}"),
        );
        assert_eq!(v["error"]["retryable"], false, "{v}");
        assert_eq!(
            v["error"]["details"]["reason"], "behind modal dialog",
            "{v}"
        );
        assert_eq!(v["error"]["details"]["by"], dialog, "{v}");
        assert!(
            v["error"]["hint"]
                .as_str()
                .is_some_and(|h| h.contains("Escape")),
            "{v}"
        );
    }
    let v = on(
        &env,
        &t,
        &[&["click", "#behind", "--force"][..], &long].concat(),
    );
    assert_failure(&v, "INVALID_ARGUMENT", "is behind the modal dialog");
    let v = on(&env, &t, &[&["hover", "#behind"][..], &long].concat());
    assert_failure(&v, "INVALID_ARGUMENT", "is behind the modal dialog");
    assert_eq!(value(&env, &t, "JSON.stringify(clicks)"), "[]");

    // Inside the dialog: by CSS (the quick path), XPath and ref.
    assert_eq!(on(&env, &t, &["click", "#yes"])["ok"], true);
    assert_eq!(on(&env, &t, &["click", "//button[@id='yes']"])["ok"], true);
    let snap = on(&env, &t, &["snapshot"]);
    let yes = ref_of(&snap, "button", "Yes");
    assert_eq!(on(&env, &t, &["click", yes.as_str()])["ok"], true);
    assert_eq!(
        value(&env, &t, "JSON.stringify(clicks)"),
        r#"["yes","yes","yes"]"#
    );

    // Closed, the page behind takes clicks again; the [inert] subtree does not.
    value(&env, &t, "document.getElementById('confirm').close(); 1");
    assert_eq!(on(&env, &t, &["click", "#behind"])["ok"], true);
    let v = on(&env, &t, &[&["click", "#frozen"][..], &long].concat());
    assert_failure(
        &v,
        "INVALID_ARGUMENT",
        "#frozen is inert (inside div#app, which has the inert attribute)",
    );
    assert_eq!(v["error"]["details"]["reason"], "inert", "{v}");
    assert_eq!(v["error"]["retryable"], false, "{v}");
    assert_eq!(
        value(&env, &t, "JSON.stringify(clicks)"),
        r#"["yes","yes","yes","behind"]"#
    );
}
