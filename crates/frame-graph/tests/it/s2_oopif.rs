//! Scenario 2: a cross-site iframe found through auto-attach.

use crate::support::*;
use frame_graph::FrameIndex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oopif_is_found_through_auto_attach_with_its_own_session_and_owner() {
    let server = Server::start().await;
    let child = server.cross("/child.html");
    server.route(
        "/",
        &format!(r#"<body><p>top</p><iframe id="x" src="{child}"></iframe></body>"#),
    );
    server.route("/child.html", "<body><button>in oopif</button></body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    // Attach first: the OOPIF arrives through events and auto-attach.
    let graph = graph(&page).await;
    goto(&page, &server.url("/")).await;
    let oopif = wait_for("the OOPIF with its owner", || {
        let f = by_url(&graph, "/child.html").filter(|f| f.owner_backend_node_id.is_some());
        async move { f }
    })
    .await;
    assert!(oopif.is_out_of_process);
    assert_eq!(oopif.frame_index, FrameIndex(1));
    assert_ne!(oopif.session_id, sid(&page));
    assert!(oopif.session_id.is_some());
    let main = graph.main_frame();
    assert_eq!(oopif.parent_frame_id, Some(main.frame_id.clone()));
    let owner = backend_id_in(&graph, &main.frame_id, "#x").await;
    assert_eq!(oopif.owner_backend_node_id.map(|b| b.get()), Some(owner));
    // The frame's session and context really are the OOPIF's.
    let session = graph.session_for(&oopif.frame_id).expect("session");
    assert_eq!(session.id(), oopif.session_id.as_ref());
    let host = eval_in(
        &graph,
        &oopif.frame_id,
        "location.host + '|' + document.querySelector('button').textContent",
    )
    .await;
    assert_eq!(
        host,
        serde_json::json!(format!("{}|in oopif", server.cross_host()))
    );
    assert_eq!(graph.sessions().len(), 2);
    graph.registry().check_invariants().expect("invariants");

    // A second graph, on a second session to the same tab attached after load, seeds the same
    // picture from the existing OOPIF target.
    let target = page_target(&browser, &page).await;
    let second = browser
        .conn
        .browser()
        .attach_to_target(&target)
        .await
        .expect("second session");
    let late = frame_graph::FrameGraph::attach(second, Default::default())
        .await
        .expect("late attach");
    let f = late
        .frame(&oopif.frame_id)
        .expect("OOPIF seen by late graph");
    assert!(f.is_out_of_process);
    assert_eq!(f.frame_index, FrameIndex(1));
    assert_eq!(f.owner_backend_node_id, oopif.owner_backend_node_id);
    late.shutdown();
    graph.shutdown();

    // A new graph on the same session right after shutdown (the CLI re-attaches after a
    // timeout): the old graph's auto-attach "off" must not undo the new graph's "on".
    let again = crate::support::graph(&page).await;
    let f = wait_for("OOPIF seen again after re-attach", || {
        let f = again
            .frame(&oopif.frame_id)
            .filter(|f| f.is_out_of_process && f.owner_backend_node_id.is_some());
        async move { f }
    })
    .await;
    assert_eq!(f.frame_index, FrameIndex(1));
    assert_eq!(
        eval_in(&again, &f.frame_id, "location.pathname").await,
        "/child.html"
    );
    again.shutdown();

    // With the graphs gone nobody resumes paused targets: a new cross-site iframe must still
    // load (auto-attach was turned off on shutdown).
    let again = server.cross("/child.html");
    let loaded = eval(
        &page,
        &format!(
            "new Promise(r => {{ const f = document.createElement('iframe'); f.onload = () => r('loaded'); \
             f.src = '{again}?2'; document.body.appendChild(f); setTimeout(() => r('stuck'), 5000); }})"
        ),
    )
    .await;
    assert_eq!(loaded, "loaded");
    browser.close().await;
}
