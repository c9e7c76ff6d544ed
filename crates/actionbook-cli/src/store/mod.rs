//! Durable state under `$ACTIONBOOK_HOME`: what a new daemon needs to re-attach to running browsers.
//!
//! Layout:
//! ```text
//! $ACTIONBOOK_HOME/            0700
//!   engine.lock                flock'ed by the one engine of this home (holds its pid)
//!   daemon.sock daemon.pid daemon.version daemon.log
//!   counters.json              {"next_session": N}
//!   profiles/<name>/           user-named Chromium profiles (`--profile`; never deleted)
//!   auto-profiles/<sid>/       a session's own profile (deleted when it closes)
//!   sessions/<sid>/session.json   SessionRecord
//!   sessions/<sid>/intent.json    a structural command in progress (intent::Intent)
//!   sessions/<sid>/refs-<tid>.json the tab's ref table
//!   sessions/<sid>/snapshot_<tid>_<n>.yaml  the tab's snapshots, numbered; the last
//!                              artifacts::SNAPSHOTS_PER_TAB (20, env ACTIONBOOK_SNAPSHOTS_PER_TAB)
//!                              are kept; `close` keeps the last of each tab (`close --purge`
//!                              removes them too)
//! ```
//! Every file is written atomically ([`write_atomic`]: temp file in the same directory, then
//! rename), so a reader or a crash never sees half a file. File names of artifacts come from
//! [`artifacts`]; the records are in [`record`].

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};

pub(crate) mod artifacts;
mod atomic;
mod intent;
mod lock;
mod record;

pub use atomic::{read_json, write_atomic, write_file_whole, write_json};
pub use intent::{
    INTENT_FILE, Intent, MARKER_URL_PREFIX, clear_intent, intent_file, read_intent, write_intent,
};
pub use lock::HomeLock;

/// The file of a session's record, in its directory under `sessions/`.
pub const SESSION_FILE: &str = "session.json";
pub use record::{Counters, RouteAction, RouteRecord, SessionRecord, TabRecord, WindowRecord};

/// Where everything lives.
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `ACTIONBOOK_HOME`, else `~/.actionbook`.
    pub fn from_env() -> Result<Home> {
        if let Some(h) = std::env::var_os("ACTIONBOOK_HOME").filter(|h| !h.is_empty()) {
            return Ok(Home::at(PathBuf::from(h)));
        }
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .ok_or_else(|| {
                CliError::InvalidArgument("neither ACTIONBOOK_HOME nor HOME is set".into())
            })?;
        Ok(Home::at(PathBuf::from(home).join(".actionbook")))
    }

    /// A home at an explicit path.
    pub fn at(root: impl Into<PathBuf>) -> Home {
        Home { root: root.into() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the root (0700) if needed. An existing root keeps its mode: it may be a directory
    /// the user made and shares on purpose.
    pub fn ensure(&self) -> Result<()> {
        if self.root.is_dir() {
            return Ok(());
        }
        ensure_private_dir(&self.root)?;
        Ok(())
    }

    /// The daemon's socket.
    pub fn socket(&self) -> PathBuf {
        self.root.join("daemon.sock")
    }

    /// A bookkeeping file in the root (`daemon.pid` ...).
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// `counters.json`: the next auto session number.
    pub fn counters_file(&self) -> PathBuf {
        self.root.join("counters.json")
    }

    /// `sessions/`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// `sessions/<sid>/`.
    pub fn session_dir(&self, sid: &str) -> PathBuf {
        self.sessions_dir().join(sid)
    }

    /// The home a session directory belongs to (the inverse of [`Home::session_dir`]).
    pub fn of_session_dir(dir: &Path) -> Option<Home> {
        let sessions = dir.parent()?;
        if sessions.file_name()? != "sessions" {
            return None;
        }
        Some(Home::at(sessions.parent()?.to_path_buf()))
    }

    /// `profiles/<name>/`: a user-named profile.
    pub fn profile_dir(&self, name: &str) -> PathBuf {
        self.root.join("profiles").join(name)
    }

    /// `auto-profiles/`: where sessions without `--profile` get theirs, apart from user-named
    /// ones, so removing one can never remove a user's profile.
    pub fn auto_profiles_dir(&self) -> PathBuf {
        self.root.join("auto-profiles")
    }

    /// `auto-profiles/<sid>/`: the profile made for session `sid`.
    pub fn auto_profile_dir(&self, sid: &str) -> PathBuf {
        self.auto_profiles_dir().join(sid)
    }
}

/// Creates `dir` (and parents) with mode 0700, and tightens an existing one.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let meta = fs::metadata(dir)?;
    if meta.permissions().mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_home_we_create_is_private_and_an_existing_one_keeps_its_mode() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let made = Home::at(dir.path().join("made"));
        made.ensure()?;
        assert_eq!(
            fs::metadata(made.root())?.permissions().mode() & 0o777,
            0o700
        );
        let shared = dir.path().join("shared");
        fs::create_dir(&shared)?;
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o755))?;
        Home::at(&shared).ensure()?;
        assert_eq!(fs::metadata(&shared)?.permissions().mode() & 0o777, 0o755);
        Ok(())
    }
}
