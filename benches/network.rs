//! The network recorder's cost and the request list's latency.
//!
//! 1. Page-load overhead: a page with 200 subresource requests (images) loaded in a fresh tab,
//!    without and with what the recorder does to a tab (a second flat session with
//!    `Network.enable` and paused auto-attach, every Network event received and decoded to its
//!    typed struct), rounds interleaved (the order alternates); median load times and their ratio.
//!    Raw CDP on both sides, so the difference is the recorder's alone. `NETWORK_BENCH_MODES`
//!    picks other setups to compare (see [`Mode`]): the recorder of a session that records
//!    nothing (`recorder-off`), parts of what the recorder does, and the Fetch domain as another
//!    source of requests (`fetch-response`). `recorder-allowlist` is the recorder with the
//!    `--allowed-domains` guard (`Fetch` on the browser session, every request checked), in the
//!    default set; its ratio to `recorder` is the allowlist's cost.
//! 2. `browser network requests` on a full ring (500 requests) against `browser title` through the
//!    in-process engine, same tab, same run (criterion).
//!
//! `NETWORK_BENCH_IMAGE_DELAY_MS` has the server answer each image after that long, as a page
//! whose requests cross a real network (0 by default: the recorder's worst case).
//!
//! Run with `cargo bench -p actionbook-workspace --bench network`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actionbook::bench_support::{GuardProbe, RecorderProbe, network_enable};
use actionbook::commands::network::Requests;
use actionbook::commands::observation::Title;
use actionbook::{Request, TabTarget};
use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{EventFilter, SessionFilter, fetch, network, page, runtime, target};
use criterion::{Criterion, criterion_group, criterion_main};
use test_support::{Chromium, StartedEngine};

const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

/// How long the server takes to answer each image (`NETWORK_BENCH_IMAGE_DELAY_MS`; 0, the worst
/// case for the recorder, unless set): a page whose requests cross a real network.
fn image_delay() -> Duration {
    let ms = std::env::var("NETWORK_BENCH_IMAGE_DELAY_MS")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    Duration::from_millis(ms)
}

/// Rounds per mode (`NETWORK_BENCH_ROUNDS` overrides).
fn rounds() -> usize {
    std::env::var("NETWORK_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(16)
}

fn heavy_page(round: usize) -> String {
    let imgs: String = (0..200)
        .map(|i| format!("<img src=\"/img.gif?r={round}&i={i}\" width=1 height=1>"))
        .collect();
    format!("<!doctype html><title>heavy</title>{imgs}")
}

/// What a load runs beside the page: the recorder, or (to find where its cost goes, with
/// `NETWORK_BENCH_MODES`) a part of what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Nothing: the page alone.
    Plain,
    /// The tab's network recorder itself, started on the page as an attached tab starts it.
    Recorder,
    /// The recorder and the `--allowed-domains` guard (`Fetch` on the browser session pausing
    /// every request, each checked against a list that allows the page's host and continued).
    RecorderAllowlist,
    /// The recorder of a session started with `--max-tracked-requests 0` (routes only).
    RecorderOff,
    /// `Network.enable` (Chromium's defaults) on a second session, every event counted by method
    /// without decoding.
    EnableCount,
    /// `Network.enable` (Chromium's defaults) on a second session, no one reading the events.
    EnableOnly,
    /// `Network.enable` (Chromium's defaults) on the page's own session, no one reading.
    EnableOwn,
    /// A second session attached, nothing enabled on it (what a session alone costs).
    AttachOnly,
    /// `Network.enable` with the recorder's buffer limits on a second session, no one reading.
    EnableOurs,
    /// `Network.enable` with no body buffer (`maxTotalBufferSize` 0) on a second session, no one
    /// reading.
    EnableNoBuffer,
    /// `Fetch.enable` pausing every request at the response stage on a second session, each
    /// pause continued at once (the Fetch domain as a recorder's source instead of Network).
    FetchResponse,
}

impl Mode {
    fn parse(s: &str) -> Option<Mode> {
        Some(match s.trim() {
            "plain" => Mode::Plain,
            "recorder" => Mode::Recorder,
            "recorder-allowlist" => Mode::RecorderAllowlist,
            "recorder-off" => Mode::RecorderOff,
            "enable-count" => Mode::EnableCount,
            "enable-only" => Mode::EnableOnly,
            "enable-own" => Mode::EnableOwn,
            "attach-only" => Mode::AttachOnly,
            "enable-ours" => Mode::EnableOurs,
            "enable-nobuf" => Mode::EnableNoBuffer,
            "fetch-response" => Mode::FetchResponse,
            _ => return None,
        })
    }
}

/// Events per method: `(count, bytes of params)`.
type Counts = Arc<Mutex<BTreeMap<String, (u64, u64)>>>;

/// One load's times, in ms.
#[derive(Debug, Clone, Copy)]
struct LoadTimes {
    /// From the navigate call until the client has the load event (what a CDP client waits).
    client: f64,
    /// The page's own: navigation start to the load event's start (the Navigation Timing entry),
    /// free of the time the browser takes to deliver the events queued before the load event.
    page: f64,
}

/// The page's own load time, read off its Navigation Timing entry.
async fn page_load_ms(session: &cdp_protocol::Session) -> f64 {
    let read = runtime::Evaluate {
        expression: "performance.getEntriesByType('navigation')[0].loadEventStart".into(),
        return_by_value: Some(true),
        ..Default::default()
    };
    match session.send(&read).await {
        Ok(r) => r.result.value.and_then(|v| v.as_f64()).unwrap_or(f64::NAN),
        Err(e) => panic!("read the page's load time: {e}"),
    }
}

/// Loads `url` in a fresh tab with `mode` set up first (not timed); its load times.
async fn load_ms(
    browser: &cdp_protocol::Browser,
    url: &str,
    mode: Mode,
    counts: &Counts,
) -> LoadTimes {
    let (target_id, session) = match open_blank_page(browser).await {
        Ok(p) => p,
        Err(e) => panic!("open page: {e}"),
    };
    let conn = browser.connection().clone();
    let mut probe = None;
    let mut guard = None;
    let mut off_probe = None;
    let mut watcher = None;
    // A task beside the load: the event counter, or the Fetch mode's continuer.
    let mut side_task = None;
    let mut continued: Option<Arc<AtomicUsize>> = None;
    match mode {
        Mode::Plain => {}
        Mode::Recorder => match RecorderProbe::start(&conn, &target_id, &session, 500).await {
            Ok(p) => probe = Some(p),
            Err(e) => panic!("start the recorder: {e}"),
        },
        Mode::RecorderAllowlist => {
            let host = url
                .trim_start_matches("http://")
                .split('/')
                .next()
                .unwrap_or_default();
            let rules = vec![format!("{host},localhost,*.example.com")];
            match GuardProbe::start(&conn, &rules).await {
                Ok(g) => guard = Some(g),
                Err(e) => panic!("start the allowlist guard: {e}"),
            }
            match RecorderProbe::start(&conn, &target_id, &session, 500).await {
                Ok(p) => probe = Some(p),
                Err(e) => panic!("start the recorder: {e}"),
            }
        }
        Mode::RecorderOff => match RecorderProbe::start(&conn, &target_id, &session, 0).await {
            Ok(p) => off_probe = Some(p),
            Err(e) => panic!("start the recorder: {e}"),
        },
        Mode::EnableOwn => {
            if let Err(e) = session.send(&network::Enable::default()).await {
                panic!("Network.enable: {e}");
            }
        }
        Mode::FetchResponse => {
            let w = match conn.browser().attach_to_target(&target_id).await {
                Ok(s) => s,
                Err(e) => panic!("attach: {e}"),
            };
            let mut paused = w.subscribe::<fetch::RequestPaused>();
            let enable = fetch::Enable {
                patterns: Some(vec![fetch::RequestPattern {
                    url_pattern: Some("*".into()),
                    resource_type: None,
                    request_stage: Some("Response".into()),
                }]),
                handle_auth_requests: None,
            };
            if let Err(e) = w.send(&enable).await {
                panic!("Fetch.enable: {e}");
            }
            let session = w.clone();
            let done = Arc::new(AtomicUsize::new(0));
            continued = Some(done.clone());
            side_task = Some(tokio::spawn(async move {
                while let Some(Ok(p)) = paused.recv().await {
                    let s = session.clone();
                    let done = done.clone();
                    tokio::spawn(async move {
                        let call = fetch::ContinueRequest {
                            request_id: p.request_id,
                            ..Default::default()
                        };
                        if s.send(&call).await.is_ok() {
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    });
                }
            }));
            watcher = Some(w);
        }
        Mode::EnableOnly
        | Mode::EnableCount
        | Mode::AttachOnly
        | Mode::EnableOurs
        | Mode::EnableNoBuffer => {
            let w = match conn.browser().attach_to_target(&target_id).await {
                Ok(s) => s,
                Err(e) => panic!("attach: {e}"),
            };
            if mode == Mode::EnableCount {
                let Some(own) = w.id().cloned() else {
                    panic!("the second session has no id");
                };
                let mut events = conn.events(
                    EventFilter::all()
                        .session(SessionFilter::Only(own))
                        .capacity(64 * 1024),
                );
                let counts = counts.clone();
                side_task = Some(tokio::spawn(async move {
                    while let Some(ev) = events.recv().await {
                        let mut c = counts.lock().unwrap_or_else(|p| p.into_inner());
                        let bytes = ev.params.get().len() as u64;
                        let entry = c.entry(ev.method).or_default();
                        entry.0 += 1;
                        entry.1 += bytes;
                    }
                }));
            }
            let enable = match mode {
                Mode::EnableOurs => Some(network_enable()),
                Mode::EnableNoBuffer => Some(network::Enable {
                    max_total_buffer_size: Some(0),
                    max_resource_buffer_size: Some(0),
                    max_post_data_size: Some(0),
                }),
                Mode::AttachOnly => None,
                _ => Some(network::Enable::default()),
            };
            if let Some(enable) = enable
                && let Err(e) = w.send(&enable).await
            {
                panic!("Network.enable: {e}");
            }
            watcher = Some(w);
        }
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
    let page_ms = page_load_ms(&session).await;
    if let Some(p) = probe {
        let seen = p.requests();
        assert!(seen >= 200, "the recorder saw {seen} requests of 201");
        p.stop().await;
    }
    if let Some(g) = guard {
        assert_eq!(
            g.refused(),
            0,
            "the guard refused a request of the allowed page"
        );
        g.stop().await;
    }
    if let Some(p) = off_probe {
        assert_eq!(p.seen(), 0, "the recorder saw requests with recording off");
        p.stop().await;
    }
    if let Some(w) = watcher {
        // Events still queued are counted (and pauses continued) before the side task goes.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _ = w.detach().await;
    }
    if let Some(c) = side_task {
        c.abort();
    }
    if let Some(n) = continued {
        // The load could not end with requests held, but a mode that paused nothing would
        // measure the bare page.
        let n = n.load(Ordering::Relaxed);
        assert!(n >= 200, "only {n} responses were paused and continued");
    }
    let _ = conn
        .browser()
        .send(&target::CloseTarget {
            target_id: target_id.clone(),
        })
        .await;
    LoadTimes {
        client: ms,
        page: page_ms,
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn network(c: &mut Criterion) {
    let rt = test_support::runtime();
    let server = rt.block_on(FixtureServer::start());
    let delay = image_delay();
    server.route_delayed("/img.gif", "image/gif", GIF.to_vec(), delay);
    // 1. Page-load overhead, interleaved: the modes take turns, each round in another order.
    let modes: Vec<Mode> = match std::env::var("NETWORK_BENCH_MODES") {
        Ok(list) => list
            .split(',')
            .map(|m| Mode::parse(m).unwrap_or_else(|| panic!("unknown mode {m:?}")))
            .collect(),
        Err(_) => vec![Mode::Plain, Mode::Recorder, Mode::RecorderAllowlist],
    };
    let rounds = rounds();
    for r in 0..=modes.len() * rounds {
        server.route(&format!("/heavy{r}.html"), "text/html", heavy_page(r));
    }

    let browser = rt.block_on(launch_test_browser());
    let counts: Counts = Arc::default();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut page_times: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    // One warm-up load each (process start-up, cache of the page's code paths).
    for m in &modes {
        rt.block_on(load_ms(&browser, &server.url("/heavy0.html"), *m, &counts));
    }
    counts.lock().unwrap_or_else(|p| p.into_inner()).clear();
    let mut page = 0;
    for round in 0..rounds {
        for k in 0..modes.len() {
            // Rotated each round, so no mode always runs first or after the same one.
            let i = (k + round) % modes.len();
            // Distinct URLs each load (no cache effects; the server says no-store anyway).
            page += 1;
            let url = server.url(&format!("/heavy{page}.html"));
            let t = rt.block_on(load_ms(&browser, &url, modes[i], &counts));
            times[i].push(t.client);
            page_times[i].push(t.page);
        }
    }
    let base = median(&mut times[0]);
    let page_base = median(&mut page_times[0]);
    for (i, m) in modes.iter().enumerate() {
        let t = median(&mut times[i]);
        let p = median(&mut page_times[i]);
        println!(
            "page load with 200 requests (each answered after {} ms), {rounds} rounds interleaved: {m:?} median {t:.1} ms to the client's load event, ratio to {:?} {:.3}; the page's own load time {p:.1} ms, ratio {:.3}",
            delay.as_millis(),
            modes[0],
            t / base,
            p / page_base
        );
    }
    // The allowlist's own cost: a session's tabs always have the recorder, so against it.
    let at = |m: Mode| modes.iter().position(|x| *x == m);
    if let (Some(r), Some(a)) = (at(Mode::Recorder), at(Mode::RecorderAllowlist)) {
        let (tr, ta) = (median(&mut times[r]), median(&mut times[a]));
        let (pr, pa) = (median(&mut page_times[r]), median(&mut page_times[a]));
        println!(
            "allowlist guard: {ta:.1} vs {tr:.1} ms to the client's load event, ratio {:.3}; the page's own {pa:.1} vs {pr:.1} ms, ratio {:.3}",
            ta / tr,
            pa / pr
        );
    }
    let counted = counts.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let (mut all_n, mut all_bytes) = (0, 0);
    for (method, (n, bytes)) in counted {
        all_n += n;
        all_bytes += bytes;
        println!(
            "  {method}: {:.1} per load, {:.1} KiB",
            n as f64 / rounds as f64,
            bytes as f64 / rounds as f64 / 1024.0
        );
    }
    if all_n > 0 {
        println!(
            "  all: {:.1} events per load, {:.1} KiB",
            all_n as f64 / rounds as f64,
            all_bytes as f64 / rounds as f64 / 1024.0
        );
    }
    drop(browser);

    // 2. `network requests` on a full ring against `title` (images answered at once again).
    server.route("/img.gif", "image/gif", GIF.to_vec());
    let many: String = (0..600)
        .map(|i| format!("<img src=\"/img.gif?ring={i}\" width=1 height=1>"))
        .collect();
    server.route(
        "/ring.html",
        "text/html",
        format!("<!doctype html><title>ring</title>{many}"),
    );
    let bench = StartedEngine::start(&rt, &server.url("/ring.html"), Chromium::Plain);
    let engine = &bench.engine;
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
    bench.close(&rt);
}

criterion_group!(benches, network);
criterion_main!(benches);
