//! [`Request`]: one typed command with its timeout and the caller's environment, as the engine
//! runs it and the daemon's wire carries it.

use serde::{Deserialize, Serialize};

use super::Command;
use crate::model::ClientEnv;

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
    /// `--confirm <token>`: the token of a `CONFIRMATION_REQUIRED` answer, which lets exactly
    /// the command that answer described run, once (the session's `--confirm-actions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<String>,
}

impl Request {
    /// A request for `command` with the default timeout and no client environment.
    pub fn new(command: impl Into<Command>) -> Request {
        Request {
            command: command.into(),
            timeout_ms: None,
            env: ClientEnv::default(),
            confirm: None,
        }
    }

    /// The same request with `--timeout` set.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Request {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Its timeout: `--timeout`, else the command's own default (an agent loop's is minutes;
    /// [`super::extension::Extension::default_timeout_ms`]), else none (the engine's default).
    pub fn timeout_or_default(&self) -> Option<u64> {
        self.timeout_ms.or_else(|| match &self.command {
            Command::Extended(call) => {
                super::extension::extension(call.name).and_then(|e| e.default_timeout_ms())
            }
            _ => None,
        })
    }

    /// The same request with `--confirm <token>`.
    #[must_use]
    pub fn with_confirm(mut self, token: impl Into<String>) -> Request {
        self.confirm = Some(token.into());
        self
    }

    /// The same request with this client environment.
    #[must_use]
    pub fn with_env(mut self, env: ClientEnv) -> Request {
        self.env = env;
        self
    }
}
