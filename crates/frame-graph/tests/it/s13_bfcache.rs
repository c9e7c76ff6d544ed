//! Scenario 13: a page with out-of-process iframes (one nested in another, beside an in-process
//! one) and a same-origin iframe is left and restored from the back/forward cache, twice: every
//! frame is tracked again, numbered in document order, each OOPIF under a live session of its
//! own.

use crate::support::*;
use cdp_protocol::page::FrameNavigated;
use cdp_protocol::{EventFilter, Session};
use frame_graph::{FrameGraph, FrameInfo};

/// The page records every `pageshow` (`persisted` is true for a restore from the cache).
const SHOWS: &str = r#"<script>window.shows = []; addEventListener('pageshow', e => shows.push(e.persisted));</script>"#;

fn pages(server: &Server) {
    server.route_cacheable(
        "/a.html",
        &format!(
            r#"<body>A<iframe id="s" src="/s.html"></iframe><iframe id="o" src="{}"></iframe>{SHOWS}</body>"#,
            server.cross("/o.html")
        ),
    );
    server.route_cacheable("/s.html", "<body>S</body>");
    server.route_cacheable(
        "/o.html",
        &format!(
            r#"<body>O<iframe id="n" src="{}"></iframe><iframe id="i" src="/i.html"></iframe></body>"#,
            server.url("/n.html")
        ),
    );
    server.route_cacheable("/n.html", "<body>N</body>");
    server.route_cacheable("/i.html", "<body>I</body>");
    server.route_cacheable("/b.html", &format!("<body>B{SHOWS}</body>"));
}

/// Goes `delta` steps through history (from a task, so the evaluate answers before the
/// navigation) and returns the main frame's `Page.frameNavigated` type.
async fn history_go(page: &Session, delta: i32) -> Option<String> {
    let mut navigated = page
        .link()
        .events(EventFilter::methods(&["Page.frameNavigated"]).capacity(100));
    eval(
        page,
        &format!("setTimeout(() => history.go({delta}), 0); 1"),
    )
    .await;
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let ev = tokio::time::timeout_at(deadline, navigated.recv())
            .await
            .expect("main frame navigated")
            .expect("event stream open");
        if ev.session_id.as_ref() != page.id() {
            continue;
        }
        let e: FrameNavigated = ev.decode().expect("frameNavigated");
        if e.frame.parent_id.is_none() {
            return e.r#type;
        }
    }
}

/// Waits until the graph holds page A's frames, each OOPIF with its owner under a live session
/// of its own that evaluates in the frame, then checks the whole graph.
async fn check_page_a(graph: &FrameGraph, page: &Session) {
    // Read without numbering frames (as `frames()` would, on first use): the restored page's
    // frames are numbered in document order once the graph has read them all.
    let tracked = |suffix: &str, oop: bool| {
        let reg = graph.registry();
        reg.dfs_order().into_iter().any(|f| {
            reg.info(&f).is_some_and(|i| i.url.ends_with(suffix))
                && reg.is_out_of_process(&f) == oop
                && reg.owner_of(&f).is_some()
                && reg.context_of(&f).is_some()
        })
    };
    wait_for_or(
        "page A's frames tracked",
        || {
            let all = tracked("/s.html", false)
                && tracked("/o.html", true)
                && tracked("/n.html", true)
                && tracked("/i.html", false);
            async move { all.then_some(()) }
        },
        || format!("{:#?}", graph.registry()),
    )
    .await;
    tokio::time::timeout(T, graph.sync())
        .await
        .expect("sync bounded")
        .expect("sync");
    let frames = graph.frames();
    let main = graph.main_frame();
    let find = |suffix: &str| -> FrameInfo {
        frames
            .iter()
            .find(|f| f.url.ends_with(suffix))
            .cloned()
            .unwrap_or_else(|| panic!("{suffix} in {frames:#?}"))
    };
    let (s, o, n, i) = (
        find("/s.html"),
        find("/o.html"),
        find("/n.html"),
        find("/i.html"),
    );
    // Depth-first in document order, numbered in that order.
    let urls: Vec<&str> = frames
        .iter()
        .map(|f| f.url.rsplit('/').next().unwrap_or_default())
        .collect();
    assert_eq!(urls, ["a.html", "s.html", "o.html", "n.html", "i.html"]);
    for (k, f) in frames.iter().enumerate() {
        assert_eq!(f.frame_index.0 as usize, k, "{frames:#?}");
    }
    assert_eq!(s.parent_frame_id.as_ref(), Some(&main.frame_id));
    assert_eq!(o.parent_frame_id.as_ref(), Some(&main.frame_id));
    assert_eq!(n.parent_frame_id.as_ref(), Some(&o.frame_id));
    assert_eq!(i.parent_frame_id.as_ref(), Some(&o.frame_id));
    assert_eq!(i.session_id, o.session_id);
    assert_eq!(s.session_id, sid(page));
    assert!(o.is_out_of_process && n.is_out_of_process);
    assert_ne!(o.session_id, sid(page));
    assert_ne!(n.session_id, o.session_id);
    for (f, text) in [(&s, "S"), (&o, "O"), (&n, "N"), (&i, "I")] {
        // On the frame's own session: a session the browser forgot would fail here.
        let got = tokio::time::timeout(T, eval_in(graph, &f.frame_id, BODY_TEXT))
            .await
            .expect("evaluate bounded");
        assert_eq!(got, text, "{f:#?}");
    }
    for (f, parent, selector) in [
        (&s, &main, "#s"),
        (&o, &main, "#o"),
        (&n, &o, "#n"),
        (&i, &o, "#i"),
    ] {
        let owner = backend_id_in(graph, &parent.frame_id, selector).await;
        assert_eq!(f.owner_backend_node_id.map(|o| o.get()), Some(owner));
    }
    graph.registry().check_invariants().expect("invariants");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oopifs_of_a_page_restored_from_the_back_forward_cache_are_tracked_again() {
    let server = Server::start().await;
    pages(&server);
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/a.html")).await;
    let graph = graph(&page).await;
    check_page_a(&graph, &page).await;

    goto(&page, &server.url("/b.html")).await;
    wait_for("page B without frames", || {
        let n = graph.frames().len();
        async move { (n == 1).then_some(()) }
    })
    .await;
    let how = history_go(&page, -1).await;
    // Not vacuous: the page really came back from the cache.
    assert_eq!(how.as_deref(), Some("BackForwardCacheRestore"));
    assert_eq!(eval(&page, "JSON.stringify(shows)").await, "[false,true]");
    check_page_a(&graph, &page).await;

    // Forward (B from the cache) and back again.
    let how = history_go(&page, 1).await;
    assert_eq!(how.as_deref(), Some("BackForwardCacheRestore"));
    wait_for("page B without frames", || {
        let n = graph.frames().len();
        async move { (n == 1).then_some(()) }
    })
    .await;
    let how = history_go(&page, -1).await;
    assert_eq!(how.as_deref(), Some("BackForwardCacheRestore"));
    assert_eq!(
        eval(&page, "JSON.stringify(shows)").await,
        "[false,true,true]"
    );
    check_page_a(&graph, &page).await;
    graph.shutdown();
    browser.close().await;
}
