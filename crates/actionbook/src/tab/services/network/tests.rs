//! Unit tests of the network recorder's ledger and helpers.

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
