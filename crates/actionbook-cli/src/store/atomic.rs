//! Atomic writes: a reader or a crash never sees half a file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A temp file name beside `path`, unique in this process (`.<name>.tmp.<pid>.<n>`).
fn temp_beside(path: &Path) -> std::io::Result<PathBuf> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::other("path has no file name"))?;
    Ok(dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    )))
}

/// Writes `bytes` to `path` atomically (unique temp file + fsync + rename), mode 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = temp_beside(path)?;
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

/// Writes a user's file (a screenshot, a PDF) from `fill` as a whole or not at all: into a temp
/// file beside `path`, renamed over it once `fill` succeeded, removed on any error. Mode 0644 and
/// no fsync (an artifact, not state a restart needs). Returns the bytes written.
pub fn write_file_whole(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    let tmp = temp_beside(path)?;
    let result = (|| {
        let f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let mut w = std::io::BufWriter::with_capacity(256 * 1024, f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        let bytes = f.metadata()?.len();
        drop(f);
        fs::rename(&tmp, path)?;
        Ok(bytes)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Counters;

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
