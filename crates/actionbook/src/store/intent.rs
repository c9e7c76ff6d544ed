//! Intent records: what a structural command (`start`, `new-tab`, `restart`, `close`) is about to
//! do, written to `sessions/<sid>/intent.json` before its first side effect (a spawned browser, a
//! created target) and removed once the session's record says everything it did. A file left
//! behind means a daemon died in the middle; the next engine settles it (see
//! `commands::lifecycle::recover`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::store::{off_worker, read_json, write_json_off};

/// The file of a session's intent record, in its directory under `sessions/`.
pub const INTENT_FILE: &str = "intent.json";

/// The URL prefix of every page target a structural command creates: a target with such a URL
/// that no tab records was left by an interrupted command (it is navigated away, or recorded, before
/// the command answers).
pub const MARKER_URL_PREFIX: &str = "about:blank#actionbook-";

/// A structural command in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Intent {
    /// `browser start`: the session may not exist yet; the browser may be running without a
    /// record.
    Start {
        /// The profile the browser is launched on (its processes name it), when launching.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profile_dir: Option<PathBuf>,
        /// Whether the profile was made for this session (removed when the start is undone).
        #[serde(default)]
        auto_profile: bool,
        /// The launched browser, once it runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        browser: Option<cdp_protocol::ProcessIdentity>,
    },
    /// `browser new-tab`: targets may exist that no tab records yet.
    NewTab,
    /// `browser restart`: the old browser may be gone and the new one not yet recorded.
    Restart {
        /// The endpoint of the browser being replaced (a record with another one and a tab is
        /// the restart done).
        from_endpoint: String,
    },
    /// `browser close`: the browser may be gone while the session's files remain.
    Close {
        /// `--purge`: the last snapshots go too.
        #[serde(default)]
        purge: bool,
    },
}

/// `sessions/<sid>/intent.json` of a session directory.
pub fn intent_file(session_dir: &Path) -> PathBuf {
    session_dir.join(INTENT_FILE)
}

/// Writes the intent (atomically, synced, off the async workers) before the side effects it
/// announces.
pub async fn write_intent(session_dir: &Path, intent: &Intent) -> Result<()> {
    write_json_off(intent_file(session_dir), intent.clone()).await
}

/// The intent left in a session directory, if any (`Err` when it does not decode).
pub fn read_intent(session_dir: &Path) -> Result<Option<Intent>> {
    read_json(&intent_file(session_dir))
}

/// Settles the command: its effects are all in the record (off the async workers: a remove
/// waits on the directory's journal like a write).
pub async fn clear_intent(session_dir: &Path) -> Result<()> {
    let file = intent_file(session_dir);
    match off_worker(move || std::fs::remove_file(file)).await? {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn intents_round_trip_and_clearing_twice_is_fine() -> Result<()> {
        let dir = tempfile::tempdir()?;
        assert_eq!(read_intent(dir.path())?, None);
        let start = Intent::Start {
            profile_dir: Some(dir.path().join("p")),
            auto_profile: true,
            browser: None,
        };
        write_intent(dir.path(), &start).await?;
        assert_eq!(read_intent(dir.path())?, Some(start));
        write_intent(dir.path(), &Intent::NewTab).await?;
        assert_eq!(read_intent(dir.path())?, Some(Intent::NewTab));
        clear_intent(dir.path()).await?;
        clear_intent(dir.path()).await?;
        assert_eq!(read_intent(dir.path())?, None);
        Ok(())
    }
}
