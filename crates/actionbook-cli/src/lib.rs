//! The actionbook engine and CLI.
//!
//! # Brief overview
//! - [`Engine`] owns sessions (browsers), tabs and every command; [`Engine::execute`] turns a
//!   [`Request`] into an [`Envelope`] (JSON and text come from the `envelope` crate). A Rust program can use it
//!   in-process, without the daemon.
//! - The `actionbook` binary is thin: [`run::main`] parses arguments ([`args`]), sends the request to
//!   the per-user daemon ([`client`], [`daemon`], wire format in [`ipc`]) and prints the reply.
//! - Session state is durable ([`state`]): browsers outlive the daemon, and a new daemon re-attaches to
//!   them with the same session ids, tab ids and refs.
//!
//! What it does not do: talk CDP itself beyond small helpers (that is `cdp-protocol`), track frames
//! (`frame-graph`) or build snapshots (`a11y-snapshot`).

pub mod args;
mod browser;
use cdp_protocol as cdp;
pub mod client;
pub mod commands;
pub mod daemon;
pub mod engine;
pub mod error;
pub mod ipc;
pub mod output;
mod page_frames;
pub mod run;
pub mod state;

pub use engine::{Engine, EngineConfig, Request};
pub use error::CliError;
pub use output::Envelope;
