//! Event subscriptions: filters, raw events and the bounded streams that carry them.

use crate::error::CdpError;
use crate::ids::SessionId;
use crate::protocol::{Event, decode_raw};
use futures::Stream;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// Default queue length of one subscription.
pub const DEFAULT_EVENT_CAPACITY: usize = 4096;

/// Which sessions a subscription receives events from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SessionFilter {
    /// Every session, root included.
    #[default]
    Any,
    /// Only the root (browser) session: events without a `sessionId`.
    Root,
    /// Only this flattened session.
    Only(SessionId),
}

impl SessionFilter {
    fn matches(&self, session: Option<&SessionId>) -> bool {
        match self {
            SessionFilter::Any => true,
            SessionFilter::Root => session.is_none(),
            SessionFilter::Only(id) => session == Some(id),
        }
    }
}

/// What a subscription receives: methods, session, and the queue length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFilter {
    /// Event names to receive; `None` = every event.
    pub methods: Option<Vec<String>>,
    /// Sessions to receive from.
    pub session: SessionFilter,
    /// Queue length; events arriving while the queue is full are dropped and counted (as are
    /// events over the connection's message limit).
    pub capacity: usize,
}

impl Default for EventFilter {
    fn default() -> Self {
        Self::all()
    }
}

impl EventFilter {
    /// Every event from every session.
    pub fn all() -> Self {
        EventFilter {
            methods: None,
            session: SessionFilter::Any,
            capacity: DEFAULT_EVENT_CAPACITY,
        }
    }

    /// Only these event names (e.g. `"Page.frameAttached"`), from every session.
    pub fn methods(methods: &[&str]) -> Self {
        EventFilter {
            methods: Some(methods.iter().map(|m| (*m).to_owned()).collect()),
            ..Self::all()
        }
    }

    /// Restricts the sessions.
    pub fn session(mut self, session: SessionFilter) -> Self {
        self.session = session;
        self
    }

    /// Sets the queue length (at least 1).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }
}

/// One event as received: its params are kept as raw JSON until someone decodes them.
#[derive(Debug, Clone)]
pub struct RawEvent {
    /// Event name, e.g. `"Page.frameNavigated"`.
    pub method: String,
    /// The flattened session it came from; `None` for the root session.
    pub session_id: Option<SessionId>,
    /// The params, undecoded.
    pub params: Arc<RawValue>,
}

impl RawEvent {
    /// Decodes the params as `E` (an error here concerns this event only).
    pub fn decode<E: Event>(&self) -> Result<E, CdpError> {
        decode_raw(&self.method, self.params.get())
    }

    /// Decodes the params as a JSON value.
    pub fn to_value(&self) -> Result<serde_json::Value, CdpError> {
        decode_raw(&self.method, self.params.get())
    }
}

/// The socket task's end of a subscription.
#[derive(Debug)]
pub(crate) struct Subscriber {
    methods: Option<HashSet<String>>,
    session: SessionFilter,
    tx: mpsc::Sender<RawEvent>,
    dropped: Arc<AtomicU64>,
}

impl Subscriber {
    /// Creates both ends of a subscription.
    pub(crate) fn new(filter: EventFilter) -> (Subscriber, EventStream) {
        let (tx, rx) = mpsc::channel(filter.capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        let sub = Subscriber {
            methods: filter.methods.map(|m| m.into_iter().collect()),
            session: filter.session,
            tx,
            dropped: dropped.clone(),
        };
        (sub, EventStream { rx, dropped })
    }

    /// Whether this subscriber wants events of `method` from `session`.
    pub(crate) fn wants(&self, method: &str, session: Option<&SessionId>) -> bool {
        self.wants_method(method) && self.session.matches(session)
    }

    /// Whether this subscriber wants events of `method` from some session.
    pub(crate) fn wants_method(&self, method: &str) -> bool {
        self.methods.as_ref().is_none_or(|m| m.contains(method))
    }

    /// Counts an event this subscriber wanted but cannot get (it was over the message limit).
    pub(crate) fn lost(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }

    /// Queues the event without waiting; returns false once the stream is gone.
    pub(crate) fn offer(&self, event: &RawEvent) -> bool {
        match self.tx.try_send(event.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// An ordered stream of raw events matching one [`EventFilter`].
///
/// Ends (`None`) once the connection is closed and the queue is drained.
#[derive(Debug)]
pub struct EventStream {
    rx: mpsc::Receiver<RawEvent>,
    dropped: Arc<AtomicU64>,
}

impl EventStream {
    /// The next event; `None` once the connection is closed.
    pub async fn recv(&mut self) -> Option<RawEvent> {
        self.rx.recv().await
    }

    /// The next event if one is queued, without waiting.
    pub fn try_recv(&mut self) -> Option<RawEvent> {
        self.rx.try_recv().ok()
    }

    /// How many events were lost: the queue was full, or the event was over the connection's
    /// message limit and skipped unread.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Turns this into a stream of decoded `E` events (the filter should select `E::METHOD`).
    pub fn typed<E: Event>(self) -> TypedEventStream<E> {
        TypedEventStream {
            inner: self,
            _event: PhantomData,
        }
    }
}

impl Stream for EventStream {
    type Item = RawEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RawEvent>> {
        self.rx.poll_recv(cx)
    }
}

/// A stream of one event type, decoded on receipt; a decode failure is an `Err` item for this
/// subscriber only.
pub struct TypedEventStream<E> {
    inner: EventStream,
    _event: PhantomData<fn() -> E>,
}

impl<E> std::fmt::Debug for TypedEventStream<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedEventStream")
            .field("event", &std::any::type_name::<E>())
            .field("inner", &self.inner)
            .finish()
    }
}

impl<E: Event> TypedEventStream<E> {
    /// The next event; `None` once the connection is closed.
    pub async fn recv(&mut self) -> Option<Result<E, CdpError>> {
        self.inner.recv().await.map(|raw| raw.decode::<E>())
    }

    /// How many events were lost (see [`EventStream::dropped`]).
    pub fn dropped(&self) -> u64 {
        self.inner.dropped()
    }
}

impl<E: Event> Stream for TypedEventStream<E> {
    type Item = Result<E, CdpError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.inner)
            .poll_next(cx)
            .map(|o| o.map(|raw| raw.decode::<E>()))
    }
}

impl Subscriber {
    /// True once the stream end was dropped.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
