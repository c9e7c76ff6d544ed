//! Error codes: the machine-readable `error.code` of a failed envelope.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Error;

/// The `error.code` of a failed command, written in SCREAMING_SNAKE_CASE on the wire.
///
/// The first thirteen variants are the spec's recommended codes (section 3.2). The
/// rest are the few the implementation needs that the spec does not list; each says
/// why. Codes the reference CLI uses that the spec already covers are *not* added:
///
/// | reference code | use instead |
/// |---|---|
/// | `REF_NOT_FOUND` (unknown `@eN`) | [`ErrorCode::ElementNotFound`] with `details.selector` = the ref |
/// | `JS_EXCEPTION`, `EVAL_RUNTIME_ERROR` | [`ErrorCode::EvalFailed`] |
/// | `INVALID_SESSION_ID` | [`ErrorCode::InvalidArgument`] |
/// | `SESSION_PROFILE_MISMATCH` | [`ErrorCode::SessionAlreadyExists`] |
///
/// Each code has a default [`retryable`](ErrorCode::retryable) flag and a process
/// [`exit_code`](ErrorCode::exit_code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// `INVALID_ARGUMENT`: an argument is missing, malformed or out of its domain
    /// (also used for command-line parse errors).
    InvalidArgument,
    /// `SESSION_NOT_FOUND`: no session has the given id.
    SessionNotFound,
    /// `TAB_NOT_FOUND`: the session has no tab with the given id.
    TabNotFound,
    /// `FRAME_NOT_FOUND`: the frame does not exist (or was detached).
    FrameNotFound,
    /// `ELEMENT_NOT_FOUND`: no element matches the selector, XPath or ref.
    ElementNotFound,
    /// `MULTIPLE_MATCHES`: `query one` matched more than one element.
    MultipleMatches,
    /// `INDEX_OUT_OF_RANGE`: `query nth` index is 0 or greater than the count.
    IndexOutOfRange,
    /// `TIMEOUT`: the operation did not finish within its timeout.
    Timeout,
    /// `NAVIGATION_FAILED`: the page could not be loaded.
    NavigationFailed,
    /// `EVAL_FAILED`: the JavaScript threw or could not be compiled.
    EvalFailed,
    /// `ARTIFACT_WRITE_FAILED`: a screenshot, PDF or snapshot file could not be written.
    ArtifactWriteFailed,
    /// `UNSUPPORTED_OPERATION`: the operation is not available (in this mode or at all).
    UnsupportedOperation,
    /// `INTERNAL_ERROR`: a bug or an unexpected state; not the caller's fault.
    InternalError,
    /// `SESSION_ALREADY_EXISTS`: the session id or its browser profile is already in use
    /// (not in the spec; `browser start --set-session-id` needs it).
    SessionAlreadyExists,
    /// `BROWSER_NOT_FOUND`: no Chromium/Chrome executable could be found to launch
    /// (not in the spec; `browser start` in local mode needs it).
    BrowserNotFound,
    /// `CDP_CONNECTION_FAILED`: the DevTools connection could not be made or was lost
    /// (not in the spec; used by the reference CLI).
    CdpConnectionFailed,
    /// `STALE_ELEMENT`: the element was found but detached before the action ran
    /// (not in the spec; distinguishes a race from a wrong selector).
    StaleElement,
    /// `API_ERROR`: the actionbook API behind `search` / `get` failed or was unreachable
    /// (not in the spec; used by the reference CLI).
    ApiError,
    /// `BATCH_CLICK_ERROR`: a click of `browser batch-click` failed; the clicks before it were
    /// done (not in the spec; the reference CLI's, with `details.completed`/`failed_index`).
    BatchClickError,
    /// `BATCH_OPEN_ERROR`: some URLs of `browser batch-new-tab` did not load; the others did
    /// (not in the spec; the reference CLI's, with `details` per URL).
    BatchOpenError,
    /// `DOWNLOAD_FAILED`: the download waited for was canceled or interrupted (not in the spec;
    /// `browser wait download` needs it: the wait did not time out, the file will never come).
    DownloadFailed,
    /// `HAR_NOT_RECORDING`: `network har stop` with no HAR recording running in the tab (not in
    /// the spec, which has no HAR; the reference CLI's).
    HarNotRecording,
    /// `HAR_ALREADY_RECORDING`: `network har start` while one runs in the tab (not in the spec,
    /// which has no HAR; the reference CLI's).
    HarAlreadyRecording,
    /// `ACCESS_DENIED`: the session's rules refuse it: a host outside `--allowed-domains`, or a
    /// command in `--deny-actions` (not in the spec, which has no such rules; agent-browser's name).
    AccessDenied,
    /// `CONFIRMATION_REQUIRED`: the command is in the session's `--confirm-actions`; it did not run,
    /// and runs when repeated with the token in `details` (not in the spec, which has no policy).
    ConfirmationRequired,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidArgument,
        ErrorCode::SessionNotFound,
        ErrorCode::TabNotFound,
        ErrorCode::FrameNotFound,
        ErrorCode::ElementNotFound,
        ErrorCode::MultipleMatches,
        ErrorCode::IndexOutOfRange,
        ErrorCode::Timeout,
        ErrorCode::NavigationFailed,
        ErrorCode::EvalFailed,
        ErrorCode::ArtifactWriteFailed,
        ErrorCode::UnsupportedOperation,
        ErrorCode::InternalError,
        ErrorCode::SessionAlreadyExists,
        ErrorCode::BrowserNotFound,
        ErrorCode::CdpConnectionFailed,
        ErrorCode::StaleElement,
        ErrorCode::ApiError,
        ErrorCode::BatchClickError,
        ErrorCode::BatchOpenError,
        ErrorCode::DownloadFailed,
        ErrorCode::HarNotRecording,
        ErrorCode::HarAlreadyRecording,
        ErrorCode::AccessDenied,
        ErrorCode::ConfirmationRequired,
    ];

    /// The wire string, e.g. `"ELEMENT_NOT_FOUND"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::SessionNotFound => "SESSION_NOT_FOUND",
            ErrorCode::TabNotFound => "TAB_NOT_FOUND",
            ErrorCode::FrameNotFound => "FRAME_NOT_FOUND",
            ErrorCode::ElementNotFound => "ELEMENT_NOT_FOUND",
            ErrorCode::MultipleMatches => "MULTIPLE_MATCHES",
            ErrorCode::IndexOutOfRange => "INDEX_OUT_OF_RANGE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::NavigationFailed => "NAVIGATION_FAILED",
            ErrorCode::EvalFailed => "EVAL_FAILED",
            ErrorCode::ArtifactWriteFailed => "ARTIFACT_WRITE_FAILED",
            ErrorCode::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::SessionAlreadyExists => "SESSION_ALREADY_EXISTS",
            ErrorCode::BrowserNotFound => "BROWSER_NOT_FOUND",
            ErrorCode::CdpConnectionFailed => "CDP_CONNECTION_FAILED",
            ErrorCode::StaleElement => "STALE_ELEMENT",
            ErrorCode::ApiError => "API_ERROR",
            ErrorCode::BatchClickError => "BATCH_CLICK_ERROR",
            ErrorCode::BatchOpenError => "BATCH_OPEN_ERROR",
            ErrorCode::DownloadFailed => "DOWNLOAD_FAILED",
            ErrorCode::HarNotRecording => "HAR_NOT_RECORDING",
            ErrorCode::HarAlreadyRecording => "HAR_ALREADY_RECORDING",
            ErrorCode::AccessDenied => "ACCESS_DENIED",
            ErrorCode::ConfirmationRequired => "CONFIRMATION_REQUIRED",
        }
    }

    /// Whether running the same command again, unchanged, may succeed.
    ///
    /// This is the default for [`ErrorInfo::retryable`](crate::ErrorInfo::retryable);
    /// a producer may override it for a particular failure. Transient conditions
    /// (timeouts, lost connections, navigation and API failures, elements detached
    /// mid-action) are retryable; everything that needs different input or a
    /// different state is not.
    pub const fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::Timeout
                | ErrorCode::NavigationFailed
                | ErrorCode::CdpConnectionFailed
                | ErrorCode::StaleElement
                | ErrorCode::ApiError
        )
    }

    /// The process exit status for a command that failed with this code.
    ///
    /// `2` for [`ErrorCode::InvalidArgument`] (a usage error: the command line must
    /// change, as for the reference CLI's argument-parse errors), `1` for every other
    /// code. A successful command exits `0` (see [`Envelope::exit_code`](crate::Envelope::exit_code)).
    pub const fn exit_code(self) -> u8 {
        match self {
            ErrorCode::InvalidArgument => EXIT_USAGE,
            _ => EXIT_FAILURE,
        }
    }
}

/// Exit status of a successful command.
pub const EXIT_SUCCESS: u8 = 0;
/// Exit status of a command that ran and failed.
pub const EXIT_FAILURE: u8 = 1;
/// Exit status of a usage error (invalid arguments).
pub const EXIT_USAGE: u8 = 2;

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ErrorCode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| Error::UnknownErrorCode { code: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_string_matches_as_str_for_every_code() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(code.as_str().parse::<ErrorCode>().unwrap(), *code);
        }
    }

    #[test]
    fn only_invalid_argument_is_a_usage_error() {
        for code in ErrorCode::ALL {
            let want = if *code == ErrorCode::InvalidArgument {
                2
            } else {
                1
            };
            assert_eq!(code.exit_code(), want, "{code}");
        }
    }

    #[test]
    fn timeout_is_retryable_and_element_not_found_is_not() {
        assert!(ErrorCode::Timeout.retryable());
        assert!(!ErrorCode::ElementNotFound.retryable());
        assert!(!ErrorCode::MultipleMatches.retryable());
    }

    #[test]
    fn unknown_code_is_an_error() {
        assert!("REF_NOT_FOUND".parse::<ErrorCode>().is_err());
    }
}
