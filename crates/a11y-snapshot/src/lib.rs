//! One accessibility snapshot of a page across all its frames.
//!
//! What it does: captures each frame's DOM with layout and styles (`DOMSnapshot.captureSnapshot`),
//! computes its accessibility tree from that (or takes Chromium's, `Accessibility.getFullAXTree`,
//! when asked) and merges all frames into one pruned tree; gives every node a frame-scoped encoded id
//! (`1-42`) and the nodes an agent acts on a per-tab stable ref (`@e7`); renders the Actionbook snapshot
//! text, HyperAgent's simplified form and a JSON node list; returns encoded id → backendNodeId / XPath
//! maps; and resolves a ref, encoded id, CSS selector or XPath back to a live node in the right frame,
//! refusing to act on a neighbour when a node went stale.
//!
//! What it does not: track frames (that is `frame-graph`), speak the wire protocol (`cdp-protocol`),
//! perform actions, or write snapshot files (the CLI does).
//!
//! Flow: [`take_snapshot`] (= [`capture()`] into a [`PageSource`], then [`Snapshot::build`]) →
//! [`render_actionbook`] / [`render_simplified`] / [`node_list`] with [`SnapshotOptions`];
//! [`resolve()`] turns a [`Target`] back into a [`ResolvedNode`]. Frames come from any [`PageFrames`]
//! (implemented for `frame_graph::FrameGraph`, and by [`SessionFrames`] for a single session).
//!
//! Map:
//! - [`ids`] — [`EncodedId`], [`Ref`].
//! - [`refs`] — [`RefTable`], the per-tab ref numbering (serialisable; reset it on navigation).
//! - [`frames`] — [`PageFrames`], what capture and resolution need from the frame graph.
//! - [`mod@capture`] — CDP capture into [`PageSource`] ([`AxSource`] picks the AX tree), boxes.
//! - `snapshot_dom` / `doc_view` — the DOM capture decoded into flat arrays, and read access to it.
//! - `ax_compute` — the accessibility tree computed from the capture (roles, names, states).
//! - [`raw`] — lean decode types for the CDP answers.
//! - [`dom`] — per-frame DOM arenas and XPath steps ([`xpath`] parses and evaluates them).
//! - [`tree`] — the capture seam [`PageSource`] and the merged [`Snapshot`] with its maps.
//! - [`roles`] — role mapping, interactive/content role sets, name cleaning.
//! - [`render`] — [`SnapshotOptions`] and the three renderers.
//! - [`outline`] — the snapshot text as rows with node identities ([`Outline`]); [`view`] — which
//!   nodes are on screen or in the open dialog; [`delta`] — diffs of two outlines; [`pages`] — an
//!   outline cut to a byte budget, what matters first.
//! - [`mod@resolve`] — refs, encoded ids, CSS and XPath back to live nodes.
//! - [`fasthash`] — the hasher of the per-snapshot maps.
//! - [`error`] — [`SnapshotError`].

mod ax_compute;
mod ax_input;
pub mod capture;
pub mod delta;
mod doc_view;
pub mod dom;
pub mod error;
pub mod fasthash;
pub mod frame_path;
pub mod frames;
pub mod ids;
mod indeterminate;
pub mod outline;
pub mod pages;
pub mod raw;
pub mod refs;
pub mod render;
pub mod resolve;
pub mod role_selector;
pub mod roles;
mod snapshot_dom;
pub mod tree;
pub mod view;
pub mod xpath;

pub use ax_input::ComputedTree;
pub use capture::{AxSource, CaptureOptions, capture, capture_boxes, take_snapshot};
pub use delta::{Change, Delta, diff, diff_with, render_delta};
pub use error::SnapshotError;
pub use frames::{FrameHandle, PageFrames, SessionFrames};
pub use ids::{EncodedId, Ref};
pub use outline::{Outline, Row};
pub use pages::{Paging, paginate};
pub use refs::{RefEntry, RefTable};
pub use render::{
    NodeStats, NodeSummary, SnapshotOptions, node_list, render_actionbook, render_simplified,
};
pub use resolve::{Known, ResolveOptions, ResolvedNode, Target, is_xpath, resolve};
pub use tree::{
    BoundingBox, FrameSource, Node, PageSource, Snapshot, SnapshotMaps, SnapshotMetrics,
};

#[cfg(test)]
mod outline_tests;
#[cfg(test)]
mod tree_tests;
