//! Sessions: the root (browser) session and flattened target sessions.

use crate::connection::Connection;
use crate::error::CdpError;
use crate::events::{EventFilter, EventStream, SessionFilter, TypedEventStream};
use crate::ids::{SessionId, TargetId};
use crate::protocol::{Command, Event};
use crate::target;
use crate::transport::Link;
use std::time::Duration;

/// A cheap, clonable handle that sends calls on one session (stamping its `sessionId`).
///
/// A flattened session must be detached on the session that attached it. Handles made by
/// [`Session::attach_to_target`] or [`Session::child`] remember that session, so
/// [`Session::detach`] is right for them; for a handle from [`Connection::session`] (which does
/// not know), `detach` assumes the root session and [`Session::detach_from`] names the parent.
#[derive(Clone, Debug)]
pub struct Session {
    link: Link,
    id: Option<SessionId>,
    attached_by: AttachedBy,
}

/// The session a flattened session was attached on, as far as this handle knows.
#[derive(Clone, Debug)]
enum AttachedBy {
    /// Unknown (a handle made from a bare id): assumed to be the root session.
    Unknown,
    /// Attached on this session (`None` = the root session).
    Known(Option<SessionId>),
}

impl Session {
    pub(crate) fn new(conn: Connection, id: Option<SessionId>) -> Session {
        Session::on(Link::from(conn), id)
    }

    pub(crate) fn on(link: Link, id: Option<SessionId>) -> Session {
        Session {
            link,
            id,
            attached_by: AttachedBy::Unknown,
        }
    }

    /// A handle for `id`, a session attached on this one (e.g. auto-attached with
    /// `Target.setAutoAttach{flatten}`, as an OOPIF is on its parent frame's session), so that
    /// [`Session::detach`] sends on this session.
    pub fn child(&self, id: SessionId) -> Session {
        Session {
            link: self.link.clone(),
            id: Some(id),
            attached_by: AttachedBy::Known(self.id.clone()),
        }
    }

    /// The id of the session this one was attached on, when the handle knows it
    /// (`Some(None)`: the root session).
    pub fn attached_by(&self) -> Option<Option<&SessionId>> {
        match &self.attached_by {
            AttachedBy::Unknown => None,
            AttachedBy::Known(parent) => Some(parent.as_ref()),
        }
    }

    /// The session id; `None` for the root (browser) session.
    pub fn id(&self) -> Option<&SessionId> {
        self.id.as_ref()
    }

    /// The native connection this session runs on; `None` over another client's
    /// [`crate::Transport`] (see [`Session::link`]).
    pub fn connection(&self) -> Option<&Connection> {
        self.link.connection()
    }

    /// What this session runs on: a [`Connection`] or another client's [`crate::Transport`].
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Sends a typed command with the connection's default deadline.
    pub async fn send<C: Command>(&self, cmd: &C) -> Result<C::Response, CdpError> {
        self.send_timeout(cmd, self.link.default_timeout()).await
    }

    /// Sends a typed command; fails with [`CdpError::Timeout`] after `timeout`.
    pub async fn send_timeout<C: Command>(
        &self,
        cmd: &C,
        timeout: Duration,
    ) -> Result<C::Response, CdpError> {
        self.link
            .call_typed(self.id.as_ref(), C::METHOD, cmd, timeout)
            .await
    }

    /// Sends a typed command and keeps the response as its raw message text, for results too large
    /// to decode into a copy (screenshots, PDFs): read them in place with [`RawResponse::result`].
    pub async fn send_raw_timeout<C: Command>(
        &self,
        cmd: &C,
        timeout: Duration,
    ) -> Result<RawResponse, CdpError> {
        let text = self
            .link
            .call_raw(self.id.as_ref(), C::METHOD, cmd, timeout)
            .await?;
        Ok(RawResponse {
            text,
            method: C::METHOD,
        })
    }

    /// Sends any method with JSON params (the escape hatch) and returns the JSON result.
    pub async fn call(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, CdpError> {
        self.call_timeout(method, params, self.link.default_timeout())
            .await
    }

    /// [`Session::call`] with an explicit deadline.
    pub async fn call_timeout(
        &self,
        method: &str,
        params: serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, CdpError> {
        let params = if params.is_null() {
            serde_json::Value::Object(Default::default())
        } else {
            params
        };
        self.link
            .call_typed(self.id.as_ref(), method, &params, timeout)
            .await
    }

    /// This session's events of the given methods (all methods when empty), in order.
    pub fn events(&self, methods: &[&str]) -> EventStream {
        let filter = if methods.is_empty() {
            EventFilter::all()
        } else {
            EventFilter::methods(methods)
        };
        self.link.events(filter.session(self.filter()))
    }

    /// This session's `E` events, decoded.
    pub fn subscribe<E: Event>(&self) -> TypedEventStream<E> {
        self.events(&[E::METHOD]).typed()
    }

    /// The [`SessionFilter`] selecting this session's events.
    pub fn filter(&self) -> SessionFilter {
        match &self.id {
            Some(id) => SessionFilter::Only(id.clone()),
            None => SessionFilter::Root,
        }
    }

    /// Attaches to a target with a flattened session (`Target.attachToTarget{flatten:true}`),
    /// sent on this session (so child sessions work too).
    pub async fn attach_to_target(&self, target_id: &TargetId) -> Result<Session, CdpError> {
        let resp = self
            .send(&target::AttachToTarget {
                target_id: target_id.clone(),
                flatten: Some(true),
            })
            .await?;
        Ok(self.child(resp.session_id))
    }

    /// Detaches this flattened session (`Target.detachFromTarget`) on the session that attached
    /// it: the one remembered by [`Session::attach_to_target`] / [`Session::child`], else the
    /// root session (right for sessions the root attached; for an auto-attached child session
    /// from [`Connection::session`], use [`Session::detach_from`]). No-op for the root session.
    pub async fn detach(&self) -> Result<(), CdpError> {
        let parent = match &self.attached_by {
            AttachedBy::Known(Some(parent)) => self.link.session(parent.clone()),
            AttachedBy::Known(None) | AttachedBy::Unknown => self.link.browser(),
        };
        self.detach_from(&parent).await
    }

    /// Detaches this flattened session on `parent`, the session that attached it (for an
    /// auto-attached OOPIF: its parent frame's session). No-op for the root session.
    pub async fn detach_from(&self, parent: &Session) -> Result<(), CdpError> {
        let Some(id) = &self.id else { return Ok(()) };
        parent
            .send(&target::DetachFromTarget {
                session_id: Some(id.clone()),
                target_id: None,
            })
            .await
            .map(|_| ())
    }
}

/// A response kept as the whole message text ([`Session::send_raw_timeout`]); its result is decoded
/// borrowing from that text, so a large string field (base64 image data) is never copied.
pub struct RawResponse {
    text: tokio_tungstenite::tungstenite::Utf8Bytes,
    method: &'static str,
}

impl RawResponse {
    /// Decodes the `result` member, borrowing strings from the message where it can
    /// (`&str` fields need strings without JSON escapes, as base64 is).
    pub fn result<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, CdpError> {
        #[derive(serde::Deserialize)]
        struct Wrap<T> {
            result: T,
        }
        serde_json::from_str::<Wrap<T>>(self.text.as_str())
            .map(|w| w.result)
            .map_err(|source| CdpError::Decode {
                what: format!("response of {}", self.method),
                source,
            })
    }

    /// The size of the message in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether the message is empty (never, for a real response).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl std::fmt::Debug for RawResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawResponse")
            .field("method", &self.method)
            .field("bytes", &self.text.len())
            .finish()
    }
}
