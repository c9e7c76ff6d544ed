//! [`ApiError`]: a failed command with its envelope's error kept whole, or an answer the handle
//! could not read.

use envelope::{CommandName, Envelope, ErrorCode, ErrorInfo};

/// Why a handle's call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// The engine answered the command with an error: its envelope's code, message, hint,
    /// details and whether retrying may help.
    #[error("{command}: {code}: {message}")]
    Command {
        /// The command that failed.
        command: CommandName,
        /// The envelope's error code (`ELEMENT_NOT_FOUND`, `TIMEOUT`, ...).
        code: ErrorCode,
        /// The envelope's message.
        message: String,
        /// The envelope's hint, if any.
        hint: Option<String>,
        /// The envelope's structured details, if any.
        details: Option<serde_json::Value>,
        /// Whether retrying unchanged may succeed.
        retryable: bool,
    },
    /// The command succeeded, but its data was not what this call reads.
    #[error("{command} answered {found}, not the {expected} this call reads")]
    UnexpectedData {
        /// The command.
        command: CommandName,
        /// The data this call reads.
        expected: &'static str,
        /// What came instead.
        found: String,
    },
    /// A value (an eval result, a document) did not decode as the type asked for.
    #[error("{command}: the answer does not decode as {type_name}: {reason}")]
    Decode {
        /// The command.
        command: CommandName,
        /// The Rust type asked for.
        type_name: &'static str,
        /// serde's reason.
        reason: String,
    },
    /// A file the command wrote (a screenshot, a snapshot's text) could not be read.
    #[error("{command}: cannot read {path}: {reason}")]
    Artifact {
        /// The command.
        command: CommandName,
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

impl ApiError {
    /// The envelope's error code, for a command the engine answered with an error.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ApiError::Command { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Whether retrying unchanged may succeed (false for an answer this handle could not read).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ApiError::Command {
                retryable: true,
                ..
            }
        )
    }

    /// The error of a failed envelope.
    pub(crate) fn of(command: CommandName, info: &ErrorInfo) -> ApiError {
        ApiError::Command {
            command,
            code: info.code,
            message: info.message.clone(),
            hint: info.hint.clone(),
            details: info.details.clone(),
            retryable: info.retryable,
        }
    }

    /// An envelope without the data `expected`.
    pub(crate) fn unexpected(env: &Envelope, expected: &'static str) -> ApiError {
        ApiError::UnexpectedData {
            command: env.command(),
            expected,
            found: match env.data() {
                Some(d) => format!("{:?} data", d.kind()),
                None => "no data".to_string(),
            },
        }
    }
}

/// The result of a handle's call.
pub type ApiResult<T> = std::result::Result<T, ApiError>;
