//! A box as the browser draws it: a CDP quad (four corners, clockwise from the layout top left)
//! is the image of the box's layout rectangle under every transform above it (scale, rotation,
//! skew, zoom; a translation too). Taken as an affine map (what 2D transforms are), it carries a
//! point of the rectangle onto the screen and back, which adding the box's offset cannot do once
//! anything above it is scaled or turned.

use cdp_protocol::{BackendNodeId, FrameId, RemoteObjectId, Session, dom, runtime};
use frame_graph::FrameGraph;
use serde_json::Value;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::{self, ObjectHandle};

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

/// A point where `quad` is drawn, carried back into the `w` x `h` rectangle (its top left at
/// 0, 0) that the quad is the image of; `None` when the quad is flat (a box scaled to nothing has
/// no inside to point at) or not four corners.
pub(crate) fn unmap(quad: &[f64], (w, h): (f64, f64), (x, y): (f64, f64)) -> Option<(f64, f64)> {
    let [x1, y1, x2, y2, _, _, x4, y4] = corners(quad)?;
    let (ux, uy, vx, vy) = (x2 - x1, y2 - y1, x4 - x1, y4 - y1);
    let det = ux * vy - uy * vx;
    if det.abs() < 1e-9 || !(w > 0.0 && h > 0.0) {
        return None;
    }
    let (px, py) = (x - x1, y - y1);
    let s = (px * vy - py * vx) / det;
    let t = (ux * py - uy * px) / det;
    Some((s * w, t * h))
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
pub(crate) fn map(quad: &[f64], (w, h): (f64, f64), (x, y): (f64, f64)) -> Option<(f64, f64)> {
    let [x1, y1, x2, y2, _, _, x4, y4] = corners(quad)?;
    if !(w > 0.0 && h > 0.0) {
        return None;
    }
    let (s, t) = (x / w, y / h);
    Some((
        x1 + s * (x2 - x1) + t * (x4 - x1),
        y1 + s * (y2 - y1) + t * (y4 - y1),
    ))
}

/// Every corner of `quad` (in a `w` x `h` rectangle) carried onto `onto` by [`map`]: where a quad of
/// a frame's viewport is drawn in the viewport `onto` (its content quad) is in.
pub(crate) fn map_quad(quad: &[f64], onto: &[f64], size: (f64, f64)) -> Option<Vec<f64>> {
    let c = corners(quad)?;
    let mut out = Vec::with_capacity(8);
    for p in c.chunks_exact(2) {
        let (x, y) = map(onto, size, (p[0], p[1]))?;
        out.extend([x, y]);
    }
    Some(out)
}

/// `quad` with every coordinate multiplied by `k`.
pub(crate) fn scaled(quad: &[f64], k: f64) -> Vec<f64> {
    quad.iter().map(|v| v * k).collect()
}

/// The smallest axis-aligned rectangle holding `quad`: `(x, y, width, height)`.
pub(crate) fn bounds(quad: &[f64]) -> Option<(f64, f64, f64, f64)> {
    let c = corners(quad)?;
    let (xs, ys): (Vec<f64>, Vec<f64>) = c.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x0, y0) = (min(&xs), min(&ys));
    Some((x0, y0, max(&xs) - x0, max(&ys) - y0))
}

/// Whether `frame` is the root frame of its session (the page's main frame or an out-of-process
/// frame): the frame whose viewport the session's quads are in.
pub(crate) fn is_session_root(g: &FrameGraph, frame: &FrameId) -> bool {
    g.frame(frame)
        .is_none_or(|f| f.parent_frame_id.is_none() || f.is_out_of_process)
}

/// `devicePixelRatio` of the window the function runs in (a node's own window for a node).
const DPR_JS: &str = "function() { const d = this && (this.ownerDocument || this); \
  const w = d && d.defaultView; return w ? w.devicePixelRatio : devicePixelRatio; }";

/// A positive finite number from a by-value result.
fn ratio(v: Option<Value>) -> Option<f64> {
    v.and_then(|v| v.as_f64())
        .filter(|z| z.is_finite() && *z > 0.0)
}

/// `devicePixelRatio` of the session's root frame.
async fn root_dpr(session: &Session, deadline: &Deadline) -> Result<Option<f64>> {
    let r = session
        .send_timeout(
            &runtime::Evaluate {
                expression: "devicePixelRatio".to_string(),
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

/// How much larger a node's frame draws its CSS pixels than the session's root frame, given the
/// frame's `devicePixelRatio` (`dpr`): CSS `zoom` on an `<iframe>` (or above it) reaches into its
/// document, whose `devicePixelRatio` carries it. `DOM.getBoxModel` answers the quads of a node
/// in such a frame divided by that zoom (a button drawn at x = 958 in a frame zoomed by 0.75 comes
/// back at 1277): multiplied by this, they are in the root's viewport again. 1 for the root
/// itself, and when a ratio cannot be read.
async fn zoom_from(session: &Session, dpr: Option<f64>, deadline: &Deadline) -> Result<f64> {
    let Some(dpr) = dpr else {
        return Ok(1.0);
    };
    Ok(root_dpr(session, deadline).await?.map_or(1.0, |r| dpr / r))
}

/// The zoom (see [`zoom_from`]) of `frame`, in `session`, for its node `object`.
pub(crate) async fn zoom_of(
    g: &FrameGraph,
    session: &Session,
    frame: &FrameId,
    object: &RemoteObjectId,
    deadline: &Deadline,
) -> Result<f64> {
    if is_session_root(g, frame) {
        return Ok(1.0);
    }
    let call = runtime::CallFunctionOn {
        object_id: Some(object.clone()),
        ..eval::function_call(DPR_JS, Vec::new(), false)
    };
    let r = session
        .send_timeout(&call, deadline.capped(deadline::QUICK_CALL))
        .await?;
    let dpr = r
        .exception_details
        .is_none()
        .then_some(r.result.value)
        .and_then(ratio);
    zoom_from(session, dpr, deadline).await
}

/// For a frame element: `[content width, content height, devicePixelRatio]`, the size as laid out
/// (before any transform, in the frame's CSS pixels: what its viewport is).
const FRAME_SIZE_JS: &str = "function() { const cs = getComputedStyle(this); \
  return [this.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0), \
    this.clientHeight - (parseFloat(cs.paddingTop) || 0) - (parseFloat(cs.paddingBottom) || 0), \
    devicePixelRatio]; }";

/// The frame element `owner` of `session` (in frame `frame`): its content quad in the viewport of
/// the session's root frame (zoom included, see [`zoom_from`]) and the size of the viewport of the
/// frame it shows, which the quad is the image of. `None` when it is not rendered.
pub(crate) async fn frame_box(
    g: &FrameGraph,
    session: &Session,
    frame: &FrameId,
    owner: BackendNodeId,
    deadline: &Deadline,
) -> Result<Option<(Vec<f64>, (f64, f64))>> {
    let Some(q) = content_quad(session, BoxOf::Backend(owner), deadline).await? else {
        return Ok(None);
    };
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
    let v: Option<(f64, f64, f64)> = r
        .exception_details
        .is_none()
        .then_some(r.result.value)
        .flatten()
        .and_then(|v| serde_json::from_value(v).ok());
    let Some((w, h, dpr)) = v.filter(|(w, h, _)| *w > 0.0 && *h > 0.0) else {
        return Ok(None);
    };
    let zoom = if is_session_root(g, frame) {
        1.0
    } else {
        zoom_from(session, ratio(Some(Value::from(dpr))), deadline).await?
    };
    Ok(Some((scaled(&q, zoom), (w, h))))
}

/// Carries `quad`, in the viewport of the session root of `frame` (a node of `frame` as
/// `DOM.getBoxModel` answers it, multiplied by [`zoom_of`]), into the top-level viewport: through
/// the content quad of every out-of-process frame's `<iframe>` on the way up, as the browser draws
/// it (shifted, or scaled, rotated, skewed, zoomed). `None` when one of them is not rendered.
///
/// This is not frame-graph's `to_page_rect`: that adds each `<iframe>`'s offset to a rectangle,
/// which only holds for frames that are shifted; the mapping needs each frame's laid-out size and
/// zoom, which only a script in the page tells, and a rectangle cannot hold a turned box.
pub(crate) async fn to_page(
    g: &FrameGraph,
    frame: &FrameId,
    quad: Vec<f64>,
    deadline: &Deadline,
) -> Result<Option<Vec<f64>>> {
    let mut q = quad;
    let mut cur = frame.clone();
    for _ in 0..64 {
        // Up to the session's root frame: same-process frames are in its viewport already.
        let mut info = g
            .frame(&cur)
            .ok_or_else(|| CliError::FrameNotFound(cur.to_string()))?;
        for _ in 0..1024 {
            if info.is_out_of_process {
                break;
            }
            let Some(parent) = info.parent_frame_id.clone() else {
                return Ok(Some(q));
            };
            info = g
                .frame(&parent)
                .ok_or_else(|| CliError::FrameNotFound(parent.to_string()))?;
        }
        let (session, owner, parent) = owner_node(g, info.frame_id.as_str(), deadline).await?;
        let parent = FrameId::from(parent.as_str());
        let Some((by, size)) = frame_box(g, &session, &parent, owner, deadline).await? else {
            return Ok(None);
        };
        let Some(next) = map_quad(&q, &by, size) else {
            return Ok(None);
        };
        q = next;
        cur = parent;
    }
    Err(CliError::internal(format!(
        "frame {frame} is nested too deep"
    )))
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
        assert_eq!(back.len(), 8, "{back:?}");
        assert!(
            back.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{back:?}"
        );
    }

    #[test]
    fn a_quad_of_a_frame_maps_onto_its_owner_and_is_bounded() {
        // A frame of 400 x 200 drawn at half size from (100, 50): a 20 x 10 box at (40, 20) in
        // it is 10 x 5 at (120, 60) on the page.
        let owner = [100.0, 50.0, 300.0, 50.0, 300.0, 150.0, 100.0, 150.0];
        let b = [40.0, 20.0, 60.0, 20.0, 60.0, 30.0, 40.0, 30.0];
        let q = map_quad(&b, &owner, (400.0, 200.0)).unwrap_or_default();
        assert_eq!(bounds(&q), Some((120.0, 60.0, 10.0, 5.0)), "{q:?}");
        // Turned 90 degrees, the bounds hold the turned box.
        let turned = [325.0, 250.0, 325.0, 350.0, 275.0, 350.0, 275.0, 250.0];
        assert_eq!(bounds(&turned), Some((275.0, 250.0, 50.0, 100.0)));
        // A zoomed frame's quad comes back divided by the zoom.
        assert_eq!(scaled(&[4.0, 8.0], 0.75), vec![3.0, 6.0]);
        assert_eq!(bounds(&[1.0, 2.0]), None);
    }

    #[test]
    fn flat_or_malformed_quads_map_nothing() {
        let flat = [0.0, 0.0, 10.0, 0.0, 10.0, 0.0, 0.0, 0.0];
        assert_eq!(unmap(&flat, (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&[1.0, 2.0], (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&flat, (0.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(unmap_quad(&flat, &flat, (10.0, 10.0)), None);
    }
}
