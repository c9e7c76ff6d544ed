//! Scenario 12: owners are found with a cheap per-document query; an iframe inside a shadow
//! root is invisible to that query, so the graph reads the whole document for it: owners and
//! document order stay exact.

use crate::support::*;
use frame_graph::FrameIndex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_in_shadow_roots_keep_owner_and_document_order() {
    let server = Server::start().await;
    // The shadow iframe is created last (frame tree order A, B, S) but sits between A and B in
    // the document (document order A, S, B).
    server.route(
        "/",
        r#"<body><iframe id="a" src="/a.html"></iframe><x-host id="h"></x-host><iframe id="b" src="/b.html"></iframe>
<script>const r = document.getElementById('h').attachShadow({mode: 'open'});
const f = document.createElement('iframe'); f.id = 's'; f.src = '/s.html'; r.appendChild(f);</script></body>"#,
    );
    for p in ["/a.html", "/b.html", "/s.html"] {
        server.route(p, "<body>frame</body>");
    }
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    let frames = graph.frames();
    let paths: Vec<String> = frames
        .iter()
        .map(|f| f.url.trim_start_matches(&server.url("")).to_string())
        .collect();
    assert_eq!(
        paths,
        vec!["", "a.html", "s.html", "b.html"],
        "document order"
    );
    let indices: Vec<u32> = frames.iter().map(|f| f.frame_index.get()).collect();
    assert_eq!(indices, vec![0, 1, 2, 3]);
    let main = graph.main_frame();
    assert_eq!(main.frame_index, FrameIndex::MAIN);
    // The shadow iframe's owner, checked against the DOM independently of the graph.
    let ctx = graph
        .execution_context_for(&main.frame_id, std::time::Duration::from_secs(5))
        .await
        .expect("context");
    let r = page
        .call(
            "Runtime.evaluate",
            serde_json::json!({"expression": "document.getElementById('h').shadowRoot.getElementById('s')", "contextId": ctx.get()}),
        )
        .await
        .expect("evaluate");
    let d = page
        .call(
            "DOM.describeNode",
            serde_json::json!({"objectId": r["result"]["objectId"]}),
        )
        .await
        .expect("describeNode");
    let shadow_owner = d["node"]["backendNodeId"].as_i64().expect("backendNodeId");
    assert_eq!(
        frames[2].owner_backend_node_id.map(|b| b.get()),
        Some(shadow_owner)
    );
    for (i, sel) in [(1, "#a"), (3, "#b")] {
        let owner = backend_id_in(&graph, &main.frame_id, sel).await;
        assert_eq!(
            frames[i].owner_backend_node_id.map(|b| b.get()),
            Some(owner)
        );
    }
    graph.shutdown();
    browser.close().await;
}
