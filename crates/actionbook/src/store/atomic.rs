//! Atomic writes: a reader or a crash never sees half a file.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

/// Writes `bytes` to `path` atomically (unique temp file + fsync + rename), mode 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::files::write_durable(path, bytes, 0o600)
}

pub use crate::files::write_file_whole;

/// Writes `value` as JSON atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| CliError::internal(format!("cannot encode {}: {e}", path.display())))?;
    write_atomic(path, &bytes)?;
    Ok(())
}

/// Runs blocking file work (fsync, deletes) on a blocking thread, off the async workers.
pub async fn off_worker<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Result<R> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| CliError::Io(std::io::Error::other(e)))
}

/// [`write_json`] off the async workers.
pub async fn write_json_off<T: Serialize + Send + 'static>(path: PathBuf, value: T) -> Result<()> {
    off_worker(move || write_json(&path, &value)).await?
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
