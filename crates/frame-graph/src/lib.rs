//! Frames of a page: frameId ↔ owner backendNodeId ↔ frameIndex, owning sessions and
//! execution contexts (work in progress: the CDP-agnostic registry is here; the event-driven
//! `FrameGraph` follows once cdp-protocol's transport lands).
//!
//! - [`registry`]: [`FrameRegistry`], the pure bookkeeping, property-tested.
//! - [`types`]: [`FrameIndex`], [`FrameInfo`], [`Rect`], [`FrameGraphOptions`].
//! - `ids_shim`: temporary stand-ins for cdp-protocol's ids (replaced by them shortly).

pub mod ids_shim;
pub mod registry;
pub mod types;

pub use registry::{DetachReason, FrameRegistry, SessionKey, TreeFrame};
pub use types::{FrameGraphOptions, FrameIndex, FrameInfo, Rect};
