//! Newtype identifiers used across CDP domains.
//!
//! Each id is a transparent wrapper: it serializes exactly like the underlying
//! string or integer, so it can be used directly in params and responses.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// Wraps a raw id string.
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The raw id string.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Unwraps into the raw id string.
            pub fn into_inner(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

macro_rules! int_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl $name {
            /// Wraps a raw integer id.
            pub const fn new(id: i64) -> Self {
                Self(id)
            }

            /// The raw integer id.
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl From<i64> for $name {
            fn from(v: i64) -> Self {
                Self(v)
            }
        }

        impl From<$name> for i64 {
            fn from(v: $name) -> i64 {
                v.0
            }
        }
    };
}

string_id!(
    /// A flattened target session (`sessionId` on the wire).
    SessionId
);
string_id!(
    /// A target (page, iframe, worker, browser...).
    TargetId
);
string_id!(
    /// A frame; for an out-of-process iframe it equals the target id.
    FrameId
);
string_id!(
    /// A document load within a frame.
    LoaderId
);
string_id!(
    /// A JavaScript object handle held by the renderer.
    RemoteObjectId
);
string_id!(
    /// A browser context (incognito-like profile partition).
    BrowserContextId
);
string_id!(
    /// A network request.
    RequestId
);
int_id!(
    /// A DOM node id that is stable for the node's lifetime in the renderer (not per DOM agent).
    BackendNodeId
);
int_id!(
    /// A DOM node id issued by the DOM agent of one session; invalid after `DOM.getDocument` is called again.
    NodeId
);
int_id!(
    /// A JavaScript execution context; only unique within one session.
    ExecutionContextId
);
