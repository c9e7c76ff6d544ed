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

impl Ledger {
    fn new() -> Ledger {
        Ledger {
            sessions: HashMap::new(),
            parents: HashMap::new(),
            in_flight: HashMap::new(),
            done: VecDeque::new(),
            capacity: KEPT_REQUESTS,
            dropped_records: 0,
            lost_events: 0,
            next_seq: 0,
            routes: Vec::new(),
            har: None,
            problems: Vec::new(),
            problems_more: 0,
            amended: HashMap::new(),
            extra: HashMap::new(),
            documents: HashMap::new(),
            replaced: VecDeque::new(),
            clock: 0.0,
        }
    }

    /// Moves the clock of network events on (CDP seconds).
    fn tick(&mut self, at: f64) {
        if at > self.clock {
            self.clock = at;
        }
    }

    /// Frame `frame` now shows document `loader` (`Page.frameNavigated`): the requests the frame's
    /// earlier documents made and that are still in flight end (Chromium cancels them and reports
    /// nothing). The navigation request itself and the new document's requests (reported before
    /// the navigation, on another session) stay. A document that comes back (restored from the
    /// back/forward cache: the same loader id) is no longer a replaced one: its new requests count.
    fn navigated(&mut self, frame: &str, loader: &str) -> bool {
        if self.documents.len() >= FRAMES_KEPT && !self.documents.contains_key(frame) {
            self.documents.clear();
        }
        self.replaced.retain(|l| l != loader);
        if let Some(old) = self.documents.insert(frame.to_string(), loader.to_string())
            && old != loader
        {
            self.remember_replaced(old);
        }
        let gone: Vec<(String, String)> = self
            .in_flight
            .values()
            .filter(|r| {
                r.frame_id.as_deref() == Some(frame)
                    && !r.loader_id.is_empty()
                    && r.loader_id != loader
                    && !r.is_navigation()
            })
            .map(|r| (r.cdp_id.clone(), r.loader_id.clone()))
            .collect();
        for (id, old) in &gone {
            // Their documents are gone too, also when the frame's was not known yet (the first
            // navigation the recorder sees): their later requests end at once.
            if !self.replaced.contains(old) {
                self.remember_replaced(old.clone());
            }
            self.abandon(id);
        }
        !gone.is_empty()
    }

    /// Frame `frame` was removed (`Page.frameDetached`, not a move to another process): what it
    /// still had in flight ends.
    fn frame_removed(&mut self, frame: &str) -> bool {
        if let Some(old) = self.documents.remove(frame) {
            self.remember_replaced(old);
        }
        let gone: Vec<String> = self
            .in_flight
            .values()
            .filter(|r| r.frame_id.as_deref() == Some(frame))
            .map(|r| r.cdp_id.clone())
            .collect();
        for id in &gone {
            self.abandon(id);
        }
        !gone.is_empty()
    }

    fn remember_replaced(&mut self, loader: String) {
        if self.replaced.len() >= REPLACED_KEPT {
            self.replaced.pop_front();
        }
        self.replaced.push_back(loader);
    }

    /// Ends request `id` whose document was replaced: failed as Chromium fails a cancelled request,
    /// with the note that says why. Should Chromium report its end after all, [`Ledger::done`]
    /// puts the reported end in its place.
    fn abandon(&mut self, id: &str) {
        let at = self.clock;
        if let Some(r) = self.in_flight.get_mut(id) {
            r.note = Some(REPLACED_NOTE);
            let at = at.max(r.timestamp);
            self.done(id, at, None, Some(ABORTED.to_string()));
        }
    }

    /// The end of a request the recorder ended itself (its document was replaced) reported after
    /// all (a keepalive request that outlived its document): the record takes Chromium's end.
    fn late_end(&mut self, id: &str, at: f64, size: Option<f64>, failure: Option<String>) {
        self.update_ended(
            |r| r.cdp_id == id && r.note.is_some(),
            |r| {
                r.ended_at = Some(at);
                r.encoded_data_length = size;
                r.failure = failure.clone();
                r.note = None;
            },
        );
    }

    /// Updates the latest hop that ended and that `is_it` picks, in the ring and in the HAR
    /// capture (each searched [`LATE_EXTRA_SEARCH`] back): an event that came after its hop ended.
    fn update_ended(
        &mut self,
        is_it: impl Fn(&RequestRecord) -> bool,
        update: impl Fn(&mut RequestRecord),
    ) {
        let mut ended = self.done.iter_mut().rev().take(LATE_EXTRA_SEARCH);
        if let Some(r) = ended.find(|r| is_it(r)) {
            update(Arc::make_mut(r));
        }
        if let Some(har) = self.har.as_mut() {
            let mut kept = har.entries.iter_mut().rev().take(LATE_EXTRA_SEARCH);
            if let Some(r) = kept.find(|r| is_it(r)) {
                update(r);
            }
        }
    }

    /// Keeps a hop that ended: in the ring (the oldest dropped when full) and in the HAR capture.
    fn finish(&mut self, r: RequestRecord) {
        if let Some(har) = self.har.as_mut()
            && r.seq >= har.since_seq
            && har.wants(&r)
        {
            if har.entries.len() < har.limit {
                har.entries.push(r.clone());
            } else {
                har.dropped += 1;
            }
        }
        // A ring of 0 (recording off) has no slot to free: the loop below would never end.
        if !self.records() {
            self.dropped_records += 1;
            return;
        }
        while self.done.len() >= self.capacity {
            self.done.pop_front();
            self.dropped_records += 1;
        }
        self.done.push_back(Arc::new(r));
    }

    /// A hop starts (a new request, or the next hop of a redirect); true for a new request.
    fn request(
        &mut self,
        from: &SessionId,
        target_type: &str,
        e: network::RequestWillBeSent,
    ) -> bool {
        let ledger = self;
        let id = e.request_id.as_str().to_string();
        // A redirect comes as a new requestWillBeSent with the same id: the hop it ends is an
        // entry of its own, with its 3xx response and where it led.
        let mut hop = 0;
        let mut redirected = None;
        if let Some(mut prev) = ledger.in_flight.remove(&id) {
            hop = prev.hop + 1;
            // A hop ended without a response has no ExtraInfo flag: none is matched to it.
            let mut expect = Expect::No;
            if let Some(resp) = e.redirect_response {
                prev.encoded_data_length = resp.encoded_data_length;
                respond(&mut prev, resp);
                if e.redirect_has_extra_info {
                    expect = Expect::Yes;
                }
            }
            prev.redirect_url = Some(e.request.url.clone());
            prev.id = format!("{id}:{}", prev.hop);
            prev.finished = Some(Instant::now());
            prev.ended_at = Some(e.timestamp);
            redirected = Some((prev.hop, expect));
            ledger.finish(prev);
        }
        ledger.tick(e.timestamp);
        let seq = ledger.next_seq;
        ledger.next_seq += 1;
        let mut request_headers = headers(&e.request.headers);
        if let Some(extra) = ledger.amended.remove(&id) {
            for (k, v) in extra {
                request_headers.insert(k.to_ascii_lowercase(), v);
            }
        }
        let r = RequestRecord {
            hop,
            method: e.request.method,
            url: e.request.url,
            resource_type: e.r#type.unwrap_or_default(),
            frame_id: e.frame_id.map(|f| f.as_str().to_string()),
            loader_id: e.loader_id.as_str().to_string(),
            target_type: target_type.to_string(),
            request_headers,
            has_post_data: e.request.has_post_data.unwrap_or(false)
                || e.request.post_data.is_some(),
            post_data: e.request.post_data,
            timestamp: e.timestamp,
            wall_time: e.wall_time.unwrap_or_else(wall_now),
            seq,
            ..RequestRecord::starting(id.clone(), from.clone())
        };
        ledger.in_flight.insert(id.clone(), r);
        // With the new hop in flight, so the id's matching stays for it.
        if let Some((prev, expect)) = redirected {
            ledger.expect_extra(&id, prev, expect);
        }
        // Its own ExtraInfo events (come already or to come) are matched once its response says
        // whether it has them.
        if ledger.extra.contains_key(&id) {
            ledger.extra_info(&id).hop(hop);
        }
        // Made by a document that is gone already (the navigation came first, on the session of
        // the page): it never ends in Chromium's reports either.
        let loader = e.loader_id.as_str();
        if !loader.is_empty() && loader != id && ledger.replaced.iter().any(|l| l == loader) {
            ledger.abandon(&id);
        }
        hop == 0
    }

    /// A hop's response: its status and headers, and whether it has ExtraInfo events; false when
    /// the request is not in flight.
    fn response(&mut self, e: network::ResponseReceived) -> bool {
        let ledger = self;
        let id = e.request_id.as_str();
        ledger.tick(e.timestamp);
        let Some(r) = ledger.in_flight.get_mut(id) else {
            return false;
        };
        respond(r, e.response);
        let hop = r.hop;
        let expect = if e.has_extra_info {
            Expect::Yes
        } else {
            Expect::No
        };
        // The common case, a request without redirects whose ExtraInfo did not come yet, needs
        // no matching entry until one comes.
        if expect == Expect::Yes || ledger.extra.contains_key(id) {
            ledger.expect_extra(id, hop, expect);
        }
        true
    }

    /// Request `id` (in flight) was answered from the renderer's memory cache.
    fn served_from_memory(&mut self, id: &str) {
        if let Some(r) = self.in_flight.get_mut(id) {
            r.from_cache = Some(Cache::Memory);
            r.header_bytes = None;
        }
    }

    /// Raw headers (an ExtraInfo event) of request `id`: merged into the hop they belong to (the
    /// one in flight, one that ended) once it is known, kept until then.
    fn extra(&mut self, id: &str, response: bool, raw: RawHeaders) {
        let ledger = self;
        let info = ledger.extra_info(id);
        if response {
            info.responses.push_back(raw);
        } else {
            info.requests.push_back(raw);
        }
        ledger.match_extra(id);
    }

    /// A request ended (finished, or failed with Chromium's error text); false when it was not in
    /// flight.
    fn done(&mut self, id: &str, at: f64, size: Option<f64>, failure: Option<String>) -> bool {
        let ledger = self;
        ledger.tick(at);
        let Some(mut r) = ledger.in_flight.remove(id) else {
            ledger.late_end(id, at, size, failure);
            return false;
        };
        r.finished = Some(Instant::now());
        r.ended_at = Some(at);
        r.encoded_data_length = size;
        r.failure = failure;
        let (hop, responded) = (r.hop, r.responded);
        ledger.finish(r);
        if !responded {
            // Ended before any response: what ExtraInfo comes for it is its own.
            ledger.expect_extra(id, hop, Expect::Yes);
        } else {
            ledger.match_extra(id);
        }
        true
    }

    /// Puts `note` on the newest finished record of request `id` (the hop that just ended).
    fn note_last(&mut self, id: &str, note: &'static str) {
        if let Some(r) = self.done.iter_mut().rev().find(|r| r.cdp_id == id) {
            Arc::make_mut(r).note = Some(note);
        }
    }

    /// Notes whether hop `hop` of request `id` has ExtraInfo events, then matches what waits.
    fn expect_extra(&mut self, id: &str, hop: u32, expect: Expect) {
        self.extra_info(id).hop(hop).expect = expect;
        self.match_extra(id);
    }

    /// The ExtraInfo matching of request `id`, made when new (the oldest forgotten when too many).
    fn extra_info(&mut self, id: &str) -> &mut ExtraInfo {
        if self.extra.len() >= EXTRA_KEPT && !self.extra.contains_key(id) {
            let in_flight = &self.in_flight;
            self.extra.retain(|k, _| in_flight.contains_key(k));
        }
        self.extra.entry(id.to_string()).or_default()
    }

    /// Merges the ExtraInfo events of request `id` whose hop is known into that hop; forgets the
    /// id's matching once the request ended and nothing more is to come.
    fn match_extra(&mut self, id: &str) {
        let Some(info) = self.extra.get_mut(id) else {
            return;
        };
        let mut matched = Vec::new();
        for response in [false, true] {
            while let Some((hop, raw)) = info.next_match(response) {
                matched.push((hop, response, raw));
            }
        }
        if info.complete() && !self.in_flight.contains_key(id) {
            self.extra.remove(id);
        }
        for (hop, response, raw) in matched {
            self.merge_extra(id, hop, response, &raw);
        }
    }

    /// Merges raw headers into hop `hop` of request `id`: the one in flight, or one that ended
    /// (in the ring and in the HAR capture).
    fn merge_extra(&mut self, id: &str, hop: u32, response: bool, raw: &RawHeaders) {
        if let Some(r) = self.in_flight.get_mut(id)
            && r.hop == hop
        {
            merge_raw(r, response, raw);
            return;
        }
        self.update_ended(
            |r| r.cdp_id == id && r.hop == hop,
            |r| merge_raw(r, response, raw),
        );
    }

    fn problem(&mut self, what: String) {
        if self.problems.contains(&what) {
            return;
        }
        if self.problems.len() < PROBLEMS_KEPT {
            self.problems.push(what);
        } else {
            self.problems_more += 1;
        }
    }

    /// Whether requests are recorded (a ring of 0 is recording off).
    fn records(&self) -> bool {
        self.capacity > 0
    }

    /// The `Fetch.enable` for the routes, or `None` when there are none.
    fn fetch_enable(&self) -> Option<fetch::Enable> {
        if self.routes.is_empty() {
            return None;
        }
        let mut patterns: Vec<fetch::RequestPattern> = Vec::new();
        for r in &self.routes {
            let p = fetch::RequestPattern {
                url_pattern: Some(cdp_pattern(&r.pattern)),
                resource_type: None,
                request_stage: Some("Request".to_string()),
            };
            if !patterns.contains(&p) {
                patterns.push(p);
            }
        }
        Some(fetch::Enable {
            patterns: Some(patterns),
            handle_auth_requests: None,
        })
    }
}

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

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fail(&self, why: String) {
        self.state.send_replace(RecorderState::Failed(why));
    }

    /// Attaches the recorder's own session to the page and starts recording on it.
    async fn attach(self: Arc<Self>) -> Option<Session> {
        let root = self.conn.browser();
        let attach = root.attach_to_target(&self.target);
        let session = match tokio::time::timeout(deadline::SLOW_CALL, attach).await {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                self.fail(format!("cannot attach to the page: {e}"));
                return None;
            }
            Err(_) => {
                self.fail("attaching to the page timed out".to_string());
                return None;
            }
        };
        let Some(id) = session.id().cloned() else {
            // Not a flat session: nothing to record on; let it go rather than hold it.
            self.fail("the page's session has no id".to_string());
            let _ = tokio::time::timeout(deadline::CLEANUP, session.detach()).await;
            return None;
        };
        self.lock().sessions.insert(id, Arc::from("page"));
        // Enabled while the event loop runs (auto-attach announces children before it answers).
        let shared = Arc::clone(&self);
        let page = session.clone();
        tokio::spawn(async move {
            let (routes, record) = {
                let ledger = shared.lock();
                (ledger.fetch_enable(), ledger.records())
            };
            // No `Page.enable` here: the tab's page session has it, and its frame events serve.
            let r = enable(&page, false, routes.as_ref(), record, false, false).await;
            if let Err(e) = &r.network {
                shared.fail(format!("cannot enable the network domain: {e}"));
                return;
            }
            {
                let mut ledger = shared.lock();
                if let Err(e) = &r.auto_attach {
                    ledger.problem(format!(
                        "the network recorder cannot follow the page's iframes and workers (their requests are not recorded): {e}"
                    ));
                }
                if let Err(e) = &r.fetch {
                    ledger.problem(format!("the page's network routes are not applied: {e}"));
                }
            }
            shared.state.send_replace(if record {
                RecorderState::Recording
            } else {
                RecorderState::Off
            });
        });
        Some(session)
    }

    /// Applies the connection's events until the recorder's session goes.
    async fn record(self: Arc<Self>, mut events: EventStream, session: Session) {
        let mut lost = 0;
        while let Some(ev) = events.recv().await {
            if events.dropped() > lost {
                lost = events.dropped();
                self.forget_in_flight(lost);
            }
            if !self.apply(&ev, &session) {
                break;
            }
        }
        if !matches!(*self.state.borrow(), RecorderState::Failed(_)) {
            self.fail("the page's session went away".to_string());
        }
    }

    /// One event; false when the recorder's own session detached.
    fn apply(self: &Arc<Self>, ev: &RawEvent, own: &Session) -> bool {
        if ev.method == target::DetachedFromTarget::METHOD {
            if let Ok(e) = ev.decode::<target::DetachedFromTarget>() {
                if Some(&e.session_id) == own.id() {
                    return false;
                }
                self.on_detached(&e.session_id);
            }
            return true;
        }
        let Some(from) = ev.session_id.as_ref() else {
            return true;
        };
        if ev.method == page::FrameNavigated::METHOD || ev.method == page::FrameDetached::METHOD {
            self.on_frame_event(ev, from);
            return true;
        }
        if ev.method == network::DataReceived::METHOD {
            self.on_data(ev, from);
            return true;
        }
        let target_type = match self.lock().sessions.get(from) {
            Some(t) => Arc::clone(t),
            None => return true,
        };
        match ev.method.as_str() {
            target::AttachedToTarget::METHOD => {
                if let Ok(e) = ev.decode::<target::AttachedToTarget>() {
                    self.on_attached(from, e);
                }
            }
            network::RequestWillBeSent::METHOD => {
                if let Ok(e) = ev.decode::<network::RequestWillBeSent>() {
                    self.on_request(from, &target_type, e);
                }
            }
            network::ResponseReceived::METHOD => {
                if let Ok(e) = ev.decode::<network::ResponseReceived>() {
                    self.on_response(e);
                }
            }
            network::RequestWillBeSentExtraInfo::METHOD => {
                if let Ok(e) = ev.decode::<network::RequestWillBeSentExtraInfo>() {
                    self.on_extra(e.request_id.as_str(), false, headers(&e.headers));
                }
            }
            network::ResponseReceivedExtraInfo::METHOD => {
                if let Ok(e) = ev.decode::<network::ResponseReceivedExtraInfo>() {
                    self.on_extra(e.request_id.as_str(), true, headers(&e.headers));
                }
            }
            network::LoadingFinished::METHOD => {
                if let Ok(e) = ev.decode::<network::LoadingFinished>() {
                    self.on_done(
                        e.request_id.as_str(),
                        e.timestamp,
                        Some(e.encoded_data_length),
                        None,
                    );
                }
            }
            network::LoadingFailed::METHOD => {
                if let Ok(e) = ev.decode::<network::LoadingFailed>() {
                    self.on_done(e.request_id.as_str(), e.timestamp, None, Some(e.error_text));
                }
            }
            network::RequestServedFromCache::METHOD => {
                if let Ok(e) = ev.decode::<network::RequestServedFromCache>() {
                    self.lock().served_from_memory(e.request_id.as_str());
                }
            }
            fetch::RequestPaused::METHOD => {
                if let Ok(e) = ev.decode::<fetch::RequestPaused>() {
                    self.on_paused(from, e);
                }
            }
            _ => {}
        }
        true
    }

    fn on_attached(self: &Arc<Self>, parent: &SessionId, e: target::AttachedToTarget) {
        let child = e.session_id.clone();
        let kind: Arc<str> = Arc::from(e.target_info.r#type.as_str());
        let url = e.target_info.url.clone();
        let (routes, record) = {
            let mut ledger = self.lock();
            ledger.sessions.insert(child.clone(), kind.clone());
            ledger.parents.insert(child.clone(), parent.clone());
            (ledger.fetch_enable(), ledger.records())
        };
        let session = self.conn.session(child.clone());
        let resume = e.waiting_for_debugger;
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            // A target that does not do networking (or went away) still has to run.
            let forced = crate::fault::fails("child-network-enable");
            // An OOPIF's documents are reported on its own session only: its frame events say
            // when one is replaced (a few events a navigation, none a request).
            let frames = record && &*kind == "iframe";
            let r = enable(&session, resume, routes.as_ref(), record, forced, frames).await;
            let mut ledger = shared.lock();
            if !ledger.sessions.contains_key(&child) {
                return;
            }
            // A worker has no Target or Fetch domain of its own in some versions: not a loss of
            // its requests (Network is what counts).
            let parts = [
                ("the network domain", &r.network, false),
                ("auto-attach", &r.auto_attach, true),
                ("routing", &r.fetch, true),
                ("its frame events", &r.page, true),
            ];
            for (what, result, optional) in parts {
                if let Err(e) = result
                    && !went_away(e)
                    && !(optional && not_supported(e))
                {
                    ledger.problem(format!(
                        "the network recorder cannot watch a {kind} ({url}): {what} failed: {e}"
                    ));
                }
            }
        });
    }

    /// `Page.frameNavigated` / `Page.frameDetached` of the tab's page session or of one of the
    /// recorder's iframe sessions (others are another tab's).
    fn on_frame_event(&self, ev: &RawEvent, from: &SessionId) {
        let page = self.page.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut ledger = self.lock();
        if page.as_ref() != Some(from) && !ledger.sessions.contains_key(from) {
            return;
        }
        let ended = if ev.method == page::FrameNavigated::METHOD {
            match ev.decode::<page::FrameNavigated>() {
                Ok(e) => ledger.navigated(e.frame.id.as_str(), e.frame.loader_id.as_str()),
                Err(_) => false,
            }
        } else {
            match ev.decode::<page::FrameDetached>() {
                // A frame that moves to another process goes on there (its navigation request
                // included); the new process's session reports its documents.
                Ok(e) if e.reason != Some(page::FrameDetachedReason::Swap) => {
                    ledger.frame_removed(e.frame_id.as_str())
                }
                _ => false,
            }
        };
        if ended {
            self.publish(&ledger, false);
        }
    }

    fn on_detached(&self, gone: &SessionId) {
        let mut ledger = self.lock();
        if !ledger.sessions.contains_key(gone) {
            return;
        }
        // The session and every session below it.
        let mut dropped = vec![gone.clone()];
        let mut i = 0;
        while i < dropped.len() {
            let p = dropped[i].clone();
            dropped.extend(
                ledger
                    .parents
                    .iter()
                    .filter(|(_, parent)| **parent == p)
                    .map(|(c, _)| c.clone()),
            );
            i += 1;
        }
        for s in &dropped {
            ledger.sessions.remove(s);
            ledger.parents.remove(s);
        }
        let before = ledger.in_flight.len();
        ledger
            .in_flight
            .retain(|_, r| !dropped.contains(&r.session));
        if ledger.in_flight.len() != before {
            self.publish(&ledger, false);
        }
    }

    fn on_request(&self, from: &SessionId, target_type: &str, e: network::RequestWillBeSent) {
        let mut ledger = self.lock();
        let started = ledger.request(from, target_type, e);
        self.publish(&ledger, started);
    }

    fn on_response(&self, e: network::ResponseReceived) {
        let mut ledger = self.lock();
        if ledger.response(e) {
            self.publish(&ledger, false);
        }
    }

    /// `Network.dataReceived`, the commonest event (one per chunk of a body): it changes no
    /// count. The clock of the last activity moves and the request's decoded size grows (HAR
    /// `content.size`): a small decode, then one lock for the session's check and one lookup.
    fn on_data(&self, ev: &RawEvent, from: &SessionId) {
        let Ok(e) = ev.decode::<network::DataReceived>() else {
            return;
        };
        {
            let mut ledger = self.lock();
            if !ledger.sessions.contains_key(from) {
                return;
            }
            ledger.tick(e.timestamp);
            if let Some(r) = ledger.in_flight.get_mut(e.request_id.as_str()) {
                r.decoded_length += u64::try_from(e.data_length).unwrap_or(0);
            }
        }
        self.activity.send_modify(|a| a.last_event = Instant::now());
    }

    fn on_extra(&self, id: &str, response: bool, raw: RawHeaders) {
        self.lock().extra(id, response, raw);
    }

    fn on_done(&self, id: &str, at: f64, size: Option<f64>, failure: Option<String>) {
        // Chromium says `net::ERR_BLOCKED_BY_CLIENT.Inspector` for a request failed by `Fetch`.
        let refused = failure
            .as_deref()
            .is_some_and(|f| f.starts_with(crate::session::guard::BLOCKED_ERROR))
            && self
                .guard
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .as_ref()
                .is_some_and(|g| g.refused(id));
        let mut ledger = self.lock();
        if ledger.done(id, at, size, failure) {
            if refused {
                ledger.note_last(id, BLOCKED_NOTE);
            }
            self.publish(&ledger, false);
        }
    }

    /// A request paused by `Fetch`: the first route of the tab that matches decides.
    fn on_paused(self: &Arc<Self>, from: &SessionId, e: fetch::RequestPaused) {
        let route = {
            let ledger = self.lock();
            ledger
                .routes
                .iter()
                .find(|r| url_matches(&r.pattern, &e.request.url))
                .cloned()
        };
        let session = self.conn.session(from.clone());
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            let t = deadline::QUICK_CALL;
            let id = e.request_id.clone();
            let sent = match route.map(|r| r.action) {
                Some(RouteAction::Abort { reason }) => session
                    .send_timeout(
                        &fetch::FailRequest {
                            request_id: id,
                            error_reason: reason,
                        },
                        t,
                    )
                    .await
                    .map(|_| ()),
                Some(RouteAction::Fulfill {
                    status,
                    headers,
                    body_base64,
                }) => session
                    .send_timeout(
                        &fetch::FulfillRequest {
                            request_id: id,
                            response_code: i64::from(status),
                            response_headers: Some(entries(&headers)),
                            body: Some(body_base64),
                            response_phrase: None,
                        },
                        t,
                    )
                    .await
                    .map(|_| ()),
                Some(RouteAction::Continue { headers }) => {
                    let merged = merge_headers(&e.request.headers, &headers);
                    // The request as sent: `requestWillBeSent` reported it before the route.
                    if let Some(nid) = &e.network_id {
                        shared.amend(nid.as_str(), &headers);
                    }
                    session
                        .send_timeout(
                            &fetch::ContinueRequest {
                                request_id: id,
                                headers: Some(merged),
                                ..Default::default()
                            },
                            t,
                        )
                        .await
                        .map(|_| ())
                }
                None => session
                    .send_timeout(
                        &fetch::ContinueRequest {
                            request_id: id,
                            ..Default::default()
                        },
                        t,
                    )
                    .await
                    .map(|_| ()),
            };
            if let Err(err) = sent
                && !went_away(&err)
            {
                // The URL only: a request's headers may carry credentials.
                shared.lock().problem(format!(
                    "a route could not be applied to {} (the request was failed instead): {err}",
                    e.request.url
                ));
                // A paused request nobody answers hangs the page until it gives up: fail it.
                let _ = session
                    .send_timeout(
                        &fetch::FailRequest {
                            request_id: e.request_id,
                            error_reason: "Failed".into(),
                        },
                        t,
                    )
                    .await;
            }
        });
    }

    /// Adds a continue route's headers to the record of the request (kept for it if it was not
    /// reported yet).
    fn amend(&self, id: &str, extra: &[(String, String)]) {
        let mut ledger = self.lock();
        match ledger.in_flight.get_mut(id) {
            Some(r) => {
                for (k, v) in extra {
                    r.request_headers.insert(k.to_ascii_lowercase(), v.clone());
                }
            }
            None => {
                // Bounded: ids of requests that never got reported must not pile up.
                if ledger.amended.len() >= 1024 {
                    ledger.amended.clear();
                }
                ledger.amended.insert(id.to_string(), extra.to_vec());
            }
        }
    }

    /// Events were lost: which requests ended is unknown, so none counts as in flight any more.
    fn forget_in_flight(&self, lost: u64) {
        let mut ledger = self.lock();
        ledger.lost_events = lost;
        ledger.in_flight.clear();
        self.publish(&ledger, false);
    }

    /// Publishes the activity after an event of a request (`started`: a request began).
    fn publish(&self, ledger: &Ledger, started: bool) {
        let in_flight = ledger.in_flight.len();
        let awaiting_response = ledger.in_flight.values().filter(|r| !r.responded).count();
        self.activity.send_modify(|a| {
            a.in_flight = in_flight;
            a.awaiting_response = awaiting_response;
            a.last_event = Instant::now();
            a.started += u64::from(started);
        });
    }
}

fn respond(r: &mut RequestRecord, resp: network::Response) {
    // A memory-cache answer was announced before its response (`requestServedFromCache`).
    if resp.from_disk_cache == Some(true) {
        r.from_cache = Some(Cache::Disk);
    }
    // What came on the wire when the response (its headers) came: over HTTP/1.x, the headers
    // alone (status line included). HTTP/2 and 3 compress them, so their size is not known.
    let http1 = resp
        .protocol
        .as_deref()
        .is_some_and(|p| p.starts_with("http/1"));
    r.header_bytes = resp
        .encoded_data_length
        .filter(|_| http1 && r.from_cache.is_none());
    r.status = Some(resp.status);
    r.status_text = resp.status_text;
    r.mime_type = resp.mime_type;
    // The raw ones (ExtraInfo) are merged over these once matched.
    r.response_headers = headers(&resp.headers);
    r.protocol = resp.protocol;
    r.remote_ip = resp.remote_ip_address;
    r.timing = resp.timing;
    r.responded = true;
}

/// Merges raw headers (an ExtraInfo event) into a hop's request or response headers: they are
/// what went over the wire (`cookie`, `set-cookie` included), so they win.
fn merge_raw(r: &mut RequestRecord, response: bool, raw: &RawHeaders) {
    let into = if response {
        &mut r.response_headers
    } else {
        &mut r.request_headers
    };
    for (k, v) in raw {
        into.insert(k.clone(), v.clone());
    }
}

/// CDP's header object as lower-case names to values.
fn headers(h: &serde_json::Map<String, serde_json::Value>) -> BTreeMap<String, String> {
    h.iter()
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.to_ascii_lowercase(), v)
        })
        .collect()
}

fn entries(h: &[(String, String)]) -> Vec<fetch::HeaderEntry> {
    h.iter()
        .map(|(name, value)| fetch::HeaderEntry {
            name: name.clone(),
            value: value.clone(),
        })
        .collect()
}

/// The request's headers with `extra` added, replacing same-named ones.
fn merge_headers(
    original: &serde_json::Map<String, serde_json::Value>,
    extra: &[(String, String)],
) -> Vec<fetch::HeaderEntry> {
    let mut out: Vec<fetch::HeaderEntry> = original
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)))
        .map(|(k, v)| fetch::HeaderEntry {
            name: k.clone(),
            value: v.as_str().map_or_else(|| v.to_string(), str::to_string),
        })
        .collect();
    out.extend(entries(extra));
    out
}

fn wall_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The session or its target went away (a child that ended meanwhile): nothing lost.
fn went_away(e: &CdpError) -> bool {
    e.is_closed() || e.kind() == ErrorKind::NoTarget
}

/// The target has no such method (a worker without the Target or Fetch domain).
fn not_supported(e: &CdpError) -> bool {
    matches!(e, CdpError::Protocol { code: -32601, .. })
}

/// A route's pattern as a whole-URL wildcard: one without `*`, `?` or a scheme matches URLs that
/// contain it.
pub(crate) fn cdp_pattern(pattern: &str) -> String {
    if pattern.contains(['*', '?']) || pattern.contains("://") {
        pattern.to_string()
    } else {
        format!("*{pattern}*")
    }
}

/// Whether `url` matches the route pattern (`*` any run of characters, `?` one, `\` escapes; the
/// whole URL, as `Fetch` matches it).
pub(crate) fn url_matches(pattern: &str, url: &str) -> bool {
    let p: Vec<char> = cdp_pattern(pattern).chars().collect();
    let s: Vec<char> = url.chars().collect();
    // Classic wildcard match with one backtrack point for the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                c if c != '\\' && c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Decodes a body Chromium gave (base64 or text) to bytes.
pub(crate) fn body_bytes(b: &network::GetResponseBodyResponse) -> Option<Vec<u8>> {
    if b.base64_encoded {
        base64::engine::general_purpose::STANDARD
            .decode(b.body.as_bytes())
            .ok()
    } else {
        Some(b.body.clone().into_bytes())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn will_be_sent(id: &str, hop: u32, redirect: Option<bool>) -> network::RequestWillBeSent {
        network::RequestWillBeSent {
            request_id: id.into(),
            request: network::Request {
                url: format!("http://h/{hop}"),
                method: "GET".into(),
                ..Default::default()
            },
            redirect_response: redirect.map(|_| network::Response {
                status: 302,
                ..Default::default()
            }),
            redirect_has_extra_info: redirect.unwrap_or(false),
            ..Default::default()
        }
    }

    fn response(id: &str, has_extra_info: bool) -> network::ResponseReceived {
        network::ResponseReceived {
            request_id: id.into(),
            response: network::Response {
                status: 200,
                ..Default::default()
            },
            has_extra_info,
            ..Default::default()
        }
    }

    fn raw(value: &str) -> RawHeaders {
        BTreeMap::from([("x-hop".to_string(), value.to_string())])
    }

    /// Every hop of request `id` the ledger holds, by hop.
    fn hops(l: &Ledger, id: &str) -> Vec<RequestRecord> {
        let mut all: Vec<RequestRecord> = l
            .done
            .iter()
            .map(|r| &**r)
            .chain(l.in_flight.values())
            .filter(|r| r.cdp_id == id)
            .cloned()
            .collect();
        all.sort_by_key(|r| r.hop);
        all
    }

    fn x_hop(h: &BTreeMap<String, String>) -> Option<&str> {
        h.get("x-hop").map(String::as_str)
    }

    #[test]
    fn raw_headers_that_come_before_or_after_their_hop_join_it() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        // The request's raw headers before the request itself, the response's after it ended.
        l.extra("r", false, raw("req"));
        l.request(&s, "page", will_be_sent("r", 0, None));
        assert_eq!(
            x_hop(&hops(&l, "r")[0].request_headers),
            None,
            "not known yet"
        );
        l.response(response("r", true));
        assert_eq!(x_hop(&hops(&l, "r")[0].request_headers), Some("req"));
        l.done("r", 1.0, Some(10.0), None);
        l.extra("r", true, raw("resp"));
        let h = hops(&l, "r");
        assert_eq!(x_hop(&h[0].response_headers), Some("resp"));
        assert!(l.extra.is_empty(), "nothing more to come: forgotten");
    }

    #[test]
    fn a_hop_without_raw_headers_takes_none_of_the_next_hops() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.request(&s, "page", will_be_sent("r", 0, None));
        // Hop 1's raw headers come while hop 0 is not known yet (an internal redirect: hop 0
        // never reaches the network).
        l.extra("r", false, raw("1"));
        l.extra("r", true, raw("1"));
        l.request(&s, "page", will_be_sent("r", 1, Some(false)));
        l.response(response("r", true));
        l.done("r", 1.0, None, None);
        let h = hops(&l, "r");
        assert_eq!(h.len(), 2);
        assert_eq!(x_hop(&h[0].request_headers), None);
        assert_eq!(x_hop(&h[0].response_headers), None);
        assert_eq!(x_hop(&h[1].request_headers), Some("1"));
        assert_eq!(x_hop(&h[1].response_headers), Some("1"));
        assert!(l.extra.is_empty());
    }

    #[test]
    fn a_response_without_raw_headers_leaves_no_matching_behind() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.request(&s, "page", will_be_sent("r", 0, None));
        l.response(response("r", false));
        l.done("r", 1.0, None, None);
        assert!(l.extra.is_empty());
        assert_eq!(x_hop(&hops(&l, "r")[0].request_headers), None);
    }

    #[test]
    fn raw_headers_of_a_request_that_failed_before_any_response_are_its_own() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.request(&s, "page", will_be_sent("r", 0, None));
        l.done("r", 1.0, None, Some("net::ERR_FAILED".into()));
        l.extra("r", false, raw("req"));
        l.extra("r", true, raw("cors"));
        let h = hops(&l, "r");
        assert_eq!(x_hop(&h[0].request_headers), Some("req"));
        assert_eq!(x_hop(&h[0].response_headers), Some("cors"));
    }

    /// A request of frame `frame` made by document `loader`.
    fn made_by(id: &str, frame: Option<&str>, loader: &str) -> network::RequestWillBeSent {
        network::RequestWillBeSent {
            loader_id: loader.into(),
            frame_id: frame.map(Into::into),
            timestamp: 1.0,
            ..will_be_sent(id, 0, None)
        }
    }

    #[test]
    fn a_navigation_ends_what_the_replaced_document_had_in_flight() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.navigated("F", "L1");
        l.request(&s, "page", made_by("old", Some("F"), "L1"));
        l.request(&s, "worker", made_by("worker", None, ""));
        l.request(&s, "page", made_by("child", Some("C"), "L9"));
        // The navigation request (its id is the new document's) and a request of the new
        // document reported before the navigation's frame event.
        l.request(&s, "page", made_by("L2", Some("F"), "L2"));
        l.request(&s, "page", made_by("new", Some("F"), "L2"));
        l.response(response("L2", false));
        l.tick(3.0);
        assert!(l.navigated("F", "L2"));
        let old = &hops(&l, "old")[0];
        assert_eq!(old.failure.as_deref(), Some(ABORTED));
        assert_eq!(old.note, Some(REPLACED_NOTE));
        assert_eq!(old.ended_at, Some(3.0));
        let mut live: Vec<&str> = l.in_flight.keys().map(String::as_str).collect();
        live.sort_unstable();
        assert_eq!(live, ["L2", "child", "new", "worker"]);
        // Reported late, after the navigation: ended at once.
        l.request(&s, "page", made_by("late", Some("F"), "L1"));
        assert!(!l.in_flight.contains_key("late"));
        assert_eq!(hops(&l, "late")[0].failure.as_deref(), Some(ABORTED));
        // A removed frame ends what it had in flight.
        assert!(l.frame_removed("C"));
        assert!(!l.in_flight.contains_key("child"));
    }

    #[test]
    fn the_first_navigation_seen_also_ends_the_later_requests_of_the_document_it_replaced() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.request(&s, "page", made_by("a", Some("F"), "L1"));
        assert!(l.navigated("F", "L2"));
        l.request(&s, "page", made_by("b", Some("F"), "L1"));
        assert!(l.in_flight.is_empty());
        assert_eq!(hops(&l, "b")[0].note, Some(REPLACED_NOTE));
    }

    #[test]
    fn a_document_restored_from_the_back_forward_cache_records_its_new_requests() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.navigated("F", "A");
        l.navigated("F", "B");
        // Back: document A again (same loader id), then one of its requests.
        l.navigated("F", "A");
        l.request(&s, "page", made_by("a2", Some("F"), "A"));
        assert!(l.in_flight.contains_key("a2"));
        assert!(l.response(response("a2", false)));
        assert!(l.done("a2", 4.0, Some(10.0), None));
        let r = &hops(&l, "a2")[0];
        assert_eq!(
            (r.status, r.failure.as_deref(), r.note),
            (Some(200), None, None)
        );
        // B left again: a late request of it still ends at once.
        l.request(&s, "page", made_by("b2", Some("F"), "B"));
        assert_eq!(hops(&l, "b2")[0].note, Some(REPLACED_NOTE));
    }

    #[test]
    fn an_end_reported_after_the_document_was_replaced_takes_the_records_place() {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        l.navigated("F", "L1");
        l.request(&s, "page", made_by("beacon", Some("F"), "L1"));
        l.navigated("F", "L2");
        assert_eq!(hops(&l, "beacon")[0].note, Some(REPLACED_NOTE));
        // A keepalive request Chromium did report the end of after all.
        assert!(!l.done("beacon", 5.0, Some(40.0), None));
        let r = &hops(&l, "beacon")[0];
        assert_eq!((r.failure.as_deref(), r.note), (None, None));
        assert_eq!((r.ended_at, r.encoded_data_length), (Some(5.0), Some(40.0)));
    }

    /// One event of a redirect chain of request `r`, as Chromium 156 sends them.
    enum Ev {
        /// `requestWillBeSent` of hop n (for n > 0: the redirect of hop n-1, its
        /// `redirectHasExtraInfo`, and whether that response came from the disk cache).
        Sent(u32, bool, bool),
        /// `requestWillBeSentExtraInfo` of hop n.
        ReqExtra(u32),
        /// `responseReceivedExtraInfo` of hop n.
        RespExtra(u32),
        /// The last hop's `responseReceived` (with `hasExtraInfo`), then its end.
        Response,
        Done,
    }

    fn replay(events: &[Ev]) -> Vec<RequestRecord> {
        let mut l = Ledger::new();
        let s = SessionId::new("s");
        for e in events {
            match *e {
                Ev::Sent(k, extra, cached) => {
                    let mut sent = will_be_sent("r", k, (k > 0).then_some(extra));
                    if let Some(resp) = sent.redirect_response.as_mut() {
                        resp.from_disk_cache = Some(cached);
                    }
                    l.request(&s, "page", sent);
                }
                Ev::ReqExtra(k) => l.extra("r", false, raw(&k.to_string())),
                Ev::RespExtra(k) => l.extra("r", true, raw(&k.to_string())),
                Ev::Response => {
                    l.response(response("r", true));
                }
                Ev::Done => {
                    l.done("r", 1.0, None, None);
                }
            }
        }
        assert!(l.extra.is_empty(), "left waiting: {:?}", l.extra);
        hops(&l, "r")
    }

    /// `(request's, response's)` raw headers of each hop, by their `x-hop`.
    fn raw_of(h: &[RequestRecord]) -> Vec<(Option<&str>, Option<&str>)> {
        h.iter()
            .map(|r| (x_hop(&r.request_headers), x_hop(&r.response_headers)))
            .collect()
    }

    #[test]
    fn chromiums_own_orders_of_a_three_hop_chain_give_each_hop_its_raw_headers() {
        use Ev::*;
        // fetch('/redir1'), 302 -> 301 -> 200, nothing cached: hop 1's request headers come
        // before its requestWillBeSent.
        let fetch = [
            Sent(0, false, false),
            ReqExtra(0),
            RespExtra(0),
            ReqExtra(1),
            Sent(1, true, false),
            RespExtra(1),
            Sent(2, true, false),
            ReqExtra(2),
            RespExtra(2),
            Response,
            Done,
        ];
        // The same chain as a navigation: hop 1's response headers come after hop 2 started.
        let goto = [
            Sent(0, false, false),
            ReqExtra(0),
            RespExtra(0),
            Sent(1, true, false),
            ReqExtra(1),
            Sent(2, true, false),
            RespExtra(1),
            ReqExtra(2),
            RespExtra(2),
            Response,
            Done,
        ];
        let all = [
            (Some("0"), Some("0")),
            (Some("1"), Some("1")),
            (Some("2"), Some("2")),
        ];
        assert_eq!(raw_of(&replay(&fetch)), all);
        assert_eq!(raw_of(&replay(&goto)), all);
        // Again once the 301 is in the disk cache: hop 1 never goes on the wire, so it has no
        // raw headers (redirectHasExtraInfo false) and says it came from the cache.
        let cached = [
            ReqExtra(0),
            Sent(0, false, false),
            RespExtra(0),
            Sent(1, true, false),
            ReqExtra(2),
            Sent(2, false, true),
            RespExtra(2),
            Response,
            Done,
        ];
        let h = replay(&cached);
        assert_eq!(
            raw_of(&h),
            [(Some("0"), Some("0")), (None, None), (Some("2"), Some("2"))]
        );
        assert_eq!(
            h.iter().map(|r| r.from_cache).collect::<Vec<_>>(),
            [None, Some(Cache::Disk), None]
        );
    }

    proptest::proptest! {
        /// A redirect chain whose hops have raw headers or not (the flags), with the raw-header
        /// events of each kind in hop order but placed anywhere among the hops' own events: every
        /// hop with the flag gets its own, the others none, and nothing is left waiting.
        #[test]
        fn raw_headers_reach_their_own_hop_in_any_arrival_order(
            flags in proptest::collection::vec(proptest::bool::ANY, 1..6),
            picks in proptest::collection::vec(0usize..3, 0..40),
        ) {
            let mut l = Ledger::new();
            let s = SessionId::new("s");
            let n = flags.len();
            // The hops' own events: requestWillBeSent of each (a redirect ends the one before),
            // then the last one's response and its end.
            #[derive(Debug)]
            enum Main { Request(u32), Response, Done }
            let mut main: VecDeque<Main> = (0..n as u32).map(Main::Request).collect();
            main.push_back(Main::Response);
            main.push_back(Main::Done);
            let with: Vec<u32> = (0..n as u32).filter(|&k| flags[k as usize]).collect();
            let mut requests: VecDeque<u32> = with.iter().copied().collect();
            let mut responses: VecDeque<u32> = with.iter().copied().collect();
            let mut picks = picks.into_iter();
            while !(main.is_empty() && requests.is_empty() && responses.is_empty()) {
                let mut pick = picks.next().unwrap_or(0);
                loop {
                    let empty = match pick { 0 => main.is_empty(), 1 => requests.is_empty(), _ => responses.is_empty() };
                    if !empty { break; }
                    pick = (pick + 1) % 3;
                }
                match pick {
                    0 => match main.pop_front() {
                        Some(Main::Request(k)) => {
                            let redirect = (k > 0).then(|| flags[k as usize - 1]);
                            l.request(&s, "page", will_be_sent("r", k, redirect));
                        }
                        Some(Main::Response) => {
                            l.response(response("r", flags[n - 1]));
                        }
                        Some(Main::Done) => {
                            l.done("r", 1.0, None, None);
                        }
                        None => {}
                    },
                    1 => if let Some(k) = requests.pop_front() { l.extra("r", false, raw(&k.to_string())); },
                    _ => if let Some(k) = responses.pop_front() { l.extra("r", true, raw(&k.to_string())); },
                }
            }
            let h = hops(&l, "r");
            proptest::prop_assert_eq!(h.len(), n);
            for (k, hop) in h.iter().enumerate() {
                let want = flags[k].then(|| k.to_string());
                proptest::prop_assert_eq!(x_hop(&hop.request_headers).map(str::to_string), want.clone(), "hop {}", k);
                proptest::prop_assert_eq!(x_hop(&hop.response_headers).map(str::to_string), want, "hop {}", k);
            }
            proptest::prop_assert!(l.extra.is_empty(), "left waiting: {:?}", l.extra);
        }
    }

    #[test]
    fn patterns_match_whole_urls_with_wildcards() {
        assert!(url_matches("*/api/data", "http://127.0.0.1:1/api/data"));
        assert!(!url_matches(
            "*/api/data",
            "http://127.0.0.1:1/api/data?x=1"
        ));
        assert!(url_matches("*/api/*", "http://127.0.0.1:1/api/data?x=1"));
        assert!(url_matches("http://h/a?c", "http://h/abc"));
        assert!(!url_matches("http://h/a?c", "http://h/ac"));
        assert!(url_matches("*", ""));
        assert!(url_matches("**x*", "abxcd"));
        assert!(url_matches(r"*a\*b", "xa*b"));
        assert!(!url_matches(r"*a\*b", "xazb"));
    }

    #[test]
    fn a_pattern_without_wildcards_or_scheme_matches_as_a_substring() {
        assert_eq!(cdp_pattern("/api/data"), "*/api/data*");
        assert!(url_matches("/api/data", "http://h/api/data.json"));
        assert_eq!(cdp_pattern("http://h/x"), "http://h/x");
        assert!(!url_matches("http://h/x", "http://h/x/y"));
    }

    proptest::proptest! {
        #[test]
        fn a_literal_url_matches_itself_and_star_matches_all(url in "[a-z0-9:/._-]{0,40}") {
            let literal = format!("{url}://");
            proptest::prop_assert!(url_matches(&literal, &literal));
            proptest::prop_assert!(url_matches("*", &url));
            let around = format!("*{url}*");
            let inside = format!("x{url}y");
            proptest::prop_assert!(url_matches(&around, &inside));
        }
    }
}
