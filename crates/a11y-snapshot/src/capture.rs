//! Capture from Chromium: per session one `DOM.getDocument{depth:-1,pierce:true}` (depth-limited retry
//! plus `DOM.describeNode` fill-in for very deep documents), per frame one `Accessibility.getFullAXTree`
//! on the frame's owning session, and an optional read-only in-page scan for `cursor: pointer`; all
//! requests issued at once. The result is a [`PageSource`], the seam the rest of the crate builds on.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cdp_protocol::{CdpError, Command, Session};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

use crate::dom::{DocumentPieces, FrameDom, graft, split_document};
use crate::error::SnapshotError;
use crate::frames::{FrameHandle, PageFrames};
use crate::raw::{AxTree, DescribedNode, DomDocument};
use crate::refs::RefTable;
use crate::tree::{BoundingBox, FrameSource, PageSource, Snapshot};

/// How to capture.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// Run the in-page `cursor: pointer` scan (attributes like onclick/tabindex need no scan).
    pub cursor: bool,
    /// Deadline for each CDP call.
    pub timeout: Duration,
    /// Depth used when the full-depth document cannot be fetched or decoded.
    pub fallback_depth: i64,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            cursor: true,
            timeout: Duration::from_secs(30),
            fallback_depth: 40,
        }
    }
}

/// `DOM.getDocument` decoded into the lean types.
#[derive(Debug, Serialize)]
struct GetDocumentLean {
    depth: i64,
    pierce: bool,
}

impl Command for GetDocumentLean {
    const METHOD: &'static str = "DOM.getDocument";
    type Response = DomDocument;
}

/// `DOM.describeNode` decoded into the lean types.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DescribeNodeLean {
    backend_node_id: i64,
    depth: i64,
    pierce: bool,
}

impl Command for DescribeNodeLean {
    const METHOD: &'static str = "DOM.describeNode";
    type Response = DescribedNode;
}

/// `Accessibility.getFullAXTree` decoded into the lean types.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct GetFullAxTreeLean {
    #[serde(skip_serializing_if = "Option::is_none")]
    frame_id: Option<String>,
}

impl Command for GetFullAxTreeLean {
    const METHOD: &'static str = "Accessibility.getFullAXTree";
    type Response = AxTree;
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct EvaluateByValue {
    expression: String,
    context_id: i64,
    return_by_value: bool,
    silent: bool,
}

#[derive(Debug, Deserialize)]
struct CursorScanResult {
    result: CursorScanValue,
}

#[derive(Debug, Deserialize)]
struct CursorScanValue {
    #[serde(default)]
    value: Vec<(u32, String)>,
}

impl Command for EvaluateByValue {
    const METHOD: &'static str = "Runtime.evaluate";
    type Response = CursorScanResult;
}

/// Element pre-order (an element, its open shadow root's elements, then its children) matching
/// [`FrameDom`]'s order; reports elements whose cursor is `pointer` while their parent's is not. Reads
/// computed styles only: nothing in the page changes.
const CURSOR_SCAN_JS: &str = r#"(() => {
  const out = []; let i = 0;
  const walk = (root, parentPointer) => {
    for (let el = root.firstElementChild; el; el = el.nextElementSibling) {
      const idx = i++;
      const p = getComputedStyle(el).cursor === 'pointer';
      if (p && !parentPointer) out.push([idx, el.localName]);
      if (el.shadowRoot) walk(el.shadowRoot, p);
      walk(el, p);
    }
  };
  walk(document, false);
  return out;
})()"#;

fn is_depth_problem(e: &CdpError) -> bool {
    match e {
        CdpError::Decode { .. } => true,
        CdpError::Protocol { message, .. } => {
            let m = message.to_ascii_lowercase();
            m.contains("stack limit") || m.contains("depth") || m.contains("too deep")
        }
        _ => false,
    }
}

/// One session's document, cut into frames; falls back to a depth-limited fetch plus fill-in.
async fn session_document(
    session: &Session,
    opts: &CaptureOptions,
) -> Result<DocumentPieces, SnapshotError> {
    match session
        .send_timeout(
            &GetDocumentLean {
                depth: -1,
                pierce: true,
            },
            opts.timeout,
        )
        .await
    {
        Ok(doc) => return Ok(split_document(doc.root)),
        Err(e) if is_depth_problem(&e) => {}
        Err(e) => return Err(e.into()),
    }
    let depth = opts.fallback_depth.max(1);
    let doc = session
        .send_timeout(
            &GetDocumentLean {
                depth,
                pierce: true,
            },
            opts.timeout,
        )
        .await?;
    let mut pieces = split_document(doc.root);
    // Each round fetches the next `depth` levels below every truncated node, and the document of every
    // frame owner whose content was cut off, all at once.
    let mut asked_frames: std::collections::HashSet<String> = std::collections::HashSet::new();
    for _round in 0..10_000 {
        let mut wanted: Vec<(usize, i64)> = Vec::new();
        let have: std::collections::HashSet<&str> =
            pieces.children.iter().map(|(id, _)| id.as_str()).collect();
        let mut missing: Vec<String> = Vec::new();
        for (pi, dom) in std::iter::once(&pieces.root)
            .chain(pieces.children.iter().map(|(_, d)| d))
            .enumerate()
        {
            wanted.extend(dom.truncated().map(|e| (pi, e.backend_node_id)));
            for e in &dom.entries {
                if let Some(fid) = &e.child_frame_id
                    && !have.contains(fid.as_str())
                    && !asked_frames.contains(fid)
                {
                    // An OOPIF owner answers without a document: asked once, then left alone.
                    missing.push(fid.clone());
                    wanted.push((pi, e.backend_node_id));
                }
            }
        }
        asked_frames.extend(missing);
        if wanted.is_empty() {
            break;
        }
        let answers = join_all(wanted.iter().map(|&(_, id)| async move {
            session
                .send_timeout(
                    &DescribeNodeLean {
                        backend_node_id: id,
                        depth,
                        pierce: true,
                    },
                    opts.timeout,
                )
                .await
        }))
        .await;
        let mut progressed = false;
        for ((pi, id), answer) in wanted.into_iter().zip(answers) {
            let dom = if pi == 0 {
                &mut pieces.root
            } else {
                &mut pieces.children[pi - 1].1
            };
            match answer {
                Ok(d) => {
                    if let Some(extra) = graft(dom, d.node) {
                        pieces.children.extend(extra);
                        progressed = true;
                    }
                }
                Err(_) => {
                    // The node went away meanwhile: stop asking for it.
                    if let Some(i) = dom.find(id) {
                        dom.entries[i as usize].truncated = false;
                        progressed = true;
                    }
                }
            }
        }
        if !progressed {
            break;
        }
    }
    Ok(pieces)
}

async fn frame_ax(
    f: &FrameHandle,
    session_root: bool,
    opts: &CaptureOptions,
) -> Result<AxTree, SnapshotError> {
    let asked = f
        .session
        .send_timeout(
            &GetFullAxTreeLean {
                frame_id: Some(f.frame_id.clone()),
            },
            opts.timeout,
        )
        .await;
    match asked {
        Ok(t) => Ok(t),
        // An OOPIF's own session may not know its frame by id: without a frameId it returns its document.
        Err(CdpError::Protocol { .. }) if session_root => Ok(f
            .session
            .send_timeout(&GetFullAxTreeLean { frame_id: None }, opts.timeout)
            .await?),
        Err(e) => Err(e.into()),
    }
}

async fn cursor_scan<P: PageFrames>(
    frames: &P,
    f: &FrameHandle,
    opts: &CaptureOptions,
) -> Vec<(u32, String)> {
    let Ok(ctx) = frames
        .execution_context(&f.frame_id, opts.timeout.min(Duration::from_millis(500)))
        .await
    else {
        return Vec::new();
    };
    let eval = EvaluateByValue {
        expression: CURSOR_SCAN_JS.to_string(),
        context_id: ctx.get(),
        return_by_value: true,
        silent: true,
    };
    match f.session.send_timeout(&eval, opts.timeout).await {
        Ok(r) => r.result.value,
        Err(_) => {
            frames.forget_context(&f.frame_id);
            Vec::new()
        }
    }
}

fn session_key(s: &Session) -> String {
    s.id().map(|i| i.as_str().to_string()).unwrap_or_default()
}

/// Captures every frame of the page into a [`PageSource`].
pub async fn capture<P: PageFrames>(
    frames: &P,
    opts: &CaptureOptions,
) -> Result<PageSource, SnapshotError> {
    let started = Instant::now();
    let handles = frames.frames();
    if handles.is_empty() {
        return Err(SnapshotError::FrameNotFound {
            frame: "main".into(),
        });
    }
    // One document per session; the first frame seen on a session is that session's root frame.
    let mut sessions: Vec<(String, Session, String)> = Vec::new();
    for f in &handles {
        let key = session_key(&f.session);
        if !sessions.iter().any(|(k, _, _)| *k == key) {
            sessions.push((key, f.session.clone(), f.frame_id.clone()));
        }
    }
    let docs = join_all(sessions.iter().map(|(_, s, _)| session_document(s, opts)));
    let axs = join_all(handles.iter().map(|f| {
        let root = sessions.iter().any(|(_, _, r)| *r == f.frame_id);
        frame_ax(f, root, opts)
    }));
    let scans = async {
        if opts.cursor {
            join_all(handles.iter().map(|f| cursor_scan(frames, f, opts))).await
        } else {
            vec![Vec::new(); handles.len()]
        }
    };
    let (docs, axs, scans) = futures::join!(docs, axs, scans);

    let mut warnings = Vec::new();
    let mut doms: HashMap<String, FrameDom> = HashMap::new();
    for ((_, _, root_frame), doc) in sessions.iter().zip(docs) {
        match doc {
            Ok(p) => {
                doms.insert(root_frame.clone(), p.root);
                for (id, d) in p.children {
                    doms.entry(id).or_insert(d);
                }
            }
            // The page's own document is required; a vanished OOPIF is not.
            Err(e) if *root_frame == handles[0].frame_id => return Err(e),
            Err(e) => warnings.push(format!("document of frame {root_frame} not captured: {e}")),
        }
    }
    // Owners: iframe elements in the parent frame's document carry the child frame's id (same-process
    // and OOPIF alike, F1/F2).
    let mut owners: HashMap<String, i64> = HashMap::new();
    for f in &handles {
        let Some(parent) = f.parent_frame_id.as_ref().and_then(|p| doms.get(p)) else {
            continue;
        };
        if let Some(e) = parent
            .entries
            .iter()
            .find(|e| e.child_frame_id.as_deref() == Some(f.frame_id.as_str()))
        {
            owners.insert(f.frame_id.clone(), e.backend_node_id);
        }
    }
    let mut out = Vec::with_capacity(handles.len());
    for (i, ((f, ax), scan)) in handles.into_iter().zip(axs).zip(scans).enumerate() {
        let ax = match ax {
            Ok(t) => t.nodes,
            Err(e) if i == 0 => return Err(e),
            Err(e) => {
                // Typically a frame that detached while capturing.
                warnings.push(format!("frame {} ({}) skipped: {e}", f.frame_index, f.url));
                Vec::new()
            }
        };
        let mut dom = doms.remove(&f.frame_id).unwrap_or_default();
        dom.mark_cursor_pointer(&scan);
        out.push(FrameSource {
            frame_index: f.frame_index,
            owner_backend_node_id: f
                .owner_backend_node_id
                .or_else(|| owners.get(&f.frame_id).copied()),
            frame_id: f.frame_id,
            parent_frame_id: f.parent_frame_id,
            url: f.url,
            session_id: f.session.id().map(|s| s.as_str().to_string()),
            dom,
            ax,
        });
    }
    Ok(PageSource {
        frames: out,
        capture_time: started.elapsed(),
        warnings,
    })
}

/// Captures and builds a snapshot, giving refs from `refs`.
pub async fn take_snapshot<P: PageFrames>(
    frames: &P,
    refs: &mut RefTable,
    opts: &CaptureOptions,
) -> Result<Snapshot, SnapshotError> {
    let source = capture(frames, opts).await?;
    Ok(Snapshot::build(source, refs))
}

/// Fills [`Snapshot::boxes`] with the border-box bounds, in top-level page coordinates, of every node
/// that has a ref (nodes without layout are skipped). One `DOM.getBoxModel` per node, all in flight at
/// once; OOPIF boxes are translated through the frame provider.
pub async fn capture_boxes<P: PageFrames>(
    frames: &P,
    snap: &mut Snapshot,
    opts: &CaptureOptions,
) -> Result<(), SnapshotError> {
    let handles = frames.frames();
    let wanted: Vec<(crate::ids::EncodedId, FrameHandle)> = snap
        .nodes
        .iter()
        .filter(|n| n.reference.is_some() && n.backend_node_id != 0)
        .filter_map(|n| {
            let f = handles.iter().find(|f| f.frame_index == n.frame_index)?;
            Some((n.encoded_id(), f.clone()))
        })
        .collect();
    let answers = join_all(wanted.iter().map(|(id, f)| async move {
        let cmd = cdp_protocol::dom::GetBoxModel {
            backend_node_id: Some(cdp_protocol::BackendNodeId::new(id.backend_node_id)),
            ..Default::default()
        };
        let model = f.session.send_timeout(&cmd, opts.timeout).await.ok()?.model;
        let q = &model.border;
        if q.len() < 8 {
            return None;
        }
        let xs = [q[0], q[2], q[4], q[6]];
        let ys = [q[1], q[3], q[5], q[7]];
        let (x0, x1) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        let (y0, y1) = ys
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        let local = BoundingBox {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        };
        frames.to_page_rect(&f.frame_id, local).await.ok()
    }))
    .await;
    for ((id, _), b) in wanted.into_iter().zip(answers) {
        if let Some(b) = b {
            snap.boxes.insert(id, b);
        }
    }
    Ok(())
}
