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

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use cdp_protocol::{
    Connection, Event as _, EventFilter, EventStream, RawEvent, Session, SessionId, TargetId,
    network, runtime, target,
};
use futures::future::BoxFuture;
use tokio::sync::watch;

use super::TabService;
use crate::deadline;

/// Finished requests kept per tab (the reference CLI's default ring size); older ones are dropped
/// and counted.
pub(crate) const KEPT_REQUESTS: usize = 500;

/// Queue length of the recorder's event subscription: a page load with thousands of requests fits.
const EVENT_QUEUE: usize = 16 * 1024;

/// The events the recorder reads (from every session; it keeps those of its own sessions).
const EVENTS: &[&str] = &[
    network::RequestWillBeSent::METHOD,
    network::ResponseReceived::METHOD,
    network::LoadingFinished::METHOD,
    network::LoadingFailed::METHOD,
    network::DataReceived::METHOD,
    target::AttachedToTarget::METHOD,
    target::DetachedFromTarget::METHOD,
];

/// Whether the recorder is recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RecorderState {
    /// Attaching its session and enabling the network domain.
    Starting,
    /// Every request of the page is seen.
    Recording,
    /// It could not start, or its session went away (why).
    Failed(String),
}

/// One request as the recorder saw it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestRecord {
    /// The CDP request id (`Network.RequestId`).
    pub id: String,
    /// HTTP method.
    pub method: String,
    /// URL (the last one, after redirects).
    pub url: String,
    /// CDP resource type (`Document`, `XHR`, `Fetch`, `Script`, ...; empty when unknown).
    pub resource_type: String,
    /// The frame that made it (none for a worker's requests).
    pub frame_id: Option<String>,
    /// Which kind of target reported it: `page`, `iframe`, `worker`, `service_worker`, ...
    pub target_type: String,
    /// HTTP status, once the response came.
    pub status: Option<i64>,
    /// Chromium's error text when it failed (`net::ERR_FAILED`, `net::ERR_ABORTED`, ...).
    pub failure: Option<String>,
    /// When it started (as the recorder saw it).
    pub started: Instant,
    /// When it finished or failed; `None` while in flight.
    pub finished: Option<Instant>,
    /// Whether its response (headers) came.
    pub responded: bool,
    /// The session it was reported on.
    session: SessionId,
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

/// What the recorder keeps, behind one lock (never held across an await).
#[derive(Debug)]
struct Ledger {
    /// The sessions it watches, with their target type.
    sessions: HashMap<SessionId, String>,
    /// Parent of each child session (to drop a subtree when a session detaches).
    parents: HashMap<SessionId, SessionId>,
    in_flight: HashMap<String, RequestRecord>,
    done: VecDeque<RequestRecord>,
    dropped_records: u64,
    lost_events: u64,
}

#[derive(Debug)]
struct Shared {
    conn: Connection,
    target: TargetId,
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
                ledger: Mutex::new(Ledger {
                    sessions: HashMap::new(),
                    parents: HashMap::new(),
                    in_flight: HashMap::new(),
                    done: VecDeque::new(),
                    dropped_records: 0,
                    lost_events: 0,
                }),
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

    fn start(&self, _page: &Session) -> Option<BoxFuture<'static, ()>> {
        let events = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
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
    /// Whether it records (a failure says why).
    pub fn state(&self) -> RecorderState {
        self.shared.state.borrow().clone()
    }

    /// The current activity.
    #[allow(dead_code)] // the request list reports it
    pub fn activity(&self) -> Activity {
        *self.shared.activity.borrow()
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

    /// Every request kept: the finished ones (oldest first, at most [`KEPT_REQUESTS`]), then those
    /// in flight (by start).
    #[allow(dead_code)] // the request list (`network requests`) reads it
    pub fn requests(&self) -> Vec<RequestRecord> {
        let ledger = self.shared.lock();
        let mut live: Vec<RequestRecord> = ledger.in_flight.values().cloned().collect();
        live.sort_by_key(|r| r.started);
        ledger.done.iter().cloned().chain(live).collect()
    }

    /// Requests in flight now, by start.
    pub fn in_flight(&self) -> Vec<RequestRecord> {
        let ledger = self.shared.lock();
        let mut live: Vec<RequestRecord> = ledger.in_flight.values().cloned().collect();
        live.sort_by_key(|r| r.started);
        live
    }

    /// `(finished records dropped from the ring, events lost to a full queue)`.
    #[allow(dead_code)] // the request list reports drops
    pub fn losses(&self) -> (u64, u64) {
        let ledger = self.shared.lock();
        (ledger.dropped_records, ledger.lost_events)
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
        let id = session.id().cloned()?;
        self.lock().sessions.insert(id, "page".to_string());
        // Enabled while the event loop runs (auto-attach announces children before it answers).
        let shared = Arc::clone(&self);
        let page = session.clone();
        tokio::spawn(async move {
            match enable(&page, false).await {
                Ok(()) => {
                    shared.state.send_replace(RecorderState::Recording);
                }
                Err(e) => shared.fail(format!("cannot enable the network domain: {e}")),
            }
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
        let target_type = match self.lock().sessions.get(from) {
            Some(t) => t.clone(),
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
                    let mut ledger = self.lock();
                    if let Some(r) = ledger.in_flight.get_mut(e.request_id.as_str()) {
                        r.status = Some(e.response.status);
                        r.responded = true;
                        self.publish(&ledger, false);
                    }
                }
            }
            network::DataReceived::METHOD => {
                if let Ok(e) = ev.decode::<network::DataReceived>() {
                    let ledger = self.lock();
                    if ledger.in_flight.contains_key(e.request_id.as_str()) {
                        self.publish(&ledger, false);
                    }
                }
            }
            network::LoadingFinished::METHOD => {
                if let Ok(e) = ev.decode::<network::LoadingFinished>() {
                    self.on_done(e.request_id.as_str(), None);
                }
            }
            network::LoadingFailed::METHOD => {
                if let Ok(e) = ev.decode::<network::LoadingFailed>() {
                    self.on_done(e.request_id.as_str(), Some(e.error_text));
                }
            }
            _ => {}
        }
        true
    }

    fn on_attached(self: &Arc<Self>, parent: &SessionId, e: target::AttachedToTarget) {
        let child = e.session_id.clone();
        {
            let mut ledger = self.lock();
            ledger
                .sessions
                .insert(child.clone(), e.target_info.r#type.clone());
            ledger.parents.insert(child.clone(), parent.clone());
        }
        let session = self.conn.session(child);
        let resume = e.waiting_for_debugger;
        tokio::spawn(async move {
            // A target that does not do networking (or went away) still has to run.
            let _ = enable(&session, resume).await;
        });
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
        let id = e.request_id.as_str().to_string();
        // A redirect comes as a new requestWillBeSent with the same id.
        if let Some(r) = ledger.in_flight.get_mut(&id) {
            r.url = e.request.url;
            r.status = None;
            r.responded = false;
            self.publish(&ledger, false);
            return;
        }
        ledger.in_flight.insert(
            id.clone(),
            RequestRecord {
                id,
                method: e.request.method,
                url: e.request.url,
                resource_type: e.r#type.unwrap_or_default(),
                frame_id: e.frame_id.map(|f| f.as_str().to_string()),
                target_type: target_type.to_string(),
                status: None,
                failure: None,
                started: Instant::now(),
                finished: None,
                responded: false,
                session: from.clone(),
            },
        );
        self.publish(&ledger, true);
    }

    fn on_done(&self, id: &str, failure: Option<String>) {
        let mut ledger = self.lock();
        let Some(mut r) = ledger.in_flight.remove(id) else {
            return;
        };
        r.finished = Some(Instant::now());
        r.failure = failure;
        if ledger.done.len() >= KEPT_REQUESTS {
            ledger.done.pop_front();
            ledger.dropped_records += 1;
        }
        ledger.done.push_back(r);
        self.publish(&ledger, false);
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

/// Detaches the recorder's session when its task ends or is aborted: a session left attached with
/// paused auto-attach would hold every new iframe of the page waiting for a resume nobody sends.
struct DetachOnDrop(Session);

impl Drop for DetachOnDrop {
    fn drop(&mut self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let session = self.0.clone();
        if session.connection().is_closed() {
            return;
        }
        rt.spawn(async move {
            let _ = tokio::time::timeout(deadline::CLEANUP, session.detach()).await;
        });
    }
}

/// Enables the network domain and auto-attach (paused) on one of the recorder's sessions, then
/// resumes its target if it was paused. Sent in order before any answer is awaited: a paused
/// target may answer only once resumed.
async fn enable(session: &Session, resume: bool) -> Result<(), cdp_protocol::CdpError> {
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
    let enable = network::Enable::default();
    let (net, _auto, _resumed) = futures::join!(
        session.send_timeout(&enable, t),
        session.send_timeout(&auto_attach, t),
        resume_it,
    );
    net.map(|_| ())
}
