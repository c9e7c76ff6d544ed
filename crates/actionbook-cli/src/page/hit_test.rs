//! Hit testing a point of the top-level viewport through every frame: the innermost element under
//! it, in the frame (and the session, for an out-of-process iframe) that owns it. Same-process
//! frames are entered by Chromium's own hit test; each out-of-process `<iframe>` hit is entered by
//! asking its own session at the point moved into its content box.

use cdp_protocol::{BackendNodeId, FrameId, Session, dom};
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
        let r = session
            .send_timeout(
                &dom::GetNodeForLocation {
                    x: lx.floor() as i64,
                    y: ly.floor() as i64,
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
        let (Some(cx), Some(cy)) = (model.content.first(), model.content.get(1)) else {
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
        if lx < 0.0 || ly < 0.0 {
            // On the iframe's border or padding.
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
