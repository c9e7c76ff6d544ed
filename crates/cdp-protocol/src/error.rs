//! The crate's error type.

use crate::ids::SessionId;
use std::time::Duration;

/// Everything that can go wrong talking to a browser.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CdpError {
    /// The browser answered the call with a protocol error.
    #[error("{method}: protocol error {code}: {message}{}", data.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Protocol {
        /// The method that failed.
        method: String,
        /// The CDP error code (e.g. -32000).
        code: i64,
        /// The CDP error message.
        message: String,
        /// Extra detail sent by the browser, if any.
        data: Option<String>,
    },
    /// No answer arrived before the deadline.
    #[error("{method}: no response after {after:?}")]
    Timeout {
        /// The method that timed out.
        method: String,
        /// How long the call waited.
        after: Duration,
    },
    /// The session detached (target closed, crashed or detached) before or while the call ran.
    #[error("session {session} is closed")]
    SessionClosed {
        /// The session that went away.
        session: SessionId,
    },
    /// The WebSocket is closed (browser exited or connection dropped).
    #[error("connection to the browser is closed")]
    ConnectionClosed,
    /// A message could not be decoded into the expected type.
    #[error("cannot decode {what}: {source}")]
    Decode {
        /// What was being decoded (method or event name).
        what: String,
        /// The underlying serde error.
        #[source]
        source: serde_json::Error,
    },
    /// The WebSocket connection (or endpoint discovery) failed.
    #[error("cannot connect to {url}: {reason}")]
    Connect {
        /// The endpoint tried, with credentials and token-like parameters redacted
        /// ([`crate::redact_url`]).
        url: String,
        /// Why it failed.
        reason: String,
    },
    /// No browser executable was found.
    #[error("no browser executable found (tried: {})", tried.join(", "))]
    BrowserNotFound {
        /// Every location tried, in order.
        tried: Vec<String>,
    },
    /// The browser exited before it became ready.
    #[error("browser {path} exited early ({status}); last stderr lines:\n{stderr_tail}")]
    BrowserExited {
        /// The executable.
        path: String,
        /// The exit status, as text.
        status: String,
        /// The last lines Chromium wrote to stderr.
        stderr_tail: String,
    },
    /// The browser could not be started or did not become ready.
    #[error("cannot launch browser {path}: {reason}")]
    Launch {
        /// The executable.
        path: String,
        /// Why it failed (includes the last stderr lines when there are any).
        reason: String,
    },
    /// An I/O error outside the WebSocket (process, files).
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// Nothing was signalled: the pid does not belong to the recorded process (any more).
    #[error("process {pid} is not the recorded process: {mismatch}")]
    NotOurProcess {
        /// The recorded pid.
        pid: u32,
        /// What differs.
        mismatch: crate::process::Mismatch,
    },
    /// The answer to this call was over the connection's message limit and was skipped unread;
    /// the connection and every other call are unaffected.
    #[error("{method}: the response is {size} bytes, over the {limit}-byte message limit")]
    MessageTooLarge {
        /// The method whose answer was too large.
        method: String,
        /// The size of the answer, in bytes.
        size: u64,
        /// The connection's limit ([`crate::ConnectOptions::max_message_size`]).
        limit: u64,
    },
    /// The call was not sent: the connection's send queue stayed full until its deadline.
    #[error("{method}: not sent, the send queue stayed full for {after:?}")]
    QueueFull {
        /// The method that was not sent.
        method: String,
        /// How long the call waited.
        after: Duration,
    },
    /// The browser was not up and connected within the launch's budget (it was killed).
    #[error("browser {path} not ready within {after:?}; last stderr lines:\n{stderr_tail}")]
    LaunchTimeout {
        /// The executable.
        path: String,
        /// The budget ([`crate::LaunchOptions::startup_timeout`]).
        after: Duration,
        /// The last lines Chromium wrote to stderr.
        stderr_tail: String,
    },
    /// Connecting (endpoint discovery, TCP, TLS and handshake) did not finish within its budget.
    #[error("cannot connect to {url}: no connection within {after:?}")]
    ConnectTimeout {
        /// The endpoint tried, with credentials and token-like parameters redacted.
        url: String,
        /// The budget.
        after: Duration,
    },
}

impl CdpError {
    /// True for the errors Chromium returns for a stale or unknown node id.
    pub fn is_node_not_found(&self) -> bool {
        match self {
            CdpError::Protocol { message, .. } => {
                message.contains("No node with given id found")
                    || message.contains("Could not find node with given id")
            }
            _ => false,
        }
    }

    /// True when the call failed because its session or the whole connection went away.
    pub fn is_closed(&self) -> bool {
        matches!(
            self,
            CdpError::SessionClosed { .. } | CdpError::ConnectionClosed
        )
    }
}
