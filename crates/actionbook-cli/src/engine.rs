//! The engine: every session and tab of a home, and [`Engine::execute`], which runs one typed
//! [`Request`] and answers with its [`Envelope`]. Usable in-process (a Rust program, an MCP server)
//! or served by the daemon.
//!
//! Concurrency: the session table and each session's durable record sit behind short std locks that
//! are never held across `.await`. Work that must not interleave is queued on async FIFO queues:
//! one per tab (every tab-level command), one per session for structural changes (new/close tab,
//! restart, close), one per session for (re)connecting, and one for creating sessions.

use std::sync::Arc;
use std::time::Instant;

use envelope::Envelope;
use serde::{Deserialize, Serialize};

use crate::commands::{Command, Cx};
use crate::deadline::Deadline;
use crate::error::Result;
use crate::model::ClientEnv;
use crate::store::Home;
use crate::tab::Sessions;

/// One command sent to the engine: the typed command, its timeout and the caller's environment.
/// This is also what the daemon's wire carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The command and its request.
    pub command: Command,
    /// `--timeout` in milliseconds (default [`crate::deadline::DEFAULT_TIMEOUT_MS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The caller's environment (filled by the CLI from its own process).
    #[serde(default)]
    pub env: ClientEnv,
}

impl Request {
    /// A request for `command` with the default timeout and no client environment.
    pub fn new(command: impl Into<Command>) -> Request {
        Request {
            command: command.into(),
            timeout_ms: None,
            env: ClientEnv::default(),
        }
    }

    /// The same request with `--timeout` set.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Request {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// The same request with this client environment.
    #[must_use]
    pub fn with_env(mut self, env: ClientEnv) -> Request {
        self.env = env;
        self
    }
}

/// Configuration of an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// `$ACTIONBOOK_HOME`.
    pub home: Home,
}

/// The engine: every session and tab, every command. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Engine {
    sessions: Arc<Sessions>,
    /// Set once what commands cut off by an earlier engine's death left was settled (before the
    /// first command runs).
    recovered: Arc<tokio::sync::OnceCell<()>>,
}

impl Engine {
    /// An engine over `config.home`, loading the sessions recorded there (re-attaching lazily).
    pub fn new(config: EngineConfig) -> Result<Engine> {
        Ok(Engine {
            sessions: Arc::new(Sessions::open(config.home)?),
            recovered: Arc::new(tokio::sync::OnceCell::new()),
        })
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        self.sessions.home()
    }

    /// Runs one command and returns its envelope (never panics on bad input; errors become
    /// envelopes).
    pub async fn execute(&self, request: Request) -> Envelope {
        let started = Instant::now();
        self.recover().await;
        let deadline = Deadline::new(request.timeout_ms);
        let cx = Cx {
            sessions: &self.sessions,
            deadline: &deadline,
            env: &request.env,
        };
        let env = request.command.dispatch(&cx).await;
        env.with_duration_ms(started.elapsed().as_millis() as u64)
    }

    /// Settles what structural commands of an earlier engine that died midway left behind
    /// (`commands::lifecycle::recover`); runs once, before the first command (later calls wait for
    /// it or return at once).
    pub async fn recover(&self) {
        self.recovered
            .get_or_init(|| crate::commands::lifecycle::recover(&self.sessions))
            .await;
    }

    /// Closes the sessions whose record was deleted from the home (`browser close` each, at once,
    /// each within `timeout_ms`): no later engine could find their browsers again.
    pub async fn close_unrecorded(&self, timeout_ms: u64) {
        let unrecorded = self
            .sessions
            .all()
            .into_iter()
            .filter(|slot| !slot.record_file().exists());
        let closing = unrecorded.map(|slot| {
            let close = crate::commands::lifecycle::Close {
                target: crate::model::SessionTarget::new(slot.id.clone()),
                // A removed home: nothing of it is wanted.
                purge: true,
            };
            self.execute(Request::new(close).with_timeout_ms(timeout_ms))
        });
        futures::future::join_all(closing).await;
    }

    /// Forgets every live connection without closing any browser (daemon shutdown).
    pub fn detach_all(&self) {
        self.sessions.detach_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::{lifecycle, observation};
    use crate::model::TabTarget;

    #[tokio::test]
    async fn engine_runs_typed_commands_in_process_without_a_daemon() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let engine = Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        })?;
        let env = engine
            .execute(Request::new(lifecycle::ListSessions {}))
            .await;
        assert!(env.ok());
        assert!(env.to_text().starts_with("0 sessions"));
        let env = engine
            .execute(
                Request::new(observation::Title {
                    target: TabTarget::new("nope", "t1"),
                })
                .with_timeout_ms(1000),
            )
            .await;
        assert!(!env.ok());
        assert_eq!(
            env.error().map(|e| e.code),
            Some(envelope::ErrorCode::SessionNotFound)
        );
        Ok(())
    }
}
