//! Scenario 3: OOPIF inside a same-origin iframe, same-site iframe inside an OOPIF, OOPIF inside
//! an OOPIF.

use crate::support::*;
use frame_graph::{FrameGraph, FrameInfo};

struct Expect {
    url: &'static str,
    parent: &'static str,
    owner_selector: &'static str,
    own_session: bool,
}

fn pages(server: &Server) {
    let cross = |p: &str| server.cross(p);
    server.route(
        "/",
        &format!(
            r#"<body><iframe id="s" src="/s.html"></iframe><iframe id="o" src="{}"></iframe><iframe id="p" src="{}"></iframe></body>"#,
            cross("/o.html"),
            cross("/p.html")
        ),
    );
    server.route(
        "/s.html",
        &format!(
            r#"<body>S<iframe id="so" src="{}"></iframe></body>"#,
            cross("/so.html")
        ),
    );
    server.route("/so.html", "<body>SO</body>");
    server.route(
        "/o.html",
        r#"<body>O<iframe id="oi" src="/oi.html"></iframe></body>"#,
    );
    server.route("/oi.html", "<body>OI</body>");
    server.route(
        "/p.html",
        &format!(
            r#"<body>P<iframe id="pq" src="{}"></iframe></body>"#,
            server.url("/q.html")
        ),
    );
    server.route("/q.html", "<body>Q</body>");
}

const EXPECT: [Expect; 6] = [
    Expect {
        url: "/s.html",
        parent: "/",
        owner_selector: "#s",
        own_session: false,
    },
    Expect {
        url: "/so.html",
        parent: "/s.html",
        owner_selector: "#so",
        own_session: true,
    },
    Expect {
        url: "/o.html",
        parent: "/",
        owner_selector: "#o",
        own_session: true,
    },
    Expect {
        url: "/oi.html",
        parent: "/o.html",
        owner_selector: "#oi",
        own_session: false,
    },
    Expect {
        url: "/p.html",
        parent: "/",
        owner_selector: "#p",
        own_session: true,
    },
    Expect {
        url: "/q.html",
        parent: "/p.html",
        owner_selector: "#pq",
        own_session: true,
    },
];

fn find(frames: &[FrameInfo], path: &str) -> FrameInfo {
    frames
        .iter()
        .find(|f| url_path(&f.url) == path)
        .cloned()
        .unwrap_or_else(|| panic!("frame {path} missing"))
}

fn url_path(url: &str) -> String {
    let rest = url.split("://").nth(1).unwrap_or("");
    rest.find('/')
        .map(|i| rest[i..].to_owned())
        .unwrap_or_default()
}

async fn check_structure(graph: &FrameGraph) -> Vec<FrameInfo> {
    let frames = wait_for_or(
        "all 7 frames with owners and contexts",
        || {
            let frames = graph.frames();
            let ok = frames.len() == 7
                && frames
                    .iter()
                    .skip(1)
                    .all(|f| f.owner_backend_node_id.is_some())
                && EXPECT
                    .iter()
                    .all(|e| frames.iter().any(|f| url_path(&f.url) == e.url));
            async move { ok.then_some(frames) }
        },
        || {
            format!(
                "{:#?} sessions {:?} pending {}",
                graph.frames(),
                graph.sessions(),
                graph.registry().pending_count()
            )
        },
    )
    .await;
    for e in &EXPECT {
        let f = find(&frames, e.url);
        let parent = find(&frames, e.parent);
        assert_eq!(
            f.parent_frame_id.as_ref(),
            Some(&parent.frame_id),
            "{}",
            e.url
        );
        assert!(parent.children.contains(&f.frame_id));
        assert_eq!(f.is_out_of_process, e.own_session, "{}", e.url);
        if e.own_session {
            assert_ne!(f.session_id, parent.session_id, "{}", e.url);
            assert_eq!(
                graph.session_for(&f.frame_id).and_then(|s| s.id().cloned()),
                f.session_id
            );
        } else {
            assert_eq!(f.session_id, parent.session_id, "{}", e.url);
        }
        let owner = backend_id_in(graph, &parent.frame_id, e.owner_selector).await;
        assert_eq!(
            f.owner_backend_node_id.map(|b| b.get()),
            Some(owner),
            "{}",
            e.url
        );
        let text = eval_in(graph, &f.frame_id, BODY_TEXT).await;
        let want = e
            .url
            .trim_start_matches('/')
            .trim_end_matches(".html")
            .to_uppercase();
        assert_eq!(text, serde_json::json!(want));
    }
    let mut indices: Vec<u32> = frames.iter().map(|f| f.frame_index.get()).collect();
    indices.sort();
    assert_eq!(indices, vec![0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(graph.sessions().len(), 5, "page + 4 OOPIF sessions");
    graph.registry().check_invariants().expect("invariants");
    frames
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_oopifs_and_same_site_frames_inside_oopifs() {
    let server = Server::start().await;
    pages(&server);
    let browser = Browser::launch().await;
    let page = browser.new_page().await;

    // Graph attached before the navigation: everything arrives through events.
    let live = graph(&page).await;
    goto(&page, &server.url("/")).await;
    check_structure(&live).await;

    // Graph attached after load on a second session: seeded, numbered in document order.
    let target = page_target(&browser, &page).await;
    let second = browser
        .conn
        .browser()
        .attach_to_target(&target)
        .await
        .expect("second session");
    let seeded = graph(&second).await;
    let frames = check_structure(&seeded).await;
    let order: Vec<String> = frames.iter().map(|f| url_path(&f.url)).collect();
    assert_eq!(
        order,
        vec![
            "/", "/s.html", "/so.html", "/o.html", "/oi.html", "/p.html", "/q.html"
        ]
    );
    let indices: Vec<u32> = frames.iter().map(|f| f.frame_index.get()).collect();
    assert_eq!(indices, vec![0, 1, 2, 3, 4, 5, 6]);

    live.shutdown();
    seeded.shutdown();
    browser.close().await;
}
