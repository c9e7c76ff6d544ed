//! title, url, eval (spec 5.3 text bodies, 10.4, 10.5, 11.3).

use std::time::{Duration, Instant};

use crate::need_chromium;
use crate::support::{Env, site};

#[test]
fn title_url_eval_text_and_json() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let sid = env.start(&["--open-url", &index]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let header = format!("[s1 t1] {index}\n");

    let r = env.run(&[&["browser", "title"][..], &t].concat()).ok();
    assert_eq!(r.stdout, format!("{header}Fixture Home\n"));
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home");
    assert_eq!(v["context"]["tab_id"], "t1");
    let r = env.run(&[&["browser", "url"][..], &t].concat()).ok();
    assert_eq!(r.stdout, format!("{header}{index}\n"));
    assert_eq!(
        env.json(&[&["browser", "url"][..], &t].concat())["data"]["value"],
        index.as_str()
    );

    let r = env
        .run(&[&["browser", "eval", "1+2"][..], &t].concat())
        .ok();
    assert_eq!(r.stdout, format!("{header}3\n"));
    let v = env.json(&[&["browser", "eval", "1+2"][..], &t].concat());
    assert_eq!(v["data"]["value"], 3);
    assert_eq!(v["data"]["type"], "number");
    assert_eq!(v["data"]["preview"], "3");
    let v = env.json(&[&["browser", "eval", "({a:1,b:[1,2]})"][..], &t].concat());
    assert_eq!(v["data"]["preview"], r#"{"a":1,"b":[1,2]}"#);
    let r = env
        .run(&[&["browser", "eval", "document.title"][..], &t].concat())
        .ok();
    assert_eq!(r.stdout, format!("{header}Fixture Home\n"));
    let v = env.json(
        &[
            &[
                "browser",
                "eval",
                "new Promise(r => setTimeout(() => r('late'), 50))",
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["data"]["value"], "late", "{v}");

    let v = env.json(&[&["browser", "eval", "throw new Error('boom')"][..], &t].concat());
    assert_eq!(v["error"]["code"], "EVAL_FAILED");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("boom")),
        "{v}"
    );
    let r = env.run(&[&["browser", "eval", "syntax error here("][..], &t].concat());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("error EVAL_FAILED: SyntaxError"), "{r:?}");
}

#[test]
fn runaway_script_times_out_and_the_tab_recovers() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = env.json(
        &[
            &["browser", "eval", "while(true){}", "--timeout", "1000"][..],
            &t,
        ]
        .concat(),
    );
    // A script that runs out of time is TIMEOUT (as the reference answers it, and as every
    // operation that ran out of time is), its kind in the details.
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    assert_eq!(v["error"]["details"]["kind"], "timeout", "{v}");
    // Not offered for retry: the script ran (in part), and running it again may repeat what it did.
    assert_eq!(v["error"]["retryable"], false, "{v}");
    let v = env.json(&[&["browser", "eval", "6*7"][..], &t].concat());
    assert_eq!(
        v["data"]["value"], 42,
        "tab unusable after terminateExecution: {v}"
    );
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home");
}

/// `title`/`url` answer from the browser process once it was seen to agree with the page; these
/// are the cases where the two differ (no title, long titles, changes made by commands and by the
/// page itself, navigations).
#[test]
fn title_and_url_follow_the_page() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html("/untitled.html", "<!doctype html><p>no title here</p>");
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let title = || {
        let v = env.json(&[&["browser", "title"][..], &t].concat());
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["data"]["value"], v["context"]["title"], "{v}");
        v["data"]["value"].as_str().unwrap_or_default().to_string()
    };
    let url = || {
        let v = env.json(&[&["browser", "url"][..], &t].concat());
        assert_eq!(v["data"]["value"], v["context"]["url"], "{v}");
        v["data"]["value"].as_str().unwrap_or_default().to_string()
    };
    let eval = |code: &str| {
        let v = env.json(&[&["browser", "eval", code][..], &t].concat());
        assert_eq!(v["ok"], true, "{v}");
    };
    // The page changes itself 200 ms after this command, while reads go on (they may or may not
    // see the change: no timing is assumed); then reads must come to see it and keep seeing it.
    let later = |code: &str| {
        eval(&format!("setTimeout(() => {{ {code} }}, 200)"));
        let _ = title();
        let _ = title();
    };
    let eventually = |what: &str, seen: &dyn Fn() -> bool| {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !seen() {
            assert!(std::time::Instant::now() < until, "never seen: {what}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    // Each read twice: the first after a command goes to the page, the next may not.
    for _ in 0..2 {
        assert_eq!(title(), "Fixture Home");
    }
    eval("document.title = 'Changed by a command'");
    for _ in 0..2 {
        assert_eq!(title(), "Changed by a command");
    }
    eval("document.title = ''");
    for _ in 0..2 {
        assert_eq!(title(), "", "an empty title is not replaced by the URL");
    }
    eval("document.title = 'Before'");
    later("document.title = 'Set by the page'");
    eventually("the page's title", &|| title() == "Set by the page");
    assert_eq!(title(), "Set by the page");
    later("document.title = ''");
    eventually("an empty title", &|| title().is_empty());
    assert_eq!(title(), "", "an empty title is not replaced by the URL");
    eval("document.title = 'Short'");
    later("document.title = 'L'.repeat(5000)");
    eventually("a long title", &|| title() != "Short");
    assert_eq!(title().len(), 5000, "a long title is not truncated");
    assert_eq!(title().len(), 5000, "a long title is not truncated");
    eval("document.title = 'Moving'");
    later("history.pushState({}, '', '/moved.html#here')");
    eventually("the pushed URL", &|| url() == f.url("/moved.html#here"));
    for _ in 0..2 {
        assert_eq!(url(), f.url("/moved.html#here"));
        assert_eq!(title(), "Moving");
    }
    later("location.href = '/untitled.html'");
    eventually("the untitled page", &|| url() == f.url("/untitled.html"));
    for _ in 0..2 {
        assert_eq!(title(), "", "the untitled page's title is not its URL");
        assert_eq!(url(), f.url("/untitled.html"));
    }
    let v = env.json(&[&["browser", "goto", &f.url("/page2.html")][..], &t].concat());
    assert_eq!(v["context"]["title"], "Page Two", "{v}");
    for _ in 0..2 {
        assert_eq!(title(), "Page Two");
    }
    later("location.href = '/index.html'");
    eventually("the home page", &|| title() == "Fixture Home");
    for _ in 0..2 {
        assert_eq!(title(), "Fixture Home");
        assert_eq!(url(), f.url("/index.html"));
    }
}

/// The reference CLI's short snapshot flags, and `--cursor` with an optional value.
#[test]
fn snapshot_short_flags() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let long = env.json(
        &[
            &[
                "browser",
                "snapshot",
                "--interactive",
                "--compact",
                "--depth",
                "3",
                "--selector",
                "form",
            ][..],
            &t,
        ]
        .concat(),
    );
    let short = env.json(
        &[
            &["browser", "snapshot", "-i", "-c", "-d", "3", "-s", "form"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(short["ok"], true, "{short}");
    assert_eq!(
        short["data"]["nodes"], long["data"]["nodes"],
        "{short} vs {long}"
    );
    assert!(
        short["data"]["nodes"]
            .as_array()
            .is_some_and(|n| !n.is_empty() && n.iter().all(|n| n["role"] != "heading")),
        "only the form's controls: {short}"
    );
    let v = env.json(&[&["browser", "snapshot", "--cursor", "true"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
}

/// Values that start with `-` are values, not flags; a stale or unknown ref says how to get
/// fresh ones.
#[test]
fn leading_dash_values_and_ref_hints() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = env.json(&[&["browser", "eval", "-1"][..], &t].concat());
    assert_eq!(v["data"]["value"], -1, "{v}");
    let v = env.json(&[&["browser", "fill", "#name", "-5"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
    let v = env.json(
        &[
            &["browser", "eval", "document.querySelector('#name').value"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(v["data"]["value"], "-5", "{v}");
    let v = env.json(&[&["browser", "click", "@e999"][..], &t].concat());
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("browser snapshot")),
        "{v}"
    );
    let v = env.json(&[&["browser", "snapshot", "--cursor", "false"][..], &t].concat());
    assert_eq!(v["ok"], true, "{v}");
}

/// An `eval` whose value is huge (a 40 MB string, an object holding one) answers an envelope
/// with the value cut to 1 MiB, `meta.truncated: true` and a short preview, in JSON and text;
/// the session keeps working.
#[test]
fn a_huge_eval_value_is_cut_not_fatal() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let limit = 1 << 20;

    let v = env.json(&[&["browser", "eval", "'x'.repeat(40e6)"][..], &t].concat());
    assert_eq!(
        v["ok"],
        true,
        "{}",
        &v.to_string()[..v.to_string().len().min(500)]
    );
    assert_eq!(v["meta"]["truncated"], true);
    assert_eq!(v["data"]["type"], "string");
    assert_eq!(v["data"]["value"].as_str().map(str::len), Some(limit));
    let preview = v["data"]["preview"].as_str().unwrap_or_default();
    assert!(
        preview.starts_with("xxx") && preview.len() < 1000,
        "{preview}"
    );
    let warnings = v["meta"]["warnings"].to_string();
    assert!(warnings.contains("40000000 bytes"), "{warnings}");

    let v = env.json(&[&["browser", "eval", "({big: 'y'.repeat(40e6)})"][..], &t].concat());
    assert_eq!(
        v["ok"],
        true,
        "{}",
        &v.to_string()[..v.to_string().len().min(500)]
    );
    assert_eq!(v["meta"]["truncated"], true);
    assert_eq!(v["data"]["type"], "object");
    let cut = v["data"]["value"].as_str().unwrap_or_default();
    assert!(cut.starts_with("{\"big\":\"yyy") && cut.len() == limit);

    let r = env.run(&[&["browser", "eval", "'z'.repeat(40e6)"][..], &t].concat());
    assert_eq!(r.code, 0, "{}", &r.stderr);
    let body = r.stdout.lines().nth(1).unwrap_or_default();
    assert!(
        body.starts_with("zzz") && body.len() == limit,
        "{}",
        body.len()
    );
    assert!(
        r.stdout.contains("warning: "),
        "{}",
        &r.stdout[r.stdout.len() - 300..]
    );

    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    let v = env.json(&[&["browser", "eval", "1+2"][..], &t].concat());
    assert_eq!(
        (v["data"]["value"].clone(), v["meta"]["truncated"].clone()),
        (3.into(), false.into())
    );
}

#[test]
fn eval_values_are_faithful_in_json_and_text_and_bounded() {
    use serde_json::json;
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/values.html",
        r#"<!doctype html><html><head><title>Values</title></head><body>
<ul id="list"><li class="item">a</li><li class="item hot" id="two">b</li></ul></body></html>"#,
    );
    let url = f.url("/values.html");
    let sid = env.start(&["--open-url", &url]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let header = format!("[{sid} t1] {url}\n");
    // (code, JSON value, text body, type)
    let cases: Vec<(&str, serde_json::Value, &str, &str)> = vec![
        (
            "new Date(0)",
            json!("1970-01-01T00:00:00.000Z"),
            "1970-01-01T00:00:00.000Z",
            "object",
        ),
        ("/re/g", json!("/re/g"), "/re/g", "object"),
        (
            "new Map([[1, 'a'], [{k: 1}, new Set([2])]])",
            json!([[1, "a"], [{"k": 1}, [2]]]),
            r#"[[1,"a"],[{"k":1},[2]]]"#,
            "object",
        ),
        ("new Set([1, 'x'])", json!([1, "x"]), r#"[1,"x"]"#, "object"),
        (
            "document.querySelectorAll('.item')",
            json!(["li.item", "li#two.item.hot"]),
            r#"["li.item","li#two.item.hot"]"#,
            "object",
        ),
        (
            "document.getElementById('list').children",
            json!(["li.item", "li#two.item.hot"]),
            r#"["li.item","li#two.item.hot"]"#,
            "object",
        ),
        (
            "document.querySelector('#two')",
            json!("li#two.item.hot"),
            "li#two.item.hot",
            "object",
        ),
        (
            "({el: document.querySelector('#two'), text: document.querySelector('#two').firstChild})",
            json!({"el": "li#two.item.hot", "text": "#text \"b\""}),
            r##"{"el":"li#two.item.hot","text":"#text \"b\""}"##,
            "object",
        ),
        (
            "({big: 1n, huge: 12345678901234567890})",
            json!({"big": "1n", "huge": 12345678901234567890.0_f64}),
            r#"{"big":"1n","huge":12345678901234567000}"#,
            "object",
        ),
        (
            "12345678901234567890",
            json!(12345678901234567890.0_f64),
            "12345678901234567000",
            "number",
        ),
        ("new Uint8Array([1, 2])", json!([1, 2]), "[1,2]", "object"),
        (
            "new DataView(new Uint8Array([3]).buffer)",
            json!([3]),
            "[3]",
            "object",
        ),
        (
            "(() => { const o = {a: 1}; o.self = o; return o; })()",
            json!({"a": 1, "self": "[Circular]"}),
            r#"{"a":1,"self":"[Circular]"}"#,
            "object",
        ),
        (
            "({p: Promise.resolve(1), w: new WeakMap(), n: new Number(2), s: new String('s')})",
            json!({"n": 2, "p": "[Promise]", "s": "s", "w": "[WeakMap]"}),
            r#"{"n":2,"p":"[Promise]","s":"s","w":"[WeakMap]"}"#,
            "object",
        ),
        (
            "({get bad() { throw new Error('no'); }, w: window, n: NaN})",
            json!({"bad": "[Unreadable: no]", "n": "NaN", "w": "[Window]"}),
            r#"{"bad":"[Unreadable: no]","n":"NaN","w":"[Window]"}"#,
            "object",
        ),
        (
            "new URL('http://x/y')",
            json!("http://x/y"),
            "http://x/y",
            "object",
        ),
        ("[undefined, 1]", json!([null, 1]), "[null,1]", "object"),
        (
            "({d: new Date(0)})",
            json!({"d": "1970-01-01T00:00:00.000Z"}),
            r#"{"d":"1970-01-01T00:00:00.000Z"}"#,
            "object",
        ),
        // An object twice beside (not inside) itself is no cycle.
        (
            "(() => { const o = {a: 1}; o.self = o; return [o, o]; })()",
            json!([{"a": 1, "self": "[Circular]"}, {"a": 1, "self": "[Circular]"}]),
            r#"[{"a":1,"self":"[Circular]"},{"a":1,"self":"[Circular]"}]"#,
            "object",
        ),
        // What worked before still does.
        ("undefined", json!(null), "undefined", "undefined"),
        ("-0", json!("-0"), "-0", "number"),
        ("-Infinity", json!("-Infinity"), "-Infinity", "number"),
        ("1n", json!("1n"), "1n", "bigint"),
        ("Symbol('s')", json!("Symbol(s)"), "Symbol(s)", "symbol"),
        ("Promise.resolve(/p/)", json!("/p/"), "/p/", "object"),
    ];
    for (code, want, text, kind) in cases {
        let v = env.json(&[&["browser", "eval", code][..], &t].concat());
        assert_eq!(v["data"]["value"], want, "{code}: {v}");
        assert_eq!(v["data"]["type"], kind, "{code}: {v}");
        assert_eq!(v["data"]["preview"], text, "{code}: {v}");
        assert_eq!(v["meta"]["truncated"], false, "{code}: {v}");
        let r = env.run(&[&["browser", "eval", code][..], &t].concat()).ok();
        assert_eq!(r.stdout, format!("{header}{text}\n"), "{code}");
    }
    let v = env.json(&[&["browser", "eval", "new Error('e', {cause: 'c'})"][..], &t].concat());
    let e = &v["data"]["value"];
    assert_eq!(
        (&e["name"], &e["message"], &e["cause"]),
        (&json!("Error"), &json!("e"), &json!("c")),
        "{v}"
    );
    assert!(
        e["stack"]
            .as_str()
            .is_some_and(|s| s.starts_with("Error: e\n")),
        "{v}"
    );
    let r = env
        .run(&[&["browser", "eval", "new Error('e')"][..], &t].concat())
        .ok();
    assert!(
        r.stdout.starts_with(&format!(
            "{header}{{\"message\":\"e\",\"name\":\"Error\",\"stack\":\"Error: e\\n"
        )),
        "{r:?}"
    );

    // Big: cut at 1 MiB (it used to fail past 100,000 items).
    let code = "Array.from({length: 300000}, (_, i) => i)";
    let v = env.json(&[&["browser", "eval", code][..], &t].concat());
    assert_eq!(v["meta"]["truncated"], true, "{}", &v.to_string()[..300]);
    let cut = v["data"]["value"].as_str().unwrap_or_default();
    assert!(
        cut.starts_with("[0,1,2,") && cut.len() == 1 << 20,
        "{}",
        cut.len()
    );
    let r = env.run(&[&["browser", "eval", code][..], &t].concat()).ok();
    assert!(r.stdout.starts_with(&format!("{header}[0,1,2,")) && r.stdout.contains("warning: "));
    // The same string many times over is bounded in the page, not built whole.
    let code = "Array(50000).fill('x'.repeat(100000))";
    let v = env.json(&[&["browser", "eval", code][..], &t].concat());
    assert_eq!(v["meta"]["truncated"], true, "{}", &v.to_string()[..300]);
    // Deep: objects past 100 levels are their type, said in a warning (it used to fail).
    let code = "(() => { let o = {}; for (let i = 0; i < 1000; i++) o = {n: o}; return o; })()";
    let v = env.json(&[&["browser", "eval", code][..], &t].concat());
    assert_eq!(v["meta"]["truncated"], true, "{}", v["meta"]);
    let mut deep = &v["data"]["value"];
    for _ in 0..100 {
        deep = &deep["n"];
    }
    assert_eq!(deep, &json!("[Object]"), "{}", v["meta"]);
    assert!(
        v["meta"]["warnings"].to_string().contains("100 levels"),
        "{}",
        v["meta"]
    );
    let r = env.run(&[&["browser", "eval", code][..], &t].concat()).ok();
    assert!(
        r.stdout.contains("\"[Object]\"}") && r.stdout.contains("warning: "),
        "{r:?}"
    );
    // The window itself is still refused, saying why.
    let v = env.json(&[&["browser", "eval", "window"][..], &t].concat());
    assert_eq!(v["error"]["details"]["kind"], "not_serializable", "{v}");
    assert!(
        v["error"]["message"].to_string().contains("the window"),
        "{v}"
    );
    // The tab is fine afterwards.
    let v = env.json(&[&["browser", "eval", "1+2"][..], &t].concat());
    assert_eq!(v["data"]["value"], 3, "{v}");
}

/// Runs `browser <args...> --timeout <ms>` on the tab and returns its envelope and how much later
/// than `ms` it answered (zero when in time). The bound the tests put on that is generous (a slow
/// machine must not fail them): it tells "answers at about its deadline" from "answers seconds
/// late, or never".
fn timed(env: &Env, t: &[&str], args: &[&str], ms: u64) -> (serde_json::Value, Duration) {
    let ms_text = ms.to_string();
    let started = Instant::now();
    let v = env.json(&[&["browser"][..], args, &["--timeout", &ms_text][..], t].concat());
    let late = started.elapsed().saturating_sub(Duration::from_millis(ms));
    (v, late)
}

/// How late past its `--timeout` a command may answer in these tests (a few hundred ms is what
/// it takes; seconds late means it waited on a page that did not answer).
const LATE_BOUND: Duration = Duration::from_secs(5);

/// A session on `/index.html` whose page holds `keep = 41` (`keep + 1` is 42 while the page is
/// usable with its state intact).
fn keeping_41(env: &Env, f: &crate::support::Fixture) -> String {
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = env.json(&[&["browser", "eval", "globalThis.keep = 41; 1"][..], &t].concat());
    assert_eq!(v["data"]["value"], 1, "{v}");
    sid
}

/// A script that runs past `--timeout` (a loop, a promise that never settles, a getter of its
/// value that never returns, a condition that loops) answers at its deadline, is stopped, and the
/// page is usable after it with its state intact.
#[test]
fn runaway_scripts_stop_at_the_deadline_and_the_page_keeps_its_state() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = keeping_41(&env, &f);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let usable = |after: &str| {
        let v = env.json(&[&["browser", "eval", "keep + 1"][..], &t].concat());
        assert_eq!(v["data"]["value"], 42, "the page after {after}: {v}");
    };
    for code in [
        "while (true) {}",
        "new Promise(() => {})",
        "await new Promise(() => {})",
        "(async () => { await 0; while (true) {} })()",
        // The script ends; reading its value runs a getter that never does.
        "({get a() { while (true) {} }})",
    ] {
        let (v, late) = timed(&env, &t, &["eval", code], 1500);
        assert_eq!(
            (
                v["error"]["code"].as_str(),
                v["error"]["details"]["kind"].as_str()
            ),
            (Some("TIMEOUT"), Some("timeout")),
            "{code}: {v}"
        );
        assert!(late < LATE_BOUND, "{code}: answered {late:?} late: {v}");
        usable(code);
    }
    for code in ["(() => { while (true) {} })()", "new Promise(() => {})"] {
        let (v, late) = timed(&env, &t, &["wait", "condition", code], 1500);
        assert_eq!(v["error"]["code"], "TIMEOUT", "{code}: {v}");
        assert!(late < LATE_BOUND, "{code}: answered {late:?} late: {v}");
        usable(code);
    }
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
}

/// A script the page cannot stop at once (it waits in a synchronous request, where terminating
/// it takes effect only when the request is done) does not hold the answer past the deadline; the
/// page is stopped and usable once it is free.
#[test]
fn a_script_the_page_cannot_stop_at_once_does_not_hold_the_answer() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.route("/hang", "text/plain", "late", Duration::from_secs(9));
    let sid = keeping_41(&env, &f);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let code = "const x = new XMLHttpRequest(); x.open('GET', '/hang', false); x.send(); \
                while (true) {}";
    let (v, late) = timed(&env, &t, &["eval", code], 1500);
    assert_eq!(v["error"]["details"]["kind"], "timeout", "{v}");
    assert!(late < LATE_BOUND, "answered {late:?} late: {v}");
    // Once the request is done the loop after it is stopped: the page answers again.
    let v = env.json(&[&["browser", "eval", "keep + 1"][..], &t].concat());
    assert_eq!(v["data"]["value"], 42, "{v}");
}

/// A huge string value (200 MB; the browser sends it whole, so it takes seconds to arrive) with a
/// short `--timeout`: the answer comes at about the deadline (the value cut, or the script
/// stopped), and the page and the daemon keep answering.
#[test]
fn a_huge_value_with_a_short_timeout_answers_at_the_deadline() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = keeping_41(&env, &f);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let (v, late) = timed(&env, &t, &["eval", "'x'.repeat(200e6)"], 2000);
    let head = &v.to_string()[..v.to_string().len().min(600)];
    match v["ok"].as_bool() {
        Some(true) => assert_eq!(v["meta"]["truncated"], true, "{head}"),
        _ => assert_eq!(v["error"]["details"]["kind"], "timeout", "{head}"),
    }
    assert!(late < LATE_BOUND, "answered {late:?} late: {head}");
    let v = env.json(&[&["browser", "eval", "keep + 1"][..], &t].concat());
    assert_eq!(v["data"]["value"], 42, "{v}");
    let v = env.json(&[&["browser", "title"][..], &t].concat());
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
}
