//! The connection: one background task owns the WebSocket; handles talk to it over channels.

use crate::error::CdpError;
use crate::events::{EventFilter, EventStream, RawEvent, Subscriber};
use crate::ids::SessionId;
use crate::redact::redact_url;
use crate::session::Session;
use crate::wire::{BACKSTOP_SLACK, FrameBoundary, Oversized};
use futures::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Default largest accepted message: 256 MiB (full-page screenshots and big DOM/AX dumps).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 256 * 1024 * 1024;
/// Default deadline of a call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default number of calls that may wait for the socket task before senders wait too.
pub const DEFAULT_SEND_QUEUE: usize = 256;
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
/// Default heartbeat: a WebSocket ping after this long with nothing heard from the browser.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(5);
/// Silence, in heartbeats, after which the link counts as dead (pings unanswered).
const HEARTBEAT_DEAD_AFTER: u32 = 3;

/// Options for [`Connection::connect`].
#[derive(Clone)]
pub struct ConnectOptions {
    /// Extra HTTP headers for the WebSocket handshake (auth for remote/cloud browsers).
    pub headers: Vec<(String, String)>,
    /// Largest message, in bytes (default 256 MiB). A larger answer fails its call with
    /// [`CdpError::MessageTooLarge`] and a larger event is skipped and counted as lost; the
    /// connection stays up either way, and the skipped bytes are never buffered.
    pub max_message_size: usize,
    /// Deadline of calls made without an explicit one (default 30 s), and of connecting when
    /// `connect_timeout` is unset.
    pub default_timeout: Duration,
    /// Budget of the whole connect: endpoint discovery (`/json/version`), TCP, TLS and the
    /// WebSocket handshake; `None` = `default_timeout`.
    pub connect_timeout: Option<Duration>,
    /// Extra trusted root certificates (DER) for `wss://`/`https://`, on top of webpki-roots.
    pub root_certificates: Vec<Vec<u8>>,
    /// How many calls may wait for the socket task (default 256); more wait to be queued, and
    /// one still waiting at its deadline fails with [`CdpError::QueueFull`] (never sent).
    pub send_queue: usize,
    /// HTTP proxies for the endpoint (`HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, given by the caller).
    pub proxy: crate::ProxyConfig,
    /// After this long with nothing heard, the socket task sends a WebSocket ping (Chromium's
    /// DevTools server answers it on its IO thread, however busy the pages are); after three
    /// times this long with nothing heard at all, the link is dead and the connection closes,
    /// failing its calls with [`CdpError::ConnectionClosed`] at once. Without it a link that
    /// drops packets (a cut cable, a lost NAT entry) leaves the socket open and every call
    /// waits its whole deadline until TCP gives up, many minutes later. Default 5 s; zero turns
    /// it off.
    pub heartbeat: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            headers: Vec::new(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            default_timeout: DEFAULT_TIMEOUT,
            connect_timeout: None,
            root_certificates: Vec::new(),
            send_queue: DEFAULT_SEND_QUEUE,
            proxy: crate::ProxyConfig::default(),
            heartbeat: DEFAULT_HEARTBEAT,
        }
    }
}

/// Header values (often `Authorization`) are never printed.
impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(name, _)| (name.as_str(), "***"))
            .collect();
        f.debug_struct("ConnectOptions")
            .field("headers", &headers)
            .field("max_message_size", &self.max_message_size)
            .field("default_timeout", &self.default_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("root_certificates", &self.root_certificates.len())
            .field("send_queue", &self.send_queue)
            .finish()
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

    /// Sets the budget of the whole connect (discovery, TCP, TLS, handshake).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Trusts one more root certificate (DER) for TLS endpoints (private or self-signed CAs).
    pub fn add_root_certificate(mut self, der: Vec<u8>) -> Self {
        self.root_certificates.push(der);
        self
    }

    /// Sets how many calls may wait for the socket task.
    pub fn send_queue(mut self, calls: usize) -> Self {
        self.send_queue = calls;
        self
    }

    /// Sets the heartbeat (zero: off); see [`ConnectOptions::heartbeat`].
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every;
        self
    }

    /// The connect budget in effect.
    pub(crate) fn connect_budget(&self) -> Duration {
        self.connect_timeout.unwrap_or(self.default_timeout)
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

struct Inner {
    /// Calls, bounded: a socket that cannot keep up slows senders down. Behind a fair lock so
    /// that calls made together are queued in the order they were made even when the queue is
    /// full: the channel hands its free slots out in order, but each sender queues its call only
    /// when it is next polled, and concurrent senders (a batch of key events) are polled in any
    /// order (400 calls through a queue of 4 were sent as ..., 347, 349, 350, 348, ...).
    calls: tokio::sync::Mutex<mpsc::Sender<Call>>,
    /// Cancels and close: never wait, so unbounded (at most one cancel per call sent).
    control: mpsc::UnboundedSender<Control>,
    /// Subscriptions, handed over synchronously (see [`Inbox`]).
    inbox: Arc<Inbox>,
    next_id: AtomicU64,
    closed: watch::Receiver<bool>,
    default_timeout: Duration,
    url: String,
    /// Messages over the limit that were skipped (events and unroutable ones).
    skipped: Arc<AtomicU64>,
    /// The browser's major version, once asked (`None`: a product string without one).
    major: tokio::sync::OnceCell<Option<u32>>,
}

/// The URL may carry credentials: printed redacted.
impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &redact_url(&self.url))
            .field("closed", &*self.closed.borrow())
            .finish_non_exhaustive()
    }
}

/// New subscriptions on their way to the socket task. A subscription must be in place before
/// any event caused by a call sent after [`Connection::events`] returned, so it is not a message
/// that could be overtaken: the socket task takes new ones before routing each event.
#[derive(Debug)]
struct Inbox {
    /// `None` once the socket task has ended (new subscriptions are dropped: their streams end).
    waiting: Mutex<Option<Vec<Subscriber>>>,
    /// Set when `waiting` has something (saves the lock on every event).
    flag: AtomicBool,
}

impl Default for Inbox {
    fn default() -> Self {
        Inbox::new()
    }
}

impl Inbox {
    fn new() -> Inbox {
        Inbox {
            waiting: Mutex::new(Some(Vec::new())),
            flag: AtomicBool::new(false),
        }
    }

    fn push(&self, sub: Subscriber) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = waiting.as_mut() {
            w.push(sub);
            self.flag.store(true, Ordering::Release);
        }
    }

    fn take(&self, into: &mut Vec<Subscriber>) {
        if self.flag.swap(false, Ordering::Acquire) {
            let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(w) = waiting.as_mut() {
                into.append(w);
            }
        }
    }

    fn close(&self) {
        *self.waiting.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// A call on its way to the socket task.
#[derive(Debug)]
struct Call {
    id: u64,
    session: Option<SessionId>,
    method: String,
    frame: String,
    reply: oneshot::Sender<Result<Utf8Bytes, CdpError>>,
}

/// Control messages from handles to the socket task.
#[derive(Debug)]
enum Control {
    Cancel(u64),
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
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

/// The `error` member of a response, as the browser sends it.
#[derive(Deserialize)]
pub(crate) struct WireError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<serde_json::Value>,
}

impl WireError {
    /// The error of a call of `method` the browser answered with this.
    pub(crate) fn into_error(self, method: String) -> CdpError {
        CdpError::Protocol {
            method,
            code: self.code,
            message: self.message,
            data: self.data.map(|d| match d {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            }),
        }
    }
}

#[derive(Deserialize)]
struct SessionParams {
    #[serde(rename = "sessionId")]
    session_id: SessionId,
}

/// The major version in a product string (`HeadlessChrome/148.0.7778.167` is 148).
fn major_of(product: &str) -> Option<u32> {
    let version = product.rsplit('/').next()?;
    version.split('.').next()?.parse().ok()
}

/// The `result` member of a response, decoded straight into `T`.
#[derive(Deserialize)]
struct ResultOf<T> {
    result: T,
}

impl Connection {
    /// Opens a WebSocket to `ws_url` (a browser's `webSocketDebuggerUrl`) and starts its socket
    /// task, within the options' connect budget.
    pub async fn connect(ws_url: &str, options: ConnectOptions) -> Result<Connection, CdpError> {
        let deadline = Instant::now() + options.connect_budget();
        Self::connect_until(ws_url, options, deadline).await
    }

    /// [`Connection::connect`] that gives up at `deadline` (the rest of a larger budget).
    pub(crate) async fn connect_until(
        ws_url: &str,
        options: ConnectOptions,
        deadline: Instant,
    ) -> Result<Connection, CdpError> {
        let connect_err = |reason: String| CdpError::Connect {
            url: redact_url(ws_url),
            reason,
        };
        let mut request = ws_url
            .into_client_request()
            .map_err(|e| connect_err(e.to_string()))?;
        for (name, value) in &options.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| connect_err(format!("bad header name {name:?}: {e}")))?;
            // The value is a secret more often than not: never echoed.
            let value = HeaderValue::from_str(value)
                .map_err(|_| connect_err(format!("bad header value for {name}")))?;
            request.headers_mut().insert(name, value);
        }
        // Our limit is applied below tungstenite (`wire`); its own is only a backstop.
        let backstop = options.max_message_size.saturating_add(BACKSTOP_SLACK);
        let config = WebSocketConfig::default()
            .max_message_size(Some(backstop))
            .max_frame_size(Some(backstop));
        let (ws, _response) = tokio::time::timeout_at(
            deadline,
            open_socket(
                request,
                config,
                (&options.root_certificates, &options.proxy),
                options.max_message_size,
            ),
        )
        .await
        .map_err(|_| CdpError::ConnectTimeout {
            url: redact_url(ws_url),
            after: options.connect_budget(),
        })?
        .map_err(|e| connect_err(redact_url(&e)))?;

        let (calls, calls_rx) = mpsc::channel(options.send_queue.max(1));
        let (control, control_rx) = mpsc::unbounded_channel();
        let (closed_tx, closed_rx) = watch::channel(false);
        let inbox = Arc::new(Inbox::new());
        let skipped = Arc::new(AtomicU64::new(0));
        let router = Router {
            inbox: inbox.clone(),
            skipped: skipped.clone(),
            limit: u64::try_from(options.max_message_size).unwrap_or(u64::MAX),
            ..Router::default()
        };
        let heartbeat = options.heartbeat;
        tokio::spawn(run_socket(
            ws, router, calls_rx, control_rx, closed_tx, heartbeat,
        ));
        Ok(Connection {
            inner: Arc::new(Inner {
                calls: tokio::sync::Mutex::new(calls),
                control,
                inbox,
                next_id: AtomicU64::new(1),
                closed: closed_rx,
                default_timeout: options.default_timeout,
                url: ws_url.to_owned(),
                skipped,
                major: tokio::sync::OnceCell::new(),
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
        self.inner.inbox.push(sub);
        stream
    }

    /// True once the socket is closed.
    pub fn is_closed(&self) -> bool {
        *self.inner.closed.borrow() || self.inner.control.is_closed()
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
        let _ = self.inner.control.send(Control::Close);
        let _ = tokio::time::timeout(CLOSE_GRACE * 2, self.closed()).await;
    }

    /// The WebSocket URL this connection was opened with, as given (it may hold credentials:
    /// print it through [`crate::redact_url`]).
    pub fn url(&self) -> &str {
        &self.inner.url
    }

    /// The deadline used by calls without an explicit one.
    pub fn default_timeout(&self) -> Duration {
        self.inner.default_timeout
    }

    /// The browser's major version (`Browser.getVersion`, asked once per connection; a failed
    /// call is not kept, `None` is a product string without a version).
    pub async fn browser_major(&self, timeout: Duration) -> Result<Option<u32>, CdpError> {
        let major = self
            .inner
            .major
            .get_or_try_init(|| async {
                let v = self
                    .browser()
                    .send_timeout(&crate::domains::browser::GetVersion, timeout)
                    .await?;
                Ok::<_, CdpError>(major_of(&v.product))
            })
            .await?;
        Ok(*major)
    }

    /// How many messages were over the message limit and skipped without failing a call
    /// (events, and messages that answered no pending call).
    pub fn skipped_messages(&self) -> u64 {
        self.inner.skipped.load(Ordering::Relaxed)
    }

    /// Sends one call and waits for the raw response text (the whole message).
    pub(crate) async fn call_raw<P: Serialize + ?Sized>(
        &self,
        session: Option<&SessionId>,
        method: &str,
        params: &P,
        timeout: Duration,
    ) -> Result<Utf8Bytes, CdpError> {
        let deadline = Instant::now() + timeout;
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
        let call = Call {
            id,
            session: session.cloned(),
            method: method.to_owned(),
            frame,
            reply,
        };
        let queue = async {
            let calls = self.inner.calls.lock().await;
            calls.send(call).await
        };
        match tokio::time::timeout_at(deadline, queue).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(CdpError::ConnectionClosed),
            Err(_) => {
                return Err(CdpError::QueueFull {
                    method: method.to_owned(),
                    after: timeout,
                });
            }
        }
        // If this future is dropped mid-wait, the guard tells the task to forget the call.
        let mut guard = CancelOnDrop {
            tx: &self.inner.control,
            id,
            armed: true,
        };
        let traced = crate::trace::enabled().then(std::time::Instant::now);
        let outcome = tokio::time::timeout_at(deadline, rx).await;
        if let Some(started) = traced {
            let (ok, bytes) = match &outcome {
                Ok(Ok(Ok(text))) => (true, text.len()),
                _ => (false, 0),
            };
            crate::trace::record(started, method, session, ok, bytes);
        }
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
    tx: &'a mpsc::UnboundedSender<Control>,
    id: u64,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.tx.send(Control::Cancel(self.id));
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
    inbox: Arc<Inbox>,
    closed_sessions: HashSet<SessionId>,
    /// Insertion order of `closed_sessions`, to bound its size.
    closed_order: VecDeque<SessionId>,
    /// The message limit, for [`CdpError::MessageTooLarge`].
    limit: u64,
    skipped: Arc<AtomicU64>,
}

enum Flow {
    Continue,
    Stop,
}

async fn run_socket(
    mut ws: Socket,
    mut router: Router,
    mut calls: mpsc::Receiver<Call>,
    mut control: mpsc::UnboundedReceiver<Control>,
    closed_tx: watch::Sender<bool>,
    heartbeat: Duration,
) {
    // Ticks at the heartbeat (the branch is off when it is zero); `heard` is when the browser
    // last sent anything.
    let beat = heartbeat.max(Duration::from_millis(1));
    let mut ticks = tokio::time::interval_at(Instant::now() + beat, beat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut heard = Instant::now();
    let mut consumed_seen = ws.get_ref().consumed();
    loop {
        tokio::select! {
            _ = ticks.tick(), if !heartbeat.is_zero() => {
                // Bytes of a message still arriving are a sign of life too.
                let consumed = ws.get_ref().consumed();
                if consumed != consumed_seen {
                    consumed_seen = consumed;
                    heard = Instant::now();
                }
                let quiet = heard.elapsed();
                // Pings unanswered: the link drops everything. Closing fails the calls now
                // (the caller reconnects) rather than at their deadlines.
                if quiet >= heartbeat * HEARTBEAT_DEAD_AFTER {
                    break;
                }
                if quiet >= heartbeat {
                    let ping = ws.send(Message::Ping(Default::default()));
                    if !matches!(tokio::time::timeout(CLOSE_GRACE, ping).await, Ok(Ok(()))) {
                        break;
                    }
                }
            }
            msg = control.recv() => match msg {
                Some(Control::Cancel(id)) => {
                    router.pending.remove(&id);
                }
                // `None`: every handle is gone. Either way, close politely and stop.
                Some(Control::Close) | None => {
                    let _ = tokio::time::timeout(CLOSE_GRACE, ws.close(None)).await;
                    break;
                }
            },
            call = calls.recv() => {
                let Some(call) = call else {
                    let _ = tokio::time::timeout(CLOSE_GRACE, ws.close(None)).await;
                    break;
                };
                let mut flow = router.call(call, &mut ws).await;
                // Write what else is queued before flushing once: fewer syscalls under load.
                let mut batch = 1;
                while matches!(flow, Flow::Continue) && batch < WRITE_BATCH {
                    match calls.try_recv() {
                        Ok(call) => flow = router.call(call, &mut ws).await,
                        Err(_) => break,
                    }
                    batch += 1;
                }
                if matches!(flow, Flow::Stop) || ws.flush().await.is_err() {
                    break;
                }
            }
            frame = ws.next() => {
                if matches!(frame, Some(Ok(_))) {
                    heard = Instant::now();
                }
                match frame {
                    Some(Ok(Message::Text(text))) => {
                        match ws.get_mut().take_oversized() {
                            // This message is the stand-in for one that was skipped.
                            Some(skipped) => router.oversized(&skipped),
                            None => {
                                let len = text.len();
                                router.incoming(text);
                                ws = shed_read_buffer(ws, len).await;
                            }
                        }
                    }
                    Some(Ok(Message::Binary(bytes))) => match ws.get_mut().take_oversized() {
                        Some(skipped) => router.oversized(&skipped),
                        None => {
                            if let Ok(text) = Utf8Bytes::try_from(bytes) {
                                router.incoming(text);
                            }
                        }
                    },
                    Some(Ok(Message::Ping(_))) => {
                        // tungstenite queues the pong; flush sends it.
                        if ws.flush().await.is_err() {
                            break;
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(_)) | None => break,
                }
            }
        }
    }
    router.fail_all();
    router.inbox.close();
    drop(router);
    let _ = closed_tx.send(true);
    // Queued calls still in the channel: dropping their reply senders fails them.
    calls.close();
    while calls.try_recv().is_ok() {}
}

/// Connects TCP (and TLS for `wss://`, trusting webpki-roots plus `extra_roots`) and performs
/// the opening handshake, reads cut at frame boundaries and messages over `limit` skipped
/// (`wire`).
async fn open_socket(
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
    config: WebSocketConfig,
    (extra_roots, proxy): (&[Vec<u8>], &crate::ProxyConfig),
    limit: usize,
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
    let tcp = crate::tls::connect(&host, port, secure.then_some(extra_roots), proxy).await?;
    let stream = FrameBoundary::new(tokio::io::BufReader::with_capacity(READ_BUFFER, tcp), limit);
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
    let (id, rest) = leading_id(text)?;
    rest.starts_with(",\"result\":").then_some(id)
}

/// `{"id":N` at the very start (Chromium writes `id` first): the id and what follows it.
fn leading_id(text: &str) -> Option<(u64, &str)> {
    let rest = text.strip_prefix("{\"id\":")?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    Some((rest[..end].parse().ok()?, &rest[end..]))
}

/// `"id":N}` at the very end (a peer that writes `id` last).
fn trailing_id(text: &str) -> Option<u64> {
    let body = text.strip_suffix('}')?;
    let start = body.rfind(|c: char| !c.is_ascii_digit())? + 1;
    let (before, digits) = body.split_at(start);
    let before = before.strip_suffix("\"id\":")?;
    matches!(before.chars().last(), Some(',' | '{')).then(|| digits.parse().ok())?
}

/// The method of a message that starts `{"method":"NAME",` (Chromium's events), if it does.
fn leading_method(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("{\"method\":\"")?;
    let end = rest.find('"')?;
    let method = &rest[..end];
    (!method.contains('\\') && rest[end + 1..].starts_with(',')).then_some(method)
}

/// The session of a message that ends `,"sessionId":"ID"}` (Chromium appends it last), if it
/// does. A top-level key: inside a string the quotes would be escaped, and inside a nested
/// object the message would end `}}`.
fn trailing_session(text: &str) -> Option<&str> {
    let body = text.strip_suffix("\"}")?;
    let start = body.rfind('"')? + 1;
    let (before, id) = body.split_at(start);
    let before = before.strip_suffix("\"sessionId\":\"")?;
    (before.ends_with(',') && !id.contains('\\')).then_some(id)
}

/// Events the router itself follows, whoever subscribes.
fn routing_event(method: &str) -> bool {
    matches!(
        method,
        "Target.detachedFromTarget" | "Target.attachedToTarget"
    )
}

impl Router {
    async fn call<S>(&mut self, call: Call, ws: &mut tokio_tungstenite::WebSocketStream<S>) -> Flow
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let Call {
            id,
            session,
            method,
            frame,
            reply,
        } = call;
        if let Some(s) = session
            .as_ref()
            .filter(|s| self.closed_sessions.contains(*s))
        {
            let _ = reply.send(Err(CdpError::SessionClosed { session: s.clone() }));
            return Flow::Continue;
        }
        // Registered before the write, so even an instant answer finds its caller; not at all
        // if the caller already gave up (its cancel may have overtaken the call).
        if !reply.is_closed() {
            self.pending.insert(
                id,
                Pending {
                    method,
                    session,
                    reply,
                },
            );
        }
        if ws.feed(Message::Text(frame.into())).await.is_err() {
            return Flow::Stop;
        }
        Flow::Continue
    }

    /// A message over the limit was skipped: fail the call it answers, or count the event as
    /// lost for every subscriber that wanted it.
    fn oversized(&mut self, skipped: &Oversized) {
        let head = String::from_utf8_lossy(&skipped.head);
        let tail = String::from_utf8_lossy(&skipped.tail);
        let id = leading_id(&head)
            .map(|(id, _)| id)
            .or_else(|| trailing_id(&tail));
        if let Some(pending) = id.and_then(|id| self.pending.remove(&id)) {
            let _ = pending.reply.send(Err(CdpError::MessageTooLarge {
                method: pending.method,
                size: skipped.size,
                limit: self.limit,
            }));
            return;
        }
        self.skipped.fetch_add(1, Ordering::Relaxed);
        if let Some(method) = leading_method(&head) {
            self.inbox.take(&mut self.subscribers);
            let session = trailing_session(&tail).map(|s| SessionId::from(s.to_owned()));
            for sub in &self.subscribers {
                if sub.wants(method, session.as_ref()) {
                    sub.lost();
                }
            }
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
        self.inbox.take(&mut self.subscribers);
        // Fast path for events nobody wants: decided on the method (and, where Chromium puts it
        // last, the session) before any parse.
        if let Some(method) = leading_method(text.as_str())
            && !routing_event(method)
        {
            let session = trailing_session(text.as_str());
            let wanted = match session {
                Some(s) => {
                    let s = SessionId::from(s.to_owned());
                    self.subscribers
                        .iter()
                        .any(|sub| sub.wants(method, Some(&s)))
                }
                None => self.subscribers.iter().any(|sub| sub.wants_method(method)),
            };
            if !wanted {
                return;
            }
        }
        // Malformed or unexpected messages are skipped: they never break the connection.
        // `params` is borrowed, not copied, until a subscriber wants it.
        let Ok(msg) = serde_json::from_str::<Incoming<'_>>(text.as_str()) else {
            return;
        };
        if let Some(id) = msg.id {
            let Some(pending) = self.pending.remove(&id) else {
                return; // timed out or cancelled earlier
            };
            let result = match msg.error {
                Some(e) => Err(e.into_error(pending.method)),
                None => Ok(text.clone()),
            };
            let _ = pending.reply.send(result);
            return;
        }
        let Some(method) = msg.method else {
            return;
        };
        let params = msg.params.map_or("{}", RawValue::get);
        match method.as_ref() {
            "Target.detachedFromTarget" => {
                if let Ok(p) = serde_json::from_str::<SessionParams>(params) {
                    self.session_closed(p.session_id);
                }
            }
            "Target.attachedToTarget" => {
                if let Ok(p) = serde_json::from_str::<SessionParams>(params) {
                    self.closed_sessions.remove(&p.session_id);
                }
            }
            _ => {}
        }
        let session = msg.session_id;
        if !self
            .subscribers
            .iter()
            .any(|sub| sub.wants(&method, session.as_ref()))
        {
            self.subscribers.retain(|sub| !sub.is_closed());
            return;
        }
        // The one copy of the params, shared by every subscriber that gets the event.
        let Ok(params) = RawValue::from_string(params.to_owned()) else {
            return;
        };
        let event = RawEvent {
            method: method.into_owned(),
            session_id: session,
            params: Arc::from(params),
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
    use super::{
        leading_id, leading_method, major_of, success_response_id, trailing_id, trailing_session,
    };
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn major_versions_are_read_off_product_strings() {
        assert_eq!(major_of("HeadlessChrome/148.0.7778.167"), Some(148));
        assert_eq!(major_of("Chrome/156.0.8078.73"), Some(156));
        assert_eq!(major_of("Chrome/"), None);
        assert_eq!(major_of(""), None);
    }

    proptest! {
        /// What the routing shortcuts read off Chromium-shaped messages is what a full parse
        /// reads, and where they cannot be sure they say nothing.
        #[test]
        fn routing_shortcuts_agree_with_a_full_parse(
            method in "[A-Za-z]{1,8}\\.[A-Za-z]{1,12}",
            session in proptest::option::of("[A-F0-9]{1,32}"),
            nested in proptest::option::of("[A-F0-9]{1,8}"),
            text in ".{0,12}",
            id in any::<u64>(),
        ) {
            let mut params = json!({"text": text});
            if let Some(n) = &nested {
                // A nested `sessionId` (as in Target.attachedToTarget) is not the message's.
                params["sessionId"] = json!(n);
            }
            // serde_json writes keys in order: method, params, sessionId, as Chromium does.
            let mut event = json!({"method": method, "params": params});
            if let Some(s) = &session {
                event["sessionId"] = json!(s);
            }
            let event = event.to_string();
            prop_assert_eq!(leading_method(&event), Some(method.as_str()));
            prop_assert_eq!(trailing_session(&event), session.as_deref());
            prop_assert_eq!(leading_id(&event), None);
            let response = json!({"id": id, "result": params}).to_string();
            prop_assert_eq!(leading_id(&response).map(|(i, _)| i), Some(id));
            prop_assert_eq!(success_response_id(&response), Some(id));
            prop_assert_eq!(leading_method(&response), None);
            let id_last = format!("{{\"result\":{params},\"id\":{id}}}");
            prop_assert_eq!(trailing_id(&id_last), Some(id));
            prop_assert_eq!(trailing_id(&response), None);
        }
    }

    #[test]
    fn shortcuts_refuse_lookalikes() {
        // A string value ending like a sessionId key has escaped quotes.
        let tricky = r#"{"method":"A.b","params":{},"x":"a\",\"sessionId\":\"S"}"#;
        assert_eq!(trailing_session(tricky), None);
        assert_eq!(leading_method(r#"{"method":"A\"b","params":{}}"#), None);
        assert_eq!(leading_method(r#"{"method":"A.b"}"#), None);
        assert_eq!(trailing_id(r#"{"x":{"id":5}}"#), None);
    }

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
