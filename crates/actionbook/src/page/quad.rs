//! A box as the browser draws it: a CDP quad (four corners, clockwise from the layout top left)
//! is the image of the box's layout rectangle under every transform above it (scale, rotation,
//! skew, zoom; a translation too). Taken as an affine map (what 2D transforms are), it carries a
//! point of the rectangle onto the screen and back, which adding the box's offset cannot do once
//! anything above it is scaled or turned.
//!
//! [`PageGeometry`] is the one way a box or a point of a frame reaches the top-level viewport
//! (and back): per command it measures each out-of-process frame's `<iframe>` (content quad,
//! laid-out size, the zoom of the frame it is in) once, when first needed, and carries every box
//! of that frame with arithmetic after that.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use cdp_protocol::{BackendNodeId, ExecutionContextId, FrameId, Session, dom, runtime};
use frame_graph::{FrameGraph, FrameInfo};
use serde_json::Value;
use tokio::sync::OnceCell;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::screenshot::ViewRect;

/// The content quad of an element (`DOM.getBoxModel`), in the viewport of its session's root
/// frame (the page's, or an out-of-process frame's own): every transform above it applied.
/// `None` when it has no box (not rendered).
pub(crate) async fn content_quad(
    session: &Session,
    node: BoxOf<'_>,
    deadline: &Deadline,
) -> Result<Option<Vec<f64>>> {
    let (object_id, backend_node_id) = match node {
        BoxOf::Handle(h) => (Some(h.object_id().clone()), None),
        BoxOf::Backend(b) => (None, Some(b)),
    };
    let r = session
        .send_timeout(
            &dom::GetBoxModel {
                object_id,
                backend_node_id,
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    match r {
        Ok(r) => Ok(Some(r.model.content)),
        // "Could not compute box model": not rendered.
        Err(cdp_protocol::CdpError::Protocol { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The element [`content_quad`] measures.
#[derive(Clone, Copy)]
pub(crate) enum BoxOf<'a> {
    /// A handle on it.
    Handle(&'a ObjectHandle),
    /// Its backend id in the session.
    Backend(BackendNodeId),
}

/// A 2D affine map, `(x, y) -> (a x + c y + e, b x + d y + f)`: what any chain of CSS
/// transforms, zooms and offsets does to the plane of a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Affine {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
}

impl Affine {
    /// The map that moves nothing.
    pub(crate) const IDENTITY: Affine = Affine {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        e: 0.0,
        f: 0.0,
    };

    /// Multiplication by `k` (about the origin).
    pub(crate) fn scale(k: f64) -> Affine {
        Affine {
            a: k,
            d: k,
            ..Affine::IDENTITY
        }
    }

    /// The map carrying the `w` x `h` rectangle at 0, 0 onto `quad` (its corners in order: the
    /// rectangle's top left, top right, bottom right, bottom left); `None` for a quad that is not
    /// four finite corners, or an empty rectangle.
    pub(crate) fn onto(quad: &[f64], (w, h): (f64, f64)) -> Option<Affine> {
        let [x1, y1, x2, y2, _, _, x4, y4] = corners(quad)?;
        if !(w > 0.0 && h > 0.0) {
            return None;
        }
        Some(Affine {
            a: (x2 - x1) / w,
            b: (y2 - y1) / w,
            c: (x4 - x1) / h,
            d: (y4 - y1) / h,
            e: x1,
            f: y1,
        })
    }

    /// This map, then `next`.
    pub(crate) fn then(self, next: Affine) -> Affine {
        let n = next;
        Affine {
            a: n.a * self.a + n.c * self.b,
            b: n.b * self.a + n.d * self.b,
            c: n.a * self.c + n.c * self.d,
            d: n.b * self.c + n.d * self.d,
            e: n.a * self.e + n.c * self.f + n.e,
            f: n.b * self.e + n.d * self.f + n.f,
        }
    }

    /// Where the map carries a point.
    pub(crate) fn apply(self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.a * x + self.c * y + self.e,
            self.b * x + self.d * y + self.f,
        )
    }

    /// Every corner of `quad` carried by the map; `None` when it is not four finite corners.
    pub(crate) fn apply_quad(self, quad: &[f64]) -> Option<Vec<f64>> {
        let c = corners(quad)?;
        Some(
            c.chunks_exact(2)
                .flat_map(|p| {
                    let (x, y) = self.apply((p[0], p[1]));
                    [x, y]
                })
                .collect(),
        )
    }

    /// The map back; `None` when this one flattens the plane (a box scaled to nothing has no
    /// inside to come back from).
    pub(crate) fn invert(self) -> Option<Affine> {
        let det = self.a * self.d - self.b * self.c;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        Some(Affine {
            a: self.d / det,
            b: -self.b / det,
            c: -self.c / det,
            d: self.a / det,
            e: (self.c * self.f - self.d * self.e) / det,
            f: (self.b * self.e - self.a * self.f) / det,
        })
    }
}

/// A point where `quad` is drawn, carried back into the `w` x `h` rectangle (its top left at
/// 0, 0) that the quad is the image of; `None` when the quad is flat (a box scaled to nothing has
/// no inside to point at) or not four corners.
pub(crate) fn unmap(quad: &[f64], size: (f64, f64), p: (f64, f64)) -> Option<(f64, f64)> {
    let m = Affine::onto(quad, size)?;
    // The quad's edges (as long as the page draws them) this near parallel: flat.
    if ((m.a * m.d - m.b * m.c) * size.0 * size.1).abs() < 1e-9 {
        return None;
    }
    Some(m.invert()?.apply(p))
}

/// Every corner of `quad` carried back into a `w` x `h` rectangle by [`unmap`] through `by`
/// (a quad in the same space): where `quad` is in the frame whose viewport `by` is.
pub(crate) fn unmap_quad(quad: &[f64], by: &[f64], size: (f64, f64)) -> Option<Vec<f64>> {
    let c = corners(quad)?;
    let mut out = Vec::with_capacity(8);
    for p in c.chunks_exact(2) {
        let (x, y) = unmap(by, size, (p[0], p[1]))?;
        out.extend([x, y]);
    }
    Some(out)
}

/// The inverse of [`unmap`]: a point of a `w` x `h` rectangle (its top left at 0, 0) carried onto
/// `quad`; `None` for a quad that is not four corners or an empty rectangle.
#[cfg(test)]
fn map(quad: &[f64], size: (f64, f64), p: (f64, f64)) -> Option<(f64, f64)> {
    Some(Affine::onto(quad, size)?.apply(p))
}

/// `quad` with every coordinate multiplied by `k`.
pub(crate) fn scaled(quad: &[f64], k: f64) -> Vec<f64> {
    quad.iter().map(|v| v * k).collect()
}

/// The smallest axis-aligned rectangle holding `quad`.
pub(crate) fn bounds(quad: &[f64]) -> Option<ViewRect> {
    let c = corners(quad)?;
    let (xs, ys): (Vec<f64>, Vec<f64>) = c.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x, y) = (min(&xs), min(&ys));
    Some(ViewRect {
        x,
        y,
        width: max(&xs) - x,
        height: max(&ys) - y,
    })
}

/// The root frame of `frame`'s session, the frame whose viewport the session's quads are in:
/// `frame` itself or the nearest frame above it that is out of process or the page's main frame.
fn session_root(g: &FrameGraph, frame: &FrameId) -> Result<FrameInfo> {
    let mut info = g
        .frame(frame)
        .ok_or_else(|| CliError::FrameNotFound(frame.to_string()))?;
    for _ in 0..1024 {
        if info.is_out_of_process {
            return Ok(info);
        }
        let Some(parent) = info.parent_frame_id.clone() else {
            return Ok(info);
        };
        info = g
            .frame(&parent)
            .ok_or_else(|| CliError::FrameNotFound(parent.to_string()))?;
    }
    Err(CliError::internal(format!(
        "frame {frame} is nested too deep"
    )))
}

/// A positive finite number from a by-value result.
fn ratio(v: Option<Value>) -> Option<f64> {
    v.and_then(|v| v.as_f64())
        .filter(|z| z.is_finite() && *z > 0.0)
}

/// `devicePixelRatio` in `context` of `session` (its root frame's when `None`); `None` when it
/// cannot be read.
async fn dpr_in(
    session: &Session,
    context: Option<ExecutionContextId>,
    deadline: &Deadline,
) -> Result<Option<f64>> {
    let r = session
        .send_timeout(
            &runtime::Evaluate {
                expression: "devicePixelRatio".to_string(),
                context_id: context,
                return_by_value: Some(true),
                silent: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(r.exception_details
        .is_none()
        .then_some(r.result.value)
        .and_then(ratio))
}

/// For a frame element: `[content width, content height]`, the size as laid out (before any
/// transform, in the frame's CSS pixels: what its viewport is).
const FRAME_SIZE_JS: &str = "function() { const cs = getComputedStyle(this); \
  return [this.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0), \
    this.clientHeight - (parseFloat(cs.paddingTop) || 0) - (parseFloat(cs.paddingBottom) || 0)]; }";

/// The laid-out content size of the frame element `owner` of `session` (see [`FRAME_SIZE_JS`]);
/// `None` when it has none (not rendered, empty).
async fn frame_size(
    session: &Session,
    owner: BackendNodeId,
    deadline: &Deadline,
) -> Result<Option<(f64, f64)>> {
    let r = session
        .send_timeout(
            &dom::ResolveNode {
                backend_node_id: Some(owner),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    let object_id = match r {
        Ok(r) => r.object.object_id,
        Err(cdp_protocol::CdpError::Protocol { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let Some(object_id) = object_id else {
        return Ok(None);
    };
    let handle = ObjectHandle::new(session.clone(), object_id);
    let r = handle
        .call(
            FRAME_SIZE_JS,
            Vec::new(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    let v: Option<(f64, f64)> = r
        .exception_details
        .is_none()
        .then_some(r.result.value)
        .flatten()
        .and_then(|v| serde_json::from_value(v).ok());
    Ok(v.filter(|(w, h)| *w > 0.0 && *h > 0.0))
}

/// Values of a frame worked out once however many ask at once (the boxes of one frame are
/// measured concurrently). A failure is kept too: a frame that cannot be measured costs one
/// attempt, not one per element; the first to ask gets the error itself, the rest its text.
struct Memo<T> {
    cells: Mutex<HashMap<FrameId, Arc<Kept<T>>>>,
}

/// One value of a [`Memo`], or the text of why it could not be had.
type Kept<T> = OnceCell<std::result::Result<T, String>>;

impl<T: Clone> Memo<T> {
    fn new() -> Memo<T> {
        Memo {
            cells: Mutex::new(HashMap::new()),
        }
    }

    /// The value for `frame`, from `work` when nobody asked before.
    async fn get<F>(&self, frame: &FrameId, work: impl FnOnce() -> F) -> Result<T>
    where
        F: Future<Output = Result<T>>,
    {
        let cell = Arc::clone(
            self.cells
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(frame.clone())
                .or_default(),
        );
        let mut failed = None;
        let slot = &mut failed;
        let kept = cell
            .get_or_init(move || async move {
                work().await.map_err(|e| {
                    let text = e.to_string();
                    *slot = Some(e);
                    text
                })
            })
            .await;
        if let Some(e) = failed {
            return Err(e);
        }
        kept.clone().map_err(CliError::internal)
    }
}

/// Where the frames of one page are drawn, for one command: carries a quad of any frame's session
/// into the top-level viewport through the content quad of every `<iframe>` above it as the
/// browser draws it (shifted, or scaled, rotated, skewed, zoomed). What only the page tells (each
/// `<iframe>`'s box and laid-out size, each frame's zoom) is asked once per frame, when first
/// needed, and kept: a snapshot's thousand boxes in an out-of-process frame cost a thousand
/// `DOM.getBoxModel` and a few calls more, not a few more each. Made anew for each command, after
/// it scrolls: a scroll or a layout change moves the frames.
///
/// This is not frame-graph's `to_page_rect`: that adds each `<iframe>`'s offset to a rectangle,
/// which only holds for frames that are shifted; the mapping needs each frame's laid-out size and
/// zoom, which only a script in the page tells, and a rectangle cannot hold a turned box.
pub(crate) struct PageGeometry {
    graph: FrameGraph,
    deadline: Deadline,
    /// Per session root frame: its `devicePixelRatio` (`None`: unreadable).
    root_dprs: Memo<Option<f64>>,
    /// Per frame below a session root: its zoom (see [`PageGeometry::zoom`]).
    zooms: Memo<f64>,
    /// Per child frame: its `<iframe>`'s content quad in the viewport of the session root of the
    /// frame holding it, zoom included (`None`: not rendered).
    owners: Memo<Option<Vec<f64>>>,
    /// Per out-of-process frame: the map from its viewport into the viewport of its parent's
    /// session root, and its viewport's size (`None`: its `<iframe>` is not rendered).
    hops: Memo<Option<(Affine, (f64, f64))>>,
    /// Per frame: the map from its session's quads (as `DOM.getBoxModel` answers them for its
    /// nodes) into the top-level viewport (`None`: an `<iframe>` above it is not rendered).
    maps: Memo<Option<Affine>>,
}

impl PageGeometry {
    /// The geometry of `graph`'s page, asked of the page within `deadline`.
    pub(crate) fn new(graph: FrameGraph, deadline: &Deadline) -> PageGeometry {
        PageGeometry {
            graph,
            deadline: deadline.clone(),
            root_dprs: Memo::new(),
            zooms: Memo::new(),
            owners: Memo::new(),
            hops: Memo::new(),
            maps: Memo::new(),
        }
    }

    /// The frame graph it measures.
    pub(crate) fn graph(&self) -> &FrameGraph {
        &self.graph
    }

    /// Carries `quad`, a quad of a node of `frame` as `DOM.getBoxModel` answers it in the frame's
    /// session, into the top-level viewport; `None` when an `<iframe>` on the way is not rendered
    /// (or the quad is not one).
    pub(crate) async fn to_page_quad(
        &self,
        frame: &FrameId,
        quad: &[f64],
    ) -> Result<Option<Vec<f64>>> {
        Ok(self
            .frame_map(frame)
            .await?
            .and_then(|m| m.apply_quad(quad)))
    }

    /// [`Self::to_page_quad`], then the smallest rectangle around it (for a turned box, the
    /// rectangle around it on screen).
    pub(crate) async fn to_page_rect(
        &self,
        frame: &FrameId,
        quad: &[f64],
    ) -> Result<Option<ViewRect>> {
        Ok(self
            .to_page_quad(frame, quad)
            .await?
            .as_deref()
            .and_then(bounds))
    }

    /// The content quad of `frame`'s `<iframe>` in the top-level viewport: what of the page the
    /// frame's viewport covers. `None` for the main frame and a frame whose `<iframe>` (or one
    /// above it) is not rendered.
    pub(crate) async fn frame_quad(&self, frame: &FrameId) -> Result<Option<Vec<f64>>> {
        let info = self
            .graph
            .frame(frame)
            .ok_or_else(|| CliError::FrameNotFound(frame.to_string()))?;
        let Some(parent) = info.parent_frame_id else {
            return Ok(None);
        };
        let Some(q) = self.owner_quad(frame).await? else {
            return Ok(None);
        };
        // The owner's quad is in the viewport of its session's root, zoom included already.
        let root = session_root(&self.graph, &parent)?.frame_id;
        self.to_page_quad(&root, &q).await
    }

    /// The map from the quads of `frame`'s session (for its nodes) to the top-level viewport:
    /// its zoom, then each out-of-process frame's hop on the way up.
    async fn frame_map(&self, frame: &FrameId) -> Result<Option<Affine>> {
        self.maps
            .get(frame, || async {
                let mut m = Affine::scale(self.zoom(frame).await?);
                let mut root = session_root(&self.graph, frame)?;
                for _ in 0..64 {
                    let Some(parent) = root.parent_frame_id.clone() else {
                        return Ok(Some(m));
                    };
                    let Some((hop, _)) = self.hop(&root.frame_id).await? else {
                        return Ok(None);
                    };
                    m = m.then(hop);
                    root = session_root(&self.graph, &parent)?;
                }
                Err(CliError::internal(format!(
                    "frame {frame} is nested too deep"
                )))
            })
            .await
    }

    /// For an out-of-process `frame`: the map from its viewport into the viewport of its parent's
    /// session root (through its `<iframe>`'s content quad as drawn), and its viewport's size
    /// (CSS pixels, as laid out); `None` when its `<iframe>` is not rendered.
    pub(crate) async fn hop(&self, frame: &FrameId) -> Result<Option<(Affine, (f64, f64))>> {
        self.hops
            .get(frame, || async {
                let (session, owner, _) =
                    owner_node(&self.graph, frame.as_str(), &self.deadline).await?;
                let (q, size) = tokio::join!(
                    self.owner_quad(frame),
                    frame_size(&session, owner, &self.deadline)
                );
                let (Some(q), Some(size)) = (q?, size?) else {
                    return Ok(None);
                };
                Ok(Affine::onto(&q, size).map(|m| (m, size)))
            })
            .await
    }

    /// How much larger `frame` draws its CSS pixels than its session's root frame: CSS `zoom` on
    /// an `<iframe>` (or above it) reaches into its document, whose `devicePixelRatio` carries it.
    /// `DOM.getBoxModel` answers the quads of a node in such a frame divided by that zoom (a
    /// button drawn at x = 958 in a frame zoomed by 0.75 comes back at 1277): multiplied by this,
    /// they are in the root's viewport again. 1 for a session root, and when a ratio cannot be
    /// read.
    pub(crate) async fn zoom(&self, frame: &FrameId) -> Result<f64> {
        let root = session_root(&self.graph, frame)?.frame_id;
        if root == *frame {
            return Ok(1.0);
        }
        self.zooms
            .get(frame, || async {
                let session = self
                    .graph
                    .session_for(frame)
                    .ok_or_else(|| CliError::FrameNotFound(frame.to_string()))?;
                let context = self
                    .graph
                    .execution_context_for(frame, self.deadline.capped(deadline::QUICK_CALL))
                    .await?;
                let (dpr, root_dpr) = tokio::join!(
                    dpr_in(&session, Some(context), &self.deadline),
                    self.root_dprs
                        .get(&root, || dpr_in(&session, None, &self.deadline))
                );
                Ok(match (dpr?, root_dpr?) {
                    (Some(d), Some(r)) => d / r,
                    _ => 1.0,
                })
            })
            .await
    }

    /// The content quad of `frame`'s `<iframe>` in the viewport of the session root of the frame
    /// holding it, zoom included; `None` when it is not rendered.
    async fn owner_quad(&self, frame: &FrameId) -> Result<Option<Vec<f64>>> {
        self.owners
            .get(frame, || async {
                let (session, owner, parent) =
                    owner_node(&self.graph, frame.as_str(), &self.deadline).await?;
                let parent = FrameId::from(parent.as_str());
                let (q, zoom) = tokio::join!(
                    content_quad(&session, BoxOf::Backend(owner), &self.deadline),
                    self.zoom(&parent)
                );
                let zoom = zoom?;
                Ok(q?.map(|q| scaled(&q, zoom)))
            })
            .await
    }
}

/// The eight numbers of a quad, when it is one and they are finite.
fn corners(quad: &[f64]) -> Option<[f64; 8]> {
    let c: [f64; 8] = quad.try_into().ok()?;
    c.iter().all(|v| v.is_finite()).then_some(c)
}

/// The `<iframe>` element owning `frame`: its parent frame's session, the element's backend id
/// there, and the parent's id.
pub(crate) async fn owner_node(
    graph: &FrameGraph,
    frame: &str,
    deadline: &Deadline,
) -> Result<(Session, BackendNodeId, String)> {
    let info = graph
        .frame(&frame.into())
        .ok_or_else(|| CliError::FrameNotFound(frame.to_string()))?;
    let parent = info
        .parent_frame_id
        .ok_or_else(|| CliError::FrameNotFound(format!("the parent of frame {frame}")))?;
    let session: Session = graph
        .session_for(&parent)
        .ok_or_else(|| CliError::FrameNotFound(parent.to_string()))?;
    let owner = match info.owner_backend_node_id {
        Some(o) => o,
        None => {
            session
                .send_timeout(
                    &dom::GetFrameOwner {
                        frame_id: frame.into(),
                    },
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await?
                .backend_node_id
        }
    };
    Ok((session, owner, parent.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<(f64, f64)>, b: (f64, f64)) -> bool {
        a.is_some_and(|(x, y)| (x - b.0).abs() < 1e-6 && (y - b.1).abs() < 1e-6)
    }

    fn same(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn a_shifted_box_adds_its_offset() {
        let q = [10.0, 20.0, 110.0, 20.0, 110.0, 70.0, 10.0, 70.0];
        assert!(close(map(&q, (100.0, 50.0), (5.0, 6.0)), (15.0, 26.0)));
        assert!(close(unmap(&q, (100.0, 50.0), (15.0, 26.0)), (5.0, 6.0)));
    }

    #[test]
    fn a_scaled_and_turned_box_maps_both_ways() {
        // 200 x 100 scaled by 0.5 and turned 90 degrees clockwise about (300, 300).
        let q = [325.0, 250.0, 325.0, 350.0, 275.0, 350.0, 275.0, 250.0];
        let size = (200.0, 100.0);
        assert!(close(map(&q, size, (0.0, 0.0)), (325.0, 250.0)));
        assert!(close(map(&q, size, (100.0, 50.0)), (300.0, 300.0)));
        assert!(close(map(&q, size, (40.0, 10.0)), (320.0, 270.0)));
        assert!(close(unmap(&q, size, (320.0, 270.0)), (40.0, 10.0)));
        let back = unmap_quad(&q, &q, size).unwrap_or_default();
        let want = [0.0, 0.0, 200.0, 0.0, 200.0, 100.0, 0.0, 100.0];
        assert!(same(&back, &want), "{back:?}");
    }

    #[test]
    fn a_quad_of_a_frame_maps_onto_its_owner_and_is_bounded() {
        // A frame of 400 x 200 drawn at half size from (100, 50): a 20 x 10 box at (40, 20) in
        // it is 10 x 5 at (120, 60) on the page.
        let owner = [100.0, 50.0, 300.0, 50.0, 300.0, 150.0, 100.0, 150.0];
        let b = [40.0, 20.0, 60.0, 20.0, 60.0, 30.0, 40.0, 30.0];
        let m = Affine::onto(&owner, (400.0, 200.0));
        let q = m.and_then(|m| m.apply_quad(&b)).unwrap_or_default();
        let r = bounds(&q).unwrap_or_default();
        assert_eq!(
            (r.x, r.y, r.width, r.height),
            (120.0, 60.0, 10.0, 5.0),
            "{q:?}"
        );
        // Turned 90 degrees, the bounds hold the turned box.
        let turned = [325.0, 250.0, 325.0, 350.0, 275.0, 350.0, 275.0, 250.0];
        let r = bounds(&turned).unwrap_or_default();
        assert_eq!((r.x, r.y, r.width, r.height), (275.0, 250.0, 50.0, 100.0));
        // A zoomed frame's quad comes back divided by the zoom.
        assert_eq!(scaled(&[4.0, 8.0], 0.75), vec![3.0, 6.0]);
        assert_eq!(bounds(&[1.0, 2.0]), None);
    }

    #[test]
    fn hops_compose_into_one_map_and_invert() {
        // A zoom of 0.5 in a frame of 400 x 200 drawn turned 90 degrees clockwise at half size
        // (the quad above), inside a frame of 800 x 600 shifted by (10, 20) and drawn at double
        // size.
        let turned = [325.0, 250.0, 325.0, 350.0, 275.0, 350.0, 275.0, 250.0];
        let inner = Affine::onto(&turned, (200.0, 100.0));
        let outer = Affine::onto(
            &[10.0, 20.0, 1610.0, 20.0, 1610.0, 1220.0, 10.0, 1220.0],
            (800.0, 600.0),
        );
        let (Some(inner), Some(outer)) = (inner, outer) else {
            panic!("quads of non-empty rectangles map");
        };
        let m = Affine::scale(0.5).then(inner).then(outer);
        // (80, 20) zoomed is (40, 10), turned (320, 270), doubled and shifted (650, 560).
        assert!(close(Some(m.apply((80.0, 20.0))), (650.0, 560.0)));
        let back = m.invert().map(|i| i.apply((650.0, 560.0)));
        assert!(close(back, (80.0, 20.0)));
        let unit = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        assert!(same(
            &Affine::IDENTITY.apply_quad(&unit).unwrap_or_default(),
            &unit
        ));
    }

    #[test]
    fn flat_or_malformed_quads_map_nothing() {
        let flat = [0.0, 0.0, 10.0, 0.0, 10.0, 0.0, 0.0, 0.0];
        assert_eq!(unmap(&flat, (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&[1.0, 2.0], (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&flat, (0.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(unmap_quad(&flat, &flat, (10.0, 10.0)), None);
        assert_eq!(Affine::scale(0.0).invert(), None);
        assert_eq!(Affine::IDENTITY.apply_quad(&[f64::NAN; 8]), None);
    }
}
