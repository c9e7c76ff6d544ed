//! `browser wait element | text | url | navigation | network-idle | condition` on real Chromium:
//! elements and texts added by timers (main frame and OOPIF, by CSS, by ref and by text), URLs
//! reached by history changes and navigations, navigations started by a timer, the network
//! of every frame (requests in flight at the start, requests started later, an OOPIF's own), truthy
//! conditions and throwing ones, timeouts with what was observed, and waits that leave the other
//! tabs alone.

use std::time::Duration;

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, ref_of};

fn on(env: &Env, t: &[&str], args: &[&str]) -> Value {
    env.json(&[&["browser"][..], args, t].concat())
}

#[track_caller]
fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v}");
    &v["data"]
}

#[track_caller]
fn elapsed(v: &Value) -> u64 {
    ok(v)["elapsed_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("no elapsed_ms: {v}"))
}

/// Whether `v` is a string ending with `suffix`.
fn ends_with(v: &Value, suffix: &str) -> bool {
    v.as_str().is_some_and(|s| s.ends_with(suffix))
}

#[track_caller]
fn timed_out(v: &Value) -> &Value {
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    &v["error"]["details"]
}

const SLOW: Duration = Duration::from_millis(2000);

fn fixture() -> Fixture {
    let f = Fixture::start();
    let oop = f.cross_site_url("/w/oop.html");
    f.html(
        "/w/index.html",
        &format!(
            r#"<!doctype html><html><head><title>Waits</title></head><body>
<h1>Waits</h1>
<button id="later" onclick="setTimeout(() => {{ const d = document.createElement('div'); d.id = 'late'; d.textContent = 'late'; document.body.appendChild(d); }}, 1500)">Later</button>
<button id="go" onclick="setTimeout(() => {{ location.href = '/w/next.html'; }}, 1500)">Go</button>
<div id="shown">shown</div>
<iframe id="oop" title="Remote" src="{oop}" width="300" height="120"></iframe>
<script>
  window.fetchLater = (path, ms) => setTimeout(() => fetch(path), ms);
  window.askFrame = (path) => document.getElementById('oop').contentWindow.postMessage({{fetch: path}}, '*');
</script>
</body></html>"#
        ),
    );
    f.html(
        "/w/oop.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body>
<button id="oop-btn">Remote button</button>
<script>
  window.addEventListener('message', e => {
    if (e.data && e.data.fetch) fetch(e.data.fetch);
    if (e.data === 'add') setTimeout(() => { const b = document.createElement('p'); b.id = 'oop-late'; b.textContent = 'oop late'; document.body.appendChild(b); }, 1500);
    if (e.data === 'remove') setTimeout(() => document.getElementById('oop-btn').remove(), 1500);
  });
</script>
</body></html>"#,
    );
    f.html(
        "/w/next.html",
        "<!doctype html><html><head><title>Next</title></head><body><h1>Next</h1></body></html>",
    );
    for p in ["/w/slow-a", "/w/slow-b", "/w/slow-c"] {
        f.route(p, "text/plain", "slow", SLOW);
    }
    f.route("/w/forever", "text/plain", "late", Duration::from_secs(8));
    f
}

/// `browser wait condition <code> --timeout <timeout_ms>` on the tab.
fn condition(env: &Env, t: &[&str], code: &str, timeout_ms: u32) -> Value {
    let timeout = timeout_ms.to_string();
    on(env, t, &["wait", "condition", code, "--timeout", &timeout])
}

fn eval(env: &Env, t: &[&str], code: &str) -> Value {
    let v = on(env, t, &["eval", code]);
    ok(&v)["value"].clone()
}

#[test]
fn wait_element_in_the_page_and_in_an_oopif_by_css_and_by_ref() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // Already there: answered at once, in text and JSON.
    let run = env.run(
        &[
            &["browser", "wait", "element", "#shown", "--timeout", "5000"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with(&format!("[{sid} t1] http://127.0.0.1:")));
    assert_eq!(lines[1], "ok browser wait element");
    assert!(lines[2].starts_with("elapsed_ms: "), "{}", run.stdout);
    let v = on(
        &env,
        &t,
        &["wait", "element", "#shown", "--timeout", "5000"],
    );
    assert_eq!(v["command"], "browser wait element");
    assert_eq!(ok(&v)["kind"], "element");
    assert_eq!(ok(&v)["satisfied"], true);
    assert_eq!(
        ok(&v)["observed_value"],
        serde_json::json!({"selector": "#shown"})
    );
    // The spec requires --timeout on every wait: without it, a clear error, not a guess.
    for kind in [
        &["element", "#shown"][..],
        &["navigation"],
        &["network-idle"],
        &["condition", "true"],
    ] {
        let v = on(&env, &t, &[&["wait"][..], kind].concat());
        assert_eq!(v["ok"], false, "{v}");
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("needs --timeout"),
            "{v}"
        );
        // The hint names the exact flag an agent can add.
        assert!(
            v["error"]["hint"]
                .as_str()
                .unwrap_or("")
                .contains("--timeout 30000"),
            "{v}"
        );
        assert_eq!(v["context"]["tab_id"], "t1", "{v}");
    }
    // And `--help` says it before anyone runs into it.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_actionbook"))
        .args(["browser", "wait", "element", "--help"])
        .output()
        .expect("actionbook --help runs");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--timeout <ms> is required"), "{help}");

    // Added by a timer 1.5 s after the click (absent when the wait begins).
    ok(&on(&env, &t, &["click", "#later"]));
    assert_eq!(eval(&env, &t, "!!document.getElementById('late')"), false);
    ok(&on(
        &env,
        &t,
        &["wait", "element", "#late", "--timeout", "8000"],
    ));
    assert_eq!(eval(&env, &t, "!!document.getElementById('late')"), true);

    // Inside the OOPIF, by CSS (every frame is searched).
    eval(
        &env,
        &t,
        "document.getElementById('oop').contentWindow.postMessage('add', '*'), 1",
    );
    let v = on(
        &env,
        &t,
        &["wait", "element", "#oop-late", "--timeout", "300"],
    );
    timed_out(&v);
    ok(&on(
        &env,
        &t,
        &["wait", "element", "#oop-late", "--timeout", "8000"],
    ));

    // By ref, in the OOPIF: there now; then gone (detached) after the frame removes it.
    let snap = on(&env, &t, &["snapshot"]);
    let btn = ref_of(&snap, "button", "Remote button");
    ok(&on(
        &env,
        &t,
        &["wait", "element", &btn, "--timeout", "3000"],
    ));
    eval(
        &env,
        &t,
        "document.getElementById('oop').contentWindow.postMessage('remove', '*'), 1",
    );
    let v = on(
        &env,
        &t,
        &[
            "wait",
            "element",
            &btn,
            "--state",
            "detached",
            "--timeout",
            "300",
        ],
    );
    timed_out(&v);
    ok(&on(
        &env,
        &t,
        &[
            "wait",
            "element",
            &btn,
            "--state",
            "detached",
            "--timeout",
            "8000",
        ],
    ));
    // A ref never handed out cannot appear: an error at once, not a timeout.
    let v = on(&env, &t, &["wait", "element", "@e999", "--timeout", "3000"]);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");

    // Visible / hidden.
    eval(
        &env,
        &t,
        "document.getElementById('shown').style.display = 'none', setTimeout(() => document.getElementById('shown').style.display = '', 1500), 1",
    );
    let v = on(
        &env,
        &t,
        &[
            "wait",
            "element",
            "#shown",
            "--state",
            "visible",
            "--timeout",
            "300",
        ],
    );
    // Not visible yet (under heavy load no look may have finished in 300 ms: then not known).
    assert_ne!(timed_out(&v)["observed_value"]["visible"], true, "{v}");
    ok(&on(
        &env,
        &t,
        &[
            "wait",
            "element",
            "#shown",
            "--state",
            "visible",
            "--timeout",
            "8000",
        ],
    ));
    ok(&on(
        &env,
        &t,
        &[
            "wait",
            "element",
            "#nothing",
            "--state",
            "hidden",
            "--timeout",
            "2000",
        ],
    ));

    // A timeout says how long it waited and what it saw; the text form prints the error.
    let v = on(&env, &t, &["wait", "element", "#never", "--timeout", "800"]);
    let details = timed_out(&v);
    assert!(details["elapsed_ms"].as_u64().unwrap_or(0) >= 700, "{v}");
    assert_eq!(details["observed_value"]["selector"], "#never", "{v}");
    assert_eq!(details["observed_value"]["found"], false, "{v}");
    let run = env.run(
        &[
            &["browser", "wait", "element", "#never", "--timeout", "300"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr
            .contains("error TIMEOUT: browser wait element timed out after 300ms"),
        "{run:?}"
    );
    // A bad selector is the user's error, at once.
    let v = on(&env, &t, &["wait", "element", "div[", "--timeout", "3000"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}

#[test]
fn wait_text_until_a_frame_shows_it_or_nothing_does() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let wait = |args: &[&str], timeout: &str| {
        on(
            &env,
            &t,
            &[&["wait", "text"][..], args, &["--timeout", timeout]].concat(),
        )
    };

    // Shown now, case and runs of whitespace aside: at once.
    let v = wait(&["WAITS"], "5000");
    assert_eq!(v["command"], "browser wait text");
    assert_eq!(ok(&v)["kind"], "text");
    assert_eq!(
        ok(&v)["observed_value"],
        json!({"text": "WAITS", "gone": false})
    );
    // Text a timer adds later, quotes, a backslash and parentheses in it.
    eval(
        &env,
        &t,
        r#"setTimeout(() => { const p = document.createElement('p'); p.innerHTML = 'Saved:  <b>"draft"</b> (2) \\ ok'; document.body.appendChild(p); }, 1500), 1"#,
    );
    // Not there yet (the timer has 1.5 s to go), then there.
    timed_out(&wait(&[r#"saved: "draft" (2) \ ok"#], "300"));
    ok(&wait(&[r#"saved: "draft" (2) \ ok"#], "10000"));
    // Text in the page's DOM that nothing shows (display: none, <template>, the title) is not shown.
    eval(
        &env,
        &t,
        "document.body.insertAdjacentHTML('beforeend', '<div style=\"display:none\"><span>Secret note</span></div><template><p>Template note</p></template>'), 1",
    );
    for text in ["secret note", "template note", "Waits Waits"] {
        let d = timed_out(&wait(&[text], "1500")).clone();
        assert_eq!(d["observed_value"]["found"], false, "{text}: {d}");
        assert_eq!(d["observed_value"]["text"], text, "{d}");
    }
    // Shown by several elements: no warning about which (the selector behind it is ours).
    eval(
        &env,
        &t,
        "document.body.insertAdjacentHTML('beforeend', '<p>twice</p><p>twice</p>'), 1",
    );
    let v = wait(&["twice"], "5000");
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    // In the OOPIF: shown now; then text it adds later.
    ok(&wait(&["remote BUTTON"], "5000"));
    eval(
        &env,
        &t,
        "document.getElementById('oop').contentWindow.postMessage('add', '*'), 1",
    );
    timed_out(&wait(&["oop late"], "300"));
    ok(&wait(&["oop late"], "10000"));
    // --gone: until the frame removes the only element showing it.
    eval(
        &env,
        &t,
        "document.getElementById('oop').contentWindow.postMessage('remove', '*'), 1",
    );
    timed_out(&wait(&["Remote button", "--gone"], "300"));
    let v = wait(&["Remote button", "--gone"], "10000");
    assert_eq!(
        ok(&v)["observed_value"],
        json!({"text": "Remote button", "gone": true})
    );
    // Gone already: at once; shown still: TIMEOUT, having found it.
    ok(&wait(&["secret note", "--gone"], "5000"));
    let d = timed_out(&wait(&["oop late", "--gone"], "1500")).clone();
    assert_eq!(d["observed_value"]["found"], true, "{d}");
    // No text: INVALID_ARGUMENT, not a wait for anything.
    let v = wait(&["  "], "300");
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}

#[test]
fn wait_url_until_the_page_is_there_by_history_or_by_navigation() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let wait = |pattern: &str, timeout: &str| {
        on(&env, &t, &["wait", "url", pattern, "--timeout", timeout])
    };

    // There already: at once, with the URL it matched.
    let v = wait("/w/index", "5000");
    assert_eq!(v["command"], "browser wait url");
    assert_eq!(ok(&v)["kind"], "url");
    assert!(
        ends_with(&ok(&v)["observed_value"]["url"], "/w/index.html"),
        "{v}"
    );
    // A history change (no new document) a timer makes: a whole-URL pattern with stars.
    eval(
        &env,
        &t,
        "setTimeout(() => history.pushState({}, '', '/w/pushed?step=2'), 1500), 1",
    );
    timed_out(&wait("**/w/pushed?step=*", "300"));
    ok(&wait("**/w/pushed?step=*", "10000"));
    // A navigation to another document, by a regular expression.
    on(&env, &t, &["click", "#go"]);
    timed_out(&wait(r"/\/next\.html$/", "300"));
    let v = wait(r"/\/next\.html$/", "10000");
    assert!(
        ends_with(&ok(&v)["observed_value"]["url"], "/w/next.html"),
        "{v}"
    );
    // Never: TIMEOUT with the URL it last saw.
    let d = timed_out(&wait("**/never*", "300")).clone();
    assert!(
        ends_with(&d["observed_value"]["url"], "/w/next.html"),
        "{d}"
    );
    assert_eq!(d["observed_value"]["pattern"], "**/never*", "{d}");
    // A pattern that is not one: INVALID_ARGUMENT, not a wait.
    for bad in ["/(/", " "] {
        let v = wait(bad, "300");
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{bad}: {v}");
    }
}

#[test]
fn wait_navigation_and_condition() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // A click whose handler navigates 1.5 s later.
    ok(&on(&env, &t, &["click", "#go"]));
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "8000"]);
    let d = ok(&v);
    assert_eq!(d["kind"], "navigation");
    assert!(
        ends_with(&d["observed_value"]["url"], "/w/next.html"),
        "{v}"
    );
    assert_eq!(d["observed_value"]["ready_state"], "complete");
    assert!(ends_with(&v["context"]["url"], "/w/next.html"), "{v}");
    assert_eq!(v["context"]["title"], "Next");

    // Nothing navigates: TIMEOUT with the page as it is.
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "600"]);
    let details = timed_out(&v);
    assert!(
        ends_with(&details["observed_value"]["url"], "/w/next.html"),
        "{v}"
    );
    // A navigation that ended before the wait was called (quicker than the agent) counts: its
    // document arrived after the tab's previous command.
    eval(
        &env,
        &t,
        "setTimeout(() => { location.href = '/w/index.html'; }, 100), 1",
    );
    std::thread::sleep(std::time::Duration::from_secs(2));
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "5000"]);
    let d = ok(&v);
    assert!(
        ends_with(&d["observed_value"]["url"], "/w/index.html"),
        "{v}"
    );
    assert_eq!(d["observed_value"]["ready_state"], "complete", "{v}");
    // ... once: the next wait is for a navigation after that one.
    timed_out(&on(&env, &t, &["wait", "navigation", "--timeout", "600"]));

    // Conditions: a value set by a timer; a promise; a throw; a timeout.
    eval(
        &env,
        &t,
        "setTimeout(() => { window.flag = 'up'; }, 1500), 1",
    );
    let v = condition(&env, &t, "window.flag", 300);
    assert_eq!(timed_out(&v)["observed_value"], Value::Null, "{v}");
    let v = condition(&env, &t, "window.flag", 8000);
    assert_eq!(ok(&v)["kind"], "condition");
    assert_eq!(ok(&v)["observed_value"], "up");
    let v = condition(
        &env,
        &t,
        "new Promise(r => setTimeout(() => r(42), 200))",
        5000,
    );
    assert_eq!(ok(&v)["observed_value"], 42);
    let v = condition(&env, &t, "window.nope.deeper", 5000);
    assert_eq!(v["error"]["code"], "EVAL_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("TypeError"),
        "{v}"
    );
    let v = condition(&env, &t, "document.title === 'never'", 600);
    assert_eq!(timed_out(&v)["observed_value"], false, "{v}");
    // Text form.
    let run = env.run(
        &[
            &["browser", "wait", "condition", "1 + 1", "--timeout", "5000"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .contains("\nok browser wait condition\nelapsed_ms: "),
        "{run:?}"
    );
}

#[test]
fn network_idle_counts_requests_of_every_frame_including_those_in_flight() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let slow = SLOW.as_millis() as u64;

    // An idle page: quiet for 500 ms from the start of the wait.
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "5000"]);
    assert_eq!(ok(&v)["kind"], "network-idle");
    assert_eq!(
        ok(&v)["observed_value"],
        serde_json::json!({"idle": true, "pending": 0})
    );
    assert!(elapsed(&v) >= 500, "{v}");

    // A fetch the page starts 300 ms later, as a rule once the wait has begun, within its first
    // quiet 500 ms (its body is never read).
    eval(&env, &t, &format!("fetchLater('{}', 300), 1", "/w/slow-a"));
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert!(elapsed(&v) >= slow / 2, "the fetch took {slow} ms: {v}");

    // A fetch already in flight when the wait begins.
    eval(&env, &t, "fetch('/w/slow-b').then(r => r.text()), 1");
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert!(elapsed(&v) >= slow / 2, "the fetch was in flight: {v}");

    // A request of the OOPIF (its own process and session).
    eval(
        &env,
        &t,
        &format!("askFrame('{}'), 1", f.cross_site_url("/w/slow-c")),
    );
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert!(
        elapsed(&v) >= slow / 2,
        "the OOPIF's fetch was in flight: {v}"
    );

    // Never idle in time: TIMEOUT naming what is pending.
    eval(&env, &t, "fetch('/w/forever'), 1");
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "1000"]);
    let details = timed_out(&v);
    assert_eq!(details["observed_value"]["idle"], false, "{v}");
    assert!(
        details["observed_value"]["pending"].as_u64().unwrap_or(0) >= 1,
        "{v}"
    );
    let urls = details["observed_value"]["requests"].to_string();
    assert!(urls.contains("/w/forever"), "{v}");
}

#[test]
fn a_wait_does_not_hold_the_other_tabs() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    ok(&env.json(&[
        "browser",
        "new-tab",
        &f.url("/w/next.html"),
        "--session",
        &sid,
    ]));
    let waiting = env
        .command(&[
            "browser",
            "wait",
            "condition",
            "(localStorage.setItem('polled', String(Date.now())), false)",
            "--session",
            &sid,
            "--tab",
            "t1",
            "--timeout",
            "8000",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the wait");
    let mut waiting = waiting;
    // The two pages share an origin, so t1's condition, each time it is evaluated, leaves a mark
    // that t2 can read: once t2 sees it, t1's wait is running.
    let mut running = false;
    for _ in 0..200 {
        let v = env.json(&[
            "browser",
            "eval",
            "localStorage.getItem('polled')",
            "--session",
            &sid,
            "--tab",
            "t2",
        ]);
        if ok(&v)["value"].is_string() {
            running = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(running, "t1's wait never started");
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t2"]);
    assert_eq!(ok(&v)["value"], "Next");
    // t2 answered while t1's wait was still running.
    assert!(
        matches!(waiting.try_wait(), Ok(None)),
        "title on t2 only answered after t1's wait ended"
    );
    let out = waiting.wait_with_output().expect("the wait ends");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    timed_out(&v);
}

/// Starts `wait <args>` on tab `t` in a client of its own (JSON on its stdout) and returns once the
/// wait holds the tab.
fn holding_wait(env: &Env, t: &[&str], args: &[&str]) -> std::process::Child {
    crate::support::holding(env, t, &[&["wait"][..], args].concat())
}

/// A wait whose client is gone (killed, or given up) stops at once instead of holding its tab
/// until its own `--timeout`, however long that is.
#[test]
fn a_wait_whose_client_is_gone_frees_the_tab() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let mut waiting = holding_wait(&env, &t, &["condition", "false", "--timeout", "600000"]);
    let _ = waiting.kill();
    let _ = waiting.wait();
    let v = on(&env, &t, &["title", "--timeout", "10000"]);
    assert_eq!(ok(&v)["value"], "Waits", "{v}");
}

/// A tab closed while a command runs on it: the command answers TAB_NOT_FOUND (not a CDP
/// connection error).
#[test]
fn a_tab_closed_under_a_wait_is_not_found() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/w/index.html"),
        "--session",
        &sid,
    ]);
    let tab = v["context"]["tab_id"].as_str().unwrap_or("t2").to_string();
    let t = ["--session", sid.as_str(), "--tab", tab.as_str()];
    let waiting = holding_wait(&env, &t, &["element", "#never", "--timeout", "60000"]);
    let v = env.json(&["browser", "close-tab", "--session", &sid, "--tab", &tab]);
    assert_eq!(v["ok"], true, "{v}");
    let out = waiting.wait_with_output().expect("the waiting client");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(v["error"]["code"], "TAB_NOT_FOUND", "{v}");
}

/// A condition written as statements (`const el = ...; el && ...`, as `browser eval` takes them)
/// is waited on by its last statement's value, with the same truthiness; a page that changes
/// later meets it; a syntax error or a throw is still EVAL_FAILED, and a loop is TIMEOUT with the
/// tab usable after.
#[test]
fn wait_condition_takes_statements_as_eval_does() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for (code, want) in [
        ("var a = 1; a", json!(1)),
        ("const h = document.querySelector('h1'); !!h", json!(true)),
        ("let o = {b: 2}; o", json!({"b": 2})),
        (
            "const d = new Date(0); d",
            json!("1970-01-01T00:00:00.000Z"),
        ),
        (
            "await new Promise(r => setTimeout(r, 50)); 'later'",
            json!("later"),
        ),
        ("const p = 5; Promise.resolve(p)", json!(5)),
        ("const n = 10n; n", json!("10n")),
    ] {
        let v = condition(&env, &t, code, 5000);
        assert_eq!(ok(&v)["observed_value"], want, "{code}: {v}");
    }
    for (code, want) in [
        ("const z = 0; z", json!(0)),
        ("void 0; NaN", json!("NaN")),
        ("void 0; -0", json!("-0")),
        ("void 0; 0n", json!("0n")),
        ("void 0; ''", json!("")),
        ("void 0; null", Value::Null),
        ("let u; u", Value::Null),
    ] {
        let v = condition(&env, &t, code, 300);
        assert_eq!(timed_out(&v)["observed_value"], want, "{code}: {v}");
    }
    // Met once the page changes: the statements are run again each look.
    let v = condition(
        &env,
        &t,
        "setTimeout(() => { window.seven = 7 }, 300); const l = window.seven; l",
        8000,
    );
    assert_eq!(ok(&v)["observed_value"], 7, "{v}");
    for code in [
        "let = ;",
        "const q = 1; JSON.parse('x')",
        "const r = 1; throw new Error('no')",
    ] {
        let v = condition(&env, &t, code, 3000);
        assert_eq!(v["error"]["code"], "EVAL_FAILED", "{code}: {v}");
    }
    // Statements that end too early are told so, as eval tells them.
    let v = condition(&env, &t, "const q = 1;\nq +", 3000);
    assert_eq!(
        (
            v["error"]["details"]["message"].as_str(),
            v["error"]["details"]["line"].as_i64()
        ),
        (Some("SyntaxError: Unexpected end of input"), Some(2)),
        "{v}"
    );
    let v = condition(&env, &t, "window.keep = 41; while (true) {}; 1", 1500);
    timed_out(&v);
    assert_eq!(eval(&env, &t, "window.keep + 1"), 42);
}

/// The value a `wait condition` reports is the one `browser eval` gives (a Date its ISO text, a
/// Map its pairs, a BigInt `"1n"`, NaN by name, a cycle `"[Circular]"`, a huge value cut and
/// said so), while the condition holds by JavaScript's own truthiness (`new Boolean(false)`, an
/// empty array and a Date are truthy; `0n`, NaN, `""`, `0`, `null`, `undefined` and
/// `document.all` are not).
#[test]
fn wait_condition_reports_values_as_eval_does_and_holds_by_javascript_truthiness() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let met = |code: &str| -> Value {
        let v = condition(&env, &t, code, 5000);
        assert_eq!(v["meta"]["truncated"], false, "{code}: {v}");
        ok(&v)["observed_value"].clone()
    };
    for (code, want) in [
        ("new Date(0)", json!("1970-01-01T00:00:00.000Z")),
        (
            "new Map([['a', 1], ['b', new Set([2, 3])]])",
            json!([["a", 1], ["b", [2, 3]]]),
        ),
        ("/re+/g", json!("/re+/g")),
        ("10n", json!("10n")),
        ("-Infinity", json!("-Infinity")),
        (
            "document.querySelectorAll('h1, #shown')",
            json!(["h1", "div#shown"]),
        ),
        (
            "(() => { const o = {a: 1}; o.self = o; return o; })()",
            json!({"a": 1, "self": "[Circular]"}),
        ),
        ("new Uint8Array([1, 2])", json!([1, 2])),
        ("window", json!("[Window]")),
        ("new Boolean(false)", json!(false)),
        ("[]", json!([])),
        ("({})", json!({})),
        (
            "Promise.resolve(new Date(1000))",
            json!("1970-01-01T00:00:01.000Z"),
        ),
        ("'0'", json!("0")),
    ] {
        assert_eq!(met(code), want, "{code}");
    }
    // The same as eval gives, for the same values.
    for code in [
        "new Date(0)",
        "new Map([['k', {d: new Date(0)}]])",
        "10n",
        "new Error('boom').message",
    ] {
        assert_eq!(met(code), eval(&env, &t, code), "{code}");
    }
    let e = met("new Error('boom')");
    assert_eq!(
        (e["name"].as_str(), e["message"].as_str()),
        (Some("Error"), Some("boom")),
        "{e}"
    );
    // Falsy values are not met: the last one is observed, faithfully.
    for (code, want) in [
        ("0n", json!("0n")),
        ("NaN", json!("NaN")),
        ("''", json!("")),
        ("0", json!(0)),
        ("-0", json!(0)),
        ("null", Value::Null),
        ("undefined", Value::Null),
        ("false", json!(false)),
    ] {
        let v = condition(&env, &t, code, 300);
        assert_eq!(timed_out(&v)["observed_value"], want, "{code}: {v}");
    }
    // document.all is an object JavaScript counts as falsy.
    timed_out(&condition(&env, &t, "document.all", 300));
    // A huge value is cut, and the answer says so.
    let v = condition(&env, &t, "'x'.repeat(3 * 1024 * 1024)", 10000);
    let observed = ok(&v)["observed_value"].as_str().unwrap_or_default().len();
    assert!(observed > 0 && observed <= 1 << 20, "{observed} bytes");
    assert_eq!(v["meta"]["truncated"], true, "{}", v["meta"]);
    assert!(
        v["meta"]["warnings"].to_string().contains("cut"),
        "{}",
        v["meta"]
    );
    let v = condition(&env, &t, "Array.from({length: 400000}, (_, i) => i)", 10000);
    // Past the limit, the JSON text is cut (given as a string), as eval gives it.
    let observed = ok(&v)["observed_value"].clone();
    let cut = observed.as_str().unwrap_or_default();
    assert!(
        cut.starts_with("[0,1,2,") && cut.len() <= 1 << 20,
        "{}",
        cut.len()
    );
    assert_eq!(
        observed,
        eval(&env, &t, "Array.from({length: 400000}, (_, i) => i)")
    );
    assert_eq!(v["meta"]["truncated"], true, "{}", v["meta"]);
}

/// A failed command's context is the page it left, not the one the tab's record last saw: a
/// page that moved on during a wait that then ran out of time is named by its new URL and title.
#[test]
fn a_failed_command_reports_the_page_as_it_is_now() {
    need_chromium!();
    let f = fixture();
    f.html(
        "/w/stuck.html",
        r#"<!doctype html><html><head><title>Stuck</title></head><body><h1>Stuck</h1><img src="/w/forever"></body></html>"#,
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];

    // The condition itself moves the page (same document) before it times out.
    let v = condition(
        &env,
        &t,
        "(window.moved || (window.moved = true, history.pushState({}, '', '/w/moved.html'), document.title = 'Moved'), false)",
        500,
    );
    timed_out(&v);
    assert!(ends_with(&v["context"]["url"], "/w/moved.html"), "{v}");
    assert_eq!(v["context"]["title"], "Moved", "{v}");
    // The text form's first line (on stderr, as every failure) names it too.
    let run = env.run(
        &[
            &["browser", "wait", "condition", "false", "--timeout", "300"][..],
            &t,
        ]
        .concat(),
    );
    assert!(
        run.stderr
            .lines()
            .next()
            .unwrap_or("")
            .ends_with("/w/moved.html"),
        "{run:?}"
    );

    // A navigation that commits during the wait but never finishes loading: TIMEOUT, with the
    // new page as the context (as in observed_value).
    eval(
        &env,
        &t,
        "setTimeout(() => { location.href = '/w/stuck.html'; }, 300), 1",
    );
    let v = on(&env, &t, &["wait", "navigation", "--timeout", "2000"]);
    let details = timed_out(&v);
    assert!(
        ends_with(&details["observed_value"]["url"], "/w/stuck.html"),
        "{v}"
    );
    assert!(ends_with(&v["context"]["url"], "/w/stuck.html"), "{v}");
    assert_eq!(v["context"]["title"], "Stuck", "{v}");

    // A script that never ends is stopped; the context is still read.
    let v = on(&env, &t, &["eval", "while (true) {}", "--timeout", "500"]);
    assert_eq!(v["error"]["code"], "TIMEOUT", "{v}");
    assert!(ends_with(&v["context"]["url"], "/w/stuck.html"), "{v}");
}

#[test]
fn a_wait_with_no_time_checks_once_and_says_so() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/w/index.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // `--timeout 0` is one complete look, every time: met when the page already shows it.
    for _ in 0..8 {
        ok(&on(
            &env,
            &t,
            &["wait", "element", "#shown", "--timeout", "0"],
        ));
        let v = on(
            &env,
            &t,
            &[
                "wait",
                "element",
                "#shown",
                "--state",
                "visible",
                "--timeout",
                "0",
            ],
        );
        ok(&v);
        ok(&condition(&env, &t, "document.title === 'Waits'", 0));
    }
    // Not met: TIMEOUT saying what the one look saw, with the timeout as given.
    let v = on(&env, &t, &["wait", "element", "#absent", "--timeout", "0"]);
    let d = timed_out(&v);
    assert_eq!(d["timeout_ms"], 0, "{v}");
    assert_eq!(d["observed_value"]["found"], false, "{v}");
    let v = condition(&env, &t, "document.title.length", 0);
    ok(&v);
    let v = condition(&env, &t, "document.title === 'Other'", 0);
    let d = timed_out(&v);
    assert_eq!(d["timeout_ms"], 0, "{v}");
    assert_eq!(d["observed_value"], false, "{v}");
}
