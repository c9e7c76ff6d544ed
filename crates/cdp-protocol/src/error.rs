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
    /// What kind of failure this is: the one place that reads Chromium's error messages (CDP
    /// error codes do not tell a gone node from a bad parameter; the message is all there is).
    pub fn kind(&self) -> ErrorKind {
        match self {
            CdpError::Protocol { message, .. } => protocol_kind(message),
            CdpError::Timeout { .. } => ErrorKind::Timeout,
            CdpError::SessionClosed { .. } => ErrorKind::SessionClosed,
            CdpError::ConnectionClosed => ErrorKind::ConnectionClosed,
            CdpError::Decode { .. } => ErrorKind::Decode,
            CdpError::Connect { .. } => ErrorKind::Connect,
            CdpError::BrowserNotFound { .. } => ErrorKind::BrowserNotFound,
            CdpError::BrowserExited { .. }
            | CdpError::Launch { .. }
            | CdpError::LaunchTimeout { .. } => ErrorKind::Launch,
            CdpError::ConnectTimeout { .. } => ErrorKind::Connect,
            CdpError::Io(_) => ErrorKind::Io,
            CdpError::NotOurProcess { .. } => ErrorKind::NotOurProcess,
            CdpError::MessageTooLarge { .. } => ErrorKind::MessageTooLarge,
            CdpError::QueueFull { .. } => ErrorKind::QueueFull,
        }
    }

    /// True for the errors Chromium returns for a stale or unknown node id.
    pub fn is_node_not_found(&self) -> bool {
        self.kind() == ErrorKind::NodeNotFound
    }

    /// True when the call failed because its session or the whole connection went away.
    pub fn is_closed(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::SessionClosed | ErrorKind::ConnectionClosed
        )
    }

    /// True when the node, its document or its execution context no longer exists (the page
    /// navigated or re-rendered since the node was found).
    pub fn is_gone(&self) -> bool {
        self.kind().is_gone()
    }
}

/// What went wrong, as far as a caller needs to decide what to do ([`CdpError::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No node with the given id (or backend id) exists.
    NodeNotFound,
    /// The node exists but is no longer in its document.
    NodeDetached,
    /// The remote object (a JavaScript handle) is gone: released, or its context died.
    ObjectNotFound,
    /// The execution context was destroyed (the frame navigated or went away).
    ContextDestroyed,
    /// No target with the given id (the page or frame is closed).
    NoTarget,
    /// The session's page is no longer an active page (a navigation its busy renderer could not
    /// finish left it between documents): nothing sent on that session reaches a page.
    NoActivePage,
    /// Any other protocol error (bad parameters, method not found, ...).
    Protocol,
    /// No answer before the deadline.
    Timeout,
    /// The session detached.
    SessionClosed,
    /// The connection to the browser is closed.
    ConnectionClosed,
    /// A message did not decode into the expected type.
    Decode,
    /// Connecting to the browser failed.
    Connect,
    /// No browser executable was found.
    BrowserNotFound,
    /// The browser could not be started.
    Launch,
    /// Local I/O failed.
    Io,
    /// A recorded pid belongs to another process now: nothing was signalled.
    NotOurProcess,
    /// The answer was over the connection's message limit (the connection is fine).
    MessageTooLarge,
    /// The call was never sent (the send queue stayed full): safe to retry.
    QueueFull,
    /// Not classified.
    Other,
}

impl ErrorKind {
    /// True when the thing acted on is gone: a node, its document or its execution context.
    pub fn is_gone(self) -> bool {
        matches!(
            self,
            ErrorKind::NodeNotFound
                | ErrorKind::NodeDetached
                | ErrorKind::ObjectNotFound
                | ErrorKind::ContextDestroyed
        )
    }
}

/// Chromium's messages, by kind (substrings: some carry the id or a suffix).
const MESSAGES: &[(&str, ErrorKind)] = &[
    ("No node with given id found", ErrorKind::NodeNotFound),
    ("Could not find node with given id", ErrorKind::NodeNotFound),
    ("does not belong to the document", ErrorKind::NodeDetached),
    ("Node is detached from document", ErrorKind::NodeDetached),
    (
        "Could not find object with given id",
        ErrorKind::ObjectNotFound,
    ),
    (
        "Cannot find context with specified id",
        ErrorKind::ContextDestroyed,
    ),
    (
        "Execution context was destroyed",
        ErrorKind::ContextDestroyed,
    ),
    (
        "Inspected target navigated or closed",
        ErrorKind::ContextDestroyed,
    ),
    ("Not attached to an active page", ErrorKind::NoActivePage),
    ("No target with given id", ErrorKind::NoTarget),
    ("No target", ErrorKind::NoTarget),
];

fn protocol_kind(message: &str) -> ErrorKind {
    MESSAGES
        .iter()
        .find(|(m, _)| message.contains(m))
        .map_or(ErrorKind::Protocol, |(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol(message: &str) -> CdpError {
        CdpError::Protocol {
            method: "DOM.focus".into(),
            code: -32000,
            message: message.into(),
            data: None,
        }
    }

    #[test]
    fn chromium_messages_are_classified() {
        assert_eq!(
            protocol("No node with given id found").kind(),
            ErrorKind::NodeNotFound
        );
        assert!(protocol("Could not find node with given id").is_node_not_found());
        assert_eq!(
            protocol("Node is detached from document").kind(),
            ErrorKind::NodeDetached
        );
        assert_eq!(
            protocol("Execution context was destroyed.").kind(),
            ErrorKind::ContextDestroyed
        );
        assert_eq!(
            protocol("No target with given id found").kind(),
            ErrorKind::NoTarget
        );
        assert_eq!(
            protocol("Not attached to an active page").kind(),
            ErrorKind::NoActivePage
        );
        assert_eq!(protocol("Invalid parameters").kind(), ErrorKind::Protocol);
        assert!(protocol("Cannot find context with specified id").is_gone());
        assert!(!protocol("Invalid parameters").is_gone());
        assert!(CdpError::ConnectionClosed.is_closed());
        assert!(!CdpError::ConnectionClosed.is_gone());
    }

    #[test]
    fn transport_and_process_errors_have_their_own_kinds() {
        let after = Duration::from_secs(1);
        let method = || "Runtime.evaluate".to_owned();
        assert_eq!(
            CdpError::QueueFull {
                method: method(),
                after
            }
            .kind(),
            ErrorKind::QueueFull
        );
        let too_large = CdpError::MessageTooLarge {
            method: method(),
            size: 2,
            limit: 1,
        };
        assert_eq!(too_large.kind(), ErrorKind::MessageTooLarge);
        assert!(!too_large.is_closed());
        let not_ours = CdpError::NotOurProcess {
            pid: 1,
            mismatch: crate::process::Mismatch::NoProcess,
        };
        assert_eq!(not_ours.kind(), ErrorKind::NotOurProcess);
        let launch = CdpError::LaunchTimeout {
            path: "chromium".into(),
            after,
            stderr_tail: String::new(),
        };
        assert_eq!(launch.kind(), ErrorKind::Launch);
        let connect = CdpError::ConnectTimeout {
            url: "ws://h".into(),
            after,
        };
        assert_eq!(connect.kind(), ErrorKind::Connect);
    }
}
