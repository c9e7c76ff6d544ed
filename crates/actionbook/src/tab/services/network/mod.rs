//! The network recorder: every request of a tab, from the moment the tab is attached, counted
//! while in flight (`wait network-idle`) and kept in a bounded ring once done (the request list).
//!
//! Why a session of its own: the recorder attaches a second flat session to the tab's page and
//! auto-attaches from it (paused, so nothing runs before `Network.enable`) to every OOPIF, dedicated
//! worker and service worker of the page, nested ones included. Auto-attach state is per session,
//! so the frame graph's auto-attach on the page session (switched off and on when it recovers) never
//! detaches what the recorder watches, and `Fetch` interception can later live on this session too.
//!
//! Idle means: no request waits for its response, and nothing happened on the network (a request
//! started, answered, received data or ended) for a quiet period. A request whose response came
//! but whose body nobody reads (a `fetch` whose body is never consumed) never ends in DevTools'
//! view; it stops counting once it has been silent for the quiet period, as a streaming response
//! keeps counting while data arrives.
//!
//! Requests are keyed by their CDP request id alone: a navigation request of a cross-site iframe
//! starts on the parent's session and may finish on the iframe's own, under the same id. Requests
//! of a session that goes away (the iframe removed, the worker ended) stop counting as in flight.
//! When events are lost (a queue overflow, rare: the queue is large) the recorder cannot know
//! which requests ended, so it forgets the ones in flight and counts the loss (`lost_events`).
//!
//! A document that is replaced (a navigation, a reload) takes its requests in flight with it, and
//! Chromium reports no end for them (no `loadingFailed`: the renderer that would is gone). So the
//! recorder follows which document each frame shows: `Page.frameNavigated` (the frame, its new
//! loader id) ends the frame's requests made by an earlier document (their `loaderId` differs;
//! never a navigation request, whose id is its document's) as failed with `net::ERR_ABORTED` and a
//! note saying why; `Page.frameDetached` (removed, not moved to another process) ends the frame's.
//! Workers' requests have no frame and are left to their session. Those frame events come from the
//! tab's page session, which has `Page.enable` already (so the recorder adds nothing for the
//! page), and from the recorder's own OOPIF sessions, where it enables the page domain. They come
//! on another session than the requests, so in either order: a request of a replaced document
//! reported later ends at once, one of the new document reported earlier stays. A document
//! restored from the back/forward cache comes back under its old loader id: it is current again,
//! and its requests are recorded as any others. A keepalive
//! request (`sendBeacon`) may outlive its document; should Chromium report its end after all, the
//! record takes it (Chromium 156 reports none: only its `responseReceivedExtraInfo` comes).
//!
//! A redirect is a new `requestWillBeSent` under the same id: the hop it ends becomes an entry of
//! its own (its 3xx response, `redirect_url`, id `<cdp id>:<hop>`), and the last hop keeps the CDP
//! id. The raw headers Chromium reports apart (`requestWillBeSentExtraInfo`,
//! `responseReceivedExtraInfo`: `cookie` and `set-cookie` included) are matched to hops as
//! Chromium means them: a hop has them when its response says so (`hasExtraInfo`, or
//! `redirectHasExtraInfo` on the request it was redirected to), and those of an id come in hop
//! order, before or after the hop's own events, so the n-th of a kind belongs to the n-th hop that
//! has them. One waits until the hops before it are known (a hop without them, such as an internal
//! redirect or a memory-cache hit, takes none), and one of a hop that failed before any response
//! (connection refused, CORS) is that hop's. So a request still waiting for its response shows
//! the headers `requestWillBeSent` gave; the raw ones join it with the response. They are kept in
//! memory and shown, never logged.
//!
//! Cost: the recorder is one more session with `Network.enable`, so Chromium builds about eight
//! events per request (`dataReceived`, the most common, moves the activity clock and adds its
//! decoded length to the request's: a small decode, one lock and one lookup); response bodies it
//! buffers for `getResponseBody` are capped ([`network_enable`]). What it costs a page load is in
//! `benches/network.rs` and the README: Chromium's delivery of those events is most of it, and no
//! CDP switch leaves some of them out. So a session started with `--max-tracked-requests 0`
//! records nothing: the domain stays off ([`RecorderState::Off`]) and the recorder only routes.
//!
//! Finished requests are kept in a ring of the session's `--max-tracked-requests` (500 by
//! default); the oldest are dropped and counted. A HAR capture (`network har start`) keeps every
//! request that starts while it runs, apart from the ring (bounded too, [`HAR_LIMIT`]).
//!
//! Routes (`network route`) live here as well: `Fetch` is enabled with the tab's route patterns on
//! the recorder's page session and on every child session before the child runs, so requests of
//! OOPIFs and workers are routed too. What the recorder holds is in the daemon's memory only: after
//! a daemon restart the ring starts empty (Chromium does not replay past requests), the routes come
//! back from the session record, and a HAR capture that was running is gone.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use cdp_protocol::{
    CdpError, Connection, ErrorKind, Event as _, EventFilter, EventStream, RawEvent, Session,
    SessionId, TargetId, fetch, network, page, runtime, target,
};
use futures::future::BoxFuture;
use tokio::sync::watch;

use super::TabService;
use crate::deadline;
use crate::store::{RouteAction, RouteRecord};

mod events;
mod helpers;
mod ledger;
#[cfg(test)]
mod tests;
use helpers::*;
pub(crate) use helpers::{body_bytes, cdp_pattern, url_matches};

/// Finished requests kept per tab by default (the reference CLI's ring size); older ones are
/// dropped and counted.
pub(crate) const KEPT_REQUESTS: usize = 500;

/// The largest `--max-tracked-requests`.
pub(crate) const MAX_KEPT_REQUESTS: usize = 100_000;

/// Requests one HAR capture keeps at most (later ones are counted as dropped).
pub(crate) const HAR_LIMIT: usize = 20_000;

/// Bytes of response bodies Chromium keeps per watched session (`Network.enable`).
const TOTAL_BODY_BUFFER: i64 = 32 * 1024 * 1024;

/// The largest response body Chromium keeps (larger ones cannot be read back); `network request`
/// shows at most 1 MiB of a body anyway.
const RESOURCE_BODY_BUFFER: i64 = 4 * 1024 * 1024;

/// The largest request body `requestWillBeSent` carries.
const POST_DATA_LIMIT: i64 = 64 * 1024;

/// Problems kept to report (the first ones; later ones are counted).
const PROBLEMS_KEPT: usize = 20;

/// Queue length of the recorder's event subscription: a page load with thousands of requests fits.
const EVENT_QUEUE: usize = 16 * 1024;

/// The events the recorder reads (from every session; it keeps those of its own sessions).
const EVENTS: &[&str] = &[
    network::RequestWillBeSent::METHOD,
    network::ResponseReceived::METHOD,
    network::LoadingFinished::METHOD,
    network::LoadingFailed::METHOD,
    network::RequestServedFromCache::METHOD,
    network::DataReceived::METHOD,
    network::RequestWillBeSentExtraInfo::METHOD,
    network::ResponseReceivedExtraInfo::METHOD,
    fetch::RequestPaused::METHOD,
    target::AttachedToTarget::METHOD,
    target::DetachedFromTarget::METHOD,
    page::FrameNavigated::METHOD,
    page::FrameDetached::METHOD,
];

/// Chromium's error text for a request the recorder ends itself because the document that made it
/// was replaced (as Chromium's own for a cancelled request).
pub(crate) const ABORTED: &str = "net::ERR_ABORTED";

/// Why such a request ended: Chromium reports no end for the requests of a replaced document.
pub(crate) const REPLACED_NOTE: &str = "the document that made it was replaced before it ended: \
     Chromium reports no end for it (a keepalive request may still have reached the server)";

/// Why a request failed with `net::ERR_BLOCKED_BY_CLIENT` when the allowlist guard refused it.
pub(crate) const BLOCKED_NOTE: &str = "refused by the session's --allowed-domains (its host is not in the list): it never left the browser";

/// Loader ids of replaced documents remembered (a request of one reported late ends at once).
const REPLACED_KEPT: usize = 256;

/// Frames whose current document is remembered at most (frames that go are forgotten).
const FRAMES_KEPT: usize = 4096;

/// Whether the recorder is recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RecorderState {
    /// Attaching its session and enabling the network domain.
    Starting,
    /// Every request of the page is seen.
    Recording,
    /// It could not start, or its session went away (why).
    Failed(String),
    /// Recording is off (`--max-tracked-requests 0`): no `Network.enable`; routes still apply.
    Off,
}

/// The cache that answered a request instead of the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cache {
    /// The HTTP disk cache (`fromDiskCache`).
    Disk,
    /// The renderer's memory cache (`Network.requestServedFromCache`).
    Memory,
}

impl Cache {
    /// `disk` or `memory`, as Chrome DevTools' HAR export writes `_fromCache`.
    pub fn as_str(self) -> &'static str {
        match self {
            Cache::Disk => "disk",
            Cache::Memory => "memory",
        }
    }
}

/// One request as the recorder saw it; each hop of a redirect chain is one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestRecord {
    /// Its id in the lists: the CDP request id for the last hop of a chain, `<cdp id>:<hop>` for
    /// the hops that were redirected (every hop of a chain shares the CDP id).
    pub id: String,
    /// The CDP request id (`Network.RequestId`; the body is asked for with it).
    pub cdp_id: String,
    /// Which hop of its redirect chain (0 for the first request).
    pub hop: u32,
    /// Where a redirect sent it on (this hop's response was a redirect).
    pub redirect_url: Option<String>,
    /// HTTP method.
    pub method: String,
    /// URL of this hop.
    pub url: String,
    /// CDP resource type (`Document`, `XHR`, `Fetch`, `Script`, ...; empty when unknown).
    pub resource_type: String,
    /// The frame that made it (none for a worker's requests).
    pub frame_id: Option<String>,
    /// The document load it belongs to (`Network.LoaderId`): the document that made it, or for a
    /// navigation request the document it loads (then equal to the CDP request id).
    pub loader_id: String,
    /// Which kind of target reported it: `page`, `iframe`, `worker`, `service_worker`, ...
    pub target_type: String,
    /// HTTP status, once the response came.
    pub status: Option<i64>,
    /// HTTP status text.
    pub status_text: String,
    /// The response's MIME type.
    pub mime_type: String,
    /// Request headers, names in lower case.
    pub request_headers: BTreeMap<String, String>,
    /// Response headers, names in lower case.
    pub response_headers: BTreeMap<String, String>,
    /// The request body, when Chromium reported it.
    pub post_data: Option<String>,
    /// Whether the request has a body (reported or not: one past the capture limit is not).
    pub has_post_data: bool,
    /// `http/1.1`, `h2`, ...
    pub protocol: Option<String>,
    /// The server's IP address.
    pub remote_ip: Option<String>,
    /// When it started, CDP monotonic seconds.
    pub timestamp: f64,
    /// When it started, seconds since the Unix epoch.
    pub wall_time: f64,
    /// When it ended, CDP monotonic seconds.
    pub ended_at: Option<f64>,
    /// Phase timings of the response.
    pub timing: Option<network::ResourceTiming>,
    /// Bytes received on the wire (headers and body), once finished.
    pub encoded_data_length: Option<f64>,
    /// Bytes of the response's headers on the wire, when known (HTTP/1.x, not from the cache).
    pub header_bytes: Option<f64>,
    /// Bytes of the body after decoding (the sum of `Network.dataReceived`).
    pub decoded_length: u64,
    /// The cache that answered it, when one did (nothing went over the wire for it).
    pub from_cache: Option<Cache>,
    /// Why it ended as it did, when the recorder ended it ([`REPLACED_NOTE`]).
    pub note: Option<&'static str>,
    /// Chromium's error text when it failed (`net::ERR_FAILED`, `net::ERR_ABORTED`, ...).
    pub failure: Option<String>,
    /// When it started (as the recorder saw it).
    pub started: Instant,
    /// When it finished or failed; `None` while in flight.
    pub finished: Option<Instant>,
    /// Whether its response (headers) came.
    pub responded: bool,
    /// Start order, across the tab.
    pub seq: u64,
    /// The session it was reported on (its body is asked for there).
    pub session: SessionId,
}

impl RequestRecord {
    /// Request `id` of `session` as it starts now: nothing of it known yet (what its
    /// `requestWillBeSent` says is set over this), no response, no end.
    pub fn starting(id: String, session: SessionId) -> RequestRecord {
        RequestRecord {
            cdp_id: id.clone(),
            id,
            hop: 0,
            redirect_url: None,
            method: String::new(),
            url: String::new(),
            resource_type: String::new(),
            frame_id: None,
            loader_id: String::new(),
            target_type: String::new(),
            status: None,
            status_text: String::new(),
            mime_type: String::new(),
            request_headers: BTreeMap::new(),
            response_headers: BTreeMap::new(),
            post_data: None,
            has_post_data: false,
            protocol: None,
            remote_ip: None,
            timestamp: 0.0,
            wall_time: 0.0,
            ended_at: None,
            timing: None,
            encoded_data_length: None,
            header_bytes: None,
            decoded_length: 0,
            from_cache: None,
            note: None,
            failure: None,
            started: Instant::now(),
            finished: None,
            responded: false,
            seq: 0,
            session,
        }
    }

    /// Whether it is a navigation request: Chromium gives it the id of the document it loads.
    pub fn is_navigation(&self) -> bool {
        self.cdp_id == self.loader_id
    }

    /// How long it took (or has taken so far), in milliseconds.
    pub fn duration_ms(&self) -> Option<f64> {
        self.ended_at
            .map(|e| ((e - self.timestamp) * 1000.0).max(0.0))
    }
}

/// How much is in flight, and when the network last did something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Activity {
    /// Requests in flight (not finished or failed).
    pub in_flight: usize,
    /// Of those, the ones still waiting for their response.
    pub awaiting_response: usize,
    /// The last event of any request (or when recording began).
    pub last_event: Instant,
    /// Requests started since recording began.
    pub started: u64,
}

impl Activity {
    /// When the network is idle for `quiet`, counting from `since` at the earliest; `None` while a
    /// request waits for its response.
    pub fn idle_at(&self, quiet: Duration, since: Instant) -> Option<Instant> {
        (self.awaiting_response == 0).then(|| self.last_event.max(since) + quiet)
    }
}

/// Which response bodies a HAR capture writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HarContent {
    /// None.
    None,
    /// Text bodies (HTML, JSON, scripts, styles, XML, ...).
    #[default]
    Text,
    /// Every body (binary ones base64).
    All,
}

/// A HAR capture: the requests that started since it began.
#[derive(Debug, Clone)]
pub(crate) struct HarCapture {
    /// Which bodies to write.
    pub content: HarContent,
    /// When it began (seconds since the epoch).
    pub began: f64,
    /// Requests with this start number or later belong to it.
    since_seq: u64,
    /// The finished ones, in the order they finished.
    pub entries: Vec<RequestRecord>,
    /// Requests not kept (beyond [`HarCapture::limit`]).
    pub dropped: u64,
    /// Requests it keeps at most (`--max-entries`, else [`HAR_LIMIT`]); later ones are dropped.
    pub limit: usize,
    /// The CDP resource types it keeps, lowercase (`--resource-types`); `None` keeps every one.
    pub types: Option<Vec<String>>,
}

impl HarCapture {
    /// Whether a request of this CDP resource type (`Document`, `XHR`...) belongs in the file.
    fn wants(&self, r: &RequestRecord) -> bool {
        self.types.as_ref().is_none_or(|types| {
            let kind = r.resource_type.to_ascii_lowercase();
            types.contains(&kind)
        })
    }
}

/// What the recorder keeps, behind one lock (never held across an await).
#[derive(Debug)]
struct Ledger {
    /// The sessions it watches, with their target type.
    sessions: HashMap<SessionId, Arc<str>>,
    /// Parent of each child session (to drop a subtree when a session detaches).
    parents: HashMap<SessionId, SessionId>,
    in_flight: HashMap<String, RequestRecord>,
    /// The finished ones, oldest first; shared, so a listing takes them without copying (a late
    /// ExtraInfo merge copies one that is being listed).
    done: VecDeque<Arc<RequestRecord>>,
    capacity: usize,
    dropped_records: u64,
    lost_events: u64,
    next_seq: u64,
    routes: Vec<RouteRecord>,
    har: Option<HarCapture>,
    problems: Vec<String>,
    problems_more: u64,
    /// Headers a continue route added to a request not reported yet (by network request id).
    amended: HashMap<String, Vec<(String, String)>>,
    /// The ExtraInfo events of each request id, matched to its hops (by network request id).
    extra: HashMap<String, ExtraInfo>,
    /// The document (loader id) each frame shows, from `Page.frameNavigated`.
    documents: HashMap<String, String>,
    /// Loader ids of documents replaced lately, newest last: a request of one that is reported
    /// after the navigation (its events and the navigation's come on different sessions) ends at
    /// once.
    replaced: VecDeque<String>,
    /// The latest CDP timestamp of a network event: when an end Chromium does not report is put.
    clock: f64,
}

/// Raw headers of one ExtraInfo event.
type RawHeaders = BTreeMap<String, String>;

/// Whether a hop has ExtraInfo events, as far as known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Expect {
    /// Not known yet: its response (which says) has not come.
    #[default]
    Unknown,
    /// Its response said it has them, or it failed before any response came (what comes for it
    /// then is its own: the request it sent, a CORS failure's response).
    Yes,
    /// Its response said it has none.
    No,
}

/// One hop of a request id, as the ExtraInfo matching sees it.
#[derive(Debug, Clone, Copy, Default)]
struct HopExtra {
    expect: Expect,
    /// It got its `requestWillBeSentExtraInfo`.
    request: bool,
    /// It got its `responseReceivedExtraInfo`.
    response: bool,
}

/// The ExtraInfo matching of one request id (see the module docs): its hops, by hop number, and
/// the events not matched yet, in the order they came.
#[derive(Debug, Default)]
struct ExtraInfo {
    hops: Vec<HopExtra>,
    requests: VecDeque<RawHeaders>,
    responses: VecDeque<RawHeaders>,
}

impl ExtraInfo {
    fn hop(&mut self, hop: u32) -> &mut HopExtra {
        let i = hop as usize;
        if self.hops.len() <= i {
            self.hops.resize(i + 1, HopExtra::default());
        }
        &mut self.hops[i]
    }

    /// The next waiting event of a kind with the hop it belongs to, once that hop is known: the
    /// first hop that has such events and did not get its own; `None` while a hop before it is
    /// not known yet, or when it belongs to a hop still to come.
    fn next_match(&mut self, response: bool) -> Option<(u32, RawHeaders)> {
        let queue = if response {
            &mut self.responses
        } else {
            &mut self.requests
        };
        if queue.is_empty() {
            return None;
        }
        for (i, h) in self.hops.iter_mut().enumerate() {
            let got = if response {
                &mut h.response
            } else {
                &mut h.request
            };
            match h.expect {
                _ if *got => {}
                Expect::No => {}
                Expect::Unknown => return None,
                Expect::Yes => {
                    *got = true;
                    return queue.pop_front().map(|raw| (i as u32, raw));
                }
            }
        }
        None
    }

    /// Nothing waits and nothing more is to come for any hop.
    fn complete(&self) -> bool {
        self.requests.is_empty()
            && self.responses.is_empty()
            && self.hops.iter().all(|h| match h.expect {
                Expect::No => true,
                Expect::Yes => h.request && h.response,
                Expect::Unknown => false,
            })
    }
}

/// Request ids whose ExtraInfo matching is remembered while something of it is still to come (a
/// late ExtraInfo event still finds its hop); beyond this, only those in flight are kept.
const EXTRA_KEPT: usize = 2048;

/// How far back in the finished requests a late event (ExtraInfo, an end the recorder did not
/// wait for) looks for its hop.
const LATE_EXTRA_SEARCH: usize = 256;

#[derive(Debug)]
struct Shared {
    conn: Connection,
    target: TargetId,
    /// The tab's page session (the frame graph's, with `Page.enable`): its frame events say when
    /// a document of the page is replaced, at no cost of the recorder's own.
    page: Mutex<Option<SessionId>>,
    /// The session's allowlist guard (its refusals are noted on the requests they failed).
    guard: Mutex<Option<crate::session::guard::Guard>>,
    ledger: Mutex<Ledger>,
    state: watch::Sender<RecorderState>,
    activity: watch::Sender<Activity>,
}

/// Records a tab's requests (see the module docs); read with [`NetworkRecorder::activity`],
/// [`NetworkRecorder::idle`] and [`NetworkRecorder::requests`].
#[derive(Debug)]
pub(crate) struct NetworkRecorder {
    /// Subscribed before the attach, so nothing between the attach and the first event is missed.
    events: Mutex<Option<EventStream>>,
    shared: Arc<Shared>,
}

impl TabService for NetworkRecorder {
    fn new(conn: &Connection, target: &TargetId) -> NetworkRecorder {
        let now = Instant::now();
        NetworkRecorder {
            events: Mutex::new(Some(
                conn.events(EventFilter::methods(EVENTS).capacity(EVENT_QUEUE)),
            )),
            shared: Arc::new(Shared {
                conn: conn.clone(),
                target: target.clone(),
                page: Mutex::new(None),
                guard: Mutex::new(None),
                ledger: Mutex::new(Ledger::new()),
                state: watch::channel(RecorderState::Starting).0,
                activity: watch::channel(Activity {
                    in_flight: 0,
                    awaiting_response: 0,
                    last_event: now,
                    started: 0,
                })
                .0,
            }),
        }
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let events = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        *self.shared.page.lock().unwrap_or_else(|p| p.into_inner()) = page.id().cloned();
        let shared = self.shared.clone();
        Some(Box::pin(async move {
            let session = Arc::clone(&shared).attach().await;
            let Some(session) = session else { return };
            let _detach = DetachOnDrop(session.clone());
            shared.record(events, session).await;
        }))
    }

    fn ready(&self) -> BoxFuture<'static, ()> {
        let mut state = self.shared.state.subscribe();
        Box::pin(async move {
            let _ = state
                .wait_for(|s| !matches!(s, RecorderState::Starting))
                .await;
        })
    }
}

impl NetworkRecorder {
    /// Sets the ring size (0: recording off) and the tab's routes; called before the recorder
    /// starts (the routes are enabled with its sessions).
    pub fn configure(
        &self,
        capacity: usize,
        routes: Vec<RouteRecord>,
        guard: Option<crate::session::guard::Guard>,
    ) {
        *self.shared.guard.lock().unwrap_or_else(|p| p.into_inner()) = guard;
        let mut ledger = self.shared.lock();
        ledger.capacity = capacity.min(MAX_KEPT_REQUESTS);
        ledger.routes = routes;
    }

    /// Whether it records (a failure says why).
    pub fn state(&self) -> RecorderState {
        self.shared.state.borrow().clone()
    }

    /// Waits until the network is idle (see the module docs) for `quiet`, counting from `since` at
    /// the earliest (a wait starting now never takes an earlier quiet period for its own), or until
    /// `until`. `Ok` with the activity that satisfied it, `Err` with the last one seen.
    pub async fn idle(
        &self,
        quiet: Duration,
        since: Instant,
        until: Instant,
    ) -> Result<Activity, Activity> {
        let mut rx = self.shared.activity.subscribe();
        loop {
            let a = *rx.borrow_and_update();
            let now = Instant::now();
            let quiet_until = a.idle_at(quiet, since);
            if quiet_until.is_some_and(|q| now >= q) {
                return Ok(a);
            }
            if now >= until {
                return Err(a);
            }
            let wake = quiet_until.map_or(until, |q| q.min(until));
            tokio::select! {
                changed = rx.changed() => if changed.is_err() { return Err(a) },
                () = tokio::time::sleep_until(wake.into()) => {}
            }
        }
    }

    /// Every request kept (the finished ones, at most the ring's size, and those in flight), in
    /// the order they started: the ring holds them in the order they ended, and a redirect's hops
    /// end only when the next one starts.
    pub fn requests(&self) -> Vec<Arc<RequestRecord>> {
        let ledger = self.shared.lock();
        let live = ledger.in_flight.values().map(|r| Arc::new(r.clone()));
        let mut all: Vec<Arc<RequestRecord>> = ledger.done.iter().cloned().chain(live).collect();
        all.sort_by_key(|r| r.seq);
        all
    }

    /// The kept request with this id (the latest, when an id came back).
    pub fn request(&self, id: &str) -> Option<RequestRecord> {
        let ledger = self.shared.lock();
        ledger
            .in_flight
            .get(id)
            .or_else(|| ledger.done.iter().rev().find(|r| r.id == id).map(|r| &**r))
            .cloned()
    }

    /// Forgets the finished requests (and the count of dropped ones); those in flight stay.
    pub fn clear(&self) {
        let mut ledger = self.shared.lock();
        ledger.done.clear();
        ledger.dropped_records = 0;
    }

    /// Requests in flight now, by start.
    pub fn in_flight(&self) -> Vec<RequestRecord> {
        let ledger = self.shared.lock();
        let mut live: Vec<RequestRecord> = ledger.in_flight.values().cloned().collect();
        live.sort_by_key(|r| r.seq);
        live
    }

    /// `(finished records dropped from the ring, events lost to a full queue)`.
    pub fn losses(&self) -> (u64, u64) {
        let ledger = self.shared.lock();
        (ledger.dropped_records, ledger.lost_events)
    }

    /// The ring's size.
    pub fn capacity(&self) -> usize {
        self.shared.lock().capacity
    }

    /// What keeps the recorder from seeing every request (a child it could not watch, a route it
    /// could not apply), as warnings.
    pub fn problems(&self) -> Vec<String> {
        let ledger = self.shared.lock();
        let mut out = ledger.problems.clone();
        if ledger.problems_more > 0 {
            out.push(format!(
                "{} more network recorder problems",
                ledger.problems_more
            ));
        }
        out
    }

    /// The response body of a request, from the session that reported it.
    pub async fn body(
        &self,
        r: &RequestRecord,
        timeout: Duration,
    ) -> Result<network::GetResponseBodyResponse, CdpError> {
        let ask = network::GetResponseBody {
            request_id: r.cdp_id.as_str().into(),
        };
        self.ask_reporter(r, &ask, timeout).await
    }

    /// The body of a request that had one too large to come with its report, from Chromium.
    pub async fn post_data(
        &self,
        r: &RequestRecord,
        timeout: Duration,
    ) -> Result<network::GetRequestPostDataResponse, CdpError> {
        let ask = network::GetRequestPostData {
            request_id: r.cdp_id.as_str().into(),
        };
        self.ask_reporter(r, &ask, timeout).await
    }

    /// Sends `cmd` on the session that reported `r` (only it knows the request's id).
    async fn ask_reporter<C: cdp_protocol::Command>(
        &self,
        r: &RequestRecord,
        cmd: &C,
        timeout: Duration,
    ) -> Result<C::Response, CdpError> {
        let session = self.shared.conn.session(r.session.clone());
        session.send_timeout(cmd, timeout).await
    }

    /// The tab's routes.
    pub fn routes(&self) -> Vec<RouteRecord> {
        self.shared.lock().routes.clone()
    }

    /// Replaces the tab's routes and applies them to every session the recorder watches;
    /// `Err` with what failed (the routes are kept: children attached later get them).
    pub async fn set_routes(
        &self,
        routes: Vec<RouteRecord>,
        timeout: Duration,
    ) -> Result<(), String> {
        let (sessions, enable) = {
            let mut ledger = self.shared.lock();
            ledger.routes = routes;
            let sessions: Vec<(SessionId, Arc<str>)> = ledger
                .sessions
                .iter()
                .map(|(s, t)| (s.clone(), t.clone()))
                .collect();
            (sessions, ledger.fetch_enable())
        };
        let sends = sessions.into_iter().map(|(id, kind)| {
            let session = self.shared.conn.session(id);
            let enable = enable.clone();
            async move {
                let r = match &enable {
                    Some(e) => session.send_timeout(e, timeout).await.map(|_| ()),
                    None => session
                        .send_timeout(&fetch::Disable, timeout)
                        .await
                        .map(|_| ()),
                };
                match r {
                    // A child without the Fetch domain (a worker) is no failure of the route.
                    Err(e) if !(went_away(&e) || (&*kind != "page" && not_supported(&e))) => {
                        Some(format!("cannot route the requests of a {kind}: {e}"))
                    }
                    _ => None,
                }
            }
        });
        let failed: Vec<String> = futures::future::join_all(sends)
            .await
            .into_iter()
            .flatten()
            .collect();
        if failed.is_empty() {
            Ok(())
        } else {
            Err(failed.join("; "))
        }
    }

    /// Starts a HAR capture keeping at most `limit` requests of `types` (lowercase CDP resource
    /// types; `None`: all); false when one is running already.
    pub fn har_start(&self, content: HarContent, limit: usize, types: Option<Vec<String>>) -> bool {
        let mut ledger = self.shared.lock();
        if ledger.har.is_some() {
            return false;
        }
        ledger.har = Some(HarCapture {
            content,
            began: wall_now(),
            since_seq: ledger.next_seq,
            entries: Vec::new(),
            dropped: 0,
            limit,
            types,
        });
        true
    }

    /// What the HAR capture holds now: what it kept, then the requests of it still in flight (by
    /// start). It keeps running until [`NetworkRecorder::har_end`] (so a file that could not be
    /// written loses nothing).
    pub fn har_snapshot(&self) -> Option<HarCapture> {
        let ledger = self.shared.lock();
        let mut har = ledger.har.clone()?;
        let mut live: Vec<RequestRecord> = ledger
            .in_flight
            .values()
            .filter(|r| r.seq >= har.since_seq && har.wants(r))
            .cloned()
            .collect();
        live.sort_by_key(|r| r.seq);
        har.entries.extend(live);
        Some(har)
    }

    /// Ends the HAR capture (its file was written).
    pub fn har_end(&self) {
        self.shared.lock().har = None;
    }

    /// Whether a HAR capture runs.
    pub fn har_running(&self) -> bool {
        self.shared.lock().har.is_some()
    }
}

/// The recorder on its own, for the recorder-cost bench (`benches/network.rs`): started on a page
/// as an attached tab starts it, so the bench measures the recorder itself, not an imitation.
#[doc(hidden)]
#[derive(Debug)]
pub struct RecorderProbe {
    recorder: NetworkRecorder,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl RecorderProbe {
    /// Starts recording page `target` (attached as `page`) with a ring of `capacity` (0:
    /// recording off, as `--max-tracked-requests 0`); `Err` with why it could not.
    pub async fn start(
        conn: &Connection,
        target: &TargetId,
        page: &Session,
        capacity: usize,
    ) -> Result<RecorderProbe, String> {
        let recorder = <NetworkRecorder as TabService>::new(conn, target);
        recorder.configure(capacity, Vec::new(), None);
        let task = TabService::start(&recorder, page).map(tokio::spawn);
        let probe = RecorderProbe { recorder, task };
        let ready = TabService::ready(&probe.recorder);
        if tokio::time::timeout(deadline::SLOW_CALL, ready)
            .await
            .is_err()
        {
            return Err("the recorder did not start in time".to_string());
        }
        match probe.recorder.state() {
            RecorderState::Recording | RecorderState::Off => Ok(probe),
            RecorderState::Failed(why) => Err(why),
            RecorderState::Starting => Err("the recorder is still starting".to_string()),
        }
    }

    /// Requests kept so far (finished and in flight).
    pub fn requests(&self) -> usize {
        self.recorder.requests().len()
    }

    /// Requests it saw: those kept and those the ring dropped.
    pub fn seen(&self) -> usize {
        let dropped = usize::try_from(self.recorder.losses().0).unwrap_or(usize::MAX);
        self.requests().saturating_add(dropped)
    }

    /// Stops recording (its session detaches).
    pub async fn stop(mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            let _ = task.await;
        }
    }
}

/// Detaches the recorder's session when its task ends or is aborted: a session left attached with
/// paused auto-attach would hold every new iframe of the page waiting for a resume nobody sends.
struct DetachOnDrop(Session);

impl Drop for DetachOnDrop {
    fn drop(&mut self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let session = self.0.clone();
        if session.link().is_closed() {
            return;
        }
        rt.spawn(async move {
            let _ = tokio::time::timeout(deadline::CLEANUP, session.detach()).await;
        });
    }
}

/// The recorder's `Network.enable`. Chromium copies the bodies of the resources it keeps for
/// `Network.getResponseBody` into a buffer per session (renderer memory, and time on the page's
/// main thread); the limits keep that to what `network request <id>` and a HAR file can use.
pub fn network_enable() -> network::Enable {
    network::Enable {
        max_total_buffer_size: Some(TOTAL_BODY_BUFFER),
        max_resource_buffer_size: Some(RESOURCE_BODY_BUFFER),
        max_post_data_size: Some(POST_DATA_LIMIT),
    }
}

/// What enabling one session gave, part by part.
struct Enabled {
    network: Result<(), CdpError>,
    auto_attach: Result<(), CdpError>,
    fetch: Result<(), CdpError>,
    page: Result<(), CdpError>,
}

/// Enables the network domain (when it records), auto-attach (paused), the routes' `Fetch` and
/// (`frames`) the page domain for its frame events on one of the recorder's sessions, then resumes
/// its target if it was paused. Sent in order before any answer is awaited: a paused target may
/// answer only once resumed, and must not run before its routes.
async fn enable(
    session: &Session,
    resume: bool,
    routes: Option<&fetch::Enable>,
    record: bool,
    forced_failure: bool,
    frames: bool,
) -> Enabled {
    let t = deadline::QUICK_CALL;
    let auto_attach = target::SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: true,
        flatten: Some(true),
        filter: None,
    };
    let resume_it = async {
        if resume {
            session
                .send_timeout(&runtime::RunIfWaitingForDebugger, t)
                .await
                .map(|_| ())
        } else {
            Ok(())
        }
    };
    let routing = async {
        match routes {
            Some(e) => session.send_timeout(e, t).await.map(|_| ()),
            None => Ok(()),
        }
    };
    let enable = network_enable();
    let network = async {
        if !record {
            return Ok(());
        }
        if forced_failure {
            // The test hook (`fault::fails`): as if Chromium had refused.
            return Err(CdpError::Protocol {
                method: "Network.enable".to_string(),
                code: -32000,
                message: "failed by the test hook".to_string(),
                data: None,
            });
        }
        session.send_timeout(&enable, t).await.map(|_| ())
    };
    let page = async {
        if frames {
            session.send_timeout(&page::Enable, t).await.map(|_| ())
        } else {
            Ok(())
        }
    };
    let (net, auto, fetch, page, _resumed) = futures::join!(
        network,
        session.send_timeout(&auto_attach, t),
        routing,
        page,
        resume_it,
    );
    Enabled {
        network: net,
        auto_attach: auto.map(|_| ()),
        fetch,
        page,
    }
}
