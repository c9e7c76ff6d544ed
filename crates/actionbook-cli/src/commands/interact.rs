//! `browser snapshot`, `click`, `fill`: across every frame, with refs persisted per tab.

use std::time::Duration;

use a11y_snapshot::{RefTable, SnapshotOptions, node_list, render_actionbook};
use envelope::{
    ActionData, ActionKind, Changed, InputData, InputKind, SnapshotData, SnapshotNode,
    SnapshotStats, Target, ValueSummary,
};
use serde_json::json;

use crate::args::{self, TabTarget};
use crate::browser;
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::{CliError, Result};
use crate::page_frames;
use crate::state;

fn refs_path(cx: &TabCx<'_>) -> std::path::PathBuf {
    cx.session.dir.join(format!("refs-{}.json", cx.tab_id))
}

/// Loads the tab's ref table and frame map from disk the first time (a new daemon re-attaching).
fn load(cx: &mut TabCx<'_>) {
    if cx.state.extra.frames.refs.is_some() {
        return;
    }
    let refs = std::fs::read(refs_path(cx))
        .ok()
        .and_then(|b| RefTable::from_json(&b).ok())
        .unwrap_or_default();
    cx.state.extra.frames.refs = Some(refs);
}

fn save(cx: &TabCx<'_>) -> Result<()> {
    if let Some(refs) = &cx.state.extra.frames.refs {
        state::write_atomic(&refs_path(cx), &refs.to_json())?;
    }
    Ok(())
}

fn main_frame(cx: &TabCx<'_>) -> String {
    cx.session
        .record()
        .tab(&cx.tab_id)
        .map(|t| t.target_id.clone())
        .unwrap_or_default()
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

impl TabCommand for args::Snapshot {
    type Data = SnapshotData;
    const READ_ONLY: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<SnapshotData>> {
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let snap = tokio::time::timeout(
            call.remaining(),
            page_frames::snapshot(&mut cx.state.extra.frames, &page, &call),
        )
        .await
        .map_err(|_| call.timeout("browser snapshot"))??;
        save(cx)?;
        let subtree = match &self.selector {
            Some(sel) => {
                let found =
                    page_frames::resolve(&mut cx.state.extra.frames, &page, sel, &call).await?;
                Some(found.encoded)
            }
            None => None,
        };
        let opts = SnapshotOptions {
            interactive_only: self.interactive,
            cursor: true,
            compact: self.compact,
            max_depth: self.depth,
            subtree,
        };
        let text = render_actionbook(&snap, &opts);
        let path = cx.session.dir.join(format!("snapshot_{}.yaml", now_ms()));
        state::write_atomic(&path, text.as_bytes()).map_err(|source| CliError::ArtifactWrite {
            path: path.display().to_string(),
            source,
        })?;
        let (nodes, stats) = node_list(&snap, &opts);
        let nodes = nodes
            .into_iter()
            .map(|n| SnapshotNode {
                ref_id: n.reference.to_string(),
                role: n.role,
                name: n.name,
                value: n.value,
            })
            .collect();
        Ok(Done::data(SnapshotData::new(
            path.display().to_string(),
            nodes,
            SnapshotStats {
                node_count: stats.node_count as u64,
                interactive_count: stats.interactive_count as u64,
            },
        )))
    }
}

const NAV_START: &[&str] = &[
    "Page.frameRequestedNavigation",
    "Page.frameStartedLoading",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
];

impl TabCommand for args::Click {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let (before, _) = cx.page_info().await?;
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let main = main_frame(cx);
        let tf = &mut cx.state.extra.frames;
        let found = page_frames::resolve(tf, &page, &self.selector, &call).await?;
        let (x, y) = page_frames::click_point(tf, &page, &found, &self.selector, &call).await?;
        let mut events = page.events(NAV_START);
        page_frames::mouse_click(&page, x, y, &call).await?;
        // A click that navigates: wait for the new page (bounded by --timeout).
        // A link's navigation request is reported before (or right after) the input ack.
        let quiet = tokio::time::Instant::now() + Duration::from_millis(15);
        let mut navigating = false;
        while let Ok(Some(ev)) = tokio::time::timeout_at(quiet, events.recv()).await {
            let p: serde_json::Value = serde_json::from_str(ev.params.get()).unwrap_or_default();
            let frame = p["frameId"]
                .as_str()
                .or_else(|| p["frame"]["id"].as_str())
                .unwrap_or_default();
            if frame == main {
                navigating = true;
                break;
            }
        }
        if navigating {
            let mut load_events = page.events(&["Page.loadEventFired"]);
            let _ = tokio::time::timeout(call.remaining(), async {
                // Let the commit happen, then wait for the load.
                tokio::time::sleep(Duration::from_millis(20)).await;
                browser::wait_loaded(&page, &mut load_events, &call, "browser click").await
            })
            .await;
        }
        let (after, title) = browser::page_info(&page, &call).await?;
        let focus = found
            .session
            .call_timeout(
                "Runtime.callFunctionOn",
                json!({
                    "objectId": found.object_id,
                    "functionDeclaration": "function(){ const a = this.ownerDocument && this.ownerDocument.activeElement; return !!a && (a === this || this.contains(a)); }",
                    "returnByValue": true,
                }),
                Duration::from_secs(2),
            )
            .await
            .ok()
            .and_then(|v| v["result"]["value"].as_bool())
            .unwrap_or(false);
        cx.url = Some(after.clone());
        cx.title = Some(title);
        Ok(Done::data(ActionData {
            action: ActionKind::Click,
            target: Some(Target::selector(self.selector)),
            destination: None,
            keys: None,
            direction: None,
            pixels: None,
            changed: Changed {
                url_changed: after != before,
                focus_changed: focus,
                scroll_changed: None,
            },
        }))
    }
}

impl TabCommand for args::Fill {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let found =
            page_frames::resolve(&mut cx.state.extra.frames, &page, &self.selector, &call).await?;
        page_frames::fill(&page, &found, &self.selector, &self.text, &call).await?;
        Ok(Done::data(InputData {
            action: InputKind::Fill,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Text {
                text_length: self.text.chars().count() as u64,
            },
        }))
    }
}
