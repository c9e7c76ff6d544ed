//! `browser wait element` through the in-process engine: for an element already there, against
//! `browser title` in the same run (read as a ratio); and how soon a wait notices an element a
//! page timer adds, in the main frame (woken by a mutation observer) and in an out-of-process
//! iframe (polled), as the time from the page adding it (`Date.now()` in the page) to the wait's
//! answer (the same wall clock), printed as min / median / max over a few rounds.
//!
//! Run with `cargo bench -p actionbook-workspace --bench waits`.

use actionbook::commands::interaction::Eval;
use actionbook::commands::observation::Title;
use actionbook::commands::waits::WaitElement;
use actionbook::{Request, TabTarget};
use cdp_protocol::testing::FixtureServer;
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use test_support::{Chromium, StartedEngine};

const FRAME: &str = "<!doctype html><title>frame</title><script>\
  addEventListener('message', e => setTimeout(() => { const p = document.createElement('p'); \
  p.id = e.data; document.body.appendChild(p); parent.postMessage(Date.now(), '*'); }, 50));\
  </script>";

fn page(frame_url: &str) -> String {
    format!(
        "<!doctype html><title>bench page</title><p id=there>hello</p>\
         <iframe id=f src=\"{frame_url}\"></iframe><script>\
         addEventListener('message', e => {{ window.addedAt = e.data; }});\
         window.addLater = id => setTimeout(() => {{ const p = document.createElement('p'); \
         p.id = id; document.body.appendChild(p); window.addedAt = Date.now(); }}, 50);\
         window.addInFrame = id => document.getElementById('f').contentWindow.postMessage(id, '*');\
         </script>"
    )
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn waits(c: &mut Criterion) {
    let rt = test_support::runtime();
    let server = rt.block_on(FixtureServer::start());
    server.route("/frame.html", "text/html", FRAME);
    server.route(
        "/page.html",
        "text/html",
        page(&server.cross_site_url("/frame.html")),
    );
    let url = server.url("/page.html");
    // Site isolation, so the iframe is out of process.
    let bench = StartedEngine::start(&rt, &url, Chromium::SitePerProcess);
    let engine = &bench.engine;
    let tab = || TabTarget::new("bench", "t1");
    let title = Request::new(Title { target: tab() });
    let wait = |selector: &str| {
        Request::new(WaitElement {
            selector: selector.to_string(),
            state: None,
            target: tab(),
        })
        .with_timeout_ms(5000)
    };
    let eval = |code: &str| Request::new(Eval::new(code, tab()));

    let mut group = c.benchmark_group("wait_element");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("title", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(title.clone()).await;
            assert!(env.ok());
            env
        })
    });
    let present = wait("#there");
    group.bench_function("wait_element_present", |b| {
        b.to_async(&rt).iter(|| async {
            let env = engine.execute(present.clone()).await;
            assert!(env.ok(), "{}", env.to_json());
            env
        })
    });
    group.finish();

    // Noticing latency.
    for (what, add) in [("main frame", "addLater"), ("OOPIF", "addInFrame")] {
        let mut lat = Vec::new();
        for i in 0..15 {
            let id = format!("n{}{i}", add.len());
            let added = rt.block_on(engine.execute(eval(&format!("{add}('{id}'), 1"))));
            assert!(added.ok(), "{}", added.to_json());
            let done = rt.block_on(engine.execute(wait(&format!("#{id}"))));
            let answered = now_ms();
            assert!(done.ok(), "{}", done.to_json());
            let at = rt.block_on(engine.execute(eval("window.addedAt")));
            let added_at = at
                .to_json()
                .parse::<serde_json::Value>()
                .ok()
                .and_then(|v| v["data"]["value"].as_f64())
                .unwrap_or(answered);
            lat.push(answered - added_at);
        }
        lat.sort_by(f64::total_cmp);
        println!(
            "wait element noticed ({what}): min {:.1} ms, median {:.1} ms, max {:.1} ms",
            lat[0],
            lat[lat.len() / 2],
            lat[lat.len() - 1]
        );
    }

    bench.close(&rt);
}

criterion_group!(benches, waits);
criterion_main!(benches);
