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

use crate::commands::Cx;
pub use crate::commands::Request;
use crate::commands::extension::{self, Asker, CommandRunner, ExtendedCommand, ExtensionCall};
use crate::deadline::Deadline;
use crate::error::CliError;
use crate::error::Result;
use crate::model::ClientEnv;
use crate::store::Home;
use crate::tab::Sessions;

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
    /// Each session's secrets, in memory only.
    secrets: Arc<crate::session_secrets::SessionSecrets>,
    /// The confirmation tokens given out (`--confirm-actions`), in memory only.
    confirmations: Arc<crate::action_policy::Confirmations>,
}

impl Engine {
    /// An engine over `config.home`, loading the sessions recorded there (re-attaching lazily).
    pub fn new(config: EngineConfig) -> Result<Engine> {
        Ok(Engine {
            sessions: Arc::new(Sessions::open(config.home)?),
            recovered: Arc::new(tokio::sync::OnceCell::new()),
            secrets: Arc::default(),
            confirmations: Arc::default(),
        })
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        self.sessions.home()
    }

    /// Runs one command and returns its envelope (never panics on bad input; errors become
    /// envelopes).
    pub async fn execute(&self, request: Request) -> Envelope {
        self.execute_for(request, &Asker::default()).await
    }

    /// [`Engine::execute`] for `asker`: a command that [stops when
    /// asked](crate::CommandTraits::stops_when_asked) stops at its next safe point once the asker
    /// asks, and reports its progress to it.
    pub async fn execute_for(&self, mut request: Request, asker: &Asker) -> Envelope {
        let started = Instant::now();
        self.recover().await;
        // The session's policy first, on the request as written (`<<name>>` unresolved): a
        // refused or unconfirmed command goes no further.
        let gate =
            crate::action_policy::gate(&mut request, &self.sessions, &self.confirmations).await;
        let note = match gate {
            crate::action_policy::Gate::Run(note) => note,
            crate::action_policy::Gate::Answer(env) => {
                let session = request.command.addressed().map(|c| c.session_id);
                let secrets = session
                    .map(|s| self.secrets.of(&s))
                    .unwrap_or_default()
                    .merged(&request.env.secrets);
                return secrets
                    .mask_envelope(*env)
                    .with_duration_ms(started.elapsed().as_millis() as u64);
            }
        };
        // Secrets in, and masked out of the answer: the one pass every answer takes.
        let prepared = match crate::session_secrets::prepare(&mut request, &self.secrets).await {
            Ok(p) => p,
            Err(env) => return env.with_duration_ms(started.elapsed().as_millis() as u64),
        };
        let mut env = self.execute_prepared(request, asker).await;
        if let Some(note) = note {
            env = env.with_warning(note);
        }
        if env.ok()
            && env.command() == envelope::CommandName::BrowserClose
            && let Some(c) = env.context()
        {
            self.confirmations.forget(&c.session_id);
        }
        crate::session_secrets::finish(env, prepared, &self.secrets)
            .with_duration_ms(started.elapsed().as_millis() as u64)
    }

    async fn execute_prepared(&self, request: Request, asker: &Asker) -> Envelope {
        let started = Instant::now();
        let deadline = Deadline::new(request.timeout_or_default());
        if let crate::commands::Command::Extended(call) = request.command {
            let env = self
                .run_extension(call, &deadline, &request.env, asker)
                .await;
            return env.with_duration_ms(started.elapsed().as_millis() as u64);
        }
        let cx = Cx {
            sessions: &self.sessions,
            deadline: &deadline,
            env: &request.env,
        };
        let env = request.command.dispatch(&cx).await;
        env.with_duration_ms(started.elapsed().as_millis() as u64)
    }

    /// Runs a registered extension's command, handing it this engine to run its commands on.
    async fn run_extension(
        &self,
        call: ExtendedCommand,
        deadline: &Deadline,
        env: &ClientEnv,
        asker: &Asker,
    ) -> Envelope {
        let Some(extension) = extension::extension(call.name) else {
            let e = CliError::internal(format!("{} is not registered in this engine", call.name));
            return crate::reply::failure(call.name, None, &e);
        };
        // Boxed: an agent loop's future is large.
        Box::pin(extension.run(ExtensionCall {
            runner: self,
            args: call.args,
            deadline,
            env,
            home: self.home(),
            asker,
        }))
        .await
    }

    /// [`Engine::execute_for`] until `gone` resolves (the caller hung up): then a command that
    /// stops when asked is asked to, and its answer (what it did up to there) still returned;
    /// other commands run to their end.
    pub async fn execute_until_gone(
        &self,
        request: Request,
        asker: &Asker,
        gone: impl Future<Output = ()>,
    ) -> Envelope {
        let run = self.execute_for(request, asker);
        tokio::pin!(run);
        tokio::select! {
            env = &mut run => return env,
            () = gone => asker.ask_stop(),
        }
        run.await
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

    /// Whether any session is open in the home (an idle daemon with one stays: its request log,
    /// console buffers and HAR captures live only here).
    pub fn has_sessions(&self) -> bool {
        !self.sessions.all().is_empty()
    }

    /// Forgets every live connection without closing any browser (daemon shutdown).
    pub fn detach_all(&self) {
        self.sessions.detach_all();
    }
}

#[async_trait::async_trait]
impl CommandRunner for Engine {
    async fn run(&self, request: Request) -> Envelope {
        self.execute(request).await
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
