//! The downloads of a session's browser: where their files go, and what became of each.
//!
//! Why: left alone, a headless Chromium saves a download into the user's `~/Downloads`, silently,
//! and a second file of the same name replaces the first. So on every connection to a browser we
//! launched, the browser is told to save into `<home>/downloads/<session>/` under the download's
//! guid (`Browser.setDownloadBehavior` `allowAndName`, which never replaces a file), and each file
//! is given its suggested name once complete (`report.csv`, then `report (1).csv`, ...). A browser
//! we only connected to may be on another machine: it keeps saving where it saves, and the log
//! reports the path it tells (`filePath`, when it does).
//!
//! Chromium forgets the setting when the connection closes (a daemon restart): a download that
//! starts while no daemon is connected goes where the browser saves by default. The log is kept
//! in the session's directory (`downloads.json`, written off the command's path after each
//! change), so a new daemon lists and waits for what the old one saw, with the same ids; a
//! download running across a restart is followed to its end by what the browser writes to
//! the disk (Chromium reports its progress to the connection it began under only; in our
//! directory its file is `<guid>.crdownload`, renamed `<guid>` once complete). It keeps the last
//! [`KEPT`] downloads.
//!
//! A download belongs to the tab whose page or frame caused it: known at once when it is the
//! tab's page, or later from the tab's frame graph (an iframe's, out-of-process ones included).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cdp_protocol::browser::{DownloadProgress, DownloadWillBegin, SetDownloadBehavior};
use cdp_protocol::{Connection, Event as _};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::deadline;
use crate::session::lock;
use crate::store::SessionRecord;

/// How many downloads the log keeps (the oldest are forgotten; their files stay).
pub(crate) const KEPT: usize = 200;

/// The log's file in the session's directory.
const FILE: &str = "downloads.json";

/// The least time between two writes of the log (a download's progress changes it often).
const WRITE_GAP: std::time::Duration = std::time::Duration::from_millis(200);

/// What became of a download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum DownloadState {
    /// Still receiving.
    InProgress,
    /// Saved.
    Completed,
    /// Canceled or interrupted (by the page, the server, the network or the browser).
    Canceled,
}

impl DownloadState {
    /// The wire word (`in_progress`, `completed`, `canceled`).
    pub fn as_str(self) -> &'static str {
        match self {
            DownloadState::InProgress => "in_progress",
            DownloadState::Completed => "completed",
            DownloadState::Canceled => "canceled",
        }
    }
}

/// One download.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Download {
    /// `d1`, `d2`, ... in the order they began (per daemon).
    pub id: String,
    /// The tab it belongs to, once known.
    pub tab: Option<String>,
    /// The URL downloaded.
    pub url: String,
    /// The name the browser suggested.
    pub file_name: String,
    /// What became of it.
    pub state: DownloadState,
    /// Bytes received so far.
    pub received_bytes: u64,
    /// Bytes expected, when the server said.
    pub total_bytes: Option<u64>,
    /// Where the file is, once completed (absolute; on the browser's machine for a browser we
    /// only connected to).
    pub path: Option<String>,
    /// Something to know about it (the file could not be renamed, the connection was lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The browser's id for it.
    #[serde(skip)]
    pub guid: String,
    /// The frame that caused it.
    #[serde(skip)]
    pub frame_id: String,
    /// Whether a command's answer told of it already.
    #[serde(skip)]
    pub told: bool,
    /// Whether `wait download` returned it already.
    #[serde(skip)]
    pub waited: bool,
}

/// Where a browser saves downloads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SaveTo {
    /// Into this directory of ours, named by us once complete (a browser we launched).
    Dir(PathBuf),
    /// Where the browser saves by default (a browser we connected to: perhaps not on this
    /// machine).
    BrowserDefault,
}

#[derive(Debug, Default)]
struct Log {
    entries: VecDeque<Download>,
    next_id: u64,
    forgotten: u64,
    /// Why the download directory could not be set, if it could not.
    problem: Option<String>,
    /// The connection generation watched last (each is watched once: one task names files).
    watched: u64,
    /// Where the log is kept (none: memory only).
    file: Option<PathBuf>,
    /// Whether the task writing it runs.
    writing: bool,
}

/// The log as kept on disk.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Saved {
    next_id: u64,
    forgotten: u64,
    entries: Vec<SavedDownload>,
}

/// One download as kept on disk: what is shown, and what only the daemon uses.
#[derive(Debug, Serialize, Deserialize)]
struct SavedDownload {
    #[serde(flatten)]
    shown: Download,
    guid: String,
    frame_id: String,
    told: bool,
    waited: bool,
}

impl Log {
    fn saved(&self) -> Saved {
        Saved {
            next_id: self.next_id,
            forgotten: self.forgotten,
            entries: self
                .entries
                .iter()
                .map(|d| SavedDownload {
                    shown: d.clone(),
                    guid: d.guid.clone(),
                    frame_id: d.frame_id.clone(),
                    told: d.told,
                    waited: d.waited,
                })
                .collect(),
        }
    }

    /// The log a previous daemon kept. A download it saw running may have ended since: it is
    /// followed again if the browser reports it to the new connection.
    fn restored(saved: Saved, file: PathBuf) -> Log {
        let entries = saved
            .entries
            .into_iter()
            .map(|s| {
                let mut d = s.shown;
                d.guid = s.guid;
                d.frame_id = s.frame_id;
                d.told = s.told;
                d.waited = s.waited;
                d
            })
            .collect();
        Log {
            entries,
            next_id: saved.next_id,
            forgotten: saved.forgotten,
            file: Some(file),
            ..Log::default()
        }
    }
}

/// The download log of a session (cloning shares it).
#[derive(Debug, Clone)]
pub(crate) struct Downloads {
    log: Arc<Mutex<Log>>,
    changed: Arc<watch::Sender<u64>>,
    /// Taken by each write of the log's file, so they land in order.
    writes: Arc<tokio::sync::Mutex<()>>,
}

impl Default for Downloads {
    fn default() -> Self {
        Downloads {
            log: Arc::default(),
            changed: Arc::new(watch::channel(0).0),
            writes: Arc::default(),
        }
    }
}

/// A [`Downloads`] held by a task that must not keep it alive.
struct WeakDownloads {
    log: std::sync::Weak<Mutex<Log>>,
    changed: std::sync::Weak<watch::Sender<u64>>,
    writes: std::sync::Weak<tokio::sync::Mutex<()>>,
}

impl WeakDownloads {
    fn upgrade(&self) -> Option<Downloads> {
        Some(Downloads {
            log: self.log.upgrade()?,
            changed: self.changed.upgrade()?,
            writes: self.writes.upgrade()?,
        })
    }
}

impl Downloads {
    fn downgrade(&self) -> WeakDownloads {
        WeakDownloads {
            log: Arc::downgrade(&self.log),
            changed: Arc::downgrade(&self.changed),
            writes: Arc::downgrade(&self.writes),
        }
    }

    /// The log kept in `session_dir` (what an earlier daemon saw, if it kept one there).
    pub fn kept_in(session_dir: &Path) -> Downloads {
        let file = session_dir.join(FILE);
        let log = match crate::store::read_json::<Saved>(&file) {
            Ok(Some(saved)) => Log::restored(saved, file),
            Ok(None) => Log {
                file: Some(file),
                ..Log::default()
            },
            // Unreadable: started anew (the files stay), and written over at the next change.
            Err(e) => {
                eprintln!("actionbook: the download log is not readable, started anew: {e}");
                Log {
                    file: Some(file),
                    ..Log::default()
                }
            }
        };
        Downloads {
            log: Arc::new(Mutex::new(log)),
            ..Downloads::default()
        }
    }

    /// Watches the downloads of a new connection to the session's browser, after telling the
    /// browser where to save them. The task ends with the connection.
    pub fn watch(
        &self,
        (conn, context): (&Connection, Option<cdp_protocol::BrowserContextId>),
        generation: u64,
        save_to: SaveTo,
        record: Arc<Mutex<SessionRecord>>,
    ) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        {
            let mut log = lock(&self.log);
            if generation <= log.watched {
                return;
            }
            log.watched = generation;
        }
        // Subscribed before the setting is sent: no event of a download it allows is missed.
        let mut events = conn
            .browser()
            .events(&[DownloadWillBegin::METHOD, DownloadProgress::METHOD]);
        let root = conn.browser();
        let me = self.clone();
        // Those begun under an earlier connection: the browser reports them to that one only.
        let earlier: Vec<String> = lock(&self.log)
            .entries
            .iter()
            .filter(|d| d.state == DownloadState::InProgress)
            .map(|d| d.guid.clone())
            .collect();
        rt.spawn(async move {
            let problem = me.set_behavior(&root, context, &save_to).await.err();
            me.change(|log| log.problem = problem);
            match &save_to {
                _ if earlier.is_empty() => {}
                SaveTo::Dir(dir) => me.follow_on_disk(earlier, dir.clone(), generation),
                // Not ours to look at: what became of them is not known.
                SaveTo::BrowserDefault => me.change(|log| {
                    for d in log.entries.iter_mut() {
                        if earlier.contains(&d.guid) && d.note.is_none() {
                            d.note = Some(lost_note(&save_to, &d.guid));
                        }
                    }
                }),
            }
            while let Some(ev) = events.recv().await {
                if let Ok(begun) = ev.decode::<DownloadWillBegin>() {
                    me.on_begin(begun, &record);
                } else if let Ok(progress) = ev.decode::<DownloadProgress>() {
                    me.progressed(progress, &save_to).await;
                }
            }
            // The connection is gone: Chromium will not tell this daemon how these end.
            me.change(|log| {
                for d in log.entries.iter_mut() {
                    if d.state == DownloadState::InProgress && d.note.is_none() {
                        d.note = Some(lost_note(&save_to, &d.guid));
                    }
                }
            });
        });
    }

    /// Follows downloads that the browser reports to no connection of ours by their files in
    /// `dir`: Chromium writes `<guid>.crdownload` and renames it `<guid>` once complete (it
    /// deletes it when canceled). Ends when all have ended, or a newer connection follows them.
    fn follow_on_disk(&self, mut guids: Vec<String>, dir: PathBuf, generation: u64) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        // Held weakly: a closed session's follower ends with its log (a download stalled for
        // good, its browser gone, would keep it looking).
        let weak = self.downgrade();
        rt.spawn(async move {
            while let Some(me) = weak.upgrade()
                && !guids.is_empty()
                && lock(&me.log).watched == generation
            {
                let look = {
                    let (dir, guids) = (dir.clone(), guids.clone());
                    tokio::task::spawn_blocking(move || {
                        guids
                            .into_iter()
                            .map(|g| {
                                let seen = on_disk(&dir, &g);
                                (g, seen)
                            })
                            .collect::<Vec<_>>()
                    })
                    .await
                };
                let Ok(look) = look else { return };
                for (guid, seen) in look {
                    if !me.seen_on_disk(&guid, seen, &dir).await {
                        guids.retain(|g| *g != guid);
                    }
                }
                drop(me);
                tokio::time::sleep(FOLLOW_GAP).await;
            }
        });
    }

    /// Takes what the disk shows of a download followed there; false once it is no longer
    /// followed (ended, forgotten, or reported by the browser again).
    async fn seen_on_disk(&self, guid: &str, seen: OnDisk, dir: &Path) -> bool {
        let name = {
            let mut log = lock(&self.log);
            let Some(d) = log.entries.iter_mut().find(|d| d.guid == guid) else {
                return false;
            };
            if d.state != DownloadState::InProgress {
                return false;
            }
            match seen {
                OnDisk::Partial(n) => {
                    if d.received_bytes == n {
                        return true;
                    }
                    d.received_bytes = n;
                    d.note = None;
                    drop(log);
                    self.bump();
                    return true;
                }
                OnDisk::Gone => {
                    d.state = DownloadState::Canceled;
                    d.note = Some(
                        "it ended while no connection of ours was told: its partial file is \
                         gone (canceled in the browser, or removed)"
                            .into(),
                    );
                    drop(log);
                    self.bump();
                    return false;
                }
                OnDisk::Complete(n) => {
                    d.received_bytes = n;
                    d.total_bytes = Some(n);
                    d.file_name.clone()
                }
            }
        };
        let (path, note) = name_completed(dir.join(guid), dir.to_path_buf(), name).await;
        self.completed(guid, path, note);
        false
    }

    fn completed(&self, guid: &str, path: Option<PathBuf>, note: Option<String>) {
        self.change(|log| {
            if let Some(d) = log.entries.iter_mut().find(|d| d.guid == guid) {
                d.state = DownloadState::Completed;
                d.path = path.map(|p| p.display().to_string());
                d.note = note;
            }
        });
    }

    async fn set_behavior(
        &self,
        root: &cdp_protocol::Session,
        context: Option<cdp_protocol::BrowserContextId>,
        save_to: &SaveTo,
    ) -> std::result::Result<(), String> {
        let (behavior, download_path) = match save_to {
            SaveTo::Dir(dir) => {
                let made = dir.clone();
                tokio::task::spawn_blocking(move || crate::store::ensure_private_dir(&made))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| format!("making {}: {e}", dir.display()))?;
                ("allowAndName", Some(dir.display().to_string()))
            }
            SaveTo::BrowserDefault => ("default", None),
        };
        let set = SetDownloadBehavior {
            behavior: behavior.into(),
            // A session's own context on a shared browser: the setting (and its events) is per
            // context.
            browser_context_id: context,
            download_path,
            events_enabled: Some(true),
        };
        root.send_timeout(&set, deadline::QUICK_CALL)
            .await
            .map(|_| ())
            .map_err(|e| format!("the browser refused the download directory: {e}"))
    }

    fn on_begin(&self, ev: DownloadWillBegin, record: &Mutex<SessionRecord>) {
        // The tab whose page it is, known at once; an iframe's is found later.
        let tab = lock(record)
            .tabs
            .iter()
            .find(|t| t.target_id == ev.frame_id.as_str())
            .map(|t| t.tab_id.clone());
        self.change(|log| {
            if log.entries.iter().any(|d| d.guid == ev.guid) {
                return;
            }
            log.next_id += 1;
            let id = format!("d{}", log.next_id);
            log.entries.push_back(Download {
                id,
                tab,
                url: ev.url,
                file_name: ev.suggested_filename,
                state: DownloadState::InProgress,
                received_bytes: 0,
                total_bytes: None,
                path: None,
                note: None,
                guid: ev.guid,
                frame_id: ev.frame_id.to_string(),
                told: false,
                waited: false,
            });
            while log.entries.len() > KEPT {
                log.entries.pop_front();
                log.forgotten += 1;
            }
        });
    }

    async fn progressed(&self, ev: DownloadProgress, save_to: &SaveTo) {
        let state = match ev.state.as_str() {
            "completed" => DownloadState::Completed,
            "canceled" => DownloadState::Canceled,
            _ => DownloadState::InProgress,
        };
        let name = {
            let mut log = lock(&self.log);
            let Some(d) = log.entries.iter_mut().find(|d| d.guid == ev.guid) else {
                return;
            };
            if d.state != DownloadState::InProgress {
                return;
            }
            d.received_bytes = bytes(ev.received_bytes);
            d.total_bytes = Some(bytes(ev.total_bytes)).filter(|n| *n > 0);
            // Followed again (by a new connection): the note of a lost one no longer holds.
            d.note = None;
            if state != DownloadState::Completed {
                d.state = state;
                drop(log);
                self.bump();
                return;
            }
            d.file_name.clone()
        };
        // Completed: give the file its name (ours), or take the browser's word for where it is.
        let (path, note) = match save_to {
            SaveTo::Dir(dir) => {
                let saved = ev
                    .file_path
                    .clone()
                    .map(PathBuf::from)
                    .unwrap_or_else(|| dir.join(&ev.guid));
                name_completed(saved, dir.clone(), name).await
            }
            SaveTo::BrowserDefault => (ev.file_path.map(PathBuf::from), None),
        };
        self.completed(&ev.guid, path, note);
    }

    fn change(&self, f: impl FnOnce(&mut Log)) {
        f(&mut lock(&self.log));
        self.bump();
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
        let start = {
            let mut log = lock(&self.log);
            let start = log.file.is_some() && !log.writing;
            log.writing |= start;
            start
        };
        if start {
            self.keep_writing();
        }
    }

    /// Writes the log to its file after each change (changes while a write runs make one more
    /// write, at most one every [`WRITE_GAP`]), off the async workers. Ends with the log.
    fn keep_writing(&self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            lock(&self.log).writing = false;
            return;
        };
        let mut changes = self.changed.subscribe();
        let log = Arc::downgrade(&self.log);
        let writes = self.writes.clone();
        rt.spawn(async move {
            loop {
                let Some(now) = log.upgrade() else { return };
                write_log(&now, &writes).await;
                drop(now);
                tokio::time::sleep(WRITE_GAP).await;
                if changes.changed().await.is_err() {
                    return;
                }
            }
        });
    }

    /// Writes the log now (what a command changed is kept before it answers).
    pub async fn keep_now(&self) {
        if lock(&self.log).file.is_some() {
            write_log(&self.log, &self.writes).await;
        }
    }

    /// Places on `tab` the downloads of no known tab that its page (`target_id`) or one of its
    /// `frames` caused (asked for only when there are such downloads).
    pub fn claim(&self, tab: &str, target_id: Option<&str>, frames: impl FnOnce() -> Vec<String>) {
        if !lock(&self.log).entries.iter().any(|d| d.tab.is_none()) {
            return;
        }
        let frames = frames();
        let mut claimed = false;
        let mut log = lock(&self.log);
        for d in log.entries.iter_mut().filter(|d| d.tab.is_none()) {
            if target_id == Some(d.frame_id.as_str()) || frames.contains(&d.frame_id) {
                d.tab = Some(tab.to_string());
                claimed = true;
            }
        }
        drop(log);
        if claimed {
            self.bump();
        }
    }

    /// The downloads of `tab` and those of no known tab, oldest first.
    pub fn of_tab(&self, tab: &str) -> Vec<Download> {
        lock(&self.log)
            .entries
            .iter()
            .filter(|d| d.tab.as_deref().is_none_or(|t| t == tab))
            .cloned()
            .collect()
    }

    /// The downloads of `tab` that began since a command last told of them, marked told.
    pub fn take_untold(&self, tab: &str) -> Vec<Download> {
        let mut log = lock(&self.log);
        let untold: Vec<Download> = log
            .entries
            .iter_mut()
            .filter(|d| !d.told && d.tab.as_deref() == Some(tab))
            .map(|d| {
                d.told = true;
                d.clone()
            })
            .collect();
        drop(log);
        if !untold.is_empty() {
            self.bump();
        }
        untold
    }

    /// The first download of `tab` (or of no known tab) that `wait download` has not returned
    /// yet, or the one with this id.
    pub fn next_unwaited(&self, tab: &str, id: Option<&str>) -> Option<Download> {
        lock(&self.log)
            .entries
            .iter()
            .filter(|d| d.tab.as_deref().is_none_or(|t| t == tab))
            .find(|d| match id {
                Some(id) => d.id == id,
                None => !d.waited,
            })
            .cloned()
    }

    /// Marks a download as returned by `wait download`, and (once moved) where it is now.
    pub fn set_waited(&self, id: &str, path: Option<&Path>) {
        self.change(|log| {
            if let Some(d) = log.entries.iter_mut().find(|d| d.id == id) {
                d.waited = true;
                d.told = true;
                if let Some(p) = path {
                    d.path = Some(p.display().to_string());
                }
            }
        });
    }

    /// How many downloads began so far (the number of the newest id).
    pub fn begun(&self) -> u64 {
        lock(&self.log).next_id
    }

    /// The first download of `tab` numbered above `after`, marked told, waiting for it up to
    /// `within` (its event may come just after what caused it).
    pub async fn first_since(
        &self,
        tab: &str,
        after: u64,
        within: std::time::Duration,
    ) -> Option<Download> {
        let mut changes = self.changes();
        let find = || {
            let mut log = lock(&self.log);
            let d = log.entries.iter_mut().find(|d| {
                d.tab.as_deref() == Some(tab) && d.id[1..].parse::<u64>().is_ok_and(|n| n > after)
            })?;
            d.told = true;
            Some(d.clone())
        };
        let waiting = async {
            loop {
                changes.borrow_and_update();
                if let Some(d) = find() {
                    return Some(d);
                }
                changes.changed().await.ok()?;
            }
        };
        let told = tokio::time::timeout(within, waiting).await.ok().flatten();
        if told.is_some() {
            self.bump();
        }
        told
    }

    /// Whether a download with this id was ever logged (ids grow: a smaller one was forgotten).
    pub fn knows_id(&self, id: &str) -> Option<bool> {
        let n: u64 = id.strip_prefix('d')?.parse().ok()?;
        let log = lock(&self.log);
        Some(n >= 1 && n <= log.next_id)
    }

    /// How many downloads were forgotten (past [`KEPT`]), and why the download directory could
    /// not be set (if it could not).
    pub fn health(&self) -> (u64, Option<String>) {
        let log = lock(&self.log);
        (log.forgotten, log.problem.clone())
    }

    /// A receiver that sees every change of the log.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// Writes `log` to its file, off the async workers. One write at a time, each taking the log as
/// it is when its turn comes: the file never goes back to an older log.
async fn write_log(log: &Mutex<Log>, writes: &tokio::sync::Mutex<()>) {
    let _turn = writes.lock().await;
    let (file, saved) = {
        let l = lock(log);
        (l.file.clone(), serde_json::to_vec(&l.saved()))
    };
    let (Some(file), Ok(bytes)) = (file, saved) else {
        return;
    };
    let written = tokio::task::spawn_blocking(move || {
        // A session closed meanwhile has no directory: nothing to keep.
        match crate::store::write_atomic(&file, &bytes) {
            Err(e) if file.parent().is_some_and(Path::exists) => Err(e),
            _ => Ok(()),
        }
    })
    .await;
    if let Ok(Err(e)) = written {
        eprintln!("actionbook: the download log could not be written: {e}");
    }
}

/// How often a download the browser reports to no connection of ours is looked for on disk.
const FOLLOW_GAP: std::time::Duration = std::time::Duration::from_millis(250);

/// What the disk shows of a download saved into our directory under its guid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnDisk {
    /// Still being written (`<guid>.crdownload`), this many bytes so far.
    Partial(u64),
    /// Complete (`<guid>`), this many bytes.
    Complete(u64),
    /// Neither file.
    Gone,
}

/// Looks for a download's files (blocking). The final name is looked at on both sides of the
/// partial one: the browser's rename between the two looks is not taken for a removal.
fn on_disk(dir: &Path, guid: &str) -> OnDisk {
    let size = |p: PathBuf| std::fs::metadata(p).ok().map(|m| m.len());
    let complete = || size(dir.join(guid));
    if let Some(n) = complete() {
        return OnDisk::Complete(n);
    }
    if let Some(n) = size(dir.join(format!("{guid}.crdownload"))) {
        return OnDisk::Partial(n);
    }
    complete().map_or(OnDisk::Gone, OnDisk::Complete)
}

/// A byte count from CDP's double.
fn bytes(n: f64) -> u64 {
    if n.is_finite() && n > 0.0 {
        n as u64
    } else {
        0
    }
}

fn lost_note(save_to: &SaveTo, guid: &str) -> String {
    match save_to {
        SaveTo::Dir(dir) => format!(
            "the connection to the browser closed while it ran: if it completes, its file is {}",
            dir.join(guid).display()
        ),
        SaveTo::BrowserDefault => {
            "the connection to the browser closed while it ran: its end is not known".into()
        }
    }
}

/// A file name safe to create in a directory: no path separators, no leading dot, not empty.
pub(crate) fn safe_name(suggested: &str) -> String {
    let cleaned: String = suggested
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.').trim();
    if trimmed.is_empty() {
        "download".into()
    } else {
        trimmed.chars().take(200).collect()
    }
}

/// `name`, or `stem (n).ext` for the first n that names no file in `dir`.
pub(crate) fn free_name(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    (1..10_000)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// Names a completed download's file `saved` (off the async workers): its path, and a note
/// when it could not be named.
async fn name_completed(
    saved: PathBuf,
    dir: PathBuf,
    suggested: String,
) -> (Option<PathBuf>, Option<String>) {
    let named = tokio::task::spawn_blocking(move || name_file(&saved, &dir, &suggested))
        .await
        .unwrap_or_else(|e| Err((PathBuf::new(), e.to_string())));
    match named {
        Ok(p) => (Some(p), None),
        Err((p, why)) => (
            Some(p).filter(|p| !p.as_os_str().is_empty()),
            Some(format!("it could not be given its name: {why}")),
        ),
    }
}

/// Renames the saved file `saved` to a free form of `suggested` in `dir` (blocking). On failure,
/// the file's path as it is and why.
fn name_file(
    saved: &Path,
    dir: &Path,
    suggested: &str,
) -> std::result::Result<PathBuf, (PathBuf, String)> {
    let target = free_name(dir, &safe_name(suggested));
    // No replacing: a file that appeared since the check keeps its name.
    match std::fs::hard_link(saved, &target) {
        Ok(()) => {
            let _ = std::fs::remove_file(saved);
            Ok(target)
        }
        Err(e) => Err((saved.to_path_buf(), e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe_and_never_replace_a_file() -> std::io::Result<()> {
        assert_eq!(safe_name("report.csv"), "report.csv");
        assert_eq!(safe_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name("  "), "download");
        assert_eq!(safe_name("a\nb"), "a_b");
        let dir = std::env::temp_dir().join(format!("ab-dl-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        assert_eq!(free_name(&dir, "r.csv"), dir.join("r.csv"));
        std::fs::write(dir.join("r.csv"), "1")?;
        assert_eq!(free_name(&dir, "r.csv"), dir.join("r (1).csv"));
        std::fs::write(dir.join("r (1).csv"), "2")?;
        assert_eq!(free_name(&dir, "r.csv"), dir.join("r (2).csv"));
        assert_eq!(free_name(&dir, "noext"), dir.join("noext"));
        std::fs::write(dir.join("guid-1"), "3")?;
        let named = name_file(&dir.join("guid-1"), &dir, "r.csv")
            .map_err(|(_, e)| std::io::Error::other(e))?;
        assert_eq!(named, dir.join("r (2).csv"));
        assert_eq!(std::fs::read_to_string(&named)?, "3");
        assert!(!dir.join("guid-1").exists());
        assert_eq!(std::fs::read_to_string(dir.join("r.csv"))?, "1");
        std::fs::remove_dir_all(&dir)
    }

    #[test]
    fn a_download_on_disk_is_partial_complete_or_gone() -> std::io::Result<()> {
        let dir = std::env::temp_dir().join(format!("ab-dl-disk-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        assert_eq!(on_disk(&dir, "g"), OnDisk::Gone);
        std::fs::write(dir.join("g.crdownload"), "12")?;
        assert_eq!(on_disk(&dir, "g"), OnDisk::Partial(2));
        std::fs::rename(dir.join("g.crdownload"), dir.join("g"))?;
        assert_eq!(on_disk(&dir, "g"), OnDisk::Complete(2));
        std::fs::remove_dir_all(&dir)
    }
}
