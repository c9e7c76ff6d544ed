//! Running sessions over another CDP client: the [`Transport`] trait, the [`Link`] a
//! [`Session`] runs on, and two small helpers ([`Replies`], [`EventHub`]) that let an adapter
//! over a plain WebSocket stay a few dozen lines.
//!
//! Why a call-level seam and not a socket-level one: everything above this crate (frame-graph,
//! a11y-snapshot, the engine) talks to the browser through [`Session`]: typed calls with a
//! deadline, and event subscriptions. A [`Transport`] is exactly that contract, so a client that
//! already routes CDP messages (its own socket task, another crate's handler) plugs in as it is,
//! and the native [`Connection`] path is untouched: [`Session`] picks the path with one `match`,
//! with no boxing, copy or allocation added per message.

use crate::connection::Connection;
use crate::error::CdpError;
use crate::events::{EventFilter, EventStream, RawEvent, Subscriber};
use crate::ids::SessionId;
use crate::session::Session;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// One call handed to a [`Transport`].
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The flattened session to stamp (`None`: the root session).
    pub session: Option<&'a SessionId>,
    /// The method, e.g. `"DOM.getDocument"`.
    pub method: &'a str,
    /// The params, a JSON object.
    pub params: &'a RawValue,
}

impl Request<'_> {
    /// The message text of this call under `id` (`{"id":..,"method":..,"sessionId":..,"params":..}`).
    pub fn to_message(&self, id: u64) -> String {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Outgoing<'a> {
            id: u64,
            method: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            session_id: Option<&'a SessionId>,
            params: &'a RawValue,
        }
        let out = Outgoing {
            id,
            method: self.method,
            session_id: self.session,
            params: self.params,
        };
        // Serializing strings and a RawValue into a String cannot fail.
        serde_json::to_string(&out).unwrap_or_default()
    }
}

/// What another CDP client provides so that [`Session`]s (and so frame-graph and a11y-snapshot)
/// run on it: calls and events. Implement it over any WebSocket (see [`Replies`] and
/// [`EventHub`] for the routing), then [`Link::over`] it.
pub trait Transport: Send + Sync + 'static {
    /// Sends one call and resolves to the whole response message text (`{"id":..,"result":..}`
    /// or `{"id":..,"error":..}`: protocol errors are read from it). The caller applies the
    /// deadline and may drop the future: the call must then be forgotten.
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<String, CdpError>>;

    /// Subscribes to events; events of calls sent after this returned must reach the stream.
    fn events(&self, filter: EventFilter) -> EventStream;

    /// True once the client's socket is closed.
    fn is_closed(&self) -> bool;

    /// The endpoint this client is connected to (it keys per-session state such as
    /// frame-graph's claim on a page session, so it should name the browser).
    fn url(&self) -> &str;
}

/// What sessions run on: this crate's [`Connection`] or another client's [`Transport`].
/// A cheap `Clone` handle.
#[derive(Clone, Debug)]
pub struct Link(Kind);

#[derive(Clone)]
enum Kind {
    Native(Connection),
    Other(Arc<Other>),
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kind::Native(c) => c.fmt(f),
            Kind::Other(o) => f
                .debug_struct("Transport")
                .field("url", &crate::redact_url(o.transport.url()))
                .finish_non_exhaustive(),
        }
    }
}

struct Other {
    transport: Box<dyn Transport>,
    default_timeout: Duration,
    major: tokio::sync::OnceCell<Option<u32>>,
}

impl From<Connection> for Link {
    fn from(conn: Connection) -> Link {
        Link(Kind::Native(conn))
    }
}

impl Link {
    /// Sessions over another CDP client; calls without an explicit deadline wait `default_timeout`.
    pub fn over(transport: impl Transport, default_timeout: Duration) -> Link {
        Link(Kind::Other(Arc::new(Other {
            transport: Box::new(transport),
            default_timeout,
            major: tokio::sync::OnceCell::new(),
        })))
    }

    /// The native connection, when this link is one.
    pub fn connection(&self) -> Option<&Connection> {
        match &self.0 {
            Kind::Native(c) => Some(c),
            Kind::Other(_) => None,
        }
    }

    /// The root (browser) session.
    pub fn browser(&self) -> Session {
        Session::on(self.clone(), None)
    }

    /// A handle for an already attached flattened session (see [`Connection::session`]).
    pub fn session(&self, id: SessionId) -> Session {
        Session::on(self.clone(), Some(id))
    }

    /// Subscribes to events; subscribe before enabling the domain so nothing is missed.
    pub fn events(&self, filter: EventFilter) -> EventStream {
        match &self.0 {
            Kind::Native(c) => c.events(filter),
            Kind::Other(o) => o.transport.events(filter),
        }
    }

    /// True once the socket is closed.
    pub fn is_closed(&self) -> bool {
        match &self.0 {
            Kind::Native(c) => c.is_closed(),
            Kind::Other(o) => o.transport.is_closed(),
        }
    }

    /// The endpoint URL (may hold credentials: print it through [`crate::redact_url`]).
    pub fn url(&self) -> &str {
        match &self.0 {
            Kind::Native(c) => c.url(),
            Kind::Other(o) => o.transport.url(),
        }
    }

    /// The deadline used by calls without an explicit one.
    pub fn default_timeout(&self) -> Duration {
        match &self.0 {
            Kind::Native(c) => c.default_timeout(),
            Kind::Other(o) => o.default_timeout,
        }
    }

    /// The browser's major version (see [`Connection::browser_major`]).
    pub async fn browser_major(&self, timeout: Duration) -> Result<Option<u32>, CdpError> {
        match &self.0 {
            Kind::Native(c) => c.browser_major(timeout).await,
            Kind::Other(o) => {
                let major = o
                    .major
                    .get_or_try_init(|| async {
                        let v = self
                            .browser()
                            .send_timeout(&crate::domains::browser::GetVersion, timeout)
                            .await?;
                        let version = v.product.rsplit('/').next().unwrap_or_default();
                        Ok::<_, CdpError>(version.split('.').next().and_then(|m| m.parse().ok()))
                    })
                    .await?;
                Ok(*major)
            }
        }
    }

    /// One call, answered with the whole response message text.
    pub(crate) async fn call_raw<P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<Utf8Bytes, CdpError> {
        match &self.0 {
            Kind::Native(c) => c.call_raw(session, method, params, timeout).await,
            Kind::Other(o) => o.call_raw(session, method, params, timeout).await,
        }
    }

    /// One call, its `result` decoded into `T`.
    pub(crate) async fn call_typed<T: serde::de::DeserializeOwned, P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<T, CdpError> {
        match &self.0 {
            // The native path as it was: no detour through this module.
            Kind::Native(c) => c.call_typed(session, method, params, timeout).await,
            Kind::Other(o) => {
                let text = o.call_raw(session, method, params, timeout).await?;
                #[derive(Deserialize)]
                struct ResultOf<T> {
                    result: T,
                }
                crate::surrogates::from_str_lenient::<ResultOf<T>>(text.as_str())
                    .map(|r| r.result)
                    .map_err(|source| CdpError::Decode {
                        what: format!("response of {method}"),
                        source,
                    })
            }
        }
    }
}

impl Other {
    async fn call_raw<P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<Utf8Bytes, CdpError> {
        let params = serde_json::to_string(params)
            .and_then(RawValue::from_string)
            .map_err(|source| CdpError::Decode {
                what: format!("params of {method}"),
                source,
            })?;
        let request = Request {
            session,
            method,
            params: &params,
        };
        let text = tokio::time::timeout(timeout, self.transport.call(request))
            .await
            .map_err(|_| CdpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            })??;
        // Only the error member is read here; `result` is skipped unparsed.
        #[derive(Deserialize)]
        struct Reply {
            #[serde(default)]
            error: Option<crate::connection::WireError>,
        }
        let reply: Reply = serde_json::from_str(&text).map_err(|source| CdpError::Decode {
            what: format!("response of {method}"),
            source,
        })?;
        if let Some(e) = reply.error {
            return Err(e.into_error(method.to_owned()));
        }
        Ok(Utf8Bytes::from(text))
    }
}

/// Calls waiting for their responses, for a [`Transport`] adapter: [`Replies::register`] gives
/// an id and the future of its answer, [`Replies::resolve`] hands each received message to its
/// caller. A dropped caller's entry is removed, so timed-out calls do not pile up.
#[derive(Debug, Default)]
pub struct Replies {
    next_id: AtomicU64,
    pending: Arc<Mutex<HashMap<u64, oneshot::Sender<String>>>>,
}

/// The answer to one registered call ([`Replies::register`]).
#[derive(Debug)]
pub struct Reply {
    id: u64,
    rx: oneshot::Receiver<String>,
    pending: Arc<Mutex<HashMap<u64, oneshot::Sender<String>>>>,
}

impl Reply {
    /// The id to send the call under.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The response message text; [`CdpError::ConnectionClosed`] if the socket closed first.
    pub async fn wait(mut self) -> Result<String, CdpError> {
        (&mut self.rx).await.map_err(|_| CdpError::ConnectionClosed)
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        lock(&self.pending).remove(&self.id);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Replies {
    /// A new table.
    pub fn new() -> Replies {
        Replies::default()
    }

    /// Takes the next id and registers its caller (register before sending).
    pub fn register(&self) -> Reply {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        Reply {
            id,
            rx,
            pending: self.pending.clone(),
        }
    }

    /// Hands a response to its caller; gives back a message that is not a response to a
    /// pending call (an event, or an answer to a forgotten call).
    pub fn resolve(&self, text: String) -> Option<String> {
        #[derive(Deserialize)]
        struct Id {
            #[serde(default)]
            id: Option<u64>,
        }
        let Ok(Id { id: Some(id) }) = serde_json::from_str::<Id>(&text) else {
            return Some(text);
        };
        let tx = lock(&self.pending).remove(&id);
        match tx {
            Some(tx) => {
                let _ = tx.send(text);
                None
            }
            None => None,
        }
    }

    /// Fails every pending call with [`CdpError::ConnectionClosed`] (the socket closed).
    pub fn fail_all(&self) {
        lock(&self.pending).clear();
    }
}

/// Event subscribers, for a [`Transport`] adapter: [`EventHub::subscribe`] implements
/// [`Transport::events`], [`EventHub::dispatch`] fans a received event message out.
#[derive(Debug)]
pub struct EventHub {
    /// `None` once closed (new streams end at once).
    subscribers: Mutex<Option<Vec<Subscriber>>>,
}

impl Default for EventHub {
    fn default() -> Self {
        EventHub::new()
    }
}

impl EventHub {
    /// A hub with no subscribers.
    pub fn new() -> EventHub {
        EventHub {
            subscribers: Mutex::new(Some(Vec::new())),
        }
    }

    /// A new subscription (the stream ends once the hub is closed).
    pub fn subscribe(&self, filter: EventFilter) -> EventStream {
        let (sub, stream) = Subscriber::new(filter);
        if let Some(subs) = lock(&self.subscribers).as_mut() {
            subs.push(sub);
        }
        stream
    }

    /// Offers an event message (`{"method":..,"params":..,"sessionId":..}`) to every subscriber
    /// that wants it, without waiting (a full queue drops and counts). Other messages are ignored.
    pub fn dispatch(&self, text: &str) {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Incoming<'a> {
            #[serde(borrow)]
            method: std::borrow::Cow<'a, str>,
            #[serde(default)]
            session_id: Option<SessionId>,
            #[serde(default, borrow)]
            params: Option<&'a RawValue>,
        }
        let Ok(msg) = serde_json::from_str::<Incoming<'_>>(text) else {
            return;
        };
        let mut guard = lock(&self.subscribers);
        let Some(subs) = guard.as_mut() else { return };
        if !subs
            .iter()
            .any(|s| s.wants(&msg.method, msg.session_id.as_ref()))
        {
            subs.retain(|s| !s.is_closed());
            return;
        }
        let params = msg.params.map_or("{}", RawValue::get);
        let Ok(params) = RawValue::from_string(params.to_owned()) else {
            return;
        };
        let event = RawEvent {
            method: msg.method.into_owned(),
            session_id: msg.session_id,
            params: Arc::from(params),
        };
        subs.retain(|s| {
            if s.wants(&event.method, event.session_id.as_ref()) {
                s.offer(&event)
            } else {
                !s.is_closed()
            }
        });
    }

    /// Ends every stream (the socket closed).
    pub fn close(&self) {
        *lock(&self.subscribers) = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_become_messages_with_the_session_last_or_absent() {
        let params = RawValue::from_string(r#"{"depth":0}"#.into()).unwrap();
        let sid = SessionId::from("S1".to_owned());
        let r = Request {
            session: Some(&sid),
            method: "DOM.getDocument",
            params: &params,
        };
        assert_eq!(
            r.to_message(7),
            r#"{"id":7,"method":"DOM.getDocument","sessionId":"S1","params":{"depth":0}}"#
        );
        let root = Request { session: None, ..r };
        assert_eq!(
            root.to_message(8),
            r#"{"id":8,"method":"DOM.getDocument","params":{"depth":0}}"#
        );
    }

    #[tokio::test]
    async fn replies_reach_their_callers_and_events_pass_through() {
        let replies = Replies::new();
        let a = replies.register();
        let b = replies.register();
        assert_ne!(a.id(), b.id());
        let event = r#"{"method":"Page.loadEventFired","params":{}}"#.to_owned();
        assert_eq!(replies.resolve(event.clone()), Some(event));
        let answer = format!(r#"{{"id":{},"result":{{}}}}"#, b.id());
        assert_eq!(replies.resolve(answer.clone()), None);
        assert_eq!(b.wait().await.unwrap(), answer);
        // A dropped caller is forgotten; a late answer is swallowed.
        let a_id = a.id();
        drop(a);
        assert!(lock(&replies.pending).is_empty());
        assert_eq!(
            replies.resolve(format!(r#"{{"id":{a_id},"result":{{}}}}"#)),
            None
        );
        let c = replies.register();
        replies.fail_all();
        assert!(matches!(c.wait().await, Err(CdpError::ConnectionClosed)));
    }

    #[tokio::test]
    async fn the_hub_filters_by_method_and_session_and_ends_on_close() {
        let hub = EventHub::new();
        let s1 = SessionId::from("S1".to_owned());
        let mut only_s1 = hub.subscribe(
            EventFilter::methods(&["Page.frameNavigated"])
                .session(crate::SessionFilter::Only(s1.clone())),
        );
        let mut all = hub.subscribe(EventFilter::all());
        hub.dispatch(r#"{"method":"Page.frameNavigated","params":{"a":1}}"#);
        hub.dispatch(r#"{"method":"Page.frameNavigated","params":{"a":2},"sessionId":"S1"}"#);
        hub.dispatch(r#"{"id":3,"result":{}}"#);
        let got = only_s1.recv().await.unwrap();
        assert_eq!(got.params.get(), r#"{"a":2}"#);
        assert_eq!(got.session_id, Some(s1));
        assert_eq!(all.recv().await.unwrap().params.get(), r#"{"a":1}"#);
        assert_eq!(all.recv().await.unwrap().params.get(), r#"{"a":2}"#);
        hub.close();
        assert!(all.recv().await.is_none());
        assert!(only_s1.recv().await.is_none());
        assert!(hub.subscribe(EventFilter::all()).recv().await.is_none());
    }
}
