//! Shared helpers: a browser per test, a fixture server, page helpers and bounded waits.

use cdp_protocol::testing::{FixtureServer, launch_test_browser};
use cdp_protocol::{Connection, Session, SessionId, TargetId};
use frame_graph::{FrameGraph, FrameGraphOptions, FrameInfo};
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;

pub const T: Duration = Duration::from_secs(10);

/// The fixture server (127.0.0.1, and localhost as a second site), HTML routes only.
pub struct Server(FixtureServer);

impl Server {
    pub async fn start() -> Server {
        Server(FixtureServer::start().await)
    }

    pub fn route(&self, path: &str, body: &str) {
        self.0
            .route(path, "text/html; charset=utf-8", body.as_bytes().to_vec());
    }

    /// An HTML route that may be kept in the back/forward cache (the default answers carry
    /// `Cache-Control: no-store`, which keeps a page out of it).
    #[allow(dead_code)]
    pub fn route_cacheable(&self, path: &str, body: &str) {
        self.0.route_with(
            path,
            "200 OK",
            &[("Cache-Control", "no-cache")],
            "text/html; charset=utf-8",
            body.as_bytes().to_vec(),
        );
    }

    /// Same-site URL (127.0.0.1).
    pub fn url(&self, path: &str) -> String {
        self.0.url(path)
    }

    /// Cross-site URL (localhost): an OOPIF under --site-per-process.
    pub fn cross(&self, path: &str) -> String {
        self.0.cross_site_url(path)
    }

    /// `location.host` of the cross-site pages.
    pub fn cross_host(&self) -> String {
        format!("localhost:{}", self.0.port())
    }
}

/// The standard test browser (headless, --site-per-process, fresh profile).
pub struct Browser {
    browser: cdp_protocol::Browser,
    pub conn: Connection,
}

impl Browser {
    pub async fn launch() -> Browser {
        let browser = launch_test_browser().await;
        let conn = browser.connection().clone();
        Browser { browser, conn }
    }

    /// A new tab at about:blank, attached with a flat session.
    pub async fn new_page(&self) -> Session {
        let r = self
            .conn
            .browser()
            .call("Target.createTarget", json!({"url": "about:blank"}))
            .await
            .expect("createTarget");
        let id = r["targetId"].as_str().expect("targetId").to_owned();
        self.conn
            .browser()
            .attach_to_target(&TargetId::new(id))
            .await
            .expect("attach")
    }

    /// Closes the browser and reaps every process it started.
    pub async fn close(self) {
        self.browser.close().await.expect("close browser");
    }
}

/// Navigates and waits (bounded) for the load event.
pub async fn goto(page: &Session, url: &str) {
    let mut loads = page.events(&["Page.loadEventFired"]);
    page.call("Page.enable", json!({}))
        .await
        .expect("Page.enable");
    page.call("Page.navigate", json!({"url": url}))
        .await
        .expect("navigate");
    tokio::time::timeout(T, loads.recv())
        .await
        .expect("load event");
}

/// Evaluates in the page's main world and returns the value.
#[allow(dead_code)]
pub async fn eval(page: &Session, expr: &str) -> Value {
    let r = page
        .call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        )
        .await
        .expect("evaluate");
    assert!(r.get("exceptionDetails").is_none(), "exception: {r}");
    r["result"]["value"].clone()
}

/// Evaluates in a frame's default world (on the frame's own session).
pub async fn eval_in(graph: &FrameGraph, frame: &cdp_protocol::FrameId, expr: &str) -> Value {
    let session = graph.session_for(frame).expect("session for frame");
    let ctx = graph
        .execution_context_for(frame, T)
        .await
        .expect("context");
    let r = session
        .call(
            "Runtime.evaluate",
            json!({"expression": expr, "contextId": ctx.get(), "returnByValue": true, "awaitPromise": true}),
        )
        .await
        .expect("evaluate in frame");
    assert!(r.get("exceptionDetails").is_none(), "exception: {r}");
    r["result"]["value"].clone()
}

/// The backendNodeId of `selector` in `frame`'s document, asked independently of the graph.
pub async fn backend_id_in(
    graph: &FrameGraph,
    frame: &cdp_protocol::FrameId,
    selector: &str,
) -> i64 {
    let session = graph.session_for(frame).expect("session for frame");
    let ctx = graph
        .execution_context_for(frame, T)
        .await
        .expect("context");
    let r = session
        .call(
            "Runtime.evaluate",
            json!({"expression": format!("document.querySelector({selector:?})"), "contextId": ctx.get()}),
        )
        .await
        .expect("evaluate");
    let object_id = r["result"]["objectId"]
        .as_str()
        .expect("element found")
        .to_owned();
    let d = session
        .call("DOM.describeNode", json!({"objectId": object_id}))
        .await
        .expect("describeNode");
    d["node"]["backendNodeId"].as_i64().expect("backendNodeId")
}

/// Like [`wait_for`], printing `state()` when the wait times out.
pub async fn wait_for_or<R, F, Fut>(what: &str, mut check: F, state: impl Fn() -> String) -> R
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<R>>,
{
    let deadline = tokio::time::Instant::now() + T;
    loop {
        if let Some(r) = check().await {
            return r;
        }
        if tokio::time::Instant::now() > deadline {
            panic!("timed out waiting for {what}; state: {}", state());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Polls `check` until it returns Some, at most `T`.
pub async fn wait_for<R, F, Fut>(what: &str, mut check: F) -> R
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<R>>,
{
    let deadline = tokio::time::Instant::now() + T;
    loop {
        if let Some(r) = check().await {
            return r;
        }
        if tokio::time::Instant::now() > deadline {
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The frame whose URL ends with `suffix`.
pub fn by_url(graph: &FrameGraph, suffix: &str) -> Option<FrameInfo> {
    graph.frames().into_iter().find(|f| f.url.ends_with(suffix))
}

/// Attaches a graph to the page.
pub async fn graph(page: &Session) -> FrameGraph {
    FrameGraph::attach(page.clone(), FrameGraphOptions::default())
        .await
        .expect("attach graph")
}

/// The page session id (for comparisons).
pub fn sid(page: &Session) -> Option<SessionId> {
    page.id().cloned()
}

/// The target id of a page session's tab.
pub async fn page_target(browser: &Browser, page: &Session) -> TargetId {
    let r = page
        .call("Target.getTargetInfo", json!({}))
        .await
        .expect("getTargetInfo");
    let _ = browser;
    TargetId::new(r["targetInfo"]["targetId"].as_str().expect("targetId"))
}

/// An expression giving the first text of `<body>`, once the document has been parsed.
pub const BODY_TEXT: &str = "new Promise(r => { const t = () => r(document.body.firstChild.textContent); \
     document.readyState === 'loading' ? addEventListener('DOMContentLoaded', t) : t(); })";
