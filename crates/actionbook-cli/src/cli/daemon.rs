//! `daemon status | stop | restart`: the home's daemon itself, run in the asking process (the
//! daemon cannot answer for its own stop). Sessions outlive the daemon: their browsers keep
//! running and the next daemon re-attaches them from disk.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use envelope::{CommandName, RenderText, TextBody};
use serde::Serialize;

use super::print::print;
use actionbook::daemon::client::{self, DaemonState};
use actionbook::error::Result;
use actionbook::reply;
use actionbook::store::Home;

/// `actionbook daemon ...`.
#[derive(Debug, Clone, Args)]
pub struct DaemonArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DaemonAction,
}

/// The daemon's subcommands.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum DaemonAction {
    /// Whether the daemon of this home ($ACTIONBOOK_HOME) runs, and its pid.
    #[command(after_help = "Example:\n  actionbook daemon status --json")]
    Status,
    /// Stop the daemon: commands in flight finish first; sessions and their browsers stay, and
    /// the next command starts a daemon that takes them up again.
    #[command(after_help = "Example:\n  actionbook daemon stop")]
    Stop,
    /// Stop the daemon and start a new one at once (sessions and their browsers stay).
    #[command(after_help = "Example:\n  actionbook daemon restart")]
    Restart,
}

/// What `daemon status|stop|restart` answers.
#[derive(Debug, Clone, Serialize)]
struct DaemonData {
    /// `running` or `stopped`, after the command.
    status: &'static str,
    /// The daemon's pid, when one runs (after a restart: the new one's).
    pid: Option<u32>,
    /// The pid of the daemon a stop or restart ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_pid: Option<u32>,
    /// The home it serves.
    home: String,
}

impl RenderText for DaemonData {
    fn is_action(&self) -> bool {
        false
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("status", self.status);
        if let Some(pid) = self.pid {
            body.field("pid", pid);
        }
        if let Some(pid) = self.previous_pid {
            body.field("previous_pid", pid);
        }
        body.field("home", &self.home);
    }
}

/// Runs a `daemon` subcommand here and prints its envelope.
pub(super) fn run(args: &DaemonArgs, json: bool) -> ExitCode {
    let started = std::time::Instant::now();
    let name = match args.action {
        DaemonAction::Status => CommandName::DaemonStatus,
        DaemonAction::Stop => CommandName::DaemonStop,
        DaemonAction::Restart => CommandName::DaemonRestart,
    };
    let env = match Home::from_env().and_then(|home| act(args.action, &home)) {
        Ok((data, warnings)) => match envelope::Document::new(&data) {
            Ok(doc) => reply::success(name, None, doc, warnings),
            Err(e) => reply::failure(
                name,
                None,
                &actionbook::error::CliError::internal(e.to_string()),
            ),
        },
        Err(e) => reply::failure(name, None, &e),
    };
    print(
        &env.with_duration_ms(started.elapsed().as_millis() as u64),
        None,
        json,
    )
}

fn act(action: DaemonAction, home: &Home) -> Result<(DaemonData, Vec<String>)> {
    let root = home.root().display().to_string();
    let mut warnings = Vec::new();
    let data = match action {
        DaemonAction::Status => match client::status(home) {
            DaemonState::Serving(pid) => DaemonData {
                status: "running",
                pid,
                previous_pid: None,
                home: root,
            },
            DaemonState::Held(pid) => {
                warnings.push(
                    "the home is held by a process that does not answer on its socket (a daemon \
                     exiting, or a program running the engine itself)"
                        .to_string(),
                );
                DaemonData {
                    status: "running",
                    pid,
                    previous_pid: None,
                    home: root,
                }
            }
            DaemonState::Stopped => DaemonData {
                status: "stopped",
                pid: None,
                previous_pid: None,
                home: root,
            },
        },
        DaemonAction::Stop | DaemonAction::Restart => {
            let before = client::stop(home)?;
            let previous_pid = match before {
                DaemonState::Serving(pid) | DaemonState::Held(pid) => pid,
                DaemonState::Stopped => {
                    warnings.push("no daemon was running".to_string());
                    None
                }
            };
            match action {
                DaemonAction::Restart => DaemonData {
                    status: "running",
                    pid: client::start(home)?,
                    previous_pid,
                    home: root,
                },
                _ => DaemonData {
                    status: "stopped",
                    pid: None,
                    previous_pid,
                    home: root,
                },
            }
        }
    };
    Ok((data, warnings))
}
