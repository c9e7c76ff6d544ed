//! The agent layer over the actionbook engine: `browser perform "<instruction>"` (one model call,
//! one action), `browser ai "<task>"` (a loop of snapshot, model, actions until done) and
//! `browser extract "<what>"` (JSON out of the page, checked against a schema).
//!
//! # Map
//! - [`model`]: the [`Model`] trait and its two HTTP clients (OpenAI-compatible chat completions,
//!   Anthropic Messages), configuration from `ACTIONBOOK_LLM_*` and `config.toml`'s `[llm]`;
//! - `variables`: `--var name=value`, written `<<name>>`: the model sees the name, the engine
//!   types the value, and no output carries it;
//! - `page`: the tab's snapshot as the model reads it (the outline with `[ref=eN]`, all frames);
//! - `actions`: the closed set of actions the model may pick, as tools, and running one through
//!   the engine's own command (auto-wait and landing guarantee included);
//! - [`custom`]: actions of a program embedding the engine, offered to the model beside ours;
//! - `mcp`: external MCP servers' tools (`[[llm.mcp_servers]]`, `--mcp-server`), over rmcp,
//!   offered as `<server>__<tool>`; the servers live as long as one command;
//! - `perform`, `extract`, `ai`: the three commands' flows; `trace`: `--trace <dir>`, each step
//!   written for debugging;
//! - [`commands`]: their request types (and the one-shot `ai`, `ai-cache list|clear`) and the
//!   [`actionbook::commands::extension::Extension`]s that join them to the command table
//!   ([`register`]).
//!
//! What it does not do: talk CDP or read the DOM itself (every look and every action is one of
//! the engine's commands), or keep a browser of its own.

// Request types' doc comments are their `--help` text too, where `<<name>>` and `<url>` are
// meant literally, not HTML.
#![allow(rustdoc::invalid_html_tags)]

mod actions;
mod ai;
mod ask;
mod cache;
pub mod commands;
pub mod custom;
mod error;
mod extract;
mod mcp;
pub mod model;
mod page;
mod perform;
mod schema;
#[cfg(feature = "test-support")]
pub mod testing;
mod trace;
mod variables;

pub use commands::{ModelSource, register, register_with};
pub use custom::{ActionCx, CustomAction, add_action};
pub use error::AgentError;
pub use model::Model;
