//! Sessions: one browser each, its durable record, its live connection and its tabs' slots.
//!
//! - [`SessionSlot`]: one session (record, connection, tab slots, the queues that order work);
//! - [`registry`]: every session of the home, and id allocation;
//! - [`connect`]: (re)connecting and the crash policy;
//! - [`context`]: the browser context of a session on a shared remote browser;
//! - [`endpoint`]: how a remote endpoint is reached (headers, `--ca-file`, proxies);
//! - [`downloads`]: where the browser saves downloads, and what became of each;
//! - [`guard`]: `--allowed-domains` enforced in the browser (browser-level `Fetch`, launch flags);
//! - [`launch`]: launching, and tearing a session down;
//! - [`origins`]: the web origins the session's pages showed (for a saved storage state);
//! - [`targets`]: the browser's page targets and windows, popups adopted as tabs;
//! - [`process`]: process checks and kills by pid;
//! - [`provider`]: browser providers' APIs (`--provider`).
//!
//! Lock order, outermost first: `Registry::creating` → `SessionSlot::structure` → a tab's queue →
//! `SessionSlot::connecting`. The std locks (record, connection, tab slots) are innermost, short,
//! and never held across `.await`.
//!
//! A session does not know what a tab slot holds: it is a type parameter (`T`), filled in by the
//! tab layer above.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use cdp_protocol::{Browser, Connection, Session};

use crate::error::Result;
use crate::store::{self, SessionRecord, TabRecord};

pub(crate) mod connect;
pub(crate) mod context;
pub(crate) mod downloads;
pub(crate) mod endpoint;
pub(crate) mod guard;
pub(crate) mod launch;
pub(crate) mod origins;
pub(crate) mod process;
pub(crate) mod provider;
pub(crate) mod registry;
pub(crate) mod targets;

pub(crate) use registry::Registry;

/// A live browser connection of a session.
#[derive(Debug, Clone)]
pub(crate) struct BrowserConn {
    /// The connection.
    pub conn: Connection,
    /// Bumps on every new connection, so tab sessions of an old one are re-attached.
    pub generation: u64,
    /// The browser context the session's tabs live in (a remote browser shared by several
    /// sessions): only its targets are listed, and new tabs open in it. None: every page target
    /// of the browser (a browser the session launched).
    pub context: Option<context::TabContext>,
}

impl BrowserConn {
    /// Whether the connection is gone.
    pub fn is_closed(&self) -> bool {
        self.conn.is_closed()
    }

    /// The browser-level session.
    pub fn browser(&self) -> Session {
        self.conn.browser()
    }

    /// The context the session made, to name where a command takes one (`Target.createTarget`,
    /// `Storage.*`, permissions, downloads); None for the default context.
    pub fn own_context(&self) -> Option<cdp_protocol::BrowserContextId> {
        match &self.context {
            Some(context::TabContext::Own(id)) => Some(id.clone()),
            _ => None,
        }
    }
}

/// Locks a short std lock; a panic while holding one leaves plain data behind, so keep going.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One session; `T` is what the tab layer keeps per tab.
#[derive(Debug)]
pub(crate) struct SessionSlot<T> {
    /// The session id.
    pub id: String,
    record: Arc<Mutex<SessionRecord>>,
    /// Record writes, one at a time; each writes the record as it is when its turn comes (so the
    /// file always ends with the newest state). Held by the blocking thread doing the write.
    writing: Arc<tokio::sync::Mutex<()>>,
    conn: Mutex<Option<BrowserConn>>,
    tabs: Mutex<BTreeMap<String, Arc<T>>>,
    /// Structural changes (new-tab, close-tab, restart, close) run one at a time.
    pub structure: tokio::sync::Mutex<()>,
    /// (Re)connecting to the browser.
    pub connecting: tokio::sync::Mutex<()>,
    /// Files of this session.
    pub dir: PathBuf,
    /// The browser process we launched in this daemon (closing it also reaps it).
    owned: Mutex<Option<Browser>>,
    /// Connection generations handed out so far.
    generations: AtomicU64,
    /// The downloads of the session's browser (watched on every connection).
    pub downloads: downloads::Downloads,
    /// The web origins the session's frames showed (watched on every connection).
    pub origins: origins::Origins,
    /// The allowlist guard (on every connection of a session with `--allowed-domains`).
    pub guard: guard::Guard,
}

impl<T: Default> SessionSlot<T> {
    /// A session over its record and directory.
    pub fn new(record: SessionRecord, dir: PathBuf) -> SessionSlot<T> {
        let downloads = downloads::Downloads::kept_in(&dir);
        SessionSlot {
            id: record.session_id.clone(),
            record: Arc::new(Mutex::new(record)),
            writing: Arc::new(tokio::sync::Mutex::new(())),
            conn: Mutex::new(None),
            tabs: Mutex::new(BTreeMap::new()),
            structure: tokio::sync::Mutex::new(()),
            connecting: tokio::sync::Mutex::new(()),
            dir,
            owned: Mutex::new(None),
            generations: AtomicU64::new(0),
            downloads,
            origins: origins::Origins::default(),
            guard: guard::Guard::default(),
        }
    }

    /// A new connection generation.
    pub fn next_generation(&self) -> u64 {
        self.generations.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Continues numbering generations after `generation` (a connection made before the slot).
    pub fn set_generation(&self, generation: u64) {
        self.generations.store(generation, Ordering::SeqCst);
    }

    /// Keeps the launched browser (replacing and detaching any previous one).
    pub fn set_owned(&self, browser: Option<Browser>) {
        let old = std::mem::replace(&mut *lock(&self.owned), browser);
        if let Some(b) = old {
            let _ = b.detach();
        }
    }

    /// Takes the launched browser, if this daemon launched it.
    pub fn take_owned(&self) -> Option<Browser> {
        lock(&self.owned).take()
    }

    /// A copy of the durable record.
    pub fn record(&self) -> SessionRecord {
        lock(&self.record).clone()
    }

    /// Reads the record in place (no copy).
    pub fn with_record<R>(&self, f: impl FnOnce(&SessionRecord) -> R) -> R {
        f(&lock(&self.record))
    }

    /// The file of its record.
    pub fn record_file(&self) -> PathBuf {
        self.dir.join(crate::store::SESSION_FILE)
    }

    /// Changes the record and writes it to disk atomically. The change is made under the record
    /// lock; the write (an fsync) runs on a blocking thread with no std lock held, after the
    /// writes before it.
    pub async fn update<R>(&self, f: impl FnOnce(&mut SessionRecord) -> R) -> Result<R> {
        let r = f(&mut lock(&self.record));
        self.persist().await?;
        Ok(r)
    }

    /// Like [`SessionSlot::update`], but writes only when `f` reports a change.
    pub async fn update_if(&self, f: impl FnOnce(&mut SessionRecord) -> bool) -> Result<()> {
        if f(&mut lock(&self.record)) {
            self.persist().await?;
        }
        Ok(())
    }

    /// Like [`SessionSlot::update_if`] for callers that cannot wait: the write happens in the
    /// background, still in order with the others (a failed write is caught up by the next).
    pub fn update_soon(&self, f: impl FnOnce(&mut SessionRecord) -> bool) {
        if !f(&mut lock(&self.record)) {
            return;
        }
        let writer = self.writer();
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(async move {
                    let _ = writer.write().await;
                });
            }
            // No runtime (not reached by the engine): write here.
            Err(_) => {
                let _ = writer.write_blocking();
            }
        }
    }

    /// Writes the record as it is now, after every write queued before.
    async fn persist(&self) -> Result<()> {
        self.writer().write().await
    }

    fn writer(&self) -> RecordWriter {
        RecordWriter {
            record: self.record.clone(),
            writing: self.writing.clone(),
            file: self.record_file(),
        }
    }

    /// The tab's slot, if the tab exists.
    pub fn tab_slot(&self, tab_id: &str) -> Option<Arc<T>> {
        lock(&self.record).tab(tab_id)?;
        let mut tabs = lock(&self.tabs);
        Some(tabs.entry(tab_id.to_string()).or_default().clone())
    }

    /// Whether `slot` is still the tab's slot: not dropped since it was taken (by `close-tab`,
    /// or a `restart` whose new tab has the same id). A command that finishes late on a dropped
    /// slot must not write onto the tab now at that id.
    pub fn holds_tab_slot(&self, tab_id: &str, slot: &Arc<T>) -> bool {
        lock(&self.tabs)
            .get(tab_id)
            .is_some_and(|s| Arc::ptr_eq(s, slot))
    }

    /// Changes tab `tab_id`'s entry of the record while `slot` is still its slot (checked under
    /// the record lock), written in the background like [`SessionSlot::update_soon`]: a command
    /// finishing after a `restart` or `close-tab` leaves the tab now at that id alone.
    pub fn update_tab_soon(
        &self,
        tab_id: &str,
        slot: &Arc<T>,
        f: impl FnOnce(&mut TabRecord) -> bool,
    ) {
        self.update_soon(|r| self.held_tab(r, tab_id, slot).is_some_and(f));
    }

    /// [`SessionSlot::update_tab_soon`], written before it returns.
    pub async fn update_tab_if(
        &self,
        tab_id: &str,
        slot: &Arc<T>,
        f: impl FnOnce(&mut TabRecord) -> bool,
    ) -> Result<()> {
        self.update_if(|r| self.held_tab(r, tab_id, slot).is_some_and(f))
            .await
    }

    /// The tab's entry of `record` while `slot` is still the tab's slot.
    fn held_tab<'r>(
        &self,
        record: &'r mut SessionRecord,
        tab_id: &str,
        slot: &Arc<T>,
    ) -> Option<&'r mut TabRecord> {
        if !self.holds_tab_slot(tab_id, slot) {
            return None;
        }
        record.tabs.iter_mut().find(|t| t.tab_id == tab_id)
    }

    /// Forgets a tab's slot.
    pub fn drop_tab_slot(&self, tab_id: &str) {
        lock(&self.tabs).remove(tab_id);
    }

    /// Forgets every tab's slot.
    pub fn drop_all_tab_slots(&self) {
        lock(&self.tabs).clear();
    }

    /// The current connection, if any and still open.
    pub fn conn(&self) -> Option<BrowserConn> {
        lock(&self.conn).clone().filter(|l| !l.is_closed())
    }

    /// Whether a connection was made (it may have closed since).
    fn had_conn(&self) -> bool {
        lock(&self.conn).is_some()
    }

    /// Replaces the connection.
    pub fn set_conn(&self, conn: Option<BrowserConn>) {
        if let Some(c) = &conn {
            let save_to = match store::Home::of_session_dir(&self.dir) {
                Some(home) if self.with_record(|r| r.launched) => {
                    downloads::SaveTo::Dir(home.downloads_dir(&self.id))
                }
                _ => downloads::SaveTo::BrowserDefault,
            };
            self.downloads.watch(
                (&c.conn, c.own_context()),
                c.generation,
                save_to,
                self.record.clone(),
            );
            self.origins.watch(&c.conn, c.generation);
            let rules = self.with_record(|r| r.allowed_domains.clone());
            self.guard.watch(&c.conn, c.generation, &rules);
        } else {
            self.guard.unwatch();
        }
        *lock(&self.conn) = conn;
    }
}

/// What writing a session's record needs, owned (so a write can outlive the command that asked).
struct RecordWriter {
    record: Arc<Mutex<SessionRecord>>,
    writing: Arc<tokio::sync::Mutex<()>>,
    file: PathBuf,
}

impl RecordWriter {
    /// Waits its turn, then writes on a blocking thread that keeps the turn until it is done
    /// (so a cancelled caller never lets a later write overtake this one).
    async fn write(self) -> Result<()> {
        let turn = self.writing.clone().lock_owned().await;
        store::off_worker(move || {
            let _turn = turn;
            self.write_blocking()
        })
        .await?
    }

    /// Writes the record as it is now (blocking; the record lock is held only to copy it).
    fn write_blocking(&self) -> Result<()> {
        let rec = lock(&self.record).clone();
        store::write_json(&self.file, &rec)
    }
}
