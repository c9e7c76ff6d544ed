//! Tabs: what the engine keeps per tab ([`TabState`], behind the tab's queue), the context a tab
//! command runs in ([`TabCx`]), and the stages every tab command goes through ([`pipeline`]).
//!
//! - [`attach`]: the tab's flat page session, attached (and its [`services`] started) on first use
//!   and after the connection changed; a page that did not answer is loaded again;
//! - [`info`]: when the browser's view of a page's URL and title can be trusted;
//! - [`services`]: background services of an attached tab (crash watch, dialog answerer, ...);
//! - [`revisions`]: the tab's kept snapshots, for diffs and pages.

use std::sync::Arc;

use a11y_snapshot::RefTable;
use envelope::Data;

use crate::deadline::Deadline;
use crate::error::Result;
use crate::model::{ClientEnv, TabTarget};
use crate::page::eval;
use crate::page::frames::TabFrames;
use crate::reply::Done;
use crate::session::{BrowserConn, Registry, SessionSlot};
use crate::store::{self, TabRecord, artifacts};

pub(crate) mod attach;
pub(crate) mod emulation;
pub(crate) mod info;
pub(crate) mod pipeline;
pub(crate) mod revisions;
pub(crate) mod services;

/// A session whose tab slots are [`TabSlot`]s.
pub(crate) type BrowserSession = SessionSlot<TabSlot>;
/// The registry of such sessions.
pub(crate) type Sessions = Registry<TabSlot>;

/// One tab's queue: tab commands run one at a time per tab.
#[derive(Debug, Default)]
pub(crate) struct TabSlot {
    /// The tab's state; holding the lock is holding the tab.
    pub state: tokio::sync::Mutex<TabState>,
}

/// Per-tab state kept by the engine (guarded by the tab's queue).
#[derive(Debug, Default)]
pub(crate) struct TabState {
    /// The attached flat session and the connection generation it belongs to.
    pub attached: Option<(u64, cdp_protocol::Session)>,
    /// The frame graph and ref table.
    pub frames: TabFrames,
    /// The tab's target id, known once attached.
    pub target_id: Option<String>,
    /// Whether the browser's announced URL/title of this tab were seen to agree with the page
    /// since the last command that could change the page (see [`TabCx::page_info`]).
    pub info_trusted: bool,
    /// Whether the tab's page crashed and has not been loaded again since.
    pub crashed: bool,
    /// The crash verdicts taken into account so far ([`services::crash::Verdict::seq`]).
    pub crash_seen: u64,
    /// Whether `Page.enable` answered on the attached session (not when it was attached to a page
    /// that had already crashed).
    pub page_enabled: bool,
    /// The services of the attached session (dropping them stops them).
    pub services: services::Services,
    /// Where the mouse pointer was last moved (also kept in the tab's record).
    pub cursor: Option<(f64, f64)>,
    /// The out-of-process frames the pointer is in, innermost first (told when it leaves them:
    /// see `page::input::mouse::leave_frames`). In memory only: after a daemon restart the first
    /// move out of such a frame is not told to it.
    pub pointer_frames: Vec<String>,
    /// The page session whose quick clicks' report binding is known to be in place.
    pub landing_binding: Option<cdp_protocol::SessionId>,
    /// The tab's kept snapshots (`browser snapshot --diff`, `--page`, ...).
    pub snapshots: revisions::Revisions,
    /// When the tab's previous command ended: `wait navigation` takes a document newer than that
    /// as the navigation it waits for.
    pub last_done: Option<std::time::Instant>,
    /// How the tab answers dialogs that ask (`browser dialog`), shared with the dialog answerer
    /// of each attach.
    pub dialog_policy: services::dialogs::PolicyCell,
    /// Warnings for the answer of the command under way, noted before it ran (a busy page's
    /// script stopped so the page could be loaded).
    pub notes: Vec<String>,
    /// Whether `dialog_policy` was read from the tab's record (once per daemon: an answer for
    /// every dialog outlives a daemon restart).
    pub dialog_policy_loaded: bool,
}

impl TabState {
    /// Forgets the attached session and stops its services (re-attached on the next command).
    pub fn detach(&mut self) {
        self.attached = None;
        self.services = services::Services::default();
    }

    /// Drops the tab's ref table, in memory and on disk (the document changed).
    pub fn forget_refs(&mut self, session_dir: &std::path::Path, tab_id: &str) {
        self.frames.forget_refs();
        artifacts::remove_refs(session_dir, tab_id);
    }
}

/// A command addressed to a tab; tab commands run one at a time per tab, through the stages of
/// [`pipeline::run_tab`].
pub(crate) trait TabCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// The tab addressed.
    fn target(&self) -> &TabTarget;
    /// Runs the command.
    async fn run(self, tab: &mut TabCx<'_>) -> Result<Done<Self::Data>>;
    /// Puts the page-made text of an answer between the session's content boundary
    /// (`start --content-boundaries`); commands that give none keep this no-op.
    fn bound(_data: &mut Self::Data, _boundary: &crate::boundary::ContentBoundary) {}
}

/// What a tab command works with.
pub(crate) struct TabCx<'a> {
    /// The session.
    pub session: Arc<BrowserSession>,
    /// The tab.
    pub tab_id: String,
    /// The tab's slot the command runs in (its epoch: a `restart` or `close-tab` drops it).
    pub tab_slot: Arc<TabSlot>,
    /// The tab's state (its queue is held).
    pub state: &'a mut TabState,
    /// The browser connection.
    pub conn: BrowserConn,
    /// The tab's flat page session.
    pub page: cdp_protocol::Session,
    /// The command's deadline.
    pub deadline: Deadline,
    /// The caller's environment.
    pub env: &'a ClientEnv,
    /// Page URL/title after the command, when the handler already knows them.
    pub url: Option<String>,
    /// See `url`.
    pub title: Option<String>,
}

impl TabCx<'_> {
    /// The session's downloads, with those this tab's page or frames caused placed on it.
    pub fn downloads(&self) -> &crate::session::downloads::Downloads {
        let log = &self.session.downloads;
        log.claim(&self.tab_id, self.state.target_id.as_deref(), || {
            self.state.frames.frame_ids()
        });
        log
    }

    /// `(location.href, document.title)` of the page. Answered from the browser's announced target
    /// info (no round trip to the page) when it was seen to agree with the page since the last
    /// command that could change it; else read from the page, and compared to decide that.
    /// Commands call this only before they change the page; afterwards [`eval::page_info`].
    pub async fn page_info(&mut self) -> Result<(String, String)> {
        let browser = self.conn.browser();
        let target_id = self.state.target_id.clone().unwrap_or_default();
        let announced = info::announced(&browser, &target_id, &self.deadline);
        if self.state.info_trusted
            && let Some(seen) = announced.await
        {
            return Ok(seen);
        }
        let announced = info::announced(&browser, &target_id, &self.deadline);
        let (read, seen) = tokio::join!(eval::page_info(&self.page, &self.deadline), announced);
        let read = read?;
        self.state.info_trusted = seen.as_ref() == Some(&read);
        Ok(read)
    }

    /// The URL a navigation starts from: the page's, or the last one recorded when the page crashed
    /// (its renderer cannot answer).
    pub async fn url_before_loading(&mut self) -> Result<String> {
        if self.state.crashed {
            return Ok(self
                .session
                .with_record(|r| r.tab(&self.tab_id).map(|t| t.url.clone()))
                .unwrap_or_default());
        }
        Ok(self.page_info().await?.0)
    }

    /// The tab's main frame id (a page target's id is its main frame's).
    pub fn main_frame(&self) -> String {
        self.session
            .with_record(|r| r.tab(&self.tab_id).map(|t| t.target_id.clone()))
            .unwrap_or_default()
    }

    /// Whether the tab the command runs on is still the one at its id (see
    /// [`SessionSlot::holds_tab_slot`]): false once a `restart` or `close-tab` replaced it.
    pub fn is_current(&self) -> bool {
        self.session.holds_tab_slot(&self.tab_id, &self.tab_slot)
    }

    /// Changes the tab's entry of the session record (written in the background) while the tab
    /// is current: a late command never writes onto the tab a `restart` put at its id.
    pub fn update_tab_soon(&self, f: impl FnOnce(&mut TabRecord) -> bool) {
        self.session
            .update_tab_soon(&self.tab_id, &self.tab_slot, f);
    }

    /// [`TabCx::update_tab_soon`], written before it returns.
    pub async fn update_tab_if(&self, f: impl FnOnce(&mut TabRecord) -> bool) -> Result<()> {
        self.session
            .update_tab_if(&self.tab_id, &self.tab_slot, f)
            .await
    }

    /// Drops the tab's ref table (the document changed); on disk only while the tab is current
    /// (the file at its id may be a newer tab's).
    pub fn forget_refs(&mut self) {
        if self.is_current() {
            self.state.forget_refs(&self.session.dir, &self.tab_id);
        } else {
            self.state.frames.forget_refs();
        }
    }

    /// Loads the tab's ref table from disk the first time (a new daemon re-attaching).
    pub fn load_refs(&mut self) {
        if self.state.frames.refs.is_some() {
            return;
        }
        let refs = std::fs::read(artifacts::refs_file(&self.session.dir, &self.tab_id))
            .ok()
            .and_then(|b| RefTable::from_json(&b).ok())
            .unwrap_or_default();
        self.state.frames.refs = Some(refs);
    }

    /// Writes the tab's ref table to disk; not once the tab was replaced (a late snapshot of the
    /// old browser's page never lands on the new tab with the same id).
    pub async fn save_refs(&self) -> Result<()> {
        if !self.is_current() {
            return Ok(());
        }
        if let Some(refs) = &self.state.frames.refs {
            let file = artifacts::refs_file(&self.session.dir, &self.tab_id);
            // Names of elements may show a secret a page echoes.
            let json = refs.to_json();
            let json = match std::str::from_utf8(&json) {
                Ok(text) if !self.env.secrets.is_empty() => {
                    self.env.secrets.mask(text).into_bytes()
                }
                _ => json,
            };
            store::off_worker(move || store::write_atomic(&file, &json)).await??;
        }
        Ok(())
    }
}

impl std::fmt::Debug for TabCx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TabCx")
            .field("session", &self.session.id)
            .field("tab", &self.tab_id)
            .finish()
    }
}
