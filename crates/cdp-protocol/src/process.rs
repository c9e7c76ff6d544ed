//! Processes, never bare pids: who a pid is ([`ProcessIdentity`]: pid + start time + boot id,
//! optionally the `--user-data-dir` it runs with), signals that reach only that process (a pidfd
//! where the kernel has them, else `kill(2)` right after a fresh identity check), the `/proc`
//! scan for browser helpers that outlived their browser, and children of ours ([`OwnedChild`])
//! that are always reaped.
//!
//! Cheap calls ([`ProcessIdentity::capture`], [`ProcessIdentity::status`],
//! [`ProcessIdentity::signal`]) read one or two small `/proc` files and never wait. Everything
//! that waits or scans `/proc` is a `*_blocking` function, with an async twin that runs it on
//! tokio's blocking pool so that no runtime worker ever stalls.

use crate::error::CdpError;
use rustix::fd::{AsFd, OwnedFd};
use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, WaitId, WaitIdOptions, WaitOptions};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How often blocking waits look again.
const POLL: Duration = Duration::from_millis(10);
/// How often waits that rescan `/proc` look again.
const SCAN_POLL: Duration = Duration::from_millis(50);
/// How long a process may take to disappear after SIGKILL.
pub const KILL_WAIT: Duration = Duration::from_secs(5);

/// Who a process is: stable across pid reuse and reboots, unlike its pid.
///
/// Record it (it serialises) when the process starts; later, [`ProcessIdentity::status`] tells
/// whether the process now at that pid is still the same one, and every signal sent through it
/// is checked first.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessIdentity {
    /// The process id.
    pub pid: u32,
    /// When it started, in clock ticks since boot (`/proc/<pid>/stat` field 22).
    pub start_time: u64,
    /// The boot it ran in (`/proc/sys/kernel/random/boot_id`; empty where unreadable).
    pub boot_id: String,
    /// The profile directory its command line must name (`--user-data-dir=<dir>`), if recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_data_dir: Option<PathBuf>,
}

/// What is at a recorded process's pid now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessStatus {
    /// The recorded process, running.
    Running,
    /// The recorded process has exited but its parent has not reaped it yet.
    Zombie,
    /// Not the recorded process (or none at all).
    NotOurs(Mismatch),
}

impl ProcessStatus {
    /// True for [`ProcessStatus::Running`].
    pub fn is_running(self) -> bool {
        self == ProcessStatus::Running
    }
}

/// Why the process at a pid is not the recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// No process has this pid (it exited and was reaped).
    NoProcess,
    /// The machine rebooted since the identity was taken.
    OtherBoot,
    /// The pid now belongs to a process that started at another time.
    PidReused,
    /// The process's command line does not name the recorded profile directory.
    OtherProfile,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mismatch::NoProcess => "no process has this pid",
            Mismatch::OtherBoot => "the machine rebooted since it was recorded",
            Mismatch::PidReused => "the pid belongs to another process now",
            Mismatch::OtherProfile => "its command line does not name the recorded profile",
        })
    }
}

/// The signals this module sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGTERM: asks the process to exit (Chromium then shuts its helpers down).
    Terminate,
    /// SIGKILL.
    Kill,
}

impl Signal {
    fn raw(self) -> rustix::process::Signal {
        match self {
            Signal::Terminate => rustix::process::Signal::TERM,
            Signal::Kill => rustix::process::Signal::KILL,
        }
    }
}

/// How [`ProcessIdentity::terminate_blocking`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// Nothing was signalled: the pid is not the recorded process.
    NotOurs(Mismatch),
    /// It had already exited (a zombie); nothing was signalled.
    AlreadyExited,
    /// It exited after SIGTERM.
    Terminated,
    /// It exited after SIGKILL.
    Killed,
    /// It was still there after SIGKILL and the wait that followed (e.g. stuck in the kernel).
    Survived,
}

impl Termination {
    /// True unless the process is still running.
    pub fn is_gone(self) -> bool {
        self != Termination::Survived
    }
}

/// Fields of `/proc/<pid>/stat` that identity and liveness need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    /// Field 3: `R`, `S`, `Z`, ...
    pub state: char,
    /// Field 4.
    pub ppid: u32,
    /// Field 22, clock ticks since boot.
    pub start_time: u64,
}

/// Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold
/// spaces and parentheses, so fields are counted from the last `)`.
pub(crate) fn parse_stat(text: &str) -> Option<Stat> {
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    // Fields 5..=21 lie between ppid (4) and starttime (22).
    let start_time = fields.nth(17)?.parse().ok()?;
    Some(Stat {
        state,
        ppid,
        start_time,
    })
}

fn read_stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// This boot's id, read once.
fn boot_id() -> &'static str {
    static BOOT_ID: OnceLock<String> = OnceLock::new();
    BOOT_ID.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|s| s.trim().to_owned())
            .unwrap_or_default()
    })
}

/// The `--user-data-dir=<dir>` argument as Chromium (and our launcher) writes it.
pub(crate) fn profile_flag(dir: &Path) -> String {
    format!("--user-data-dir={}", dir.display())
}

fn cmdline(pid: u32) -> Option<Vec<u8>> {
    std::fs::read(format!("/proc/{pid}/cmdline")).ok()
}

fn has_arg(cmdline: &[u8], arg: &str) -> bool {
    cmdline.split(|b| *b == 0).any(|a| a == arg.as_bytes())
}

fn cmdline_has(pid: u32, arg: &str) -> bool {
    cmdline(pid).is_some_and(|c| has_arg(&c, arg))
}

fn is_zombie(state: char) -> bool {
    matches!(state, 'Z' | 'X' | 'x')
}

fn to_pid(pid: u32) -> Option<Pid> {
    Pid::from_raw(i32::try_from(pid).ok()?)
}

impl ProcessIdentity {
    /// The identity of the process now at `pid`; `None` when there is none (or no `/proc`).
    pub fn capture(pid: u32) -> Option<ProcessIdentity> {
        let stat = read_stat(pid)?;
        Some(ProcessIdentity {
            pid,
            start_time: stat.start_time,
            boot_id: boot_id().to_owned(),
            user_data_dir: None,
        })
    }

    /// The same identity, also requiring `--user-data-dir=<dir>` in the command line.
    pub fn with_user_data_dir(mut self, dir: impl Into<PathBuf>) -> ProcessIdentity {
        self.user_data_dir = Some(dir.into());
        self
    }

    /// Whether the process at the pid is this one, and running.
    pub fn status(&self) -> ProcessStatus {
        if self.boot_id != boot_id() {
            return ProcessStatus::NotOurs(Mismatch::OtherBoot);
        }
        let Some(stat) = read_stat(self.pid) else {
            return ProcessStatus::NotOurs(Mismatch::NoProcess);
        };
        if stat.start_time != self.start_time {
            return ProcessStatus::NotOurs(Mismatch::PidReused);
        }
        if is_zombie(stat.state) {
            // A zombie's command line reads empty: the start time is the proof.
            return ProcessStatus::Zombie;
        }
        if let Some(dir) = &self.user_data_dir
            && let Some(args) = cmdline(self.pid)
            // Empty while it exits (its memory is gone before it turns zombie): still ours.
            && !args.is_empty()
            && !has_arg(&args, &profile_flag(dir))
        {
            return ProcessStatus::NotOurs(Mismatch::OtherProfile);
        }
        ProcessStatus::Running
    }

    /// True when the recorded process is running.
    pub fn is_running(&self) -> bool {
        self.status().is_running()
    }

    /// Sends `signal` to the recorded process, and only to it: fails with
    /// [`CdpError::NotOurProcess`] (sending nothing) when the pid is someone else's. A process
    /// that exits meanwhile is not an error.
    pub fn signal(&self, signal: Signal) -> Result<(), CdpError> {
        let not_ours = |mismatch| CdpError::NotOurProcess {
            pid: self.pid,
            mismatch,
        };
        let pid = to_pid(self.pid).ok_or(not_ours(Mismatch::NoProcess))?;
        match rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => {
                // The fd pins whatever process had the pid when it was opened; if that is the
                // recorded one now, it was then too (its start time predates the open).
                self.check_ours()?;
                match rustix::process::pidfd_send_signal(&fd, signal.raw()) {
                    Ok(()) | Err(Errno::SRCH) => Ok(()),
                    Err(e) => Err(CdpError::Io(e.into())),
                }
            }
            Err(Errno::SRCH) => Err(not_ours(Mismatch::NoProcess)),
            Err(_) => {
                // No pidfds (old kernel, seccomp): a fresh check right before kill(2).
                self.check_ours()?;
                match rustix::process::kill_process(pid, signal.raw()) {
                    Ok(()) | Err(Errno::SRCH) => Ok(()),
                    Err(e) => Err(CdpError::Io(e.into())),
                }
            }
        }
    }

    /// Like [`ProcessIdentity::signal`], but to the whole process group when the recorded
    /// process leads one of its own (a browser we spawned with `process_group(0)`: a wrapper's
    /// children, double-forked ones too); to the process alone otherwise. Identity checked right
    /// before the `kill(2)`, and a group is signalled only while its leader, ours, still holds
    /// the id (running or an unreaped zombie).
    pub fn signal_group(&self, signal: Signal) -> Result<(), CdpError> {
        let Some(pid) = to_pid(self.pid) else {
            return self.signal(signal);
        };
        if rustix::process::getpgid(Some(pid)) != Ok(pid) {
            return self.signal(signal);
        }
        self.check_ours()?;
        match rustix::process::kill_process_group(pid, signal.raw()) {
            Ok(()) | Err(Errno::SRCH) => Ok(()),
            Err(e) => Err(CdpError::Io(e.into())),
        }
    }

    /// Waits up to `timeout` while the recorded process runs, reaping nothing; its status then.
    fn wait_not_running_blocking(&self, timeout: Duration) -> ProcessStatus {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.status();
            if status != ProcessStatus::Running || Instant::now() >= deadline {
                return status;
            }
            std::thread::sleep(POLL);
        }
    }

    fn check_ours(&self) -> Result<(), CdpError> {
        match self.status() {
            ProcessStatus::Running | ProcessStatus::Zombie => Ok(()),
            ProcessStatus::NotOurs(mismatch) => Err(CdpError::NotOurProcess {
                pid: self.pid,
                mismatch,
            }),
        }
    }

    /// Reaps the recorded process if it is an exited child of this process (so no zombie is
    /// left); true if it was reaped here. Do not use it on a child that a
    /// [`std::process::Child`] still owns: wait on that handle instead.
    pub fn reap_if_child(&self) -> bool {
        let Some(pid) = to_pid(self.pid) else {
            return false;
        };
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
        if let Ok(fd) = rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
            if self.status() != ProcessStatus::Zombie {
                return false;
            }
            // Through the fd: reaps exactly that process, or fails (ECHILD) if not our child.
            return matches!(
                rustix::process::waitid(WaitId::PidFd(fd.as_fd()), options),
                Ok(Some(_))
            );
        }
        let ours = read_stat(self.pid).is_some_and(|s| {
            s.start_time == self.start_time
                && is_zombie(s.state)
                && to_pid(s.ppid) == Some(rustix::process::getpid())
        });
        // A zombie child of ours keeps its pid until we reap it, so the check stays true.
        ours && matches!(
            rustix::process::waitpid(Some(pid), WaitOptions::NOHANG),
            Ok(Some(_))
        )
    }

    /// Whether the recorded process is a child of this process.
    fn is_child(&self) -> bool {
        read_stat(self.pid).is_some_and(|s| {
            s.start_time == self.start_time && to_pid(s.ppid) == Some(rustix::process::getpid())
        })
    }

    /// Waits up to `timeout` for the recorded process to exit (reaping it if it is our child);
    /// true once it is no longer running. Blocks the thread: see [`ProcessIdentity::wait_exit`].
    pub fn wait_exit_blocking(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            match self.status() {
                ProcessStatus::Running => {}
                // A leader whose other threads are still exiting shows as a zombie before the
                // kernel lets it be reaped: a child of ours is tried again until the deadline
                // (under load one try left zombies behind); anyone else's reaps it themselves.
                ProcessStatus::Zombie => {
                    if self.reap_if_child() || !self.is_child() || Instant::now() >= deadline {
                        return true;
                    }
                }
                ProcessStatus::NotOurs(_) => return true,
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
    }

    /// [`ProcessIdentity::wait_exit_blocking`] on the blocking pool.
    pub async fn wait_exit(&self, timeout: Duration) -> bool {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.wait_exit_blocking(timeout))
            .await
            .unwrap_or(false)
    }

    /// Ends the recorded process, if it is still ours: SIGTERM, up to `grace` to exit, then
    /// SIGKILL and up to [`KILL_WAIT`]; reaps it if it is our child. When it leads a process
    /// group of its own, the signals go to the group, and an exited leader not yet reaped gets
    /// its group killed (what is left of it) before the reap. Every signal is identity checked.
    /// Blocks the thread: see [`ProcessIdentity::terminate`].
    pub fn terminate_blocking(&self, grace: Duration) -> Termination {
        match self.status() {
            ProcessStatus::NotOurs(m) => return Termination::NotOurs(m),
            ProcessStatus::Zombie => {
                let _ = self.signal_group(Signal::Kill);
                self.wait_exit_blocking(KILL_WAIT);
                return Termination::AlreadyExited;
            }
            ProcessStatus::Running => {}
        }
        if let Err(CdpError::NotOurProcess { mismatch, .. }) = self.signal_group(Signal::Terminate)
        {
            return Termination::NotOurs(mismatch);
        }
        let after_term = self.wait_not_running_blocking(grace);
        // Running: it did not exit; Zombie: it did, its group may not have.
        if after_term != ProcessStatus::NotOurs(Mismatch::NoProcess) {
            let _ = self.signal_group(Signal::Kill);
        }
        let gone = self.wait_exit_blocking(KILL_WAIT);
        match (after_term, gone) {
            (ProcessStatus::Running, true) => Termination::Killed,
            (ProcessStatus::Running, false) => Termination::Survived,
            _ => Termination::Terminated,
        }
    }

    /// [`ProcessIdentity::terminate_blocking`] on the blocking pool.
    pub async fn terminate(&self, grace: Duration) -> Termination {
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.terminate_blocking(grace))
            .await
            .unwrap_or(Termination::Survived)
    }
}

/// Pids listed in `/proc`, except this process.
fn all_pids() -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .filter(|pid| *pid != me)
        .collect()
}

/// Live processes whose command line has `--user-data-dir=<dir>` (a browser and its helpers,
/// or helpers that outlived their browser), each with its identity (which records `dir`).
/// Scans `/proc`: blocks the thread, see [`profile_processes`].
pub fn profile_processes_blocking(dir: &Path) -> Vec<ProcessIdentity> {
    let flag = profile_flag(dir);
    all_pids()
        .into_iter()
        .filter(|pid| cmdline_has(*pid, &flag))
        .filter_map(ProcessIdentity::capture)
        .map(|id| id.with_user_data_dir(dir))
        .filter(ProcessIdentity::is_running)
        .collect()
}

/// [`profile_processes_blocking`] on the blocking pool.
pub async fn profile_processes(dir: &Path) -> Vec<ProcessIdentity> {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || profile_processes_blocking(&dir))
        .await
        .unwrap_or_default()
}

/// Gives the processes of `dir` ([`profile_processes_blocking`]) up to `grace` to exit on their
/// own, then SIGKILLs those left (identity checked) and waits for them (bounded); returns how
/// many were killed. Blocks the thread: see [`kill_profile_processes`].
pub fn kill_profile_processes_blocking(dir: &Path, grace: Duration) -> usize {
    kill_stragglers_blocking(profile_processes_blocking(dir), Some(dir), grace)
}

/// [`kill_profile_processes_blocking`] on the blocking pool.
pub async fn kill_profile_processes(dir: &Path, grace: Duration) -> usize {
    let dir = dir.to_owned();
    tokio::task::spawn_blocking(move || kill_profile_processes_blocking(&dir, grace))
        .await
        .unwrap_or(0)
}

/// Waits up to `grace` for `known` (and, with `profile`, every process of that profile) to exit,
/// then SIGKILLs the rest and waits (bounded) for them; returns how many were killed.
pub(crate) fn kill_stragglers_blocking(
    known: Vec<ProcessIdentity>,
    profile: Option<&Path>,
    grace: Duration,
) -> usize {
    let deadline = Instant::now() + grace;
    let mut left = known;
    loop {
        if let Some(dir) = profile {
            for p in profile_processes_blocking(dir) {
                if !left.iter().any(|l| l.pid == p.pid) {
                    left.push(p);
                }
            }
        }
        left.retain(|p| match p.status() {
            ProcessStatus::Running => true,
            ProcessStatus::Zombie => {
                p.reap_if_child();
                false
            }
            ProcessStatus::NotOurs(_) => false,
        });
        if left.is_empty() {
            return 0;
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(SCAN_POLL);
    }
    let killed: Vec<ProcessIdentity> = left
        .into_iter()
        .filter(|p| p.signal(Signal::Kill).is_ok())
        .collect();
    let deadline = Instant::now() + KILL_WAIT;
    for p in &killed {
        p.wait_exit_blocking(deadline.saturating_duration_since(Instant::now()));
    }
    killed.len()
}

/// Every live descendant of `pid` (children, their children, ...), from one `/proc` scan.
/// Blocks the thread.
pub fn descendants_blocking(pid: u32) -> Vec<ProcessIdentity> {
    let parent_of: Vec<(u32, u32)> = all_pids()
        .into_iter()
        .filter_map(|p| read_stat(p).map(|s| (p, s.ppid)))
        .collect();
    let mut out: Vec<u32> = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, _) in parent_of.iter().filter(|(_, pp)| *pp == parent) {
            if !out.contains(child) {
                out.push(*child);
                frontier.push(*child);
            }
        }
    }
    out.into_iter()
        .filter_map(ProcessIdentity::capture)
        .collect()
}

/// A child process we spawned, with a pidfd where the kernel has them.
///
/// Until it is reaped, a child's pid cannot be reused, so signals through this handle always
/// reach the child. Dropping it neither kills nor waits (like [`std::process::Child`]).
#[derive(Debug)]
pub struct OwnedChild {
    child: Child,
    pidfd: Option<OwnedFd>,
    identity: Option<ProcessIdentity>,
    /// Set once reaped (by us or, through a stolen wait, by someone else: `None` inside).
    exited: Option<Option<ExitStatus>>,
    /// It leads a process group of its own (spawned with `process_group(0)`): signals reach the
    /// whole group (a wrapper script's children, double-forked ones too), and the group is
    /// killed once the leader exits, before it is reaped (the unreaped leader pins the group id,
    /// so the group signalled is always its own).
    leads_group: bool,
}

impl OwnedChild {
    /// Takes over a freshly spawned child: opens its pidfd and records its identity.
    pub fn new(child: Child) -> OwnedChild {
        let pid = child.id();
        let pidfd =
            to_pid(pid).and_then(|p| rustix::process::pidfd_open(p, PidfdFlags::empty()).ok());
        // The spawn returned after the exec, so a `process_group(0)` is in place by now.
        let leads_group = to_pid(pid).is_some_and(|p| rustix::process::getpgid(Some(p)) == Ok(p));
        OwnedChild {
            identity: ProcessIdentity::capture(pid),
            child,
            pidfd,
            exited: None,
            leads_group,
        }
    }

    /// True when it leads a process group of its own (see [`OwnedChild::signal`]).
    pub fn leads_group(&self) -> bool {
        self.leads_group
    }

    /// Whether it has exited, leaving it unreaped (`WNOWAIT`); `None` when it cannot be waited
    /// for (reaped elsewhere).
    fn peek_exited(&self) -> Option<bool> {
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        let id = match (&self.pidfd, to_pid(self.id())) {
            (Some(fd), _) => WaitId::PidFd(fd.as_fd()),
            (None, Some(pid)) => WaitId::Pid(pid),
            (None, None) => return None,
        };
        rustix::process::waitid(id, options)
            .ok()
            .map(|s| s.is_some())
    }

    /// Its pid.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Its identity, taken at spawn (`None` where `/proc` is unreadable).
    pub fn identity(&self) -> Option<&ProcessIdentity> {
        self.identity.as_ref()
    }

    /// Reaps it if it has exited, without waiting: `Some(status)` once exited (`Some(None)`
    /// when the status is unknown because it was reaped elsewhere).
    pub fn try_wait(&mut self) -> Option<Option<ExitStatus>> {
        if self.exited.is_none() {
            if self.leads_group {
                match self.peek_exited() {
                    Some(false) => return None,
                    Some(true) => {
                        // What is left of its group (helpers, a wrapper's children) dies with
                        // it, while the exited leader still pins the group id.
                        if let Some(pid) = to_pid(self.id()) {
                            let _ = rustix::process::kill_process_group(
                                pid,
                                rustix::process::Signal::KILL,
                            );
                        }
                    }
                    None => {}
                }
            }
            match self.child.try_wait() {
                Ok(Some(status)) => self.exited = Some(Some(status)),
                Ok(None) => {}
                // ECHILD: someone reaped it behind our back; it is gone all the same.
                Err(_) => self.exited = Some(None),
            }
        }
        self.exited
    }

    /// True once reaped (through this handle, or found reaped elsewhere): from then on its pid
    /// may belong to another process.
    pub fn is_reaped(&self) -> bool {
        self.exited.is_some()
    }

    /// True while it has not exited.
    pub fn is_running(&mut self) -> bool {
        self.try_wait().is_none()
    }

    /// Sends `signal` (through the pidfd, or `kill(2)`: an unreaped child's pid is pinned); to
    /// its whole process group when it leads one of its own (the unreaped leader pins the group
    /// id too).
    pub fn signal(&mut self, signal: Signal) -> Result<(), CdpError> {
        if !self.is_running() {
            return Ok(());
        }
        let result = match (&self.pidfd, to_pid(self.id())) {
            (_, Some(pid)) if self.leads_group => {
                rustix::process::kill_process_group(pid, signal.raw())
            }
            (Some(fd), _) => rustix::process::pidfd_send_signal(fd, signal.raw()),
            (None, Some(pid)) => rustix::process::kill_process(pid, signal.raw()),
            (None, None) => return Ok(()),
        };
        match result {
            Ok(()) | Err(Errno::SRCH) => Ok(()),
            Err(e) => Err(CdpError::Io(e.into())),
        }
    }

    /// Waits up to `timeout` for it to exit and reaps it; true once exited. Blocks the thread.
    pub fn wait_blocking(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if !self.is_running() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
    }

    /// SIGTERM, up to `grace` to exit, then SIGKILL and up to [`KILL_WAIT`]; reaps it. True
    /// once it has exited. Blocks the thread.
    pub fn terminate_blocking(&mut self, grace: Duration) -> bool {
        if !self.is_running() {
            return true;
        }
        let _ = self.signal(Signal::Terminate);
        if self.wait_blocking(grace) {
            return true;
        }
        let _ = self.signal(Signal::Kill);
        self.wait_blocking(KILL_WAIT)
    }

    /// Gives the std handle back (e.g. to let the process run on unobserved).
    pub fn into_inner(self) -> Child {
        self.child
    }
}

/// Effective uid 0.
pub fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let text = "4242 (we (ird) name) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 50";
        assert_eq!(
            parse_stat(text),
            Some(Stat {
                state: 'S',
                ppid: 17,
                start_time: 987654
            })
        );
        assert_eq!(parse_stat("1 (x) Z 1"), None);
        assert_eq!(parse_stat(""), None);
    }

    #[test]
    fn our_own_identity_is_running_and_a_forged_one_is_not() {
        let me = ProcessIdentity::capture(std::process::id()).expect("own identity");
        assert_eq!(me.status(), ProcessStatus::Running);
        let reused = ProcessIdentity {
            start_time: me.start_time + 1,
            ..me.clone()
        };
        assert_eq!(reused.status(), ProcessStatus::NotOurs(Mismatch::PidReused));
        let rebooted = ProcessIdentity {
            boot_id: "another-boot".into(),
            ..me.clone()
        };
        assert_eq!(
            rebooted.status(),
            ProcessStatus::NotOurs(Mismatch::OtherBoot)
        );
        let other_profile = me.with_user_data_dir("/nonexistent/profile");
        assert_eq!(
            other_profile.status(),
            ProcessStatus::NotOurs(Mismatch::OtherProfile)
        );
    }
}
