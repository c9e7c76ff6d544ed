//! Round trips per command across a link with latency: a browser in a network namespace of the
//! lab (`test_support::netlab`), the engine in front of it through the lab's relay, which counts
//! the CDP requests (WebSocket messages to the browser) and adds a delay each way.
//!
//! For each command it prints the requests sent, and the milliseconds per command with no delay
//! and with 50 ms each way; `(ms at 50 - ms at 0) / 100` is the round trips the command waited
//! for in sequence (requests sent together cost one). The bars: click, snapshot ≤ 2 round trips
//! plus page time, goto ≤ 2 plus the load.
//!
//! Run as root (namespaces): `cargo bench -p actionbook-workspace --bench link_round_trips`.
//! Prints why and stops where namespaces cannot be made.

use std::time::{Duration, Instant};

use actionbook::{Engine, EngineConfig, Home};
use test_support::netlab::{self, NsBrowser, PageServer, Relay};
use test_support::run;

const PAGE: &str = r#"<!doctype html><html><head><title>rtt</title></head><body>
<h1>Round trips</h1>
<button id="add" onclick="window.n=(window.n||0)+1">Add</button>
<label>Note <input id="note"></label>
<ul><li>one</li><li>two</li><li><a href="/x">three</a></li></ul>
</body></html>"#;

/// Iterations per command and delay.
const ROUNDS: u32 = 8;
/// The delay each way of the slow run.
const DELAY: Duration = Duration::from_millis(50);

/// (requests per command, ms per command) of `words` on the session's tab.
async fn measure(engine: &Engine, relay: &Relay, words: &[&str]) -> (f64, f64) {
    let mut all = words.to_vec();
    all.extend_from_slice(&["--session", "rtt", "--tab", "t1", "--timeout", "30000"]);
    // Once unmeasured: attach, caches.
    let v = run(engine, &all).await;
    assert_eq!(v["ok"], true, "{words:?}: {v}");
    let before = relay.requests();
    let started = Instant::now();
    for _ in 0..ROUNDS {
        let v = run(engine, &all).await;
        assert_eq!(v["ok"], true, "{words:?}: {v}");
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS);
    let requests = (relay.requests() - before) as f64 / f64::from(ROUNDS);
    (requests, ms)
}

fn main() {
    if let Some(why) = netlab::unavailable() {
        eprintln!("link_round_trips: skipped, the network lab is unavailable here: {why}");
        return;
    }
    let rt = test_support::runtime();
    let browser = match NsBrowser::start() {
        Ok(b) => b,
        Err(e) => panic!("browser in a namespace: {e}"),
    };
    rt.block_on(async {
        let relay = Relay::start(browser.addr()).await.expect("relay");
        let page = PageServer::start(browser.ns.host_addr, PAGE)
            .await
            .expect("page server");
        let dir = tempfile::tempdir().expect("tempdir");
        let engine = Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        })
        .expect("engine");
        let endpoint = relay.endpoint();
        let v = run(
            &engine,
            &[
                "browser",
                "start",
                "--cdp-endpoint",
                &endpoint,
                "--set-session-id",
                "rtt",
            ],
        )
        .await;
        assert_eq!(v["ok"], true, "start: {v}");
        let url = page.url("/page");
        let commands: [(&str, Vec<&str>); 6] = [
            ("goto", vec!["browser", "goto", &url]),
            ("snapshot", vec!["browser", "snapshot"]),
            ("click", vec!["browser", "click", "#add"]),
            ("fill", vec!["browser", "fill", "#note", "hello"]),
            ("eval", vec!["browser", "eval", "1+1"]),
            ("title", vec!["browser", "title"]),
        ];
        let mut rows = Vec::new();
        for (name, words) in &commands {
            relay.set_delay(Duration::ZERO, Duration::ZERO);
            let (requests, fast) = measure(&engine, &relay, words).await;
            relay.set_delay(DELAY, DELAY);
            let (_, slow) = measure(&engine, &relay, words).await;
            let rtt = (slow - fast) / (2.0 * DELAY.as_secs_f64() * 1000.0);
            rows.push((*name, requests, fast, slow, rtt));
        }
        println!(
            "{:<10} {:>9} {:>10} {:>12} {:>12}",
            "command", "requests", "ms @0", "ms @50+50", "round trips"
        );
        for (name, requests, fast, slow, rtt) in rows {
            println!("{name:<10} {requests:>9.1} {fast:>10.1} {slow:>12.1} {rtt:>12.2}");
        }
        let _ = run(&engine, &["browser", "close", "--session", "rtt"]).await;
    });
}
