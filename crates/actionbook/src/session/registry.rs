//! Every session of one home: loaded from disk at start, created and removed by commands, and
//! the allocation of auto session ids (`s1`, `s2`, ... from a counter on disk).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::error::{CliError, Result};
use crate::session::{SessionSlot, lock};
use crate::store::{self, Counters, Home, HomeLock, SessionRecord};

/// A `session.json` that did not decode.
#[derive(Debug, Clone)]
pub(crate) struct UnreadableRecord {
    /// The file.
    pub path: PathBuf,
    /// Why it did not decode.
    pub reason: String,
}

/// The sessions of a home; `T` is what the tab layer keeps per tab.
#[derive(Debug)]
pub(crate) struct Registry<T> {
    home: Home,
    sessions: Mutex<BTreeMap<String, Arc<SessionSlot<T>>>>,
    /// Records on disk that did not decode at start, by session id: kept, reported, never reused.
    unreadable: Mutex<BTreeMap<String, UnreadableRecord>>,
    /// Creating sessions (id allocation, profile checks) runs one at a time.
    creating: tokio::sync::Mutex<()>,
    /// This engine owns the home (no other engine allocates ids or touches its sessions).
    _lock: HomeLock,
}

impl<T: Default> Registry<T> {
    /// The sessions recorded under `home` (re-attached lazily, when first used), with the home's
    /// lock held for the registry's life ([`CliError::HomeInUse`] when another engine has it).
    ///
    /// [`CliError::HomeInUse`]: crate::error::CliError::HomeInUse
    pub fn open(home: Home) -> Result<Registry<T>> {
        let lock = HomeLock::acquire(&home)?;
        store::ensure_private_dir(&home.sessions_dir())?;
        let registry = Registry {
            home,
            sessions: Mutex::new(BTreeMap::new()),
            unreadable: Mutex::new(BTreeMap::new()),
            creating: tokio::sync::Mutex::new(()),
            _lock: lock,
        };
        registry.load()?;
        Ok(registry)
    }

    fn load(&self) -> Result<()> {
        let dir = self.home.sessions_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        for entry in entries.flatten() {
            let path = entry.path().join(store::SESSION_FILE);
            match store::read_session_record(&path) {
                Ok(Some(rec)) => {
                    let slot = SessionSlot::new(rec, entry.path());
                    lock(&self.sessions).insert(slot.id.clone(), Arc::new(slot));
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!("actionbook: cannot read {}: {e} (kept)", path.display());
                    let id = entry.file_name().to_string_lossy().into_owned();
                    lock(&self.unreadable).insert(
                        id,
                        UnreadableRecord {
                            path,
                            reason: e.to_string(),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// Reads a record that did not decode again: one repaired (or moved back) since is taken up
    /// as if it had been read at start, unless the session has an interrupted structural command
    /// (`intent.json`), which only an engine's start-up recovery settles.
    fn reread(&self, id: &str) -> Option<Arc<SessionSlot<T>>> {
        let path = lock(&self.unreadable).get(id)?.path.clone();
        let dir = path.parent()?.to_path_buf();
        if !matches!(store::read_intent(&dir), Ok(None)) {
            return None;
        }
        match store::read_session_record(&path) {
            Ok(Some(rec)) if rec.session_id == id => {
                lock(&self.unreadable).remove(id);
                let slot = Arc::new(SessionSlot::new(rec, dir));
                Some(
                    lock(&self.sessions)
                        .entry(id.to_string())
                        .or_insert(slot)
                        .clone(),
                )
            }
            // Removed since: nothing left to report.
            Ok(None) => {
                lock(&self.unreadable).remove(id);
                None
            }
            Ok(Some(_)) => None,
            Err(e) => {
                if let Some(bad) = lock(&self.unreadable).get_mut(id) {
                    bad.reason = e.to_string();
                }
                None
            }
        }
    }

    /// Records that did not decode when the engine started (nor when read again now), by
    /// session id.
    pub fn unreadable(&self) -> Vec<(String, UnreadableRecord)> {
        self.reread_all();
        lock(&self.unreadable)
            .iter()
            .map(|(id, r)| (id.clone(), r.clone()))
            .collect()
    }

    /// The record of `id` that did not decode, if it is one (read again first).
    pub fn unreadable_record(&self, id: &str) -> Option<UnreadableRecord> {
        self.reread(id);
        lock(&self.unreadable).get(id).cloned()
    }

    /// The error of a command naming `id`, which is no session: its record does not decode
    /// ([`CliError::SessionUnreadable`]), or there is none.
    pub fn missing(&self, id: &str) -> CliError {
        match self.unreadable_record(id) {
            Some(bad) => CliError::SessionUnreadable {
                session: id.to_string(),
                path: bad.path,
                reason: bad.reason,
            },
            None => CliError::SessionNotFound(id.to_string()),
        }
    }

    /// [`Registry::reread`] of every record that did not decode.
    fn reread_all(&self) {
        let ids: Vec<String> = lock(&self.unreadable).keys().cloned().collect();
        for id in ids {
            self.reread(&id);
        }
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The session with this id (a record unreadable before is read again).
    pub fn get(&self, id: &str) -> Option<Arc<SessionSlot<T>>> {
        let known = lock(&self.sessions).get(id).cloned();
        known.or_else(|| self.reread(id))
    }

    /// Every session, in id order (records unreadable before are read again).
    pub fn all(&self) -> Vec<Arc<SessionSlot<T>>> {
        self.reread_all();
        lock(&self.sessions).values().cloned().collect()
    }

    /// Adds a session.
    pub fn insert(&self, slot: Arc<SessionSlot<T>>) {
        lock(&self.sessions).insert(slot.id.clone(), slot);
    }

    /// Forgets a session.
    pub fn remove(&self, id: &str) -> Option<Arc<SessionSlot<T>>> {
        lock(&self.sessions).remove(id)
    }

    /// A new session over `record`, its directory created and its record written (not yet
    /// registered: [`Registry::insert`] does that).
    pub async fn new_session(&self, record: SessionRecord) -> Result<Arc<SessionSlot<T>>> {
        let dir = self.home.session_dir(&record.session_id);
        store::ensure_private_dir(&dir)?;
        let slot = Arc::new(SessionSlot::new(record, dir));
        slot.update(|_| ()).await?;
        Ok(slot)
    }

    /// The queue of session creations.
    pub async fn creating(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.creating.lock().await
    }

    /// The next auto session id (`sN` from the global counter persisted on disk), without using it
    /// up; [`Registry::commit_session_id`] does that once the session exists. Callers hold
    /// [`Registry::creating`].
    pub fn peek_session_id(&self) -> Result<(String, u64)> {
        let c: Counters = store::read_json(&self.home.counters_file())?.unwrap_or_default();
        let mut n = c.next_session.max(1);
        loop {
            let id = format!("s{n}");
            if self.get(&id).is_none() && !self.home.session_dir(&id).exists() {
                return Ok((id, n));
            }
            n += 1;
        }
    }

    /// Uses up auto session number `n`.
    pub async fn commit_session_id(&self, n: u64) -> Result<()> {
        let next = Counters {
            next_session: n + 1,
        };
        store::write_json_off(self.home.counters_file(), next).await
    }

    /// Forgets every live connection without closing any browser (daemon shutdown).
    pub fn detach_all(&self) {
        for s in self.all() {
            if let Some(b) = s.take_owned() {
                let _ = b.detach();
            }
            s.set_conn(None);
        }
    }
}
