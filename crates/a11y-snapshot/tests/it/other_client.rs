//! The crate driven by another CDP client: the `tungstenite_client` example's adapter and flow,
//! on a page with an out-of-process iframe (localhost under 127.0.0.1, `--site-per-process`).

#[path = "../../examples/tungstenite_client/adapter.rs"]
mod adapter;
#[path = "../../examples/tungstenite_client/flow.rs"]
mod flow;

use a11y_snapshot::{SnapshotOptions, render_actionbook};
use cdp_protocol::testing::{FixtureServer, launch_test_browser};

const MAIN: &str = r#"<!doctype html><title>Other client</title><button id=top>Top button</button>
<iframe src="{{XSITE}}/inner.html" title="Cross-site frame" width=400 height=200></iframe>"#;
const INNER: &str =
    r#"<!doctype html><p>Inner text</p><button id=inner>Inner frame button</button>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_tungstenite_socket_snapshots_the_oopif_content() {
    let server = FixtureServer::start().await;
    let xsite = format!("http://localhost:{}", server.port());
    server.route(
        "/main.html",
        "text/html; charset=utf-8",
        MAIN.replace("{{XSITE}}", &xsite).into_bytes(),
    );
    server.route("/inner.html", "text/html; charset=utf-8", INNER);
    // The launched browser's own connection only keeps the process; the flow opens its own socket.
    let browser = launch_test_browser().await;
    let ws_url = browser.connection().url().to_owned();
    let snap = flow::snapshot_page(&ws_url, &server.url("/main.html")).await;
    let _ = browser.close().await;
    let snap = snap.expect("snapshot over the adapter");
    let text = render_actionbook(&snap, &SnapshotOptions::default());
    assert!(text.contains("button \"Top button\""), "{text}");
    assert!(text.contains("button \"Inner frame button\""), "{text}");
    assert!(text.contains("Inner text"), "{text}");
    // The inner frame came from its own (auto-attached) session: it really was out of process.
    let inner = snap
        .frames
        .iter()
        .find(|f| f.url.starts_with(&xsite))
        .unwrap_or_else(|| panic!("no localhost frame in {:?}", snap.frames.len()));
    assert!(
        inner.session_id.is_some(),
        "the localhost frame is an OOPIF"
    );
}
