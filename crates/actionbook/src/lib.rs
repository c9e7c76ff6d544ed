//! The actionbook engine: sessions, tabs and every command over CDP, the per-user daemon, the
//! MCP server and the typed Rust API ([`api`]); the `actionbook` binary is in `actionbook-cli`.
//!
//! # Brief overview
//! - [`Engine`] owns sessions (browsers), tabs and every command; [`Engine::execute`] runs one
//!   typed [`Request`] (a [`Command`] with its request type) and answers with an [`Envelope`]
//!   (JSON and text come from the `envelope` crate). A Rust program or an MCP server uses it
//!   in-process, without the daemon or clap.
//! - The command table ([`commands::COMMANDS`]) is the one list of commands: per command its
//!   name, addressing level, stage, [`CommandTraits`] and the JSON Schema of its request.
//! - The `actionbook` binary (crate `actionbook-cli`) is thin: it parses arguments, lowers them
//!   into a [`Request`], sends it to the per-user [`daemon`] and prints the reply.
//! - Session state is durable ([`store`]): browsers outlive the daemon, and a new daemon
//!   re-attaches to them with the same session ids, tab ids and refs.
//! - Errors: one enum ([`CliError`]) whose `code()` is the single mapping to envelope error codes.
//!
//! # Map
//! The engine (no clap, no sockets), lowest layer first; a module imports only the ones above it
//! in this list (checked by a test):
//! - below the crate: [`manuals`] (the `actionbook-manuals` crate: the action manuals' store,
//!   SQLite + FTS5 in `manuals.db`, search, the remote API, `config.toml`, setup and agent
//!   guides; blocking code, so callers use `spawn_blocking`) and its `files` (whole-file writes:
//!   temp file beside, then rename), which the engine's writers share;
//! - [`boundary`]: the nonce markers of `--content-boundaries` (a leaf).
//! - [`policy_actions`]: the action names of a session's policy, their groups and parsing (a leaf);
//! - [`secrets`]: `<<name>>` values, their parsing and masking (over `error`, below `model`);
//!   [`allowlist`]: the rules of `--allowed-domains`, parsing and matching (a pure leaf beside it);
//! - `error`, `model`, `deadline`, `reply`: leaves (the error type; modes, statuses, targets,
//!   [`ClientEnv`], [`CommandTraits`]; the per-command [`Deadline`] and named caps; envelopes);
//! - [`store`]: durable state under `ACTIONBOOK_HOME` ([`Home`], records, atomic writes, artifact
//!   names);
//! - `page`: primitives on typed CDP (navigation and its load waiter, eval, locate, input, form
//!   fields, frames and snapshots);
//! - `session`: sessions, their registry, connect/launch/teardown, targets, windows, popups;
//! - `tab`: tab state, attach and revive, background services, the tab-command pipeline;
//! - [`commands`]: the command table, one module per spec section;
//! - `action_policy`: the gate of a session's `--confirm-actions` / `--deny-actions` (over
//!   [`policy_actions`], the names and the policy, a leaf beside `secrets`): tokens, the answer that
//!   says what would run;
//! - `session_secrets`: the secrets of live sessions, put into requests and masked out of answers;
//! - `engine`: [`Engine`], [`Request`].
//!
//! On top: [`daemon`] (wire, server, client); [`doctor`] (the checks of `actionbook doctor`,
//! run in the asking process); [`mcp`] (the MCP server over stdio, its tools made
//! from the command table, on the daemon or an in-process engine); [`api`] (the typed handles,
//! [`Browser`] → [`Session`] → [`Tab`] → [`Locator`], over the engine or the daemon). The clap
//! tree, lowering, printing, `batch` and the binary are in `actionbook-cli`.
//!
//! # Adding a command
//! Its request type (serde + `schemars::JsonSchema`, `clap::Args` behind `cfg_attr`) and handler
//! in its [`commands`] module, and one row of the table in `commands/mod.rs`; see the README's
//! contributor note for a worked example.
//!
//! # Environment
//! Read by the CLI only (and passed in [`ClientEnv`]): `ACTIONBOOK_HOME` (default
//! `~/.actionbook`), `ACTIONBOOK_BROWSER_EXECUTABLE_PATH`, `ACTIONBOOK_BROWSER_HEADLESS`
//! (`true`/`false`, the default of `browser start --headless`), `ACTIONBOOK_CONFIRM_ACTIONS` and
//! `ACTIONBOOK_DENY_ACTIONS` (the defaults of `--confirm-actions` / `--deny-actions`); the daemon's
//! `ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS` (default 1800, 0 = never; counted while no session is open).
//!
//! What it does not do: talk CDP itself (that is `cdp-protocol`), track frames (`frame-graph`) or
//! build snapshots and resolve selectors (`a11y-snapshot`).

// Request types' doc comments are their `--help` text too, where `<name>` is a placeholder meant
// literally, not HTML.
#![allow(rustdoc::invalid_html_tags)]

pub use actionbook_manuals as manuals;
use actionbook_manuals::files;

pub mod allowlist;
pub mod boundary;
pub mod deadline;
pub mod error;
mod fault;
pub mod model;
pub mod policy_actions;
pub mod reply;
pub mod secrets;
pub mod store;

mod page;
mod session;
mod tab;

mod action_policy;
pub mod commands;
pub mod engine;
mod session_secrets;

pub mod daemon;
pub mod doctor;
pub mod mcp;

pub mod api;

/// Internals the benches measure directly (not a stable API).
#[doc(hidden)]
pub mod bench_support {
    pub use crate::session::guard::GuardProbe;
    pub use crate::tab::services::network::{RecorderProbe, network_enable};
}

pub use api::{ApiError, Browser, Locator, Session, Snapshot, Tab};
pub use commands::{COMMANDS, Command, CommandSpec, Stage};
pub use deadline::{DEFAULT_TIMEOUT_MS, Deadline};
pub use engine::{Engine, EngineConfig, Request};
pub use envelope::{self, CommandName, Envelope};
pub use error::CliError;
pub use model::{
    ClientEnv, CommandTraits, Mode, SessionId, SessionStatus, SessionTarget, TabId, TabTarget,
    WindowId,
};
pub use reply::unknown_command_json;
pub use store::Home;
