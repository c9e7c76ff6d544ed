//! Scenario 9: documents the DOM pass cannot fully decode (too deep for serde_json's recursion
//! limit) or whose text carries a lone UTF-16 surrogate: attach and sync still work.

use crate::support::*;

/// A page whose body nests DEPTH divs, with an iframe near the top and one at the bottom.
const DEEP: &str = r#"<!doctype html><body><iframe id="top" src="/top.html"></iframe><div id="root"></div>
<script>
let el = document.getElementById('root');
for (let i = 0; i < DEPTH; i++) { const d = document.createElement('div'); el.appendChild(d); el = d; }
const f = document.createElement('iframe'); f.id = 'bottom'; f.src = '/bottom.html'; el.appendChild(f);
</script></body>"#;

// ~100 levels: Chromium sends the document, too deep for serde_json's recursion limit (128).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_100_deep_attaches_with_owners_for_every_frame() {
    deep_document_attaches(100).await;
}

// 1,000 levels: deeper than Chromium's own nesting limit for a protocol message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_1000_deep_attaches_with_owners_for_every_frame() {
    deep_document_attaches(1000).await;
}

async fn deep_document_attaches(depth: usize) {
    let server = Server::start().await;
    server.route("/", &DEEP.replace("DEPTH", &depth.to_string()));
    server.route("/top.html", "<body>top</body>");
    server.route("/bottom.html", "<body>bottom</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    assert_eq!(
        eval(&page, "(() => { let n = 0, e = document.getElementById('bottom'); while (e = e.parentElement) n++; return n; })()").await,
        serde_json::json!(depth + 3)
    );
    let graph = graph(&page).await;
    let main = graph.main_frame().frame_id;
    let top_owner = backend_id_in(&graph, &main, "#top").await;
    let bottom_owner = backend_id_in(&graph, &main, "#bottom").await;
    // Owners the DOM pass could not read come from DOM.getFrameOwner, shortly after attach.
    let state = || format!("{:?}", graph.frames());
    wait_for_or(
        "both frames with their owners",
        || async {
            let top = by_url(&graph, "/top.html")?;
            let bottom = by_url(&graph, "/bottom.html")?;
            (top.owner_backend_node_id.map(|b| b.get()) == Some(top_owner)
                && bottom.owner_backend_node_id.map(|b| b.get()) == Some(bottom_owner))
            .then_some(())
        },
        state,
    )
    .await;
    graph.sync().await.expect("sync of a deep document");
    assert_eq!(graph.frames().len(), 3);
    for f in graph.frames().iter().skip(1) {
        assert_eq!(f.parent_frame_id.as_ref(), Some(&main));
        assert_eq!(
            graph.frame_by_index(f.frame_index).map(|x| x.frame_id),
            Some(f.frame_id.clone())
        );
    }
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lone_surrogate_in_page_text_attaches_in_document_order() {
    let server = Server::start().await;
    server.route(
        "/",
        r#"<!doctype html><body><p id=p>x</p><iframe id="a" src="/a.html"></iframe><iframe id="b" src="/b.html"></iframe>
<script>document.getElementById('p').textContent = 'a\uD800b'; document.title = '\uDC00';</script></body>"#,
    );
    server.route("/a.html", "<body>A</body>");
    server.route("/b.html", "<body>B</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;
    graph.sync().await.expect("sync");
    let frames = graph.frames();
    let urls: Vec<String> = frames.iter().map(|f| f.url.clone()).collect();
    assert_eq!(
        urls,
        vec![
            server.url("/"),
            server.url("/a.html"),
            server.url("/b.html")
        ]
    );
    let main = graph.main_frame().frame_id;
    for (f, sel) in frames[1..].iter().zip(["#a", "#b"]) {
        let owner = backend_id_in(&graph, &main, sel).await;
        assert_eq!(
            f.owner_backend_node_id.map(|b| b.get()),
            Some(owner),
            "{sel}"
        );
    }
    graph.shutdown();
    browser.close().await;
}
