//! `browser title` through the in-process engine against its floor, one CDP `Runtime.evaluate`
//! on an open connection, measured in the same run (read the two as a ratio, not as absolutes).
//!
//! Run with `cargo bench -p actionbook-workspace --bench title_round_trip`.
//! The daemon round trip (CLI process + IPC) is measured by
//! `cargo run --release -p actionbook-cli --example cli_bench`.

use actionbook::commands::observation::Title;
use actionbook::{Request, TabTarget};
use cdp_protocol::testing::{FixtureServer, launch_test_browser};
use cdp_protocol::{page, runtime, target};
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;
use test_support::{Chromium, StartedEngine};

const PAGE: &str = "<!doctype html><title>bench page</title><p>hello</p>";

fn title_round_trip(c: &mut Criterion) {
    let rt = test_support::runtime();
    let server = rt.block_on(FixtureServer::start());
    server.route("/page.html", "text/html", PAGE);
    let url = server.url("/page.html");

    // Floor: a raw evaluate on an attached page session.
    let browser = rt.block_on(launch_test_browser());
    let session = rt.block_on(async {
        let root = browser.connection().browser();
        let created = root
            .send(&target::CreateTarget {
                url: url.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| e.to_string())?;
        let session = root
            .attach_to_target(&created.target_id)
            .await
            .map_err(|e| e.to_string())?;
        session
            .send(&page::Enable)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(session)
    });
    let session = match session {
        Ok(s) => s,
        Err(e) => panic!("raw session: {e}"),
    };
    let evaluate = runtime::Evaluate {
        expression: "document.title".into(),
        return_by_value: Some(true),
        ..Default::default()
    };

    // The engine, in-process, on its own browser.
    let bench = StartedEngine::start(&rt, &url, Chromium::Plain);
    let engine = &bench.engine;
    let title = Request::new(Title {
        target: TabTarget::new("bench", "t1"),
    });

    let mut group = c.benchmark_group("title_round_trip");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("floor_raw_cdp_evaluate", |b| {
        b.to_async(&rt).iter(|| async {
            match session.send(&evaluate).await {
                Ok(r) => r,
                Err(e) => panic!("evaluate: {e}"),
            }
        })
    });
    group.bench_function("engine_in_process_title", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(title.clone()).await;
            assert!(env.ok());
            env
        })
    });
    group.finish();

    bench.close(&rt);
    if let Err(e) = rt.block_on(browser.close()) {
        eprintln!("closing the floor browser: {e}");
    }
}

criterion_group!(benches, title_round_trip);
criterion_main!(benches);
