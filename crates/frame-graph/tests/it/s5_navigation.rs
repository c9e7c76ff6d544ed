//! Scenario 5: an iframe navigating same-origin → same-origin (new context), same-origin →
//! cross-site (the `swap` case: same frame, new session) and back; then a main-frame navigation.

use crate::support::*;
use frame_graph::{FrameGraph, FrameIndex, FrameInfo};

async fn wait_frame(graph: &FrameGraph, what: &str, ok: impl Fn(&FrameInfo) -> bool) -> FrameInfo {
    wait_for(what, || {
        let f = graph
            .frames()
            .into_iter()
            .find(|f| f.frame_index == FrameIndex(1))
            .filter(|f| ok(f));
        async move { f }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iframe_navigations_keep_the_frame_and_move_its_session() {
    let server = Server::start().await;
    server.route(
        "/",
        r#"<body><iframe id="f" src="/one.html"></iframe></body>"#,
    );
    server.route("/one.html", "<body>one</body>");
    server.route("/plain.html", "<body>plain</body>");
    server.route(
        "/two.html",
        r#"<body>two<iframe id="n" src="/leaf.html"></iframe></body>"#,
    );
    server.route("/leaf.html", "<body>leaf</body>");
    server.route(
        "/three.html",
        r#"<body>three<iframe id="m" src="/leaf3.html"></iframe></body>"#,
    );
    server.route("/leaf3.html", "<body>leaf3</body>");
    server.route(
        "/next.html",
        r#"<body><iframe src="/one.html"></iframe></body>"#,
    );
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    let generation = graph.generation();
    let f = by_url(&graph, "/one.html").expect("frame");
    assert_eq!(f.frame_index, FrameIndex(1));
    let ctx1 = graph
        .execution_context_for(&f.frame_id, T)
        .await
        .expect("ctx1");

    // same-origin -> same-origin: same frame, same session, new context.
    eval(&page, "document.getElementById('f').src = '/two.html'").await;
    let two = wait_frame(&graph, "two.html committed", |x| {
        x.url.ends_with("/two.html")
    })
    .await;
    assert_eq!(two.frame_id, f.frame_id);
    assert_eq!(two.session_id, sid(&page));
    let ctx2 = wait_for("a new context", || {
        let g = graph.clone();
        let id = f.frame_id.clone();
        async move {
            g.execution_context_for(&id, T)
                .await
                .ok()
                .filter(|c| *c != ctx1)
        }
    })
    .await;
    assert_ne!(ctx1, ctx2);
    assert_eq!(
        graph.current_context(&f.frame_id),
        Some(ctx2),
        "known without waiting"
    );
    assert_eq!(eval_in(&graph, &f.frame_id, BODY_TEXT).await, "two");
    let nested = wait_for("nested leaf", || {
        let x = by_url(&graph, "/leaf.html");
        async move { x }
    })
    .await;
    assert_eq!(nested.parent_frame_id.as_ref(), Some(&f.frame_id));

    // same-origin -> cross-site: the swap. Same frame id and index, now its own session.
    let three = server.cross("/three.html");
    eval(
        &page,
        &format!("document.getElementById('f').src = '{three}'"),
    )
    .await;
    let swapped = wait_frame(&graph, "cross-site commit in a new session", |x| {
        x.url.ends_with("/three.html") && x.is_out_of_process
    })
    .await;
    assert_eq!(swapped.frame_id, f.frame_id);
    assert_ne!(swapped.session_id, sid(&page));
    assert_eq!(
        graph.session_for(&f.frame_id).and_then(|s| s.id().cloned()),
        swapped.session_id
    );
    wait_for("nested frame of the old document gone", || {
        let gone = graph.frame(&nested.frame_id).is_none();
        async move { gone.then_some(()) }
    })
    .await;
    let host = eval_in(&graph, &f.frame_id, "location.host").await;
    assert_eq!(host, serde_json::json!(server.cross_host()));
    let leaf3 = wait_for_or(
        "same-site child inside the OOPIF",
        || {
            let x = by_url(&graph, "/leaf3.html");
            async move { x }
        },
        || format!("{:#?} {:?}", graph.frames(), graph.registry()),
    )
    .await;
    assert_eq!(leaf3.parent_frame_id.as_ref(), Some(&f.frame_id));
    assert_eq!(leaf3.session_id, swapped.session_id);
    assert_eq!(graph.sessions().len(), 2);
    graph.registry().check_invariants().expect("invariants");

    // cross-site -> same-origin: back in the page session, the OOPIF session is gone.
    let one = server.url("/one.html");
    eval(
        &page,
        &format!("document.getElementById('f').src = '{one}'"),
    )
    .await;
    let back = wait_frame(&graph, "back in process", |x| {
        x.url.ends_with("/one.html") && !x.is_out_of_process
    })
    .await;
    assert_eq!(back.frame_id, f.frame_id);
    assert_eq!(back.session_id, sid(&page));
    assert!(graph.frame(&leaf3.frame_id).is_none());
    wait_for("OOPIF session released", || {
        let n = graph.sessions().len();
        async move { (n == 1).then_some(()) }
    })
    .await;
    assert_eq!(eval_in(&graph, &f.frame_id, BODY_TEXT).await, "one");
    assert_eq!(graph.generation(), generation);
    graph.registry().check_invariants().expect("invariants");

    // A main-frame navigation starts a fresh numbering.
    goto(&page, &server.url("/next.html")).await;
    let fresh = wait_for("new document's iframe", || {
        let x = by_url(&graph, "/one.html").filter(|x| x.frame_id != f.frame_id);
        async move { x }
    })
    .await;
    assert!(graph.generation() > generation);
    assert_eq!(fresh.frame_index, FrameIndex(1));
    assert!(graph.frame(&f.frame_id).is_none());

    // A cross-site main-frame navigation (new renderer process, same page session): again a
    // fresh numbering, and the new documents' contexts are found.
    let generation = graph.generation();
    goto(&page, &server.cross("/next.html")).await;
    let cross_fresh = wait_for("iframe of the cross-site document", || {
        let x = by_url(&graph, "/one.html")
            .filter(|x| x.frame_id != fresh.frame_id && x.url.contains("localhost"));
        async move { x }
    })
    .await;
    assert!(graph.generation() > generation);
    assert_eq!(cross_fresh.frame_index, FrameIndex(1));
    assert!(!cross_fresh.is_out_of_process);
    assert_eq!(
        eval_in(&graph, &cross_fresh.frame_id, BODY_TEXT).await,
        "one"
    );
    assert_eq!(graph.frames().len(), 2);
    graph.registry().check_invariants().expect("invariants");

    // Away and back through history (possibly restored from the back/forward cache): the
    // restored document's iframe is in the graph again, numbered in the fresh generation.
    goto(&page, &server.cross("/plain.html")).await;
    wait_for("plain page without frames", || {
        let n = graph.frames().len();
        async move { (n == 1).then_some(()) }
    })
    .await;
    // From a task, so the evaluate answers before the (cross-site, process-swapping) navigation
    // starts; called directly, its answer may be lost to "Inspected target navigated or closed".
    eval(&page, "setTimeout(() => history.back(), 0); 1").await;
    let restored = wait_for_or(
        "iframe of the restored document",
        || {
            let x = by_url(&graph, "/one.html").filter(|x| x.url.contains("localhost"));
            async move { x }
        },
        || format!("{:#?}", graph.frames()),
    )
    .await;
    assert_eq!(restored.frame_index, FrameIndex(1));
    assert_eq!(eval_in(&graph, &restored.frame_id, BODY_TEXT).await, "one");
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}
