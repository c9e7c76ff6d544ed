//! `browser logs console` and `browser logs errors` (spec 10.12, 10.13): what the tab's console
//! recorder (`ConsoleLog`) kept, filtered; ids `log-N` keep growing across daemons (the highest
//! handed out is kept with the session), and a `--clear` holds across a daemon restart too.

use std::path::Path;

use envelope::{LogEntry, LogsData};
use serde::{Deserialize, Serialize};

use crate::deadline;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::reply::Done;
use crate::store::{self, artifacts};
use crate::tab::services::console::{self, ConsoleLog, Kind};
use crate::tab::{TabCommand, TabCx};

/// `browser logs console`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LogsConsole {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Only these levels (comma-separated: log, info, warn, error, debug).
    #[cfg_attr(feature = "cli", arg(long, value_name = "LEVEL[,LEVEL...]"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Only the last n entries.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
    /// Only entries after this id (`log-12`).
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Only entries whose source (script URL) contains this.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Clear the log after reading it.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub clear: bool,
}

/// `browser logs errors`: uncaught exceptions, unhandled rejections, failed loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct LogsErrors {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Only errors whose source file (script or resource URL) contains this.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Only the last n entries.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
    /// Only entries after this id (`log-12`).
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Clear the log after reading it.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub clear: bool,
}

/// What is kept with the session about a tab's logs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Cursor {
    /// The highest id number handed out.
    #[serde(default)]
    last_id: u64,
    /// `--clear` of the console log at this time (ms since the epoch).
    #[serde(default)]
    console_cleared_ms: f64,
    /// `--clear` of the error log at this time.
    #[serde(default)]
    errors_cleared_ms: f64,
}

fn load_cursor(dir: &Path, tab: &str) -> Cursor {
    std::fs::read(artifacts::logs_file(dir, tab))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

const LEVELS: &[&str] = &["log", "info", "warn", "error", "debug"];

fn levels(spec: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for l in spec.split(',').map(|l| l.trim().to_ascii_lowercase()) {
        if l.is_empty() {
            continue;
        }
        let l = match l.as_str() {
            "warning" => "warn".to_string(),
            "verbose" => "debug".to_string(),
            _ => l,
        };
        if !LEVELS.contains(&l.as_str()) {
            return Err(CliError::InvalidArgument(format!(
                "unknown log level {l:?}: expected {}",
                LEVELS.join(", ")
            )));
        }
        out.push(l);
    }
    if out.is_empty() {
        return Err(CliError::InvalidArgument("--level names no level".into()));
    }
    Ok(out)
}

fn since(id: &str) -> Result<u64> {
    id.trim()
        .strip_prefix("log-")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            CliError::InvalidArgument(format!("--since takes a log id such as log-12, not {id:?}"))
        })
}

struct Ask {
    kind: Kind,
    levels: Option<Vec<String>>,
    source: Option<String>,
    tail: Option<usize>,
    since: Option<String>,
    clear: bool,
}

async fn read_logs(cx: &mut TabCx<'_>, ask: Ask) -> Result<Done<LogsData>> {
    let after = ask.since.as_deref().map(since).transpose()?;
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    // Iframes are attached (and replay what they logged) once the frame graph tracks them.
    let g = cx.state.frames.graph(&page, &deadline).await?;
    let Some(log) = cx.state.services.get::<ConsoleLog>() else {
        return Err(CliError::internal("the tab has no console recorder"));
    };
    // A round trip to every session: what the pages logged before it is then queued.
    let sessions = log.sessions();
    futures::future::join_all(sessions.into_iter().map(|s| {
        let session = match s {
            Some(id) => page.link().session(id),
            None => page.link().browser(),
        };
        async move {
            let _ = session
                .send_timeout(&cdp_protocol::log::Enable, deadline::PROBE)
                .await;
        }
    }))
    .await;
    log.flush().await;
    let dir = cx.session.dir.clone();
    let mut cursor = load_cursor(&dir, &cx.tab_id);
    let base = log.base(|| cursor.last_id);
    let cleared_ms = match ask.kind {
        Kind::Console => cursor.console_cleared_ms,
        Kind::Errors => cursor.errors_cleared_ms,
    };
    if cleared_ms > 0.0 {
        log.forget_until(ask.kind, cleared_ms);
    }
    let filter = console::Filter {
        levels: ask.levels,
        source: ask.source,
        after: after.map(|a| a.saturating_sub(base)),
        tail: ask.tail,
        clear: ask.clear,
    };
    let read = log.read(ask.kind, &filter, |frame| {
        g.frame(&cdp_protocol::FrameId::from(frame)).map(|f| f.url)
    });
    let items: Vec<LogEntry> = read
        .entries
        .iter()
        .map(|e| LogEntry {
            id: format!("log-{}", base + e.seq),
            level: e.level.clone(),
            text: e.text.clone(),
            source: e.source.clone(),
            timestamp_ms: e.timestamp.max(0.0) as u64,
            frame_url: e.frame_url.clone(),
        })
        .collect();
    let mut changed = false;
    if base + read.last_seq > cursor.last_id {
        cursor.last_id = base + read.last_seq;
        changed = true;
    }
    if ask.clear {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0);
        match ask.kind {
            Kind::Console => cursor.console_cleared_ms = now,
            Kind::Errors => cursor.errors_cleared_ms = now,
        }
        changed = true;
    }
    if changed {
        store::write_json_off(artifacts::logs_file(&dir, &cx.tab_id), cursor.clone()).await?;
    }
    let mut done = Done::data(LogsData {
        items,
        cleared: ask.clear,
    });
    let what = match ask.kind {
        Kind::Console => "console",
        Kind::Errors => "error",
    };
    let cut: Vec<String> = read
        .entries
        .iter()
        .filter_map(|e| {
            e.cut_from
                .map(|whole| format!("log-{} ({whole} bytes)", base + e.seq))
        })
        .collect();
    if !cut.is_empty() {
        done.truncated = true;
        done.warnings.push(format!(
            "{} cut at {} KiB (a tab keeps that much of each message; read a long value with \
             browser eval): {}",
            match cut.len() {
                1 => "one message is".to_string(),
                n => format!("{n} messages are"),
            },
            console::TEXT_CAP / 1024,
            match cut.len() {
                n if n > 10 => format!("{}, and {} more", cut[..10].join(", "), n - 10),
                _ => cut.join(", "),
            }
        ));
    }
    if read.cleared_unseen > 0 {
        let n = read.cleared_unseen;
        let (them, were) = if n == 1 {
            ("entry", "was")
        } else {
            ("entries", "were")
        };
        done.warnings.push(format!(
            "--clear removed {n} {what} {them} that {were} not shown (filtered out by --level, \
             --source or --since, or older than --tail's)"
        ));
    }
    if read.dropped > 0 {
        done.warnings.push(format!(
            "{} older {what} entries were dropped since the last read (a tab keeps the latest {})",
            read.dropped,
            console::CAPACITY
        ));
    }
    if read.lost > 0 {
        done.warnings.push(format!(
            "{} console events were lost: the page logged faster than they could be recorded",
            read.lost
        ));
    }
    for what in &read.not_enabled {
        done.warnings.push(format!(
            "the log is incomplete: the browser did not start recording {what}"
        ));
    }
    Ok(done)
}

/// Each entry's message (a page writes them), one boundary each.
fn bound_logs(data: &mut LogsData, boundary: &crate::boundary::ContentBoundary) {
    for e in &mut data.items {
        e.text = boundary.wrap(&e.text);
    }
}

impl TabCommand for LogsConsole {
    type Data = LogsData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    fn bound(data: &mut LogsData, boundary: &crate::boundary::ContentBoundary) {
        bound_logs(data, boundary);
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<LogsData>> {
        let levels = self.level.as_deref().map(levels).transpose()?;
        read_logs(
            cx,
            Ask {
                kind: Kind::Console,
                levels,
                source: self.source,
                tail: self.tail,
                since: self.since,
                clear: self.clear,
            },
        )
        .await
    }
}

impl TabCommand for LogsErrors {
    type Data = LogsData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    fn bound(data: &mut LogsData, boundary: &crate::boundary::ContentBoundary) {
        bound_logs(data, boundary);
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<LogsData>> {
        read_logs(
            cx,
            Ask {
                kind: Kind::Errors,
                levels: None,
                source: self.source,
                tail: self.tail,
                since: self.since,
                clear: self.clear,
            },
        )
        .await
    }
}
