//! The unified actionbook response: the `{ok, command, context, data, error, meta}`
//! envelope, its error codes, and the fixed text output of the CLI contract
//! (Actionbook CLI API reference, sections 1–5 and the `data` of sections 6–14).
//!
//! **What it does:** typed values for every command's response, rendered to JSON
//! ([`Envelope::to_json`]) and to the text format ([`Envelope::to_text`]) from the same
//! value, and read back from JSON ([`Envelope::from_json`]).
//! **What it does not:** run commands, talk to a browser, parse argv, or choose where
//! output goes (stdout / stderr). It depends on serde, serde_json and thiserror only.
//!
//! # Brief overview
//!
//! ```
//! use envelope::{CommandName, Context, Envelope, ErrorCode, ErrorInfo, PageValueData};
//!
//! let ctx = Context::tab("research-google", "t1").with_url("https://google.com");
//! let ok = Envelope::success(
//!     CommandName::BrowserTitle,
//!     ctx.clone(),
//!     PageValueData { value: "Google".into() },
//! );
//! assert_eq!(ok.to_text(), "[research-google t1] https://google.com\nGoogle\n");
//!
//! let err = Envelope::failure(
//!     CommandName::BrowserClick,
//!     ctx,
//!     ErrorInfo::new(ErrorCode::ElementNotFound, "Element not found: #submit"),
//! );
//! assert!(err.to_json().starts_with(r#"{"ok":false,"command":"browser click","context""#));
//! assert_eq!(err.exit_code(), 1);
//! ```
//!
//! # Wire format
//!
//! Every response is one JSON object with these members, in this order:
//!
//! | member | type | rule |
//! |---|---|---|
//! | `ok` | bool | `true` exactly when `error` is `null` |
//! | `command` | string | normalised name ([`CommandName`]), never raw argv |
//! | `context` | object | only for session commands ([`CommandName::returns_context`]); omitted otherwise and when no session was located |
//! | `data` | any | always present: the command's data ([`Data`]) on success, `null` on failure |
//! | `error` | object | always present: `null` on success, [`ErrorInfo`] on failure |
//! | `meta` | object | always present: [`Meta`] |
//!
//! `context` ([`Context`]): `session_id` (always), then `tab_id`, `window_id`, `url`,
//! `title`, each omitted when unknown. Tab commands carry `tab_id` once the tab was
//! located; after a navigation `url` / `title` are the new page's.
//!
//! `error` ([`ErrorInfo`]): `code` (an [`ErrorCode`] string such as
//! `"ELEMENT_NOT_FOUND"`), `message`, `retryable`, `details` (object or `null`, always
//! present) and `hint` (string, omitted when absent).
//!
//! `meta` ([`Meta`]): `duration_ms`, `warnings` (array of strings), `pagination`
//! (`{page, page_size, total, has_more}` or `null`) and `truncated` (bool); all four
//! always present. Pagination and truncation appear nowhere else.
//!
//! `data` is a string for `help` / `version`, else an object whose shape is fixed by
//! the command ([`CommandName::data_kind`]); whole numbers are written without a
//! fraction (`10`, not `10.0`).
//!
//! ```json
//! {"ok":true,"command":"browser title","context":{"session_id":"s1","tab_id":"t1","url":"https://google.com"},
//!  "data":{"value":"Google"},"error":null,
//!  "meta":{"duration_ms":3,"warnings":[],"pagination":null,"truncated":false}}
//! ```
//!
//! # Text format
//!
//! One header line from the context (`[sid tid] url` for tab commands, `[sid]` for
//! session commands, none without a context), then `ok <command>` for action commands,
//! then the data's own body lines ([`RenderText`]); a failure prints
//! `error <CODE>: <message>` and an optional `hint: <hint>` instead; each warning adds
//! `warning: <text>`. See the [`text`] module.
//!
//! # Exit status
//!
//! [`Envelope::exit_code`]: `0` on success, `2` for `INVALID_ARGUMENT` (usage errors),
//! `1` for every other error code.
//!
//! # Where this differs from the reference CLI (1.6)
//!
//! The spec wins where the two disagree; where both are silent the reference is followed.
//!
//! - Non-session commands omit `context` (the reference writes `"context": null`; both are read).
//! - Spec codes replace reference-only ones: an unknown `@eN` ref is `ELEMENT_NOT_FOUND`
//!   (reference: `REF_NOT_FOUND`), JavaScript failures are `EVAL_FAILED` (reference:
//!   `JS_EXCEPTION` / `EVAL_RUNTIME_ERROR`), a malformed session id is `INVALID_ARGUMENT`
//!   (reference: `INVALID_SESSION_ID`, exit 1; here exit 2 like every usage error).
//! - Text bodies follow the spec's examples: the snapshot prints only the "Refs are stable"
//!   line before `output saved to`, `wait` prints only `elapsed_ms:`, `box` only x/y/width/height.
//! - Data carries only the spec's fields (plus the optional extras documented on each
//!   struct); the reference's `post_url` / `post_title` / `pre_*` / `by_ref` /
//!   `max_tracked_requests` / box `right`/`bottom` are not written (`context` already
//!   carries the post-command URL and title).
//! - Kept from the reference where the spec is silent: `error.hint` and its `hint:` line,
//!   `warning:` lines for `meta.warnings`, `N cookies` / `N keys` / `name domain path`
//!   list lines. The header shows what the context holds; the reference's failures carry
//!   only the session/tab ids, so their header is `[sid tid]` without a URL.
//!
//! # Modules
//!
//! - [`wire`] – the envelope's serialisation types.
//! - [`code`] – [`ErrorCode`] and the exit statuses.
//! - [`command`] – [`CommandName`] and [`AddressingLevel`].
//! - [`data`] – one data struct per command family, gathered in [`Data`].
//! - [`text`] – the [`RenderText`] trait and the text renderer.

pub mod code;
pub mod command;
pub mod data;
mod error;
mod num;
pub mod text;
pub mod wire;

pub use code::{EXIT_FAILURE, EXIT_SUCCESS, EXIT_USAGE, ErrorCode};
pub use command::{AddressingLevel, CommandName};
pub use data::*;
pub use error::Error;
pub use text::{RenderText, TextBody};
pub use wire::{Context, Envelope, ErrorInfo, Meta, Pagination};
