//! The recorder's event task: attaching to the tab and its children (paused, enabled in order),
//! and applying each CDP event to the ledger.

use super::*;

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn fail(&self, why: String) {
        self.state.send_replace(RecorderState::Failed(why));
    }

    /// Attaches the recorder's own session to the page and starts recording on it.
    pub(super) async fn attach(self: Arc<Self>) -> Option<Session> {
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
    pub(super) async fn record(self: Arc<Self>, mut events: EventStream, session: Session) {
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
    pub(super) fn apply(self: &Arc<Self>, ev: &RawEvent, own: &Session) -> bool {
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

    pub(super) fn on_attached(self: &Arc<Self>, parent: &SessionId, e: target::AttachedToTarget) {
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
    pub(super) fn on_frame_event(&self, ev: &RawEvent, from: &SessionId) {
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

    pub(super) fn on_detached(&self, gone: &SessionId) {
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

    pub(super) fn on_request(
        &self,
        from: &SessionId,
        target_type: &str,
        e: network::RequestWillBeSent,
    ) {
        let mut ledger = self.lock();
        let started = ledger.request(from, target_type, e);
        self.publish(&ledger, started);
    }

    pub(super) fn on_response(&self, e: network::ResponseReceived) {
        let mut ledger = self.lock();
        if ledger.response(e) {
            self.publish(&ledger, false);
        }
    }

    /// `Network.dataReceived`, the commonest event (one per chunk of a body): it changes no
    /// count. The clock of the last activity moves and the request's decoded size grows (HAR
    /// `content.size`): a small decode, then one lock for the session's check and one lookup.
    pub(super) fn on_data(&self, ev: &RawEvent, from: &SessionId) {
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

    pub(super) fn on_extra(&self, id: &str, response: bool, raw: RawHeaders) {
        self.lock().extra(id, response, raw);
    }

    pub(super) fn on_done(&self, id: &str, at: f64, size: Option<f64>, failure: Option<String>) {
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
    pub(super) fn on_paused(self: &Arc<Self>, from: &SessionId, e: fetch::RequestPaused) {
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
    pub(super) fn amend(&self, id: &str, extra: &[(String, String)]) {
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
    pub(super) fn forget_in_flight(&self, lost: u64) {
        let mut ledger = self.lock();
        ledger.lost_events = lost;
        ledger.in_flight.clear();
        self.publish(&ledger, false);
    }

    /// Publishes the activity after an event of a request (`started`: a request began).
    pub(super) fn publish(&self, ledger: &Ledger, started: bool) {
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
