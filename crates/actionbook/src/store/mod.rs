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
//! `artifacts`; the records are in `record`.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};

pub(crate) mod artifacts;
mod atomic;
pub mod emulation;
mod intent;
mod lock;
mod record;
pub mod state_file;

pub use atomic::{
    off_worker, read_json, write_atomic, write_file_whole, write_json, write_json_off,
};
pub use intent::{
    INTENT_FILE, Intent, MARKER_URL_PREFIX, clear_intent, intent_file, read_intent, write_intent,
};
pub use lock::HomeLock;

/// The file of a session's record, in its directory under `sessions/`.
pub const SESSION_FILE: &str = "session.json";
pub use record::{
    Counters, DialogPolicy, ProviderSession, ProxyRecord, RECORD_SCHEMA, RouteAction, RouteRecord,
    SessionRecord, TabRecord, WindowRecord, read_session_record,
};

/// Where everything lives.
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// `ACTIONBOOK_HOME` (made absolute: the daemon runs in `/`), else `~/.actionbook`.
    pub fn from_env() -> Result<Home> {
        crate::model::home_root_from_env()
            .map(Home::at)
            .ok_or_else(|| {
                CliError::InvalidArgument("neither ACTIONBOOK_HOME nor HOME is set".into())
            })
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

    /// The daemon's socket: `daemon.sock` in the home, or, when that path would not fit in
    /// `sun_path` (a deep home), `<short runtime dir>/<hash of the home>.sock` (see
    /// [`Home::ensure_socket_dir`]).
    pub fn socket(&self) -> PathBuf {
        let own = self.root.join("daemon.sock");
        if own.as_os_str().len() <= SUN_PATH_MAX {
            return own;
        }
        use std::os::unix::ffi::OsStrExt;
        short_socket_dir().join(format!(
            "{:016x}.sock",
            fnv1a(self.root.as_os_str().as_bytes())
        ))
    }

    /// Makes the directory of [`Home::socket`] when it is the short runtime one: 0700, and
    /// refused unless it is a real directory of ours (another user could have made it first).
    pub fn ensure_socket_dir(&self) -> Result<()> {
        let sock = self.socket();
        let Some(dir) = sock.parent().filter(|d| *d != self.root) else {
            return Ok(());
        };
        // Checked before any chmod: never follow another user's symlink.
        let _ = fs::DirBuilder::new().mode(0o700).create(dir);
        use std::os::unix::fs::MetadataExt;
        let meta = fs::symlink_metadata(dir)?;
        if !meta.is_dir() || meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(CliError::Daemon(format!(
                "the socket directory {} is not a directory of this user",
                dir.display()
            )));
        }
        ensure_private_dir(dir)
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

    /// `downloads/<sid>/`: where the browser of session `sid` saves downloads (kept after the
    /// session closes: they are the user's files).
    pub fn downloads_dir(&self, sid: &str) -> PathBuf {
        self.root.join("downloads").join(sid)
    }

    /// `har/`: where `network har stop` writes when given no path (the reference CLI's place).
    pub fn har_dir(&self) -> PathBuf {
        self.root.join("har")
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
/// The longest path a Unix socket address holds (`sun_path` is 108 bytes with its NUL).
const SUN_PATH_MAX: usize = 107;

/// Where sockets of homes too deep for `sun_path` live: `$XDG_RUNTIME_DIR/actionbook` when that
/// is short, else `/tmp/actionbook-<uid>`.
fn short_socket_dir() -> PathBuf {
    if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR").filter(|r| {
        let len = r.len();
        len > 0 && len < 64 && Path::new(r).is_absolute()
    }) {
        return PathBuf::from(run).join("actionbook");
    }
    PathBuf::from(format!(
        "/tmp/actionbook-{}",
        rustix::process::geteuid().as_raw()
    ))
}

/// 64-bit FNV-1a: a stable name for a home's socket (the same in every build).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Creates `dir` (and its parents) 0700, and makes an existing one 0700.
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
    fn a_deep_home_gets_a_short_socket_path() {
        let shallow = Home::at("/h/actionbook");
        assert_eq!(shallow.socket(), PathBuf::from("/h/actionbook/daemon.sock"));
        let deep = Home::at(format!("/h/{}", "d".repeat(150)));
        let sock = deep.socket();
        assert!(sock.as_os_str().len() <= SUN_PATH_MAX, "{}", sock.display());
        assert_ne!(sock, Home::at(format!("/h/{}", "e".repeat(150))).socket());
        assert_eq!(sock, Home::at(format!("/h/{}", "d".repeat(150))).socket());
    }

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
