//! Scenario 10: an OOPIF whose `Target.attachedToTarget` the graph lost (its event queue was
//! full) would wait paused forever; the graph finds it, resumes it and tracks it.

use crate::support::*;
use cdp_protocol::{EventFilter, target::AttachedToTarget};
use frame_graph::{FrameGraph, FrameGraphOptions};
use std::collections::HashMap;
use std::time::Duration;

/// `churn(insert)`: adds and removes blank iframes (each gives `Page.frameAttached`,
/// `Page.frameDetached` and context events) in 150 small tasks, calling `insert` after the 20th,
/// so events keep coming before and while the cross-site iframe's target is attached. The tasks
/// are posted as messages, which (unlike timers) Chromium does not throttle.
const CHURN: &str = r#"window.churn = (insert) => {
    let n = 0;
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
        const f = document.createElement('iframe');
        document.body.appendChild(f);
        f.remove();
        if (++n === 20) insert();
        if (n < 150) ch.port2.postMessage(0);
    };
    ch.port2.postMessage(0);
}; 1"#;

/// Iframes inserted per browser before trying a fresh browser.
const ATTEMPTS: usize = 4;
/// Browsers tried: whether the attach event is among the lost ones depends on timing, and in
/// about one run in ten a browser kept it through every attempt (cause not found).
const BROWSERS: usize = 3;

/// The attach event of a cross-site iframe is lost (deterministically: the graph's fault
/// injection drops it as a full queue would); the target waits paused until the graph finds it,
/// has it announced again, resumes and tracks it.
#[tokio::test]
async fn an_oopif_whose_attach_event_was_lost_is_resumed_and_tracked() {
    let server = Server::start().await;
    server.route("/", "<body>main</body>");
    server.route("/child.html", "<body>child</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let options = FrameGraphOptions::default().lose_attach_events(1);
    let graph = FrameGraph::attach(page.clone(), options)
        .await
        .expect("attach graph");
    let mut announced = browser
        .conn
        .events(EventFilter::methods(&["Target.attachedToTarget"]).capacity(1000));
    let src = server.cross("/child.html");
    eval(
        &page,
        &format!(
            "const f = document.createElement('iframe'); f.id = 'x'; f.src = '{src}'; document.body.appendChild(f); 1"
        ),
    )
    .await;
    let frame = tracked_oopif(&graph, "/child.html").await;
    assert!(
        graph.recovered_targets() > 0,
        "the recovery brought it back"
    );
    // Its content loaded (it is not paused) and evaluates on its own session.
    let text = tokio::time::timeout(T, eval_in(&graph, &frame.frame_id, BODY_TEXT))
        .await
        .expect("evaluate in the OOPIF");
    assert_eq!(text, "child");
    assert_ne!(frame.session_id, sid(&page));
    let owner = backend_id_in(&graph, &graph.main_frame().frame_id, "#x").await;
    assert_eq!(frame.owner_backend_node_id.map(|o| o.get()), Some(owner));
    // Chromium announced it twice: the lost announcement, then the one the recovery asked for.
    let mut sessions = Vec::new();
    while let Some(ev) = announced.try_recv() {
        let e: AttachedToTarget = ev.decode().expect("attachedToTarget");
        if e.target_info.target_id.as_str() == frame.frame_id.as_str() {
            sessions.push(e.session_id.as_str().to_owned());
        }
    }
    assert!(sessions.len() >= 2, "announced {sessions:?}");
    assert_ne!(
        sessions.first().map(String::as_str),
        frame.session_id.as_ref().map(|s| s.as_str()),
        "tracked under the re-announced session"
    );
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}

// One runtime thread, which the test blocks for a moment: the socket task then finds the
// piled-up events at once and offers them faster than the graph's task can take them.
// Timing-dependent (whether the attach event is among the lost ones varies by machine), so it is
// a stress test to run by hand: `cargo test -p actionbook-frame-graph -- --ignored real_overflow`.
#[tokio::test]
#[ignore = "timing-dependent stress test; the deterministic variant runs always"]
async fn an_oopif_whose_attach_event_was_lost_under_real_overflow_is_resumed_and_tracked() {
    let server = Server::start().await;
    server.route("/", "<body>main</body>");
    for i in 0..ATTEMPTS {
        server.route(
            &format!("/child{i}.html"),
            &format!("<body>child{i}</body>"),
        );
    }
    let mut dropped = Vec::new();
    for _ in 0..BROWSERS {
        match lose_an_attach_event(&server).await {
            Ok(()) => return,
            Err(n) => dropped.push(n),
        }
    }
    panic!(
        "no attach event was lost in {BROWSERS} browsers x {ATTEMPTS} attempts (events dropped: {dropped:?})"
    );
}

/// In a fresh browser, inserts cross-site iframes amid bursts of events until the graph loses
/// one's attach event, then checks the recovery. `Err(events dropped)` when no attach event
/// was lost (the browser is closed either way).
async fn lose_an_attach_event(server: &Server) -> Result<(), u64> {
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    // A short queue: the events piled up while the test blocks overflow it, while the graph's
    // own recovery (a few events at a time) mostly gets through.
    let options = FrameGraphOptions::default().event_capacity(1);
    let graph = FrameGraph::attach(page.clone(), options)
        .await
        .expect("attach graph");
    eval(&page, CHURN).await;
    // Our own record of what Chromium announced (a queue that does not overflow).
    let mut announced = browser
        .conn
        .events(EventFilter::methods(&["Target.attachedToTarget"]).capacity(100_000));
    let mut first_session: HashMap<String, String> = HashMap::new();

    // Whether the attach event itself is among those lost depends on timing: insert an iframe
    // (removing the previous one) until the graph reports it recovered a lost target. Every
    // one must load and be tracked either way.
    let mut attempts = 0;
    let mut last = None;
    while graph.recovered_targets() == 0 && attempts < ATTEMPTS {
        if let Some(previous) = last.take() {
            eval(&page, "document.querySelector('iframe').remove()").await;
            let gone = |f: &frame_graph::FrameInfo| graph.frame(&f.frame_id).is_none();
            wait_for("previous iframe gone", || {
                let ok = gone(&previous);
                async move { ok.then_some(()) }
            })
            .await;
        }
        let id = format!("x{attempts}");
        let src = server.cross(&format!("/child{attempts}.html"));
        // The iframe goes in early in the churn (after more events than the queue holds).
        let insert = format!(
            r#"churn(() => {{ const f = document.createElement('iframe');
                f.id = '{id}'; f.src = '{src}'; document.body.appendChild(f); }})"#
        );
        eval(&page, &insert).await;
        // Deliberately block the only runtime thread while the iframe's target is attached and
        // the churn goes on: those events pile up unread.
        std::thread::sleep(Duration::from_millis(1500));
        let suffix = format!("/child{attempts}.html");
        // A recovery may still be replacing sessions: the helper syncs, which waits for it.
        let frame = tracked_oopif(&graph, &suffix).await;
        assert!(frame.is_out_of_process, "{frame:?}");
        // Its content loaded (it is not paused) and evaluates on its own session.
        let text = tokio::time::timeout(T, eval_in(&graph, &frame.frame_id, BODY_TEXT))
            .await
            .expect("evaluate in the OOPIF");
        assert_eq!(text, format!("child{attempts}"));
        let session = graph.session_for(&frame.frame_id).expect("session");
        assert_eq!(session.id(), frame.session_id.as_ref());
        assert_ne!(frame.session_id, sid(&page));
        let main = graph.main_frame();
        assert_eq!(frame.parent_frame_id.as_ref(), Some(&main.frame_id));
        let owner = backend_id_in(&graph, &main.frame_id, &format!("#{id}")).await;
        assert_eq!(frame.owner_backend_node_id.map(|o| o.get()), Some(owner));
        last = Some(frame);
        attempts += 1;
    }
    if graph.recovered_targets() == 0 {
        let dropped = graph.dropped_events();
        graph.shutdown();
        browser.close().await;
        return Err(dropped);
    }
    assert!(graph.dropped_events() > 0, "the queue never overflowed");
    let last = last.expect("an iframe was inserted");
    // The iframe runs under another session than the one Chromium first announced for it: the
    // graph missed that announcement and had the target announced again.
    while let Some(ev) = announced.try_recv() {
        let e: AttachedToTarget = ev.decode().expect("attachedToTarget");
        first_session
            .entry(e.target_info.target_id.as_str().to_owned())
            .or_insert_with(|| e.session_id.as_str().to_owned());
    }
    let first = first_session.get(last.frame_id.as_str()).cloned();
    assert!(first.is_some(), "Chromium announced the iframe");
    assert_ne!(
        first,
        last.session_id.as_ref().map(|s| s.as_str().to_owned())
    );

    // The page is the main frame and that iframe, with its OOPIF session.
    tokio::time::timeout(Duration::from_secs(20), graph.sync())
        .await
        .expect("sync bounded")
        .expect("sync");
    let frames = graph.frames();
    let ids: Vec<_> = frames
        .iter()
        .map(|f| (f.frame_id.clone(), f.url.clone()))
        .collect();
    assert_eq!(
        ids,
        vec![
            (graph.main_frame().frame_id, server.url("/")),
            (last.frame_id.clone(), last.url.clone())
        ]
    );
    assert_eq!(frames[1].session_id, last.session_id);
    assert_eq!(frames[1].frame_index, last.frame_index);
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
    Ok(())
}

/// The OOPIF loaded from a URL ending in `suffix`, once the graph tracks it under its own session
/// with its owner, after a `sync` (which waits for a running recovery).
async fn tracked_oopif(graph: &FrameGraph, suffix: &str) -> frame_graph::FrameInfo {
    let frame = wait_for_or(
        "the OOPIF tracked with its own session",
        || {
            let f = by_url(graph, suffix)
                .filter(|f| f.is_out_of_process && f.owner_backend_node_id.is_some());
            async move { f }
        },
        || format!("{:#?}", graph.frames()),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(20), graph.sync())
        .await
        .expect("sync bounded")
        .expect("sync");
    graph.frame(&frame.frame_id).expect("still tracked")
}
