//! The crate's error type: what can go wrong when reading envelopes and names back.

/// Everything that can go wrong in this crate.
///
/// Building and rendering envelopes cannot fail; only parsing text back into
/// typed values can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A string is not one of the normalised command names.
    #[error("unknown command name '{name}'")]
    UnknownCommand {
        /// The string that was given.
        name: String,
    },
    /// A string is not one of the error codes.
    #[error("unknown error code '{code}'")]
    UnknownErrorCode {
        /// The string that was given.
        code: String,
    },
    /// The JSON text is not an envelope, or its `data` does not fit its `command`.
    #[error("invalid envelope json")]
    Json(#[source] serde_json::Error),
}
