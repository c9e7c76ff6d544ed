//! What the example does with the adapter: open a tab, track its frames with frame-graph,
//! take one snapshot with a11y-snapshot (shared with the crate's test, which runs it on Chromium).

use std::time::Duration;

use a11y_snapshot::{CaptureOptions, RefTable, Snapshot, take_snapshot};
use cdp_protocol::{Link, page, target};
use frame_graph::{FrameGraph, FrameGraphOptions};

use super::adapter::Tungstenite;

/// The deadline of each call and of the page load.
const DEADLINE: Duration = Duration::from_secs(30);

/// Opens `page_url` in a new tab of the browser at `ws_url` over a plain tokio-tungstenite
/// socket, snapshots every frame of it (OOPIFs included) and closes the tab.
pub async fn snapshot_page(
    ws_url: &str,
    page_url: &str,
) -> Result<Snapshot, Box<dyn std::error::Error>> {
    let link = Link::over(Tungstenite::connect(ws_url).await?, DEADLINE);
    let root = link.browser();
    let tab = root
        .send(&target::CreateTarget {
            url: "about:blank".into(),
            ..Default::default()
        })
        .await?;
    let session = root.attach_to_target(&tab.target_id).await?;
    let mut loads = session.subscribe::<page::LoadEventFired>();
    session.send(&page::Enable).await?;
    let frames = FrameGraph::attach(session.clone(), FrameGraphOptions::default()).await?;
    session
        .send(&page::Navigate {
            url: page_url.into(),
            ..Default::default()
        })
        .await?;
    tokio::time::timeout(DEADLINE, loads.recv())
        .await
        .map_err(|_| format!("{page_url} did not load within {DEADLINE:?}"))?;
    frames.sync().await?;
    let snapshot = take_snapshot(&frames, &mut RefTable::new(), &CaptureOptions::default()).await;
    let closed = root
        .send(&target::CloseTarget {
            target_id: tab.target_id,
        })
        .await;
    let snapshot = snapshot?;
    closed?;
    Ok(snapshot)
}
