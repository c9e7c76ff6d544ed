//! Names of the files a session keeps next to its record: one place, so every writer and reader
//! agrees on them.

use std::path::{Path, PathBuf};

/// The tab's ref table (`refs-<tid>.json` in the session's directory).
pub(crate) fn refs_file(session_dir: &Path, tab_id: &str) -> PathBuf {
    session_dir.join(format!("refs-{tab_id}.json"))
}

/// What is kept about a tab's console logs (`logs-<tid>.json`: the last id handed out, clears).
pub(crate) fn logs_file(session_dir: &Path, tab_id: &str) -> PathBuf {
    session_dir.join(format!("logs-{tab_id}.json"))
}

/// How many snapshot files each tab keeps (the oldest beyond this are removed after each
/// snapshot); `ACTIONBOOK_SNAPSHOTS_PER_TAB` changes it (at least 1).
pub(crate) const SNAPSHOTS_PER_TAB: usize = 20;

/// The number of snapshot files kept per tab: [`SNAPSHOTS_PER_TAB`] or the environment's.
pub(crate) fn snapshots_per_tab() -> usize {
    std::env::var("ACTIONBOOK_SNAPSHOTS_PER_TAB")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(SNAPSHOTS_PER_TAB, |n| n.max(1))
}

/// The tab's snapshot files as `(sequence, path)`, oldest first.
fn snapshots_of(session_dir: &Path, tab_id: &str) -> Vec<(u64, PathBuf)> {
    let prefix = format!("snapshot_{tab_id}_");
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(session_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let n = name
                .to_str()?
                .strip_prefix(&prefix)?
                .strip_suffix(".yaml")?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .collect();
    found.sort();
    found
}

/// The tab's next snapshot file, `snapshot_<tid>_<n>.yaml` in the session's directory: numbered
/// per tab, so two tabs never share a file and one tab's files sort by sequence. Call it from
/// the tab's command queue (one snapshot of a tab at a time).
pub(crate) fn snapshot_file(session_dir: &Path, tab_id: &str) -> PathBuf {
    let next = snapshots_of(session_dir, tab_id)
        .last()
        .map_or(1, |(n, _)| n + 1);
    session_dir.join(format!("snapshot_{tab_id}_{next}.yaml"))
}

/// The last snapshot file of every tab in a session's directory (what `close` keeps).
pub(crate) fn last_snapshots(session_dir: &Path) -> Vec<PathBuf> {
    let mut last: std::collections::BTreeMap<String, (u64, PathBuf)> = Default::default();
    for e in std::fs::read_dir(session_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = e.file_name();
        let Some((tab, n)) = name
            .to_str()
            .and_then(|n| n.strip_prefix("snapshot_")?.strip_suffix(".yaml"))
            .and_then(|rest| rest.rsplit_once('_'))
            .and_then(|(tab, n)| Some((tab.to_string(), n.parse::<u64>().ok()?)))
        else {
            continue;
        };
        if last.get(&tab).is_none_or(|(m, _)| n > *m) {
            last.insert(tab, (n, e.path()));
        }
    }
    last.into_values().map(|(_, p)| p).collect()
}

/// Removes the tab's oldest snapshot files beyond `keep`.
pub(crate) fn prune_snapshots(session_dir: &Path, tab_id: &str, keep: usize) {
    let files = snapshots_of(session_dir, tab_id);
    let extra = files.len().saturating_sub(keep);
    for (_, path) in files.into_iter().take(extra) {
        let _ = std::fs::remove_file(path);
    }
}

/// Removes the tab's ref table (the document it described is gone); a missing file is fine.
pub(crate) fn remove_refs(session_dir: &Path, tab_id: &str) {
    let _ = std::fs::remove_file(refs_file(session_dir, tab_id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_snapshot_of_each_tab() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        for f in [
            "snapshot_t1_1.yaml",
            "snapshot_t1_2.yaml",
            "snapshot_t1_10.yaml",
            "snapshot_my_tab_3.yaml",
            "refs-t1.json",
        ] {
            std::fs::write(dir.path().join(f), "x")?;
        }
        let mut last = last_snapshots(dir.path());
        last.sort();
        assert_eq!(
            last,
            vec![
                dir.path().join("snapshot_my_tab_3.yaml"),
                dir.path().join("snapshot_t1_10.yaml"),
            ]
        );
        Ok(())
    }

    #[test]
    fn names() {
        let d = Path::new("/h/sessions/s1");
        assert_eq!(
            refs_file(d, "t2"),
            PathBuf::from("/h/sessions/s1/refs-t2.json")
        );
    }

    #[test]
    fn snapshots_are_numbered_per_tab_and_the_oldest_beyond_the_bound_go() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let d = dir.path();
        let mut written = Vec::new();
        for _ in 0..3 {
            for tab in ["t1", "t2"] {
                let p = snapshot_file(d, tab);
                std::fs::write(&p, tab)?;
                written.push(p);
            }
        }
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .collect();
        assert_eq!(
            names,
            [
                "snapshot_t1_1.yaml",
                "snapshot_t2_1.yaml",
                "snapshot_t1_2.yaml",
                "snapshot_t2_2.yaml",
                "snapshot_t1_3.yaml",
                "snapshot_t2_3.yaml"
            ]
        );
        prune_snapshots(d, "t1", 2);
        assert!(!d.join("snapshot_t1_1.yaml").exists());
        assert!(d.join("snapshot_t1_2.yaml").exists() && d.join("snapshot_t1_3.yaml").exists());
        assert_eq!(
            snapshots_of(d, "t2").len(),
            3,
            "another tab's files are not touched"
        );
        // The sequence continues after pruning (and after t10 does not match t1).
        assert_eq!(snapshot_file(d, "t1"), d.join("snapshot_t1_4.yaml"));
        assert_eq!(snapshot_file(d, "t10"), d.join("snapshot_t10_1.yaml"));
        Ok(())
    }
}
