//! A browser tab on a fixture page, plus a test-only frame provider that also sees OOPIFs.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use a11y_snapshot::{
    CaptureOptions, FrameHandle, PageFrames, RefTable, SessionFrames, Snapshot, SnapshotError,
    SnapshotOptions, node_list, render_actionbook, take_snapshot,
};
use cdp_protocol::testing::{FixtureServer, launch_test_browser};
use cdp_protocol::{
    Browser, ExecutionContextId, FrameId, RemoteObjectId, Session, TargetId, page, runtime, target,
};

/// A launched browser with one tab on a fixture server.
pub struct Tab {
    pub browser: Browser,
    pub server: FixtureServer,
    pub session: Session,
    pub frames: Frames,
    pub refs: RefTable,
}

/// Same-process frames from the page session plus OOPIFs from auto-attach (a stand-in for frame-graph).
pub struct Frames {
    pub page: SessionFrames,
    pub oopifs: Mutex<Vec<(String, Session, String)>>,
    contexts: Mutex<HashMap<String, ExecutionContextId>>,
}

impl PageFrames for Frames {
    fn frames(&self) -> Vec<FrameHandle> {
        let mut out = self.page.frames();
        let next = out.iter().map(|f| f.frame_index).max().unwrap_or(0) + 1;
        let oopifs = self.oopifs.lock().unwrap().clone();
        for (i, (frame_id, session, url)) in oopifs.into_iter().enumerate() {
            out.push(FrameHandle {
                frame_id,
                frame_index: next + i as u32,
                parent_frame_id: out.first().map(|f| f.frame_id.clone()),
                owner_backend_node_id: None,
                url,
                session,
            });
        }
        out
    }

    async fn execution_context(
        &self,
        frame_id: &str,
        timeout: Duration,
    ) -> Result<ExecutionContextId, SnapshotError> {
        let oopif = self
            .oopifs
            .lock()
            .unwrap()
            .iter()
            .find(|o| o.0 == frame_id)
            .map(|o| o.1.clone());
        let Some(session) = oopif else {
            return self.page.execution_context(frame_id, timeout).await;
        };
        if let Some(c) = self.contexts.lock().unwrap().get(frame_id) {
            return Ok(*c);
        }
        let world = page::CreateIsolatedWorld {
            frame_id: FrameId::new(frame_id),
            world_name: Some("t".into()),
            grant_universal_access: None,
        };
        let id = session
            .send_timeout(&world, timeout)
            .await?
            .execution_context_id;
        self.contexts
            .lock()
            .unwrap()
            .insert(frame_id.to_string(), id);
        Ok(id)
    }

    fn forget_context(&self, frame_id: &str) {
        self.contexts.lock().unwrap().remove(frame_id);
        self.page.forget_context(frame_id);
    }
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
        let root = browser.connection().browser();
        let created = root
            .send(&target::CreateTarget {
                url: "about:blank".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        let session = root.attach_to_target(&created.target_id).await.unwrap();
        session.send(&page::Enable).await.unwrap();
        let frames = Frames {
            page: SessionFrames::new(session.clone()).await.unwrap(),
            oopifs: Mutex::new(Vec::new()),
            contexts: Mutex::new(HashMap::new()),
        };
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
        tokio::time::timeout(Duration::from_secs(15), loads.recv())
            .await
            .expect("load within 15 s");
        self.refs.reset();
        self.refresh().await;
    }

    /// Re-reads the frame tree and attaches to iframe targets (OOPIFs).
    pub async fn refresh(&self) {
        self.frames.page.refresh().await.unwrap();
        let root = self.browser.connection().browser();
        let targets = root.send(&target::GetTargets::default()).await.unwrap();
        let mut oopifs = Vec::new();
        for t in targets.target_infos {
            if t.r#type == "iframe" {
                let s = root
                    .attach_to_target(&TargetId::new(t.target_id.as_str()))
                    .await
                    .unwrap();
                oopifs.push((t.target_id.as_str().to_string(), s, t.url.clone()));
            }
        }
        *self.frames.oopifs.lock().unwrap() = oopifs;
        self.frames.contexts.lock().unwrap().clear();
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
