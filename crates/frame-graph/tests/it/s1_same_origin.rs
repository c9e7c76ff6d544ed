//! Scenario 1: main frame plus three same-origin iframes, one nested.

use crate::support::*;
use frame_graph::FrameIndex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_origin_frames_are_numbered_in_document_order_with_owners() {
    let server = Server::start().await;
    server.route(
        "/",
        r#"<body><iframe id="a" src="/a.html"></iframe><div><iframe id="b" src="/b.html"></iframe></div><iframe id="c" name="cee" src="/c.html"></iframe></body>"#,
    );
    server.route(
        "/a.html",
        r#"<body>A<iframe id="a1" src="/a1.html"></iframe></body>"#,
    );
    server.route("/a1.html", "<body>A1</body>");
    server.route("/b.html", "<body>B</body>");
    server.route("/c.html", "<body>C</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    // Someone already enabled Runtime on this session: the graph must still learn the contexts.
    page.call("Runtime.enable", serde_json::json!({}))
        .await
        .expect("Runtime.enable");
    let graph = graph(&page).await;

    let frames = graph.frames();
    let urls: Vec<String> = frames.iter().map(|f| f.url.clone()).collect();
    assert_eq!(
        urls,
        vec![
            server.url("/"),
            server.url("/a.html"),
            server.url("/a1.html"),
            server.url("/b.html"),
            server.url("/c.html")
        ]
    );
    let indices: Vec<u32> = frames.iter().map(|f| f.frame_index.get()).collect();
    assert_eq!(indices, vec![0, 1, 2, 3, 4]);
    let main = graph.main_frame();
    assert_eq!(main.frame_index, FrameIndex::MAIN);
    assert_eq!(main.owner_backend_node_id, None);
    assert_eq!(frames[4].name.as_deref(), Some("cee"));
    for f in &frames[1..] {
        assert!(!f.is_out_of_process);
        assert_eq!(f.session_id, sid(&page));
    }
    // Parents and owners, checked against the DOM independently of the graph.
    let cases = [(1, "#a"), (3, "#b"), (4, "#c")];
    for (i, sel) in cases {
        assert_eq!(frames[i].parent_frame_id.as_ref(), Some(&main.frame_id));
        let owner = backend_id_in(&graph, &main.frame_id, sel).await;
        assert_eq!(
            frames[i].owner_backend_node_id.map(|b| b.get()),
            Some(owner),
            "{sel}"
        );
        let by_owner = graph.frame_by_owner(
            &main.frame_id,
            frames[i].owner_backend_node_id.expect("owner"),
        );
        assert_eq!(
            by_owner.map(|f| f.frame_id),
            Some(frames[i].frame_id.clone())
        );
    }
    assert_eq!(
        frames[2].parent_frame_id.as_ref(),
        Some(&frames[1].frame_id)
    );
    let owner = backend_id_in(&graph, &frames[1].frame_id, "#a1").await;
    assert_eq!(
        frames[2].owner_backend_node_id.map(|b| b.get()),
        Some(owner)
    );
    assert_eq!(
        main.children,
        vec![
            frames[1].frame_id.clone(),
            frames[3].frame_id.clone(),
            frames[4].frame_id.clone()
        ]
    );
    // Lookups agree.
    for f in &frames {
        assert_eq!(
            graph.frame_by_index(f.frame_index).map(|x| x.frame_id),
            Some(f.frame_id.clone())
        );
        assert_eq!(graph.index_for(&f.frame_id), Some(f.frame_index));
        assert_eq!(
            eval_in(&graph, &f.frame_id, "location.href").await,
            serde_json::json!(f.url)
        );
    }
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}
