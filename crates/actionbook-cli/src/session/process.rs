//! Processes by pid: alive checks and kills, for browsers launched by an earlier daemon (this one
//! holds no handle on them). Kept as they are until process identities replace bare pids.

use std::time::Duration;

use crate::deadline;

/// Whether a process with this pid is alive (and not a zombie).
pub(crate) fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // Field 3 (after the parenthesised comm) is the state; Z = zombie, X = dead.
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .unwrap_or("");
            !matches!(state, "Z" | "X" | "x")
        }
        Err(_) => false,
    }
}

/// Sends SIGKILL to a process (via `kill`, since unsafe code is forbidden).
pub(crate) fn kill_pid(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-KILL")
        .arg(pid.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Kills every process whose command line names this user-data directory (browser helpers that
/// outlived a browser launched by an earlier daemon).
pub(crate) fn kill_profile_processes(profile_dir: &std::path::Path) {
    let needle = format!("--user-data-dir={}", profile_dir.display());
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if cmd.split(|b| *b == 0).any(|arg| arg == needle.as_bytes()) && pid_alive(pid) {
            kill_pid(pid);
        }
    }
}

/// Waits (bounded) for a process to exit; kills it when the grace period runs out.
pub(crate) async fn ensure_exited(pid: u32, grace: Duration) {
    let until = tokio::time::Instant::now() + grace;
    while pid_alive(pid) && tokio::time::Instant::now() < until {
        tokio::time::sleep(deadline::PROCESS_POLL).await;
    }
    if pid_alive(pid) {
        kill_pid(pid);
        let until = tokio::time::Instant::now() + deadline::PROCESS_EXIT;
        while pid_alive(pid) && tokio::time::Instant::now() < until {
            tokio::time::sleep(deadline::PROCESS_POLL).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_pid_is_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(u32::MAX - 1));
    }
}
