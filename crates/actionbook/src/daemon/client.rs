//! The CLI side of the socket: send one request, start (or replace) the daemon when needed.
//!
//! Blocking std I/O on purpose: the client is a short-lived process and needs no runtime.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::daemon::wire::{
    self, ClientFrame, Control, ControlFrame, DaemonFrame, PROTOCOL_VERSION,
};
use crate::deadline::DEFAULT_TIMEOUT_MS;
use crate::engine::Request;
use crate::error::{CliError, Result};
use crate::store::{Home, HomeLock};

/// How long to wait for a freshly spawned daemon to accept connections.
const SPAWN_WAIT: Duration = Duration::from_secs(15);
/// How long a restarting daemon may take to exit beyond the time its commands in flight need.
const RESTART_WAIT: Duration = Duration::from_secs(5);
/// How long a stopped daemon may take to let go of its home beyond the time its commands in
/// flight need (it closes the sessions whose records are gone, within 10 s, before it exits).
const STOP_WAIT: Duration = Duration::from_secs(20);

/// The daemon's answer to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The envelope's JSON, or its text rendering when that was asked for.
    pub body: String,
    /// Whether the command succeeded.
    pub ok: bool,
    /// The process exit status.
    pub exit_code: u8,
    /// The error code of a failed command.
    pub code: Option<envelope::ErrorCode>,
}

/// The `error.code` of an envelope's JSON.
fn error_code(envelope: &str) -> Option<envelope::ErrorCode> {
    #[derive(serde::Deserialize)]
    struct Failed {
        error: Option<Code>,
    }
    #[derive(serde::Deserialize)]
    struct Code {
        code: envelope::ErrorCode,
    }
    serde_json::from_str::<Failed>(envelope)
        .ok()?
        .error
        .map(|e| e.code)
}

/// Hangs up a [`send_cancellable`] call from another thread: its connection is shut down, which
/// the daemon takes for a client gone (a read or a wait stops, other commands finish unread).
#[derive(Debug, Clone, Default)]
pub struct HangUp(Arc<Mutex<HangUpState>>);

#[derive(Debug, Default)]
struct HangUpState {
    hung_up: bool,
    stream: Option<UnixStream>,
}

impl HangUp {
    /// Ends the call: its connection now, or the one it would open.
    pub fn hang_up(&self) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.hung_up = true;
        if let Some(stream) = state.stream.take() {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Keeps a handle on the call's new connection; false when the call is already hung up.
    fn watch(&self, stream: &UnixStream) -> bool {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        state.stream = stream.try_clone().ok();
        !state.hung_up
    }

    fn is_hung_up(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .hung_up
    }
}

/// What a failure without the daemon's answer reports of the command sent (taken before the
/// command is lowered into its request): its context as addressed, `retryable` only when
/// retrying is safe for it, the time the client waited.
#[derive(Debug, Clone)]
pub struct Unanswered {
    name: envelope::CommandName,
    traits: crate::model::CommandTraits,
    context: Option<envelope::Context>,
    at: Instant,
}

impl Unanswered {
    /// The command about to be sent, now.
    pub fn of(command: &crate::commands::Command) -> Unanswered {
        Unanswered {
            name: command.name(),
            traits: command.spec().traits,
            context: command.addressed(),
            at: Instant::now(),
        }
    }

    /// The envelope of the command failing with `err` (not reached, or gone while it ran).
    pub fn envelope(&self, err: &CliError) -> envelope::Envelope {
        let ms = u64::try_from(self.at.elapsed().as_millis()).unwrap_or(u64::MAX);
        crate::reply::failure_of(self.name, self.traits, self.context.clone(), err)
            .with_duration_ms(ms)
    }
}

/// Sends `request` to the daemon of `home` (starting it when needed) and returns its reply: the
/// envelope's text rendering when `text`, else its JSON.
pub fn send(home: &Home, request: Request, text: bool) -> Result<Reply> {
    send_cancellable(home, request, text, &HangUp::default())
}

/// [`send`], which `hang_up` can end from another thread (then an error, whatever the daemon did).
pub fn send_cancellable(
    home: &Home,
    request: Request,
    text: bool,
    hang_up: &HangUp,
) -> Result<Reply> {
    send_with_progress(home, request, text, hang_up, None)
}

/// [`send_cancellable`], handing the command's progress lines (an agent loop's steps) to
/// `progress` as they come.
pub fn send_with_progress(
    home: &Home,
    request: Request,
    text: bool,
    hang_up: &HangUp,
    progress: Option<&dyn Fn(&str)>,
) -> Result<Reply> {
    let hung_up = || CliError::DaemonLost {
        detail: "the call was hung up".to_string(),
    };
    home.ensure()?;
    let build = wire::build_id();
    let timeout_ms = request.timeout_or_default().unwrap_or(DEFAULT_TIMEOUT_MS);
    let frame = ClientFrame {
        v: PROTOCOL_VERSION,
        build: build.clone(),
        request,
        text,
        progress: progress.is_some(),
    };
    let mut restarts = 0;
    let mut resets = 0;
    loop {
        let mut stream = connect_or_spawn(home)?;
        if !hang_up.watch(&stream) {
            return Err(hung_up());
        }
        // The daemon answers within the command's own timeout; leave room for launch and teardown.
        let read_limit = Duration::from_millis(timeout_ms) + Duration::from_secs(30);
        stream.set_read_timeout(Some(read_limit))?;
        stream.set_write_timeout(Some(Duration::from_secs(10)))?;
        // A daemon that dies while we connect (its last thread still holding the socket) resets the
        // connection without having read the request: retrying cannot run the command twice.
        let sent = wire::write_frame(&mut stream, &frame);
        let answer = sent.and_then(|()| {
            loop {
                match wire::read_frame::<DaemonFrame>(&mut stream) {
                    Ok(DaemonFrame::Progress { line }) => {
                        if let Some(p) = progress {
                            p(&line);
                        }
                    }
                    other => break other,
                }
            }
        });
        if answer.is_err() && hang_up.is_hung_up() {
            return Err(hung_up());
        }
        if let Err(e) = &answer
            && matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
            )
            && resets < 3
        {
            resets += 1;
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let answer: DaemonFrame = answer.map_err(|e| {
            // The request may have reached the daemon: what it did is unknown.
            let detail = if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) {
                format!("no answer within {} ms", read_limit.as_millis())
            } else {
                format!("the daemon closed the connection: {e}")
            };
            CliError::DaemonLost { detail }
        })?;
        match answer {
            DaemonFrame::Reply {
                envelope,
                text,
                ok,
                exit_code,
            } => {
                let code = if ok { None } else { error_code(&envelope) };
                return Ok(Reply {
                    body: text.unwrap_or(envelope),
                    ok,
                    exit_code,
                    code,
                });
            }
            // Read past above: never here (and never a reason to send the command again).
            DaemonFrame::Progress { .. } => {
                return Err(CliError::Daemon(
                    "a progress line in place of the reply".into(),
                ));
            }
            DaemonFrame::Restart {
                build: theirs,
                drain_ms,
            } => {
                restarts += 1;
                if restarts > 3 {
                    return Err(CliError::Daemon(format!(
                        "the daemon keeps reporting build {theirs}, this client is {build}"
                    )));
                }
                // The old daemon exits on its own once its commands in flight are done; wait
                // until its socket stops answering.
                let until = Instant::now() + Duration::from_millis(drain_ms) + RESTART_WAIT;
                while Instant::now() < until && UnixStream::connect(home.socket()).is_ok() {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }
}

/// The daemon of a home, as [`status`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaemonState {
    /// A daemon answers on the home's socket; its pid when known.
    Serving(Option<u32>),
    /// The home is held (an exiting daemon, or a program running the engine in its own process),
    /// but nothing answers on its socket.
    Held(Option<u32>),
    /// No daemon.
    Stopped,
}

/// Whether a daemon serves `home` (its pid from the home's lock).
pub fn status(home: &Home) -> DaemonState {
    let holder = HomeLock::holder(home);
    match (UnixStream::connect(home.socket()).is_ok(), holder) {
        (true, pid) => DaemonState::Serving(pid.flatten()),
        (false, Some(pid)) => DaemonState::Held(pid),
        (false, None) => DaemonState::Stopped,
    }
}

/// Stops the daemon of `home`: it runs no new command, lets those in flight finish (bounded by
/// their deadlines) and exits; sessions stay on disk with their browsers running, for the next
/// daemon. Returns the state found before (`Stopped`: there was nothing to stop), once the
/// daemon's process has let go of the home.
pub fn stop(home: &Home) -> Result<DaemonState> {
    let before = status(home);
    let drain_ms = match before {
        DaemonState::Stopped => return Ok(before),
        // An exiting daemon: waited for below.
        DaemonState::Held(_) => 0,
        DaemonState::Serving(_) => {
            // Gone since it answered: only its exit is left to wait for.
            let Ok(mut stream) = UnixStream::connect(home.socket()) else {
                return wait_released(home, 0).map(|()| before);
            };
            stream.set_read_timeout(Some(Duration::from_secs(10)))?;
            stream.set_write_timeout(Some(Duration::from_secs(10)))?;
            let frame = ControlFrame {
                v: PROTOCOL_VERSION,
                build: wire::build_id(),
                control: Control::Stop,
            };
            wire::write_frame(&mut stream, &frame)?;
            match wire::read_frame::<DaemonFrame>(&mut stream) {
                Ok(DaemonFrame::Restart { drain_ms, .. }) => drain_ms,
                Ok(DaemonFrame::Reply { .. } | DaemonFrame::Progress { .. }) => {
                    return Err(CliError::Daemon(
                        "the daemon answered a stop with a command's reply".into(),
                    ));
                }
                // Gone already (it was exiting as we asked).
                Err(_) => 0,
            }
        }
    };
    wait_released(home, drain_ms)?;
    Ok(before)
}

/// Waits until no process holds `home` (a stopped daemon finishes its commands in flight, at most
/// `drain_ms`, then closes what it must and lets go), at most `drain_ms` + [`STOP_WAIT`].
fn wait_released(home: &Home, drain_ms: u64) -> Result<()> {
    let until = Instant::now() + Duration::from_millis(drain_ms) + STOP_WAIT;
    while HomeLock::holder(home).is_some() {
        if Instant::now() >= until {
            let pid = match HomeLock::holder(home).flatten() {
                Some(p) => format!("process {p}"),
                None => "another process".to_string(),
            };
            return Err(CliError::Daemon(format!(
                "{pid} still holds {} after {} ms: it is not a daemon that stops when asked \
                 (a program running the engine itself), or it is stuck; see {}",
                home.root().display(),
                (Duration::from_millis(drain_ms) + STOP_WAIT).as_millis(),
                home.file("daemon.log").display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// Starts the daemon of `home` unless one serves; its pid.
pub fn start(home: &Home) -> Result<Option<u32>> {
    home.ensure()?;
    drop(connect_or_spawn(home)?);
    Ok(HomeLock::holder(home).flatten())
}

fn connect_or_spawn(home: &Home) -> Result<UnixStream> {
    if let Ok(s) = UnixStream::connect(home.socket()) {
        return Ok(s);
    }
    let started = Instant::now();
    let mut last_spawn: Option<Instant> = None;
    loop {
        if last_spawn.is_none_or(|t| t.elapsed() > Duration::from_millis(1500)) {
            spawn_daemon(home)?;
            last_spawn = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(10));
        match UnixStream::connect(home.socket()) {
            Ok(s) => return Ok(s),
            Err(e) if started.elapsed() > SPAWN_WAIT => {
                return Err(CliError::Daemon(format!(
                    "cannot reach the daemon at {} after starting it ({e}); see {}",
                    home.socket().display(),
                    home.file("daemon.log").display()
                )));
            }
            Err(_) => {}
        }
    }
}

/// glibc malloc settings for the long-lived daemon, each unless the user set it (`is_set`).
/// A snapshot of a large page allocates many MiB of short-lived response text and trees; with
/// the default dynamic mmap threshold those land in the heap and stay in RSS after they are freed
/// (a 20k-element page: ~70 MB instead of ~35 MB). A fixed threshold returns big blocks to the
/// system on free; two arenas keep the few worker threads from each holding freed memory.
fn daemon_malloc_env(is_set: impl Fn(&str) -> bool) -> Vec<(&'static str, &'static str)> {
    [
        ("MALLOC_ARENA_MAX", "2"),
        ("MALLOC_MMAP_THRESHOLD_", "131072"),
    ]
    .into_iter()
    .filter(|(name, _)| !is_set(name))
    .collect()
}

/// Starts `<this binary> __daemon` detached: no inherited stdio, output to `daemon.log`, working
/// directory `/` (it would otherwise pin the first client's directory, e.g. keep a mount busy;
/// requests carry absolute paths and the client's cwd). It starts a session of its own
/// ([`super::server::run`]), which it can only while it leads no process group, so it is not
/// given one here. A second daemon started concurrently exits at once (see [`super::server`]).
fn spawn_daemon(home: &Home) -> Result<()> {
    let exe = std::env::current_exe()?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(home.file("daemon.log"))?;
    let log2 = log.try_clone()?;
    let mut cmd = Command::new(exe);
    for (name, value) in daemon_malloc_env(|n| std::env::var_os(n).is_some()) {
        cmd.env(name, value);
    }
    cmd.arg("__daemon")
        .env("ACTIONBOOK_HOME", home.root())
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log2))
        .current_dir("/")
        .spawn()
        .map_err(|e| CliError::Daemon(format!("cannot start the daemon: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daemon_malloc_env_respects_what_the_user_set() {
        let all = daemon_malloc_env(|_| false);
        assert!(all.contains(&("MALLOC_ARENA_MAX", "2")));
        assert!(all.contains(&("MALLOC_MMAP_THRESHOLD_", "131072")));
        let some = daemon_malloc_env(|n| n == "MALLOC_ARENA_MAX");
        assert_eq!(some, vec![("MALLOC_MMAP_THRESHOLD_", "131072")]);
    }
}
