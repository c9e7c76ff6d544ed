//! The pure bookkeeping's cost per event and per read: what the graph's task and readers pay.

use cdp_protocol::{ExecutionContextId, FrameId, SessionId};
use criterion::{Criterion, criterion_group, criterion_main};
use frame_graph::{DetachReason, FrameRegistry, SessionKey, TreeFrame};
use std::hint::black_box;

fn page(n: usize) -> FrameRegistry {
    let p: SessionKey = Some(SessionId::from("P"));
    let mut r = FrameRegistry::new(p.clone());
    r.seed_from_frame_tree(
        &p,
        &[TreeFrame {
            frame_id: FrameId::from("M"),
            parent_id: None,
            url: "http://a/".into(),
            name: None,
            loader_id: None,
        }],
    );
    r.finish_numbering(&[]);
    for i in 0..n {
        r.on_frame_attached(&p, &FrameId::new(format!("F{i}")), &FrameId::from("M"));
    }
    r
}

fn bench(c: &mut Criterion) {
    let p: SessionKey = Some(SessionId::from("P"));
    c.bench_function("churn: attach+context+detach of 200 frames", |b| {
        b.iter(|| {
            let mut r = page(0);
            for i in 0..200 {
                let f = FrameId::new(format!("C{i}"));
                r.on_frame_attached(&p, &f, &FrameId::from("M"));
                r.on_context_created(&p, ExecutionContextId(i + 10), &f, true);
                r.on_frame_detached(&p, &f, DetachReason::Remove);
                let _ = r.take_added();
                let _ = r.release_orphaned_sessions();
            }
            black_box(r.len())
        })
    });
    let r = page(50);
    c.bench_function("read: all 51 frames as FrameInfo", |b| {
        b.iter(|| {
            let infos: Vec<_> = r.dfs_order().iter().filter_map(|f| r.info(f)).collect();
            black_box(infos.len())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
