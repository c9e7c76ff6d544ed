//! The CDP-agnostic bookkeeping behind [`crate::FrameGraph`]: frames, parents, ordered children,
//! owner elements, owning sessions, frame indices and default-world execution contexts.
//!
//! Every mutator takes exactly what one CDP event says (plus the session it came from) and never
//! talks to the browser, so the whole thing is deterministic and property-tested.
//!
//! Rules (see `NOTES/frames-and-snapshots.md` §0 and §1):
//! - the session that emits `frameAttached`/`frameNavigated` for a frame owns it; an OOPIF target
//!   (target id == frame id) re-owns its frame to the child session;
//! - `frameDetached{swap}` keeps the frame; `remove` drops the whole subtree;
//! - a frame (or OOPIF target) whose parent is not known yet is parked until the parent appears;
//! - indices: the main frame is 0, others take the next free number, never reused within a
//!   generation; a main-frame navigation starts a new generation and a fresh numbering;
//! - a main frame restored from the back/forward cache keeps the OOPIFs whose targets were
//!   announced for it (see [`FrameRegistry::on_frame_restored`]);
//! - contexts are keyed by (session, frame) because context ids collide across processes.

use crate::types::{FrameIndex, FrameInfo};
use cdp_protocol::{BackendNodeId, ExecutionContextId, FrameId, LoaderId, SessionId};
use std::collections::{HashMap, HashSet};

mod queries;

/// How many removed frame ids are remembered (to ignore stale frame-tree snapshots).
const MAX_REMOVED_REMEMBERED: usize = 65_536;

/// A session as the registry keys it: `None` is the connection's root session (a page reached
/// through its own WebSocket), `Some` a flattened target session.
pub type SessionKey = Option<SessionId>;

/// Why a frame was detached (`Page.frameDetached.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetachReason {
    /// The frame is gone.
    Remove,
    /// The frame moves to another process/session; keep it.
    Swap,
}

/// What one frame entry in a `Page.getFrameTree` result says (listed parents before children).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeFrame {
    /// The frame id.
    pub frame_id: FrameId,
    /// Its parent, if any (for a child session's root: the parent in another session).
    pub parent_id: Option<FrameId>,
    /// Document URL.
    pub url: String,
    /// Frame name, if any.
    pub name: Option<String>,
    /// Current loader, if known.
    pub loader_id: Option<LoaderId>,
}

#[derive(Debug, Clone)]
struct FrameRecord {
    parent: Option<FrameId>,
    children: Vec<FrameId>,
    url: String,
    name: Option<String>,
    loader_id: Option<LoaderId>,
    owner: Option<BackendNodeId>,
    session: SessionKey,
    index: Option<FrameIndex>,
    /// Registry version when the frame was placed (see [`FrameRegistry::prune_session`]).
    born: u64,
}

#[derive(Debug, Clone)]
struct SessionRecord {
    /// The session that auto-attached this one (`None` for the page session).
    parent: Option<SessionKey>,
    /// The OOPIF frame this session was attached for (`None` for the page session).
    root_frame: Option<FrameId>,
}

#[derive(Debug, Clone)]
struct PendingTarget {
    session: SessionId,
}

#[derive(Debug, Clone)]
struct PendingFrame {
    session: SessionKey,
    frame: TreeFrame,
}

/// The frame bookkeeping of one page; see the module docs for the rules it follows.
#[derive(Debug, Clone)]
pub struct FrameRegistry {
    page_session: SessionKey,
    main_frame: Option<FrameId>,
    frames: HashMap<FrameId, FrameRecord>,
    sessions: HashMap<SessionKey, SessionRecord>,
    pending_targets: HashMap<FrameId, PendingTarget>,
    /// Frames whose parent is not known yet, keyed by that parent.
    pending_frames: HashMap<FrameId, Vec<PendingFrame>>,
    contexts: HashMap<(SessionKey, FrameId), ExecutionContextId>,
    context_frames: HashMap<(SessionKey, ExecutionContextId), FrameId>,
    next_index: u32,
    generation: u64,
    defer_numbering: bool,
    version: u64,
    /// Frames removed so far: a late frame-tree snapshot must not bring them back.
    removed: HashSet<FrameId>,
    /// Frames placed since the last [`FrameRegistry::take_added`].
    added: Vec<FrameId>,
    /// OOPIF sessions whose renderer crashed and was not reloaded since: Chromium keeps such a
    /// session attached but never answers calls on it.
    crashed: HashSet<SessionKey>,
}

impl FrameRegistry {
    /// An empty registry for the page reached through `page_session`. New frames stay unnumbered
    /// until [`Self::finish_numbering`] (the initial DOM-order numbering) is called.
    pub fn new(page_session: SessionKey) -> Self {
        let mut sessions = HashMap::new();
        sessions.insert(
            page_session.clone(),
            SessionRecord {
                parent: None,
                root_frame: None,
            },
        );
        Self {
            page_session,
            main_frame: None,
            frames: HashMap::new(),
            sessions,
            pending_targets: HashMap::new(),
            pending_frames: HashMap::new(),
            contexts: HashMap::new(),
            context_frames: HashMap::new(),
            next_index: 1,
            generation: 0,
            defer_numbering: true,
            version: 0,
            removed: HashSet::new(),
            added: Vec::new(),
            crashed: HashSet::new(),
        }
    }

    // ----------------------------------------------------------------------------------------
    // mutators

    /// `Page.frameAttached{frameId, parentFrameId}` emitted on `session`.
    pub fn on_frame_attached(&mut self, session: &SessionKey, frame: &FrameId, parent: &FrameId) {
        if !self.sessions.contains_key(session) {
            return;
        }
        if self.frames.contains_key(frame) {
            return;
        }
        self.place(
            session.clone(),
            TreeFrame {
                frame_id: frame.clone(),
                parent_id: Some(parent.clone()),
                url: String::new(),
                name: None,
                loader_id: None,
            },
        );
    }

    /// `Page.frameNavigated{frame}` emitted on `session` (a new document committed in the frame).
    pub fn on_frame_navigated(&mut self, session: &SessionKey, frame: TreeFrame) {
        if !self.sessions.contains_key(session) {
            return;
        }
        let is_root = frame.parent_id.is_none();
        if is_root {
            if session != &self.page_session {
                return;
            }
            match self.main_frame.clone() {
                Some(main) if main == frame.frame_id => {
                    self.new_generation();
                    if let Some(rec) = self.frames.get_mut(&main) {
                        rec.url = frame.url;
                        rec.name = frame.name;
                        rec.loader_id = frame.loader_id;
                    }
                    self.bump();
                }
                _ => self.set_main_frame(session.clone(), frame),
            }
            return;
        }
        if self.main_frame.as_ref() == Some(&frame.frame_id) {
            // The main frame never gets a parent.
            return;
        }
        if let Some(rec) = self.frames.get_mut(&frame.frame_id) {
            rec.url = frame.url;
            rec.name = frame.name;
            rec.loader_id = frame.loader_id;
            if &rec.session != session {
                rec.session = session.clone();
            }
            // A new document committed: the old document's child frames are gone (their own
            // detach events may lag behind, e.g. across a process swap).
            let old_children = std::mem::take(&mut rec.children);
            for c in old_children {
                self.remove_subtree(&c);
            }
            self.bump();
            return;
        }
        self.place(session.clone(), frame);
    }

    /// `Page.navigatedWithinDocument{frameId, url}`: only the URL changes.
    pub fn on_navigated_within_document(&mut self, frame: &FrameId, url: &str) {
        if let Some(rec) = self.frames.get_mut(frame) {
            rec.url = url.to_owned();
            self.bump();
        }
    }

    /// `Page.frameDetached{frameId, reason}` emitted on `session`.
    ///
    /// `Swap` keeps the frame (a target with the same id takes it over). `Remove` drops the frame
    /// and its subtree when it comes from the session hosting the `<iframe>` element (the parent's)
    /// or from the frame's own in-process session; a stray remove from a child session about its own
    /// OOPIF root is ignored.
    pub fn on_frame_detached(
        &mut self,
        session: &SessionKey,
        frame: &FrameId,
        reason: DetachReason,
    ) {
        if reason == DetachReason::Swap {
            return;
        }
        let Some(rec) = self.frames.get(frame) else {
            // Not placed yet: forget any parked copy of it.
            self.forget_pending_frame(frame);
            return;
        };
        let Some(parent) = rec.parent.clone() else {
            // The main frame is never removed by a detach.
            return;
        };
        let parent_session = self.frames.get(&parent).map(|p| p.session.clone());
        let own_root = self
            .sessions
            .get(session)
            .and_then(|s| s.root_frame.as_ref())
            == Some(frame);
        let allowed =
            parent_session.as_ref() == Some(session) || (&rec.session == session && !own_root);
        if allowed {
            self.remove_subtree(frame);
            self.bump();
        }
    }

    /// `Target.attachedToTarget` for an `iframe` target, emitted on `parent_session`; `frame` is the
    /// target id (== frame id). `parent_hint` is the parent frame when the caller knows it.
    ///
    /// Returns false (and records nothing) when `parent_session` is not one of this page's sessions.
    pub fn on_target_attached(
        &mut self,
        parent_session: &SessionKey,
        child: &SessionId,
        frame: &FrameId,
        parent_hint: Option<&FrameId>,
    ) -> bool {
        if !self.sessions.contains_key(parent_session) || self.main_frame.as_ref() == Some(frame) {
            return false;
        }
        let key = Some(child.clone());
        self.sessions.insert(
            key.clone(),
            SessionRecord {
                parent: Some(parent_session.clone()),
                root_frame: Some(frame.clone()),
            },
        );
        if let Some(rec) = self.frames.get_mut(frame) {
            rec.session = key;
        } else {
            // Until the frame is placed (here, when its parent is known, or later by the parent
            // session's frameAttached), the target waits in `pending_targets`.
            self.pending_targets.insert(
                frame.clone(),
                PendingTarget {
                    session: child.clone(),
                },
            );
            if let Some(parent) = parent_hint {
                self.place(
                    key,
                    TreeFrame {
                        frame_id: frame.clone(),
                        parent_id: Some(parent.clone()),
                        url: String::new(),
                        name: None,
                        loader_id: None,
                    },
                );
            }
        }
        self.bump();
        true
    }

    /// `Target.detachedFromTarget` for a session of this page (or the session went away).
    ///
    /// The session's OOPIF frame falls back to its parent's session (it stays, e.g. when it
    /// navigated back in-process; a `frameDetached{remove}` from the parent drops it otherwise);
    /// everything else the session owned is dropped, and so are sessions nested under it.
    pub fn on_target_detached(&mut self, child: &SessionId) {
        let key = Some(child.clone());
        if key == self.page_session {
            return;
        }
        let Some(record) = self.sessions.remove(&key) else {
            return;
        };
        self.crashed.remove(&key);
        // Nested sessions go with their parent.
        let nested: Vec<SessionId> = self
            .sessions
            .iter()
            .filter(|(_, r)| r.parent.as_ref() == Some(&key))
            .filter_map(|(k, _)| k.clone())
            .collect();
        self.pending_targets.retain(|_, p| p.session != *child);
        for list in self.pending_frames.values_mut() {
            list.retain(|p| p.session != key);
        }
        self.pending_frames.retain(|_, l| !l.is_empty());
        self.contexts.retain(|(s, _), _| s != &key);
        self.context_frames.retain(|(s, _), _| s != &key);

        if let Some(root) = record.root_frame.as_ref() {
            let parent_session = self
                .frames
                .get(root)
                .and_then(|r| r.parent.clone())
                .and_then(|p| self.frames.get(&p))
                .map(|p| p.session.clone());
            if let Some(rec) = self.frames.get(root)
                && rec.session == key
            {
                match parent_session {
                    Some(ps) => {
                        let children = rec.children.clone();
                        for c in children {
                            self.remove_subtree(&c);
                        }
                        if let Some(rec) = self.frames.get_mut(root) {
                            rec.session = ps;
                        }
                    }
                    None => self.remove_subtree(root),
                }
            }
        }
        let owned: Vec<FrameId> = self
            .frames
            .iter()
            .filter(|(_, r)| r.session == key)
            .map(|(id, _)| id.clone())
            .collect();
        for f in owned {
            if self.frames.contains_key(&f) {
                self.remove_subtree(&f);
            }
        }
        for n in nested {
            self.on_target_detached(&n);
        }
        self.bump();
    }

    /// `Inspector.targetCrashed` on an OOPIF session: its renderer is gone. The session's root
    /// frame stays (its `<iframe>` element still exists in the parent) but loses its contexts;
    /// the frames inside it are dropped (sessions nested under them become orphans). Ignored for
    /// the page session and unknown sessions.
    pub fn on_target_crashed(&mut self, session: &SessionKey) {
        if session == &self.page_session {
            return;
        }
        let Some(root) = self.sessions.get(session).map(|r| r.root_frame.clone()) else {
            return;
        };
        self.crashed.insert(session.clone());
        self.contexts.retain(|(s, _), _| s != session);
        self.context_frames.retain(|(s, _), _| s != session);
        let children = root
            .as_ref()
            .and_then(|r| self.frames.get(r))
            .filter(|r| &r.session == session)
            .map(|r| r.children.clone())
            .unwrap_or_default();
        for c in children {
            self.remove_subtree(&c);
        }
        self.bump();
    }

    /// `Inspector.targetReloadedAfterCrash` (or any later sign of life, e.g. a navigation) on a
    /// crashed session: it answers calls again.
    pub fn on_target_reloaded_after_crash(&mut self, session: &SessionKey) {
        if self.crashed.remove(session) {
            self.bump();
        }
    }

    /// Applies one session's `Page.getFrameTree` (parents listed before children): every listed
    /// frame is added if unknown and owned by `session`; URLs and names are refreshed.
    pub fn seed_from_frame_tree(&mut self, session: &SessionKey, frames: &[TreeFrame]) {
        if !self.sessions.contains_key(session) {
            return;
        }
        for f in frames {
            if f.parent_id.is_none() {
                if session != &self.page_session {
                    continue;
                }
                match &self.main_frame {
                    Some(main) if *main == f.frame_id => {
                        if let Some(rec) = self.frames.get_mut(main)
                            && url_unknown(&rec.url)
                        {
                            rec.url = f.url.clone();
                            rec.name = f.name.clone();
                            rec.loader_id = f.loader_id.clone();
                        }
                    }
                    _ => self.set_main_frame(session.clone(), f.clone()),
                }
                continue;
            }
            if self.main_frame.as_ref() == Some(&f.frame_id) {
                continue;
            }
            if let Some(rec) = self.frames.get_mut(&f.frame_id) {
                // A frame tree is a snapshot that events may already have overtaken: it only
                // fills in what is still unknown; URLs, names and ownership follow the events.
                if url_unknown(&rec.url) {
                    rec.url = f.url.clone();
                    rec.loader_id = f.loader_id.clone();
                }
                if rec.name.is_none() {
                    rec.name = f.name.clone();
                }
            } else if !self.removed.contains(&f.frame_id) {
                self.place(session.clone(), f.clone());
            }
        }
        self.bump();
    }

    /// Removes frames that `session`'s own `Page.getFrameTree` no longer lists (used by
    /// `FrameGraph::sync`). `listed` is every frame id of that tree; `asked_at` is
    /// [`Self::version`] read just before the tree was requested. A frame owned by `session`,
    /// placed before `asked_at` and missing from the tree is dropped with its subtree; younger
    /// frames may simply postdate the answer and are kept.
    pub fn prune_session(
        &mut self,
        session: &SessionKey,
        listed: &HashSet<FrameId>,
        asked_at: u64,
    ) {
        let stale: Vec<FrameId> = self
            .frames
            .iter()
            .filter(|(id, r)| {
                &r.session == session
                    && !listed.contains(*id)
                    && r.parent.is_some()
                    && r.born < asked_at
            })
            .map(|(id, _)| id.clone())
            .collect();
        for f in stale {
            if self.frames.contains_key(&f) {
                self.remove_subtree(&f);
            }
        }
        self.bump();
    }

    /// `Runtime.executionContextCreated` on `session`; only default-world contexts are recorded.
    pub fn on_context_created(
        &mut self,
        session: &SessionKey,
        context: ExecutionContextId,
        frame: &FrameId,
        is_default: bool,
    ) {
        if !is_default || !self.sessions.contains_key(session) {
            return;
        }
        let key = (session.clone(), frame.clone());
        if let Some(old) = self.contexts.insert(key, context) {
            self.context_frames.remove(&(session.clone(), old));
        }
        // A context id reported again for another frame: the older mapping is stale.
        if let Some(prev) = self
            .context_frames
            .insert((session.clone(), context), frame.clone())
            && &prev != frame
        {
            let prev_key = (session.clone(), prev);
            if self.contexts.get(&prev_key) == Some(&context) {
                self.contexts.remove(&prev_key);
            }
        }
        self.bump();
    }

    /// `Runtime.executionContextDestroyed` on `session`. The forward entry is removed only if it
    /// still points at this context (its replacement may already be registered).
    pub fn on_context_destroyed(&mut self, session: &SessionKey, context: ExecutionContextId) {
        if let Some(frame) = self.context_frames.remove(&(session.clone(), context)) {
            let key = (session.clone(), frame);
            if self.contexts.get(&key) == Some(&context) {
                self.contexts.remove(&key);
            }
            self.bump();
        }
    }

    /// `Runtime.executionContextsCleared` on `session`: all of its contexts are gone.
    pub fn on_contexts_cleared(&mut self, session: &SessionKey) {
        self.contexts.retain(|(s, _), _| s != session);
        self.context_frames.retain(|(s, _), _| s != session);
        self.bump();
    }

    /// Records the `<iframe>` element (in the parent's document) that owns `frame`.
    pub fn set_owner(&mut self, frame: &FrameId, owner: BackendNodeId) {
        if let Some(rec) = self.frames.get_mut(frame)
            && rec.owner != Some(owner)
        {
            rec.owner = Some(owner);
            self.bump();
        }
    }

    /// Re-sorts `parent`'s children: those listed in `order` first, in that order, then the rest in
    /// their current order.
    pub fn reorder_children(&mut self, parent: &FrameId, order: &[FrameId]) {
        let Some(rec) = self.frames.get_mut(parent) else {
            return;
        };
        let mut sorted: Vec<FrameId> = order
            .iter()
            .filter(|f| rec.children.contains(f))
            .cloned()
            .collect();
        let mut seen: HashSet<FrameId> = HashSet::new();
        sorted.retain(|f| seen.insert(f.clone()));
        for c in &rec.children {
            if !seen.contains(c) {
                sorted.push(c.clone());
            }
        }
        if sorted != rec.children {
            rec.children = sorted;
            self.bump();
        }
    }

    /// Gives every unnumbered frame a number: first those in `order` (document order), then the rest
    /// depth-first. From now on new frames are numbered as they appear.
    pub fn finish_numbering(&mut self, order: &[FrameId]) {
        for f in order {
            self.ensure_index(f);
        }
        for f in self.dfs_order() {
            self.ensure_index(&f);
        }
        self.defer_numbering = false;
        self.bump();
    }

    /// Drops every OOPIF session whose frame is gone (removed from the graph, not merely parked)
    /// and returns each with the session that attached it, so the caller can detach it in the
    /// browser too. Chromium normally detaches such sessions itself, but a frame removed while its
    /// target was still paused can leave the target (and our session) alive indefinitely.
    pub fn release_orphaned_sessions(&mut self) -> Vec<(SessionId, SessionKey)> {
        let mut released = Vec::new();
        // Releasing a session can orphan others (its parked targets go with it): repeat.
        loop {
            // Parents first: detaching a session also drops the sessions below it.
            let orphans: Vec<(SessionId, SessionKey)> = self
                .sessions()
                .into_iter()
                .filter_map(|k| {
                    let r = self.sessions.get(&k)?;
                    let id = k.clone()?;
                    let root = r.root_frame.as_ref()?;
                    let parked = self.pending_targets.get(root).map(|p| &p.session) == Some(&id);
                    let gone = !self.frames.contains_key(root) && !parked;
                    gone.then(|| (id, r.parent.clone().flatten()))
                })
                .collect();
            if orphans.is_empty() {
                return released;
            }
            for (id, parent) in orphans {
                if self.sessions.contains_key(&Some(id.clone())) {
                    self.on_target_detached(&id);
                    released.push((id, parent));
                }
            }
        }
    }

    /// `Page.frameNavigated{type: "BackForwardCacheRestore"}` emitted on `session`: the main
    /// frame shows a document restored from the back/forward cache.
    ///
    /// What Chromium 148 sends (measured): when a document enters the cache, each of its direct
    /// OOPIF sessions gets `detachedFromTarget` (nested ones go silently with it), its in-process
    /// subframes get no `frameDetached`. On restore, each direct OOPIF target is announced again
    /// (`attachedToTarget` on the page session, already running, with its URL and parent frame)
    /// *before* this event, and the restored in-process frames' contexts are reported, but not
    /// the frames themselves (no `frameAttached`/`frameNavigated`); nested OOPIF targets are
    /// announced once auto-attach is on in their parent's new session. (Re-sending
    /// `setAutoAttach` on the page session announces again only targets detached meanwhile; off
    /// then on replaces every child session.)
    ///
    /// So: a new generation as for any main-frame navigation, except that children of the main
    /// frame held by a live OOPIF session attached for them (the restored targets just
    /// announced) are kept with their subtrees, unnumbered. Everything else under the main frame
    /// is the previous document's and goes. Removed frames are forgotten so that the page
    /// session's frame tree may bring the restored in-process frames back
    /// ([`Self::seed_from_frame_tree`]).
    pub fn on_frame_restored(&mut self, session: &SessionKey, frame: TreeFrame) {
        let main = self.main_frame.clone();
        let is_main = frame.parent_id.is_none()
            && session == &self.page_session
            && main.as_ref() == Some(&frame.frame_id);
        let kept: Vec<FrameId> = match main.as_ref().filter(|_| is_main) {
            Some(m) => {
                let children = self
                    .frames
                    .get(m)
                    .map(|r| r.children.clone())
                    .unwrap_or_default();
                let restored: Vec<FrameId> = children
                    .into_iter()
                    .filter(|c| self.is_live_target_root(c))
                    .collect();
                if let Some(rec) = self.frames.get_mut(m) {
                    rec.children.retain(|c| !restored.contains(c));
                }
                restored
            }
            None => Vec::new(),
        };
        self.on_frame_navigated(session, frame);
        if let Some(m) = main.filter(|_| is_main) {
            for c in &kept {
                self.clear_indices(c);
            }
            if let Some(rec) = self.frames.get_mut(&m) {
                rec.children.extend(kept);
            }
        }
        self.removed.clear();
        self.bump();
    }

    /// Frames placed since the last call (the graph looks up their owner elements).
    pub fn take_added(&mut self) -> Vec<FrameId> {
        std::mem::take(&mut self.added)
    }

    /// The frame's index, assigning the next free number if it has none yet.
    pub fn ensure_index(&mut self, frame: &FrameId) -> Option<FrameIndex> {
        let next = self.next_index;
        let rec = self.frames.get_mut(frame)?;
        if let Some(i) = rec.index {
            return Some(i);
        }
        let i = FrameIndex(next);
        rec.index = Some(i);
        self.next_index += 1;
        self.version += 1;
        Some(i)
    }

    // ----------------------------------------------------------------------------------------
    // internals

    fn bump(&mut self) {
        self.version += 1;
    }

    fn new_generation(&mut self) {
        if let Some(main) = self.main_frame.clone() {
            let children = self
                .frames
                .get(&main)
                .map(|r| r.children.clone())
                .unwrap_or_default();
            for c in children {
                self.remove_subtree(&c);
            }
        }
        self.pending_frames.clear();
        self.generation += 1;
        self.next_index = 1;
        self.defer_numbering = true;
    }

    fn set_main_frame(&mut self, session: SessionKey, frame: TreeFrame) {
        if let Some(old) = self.main_frame.take() {
            self.remove_subtree(&old);
        }
        self.new_generation();
        let id = frame.frame_id.clone();
        self.frames.insert(
            id.clone(),
            FrameRecord {
                parent: None,
                children: Vec::new(),
                url: frame.url,
                name: frame.name,
                loader_id: frame.loader_id,
                owner: None,
                session,
                index: Some(FrameIndex::MAIN),
                born: self.version,
            },
        );
        self.main_frame = Some(id.clone());
        self.drain_pending(&id);
        self.bump();
    }

    /// Adds a frame under its (known) parent, or parks it until the parent appears.
    fn place(&mut self, session: SessionKey, frame: TreeFrame) {
        let Some(parent) = frame.parent_id.clone() else {
            return;
        };
        if !self.frames.contains_key(&parent) {
            let list = self.pending_frames.entry(parent).or_default();
            list.retain(|p| p.frame.frame_id != frame.frame_id);
            list.push(PendingFrame { session, frame });
            return;
        }
        let id = frame.frame_id.clone();
        // An OOPIF target that attached before its frame was placed owns it.
        let session = match self.pending_targets.remove(&id) {
            Some(t) if self.sessions.contains_key(&Some(t.session.clone())) => Some(t.session),
            _ => session,
        };
        self.forget_pending_frame(&id);
        let index = if self.defer_numbering {
            None
        } else {
            let i = FrameIndex(self.next_index);
            self.next_index += 1;
            Some(i)
        };
        self.frames.insert(
            id.clone(),
            FrameRecord {
                parent: Some(parent.clone()),
                children: Vec::new(),
                url: frame.url,
                name: frame.name,
                loader_id: frame.loader_id,
                owner: None,
                session,
                index,
                born: self.version,
            },
        );
        if let Some(p) = self.frames.get_mut(&parent) {
            p.children.push(id.clone());
        }
        self.added.push(id.clone());
        self.drain_pending(&id);
        self.bump();
    }

    /// True when `frame` is the root of a live OOPIF session attached for it.
    fn is_live_target_root(&self, frame: &FrameId) -> bool {
        let Some(rec) = self.frames.get(frame) else {
            return false;
        };
        rec.session != self.page_session
            && self
                .sessions
                .get(&rec.session)
                .is_some_and(|s| s.root_frame.as_ref() == Some(frame))
    }

    /// Unnumbers `frame` and its subtree (they take numbers of the current generation on use).
    fn clear_indices(&mut self, frame: &FrameId) {
        let mut stack = vec![frame.clone()];
        while let Some(f) = stack.pop() {
            if let Some(rec) = self.frames.get_mut(&f) {
                rec.index = None;
                stack.extend(rec.children.iter().cloned());
            }
        }
    }

    fn drain_pending(&mut self, parent: &FrameId) {
        if let Some(list) = self.pending_frames.remove(parent) {
            for p in list {
                if !self.frames.contains_key(&p.frame.frame_id)
                    && self.sessions.contains_key(&p.session)
                {
                    self.place(p.session, p.frame);
                }
            }
        }
    }

    fn forget_pending_frame(&mut self, frame: &FrameId) {
        for list in self.pending_frames.values_mut() {
            list.retain(|p| &p.frame.frame_id != frame);
        }
        self.pending_frames.retain(|_, l| !l.is_empty());
    }

    fn remove_subtree(&mut self, frame: &FrameId) {
        let Some(rec) = self.frames.remove(frame) else {
            return;
        };
        if self.removed.len() >= MAX_REMOVED_REMEMBERED {
            self.removed.clear();
        }
        self.removed.insert(frame.clone());
        if let Some(p) = rec.parent.as_ref().and_then(|p| self.frames.get_mut(p)) {
            p.children.retain(|c| c != frame);
        }
        if self.main_frame.as_ref() == Some(frame) {
            self.main_frame = None;
        }
        let ctx_keys: Vec<(SessionKey, FrameId)> = self
            .contexts
            .keys()
            .filter(|(_, f)| f == frame)
            .cloned()
            .collect();
        for k in ctx_keys {
            if let Some(ctx) = self.contexts.remove(&k) {
                self.context_frames.remove(&(k.0.clone(), ctx));
            }
        }
        self.pending_frames.remove(frame);
        self.pending_targets.remove(frame);
        for c in rec.children {
            self.remove_subtree(&c);
        }
    }
}

/// Whether a frame's URL says nothing yet: empty, or `:` (Chromium 148 lists a frame that has
/// no document yet, such as an OOPIF target paused before its first navigation, with URL `:`).
fn url_unknown(url: &str) -> bool {
    url.is_empty() || url == ":"
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
