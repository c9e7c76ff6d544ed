//! The connection: one background task owns the WebSocket; handles talk to it over channels.

use crate::error::CdpError;
use crate::events::{EventFilter, EventStream, RawEvent, Subscriber};
use crate::ids::SessionId;
use crate::session::Session;
use crate::wire::FrameBoundary;
use futures::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Default largest accepted message: 256 MiB (full-page screenshots and big DOM/AX dumps).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 256 * 1024 * 1024;
/// Default deadline of a call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long closing the socket may take before the task gives up on a clean close.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How many detached session ids the socket task remembers.
const MAX_CLOSED_SESSIONS: usize = 10_000;
/// Messages at least this long make the socket task drop tungstenite's read buffer after them.
const SHED_AFTER: usize = 1 << 20;
/// Read-ahead below the frame-boundary cut (keeps small messages at one syscall each).
const READ_BUFFER: usize = 64 * 1024;
/// The socket the task owns.
type Socket =
    tokio_tungstenite::WebSocketStream<FrameBoundary<tokio::io::BufReader<crate::tls::Stream>>>;
/// How many queued calls the socket task writes before flushing.
const WRITE_BATCH: usize = 128;

/// Options for [`Connection::connect`].
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Extra HTTP headers for the WebSocket handshake (auth for remote/cloud browsers).
    pub headers: Vec<(String, String)>,
    /// Largest accepted message and frame, in bytes (default 256 MiB).
    pub max_message_size: usize,
    /// Deadline of calls made without an explicit one, and of the handshake (default 30 s).
    pub default_timeout: Duration,
    /// Extra trusted root certificates (DER) for `wss://`/`https://`, on top of webpki-roots.
    pub root_certificates: Vec<Vec<u8>>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            headers: Vec::new(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            default_timeout: DEFAULT_TIMEOUT,
            root_certificates: Vec::new(),
        }
    }
}

impl ConnectOptions {
    /// Adds a handshake header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Replaces the handshake headers.
    pub fn headers(mut self, headers: Vec<(String, String)>) -> Self {
        self.headers = headers;
        self
    }

    /// Sets the largest accepted message, in bytes.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// Sets the default call deadline.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Trusts one more root certificate (DER) for TLS endpoints (private or self-signed CAs).
    pub fn add_root_certificate(mut self, der: Vec<u8>) -> Self {
        self.root_certificates.push(der);
        self
    }
}

/// A cheap, clonable handle to one browser connection.
///
/// The socket is owned by a background task, which ends when the socket closes or when every
/// handle ([`Connection`], [`Session`]) is dropped. Event streams do not keep it alive.
#[derive(Clone, Debug)]
pub struct Connection {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    tx: mpsc::UnboundedSender<ToActor>,
    next_id: AtomicU64,
    closed: watch::Receiver<bool>,
    default_timeout: Duration,
    url: String,
}

/// A message from a handle to the socket task.
#[derive(Debug)]
enum ToActor {
    Call {
        id: u64,
        session: Option<SessionId>,
        method: String,
        frame: String,
        reply: oneshot::Sender<Result<Utf8Bytes, CdpError>>,
    },
    Cancel(u64),
    Subscribe(Subscriber),
    Close,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Outgoing<'a, P: Serialize + ?Sized> {
    id: u64,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a SessionId>,
    params: &'a P,
}

/// Only what routing needs; `result` is left in the text for the caller to decode.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Incoming<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default)]
    session_id: Option<SessionId>,
    #[serde(default)]
    error: Option<WireError>,
    #[serde(default)]
    params: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct WireError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct SessionParams {
    #[serde(rename = "sessionId")]
    session_id: SessionId,
}

/// The `result` member of a response, decoded straight into `T`.
#[derive(Deserialize)]
struct ResultOf<T> {
    result: T,
}

impl Connection {
    /// Opens a WebSocket to `ws_url` (a browser's `webSocketDebuggerUrl`) and starts its socket task.
    pub async fn connect(ws_url: &str, options: ConnectOptions) -> Result<Connection, CdpError> {
        let connect_err = |reason: String| CdpError::Connect {
            url: ws_url.to_owned(),
            reason,
        };
        let mut request = ws_url
            .into_client_request()
            .map_err(|e| connect_err(e.to_string()))?;
        for (name, value) in &options.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| connect_err(format!("bad header name {name:?}: {e}")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|e| connect_err(format!("bad header value for {name}: {e}")))?;
            request.headers_mut().insert(name, value);
        }
        let config = WebSocketConfig::default()
            .max_message_size(Some(options.max_message_size))
            .max_frame_size(Some(options.max_message_size));
        let (ws, _response) = tokio::time::timeout(
            options.default_timeout,
            open_socket(request, config, &options.root_certificates),
        )
        .await
        .map_err(|_| {
            connect_err(format!(
                "handshake timed out after {:?}",
                options.default_timeout
            ))
        })?
        .map_err(|e| connect_err(e.to_string()))?;

        let (tx, rx) = mpsc::unbounded_channel();
        let (closed_tx, closed_rx) = watch::channel(false);
        tokio::spawn(run_socket(ws, rx, closed_tx));
        Ok(Connection {
            inner: Arc::new(Inner {
                tx,
                next_id: AtomicU64::new(1),
                closed: closed_rx,
                default_timeout: options.default_timeout,
                url: ws_url.to_owned(),
            }),
        })
    }

    /// The root (browser) session: calls without a `sessionId`.
    pub fn browser(&self) -> Session {
        Session::new(self.clone(), None)
    }

    /// A handle for an already attached flattened session. It does not know which session
    /// attached it: detach it with [`Session::detach_from`], or make it with [`Session::child`].
    pub fn session(&self, id: SessionId) -> Session {
        Session::new(self.clone(), Some(id))
    }

    /// Subscribes to events; subscribe before enabling the domain so nothing is missed.
    pub fn events(&self, filter: EventFilter) -> EventStream {
        let (sub, stream) = Subscriber::new(filter);
        // If the task is gone the subscriber is dropped here and the stream ends at once.
        let _ = self.inner.tx.send(ToActor::Subscribe(sub));
        stream
    }

    /// True once the socket is closed.
    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow() || self.inner.tx.is_closed()
    }

    /// Resolves when the socket is closed (browser exited, connection dropped or [`Connection::close`]).
    pub async fn closed(&self) {
        let mut rx = self.inner.closed.clone();
        // An error means the task ended, which also means closed.
        let _ = rx.wait_for(|closed| *closed).await;
    }

    /// Closes the socket; every pending call fails with [`CdpError::ConnectionClosed`].
    /// Waits (bounded) until the socket task has finished.
    pub async fn close(&self) {
        let _ = self.inner.tx.send(ToActor::Close);
        let _ = tokio::time::timeout(CLOSE_GRACE * 2, self.closed()).await;
    }

    /// The WebSocket URL this connection was opened with.
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The deadline used by calls without an explicit one.
    pub fn default_timeout(&self) -> Duration {
        self.inner.default_timeout
    }

    /// Sends one call and waits for the raw response text (the whole message).
    pub(crate) async fn call_raw<P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<Utf8Bytes, CdpError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = serde_json::to_string(&Outgoing {
            id,
            method,
            session_id: session,
            params,
        })
        .map_err(|source| CdpError::Decode {
            what: format!("params of {method}"),
            source,
        })?;
        let (reply, rx) = oneshot::channel();
        self.inner
            .tx
            .send(ToActor::Call {
                id,
                session: session.cloned(),
                method: method.to_owned(),
                frame,
                reply,
            })
            .map_err(|_| CdpError::ConnectionClosed)?;
        // If this future is dropped mid-wait, the guard tells the task to forget the call.
        let mut guard = CancelOnDrop {
            tx: &self.inner.tx,
            id,
            armed: true,
        };
        let outcome = tokio::time::timeout(timeout, rx).await;
        match outcome {
            Ok(Ok(result)) => {
                guard.armed = false;
                result
            }
            Ok(Err(_)) => {
                guard.armed = false;
                Err(CdpError::ConnectionClosed)
            }
            Err(_) => Err(CdpError::Timeout {
                method: method.to_owned(),
                after: timeout,
            }),
        }
    }

    /// Sends one call and decodes its `result` straight from the response text into `T`
    /// (retrying once with lone surrogate escapes replaced by U+FFFD if that fails).
    pub(crate) async fn call_typed<T: serde::de::DeserializeOwned, P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<T, CdpError> {
        let text = self.call_raw(session, method, params, timeout).await?;
        // Lenient only on failure: page text may carry lone UTF-16 surrogate escapes.
        crate::surrogates::from_str_lenient::<ResultOf<T>>(text.as_str())
            .map(|r| r.result)
            .map_err(|source| CdpError::Decode {
                what: format!("response of {method}"),
                source,
            })
    }
}

struct CancelOnDrop<'a> {
    tx: &'a mpsc::UnboundedSender<ToActor>,
    id: u64,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.tx.send(ToActor::Cancel(self.id));
        }
    }
}

#[derive(Debug)]
struct Pending {
    method: String,
    session: Option<SessionId>,
    reply: oneshot::Sender<Result<Utf8Bytes, CdpError>>,
}

/// State of the socket task.
#[derive(Default)]
struct Router {
    pending: HashMap<u64, Pending>,
    subscribers: Vec<Subscriber>,
    closed_sessions: HashSet<SessionId>,
    /// Insertion order of `closed_sessions`, to bound its size.
    closed_order: VecDeque<SessionId>,
}

enum Flow {
    Continue,
    Stop,
}

async fn run_socket(
    mut ws: Socket,
    mut rx: mpsc::UnboundedReceiver<ToActor>,
    closed_tx: watch::Sender<bool>,
) {
    let mut router = Router::default();
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let Some(msg) = msg else {
                    // Every handle is gone: close politely and stop.
                    let _ = tokio::time::timeout(CLOSE_GRACE, ws.close(None)).await;
                    break;
                };
                let mut flow = router.control(msg, &mut ws).await;
                // Write what else is queued before flushing once: fewer syscalls under load.
                let mut batch = 1;
                while matches!(flow, Flow::Continue) && batch < WRITE_BATCH {
                    match rx.try_recv() {
                        Ok(msg) => flow = router.control(msg, &mut ws).await,
                        Err(_) => break,
                    }
                    batch += 1;
                }
                if matches!(flow, Flow::Stop) {
                    let _ = tokio::time::timeout(CLOSE_GRACE, ws.close(None)).await;
                    break;
                }
                if ws.flush().await.is_err() {
                    break;
                }
            }
            frame = ws.next() => match frame {
                Some(Ok(Message::Text(text))) => {
                    let len = text.len();
                    router.incoming(text);
                    ws = shed_read_buffer(ws, len).await;
                }
                Some(Ok(Message::Binary(bytes))) => {
                    if let Ok(text) = Utf8Bytes::try_from(bytes) {
                        router.incoming(text);
                    }
                }
                Some(Ok(Message::Ping(_))) => {
                    // tungstenite queues the pong; flush sends it.
                    if ws.flush().await.is_err() {
                        break;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
        }
    }
    router.fail_all();
    drop(router);
    let _ = closed_tx.send(true);
    // Queued calls still in the channel: dropping their reply senders fails them.
    rx.close();
    while let Ok(msg) = rx.try_recv() {
        drop(msg);
    }
}

/// Connects TCP (and TLS for `wss://`, trusting webpki-roots plus `extra_roots`) and performs
/// the opening handshake, reads cut at frame boundaries (`wire`).
async fn open_socket(
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
    config: WebSocketConfig,
    extra_roots: &[Vec<u8>],
) -> Result<
    (
        Socket,
        tokio_tungstenite::tungstenite::handshake::client::Response,
    ),
    String,
> {
    let uri = request.uri();
    let secure = match uri.scheme_str() {
        Some("ws") => false,
        Some("wss") => true,
        _ => {
            return Err(format!(
                "unsupported URL scheme in {uri} (only ws:// and wss:// are supported)"
            ));
        }
    };
    let host = uri
        .host()
        .ok_or_else(|| format!("no host in {uri}"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(if secure { 443 } else { 80 });
    let tcp = crate::tls::connect(&host, port, secure.then_some(extra_roots)).await?;
    let stream = FrameBoundary::new(tokio::io::BufReader::with_capacity(READ_BUFFER, tcp));
    tokio_tungstenite::client_async_with_config(request, stream, Some(config))
        .await
        .map_err(|e| e.to_string())
}

/// Rebuilds the WebSocket around its stream when that drops a large read buffer and loses
/// nothing: tungstenite keeps the buffer of its largest frame for the life of the connection.
async fn shed_read_buffer(ws: Socket, message_len: usize) -> Socket {
    if message_len < SHED_AFTER || !ws.get_ref().at_end_of_message(message_len) {
        return ws;
    }
    let config = *ws.get_config();
    tokio_tungstenite::WebSocketStream::from_raw_socket(
        ws.into_inner(),
        tokio_tungstenite::tungstenite::protocol::Role::Client,
        Some(config),
    )
    .await
}

/// The id of a message that starts `{"id":N,"result":`, if it does.
fn success_response_id(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("{\"id\":")?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let id = rest[..end].parse().ok()?;
    rest[end..].starts_with(",\"result\":").then_some(id)
}

impl Router {
    async fn control<S>(
        &mut self,
        msg: ToActor,
        ws: &mut tokio_tungstenite::WebSocketStream<S>,
    ) -> Flow
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        match msg {
            ToActor::Call {
                id,
                session,
                method,
                frame,
                reply,
            } => {
                if let Some(s) = session
                    .as_ref()
                    .filter(|s| self.closed_sessions.contains(*s))
                {
                    let _ = reply.send(Err(CdpError::SessionClosed { session: s.clone() }));
                    return Flow::Continue;
                }
                // Registered before the write, so even an instant answer finds its caller.
                self.pending.insert(
                    id,
                    Pending {
                        method,
                        session,
                        reply,
                    },
                );
                if ws.feed(Message::Text(frame.into())).await.is_err() {
                    return Flow::Stop;
                }
                Flow::Continue
            }
            ToActor::Cancel(id) => {
                self.pending.remove(&id);
                Flow::Continue
            }
            ToActor::Subscribe(sub) => {
                self.subscribers.push(sub);
                Flow::Continue
            }
            ToActor::Close => Flow::Stop,
        }
    }

    fn incoming(&mut self, text: Utf8Bytes) {
        // Fast path: Chromium writes `{"id":N,"result":...` for successes. The caller decodes the
        // text anyway, so the socket task need not scan a response that may be tens of MiB.
        if let Some(id) = success_response_id(text.as_str()) {
            if let Some(pending) = self.pending.remove(&id) {
                let _ = pending.reply.send(Ok(text));
            }
            return;
        }
        // Malformed or unexpected messages are skipped: they never break the connection.
        let Ok(msg) = serde_json::from_str::<Incoming<'_>>(text.as_str()) else {
            return;
        };
        if let Some(id) = msg.id {
            let Some(pending) = self.pending.remove(&id) else {
                return; // timed out or cancelled earlier
            };
            let result = match msg.error {
                Some(e) => Err(CdpError::Protocol {
                    method: pending.method,
                    code: e.code,
                    message: e.message,
                    data: e.data.map(|d| match d {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    }),
                }),
                None => Ok(text.clone()),
            };
            let _ = pending.reply.send(result);
            return;
        }
        let Some(method) = msg.method else {
            return;
        };
        let params: Arc<RawValue> = match msg.params {
            Some(p) => Arc::from(p),
            None => match RawValue::from_string("{}".to_owned()) {
                Ok(p) => Arc::from(p),
                Err(_) => return,
            },
        };
        match method.as_ref() {
            "Target.detachedFromTarget" => {
                if let Ok(p) = serde_json::from_str::<SessionParams>(params.get()) {
                    self.session_closed(p.session_id);
                }
            }
            "Target.attachedToTarget" => {
                if let Ok(p) = serde_json::from_str::<SessionParams>(params.get()) {
                    self.closed_sessions.remove(&p.session_id);
                }
            }
            _ => {}
        }
        if self.subscribers.is_empty() {
            return;
        }
        let event = RawEvent {
            method: method.into_owned(),
            session_id: msg.session_id,
            params,
        };
        self.subscribers.retain(|sub| {
            if sub.wants(&event.method, event.session_id.as_ref()) {
                sub.offer(&event)
            } else {
                !sub.is_closed()
            }
        });
    }

    /// Fails every pending call of `session` and every later one.
    fn session_closed(&mut self, session: SessionId) {
        let ids: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.session.as_ref() == Some(&session))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            if let Some(p) = self.pending.remove(&id) {
                let _ = p.reply.send(Err(CdpError::SessionClosed {
                    session: session.clone(),
                }));
            }
        }
        if self.closed_sessions.insert(session.clone()) {
            self.closed_order.push_back(session);
        }
        // Remembering old sessions only makes late calls fail faster (Chromium rejects unknown
        // sessions itself), so the memory is bounded.
        while self.closed_order.len() > MAX_CLOSED_SESSIONS {
            if let Some(old) = self.closed_order.pop_front() {
                self.closed_sessions.remove(&old);
            }
        }
    }

    fn fail_all(&mut self) {
        for (_, p) in self.pending.drain() {
            let _ = p.reply.send(Err(CdpError::ConnectionClosed));
        }
        // Dropping the senders ends every event stream once drained.
        self.subscribers.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::success_response_id;

    #[test]
    fn fast_path_only_takes_plain_success_responses() {
        assert_eq!(success_response_id(r#"{"id":42,"result":{}}"#), Some(42));
        assert_eq!(success_response_id(r#"{"id":42,"error":{}}"#), None);
        assert_eq!(success_response_id(r#"{"id":"x","result":{}}"#), None);
        assert_eq!(success_response_id(r#"{"method":"A.b","params":{}}"#), None);
        assert_eq!(success_response_id(r#"{"id":,"result":{}}"#), None);
        assert_eq!(success_response_id(r#"{ "id":1,"result":{}}"#), None);
        assert_eq!(
            success_response_id(r#"{"id":99999999999999999999999,"result":{}}"#),
            None
        );
    }
}
