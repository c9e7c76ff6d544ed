//! Render 10,000 envelopes to JSON and to text: the CLI's hot output path.
//! A regression guard, not a target: compare runs with `cargo bench -p actionbook-envelope`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use envelope::*;
use serde_json::json;

/// A realistic mix: navigation, query results, a snapshot, a read, an error.
fn envelopes(n: usize) -> Vec<Envelope> {
    let ctx = |i: usize| {
        Context::tab("research-google", format!("t{}", i % 7 + 1))
            .with_url(format!("https://example.com/page/{i}"))
            .with_title("Example Domain")
    };
    (0..n)
        .map(|i| {
            match i % 5 {
                0 => Envelope::success(
                    CommandName::BrowserGoto,
                    ctx(i),
                    NavigationData {
                        kind: NavigationKind::Goto,
                        requested_url: Some(format!("https://example.com/page/{i}")),
                        from_url: "https://example.com/".into(),
                        to_url: format!("https://example.com/page/{i}"),
                        title: "Example Domain".into(),
                    },
                ),
                1 => Envelope::success(
                    CommandName::BrowserQuery,
                    ctx(i),
                    QueryData::All {
                        query: ".item".into(),
                        count: 10,
                        items: (1..=10)
                            .map(|n| QueryMatch {
                                selector: format!(".item:nth-of-type({n})"),
                                tag: "div".into(),
                                text: format!("Item {n}"),
                                visible: true,
                                enabled: true,
                            })
                            .collect(),
                    },
                ),
                2 => Envelope::success(
                    CommandName::BrowserSnapshot,
                    ctx(i),
                    SnapshotData::new(
                        format!("/home/u/.actionbook/sessions/s1/snapshot_{i}.yaml"),
                        (1..=40)
                            .map(|n| SnapshotNode {
                                ref_id: format!("e{n}"),
                                role: "button".into(),
                                name: format!("Button {n}"),
                                value: String::new(),
                            })
                            .collect(),
                        SnapshotStats {
                            node_count: 40,
                            interactive_count: 40,
                        },
                    ),
                ),
                3 => Envelope::success(
                    CommandName::BrowserText,
                    ctx(i),
                    ReadData {
                        target: Target::selector("#intro"),
                        value: "Hello agent, this is a test page.".into(),
                    },
                ),
                _ => Envelope::failure(
                    CommandName::BrowserClick,
                    Context::tab("research-google", "t1"),
                    ErrorInfo::new(ErrorCode::ElementNotFound, "element not found: #nope")
                        .with_details(json!({ "selector": "#nope" }))
                        .with_hint("check the selector or wait for the element to appear"),
                ),
            }
            .with_duration_ms(i as u64)
        })
        .collect()
}

fn render(c: &mut Criterion) {
    let envs = envelopes(10_000);
    let mut group = c.benchmark_group("render_10k");
    group.throughput(Throughput::Elements(envs.len() as u64));
    group.bench_function("json", |b| {
        b.iter(|| {
            let mut bytes = 0;
            for e in &envs {
                bytes += black_box(e.to_json()).len();
            }
            bytes
        })
    });
    group.bench_function("text", |b| {
        b.iter(|| {
            let mut bytes = 0;
            for e in &envs {
                bytes += black_box(e.to_text()).len();
            }
            bytes
        })
    });
    group.bench_function("text_reused_buffer", |b| {
        let mut buf = String::with_capacity(4096);
        b.iter(|| {
            let mut bytes = 0;
            for e in &envs {
                buf.clear();
                e.write_text(&mut buf);
                bytes += black_box(&buf).len();
            }
            bytes
        })
    });
    group.bench_function("parse_json", |b| {
        let lines: Vec<String> = envs.iter().map(Envelope::to_json).collect();
        b.iter(|| {
            let mut ok = 0;
            for l in &lines {
                ok += usize::from(Envelope::from_json(black_box(l)).is_ok());
            }
            ok
        })
    });
    group.finish();
}

criterion_group!(benches, render);
criterion_main!(benches);
