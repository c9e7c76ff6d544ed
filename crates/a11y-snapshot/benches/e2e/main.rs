//! End-to-end snapshot time against Chromium, as a ratio of the raw CDP floor measured in the same run
//! (`DOM.getDocument{depth:-1,pierce:true}` per session + `Accessibility.getFullAXTree` per frame, answers
//! scanned but not decoded, like `../shared/bench/cdp_floor.py`), on the pages of
//! `../shared/bench/gen_fixtures.py` and the 100,000-element page of `benches/gen_large.py`. Skips
//! itself when Chromium or the generator is missing.
//!
//! `A11Y_BENCH_PAGES=login,large5k` limits the pages; the ratio lines go to stderr. The 100k page
//! gets the ratio runs only (no criterion group: one floor run takes tens of seconds).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use a11y_snapshot::{
    CaptureOptions, PageFrames, RefTable, SnapshotOptions, node_list, render_actionbook,
    take_snapshot,
};
use cdp_protocol::testing::{FixtureServer, chromium_available, launch_test_browser};
use cdp_protocol::{Command, Session, page, target};
use criterion::{Criterion, criterion_group, criterion_main};
use frame_graph::{FrameGraph, FrameGraphOptions};
use serde::Serialize;
use serde::de::IgnoredAny;

#[derive(Serialize)]
struct GetDocumentScan {
    depth: i64,
    pierce: bool,
}

impl Command for GetDocumentScan {
    const METHOD: &'static str = "DOM.getDocument";
    type Response = IgnoredAny;
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GetFullAxTreeScan {
    frame_id: String,
}

impl Command for GetFullAxTreeScan {
    const METHOD: &'static str = "Accessibility.getFullAXTree";
    type Response = IgnoredAny;
}

/// The bench kit's fixture generator: `$BENCH_KIT/gen_fixtures.py`, else the first
/// `shared/bench/gen_fixtures.py` above this crate (the kit sits next to the checkout).
fn generator() -> Option<PathBuf> {
    if let Some(kit) = std::env::var_os("BENCH_KIT") {
        let p = PathBuf::from(kit).join("gen_fixtures.py");
        return p.exists().then_some(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|d| d.join("shared/bench/gen_fixtures.py"))
        .find(|p| p.exists())
}

/// Per-call limit of the floor's CDP calls: a 100k page's AX tree takes tens of seconds on a busy
/// machine, and a call that timed out would make the floor look cheaper than it is.
const FLOOR_CALL: Duration = Duration::from_secs(600);

/// The workspace's `benches/gen_large.py` (pages beyond the kit's 20k).
fn large_generator() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benches/gen_large.py")
}

/// The floor: every session's document and every frame's AX tree, one after the other.
async fn floor(graph: &FrameGraph) -> Duration {
    let frames = PageFrames::frames(graph);
    let t = Instant::now();
    let mut seen: Vec<Option<String>> = Vec::new();
    for f in &frames {
        let key = f.session.id().map(|s| s.as_str().to_string());
        if !seen.contains(&key) {
            seen.push(key);
            let doc = GetDocumentScan {
                depth: -1,
                pierce: true,
            };
            if let Err(e) = f.session.send_timeout(&doc, FLOOR_CALL).await {
                eprintln!("floor: DOM.getDocument failed: {e}");
            }
        }
        let ax = GetFullAxTreeScan {
            frame_id: f.frame_id.clone(),
        };
        if let Err(e) = f.session.send_timeout(&ax, FLOOR_CALL).await {
            eprintln!("floor: getFullAXTree of {} failed: {e}", f.frame_id);
        }
    }
    t.elapsed()
}

async fn ours(graph: &FrameGraph, refs: &mut RefTable) -> (Duration, usize) {
    let t = Instant::now();
    let opts = CaptureOptions {
        cursor: std::env::var("A11Y_BENCH_NO_CURSOR").is_err(),
        timeout: FLOOR_CALL,
        ..CaptureOptions::default()
    };
    let snap = match take_snapshot(graph, refs, &opts).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("snapshot failed: {e}");
            return (t.elapsed(), 0);
        }
    };
    let text = render_actionbook(&snap, &SnapshotOptions::default());
    if std::env::var("A11Y_BENCH_VERBOSE").is_ok() {
        eprintln!(
            "  capture {:.1} ms, build {:.1} ms, total {:.1} ms",
            snap.metrics.capture_ms,
            snap.metrics.build_ms,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let (nodes, _) = node_list(&snap, &SnapshotOptions::default());
    std::hint::black_box(nodes.len());
    (t.elapsed(), text.len())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let Some(script) = generator() else {
        eprintln!("gen_fixtures.py not found: skipping");
        return;
    };
    if !chromium_available() {
        eprintln!("no Chromium: skipping");
        return;
    }
    let Ok(rt) = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    else {
        return;
    };
    let wanted = std::env::var("A11Y_BENCH_PAGES")
        .unwrap_or_else(|_| "login,large5k,large20k,iframes,oopif,large100k".into());
    let (server, browser, session) = rt.block_on(async {
        let server = FixtureServer::start().await;
        let browser = launch_test_browser().await;
        let root = browser.connection().browser();
        let created = root
            .send(&target::CreateTarget {
                url: "about:blank".into(),
                ..Default::default()
            })
            .await
            .ok();
        let session = match created {
            Some(c) => root.attach_to_target(&c.target_id).await.ok(),
            None => None,
        };
        (server, browser, session)
    });
    let Some(session) = session else {
        eprintln!("cannot open a tab");
        return;
    };
    let dir = tempfile::tempdir().ok();
    let Some(dir) = dir else { return };
    let ok = std::process::Command::new("python3")
        .arg(&script)
        .arg(dir.path())
        .arg("--child-port")
        .arg(server.port().to_string())
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("gen_fixtures.py failed: skipping");
        return;
    }
    if wanted.split(',').any(|p| p == "large100k") {
        let ok = std::process::Command::new("python3")
            .arg(large_generator())
            .arg(dir.path())
            .arg("100000")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("gen_large.py failed: no large100k page");
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir.path()) {
        for e in entries.flatten() {
            if let (Some(name), Ok(body)) = (
                e.file_name().to_str().map(str::to_string),
                std::fs::read(e.path()),
            ) {
                server.route(&format!("/{name}"), "text/html; charset=utf-8", body);
            }
        }
    }
    let graph = rt.block_on(FrameGraph::attach(
        session.clone(),
        FrameGraphOptions::default(),
    ));
    let Ok(graph) = graph else {
        eprintln!("frame graph failed");
        return;
    };
    for name in wanted.split(',') {
        let url = server.url(&format!("/{name}.html"));
        let loaded = rt.block_on(goto(&session, &url));
        if !loaded {
            eprintln!("{name}: did not load");
            continue;
        }
        let _ = rt.block_on(graph.sync());
        // Ratio from interleaved runs in this process (criterion numbers below are per function).
        let huge = name == "large100k";
        let runs = match name {
            "large100k" => 3,
            "large20k" => 5,
            _ => 9,
        };
        let mut f = Vec::new();
        let mut s = Vec::new();
        let mut size = 0;
        let mut refs = RefTable::new();
        rt.block_on(async {
            let _ = floor(&graph).await;
            let _ = ours(&graph, &mut refs).await;
            for _ in 0..runs {
                f.push(floor(&graph).await);
                let (d, n) = ours(&graph, &mut refs).await;
                s.push(d);
                size = n;
            }
        });
        let (fm, sm) = (median(f), median(s));
        eprintln!(
            "{name}: floor {:.1} ms, snapshot {:.1} ms, ratio {:.2}, text {} bytes",
            fm.as_secs_f64() * 1e3,
            sm.as_secs_f64() * 1e3,
            sm.as_secs_f64() / fm.as_secs_f64().max(1e-9),
            size
        );
        if huge {
            continue;
        }
        let mut g = c.benchmark_group(format!("e2e_{name}"));
        g.sample_size(10)
            .measurement_time(Duration::from_secs(if name.starts_with("large") {
                20
            } else {
                5
            }));
        g.bench_function("floor", |b| b.to_async(&rt).iter(|| floor(&graph)));
        g.bench_function("snapshot", |b| {
            b.to_async(&rt).iter(|| async {
                let mut refs = RefTable::new();
                ours(&graph, &mut refs).await
            })
        });
        g.finish();
    }
    graph.shutdown();
    rt.block_on(async {
        let _ = browser.close().await;
    });
}

async fn goto(session: &Session, url: &str) -> bool {
    let mut loads = session.subscribe::<page::LoadEventFired>();
    if session.send(&page::Enable).await.is_err() {
        return false;
    }
    if session
        .send(&page::Navigate {
            url: url.into(),
            ..Default::default()
        })
        .await
        .is_err()
    {
        return false;
    }
    tokio::time::timeout(Duration::from_secs(120), loads.recv())
        .await
        .is_ok()
}

criterion_group!(benches, bench);
criterion_main!(benches);
