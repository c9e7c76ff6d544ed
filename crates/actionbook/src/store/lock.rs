//! The home's lock: an exclusive `flock` on `$ACTIONBOOK_HOME/engine.lock`, held by one engine for
//! its whole life (the kernel drops it however the process ends, even `kill -9`). A second engine
//! on the same home (an embedding program beside a running daemon) is refused, naming the holder.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use rustix::fs::FlockOperation;
use rustix::io::Errno;

use crate::error::{CliError, Result};
use crate::store::Home;

/// The lock file's name in the home.
const LOCK_FILE: &str = "engine.lock";

/// The held lock; dropping it releases the home.
#[derive(Debug)]
pub struct HomeLock {
    _file: File,
}

impl HomeLock {
    /// Takes the home's lock, or fails with [`CliError::HomeInUse`] (naming the pid that holds
    /// it) without waiting. Records this process's pid in the file for the next one to name.
    pub fn acquire(home: &Home) -> Result<HomeLock> {
        home.ensure()?;
        let path = home.file(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)?;
        match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(Errno::WOULDBLOCK) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(CliError::HomeInUse {
                    home: home.root().to_path_buf(),
                    holder: holder.trim().parse().ok(),
                });
            }
            Err(e) => return Err(std::io::Error::from(e).into()),
        }
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(std::process::id().to_string().as_bytes())?;
        Ok(HomeLock { _file: file })
    }

    /// The lock file of a home.
    pub fn path(home: &Home) -> PathBuf {
        home.file(LOCK_FILE)
    }

    /// Whether an engine holds the home's lock now (`Some`, with the pid it recorded when
    /// readable), without taking it for good or writing anything.
    pub fn holder(home: &Home) -> Option<Option<u32>> {
        let mut file = File::open(home.file(LOCK_FILE)).ok()?;
        match rustix::fs::flock(&file, FlockOperation::NonBlockingLockShared) {
            // Nobody holds it: the probe's shared lock goes with the file.
            Ok(()) => None,
            Err(_) => {
                let mut pid = String::new();
                let _ = file.read_to_string(&mut pid);
                Some(pid.trim().parse().ok())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_a_home_is_refused_with_the_holder_until_the_first_is_dropped() -> Result<()>
    {
        let dir = tempfile::tempdir()?;
        let home = Home::at(dir.path().join("home"));
        let first = HomeLock::acquire(&home)?;
        match HomeLock::acquire(&home) {
            Err(e @ CliError::HomeInUse { holder, .. }) => {
                assert_eq!(holder, Some(std::process::id()));
                assert_eq!(e.code(), envelope::ErrorCode::SessionAlreadyExists);
                assert!(!e.retryable());
            }
            other => panic!("second lock: {other:?}"),
        }
        drop(first);
        let _again = HomeLock::acquire(&home)?;
        Ok(())
    }
}
