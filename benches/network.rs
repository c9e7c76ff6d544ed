//! The network recorder's cost and the request list's latency.
//!
//! 1. Page-load overhead: a page with 200 subresource requests (images) loaded in a fresh tab,
//!    without and with what the recorder does to a tab (a second flat session with
//!    `Network.enable` and paused auto-attach, every Network event received and decoded to its
//!    typed struct), rounds interleaved (the order alternates); median load times and their ratio.
//!    Raw CDP on both sides, so the difference is the recorder's alone.
//! 2. `browser network requests` on a full ring (500 requests) against `browser title` through the
//!    in-process engine, same tab, same run (criterion).
//!
//! Run with `cargo bench -p actionbook-workspace --bench network`.

use std::time::{Duration, Instant};

use actionbook_cli::commands::network::Requests;
use actionbook_cli::commands::observation::Title;
use actionbook_cli::{Engine, EngineConfig, Home, Request, TabTarget};
use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{Event as _, EventFilter, network, page, target};
use criterion::{Criterion, criterion_group, criterion_main};

const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

const ROUNDS: usize = 16;

fn heavy_page(round: usize) -> String {
    let imgs: String = (0..200)
        .map(|i| format!("<img src=\"/img.gif?r={round}&i={i}\" width=1 height=1>"))
        .collect();
    format!("<!doctype html><title>heavy</title>{imgs}")
}

/// Loads `url` in a fresh tab; with `record`, the recorder's session and event decoding first.
async fn load_ms(browser: &cdp_protocol::Browser, url: &str, record: bool) -> f64 {
    let (target_id, session) = match open_blank_page(browser).await {
        Ok(p) => p,
        Err(e) => panic!("open page: {e}"),
    };
    let conn = browser.connection().clone();
    let mut recorder = None;
    if record {
        let events = conn.events(
            EventFilter::methods(&[
                network::RequestWillBeSent::METHOD,
                network::ResponseReceived::METHOD,
                network::LoadingFinished::METHOD,
                network::LoadingFailed::METHOD,
                network::DataReceived::METHOD,
                target::AttachedToTarget::METHOD,
            ])
            .capacity(16 * 1024),
        );
        let watcher = match conn.browser().attach_to_target(&target_id).await {
            Ok(s) => s,
            Err(e) => panic!("attach the recorder: {e}"),
        };
        let consume = tokio::spawn(async move {
            let mut events = events;
            let mut n = 0u64;
            while let Some(ev) = events.recv().await {
                let decoded = match ev.method.as_str() {
                    network::RequestWillBeSent::METHOD => {
                        ev.decode::<network::RequestWillBeSent>().is_ok()
                    }
                    network::ResponseReceived::METHOD => {
                        ev.decode::<network::ResponseReceived>().is_ok()
                    }
                    network::LoadingFinished::METHOD => {
                        ev.decode::<network::LoadingFinished>().is_ok()
                    }
                    _ => true,
                };
                n += u64::from(decoded);
            }
            n
        });
        let auto = target::SetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: Some(true),
            filter: None,
        };
        let enable = network::Enable::default();
        let (net, auto) = tokio::join!(watcher.send(&enable), watcher.send(&auto));
        if let Err(e) = net.map(|_| ()).and(auto.map(|_| ())) {
            panic!("enable the recorder: {e}");
        }
        recorder = Some((watcher, consume));
    }
    let mut loaded = session.subscribe::<page::LoadEventFired>();
    if let Err(e) = session.send(&page::Enable).await {
        panic!("Page.enable: {e}");
    }
    let t0 = Instant::now();
    if let Err(e) = session
        .send(&page::Navigate {
            url: url.to_string(),
            ..Default::default()
        })
        .await
    {
        panic!("navigate: {e}");
    }
    match tokio::time::timeout(Duration::from_secs(30), loaded.recv()).await {
        Ok(Some(Ok(_))) => {}
        other => panic!("no load event: {other:?}"),
    }
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    if let Some((watcher, consume)) = recorder {
        let _ = watcher.detach().await;
        consume.abort();
    }
    let _ = conn
        .browser()
        .send(&target::CloseTarget {
            target_id: target_id.clone(),
        })
        .await;
    ms
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn network(c: &mut Criterion) {
    let rt = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => panic!("tokio runtime: {e}"),
    };
    let server = rt.block_on(FixtureServer::start());
    server.route("/img.gif", "image/gif", GIF.to_vec());
    for r in 0..=2 * ROUNDS {
        server.route(&format!("/heavy{r}.html"), "text/html", heavy_page(r));
    }

    // 1. Page-load overhead, interleaved.
    let browser = rt.block_on(launch_test_browser());
    let (mut plain, mut recorded) = (Vec::new(), Vec::new());
    // One warm-up load each (process start-up, cache of the page's code paths).
    rt.block_on(load_ms(&browser, &server.url("/heavy0.html"), false));
    rt.block_on(load_ms(&browser, &server.url("/heavy0.html"), true));
    for round in 0..ROUNDS {
        // Distinct URLs each load (no cache effects; the server says no-store anyway).
        let a = server.url(&format!("/heavy{}.html", 2 * round + 1));
        let b = server.url(&format!("/heavy{}.html", 2 * round + 2));
        if round % 2 == 0 {
            plain.push(rt.block_on(load_ms(&browser, &a, false)));
            recorded.push(rt.block_on(load_ms(&browser, &b, true)));
        } else {
            recorded.push(rt.block_on(load_ms(&browser, &a, true)));
            plain.push(rt.block_on(load_ms(&browser, &b, false)));
        }
    }
    let (p, r) = (median(&mut plain), median(&mut recorded));
    println!(
        "page load with 200 requests, {ROUNDS} rounds interleaved: without recorder median {p:.1} ms, with {r:.1} ms, ratio {:.3}",
        r / p
    );
    drop(browser);

    // 2. `network requests` on a full ring against `title`.
    let many: String = (0..600)
        .map(|i| format!("<img src=\"/img.gif?ring={i}\" width=1 height=1>"))
        .collect();
    server.route(
        "/ring.html",
        "text/html",
        format!("<!doctype html><title>ring</title>{many}"),
    );
    let home = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    };
    let engine = match Engine::new(EngineConfig {
        home: Home::at(home.path().join("home")),
    }) {
        Ok(e) => e,
        Err(e) => panic!("engine: {e}"),
    };
    let start = match Request::from_args([
        "browser",
        "start",
        "--headless",
        "--set-session-id",
        "bench",
        "--open-url",
        &server.url("/ring.html"),
    ]) {
        Ok(r) => r,
        Err(e) => panic!("start: {e}"),
    };
    let started = rt.block_on(engine.execute(start));
    assert!(started.ok(), "{}", started.to_json());
    let tab = || TabTarget::new("bench", "t1");
    let list = Request::new(Requests {
        target: tab(),
        filter: None,
        resource_type: None,
        status: None,
        method: None,
        clear: false,
    });
    // The ring fills once the images are in.
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let env = rt.block_on(engine.execute(list.clone()));
        let total = env
            .to_json()
            .parse::<serde_json::Value>()
            .ok()
            .and_then(|v| v["data"]["total"].as_u64())
            .unwrap_or(0);
        if total >= 500 || Instant::now() > until {
            println!("ring: {total} requests kept");
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let title = Request::new(Title { target: tab() });
    let mut group = c.benchmark_group("network_requests");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("title", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(title.clone()).await;
            assert!(env.ok());
            env
        })
    });
    group.bench_function("network_requests_full_ring", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(list.clone()).await;
            assert!(env.ok(), "{}", env.to_json());
            env
        })
    });
    group.finish();
    let close = match Request::from_args(["browser", "close", "--session", "bench"]) {
        Ok(r) => r,
        Err(e) => panic!("close: {e}"),
    };
    let _ = rt.block_on(engine.execute(close));
}

criterion_group!(benches, network);
criterion_main!(benches);
