//! Where a snapshot's time and memory go, step by step, on one page (profiling aid).
use std::time::Instant;

use a11y_snapshot::{
    AxSource, CaptureOptions, PageFrames, RefTable, SnapshotOptions, node_list, render_actionbook,
};
use cdp_protocol::testing::launch_test_browser;
use cdp_protocol::{page, target};
use frame_graph::{FrameGraph, FrameGraphOptions};

fn mem() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    format!("rss {:6.1} MB hwm {:6.1} MB", get("VmRSS:"), get("VmHWM:"))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let url = std::env::args().nth(1).expect("url");
    let browser = launch_test_browser().await;
    let root = browser.connection().browser();
    let t = root
        .send(&target::CreateTarget {
            url: "about:blank".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let session = root.attach_to_target(&t.target_id).await.unwrap();
    let mut loads = session.subscribe::<page::LoadEventFired>();
    session.send(&page::Enable).await.unwrap();
    session
        .send(&page::Navigate {
            url,
            ..Default::default()
        })
        .await
        .unwrap();
    loads.recv().await;
    let graph = FrameGraph::attach(session.clone(), FrameGraphOptions::default())
        .await
        .unwrap();
    let _ = PageFrames::frames(&graph);
    eprintln!("attached                 {}", mem());
    macro_rules! time {
        ($l:expr, $e:expr) => {{
            let t = Instant::now();
            let r = $e;
            eprintln!(
                "{:24} {:8.1} ms  {}",
                $l,
                t.elapsed().as_secs_f64() * 1e3,
                mem()
            );
            r
        }};
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    for round in 0..rounds {
        let mut refs = RefTable::new();
        let opts = CaptureOptions {
            accessibility: AxSource::Computed,
            ..CaptureOptions::default()
        };
        let src = time!(
            "capture()",
            a11y_snapshot::capture(&graph, &opts).await.unwrap()
        );
        let snap = time!(
            "Snapshot::build",
            a11y_snapshot::Snapshot::build(src, &mut refs)
        );
        let text = time!(
            "render full",
            render_actionbook(&snap, &SnapshotOptions::default())
        );
        let (nodes, _) = time!("node_list", node_list(&snap, &SnapshotOptions::default()));
        let json = time!("refs to_json", refs.to_json());
        eprintln!(
            "round {round}: text {} B, refs {} ({} B json), nodes {}, metrics {:?}",
            text.len(),
            refs.len(),
            json.len(),
            nodes.len(),
            snap.metrics
        );
        drop((snap, text, nodes, json));
        eprintln!("dropped                  {}", mem());
    }
    graph.shutdown();
    let _ = browser.close().await;
}
