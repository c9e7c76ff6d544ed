//! An opt-in timing trace of every CDP call, for finding where a command's time goes.
//!
//! Set `CDP_TRACE=<file>` in the environment of the process that owns the connection (for the
//! CLI: the daemon) and each call appends one line when it ends:
//! `<start ms since the first traced call> <duration ms> <method> <session or -> <ok|err> <reply bytes>`.
//! Only method names and sizes are written, never parameters or results (they may hold page
//! text, cookies or credentials). Off (one relaxed check per call) when the variable is unset.

use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::ids::SessionId;

/// The trace file and the instant lines are measured from; `None` when tracing is off.
static TRACE: OnceLock<Option<(Mutex<File>, Instant)>> = OnceLock::new();

fn sink() -> Option<&'static (Mutex<File>, Instant)> {
    TRACE
        .get_or_init(|| {
            let path = std::env::var_os("CDP_TRACE")?;
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()?;
            Some((Mutex::new(file), Instant::now()))
        })
        .as_ref()
}

/// Whether calls are traced (checked once per call, before timing it).
pub(crate) fn enabled() -> bool {
    sink().is_some()
}

/// Appends the line of one finished call.
pub(crate) fn record(
    started: Instant,
    method: &str,
    session: Option<&SessionId>,
    ok: bool,
    reply_bytes: usize,
) {
    let Some((file, origin)) = sink() else {
        return;
    };
    let at = started.saturating_duration_since(*origin);
    let took: Duration = started.elapsed();
    let line = format!(
        "{:.3} {:.3} {method} {} {} {reply_bytes}\n",
        at.as_secs_f64() * 1e3,
        took.as_secs_f64() * 1e3,
        session.map_or("-", |s| s.as_str()),
        if ok { "ok" } else { "err" },
    );
    // A small append to a local file: not worth a blocking-pool hop on a debugging path.
    if let Ok(mut f) = file.lock() {
        let _ = f.write_all(line.as_bytes());
    }
}
