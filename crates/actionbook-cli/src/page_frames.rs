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
        SnapshotError::Stale { reason, .. } => CliError::Stale(format!(
            "{selector} is stale ({reason}): the page changed since the snapshot that gave it; \
             run `browser snapshot` again"
        )),
        SnapshotError::InvalidSelector { .. }
        | SnapshotError::InvalidRef { .. }
        | SnapshotError::InvalidEncodedId { .. }
        | SnapshotError::InvalidXPath { .. } => {
            // Browser messages carry a JS stack; the first line says it all.
            let msg = e.to_string();
            CliError::InvalidArgument(msg.lines().next().unwrap_or_default().to_string())
        }
        SnapshotError::FrameNotFound { .. } => CliError::FrameNotFound(e.to_string()),
        SnapshotError::Cdp(c) => cdp_error(c, selector),
        SnapshotError::FrameGraph(FrameGraphError::Cdp(c)) => cdp_error(c, selector),
        SnapshotError::FrameGraph(g) => graph_error(g),
        other => CliError::Internal(other.to_string()),
    }
}

/// Chromium's answers when a node, its document or its execution context no longer exists (the page
/// navigated or re-rendered since the node was found). The message is all CDP gives to tell them apart.
const GONE: &[&str] = &[
    "No node with given id found",
    "Could not find node with given id",
    "does not belong to the document",
    "Node is detached from document",
    "Cannot find context with specified id",
    "Could not find object with given id",
    "Execution context was destroyed",
    "Inspected target navigated or closed",
];

/// True when a CDP error says the node (or its document or context) is gone: the user's target is stale.
pub(crate) fn is_gone(e: &CdpError) -> bool {
    match e {
        CdpError::Protocol { message, .. } => GONE.iter().any(|m| message.contains(m)),
        _ => false,
    }
}

/// Maps a CDP error met while acting on `selector`: a gone node is STALE_ELEMENT with what to do,
/// anything else stays a CDP error.
pub(crate) fn cdp_error(e: CdpError, selector: &str) -> CliError {
    if is_gone(&e) {
        CliError::Stale(format!(
            "{selector} is no longer in the page: it is from an earlier page or was removed since it \
             was found; run `browser snapshot` again"
        ))
    } else {
        CliError::Cdp(e)
    }
}

/// The error for a ref the table does not know. Numbers below the table's counter were handed out
/// for an earlier page and dropped when it navigated away: that is stale, not a typo.
fn unknown_ref(refs: Option<&RefTable>, number: u32, selector: &str) -> CliError {
    match refs {
        Some(t) if number < t.next_number() => CliError::Stale(format!(
            "ref {selector} is from an earlier page: the page navigated since that snapshot; \
             run `browser snapshot` again"
        )),
        _ => CliError::ElementNotFound {
            selector: selector.to_string(),
        },
    }
}

impl TabFrames {
    /// Drops every ref after the main frame loaded a new document, but keeps numbering where it was
    /// (as the reference CLI does after a click that navigates) so an old ref is recognised as stale
    /// and can never name a node of the new page.
    pub fn drop_refs_keep_numbering(&mut self) {
        self.refs
            .get_or_insert_with(RefTable::new)
            .clear_keep_numbering();
    }

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
    let node = match a11y_snapshot::resolve(&g, &target, known, &opts).await {
        Ok(n) => n,
        Err(SnapshotError::RefNotFound { .. }) => {
            let number = match &target {
                Target::Ref(r) => r.number(),
                _ => 0,
            };
            return Err(unknown_ref(tf.refs.as_ref(), number, selector));
        }
        Err(e) => return Err(snapshot_error(e, selector)),
    };
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
        Err(e) if is_gone(&e) => return Err(cdp_error(e, selector)),
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
    // A page in a background tab is hidden, and Chromium never acknowledges input events sent to
    // a hidden page: the click would wait out its timeout and do nothing. Show the tab first, as
    // a user switching to it would.
    page.call_timeout(
        "Page.bringToFront",
        json!({}),
        cap(call, Duration::from_secs(5)),
    )
    .await?;
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

/// What `fill` may do with an element: run on the element in its own frame. Only fields that take
/// typed text qualify; everything else is refused with what it is and what to use instead.
const FILL_KIND_JS: &str = r#"function() {
  const html = this.namespaceURI === 'http://www.w3.org/1999/xhtml';
  const tag = String(this.localName || this.nodeName || '').toLowerCase();
  const refuse = (what, hint) => ({ kind: 'refuse', what, hint });
  const usable = (what) => this.disabled ? refuse(what, 'it is disabled')
    : this.readOnly ? refuse(what, 'it is read-only') : null;
  if (html && tag === 'input') {
    const type = String(this.type || 'text').toLowerCase();
    const what = '<input type=' + type + '>';
    if (type === 'checkbox' || type === 'radio') return refuse(what, 'fill sets text; use click for checkboxes and radio buttons');
    if (['button', 'submit', 'reset', 'image'].includes(type)) return refuse(what, 'fill sets text; use click for buttons');
    if (type === 'file') return refuse(what, 'fill sets text; use upload for file inputs');
    if (['color', 'range', 'hidden'].includes(type)) return refuse(what, 'fill sets text and this input takes none');
    const bad = usable(what);
    if (bad) return bad;
    // Date and time pickers take no typed text in Chromium: their value is set directly.
    if (['date', 'datetime-local', 'month', 'time', 'week'].includes(type)) return { kind: 'value', what };
    return { kind: 'text', what };
  }
  if (html && tag === 'textarea') return usable('<textarea>') || { kind: 'text', what: '<textarea>' };
  if (html && tag === 'select') return refuse('<select>', 'fill sets text; use select to choose an option');
  if (this.isContentEditable) return { kind: 'editable', what: '<' + tag + ' contenteditable>' };
  return refuse('<' + tag + '>', 'fill sets text in inputs, textareas and contenteditable elements only');
}"#;

/// Focuses the element and selects its content so inserted text replaces it.
const PREPARE_FILL_JS: &str = r#"function() {
  this.focus({ preventScroll: false });
  if (typeof this.select === 'function' && 'value' in this) { this.select(); return; }
  const r = this.ownerDocument.createRange(); r.selectNodeContents(this);
  const s = this.ownerDocument.defaultView.getSelection(); s.removeAllRanges(); s.addRange(r);
}"#;

/// True when this element holds keyboard focus: it is its root's active element (for text inside a
/// contenteditable, its editing host is), every shadow host up to its document is active in its own
/// root, and so is every same-origin `<iframe>` up to the top (an out-of-process parent cannot be
/// read from inside; `document.hasFocus()` is no help either, a headless page never has window
/// focus). Input.insertText types into whatever has focus, so anything else would put the text into
/// another element.
const FOCUSED_DEEP_JS: &str = r#"function() {
  let n = this;
  if (this.isContentEditable) {
    while (n.parentElement && n.parentElement.isContentEditable) n = n.parentElement;
  }
  for (let depth = 0; depth < 128; depth++) {
    const root = n.getRootNode();
    if (!root || root.activeElement !== n) return false;
    if (root.host) { n = root.host; continue; }
    let owner = null;
    try { owner = root.defaultView && root.defaultView.frameElement; } catch (e) { owner = null; }
    if (!owner) return true;
    n = owner;
  }
  return false;
}"#;

/// Sets a value through the element's native setter (so framework value trackers see a change) and
/// fires input and change; returns the value the element kept after sanitising.
const SET_VALUE_JS: &str = r#"function(v) {
  const proto = Object.getPrototypeOf(this);
  const d = Object.getOwnPropertyDescriptor(proto, 'value')
    || Object.getOwnPropertyDescriptor(this.ownerDocument.defaultView.HTMLInputElement.prototype, 'value');
  if (d && d.set) d.set.call(this, v); else this.value = v;
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return this.value;
}"#;

/// Empties a focused, selected field the way a user's Delete would (input events included); falls
/// back to the native setter when the editing command did nothing.
const CLEAR_JS: &str = r#"function() {
  const doc = this.ownerDocument;
  if (typeof doc.execCommand === 'function') doc.execCommand('delete', false);
  const empty = ('value' in this && !this.isContentEditable) ? this.value === '' : this.textContent === '';
  if (empty) return true;
  if ('value' in this && !this.isContentEditable) {
    const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(this), 'value');
    if (d && d.set) d.set.call(this, ''); else this.value = '';
  } else {
    this.textContent = '';
  }
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}"#;

/// Runs a function on the found node and returns its by-value result; a gone node is STALE_ELEMENT.
async fn call_on(
    found: &Found,
    selector: &str,
    function: &str,
    args: Value,
    call: &Call,
) -> Result<Value> {
    let r = found
        .session
        .call_timeout(
            "Runtime.callFunctionOn",
            json!({
                "objectId": found.object_id,
                "functionDeclaration": function,
                "arguments": args,
                "returnByValue": true,
                "awaitPromise": false,
            }),
            cap(call, Duration::from_secs(5)),
        )
        .await
        .map_err(|e| cdp_error(e, selector))?;
    if let Some(ex) = r.get("exceptionDetails") {
        let text = ex["exception"]["description"]
            .as_str()
            .or_else(|| ex["text"].as_str())
            .unwrap_or("exception");
        return Err(CliError::Internal(format!(
            "fill script failed on {selector}: {}",
            text.lines().next().unwrap_or_default()
        )));
    }
    Ok(r["result"]["value"].clone())
}

fn with_article(what: &str) -> String {
    let vowel = what
        .trim_start_matches('<')
        .starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if vowel { "an" } else { "a" })
}

/// Replaces the text of an input, textarea or contenteditable element: checks it takes text, focuses
/// and selects it, checks focus really is on it, then inserts `text` in one `Input.insertText`
/// (trusted input events, as typing would give).
pub(crate) async fn fill(
    page: &Session,
    found: &Found,
    selector: &str,
    text: &str,
    call: &Call,
) -> Result<()> {
    let kind = call_on(found, selector, FILL_KIND_JS, json!([]), call).await?;
    let what = kind["what"].as_str().unwrap_or("element");
    match kind["kind"].as_str() {
        Some("text") | Some("editable") => {}
        Some("value") => {
            let kept = call_on(
                found,
                selector,
                SET_VALUE_JS,
                json!([{ "value": text }]),
                call,
            )
            .await?;
            // The element normalises what it keeps (seconds dropped, ...); an empty value means
            // it rejected the text.
            if !text.is_empty() && kept.as_str().is_none_or(str::is_empty) {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is {}: {text:?} is not a valid value for it",
                    with_article(what)
                )));
            }
            return Ok(());
        }
        _ => {
            let hint = kind["hint"].as_str().unwrap_or("fill sets text");
            return Err(CliError::InvalidArgument(format!(
                "element {selector} is {}: {hint}",
                with_article(what)
            )));
        }
    }
    // DOM.focus also focuses the element's frame (and OOPIF) in the page; the script then selects
    // the old content so the insert replaces it.
    if let Err(e) = found
        .session
        .call_timeout(
            "DOM.focus",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await
        && is_gone(&e)
    {
        return Err(cdp_error(e, selector));
    }
    call_on(found, selector, PREPARE_FILL_JS, json!([]), call).await?;
    let focused = call_on(found, selector, FOCUSED_DEEP_JS, json!([]), call).await?;
    if focused.as_bool() != Some(true) {
        return Err(CliError::InvalidArgument(format!(
            "element {selector} ({}) did not take keyboard focus (hidden, inert, or focus was moved \
             by the page); nothing was typed",
            what
        )));
    }
    if text.is_empty() {
        call_on(found, selector, CLEAR_JS, json!([]), call).await?;
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
