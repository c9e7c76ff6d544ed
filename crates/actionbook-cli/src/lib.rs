//! The actionbook engine and CLI.
//!
//! # Brief overview
//! - [`Engine`] owns sessions (browsers), tabs and every command; [`Engine::execute`] turns a
//!   [`Request`] into an [`Envelope`] (JSON and text come from the `envelope` crate). A Rust program
//!   can use it in-process, without the daemon.
//! - The `actionbook` binary is thin: [`run::main`] parses arguments ([`args`]), sends the request to
//!   the per-user daemon ([`client`], [`daemon`], wire format in [`ipc`]) and prints the reply.
//! - Session state is durable ([`state`]): browsers outlive the daemon, and a new daemon re-attaches to
//!   them with the same session ids, tab ids and refs.
//! - Errors: one enum ([`CliError`]) whose `code()` is the single mapping to envelope error codes.
//!
//! # Adding a command
//! One argument struct in [`args`] (clap + serde: it is also the daemon request), one handler (an
//! impl of the engine's `GlobalCommand`, `SessionCommand` or `TabCommand` returning an `envelope`
//! data struct) in a [`commands`] module, and one line in the `browser_commands!` list.
//!
//! # Environment
//! `ACTIONBOOK_HOME` (default `~/.actionbook`), `ACTIONBOOK_BROWSER_EXECUTABLE_PATH`,
//! `ACTIONBOOK_BROWSER_HEADLESS` (`true`/`false`, the default of `browser start --headless`),
//! `ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS` (default 1800, 0 = never).
//!
//! What it does not do: talk CDP itself beyond small helpers (that is `cdp-protocol`), track frames
//! (`frame-graph`) or build snapshots and resolve selectors (`a11y-snapshot`).

pub mod args;
mod browser;
use cdp_protocol as cdp;
pub mod client;
pub mod commands;
mod crash_watch;
pub mod daemon;
mod dialogs;
pub mod engine;
pub mod error;
pub mod ipc;
pub mod manuals;
pub mod output;
mod page_frames;
mod page_info;
pub mod run;
pub mod state;

pub use engine::{Engine, EngineConfig, Request};
pub use error::CliError;
pub use output::Envelope;
