//! A box as the browser draws it: a CDP quad (four corners, clockwise from the layout top left)
//! is the image of the box's layout rectangle under every transform above it (scale, rotation,
//! skew, zoom; a translation too). Taken as an affine map (what 2D transforms are), it carries a
//! point of the rectangle onto the screen and back, which adding the box's offset cannot do once
//! anything above it is scaled or turned.

use cdp_protocol::{BackendNodeId, Session, dom};

use crate::deadline::{self, Deadline};
use crate::error::Result;
use crate::page::eval::ObjectHandle;

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

/// The eight numbers of a quad, when it is one and they are finite.
fn corners(quad: &[f64]) -> Option<[f64; 8]> {
    let c: [f64; 8] = quad.try_into().ok()?;
    c.iter().all(|v| v.is_finite()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inverse of [`unmap`]: a point of a `w` x `h` rectangle (its top left at 0, 0) carried onto `quad`; `None` for a quad
    /// that is not four corners or an empty rectangle.
    fn map(quad: &[f64], (w, h): (f64, f64), (x, y): (f64, f64)) -> Option<(f64, f64)> {
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
    fn flat_or_malformed_quads_map_nothing() {
        let flat = [0.0, 0.0, 10.0, 0.0, 10.0, 0.0, 0.0, 0.0];
        assert_eq!(unmap(&flat, (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&[1.0, 2.0], (10.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(map(&flat, (0.0, 10.0), (1.0, 1.0)), None);
        assert_eq!(unmap_quad(&flat, &flat, (10.0, 10.0)), None);
    }
}
