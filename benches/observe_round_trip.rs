//! Observation commands through the in-process engine against their floors, on the same page of
//! the same browser (a second CDP client attached to the engine's tab), measured in one run:
//!
//! - `browser screenshot` against one raw `Page.captureScreenshot` plus decoding and writing the
//!   file (`std::fs::write`);
//! - `browser query count` and `browser text` against `browser title`.
//!
//! Read them as ratios. Run with `cargo bench -p actionbook-workspace --bench observe_round_trip`.

use actionbook::commands::observation::{Query, QueryMode, Screenshot, Text, Title};
use actionbook::{Request, TabTarget};
use base64::Engine as _;
use cdp_protocol::testing::FixtureServer;
use cdp_protocol::{TargetId, page};
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use test_support::{Chromium, StartedEngine};

const PAGE: &str = r#"<!doctype html><title>bench page</title><style>body{font:16px sans-serif}</style>
<h1>Observation bench</h1><p id="intro">Hello <b>agent</b>, this is a bench page.</p>
<div class="list"><div class="item">Item A</div><div class="item">Item B</div><div class="item">Item C</div></div>
<form><input id="name" placeholder="Your name"><button>Submit</button></form>"#;

fn observe_round_trip(c: &mut Criterion) {
    let rt = test_support::runtime();
    let server = rt.block_on(FixtureServer::start());
    server.route("/page.html", "text/html", PAGE);
    let url = server.url("/page.html");
    let bench = StartedEngine::start(&rt, &url, Chromium::Plain);
    let (engine, dir) = (&bench.engine, &bench.dir);
    let endpoint = bench.cdp_endpoint().to_string();
    let target = bench.first_target().to_string();

    // The floor: a second client on the same tab.
    let floor = rt.block_on(async {
        let (conn, _) = cdp_protocol::connect(&endpoint, &[])
            .await
            .map_err(|e| e.to_string())?;
        let s = conn
            .browser()
            .attach_to_target(&TargetId::from(target.as_str()))
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((conn, s))
    });
    let (_conn, floor) = match floor {
        Ok(f) => f,
        Err(e) => panic!("floor session: {e}"),
    };
    let raw_path = dir.path().join("raw.png");
    let shot_path = dir.path().join("shot.png");
    let t = || TabTarget::new("bench", "t1");
    let screenshot = Request::new(Screenshot {
        path: shot_path.display().to_string(),
        target: t(),
        full: false,
        annotate: false,
        screenshot_quality: None,
        screenshot_format: None,
        selector: None,
    });
    let title = Request::new(Title { target: t() });
    let count = Request::new(Query {
        mode: QueryMode::Count,
        args: vec![".item".into()],
        target: t(),
    });
    let text = Request::new(Text {
        selector: "#intro".into(),
        mode: None,
        target: t(),
    });
    for r in [&screenshot, &title, &count, &text] {
        let env = rt.block_on(engine.execute(r.clone()));
        assert!(env.ok(), "{}", env.to_json());
    }

    let mut group = c.benchmark_group("observe_round_trip");
    group.measurement_time(Duration::from_secs(6));
    group.bench_function("floor_capture_screenshot_and_write", |b| {
        b.to_async(&rt).iter(|| async {
            let r = match floor
                .send(&page::CaptureScreenshot {
                    format: Some("png".into()),
                    ..Default::default()
                })
                .await
            {
                Ok(r) => r,
                Err(e) => panic!("capture: {e}"),
            };
            let bytes = match base64::engine::general_purpose::STANDARD.decode(r.data) {
                Ok(b) => b,
                Err(e) => panic!("base64: {e}"),
            };
            if let Err(e) = std::fs::write(&raw_path, bytes) {
                panic!("write: {e}");
            }
        })
    });
    group.bench_function("engine_screenshot", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(screenshot.clone()).await;
            assert!(env.ok());
        })
    });
    group.bench_function("engine_title", |b| {
        b.to_async(&rt).iter(|| async {
            assert!(engine.execute(title.clone()).await.ok());
        })
    });
    group.bench_function("engine_query_count", |b| {
        b.to_async(&rt).iter(|| async {
            assert!(engine.execute(count.clone()).await.ok());
        })
    });
    group.bench_function("engine_text", |b| {
        b.to_async(&rt).iter(|| async {
            assert!(engine.execute(text.clone()).await.ok());
        })
    });
    group.finish();

    bench.close(&rt);
}

criterion_group!(benches, observe_round_trip);
criterion_main!(benches);
