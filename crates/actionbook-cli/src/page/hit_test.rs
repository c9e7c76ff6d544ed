//! Hit testing a point of the top-level viewport through every frame: the innermost element under
//! it, in the frame (and the session, for an out-of-process iframe) that owns it. Same-process
//! frames are entered by Chromium's own hit test; each out-of-process `<iframe>` hit is entered by
//! asking its own session at the point moved into its content box.
//!
//! `DOM.getNodeForLocation` takes document coordinates (it subtracts the frame's scroll offset
//! itself), so each document's scroll offset is added to the viewport point before asking it.

use cdp_protocol::{BackendNodeId, FrameId, Session, dom, page};
use frame_graph::FrameGraph;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// The element under a point.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    /// Its frame.
    pub frame_id: FrameId,
    /// The session owning that frame's document.
    pub session: Session,
    /// The element.
    pub backend_node_id: i64,
}

/// The innermost element at `(x, y)` (CSS pixels of the top-level viewport), through
/// out-of-process iframes; `ELEMENT_NOT_FOUND` when nothing is there.
pub(crate) async fn hit_test(
    g: &FrameGraph,
    page: &Session,
    x: f64,
    y: f64,
    deadline: &Deadline,
) -> Result<Hit> {
    let nothing = || CliError::ElementNotFound {
        selector: format!("{x},{y} (nothing is there)"),
    };
    let main = g.main_frame().frame_id;
    let (mut session, mut lx, mut ly) = (page.clone(), x, y);
    let mut frame_of_session = main;
    for _ in 0..32 {
        let (sx, sy) = scroll_offset(&session, deadline).await?;
        let r = session
            .send_timeout(
                &dom::GetNodeForLocation {
                    x: (lx + sx).floor() as i64,
                    y: (ly + sy).floor() as i64,
                    include_user_agent_shadow_dom: Some(false),
                    ignore_pointer_events_none: Some(true),
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await
            .map_err(|e| match e {
                cdp_protocol::CdpError::Protocol { .. } => nothing(),
                e => e.into(),
            })?;
        let frame = r.frame_id.clone().unwrap_or(frame_of_session.clone());
        let backend = r.backend_node_id.get();
        let inner = g
            .frame_by_owner(&frame, BackendNodeId::new(backend))
            .filter(|f| f.is_out_of_process);
        let Some(inner) = inner else {
            return Ok(Hit {
                frame_id: frame,
                session,
                backend_node_id: backend,
            });
        };
        // An out-of-process iframe: into its content box, then ask its own session.
        let model = session
            .send_timeout(
                &dom::GetBoxModel {
                    backend_node_id: Some(BackendNodeId::new(backend)),
                    ..Default::default()
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await?
            .model;
        // The content box in this document's viewport (a quad; its corners bound it).
        let (Some((cx, cw)), Some((cy, ch))) = (span(&model.content, 0), span(&model.content, 1))
        else {
            return Err(nothing());
        };
        let Some(next) = g.session_for(&inner.frame_id) else {
            // Crashed or not attached yet: the <iframe> element is what is there.
            return Ok(Hit {
                frame_id: frame,
                session,
                backend_node_id: backend,
            });
        };
        lx -= cx;
        ly -= cy;
        if lx < 0.0 || ly < 0.0 || lx >= cw || ly >= ch {
            // On the iframe's border or padding (any side): the <iframe> element is hit.
            return Ok(Hit {
                frame_id: frame,
                session,
                backend_node_id: backend,
            });
        }
        session = next;
        frame_of_session = inner.frame_id;
    }
    Err(nothing())
}

/// How far the document of `session`'s top frame is scrolled (CSS pixels): what turns a point of
/// its viewport into one of the document.
async fn scroll_offset(session: &Session, deadline: &Deadline) -> Result<(f64, f64)> {
    let m = session
        .send_timeout(
            &page::GetLayoutMetrics,
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    // The visual viewport's page offset includes a pinch-zoom pan; an out-of-process frame's
    // renderer has none and reports its own scroll there too.
    Ok(match (m.css_visual_viewport, m.css_layout_viewport) {
        (Some(v), _) => (v.page_x, v.page_y),
        (None, Some(l)) => (l.page_x, l.page_y),
        (None, None) => (0.0, 0.0),
    })
}

/// The start and length along one axis (0: x, 1: y) of a quad's bounding box.
fn span(quad: &[f64], axis: usize) -> Option<(f64, f64)> {
    let values: Vec<f64> = quad.iter().skip(axis).step_by(2).copied().collect();
    let min = values.iter().copied().reduce(f64::min)?;
    let max = values.iter().copied().reduce(f64::max)?;
    Some((min, max - min))
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn a_quad_spans_its_corners() {
        let q = [408.0, 608.0, 708.0, 608.0, 708.0, 728.0, 408.0, 728.0];
        assert_eq!(span(&q, 0), Some((408.0, 300.0)));
        assert_eq!(span(&q, 1), Some((608.0, 120.0)));
        assert_eq!(span(&[], 0), None);
    }
}
