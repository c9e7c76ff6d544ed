//! The daemon: serves the [`Engine`] on `$ACTIONBOOK_HOME/daemon.sock`.
//!
//! One daemon per home. Exclusivity comes from the engine's lock on the home (an `flock` the kernel
//! releases however the process dies, even `kill -9`; no abstract socket name another user could
//! take first), so two daemons started at once never both serve. Browsers are not children in spirit: they run in their own process group
//! and outlive the daemon; a new daemon re-attaches from the state on disk.
//!
//! Restarting (a client of another build or protocol connected, or one asked it to stop with
//! [`wire::Control::Stop`]): the daemon answers it
//! [`DaemonFrame::Restart`], starts draining (every later request is answered the same way),
//! lets the commands in flight finish, bounded by their deadlines, and then exits; the client
//! waits for that and starts a new daemon of its own build.
//!
//! A daemon whose socket file was deleted or replaced exits within `SOCKET_CHECK` (no client can
//! reach it); before that it closes the sessions whose records were deleted too (a removed home).

use std::os::unix::fs::PermissionsExt;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use envelope::CommandName;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Notify;

use crate::commands::extension::Asker;
use crate::daemon::wire::{self, ClientFrame, Control, DaemonFrame, FrameHeader, RequestName};
use crate::deadline::DEFAULT_TIMEOUT_MS;
use crate::engine::{Engine, EngineConfig};
use crate::error::{CliError, Result};
use crate::reply;
use crate::store::{self, Home};

/// How long a client may take to send its request after connecting.
const REQUEST_WAIT: Duration = Duration::from_secs(10);
/// A draining daemon waits this much longer than the latest deadline in flight (launching a
/// browser is not bounded by `--timeout`, closing one takes its own time).
const DRAIN_GRACE: Duration = Duration::from_secs(15);
/// How long a new daemon waits for the lock of one that is exiting.
const LOCK_WAIT: Duration = Duration::from_secs(5);
/// How often the daemon checks that its socket is still the one clients find.
const SOCKET_CHECK: Duration = Duration::from_secs(2);
/// Closing the sessions whose records were deleted (no daemon could re-attach to them).
const ORPHAN_CLOSE_MS: u64 = 10_000;

/// Leaves the session of the client that started the daemon for one of its own, as daemons do:
/// no terminal's hangup or job control reaches it or the browsers it starts, and where the
/// kernel groups the scheduler by session (autogroup), its browsers get their own share of the CPU
/// instead of splitting the starting terminal's with whatever else runs there (a build, a test
/// run: under two busy loops in that terminal, a click on a 20k-element page waited 20-28 ms for
/// the page's re-render instead of 11-17). A daemon run by hand as a process group's leader
/// cannot, and stays where it is.
fn detach_session() {
    if let Err(e) = rustix::process::setsid() {
        eprintln!("actionbook daemon: staying in the starting session ({e})");
    }
}

/// Runs the daemon in the foreground until it is told to stop, idles out, or restarts for a client
/// of another build.
pub fn run(home: Home) -> ExitCode {
    detach_session();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Deep async call chains (debug builds especially) need more than the 2 MiB default;
        // untouched stack pages cost no memory.
        .thread_stack_size(16 << 20)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("actionbook daemon: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(serve(home)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("actionbook daemon: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The engine, once it holds the home's lock ([`crate::store::HomeLock`]); `None` when another
/// daemon serves (or an exiting one still holds the lock after [`LOCK_WAIT`]).
async fn take_home(home: &Home) -> Result<Option<Engine>> {
    let until = Instant::now() + LOCK_WAIT;
    loop {
        match Engine::new(EngineConfig { home: home.clone() }) {
            Ok(engine) => return Ok(Some(engine)),
            Err(CliError::HomeInUse { .. }) => {
                // Serving: leave it be. Exiting (its socket no longer answers): wait for it.
                if std::os::unix::net::UnixStream::connect(home.socket()).is_ok()
                    || Instant::now() >= until
                {
                    return Ok(None);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The commands in flight and whether the daemon drains.
#[derive(Debug, Default)]
struct Drain {
    state: Mutex<DrainState>,
    /// A command ended, or draining started.
    changed: Notify,
}

#[derive(Debug, Default)]
struct DrainState {
    in_flight: usize,
    /// The latest deadline among the commands in flight.
    latest: Option<Instant>,
    draining: bool,
}

/// A command in flight; dropping it ends it.
struct InFlight<'a>(&'a Drain);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.in_flight -= 1;
        if s.in_flight == 0 {
            s.latest = None;
        }
        drop(s);
        self.0.changed.notify_one();
    }
}

impl Drain {
    fn lock(&self) -> std::sync::MutexGuard<'_, DrainState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Registers a command that must be done by `deadline`; `None` when draining (run nothing new).
    fn enter(&self, deadline: Instant) -> Option<InFlight<'_>> {
        let mut s = self.lock();
        if s.draining {
            return None;
        }
        s.in_flight += 1;
        s.latest = Some(s.latest.map_or(deadline, |l| l.max(deadline)));
        Some(InFlight(self))
    }

    /// Starts draining.
    fn start(&self) {
        self.lock().draining = true;
        self.changed.notify_one();
    }

    fn left(&self, s: &DrainState) -> Duration {
        match s.latest {
            Some(l) if s.in_flight > 0 => l.saturating_duration_since(Instant::now()) + DRAIN_GRACE,
            _ => Duration::ZERO,
        }
    }

    /// `(draining, commands in flight, time they may still take)`.
    fn status(&self) -> (bool, usize, Duration) {
        let s = self.lock();
        (s.draining, s.in_flight, self.left(&s))
    }
}

async fn serve(home: Home) -> Result<()> {
    home.ensure()?;
    // Exclusivity: the engine's flock on the home, which the kernel drops with its process.
    let Some(engine) = take_home(&home).await? else {
        return Ok(()); // another daemon serves
    };
    // The pid file before the socket: a client may connect (and `daemon restart` answer) as soon
    // as the socket is bound, and must find the pid of the daemon behind it.
    let pid = std::process::id();
    store::write_atomic(&home.file("daemon.pid"), pid.to_string().as_bytes())?;
    let sock = home.socket();
    home.ensure_socket_dir()?;
    match std::fs::remove_file(&sock) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    let listener = UnixListener::bind(&sock)?;
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))?;
    let bound = SocketFile::of(&sock)?;
    let build = wire::build_id();
    store::write_atomic(&home.file("daemon.version"), build.as_bytes())?;
    // Settle what a daemon that died mid-command left, before (and while) clients connect: their
    // commands wait for it.
    tokio::spawn({
        let engine = engine.clone();
        async move { engine.recover().await }
    });

    let stop = Arc::new(Notify::new());
    let drain = Arc::new(Drain::default());
    let idle = idle_timeout();

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    // Ignore hangups: the daemon outlives the terminal that started it.
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;

    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut drain_until: Option<tokio::time::Instant> = None;
    let mut socket_check = tokio::time::interval(SOCKET_CHECK);
    socket_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // When the daemon idles out: a deadline moved by clients, not a sleep made anew on every turn
    // of the loop (the socket check's tick every 2 s restarted it, so no daemon ever idled out).
    let mut idle_at = idle.map(|d| tokio::time::Instant::now() + d);
    loop {
        let idle_sleep = async {
            match idle_at {
                Some(t) if drain_until.is_none() => tokio::time::sleep_until(t).await,
                _ => std::future::pending().await,
            }
        };
        let drain_over = async {
            match drain_until {
                Some(t) => tokio::time::sleep_until(t).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                idle_at = idle.map(|d| tokio::time::Instant::now() + d);
                let engine = engine.clone();
                let build = build.clone();
                let active = active.clone();
                let drain = drain.clone();
                active.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Err(e) = handle(stream, &engine, &build, &drain).await {
                        eprintln!("actionbook daemon: connection: {e}");
                    }
                    active.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
            _ = drain.changed.notified() => {
                let (draining, in_flight, left) = drain.status();
                if draining {
                    if in_flight == 0 {
                        break;
                    }
                    drain_until.get_or_insert_with(|| tokio::time::Instant::now() + left);
                }
            }
            _ = drain_over => {
                eprintln!("actionbook daemon: restarting with commands still in flight");
                break;
            }
            _ = stop.notified() => break,
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => {}
            _ = socket_check.tick() => {
                // No client can reach a daemon whose socket was deleted or replaced: exit
                // rather than idle unreachable.
                if SocketFile::of(&sock).ok() != Some(bound) {
                    eprintln!("actionbook daemon: {} is gone; exiting", sock.display());
                    break;
                }
            }
            _ = idle_sleep => {
                if active.load(std::sync::atomic::Ordering::SeqCst) == 0 && !engine.has_sessions() {
                    break;
                }
                // A command still runs, or a session is open: idle counts again from now.
                idle_at = idle.map(|d| tokio::time::Instant::now() + d);
            }
        }
    }
    drop(listener);
    // Sessions whose records were deleted with the home: no daemon could re-attach to them.
    engine.close_unrecorded(ORPHAN_CLOSE_MS).await;
    // Leave the browsers running; the next daemon re-attaches from disk.
    engine.detach_all();
    if std::fs::read_to_string(home.file("daemon.pid"))
        .ok()
        .as_deref()
        == Some(pid.to_string().as_str())
    {
        let _ = std::fs::remove_file(&sock);
        let _ = std::fs::remove_file(home.file("daemon.pid"));
    }
    Ok(())
}

/// The identity of the socket file (device and inode): a new file at the same path is another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SocketFile {
    dev: u64,
    ino: u64,
}

impl SocketFile {
    fn of(path: &std::path::Path) -> std::io::Result<SocketFile> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path)?;
        Ok(SocketFile {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

fn idle_timeout() -> Option<Duration> {
    let secs = std::env::var("ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1800);
    (secs > 0).then(|| Duration::from_secs(secs))
}

async fn restart(stream: &mut UnixStream, build: &str, left: Duration) -> Result<()> {
    let frame = DaemonFrame::Restart {
        build: build.to_string(),
        drain_ms: left.as_millis() as u64,
    };
    wire::write_frame_async(stream, &frame).await?;
    Ok(())
}

async fn handle(mut stream: UnixStream, engine: &Engine, build: &str, drain: &Drain) -> Result<()> {
    let body = match tokio::time::timeout(REQUEST_WAIT, wire::read_body_async(&mut stream)).await {
        Err(_) => return Err(CliError::Daemon("client sent no request".into())),
        // A client that connected only to see whether the daemon answers.
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
        Ok(r) => r?,
    };
    // The version first: a client of another build may send requests this one does not know.
    let header: FrameHeader = wire::decode(&body).unwrap_or_default();
    // A client of another build, or one asking this daemon to stop, drains it the same way.
    if !header.is_same_build(build) || header.control == Some(Control::Stop) {
        // Answered before draining starts, so a daemon with nothing in flight cannot exit first.
        let (_, _, left) = drain.status();
        let written = restart(&mut stream, build, left).await;
        drain.start();
        return written;
    }
    let frame = match wire::decode::<ClientFrame>(&body) {
        Ok(f) => f,
        Err(e) => {
            let err = CliError::Daemon(format!("cannot decode the request: {e}"));
            let named = wire::decode::<RequestName>(&body).ok();
            let name = named.as_ref().map(|n| n.request.command.command.as_str());
            let reply = match name.and_then(|n| n.parse::<CommandName>().ok()) {
                Some(known) => DaemonFrame::reply(&reply::failure(known, None, &err), header.text),
                None => {
                    let json = reply::unknown_command_json(name.unwrap_or("unknown"), &err);
                    let env = reply::failure(CommandName::Help, None, &err);
                    match header.text {
                        true => DaemonFrame::reply(&env, true),
                        false => DaemonFrame::Reply {
                            envelope: json,
                            text: None,
                            ok: false,
                            exit_code: env.exit_code(),
                        },
                    }
                }
            };
            wire::write_frame_async(&mut stream, &reply).await?;
            return Ok(());
        }
    };
    let timeout = frame
        .request
        .timeout_or_default()
        .unwrap_or(DEFAULT_TIMEOUT_MS);
    let Some(in_flight) = drain.enter(Instant::now() + Duration::from_millis(timeout)) else {
        let (_, _, left) = drain.status();
        return restart(&mut stream, build, left).await;
    };
    // A read or a wait whose client went away (killed, or given up on its own timeout) stops;
    // other commands finish, bounded by their --timeout.
    let cancellable = crate::commands::CommandSpec::of(frame.request.command.name())
        .is_some_and(crate::commands::CommandSpec::stops_without_its_caller);
    let env = if cancellable {
        tokio::select! {
            env = engine.execute(frame.request) => env,
            () = client_gone(&stream) => {
                drop(in_flight);
                return Ok(());
            }
        }
    } else {
        run_for_client(&mut stream, engine, frame.request, frame.progress).await
    };
    // Never a dropped connection: a reply too large for one frame is answered as a failure.
    let written = match wire::encode_reply(&env, frame.text) {
        Ok(bytes) => {
            use tokio::io::AsyncWriteExt;
            async {
                stream.write_all(&bytes).await?;
                stream.flush().await
            }
            .await
        }
        Err(e) => Err(e),
    };
    drop(in_flight);
    written?;
    Ok(())
}

/// Runs a command that finishes whatever its client does (one that stops when asked is asked
/// once the client is gone, and stops at its next safe point), sending its progress lines to
/// the client as they come when it asked for them.
async fn run_for_client(
    stream: &mut UnixStream,
    engine: &Engine,
    request: crate::engine::Request,
    progress: bool,
) -> envelope::Envelope {
    use tokio::io::AsyncWriteExt;
    let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    let asker = match progress {
        true => Asker::with_progress(move |line| {
            let _ = tx.send(line.to_string());
        }),
        false => Asker::default(),
    };
    let (reader, mut writer) = stream.split();
    let run = engine.execute_until_gone(request, &asker, reader_gone(reader));
    tokio::pin!(run);
    // Progress is best effort: a client that cannot take a line loses it, never the reply.
    let send = |line: String| {
        let frame = DaemonFrame::Progress { line };
        wire::encode(&frame).ok()
    };
    loop {
        tokio::select! {
            env = &mut run => {
                while let Ok(line) = lines.try_recv() {
                    if let Some(bytes) = send(line) {
                        let _ = writer.write_all(&bytes).await;
                    }
                }
                return env;
            }
            Some(line) = lines.recv() => {
                if let Some(bytes) = send(line) {
                    let _ = writer.write_all(&bytes).await;
                }
            }
        }
    }
}

/// Resolves when the client closed its end of `reader` (it sends nothing after its request).
async fn reader_gone(mut reader: tokio::net::unix::ReadHalf<'_>) {
    use tokio::io::AsyncReadExt;
    let mut buf = [0u8; 64];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {} // stray bytes: not a close
        }
    }
}

/// Resolves when the client closed its end (it sends nothing after its request).
async fn client_gone(stream: &UnixStream) {
    let mut buf = [0u8; 64];
    loop {
        if stream.readable().await.is_err() {
            return;
        }
        match stream.try_read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {} // stray bytes: not a close
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draining_refuses_new_commands_and_waits_for_the_ones_in_flight() {
        let drain = Drain::default();
        let soon = Instant::now() + Duration::from_secs(2);
        let first = drain.enter(soon);
        assert!(first.is_some());
        drain.start();
        let (draining, in_flight, left) = drain.status();
        assert!(draining);
        assert_eq!(in_flight, 1);
        assert!(left > DRAIN_GRACE && left <= DRAIN_GRACE + Duration::from_secs(2));
        assert!(
            drain.enter(soon).is_none(),
            "a draining daemon runs nothing new"
        );
        drop(first);
        let (draining, in_flight, left) = drain.status();
        assert!(draining);
        assert_eq!((in_flight, left), (0, Duration::ZERO));
    }
}
