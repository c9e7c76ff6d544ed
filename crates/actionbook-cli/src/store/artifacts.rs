//! Names of the files a session keeps next to its record: one place, so every writer and reader
//! agrees on them.

use std::path::{Path, PathBuf};

/// The tab's ref table (`refs-<tid>.json` in the session's directory).
pub(crate) fn refs_file(session_dir: &Path, tab_id: &str) -> PathBuf {
    session_dir.join(format!("refs-{tab_id}.json"))
}

/// A new snapshot file (`snapshot_<ms since the epoch>.yaml` in the session's directory).
pub(crate) fn snapshot_file(session_dir: &Path) -> PathBuf {
    session_dir.join(format!("snapshot_{}.yaml", now_ms()))
}

/// Removes the tab's ref table (the document it described is gone); a missing file is fine.
pub(crate) fn remove_refs(session_dir: &Path, tab_id: &str) {
    let _ = std::fs::remove_file(refs_file(session_dir, tab_id));
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let d = Path::new("/h/sessions/s1");
        assert_eq!(
            refs_file(d, "t2"),
            PathBuf::from("/h/sessions/s1/refs-t2.json")
        );
        let snap = snapshot_file(d);
        let name = snap
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert!(
            name.starts_with("snapshot_") && name.ends_with(".yaml"),
            "{name}"
        );
    }
}
