//! Detaching flattened sessions on the session that attached them, against a real Chromium.

use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{CdpError, page, runtime, target};
use std::time::Duration;

const T: Duration = Duration::from_secs(15);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_detach_on_the_session_that_attached_them() {
    let server = FixtureServer::start().await;
    server.route(
        "/index.html",
        "text/html",
        format!(
            "<body><iframe src=\"{}\"></iframe><iframe src=\"{}\"></iframe></body>",
            server.cross_site_url("/a.html"),
            server.cross_site_url("/b.html")
        ),
    );
    server.route("/a.html", "text/html", "<body>a</body>");
    server.route("/b.html", "text/html", "<body>b</body>");
    let b = launch_test_browser().await;
    let conn = b.connection();
    let root = conn.browser();
    let (_, tab) = open_blank_page(&b).await.unwrap();
    assert_eq!(tab.attached_by(), Some(None));
    let mut attached = tab.subscribe::<target::AttachedToTarget>();
    let mut detached = tab.subscribe::<target::DetachedFromTarget>();
    tab.send(&page::Enable).await.unwrap();
    tab.send(&target::SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: false,
        flatten: Some(true),
        filter: None,
    })
    .await
    .unwrap();
    tab.send(&page::Navigate {
        url: server.url("/index.html"),
        ..Default::default()
    })
    .await
    .unwrap();
    let mut children = Vec::new();
    while children.len() < 2 {
        let ev = tokio::time::timeout(T, attached.recv())
            .await
            .expect("OOPIF attached")
            .unwrap()
            .unwrap();
        children.push(ev.session_id);
    }

    // A bare handle detached on the root session: the browser does not know it there.
    let bare = conn.session(children[0].clone());
    assert_eq!(bare.attached_by(), None);
    let wrong = bare.detach().await;
    assert!(matches!(wrong, Err(CdpError::Protocol { .. })), "{wrong:?}");
    bare.send(&runtime::Evaluate {
        expression: "1".into(),
        ..Default::default()
    })
    .await
    .expect("session still attached");

    // Named parent: detaches.
    bare.detach_from(&tab).await.expect("detach_from the tab");
    let ev = tokio::time::timeout(T, detached.recv())
        .await
        .expect("detached event")
        .unwrap()
        .unwrap();
    assert_eq!(ev.session_id, children[0]);
    let r = bare.send(&page::Enable).await;
    assert!(matches!(r, Err(CdpError::SessionClosed { .. })), "{r:?}");

    // A handle made with `child` remembers its parent: plain `detach` is right.
    let child = tab.child(children[1].clone());
    assert_eq!(child.attached_by(), Some(tab.id()));
    child.detach().await.expect("detach a child of the tab");
    let ev = tokio::time::timeout(T, detached.recv())
        .await
        .expect("detached event")
        .unwrap()
        .unwrap();
    assert_eq!(ev.session_id, children[1]);

    // A root-attached session still detaches with `detach`.
    let mut root_detached = root.subscribe::<target::DetachedFromTarget>();
    tab.detach().await.expect("detach the tab");
    let ev = tokio::time::timeout(T, root_detached.recv())
        .await
        .expect("tab detached event")
        .unwrap()
        .unwrap();
    assert_eq!(Some(&ev.session_id), tab.id());
    // The root session itself: no-op.
    root.detach().await.expect("root detach is a no-op");
    b.close().await.unwrap();
}
