//! The daemon: serves the [`Engine`] on `$ACTIONBOOK_HOME/daemon.sock`.
//!
//! One daemon per home. Exclusivity comes from binding a Linux abstract socket named after the home
//! (released by the kernel however the process dies, even `kill -9`), so two daemons started at
//! once never both serve. Browsers are not children in spirit: they run in their own process group
//! and outlive the daemon; a new daemon re-attaches from the state on disk.

use std::hash::{Hash, Hasher};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Notify;

use crate::engine::{Engine, EngineConfig};
use crate::error::{CliError, Result};
use crate::ipc::{self, ClientFrame, DaemonFrame, PROTOCOL_VERSION};
use crate::state::{self, Home};

/// Runs the daemon in the foreground until it is told to stop, idles out, or meets a newer client.
pub fn run(home: Home) -> ExitCode {
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

fn lock_name(home: &Home) -> String {
    let mut h = std::hash::DefaultHasher::new();
    let canonical =
        std::fs::canonicalize(home.root()).unwrap_or_else(|_| home.root().to_path_buf());
    canonical.hash(&mut h);
    format!("actionbook-daemon-{:016x}", h.finish())
}

async fn serve(home: Home) -> Result<()> {
    home.ensure()?;
    // Exclusivity: an abstract socket cannot be bound twice and vanishes with its process.
    let addr = SocketAddr::from_abstract_name(lock_name(&home).as_bytes())?;
    let _lock = match std::os::unix::net::UnixListener::bind_addr(&addr) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => return Ok(()), // another daemon serves
        Err(e) => return Err(e.into()),
    };
    let sock = home.socket();
    match std::fs::remove_file(&sock) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    let listener = UnixListener::bind(&sock)?;
    std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o600))?;
    let pid = std::process::id();
    state::write_atomic(&home.file("daemon.pid"), pid.to_string().as_bytes())?;
    let build = ipc::build_id();
    state::write_atomic(&home.file("daemon.version"), build.as_bytes())?;

    let engine = Engine::new(EngineConfig { home: home.clone() })?;
    let stop = Arc::new(Notify::new());
    let idle = idle_timeout();

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    // Ignore hangups: the daemon outlives the terminal that started it.
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;

    let active = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    loop {
        let idle_sleep = async {
            match idle {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let engine = engine.clone();
                let stop = stop.clone();
                let build = build.clone();
                let active = active.clone();
                active.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Err(e) = handle(stream, &engine, &build, &stop).await {
                        eprintln!("actionbook daemon: connection: {e}");
                    }
                    active.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
            _ = stop.notified() => break,
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => {}
            _ = idle_sleep => {
                if active.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                    break;
                }
            }
        }
    }
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

fn idle_timeout() -> Option<Duration> {
    let secs = std::env::var("ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(1800);
    (secs > 0).then(|| Duration::from_secs(secs))
}

async fn handle(mut stream: UnixStream, engine: &Engine, build: &str, stop: &Notify) -> Result<()> {
    let raw: serde_json::Value =
        tokio::time::timeout(Duration::from_secs(10), ipc::read_frame_async(&mut stream))
            .await
            .map_err(|_| CliError::Daemon("client sent no request".into()))??;
    // Check the version before decoding the request: a newer client may send commands we do not know.
    let same_build = raw["v"].as_u64() == Some(u64::from(PROTOCOL_VERSION))
        && raw["build"].as_str() == Some(build);
    if !same_build {
        ipc::write_frame_async(
            &mut stream,
            &DaemonFrame::Restart {
                build: build.to_string(),
            },
        )
        .await?;
        stop.notify_one();
        return Ok(());
    }
    let raw_text = raw["text"].as_bool();
    let frame = match serde_json::from_value::<ClientFrame>(raw) {
        Ok(f) => f,
        Err(e) => {
            let err = CliError::Daemon(format!("cannot decode the request: {e}"));
            let env = crate::output::failure("help", None, &err);
            let text = raw_text.unwrap_or(false);
            ipc::write_frame_async(&mut stream, &DaemonFrame::reply(&env, text)).await?;
            return Ok(());
        }
    };
    let env = engine.execute(frame.request).await;
    ipc::write_frame_async(&mut stream, &DaemonFrame::reply(&env, frame.text)).await?;
    Ok(())
}
