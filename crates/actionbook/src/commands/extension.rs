//! Commands that join the table from a crate above the engine (the agent layer's `perform`, `ai`,
//! `extract`), without the engine importing that crate.
//!
//! A crate implements [`Extension`] (its row, its CLI arguments, its handler) and calls
//! [`register`] once at start (the binary before it parses arguments, the daemon before it
//! serves). From then on the command is everywhere the table is: `Command::from_json` decodes
//! it (as `Command::Extended`), [`all_commands`] lists it (help, MCP tools, batch checks), the
//! clap tree has it, and [`crate::Engine::execute`] runs it. Its handler composes the engine's
//! own commands through the [`CommandRunner`] it is handed: never a private path around them.
//!
//! An extension runs outside the tab queue (its commands queue there one by one), so a long agent
//! loop never blocks the tab for other callers between its steps.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use envelope::{CommandName, Envelope};
use serde::{Deserialize, Serialize};

use super::{COMMANDS, CommandSpec, Request};
use crate::deadline::Deadline;
use crate::model::ClientEnv;
use crate::store::Home;

/// Runs the engine's commands for an extension's handler (the engine implements it).
#[async_trait::async_trait]
pub trait CommandRunner: Send + Sync {
    /// Runs one command and answers its envelope, as [`crate::Engine::execute`].
    async fn run(&self, request: Request) -> Envelope;
}

/// The asker's side of a running extension command: a wish to stop it, and where its progress
/// lines go. Cheap to clone; a default one never stops and drops its progress.
#[derive(Clone, Default)]
pub struct Asker {
    stop: Arc<tokio::sync::watch::Sender<bool>>,
    progress: Option<Arc<ProgressSink>>,
}

/// Where a command's progress lines go.
type ProgressSink = dyn Fn(&str) + Send + Sync;

impl fmt::Debug for Asker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asker")
            .field("stop_asked", &self.stop_asked())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Asker {
    /// An asker whose progress lines go to `progress`.
    pub fn with_progress(progress: impl Fn(&str) + Send + Sync + 'static) -> Asker {
        Asker {
            progress: Some(Arc::new(progress)),
            ..Asker::default()
        }
    }

    /// Asks the command to stop at its next safe point (an agent loop: between actions, or its
    /// model call dropped); it answers what it did up to there.
    pub fn ask_stop(&self) {
        self.stop.send_replace(true);
    }

    /// Whether a stop was asked.
    pub fn stop_asked(&self) -> bool {
        *self.stop.borrow()
    }

    /// Resolves once a stop is asked (at once if it was).
    pub async fn stopped(&self) {
        let mut rx = self.stop.subscribe();
        // An error: the sender is gone, which cannot be while `self` holds it.
        let _ = rx.wait_for(|asked| *asked).await;
    }

    /// Reports one line of progress (a step of an agent loop) to whoever asked.
    pub fn progress(&self, line: &str) {
        if let Some(p) = &self.progress {
            p(line);
        }
    }
}

/// What an extension's handler gets: the runner, its request's JSON, its deadline and the
/// caller's environment.
pub struct ExtensionCall<'a> {
    /// Runs the engine's commands.
    pub runner: &'a dyn CommandRunner,
    /// The request as sent (`args` of the wire form), not yet checked by the extension.
    pub args: serde_json::Value,
    /// The command's deadline (`--timeout`).
    pub deadline: &'a Deadline,
    /// The caller's environment.
    pub env: &'a ClientEnv,
    /// The engine's home (`$ACTIONBOOK_HOME`: `config.toml`, caches).
    pub home: &'a Home,
    /// Whoever asked: a stop, progress.
    pub asker: &'a Asker,
}

impl fmt::Debug for ExtensionCall<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtensionCall")
            .field("args", &self.args)
            .field("deadline", self.deadline)
            .finish_non_exhaustive()
    }
}

/// A command of a crate above the engine.
#[async_trait::async_trait]
pub trait Extension: Send + Sync + fmt::Debug {
    /// Its row: name (one of [`CommandName`]'s), traits, help, the schema of its request.
    fn spec(&self) -> &'static CommandSpec;

    /// Adds its arguments to its clap subcommand (the binary's tree).
    #[cfg(feature = "cli")]
    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        cmd
    }

    /// Reads its request's JSON out of the parsed arguments.
    #[cfg(feature = "cli")]
    fn args_from_matches(
        &self,
        matches: &mut clap::ArgMatches,
    ) -> std::result::Result<serde_json::Value, clap::Error> {
        let _ = matches;
        Ok(serde_json::Value::Object(serde_json::Map::new()))
    }

    /// Its timeout when the caller gives none (else the engine's 30 s).
    fn default_timeout_ms(&self) -> Option<u64> {
        None
    }

    /// Runs the command.
    async fn run(&self, call: ExtensionCall<'_>) -> Envelope;
}

/// The registered extensions (a process-wide list: the clap tree and the wire decoding have no
/// engine at hand). Read far more than written; never held across `.await`.
static REGISTRY: RwLock<Vec<Arc<dyn Extension>>> = RwLock::new(Vec::new());

/// Registers an extension; a name already in the table or registered is left as it was
/// (`false`).
pub fn register(extension: Arc<dyn Extension>) -> bool {
    let name = extension.spec().name;
    if COMMANDS.iter().any(|c| c.name == name) {
        return false;
    }
    let mut list = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    if list.iter().any(|e| e.spec().name == name) {
        return false;
    }
    list.push(extension);
    true
}

/// The extension registered for `name`.
pub fn extension(name: CommandName) -> Option<Arc<dyn Extension>> {
    let list = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
    list.iter().find(|e| e.spec().name == name).cloned()
}

/// Every registered extension, in registration order.
pub fn extensions() -> Vec<Arc<dyn Extension>> {
    REGISTRY
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Every command: the table's rows, then the registered extensions'.
pub fn all_commands() -> Vec<&'static CommandSpec> {
    COMMANDS
        .iter()
        .chain(extensions().iter().map(|e| e.spec()))
        .collect()
}

/// A command of a registered extension, as decoded from the wire: its name and its request's
/// JSON (the extension decodes it when it runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtendedCommand {
    /// The command.
    pub name: CommandName,
    /// Its request.
    pub args: serde_json::Value,
}
