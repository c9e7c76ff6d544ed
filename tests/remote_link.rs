//! Sessions on browsers across a network link: Chromium in network namespaces of the lab
//! (`test_support::netlab`), reached through a relay that delays, stalls and cuts.
//!
//! - a link cut for 5 s in the middle of click/snapshot/fill/eval loops: the session goes on
//!   with the same session id, tab id and refs; each command caught in the cut is a link error
//!   (retryable when sending it again is safe) or done, and a counter in the page says none was done twice and none answered ok
//!   without effect;
//! - a browser killed: its session answers at once naming the endpoint; another goes on.
//!
//! Skipped with a printed reason where namespaces cannot be made (not root, no `ip`).

use std::time::{Duration, Instant};

use actionbook::{Engine, EngineConfig, Home};
use serde_json::Value;
use test_support::netlab::{self, NsBrowser, PageServer, Relay};
use test_support::run;

const COUNTER: &str = r#"<!doctype html><html><head><title>counter</title></head><body>
<button id="add" onclick="window.n=(window.n||0)+1;document.getElementById('count').textContent=String(window.n)">Add</button>
<span id="count">0</span>
<label>Note <input id="note"></label>
</body></html>"#;

/// `words` on tab t1 of `session` with `--timeout ms`.
async fn on_tab(engine: &Engine, session: &str, words: &[&str], ms: u64) -> Value {
    let ms = ms.to_string();
    let tab = ["--session", session, "--tab", "t1", "--timeout", &ms];
    run(engine, &[words, &tab[..]].concat()).await
}

fn engine(dir: &tempfile::TempDir) -> Engine {
    Engine::new(EngineConfig {
        home: Home::at(dir.path().join("home")),
    })
    .expect("engine")
}

/// The ref on the first snapshot line starting with `line_start`.
fn ref_of(snapshot: &Value, line_start: &str) -> String {
    let path = snapshot["data"]["path"].as_str().expect("snapshot path");
    let text = std::fs::read_to_string(path).expect("snapshot file");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(line_start))
        .unwrap_or_else(|| panic!("no line starting with {line_start:?} in:\n{text}"));
    let at = line
        .find("[ref=")
        .unwrap_or_else(|| panic!("no ref on {line:?}"));
    let rest = &line[at + 5..];
    format!("@{}", &rest[..rest.find(']').unwrap_or(rest.len())])
}

/// The page's counter (`window.n`), asked until a read succeeds (the link may be coming back).
async fn counter(engine: &Engine, session: &str) -> u64 {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let v = on_tab(engine, session, &["browser", "eval", "window.n||0"], 20_000).await;
        if v["ok"] == true {
            return eval_number(&v);
        }
        assert!(Instant::now() < until, "the counter could not be read: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn eval_number(v: &Value) -> u64 {
    let value = &v["data"]["value"];
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a count: {v}"))
}

/// An error a command caught by the cut may give: the link failed (`CDP_CONNECTION_FAILED`,
/// with a hint) or its time ran out (`TIMEOUT`). `retryable` means "safe to send again" in
/// this engine: always for an idempotent command (snapshot, fill); a click or eval whose
/// request may have reached the page is in doubt and says `retryable: false` (sending it again
/// could do it twice), which is why each failed click is checked against the counter.
#[track_caller]
fn assert_link_error(v: &Value, what: &str, idempotent: bool) {
    let code = v["error"]["code"].as_str().unwrap_or_default();
    assert!(
        code == "CDP_CONNECTION_FAILED" || code == "TIMEOUT",
        "{what} failed, not as a link error: {v}"
    );
    assert!(
        v["error"]["hint"].is_string(),
        "{what}: a link error says what to do: {v}"
    );
    if idempotent {
        assert_eq!(v["error"]["retryable"], true, "{what}: {v}");
    }
}

#[derive(Debug, Default)]
struct Tally {
    ok: u64,
    failed: u64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_link_keeps_ids_and_refs_and_no_click_is_lost_or_doubled() {
    if netlab::skip("a_cut_link_keeps_ids_and_refs_and_no_click_is_lost_or_doubled") {
        return;
    }
    let browser = tokio::task::spawn_blocking(NsBrowser::start)
        .await
        .expect("join")
        .expect("browser in a namespace");
    let relay = Relay::start(browser.addr()).await.expect("relay");
    let page = PageServer::start(browser.ns.host_addr, COUNTER)
        .await
        .expect("page server");
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir);
    let s = "link";
    let endpoint = relay.endpoint();
    let v = run(
        &engine,
        &[
            "browser",
            "start",
            "--cdp-endpoint",
            &endpoint,
            "--set-session-id",
            s,
        ],
    )
    .await;
    assert_eq!(v["ok"], true, "start: {v}");
    let v = on_tab(
        &engine,
        s,
        &["browser", "goto", &page.url("/counter")],
        20_000,
    )
    .await;
    assert_eq!(v["ok"], true, "goto: {v}");
    let snap = on_tab(&engine, s, &["browser", "snapshot"], 20_000).await;
    assert_eq!(snap["ok"], true, "snapshot: {snap}");
    let add = ref_of(&snap, "- button \"Add\"");
    let note = ref_of(&snap, "- textbox \"Note\"");
    let connections_before = relay.connections();
    // A link with some latency, so the cut finds requests on their way.
    relay.set_delay(Duration::from_millis(20), Duration::from_millis(20));
    let clicking = std::sync::atomic::AtomicBool::new(false);

    let loops = {
        let engine = &engine;
        let (add, note) = (add.clone(), note.clone());
        let clicking = &clicking;
        async move {
            // Clicks confirmed done: answered ok, or failed and seen in the counter.
            let mut known = 0u64;
            let (mut clicks, mut others) = (Tally::default(), Tally::default());
            let mut doubtful_clicks = Vec::new();
            let until = Instant::now() + Duration::from_secs(20);
            let mut i = 0u64;
            while Instant::now() < until {
                i += 1;
                let target = if i.is_multiple_of(2) {
                    add.as_str()
                } else {
                    "#add"
                };
                clicking.store(true, std::sync::atomic::Ordering::SeqCst);
                let v = on_tab(engine, s, &["browser", "click", target], 20_000).await;
                clicking.store(false, std::sync::atomic::Ordering::SeqCst);
                if v["ok"] == true {
                    clicks.ok += 1;
                    known += 1;
                } else {
                    assert_link_error(&v, "click", false);
                    clicks.failed += 1;
                    let now = counter(engine, s).await;
                    let happened = match now.checked_sub(known) {
                        Some(1) => true,
                        Some(0) => false,
                        _ => panic!("counter {now} after {known} clicks done and one in doubt"),
                    };
                    known = now;
                    doubtful_clicks.push((i, happened, v["error"]["code"].clone()));
                }
                let text = format!("note {i}");
                for words in [
                    &["browser", "snapshot"][..],
                    &["browser", "fill", &note, &text][..],
                ] {
                    let v = on_tab(engine, s, words, 20_000).await;
                    if v["ok"] == true {
                        others.ok += 1;
                    } else {
                        assert_link_error(&v, words[1], true);
                        others.failed += 1;
                    }
                }
                let v = on_tab(engine, s, &["browser", "eval", "window.n||0"], 20_000).await;
                if v["ok"] == true {
                    others.ok += 1;
                    assert_eq!(eval_number(&v), known, "counter against clicks done: {v}");
                } else {
                    assert_link_error(&v, "eval", false);
                    others.failed += 1;
                }
            }
            (known, clicks, others, doubtful_clicks)
        }
    };
    let cutting = async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        // Cut while a click is under way (its request or answer on the link, most likely).
        while !clicking.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
        relay.cut();
        tokio::time::sleep(Duration::from_secs(5)).await;
        relay.restore();
    };
    let ((known, clicks, others, doubtful_clicks), ()) = tokio::join!(loops, cutting);
    eprintln!(
        "clicks {clicks:?}, other commands {others:?}, clicks in doubt (iteration, happened, code): \
         {doubtful_clicks:?}, relay connections {connections_before} -> {}",
        relay.connections()
    );
    assert!(
        relay.connections() > connections_before,
        "the session did not reconnect through the relay"
    );
    assert!(clicks.ok > 0);
    assert_eq!(counter(&engine, s).await, known);

    // The same ids and refs after the cut: the ref taken before it still clicks the button.
    let v = on_tab(&engine, s, &["browser", "click", &add], 20_000).await;
    assert_eq!(v["ok"], true, "click by the old ref: {v}");
    assert_eq!(v["context"]["session_id"], s);
    assert_eq!(v["context"]["tab_id"], "t1");
    assert_eq!(counter(&engine, s).await, known + 1);
    let snap = on_tab(&engine, s, &["browser", "snapshot"], 20_000).await;
    assert_eq!(ref_of(&snap, "- button \"Add\""), add, "{snap}");
    let v = run(&engine, &["browser", "list-sessions"]).await;
    assert_eq!(v["ok"], true, "{v}");
    let _ = run(&engine, &["browser", "close", "--session", s]).await;
    drop(relay);
    drop(browser);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_browser_answers_at_once_naming_its_endpoint_and_others_go_on() {
    if netlab::skip("a_killed_browser_answers_at_once_naming_its_endpoint_and_others_go_on") {
        return;
    }
    let mut doomed = tokio::task::spawn_blocking(NsBrowser::start)
        .await
        .expect("join")
        .expect("browser in a namespace");
    let other = tokio::task::spawn_blocking(NsBrowser::start)
        .await
        .expect("join")
        .expect("browser in a namespace");
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = engine(&dir);
    let doomed_endpoint = format!("http://{}", doomed.addr());
    let other_endpoint = format!("http://{}", other.addr());
    for (s, endpoint) in [("doomed", &doomed_endpoint), ("other", &other_endpoint)] {
        let v = run(
            &engine,
            &[
                "browser",
                "start",
                "--cdp-endpoint",
                endpoint,
                "--set-session-id",
                s,
            ],
        )
        .await;
        assert_eq!(v["ok"], true, "start {s}: {v}");
        let v = on_tab(&engine, s, &["browser", "eval", "1+1"], 20_000).await;
        assert_eq!(v["ok"], true, "eval on {s}: {v}");
    }
    tokio::task::block_in_place(|| doomed.kill());
    // A long --timeout: answering at once means not waiting it out.
    let started = Instant::now();
    let v = on_tab(&engine, "doomed", &["browser", "eval", "1+1"], 60_000).await;
    let took = started.elapsed();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "CDP_CONNECTION_FAILED", "{v}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&doomed.addr().to_string()),
        "the error names the endpoint: {v}"
    );
    assert!(
        took < Duration::from_secs(30),
        "a gone browser waited out the timeout ({took:?}): {v}"
    );
    eprintln!("killed browser answered in {took:?}: {message}");
    let v = on_tab(&engine, "other", &["browser", "eval", "2+2"], 20_000).await;
    assert_eq!(v["ok"], true, "the other session goes on: {v}");
    for s in ["doomed", "other"] {
        let _ = run(&engine, &["browser", "close", "--session", s]).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_that_drops_everything_is_closed_by_the_heartbeat() {
    if netlab::skip("a_link_that_drops_everything_is_closed_by_the_heartbeat") {
        return;
    }
    let browser = tokio::task::spawn_blocking(NsBrowser::start)
        .await
        .expect("join")
        .expect("browser in a namespace");
    let relay = Relay::start(browser.addr()).await.expect("relay");
    let beat = Duration::from_millis(300);
    let options = cdp_protocol::ConnectOptions::default().heartbeat(beat);
    let (conn, _) = cdp_protocol::connect_with(&relay.endpoint(), options)
        .await
        .expect("connect through the relay");
    // Quiet for many heartbeats on a live link: the pongs keep it open.
    tokio::time::sleep(beat * 10).await;
    assert!(!conn.is_closed(), "a quiet live link was closed");
    // Everything held from now on, as a link that drops every packet.
    relay.set_stalled(true);
    let closed = tokio::time::timeout(Duration::from_secs(30), conn.closed()).await;
    assert!(closed.is_ok(), "a dead link was not noticed");
    let call = conn
        .browser()
        .send(&cdp_protocol::browser::GetVersion)
        .await;
    assert!(call.is_err(), "a call on the closed connection: {call:?}");
}
