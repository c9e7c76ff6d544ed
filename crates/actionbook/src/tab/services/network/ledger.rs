//! The recorder's ledger: requests in flight and finished, redirect hops and the ExtraInfo
//! headers matched to them, documents replaced under their requests, HAR capture.

use super::*;

impl Ledger {
    pub(super) fn new() -> Ledger {
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
    pub(super) fn tick(&mut self, at: f64) {
        if at > self.clock {
            self.clock = at;
        }
    }

    /// Frame `frame` now shows document `loader` (`Page.frameNavigated`): the requests the frame's
    /// earlier documents made and that are still in flight end (Chromium cancels them and reports
    /// nothing). The navigation request itself and the new document's requests (reported before
    /// the navigation, on another session) stay. A document that comes back (restored from the
    /// back/forward cache: the same loader id) is no longer a replaced one: its new requests count.
    pub(super) fn navigated(&mut self, frame: &str, loader: &str) -> bool {
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
    pub(super) fn frame_removed(&mut self, frame: &str) -> bool {
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

    pub(super) fn remember_replaced(&mut self, loader: String) {
        if self.replaced.len() >= REPLACED_KEPT {
            self.replaced.pop_front();
        }
        self.replaced.push_back(loader);
    }

    /// Ends request `id` whose document was replaced: failed as Chromium fails a cancelled request,
    /// with the note that says why. Should Chromium report its end after all, [`Ledger::done`]
    /// puts the reported end in its place.
    pub(super) fn abandon(&mut self, id: &str) {
        let at = self.clock;
        if let Some(r) = self.in_flight.get_mut(id) {
            r.note = Some(REPLACED_NOTE);
            let at = at.max(r.timestamp);
            self.done(id, at, None, Some(ABORTED.to_string()));
        }
    }

    /// The end of a request the recorder ended itself (its document was replaced) reported after
    /// all (a keepalive request that outlived its document): the record takes Chromium's end.
    pub(super) fn late_end(
        &mut self,
        id: &str,
        at: f64,
        size: Option<f64>,
        failure: Option<String>,
    ) {
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
    pub(super) fn update_ended(
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
    pub(super) fn finish(&mut self, r: RequestRecord) {
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
    pub(super) fn request(
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
    pub(super) fn response(&mut self, e: network::ResponseReceived) -> bool {
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
    pub(super) fn served_from_memory(&mut self, id: &str) {
        if let Some(r) = self.in_flight.get_mut(id) {
            r.from_cache = Some(Cache::Memory);
            r.header_bytes = None;
        }
    }

    /// Raw headers (an ExtraInfo event) of request `id`: merged into the hop they belong to (the
    /// one in flight, one that ended) once it is known, kept until then.
    pub(super) fn extra(&mut self, id: &str, response: bool, raw: RawHeaders) {
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
    pub(super) fn done(
        &mut self,
        id: &str,
        at: f64,
        size: Option<f64>,
        failure: Option<String>,
    ) -> bool {
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
    pub(super) fn note_last(&mut self, id: &str, note: &'static str) {
        if let Some(r) = self.done.iter_mut().rev().find(|r| r.cdp_id == id) {
            Arc::make_mut(r).note = Some(note);
        }
    }

    /// Notes whether hop `hop` of request `id` has ExtraInfo events, then matches what waits.
    pub(super) fn expect_extra(&mut self, id: &str, hop: u32, expect: Expect) {
        self.extra_info(id).hop(hop).expect = expect;
        self.match_extra(id);
    }

    /// The ExtraInfo matching of request `id`, made when new (the oldest forgotten when too many).
    pub(super) fn extra_info(&mut self, id: &str) -> &mut ExtraInfo {
        if self.extra.len() >= EXTRA_KEPT && !self.extra.contains_key(id) {
            let in_flight = &self.in_flight;
            self.extra.retain(|k, _| in_flight.contains_key(k));
        }
        self.extra.entry(id.to_string()).or_default()
    }

    /// Merges the ExtraInfo events of request `id` whose hop is known into that hop; forgets the
    /// id's matching once the request ended and nothing more is to come.
    pub(super) fn match_extra(&mut self, id: &str) {
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
    pub(super) fn merge_extra(&mut self, id: &str, hop: u32, response: bool, raw: &RawHeaders) {
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

    pub(super) fn problem(&mut self, what: String) {
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
    pub(super) fn records(&self) -> bool {
        self.capacity > 0
    }

    /// The `Fetch.enable` for the routes, or `None` when there are none.
    pub(super) fn fetch_enable(&self) -> Option<fetch::Enable> {
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
