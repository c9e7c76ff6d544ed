//! frame-graph and a11y-snapshot driven by another CDP client: a plain tokio-tungstenite socket
//! wrapped in a small adapter ([`adapter::Tungstenite`], a `cdp_protocol::Transport`), not
//! cdp-protocol's own connection.
//!
//! ```text
//! chromium --headless=new --site-per-process --remote-debugging-port=9222 &
//! curl -s http://127.0.0.1:9222/json/version   # its webSocketDebuggerUrl
//! cargo run -p actionbook-a11y-snapshot --example tungstenite_client -- \
//!     ws://127.0.0.1:9222/devtools/browser/<id> http://127.0.0.1:8000/
//! ```

mod adapter;
mod flow;

use a11y_snapshot::{SnapshotOptions, render_actionbook};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(ws_url), Some(page_url)) = (args.next(), args.next()) else {
        eprintln!("usage: tungstenite_client <webSocketDebuggerUrl> <page URL>");
        std::process::exit(2);
    };
    match flow::snapshot_page(&ws_url, &page_url).await {
        Ok(snapshot) => println!(
            "{}",
            render_actionbook(&snapshot, &SnapshotOptions::default())
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
