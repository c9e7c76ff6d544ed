//! [`Backend`]: where a handle's requests run. The in-process [`Engine`] and the per-user daemon
//! ([`Daemon`], the one the CLI talks to) implement it, so the same handles drive either.
//!
//! Cancel-safety: a request, once sent, runs to its end (or its deadline) whatever the caller
//! does. In process it runs on a task of its own (dropping the caller's future would otherwise
//! stop it between two CDP calls, a mouse button pressed and never released); through the daemon
//! the blocking call finishes on its thread and the daemon runs the command to its end.

use std::fmt;
use std::path::PathBuf;

use envelope::Envelope;

use crate::daemon::client::{self, HangUp, Spawn, Unanswered};
use crate::engine::{Engine, Request};
use crate::error::CliError;
use crate::store::Home;

/// Runs requests and answers their envelopes: the one seam between the handles and an engine.
#[async_trait::async_trait]
pub trait Backend: Send + Sync + fmt::Debug {
    /// Runs `request` to its end and answers its envelope (a failure to reach the engine is a
    /// failed envelope too). Dropping the future does not stop the command.
    async fn execute(&self, request: Request) -> Envelope;
}

#[async_trait::async_trait]
impl Backend for Engine {
    async fn execute(&self, request: Request) -> Envelope {
        let unanswered = Unanswered::of(&request.command);
        let engine = self.clone();
        // A task of its own: the command finishes even when the caller's future is dropped.
        match tokio::spawn(async move { Engine::execute(&engine, request).await }).await {
            Ok(env) => env,
            Err(e) => unanswered.envelope(&CliError::internal(format!("the command's task: {e}"))),
        }
    }
}

/// The per-user daemon of a home: the sessions the CLI sees, shared with it.
#[derive(Debug, Clone)]
pub struct Daemon {
    home: Home,
    spawn: Spawn,
}

impl Daemon {
    /// The daemon serving `home`; a call fails (`INTERNAL_ERROR`, saying so) when none does.
    pub fn attach(home: Home) -> Daemon {
        Daemon {
            home,
            spawn: Spawn::Never,
        }
    }

    /// The daemon of `home`, started from the `actionbook` binary at `executable` when none
    /// serves it (as the CLI starts it).
    pub fn start_with(home: Home, executable: impl Into<PathBuf>) -> Daemon {
        Daemon {
            home,
            spawn: Spawn::Executable(executable.into()),
        }
    }

    /// Its home.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The build this client speaks as. A daemon restarts for a client of another build (the
    /// CLI's rebuilt binary), which this program is always (its executable is not the CLI's): so
    /// it speaks as the serving daemon's build when that is this crate's version (the same
    /// requests), as its own executable's when it starts one, and refuses another version rather
    /// than make the CLI's daemon exit.
    fn build(&self) -> Result<String, CliError> {
        if let Spawn::Executable(exe) = &self.spawn
            && !matches!(client::status(&self.home), client::DaemonState::Serving(_))
        {
            return Ok(crate::daemon::wire::build_id_of(exe));
        }
        let ours = env!("CARGO_PKG_VERSION");
        match client::serving_build(&self.home) {
            Some(theirs) if theirs.split('+').next() == Some(ours) => Ok(theirs),
            Some(theirs) => Err(CliError::Daemon(format!(
                "the daemon of {} is build {theirs}, this program links actionbook {ours}: \
                 use the CLI of the same version, or an in-process engine",
                self.home.root().display()
            ))),
            // None serves (or it is starting): the call says so, or starts one.
            None => Ok(crate::daemon::wire::build_id()),
        }
    }
}

#[async_trait::async_trait]
impl Backend for Daemon {
    async fn execute(&self, request: Request) -> Envelope {
        let unanswered = Unanswered::of(&request.command);
        let build = match self.build() {
            Ok(b) => b,
            Err(e) => return unanswered.envelope(&e),
        };
        let (home, spawn) = (self.home.clone(), self.spawn.clone());
        // Never hung up: a dropped future leaves the call to finish on its thread, so the daemon
        // runs the command to its end rather than stopping a read or wait halfway.
        let sent = tokio::task::spawn_blocking(move || {
            client::send_via(
                &home,
                request,
                false,
                &HangUp::default(),
                None,
                &spawn,
                build,
            )
        })
        .await;
        let reply = match sent {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => return unanswered.envelope(&e),
            Err(e) => {
                return unanswered.envelope(&CliError::internal(format!("the daemon call: {e}")));
            }
        };
        Envelope::from_json(&reply.body).unwrap_or_else(|e| {
            unanswered.envelope(&CliError::internal(format!(
                "the daemon's answer is unreadable: {e}"
            )))
        })
    }
}
