//! Finding the element a command acts on: `@eN`, an encoded id, a CSS selector or an XPath, in any
//! frame, to a [`Located`] node whose page handle is released when it is dropped.

use a11y_snapshot::{EncodedId, Known, ResolveOptions, Target};
use cdp_protocol::{FrameId, Session, dom};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::frames::TabFrames;

/// A node found for an action. Dropping it releases its handle in the page.
#[derive(Debug)]
pub(crate) struct Located {
    /// The node's handle, in the session that owns its frame.
    pub handle: ObjectHandle,
    /// The node's frame.
    pub frame_id: String,
    /// Its encoded id (`<frameIndex>-<backendNodeId>`).
    pub encoded: EncodedId,
}

impl Located {
    /// The session owning the node's frame (send node commands here).
    pub fn session(&self) -> &Session {
        self.handle.session()
    }
}

/// Resolves `selector` (`@eN`, an encoded id, a CSS selector or an XPath) to a live node in any
/// frame of the tab.
pub(crate) async fn locate(
    frames: &mut TabFrames,
    page: &Session,
    selector: &str,
    deadline: &Deadline,
) -> Result<Located> {
    let g = frames.graph(page, deadline).await?;
    let target = Target::parse(selector).map_err(|e| CliError::on_selector(e, selector))?;
    let known = Known {
        refs: frames.refs.as_ref(),
        snapshot: None,
    };
    let opts = ResolveOptions {
        search_frames: true,
        timeout: deadline.capped(deadline::RESOLVE),
    };
    let node = match a11y_snapshot::resolve(&g, &target, known, &opts).await {
        Ok(n) => n,
        Err(a11y_snapshot::SnapshotError::RefNotFound { .. }) => {
            let number = match &target {
                Target::Ref(r) => r.number(),
                _ => 0,
            };
            return Err(CliError::unknown_ref(
                frames.refs.as_ref(),
                number,
                selector,
            ));
        }
        Err(e) => return Err(CliError::on_selector(e, selector)),
    };
    Ok(Located {
        encoded: node.encoded_id(),
        frame_id: node.frame_id,
        handle: ObjectHandle::new(node.session, node.object_id),
    })
}

/// The centre of a node in page coordinates (CSS pixels of the top-level viewport), after
/// scrolling it into view.
pub(crate) async fn center_in_page(
    frames: &mut TabFrames,
    page: &Session,
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<(f64, f64)> {
    let g = frames.graph(page, deadline).await?;
    let object_id = Some(node.handle.object_id().clone());
    let _ = node
        .session()
        .send_timeout(
            &dom::ScrollIntoViewIfNeeded {
                object_id: object_id.clone(),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    let quads = match node
        .session()
        .send_timeout(
            &dom::GetContentQuads {
                object_id,
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await
    {
        Ok(q) => q.quads,
        Err(e) if e.is_gone() => return Err(CliError::on_node(e, selector)),
        // No layout object (display:none and the like): nothing to click.
        Err(cdp_protocol::CdpError::Protocol { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let pts = quads
        .iter()
        .find(|q| q.len() == 8)
        .ok_or_else(|| CliError::ElementNotFound {
            selector: format!("{selector} (not visible)"),
        })?;
    let cx = (pts[0] + pts[2] + pts[4] + pts[6]) / 4.0;
    let cy = (pts[1] + pts[3] + pts[5] + pts[7]) / 4.0;
    // Quads are in the frame's own viewport for OOPIF content; the graph adds the iframe offsets.
    Ok(
        g.to_page_point(&FrameId::from(node.frame_id.as_str()), cx, cy)
            .await?,
    )
}
