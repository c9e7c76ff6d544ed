// Over 1,000 lines on purpose: one command group's end-to-end tests beside the fixture pages and
// helpers they share; each test is an independent scenario.
//! Keyboard and form commands (press, type, focus, fill, select, upload), scroll and eval, in text
//! and JSON.

use serde_json::json;

use crate::need_chromium;
use crate::support::{Env, assert_failure, on, site, text, value, value_until};

const KEYS: &str = r#"<!doctype html><html><head><title>Keys</title></head><body>
<form id="form" action="/page2.html"><input id="q" name="q"><input id="second"><button>Go</button></form>
<textarea id="area"></textarea>
<input id="chords"><input id="long" type="email">
<script>
  window.keys = [];
  document.getElementById('chords').addEventListener('keydown', e => keys.push(
    (e.ctrlKey ? 'C' : '') + (e.altKey ? 'A' : '') + (e.metaKey ? 'M' : '') + (e.shiftKey ? 'S' : '') + ':' + e.key));
  window.escapes = 0; document.addEventListener('keydown', e => { if (e.key === 'Escape') escapes++; });
  window.typed = { down: 0, input: 0 };
  const area = document.getElementById('area');
  area.addEventListener('keydown', () => typed.down++); area.addEventListener('input', () => typed.input++);
</script></body></html>"#;

#[test]
fn press_type_and_focus() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/keys.html", KEYS);
    let sid = env.start(&["--open-url", &f.url("/keys.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // focus, then Tab and Shift+Tab move focus.
    let v = on(&env, &t, &["focus", "#q"]);
    assert_eq!(v["data"]["changed"]["focus_changed"], true, "{v}");
    assert_eq!(value(&env, &t, "document.activeElement.id"), "q");
    let v = on(&env, &t, &["focus", "#q"]);
    assert_eq!(v["data"]["changed"]["focus_changed"], false, "{v}");
    let r = text(&env, &t, &["press", "Tab"]).ok();
    assert!(r.stdout.ends_with("ok browser press\nkeys: Tab\n"), "{r:?}");
    assert_eq!(value(&env, &t, "document.activeElement.id"), "second");
    let v = on(&env, &t, &["press", "Shift+Tab"]);
    assert_eq!(v["data"]["keys"], "Shift+Tab", "{v}");
    assert_eq!(v["data"]["changed"]["focus_changed"], true, "{v}");
    assert_eq!(value(&env, &t, "document.activeElement.id"), "q");

    // type: key by key, non-ASCII and emoji intact, at the caret.
    let r = text(&env, &t, &["type", "#area", "héllo wörld 😀 日本"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser type\ntarget: #area\ntext_length: 16\n"),
        "{r:?}"
    );
    assert_eq!(value(&env, &t, "area.value"), "héllo wörld 😀 日本");
    assert_eq!(value(&env, &t, "typed.down"), 16);
    value(&env, &t, "area.setSelectionRange(5, 5); 1");
    let v = on(&env, &t, &["type", "#area", "!"]);
    assert_eq!(v["data"]["value_summary"]["text_length"], 1, "{v}");
    assert_eq!(value(&env, &t, "area.value"), "héllo! wörld 😀 日本");
    // An element without focus gets the text at its end.
    value(
        &env,
        &t,
        "document.getElementById('q').value = 'ab'; document.getElementById('second').focus(); 1",
    );
    assert_eq!(on(&env, &t, &["type", "#q", "cd"])["ok"], true);
    assert_eq!(
        value(&env, &t, "document.getElementById('q').value"),
        "abcd"
    );
    // A tab moves focus on as a keyboard's does: what follows it goes to the next field, and
    // the command is ok (it answered INTERNAL_ERROR "the rest went to input#second").
    value(&env, &t, "document.getElementById('q').value = ''; 1");
    let v = on(&env, &t, &["type", "#q", "user\tpass"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["value_summary"]["text_length"], 9, "{v}");
    assert_eq!(
        value(&env, &t, "document.getElementById('q').value"),
        "user"
    );
    assert_eq!(
        value(&env, &t, "document.getElementById('second').value"),
        "pass"
    );
    // A long text arrives in order (Chromium reorders key events when too many are in flight).
    let long = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(5);
    let long = long.trim_end();
    assert_eq!(on(&env, &t, &["type", "#long", long])["ok"], true);
    assert_eq!(
        value(&env, &t, "document.getElementById('long').value"),
        long
    );
    // A text longer than its --timeout allows stops there (TIMEOUT saying how far it got) and
    // leaves the tab free at once, instead of typing on after the answer.
    let huge = "x".repeat(20_000);
    let v = on(&env, &t, &["type", "#long", &huge, "--timeout", "1000"]);
    assert_failure(&v, "TIMEOUT", "stopped after");
    let typed = value(&env, &t, "document.getElementById('long').value.length");
    let after = value(&env, &t, "document.getElementById('long').value.length");
    assert_eq!(typed, after, "typing went on after the answer");
    assert!(
        typed.as_u64().unwrap_or(0) < 20_000 + long.len() as u64,
        "{typed}"
    );
    on(&env, &t, &["focus", "#q"]);
    assert_failure(
        &on(&env, &t, &["type", "#form", "x"]),
        "INVALID_ARGUMENT",
        "<form>",
    );

    // Chords: Control+A then Backspace clears; modifiers are held for the key.
    assert_eq!(on(&env, &t, &["press", "Control+A"])["ok"], true);
    assert_eq!(on(&env, &t, &["press", "Backspace"])["ok"], true);
    assert_eq!(value(&env, &t, "document.getElementById('q').value"), "");
    on(&env, &t, &["focus", "#chords"]);
    for keys in [
        "Meta+k",
        "Alt+Shift+ArrowDown",
        "Control+Shift+Z",
        "ArrowLeft",
        "F2",
    ] {
        let v = on(&env, &t, &["press", keys]);
        assert_eq!(v["ok"], true, "{keys}: {v}");
    }
    assert_eq!(
        value(
            &env,
            &t,
            "keys.filter(k => !/:(Meta|Alt|Shift|Control)$/.test(k)).join(' ')"
        ),
        "M:k AS:ArrowDown CS:Z :ArrowLeft :F2"
    );
    assert_eq!(on(&env, &t, &["press", "Escape"])["ok"], true);
    assert_eq!(value(&env, &t, "escapes"), 1);
    let v = on(&env, &t, &["press", "Ctrl+Nope"]);
    assert_failure(&v, "INVALID_ARGUMENT", "unknown key \"Nope\"");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Control+A")),
        "{v}"
    );

    // Enter submits the form: the press waits for the new page (spec 5.6).
    on(&env, &t, &["fill", "#q", "x"]);
    let v = on(&env, &t, &["press", "Enter"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    assert_eq!(v["data"]["changed"]["url_changed"], true, "{v}");
    assert!(
        v["context"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("/page2.html?q=x")),
        "{v}"
    );
}

/// Keys pressed while a `<select>`'s dropdown is open go to the dropdown (a widget of its own:
/// the page sees no key event) and act there, as a user's do: `press` is ok and says where they
/// went and what the select's value is, instead of answering that they did not arrive.
#[test]
fn keys_to_an_open_select_dropdown_act_there() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/menu.html",
        r#"<!doctype html><title>Menu</title>
<select id="s"><option>a</option><option>b</option><option>c</option></select>
<script>
  window.got = [];
  for (const t of ['keydown', 'keyup']) window.addEventListener(t, e => got.push(t), true);
</script>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/menu.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // The click opens the dropdown (on mousedown, before the click answers).
    assert_eq!(on(&env, &t, &["click", "#s"])["ok"], true);
    assert_eq!(
        value(&env, &t, "document.getElementById('s').matches(':open')"),
        true
    );
    for (keys, state, val) in [
        ("ArrowDown", "still open", "a"),
        ("ArrowDown", "still open", "a"),
        ("Enter", "closed", "c"),
    ] {
        let v = on(&env, &t, &["press", keys]);
        assert_eq!(v["ok"], true, "{keys}: {v}");
        let w = v["meta"]["warnings"].to_string();
        assert!(
            w.contains(&format!(
                "the keys {keys} went to the open picker of the focused <select>"
            )) && w.contains(&format!(
                "the picker is {state}, the value is \\\"{val}\\\""
            )),
            "{keys}: {v}"
        );
    }
    assert_eq!(value(&env, &t, "document.getElementById('s').value"), "c");
    // (Enter's keyup comes to the page: the dropdown closed on its keydown.)
    assert_eq!(value(&env, &t, "got.join(' ')"), "keyup");
    // Closed, the select's own document sees the keys again: nothing to warn about.
    let v = on(&env, &t, &["press", "ArrowUp"]);
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    assert_eq!(value(&env, &t, "document.getElementById('s').value"), "b");
}

/// Keys a page stops before anyone else sees them (an editor's or game's own shortcut layer: a
/// capture listener on the window, registered before the probe's, that stops every key) did
/// reach it: press and type are ok, and the page got them.
#[test]
fn keys_a_page_stops_first_arrived() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/eat.html",
        r#"<!doctype html><title>Eat</title><input id="a"><input id="b">
<script>
  window.got = [];
  for (const t of ['keydown', 'keyup']) window.addEventListener(t, e => {
    if (t === 'keydown') got.push(e.key);
    e.stopImmediatePropagation();
  }, true);
</script>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/eat.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    assert_eq!(on(&env, &t, &["focus", "#a"])["ok"], true);
    for keys in ["Enter", "Control+A"] {
        let v = on(&env, &t, &["press", keys]);
        assert_eq!(v["ok"], true, "{keys}: {v}");
    }
    assert_eq!(value(&env, &t, "got.join(' ')"), "Enter Control A");
    let v = on(&env, &t, &["type", "#a", "hello"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value(&env, &t, "document.getElementById('a').value"),
        "hello"
    );
    // A tab in the text moves focus on (the page sees it go): what follows goes to the next field.
    value(&env, &t, "document.getElementById('a').value = ''; 1");
    let v = on(&env, &t, &["type", "#a", "ab\tcd"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value(
            &env,
            &t,
            "document.getElementById('a').value + '|' + document.getElementById('b').value"
        ),
        "ab|cd"
    );
}

/// `fill` and `type` agree on `maxlength`: the field keeps what fits, as it does of a user's
/// typing, and the answer is ok with a warning saying how many characters it kept (fill answered
/// INVALID_ARGUMENT though the field held the cut text; type answered ok and said nothing).
#[test]
fn fill_and_type_agree_on_maxlength() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/max.html",
        r#"<!doctype html><title>Max</title>
<input id="a" maxlength="5"><input id="b" maxlength="5"><input id="d" maxlength="3" value="ab">
<textarea id="c" maxlength="4"></textarea><input id="free"><input id="n" type="number" value="5">"#,
    );
    let sid = env.start(&["--open-url", &f.url("/max.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let field = |id: &str| value(&env, &t, &format!("document.getElementById('{id}').value"));
    let warned = |v: &serde_json::Value, part: &str| {
        assert_eq!(v["ok"], true, "{v}");
        let w = &v["meta"]["warnings"];
        assert_eq!(w.as_array().map(Vec::len), Some(1), "{v}");
        assert!(
            w[0].as_str().is_some_and(|m| m.contains(part)),
            "{part:?}: {v}"
        );
    };

    let v = on(&env, &t, &["fill", "#a", "abcdefghij"]);
    warned(
        &v,
        "#a has maxlength 5: of the 10 characters typed into it, it kept 5",
    );
    assert_eq!(v["data"]["value_summary"]["text_length"], 10, "{v}");
    assert_eq!(field("a"), "abcde");
    let v = on(&env, &t, &["type", "#b", "abcdefghij"]);
    warned(
        &v,
        "#b has maxlength 5: of the 10 characters typed into it, it kept 5",
    );
    assert_eq!(v["data"]["value_summary"]["text_length"], 10, "{v}");
    assert_eq!(field("b"), "abcde");
    // Typed at the end of "ab": one of four fits; a full field keeps none.
    warned(
        &on(&env, &t, &["type", "#d", "cdef"]),
        "of the 4 characters typed into it, it kept 1",
    );
    assert_eq!(field("d"), "abc");
    warned(
        &on(&env, &t, &["type", "#b", "z"]),
        "of the 1 character typed into it, it kept 0",
    );
    assert_eq!(field("b"), "abcde");
    // A newline is text in a textarea.
    warned(
        &on(&env, &t, &["type", "#c", "ab\ncd"]),
        "of the 5 characters typed into it, it kept 4",
    );
    assert_eq!(field("c"), "ab\nc");
    // Text mode says it too.
    let r = text(&env, &t, &["fill", "#a", "123456"]).ok();
    assert!(
        r.stdout
            .contains("warning: #a has maxlength 5: of the 6 characters typed into it, it kept 5"),
        "{r:?}"
    );
    // What fits draws no warning.
    for (cmd, sel) in [("fill", "#a"), ("type", "#free"), ("fill", "#free")] {
        let v = on(&env, &t, &[cmd, sel, "xyz"]);
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["meta"]["warnings"], json!([]), "{cmd} {sel}: {v}");
    }
    assert_eq!(field("a"), "xyz");
    // A field that takes none of the keys (letters in a number input) is said: ok, the keys
    // arrived, but nothing was typed (it answered ok and said nothing).
    warned(
        &on(&env, &t, &["type", "#n", "abc"]),
        "#n's value did not change: the keys arrived, but the field (or the page) took none of the 3 characters typed",
    );
    assert_eq!(field("n"), "5");
    // Appended as to any field (a number input has no caret API: typed before its value).
    let v = on(&env, &t, &["type", "#n", "1"]);
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    assert_eq!(field("n"), "51");
    value(
        &env,
        &t,
        "document.body.insertAdjacentHTML('beforeend', '<input id=\"m\" type=\"email\" value=\"a@b.c\">'); 1",
    );
    assert_eq!(on(&env, &t, &["type", "#m", "o"])["ok"], true);
    assert_eq!(field("m"), "a@b.co");
}

/// A React-style controlled input: the framework records what it set through the instance's value
/// setter, learns of typing only from an `input` event whose value differs from that record, and
/// re-renders (writes its state back into the field) on every input event and on a timer.
const CONTROLLED: &str = r#"<!doctype html><html><head><title>Controlled</title></head><body>
<input id="name"><select id="one"><option value="r">Red</option><option value="g">Green</option><option value="b" disabled>Blue</option></select>
<select id="many" multiple><option value="a">A</option><option value="b">B</option><option value="c">C</option></select>
<p id="para">not a field</p>
<script>
  const input = document.getElementById('name');
  const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  let tracked = '', state = '';
  Object.defineProperty(input, 'value', { get() { return native.get.call(this); },
    set(v) { tracked = String(v); native.set.call(this, v); } });
  const render = () => { input.value = state; };
  window.events = { input: 0, change: 0 };
  input.addEventListener('input', () => { events.input++; if (input.value !== tracked) { state = input.value; } render(); });
  input.addEventListener('change', () => events.change++);
  window.rerender = render;
  window.selects = { input: 0, change: 0 };
  const one = document.getElementById('one');
  one.addEventListener('input', () => selects.input++); one.addEventListener('change', () => selects.change++);
</script></body></html>"#;

#[test]
fn fill_select_and_upload() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/controlled.html", CONTROLLED);
    let remote = f.cross_site_url("/upload-remote.html");
    f.html(
        "/upload.html",
        &format!(
            r#"<!doctype html><html><head><title>Upload</title></head><body>
<script>addEventListener('message', e => {{ window.lastMessage = e.data; }});</script>
<input type="file" id="one"><input type="file" id="many" multiple>
<iframe id="remote" title="Remote upload" src="{remote}" width="400" height="100"></iframe></body></html>"#
        ),
    );
    f.html(
        "/upload-remote.html",
        r#"<!doctype html><html><head><title>Remote upload</title></head><body>
<input type="file" id="remote-file" onchange="parent.postMessage('picked:' + this.files[0].name, '*')"></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/controlled.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // fill: the controlled input keeps the value after re-renders; input and change fire once.
    let r = text(&env, &t, &["fill", "#name", "Ada"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser fill\ntarget: #name\ntext_length: 3\n"),
        "{r:?}"
    );
    value(&env, &t, "rerender(); 1");
    assert_eq!(
        value(&env, &t, "document.getElementById('name').value"),
        "Ada"
    );
    assert_eq!(
        value(&env, &t, "events"),
        json!({ "input": 1, "change": 1 })
    );
    // fill x,y: the field at a point.
    let at = value(
        &env,
        &t,
        "(() => { const r = document.getElementById('name').getBoundingClientRect(); return Math.round(r.left + 5) + ',' + Math.round(r.top + 5); })()",
    );
    let at = at.as_str().unwrap_or_default().to_string();
    let v = on(&env, &t, &["fill", &at, "Grace"]);
    assert_eq!(v["data"]["target"], json!({ "coordinates": at }), "{v}");
    value(&env, &t, "rerender(); 1");
    assert_eq!(
        value(&env, &t, "document.getElementById('name').value"),
        "Grace"
    );

    // A field that rejects the text is an error (fill answered ok); one that cuts it at its
    // maxlength took what fits, as of typing: ok, with a warning (fill_and_type_agree_on_maxlength).
    value(
        &env,
        &t,
        "document.body.insertAdjacentHTML('beforeend', \
         '<input id=\"num\" type=\"number\"><input id=\"short\" maxlength=\"3\">\
          <input id=\"day\" type=\"date\">'); 1",
    );
    // A value the input's type rejects is refused before the field is touched: the value it
    // had stays (filling it emptied the field).
    assert_eq!(on(&env, &t, &["fill", "#num", "42"])["ok"], true);
    assert_failure(
        &on(&env, &t, &["fill", "#num", "abc"]),
        "INVALID_ARGUMENT",
        "\"abc\" is not a value it takes (a number, e.g. 12.5 or -3); its value is unchanged",
    );
    assert_eq!(
        value(&env, &t, "document.getElementById('num').value"),
        "42"
    );
    assert_eq!(on(&env, &t, &["fill", "#num", "1e3"])["ok"], true);
    assert_eq!(
        value(&env, &t, "document.getElementById('num').value"),
        "1e3"
    );
    assert_eq!(on(&env, &t, &["fill", "#day", "2027-01-15"])["ok"], true);
    assert_failure(
        &on(&env, &t, &["fill", "#day", "15/01/2027"]),
        "INVALID_ARGUMENT",
        "(YYYY-MM-DD, e.g. 2027-01-15); its value is unchanged",
    );
    assert_eq!(
        value(&env, &t, "document.getElementById('day').value"),
        "2027-01-15"
    );
    assert_eq!(on(&env, &t, &["fill", "#short", "abcdef"])["ok"], true);
    assert_eq!(on(&env, &t, &["fill", "#short", "abc"])["ok"], true);

    // Filling "" empties a field; one empty already stays so, and that is no failure (it was
    // "the input did not reach" it: clearing nothing fires no input event).
    assert_eq!(on(&env, &t, &["fill", "#short", ""])["ok"], true);
    assert_eq!(
        value(&env, &t, "document.getElementById('short').value"),
        ""
    );
    let v = on(&env, &t, &["fill", "#short", ""]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        value(&env, &t, "document.getElementById('short').value"),
        ""
    );

    // select: by value, by display text, several for multiple; a miss lists the options.
    let r = text(&env, &t, &["select", "#one", "g"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser select\ntarget: #one\nvalue: g\nby_text: false\n"),
        "{r:?}"
    );
    assert_eq!(
        value(&env, &t, "[one.value, selects.input, selects.change]"),
        json!(["g", 1, 1])
    );
    let v = on(&env, &t, &["select", "#one", "Red", "--by-text"]);
    assert_eq!(
        v["data"]["value_summary"],
        json!({ "value": "Red", "by_text": true }),
        "{v}"
    );
    assert_eq!(value(&env, &t, "one.value"), "r");
    let v = on(&env, &t, &["select", "#many", "a", "c"]);
    assert_eq!(
        v["data"]["value_summary"],
        json!({ "value": "a,c", "by_text": false, "values": ["a", "c"] }),
        "{v}"
    );
    assert_eq!(
        value(
            &env,
            &t,
            "Array.from(many.selectedOptions).map(o => o.value).join()"
        ),
        "a,c"
    );
    // `value` of a multiple select: the DOM's (the first), and a warning naming every one.
    let v = on(&env, &t, &["value", "#many"]);
    assert_eq!(v["data"]["value"], "a", "{v}");
    assert_eq!(
        v["meta"]["warnings"],
        json!([
            "#many is a multiple select with 2 options selected: \"a\", \"c\" (the value is the first)"
        ]),
        "{v}"
    );
    let v = on(&env, &t, &["select", "#one", "purple"]);
    assert_failure(&v, "ELEMENT_NOT_FOUND", "\"purple\" matches no option");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("\"g\" (text \"Green\")")),
        "{v}"
    );
    assert_eq!(
        v["error"]["details"]["options"][1],
        json!({ "value": "g", "text": "Green" }),
        "{v}"
    );
    assert_eq!(value(&env, &t, "one.value"), "r", "a miss changes nothing");
    assert_failure(
        &on(&env, &t, &["select", "#one", "b"]),
        "ELEMENT_NOT_FOUND",
        "the option of #one with value \"b\" is disabled: nothing was selected; its options are",
    );
    assert_failure(
        &on(&env, &t, &["select", "#one", "r", "g"]),
        "INVALID_ARGUMENT",
        "takes one option",
    );
    assert_failure(
        &on(&env, &t, &["select", "#para", "x"]),
        "INVALID_ARGUMENT",
        "<p>",
    );
    // Behind a modal dialog the select is inert: no user could choose there (it changed).
    value(
        &env,
        &t,
        "const d = document.createElement('dialog'); d.textContent = 'modal'; \
         document.body.append(d); d.showModal(); 1",
    );
    assert_failure(
        &on(&env, &t, &["select", "#one", "g"]),
        "INVALID_ARGUMENT",
        "is inert",
    );
    assert_eq!(
        value(&env, &t, "one.value"),
        "r",
        "an inert select is left alone"
    );
    value(&env, &t, "document.querySelector('dialog').close(); 1");
    assert_eq!(on(&env, &t, &["select", "#one", "g"])["ok"], true);

    // upload: relative paths are made absolute by the CLI; inside an OOPIF too.
    on(&env, &t, &["goto", &f.url("/upload.html")]);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("report.txt"), "hello").expect("write");
    std::fs::write(dir.path().join("b.txt"), "b").expect("write");
    let run_in = |args: &[&str]| {
        let mut c = env.command(&[&["browser"][..], args, &t, &["--json"]].concat());
        c.current_dir(dir.path());
        let out = c.output().expect("run");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    let v = run_in(&["upload", "#one", "report.txt"]);
    let abs = dir.path().join("report.txt").display().to_string();
    assert_eq!(
        v["data"]["value_summary"],
        json!({ "files": [abs], "count": 1 }),
        "{v}"
    );
    assert_eq!(
        value(&env, &t, "document.getElementById('one').files[0].name"),
        "report.txt"
    );
    let v = run_in(&["upload", "#many", "report.txt", "b.txt"]);
    assert_eq!(v["data"]["value_summary"]["count"], 2, "{v}");
    assert_failure(
        &run_in(&["upload", "#one", "report.txt", "b.txt"]),
        "INVALID_ARGUMENT",
        "takes one file",
    );
    let v = run_in(&["upload", "#one", "missing.txt"]);
    assert_failure(&v, "INVALID_ARGUMENT", "missing.txt");
    assert_eq!(v["context"]["tab_id"], "t1", "{v}");
    let r = text(&env, &t, &["upload", "#remote-file", &abs]).ok();
    assert!(
        r.stdout.contains(&format!(
            "ok browser upload\ntarget: #remote-file\nfile: {abs}\ncount: 1\n"
        )),
        "{r:?}"
    );
    assert_eq!(
        value_until(&env, &t, "window.lastMessage", &json!("picked:report.txt")),
        "picked:report.txt"
    );
}

/// Runs `scroll <args>` and checks that it moved something other than the page, named in the
/// warning `<what> (the scrollable area at the viewport's centre)`.
fn scrolled_instead(env: &Env, t: &[&str], args: &[&str], what: &str) {
    let v = on(env, t, args);
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    assert_eq!(
        v["meta"]["warnings"],
        json!([format!(
            "{what} (the scrollable area at the viewport's centre)"
        )]),
        "{v}"
    );
}

#[test]
fn scroll_without_container_moves_the_pane_a_wheel_would() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    // An app layout: the page cannot scroll, the feed (at the centre) and the side bar can.
    f.html(
        "/app.html",
        r#"<!doctype html><html style="height: 100%; overflow: hidden"><head><title>App</title></head>
<body style="margin: 0; height: 100%; overflow: hidden; display: flex">
<nav id="side" style="width: 120px; overflow: auto"><div style="height: 2000px">side</div></nav>
<main id="feed" class="feed list" style="flex: 1; overflow: auto"><div style="height: 3000px"><p>feed</p></div></main>
</body></html>"#,
    );
    f.html(
        "/shadow-app.html",
        r#"<!doctype html><html><head><title>Shadow app</title><style>html, body { height: 100%; margin: 0; overflow: hidden }</style></head>
<body><x-app style="display: block; height: 100%"></x-app><script>
document.querySelector('x-app').attachShadow({ mode: 'open' }).innerHTML =
  '<div class="pane" style="height: 100%; overflow: auto"><div style="height: 3000px">deep</div></div>';
</script></body></html>"#,
    );
    f.html(
        "/long-with-box.html",
        r#"<!doctype html><html><head><title>Long</title></head><body style="margin: 0">
<div style="height: 30vh"></div>
<div id="box" style="height: 60vh; overflow: auto"><div style="height: 3000px">box</div></div>
<div style="height: 3000px">tall</div></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/app.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let centre = "the scrollable area at the viewport's centre";

    scrolled_instead(
        &env,
        &t,
        &["scroll", "down", "300"],
        "the page itself cannot scroll down; scrolled <main#feed.feed>",
    );
    assert_eq!(
        value(&env, &t, "[feed.scrollTop, side.scrollTop, scrollY]"),
        json!([300, 0, 0])
    );
    let v = on(&env, &t, &["scroll", "top"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    assert_eq!(value(&env, &t, "feed.scrollTop"), 0);
    // Nothing can move up: truthfully unchanged, and nothing named.
    let v = on(&env, &t, &["scroll", "up", "100"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], false, "{v}");
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    scrolled_instead(
        &env,
        &t,
        &["scroll", "bottom"],
        "the page itself cannot scroll to the bottom; scrolled <main#feed.feed>",
    );
    assert_eq!(
        value(
            &env,
            &t,
            "feed.scrollHeight - feed.clientHeight - feed.scrollTop < 1"
        ),
        true
    );
    // The feed is at its end: the largest other area in view that can move does.
    let v = on(&env, &t, &["scroll", "down", "100"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    assert_eq!(
        v["meta"]["warnings"],
        json!([
            "the page itself cannot scroll down; scrolled <nav#side> (the largest scrollable \
             area in view)"
        ]),
        "{v}"
    );
    assert_eq!(value(&env, &t, "side.scrollTop"), 100);
    let r = text(&env, &t, &["scroll", "up", "50"]).ok();
    assert!(
        r.stdout.contains(&format!(
            "warning: the page itself cannot scroll up; scrolled <main#feed.feed> ({centre})\n"
        )),
        "{r:?}"
    );

    // The pane at the centre inside an open shadow root.
    on(&env, &t, &["goto", &f.url("/shadow-app.html")]);
    scrolled_instead(
        &env,
        &t,
        &["scroll", "down", "200"],
        "the page itself cannot scroll down; scrolled <div.pane>",
    );
    assert_eq!(
        value(
            &env,
            &t,
            "document.querySelector('x-app').shadowRoot.querySelector('.pane').scrollTop"
        ),
        200
    );

    // A page that scrolls scrolls itself, even over a pane, and names nothing.
    on(&env, &t, &["goto", &f.url("/long-with-box.html")]);
    let v = on(&env, &t, &["scroll", "down", "300"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    assert_eq!(value(&env, &t, "[scrollY, box.scrollTop]"), json!([300, 0]));

    // A long page locked while a modal is open (`overflow: hidden` on the body, as sites do):
    // no user can scroll the page, so the modal's content scrolls, and the page stays put.
    on(
        &env,
        &t,
        &[
            "eval",
            "document.body.style.overflow = 'hidden'; document.body.insertAdjacentHTML('beforeend',              '<div id=\"modal\" style=\"position: fixed; inset: 20vh 20vw; overflow: auto\">             <div style=\"height: 2000px\">terms</div></div>'); 1",
        ],
    );
    scrolled_instead(
        &env,
        &t,
        &["scroll", "down", "200"],
        "the page itself cannot scroll down; scrolled <div#modal>",
    );
    assert_eq!(
        value(&env, &t, "[scrollY, modal.scrollTop]"),
        json!([300, 200])
    );
}

#[test]
fn scroll_every_form_and_eval() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/long.html",
        r#"<!doctype html><html><head><title>Long</title></head><body style="margin: 0">
<div id="box" style="height: 200px; width: 300px; overflow: auto"><div style="height: 1000px; width: 900px"><p id="inside" style="margin-top: 700px">inside</p></div></div>
<div style="height: 3000px; width: 3000px">tall</div><p id="end">End</p><div style="height: 1000px"></div></body></html>"#,
    );
    let sid = env.start(&["--open-url", &f.url("/long.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    let r = text(&env, &t, &["scroll", "down", "300"]).ok();
    assert!(
        r.stdout
            .ends_with("ok browser scroll\ndirection: down\npixels: 300\n"),
        "{r:?}"
    );
    assert_eq!(value(&env, &t, "scrollY"), 300);
    let v = on(&env, &t, &["scroll", "up", "100"]);
    assert_eq!(
        v["data"]["changed"],
        json!({ "url_changed": false, "focus_changed": false, "scroll_changed": true }),
        "{v}"
    );
    assert_eq!(value(&env, &t, "scrollY"), 200);
    on(&env, &t, &["scroll", "right", "50"]);
    on(&env, &t, &["scroll", "left", "20"]);
    assert_eq!(value(&env, &t, "scrollX"), 30);
    let v = on(&env, &t, &["scroll", "bottom"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    // Nothing left to scroll: truthfully unchanged.
    let v = on(&env, &t, &["scroll", "down", "100"]);
    assert_eq!(v["data"]["changed"]["scroll_changed"], false, "{v}");
    on(&env, &t, &["scroll", "top"]);
    assert_eq!(value(&env, &t, "[scrollX, scrollY]"), json!([0, 0]));
    let v = on(&env, &t, &["scroll", "down", "150", "--container", "#box"]);
    assert_eq!(v["data"]["container"], "#box", "{v}");
    assert_eq!(value(&env, &t, "[box.scrollTop, scrollY]"), json!([150, 0]));
    let r = text(
        &env,
        &t,
        &["scroll", "into-view", "#end", "--align", "start"],
    )
    .ok();
    assert!(
        r.stdout
            .ends_with("ok browser scroll\ntarget: #end\ndirection: into-view\nalign: start\n"),
        "{r:?}"
    );
    assert_eq!(
        value(
            &env,
            &t,
            "Math.round(document.getElementById('end').getBoundingClientRect().top)"
        ),
        0
    );
    let v = on(
        &env,
        &t,
        &[
            "scroll",
            "into-view",
            "#inside",
            "--container",
            "#box",
            "--align",
            "start",
        ],
    );
    assert_eq!(v["data"]["changed"]["scroll_changed"], true, "{v}");
    assert_eq!(value(&env, &t, "box.scrollTop"), 700);
    assert_failure(
        &on(&env, &t, &["scroll", "down"]),
        "INVALID_ARGUMENT",
        "pixels",
    );
    assert_failure(
        &on(&env, &t, &["scroll", "down", "abc"]),
        "INVALID_ARGUMENT",
        "abc",
    );
    assert_failure(
        &on(&env, &t, &["scroll", "into-view"]),
        "INVALID_ARGUMENT",
        "needs the element",
    );
    // An element that is not rendered cannot be brought into view (it answered ok).
    value(
        &env,
        &t,
        "const h = document.createElement('div'); h.id = 'unrendered'; h.style.display = 'none'; \
         h.innerHTML = '<span id=\"unrendered-child\">x</span>'; document.body.append(h); 1",
    );
    for sel in ["#unrendered", "#unrendered-child"] {
        assert_failure(
            &on(&env, &t, &["scroll", "into-view", sel]),
            "INVALID_ARGUMENT",
            "not rendered",
        );
    }

    // eval: each call in its own scope, top-level await, --file, stdin, the state before it ran.
    assert_eq!(value(&env, &t, "let x = 1; x"), 1);
    assert_eq!(value(&env, &t, "let x = 2; x + 1"), 3);
    assert_eq!(value(&env, &t, "typeof x"), "undefined");
    assert_eq!(
        value(
            &env,
            &t,
            "await new Promise(r => setTimeout(() => r('late'), 30))"
        ),
        "late"
    );
    assert_eq!(value(&env, &t, "Promise.resolve(7)"), 7);
    // A promise-like value is awaited as `await` would: zone.js (Angular) replaces the page's
    // Promise with one the browser does not take for a promise; a rejection is the script's error.
    let zoned = "class ZoneAwarePromise { constructor(ex) { this.__zone_symbol__state = null; \
                 this.p = new window.NativePromise(ex); } then(a, b) { return this.p.then(a, b); } }; \
                 window.NativePromise = window.NativePromise || Promise; window.Promise = ZoneAwarePromise; 1";
    assert_eq!(value(&env, &t, zoned), 1);
    let v = on(
        &env,
        &t,
        &[
            "eval",
            "new Promise(r => setTimeout(() => r({ a: 1 }), 10))",
        ],
    );
    assert_eq!(
        (&v["data"]["value"], &v["data"]["type"]),
        (&json!({ "a": 1 }), &json!("object")),
        "{v}"
    );
    assert_eq!(
        value(&env, &t, "({ then(r) { r({ then(q) { q(5) } }) } })"),
        5
    );
    crate::support::assert_failure(
        &on(
            &env,
            &t,
            &["eval", "new Promise((_, no) => no(new Error('zoned no')))"],
        ),
        "EVAL_FAILED",
        "zoned no",
    );
    assert_eq!(
        value(&env, &t, "window.Promise = window.NativePromise; 2"),
        2
    );
    let v = on(&env, &t, &["eval", "document.title"]);
    assert_eq!(v["data"]["pre_url"], f.url("/long.html").as_str(), "{v}");
    assert_eq!(v["data"]["pre_readyState"], "complete", "{v}");
    assert!(
        v["data"]["pre_origin"]
            .as_str()
            .is_some_and(|o| o.starts_with("http://127.0.0.1:")),
        "{v}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("code.js"), "const a = 20;\na + 22").expect("write");
    let mut c = env.command(&[&["browser", "eval", "--file", "code.js"][..], &t].concat());
    c.current_dir(dir.path());
    let out = c.output().expect("run");
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with("\n42\n"),
        "{out:?}"
    );
    let mut c = env.command(&[&["browser", "eval", "-"][..], &t].concat());
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, b"'from' + ' stdin'").expect("stdin");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with("\nfrom stdin\n"),
        "{out:?}"
    );
    // Errors stay EVAL_FAILED, their kind in the details.
    let v = on(&env, &t, &["eval", "1;\nsyntax error here("]);
    assert_failure(&v, "EVAL_FAILED", "SyntaxError");
    assert_eq!(
        (
            v["error"]["details"]["kind"].as_str(),
            v["error"]["details"]["line"].as_i64()
        ),
        (Some("syntax"), Some(2)),
        "{v}"
    );
    assert_eq!(v["error"]["details"]["pre_readyState"], "complete", "{v}");
    // Code that ends too early is named as such, on its own last line: the parser's own words,
    // not the wrapper's closing brace ("Unexpected token '}'" one line below the code).
    for (code, message, line) in [
        ("1 +", "SyntaxError: Unexpected end of input", 1),
        (
            "const a = [1,\n  2",
            "SyntaxError: Unexpected end of input",
            2,
        ),
        ("if (a) {\n  f()", "SyntaxError: Unexpected end of input", 2),
        ("`open", "SyntaxError: Unexpected end of input", 1),
        ("1 }", "SyntaxError: Unexpected token '}'", 1),
        ("await 1;\nf(", "SyntaxError: Unexpected end of input", 2),
    ] {
        let v = on(&env, &t, &["eval", code]);
        assert_eq!(
            (
                v["error"]["code"].as_str(),
                v["error"]["details"]["kind"].as_str(),
                v["error"]["details"]["message"].as_str(),
                v["error"]["details"]["line"].as_i64()
            ),
            (
                Some("EVAL_FAILED"),
                Some("syntax"),
                Some(message),
                Some(line)
            ),
            "{code:?}: {v}"
        );
    }
    let v = on(&env, &t, &["eval", "const o = null;\n\no.x"]);
    assert_failure(&v, "EVAL_FAILED", "TypeError");
    assert_eq!(
        (
            v["error"]["details"]["kind"].as_str(),
            v["error"]["details"]["line"].as_i64()
        ),
        (Some("runtime"), Some(3)),
        "{v}"
    );
    // The stack agrees with the line (it showed the wrapper's numbering, one more).
    assert!(
        v["error"]["details"]["stack"]
            .as_str()
            .is_some_and(|s| s.contains("<anonymous>:3:")),
        "{v}"
    );
    let v = on(&env, &t, &["eval", "window"]);
    assert_eq!(v["error"]["details"]["kind"], "not_serializable", "{v}");
    let v = on(&env, &t, &["eval", "while (true) {}", "--timeout", "1000"]);
    assert_eq!(
        (
            v["error"]["code"].as_str(),
            v["error"]["details"]["kind"].as_str()
        ),
        (Some("TIMEOUT"), Some("timeout")),
        "{v}"
    );
    assert_eq!(value(&env, &t, "6 * 7"), 42);
    assert_failure(
        &on(&env, &t, &["eval", ""]),
        "INVALID_ARGUMENT",
        "eval needs code",
    );
}

#[test]
fn fill_and_select_say_what_the_page_changed_after_them() {
    need_chromium!();
    let f = site();
    f.html(
        "/reset.html",
        r#"<!doctype html><title>Reset</title>
<select id="s" onchange="this.value='a'"><option>a</option><option>b</option></select>
<select id="free"><option>a</option><option>b</option></select>
<input id="cleared" onchange="this.value=''">
<input id="upper" oninput="this.value=this.value.toUpperCase()">
<input id="plain"><textarea id="area"></textarea>"#,
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/reset.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let warnings = |v: &serde_json::Value| -> Vec<String> {
        assert_eq!(v["ok"], true, "{v}");
        v["meta"]["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect()
    };
    // The page's change handler set the select back: done, and said (not "the input did not
    // reach" it: the options were chosen and the events fired).
    let w = warnings(&on(&env, &t, &["select", "#s", "b"]));
    assert_eq!(
        w,
        [
            r#"#s holds ["a"] after choosing ["b"]: the page's script set it back (its input or change handler)"#
        ]
    );
    assert!(warnings(&on(&env, &t, &["select", "#free", "b"])).is_empty());
    // A field the page emptied, or formatted: done, and what it holds said.
    let w = warnings(&on(&env, &t, &["fill", "#cleared", "hello"]));
    assert_eq!(
        w,
        [
            "#cleared is empty after the fill: the page's script emptied it (its input or change handler)"
        ]
    );
    let w = warnings(&on(&env, &t, &["fill", "#upper", "hello"]));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(r#"#upper holds "HELLO", not the text filled in"#),
        "{w:?}"
    );
    assert_eq!(
        value(&env, &t, "document.querySelector('#upper').value"),
        "HELLO"
    );
    // Text that stands as filled: nothing to say (an <input> turns line breaks into spaces; a
    // <textarea> keeps them).
    assert!(warnings(&on(&env, &t, &["fill", "#plain", "a\nb\r\nc"])).is_empty());
    assert_eq!(
        value(&env, &t, "document.querySelector('#plain').value"),
        "a b c"
    );
    assert!(warnings(&on(&env, &t, &["fill", "#area", "a\nb"])).is_empty());
    assert_eq!(
        value(&env, &t, "document.querySelector('#area').value"),
        "a\nb"
    );
    assert!(warnings(&on(&env, &t, &["fill", "#area", "a\r\nb"])).is_empty());
}

#[test]
fn keys_that_close_the_tab_say_it_closed_under_them() {
    need_chromium!();
    let f = site();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/page2.html"),
        "--session",
        &sid,
    ]);
    assert_eq!(v["ok"], true, "{v}");
    let tab = v["context"]["tab_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = ["--session", sid.as_str(), "--tab", tab.as_str()];
    // Control+W closes the tab as in a browser: not "not found", as of a tab that never was.
    let v = on(&env, &t, &["press", "Control+w"]);
    assert_failure(
        &v,
        "TAB_NOT_FOUND",
        &format!("tab '{tab}' closed while browser press ran on it"),
    );
    assert_eq!(v["error"]["details"]["tab_id"], tab.as_str(), "{v}");
    let v = env.json(&["browser", "list-tabs", "--session", &sid]);
    let tabs: Vec<&str> = v["data"]["tabs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["tab_id"].as_str())
        .collect();
    assert_eq!(tabs, ["t1"], "{v}");
    // A later command on it: simply not found.
    let v = on(&env, &t, &["title"]);
    assert_failure(&v, "TAB_NOT_FOUND", &format!("tab '{tab}' not found"));
}
