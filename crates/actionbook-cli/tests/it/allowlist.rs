//! `browser start --allowed-domains` on real Chromium: a hostile page, in the top document and in
//! an out-of-process iframe, tries every way out to a host outside the list (img, script,
//! fetch, XHR, WebSocket, EventSource, sendBeacon, prefetch, an iframe, dedicated, shared and
//! service workers, WebRTC's STUN, window.open, link clicks, a form, a 3xx redirect, a meta
//! refresh, `location.href`), and the host outside the list, a server of this test on 127.0.0.2 (all of
//! 127/8 is loopback on Linux), is reached by no connection at all; the agent is told each
//! refusal (`ACCESS_DENIED` for the tab's navigations, warnings for the rest, notes in `network
//! requests`), and an allowed site works fully.
//!
//! Twice: on a browser the session launches (the `Fetch` guard plus the launch flags) and on a
//! browser behind `--cdp-endpoint` (the `Fetch` guard alone: no flags, so its WebSockets, WebRTC
//! and preconnects are not contained, which `start` says, and which that run sees get out; no
//! request may).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture, assert_failure, on, value, value_until};

/// A server on 127.0.0.2 that notes every connection made to it (the first line of what came),
/// and a UDP port there that notes every datagram (`udp`: WebRTC's STUN requests).
struct Outside {
    port: u16,
    udp_port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Outside {
    fn start() -> Outside {
        let listener = TcpListener::bind("127.0.0.2:0").expect("bind 127.0.0.2");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let udp = std::net::UdpSocket::bind("127.0.0.2:0").expect("bind udp 127.0.0.2");
        udp.set_nonblocking(true).expect("nonblocking udp");
        let udp_port = udp.local_addr().expect("udp addr").port();
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !st.load(Ordering::SeqCst) {
                let mut dgram = [0u8; 1500];
                if udp.recv_from(&mut dgram).is_ok() {
                    s.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push("udp".into());
                }
                match listener.accept() {
                    Ok((mut c, _)) => {
                        let _ = c.set_nonblocking(false);
                        let _ = c.set_read_timeout(Some(Duration::from_millis(300)));
                        let mut buf = [0u8; 2048];
                        let n = c.read(&mut buf).unwrap_or(0);
                        let line = String::from_utf8_lossy(&buf[..n])
                            .lines()
                            .next()
                            .unwrap_or("(nothing sent)")
                            .to_string();
                        s.lock().unwrap_or_else(|p| p.into_inner()).push(line);
                        let _ = c.write_all(
                            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nok",
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Outside {
            port,
            udp_port,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.2:{}", self.port)
    }

    fn stun(&self) -> String {
        format!("stun:127.0.0.2:{}", self.udp_port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for Outside {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The hostile part of a page: every way out to `out`, each URL tagged `<tag>-<way>`.
fn hostile(out: &str, stun: &str, tag: &str) -> String {
    let ws = out.replace("http://", "ws://");
    format!(
        r#"<img src="{out}/{tag}-img"><script src="{out}/{tag}-script"></script>
<link rel="prefetch" href="{out}/{tag}-prefetch">
<iframe src="{out}/{tag}-iframe"></iframe>
<script>
window.done = {{}};
const mark = k => {{ window.done[k] = true; }};
fetch("{out}/{tag}-fetch").catch(() => {{}}).finally(() => mark("fetch"));
const x = new XMLHttpRequest(); x.open("GET", "{out}/{tag}-xhr");
x.onloadend = () => mark("xhr"); x.send();
try {{
  const w = new WebSocket("{ws}/{tag}-ws");
  w.onerror = () => mark("ws"); w.onclose = () => mark("ws");
}} catch (e) {{ mark("ws"); }}
const es = new EventSource("{out}/{tag}-es"); es.onerror = () => {{ es.close(); mark("es"); }};
navigator.sendBeacon("{out}/{tag}-beacon", "x"); mark("beacon");
new Worker("/worker.js?{tag}");
try {{ new SharedWorker("/shared.js?{tag}"); }} catch (e) {{}}
navigator.serviceWorker.register("/sw.js?{tag}").catch(() => {{}});
try {{
  const pc = new RTCPeerConnection({{ iceServers: [{{ urls: "{stun}" }}] }});
  pc.createDataChannel("x");
  // Gathering (the STUN requests) starts with the local description.
  pc.createOffer().then(o => pc.setLocalDescription(o)).finally(() => mark("rtc"));
  window.pc = pc;
}} catch (e) {{ mark("rtc"); }}
</script>"#
    )
}

/// The allowed origin's pages: the hostile top page (with a cross-site OOPIF doing the same),
/// the workers, the navigations' starting points, and an allowed site that must work.
fn fixture(outside: &Outside) -> Fixture {
    let (out, stun) = (outside.origin(), outside.stun());
    let out = out.as_str();
    let f = Fixture::start();
    let frame = f.cross_site_url("/frame.html");
    f.html(
        "/hostile.html",
        &format!(
            r#"<!doctype html><html><head><title>Hostile</title></head><body>
<a id="nav" href="{out}/top-click">out</a>
<a id="blank" href="{out}/top-blank" target="_blank">new tab</a>
<button id="open" onclick='window.open("{out}/top-open")'>open</button>
<form id="form" action="{out}/top-form"><button id="submit">send</button></form>
<iframe id="oopif" src="{frame}"></iframe>
{}</body></html>"#,
            hostile(out, &stun, "top")
        ),
    );
    f.html(
        "/frame.html",
        &format!(
            r#"<!doctype html><html><body>frame
{}
<script>setTimeout(() => {{ location.href = "{out}/oopif-location"; }}, 300);</script>
</body></html>"#,
            hostile(out, &stun, "oopif")
        ),
    );
    let js = "text/javascript";
    let worker =
        format!(r#"fetch("{out}/" + location.search.slice(1) + "-worker").catch(() => {{}});"#);
    f.route("/worker.js", js, &worker, Duration::ZERO);
    let shared = format!(
        r#"fetch("{out}/" + location.search.slice(1) + "-shared").catch(() => {{}});
onconnect = () => {{}};"#
    );
    f.route("/shared.js", js, &shared, Duration::ZERO);
    let sw = format!(
        r#"const tag = location.search.slice(1);
self.addEventListener("install", e => e.waitUntil(fetch("{out}/" + tag + "-sw").catch(() => {{}})));"#
    );
    f.route("/sw.js", js, &sw, Duration::ZERO);
    f.route_with(
        "/redirect",
        "302 Found",
        &[("Location", &format!("{out}/top-redirect"))],
        "text/plain",
        "",
    );
    f.html(
        "/meta.html",
        &format!(
            r#"<!doctype html><html><head><meta http-equiv="refresh" content="0;url={out}/top-meta"></head><body>meta</body></html>"#
        ),
    );
    // The allowed site: a script, a fetch, an OOPIF that speaks, and a link, all of the list.
    let good_frame = f.cross_site_url("/good-frame.html");
    f.html(
        "/good.html",
        &format!(
            r#"<!doctype html><html><head><title>Good</title><script src="/good.js"></script></head><body>
<a id="next" href="/next.html">next</a>
<iframe src="{good_frame}"></iframe>
<script>
window.addEventListener("message", e => {{ if (e.data === "frame-ok") window.frameOk = true; }});
fetch("/data.txt").then(r => r.text()).then(t => {{ window.fetched = t; }});
</script></body></html>"#
        ),
    );
    f.route("/good.js", js, "window.scriptRan = true;", Duration::ZERO);
    f.route("/data.txt", "text/plain", "allowed data", Duration::ZERO);
    f.html(
        "/good-frame.html",
        r#"<!doctype html><html><body><script>parent.postMessage("frame-ok", "*");</script></body></html>"#,
    );
    f.html(
        "/next.html",
        "<!doctype html><html><head><title>Next</title></head><body>next</body></html>",
    );
    f
}

/// What the answers said was refused: URLs named in warnings and `ACCESS_DENIED` messages.
#[derive(Default)]
struct Told {
    urls: BTreeSet<String>,
}

impl Told {
    /// Notes the tagged URLs of `out` named in the envelope's warnings and error.
    fn take(&mut self, v: &Value, out: &str) {
        let mut texts: Vec<String> = v["meta"]["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect();
        if v["error"]["code"] == "ACCESS_DENIED" {
            texts.push(
                v["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            );
        }
        for t in texts {
            for word in t.split_whitespace() {
                if let Some(rest) = word.strip_prefix(out) {
                    // A form's GET adds `?`: the way's tag is the path.
                    let path = rest.split('?').next().unwrap_or(rest);
                    self.urls.insert(path.trim_start_matches('/').to_string());
                }
            }
        }
    }

    fn missing<'a>(&self, want: &[&'a str]) -> Vec<&'a str> {
        want.iter()
            .copied()
            .filter(|w| !self.urls.contains(*w))
            .collect()
    }
}

/// The ways out that every guarded browser must refuse and tell (the `Fetch` guard sees them
/// all). Not listed: WebSockets (no `Fetch` request: the launched browser's flags refuse them,
/// checked by the zero count) and the workers of the OOPIF, which Chromium may not start in a
/// third-party frame.
const TOLD: &[&str] = &[
    "top-img",
    "top-script",
    "top-fetch",
    "top-xhr",
    "top-es",
    "top-beacon",
    "top-prefetch",
    "top-iframe",
    "top-worker",
    "top-shared",
    "top-sw",
    "oopif-img",
    "oopif-script",
    "oopif-fetch",
    "oopif-xhr",
    "oopif-es",
    "oopif-beacon",
    "oopif-iframe",
    "oopif-location",
];

/// Drives the hostile page on session `sid` and checks that nothing reached `outside`.
fn hostile_run(env: &Env, sid: &str, f: &Fixture, outside: &Outside, launched: bool) {
    let out = outside.origin();
    let t = ["--session", sid, "--tab", "t1"];
    let mut told = Told::default();

    // goto a host outside the list: refused before anything is sent.
    let v = on(env, &t, &["goto", &format!("{out}/goto")]);
    assert_failure(&v, "ACCESS_DENIED", "127.0.0.2");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("allowed-domains")),
        "{v}"
    );
    assert_eq!(
        v["error"]["details"]["host"], "127.0.0.2",
        "the refused host: {v}"
    );

    let v = on(env, &t, &["goto", &f.url("/hostile.html")]);
    assert_eq!(v["ok"], true, "the hostile page loads: {v}");
    told.take(&v, &out);
    // The page tried every way (the WebSocket and EventSource failed, the beacon was sent);
    // every answer is read, as refusals are told with whichever command ends next.
    let tried = "['fetch','xhr','ws','es','beacon','rtc'].every(k => window.done[k])";
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let v = on(env, &t, &["eval", tried]);
        told.take(&v, &out);
        if v["data"]["value"] == true {
            break;
        }
        assert!(Instant::now() < until, "not every way was tried: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }

    // A new tab by link and window.open (a click is a user gesture): refused from its first
    // request.
    for button in ["#blank", "#open"] {
        let v = on(env, &t, &["click", button]);
        told.take(&v, &out);
    }

    // Until every refusal was told (some come after the command that caused them).
    let until = Instant::now() + Duration::from_secs(30);
    let want: Vec<&str> = TOLD
        .iter()
        .copied()
        .chain(["top-blank", "top-open"])
        .collect();
    while !told.missing(&want).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        let v = on(env, &t, &["eval", "1"]);
        told.take(&v, &out);
    }
    assert_eq!(
        told.missing(&want),
        Vec::<&str>::new(),
        "told: {:?}",
        told.urls
    );

    // The recorder shows a refused request as failed, and why.
    let v = on(env, &t, &["network", "requests"]);
    let reqs = v["data"]["requests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let img = reqs
        .iter()
        .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with("/top-img")))
        .unwrap_or_else(|| panic!("the refused image is in network requests: {v}"));
    assert!(
        img["failure"]
            .as_str()
            .is_some_and(|e| e.contains("ERR_BLOCKED_BY_CLIENT")),
        "{img}"
    );
    assert!(
        img["note"]
            .as_str()
            .is_some_and(|n| n.contains("--allowed-domains")),
        "{img}"
    );

    // Navigations of the tab: a link, a form, a redirect: each ACCESS_DENIED, the session usable.
    for sel in ["#nav", "#submit"] {
        let v = on(env, &t, &["goto", &f.url("/hostile.html")]);
        assert_eq!(v["ok"], true, "{v}");
        told.take(&v, &out);
        let v = on(env, &t, &["click", sel]);
        assert_failure(&v, "ACCESS_DENIED", "127.0.0.2");
        told.take(&v, &out);
    }
    let v = on(env, &t, &["goto", &f.url("/redirect")]);
    assert_failure(&v, "ACCESS_DENIED", "top-redirect");
    told.take(&v, &out);
    // A meta refresh and a script's navigation: refused as they happen, told with the command
    // they end under or the next one.
    let v = on(env, &t, &["goto", &f.url("/meta.html")]);
    told.take(&v, &out);
    let v = on(env, &t, &["goto", &f.url("/next.html")]);
    assert_eq!(v["ok"], true, "{v}");
    told.take(&v, &out);
    let v = on(
        env,
        &t,
        &["eval", &format!("location.href = '{out}/top-location'; 1")],
    );
    told.take(&v, &out);
    let want = [
        "top-click",
        "top-form",
        "top-redirect",
        "top-meta",
        "top-location",
    ];
    let until = Instant::now() + Duration::from_secs(20);
    while !told.missing(&want).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        let v = on(env, &t, &["eval", "1"]);
        told.take(&v, &out);
    }
    assert_eq!(
        told.missing(&want),
        Vec::<&str>::new(),
        "told: {:?}",
        told.urls
    );

    // The allowed site works fully: its script, fetch and OOPIF, and a link to the next page.
    let v = on(env, &t, &["goto", &f.url("/good.html")]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["meta"]["warnings"].as_array().is_none_or(|w| w
            .iter()
            .all(|w| !w.as_str().unwrap_or("").contains("/good"))),
        "{v}"
    );
    assert_eq!(
        value(env, &t, "window.scriptRan === true"),
        Value::Bool(true)
    );
    let fetched = value_until(
        env,
        &t,
        "window.fetched || ''",
        &Value::from("allowed data"),
    );
    assert_eq!(fetched, "allowed data");
    let frame = value_until(env, &t, "window.frameOk === true", &Value::Bool(true));
    assert_eq!(frame, Value::Bool(true), "the allowed OOPIF loaded and ran");
    let v = on(env, &t, &["click", "#next"]);
    assert_eq!(v["ok"], true, "{v}");
    let title = value_until(env, &t, "document.title", &Value::from("Next"));
    assert_eq!(title, "Next");

    // Long enough for a late attempt of the pages to have arrived: nothing came.
    std::thread::sleep(Duration::from_millis(500));
    let seen = outside.seen();
    if launched {
        assert_eq!(seen, Vec::<String>::new(), "the outside host was reached");
    } else {
        // Behind --cdp-endpoint no flag can stop a WebSocket, WebRTC or Chromium's preconnects
        // (a connection that sends nothing, on a pointer down on a link: `Fetch` sees no
        // request), as start says: no request came.
        // And those ways are real: what the launched browser's flags stop does get out here
        // (so the zero above is the flags' doing, not a page that never tried).
        assert!(
            seen.iter().any(|l| l.contains("-ws ")) && seen.iter().any(|l| l == "udp"),
            "the page's WebSocket and WebRTC attempts were not seen: {seen:?}"
        );
        let others: Vec<&String> = seen
            .iter()
            .filter(|l| !l.contains("-ws ") && *l != "(nothing sent)" && *l != "udp")
            .collect();
        assert_eq!(
            others,
            Vec::<&String>::new(),
            "the outside host was reached"
        );
    }
}

#[test]
fn a_hostile_page_reaches_no_host_outside_the_list() {
    need_chromium!();
    let outside = Outside::start();
    let f = fixture(&outside);
    let env = Env::new();
    let port = f
        .url("/")
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .to_string();
    let list = format!("127.0.0.1:{port},localhost:{port}");
    let v = env.json(&["browser", "start", "--headless", "--allowed-domains", &list]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["data"]["allowed_domains"],
        serde_json::json!([format!("127.0.0.1:{port}"), format!("localhost:{port}")]),
        "{v}"
    );
    let sid = v["context"]["session_id"]
        .as_str()
        .expect("sid")
        .to_string();
    hostile_run(&env, &sid, &f, &outside, true);
}

#[test]
fn behind_a_cdp_endpoint_the_fetch_guard_alone_refuses_every_request() {
    need_chromium!();
    let outside = Outside::start();
    let f = fixture(&outside);
    let env = Env::new();
    // A browser with no flags of ours: the list's session attaches to it.
    let plain = env.json(&["browser", "start", "--headless"]);
    assert_eq!(plain["ok"], true, "{plain}");
    let endpoint = plain["data"]["session"]["cdp_endpoint"]
        .as_str()
        .expect("endpoint")
        .to_string();
    let port = f
        .url("/")
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .to_string();
    let list = format!("127.0.0.1:{port},localhost:{port}");
    let v = env.json(&[
        "browser",
        "start",
        "--cdp-endpoint",
        &endpoint,
        "--allowed-domains",
        &list,
    ]);
    assert_eq!(v["ok"], true, "{v}");
    let warned = v["meta"]["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w.as_str().is_some_and(|w| w.contains("WebSockets")));
    assert!(
        warned,
        "start says what a remote browser cannot contain: {v}"
    );
    let sid = v["context"]["session_id"]
        .as_str()
        .expect("sid")
        .to_string();
    hostile_run(&env, &sid, &f, &outside, false);
}

#[test]
fn bad_lists_are_refused_before_anything_starts() {
    let env = Env::new();
    for bad in ["http://a.com", "*", "a.com:0", "a.*.com", ","] {
        let v = env.json(&["browser", "start", "--headless", "--allowed-domains", bad]);
        assert_failure(&v, "INVALID_ARGUMENT", "");
        assert!(
            env.browser_pids().is_empty(),
            "{bad}: a browser was started"
        );
    }
    // --open-url outside the list: ACCESS_DENIED, and no browser.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--allowed-domains",
        "a.com",
        "--open-url",
        "http://127.0.0.2:9/",
    ]);
    assert_failure(&v, "ACCESS_DENIED", "127.0.0.2");
    assert!(env.browser_pids().is_empty());
}

#[test]
fn the_list_comes_from_the_environment_and_a_session_keeps_its_own() {
    need_chromium!();
    let env = Env::new();
    let v = env
        .command(&[
            "browser",
            "start",
            "--headless",
            "--set-session-id",
            "s1",
            "--json",
        ])
        .env("ACTIONBOOK_ALLOWED_DOMAINS", "Example.COM,*.b.com")
        .output()
        .expect("run");
    let v: Value = serde_json::from_slice(&v.stdout).expect("json");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["data"]["allowed_domains"],
        serde_json::json!(["example.com", "*.b.com"])
    );
    // Another list for the same session is refused, not ignored.
    let again = env.json(&[
        "browser",
        "start",
        "--set-session-id",
        "s1",
        "--allowed-domains",
        "c.com",
    ]);
    assert_failure(&again, "INVALID_ARGUMENT", "--allowed-domains");
    // A new-tab outside the list opens nothing.
    let v = env.json(&[
        "browser",
        "new-tab",
        "http://127.0.0.2:9/",
        "--session",
        "s1",
    ]);
    assert_failure(&v, "ACCESS_DENIED", "127.0.0.2");
    let tabs = env.json(&["browser", "list-tabs", "--session", "s1"]);
    assert_eq!(tabs["data"]["total_tabs"], 1, "{tabs}");
}

#[test]
fn the_guard_is_back_on_after_a_daemon_restart() {
    need_chromium!();
    let outside = Outside::start();
    let out = outside.origin();
    let f = Fixture::start();
    f.html(
        "/img.html",
        &format!(r#"<!doctype html><title>img</title><img src="{out}/after-restart">"#),
    );
    let env = Env::new();
    let port = f
        .url("/")
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches('/')
        .to_string();
    let list = format!("127.0.0.1:{port}");
    let sid = env.start(&["--allowed-domains", &list]);
    env.kill_daemon();
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let mut told = Told::default();
    let v = on(&env, &t, &["goto", &f.url("/img.html")]);
    assert_eq!(v["ok"], true, "{v}");
    told.take(&v, &out);
    let until = Instant::now() + Duration::from_secs(20);
    while told.missing(&["after-restart"]).len() == 1 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
        let v = on(&env, &t, &["eval", "1"]);
        told.take(&v, &out);
    }
    assert_eq!(told.missing(&["after-restart"]), Vec::<&str>::new());
    let v = on(&env, &t, &["goto", &format!("{out}/x")]);
    assert_failure(&v, "ACCESS_DENIED", "127.0.0.2");
    assert_eq!(outside.seen(), Vec::<String>::new());
}
