//! Merge/prune/render cost of a snapshot on recorded CDP answers (no browser): decode the DOM and AX
//! JSON of a ~20,000-element page into the lean types, cut the DOM into frames, build the tree with refs,
//! render the three outputs.

use criterion::{Criterion, criterion_group, criterion_main};

use a11y_snapshot::dom::split_document;
use a11y_snapshot::raw::{AxTree, DomDocument};
use a11y_snapshot::{
    FrameSource, PageSource, RefTable, Snapshot, SnapshotOptions, node_list, render_actionbook,
    render_simplified,
};

mod synthetic;

fn build(rec: &synthetic::Recorded, refs: &mut RefTable) -> Option<Snapshot> {
    let doc: DomDocument = serde_json::from_str(&rec.dom_json)
        .map_err(|e| eprintln!("dom: {e}"))
        .ok()?;
    let ax: AxTree = serde_json::from_str(&rec.ax_json)
        .map_err(|e| eprintln!("ax: {e}"))
        .ok()?;
    let pieces = split_document(doc.root);
    let src = PageSource {
        frames: vec![FrameSource {
            frame_id: "MAINFRAME".into(),
            dom: pieces.root,
            ax: ax.nodes,
            ..FrameSource::default()
        }],
        capture_time: std::time::Duration::ZERO,
        warnings: Vec::new(),
        viewport: None,
    };
    Some(Snapshot::build(src, refs))
}

fn bench(c: &mut Criterion) {
    for target in [5_000usize, 20_000] {
        let rec = synthetic::page(target);
        let mut refs = RefTable::new();
        let Some(snap) = build(&rec, &mut refs) else {
            eprintln!("synthetic page did not decode");
            return;
        };
        let full = render_actionbook(&snap, &SnapshotOptions::default());
        let inter = render_actionbook(
            &snap,
            &SnapshotOptions {
                interactive_only: true,
                ..SnapshotOptions::default()
            },
        );
        eprintln!(
            "{target}: {} elements, dom json {} KiB, ax json {} KiB, {} kept nodes, {} refs; text {} B full ({:.1} B/element), {} B interactive ({:.1} B/element)",
            rec.elements,
            rec.dom_json.len() / 1024,
            rec.ax_json.len() / 1024,
            snap.metrics.node_count,
            snap.metrics.ref_count,
            full.len(),
            full.len() as f64 / rec.elements as f64,
            inter.len(),
            inter.len() as f64 / rec.elements as f64
        );
        let mut g = c.benchmark_group(format!("snapshot_{target}"));
        g.sample_size(10);
        g.bench_function("decode_dom", |b| {
            b.iter(|| serde_json::from_str::<DomDocument>(&rec.dom_json).ok())
        });
        g.bench_function("decode_ax", |b| {
            b.iter(|| serde_json::from_str::<AxTree>(&rec.ax_json).ok())
        });
        g.bench_function("decode_merge_render_all", |b| {
            b.iter(|| {
                let mut refs = RefTable::new();
                let snap = build(&rec, &mut refs)?;
                let a = render_actionbook(&snap, &SnapshotOptions::default());
                let s = render_simplified(&snap, &SnapshotOptions::default());
                let (n, _) = node_list(&snap, &SnapshotOptions::default());
                Some((a.len(), s.len(), n.len()))
            })
        });
        g.bench_function("split_merge_render_only", |b| {
            b.iter_batched(
                || {
                    let doc: Option<DomDocument> = serde_json::from_str(&rec.dom_json).ok();
                    let ax: Option<AxTree> = serde_json::from_str(&rec.ax_json).ok();
                    (doc, ax)
                },
                |(doc, ax)| {
                    let (doc, ax) = (doc?, ax?);
                    let pieces = split_document(doc.root);
                    let src = PageSource {
                        frames: vec![FrameSource {
                            frame_id: "MAINFRAME".into(),
                            dom: pieces.root,
                            ax: ax.nodes,
                            ..FrameSource::default()
                        }],
                        capture_time: std::time::Duration::ZERO,
                        warnings: Vec::new(),
                        viewport: None,
                    };
                    let mut refs = RefTable::new();
                    let snap = Snapshot::build(src, &mut refs);
                    Some(render_actionbook(&snap, &SnapshotOptions::default()).len())
                },
                criterion::BatchSize::LargeInput,
            )
        });
        g.bench_function("render_actionbook", |b| {
            b.iter(|| render_actionbook(&snap, &SnapshotOptions::default()).len())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
