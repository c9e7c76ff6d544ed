//! Capture from Chromium: per session one `DOMSnapshot.captureSnapshot` (every same-process frame
//! document of the session with layout, the few computed styles the snapshot reads and the rendered
//! text), a `DOM.describeNode` per outermost shadow host (the flat tree hides where shadow roots and
//! slots sit in the DOM, which XPaths need), and the accessibility tree per frame: computed here
//! from the capture ([`AxSource::Computed`], with the checkboxes a script made indeterminate asked
//! of the page when there are checkboxes) or Chromium's `Accessibility.getFullAXTree`
//! ([`AxSource::Chromium`]). Requests go out at once. The result is a [`PageSource`], the seam the
//! rest of the crate builds on.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use cdp_protocol::{CdpError, Command, Session};
use futures::future::join_all;
use serde::Serialize;

use crate::ax_compute::Dialect;
use crate::ax_input::ComputedTree;
use crate::doc_view::{DocView, Strings};
use crate::dom::{FrameDom, ViewExtras, graft, shadow_hosts};
use crate::error::SnapshotError;
use crate::frames::{FrameHandle, PageFrames};
use crate::raw::{AxNode, AxTree, DescribedNode};
use crate::refs::RefTable;
use crate::snapshot_dom::{CaptureSnapshotLean, CapturedSnapshot};
use crate::tree::{BoundingBox, FrameSource, PageSource, Snapshot};

/// Where the accessibility tree comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AxSource {
    /// Roles, names and states computed from the DOM capture (one CDP call per session).
    #[default]
    Computed,
    /// Chromium's own tree, `Accessibility.getFullAXTree` per frame (several times slower on large
    /// pages; the reference the computed tree is tested against).
    Chromium,
}

/// How to capture.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// Mark `cursor: pointer` elements as cursor-interactive (attributes like onclick/tabindex
    /// count regardless).
    pub cursor: bool,
    /// Deadline for each CDP call.
    pub timeout: Duration,
    /// Depth of each `DOM.describeNode` when a shadow host's whole subtree is too deep to fetch.
    pub fallback_depth: i64,
    /// Where the accessibility tree comes from.
    pub accessibility: AxSource,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            cursor: true,
            timeout: Duration::from_secs(30),
            fallback_depth: 40,
            accessibility: AxSource::default(),
        }
    }
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

/// The DOM of one shadow host: whole, or (too deep to encode) to `fallback_depth`.
async fn describe_host(
    session: &Session,
    backend_node_id: i64,
    opts: &CaptureOptions,
) -> Option<crate::raw::DomNode> {
    for depth in [-1, opts.fallback_depth.max(1)] {
        let asked = DescribeNodeLean {
            backend_node_id,
            depth,
            pierce: true,
        };
        match session.send_timeout(&asked, opts.timeout).await {
            Ok(d) => return Some(d.node),
            Err(CdpError::Decode { .. }) | Err(CdpError::Protocol { .. }) => continue,
            Err(_) => return None,
        }
    }
    None
}

fn session_key(s: &Session) -> String {
    s.id().map(|i| i.as_str().to_string()).unwrap_or_default()
}

/// One session's capture with each frame document's DOM (and computed AX tree) built.
struct SessionCapture {
    /// frameId of each document.
    frame_ids: Vec<String>,
    /// Frame DOM of each document.
    doms: Vec<FrameDom>,
    /// Computed AX tree of each document ([`AxSource::Computed`] only).
    axs: Vec<ComputedTree>,
}

/// Builds the frame DOMs of one session's capture, describing its shadow hosts.
async fn session_doms(
    session: &Session,
    snap: CapturedSnapshot,
    opts: &CaptureOptions,
    dialect: Dialect,
) -> SessionCapture {
    let frame_ids: Vec<String> = snap
        .documents
        .iter()
        .map(|d| snap.str(d.frame_id).to_string())
        .collect();
    let strings = Strings::new(&snap);
    let views: Vec<DocView<'_>> = snap
        .documents
        .iter()
        .map(|d| DocView::new(&strings, d))
        .collect();
    let hosts: Vec<Vec<u32>> = views.iter().map(shadow_hosts).collect();
    let mixed = async {
        match opts.accessibility {
            AxSource::Computed => {
                crate::indeterminate::indeterminate_checkboxes(session, &views, opts.timeout).await
            }
            AxSource::Chromium => HashSet::new(),
        }
    };
    let described = join_all(hosts.iter().enumerate().flat_map(|(d, hs)| {
        let views = &views;
        hs.iter().map(move |&h| async move {
            (
                d,
                describe_host(session, views[d].backend_id(h), opts).await,
            )
        })
    }));
    let (described, mixed) = futures::join!(described, mixed);
    let (mut doms, entries): (Vec<FrameDom>, Vec<Vec<u32>>) = views
        .iter()
        .zip(&hosts)
        .map(|(v, hs)| {
            FrameDom::from_view(
                v,
                &ViewExtras {
                    frame_ids: &frame_ids,
                    hosts: hs,
                },
            )
        })
        .unzip();
    for (d, node) in described {
        if let Some(node) = node {
            // Frame documents inside the host come from the capture itself.
            let _ = graft(&mut doms[d], node);
        }
    }
    for (d, hs) in hosts.iter().enumerate() {
        if !hs.is_empty() {
            doms[d].fill_from_view(&views[d]);
        }
    }
    if !opts.cursor {
        for dom in &mut doms {
            dom.clear_cursor_pointer();
        }
    }
    let axs = match opts.accessibility {
        AxSource::Computed => views
            .iter()
            .zip(&entries)
            .map(|(v, e)| {
                crate::ax_compute::frame_tree(v, snap.str(v.doc.base_url), e, dialect, &mixed)
            })
            .collect(),
        AxSource::Chromium => Vec::new(),
    };
    SessionCapture {
        frame_ids,
        doms,
        axs,
    }
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
    // One capture per session; the first frame seen on a session is that session's root frame.
    let mut sessions: Vec<(String, Session, String)> = Vec::new();
    for f in &handles {
        let key = session_key(&f.session);
        if !sessions.iter().any(|(k, _, _)| *k == key) {
            sessions.push((key, f.session.clone(), f.frame_id.clone()));
        }
    }
    let captures = join_all(sessions.iter().map(|(_, s, _)| async move {
        // The browser's version (asked once per connection) beside the capture: the computed
        // tree follows what that Chromium builds.
        let major = async {
            match opts.accessibility {
                AxSource::Computed => s.link().browser_major(opts.timeout).await.ok().flatten(),
                AxSource::Chromium => None,
            }
        };
        let lean = CaptureSnapshotLean::new();
        let (snap, major) = futures::join!(s.send_timeout(&lean, opts.timeout), major);
        let dialect = Dialect::of_chromium(major);
        Ok::<_, SnapshotError>(session_doms(s, snap?, opts, dialect).await)
    }));
    let axs = async {
        match opts.accessibility {
            AxSource::Chromium => {
                join_all(handles.iter().map(|f| {
                    let root = sessions.iter().any(|(_, _, r)| *r == f.frame_id);
                    frame_ax(f, root, opts)
                }))
                .await
            }
            AxSource::Computed => Vec::new(),
        }
    };
    // The viewport, for scoping a snapshot to what is on screen (one quick call beside the capture).
    let viewport = async {
        let m = handles[0]
            .session
            .send_timeout(&cdp_protocol::page::GetLayoutMetrics, opts.timeout)
            .await
            .ok()?;
        let v = m.css_layout_viewport?;
        Some(BoundingBox {
            x: v.page_x,
            y: v.page_y,
            width: v.client_width,
            height: v.client_height,
        })
    };
    // The viewport's call goes out first: a session's renderer answers in order, and behind the
    // capture it waited the capture's whole answer out and then some (≈ 10 ms on a 5k page).
    let (viewport, captures, axs) = futures::join!(viewport, captures, axs);

    let mut warnings = Vec::new();
    // frameId -> (capture, document)
    let mut located: HashMap<String, (usize, usize)> = HashMap::new();
    let mut caps: Vec<SessionCapture> = Vec::new();
    for ((_, _, root_frame), c) in sessions.iter().zip(captures) {
        match c {
            Ok(c) => {
                for (d, id) in c.frame_ids.iter().enumerate() {
                    located.entry(id.clone()).or_insert((caps.len(), d));
                }
                caps.push(c);
            }
            // The page's own document is required; a vanished OOPIF is not.
            Err(e) if *root_frame == handles[0].frame_id => return Err(e),
            Err(e) => warnings.push(format!("document of frame {root_frame} not captured: {e}")),
        }
    }
    // Owners: same-process frame owners point at their content document (F1); OOPIF owners come
    // from the frame graph.
    let mut owners: HashMap<String, i64> = HashMap::new();
    for c in &caps {
        for dom in &c.doms {
            for (e, fid) in dom.child_frames() {
                if let Some(e) = dom.entries.get(*e as usize) {
                    owners.entry(fid.clone()).or_insert(e.backend_node_id);
                }
            }
        }
    }
    let mut axs = axs.into_iter();
    let mut out = Vec::with_capacity(handles.len());
    for (i, f) in handles.into_iter().enumerate() {
        let (dom, ax, computed) = match located.get(&f.frame_id) {
            Some(&(c, d)) => {
                let dom = std::mem::take(&mut caps[c].doms[d]);
                let mut computed = None;
                let ax: Vec<AxNode> = match opts.accessibility {
                    AxSource::Chromium => match axs.next() {
                        Some(Ok(t)) => t.nodes,
                        Some(Err(e)) if i == 0 => return Err(e),
                        Some(Err(e)) => {
                            warnings
                                .push(format!("frame {} ({}) skipped: {e}", f.frame_index, f.url));
                            Vec::new()
                        }
                        None => Vec::new(),
                    },
                    AxSource::Computed => {
                        computed = caps[c].axs.get_mut(d).map(std::mem::take);
                        Vec::new()
                    }
                };
                (dom, ax, computed)
            }
            None => {
                if opts.accessibility == AxSource::Chromium {
                    let _ = axs.next();
                }
                if i == 0 {
                    return Err(SnapshotError::FrameNotFound {
                        frame: f.frame_id.clone(),
                    });
                }
                (FrameDom::default(), Vec::new(), None)
            }
        };
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
            computed,
        });
    }
    Ok(PageSource {
        frames: out,
        capture_time: started.elapsed(),
        warnings,
        viewport,
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
