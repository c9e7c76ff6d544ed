//! The reference CLI's batch commands: `browser batch-new-tab` (alias `batch-open`),
//! `browser batch-snapshot`, `browser batch-click`.

use serde::{Deserialize, Serialize};

use super::{SnapshotData, SnapshotNode, SnapshotStats, TabInfo};
use crate::text::{RenderText, TextBody};

/// `browser batch-new-tab` data: every tab opened, in the order of the URLs.
///
/// ```text
/// ok browser batch-new-tab
/// 2 tabs opened
/// [t2] https://a.example/
/// [t3] https://b.example/
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchNewTabData {
    /// Always `"batch-new-tab"` ([`BatchNewTabData::ACTION`]).
    pub action: String,
    /// How many tabs were opened.
    pub opened: u64,
    /// The tabs, in the order of the URLs.
    pub tabs: Vec<TabInfo>,
}

impl BatchNewTabData {
    /// The `action` value.
    pub const ACTION: &'static str = "batch-new-tab";

    /// The data for these tabs, with `action` and `opened` set.
    pub fn new(tabs: Vec<TabInfo>) -> Self {
        BatchNewTabData {
            action: Self::ACTION.to_owned(),
            opened: tabs.len() as u64,
            tabs,
        }
    }
}

impl RenderText for BatchNewTabData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.opened as usize, "tab opened", "tabs opened");
        for t in &self.tabs {
            body.line(format_args!("[{}] {}", t.tab_id, t.url));
        }
    }
}

/// One tab's outcome in `browser batch-snapshot` (`data.results[]`): the tab's snapshot, or why
/// it has none. The other tabs' snapshots are unaffected by one tab's failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BatchSnapshotResult {
    /// `status: "ok"`: the snapshot, as `browser snapshot` gives it.
    Ok {
        /// The tab.
        tab_id: String,
        /// Always `"ok"`.
        status: String,
        /// Where the snapshot text was saved.
        path: String,
        /// The ref'd nodes, flat, in document order.
        nodes: Vec<SnapshotNode>,
        /// Counts.
        stats: SnapshotStats,
        /// The tab's URL when it was captured.
        url: String,
        /// The tab's title when it was captured.
        title: String,
    },
    /// `status: "error"`: the error code and message the snapshot failed with.
    Error {
        /// The tab.
        tab_id: String,
        /// Always `"error"`.
        status: String,
        /// The error code (`TAB_NOT_FOUND`, `TIMEOUT`, ...).
        code: String,
        /// What went wrong.
        message: String,
    },
}

impl BatchSnapshotResult {
    /// A tab's snapshot.
    pub fn ok(
        tab_id: impl Into<String>,
        snapshot: SnapshotData,
        url: String,
        title: String,
    ) -> Self {
        BatchSnapshotResult::Ok {
            tab_id: tab_id.into(),
            status: "ok".to_owned(),
            path: snapshot.path,
            nodes: snapshot.nodes,
            stats: snapshot.stats,
            url,
            title,
        }
    }

    /// A tab whose snapshot failed.
    pub fn error(
        tab_id: impl Into<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        BatchSnapshotResult::Error {
            tab_id: tab_id.into(),
            status: "error".to_owned(),
            code: code.into(),
            message: message.into(),
        }
    }

    /// The tab this result is for.
    pub fn tab_id(&self) -> &str {
        match self {
            BatchSnapshotResult::Ok { tab_id, .. } | BatchSnapshotResult::Error { tab_id, .. } => {
                tab_id
            }
        }
    }
}

/// `browser batch-snapshot` data: one result per tab asked for, in that order.
///
/// ```text
/// 2 tabs
/// [t1] http://127.0.0.1:8080/
/// output saved to /home/u/.actionbook/sessions/s1/snapshots/t1/snapshot_1.txt
/// [t9]
/// error TAB_NOT_FOUND: tab 't9' not found
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchSnapshotData {
    /// Always `"batch-snapshot"` ([`BatchSnapshotData::FORMAT`]).
    pub format: String,
    /// One result per tab.
    pub results: Vec<BatchSnapshotResult>,
}

impl BatchSnapshotData {
    /// The `format` value.
    pub const FORMAT: &'static str = "batch-snapshot";

    /// The data for these results, with `format` set.
    pub fn new(results: Vec<BatchSnapshotResult>) -> Self {
        BatchSnapshotData {
            format: Self::FORMAT.to_owned(),
            results,
        }
    }
}

impl RenderText for BatchSnapshotData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.results.len(), "tab", "tabs");
        for r in &self.results {
            match r {
                BatchSnapshotResult::Ok {
                    tab_id, path, url, ..
                } => {
                    body.line(format_args!("[{tab_id}] {url}"));
                    body.line(format_args!("output saved to {path}"));
                }
                BatchSnapshotResult::Error {
                    tab_id,
                    code,
                    message,
                    ..
                } => {
                    body.line(format_args!("[{tab_id}]"));
                    body.line(format_args!("error {code}: {message}"));
                }
            }
        }
    }
}

/// One click of `browser batch-click` (`data.results[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchClickResult {
    /// Its position in the list (0-based).
    pub index: u64,
    /// The selector as given.
    pub selector: String,
}

/// `browser batch-click` data: every click, in order (a failed click fails the command with
/// `BATCH_CLICK_ERROR`, naming how many were done).
///
/// ```text
/// ok browser batch-click
/// clicks: 2
///   target: #a
///   target: @e5
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchClickData {
    /// Always `"batch-click"` ([`BatchClickData::ACTION`]).
    pub action: String,
    /// How many clicks were done.
    pub clicks: u64,
    /// The clicks, in order.
    pub results: Vec<BatchClickResult>,
}

impl BatchClickData {
    /// The `action` value.
    pub const ACTION: &'static str = "batch-click";

    /// The data for these clicks, with `action` and `clicks` set.
    pub fn new(results: Vec<BatchClickResult>) -> Self {
        BatchClickData {
            action: Self::ACTION.to_owned(),
            clicks: results.len() as u64,
            results,
        }
    }
}

impl RenderText for BatchClickData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("clicks", self.clicks);
        for r in &self.results {
            body.line(format_args!("  target: {}", r.selector));
        }
    }
}
