//! Typed Chrome DevTools Protocol (CDP) transport.
//!
//! What it does: one background task owns the WebSocket to a browser; cheap clonable handles
//! ([`Connection`], [`Session`]) send typed commands ([`Command`]) or raw ones, each with a
//! deadline; responses are routed by id and decoded straight from the raw JSON (a lone UTF-16
//! surrogate escape in page text decodes as U+FFFD instead of failing); events are
//! routed by session and method to bounded subscriber queues; flattened target sessions are
//! first-class; [`Browser`] launches or [`connect`]s to Chromium.
//!
//! What it does not: know about frames, snapshots or pages as concepts (that is `frame-graph`
//! and above), retry anything, or cover the whole protocol: domain modules hold the hand-written
//! subset this project uses, and [`Session::call`] is the escape hatch for the rest.
//!
//! ```no_run
//! use cdp_protocol::{Browser, LaunchOptions, page, runtime, target};
//!
//! # async fn demo() -> Result<(), cdp_protocol::CdpError> {
//! let browser = Browser::launch(LaunchOptions::default()).await?;
//! let root = browser.connection().browser();
//! let created = root
//!     .send(&target::CreateTarget { url: "about:blank".into(), ..Default::default() })
//!     .await?;
//! let tab = root.attach_to_target(&created.target_id).await?; // flattened session
//! let mut loads = tab.subscribe::<page::LoadEventFired>(); // subscribe before enabling
//! tab.send(&page::Enable).await?;
//! tab.send(&page::Navigate { url: "http://127.0.0.1:8080/".into(), ..Default::default() })
//!     .await?;
//! loads.recv().await;
//! let title = tab
//!     .send(&runtime::Evaluate {
//!         expression: "document.title".into(),
//!         return_by_value: Some(true),
//!         ..Default::default()
//!     })
//!     .await?;
//! println!("{:?}", title.result.value);
//! browser.close().await?;
//! # Ok(())
//! # }
//! ```
//!
//! Map:
//! - [`ids`]: newtype ids (`SessionId`, `TargetId`, `FrameId`, `BackendNodeId`, ...).
//! - [`Command`], [`Event`], [`Empty`]: the typed-call traits.
//! - domain modules: [`target`], [`page`], [`dom`], [`dom_snapshot`], [`runtime`],
//!   [`accessibility`], [`input`], [`inspector`], [`network`], [`emulation`], [`storage`], [`log`],
//!   [`browser`], [`fetch`].
//! - [`Connection`], [`ConnectOptions`], [`Session`]: the transport.
//! - [`Transport`], [`Link`]: sessions over another CDP client (e.g. your own tokio-tungstenite
//!   socket), with [`Replies`] and [`EventHub`] as the routing an adapter needs.
//! - [`EventFilter`], [`SessionFilter`], [`EventStream`], [`TypedEventStream`], [`RawEvent`]: events.
//! - [`Browser`], [`LaunchOptions`], [`find_executable`], [`connect`], [`connect_with`]:
//!   launching and connecting (`ws://`, `wss://`, `http://`, `https://`; TLS is rustls), each
//!   within one budget.
//! - [`process`]: process identity (pid + start time + boot id), identity-checked signals
//!   through pidfds, the profile scan for leftover helpers, children that are always reaped.
//! - [`redact_url`]: an endpoint URL without credentials or token-like parameters, for output.
//! - `CDP_TRACE=<file>`: an opt-in timing line per call (method, duration, size; no payloads).
//! - `testing` (feature `test-support`): fixture HTTP server and test-browser launcher.
//! - [`CdpError`]: the one error type.

mod connection;
mod domains;
mod error;
mod events;
pub mod ids;
mod launch;
pub mod process;
mod protocol;
mod proxy;
mod redact;
mod session;
mod surrogates;
#[cfg(feature = "test-support")]
pub mod testing;
mod tls;
mod trace;
mod transport;
mod wire;

pub use connection::{
    ConnectOptions, Connection, DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_SEND_QUEUE, DEFAULT_TIMEOUT,
};
pub use domains::{
    accessibility, browser, dom, dom_snapshot, emulation, fetch, input, inspector, log, network,
    page, runtime, storage, target,
};
pub use error::{CdpError, ErrorKind};
pub use events::{
    DEFAULT_EVENT_CAPACITY, EventFilter, EventStream, RawEvent, SessionFilter, TypedEventStream,
};
pub use ids::*;
pub use launch::{
    BROWSER_NAMES, BROWSER_PATH_ENV, Browser, DetachedBrowser, LaunchOptions, STANDARD_FLAGS,
    connect, connect_with, find_executable,
};
pub use process::{ProcessIdentity, running_as_root};
pub use protocol::{Command, Empty, Event};
pub use proxy::ProxyConfig;
pub use redact::redact_url;
pub use session::{RawResponse, Session};
pub use tls::pem_certificates;
pub use transport::{EventHub, Link, Replies, Reply, Request, Transport};
