//! The allowlist guard: with `start --allowed-domains`, every request of the session's browser
//! outside the list is refused in the browser.
//!
//! Why the browser session: `Fetch.enable` sent on the browser target's session (no
//! `sessionId`) intercepts the requests of every target of the browser, not of one page:
//! measured on Chromium 156, it pauses the top document's, an out-of-process iframe's (and its
//! navigation request), dedicated and shared workers', a service worker's (its script and its
//! `fetch`), popups' (a `target=_blank` link, `window.open`) from their first request on,
//! redirects hop by hop, `sendBeacon`, `<link rel=prefetch>` and `EventSource`. One
//! interception point that exists before any page does, so a new tab or popup cannot send a
//! request before the guard is on it (per-target `Fetch` would need every new target paused and
//! enabled before it runs, and misses what Chromium starts outside targets). Each paused request
//! is continued or failed (`BlockedByClient`, so the page sees `net::ERR_BLOCKED_BY_CLIENT`)
//! by the URL's host, as [`Allowlist::check`] says; tab routes (`network route`) still apply,
//! on their own page sessions, to what the list lets through.
//!
//! What `Fetch` does not see: WebSocket handshakes (measured: a `new WebSocket` to another host
//! reached it with `Fetch` on) and WebRTC. For a browser the session launches, launch flags
//! close those ([`launch_args`]): a proxy that answers nothing for every host not in the list
//! (`--proxy-server` plus `--proxy-bypass-list` naming the list, `<-loopback>` so loopback
//! addresses are not bypassed by default), WebRTC limited to proxied connections
//! (`--force-webrtc-ip-handling-policy=disable_non_proxied_udp`, so no UDP), and
//! `--host-resolver-rules` mapping every other host to nothing (Chromium 156 applies them to IP
//! literals too; they know no ports). Flags are depth, `Fetch` is the boundary: they hold while
//! no daemon is connected, and for what `Fetch` cannot see. A browser behind `--cdp-endpoint` was started by someone else: no
//! flag can be given to it, so its WebSockets and WebRTC are not contained; `start` says so.
//!
//! While no daemon is connected (between a daemon's exit and the next command), Chromium runs
//! without this client's interception; a launched browser's flags still hold then.
//! What was refused is kept (bounded) for the commands' answers: a refused navigation of the
//! tab is the command's `ACCESS_DENIED`, anything else a warning of the next command of the
//! session, and the network recorder marks the request it saw fail.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use cdp_protocol::{Connection, Event as _, EventFilter, fetch};
use tokio::sync::watch;

use super::lock;
use crate::allowlist::{Allowlist, Verdict};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// Refused requests kept for the answers (older ones are counted).
const UNTOLD_KEPT: usize = 64;

/// Network ids of refused requests kept for the recorder's notes.
const IDS_KEPT: usize = 2048;

/// Queue of paused requests: one unanswered stays paused, so the queue is large.
const EVENT_QUEUE: usize = 64 * 1024;

/// The host the proxy of a guarded launch points at: `.invalid` never resolves.
const DEAD_PROXY: &str = "http://allowlist-blocked.invalid:9";

/// The error reason a refused request fails with (the page sees `net::ERR_BLOCKED_BY_CLIENT`).
pub(crate) const BLOCKED_REASON: &str = "BlockedByClient";

/// Chromium's error text for such a request.
pub(crate) const BLOCKED_ERROR: &str = "net::ERR_BLOCKED_BY_CLIENT";

/// One refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blocked {
    /// Its URL.
    pub url: String,
    /// The host refused.
    pub host: String,
    /// CDP resource type (`Document`, `Image`, `XHR`, ...).
    pub resource_type: String,
    /// The frame that made it (empty for a worker's).
    pub frame_id: String,
    /// When it was refused.
    pub at: std::time::Instant,
}

impl Blocked {
    /// Whether it is the navigation of the frame (or tab) `frame`.
    pub fn navigates(&self, frame: &str) -> bool {
        self.resource_type == "Document" && self.frame_id == frame
    }
}

/// Whether the guard is on for a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Readiness {
    /// Enabling it.
    Pending,
    /// Every request is checked.
    On,
    /// The browser refused `Fetch.enable` (why).
    Failed(String),
}

#[derive(Debug, Default)]
struct Log {
    /// The connection generation watched last.
    watched: u64,
    untold: VecDeque<Blocked>,
    /// Refused requests not kept in `untold`.
    untold_dropped: u64,
    /// Network ids of refused requests (the recorder's notes).
    ids: VecDeque<String>,
    /// Refused requests in all.
    total: u64,
}

/// The session's guard (cheap to clone; shared with each connection's task).
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    log: Arc<Mutex<Log>>,
    /// `(generation, readiness)` of the connection watched last.
    ready: Arc<watch::Sender<(u64, Readiness)>>,
    /// The generation of the session's live connection (0: none); a task of another ends.
    live: Arc<watch::Sender<u64>>,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            log: Arc::default(),
            ready: Arc::new(watch::channel((0, Readiness::On)).0),
            live: Arc::new(watch::channel(0).0),
        }
    }
}

/// The flags a browser launched for a session with `rules` gets (none without a list).
pub(crate) fn launch_args(rules: &[String]) -> Result<Vec<String>> {
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let list = Allowlist::parse(rules).map_err(CliError::InvalidArgument)?;
    Ok(vec![
        format!("--proxy-server={DEAD_PROXY}"),
        format!("--proxy-bypass-list={}", list.proxy_bypass_list()),
        format!("--host-resolver-rules={}", list.host_resolver_rules()),
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp".to_string(),
        "--webrtc-ip-handling-policy=disable_non_proxied_udp".to_string(),
    ])
}

impl Guard {
    /// Guards `conn` (once per connection generation) with the session's `rules` (none: no
    /// guard); [`Guard::ready`] says when it is on.
    pub fn watch(&self, conn: &Connection, generation: u64, rules: &[String]) {
        self.live.send_replace(generation);
        {
            let mut log = lock(&self.log);
            if generation <= log.watched {
                return;
            }
            log.watched = generation;
        }
        if rules.is_empty() {
            self.ready.send_replace((generation, Readiness::On));
            return;
        }
        let list = match Allowlist::parse(rules) {
            Ok(l) => Arc::new(l),
            Err(e) => {
                let why = format!("the session's allowed domains do not parse: {e}");
                self.ready
                    .send_replace((generation, Readiness::Failed(why)));
                return;
            }
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            self.ready.send_replace((
                generation,
                Readiness::Failed("no runtime to guard the connection on".into()),
            ));
            return;
        };
        self.ready.send_replace((generation, Readiness::Pending));
        // Subscribed before `Fetch.enable`: no paused request goes unanswered.
        let mut events = conn.events(
            EventFilter::methods(&[fetch::RequestPaused::METHOD])
                .session(cdp_protocol::SessionFilter::Root)
                .capacity(EVENT_QUEUE),
        );
        let me = self.clone();
        let conn = conn.clone();
        let mut live = self.live.subscribe();
        rt.spawn(async move {
            let root = conn.browser();
            let enable = fetch::Enable {
                patterns: Some(vec![fetch::RequestPattern {
                    url_pattern: Some("*".into()),
                    resource_type: None,
                    request_stage: Some("Request".into()),
                }]),
                handle_auth_requests: None,
            };
            let state = match root.send_timeout(&enable, deadline::QUICK_CALL).await {
                Ok(_) => Readiness::On,
                Err(e) => Readiness::Failed(format!(
                    "the browser refused request interception (Fetch.enable): {e}"
                )),
            };
            me.ready.send_replace((generation, state));
            loop {
                tokio::select! {
                    ev = events.recv() => {
                        let Some(ev) = ev else { break };
                        if let Ok(p) = ev.decode::<fetch::RequestPaused>() {
                            me.decide(&conn, &list, p);
                        }
                    }
                    changed = live.wait_for(|g| *g != generation) => {
                        let _ = changed;
                        break;
                    }
                    () = conn.closed() => break,
                }
            }
        });
    }

    /// The session's connection is gone or replaced: the task of an older one ends.
    pub fn unwatch(&self) {
        self.live.send_replace(0);
    }

    /// Continues or refuses one paused request (answered off this task: a slow answer holds no
    /// other request).
    fn decide(&self, conn: &Connection, list: &Allowlist, p: fetch::RequestPaused) {
        let verdict = list.check(&p.request.url);
        let root = conn.browser();
        let id = p.request_id.clone();
        let refused = match verdict {
            Verdict::Allowed => false,
            Verdict::Denied { host } => {
                self.note(
                    Blocked {
                        url: p.request.url.clone(),
                        host,
                        resource_type: p.resource_type.clone(),
                        frame_id: p.frame_id.as_str().to_string(),
                        at: std::time::Instant::now(),
                    },
                    p.network_id.as_ref().map(|n| n.as_str().to_string()),
                );
                true
            }
        };
        tokio::spawn(async move {
            let t = deadline::QUICK_CALL;
            let _ = match refused {
                false => root
                    .send_timeout(
                        &fetch::ContinueRequest {
                            request_id: id,
                            ..Default::default()
                        },
                        t,
                    )
                    .await
                    .map(|_| ()),
                true => root
                    .send_timeout(
                        &fetch::FailRequest {
                            request_id: id,
                            error_reason: BLOCKED_REASON.into(),
                        },
                        t,
                    )
                    .await
                    .map(|_| ()),
            };
        });
    }

    fn note(&self, b: Blocked, network_id: Option<String>) {
        let mut log = lock(&self.log);
        log.total += 1;
        if log.untold.len() >= UNTOLD_KEPT {
            log.untold.pop_front();
            log.untold_dropped += 1;
        }
        log.untold.push_back(b);
        if let Some(id) = network_id {
            if log.ids.len() >= IDS_KEPT {
                log.ids.pop_front();
            }
            log.ids.push_back(id);
        }
    }

    /// Waits until the guard of connection `generation` is on; `Err` when it cannot be (the
    /// session must not run unguarded).
    pub async fn ready(&self, generation: u64, deadline: &Deadline) -> Result<()> {
        let mut rx = self.ready.subscribe();
        let wait = rx.wait_for(|(g, r)| *g != generation || *r != Readiness::Pending);
        let state = match tokio::time::timeout(deadline.remaining(), wait).await {
            Ok(Ok(s)) => s.clone(),
            Ok(Err(_)) => return Ok(()),
            Err(_) => return Err(deadline.timeout("enabling the allowlist guard")),
        };
        match state {
            (g, Readiness::Failed(why)) if g == generation => {
                Err(CliError::AllowlistUnenforced { detail: why })
            }
            _ => Ok(()),
        }
    }

    /// The refused requests not told yet (oldest first), and how many more were not kept.
    pub fn take_untold(&self) -> (Vec<Blocked>, u64) {
        let mut log = lock(&self.log);
        let dropped = std::mem::take(&mut log.untold_dropped);
        (log.untold.drain(..).collect(), dropped)
    }

    /// Whether the guard refused the request with this network id.
    pub fn refused(&self, network_id: &str) -> bool {
        lock(&self.log).ids.iter().any(|i| i == network_id)
    }
}

/// What a command's answer says of a refused request that was not its tab's navigation.
pub(crate) fn warning(b: &Blocked, rules: &str) -> String {
    let kind = match b.resource_type.as_str() {
        "" => "request".to_string(),
        t => t.to_ascii_lowercase(),
    };
    format!(
        "blocked by --allowed-domains ({rules}): {kind} {} (host {} is not allowed)",
        b.url, b.host
    )
}

/// Refuses, before anything is sent, a navigation (`what`: `browser goto`, `--open-url`, ...)
/// to a URL outside `rules` (none: every URL passes). The URL as the user gave it: it is
/// normalized as a navigation would be.
pub(crate) fn check_navigation(rules: &[String], url: &str, what: &str) -> Result<()> {
    if rules.is_empty() {
        return Ok(());
    }
    let list = Allowlist::parse(rules).map_err(CliError::InvalidArgument)?;
    let url = crate::page::navigation::normalize_url(url)?;
    match list.check(&url) {
        Verdict::Allowed => Ok(()),
        Verdict::Denied { host } => Err(CliError::HostNotAllowed {
            what: what.to_string(),
            url,
            host,
            rules: list.describe(),
        }),
    }
}

/// The refused requests to tell with a command of tab `target` (its page's target id) that
/// started at `since`: the tab's own navigation refused while it ran (the command's answer is
/// then `ACCESS_DENIED`), and warnings of the others (sub-resources, frames, workers, popups, a
/// navigation refused before the command: of any tab of the session, told once).
pub(crate) fn told(
    guard: &Guard,
    rules: &[String],
    target: Option<&str>,
    since: std::time::Instant,
) -> (Option<CliError>, Vec<String>) {
    if rules.is_empty() {
        return (None, Vec::new());
    }
    let (blocked, dropped) = guard.take_untold();
    let described = rules.join(",");
    let mut denial = None;
    let mut warnings = Vec::new();
    for b in blocked {
        if denial.is_none() && b.at >= since && target.is_some_and(|t| b.navigates(t)) {
            denial = Some(CliError::HostNotAllowed {
                what: "navigation to".to_string(),
                url: b.url.clone(),
                host: b.host.clone(),
                rules: described.clone(),
            });
            continue;
        }
        warnings.push(warning(&b, &described));
    }
    if dropped > 0 {
        warnings.push(format!(
            "blocked by --allowed-domains: {dropped} more requests (not listed)"
        ));
    }
    (denial, warnings)
}

/// The guard on its own, for the allowlist's cost in `benches/network.rs`: the session's guard
/// on a connection, as a session with `rules` runs it (launch flags aside: they are per browser).
#[doc(hidden)]
#[derive(Debug)]
pub struct GuardProbe {
    guard: Guard,
    conn: Connection,
}

impl GuardProbe {
    /// Guards every request of `conn`'s browser with `rules`; `Err` with why it could not.
    pub async fn start(
        conn: &Connection,
        rules: &[String],
    ) -> std::result::Result<GuardProbe, String> {
        let guard = Guard::default();
        guard.watch(conn, 1, rules);
        let deadline = Deadline::after_ms(deadline::SLOW_CALL.as_millis() as u64);
        guard.ready(1, &deadline).await.map_err(|e| e.to_string())?;
        Ok(GuardProbe {
            guard,
            conn: conn.clone(),
        })
    }

    /// Requests it refused so far.
    pub fn refused(&self) -> u64 {
        lock(&self.guard.log).total
    }

    /// Stops guarding: interception off on the browser, its task ended.
    pub async fn stop(self) {
        let _ = self
            .conn
            .browser()
            .send_timeout(&fetch::Disable, deadline::QUICK_CALL)
            .await;
        self.guard.unwatch();
    }
}
