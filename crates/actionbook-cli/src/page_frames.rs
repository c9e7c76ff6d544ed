//! Frames of a tab for snapshot and actions: capture of every frame (same-process and out-of-process
//! iframes) into an `a11y_snapshot::PageSource`, resolution of `@eN` / CSS / XPath to a node in the
//! right frame, and the real input events for click and fill.
//!
//! This is the CLI's own thin capture over the `a11y-snapshot` model (its capture/resolve layer had
//! not landed when this was written): one `DOM.getDocument` (pierce) per process, one
//! `Accessibility.getFullAXTree` per frame, OOPIF sessions attached on demand by target id.

use std::collections::HashMap;
use std::time::Duration;

use a11y_snapshot::dom::split_document;
use a11y_snapshot::raw::{AxTree, DomDocument};
use a11y_snapshot::{FrameSource, PageSource, RefTable};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::Live;
use crate::cdp::{CdpError, Session, TargetId};
use crate::engine::Call;
use crate::error::{CliError, Result};

/// Where each captured frame lives (persisted next to the ref table).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct FrameMap {
    /// frameId -> the OOPIF target whose session owns the frame (None: the page session).
    pub owner: HashMap<String, Option<String>>,
}

/// Per-tab state of this layer.
#[derive(Debug, Default)]
pub(crate) struct TabFrames {
    /// The ref table, loaded lazily from disk.
    pub refs: Option<RefTable>,
    /// Frame locations from the last snapshot.
    pub frames: FrameMap,
    /// Attached OOPIF sessions by target id, valid for one connection generation.
    pub oopif: HashMap<String, Session>,
    /// Generation of the cached sessions.
    pub generation: u64,
}

fn cap(call: &Call, d: Duration) -> Duration {
    call.remaining().min(d)
}

/// Ids of the browser's iframe targets (out-of-process frames).
async fn iframe_targets(live: &Live, call: &Call) -> Result<Vec<String>> {
    let v = live
        .browser()
        .call_timeout(
            "Target.getTargets",
            json!({}),
            cap(call, Duration::from_secs(5)),
        )
        .await?;
    Ok(v["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"].as_str() == Some("iframe"))
        .filter_map(|t| t["targetId"].as_str().map(str::to_string))
        .collect())
}

impl TabFrames {
    /// The session of an OOPIF target, attaching when needed.
    async fn oopif_session(&mut self, live: &Live, target: &str, call: &Call) -> Result<Session> {
        if self.generation != live.generation {
            self.oopif.clear();
            self.generation = live.generation;
        }
        if let Some(s) = self.oopif.get(target) {
            return Ok(s.clone());
        }
        let root = live.browser();
        let tid = TargetId::from(target);
        let s = tokio::time::timeout(
            cap(call, Duration::from_secs(5)),
            root.attach_to_target(&tid),
        )
        .await
        .map_err(|_| call.timeout("attaching to an iframe"))??;
        self.oopif.insert(target.to_string(), s.clone());
        Ok(s)
    }

    /// The session owning `frame_id` (page session unless the frame lives in an OOPIF).
    async fn session_for(
        &mut self,
        page: &Session,
        live: &Live,
        frame_id: &str,
        call: &Call,
    ) -> Result<Session> {
        match self.frames.owner.get(frame_id).cloned().flatten() {
            Some(target) => self.oopif_session(live, &target, call).await,
            None => Ok(page.clone()),
        }
    }
}

struct Pending {
    session: Session,
    session_id: Option<String>,
    oopif: Option<String>,
    frame_id: String,
    parent: Option<String>,
    owner: Option<i64>,
}

/// Captures every frame of the page.
pub(crate) async fn capture(
    tf: &mut TabFrames,
    page: &Session,
    live: &Live,
    main_frame: &str,
    call: &Call,
) -> Result<PageSource> {
    let started = std::time::Instant::now();
    let oopifs = iframe_targets(live, call).await.unwrap_or_default();
    let mut queue = vec![Pending {
        session: page.clone(),
        session_id: None,
        oopif: None,
        frame_id: main_frame.to_string(),
        parent: None,
        owner: None,
    }];
    let mut frames: Vec<FrameSource> = Vec::new();
    let mut map = FrameMap::default();
    let mut seen_sessions = 0;
    while let Some(p) = queue.pop() {
        seen_sessions += 1;
        if seen_sessions > 64 {
            break;
        }
        let doc = p
            .session
            .call_timeout(
                "DOM.getDocument",
                json!({ "depth": -1, "pierce": true }),
                cap(call, Duration::from_secs(20)),
            )
            .await?;
        let doc: DomDocument = serde_json::from_value(doc)
            .map_err(|e| CliError::internal(format!("cannot decode DOM.getDocument: {e}")))?;
        let pieces = split_document(doc.root);
        // (frame id, dom) of this process, root first.
        let mut local: Vec<(String, a11y_snapshot::dom::FrameDom)> =
            vec![(p.frame_id.clone(), pieces.root)];
        local.extend(pieces.children);
        let local_ids: Vec<String> = local.iter().map(|(id, _)| id.clone()).collect();
        // Owner element (and its frame) of every child frame referenced in this process.
        let mut owners: HashMap<String, (String, i64)> = HashMap::new();
        for (fid, dom) in &local {
            for e in &dom.entries {
                // A frame's own document node carries its frame id too: only owners count.
                if let Some(child) = &e.child_frame_id
                    && child != fid
                {
                    owners.insert(child.clone(), (fid.clone(), e.backend_node_id));
                }
            }
        }
        for (fid, dom) in local {
            let (parent, owner) = if fid == p.frame_id {
                (p.parent.clone(), p.owner)
            } else {
                match owners.get(&fid) {
                    Some((pf, o)) => (Some(pf.clone()), Some(*o)),
                    None => (Some(p.frame_id.clone()), None),
                }
            };
            let ax = p
                .session
                .call_timeout(
                    "Accessibility.getFullAXTree",
                    json!({ "frameId": fid }),
                    cap(call, Duration::from_secs(20)),
                )
                .await;
            let ax: AxTree = match ax {
                Ok(v) => serde_json::from_value(v).unwrap_or_default(),
                // A frame that is navigating away has no tree; keep its DOM.
                Err(CdpError::Protocol { .. }) => AxTree::default(),
                Err(e) => return Err(e.into()),
            };
            map.owner.insert(fid.clone(), p.oopif.clone());
            frames.push(FrameSource {
                frame_index: frames.len() as u32,
                frame_id: fid,
                parent_frame_id: parent,
                owner_backend_node_id: owner,
                url: String::new(),
                session_id: p.session_id.clone(),
                dom,
                ax: ax.nodes,
            });
        }
        // Out-of-process children: frames owned here whose document is elsewhere.
        let mut remote: Vec<(String, (String, i64))> = owners
            .into_iter()
            .filter(|(child, _)| !local_ids.contains(child) && oopifs.contains(child))
            .collect();
        remote.sort_by(|a, b| b.0.cmp(&a.0));
        for (child, (parent, owner)) in remote {
            let Ok(session) = tf.oopif_session(live, &child, call).await else {
                continue;
            };
            queue.push(Pending {
                session_id: session.id().map(|s| s.to_string()),
                session,
                oopif: Some(child.clone()),
                frame_id: child,
                parent: Some(parent),
                owner: Some(owner),
            });
        }
    }
    tf.frames = map;
    Ok(PageSource {
        frames,
        capture_time: started.elapsed(),
    })
}

/// A node found for an action: its session and remote object, plus where its frame sits.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub session: Session,
    pub object_id: String,
    /// The OOPIF target the node lives in (None: the page's process).
    pub oopif: Option<String>,
}

const FIND_JS: &str = r#"function(sel, isXPath) {
  function inDoc(doc) {
    if (isXPath) {
      return doc.evaluate(sel, doc, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    }
    return doc.querySelector(sel);
  }
  function search(root, doc) {
    const el = isXPath ? inDoc(doc) : root.querySelector(sel);
    if (el) return el;
    for (const host of root.querySelectorAll('*')) {
      if (host.shadowRoot && !isXPath) { const r = search(host.shadowRoot, doc); if (r) return r; }
      if (host.tagName === 'IFRAME' || host.tagName === 'FRAME') {
        let d = null; try { d = host.contentDocument; } catch (e) {}
        if (d && d.documentElement) { const r = search(d, d); if (r) return r; }
      }
    }
    return null;
  }
  return search(document, document);
}"#;

/// Finds a CSS selector or XPath in the page, its same-process frames and shadow roots, then in
/// each out-of-process frame.
async fn find_selector(
    tf: &mut TabFrames,
    page: &Session,
    live: &Live,
    selector: &str,
    call: &Call,
) -> Result<Found> {
    let is_xpath = selector.starts_with('/') || selector.starts_with("(/");
    let expr = format!(
        "({FIND_JS})({}, {is_xpath})",
        serde_json::to_string(selector).unwrap_or_default()
    );
    let mut candidates: Vec<(Session, Option<String>)> = vec![(page.clone(), None)];
    for t in iframe_targets(live, call).await.unwrap_or_default() {
        if let Ok(s) = tf.oopif_session(live, &t, call).await {
            candidates.push((s, Some(t)));
        }
    }
    for (session, oopif) in candidates {
        let r = session
            .call_timeout(
                "Runtime.evaluate",
                json!({ "expression": expr, "returnByValue": false }),
                cap(call, Duration::from_secs(10)),
            )
            .await;
        let r = match r {
            Ok(r) => r,
            Err(CdpError::SessionClosed { .. }) if oopif.is_some() => continue,
            Err(e) => return Err(e.into()),
        };
        if let Some(ex) = r.get("exceptionDetails").filter(|e| !e.is_null()) {
            let msg = ex["exception"]["description"]
                .as_str()
                .and_then(|d| d.lines().next())
                .unwrap_or("invalid selector")
                .to_string();
            return Err(CliError::InvalidArgument(format!(
                "invalid selector '{selector}': {msg}"
            )));
        }
        if let Some(id) = r["result"]["objectId"].as_str() {
            return Ok(Found {
                session,
                object_id: id.to_string(),
                oopif,
            });
        }
    }
    Err(CliError::ElementNotFound {
        selector: selector.to_string(),
    })
}

/// Resolves `@eN`, a CSS selector or an XPath to a live node.
pub(crate) async fn resolve(
    tf: &mut TabFrames,
    page: &Session,
    live: &Live,
    selector: &str,
    call: &Call,
) -> Result<Found> {
    let trimmed = selector.trim();
    if trimmed.starts_with('@') && a11y_snapshot::Ref::looks_like(trimmed) {
        let not_found = || CliError::ElementNotFound {
            selector: selector.to_string(),
        };
        let r: a11y_snapshot::Ref = trimmed.parse().map_err(|_| not_found())?;
        let entry = tf
            .refs
            .as_ref()
            .and_then(|t| t.entry(r))
            .cloned()
            .ok_or_else(not_found)?;
        let session = tf.session_for(page, live, &entry.frame_id, call).await?;
        let oopif = tf.frames.owner.get(&entry.frame_id).cloned().flatten();
        let res = session
            .call_timeout(
                "DOM.resolveNode",
                json!({ "backendNodeId": entry.backend_node_id }),
                cap(call, Duration::from_secs(5)),
            )
            .await;
        return match res {
            Ok(v) => v["object"]["objectId"]
                .as_str()
                .map(|id| Found {
                    session,
                    object_id: id.to_string(),
                    oopif,
                })
                .ok_or_else(not_found),
            Err(e) if e.is_node_not_found() => Err(not_found()),
            Err(CdpError::Protocol { .. }) => Err(not_found()),
            Err(e) => Err(e.into()),
        };
    }
    find_selector(tf, page, live, trimmed, call).await
}

/// The top-left of an OOPIF's content box in page coordinates (nested OOPIFs add up).
async fn oopif_origin(
    tf: &mut TabFrames,
    page: &Session,
    live: &Live,
    target: &str,
    call: &Call,
) -> Result<(f64, f64)> {
    let mut x = 0.0;
    let mut y = 0.0;
    let mut current = target.to_string();
    for _ in 0..8 {
        // The owner element lives in the page process or in another OOPIF.
        let mut candidates: Vec<(Session, Option<String>)> = vec![(page.clone(), None)];
        for t in iframe_targets(live, call).await.unwrap_or_default() {
            if t != current
                && let Ok(s) = tf.oopif_session(live, &t, call).await
            {
                candidates.push((s, Some(t)));
            }
        }
        let mut next = None;
        for (session, oopif) in candidates {
            let owner = session
                .call_timeout(
                    "DOM.getFrameOwner",
                    json!({ "frameId": current }),
                    cap(call, Duration::from_secs(5)),
                )
                .await;
            let Ok(owner) = owner else { continue };
            let Some(backend) = owner["backendNodeId"].as_i64() else {
                continue;
            };
            let _ = session
                .call_timeout(
                    "DOM.scrollIntoViewIfNeeded",
                    json!({ "backendNodeId": backend }),
                    cap(call, Duration::from_secs(5)),
                )
                .await;
            let bm = session
                .call_timeout(
                    "DOM.getBoxModel",
                    json!({ "backendNodeId": backend }),
                    cap(call, Duration::from_secs(5)),
                )
                .await?;
            let content = &bm["model"]["content"];
            x += content[0].as_f64().unwrap_or(0.0);
            y += content[1].as_f64().unwrap_or(0.0);
            next = Some(oopif);
            break;
        }
        match next {
            Some(Some(parent)) => current = parent,
            Some(None) => return Ok((x, y)),
            None => return Err(CliError::FrameNotFound(current)),
        }
    }
    Ok((x, y))
}

/// The centre of a node in page coordinates, after scrolling it into view.
pub(crate) async fn click_point(
    tf: &mut TabFrames,
    page: &Session,
    live: &Live,
    found: &Found,
    selector: &str,
    call: &Call,
) -> Result<(f64, f64)> {
    let (ox, oy) = match &found.oopif {
        Some(t) => oopif_origin(tf, page, live, t, call).await?,
        None => (0.0, 0.0),
    };
    let _ = found
        .session
        .call_timeout(
            "DOM.scrollIntoViewIfNeeded",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await;
    let quads = found
        .session
        .call_timeout(
            "DOM.getContentQuads",
            json!({ "objectId": found.object_id }),
            cap(call, Duration::from_secs(5)),
        )
        .await;
    let quads = match quads {
        Ok(q) => q,
        Err(CdpError::Protocol { .. }) => Value::Null,
        Err(e) => return Err(e.into()),
    };
    let quad = quads["quads"]
        .as_array()
        .and_then(|qs| {
            qs.iter()
                .find(|q| q.as_array().is_some_and(|a| a.len() == 8))
        })
        .ok_or_else(|| CliError::ElementNotFound {
            selector: format!("{selector} (not visible)"),
        })?;
    let pts: Vec<f64> = quad
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| v.as_f64().unwrap_or(0.0))
        .collect();
    let cx = (pts[0] + pts[2] + pts[4] + pts[6]) / 4.0;
    let cy = (pts[1] + pts[3] + pts[5] + pts[7]) / 4.0;
    // Content quads of an OOPIF node are relative to the OOPIF's viewport.
    Ok((cx + ox, cy + oy))
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
