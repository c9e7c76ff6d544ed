//! Whole-file writes: a reader or a crash sees the old file or the new one, never half of one.
//! The lowest layer of the crate (it imports nothing of it), so the state store, the manuals and
//! the artifact writers all share one implementation.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Writes `bytes` to `path` through a unique temp file beside it, flushed to disk and renamed
/// over `path`; the file gets exactly `mode` (whatever the umask), from its creation on, so a
/// secret is never readable by others even for a moment. The temp file is removed on failure.
pub fn write_durable(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    write_whole(path, mode, true, |w| w.write_all(bytes)).map(|_| ())
}

/// Writes a user's file (a screenshot, a PDF, a HAR) from `fill` as a whole or not at all: into a
/// temp file beside `path`, renamed over it once `fill` succeeded, removed on any error. Mode 0644
/// and no fsync (an artifact, not state a restart needs). Returns the bytes written.
pub fn write_file_whole(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    write_whole(path, 0o644, false, fill)
}

/// `Err` when `path` exists and is neither a regular file nor a symbolic link: renaming over a
/// device (`/dev/null`), a socket or a pipe would replace it with the file.
pub fn refuse_special(path: &Path) -> std::io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() && !m.file_type().is_symlink() => {
            Err(std::io::Error::other(
                "it exists and is not a regular file (a device, a pipe, a socket or a directory)",
            ))
        }
        _ => Ok(()),
    }
}

fn write_whole(
    path: &Path,
    mode: u32,
    durable: bool,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let tmp = temp_beside(path)?;
    let result = (|| {
        let f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        let mut w = std::io::BufWriter::with_capacity(256 * 1024, f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        if durable {
            f.sync_all()?;
        }
        let bytes = f.metadata()?.len();
        drop(f);
        refuse_special(path)?;
        fs::rename(&tmp, path)?;
        Ok(bytes)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};

    #[test]
    fn writes_whole_files_with_the_mode_asked_and_leaves_no_temp_file() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("a.toml");
        write_durable(&p, b"one", 0o600)?;
        assert_eq!(fs::read(&p)?, b"one");
        assert_eq!(fs::metadata(&p)?.permissions().mode() & 0o777, 0o600);
        write_durable(&p, b"two", 0o644)?;
        assert_eq!(fs::read(&p)?, b"two");
        assert_eq!(fs::metadata(&p)?.permissions().mode() & 0o777, 0o644);
        // A failed fill leaves the old file and no temp file.
        let failed = write_file_whole(&p, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&p)?, b"two");
        assert_eq!(fs::read_dir(dir.path())?.count(), 1);
        // No parent directory: an error, nothing created.
        assert!(write_durable(&dir.path().join("no/such/x"), b"x", 0o600).is_err());
        // A device is never replaced by the file.
        let null = Path::new("/dev/null");
        assert!(write_file_whole(null, |w| w.write_all(b"x")).is_err());
        assert!(fs::metadata(null)?.file_type().is_char_device());
        // A FIFO neither (made without a device node's privileges).
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()?
                .success()
        );
        assert!(write_file_whole(&fifo, |w| w.write_all(b"x")).is_err());
        assert!(fs::symlink_metadata(&fifo)?.file_type().is_fifo());
        Ok(())
    }
}
