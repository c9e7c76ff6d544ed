//! Hit testing a point of the top-level viewport through every frame: the innermost element under
//! it, in the frame (and the session, for an out-of-process iframe) that owns it. Same-process
//! frames are entered by Chromium's own hit test; each out-of-process `<iframe>` hit is entered by
//! asking its own session at the point carried into its frame's viewport through the `<iframe>`'s
//! content quad (transforms and zoom included, [`PageGeometry::hop`]).
//!
//! `DOM.getNodeForLocation` takes document coordinates (it subtracts the frame's scroll offset
//! itself), so each document's scroll offset is added to the viewport point before asking it.

use cdp_protocol::{BackendNodeId, FrameId, Session, dom, page};
use frame_graph::FrameGraph;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::quad::PageGeometry;

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
    let geo = PageGeometry::new(g.clone(), deadline);
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
        // An out-of-process iframe: the point carried into its frame's viewport through the
        // content quad of the <iframe> as the browser draws it (shifted, or scaled, rotated,
        // skewed, zoomed: its offset alone would miss), then asked of the frame's own session.
        let Some((hop, size)) = geo.hop(&inner.frame_id).await? else {
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
        let inside = hop
            .invert()
            .map(|back| back.apply((lx, ly)))
            .filter(|(ix, iy)| (0.0..size.0).contains(ix) && (0.0..size.1).contains(iy));
        let Some((ix, iy)) = inside else {
            // On the iframe's border or padding (any side): the <iframe> element is hit.
            return Ok(Hit {
                frame_id: frame,
                session,
                backend_node_id: backend,
            });
        };
        (lx, ly) = (ix, iy);
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
