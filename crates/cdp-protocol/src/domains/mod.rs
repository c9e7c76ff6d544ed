//! Hand-written types for the CDP domains this project uses.
//!
//! Each module is named after its domain; params structs are named after the method in
//! CamelCase (`GetDocument` for `DOM.getDocument`), results add `Response`, events are named after
//! the event. Everything decodes leniently: unknown fields are ignored, unknown enum values become
//! `Unknown`. Use [`crate::Session::call`] for anything not typed here.

pub mod accessibility;
pub mod browser;
pub mod dom;
pub mod dom_snapshot;
pub mod emulation;
pub mod fetch;
pub mod input;
pub mod inspector;
pub mod log;
pub mod network;
pub mod page;
pub mod runtime;
pub mod storage;
pub mod target;
