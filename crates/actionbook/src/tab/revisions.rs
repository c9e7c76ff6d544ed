//! The snapshots a tab keeps for `browser snapshot --diff`, `--since`, `--mark-new` and `--page`:
//! the last few revisions as [`Outline`]s (lines and node identities, no DOM), numbered per tab.

use std::collections::VecDeque;

use a11y_snapshot::{Outline, Paging};

/// Revisions kept per tab.
pub(crate) const KEPT_REVISIONS: usize = 8;
/// Bytes of outlines kept per tab beyond the newest one (older revisions go first).
pub(crate) const KEPT_BYTES: usize = 8 << 20;

/// Which document a snapshot was taken of: a navigation of the main frame (or a new page session)
/// makes another one, and a diff across two documents is a full snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct DocumentKey {
    /// The page session (connection generation and session id).
    pub session: (u64, String),
    /// The frame graph's main-frame navigation count.
    pub generation: u64,
    /// The main frame's id.
    pub main_frame: String,
}

/// What shaped a revision's lines (a diff between different lenses warns).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Lens {
    /// `--interactive`.
    pub interactive: bool,
    /// `--cursor`.
    pub cursor: bool,
    /// `--compact`.
    pub compact: bool,
    /// `--depth`.
    pub depth: Option<usize>,
    /// `--selector`.
    pub selector: Option<String>,
}

/// Which part of a revision a page or diff shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Scope {
    /// Everything.
    #[default]
    All,
    /// `--viewport`.
    Viewport,
    /// `--modal` (with an open dialog).
    Modal,
}

/// One kept snapshot.
#[derive(Debug)]
pub(crate) struct Revision {
    /// Its number (per tab, from 1, increasing).
    pub number: u64,
    /// The document it was taken of.
    pub document: DocumentKey,
    /// The filters it was taken with.
    pub lens: Lens,
    /// Its lines, unscoped.
    pub outline: Outline,
    /// The last cut into pages of it: the scope, the scoped outline (`None`: [`Self::outline`]
    /// itself) and its pages.
    pub paging: Option<(Scope, Option<Outline>, Paging)>,
}

impl Revision {
    fn bytes(&self) -> usize {
        self.outline.heap_bytes()
            + self.paging.as_ref().map_or(0, |(_, o, _)| {
                o.as_ref().map_or(0, Outline::heap_bytes) + self.outline.len() * 4
            })
    }

    /// The outline the last cut was made of, and the cut.
    pub fn paged(&self) -> Option<(Scope, &Outline, &Paging)> {
        let (s, o, p) = self.paging.as_ref()?;
        Some((*s, o.as_ref().unwrap_or(&self.outline), p))
    }
}

/// The revisions of one tab.
#[derive(Debug, Default)]
pub(crate) struct Revisions {
    last: u64,
    kept: VecDeque<Revision>,
}

/// `--since` named a revision that is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotKept {
    /// The oldest revision kept, if any.
    pub oldest: Option<u64>,
    /// The newest revision, if any.
    pub newest: Option<u64>,
}

impl Revisions {
    /// The number the next revision gets.
    pub fn next_number(&self) -> u64 {
        self.last + 1
    }

    /// The newest revision.
    pub fn latest(&self) -> Option<&Revision> {
        self.kept.back()
    }

    /// The newest revision, mutable.
    pub fn latest_mut(&mut self) -> Option<&mut Revision> {
        self.kept.back_mut()
    }

    /// Revision `n`, if still kept.
    pub fn get(&self, n: u64) -> Result<&Revision, NotKept> {
        self.kept
            .iter()
            .find(|r| r.number == n)
            .ok_or_else(|| NotKept {
                oldest: self.kept.front().map(|r| r.number),
                newest: self.kept.back().map(|r| r.number),
            })
    }

    /// Keeps `outline` as the next revision; returns its number. Older revisions beyond
    /// [`KEPT_REVISIONS`] or [`KEPT_BYTES`] go, and older ones drop their `data.nodes` entries
    /// (pages are only served from the newest).
    pub fn push(
        &mut self,
        document: DocumentKey,
        lens: Lens,
        outline: Outline,
        paging: Option<(Scope, Option<Outline>, Paging)>,
    ) -> u64 {
        self.last += 1;
        if let Some(prev) = self.kept.back_mut() {
            prev.outline.drop_summaries();
            prev.paging = None;
        }
        self.kept.push_back(Revision {
            number: self.last,
            document,
            lens,
            outline,
            paging,
        });
        while self.kept.len() > KEPT_REVISIONS {
            self.kept.pop_front();
        }
        let newest = self.kept.back().map_or(0, Revision::bytes);
        let mut older: usize = self.kept.iter().map(Revision::bytes).sum::<usize>() - newest;
        while older > KEPT_BYTES && self.kept.len() > 1 {
            if let Some(r) = self.kept.pop_front() {
                older -= r.bytes();
            }
        }
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_increase_and_old_revisions_are_evicted() {
        let mut r = Revisions::default();
        for _ in 0..KEPT_REVISIONS + 3 {
            r.push(
                DocumentKey::default(),
                Lens::default(),
                Outline::default(),
                None,
            );
        }
        let newest = KEPT_REVISIONS as u64 + 3;
        assert_eq!(r.latest().map(|r| r.number), Some(newest));
        assert!(r.get(newest).is_ok());
        let err = r.get(1).err();
        assert_eq!(
            err,
            Some(NotKept {
                oldest: Some(4),
                newest: Some(newest)
            })
        );
        assert_eq!(r.next_number(), newest + 1);
    }
}
