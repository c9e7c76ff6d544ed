//! The typed handle API: [`Browser`] → [`Session`] → [`Tab`] → [`Locator`], each call one
//! command of the table run by a [`Backend`] (the in-process [`crate::Engine`], or the per-user
//! [`Daemon`] the CLI talks to, sharing its sessions), answering typed data or an [`ApiError`]
//! that keeps the envelope's code. No CDP of its own: it composes the typed requests only.
//!
//! ```no_run
//! # async fn login() -> Result<(), actionbook::api::ApiError> {
//! use actionbook::api::Browser;
//! let browser = Browser::in_process(actionbook::Home::at("/tmp/ab-home"))?;
//! let session = browser.start_headless("https://example.com/login").await?;
//! let tab = session.first_tab();
//! tab.locator("#user").fill("grace").await?;
//! tab.locator("role=button[name=\"Sign in\"]").click().await?;
//! let user: String = tab.eval_as("document.querySelector('#who').textContent").await?;
//! session.close().await?;
//! # let _ = user; Ok(()) }
//! ```
//!
//! - `backend`: [`Backend`] and its two implementations (cancel-safe: a sent command runs to its
//!   end even when the caller's future is dropped);
//! - `browser`: [`Browser`] (backend, environment, default timeout [`DEFAULT_TIMEOUT`]),
//!   [`Session`];
//! - `tab`: [`Tab`], [`Storage`]; `locator`: [`Locator`]; `snapshot`: [`Snapshot`], [`Node`],
//!   [`Ref`], [`Selector`]; `error`: [`ApiError`].

mod backend;
mod browser;
mod error;
mod locator;
mod snapshot;
mod tab;

pub use crate::commands::dialog::DialogAnswer;
pub use crate::commands::interaction::scroll::ScrollDirection;
pub use crate::commands::lifecycle::Start;
pub use crate::commands::waits::ElementState;
pub use backend::{Backend, Daemon};
pub use browser::{Browser, DEFAULT_TIMEOUT, Session};
pub use error::{ApiError, ApiResult};
pub use locator::Locator;
pub use snapshot::{Node, Ref, Selector, Snapshot};
pub use tab::{Storage, Tab};
