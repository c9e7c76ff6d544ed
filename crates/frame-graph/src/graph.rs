// Over 1,000 lines on purpose: one type and its one event task (apply, attach, recover, sync) over
// one private shared state; the CDP-free bookkeeping is already apart (registry.rs, dom_order.rs).
//! [`FrameGraph`]: the registry kept current by CDP events from the page session and every OOPIF
//! session, through one ordered connection-level event stream applied by one background task.

use crate::dom_order::{DomFrames, GetFrameDocument, owner_query};
use crate::error::FrameGraphError;
use crate::registry::{DetachReason, FrameRegistry, SessionKey, TreeFrame};
use crate::types::{FrameGraphOptions, FrameIndex, FrameInfo, Rect};
use cdp_protocol::{
    BackendNodeId, CdpError, ExecutionContextId, FrameId, Link, Session, SessionId, dom, page,
    runtime, target,
};
use cdp_protocol::{EventFilter, RawEvent};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// Every event method the graph listens to.
const EVENTS: &[&str] = &[
    "Page.frameAttached",
    "Page.frameNavigated",
    "Page.frameDetached",
    "Page.navigatedWithinDocument",
    "Runtime.executionContextCreated",
    "Runtime.executionContextDestroyed",
    "Runtime.executionContextsCleared",
    "Target.attachedToTarget",
    "Target.detachedFromTarget",
    "Inspector.detached",
    "Inspector.targetCrashed",
    "Inspector.targetReloadedAfterCrash",
];

/// How long a found iframe target may still be waiting in the event queue before the graph
/// takes its attach event for lost.
const LATE_ATTACH_GRACE: Duration = Duration::from_millis(150);

/// State shared by the handles, the event task and short-lived helper tasks.
#[derive(Debug)]
struct Shared {
    registry: Mutex<FrameRegistry>,
    /// Bumped (with the registry version) after every change, so waiters can re-check.
    changed: watch::Sender<u64>,
    detached: AtomicBool,
    /// OOPIF sessions being set up (domains enabled, resumed, frame tree read).
    setups_in_flight: AtomicUsize,
    /// Events lost to a full queue so far.
    dropped_events: AtomicU64,
    /// Paused iframe targets whose `attachedToTarget` was lost and that the graph found and
    /// brought back (diagnostics, and the proof in tests that the recovery ran).
    recovered_targets: AtomicU64,
    /// A recovery after lost events is running / another one was asked for meanwhile.
    recovering: AtomicBool,
    recover_again: AtomicBool,
    conn: Link,
    page: Session,
    options: FrameGraphOptions,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, FrameRegistry> {
        // A panic while holding the lock cannot leave the registry half-updated in a way that
        // matters more than losing the graph; keep serving.
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the registry, then looks up owners of newly placed frames and wakes waiters.
    fn mutate<R>(self: &Arc<Self>, f: impl FnOnce(&mut FrameRegistry) -> R) -> R {
        let (out, lookups, released, version) = {
            let mut reg = self.lock();
            let out = f(&mut reg);
            let released = reg.release_orphaned_sessions();
            let added = reg.take_added();
            let lookups: Vec<(FrameId, SessionKey)> = added
                .into_iter()
                .filter(|id| reg.owner_of(id).is_none())
                .filter_map(|id| {
                    let parent = reg.parent_of(&id)?.clone();
                    let session = reg.session_of(&parent)?.clone();
                    Some((id, session))
                })
                .collect();
            (out, lookups, released, reg.version())
        };
        self.changed.send_replace(version);
        for (child, parent) in released {
            // Detached on the session that auto-attached it; fails harmlessly if already gone.
            let child = self.session(&parent).child(child);
            let t = self.options.command_timeout;
            tokio::spawn(async move {
                let _ = tokio::time::timeout(t, child.detach()).await;
            });
        }
        for (frame, session) in lookups {
            let shared = Arc::clone(self);
            tokio::spawn(async move { shared.lookup_owner(frame, session).await });
        }
        out
    }

    fn session(&self, key: &SessionKey) -> Session {
        match key {
            k if k.as_ref() == self.page.id() => self.page.clone(),
            Some(id) => self.conn.session(id.clone()),
            None => self.conn.browser(),
        }
    }

    fn mark_detached(&self) {
        self.detached.store(true, Ordering::SeqCst);
        let v = self.lock().version();
        self.changed.send_replace(v.wrapping_add(1));
    }

    /// `DOM.getFrameOwner` on the parent frame's session (NOTES F8).
    async fn lookup_owner(self: Arc<Self>, frame: FrameId, parent_session: SessionKey) {
        let session = self.session(&parent_session);
        let cmd = dom::GetFrameOwner {
            frame_id: frame.clone(),
        };
        // Frames that vanish before the answer (ad churn) make this fail; nothing to do then.
        if let Ok(resp) = session
            .send_timeout(&cmd, self.options.command_timeout)
            .await
        {
            self.mutate(|reg| reg.set_owner(&frame, resp.backend_node_id));
        }
    }

    /// Enables Page and Runtime and auto-attach on a paused OOPIF session, resumes it, then
    /// adopts its frame tree. The commands are queued in order before any answer is awaited:
    /// some targets only answer once resumed.
    async fn setup_child(self: Arc<Self>, child: SessionId) {
        let session = self.conn.session(child.clone());
        let t = self.options.command_timeout;
        let auto_attach = auto_attach_command();
        let (a, b, c, d) = futures::join!(
            session.send_timeout(&page::Enable, t),
            session.send_timeout(&runtime::Enable, t),
            session.send_timeout(&auto_attach, t),
            session.send_timeout(&runtime::RunIfWaitingForDebugger, t),
        );
        let ok = a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok();
        if ok && let Ok(tree) = session.send_timeout(&page::GetFrameTree, t).await {
            let key = Some(child.clone());
            let frames = flatten_tree(&tree.frame_tree);
            self.mutate(|reg| reg.seed_from_frame_tree(&key, &frames));
        }
        self.setups_in_flight.fetch_sub(1, Ordering::SeqCst);
        let v = self.lock().version();
        self.changed.send_replace(v.wrapping_add(1));
    }

    /// Applies one event from the connection-level stream.
    fn apply(self: &Arc<Self>, ev: &RawEvent) {
        let key: SessionKey = ev.session_id.clone();
        let page_key: SessionKey = self.page.id().cloned();
        if ev.method == "Target.detachedFromTarget" {
            if let Ok(e) = ev.decode::<target::DetachedFromTarget>() {
                if Some(&e.session_id) == page_key.as_ref() {
                    self.mark_detached();
                    return;
                }
                if self.lock().has_session(&key) {
                    self.mutate(|reg| reg.on_target_detached(&e.session_id));
                }
            }
            return;
        }
        if !self.lock().has_session(&key) {
            return;
        }
        // A crashed renderer that loads a document again is alive (in case the
        // targetReloadedAfterCrash event itself was lost).
        if matches!(
            ev.method.as_str(),
            "Page.frameNavigated" | "Runtime.executionContextCreated"
        ) && self.lock().is_session_crashed(&key)
        {
            self.mutate(|reg| reg.on_target_reloaded_after_crash(&key));
        }
        match ev.method.as_str() {
            "Page.frameAttached" => {
                if let Ok(e) = ev.decode::<page::FrameAttached>() {
                    self.mutate(|reg| reg.on_frame_attached(&key, &e.frame_id, &e.parent_frame_id));
                }
            }
            "Page.frameNavigated" => {
                if let Ok(e) = ev.decode::<page::FrameNavigated>() {
                    let frame = tree_frame(&e.frame);
                    // A page restored from the back/forward cache keeps the OOPIF targets
                    // announced for it just before, and brings its in-process frames back
                    // without attach events: read those from the frame trees (see
                    // `FrameRegistry::on_frame_restored` for what Chromium sends).
                    let restored = e.r#type.as_deref() == Some("BackForwardCacheRestore");
                    if restored {
                        self.mutate(|reg| reg.on_frame_restored(&key, frame));
                        let shared = Arc::clone(self);
                        tokio::spawn(shared.after_restore());
                    } else {
                        self.mutate(|reg| reg.on_frame_navigated(&key, frame));
                    }
                }
            }
            "Page.frameDetached" => {
                if let Ok(e) = ev.decode::<page::FrameDetached>() {
                    let reason = match e.reason {
                        Some(page::FrameDetachedReason::Swap) => DetachReason::Swap,
                        _ => DetachReason::Remove,
                    };
                    self.mutate(|reg| reg.on_frame_detached(&key, &e.frame_id, reason));
                }
            }
            "Page.navigatedWithinDocument" => {
                if let Ok(e) = ev.decode::<page::NavigatedWithinDocument>() {
                    self.mutate(|reg| reg.on_navigated_within_document(&e.frame_id, &e.url));
                }
            }
            "Runtime.executionContextCreated" => {
                if let Ok(e) = ev.decode::<runtime::ExecutionContextCreated>()
                    && let Some(frame) = e.context.frame_id()
                {
                    let is_default = e.context.is_default();
                    self.mutate(|reg| {
                        reg.on_context_created(&key, e.context.id, &frame, is_default)
                    });
                }
            }
            "Runtime.executionContextDestroyed" => {
                if let Ok(e) = ev.decode::<runtime::ExecutionContextDestroyed>() {
                    self.mutate(|reg| reg.on_context_destroyed(&key, e.execution_context_id));
                }
            }
            "Runtime.executionContextsCleared" => {
                self.mutate(|reg| reg.on_contexts_cleared(&key));
            }
            "Target.attachedToTarget" => {
                if let Ok(e) = ev.decode::<target::AttachedToTarget>() {
                    self.on_attached(&key, e);
                }
            }
            "Inspector.detached" if key == page_key => self.mark_detached(),
            // Chromium 156 keeps a crashed OOPIF's session attached (no detachedFromTarget) and
            // leaves calls on it unanswered until the iframe loads again.
            "Inspector.targetCrashed" if key != page_key => {
                self.mutate(|reg| reg.on_target_crashed(&key));
            }
            "Inspector.targetReloadedAfterCrash" => {
                self.mutate(|reg| reg.on_target_reloaded_after_crash(&key));
            }
            _ => {}
        }
    }

    fn on_attached(self: &Arc<Self>, parent: &SessionKey, e: target::AttachedToTarget) {
        let child = e.session_id.clone();
        if e.target_info.r#type == "iframe" {
            let frame = FrameId::new(e.target_info.target_id.as_str());
            let hint = e.target_info.parent_frame_id.clone();
            let tracked =
                self.mutate(|reg| reg.on_target_attached(parent, &child, &frame, hint.as_ref()));
            if tracked {
                self.setups_in_flight.fetch_add(1, Ordering::SeqCst);
                let shared = Arc::clone(self);
                tokio::spawn(async move { shared.setup_child(child).await });
                return;
            }
        }
        // Workers and anything we do not track: just let them run.
        if e.waiting_for_debugger {
            let session = self.conn.session(child);
            let t = self.options.command_timeout;
            tokio::spawn(async move {
                let _ = session
                    .send_timeout(&runtime::RunIfWaitingForDebugger, t)
                    .await;
            });
        }
    }

    /// Reads where every session's frames sit in its documents and records owners, document order
    /// of children and the numbering of frames still unnumbered (document order, depth-first).
    /// Owners are queried cheaply ([`owner_query`]); a session whose query misses a frame (an
    /// owner inside a shadow tree) is read whole instead.
    async fn dom_pass(self: &Arc<Self>) -> Result<(), FrameGraphError> {
        let (sessions, main, expected) = {
            let reg = self.lock();
            let main = reg.main_frame_id().cloned();
            let sessions: Vec<(SessionKey, Option<FrameId>)> = reg
                .sessions()
                .into_iter()
                // A crashed renderer never answers.
                .filter(|s| !reg.is_session_crashed(s))
                .map(|s| {
                    let root = if &s == reg.page_session() {
                        main.clone()
                    } else {
                        reg.root_frame_of_session(&s).cloned()
                    };
                    (s, root)
                })
                .collect();
            // The frames whose owner element lives in each session's documents.
            let mut expected: HashMap<SessionKey, Vec<FrameId>> = HashMap::new();
            for f in reg.dfs_order() {
                if let Some(host) = reg.parent_of(&f).and_then(|p| reg.session_of(p)) {
                    expected.entry(host.clone()).or_default().push(f);
                }
            }
            (sessions, main, expected)
        };
        let Some(main) = main else {
            return Ok(());
        };
        let t = self.options.command_timeout;
        let docs = futures::future::join_all(sessions.into_iter().filter_map(|(s, root)| {
            let root = root?;
            let session = self.session(&s);
            let expected = expected.get(&s).cloned().unwrap_or_default();
            Some(async move {
                match owner_query(&session, &root, t).await {
                    Ok(found) if expected.iter().all(|f| found.has_owner(f)) => Ok(found),
                    Err(e) if e.is_closed() => Err(e),
                    // Missed an owner (inside a shadow tree) or could not query: read it whole.
                    _ => session
                        .send_timeout(&GetFrameDocument::whole(), t)
                        .await
                        .map(|doc| {
                            let mut frames = DomFrames::default();
                            frames.collect(&root, &doc.root);
                            frames
                        }),
                }
            })
        }))
        .await;
        let mut frames = DomFrames::default();
        for doc in docs {
            match doc {
                Ok(found) => frames.merge(found),
                // A session that went away mid-pass is handled by its detach event.
                Err(e) if e.is_closed() => {}
                Err(CdpError::Protocol { .. }) => {}
                // A document too deep for the decoder, or too large to read in time, only loses
                // the document order of its frames: they keep their tree numbering, and owners
                // come from `DOM.getFrameOwner` as for frames attached later.
                Err(CdpError::Decode { .. }) | Err(CdpError::Timeout { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let order = frames.document_order(&main);
        self.mutate(|reg| {
            for (frame, owner) in &frames.owners {
                reg.set_owner(frame, *owner);
            }
            for (parent, kids) in &frames.children {
                reg.reorder_children(parent, kids);
            }
            reg.finish_numbering(&order);
        });
        Ok(())
    }

    /// Re-reads `Page.getFrameTree` of every session: adds frames the graph missed, drops frames
    /// a session no longer has, forgets sessions that are gone.
    async fn reconcile_trees(self: &Arc<Self>) -> Result<(), FrameGraphError> {
        let t = self.options.command_timeout;
        let (sessions, asked_at) = {
            let reg = self.lock();
            let live: Vec<SessionKey> = reg
                .sessions()
                .into_iter()
                // A crashed renderer never answers.
                .filter(|s| !reg.is_session_crashed(s))
                .collect();
            (live, reg.version())
        };
        let trees = futures::future::join_all(sessions.into_iter().map(|s| {
            let session = self.session(&s);
            async move { (s, session.send_timeout(&page::GetFrameTree, t).await) }
        }))
        .await;
        for (s, tree) in trees {
            match tree {
                Ok(tree) => {
                    let frames = flatten_tree(&tree.frame_tree);
                    let mut listed: HashSet<FrameId> =
                        frames.iter().map(|f| f.frame_id.clone()).collect();
                    // A frame that runs in another process is not in this session's tree; if
                    // the graph lost its session (attach event dropped) it looks stale here but
                    // is an iframe target to recover, not a frame to drop.
                    let unlisted: Vec<FrameId> = {
                        let reg = self.lock();
                        reg.dfs_order()
                            .into_iter()
                            .filter(|f| !listed.contains(f) && reg.parent_of(f).is_some())
                            .filter(|f| reg.session_of(f) == Some(&s))
                            .collect()
                    };
                    listed.extend(self.iframe_targets(unlisted).await);
                    self.mutate(|reg| {
                        reg.seed_from_frame_tree(&s, &frames);
                        reg.prune_session(&s, &listed, asked_at);
                    });
                }
                Err(CdpError::SessionClosed { session }) => {
                    self.mutate(|reg| reg.on_target_detached(&session));
                }
                Err(e) if e.is_closed() => return Err(FrameGraphError::Detached),
                Err(_) => {}
            }
        }
        Ok(())
    }

    /// After a page came back from the back/forward cache: adds its in-process frames from the
    /// frame trees, lets the OOPIF sessions announced for it finish their setup (nested targets
    /// are announced during it), then reads owners and document order (the restored frames did
    /// not arrive in document order). Bounded by `FrameGraphOptions::sync_timeout`.
    async fn after_restore(self: Arc<Self>) {
        let work = async {
            self.reconcile_trees().await?;
            self.settle_setups(Instant::now() + self.options.command_timeout)
                .await;
            self.dom_pass().await
        };
        // Failures leave what the events said; `FrameGraph::sync` can re-read it all.
        let _ = tokio::time::timeout(self.options.sync_timeout, work).await;
    }

    /// Those of `frames` that are iframe targets of their own (`Target.getTargetInfo` with the
    /// frame id as target id says `type: "iframe"`); same-process frames are not targets.
    async fn iframe_targets(self: &Arc<Self>, frames: Vec<FrameId>) -> Vec<FrameId> {
        let t = self.options.command_timeout;
        let infos = futures::future::join_all(frames.into_iter().map(|frame| {
            let cmd = target::GetTargetInfo {
                target_id: Some(cdp_protocol::TargetId::new(frame.as_str())),
            };
            let page = self.page.clone();
            async move { (frame, page.send_timeout(&cmd, t).await) }
        }))
        .await;
        infos
            .into_iter()
            .filter_map(|(frame, info)| match info {
                Ok(info) if info.target_info.r#type == "iframe" => Some(frame),
                _ => None,
            })
            .collect()
    }

    /// After events were lost: re-reads the frame trees, then finds iframe targets whose
    /// `attachedToTarget` was lost and brings them back. One recovery runs at a time; drops
    /// during it schedule another round.
    async fn recover_after_drop(self: Arc<Self>) {
        loop {
            if self.recovering.swap(true, Ordering::SeqCst) {
                self.recover_again.store(true, Ordering::SeqCst);
                return;
            }
            loop {
                self.recover_again.store(false, Ordering::SeqCst);
                let _ = self.reconcile_trees().await;
                let _ = self.recover_lost_targets().await;
                // Re-announced targets are being set up; their contexts come with that.
                self.settle_setups(Instant::now() + self.options.command_timeout)
                    .await;
                let _ = self.recover_contexts().await;
                if !self.recover_again.load(Ordering::SeqCst) {
                    break;
                }
            }
            self.recovering.store(false, Ordering::SeqCst);
            // Wake `sync` calls waiting for the recovery to end.
            let v = self.lock().version();
            self.changed.send_replace(v.wrapping_add(1));
            // A drop noticed between our last check and the store above: go again.
            if !self.recover_again.swap(false, Ordering::SeqCst) {
                return;
            }
        }
    }

    /// Finds iframe targets the graph holds as in-process frames (their `attachedToTarget` was
    /// lost, so they sit paused before their first navigation and never load) and re-announces
    /// them by turning auto-attach off and on again on their parent's session.
    ///
    /// What Chromium 156 does (measured): a paused OOPIF target is absent from
    /// `Target.getTargets` but `Target.getTargetInfo{targetId: frameId}` reports it
    /// (`type: "iframe"`); re-sending `setAutoAttach` detaches it without resuming or
    /// re-announcing it; `Target.attachToTarget` + `Runtime.runIfWaitingForDebugger` on the new
    /// session does not resume it, nor does `detachFromTarget{targetId}`. Auto-attach off resumes
    /// it, and on again announces it (and every other child of that session) with new sessions.
    /// The other OOPIF sessions of that parent are therefore replaced too: their root frames keep
    /// their indices; by the registry's rules, frames nested inside them are dropped with the old
    /// session and re-added with new numbers (not covered by a test yet).
    async fn recover_lost_targets(self: &Arc<Self>) -> Result<(), FrameGraphError> {
        let t = self.options.command_timeout;
        // In-process frames (other than main frames of sessions) that could be lost targets.
        let candidates: Vec<(FrameId, SessionKey)> = {
            let reg = self.lock();
            reg.dfs_order()
                .into_iter()
                .filter(|f| reg.parent_of(f).is_some() && !reg.is_out_of_process(f))
                .filter(|f| reg.parked_target(f).is_none())
                .filter_map(|f| {
                    let s = reg.session_of(&f)?.clone();
                    (!reg.is_session_crashed(&s)).then_some((f, s))
                })
                .collect()
        };
        let sessions: HashMap<FrameId, SessionKey> = candidates.iter().cloned().collect();
        let found = self
            .iframe_targets(candidates.into_iter().map(|(f, _)| f).collect())
            .await;
        if found.is_empty() {
            return Ok(());
        }
        // An attach event still queued (not lost) looks the same for a moment: give the event
        // task time to apply it before deciding.
        tokio::time::sleep(LATE_ATTACH_GRACE).await;
        let mut parents: Vec<SessionKey> = Vec::new();
        let mut lost = 0u64;
        for frame in found {
            // Still lost (its attach may have been applied meanwhile)?
            let still = {
                let reg = self.lock();
                reg.contains(&frame) && !reg.is_out_of_process(&frame)
            };
            if let (true, Some(s)) = (still, sessions.get(&frame)) {
                lost += 1;
                if !parents.contains(s) {
                    parents.push(s.clone());
                }
            }
        }
        if self.conn.is_closed() {
            return Err(FrameGraphError::Detached);
        }
        for s in parents {
            let session = self.session(&s);
            let off = target::SetAutoAttach {
                auto_attach: false,
                wait_for_debugger_on_start: false,
                flatten: Some(true),
                filter: None,
            };
            session.send_timeout(&off, t).await?;
            session.send_timeout(&auto_attach_command(), t).await?;
        }
        self.recovered_targets.fetch_add(lost, Ordering::SeqCst);
        Ok(())
    }

    /// Re-learns every live session's execution contexts after events were lost (a lost
    /// `executionContextCreated` would leave a frame without a context, a lost `...Destroyed`
    /// with a dead one): forgets them and has Chromium replay the existing ones
    /// (`Runtime.disable` + `Runtime.enable`). This releases the remote objects callers hold on
    /// those sessions, which is why it only happens after a loss.
    async fn recover_contexts(self: &Arc<Self>) -> Result<(), FrameGraphError> {
        let t = self.options.command_timeout;
        let sessions: Vec<SessionKey> = {
            let reg = self.lock();
            reg.sessions()
                .into_iter()
                .filter(|s| !reg.is_session_crashed(s))
                .collect()
        };
        let results = futures::future::join_all(sessions.into_iter().map(|s| {
            let session = self.session(&s);
            async move {
                session.send_timeout(&runtime::Disable, t).await?;
                // Queued events before this point are history and may still be applied; the
                // replay below comes after them in the same ordered stream.
                self.mutate(|reg| reg.on_contexts_cleared(&s));
                session.send_timeout(&runtime::Enable, t).await?;
                Ok::<(), CdpError>(())
            }
        }))
        .await;
        for r in results {
            match r {
                Err(e) if e.is_closed() && self.conn.is_closed() => {
                    return Err(FrameGraphError::Detached);
                }
                // A session that went away meanwhile is handled by its detach event.
                _ => {}
            }
        }
        Ok(())
    }

    /// Waits (bounded) until no OOPIF session setup is in flight for a short quiet period.
    async fn settle_setups(self: &Arc<Self>, deadline: Instant) {
        let mut rx = self.changed.subscribe();
        loop {
            if self.setups_in_flight.load(Ordering::SeqCst) == 0 {
                // Nested targets announced by a just-finished setup may still be queued.
                tokio::time::sleep(Duration::from_millis(30)).await;
                if self.setups_in_flight.load(Ordering::SeqCst) == 0 {
                    return;
                }
            }
            if tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_err()
            {
                return;
            }
        }
    }
}

fn auto_attach_command() -> target::SetAutoAttach {
    target::SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: Some(true),
        filter: None,
    }
}

fn tree_frame(f: &page::Frame) -> TreeFrame {
    TreeFrame {
        frame_id: f.id.clone(),
        parent_id: f.parent_id.clone(),
        url: f.url.clone(),
        name: f.name.clone().filter(|n| !n.is_empty()),
        loader_id: Some(f.loader_id.clone()),
    }
}

/// A frame tree as a list, parents before children.
fn flatten_tree(tree: &page::FrameTree) -> Vec<TreeFrame> {
    let mut out = Vec::new();
    let mut stack = vec![tree];
    while let Some(t) = stack.pop() {
        out.push(tree_frame(&t.frame));
        if let Some(children) = t.child_frames.as_ref() {
            for c in children.iter().rev() {
                stack.push(c);
            }
        }
    }
    out
}

/// Which graph currently tracks a page session (process-wide), so that a new graph on the same
/// session waits for the previous one to have turned auto-attach off.
#[derive(Debug)]
struct SessionClaim {
    key: String,
    token: u64,
    done: watch::Sender<bool>,
}

/// Per session: the holder's token, its "stop requested" and its "done" signals.
type Claims = Mutex<HashMap<String, Claim>>;
type Claim = (u64, watch::Receiver<bool>, watch::Receiver<bool>);
type PreviousClaim = (watch::Receiver<bool>, watch::Receiver<bool>);

fn claims() -> &'static Claims {
    static CLAIMS: OnceLock<Claims> = OnceLock::new();
    CLAIMS.get_or_init(Claims::default)
}

impl SessionClaim {
    /// Claims `session` of `conn`; returns the claim and the previous holder's "stop requested"
    /// and "done" signals.
    fn take(
        conn: &Link,
        session: &SessionKey,
        stop: watch::Receiver<bool>,
    ) -> (SessionClaim, Option<PreviousClaim>) {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let key = format!(
            "{}|{}",
            conn.url(),
            session.as_ref().map_or("", |s| s.as_str())
        );
        let token = NEXT.fetch_add(1, Ordering::Relaxed);
        let (done, rx) = watch::channel(false);
        let previous = claims()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.clone(), (token, stop, rx))
            .map(|(_, stop, done)| (stop, done));
        (SessionClaim { key, token, done }, previous)
    }

    /// Signals that this graph is done with the session, and forgets the claim if still ours.
    fn release(self) {
        self.done.send_replace(true);
        let mut map = claims().lock().unwrap_or_else(|e| e.into_inner());
        if map.get(&self.key).map(|(t, _, _)| *t) == Some(self.token) {
            map.remove(&self.key);
        }
    }
}

/// Stops the event task when the last handle goes away.
#[derive(Debug)]
struct Handle {
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.stop.send_replace(true);
    }
}

/// Every frame of one page (tab), kept current by CDP events; a cheap `Clone` handle.
///
/// One background task applies events from the page session and all of its OOPIF sessions;
/// reads copy out of the shared state and never wait for the browser.
///
/// Frame numbering: the main frame is 0. Frames present at attach are numbered 1.. in document
/// order (depth-first); frames appearing later take the next free number as they appear. A
/// number is never given to another frame until the main frame navigates; then the generation
/// bumps, numbering restarts at 1 and each new frame gets its number on first use
/// ([`FrameGraph::index_for`], [`FrameGraph::frame`], [`FrameGraph::frames`] in depth-first
/// order), so a snapshot walking the new document in order numbers it in document order.
#[derive(Debug, Clone)]
pub struct FrameGraph {
    inner: Arc<Handle>,
}

impl FrameGraph {
    /// Starts tracking the page behind `page`: subscribes to events first, enables Page and
    /// Runtime, reads the frame tree, turns on auto-attach (waiting for the debugger, flattened)
    /// here and on every OOPIF session, then numbers the frames in document order.
    ///
    /// Use one graph per page session: the graph owns that session's auto-attach setting (paused
    /// targets wait for it to resume them) and turns it off when it shuts down. If Runtime was
    /// already enabled on the session, the graph disables and re-enables it once to learn the
    /// existing execution contexts (remote objects created before that are released).
    pub async fn attach(
        page: Session,
        options: FrameGraphOptions,
    ) -> Result<FrameGraph, FrameGraphError> {
        let conn = page.link().clone();
        let page_key: SessionKey = page.id().cloned();
        let mut events =
            conn.events(EventFilter::methods(EVENTS).capacity(options.event_capacity.max(1)));
        let (changed, _) = watch::channel(0u64);
        let shared = Arc::new(Shared {
            registry: Mutex::new(FrameRegistry::new(page_key.clone())),
            changed,
            detached: AtomicBool::new(false),
            setups_in_flight: AtomicUsize::new(0),
            dropped_events: AtomicU64::new(0),
            recovered_targets: AtomicU64::new(0),
            recovering: AtomicBool::new(false),
            recover_again: AtomicBool::new(false),
            conn: conn.clone(),
            page: page.clone(),
            options: options.clone(),
        });
        let (stop, mut stop_rx) = watch::channel(false);
        let task_shared = Arc::clone(&shared);
        // A graph that stopped on this session turns auto-attach off on its way out; let it finish
        // first, so its "off" cannot land after our "on".
        let (claim, previous) = SessionClaim::take(&conn, &page_key, stop_rx.clone());
        let stopping = previous.filter(|(stop, _)| *stop.borrow());
        if let Some((_, mut previous_done)) = stopping {
            let _ = tokio::time::timeout(
                options.command_timeout,
                previous_done.wait_for(|done| *done),
            )
            .await;
        }
        tokio::spawn(async move {
            let mut dropped = 0;
            let mut to_lose = task_shared.options.lose_attach_events;
            let mut lost = 0;
            loop {
                tokio::select! {
                    biased;
                    _ = stop_rx.changed() => break,
                    ev = events.recv() => match ev {
                        Some(ev) => {
                            if to_lose > 0 && ev.method == "Target.attachedToTarget" {
                                to_lose -= 1;
                                lost += 1;
                            } else {
                                task_shared.apply(&ev);
                            }
                            // Events lost to a full queue: re-read the frame trees and find
                            // targets whose attach was lost (they wait paused for us).
                            if events.dropped() + lost > dropped {
                                dropped = events.dropped() + lost;
                                task_shared.dropped_events.store(dropped, Ordering::SeqCst);
                                let shared = Arc::clone(&task_shared);
                                tokio::spawn(shared.recover_after_drop());
                            }
                        }
                        None => {
                            task_shared.mark_detached();
                            break;
                        }
                    },
                }
            }
            // Nobody resumes paused targets any more: stop auto-attaching (this also detaches
            // the OOPIF sessions), so new iframes of the page do not wait for us forever.
            if !task_shared.conn.is_closed() {
                let off = target::SetAutoAttach {
                    auto_attach: false,
                    wait_for_debugger_on_start: false,
                    flatten: Some(true),
                    filter: None,
                };
                let _ = task_shared
                    .page
                    .send_timeout(&off, task_shared.options.command_timeout)
                    .await;
            }
            claim.release();
        });
        let graph = FrameGraph {
            inner: Arc::new(Handle {
                shared: Arc::clone(&shared),
                stop,
            }),
        };

        let deadline = Instant::now() + options.init_timeout;
        let t = options.command_timeout;
        let init = async {
            page.send_timeout(&page::Enable, t).await?;
            page.send_timeout(&runtime::Enable, t).await?;
            let tree = page.send_timeout(&page::GetFrameTree, t).await?;
            let frames = flatten_tree(&tree.frame_tree);
            shared.mutate(|reg| reg.seed_from_frame_tree(&page_key, &frames));
            page.send_timeout(&auto_attach_command(), t).await?;
            shared.settle_setups(deadline).await;
            // Runtime.enable replays existing contexts only when it actually turns Runtime on.
            // If someone had enabled it on this session before us, the main frame has no known
            // context now: cycle Runtime off and on to get the replay.
            let main_has_context = {
                let reg = shared.lock();
                reg.main_frame_id()
                    .and_then(|m| reg.context_of(m))
                    .is_some()
            };
            if !main_has_context {
                page.send_timeout(&runtime::Disable, t).await?;
                page.send_timeout(&runtime::Enable, t).await?;
            }
            shared.dom_pass().await
        };
        match tokio::time::timeout_at(deadline, init).await {
            Ok(Ok(())) => Ok(graph),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(FrameGraphError::Timeout {
                what: "frame graph initialisation".into(),
                after: options.init_timeout,
            }),
        }
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }

    /// The page (tab) session the graph was attached to.
    pub fn page_session(&self) -> Session {
        self.shared().page.clone()
    }

    /// The main frame. Before the first frame tree is known this is an empty placeholder.
    pub fn main_frame(&self) -> FrameInfo {
        let reg = self.shared().lock();
        reg.main_frame_id()
            .and_then(|m| reg.info(m))
            .unwrap_or_else(|| FrameInfo {
                frame_id: FrameId::default(),
                parent_frame_id: None,
                frame_index: FrameIndex::MAIN,
                url: String::new(),
                name: None,
                owner_backend_node_id: None,
                session_id: reg.page_session().clone(),
                is_out_of_process: false,
                children: Vec::new(),
            })
    }

    /// Every frame, depth-first in document order, main frame first. Frames not numbered yet
    /// (after a main-frame navigation) get their numbers now, in this order.
    pub fn frames(&self) -> Vec<FrameInfo> {
        let mut reg = self.shared().lock();
        let order = reg.dfs_order();
        for f in &order {
            reg.ensure_index(f);
        }
        order.iter().filter_map(|f| reg.info(f)).collect()
    }

    /// One frame by id (numbering it if it had no number yet).
    pub fn frame(&self, frame: &FrameId) -> Option<FrameInfo> {
        let mut reg = self.shared().lock();
        reg.ensure_index(frame)?;
        reg.info(frame)
    }

    /// The frame with this index in the current generation.
    pub fn frame_by_index(&self, index: FrameIndex) -> Option<FrameInfo> {
        let reg = self.shared().lock();
        let id = reg.frame_by_index(index)?.clone();
        reg.info(&id)
    }

    /// The child of `parent` owned by the `<iframe>` element `owner` (a backendNodeId in the
    /// parent's document).
    pub fn frame_by_owner(&self, parent: &FrameId, owner: BackendNodeId) -> Option<FrameInfo> {
        let mut reg = self.shared().lock();
        let id = reg.frame_by_owner(parent, owner)?.clone();
        reg.ensure_index(&id);
        reg.info(&id)
    }

    /// The session owning the frame's document (the page session, or the OOPIF's session).
    /// `None` while that session's renderer is crashed: Chromium would leave calls on it
    /// unanswered (see [`FrameGraph::is_crashed`]).
    pub fn session_for(&self, frame: &FrameId) -> Option<Session> {
        let key = {
            let reg = self.shared().lock();
            let key = reg.session_of(frame).cloned()?;
            if reg.is_session_crashed(&key) {
                return None;
            }
            key
        };
        Some(self.shared().session(&key))
    }

    /// True while the frame's document lives in a crashed renderer (an out-of-process iframe
    /// whose process died and that was not loaded again since).
    pub fn is_crashed(&self, frame: &FrameId) -> bool {
        self.shared().lock().is_crashed(frame)
    }

    /// Events the graph lost to a full queue so far (it recovers by re-reading the browser).
    pub fn dropped_events(&self) -> u64 {
        self.shared().dropped_events.load(Ordering::SeqCst)
    }

    /// Iframe targets whose `attachedToTarget` event was lost and that the graph found paused
    /// and brought back so far.
    pub fn recovered_targets(&self) -> u64 {
        self.shared().recovered_targets.load(Ordering::SeqCst)
    }

    /// The frame's default-world execution context as the graph knows it now, without waiting
    /// (`None`: unknown frame, crashed frame, or no context yet).
    pub fn current_context(&self, frame: &FrameId) -> Option<ExecutionContextId> {
        let reg = self.shared().lock();
        if reg.is_crashed(frame) {
            return None;
        }
        reg.context_of(frame)
    }

    /// The frame's default-world execution context, waiting up to `timeout` for one that is
    /// still being created (e.g. right after a navigation).
    pub async fn execution_context_for(
        &self,
        frame: &FrameId,
        timeout: Duration,
    ) -> Result<ExecutionContextId, FrameGraphError> {
        let shared = self.shared();
        let mut rx = shared.changed.subscribe();
        let deadline = Instant::now() + timeout;
        loop {
            if shared.detached.load(Ordering::SeqCst) {
                return Err(FrameGraphError::Detached);
            }
            {
                let reg = shared.lock();
                if !reg.contains(frame) {
                    return Err(FrameGraphError::FrameNotFound {
                        frame: frame.clone(),
                    });
                }
                // No context comes back until the iframe is loaded again: fail now.
                if reg.is_crashed(frame) {
                    return Err(FrameGraphError::FrameCrashed {
                        frame: frame.clone(),
                    });
                }
                if let Some(ctx) = reg.context_of(frame) {
                    return Ok(ctx);
                }
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(FrameGraphError::Detached),
                Err(_) => {
                    return Err(FrameGraphError::NoExecutionContext {
                        frame: frame.clone(),
                        after: timeout,
                    });
                }
            }
        }
    }

    /// The frame's index, assigning the next free number if the frame is known but unnumbered.
    pub fn index_for(&self, frame: &FrameId) -> Option<FrameIndex> {
        self.shared().lock().ensure_index(frame)
    }

    /// Bumps whenever the main frame navigates (a fresh numbering starts).
    pub fn generation(&self) -> u64 {
        self.shared().lock().generation()
    }

    /// True once the page session is gone (tab closed, browser exited) or the graph shut down.
    pub fn is_detached(&self) -> bool {
        self.shared().detached.load(Ordering::SeqCst)
    }

    /// Every session of the page: the page session first, then OOPIF sessions.
    pub fn sessions(&self) -> Vec<Option<SessionId>> {
        self.shared().lock().sessions()
    }

    /// A copy of the underlying bookkeeping (for diagnostics and tests).
    pub fn registry(&self) -> FrameRegistry {
        self.shared().lock().clone()
    }

    /// A receiver that changes whenever the graph does (to wait for an expected state).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared().changed.subscribe()
    }

    /// Maps a point in `frame`'s session coordinates (what `DOM.getBoxModel` on that session
    /// returns) to top-level page coordinates: same-process frames are already there; each OOPIF
    /// hop adds its `<iframe>` content-box origin (borders and padding included), NOTES F12/F13.
    pub async fn to_page_point(
        &self,
        frame: &FrameId,
        x: f64,
        y: f64,
    ) -> Result<(f64, f64), FrameGraphError> {
        let (dx, dy) = self.offset_of(frame).await?;
        Ok((x + dx, y + dy))
    }

    /// [`Self::to_page_point`] for a rectangle: translation only, right for frames that are only
    /// shifted. An `<iframe>` drawn scaled, rotated, skewed or zoomed needs its content quad, its
    /// laid-out size and zoom (which only a script in the page tells) and may turn the rectangle
    /// into a quad; the CLI maps such boxes and points itself (its `page::quad::PageGeometry`).
    pub async fn to_page_rect(&self, frame: &FrameId, rect: Rect) -> Result<Rect, FrameGraphError> {
        let (dx, dy) = self.offset_of(frame).await?;
        Ok(Rect {
            x: rect.x + dx,
            y: rect.y + dy,
            ..rect
        })
    }

    /// The offset from `frame`'s session viewport to the top-level viewport.
    async fn offset_of(&self, frame: &FrameId) -> Result<(f64, f64), FrameGraphError> {
        let shared = self.shared();
        // (OOPIF root, parent session, known owner) for every process hop up to the main frame.
        let hops: Vec<(FrameId, SessionKey, Option<BackendNodeId>)> = {
            let reg = shared.lock();
            if !reg.contains(frame) {
                return Err(FrameGraphError::FrameNotFound {
                    frame: frame.clone(),
                });
            }
            let mut hops = Vec::new();
            let mut cur = frame.clone();
            let mut guard = 0;
            while let Some(parent) = reg.parent_of(&cur).cloned() {
                guard += 1;
                if guard > 10_000 {
                    break;
                }
                if reg.is_out_of_process(&cur) {
                    let ps = reg.session_of(&parent).cloned().unwrap_or(None);
                    hops.push((cur.clone(), ps, reg.owner_of(&cur)));
                }
                cur = parent;
            }
            hops
        };
        let t = shared.options.command_timeout;
        let (mut dx, mut dy) = (0.0, 0.0);
        for (oopif, parent_session, owner) in hops {
            let session = shared.session(&parent_session);
            let owner = match owner {
                Some(o) => o,
                None => {
                    let cmd = dom::GetFrameOwner {
                        frame_id: oopif.clone(),
                    };
                    match session.send_timeout(&cmd, t).await {
                        Ok(r) => {
                            shared.mutate(|reg| reg.set_owner(&oopif, r.backend_node_id));
                            r.backend_node_id
                        }
                        Err(CdpError::Protocol { .. }) => {
                            return Err(FrameGraphError::OwnerNotFound { frame: oopif });
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            };
            let cmd = dom::GetBoxModel {
                backend_node_id: Some(owner),
                ..Default::default()
            };
            let model = match session.send_timeout(&cmd, t).await {
                Ok(r) => r.model,
                Err(CdpError::Protocol { .. }) => {
                    return Err(FrameGraphError::NoLayoutBox { frame: oopif });
                }
                Err(e) => return Err(e.into()),
            };
            let (Some(x), Some(y)) = (model.content.first(), model.content.get(1)) else {
                return Err(FrameGraphError::NoLayoutBox { frame: oopif });
            };
            dx += x;
            dy += y;
        }
        Ok((dx, dy))
    }

    /// Re-checks the graph against `Page.getFrameTree` of every session (adding frames it
    /// missed, dropping frames a session no longer has), then re-reads every session's document
    /// for owners and document order. Waits first for a running recovery from lost events.
    /// Bounded by `FrameGraphOptions::sync_timeout`.
    ///
    /// Note: `DOM.getDocument` resets each session's DOM-agent node ids (backendNodeIds stay valid).
    pub async fn sync(&self) -> Result<(), FrameGraphError> {
        let shared = Arc::clone(self.shared());
        if shared.detached.load(Ordering::SeqCst) {
            return Err(FrameGraphError::Detached);
        }
        let after = shared.options.sync_timeout;
        let work = async {
            // A recovery after lost events replaces OOPIF sessions (frames fall back to their
            // parent's session for a moment): let it finish first.
            let mut rx = shared.changed.subscribe();
            while shared.recovering.load(Ordering::SeqCst) {
                if rx.changed().await.is_err() {
                    return Err(FrameGraphError::Detached);
                }
            }
            shared.reconcile_trees().await?;
            shared.dom_pass().await
        };
        match tokio::time::timeout(after, work).await {
            Ok(r) => r,
            Err(_) => Err(FrameGraphError::Timeout {
                what: "frame graph sync".into(),
                after,
            }),
        }
    }

    /// Stops the event task and turns auto-attach off on the page session (so new iframes are
    /// not left paused); reads keep answering from the last known state. Also happens when the
    /// last handle is dropped.
    pub fn shutdown(&self) {
        self.inner.stop.send_replace(true);
        self.shared().mark_detached();
    }
}
