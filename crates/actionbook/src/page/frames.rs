//! The frames of a tab as the snapshot and the actions see them: the tab's frame graph (every
//! frame, OOPIFs included, kept current by CDP events) and its ref table (`@eN`).

use a11y_snapshot::{CaptureOptions, RefTable, Snapshot, SnapshotError};
use cdp_protocol::{CdpError, Session, SessionId};
use frame_graph::{FrameGraph, FrameGraphError, FrameGraphOptions};

use crate::deadline::Deadline;
use crate::error::{CliError, Result};

/// What a snapshot that ran out of time was doing, and the one limit there is: `--selector`,
/// `--depth` and `--interactive` shorten the output, not the capture, so they would not help.
pub(crate) const SNAPSHOT_TIMED_OUT: &str =
    "browser snapshot (capturing every frame of a large page; pass a longer --timeout)";

/// A tab's frame graph and ref table.
#[derive(Debug, Default)]
pub(crate) struct TabFrames {
    /// The ref table; `None` until loaded (the tab layer loads it from disk on first use).
    pub refs: Option<RefTable>,
    /// The frame graph of the tab's current page session (keyed by that session's id).
    graph: Option<(String, FrameGraph)>,
    /// Selectors the running command resolved that matched several elements (the first was
    /// used), with their counts: `meta.warnings` of its answer.
    ambiguous: Vec<(String, usize)>,
}

impl TabFrames {
    /// Drops every ref and starts numbering again (a new document was loaded by a navigation
    /// command, whose refs all die with it).
    pub fn forget_refs(&mut self) {
        // Reset, not replaced: the table remembers which numbers the page before had, so a ref
        // of it is reported stale until numbers are handed out again.
        self.refs.get_or_insert_with(RefTable::new).reset();
    }

    /// Drops every ref after the main frame loaded a new document, but keeps numbering where it was
    /// (as the reference CLI does after a click that navigates) so an old ref is recognised as stale
    /// and can never name a node of the new page.
    pub fn drop_refs_keep_numbering(&mut self) {
        self.refs
            .get_or_insert_with(RefTable::new)
            .clear_keep_numbering();
    }

    /// Notes that `selector` matched `matches` elements when there are several (the last count
    /// per selector is kept: a command that resolves again while it waits says it once).
    pub fn note_matches(&mut self, selector: &str, matches: usize) {
        if matches < 2 {
            return;
        }
        match self.ambiguous.iter_mut().find(|(s, _)| s == selector) {
            Some(seen) => seen.1 = matches,
            None => self.ambiguous.push((selector.to_string(), matches)),
        }
    }

    /// The warnings for the selectors noted since the last call (and forgets them).
    pub fn take_match_warnings(&mut self) -> Vec<String> {
        self.ambiguous
            .drain(..)
            .map(|(s, n)| format!("{s} matched {n} elements; used the first"))
            .collect()
    }

    /// The out-of-process frames' sessions of the tab's frame graph as it is now (none before it
    /// was attached), without waiting.
    pub fn frame_sessions(&self) -> Vec<SessionId> {
        match &self.graph {
            Some((_, g)) if !g.is_detached() => g.sessions().into_iter().flatten().collect(),
            _ => Vec::new(),
        }
    }

    /// The ids of every frame of the tab's frame graph as it is now (none before it was attached),
    /// without waiting.
    pub fn frame_ids(&self) -> Vec<String> {
        match &self.graph {
            Some((_, g)) if !g.is_detached() => g
                .frames()
                .into_iter()
                .map(|f| f.frame_id.to_string())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The tab's frame graph, attached on first use and after the page session changed.
    pub async fn graph(&mut self, page: &Session, deadline: &Deadline) -> Result<FrameGraph> {
        let key = page.id().map(|s| s.to_string()).unwrap_or_default();
        if let Some((k, g)) = &self.graph
            && *k == key
            && !g.is_detached()
        {
            return Ok(g.clone());
        }
        if let Some((_, old)) = self.graph.take() {
            old.shutdown();
        }
        // The whole of what `--timeout` leaves, for the attach and for each of its calls: on a
        // page still parsing, `Page.enable` alone can outlast the graph's default 10 s, and a
        // fixed cap would fail every command there whatever `--timeout` says.
        let budget = deadline.remaining();
        let mut options = FrameGraphOptions::default();
        options.command_timeout = budget.max(options.command_timeout);
        options.init_timeout = budget.max(options.init_timeout);
        let attach = FrameGraph::attach(page.clone(), options);
        let g = tokio::time::timeout(budget, attach)
            .await
            .map_err(|_| deadline.timeout("tracking the page's frames"))??;
        self.graph = Some((key, g.clone()));
        Ok(g)
    }

    /// Captures every frame and builds the snapshot, numbering refs in the tab's table.
    pub async fn snapshot(&mut self, page: &Session, deadline: &Deadline) -> Result<Snapshot> {
        let g = self.graph(page, deadline).await?;
        let mut refs = self.refs.take().unwrap_or_default();
        // The whole of what `--timeout` leaves: a large page's capture is one long CDP call, and a
        // fixed cap would be a size wall no `--timeout` could lift.
        let opts = CaptureOptions {
            timeout: deadline.remaining(),
            ..CaptureOptions::default()
        };
        let r = a11y_snapshot::take_snapshot(&g, &mut refs, &opts).await;
        self.refs = Some(refs);
        r.map_err(|e| match e {
            // The capture is one long browser call per session: its only limit is `--timeout`.
            SnapshotError::Cdp(CdpError::Timeout { .. })
            | SnapshotError::FrameGraph(FrameGraphError::Cdp(CdpError::Timeout { .. })) => {
                deadline.timeout(SNAPSHOT_TIMED_OUT)
            }
            e => CliError::from(e),
        })
    }
}
