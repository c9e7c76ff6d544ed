//! Scenario 4: iframes inserted by script before existing ones keep existing indices stable.

use crate::support::*;
use frame_graph::FrameIndex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inserted_frames_take_the_next_number_and_existing_ones_keep_theirs() {
    let server = Server::start().await;
    server.route("/", r#"<body><iframe id="a" src="/a.html"></iframe><iframe id="b" src="/b.html"></iframe></body>"#);
    for p in ["/a.html", "/b.html", "/c.html", "/d.html"] {
        server.route(p, "<body>x</body>");
    }
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    let a = by_url(&graph, "/a.html").expect("a");
    let b = by_url(&graph, "/b.html").expect("b");
    assert_eq!(
        (a.frame_index, b.frame_index),
        (FrameIndex(1), FrameIndex(2))
    );

    // C (same-origin) before A, then D (cross-site) before B.
    eval(&page, r#"{ const f = document.createElement('iframe'); f.id = 'c'; f.src = '/c.html'; document.body.insertBefore(f, document.getElementById('a')); }"#).await;
    let c = wait_for("C", || {
        let f = by_url(&graph, "/c.html").filter(|f| f.owner_backend_node_id.is_some());
        async move { f }
    })
    .await;
    let d_url = server.cross("/d.html");
    eval(&page, &format!(r#"{{ const f = document.createElement('iframe'); f.id = 'd'; f.src = '{d_url}'; document.body.insertBefore(f, document.getElementById('b')); }}"#)).await;
    let d = wait_for("D", || {
        let f = by_url(&graph, "/d.html").filter(|f| f.owner_backend_node_id.is_some());
        async move { f }
    })
    .await;
    assert_eq!(c.frame_index, FrameIndex(3));
    assert_eq!(d.frame_index, FrameIndex(4));
    assert!(d.is_out_of_process);
    assert_eq!(
        graph.frame(&a.frame_id).map(|f| f.frame_index),
        Some(FrameIndex(1))
    );
    assert_eq!(
        graph.frame(&b.frame_id).map(|f| f.frame_index),
        Some(FrameIndex(2))
    );
    let main = graph.main_frame();
    for (f, sel) in [(&c, "#c"), (&d, "#d"), (&a, "#a"), (&b, "#b")] {
        let owner = backend_id_in(&graph, &main.frame_id, sel).await;
        let now = graph.frame(&f.frame_id).expect("frame");
        assert_eq!(
            now.owner_backend_node_id.map(|o| o.get()),
            Some(owner),
            "{sel}"
        );
    }

    // sync re-reads document order: children are C, A, D, B; indices do not move.
    graph.sync().await.expect("sync");
    let main = graph.main_frame();
    assert_eq!(
        main.children,
        vec![
            c.frame_id.clone(),
            a.frame_id.clone(),
            d.frame_id.clone(),
            b.frame_id.clone()
        ]
    );
    let indices: Vec<u32> = graph.frames().iter().map(|f| f.frame_index.get()).collect();
    assert_eq!(indices, vec![0, 3, 1, 4, 2]);
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}
