//! Scenario 11: an out-of-process iframe whose renderer crashes. Chromium 156 keeps its session
//! attached and never answers calls on it; the graph stops handing it out, fails context waits
//! at once, keeps the rest of the page working, and takes the iframe back when it is reloaded.

use crate::support::*;
use frame_graph::{FrameGraph, FrameGraphError, FrameGraphOptions};
use serde_json::json;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_oopif_is_reported_and_comes_back_when_reloaded() {
    let server = Server::start().await;
    let child = server.cross("/child.html");
    server.route(
        "/",
        &format!(r#"<body><iframe id="x" src="{child}"></iframe><iframe id="y" src="/same.html"></iframe></body>"#),
    );
    server.route(
        "/child.html",
        r#"<body>child<iframe src="/inner.html"></iframe></body>"#,
    );
    server.route("/inner.html", "<body>inner</body>");
    server.route("/same.html", "<body>same</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    // Calls the graph makes would wait 30 s on a crashed session; sync must not make any.
    let options = FrameGraphOptions::default()
        .command_timeout(Duration::from_secs(30))
        .sync_timeout(Duration::from_secs(10));
    let graph = FrameGraph::attach(page.clone(), options)
        .await
        .expect("attach graph");
    let x = by_url(&graph, "/child.html").expect("oopif");
    let inner = by_url(&graph, "/inner.html").expect("inner");
    let y = by_url(&graph, "/same.html").expect("same-origin");
    assert!(x.is_out_of_process);
    let session = graph.session_for(&x.frame_id).expect("oopif session");
    let old_session = session.id().cloned();

    // Page.crash is never answered: the renderer dies first.
    let crash = session.call_timeout("Page.crash", json!({}), Duration::from_secs(2));
    let _ = crash.await;
    wait_for_or(
        "the graph to see the crash",
        || {
            let c = graph.is_crashed(&x.frame_id);
            async move { c.then_some(()) }
        },
        || format!("{:#?}", graph.registry()),
    )
    .await;
    assert!(graph.session_for(&x.frame_id).is_none(), "stale session");
    let err = graph
        .execution_context_for(&x.frame_id, Duration::from_secs(30))
        .await
        .expect_err("crashed frame has no context");
    assert!(
        matches!(&err, FrameGraphError::FrameCrashed { frame } if frame == &x.frame_id),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!("renderer of frame {} crashed", x.frame_id)
    );
    // The frames of the dead renderer are gone; the iframe itself and the rest stay.
    assert!(graph.frame(&inner.frame_id).is_none());
    let ids: Vec<_> = graph.frames().into_iter().map(|f| f.frame_id).collect();
    assert_eq!(
        ids,
        vec![
            graph.main_frame().frame_id,
            x.frame_id.clone(),
            y.frame_id.clone()
        ]
    );
    assert_eq!(eval_in(&graph, &y.frame_id, BODY_TEXT).await, "same");
    graph.sync().await.expect("sync skips the crashed session");
    assert!(graph.is_crashed(&x.frame_id));
    graph.registry().check_invariants().expect("invariants");

    // The page loads the iframe again: same target and session, a working document.
    eval(
        &page,
        "{ const f = document.getElementById('x'); f.src = f.src; }",
    )
    .await;
    let back = wait_for_or(
        "the reloaded OOPIF with a session",
        || {
            let f = graph.frame(&x.frame_id).filter(|_| {
                !graph.is_crashed(&x.frame_id) && graph.session_for(&x.frame_id).is_some()
            });
            async move { f }
        },
        || format!("{:#?}", graph.registry()),
    )
    .await;
    assert_eq!(back.frame_index, x.frame_index);
    assert_eq!(back.session_id, old_session);
    // The nested frame is back once the child document was parsed (its first, empty-document
    // context is replaced by then).
    let inner = wait_for("the nested frame back", || {
        let f = by_url(&graph, "/inner.html");
        async move { f }
    })
    .await;
    assert_eq!(inner.parent_frame_id.as_ref(), Some(&x.frame_id));
    assert_eq!(eval_in(&graph, &inner.frame_id, BODY_TEXT).await, "inner");
    assert_eq!(
        tokio::time::timeout(T, eval_in(&graph, &x.frame_id, BODY_TEXT))
            .await
            .expect("evaluate after reload"),
        "child"
    );
    graph.sync().await.expect("sync");
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}
