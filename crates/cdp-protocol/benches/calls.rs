//! Calls per second through one connection against a loopback fake CDP peer that answers every
//! call at once, with 1 and 64 callers in flight; and with 16 events nobody subscribed to
//! (2 KiB `Runtime.consoleAPICalled` on a flattened session) before each answer.

use cdp_protocol::{ConnectOptions, Connection};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// A peer answering `{"id": N, "result": {"ok": true}}` to every call, batching writes.
async fn start_peer() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let _ = stream.set_nodelay(true);
        let Ok(ws) = tokio_tungstenite::accept_async(stream).await else {
            return;
        };
        let (mut tx, mut rx) = ws.split();
        while let Some(Ok(msg)) = rx.next().await {
            let Message::Text(text) = msg else { continue };
            let Ok(call) = serde_json::from_str::<Value>(text.as_str()) else {
                continue;
            };
            if call["method"] == "Bench.flood" {
                let event = json!({
                    "method": "Runtime.consoleAPICalled",
                    "params": {"type": "log", "args": [{"type": "string", "value": "x".repeat(2048)}]},
                    "sessionId": "0123456789ABCDEF0123456789ABCDEF",
                })
                .to_string();
                for _ in 0..16 {
                    if tx.feed(Message::Text(event.clone().into())).await.is_err() {
                        return;
                    }
                }
            }
            let reply = json!({"id": call["id"], "result": {"ok": true}}).to_string();
            if tx.send(Message::Text(reply.into())).await.is_err() {
                return;
            }
        }
    });
    format!("ws://127.0.0.1:{port}/devtools/browser/bench")
}

fn calls(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let conn = rt.block_on(async {
        let url = start_peer().await;
        Connection::connect(&url, ConnectOptions::default())
            .await
            .expect("connect")
    });
    let session = conn.browser();

    let mut group = c.benchmark_group("calls");
    group.throughput(Throughput::Elements(1));
    group.bench_function("1_in_flight", |b| {
        b.to_async(&rt).iter(|| async {
            session.call("Bench.ping", json!({})).await.expect("answer");
        })
    });
    group.throughput(Throughput::Elements(64));
    group.bench_function("64_in_flight", |b| {
        b.to_async(&rt).iter(|| async {
            let futs = (0..64).map(|_| session.call("Bench.ping", json!({})));
            for r in futures::future::join_all(futs).await {
                r.expect("answer");
            }
        })
    });
    // Someone listens, to something else: the floods are events nobody wants.
    let _loads = conn.events(cdp_protocol::EventFilter::methods(&["Page.loadEventFired"]));
    group.throughput(Throughput::Elements(1));
    group.bench_function("1_in_flight_16_unwanted_events", |b| {
        b.to_async(&rt).iter(|| async {
            session
                .call("Bench.flood", json!({}))
                .await
                .expect("answer");
        })
    });
    group.finish();
}

criterion_group!(benches, calls);
criterion_main!(benches);
