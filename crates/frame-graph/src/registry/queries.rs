//! The registry's read-only queries (frames, indices, owners, sessions, contexts, order) and its
//! invariant check.

use super::*;

impl FrameRegistry {
    // ----------------------------------------------------------------------------------------
    // queries

    /// The page session this registry was created for.
    pub fn page_session(&self) -> &SessionKey {
        &self.page_session
    }

    /// The main frame's id, once known.
    pub fn main_frame_id(&self) -> Option<&FrameId> {
        self.main_frame.as_ref()
    }

    /// Bumps whenever the main frame navigates (a fresh numbering starts).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Bumps on every change; lets waiters know something happened.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True while new frames are left unnumbered (before the first numbering of a generation).
    pub fn numbering_deferred(&self) -> bool {
        self.defer_numbering
    }

    /// True when the frame is in the graph.
    pub fn contains(&self, frame: &FrameId) -> bool {
        self.frames.contains_key(frame)
    }

    /// Number of frames in the graph.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when no frame is known.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The frame's index, if it has one (read-only; see [`Self::ensure_index`]).
    pub fn index_of(&self, frame: &FrameId) -> Option<FrameIndex> {
        self.frames.get(frame).and_then(|r| r.index)
    }

    /// The frame with this index, if any.
    pub fn frame_by_index(&self, index: FrameIndex) -> Option<&FrameId> {
        self.frames
            .iter()
            .find(|(_, r)| r.index == Some(index))
            .map(|(id, _)| id)
    }

    /// The child of `parent` whose `<iframe>` element is `owner`.
    pub fn frame_by_owner(&self, parent: &FrameId, owner: BackendNodeId) -> Option<&FrameId> {
        self.frames
            .get(parent)?
            .children
            .iter()
            .find(|c| self.frames.get(*c).and_then(|r| r.owner) == Some(owner))
    }

    /// The parent of a frame.
    pub fn parent_of(&self, frame: &FrameId) -> Option<&FrameId> {
        self.frames.get(frame)?.parent.as_ref()
    }

    /// The frame's owner element, if known.
    pub fn owner_of(&self, frame: &FrameId) -> Option<BackendNodeId> {
        self.frames.get(frame)?.owner
    }

    /// The session owning the frame's document (`None` outside: the frame is unknown).
    pub fn session_of(&self, frame: &FrameId) -> Option<&SessionKey> {
        self.frames.get(frame).map(|r| &r.session)
    }

    /// True when the frame's document lives in another session than its parent's.
    pub fn is_out_of_process(&self, frame: &FrameId) -> bool {
        let Some(rec) = self.frames.get(frame) else {
            return false;
        };
        match rec.parent.as_ref().and_then(|p| self.frames.get(p)) {
            Some(parent) => parent.session != rec.session,
            None => false,
        }
    }

    /// The default-world context of the frame in its owning session.
    pub fn context_of(&self, frame: &FrameId) -> Option<ExecutionContextId> {
        let rec = self.frames.get(frame)?;
        self.contexts
            .get(&(rec.session.clone(), frame.clone()))
            .copied()
    }

    /// The frame a context belongs to, within one session.
    pub fn frame_of_context(
        &self,
        session: &SessionKey,
        context: ExecutionContextId,
    ) -> Option<&FrameId> {
        self.context_frames.get(&(session.clone(), context))
    }

    /// True when `session` belongs to this page (the page session or one of its OOPIF sessions).
    pub fn has_session(&self, session: &SessionKey) -> bool {
        self.sessions.contains_key(session)
    }

    /// Every session of this page: the page session first, then child sessions parents-first.
    pub fn sessions(&self) -> Vec<SessionKey> {
        let mut out = vec![self.page_session.clone()];
        let mut i = 0;
        while i < out.len() {
            let cur = out[i].clone();
            let mut kids: Vec<SessionKey> = self
                .sessions
                .iter()
                .filter(|(k, r)| r.parent.as_ref() == Some(&cur) && **k != cur)
                .map(|(k, _)| k.clone())
                .collect();
            kids.sort();
            out.extend(kids);
            i += 1;
        }
        out
    }

    /// The OOPIF frame a child session was attached for.
    pub fn root_frame_of_session(&self, session: &SessionKey) -> Option<&FrameId> {
        self.sessions.get(session)?.root_frame.as_ref()
    }

    /// The session of an OOPIF target parked for this frame until the frame can be placed.
    pub fn parked_target(&self, frame: &FrameId) -> Option<&SessionId> {
        if self.frames.contains_key(frame) {
            return None;
        }
        self.pending_targets.get(frame).map(|p| &p.session)
    }

    /// Frames parked because their parent is not known yet (including OOPIF targets).
    pub fn pending_count(&self) -> usize {
        let placed_targets = self
            .pending_targets
            .keys()
            .filter(|f| !self.frames.contains_key(*f))
            .count();
        placed_targets + self.pending_frames.values().map(Vec::len).sum::<usize>()
    }

    /// All frame ids, depth-first in (known) document order, main frame first.
    pub fn dfs_order(&self) -> Vec<FrameId> {
        let mut out = Vec::with_capacity(self.frames.len());
        let Some(main) = self.main_frame.clone() else {
            return out;
        };
        let mut stack = vec![main];
        while let Some(f) = stack.pop() {
            if let Some(rec) = self.frames.get(&f) {
                for c in rec.children.iter().rev() {
                    stack.push(c.clone());
                }
                out.push(f);
            }
        }
        out
    }

    /// A copy of one frame. Its index is read as is; frames not numbered yet report the index they
    /// would get (call [`Self::ensure_index`] first to make it stick).
    pub fn info(&self, frame: &FrameId) -> Option<FrameInfo> {
        let rec = self.frames.get(frame)?;
        Some(FrameInfo {
            frame_id: frame.clone(),
            parent_frame_id: rec.parent.clone(),
            frame_index: rec.index.unwrap_or(FrameIndex(self.next_index)),
            url: rec.url.clone(),
            name: rec.name.clone(),
            owner_backend_node_id: rec.owner,
            session_id: rec.session.clone(),
            is_out_of_process: self.is_out_of_process(frame),
            children: rec.children.clone(),
        })
    }

    /// True while `session`'s renderer is crashed (calls on it would never be answered).
    pub fn is_session_crashed(&self, session: &SessionKey) -> bool {
        self.crashed.contains(session)
    }

    /// True when `frame`'s document lives in a crashed renderer.
    pub fn is_crashed(&self, frame: &FrameId) -> bool {
        self.frames
            .get(frame)
            .is_some_and(|r| self.crashed.contains(&r.session))
    }

    /// Checks the structural invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        if let Some(s) = self
            .crashed
            .iter()
            .find(|s| !self.sessions.contains_key(*s))
        {
            return Err(format!("crashed session {s:?} is not a known session"));
        }
        match &self.main_frame {
            None => {
                if !self.frames.is_empty() {
                    return Err("frames without a main frame".into());
                }
            }
            Some(main) => {
                let rec = self.frames.get(main).ok_or("main frame missing")?;
                if rec.parent.is_some() {
                    return Err("main frame has a parent".into());
                }
                if rec.index != Some(FrameIndex::MAIN) {
                    return Err("main frame index is not 0".into());
                }
                if rec.session != self.page_session {
                    return Err("main frame not owned by the page session".into());
                }
            }
        }
        let mut seen_indices: HashMap<FrameIndex, &FrameId> = HashMap::new();
        for (id, rec) in &self.frames {
            if let Some(i) = rec.index {
                if let Some(other) = seen_indices.insert(i, id) {
                    return Err(format!("index {i} used by {id} and {other}"));
                }
                if i.0 != 0 && i.0 >= self.next_index {
                    return Err(format!("index {i} of {id} not allocated"));
                }
            }
            if !self.sessions.contains_key(&rec.session) {
                return Err(format!("{id} owned by unknown session {:?}", rec.session));
            }
            match &rec.parent {
                None => {
                    if Some(id) != self.main_frame.as_ref() {
                        return Err(format!("{id} has no parent but is not the main frame"));
                    }
                }
                Some(p) => {
                    let prec = self
                        .frames
                        .get(p)
                        .ok_or_else(|| format!("parent {p} of {id} missing"))?;
                    if prec.children.iter().filter(|c| *c == id).count() != 1 {
                        return Err(format!("{id} not listed once among {p}'s children"));
                    }
                }
            }
            for c in &rec.children {
                let crec = self
                    .frames
                    .get(c)
                    .ok_or_else(|| format!("child {c} of {id} missing"))?;
                if crec.parent.as_ref() != Some(id) {
                    return Err(format!("child {c} of {id} points elsewhere"));
                }
            }
        }
        if self.dfs_order().len() != self.frames.len() {
            return Err("frames unreachable from the main frame".into());
        }
        for ((s, f), ctx) in &self.contexts {
            if !self.sessions.contains_key(s) {
                return Err(format!("context of {f} in unknown session"));
            }
            if self.context_frames.get(&(s.clone(), *ctx)) != Some(f) {
                return Err(format!("context {ctx} of {f}: reverse map out of sync"));
            }
        }
        for (k, r) in &self.sessions {
            if let Some(p) = &r.parent
                && !self.sessions.contains_key(p)
            {
                return Err(format!("session {k:?} has unknown parent session"));
            }
        }
        Ok(())
    }
}
