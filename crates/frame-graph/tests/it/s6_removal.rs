//! Scenario 6: removed iframes leave the graph; the OOPIF session's pending calls fail fast.

use crate::support::*;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removed_frames_leave_no_frames_or_sessions_behind() {
    let server = Server::start().await;
    let child = server.cross("/child.html");
    server.route("/", &format!(r#"<body><iframe id="x" src="{child}"></iframe><iframe id="y" src="/same.html"></iframe></body>"#));
    server.route(
        "/child.html",
        r#"<body>child<iframe src="/inner.html"></iframe></body>"#,
    );
    server.route("/inner.html", "<body>inner</body>");
    server.route("/same.html", "<body>same</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    let x = by_url(&graph, "/child.html").expect("oopif");
    let inner = by_url(&graph, "/inner.html").expect("inner");
    let y = by_url(&graph, "/same.html").expect("same-origin");
    assert!(x.is_out_of_process);
    let session = graph.session_for(&x.frame_id).expect("oopif session");

    // A call that never answers on its own, pending on the OOPIF session.
    let pending = {
        let session = session.clone();
        tokio::spawn(async move {
            session
                .call_timeout(
                    "Runtime.evaluate",
                    json!({"expression": "new Promise(() => {})", "awaitPromise": true}),
                    Duration::from_secs(60),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let start = Instant::now();
    eval(&page, "document.getElementById('x').remove()").await;
    let result = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .expect("pending call failed fast")
        .expect("join");
    let err = result.expect_err("pending call must fail");
    assert!(err.is_closed(), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    wait_for("OOPIF gone from the graph", || {
        let ok = graph.frame(&x.frame_id).is_none()
            && graph.frame(&inner.frame_id).is_none()
            && graph.sessions().len() == 1;
        async move { ok.then_some(()) }
    })
    .await;
    assert!(graph.session_for(&x.frame_id).is_none());
    let again = tokio::time::timeout(
        Duration::from_secs(2),
        session.call("Runtime.evaluate", json!({"expression": "1"})),
    )
    .await
    .expect("later call fails at once");
    assert!(again.expect_err("closed session").is_closed());

    eval(&page, "document.getElementById('y').remove()").await;
    wait_for("same-origin frame gone", || {
        let ok = graph.frame(&y.frame_id).is_none();
        async move { ok.then_some(()) }
    })
    .await;
    assert_eq!(graph.frames().len(), 1);
    assert_eq!(
        graph
            .execution_context_for(&y.frame_id, Duration::from_millis(100))
            .await
            .err()
            .map(|e| e.to_string()),
        Some(format!("frame {} not found", y.frame_id))
    );
    // No iframe target is left in the browser either.
    let targets = browser
        .conn
        .browser()
        .call("Target.getTargets", json!({}))
        .await
        .expect("getTargets");
    let iframes = targets["targetInfos"]
        .as_array()
        .map(|a| a.iter().filter(|t| t["type"] == "iframe").count());
    assert_eq!(iframes, Some(0));
    graph.registry().check_invariants().expect("invariants");

    // Closing the tab detaches the graph; waits answer at once with Detached.
    let main = graph.main_frame().frame_id;
    let target = page_target(&browser, &page).await;
    browser
        .conn
        .browser()
        .call("Target.closeTarget", json!({"targetId": target.as_str()}))
        .await
        .expect("closeTarget");
    wait_for("graph detached", || {
        let d = graph.is_detached();
        async move { d.then_some(()) }
    })
    .await;
    let err = graph
        .execution_context_for(&main, Duration::from_secs(5))
        .await
        .expect_err("detached");
    assert!(
        matches!(err, frame_graph::FrameGraphError::Detached),
        "{err}"
    );
    graph.shutdown();
    browser.close().await;
}
