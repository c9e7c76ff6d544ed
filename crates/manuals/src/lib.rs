//! Action manuals: an embedded, offline-first catalogue of page areas (selectors for the
//! elements of known pages) behind `search`, `get`, `manual`, `areas …` and `setup`.
//!
//! A crate of its own (`actionbook-manuals`), usable without the engine: no clap, no daemon, no
//! printing, no browser (the engine's `areas record` reads the page and hands this crate a
//! [`record::Recording`]). Everything is synchronous and blocking
//! (SQLite, file writes, the optional HTTP client); the engine calls it inside
//! `tokio::task::spawn_blocking`, keeping one [`Manuals`] in an `Arc<std::sync::Mutex<_>>` that is
//! locked only inside the blocking closure (nothing here awaits, so no lock is held across an
//! await).
//!
//! # Modules
//! - [`store`]: the SQLite + FTS5 file (`$ACTIONBOOK_HOME/manuals.db`): schema, migrations,
//!   upsert, ranked search, get, list, delete.
//! - [`area`]: [`Area`] and [`AreaId`] (`<host>:<path>:<name>`), site normalisation.
//! - [`fts`]: user text to a safe FTS5 query.
//! - `ranking`: the in-memory copy of the index that ranks searches exactly as FTS5's bm25.
//! - [`record`]: the pure half of `areas record` (element kinds, methods, ids, CSS candidates).
//! - [`transfer`]: the `areas export` / `areas import` document.
//! - [`manual`]: the three levels of `manual SITE [GROUP] [ACTION]`.
//! - [`remote`]: the optional remote API (`ACTIONBOOK_API_URL`).
//! - [`catalog`]: [`Manuals`], store + remote, one method per command, merging and warnings.
//! - [`bundled`]: manuals shipped in the binary (demo and fixture pages).
//! - [`config`]: `$ACTIONBOOK_HOME/config.toml` and the environment overrides ([`Settings`]).
//! - [`setup`]: `setup` (interactive and `--non-interactive`).
//! - [`guide`]: `setup --target claude|codex|cursor|stdout`.
//! - [`mcp_config`]: the MCP server entry for each `setup --target` agent.
//! - [`error`]: [`ManualsError`] and its mapping to envelope errors.
//! - [`files`]: whole-file writes (a temp file beside, then a rename), shared with the engine's
//!   state store and artifact writers.
//!
//! # How the command handlers call it
//!
//! Open once per daemon (or per call; opening is cheap) with
//! `Manuals::open(&home.join("manuals.db"), Settings::load(&home)?.remote()?)`. Every method
//! returns `Result<Answer<T>, ManualsError>`: on success `data` is the envelope data,
//! `pagination` goes to `meta.pagination`, each `warnings` entry to `meta.warnings`; on failure
//! [`ManualsError::to_error_info`] is the envelope error (code, message, details, hint). None of
//! these commands returns `context`.
//!
//! | command | call | data |
//! |---|---|---|
//! | `search <q> [-d] [-u] [-p] [-s]` | `m.search(&SearchQuery { text, domain, url, page, page_size })` | `envelope::SearchData` (+ pagination) |
//! | `get <area_id>` | `m.get(id)` | `envelope::AreaData` |
//! | `manual <SITE> [GROUP] [ACTION]` | `m.manual(&ManualRequest { site, group, action })` | [`manual::ManualData`] |
//! | `areas record [--name] [--title] [--description]` | engine builds [`record::Recording`] with [`record::build_area`], then `m.record(&rec)` | [`catalog::RecordData`] |
//! | `areas import <file>` | `m.import_file(path)` | [`catalog::ImportData`] |
//! | `areas export [id…]` | `m.export(&ids)` | [`transfer::AreasDocument`] |
//! | `areas list [-d]` | `m.list(domain)` | [`catalog::AreaListData`] |
//! | `areas delete <id>` | `m.delete(id)` | [`catalog::DeleteData`] |
//! | `setup --non-interactive [--browser] [--api-key] [--reset]` | [`setup::setup_non_interactive`] | [`setup::SetupReport`] |
//! | `setup` (stdin is a TTY) | [`setup::setup_interactive`] with stdin/stdout | [`setup::SetupReport`] |
//! | `setup --target T` | [`guide::install_guide`]`(T, $HOME, version, &commands)` | [`guide::GuideReport`] |
//!
//! Every data type implements `envelope::RenderText`, so its text body comes with it.
//!
//! Error codes: unknown area / site / group / action → `ELEMENT_NOT_FOUND` (details name it, the
//! hint points to `search` or lists what exists); bad ids, pages, page sizes, URLs, import files
//! and config files → `INVALID_ARGUMENT`; a damaged, locked or too-new `manuals.db` →
//! `INTERNAL_ERROR` naming the file, with the hint to move it aside (or
//! [`store::Store::set_aside`]), `retryable` when locked; `--browser` not found →
//! `BROWSER_NOT_FOUND`; unwritable files → `ARTIFACT_WRITE_FAILED`; unrecordable pages
//! (`about:blank`) → `UNSUPPORTED_OPERATION`. The remote API never fails a command: it adds a
//! warning. Only the commands above touch `manuals.db`, so a broken store leaves every `browser`
//! command working.

pub mod area;
pub mod bundled;
pub mod catalog;
pub mod config;
pub mod error;
pub mod files;
pub mod fts;
pub mod guide;
pub mod manual;
pub mod mcp_config;
mod ranking;
#[cfg(test)]
mod ranking_tests;
pub mod record;
pub mod remote;
pub mod setup;
pub mod store;
#[cfg(test)]
mod store_tests;
pub mod time;
pub mod transfer;

pub use area::{Area, AreaId};
pub use catalog::{Answer, Manuals};
pub use config::Settings;
pub use error::ManualsError;
pub use manual::{ManualData, ManualRequest};
pub use store::{SearchQuery, Store};

/// The store's file name under `$ACTIONBOOK_HOME`.
pub const STORE_FILE: &str = "manuals.db";
