//! Frames of a tab for snapshot and actions, on top of `frame-graph` (every frame, OOPIFs included,
//! kept current by CDP events) and `a11y-snapshot` (capture, refs, resolution): the CLI adds the
//! per-tab state, page coordinates for clicks and the real input events for click and fill.

use std::time::Duration;

use a11y_snapshot::{
    CaptureOptions, Known, RefTable, ResolveOptions, Snapshot, SnapshotError, Target,
};
use frame_graph::{FrameGraph, FrameGraphError, FrameGraphOptions};
use serde_json::{Value, json};

use crate::cdp::{CdpError, FrameId, Session};
use crate::engine::Call;
use crate::error::{CliError, Result};

/// Per-tab state of this layer.
#[derive(Debug, Default)]
pub(crate) struct TabFrames {
    /// The ref table, loaded lazily from disk.
    pub refs: Option<RefTable>,
    /// The frame graph of the tab's current page session (keyed by that session's id).
    graph: Option<(String, FrameGraph)>,
}

fn cap(call: &Call, d: Duration) -> Duration {
    call.remaining().min(d)
}

/// Maps frame-graph errors to the CLI's.
pub(crate) fn graph_error(e: FrameGraphError) -> CliError {
    match e {
        FrameGraphError::Cdp(c) => CliError::Cdp(c),
        FrameGraphError::FrameNotFound { .. } => CliError::FrameNotFound(e.to_string()),
        other => CliError::Internal(other.to_string()),
    }
}

/// Maps snapshot errors to the CLI's; `selector` is what the user gave.
pub(crate) fn snapshot_error(e: SnapshotError, selector: &str) -> CliError {
    match e {
        SnapshotError::RefNotFound { .. }
        | SnapshotError::NotFound { .. }
        | SnapshotError::UnknownEncodedId { .. } => CliError::ElementNotFound {
            selector: selector.to_string(),
        },
        SnapshotError::Stale { .. } => CliError::Stale(e.to_string()),
        SnapshotError::InvalidSelector { .. }
        | SnapshotError::InvalidRef { .. }
        | SnapshotError::InvalidEncodedId { .. }
        | SnapshotError::InvalidXPath { .. } => {
            // Browser messages carry a JS stack; the first line says it all.
            let msg = e.to_string();
            CliError::InvalidArgument(msg.lines().next().unwrap_or_default().to_string())
        }
        SnapshotError::FrameNotFound { .. } => CliError::FrameNotFound(e.to_string()),
        SnapshotError::Cdp(c) => CliError::Cdp(c),
        SnapshotError::FrameGraph(g) => graph_error(g),
        other => CliError::Internal(other.to_string()),
    }
}

impl TabFrames {
    /// The tab's frame graph, attached on first use and after the page session changed.
    pub async fn graph(&mut self, page: &Session, call: &Call) -> Result<FrameGraph> {
        let key = page.id().map(|s| s.to_string()).unwrap_or_default();
        if let Some((k, g)) = &self.graph
            && *k == key
            && !g.is_detached()
        {
            return Ok(g.clone());
        }
        if let Some((_, old)) = self.graph.take() {
            old.shutdown();
        }
        let attach = FrameGraph::attach(page.clone(), FrameGraphOptions::default());
        let g = tokio::time::timeout(cap(call, Duration::from_secs(20)), attach)
            .await
            .map_err(|_| call.timeout("tracking the page's frames"))?
            .map_err(graph_error)?;
        self.graph = Some((key, g.clone()));
        Ok(g)
    }
}

/// Captures every frame and builds the snapshot, numbering refs in the tab's table.
pub(crate) async fn snapshot(tf: &mut TabFrames, page: &Session, call: &Call) -> Result<Snapshot> {
    let g = tf.graph(page, call).await?;
    let mut refs = tf.refs.take().unwrap_or_default();
    let opts = CaptureOptions {
        timeout: cap(call, Duration::from_secs(30)),
        ..CaptureOptions::default()
    };
    let r = a11y_snapshot::take_snapshot(&g, &mut refs, &opts).await;
    tf.refs = Some(refs);
    r.map_err(|e| snapshot_error(e, ""))
}

/// A node found for an action.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// The session owning the node's frame.
    pub session: Session,
    /// A remote object for the node.
    pub object_id: String,
    /// The node's frame.
    pub frame_id: String,
    /// Its encoded id (`<frameIndex>-<backendNodeId>`).
    pub encoded: a11y_snapshot::EncodedId,
}

/// Resolves `@eN`, an encoded id, a CSS selector or an XPath to a live node in any frame.
pub(crate) async fn resolve(
    tf: &mut TabFrames,
    page: &Session,
    selector: &str,
    call: &Call,
) -> Result<Found> {
    let g = tf.graph(page, call).await?;
    let target = Target::parse(selector).map_err(|e| snapshot_error(e, selector))?;
    let known = Known {
        refs: tf.refs.as_ref(),
        snapshot: None,
    };
    let opts = ResolveOptions {
        search_frames: true,
        timeout: cap(call, Duration::from_secs(10)),
    };
    let node = a11y_snapshot::resolve(&g, &target, known, &opts)
        .await
        .map_err(|e| snapshot_error(e, selector))?;
    Ok(Found {
        encoded: node.encoded_id(),
        session: node.session,
        object_id: node.object_id.as_str().to_string(),
        frame_id: node.frame_id,
    })
}

/// The centre of a node in page coordinates, after scrolling it into view.
pub(crate) async fn click_point(
    tf: &mut TabFrames,
    page: &Session,
    found: &Found,
    selector: &str,
    call: &Call,
) -> Result<(f64, f64)> {
    let g = tf.graph(page, call).await?;
    let _ = found
        .session
        .call_timeout(
            "DOM.scrollIntoViewIfNeeded",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await;
    let quads = match found
        .session
        .call_timeout(
            "DOM.getContentQuads",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await
    {
        Ok(q) => q,
        Err(CdpError::Protocol { .. }) => Value::Null,
        Err(e) => return Err(e.into()),
    };
    let pts: Vec<f64> = quads["quads"]
        .as_array()
        .and_then(|qs| {
            qs.iter()
                .find(|q| q.as_array().is_some_and(|a| a.len() == 8))
        })
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| v.as_f64().unwrap_or(0.0)).collect())
        .ok_or_else(|| CliError::ElementNotFound {
            selector: format!("{selector} (not visible)"),
        })?;
    let cx = (pts[0] + pts[2] + pts[4] + pts[6]) / 4.0;
    let cy = (pts[1] + pts[3] + pts[5] + pts[7]) / 4.0;
    // Quads are in the frame's own viewport for OOPIF content; the graph adds the iframe offsets.
    g.to_page_point(&FrameId::from(found.frame_id.as_str()), cx, cy)
        .await
        .map_err(graph_error)
}

/// A real left click at page coordinates, on the top-level page session.
pub(crate) async fn mouse_click(page: &Session, x: f64, y: f64, call: &Call) -> Result<()> {
    for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
        let mut p = json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons });
        if kind != "mouseMoved" {
            p["clickCount"] = json!(1);
        } else {
            p["button"] = json!("none");
        }
        page.call_timeout(
            "Input.dispatchMouseEvent",
            p,
            cap(call, Duration::from_secs(5)),
        )
        .await?;
    }
    Ok(())
}

const PREPARE_FILL_JS: &str = r#"function() {
  this.focus();
  if (typeof this.select === 'function' && ('value' in this)) { this.select(); return 'input'; }
  if (this.isContentEditable) {
    const r = document.createRange(); r.selectNodeContents(this);
    const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); return 'editable';
  }
  return 'other';
}"#;

const CLEAR_JS: &str = r#"function() {
  if ('value' in this) { this.value = ''; } else if (this.isContentEditable) { this.textContent = ''; }
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
}"#;

/// Focuses, selects the current content and inserts `text` in one `Input.insertText`.
pub(crate) async fn fill(
    page: &Session,
    found: &Found,
    selector: &str,
    text: &str,
    call: &Call,
) -> Result<()> {
    let _ = found
        .session
        .call_timeout(
            "DOM.focus",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await;
    let kind = found
        .session
        .call_timeout(
            "Runtime.callFunctionOn",
            json!({ "objectId": found.object_id, "functionDeclaration": PREPARE_FILL_JS, "returnByValue": true }),
            cap(call, Duration::from_secs(5)),
        )
        .await?;
    if kind["result"]["value"].as_str() == Some("other") {
        return Err(CliError::InvalidArgument(format!(
            "element {selector} is not a text field or editable element"
        )));
    }
    if text.is_empty() {
        found
            .session
            .call_timeout(
                "Runtime.callFunctionOn",
                json!({ "objectId": found.object_id, "functionDeclaration": CLEAR_JS }),
                cap(call, Duration::from_secs(5)),
            )
            .await?;
        return Ok(());
    }
    page.call_timeout(
        "Input.insertText",
        json!({ "text": text }),
        call.remaining().max(Duration::from_secs(1)),
    )
    .await?;
    Ok(())
}
