//! Property tests: serde round trips of the hand-written types, and routing never mixing
//! responses or events between sessions.

use crate::fake_peer::{FakePeer, echo};
use cdp_protocol::accessibility::{AxNode, AxProperty, AxValue, GetFullAxTree};
use cdp_protocol::dom::{GetDocument, Node, ResolveNode};
use cdp_protocol::input::{DispatchKeyEvent, DispatchMouseEvent, KeyEventType, MouseButton};
use cdp_protocol::page::{Frame, FrameDetached, FrameDetachedReason, FrameTree, Navigate};
use cdp_protocol::runtime::{
    CallArgument, CallFunctionOn, Evaluate, ExceptionDetails, RemoteObject,
};
use cdp_protocol::target::{AttachToTarget, CreateTarget, SetAutoAttach, TargetInfo};
use cdp_protocol::*;
use proptest::prelude::*;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    let text = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, v, "through {text}");
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _./:-]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
}

fn opt<T: Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    proptest::option::of(s).boxed()
}

/// Floats that survive text exactly (quarters).
fn num() -> impl Strategy<Value = f64> {
    (-4_000_000i64..4_000_000).prop_map(|n| n as f64 / 4.0)
}

/// JSON values without null (an `Option<Value>` holding null decodes as `None`).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            proptest::collection::btree_map("[a-z]{1,4}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = (
        any::<i64>(),
        any::<i64>(),
        1i64..12,
        text(),
        text(),
        opt(proptest::collection::vec(text(), 0..4)),
        opt(text().prop_map(FrameId::from)),
        opt(any::<bool>()),
        opt(any::<i64>().prop_map(NodeId::from)),
    )
        .prop_map(
            |(id, backend, node_type, name, value, attributes, frame_id, scrollable, parent)| {
                Node {
                    node_id: NodeId::new(id),
                    parent_id: parent,
                    backend_node_id: BackendNodeId::new(backend),
                    node_type,
                    node_name: name.to_uppercase(),
                    local_name: name,
                    node_value: value,
                    attributes,
                    frame_id,
                    is_scrollable: scrollable,
                    ..Default::default()
                }
            },
        );
    leaf.prop_recursive(3, 16, 3, |inner| {
        (
            inner.clone(),
            opt(proptest::collection::vec(inner.clone(), 0..3)),
            opt(inner.clone()),
            opt(proptest::collection::vec(inner, 0..2)),
            opt(text()),
        )
            .prop_map(|(mut n, children, content, shadow, doc_url)| {
                n.child_node_count = children.as_ref().map(|c| c.len() as i64);
                n.children = children;
                n.content_document = content.map(Box::new);
                n.shadow_roots = shadow;
                n.document_url = doc_url;
                n
            })
    })
}

fn ax_value() -> impl Strategy<Value = AxValue> {
    (text(), opt(json_value())).prop_map(|(t, v)| AxValue {
        r#type: t,
        value: v,
        related_nodes: None,
        sources: None,
    })
}

fn ax_node() -> impl Strategy<Value = AxNode> {
    (
        text(),
        any::<bool>(),
        opt(ax_value()),
        opt(ax_value()),
        opt(proptest::collection::vec((text(), ax_value()), 0..3)),
        opt(text()),
        opt(proptest::collection::vec(text(), 0..4)),
        opt(any::<i64>().prop_map(BackendNodeId::from)),
        opt(text().prop_map(FrameId::from)),
    )
        .prop_map(
            |(id, ignored, role, name, props, parent, children, backend, frame)| AxNode {
                node_id: id,
                ignored,
                role,
                name,
                properties: props.map(|p| {
                    p.into_iter()
                        .map(|(name, value)| AxProperty { name, value })
                        .collect()
                }),
                parent_id: parent,
                child_ids: children,
                backend_dom_node_id: backend,
                frame_id: frame,
                ..Default::default()
            },
        )
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        text(),
        opt(text()),
        text(),
        opt(text()),
        text(),
        opt(text()),
        opt(text()),
    )
        .prop_map(|(id, parent, loader, name, url, origin, mime)| Frame {
            id: FrameId::from(id),
            parent_id: parent.map(FrameId::from),
            loader_id: LoaderId::from(loader),
            name,
            url,
            security_origin: origin,
            mime_type: mime,
            ..Default::default()
        })
}

fn frame_tree() -> impl Strategy<Value = FrameTree> {
    let leaf = frame().prop_map(|frame| FrameTree {
        frame,
        child_frames: None,
    });
    leaf.prop_recursive(3, 12, 3, |inner| {
        (frame(), proptest::collection::vec(inner, 0..3)).prop_map(|(frame, kids)| FrameTree {
            frame,
            child_frames: Some(kids),
        })
    })
}

fn target_info() -> impl Strategy<Value = TargetInfo> {
    (
        text(),
        prop_oneof![
            Just("page"),
            Just("iframe"),
            Just("worker"),
            Just("browser")
        ],
        text(),
        text(),
        any::<bool>(),
        opt(text()),
        opt(text()),
        opt(text()),
    )
        .prop_map(
            |(id, ty, title, url, attached, opener, ctx, parent)| TargetInfo {
                target_id: TargetId::from(id),
                r#type: ty.to_owned(),
                title,
                url,
                attached,
                opener_id: opener.map(TargetId::from),
                browser_context_id: ctx.map(BrowserContextId::from),
                parent_frame_id: parent.map(FrameId::from),
                ..Default::default()
            },
        )
}

fn remote_object() -> impl Strategy<Value = RemoteObject> {
    (
        prop_oneof![
            Just("object"),
            Just("string"),
            Just("number"),
            Just("undefined")
        ],
        opt(text()),
        opt(text()),
        opt(json_value()),
        opt(text()),
        opt(text().prop_map(RemoteObjectId::from)),
    )
        .prop_map(|(ty, subtype, class, value, desc, id)| RemoteObject {
            r#type: ty.to_owned(),
            subtype,
            class_name: class,
            value,
            description: desc,
            object_id: id,
            ..Default::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn ids_round_trip_and_are_transparent(s in text(), n in any::<i64>()) {
        round_trip(&SessionId::from(s.clone()));
        round_trip(&TargetId::new(s.clone()));
        round_trip(&FrameId::from(s.as_str()));
        round_trip(&LoaderId::from(s.clone()));
        round_trip(&RemoteObjectId::from(s.clone()));
        round_trip(&BackendNodeId::new(n));
        round_trip(&NodeId::from(n));
        round_trip(&ExecutionContextId::new(n));
        prop_assert_eq!(serde_json::to_value(FrameId::from(s.clone())).unwrap(), json!(s));
        prop_assert_eq!(serde_json::to_value(BackendNodeId::new(n)).unwrap(), json!(n));
        prop_assert_eq!(BackendNodeId::new(n).to_string(), n.to_string());
        prop_assert_eq!(SessionId::from(s.clone()).to_string(), s);
    }

    #[test]
    fn dom_nodes_round_trip(n in node()) {
        round_trip(&n);
    }

    #[test]
    fn ax_nodes_round_trip(n in ax_node()) {
        round_trip(&n);
    }

    #[test]
    fn frame_trees_round_trip(t in frame_tree()) {
        round_trip(&t);
    }

    #[test]
    fn target_infos_round_trip(t in target_info()) {
        round_trip(&t);
        // "type" on the wire, not "r#type".
        let v = serde_json::to_value(&t).unwrap();
        prop_assert_eq!(v["type"].as_str(), Some(t.r#type.as_str()));
    }

    #[test]
    fn remote_objects_and_exceptions_round_trip(o in remote_object(), text in text(), line in any::<i64>()) {
        round_trip(&o);
        round_trip(&ExceptionDetails {
            text,
            line_number: line,
            exception: Some(o),
            ..Default::default()
        });
    }

    #[test]
    fn commands_round_trip(
        url in text(),
        frame in opt(text()),
        expr in text(),
        timeout in opt(num()),
        x in num(),
        y in num(),
        clicks in opt(0i64..4),
        key in opt(text()),
        flag in any::<bool>(),
        id in any::<i64>(),
        arg in opt(json_value()),
    ) {
        round_trip(&Navigate { url: url.clone(), frame_id: frame.clone().map(FrameId::from), ..Default::default() });
        round_trip(&Evaluate { expression: expr.clone(), timeout, return_by_value: Some(flag), ..Default::default() });
        round_trip(&CallFunctionOn {
            function_declaration: expr,
            object_id: frame.clone().map(RemoteObjectId::from),
            arguments: Some(vec![CallArgument { value: arg, ..Default::default() }]),
            ..Default::default()
        });
        round_trip(&DispatchMouseEvent {
            r#type: "mousePressed".into(),
            x,
            y,
            button: Some(MouseButton::Left),
            click_count: clicks,
            ..Default::default()
        });
        round_trip(&DispatchKeyEvent { r#type: KeyEventType::KeyDown, key, ..Default::default() });
        round_trip(&SetAutoAttach { auto_attach: flag, wait_for_debugger_on_start: true, flatten: Some(true), filter: None });
        round_trip(&AttachToTarget { target_id: TargetId::from(url.clone()), flatten: Some(true) });
        round_trip(&CreateTarget { url, new_window: Some(flag), ..Default::default() });
        round_trip(&GetDocument { depth: Some(-1), pierce: Some(flag) });
        round_trip(&ResolveNode { backend_node_id: Some(BackendNodeId::new(id)), ..Default::default() });
        round_trip(&GetFullAxTree { depth: None, frame_id: frame.map(FrameId::from) });
    }

    #[test]
    fn frame_detached_reason_is_lenient(reason in text()) {
        let ev: FrameDetached = serde_json::from_value(json!({"frameId": "F", "reason": reason})).unwrap();
        let expected = match reason.as_str() {
            "remove" => FrameDetachedReason::Remove,
            "swap" => FrameDetachedReason::Swap,
            _ => FrameDetachedReason::Unknown,
        };
        prop_assert_eq!(ev.reason, Some(expected));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Calls spread over sessions, answered in a random order: each caller gets its own answer,
    /// and each session's events reach only that session's subscribers, in order.
    #[test]
    fn routing_never_mixes_sessions(
        assignment in proptest::collection::vec(0usize..4, 1..40),
        order_seed in any::<u64>(),
        events in proptest::collection::vec(0usize..4, 0..30),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(check_routing(assignment, order_seed, events));
    }
}

fn session_name(i: usize) -> Option<String> {
    (i > 0).then(|| format!("S{i}"))
}

async fn check_routing(assignment: Vec<usize>, order_seed: u64, events: Vec<usize>) {
    let n = assignment.len();
    let held: Arc<Mutex<Vec<Value>>> = Arc::default();
    let held2 = held.clone();
    let peer = FakePeer::start(move |call| {
        if call["method"] == "Test.sync" {
            return vec![echo(call)];
        }
        let mut h = held2.lock().unwrap();
        h.push(call.clone());
        if h.len() < n {
            return Vec::new();
        }
        // Answer all at once in a seeded pseudo-random order.
        let mut calls: Vec<Value> = h.drain(..).collect();
        let mut state = order_seed | 1;
        for i in (1..calls.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            calls.swap(i, (state % (i as u64 + 1)) as usize);
        }
        calls.iter().map(echo).collect()
    })
    .await;
    let conn = Connection::connect(&peer.url, ConnectOptions::default())
        .await
        .unwrap();
    let session = |i: usize| match session_name(i) {
        Some(s) => conn.session(SessionId::from(s)),
        None => conn.browser(),
    };
    let mut streams: Vec<EventStream> = (0..4).map(|i| session(i).events(&["Test.ev"])).collect();

    let mut tasks = Vec::new();
    for (k, &si) in assignment.iter().enumerate() {
        let s = session(si);
        tasks.push(tokio::spawn(async move {
            let r = s.call("Test.echo", json!({"k": k})).await.unwrap();
            (k, si, r)
        }));
    }
    for t in tasks {
        let (k, si, r) = t.await.unwrap();
        assert_eq!(r["params"]["k"], json!(k));
        assert_eq!(r["session"], json!(session_name(si)));
    }

    for (seq, &si) in events.iter().enumerate() {
        peer.event("Test.ev", session_name(si).as_deref(), json!({"seq": seq}));
    }
    conn.browser().call("Test.sync", json!({})).await.unwrap();
    for (si, stream) in streams.iter_mut().enumerate() {
        let got: Vec<Value> = std::iter::from_fn(|| stream.try_recv())
            .map(|e| {
                assert_eq!(
                    e.session_id.as_ref().map(|s| s.to_string()),
                    session_name(si)
                );
                e.to_value().unwrap()["seq"].clone()
            })
            .collect();
        let want: Vec<Value> = events
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == si)
            .map(|(seq, _)| json!(seq))
            .collect();
        assert_eq!(got, want, "session {si}");
    }
}
