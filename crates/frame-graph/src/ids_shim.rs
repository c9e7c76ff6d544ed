//! Temporary stand-ins for cdp-protocol's ids until that crate exports them.
#![allow(missing_docs)]
use serde::{Deserialize, Serialize};
macro_rules! s {
    ($n:ident) => {
        #[derive(
            Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
        )]
        #[serde(transparent)]
        pub struct $n(pub String);
        impl $n {
            pub fn new(s: impl Into<String>) -> Self {
                Self(s.into())
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
        impl std::fmt::Display for $n {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl From<&str> for $n {
            fn from(s: &str) -> Self {
                Self(s.into())
            }
        }
    };
}
macro_rules! i {
    ($n:ident) => {
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            Serialize,
            Deserialize,
            Default,
        )]
        #[serde(transparent)]
        pub struct $n(pub i64);
        impl std::fmt::Display for $n {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}
s!(SessionId);
s!(FrameId);
s!(LoaderId);
i!(BackendNodeId);
i!(ExecutionContextId);
