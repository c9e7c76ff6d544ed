//! The hand-written types against a real Chromium: every typed command used here must decode
//! its real response, and every real event of a typed kind must decode.

use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{
    CdpError, EventFilter, RawEvent, Session, SessionFilter, accessibility, browser, dom,
    dom_snapshot, emulation, input, log, network, page, runtime, target,
};
use std::time::Duration;

const PAGE: &str = r#"<!doctype html><html><head><title>Types</title></head><body>
<h1 id=h>Heading</h1>
<button id=b onclick="document.title='clicked'">Press</button>
<input id=i value="v">
<iframe id=same src="/child.html"></iframe>
<iframe id=cross src="CROSS"></iframe>
<script>console.log('hello', 1); </script>
</body></html>"#;

const CHILD: &str = "<!doctype html><title>child</title><p>in child <a href=#x>link</a></p>";

/// Decodes events of every typed kind; returns how many were checked.
fn decode_known(ev: &RawEvent) -> Result<bool, CdpError> {
    macro_rules! check {
        ($($ty:ty),* $(,)?) => {
            match ev.method.as_str() {
                $(m if m == <$ty as cdp_protocol::Event>::METHOD => { ev.decode::<$ty>()?; Ok(true) })*
                _ => Ok(false),
            }
        };
    }
    check!(
        page::FrameAttached,
        page::FrameNavigated,
        page::FrameDetached,
        page::NavigatedWithinDocument,
        page::LoadEventFired,
        page::DomContentEventFired,
        page::LifecycleEvent,
        page::FrameStartedLoading,
        page::FrameStoppedLoading,
        runtime::ExecutionContextCreated,
        runtime::ExecutionContextDestroyed,
        runtime::ExecutionContextsCleared,
        runtime::ConsoleApiCalled,
        runtime::ExceptionThrown,
        target::AttachedToTarget,
        target::DetachedFromTarget,
        target::TargetCreated,
        target::TargetDestroyed,
        target::TargetInfoChanged,
        network::RequestWillBeSent,
        network::ResponseReceived,
        network::LoadingFinished,
        network::LoadingFailed,
        log::EntryAdded,
        dom::DocumentUpdated,
        dom::SetChildNodes,
        accessibility::LoadComplete,
        accessibility::NodesUpdated,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_commands_and_events_decode_against_real_chromium() {
    let server = FixtureServer::start().await;
    server.route(
        "/index.html",
        "text/html",
        PAGE.replace("CROSS", &server.cross_site_url("/child.html")),
    );
    server.route("/child.html", "text/html", CHILD);
    let b = launch_test_browser().await;
    let root = b.connection().browser();
    let mut all_events = b.connection().events(EventFilter::all());
    root.send(&target::SetDiscoverTargets {
        discover: true,
        filter: None,
    })
    .await
    .unwrap();

    let (target_id, tab) = open_blank_page(&b).await.unwrap();
    let mut attached = tab.subscribe::<target::AttachedToTarget>();
    let mut loads = tab.subscribe::<page::LoadEventFired>();
    tab.send(&page::Enable).await.unwrap();
    tab.send(&page::SetLifecycleEventsEnabled { enabled: true })
        .await
        .unwrap();
    tab.send(&runtime::Enable).await.unwrap();
    tab.send(&network::Enable::default()).await.unwrap();
    tab.send(&log::Enable).await.unwrap();
    tab.send(&dom::Enable).await.unwrap();
    tab.send(&accessibility::Enable).await.unwrap();
    tab.send(&target::SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: Some(true),
        filter: None,
    })
    .await
    .unwrap();

    let nav = tab
        .send(&page::Navigate {
            url: server.url("/index.html"),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(nav.loader_id.is_some());

    // The cross-site iframe is an OOPIF under --site-per-process: it attaches paused.
    let child_ev = tokio::time::timeout(Duration::from_secs(15), attached.recv())
        .await
        .expect("OOPIF attached")
        .unwrap()
        .unwrap();
    assert_eq!(child_ev.target_info.r#type, "iframe");
    assert!(child_ev.waiting_for_debugger);
    let child = b.connection().session(child_ev.session_id.clone());
    // Auto-attach works on the child session too; then let it run.
    child
        .send(&target::SetAutoAttach {
            auto_attach: true,
            wait_for_debugger_on_start: true,
            flatten: Some(true),
            filter: None,
        })
        .await
        .unwrap();
    child.send(&page::Enable).await.unwrap();
    child.send(&runtime::RunIfWaitingForDebugger).await.unwrap();

    tokio::time::timeout(Duration::from_secs(15), loads.recv())
        .await
        .expect("load event")
        .unwrap()
        .unwrap();

    check_page_commands(&tab).await;
    check_child_session(&child, &server.cross_site_url("/child.html")).await;

    let version = root.send(&browser::GetVersion).await.unwrap();
    assert!(!version.user_agent.is_empty());
    let window = root
        .send(&browser::GetWindowForTarget {
            target_id: Some(target_id.clone()),
        })
        .await
        .unwrap();
    assert!(window.window_id > 0);
    let targets = root.send(&target::GetTargets::default()).await.unwrap();
    assert!(
        targets
            .target_infos
            .iter()
            .any(|t| t.r#type == "iframe" && t.target_id == child_ev.target_info.target_id)
    );

    // Every event seen so far of a typed kind decodes.
    let mut checked = 0;
    while let Some(ev) = all_events.try_recv() {
        match decode_known(&ev) {
            Ok(true) => checked += 1,
            Ok(false) => {}
            Err(e) => panic!("{} did not decode: {e}\n{}", ev.method, ev.params.get()),
        }
    }
    assert!(checked > 20, "only {checked} typed events seen");
    assert_eq!(all_events.dropped(), 0);
    b.close().await.unwrap();
}

async fn check_page_commands(tab: &Session) {
    let tree = tab.send(&page::GetFrameTree).await.unwrap();
    let kids = tree.frame_tree.child_frames.clone().unwrap_or_default();
    assert_eq!(
        kids.len(),
        1,
        "only the same-site iframe is in this session's tree"
    );
    assert!(tree.frame_tree.frame.security_origin.is_some());

    let doc = tab
        .send(&dom::GetDocument {
            depth: Some(-1),
            pierce: Some(true),
        })
        .await
        .unwrap();
    let mut iframes = Vec::new();
    collect(&doc.root, &mut |n| {
        if n.local_name == "iframe" {
            iframes.push(n.clone());
        }
    });
    assert_eq!(iframes.len(), 2);
    // The owner element carries frameId for same-site and cross-site frames alike.
    assert!(iframes.iter().all(|n| n.frame_id.is_some()));
    assert!(iframes.iter().any(|n| n.content_document.is_some()));
    let button = find(&doc.root, "b").expect("button");

    let resolved = tab
        .send(&dom::ResolveNode {
            backend_node_id: Some(button.backend_node_id),
            ..Default::default()
        })
        .await
        .unwrap();
    let object_id = resolved.object.object_id.clone().expect("object id");
    let described = tab
        .send(&dom::DescribeNode {
            object_id: Some(object_id.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(described.node.backend_node_id, button.backend_node_id);
    let called = tab
        .send(&runtime::CallFunctionOn {
            function_declaration: "function(x) { return this.id + x; }".into(),
            object_id: Some(object_id.clone()),
            arguments: Some(vec![runtime::CallArgument {
                value: Some(serde_json::json!("!")),
                ..Default::default()
            }]),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(called.result.value, Some(serde_json::json!("b!")));
    let props = tab
        .send(&runtime::GetProperties {
            object_id: object_id.clone(),
            own_properties: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    let _ = props.result.len();
    let boxes = tab
        .send(&dom::GetBoxModel {
            backend_node_id: Some(button.backend_node_id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(boxes.model.content.len(), 8);
    let quads = tab
        .send(&dom::GetContentQuads {
            backend_node_id: Some(button.backend_node_id),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(!quads.quads.is_empty());
    let owner = tab
        .send(&dom::GetFrameOwner {
            frame_id: kids[0].frame.id.clone(),
        })
        .await
        .unwrap();
    assert!(
        iframes
            .iter()
            .any(|n| n.backend_node_id == owner.backend_node_id)
    );

    // Click the button through Input at its centre.
    let q = &boxes.model.content;
    let (x, y) = ((q[0] + q[4]) / 2.0, (q[1] + q[5]) / 2.0);
    for ty in [
        input::MouseEventType::MousePressed,
        input::MouseEventType::MouseReleased,
    ] {
        tab.send(&input::DispatchMouseEvent {
            r#type: ty,
            x,
            y,
            button: Some(input::MouseButton::Left),
            click_count: Some(1),
            ..Default::default()
        })
        .await
        .unwrap();
    }
    let title = tab
        .send(&runtime::Evaluate {
            expression: "document.title".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(title.result.value, Some(serde_json::json!("clicked")));

    let hit = tab
        .send(&dom::GetNodeForLocation {
            x: x as i64,
            y: y as i64,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(hit.backend_node_id, button.backend_node_id);

    let ax = tab
        .send(&accessibility::GetFullAxTree::default())
        .await
        .unwrap();
    assert!(ax.nodes.iter().any(|n| {
        n.role.as_ref().and_then(|r| r.as_str()) == Some("button")
            && n.name.as_ref().and_then(|v| v.as_str()) == Some("Press")
    }));
    let child_ax = tab
        .send(&accessibility::GetFullAxTree {
            frame_id: Some(kids[0].frame.id.clone()),
            depth: None,
        })
        .await
        .unwrap();
    assert!(!child_ax.nodes.is_empty());

    let snap = tab
        .send(&dom_snapshot::CaptureSnapshot {
            computed_styles: vec!["display".into()],
            include_dom_rects: Some(true),
            include_paint_order: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(snap.documents.len() >= 2);
    assert!(snap.documents.iter().any(|d| {
        snap.string(d.document_url)
            .is_some_and(|u| u.ends_with("/index.html"))
    }));

    let metrics = tab.send(&page::GetLayoutMetrics).await.unwrap();
    assert!(metrics.css_layout_viewport.is_some());
    let shot = tab
        .send(&page::CaptureScreenshot {
            format: Some("png".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(shot.data.starts_with("iVBOR"), "base64 PNG");
    let history = tab.send(&page::GetNavigationHistory).await.unwrap();
    assert!(!history.entries.is_empty());
    let cookies = tab.send(&network::GetCookies::default()).await.unwrap();
    assert!(cookies.cookies.is_empty());
    tab.send(&emulation::SetDeviceMetricsOverride {
        width: 800,
        height: 600,
        device_scale_factor: 1.0,
        mobile: false,
        ..Default::default()
    })
    .await
    .unwrap();
    let search = tab
        .send(&dom::PerformSearch {
            query: "//button".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(search.result_count, 1);
    let found = tab
        .send(&dom::GetSearchResults {
            search_id: search.search_id.clone(),
            from_index: 0,
            to_index: 1,
        })
        .await
        .unwrap();
    assert_eq!(found.node_ids.len(), 1);
    tab.send(&dom::DiscardSearchResults {
        search_id: search.search_id,
    })
    .await
    .unwrap();

    // A stale backend node id gives the documented error.
    let err = tab
        .send(&dom::ResolveNode {
            backend_node_id: Some(cdp_protocol::BackendNodeId::new(987_654_321)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(err.is_node_not_found(), "{err}");
}

async fn check_child_session(child: &Session, expected_url: &str) {
    let tree = child.send(&page::GetFrameTree).await.unwrap();
    assert_eq!(tree.frame_tree.frame.url, expected_url);
    assert!(tree.frame_tree.frame.parent_id.is_some());
    let href = child
        .send(&runtime::Evaluate {
            expression: "location.href".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(href.result.value, Some(serde_json::json!(expected_url)));
    let ax = child
        .send(&accessibility::GetFullAxTree::default())
        .await
        .unwrap();
    assert!(
        ax.nodes
            .iter()
            .any(|n| n.role.as_ref().and_then(|r| r.as_str()) == Some("link"))
    );
    // The child's events are tagged with its session.
    let mut evs = child.link().events(
        EventFilter::methods(&["Runtime.executionContextCreated"])
            .session(SessionFilter::Only(child.id().cloned().unwrap())),
    );
    child.send(&runtime::Enable).await.unwrap();
    let ev = tokio::time::timeout(Duration::from_secs(5), evs.recv())
        .await
        .expect("context event")
        .unwrap();
    assert_eq!(ev.session_id.as_ref(), child.id());
    ev.decode::<runtime::ExecutionContextCreated>().unwrap();
}

fn collect(node: &dom::Node, f: &mut impl FnMut(&dom::Node)) {
    f(node);
    for kids in [&node.children, &node.shadow_roots, &node.pseudo_elements]
        .into_iter()
        .flatten()
    {
        for k in kids {
            collect(k, f);
        }
    }
    if let Some(doc) = &node.content_document {
        collect(doc, f);
    }
    if let Some(t) = &node.template_content {
        collect(t, f);
    }
}

fn find(node: &dom::Node, id: &str) -> Option<dom::Node> {
    let mut out = None;
    collect(node, &mut |n| {
        if out.is_none() && n.attribute("id") == Some(id) {
            out = Some(n.clone());
        }
    });
    out
}
