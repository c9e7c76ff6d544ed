//! Plain values handed out by the graph: frame indices, frame snapshots, rectangles, options.

use cdp_protocol::{BackendNodeId, FrameId, SessionId};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A frame's number within one page generation: 0 is the main frame, others count up from 1
/// and are never reused for another frame until the main frame navigates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FrameIndex(pub u32);

impl FrameIndex {
    /// The main frame's index.
    pub const MAIN: FrameIndex = FrameIndex(0);

    /// Wraps a raw index.
    pub const fn new(index: u32) -> Self {
        Self(index)
    }

    /// The raw index.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// True for the main frame (index 0).
    pub const fn is_main(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for FrameIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for FrameIndex {
    type Err = std::num::ParseIntError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<u32>().map(FrameIndex)
    }
}

impl From<u32> for FrameIndex {
    fn from(v: u32) -> Self {
        Self(v)
    }
}

/// One frame as the graph knows it, copied out (no live reference into the graph).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameInfo {
    /// The frame's CDP id (equals the target id for an out-of-process iframe).
    pub frame_id: FrameId,
    /// The parent frame; `None` for the main frame.
    pub parent_frame_id: Option<FrameId>,
    /// The frame's stable number for this page generation.
    pub frame_index: FrameIndex,
    /// The document URL as last reported by the browser.
    pub url: String,
    /// The frame's name attribute, if any.
    pub name: Option<String>,
    /// The `<iframe>` element in the parent frame's document; `None` for the main frame or while unknown.
    pub owner_backend_node_id: Option<BackendNodeId>,
    /// The CDP session that owns this frame's document (`None` is the connection's root session).
    pub session_id: Option<SessionId>,
    /// True when the frame's document lives in its own (OOPIF) session, apart from its parent's.
    pub is_out_of_process: bool,
    /// Child frames in document order (as far as known; `FrameGraph::sync` re-sorts them).
    pub children: Vec<FrameId>,
}

/// An axis-aligned rectangle in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// A rectangle from its origin and size.
    pub const fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Self {
            x,
            y,
            width,
            height,
        }
    }

    /// The centre point.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
}

/// Tuning for [`crate::FrameGraph::attach`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FrameGraphOptions {
    /// Timeout for each CDP call the graph makes on its own behalf.
    pub command_timeout: Duration,
    /// Upper bound for `attach` to seed the graph (frame trees, OOPIF sessions, DOM order).
    pub init_timeout: Duration,
    /// Upper bound for `sync` to re-check every session.
    pub sync_timeout: Duration,
    /// Length of the graph's event queue; events arriving while it is full are lost and the
    /// graph recovers by re-reading the browser's state. Lower it only for tests (to force that
    /// recovery) or memory-constrained embedders.
    pub event_capacity: usize,
    /// Fault injection for tests: the first this many `Target.attachedToTarget` events after
    /// `attach` are handled as lost to a full queue (their targets stay paused until the graph
    /// recovers them). Whether a real overflow loses that particular event depends on timing;
    /// this makes the recovery testable deterministically. 0 (the default) in real use.
    #[doc(hidden)]
    pub lose_attach_events: usize,
}

impl Default for FrameGraphOptions {
    fn default() -> Self {
        Self {
            command_timeout: Duration::from_secs(10),
            init_timeout: Duration::from_secs(15),
            sync_timeout: Duration::from_secs(15),
            event_capacity: 65_536,
            lose_attach_events: 0,
        }
    }
}

impl FrameGraphOptions {
    /// Sets [`Self::command_timeout`].
    pub fn command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// Sets [`Self::init_timeout`].
    pub fn init_timeout(mut self, timeout: Duration) -> Self {
        self.init_timeout = timeout;
        self
    }

    /// Sets [`Self::lose_attach_events`] (fault injection for tests).
    #[doc(hidden)]
    pub fn lose_attach_events(mut self, n: usize) -> Self {
        self.lose_attach_events = n;
        self
    }

    /// Sets [`Self::event_capacity`] (at least 1).
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity.max(1);
        self
    }

    /// Sets [`Self::sync_timeout`].
    pub fn sync_timeout(mut self, timeout: Duration) -> Self {
        self.sync_timeout = timeout;
        self
    }
}
