//! Every frame of a page, out-of-process iframes included, kept current by CDP events.
//!
//! What it does: for one page (tab) reached through a `cdp_protocol::Session`, a [`FrameGraph`]
//! knows each frame's id, parent, URL, owner `<iframe>` element (backendNodeId in the parent's
//! document), the CDP session owning its document (page or OOPIF session), its default-world
//! execution context and its stable [`FrameIndex`]; it maps OOPIF coordinates to page coordinates.
//!
//! What it does not: hold DOM or accessibility trees (that is `a11y-snapshot`), or drive input.
//!
//! Map:
//! - [`graph`]: [`FrameGraph`], the event-driven handle (one background task per page).
//! - [`registry`]: [`FrameRegistry`], the CDP-agnostic bookkeeping it is built on (property-tested).
//! - [`types`]: [`FrameIndex`], [`FrameInfo`], [`Rect`], [`FrameGraphOptions`].
//! - [`dom_order`]: owners and document order (a cheap per-document query, or the whole
//!   `DOM.getDocument{pierce}` when an owner hides in a shadow tree).
//! - [`error`]: [`FrameGraphError`], the one error type.

pub mod dom_order;
pub mod error;
pub mod graph;
pub mod registry;
pub mod types;

pub use error::FrameGraphError;
pub use graph::FrameGraph;
pub use registry::{DetachReason, FrameRegistry, SessionKey, TreeFrame};
pub use types::{FrameGraphOptions, FrameIndex, FrameInfo, Rect};
