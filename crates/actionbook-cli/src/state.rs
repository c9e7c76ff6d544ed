//! Durable state under `$ACTIONBOOK_HOME`: what a new daemon needs to re-attach to running browsers.
//!
//! Layout:
//! ```text
//! $ACTIONBOOK_HOME/            0700
//!   daemon.sock daemon.pid daemon.version daemon.log
//!   counters.json              {"next_session": N}
//!   profiles/<name>/           Chromium user-data directories
//!   sessions/<sid>/session.json   SessionRecord
//!   sessions/<sid>/refs-<tid>.json the tab's ref table
//!   sessions/<sid>/snapshot_<ms>.yaml
//! ```
//! Every file is written atomically (temp file in the same directory, then rename), so a reader or a
//! crash never sees half a file.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::args::Mode;
use crate::error::{CliError, Result};

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

    /// Creates the root (0700) if needed.
    pub fn ensure(&self) -> Result<()> {
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

    /// `sessions/`.
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }

    /// `sessions/<sid>/`.
    pub fn session_dir(&self, sid: &str) -> PathBuf {
        self.sessions_dir().join(sid)
    }

    /// `profiles/<name>/`.
    pub fn profile_dir(&self, name: &str) -> PathBuf {
        self.root.join("profiles").join(name)
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

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically (unique temp file + fsync + rename), mode 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode_0600()
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

trait OpenOptionsExt0600 {
    fn mode_0600(&mut self) -> &mut Self;
}

impl OpenOptionsExt0600 for fs::OpenOptions {
    fn mode_0600(&mut self) -> &mut Self {
        std::os::unix::fs::OpenOptionsExt::mode(self, 0o600)
    }
}

/// Writes `value` as JSON atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| CliError::internal(format!("cannot encode {}: {e}", path.display())))?;
    write_atomic(path, &bytes)?;
    Ok(())
}

/// Reads JSON; `Ok(None)` when the file does not exist.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| CliError::internal(format!("corrupt state file {}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Lifecycle state of a session as reported to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    /// Browser reachable.
    Running,
    /// Browser went away without `browser close`.
    Crashed,
    /// Closed (detached from a browser we did not launch, or being torn down).
    Closed,
}

impl SessionStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Running => "running",
            SessionStatus::Crashed => "crashed",
            SessionStatus::Closed => "closed",
        }
    }
}

/// One tab's durable facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabRecord {
    /// `tN`.
    pub tab_id: String,
    /// The CDP target id (`native_tab_id`).
    pub target_id: String,
    /// Last known URL.
    #[serde(default)]
    pub url: String,
    /// Last known title.
    #[serde(default)]
    pub title: String,
    /// The window (`wN`) the tab is in, recorded when the tab was created or adopted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
}

/// One browser window of a session: our `wN` and Chromium's `windowId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRecord {
    /// `wN`.
    pub window_id: String,
    /// Chromium's window id (`Browser.getWindowForTarget`).
    pub native_window_id: i64,
}

/// One session's durable facts (`sessions/<sid>/session.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The session id.
    pub session_id: String,
    /// Browser mode.
    pub mode: Mode,
    /// Profile name (local mode).
    #[serde(default)]
    pub profile: Option<String>,
    /// Whether the profile was named by the user (kept on close) or made for this session.
    #[serde(default)]
    pub profile_named: bool,
    /// The browser's user-data directory (local mode).
    #[serde(default)]
    pub profile_dir: Option<PathBuf>,
    /// Headless or not.
    pub headless: bool,
    /// Whether we launched the browser (close kills it) or only connected to it (close detaches).
    pub launched: bool,
    /// The browser's pid, when we launched it.
    #[serde(default)]
    pub browser_pid: Option<u32>,
    /// The browser-level WebSocket URL.
    pub cdp_endpoint: String,
    /// The endpoint as the user gave it (`--cdp-endpoint`), for reconnects.
    #[serde(default)]
    pub user_endpoint: Option<String>,
    /// Headers for `--cdp-endpoint`.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The executable used to launch (for restart).
    #[serde(default)]
    pub executable: Option<String>,
    /// Lifecycle state.
    pub status: SessionStatus,
    /// Tabs in creation order.
    #[serde(default)]
    pub tabs: Vec<TabRecord>,
    /// The next tab number (t1, t2 ... never reused).
    pub next_tab: u64,
    /// Windows seen so far, in order (w0, w1 ...).
    #[serde(default)]
    pub windows: Vec<WindowRecord>,
    /// The next window number (w0, w1 ... never reused).
    #[serde(default)]
    pub next_window: u64,
}

impl SessionRecord {
    /// The tab with this id.
    pub fn tab(&self, tab_id: &str) -> Option<&TabRecord> {
        self.tabs.iter().find(|t| t.tab_id == tab_id)
    }

    /// The `wN` of a Chromium window, allocating the next one the first time it is seen.
    pub fn window_for_native(&mut self, native_window_id: i64) -> String {
        if let Some(w) = self
            .windows
            .iter()
            .find(|w| w.native_window_id == native_window_id)
        {
            return w.window_id.clone();
        }
        let id = format!("w{}", self.next_window);
        self.next_window += 1;
        self.windows.push(WindowRecord {
            window_id: id.clone(),
            native_window_id,
        });
        id
    }

    /// The window with this `wN` id.
    pub fn window(&self, window_id: &str) -> Option<&WindowRecord> {
        self.windows.iter().find(|w| w.window_id == window_id)
    }

    /// How many distinct windows the open tabs are in.
    pub fn open_windows(&self) -> usize {
        let mut ids: Vec<&str> = self
            .tabs
            .iter()
            .filter_map(|t| t.window_id.as_deref())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// The tab's `wN` when the session has more than one window open (`context.window_id`).
    pub fn context_window(&self, tab_id: &str) -> Option<String> {
        if self.open_windows() < 2 {
            return None;
        }
        self.tab(tab_id)?.window_id.clone()
    }

    /// Allocates the next `tN` id.
    pub fn alloc_tab_id(&mut self) -> String {
        loop {
            let id = format!("t{}", self.next_tab.max(1));
            self.next_tab = self.next_tab.max(1) + 1;
            if self.tab(&id).is_none() {
                return id;
            }
        }
    }
}

/// Global counters (`counters.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Counters {
    /// The next auto session number.
    pub next_session: u64,
}

/// Validates a user-chosen session id against `^[a-z][a-z0-9_-]{1,63}$`.
pub fn valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    (2..=64).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_' || *c == b'-')
}

/// Validates a user-chosen tab id (`tN` style: a lowercase letter then letters/digits/`_`/`-`).
pub fn valid_tab_id(id: &str) -> bool {
    valid_session_id(id)
}

/// Validates a window id: `w` then a decimal number without leading zeros (`w0`, `w12`).
pub fn valid_window_id(id: &str) -> bool {
    id.strip_prefix('w').is_some_and(|n| {
        !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) && (n == "0" || !n.starts_with('0'))
    })
}

/// Validates a profile name (used as a directory name).
pub fn valid_profile_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn session_id_rules() {
        assert!(valid_session_id("research-google"));
        assert!(valid_session_id("s1"));
        assert!(valid_session_id("github_login_debug"));
        assert!(!valid_session_id("Bad_ID"));
        assert!(!valid_session_id("a"));
        assert!(!valid_session_id("1abc"));
        assert!(!valid_session_id(&"a".repeat(65)));
        assert!(valid_session_id(&"a".repeat(64)));
        assert!(!valid_session_id("a b"));
    }

    proptest! {
        #[test]
        fn window_ids_roundtrip(n in 0u64..u64::MAX, s in "w?[0-9a-z]{0,4}") {
            let id = format!("w{}", n);
            prop_assert!(valid_window_id(&id));
            let padded = format!("w0{}", n);
            prop_assert!(!valid_window_id(&padded));
            // Equivalent to ^w(0|[1-9][0-9]*)$ on arbitrary short strings.
            let expected = match s.strip_prefix('w') {
                Some(d) => d == "0" || (!d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) && !d.starts_with('0')),
                None => false,
            };
            prop_assert_eq!(valid_window_id(&s), expected);
        }

        #[test]
        fn session_id_matches_regex(s in "\\PC{0,70}") {
            let expected = {
                let b: Vec<char> = s.chars().collect();
                (2..=64).contains(&b.len()) && b[0].is_ascii_lowercase()
                    && b[1..].iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '-')
            };
            prop_assert_eq!(valid_session_id(&s), expected);
        }
    }

    #[test]
    fn tab_ids_never_reused() {
        let mut r = SessionRecord {
            session_id: "s1".into(),
            mode: Mode::Local,
            profile: None,
            profile_named: false,
            profile_dir: None,
            headless: true,
            launched: true,
            browser_pid: None,
            cdp_endpoint: String::new(),
            user_endpoint: None,
            headers: vec![],
            executable: None,
            status: SessionStatus::Running,
            tabs: vec![],
            next_tab: 1,
            windows: vec![],
            next_window: 0,
        };
        let a = r.alloc_tab_id();
        let b = r.alloc_tab_id();
        assert_eq!((a.as_str(), b.as_str()), ("t1", "t2"));
        r.tabs.push(TabRecord {
            tab_id: "t3".into(),
            target_id: "x".into(),
            url: String::new(),
            title: String::new(),
            window_id: None,
        });
        assert_eq!(r.alloc_tab_id(), "t4");
        assert_eq!(r.window_for_native(100), "w0");
        assert_eq!(r.window_for_native(200), "w1");
        assert_eq!(r.window_for_native(100), "w0");
        r.windows.clear();
        assert_eq!(
            r.window_for_native(300),
            "w2",
            "window ids are never reused"
        );
        assert_eq!(r.context_window("t3"), None);
    }

    #[test]
    fn context_window_only_with_several_open_windows() {
        let tab = |id: &str, w: &str| TabRecord {
            tab_id: id.into(),
            target_id: id.into(),
            url: String::new(),
            title: String::new(),
            window_id: Some(w.into()),
        };
        let mut r: SessionRecord = serde_json::from_value(serde_json::json!({
            "session_id": "s1", "mode": "local", "headless": true, "launched": true,
            "cdp_endpoint": "ws://x", "status": "running", "next_tab": 3,
            "tabs": [{"tab_id": "t1", "target_id": "A"}],
        }))
        .unwrap_or_else(|e| panic!("an old record must load: {e}"));
        assert_eq!((r.windows.len(), r.next_window), (0, 0));
        assert_eq!(r.tabs[0].window_id, None);
        r.tabs = vec![tab("t1", "w0"), tab("t2", "w0")];
        assert_eq!(r.context_window("t2"), None);
        r.tabs.push(tab("t3", "w1"));
        assert_eq!(r.context_window("t2").as_deref(), Some("w0"));
        assert_eq!(r.context_window("t3").as_deref(), Some("w1"));
    }

    #[test]
    fn window_id_rules() {
        for ok in ["w0", "w1", "w12", "w100"] {
            assert!(valid_window_id(ok), "{ok}");
        }
        for bad in ["", "w", "w01", "W1", "1", "w-1", "w1a", "t1", "w 1"] {
            assert!(!valid_window_id(bad), "{bad}");
        }
    }

    #[test]
    fn concurrent_atomic_writes_never_tear() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("s.json");
        let big = "x".repeat(64 * 1024);
        std::thread::scope(|scope| {
            for t in 0..8u64 {
                let (p, big) = (&p, &big);
                scope.spawn(move || {
                    for i in 0..20u64 {
                        let _ = write_json(p, &serde_json::json!({ "t": t, "i": i, "pad": big }));
                    }
                });
            }
            for _ in 0..200 {
                if let Ok(Some(v)) = read_json::<serde_json::Value>(&p) {
                    assert_eq!(v["pad"].as_str().map(str::len), Some(64 * 1024));
                }
            }
        });
        let leftovers = fs::read_dir(dir.path())?.count();
        assert_eq!(leftovers, 1, "temp files left behind");
        Ok(())
    }

    #[test]
    fn atomic_write_roundtrip() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("x.json");
        write_json(&p, &Counters { next_session: 7 })?;
        let c: Option<Counters> = read_json(&p)?;
        assert_eq!(c.map(|c| c.next_session), Some(7));
        let leftovers = fs::read_dir(dir.path())?.count();
        assert_eq!(leftovers, 1);
        Ok(())
    }
}
