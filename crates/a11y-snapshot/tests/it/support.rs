//! A browser tab on a fixture page, frames tracked by frame-graph.

use std::time::Duration;

use a11y_snapshot::{
    CaptureOptions, RefTable, Snapshot, SnapshotOptions, node_list, render_actionbook,
    take_snapshot,
};
use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{Browser, RemoteObjectId, Session, page, runtime};
use frame_graph::{FrameGraph, FrameGraphOptions};

/// A launched browser with one tab on a fixture server, its frames tracked by frame-graph.
pub struct Tab {
    pub browser: Browser,
    pub server: FixtureServer,
    pub session: Session,
    pub frames: FrameGraph,
    pub refs: RefTable,
}

impl Tab {
    /// Launches Chromium, serves `pages` (path, html), opens `first`.
    pub async fn open(pages: &[(&str, &str)], first: &str) -> Tab {
        let server = FixtureServer::start().await;
        for (path, html) in pages {
            server.route(
                path,
                "text/html; charset=utf-8",
                html.replace("{{XSITE}}", &format!("http://localhost:{}", server.port()))
                    .into_bytes(),
            );
        }
        let browser = launch_test_browser().await;
        let (_, session) = open_blank_page(&browser).await.unwrap();
        session.send(&page::Enable).await.unwrap();
        let frames = FrameGraph::attach(session.clone(), FrameGraphOptions::default())
            .await
            .unwrap();
        let mut tab = Tab {
            browser,
            server,
            session,
            frames,
            refs: RefTable::new(),
        };
        tab.goto(first).await;
        tab
    }

    /// Navigates, waits for load, refreshes frames (and attaches OOPIFs), resets refs like `goto` does.
    pub async fn goto(&mut self, path: &str) {
        let mut loads = self.session.subscribe::<page::LoadEventFired>();
        let url = self.server.url(path);
        self.session
            .send(&page::Navigate {
                url,
                ..Default::default()
            })
            .await
            .unwrap();
        tokio::time::timeout(Duration::from_secs(60), loads.recv())
            .await
            .expect("load within 60 s");
        self.refs.reset();
        self.refresh().await;
    }

    /// Makes sure the frame graph has caught up with the page. frame-graph's sync decodes
    /// `DOM.getDocument` into cdp-protocol's strict types, which reject lone surrogates in text
    /// nodes; the snapshot itself does not depend on it, so a failure is only reported.
    pub async fn refresh(&self) {
        if let Err(e) = self.frames.sync().await {
            eprintln!("frame-graph sync: {e}");
        }
    }

    pub async fn snapshot(&mut self) -> Snapshot {
        take_snapshot(&self.frames, &mut self.refs, &CaptureOptions::default())
            .await
            .unwrap()
    }

    pub async fn eval(&self, js: &str) -> serde_json::Value {
        let r = self
            .session
            .send(&runtime::Evaluate {
                expression: js.into(),
                return_by_value: Some(true),
                await_promise: Some(true),
                ..Default::default()
            })
            .await
            .unwrap();
        assert!(
            r.exception_details.is_none(),
            "{js}: {:?}",
            r.exception_details
        );
        r.result.value.unwrap_or(serde_json::Value::Null)
    }

    /// Calls `fn` on a resolved node and returns the value.
    pub async fn call_on(
        &self,
        session: &Session,
        object_id: &RemoteObjectId,
        function: &str,
    ) -> serde_json::Value {
        let r = session
            .send(&runtime::CallFunctionOn {
                function_declaration: function.into(),
                object_id: Some(object_id.clone()),
                return_by_value: Some(true),
                ..Default::default()
            })
            .await
            .unwrap();
        r.result.value.unwrap_or(serde_json::Value::Null)
    }

    pub async fn close(self) {
        let _ = self.browser.close().await;
    }
}

/// Full Actionbook text with default options.
pub fn text(s: &Snapshot) -> String {
    render_actionbook(s, &SnapshotOptions::default())
}

/// The ref of the node listed with this role and name.
pub fn ref_of(s: &Snapshot, role: &str, name: &str) -> a11y_snapshot::Ref {
    let (nodes, _) = node_list(s, &SnapshotOptions::default());
    nodes
        .iter()
        .find(|n| n.role == role && n.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", text(s)))
        .reference
}
