//! Transport behaviour against the fake peer.

use crate::fake_peer::{FakePeer, echo, echo_all};
use cdp_protocol::{
    CdpError, ConnectOptions, Connection, EventFilter, SessionFilter, SessionId, page, target,
};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

async fn connect(peer: &FakePeer) -> Connection {
    Connection::connect(&peer.url, ConnectOptions::default())
        .await
        .expect("connect to fake peer")
}

#[tokio::test]
async fn out_of_order_responses_reach_their_callers() {
    const N: usize = 20;
    let held: Arc<Mutex<Vec<Value>>> = Arc::default();
    let held2 = held.clone();
    let peer = FakePeer::start(move |call| {
        let mut h = held2.lock().unwrap();
        h.push(call.clone());
        if h.len() == N {
            // Answer everything in reverse order of arrival.
            h.drain(..).rev().map(|c| echo(&c)).collect()
        } else {
            Vec::new()
        }
    })
    .await;
    let conn = connect(&peer).await;
    let mut tasks = Vec::new();
    for i in 0..N {
        let s = conn.browser();
        tasks.push(tokio::spawn(async move {
            let r = s.call("Test.echo", json!({"n": i})).await.unwrap();
            assert_eq!(r["params"]["n"], json!(i));
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_from_many_tasks() {
    let peer = FakePeer::start(echo_all()).await;
    let conn = connect(&peer).await;
    let mut tasks = Vec::new();
    for t in 0..50usize {
        let conn = conn.clone();
        tasks.push(tokio::spawn(async move {
            let sessions = [
                conn.browser(),
                conn.session(SessionId::from(format!("S{}", t % 7))),
            ];
            let mut futs = Vec::new();
            for i in 0..20usize {
                let s = sessions[i % 2].clone();
                futs.push(async move {
                    let n = t * 1000 + i;
                    let r = s.call("Test.echo", json!({ "n": n })).await.unwrap();
                    assert_eq!(r["params"]["n"], json!(n));
                    assert_eq!(r["session"], json!(s.id().map(|x| x.as_str())));
                });
            }
            futures::future::join_all(futs).await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

#[tokio::test]
async fn typed_calls_decode_and_ignore_unknown_fields() {
    let peer = FakePeer::start(|call| {
        vec![
            json!({"id": call["id"], "result": {
            "frameId": "F1", "loaderId": "L1", "brandNewField": {"x": [1,2,3]}
        }, "extraTopLevel": true})
            .to_string(),
        ]
    })
    .await;
    let conn = connect(&peer).await;
    let r = conn
        .browser()
        .send(&page::Navigate {
            url: "http://127.0.0.1/".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(r.frame_id.as_str(), "F1");
    assert_eq!(r.loader_id.as_ref().map(|l| l.as_str()), Some("L1"));
    assert_eq!(r.error_text, None);
}

#[tokio::test]
async fn a_response_of_the_wrong_shape_is_a_decode_error_for_that_call_only() {
    let peer = FakePeer::start(|call| {
        if call["method"] == "Page.navigate" {
            vec![json!({"id": call["id"], "result": {"frameId": 42}}).to_string()]
        } else {
            vec![echo(call)]
        }
    })
    .await;
    let conn = connect(&peer).await;
    let err = conn
        .browser()
        .send(&page::Navigate {
            url: "x".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(matches!(err, CdpError::Decode { .. }), "{err:?}");
    conn.browser().call("Test.ok", json!({})).await.unwrap();
}

#[tokio::test]
async fn protocol_errors_carry_code_message_and_data() {
    let peer = FakePeer::start(|call| {
        vec![
            json!({"id": call["id"], "error": {
                "code": -32000, "message": "No node with given id found", "data": "detail"
            }})
            .to_string(),
        ]
    })
    .await;
    let conn = connect(&peer).await;
    let err = conn
        .browser()
        .call("DOM.resolveNode", json!({"backendNodeId": 1}))
        .await
        .unwrap_err();
    match &err {
        CdpError::Protocol {
            method,
            code,
            message,
            data,
        } => {
            assert_eq!(method, "DOM.resolveNode");
            assert_eq!(*code, -32000);
            assert_eq!(message, "No node with given id found");
            assert_eq!(data.as_deref(), Some("detail"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.is_node_not_found());
}

#[tokio::test]
async fn session_detach_fails_that_sessions_pending_calls_and_no_others() {
    let mut peer = FakePeer::start(|_| Vec::new()).await; // answers nothing by itself
    let conn = connect(&peer).await;
    let a = conn.session(SessionId::from("A"));
    let b = conn.session(SessionId::from("B"));
    let root = conn.browser();
    let mut a_calls = Vec::new();
    for i in 0..3 {
        let a = a.clone();
        a_calls.push(tokio::spawn(async move {
            a.call("Test.wait", json!({"i": i})).await
        }));
    }
    let b_call = {
        let b = b.clone();
        tokio::spawn(async move { b.call("Test.wait", json!({})).await })
    };
    let root_call = {
        let root = root.clone();
        tokio::spawn(async move { root.call("Test.wait", json!({})).await })
    };
    // Wait until the peer has seen all five calls, keeping B's and root's.
    let mut kept = Vec::new();
    for _ in 0..5 {
        let c = peer.next_call().await;
        if c.get("sessionId") != Some(&json!("A")) {
            kept.push(c);
        }
    }
    peer.event(
        "Target.detachedFromTarget",
        None,
        json!({"sessionId": "A", "targetId": "TA"}),
    );
    for c in a_calls {
        let r = tokio::time::timeout(Duration::from_secs(5), c)
            .await
            .expect("A's call must fail at once, not hang")
            .unwrap();
        match r {
            Err(CdpError::SessionClosed { session }) => assert_eq!(session.as_str(), "A"),
            other => panic!("expected SessionClosed, got {other:?}"),
        }
    }
    // Later calls on A fail at once too.
    let later = a.call("Test.after", json!({})).await;
    assert!(
        matches!(later, Err(CdpError::SessionClosed { .. })),
        "{later:?}"
    );
    // B and root are untouched: answer them now.
    for c in &kept {
        peer.send(echo(c));
    }
    assert!(b_call.await.unwrap().is_ok());
    assert!(root_call.await.unwrap().is_ok());
}

#[tokio::test]
async fn socket_drop_fails_all_pending_calls_and_ends_event_streams() {
    let mut peer = FakePeer::start(|_| Vec::new()).await;
    let conn = connect(&peer).await;
    let mut events = conn.events(EventFilter::all());
    let mut calls = Vec::new();
    for i in 0..10 {
        let s = if i % 2 == 0 {
            conn.browser()
        } else {
            conn.session(SessionId::from("S"))
        };
        calls.push(tokio::spawn(
            async move { s.call("Test.wait", json!({})).await },
        ));
    }
    for _ in 0..10 {
        peer.next_call().await;
    }
    peer.drop_socket();
    for c in calls {
        let r = tokio::time::timeout(Duration::from_secs(5), c)
            .await
            .expect("pending calls must fail at once")
            .unwrap();
        assert!(matches!(r, Err(CdpError::ConnectionClosed)), "{r:?}");
    }
    tokio::time::timeout(Duration::from_secs(5), conn.closed())
        .await
        .expect("closed() resolves");
    assert!(conn.is_closed());
    assert!(events.recv().await.is_none());
    let r = conn.browser().call("Test.after", json!({})).await;
    assert!(matches!(r, Err(CdpError::ConnectionClosed)), "{r:?}");
    // A subscription made after the close ends at once.
    assert!(conn.events(EventFilter::all()).recv().await.is_none());
}

#[tokio::test]
async fn malformed_and_unexpected_messages_do_not_break_the_connection() {
    let peer = FakePeer::start(|call| {
        vec![
            "this is not json".to_owned(),
            "[1,2,3]".to_owned(),
            r#"{"id":"not a number","result":{}}"#.to_owned(),
            r#"{"id":999999,"result":{}}"#.to_owned(),
            r#"{"method":"Weird.event","params":{"a":1},"unknown":{"deep":[1]}}"#.to_owned(),
            r#"{"neither":"id nor method"}"#.to_owned(),
            r#"{"id":"#.to_owned(),
            echo(call),
        ]
    })
    .await;
    let conn = connect(&peer).await;
    let mut events = conn.events(EventFilter::methods(&["Weird.event"]));
    for i in 0..3 {
        let r = conn
            .browser()
            .call("Test.echo", json!({"i": i}))
            .await
            .unwrap();
        assert_eq!(r["params"]["i"], json!(i));
    }
    let ev = events.recv().await.unwrap();
    assert_eq!(ev.method, "Weird.event");
    assert_eq!(ev.to_value().unwrap(), json!({"a": 1}));
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn deadlines_fire_and_the_connection_stays_usable() {
    let peer = FakePeer::start(|call| {
        if call["method"] == "Test.never" {
            Vec::new()
        } else {
            vec![echo(call)]
        }
    })
    .await;
    let conn = Connection::connect(
        &peer.url,
        ConnectOptions::default().default_timeout(Duration::from_millis(200)),
    )
    .await
    .unwrap();
    let err = conn
        .browser()
        .call_timeout("Test.never", json!({}), Duration::from_millis(50))
        .await
        .unwrap_err();
    match err {
        CdpError::Timeout { method, after } => {
            assert_eq!(method, "Test.never");
            assert_eq!(after, Duration::from_millis(50));
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
    // A call answered in time is unaffected by the default deadline.
    conn.browser().send(&page::Enable).await.unwrap();
    // The default deadline applies to send/call without one.
    let err = conn
        .browser()
        .call("Test.never", json!({}))
        .await
        .unwrap_err();
    assert!(matches!(err, CdpError::Timeout { after, .. } if after == Duration::from_millis(200)));
    conn.browser().call("Test.ok", json!({})).await.unwrap();
}

#[tokio::test]
async fn events_are_routed_by_session_and_method() {
    let peer = FakePeer::start(echo_all()).await;
    let conn = connect(&peer).await;
    let a = conn.session(SessionId::from("A"));
    let mut a_frames = a.events(&["Page.frameAttached"]);
    let mut a_all = a.events(&[]);
    let mut root_only = conn.events(EventFilter::all().session(SessionFilter::Root));
    let mut any_attached =
        conn.events(EventFilter::methods(&["Page.frameAttached"]).session(SessionFilter::Any));
    let mut typed = a.subscribe::<page::FrameAttached>();

    peer.event(
        "Page.frameAttached",
        Some("A"),
        json!({"frameId": "FA", "parentFrameId": "P"}),
    );
    peer.event(
        "Page.frameAttached",
        Some("B"),
        json!({"frameId": "FB", "parentFrameId": "P"}),
    );
    peer.event("Page.loadEventFired", Some("A"), json!({"timestamp": 1.5}));
    peer.event(
        "Target.targetCreated",
        None,
        json!({"targetInfo": {"targetId": "T", "type": "page"}}),
    );
    // Bad params for the typed subscriber: an error for it only.
    peer.event("Page.frameAttached", Some("A"), json!({"frameId": 7}));
    // A round trip after the events: the socket task has dispatched them all by then.
    conn.browser().call("Test.sync", json!({})).await.unwrap();

    let ev = a_frames.try_recv().unwrap();
    assert_eq!(ev.session_id.as_ref().map(|s| s.as_str()), Some("A"));
    assert_eq!(
        ev.decode::<page::FrameAttached>()
            .unwrap()
            .frame_id
            .as_str(),
        "FA"
    );
    assert!(
        a_frames
            .try_recv()
            .unwrap()
            .decode::<page::FrameAttached>()
            .is_err()
    );
    assert!(a_frames.try_recv().is_none());

    let methods: Vec<String> = std::iter::from_fn(|| a_all.try_recv())
        .map(|e| e.method)
        .collect();
    assert_eq!(
        methods,
        [
            "Page.frameAttached",
            "Page.loadEventFired",
            "Page.frameAttached"
        ]
    );

    let root: Vec<String> = std::iter::from_fn(|| root_only.try_recv())
        .map(|e| e.method)
        .collect();
    assert_eq!(root, ["Target.targetCreated"]);

    let any: Vec<Option<String>> = std::iter::from_fn(|| any_attached.try_recv())
        .map(|e| e.session_id.map(|s| s.into_inner()))
        .collect();
    assert_eq!(any, [Some("A".into()), Some("B".into()), Some("A".into())]);

    let first = typed.recv().await.unwrap().unwrap();
    assert_eq!(first.frame_id.as_str(), "FA");
    assert!(matches!(
        typed.recv().await,
        Some(Err(CdpError::Decode { .. }))
    ));
    assert_eq!(typed.dropped(), 0);
}

#[tokio::test]
async fn a_full_queue_drops_and_counts_without_blocking_the_reader() {
    let peer = FakePeer::start(echo_all()).await;
    let conn = connect(&peer).await;
    let mut slow = conn.events(EventFilter::methods(&["Test.tick"]).capacity(4));
    let mut fast = conn.events(EventFilter::methods(&["Test.tick"]).capacity(100));
    for i in 0..10 {
        peer.event("Test.tick", None, json!({"i": i}));
    }
    // Calls still complete while `slow` is full: the reader never blocks on it.
    conn.browser().call("Test.sync", json!({})).await.unwrap();
    assert_eq!(slow.dropped(), 6);
    let got: Vec<Value> = std::iter::from_fn(|| slow.try_recv())
        .map(|e| e.to_value().unwrap()["i"].clone())
        .collect();
    assert_eq!(got, [json!(0), json!(1), json!(2), json!(3)]);
    let all = std::iter::from_fn(|| fast.try_recv()).count();
    assert_eq!(all, 10);
    assert_eq!(fast.dropped(), 0);
}

#[tokio::test]
async fn attach_to_target_returns_a_session_that_stamps_its_id() {
    let mut peer = FakePeer::start(|call| {
        if call["method"] == "Target.attachToTarget" {
            assert_eq!(call["params"]["flatten"], json!(true));
            let mut r = json!({"id": call["id"], "result": {"sessionId": "CHILD"}});
            if let Some(s) = call.get("sessionId") {
                r["sessionId"] = s.clone();
            }
            vec![r.to_string()]
        } else {
            vec![echo(call)]
        }
    })
    .await;
    let conn = connect(&peer).await;
    let page = conn.session(SessionId::from("PAGE"));
    let child = page
        .attach_to_target(&cdp_protocol::TargetId::from("T1"))
        .await
        .unwrap();
    assert_eq!(child.id().map(|s| s.as_str()), Some("CHILD"));
    let attach = peer.next_call().await;
    assert_eq!(
        attach["sessionId"],
        json!("PAGE"),
        "sent on the parent session"
    );
    assert_eq!(attach["params"]["targetId"], json!("T1"));
    child
        .send(&target::SetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: Some(true),
            filter: None,
        })
        .await
        .unwrap();
    let sent = peer.next_call().await;
    assert_eq!(sent["sessionId"], json!("CHILD"));
    assert_eq!(
        sent["params"],
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
    );
}

#[tokio::test]
async fn unit_commands_send_an_empty_object_and_accept_an_empty_result() {
    let mut peer =
        FakePeer::start(|call| vec![json!({"id": call["id"], "result": {}}).to_string()]).await;
    let conn = connect(&peer).await;
    conn.browser().send(&page::Enable).await.unwrap();
    let sent = peer.next_call().await;
    assert_eq!(sent["method"], json!("Page.enable"));
    assert_eq!(sent["params"], json!({}));
    assert!(sent.get("sessionId").is_none());
}

#[tokio::test]
async fn a_big_message_within_the_limit_arrives() {
    // 66 MiB: above tungstenite's 64 MiB default, below our 256 MiB default.
    let big = "x".repeat(66 * 1024 * 1024);
    let peer = FakePeer::start(move |call| {
        vec![json!({"id": call["id"], "result": {"data": big}}).to_string()]
    })
    .await;
    let conn = connect(&peer).await;
    let r = conn
        .browser()
        .send_timeout(&page::CaptureScreenshot::default(), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(r.data.len(), 66 * 1024 * 1024);
}

const MIB: usize = 1024 * 1024;

async fn connect_limited(peer: &FakePeer, limit: usize) -> Connection {
    Connection::connect(&peer.url, ConnectOptions::default().max_message_size(limit))
        .await
        .unwrap()
}

#[tokio::test]
async fn an_oversized_answer_fails_its_call_only() {
    let peer = FakePeer::start(|call| {
        if call["method"] == "Test.big" {
            let big = json!({"id": call["id"], "result": {"data": "y".repeat(2 * MIB)}});
            vec![big.to_string()]
        } else {
            vec![echo(call)]
        }
    })
    .await;
    let conn = connect_limited(&peer, MIB).await;
    let tab = conn.session(SessionId::from("S1"));
    let root = conn.browser();
    let (a, b) = tokio::join!(
        root.call("Test.big", json!({})),
        tab.call("Test.echo", json!({"n": 1}))
    );
    match a {
        Err(CdpError::MessageTooLarge {
            method,
            size,
            limit,
        }) => {
            assert_eq!(method, "Test.big");
            assert!(size > 2 * MIB as u64, "{size}");
            assert_eq!(limit, MIB as u64);
        }
        other => panic!("expected MessageTooLarge, got {other:?}"),
    }
    assert_eq!(b.unwrap()["params"]["n"], json!(1));
    // The connection is fine for every session afterwards, big answers included (again).
    for _ in 0..3 {
        let r = conn.browser().call("Test.big", json!({})).await;
        assert!(matches!(r, Err(CdpError::MessageTooLarge { .. })), "{r:?}");
        assert_eq!(
            tab.call("Test.echo", json!({"n": 2})).await.unwrap()["params"]["n"],
            json!(2)
        );
    }
    assert!(!conn.is_closed());
    assert_eq!(
        conn.skipped_messages(),
        0,
        "answers are not counted as skipped"
    );
    let e = CdpError::MessageTooLarge {
        method: "M".into(),
        size: 5,
        limit: 4,
    };
    assert!(
        e.to_string().contains('5') && e.to_string().contains('4'),
        "{e}"
    );
}

#[tokio::test]
async fn an_oversized_event_is_skipped_and_counted() {
    let peer = FakePeer::start(echo_all()).await;
    let conn = connect_limited(&peer, 64 * 1024).await;
    let only = |s: &str| SessionFilter::Only(SessionId::from(s));
    let mut wanted = conn.events(EventFilter::methods(&["Test.big"]).session(only("S1")));
    let mut other_session = conn.events(EventFilter::methods(&["Test.big"]).session(only("S2")));
    let mut small = conn.events(EventFilter::methods(&["Test.small"]));
    peer.event("Test.big", Some("S1"), json!({"data": "z".repeat(100_000)}));
    peer.event("Test.small", Some("S1"), json!({"n": 1}));
    let ev = tokio::time::timeout(Duration::from_secs(5), small.recv())
        .await
        .expect("the event after the big one arrives")
        .unwrap();
    assert_eq!(ev.to_value().unwrap()["n"], json!(1));
    assert_eq!(
        wanted.dropped(),
        1,
        "the subscriber that wanted it knows it lost one"
    );
    assert!(wanted.try_recv().is_none());
    assert_eq!(other_session.dropped(), 0);
    assert!(other_session.try_recv().is_none());
    assert_eq!(conn.skipped_messages(), 1);
    // An event of normal size still arrives, and calls work.
    peer.event("Test.big", Some("S1"), json!({"data": "ok"}));
    let ev = tokio::time::timeout(Duration::from_secs(5), wanted.recv())
        .await
        .expect("a small Test.big arrives")
        .unwrap();
    assert_eq!(ev.to_value().unwrap()["data"], json!("ok"));
    conn.browser().call("Test.echo", json!({})).await.unwrap();
}

#[tokio::test]
async fn a_fragmented_answer_over_the_limit_fails_its_call_only() {
    let mut peer = FakePeer::start(|call| {
        if call["method"] == "Test.frag" {
            Vec::new() // answered by hand, in fragments
        } else {
            vec![echo(call)]
        }
    })
    .await;
    let conn = connect_limited(&peer, 64 * 1024).await;
    let root = conn.browser();
    for (fragment, over) in [(16 * 1024, false), (40 * 1024, true)] {
        let pending = {
            let root = root.clone();
            tokio::spawn(async move { root.call("Test.frag", json!({})).await })
        };
        let call = peer.next_call().await;
        // '€' is three bytes: fragments of 16 KiB + 1 cut characters in two.
        let body = "€".repeat(fragment);
        let text = json!({"id": call["id"], "result": {"s": body}}).to_string();
        let bytes = text.into_bytes();
        let chunks: Vec<&[u8]> = bytes.chunks(fragment + 1).collect();
        let frames = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (u8::from(i == 0), i + 1 == chunks.len(), c.to_vec()))
            .collect();
        peer.frames(frames);
        let r = pending.await.unwrap();
        if over {
            assert!(
                matches!(r, Err(CdpError::MessageTooLarge { size, .. }) if size == bytes.len() as u64),
                "{r:?}"
            );
        } else {
            assert_eq!(r.unwrap()["s"].as_str().map(|s| s.len()), Some(body.len()));
        }
        // Next call on the same connection.
        let next = tokio::spawn({
            let root = root.clone();
            async move { root.call("Test.echo", json!({"n": 3})).await }
        });
        let _ = peer.next_call().await;
        assert_eq!(next.await.unwrap().unwrap()["params"]["n"], json!(3));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_socket_fills_the_send_queue_and_later_calls_are_not_sent() {
    // A peer that completes the handshake and then never reads.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hold = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(stream).await.unwrap();
        tokio::time::sleep(Duration::from_secs(120)).await;
        drop(ws);
    });
    let conn = Connection::connect(
        &format!("ws://127.0.0.1:{port}/devtools/browser/x"),
        ConnectOptions::default().send_queue(2),
    )
    .await
    .unwrap();
    let pad = "x".repeat(512 * 1024);
    let mut calls = Vec::new();
    for i in 0..64 {
        let s = conn.browser();
        let pad = pad.clone();
        calls.push(tokio::spawn(async move {
            s.call_timeout(
                "Test.stall",
                json!({"i": i, "pad": pad}),
                Duration::from_secs(3),
            )
            .await
        }));
    }
    let (mut not_sent, mut unanswered) = (0, 0);
    for c in calls {
        match c.await.unwrap() {
            Err(CdpError::QueueFull { method, .. }) => {
                assert_eq!(method, "Test.stall");
                not_sent += 1;
            }
            Err(CdpError::Timeout { .. }) => unanswered += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        not_sent > 0,
        "the queue never filled ({unanswered} unanswered)"
    );
    assert!(unanswered > 0, "nothing was sent at all");
    hold.abort();
}

#[tokio::test]
async fn dropping_a_waiting_call_forgets_it() {
    let mut peer = FakePeer::start(|_| Vec::new()).await;
    let conn = connect(&peer).await;
    let s = conn.browser();
    let fut = s.call("Test.wait", json!({}));
    // Poll once so the call is sent, then drop it.
    let _ = tokio::time::timeout(Duration::from_millis(50), fut).await;
    let call = peer.next_call().await;
    // A late answer to the dropped call is ignored; the connection keeps working.
    peer.send(echo(&call));
    let c2 = {
        let s = s.clone();
        tokio::spawn(async move { s.call("Test.next", json!({})).await })
    };
    let next = peer.next_call().await;
    peer.send(echo(&next));
    assert!(c2.await.unwrap().is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_messages_followed_at_once_by_more_arrive_intact() {
    // Each answer is followed on the wire by two events, so bytes past a large message are
    // already in flight when the socket task drops its read buffer after it.
    let peer = FakePeer::start(|call: &Value| {
        let ev = json!({"method": "Test.after", "params": {"n": call["params"]["n"]}}).to_string();
        vec![echo(call), ev.clone(), ev]
    })
    .await;
    let conn = connect(&peer).await;
    let mut events = conn.events(EventFilter::methods(&["Test.after"]).capacity(1000));
    const ROUNDS: usize = 6;
    for round in 0..ROUNDS {
        let big = "x".repeat((1 << 20) * (1 + round % 3) + round);
        let root = conn.browser();
        let (a, b) = tokio::join!(
            root.call("Test.echo", json!({"n": round, "s": big})),
            root.call("Test.echo", json!({"n": 100 + round}))
        );
        let a = a.expect("large answer");
        assert_eq!(a["params"]["n"], json!(round));
        assert_eq!(
            a["params"]["s"].as_str().map(str::len),
            Some(big.len()),
            "round {round}"
        );
        assert_eq!(b.expect("small answer")["params"]["n"], json!(100 + round));
    }
    let mut seen = Vec::new();
    while seen.len() < 4 * ROUNDS {
        let ev = tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("every event arrives")
            .expect("stream open");
        seen.push(ev.to_value().expect("event decodes")["n"].clone());
    }
    for round in 0..ROUNDS {
        for n in [json!(round), json!(100 + round)] {
            assert_eq!(seen.iter().filter(|v| **v == n).count(), 2, "events of {n}");
        }
    }
    assert_eq!(events.dropped(), 0);
}

/// Calls made together (key events, a press and its release) reach the browser in the order
/// they were made, also when there are more than the send queue holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_calls_are_sent_in_the_order_they_were_made() {
    let mut peer = FakePeer::start(echo_all()).await;
    let conn = Connection::connect(&peer.url, ConnectOptions::default().send_queue(4))
        .await
        .expect("connect to fake peer");
    let s = conn.browser();
    const N: i64 = 400;
    let calls = (0..N).map(|i| s.call("Test.key", json!({ "i": i })));
    let answers = futures::future::try_join_all(calls).await.expect("answers");
    assert_eq!(answers.len(), N as usize);
    let mut order = Vec::new();
    for _ in 0..N {
        order.push(peer.next_call().await["params"]["i"].as_i64().unwrap_or(-1));
    }
    assert_eq!(order, (0..N).collect::<Vec<_>>());
}
