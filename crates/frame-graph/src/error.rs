//! The crate's error type.

use cdp_protocol::{CdpError, FrameId};
use std::time::Duration;

/// Everything that can go wrong asking the frame graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameGraphError {
    /// A CDP call the graph made failed.
    #[error(transparent)]
    Cdp(#[from] CdpError),
    /// The frame is not (or no longer) in the graph.
    #[error("frame {frame} not found")]
    FrameNotFound {
        /// The frame asked for.
        frame: FrameId,
    },
    /// The frame has no default-world execution context, even after waiting.
    #[error("frame {frame} has no execution context after {after:?}")]
    NoExecutionContext {
        /// The frame asked for.
        frame: FrameId,
        /// How long the graph waited.
        after: Duration,
    },
    /// The page's session is gone (tab closed, browser exited) or the graph was shut down.
    #[error("the page is detached")]
    Detached,
    /// The `<iframe>` element owning an out-of-process frame could not be found in its parent.
    #[error("owner element of frame {frame} not found")]
    OwnerNotFound {
        /// The frame whose owner is missing.
        frame: FrameId,
    },
    /// The owner element has no box (not rendered), so coordinates cannot be mapped.
    #[error("owner element of frame {frame} has no layout box")]
    NoLayoutBox {
        /// The frame whose owner has no box.
        frame: FrameId,
    },
    /// The renderer process of the frame's document crashed (an out-of-process iframe); it stays
    /// unusable until the page loads the iframe again.
    #[error("renderer of frame {frame} crashed")]
    FrameCrashed {
        /// The frame asked for.
        frame: FrameId,
    },
    /// A bounded wait ran out.
    #[error("{what} timed out after {after:?}")]
    Timeout {
        /// What was waited for.
        what: String,
        /// How long the graph waited.
        after: Duration,
    },
}
