//! What capture and resolution need to know about a page's frames, behind one small trait, so the
//! snapshot code works with `frame-graph`'s live graph or with the single-session stand-in here.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use cdp_protocol::{ExecutionContextId, FrameId, Session, page};

use crate::error::SnapshotError;
use crate::tree::BoundingBox;

/// One frame of the page, as capture and resolution use it.
#[derive(Debug, Clone)]
pub struct FrameHandle {
    /// CDP frameId.
    pub frame_id: String,
    /// Stable frame ordinal (0 = main frame).
    pub frame_index: u32,
    /// Parent frame's id.
    pub parent_frame_id: Option<String>,
    /// The `<iframe>` element in the parent frame's document, when known.
    pub owner_backend_node_id: Option<i64>,
    /// URL.
    pub url: String,
    /// The session that owns the frame's document (the OOPIF's own session for out-of-process frames).
    pub session: Session,
}

/// The frames of one page.
pub trait PageFrames: Send + Sync {
    /// Every frame, main frame first, then depth-first in document order.
    fn frames(&self) -> Vec<FrameHandle>;

    /// An execution context of the frame in which the crate may run its own scripts.
    fn execution_context(
        &self,
        frame_id: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<ExecutionContextId, SnapshotError>> + Send;

    /// Drops a context id that turned out to be dead (the next call fetches a fresh one).
    fn forget_context(&self, _frame_id: &str) {}

    /// Translates a rectangle from the frame's session viewport to top-level page coordinates. The
    /// default is the identity, right for every frame that shares the page's process (F12);
    /// frame-graph's adds each out-of-process `<iframe>`'s offset, which is right only for frames
    /// that are shifted, not scaled, turned or zoomed (a provider that knows how each `<iframe>`
    /// is drawn maps through its content quad instead).
    fn to_page_rect(
        &self,
        _frame_id: &str,
        rect: BoundingBox,
    ) -> impl Future<Output = Result<BoundingBox, SnapshotError>> + Send {
        std::future::ready(Ok(rect))
    }
}

/// Frames of a page driven through its page session only: same-process frames from `Page.getFrameTree`,
/// scripts run in an isolated world per frame. Out-of-process iframes are not seen (use `frame-graph`).
#[derive(Debug)]
pub struct SessionFrames {
    session: Session,
    frames: Mutex<Vec<FrameHandle>>,
    ordinals: Mutex<HashMap<String, u32>>,
    contexts: Mutex<HashMap<String, ExecutionContextId>>,
}

impl SessionFrames {
    /// Reads the frame tree of the page session.
    pub async fn new(session: Session) -> Result<SessionFrames, SnapshotError> {
        let me = SessionFrames {
            session,
            frames: Mutex::new(Vec::new()),
            ordinals: Mutex::new(HashMap::new()),
            contexts: Mutex::new(HashMap::new()),
        };
        me.refresh().await?;
        Ok(me)
    }

    /// The page session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Re-reads `Page.getFrameTree` (call before a snapshot). Ordinals stay stable per frameId; the main
    /// frame is always 0.
    pub async fn refresh(&self) -> Result<(), SnapshotError> {
        let tree = self.session.send(&page::GetFrameTree).await?.frame_tree;
        let mut flat: Vec<(String, Option<String>, String)> = Vec::new();
        let mut stack = vec![tree];
        while let Some(t) = stack.pop() {
            flat.push((
                t.frame.id.as_str().to_string(),
                t.frame.parent_id.as_ref().map(|p| p.as_str().to_string()),
                t.frame.url.clone(),
            ));
            if let Some(kids) = t.child_frames {
                stack.extend(kids.into_iter().rev());
            }
        }
        let handles = {
            let mut ord = self.ordinals.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((main, _, _)) = flat.first()
                && ord.get(main) != Some(&0)
            {
                ord.clear();
                self.contexts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clear();
                ord.insert(main.clone(), 0);
            }
            flat.into_iter()
                .map(|(id, parent, url)| {
                    let next = ord.values().max().map_or(0, |m| m + 1);
                    let frame_index = *ord.entry(id.clone()).or_insert(next);
                    FrameHandle {
                        frame_id: id,
                        frame_index,
                        parent_frame_id: parent,
                        owner_backend_node_id: None,
                        url,
                        session: self.session.clone(),
                    }
                })
                .collect::<Vec<_>>()
        };
        *self.frames.lock().unwrap_or_else(|e| e.into_inner()) = handles;
        Ok(())
    }
}

impl PageFrames for SessionFrames {
    fn frames(&self) -> Vec<FrameHandle> {
        self.frames
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn execution_context(
        &self,
        frame_id: &str,
        timeout: Duration,
    ) -> Result<ExecutionContextId, SnapshotError> {
        if let Some(id) = self
            .contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(frame_id)
        {
            return Ok(*id);
        }
        let world = page::CreateIsolatedWorld {
            frame_id: FrameId::new(frame_id),
            world_name: Some("a11y-snapshot".into()),
            grant_universal_access: None,
        };
        let id = self
            .session
            .send_timeout(&world, timeout)
            .await?
            .execution_context_id;
        self.contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(frame_id.to_string(), id);
        Ok(id)
    }

    fn forget_context(&self, frame_id: &str) {
        self.contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(frame_id);
    }
}

impl PageFrames for frame_graph::FrameGraph {
    fn frames(&self) -> Vec<FrameHandle> {
        let page = self.page_session();
        self.frames()
            .into_iter()
            // A crashed renderer answers nothing: its iframe line stays (from the parent's
            // document), its content is gone.
            .filter(|f| !self.is_crashed(&f.frame_id))
            .map(|f| FrameHandle {
                session: self
                    .session_for(&f.frame_id)
                    .unwrap_or_else(|| page.clone()),
                frame_id: f.frame_id.as_str().to_string(),
                frame_index: f.frame_index.get(),
                parent_frame_id: f.parent_frame_id.map(|p| p.as_str().to_string()),
                owner_backend_node_id: f.owner_backend_node_id.map(|b| b.get()),
                url: f.url,
            })
            .collect()
    }

    async fn execution_context(
        &self,
        frame_id: &str,
        timeout: Duration,
    ) -> Result<ExecutionContextId, SnapshotError> {
        Ok(self
            .execution_context_for(&FrameId::new(frame_id), timeout)
            .await?)
    }

    async fn to_page_rect(
        &self,
        frame_id: &str,
        rect: BoundingBox,
    ) -> Result<BoundingBox, SnapshotError> {
        let r = frame_graph::Rect::new(rect.x, rect.y, rect.width, rect.height);
        let r = frame_graph::FrameGraph::to_page_rect(self, &FrameId::new(frame_id), r).await?;
        Ok(BoundingBox {
            x: r.x,
            y: r.y,
            width: r.width,
            height: r.height,
        })
    }
}
