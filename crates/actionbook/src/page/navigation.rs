//! Loading pages: the URL policy, `Page.navigate`, history moves, and the one waiter every
//! navigation uses ([`LoadWaiter`]: subscribe before acting, then wait for the commit and the load).

use cdp_protocol::{
    CdpError, ErrorKind, Event as _, EventStream, LoaderId, RawEvent, Session, page, runtime,
};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval;

/// URL schemes that run code or carry a whole document in the URL: refused, as the reference
/// CLI does (`eval` is the way to run script).
/// How long a page about to be left or loaded again may take to answer before its script is
/// taken for one that does not end.
const BUSY_GRACE: std::time::Duration = std::time::Duration::from_millis(1000);

/// Before a page is left or loaded again: a page whose main thread does not answer (a script that
/// does not end: an endless loop) has that script stopped (`Runtime.terminateExecution`, which
/// reaches a busy page on a session attached before). Without it a reload or a same-site
/// navigation never happens: the busy renderer holds them up. Whether the page had to be stopped.
pub(crate) async fn unstick(page: &Session, deadline: &Deadline) -> bool {
    let probe = runtime::Evaluate {
        expression: "1".into(),
        return_by_value: Some(true),
        silent: Some(true),
        ..Default::default()
    };
    match page.send_timeout(&probe, deadline.capped(BUSY_GRACE)).await {
        Err(e) if e.kind() == ErrorKind::Timeout && !deadline.is_over() => page
            .send_timeout(
                &runtime::TerminateExecution,
                deadline.capped(deadline::TERMINATE),
            )
            .await
            .is_ok(),
        _ => false,
    }
}

const BLOCKED_SCHEMES: &[&str] = &["javascript", "data", "vbscript"];
/// Schemes written without `//` that are taken as they are.
const OPAQUE_SCHEMES: &[&str] = &["about", "chrome", "blob", "view-source", "mailto"];

/// The URL a page is loaded from, as the reference CLI reads what the user typed: a URL with a
/// scheme as is, `//host/path` and scheme-less input (`example.com/x`, `localhost:3000`) as
/// `https://` (INVALID_ARGUMENT when that is no URL); `javascript:`, `data:` and `vbscript:` are
/// refused (INVALID_ARGUMENT).
pub(crate) fn normalize_url(input: &str) -> Result<String> {
    let url = input.trim();
    if url.is_empty() {
        return Err(CliError::InvalidArgument("the URL is empty".to_string()));
    }
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .filter(|s| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
    if let Some(scheme) = scheme {
        if BLOCKED_SCHEMES.contains(&scheme.as_str()) {
            return Err(CliError::InvalidArgument(format!(
                "dangerous URL protocol blocked: {url}"
            )));
        }
        if url[scheme.len() + 1..].starts_with("//") || OPAQUE_SCHEMES.contains(&scheme.as_str()) {
            return Ok(url.to_string());
        }
    }
    if url.starts_with('/') && !url.starts_with("//") {
        return Err(CliError::InvalidArgument(format!(
            "{url:?} is a path, not a URL: `browser goto` resolves a path against the tab's page \
             (snapshots print a same-origin link's URL from its path); elsewhere give the full URL"
        )));
    }
    let https = match url.strip_prefix("//") {
        Some(rest) => format!("https://{rest}"),
        None => format!("https://{url}"),
    };
    // What a user typed without a scheme must at least be a URL with one: `not a url` would
    // have gone to Chromium as a host name and come back as a DNS failure.
    if url::Url::parse(&https).is_err() {
        return Err(CliError::InvalidArgument(format!(
            "not a URL: {url:?} (give one like https://example.com/path)"
        )));
    }
    Ok(https)
}

/// What `browser goto` loads for `input`: a path (`/p/0/0`, as a snapshot prints a same-origin
/// link's URL) resolved against the page's URL `base` when that is an http(s) page; anything else
/// as [`normalize_url`] reads it.
pub(crate) fn resolve_goto(input: &str, base: &str) -> Result<String> {
    let path = input.trim();
    if path.starts_with('/') && !path.starts_with("//") {
        if let Some(page) = url::Url::parse(base)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        {
            return page.join(path).map(String::from).map_err(|e| {
                CliError::InvalidArgument(format!("{path:?} does not resolve against {base}: {e}"))
            });
        }
        return Err(CliError::InvalidArgument(format!(
            "{path:?} is a path and the tab's page ({base}) is not an http(s) page to resolve it \
             against: give the full URL"
        )));
    }
    normalize_url(input)
}

/// The events a navigation is followed by.
const NAV_EVENTS: &[&str] = &[
    page::FrameNavigated::METHOD,
    page::NavigatedWithinDocument::METHOD,
    page::LoadEventFired::METHOD,
];

/// How far a navigation's load is waited for (`--wait-until`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum LoadState {
    /// The document and its resources (images, scripts, frames, styles): `readyState` complete,
    /// the load event.
    #[default]
    Load,
    /// The document parsed (`readyState` interactive): DOMContentLoaded.
    DomContentLoaded,
    /// The new document committed.
    Commit,
}

/// Waits for a navigation's commit and load. Subscribe ([`LoadWaiter::subscribe`]) before the step
/// that starts the navigation, so none of its events is missed.
#[derive(Debug)]
pub(crate) struct LoadWaiter {
    page: Session,
    events: EventStream,
}

impl LoadWaiter {
    /// Starts listening to the page's navigation events.
    pub fn subscribe(page: &Session) -> LoadWaiter {
        LoadWaiter {
            page: page.clone(),
            events: page.events(NAV_EVENTS),
        }
    }

    /// Waits for the main frame to commit a navigation (cross- or same-document).
    pub async fn committed(
        &mut self,
        main_frame: &str,
        deadline: &Deadline,
        what: &str,
    ) -> Result<()> {
        loop {
            let ev = match tokio::time::timeout(deadline.remaining(), self.events.recv()).await {
                Err(_) => return Err(deadline.timeout(what)),
                Ok(None) => return Err(CdpError::ConnectionClosed.into()),
                Ok(Some(ev)) => ev,
            };
            let committed = match ev.method.as_str() {
                page::FrameNavigated::METHOD => ev
                    .decode::<page::FrameNavigated>()
                    .is_ok_and(|n| n.frame.parent_id.is_none()),
                page::NavigatedWithinDocument::METHOD => ev
                    .decode::<page::NavigatedWithinDocument>()
                    .is_ok_and(|n| n.frame_id.as_str() == main_frame),
                _ => false,
            };
            if committed {
                return Ok(());
            }
        }
    }

    /// Waits until the page's document is fully loaded (`document.readyState` is `complete`),
    /// checking again on every navigation event and at least every 100 ms.
    pub async fn loaded(&mut self, deadline: &Deadline, what: &str) -> Result<()> {
        self.reached(LoadState::Load, deadline, what).await
    }

    /// Waits until the page's document is loaded as far as `until` says (`Commit`: at once). Out
    /// of time with the document parsed but still loading its resources, the error says so
    /// ([`CliError::LoadUnfinished`]): the page can be used.
    pub async fn reached(
        &mut self,
        until: LoadState,
        deadline: &Deadline,
        what: &str,
    ) -> Result<()> {
        self.reached_document(until, None, deadline, what).await
    }

    /// [`LoadWaiter::reached`] for the navigation whose new document has `loader` (what
    /// `Page.navigate` answered): for `Load`, the main frame committing that document and then
    /// its load event end the wait with no read of the page, which cost a round trip after the
    /// event (at 50 ms a round trip, `goto` took 4.8 of them). `document.readyState` is still read
    /// whenever the events are quiet for 100 ms, as without a loader on every event.
    pub async fn reached_document(
        &mut self,
        until: LoadState,
        loader: Option<&LoaderId>,
        deadline: &Deadline,
        what: &str,
    ) -> Result<()> {
        let done = |s: &str| match until {
            LoadState::Load => s == "complete",
            LoadState::DomContentLoaded => s == "interactive" || s == "complete",
            LoadState::Commit => true,
        };
        if until == LoadState::Commit {
            return Ok(());
        }
        let loader = loader.filter(|_| until == LoadState::Load);
        let mut committed = false;
        let mut read_now = loader.is_none();
        let mut last = String::new();
        loop {
            if read_now {
                match ready_state(&self.page, deadline).await {
                    Ok(s) if done(&s) => return Ok(()),
                    Ok(s) => last = s,
                    // A read that outlasts its cap means the renderer's main thread is busy
                    // (parsing, laying out or running a big page's script), not that the load is
                    // lost: only the command's deadline ends the wait. Giving up here answered
                    // TIMEOUT "after --timeout ms" seconds before that time had passed.
                    Err(CliError::Cdp(e)) if e.kind() == ErrorKind::Timeout => {}
                    // The context may be swapped mid-navigation (or not answer the read yet):
                    // again.
                    Err(CliError::Cdp(CdpError::Protocol { .. }) | CliError::Internal(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            if deadline.is_over() {
                return Err(match last.as_str() {
                    "interactive" => CliError::LoadUnfinished {
                        what: what.to_string(),
                        ms: deadline.timeout_ms(),
                        pending: Vec::new(),
                    },
                    _ => deadline.timeout(what),
                });
            }
            let tick = deadline.capped(std::time::Duration::from_millis(100));
            read_now = true;
            if let Ok(Some(ev)) = tokio::time::timeout(tick, self.events.recv()).await
                && let Some(loader) = loader
            {
                if loads(&ev, loader, &mut committed) {
                    return Ok(());
                }
                // An event that does not end the wait (the commit) is no reason to read.
                read_now = false;
            }
        }
    }
}

/// Whether `ev` is the load event of the document `loader` (`committed`: its commit was seen).
fn loads(ev: &RawEvent, loader: &LoaderId, committed: &mut bool) -> bool {
    match ev.method.as_str() {
        page::FrameNavigated::METHOD => {
            if let Ok(n) = ev.decode::<page::FrameNavigated>()
                && n.frame.parent_id.is_none()
            {
                *committed = n.frame.loader_id == *loader;
            }
            false
        }
        page::LoadEventFired::METHOD => *committed,
        _ => false,
    }
}

/// `document.readyState` of a page.
async fn ready_state(page: &Session, deadline: &Deadline) -> Result<String> {
    eval::read(
        page,
        "document.readyState",
        deadline.capped(deadline::QUICK_CALL),
        "document.readyState",
    )
    .await
}

/// The warning of a navigation whose document its server answered with an HTTP error (4xx,
/// 5xx): the load happened, but what shows is what the server sent with the error.
pub(crate) fn http_error_warning(url: &str, status: u16) -> Option<String> {
    (status >= 400).then(|| {
        format!(
            "the server answered HTTP {status} for {url}: the page is what it sent with that error"
        )
    })
}

/// Stops a load that is still going (after its command failed or timed out), best effort.
async fn stop_loading(page: &Session) {
    let _ = page
        .send_timeout(&page::StopLoading, deadline::CLEANUP)
        .await;
}

/// The main frame's current document (its loader id): it changes exactly when a new document
/// loads. `None` when the page did not answer within a short probe.
pub(crate) async fn main_document(page: &Session, deadline: &Deadline) -> Option<String> {
    page.send_timeout(&page::GetFrameTree, deadline.capped(deadline::PROBE))
        .await
        .ok()
        .map(|r| r.frame_tree.frame.loader_id.into_inner())
}

/// What a navigation that runs out of time leaves behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnTimeout {
    /// Stopped: the tab stays on the page it showed (`goto`).
    Stop,
    /// Still loading: a new tab has no page of its own to stay on (stopped, it showed our
    /// internal blank marker for good).
    KeepLoading,
}

/// What the page is still loading (the URLs of its requests in flight, as the tab's network
/// recorder knows them), asked when a load runs out of time: before it is stopped, since stopping
/// ends them.
pub(crate) type InFlight<'a> = &'a (dyn Fn() -> Vec<String> + Send + Sync);

/// Nothing known of what is loading.
pub(crate) fn nothing_known() -> Vec<String> {
    Vec::new()
}

/// [`CliError::LoadUnfinished`] with what is still loading; other errors as they are.
fn with_pending(e: CliError, loading: InFlight<'_>) -> CliError {
    match e {
        CliError::LoadUnfinished { what, ms, .. } => CliError::LoadUnfinished {
            what,
            ms,
            pending: loading(),
        },
        e => e,
    }
}

/// Navigates and waits for the load. `NAVIGATION_FAILED` carries Chromium's net error; out of
/// time with the document parsed, the error names what `loading` says is still loading.
pub(crate) async fn navigate(
    page: &Session,
    url: &str,
    deadline: &Deadline,
    what: &str,
    on_timeout: OnTimeout,
    until: LoadState,
    loading: InFlight<'_>,
) -> Result<()> {
    let url = normalize_url(url)?;
    let mut waiter = LoadWaiter::subscribe(page);
    let navigate = page::Navigate {
        url: url.clone(),
        ..Default::default()
    };
    let r = match page.send_timeout(&navigate, deadline.remaining()).await {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::Timeout => {
            if on_timeout == OnTimeout::Stop {
                stop_loading(page).await;
            }
            return Err(deadline.timeout(what));
        }
        Err(CdpError::Protocol { message, .. }) => {
            return Err(CliError::NavigationFailed {
                url,
                reason: message,
            });
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(err) = r.error_text.filter(|s| !s.is_empty()) {
        return Err(CliError::NavigationFailed { url, reason: err });
    }
    let Some(loader) = r.loader_id else {
        return Ok(()); // same-document navigation
    };
    let res = waiter
        .reached_document(until, Some(&loader), deadline, what)
        .await
        .map_err(|e| with_pending(e, loading));
    if res.is_err() && on_timeout == OnTimeout::Stop {
        stop_loading(page).await;
    }
    res
}

/// Whether the page has a navigation on its way that has not committed: its target's URL (what
/// the browser shows, a pending navigation's) is not its current history entry's. Both answers
/// come from the browser process, which answers while DevTools holds the messages of a session
/// attached meanwhile until that commit (the renderer's part of `Page.enable` waits for it).
pub(crate) async fn commit_pending(
    root: &Session,
    page: &Session,
    target: &cdp_protocol::TargetId,
    deadline: &Deadline,
) -> bool {
    let limit = deadline.capped(deadline::QUICK_CALL);
    let ask = cdp_protocol::target::GetTargetInfo {
        target_id: Some(target.clone()),
    };
    let info = root.send_timeout(&ask, limit);
    let history = page.send_timeout(&page::GetNavigationHistory, limit);
    let (Ok(info), Ok(history)) = futures::join!(info, history) else {
        return false;
    };
    let committed = usize::try_from(history.current_index)
        .ok()
        .and_then(|i| history.entries.get(i));
    committed.is_some_and(|entry| entry.url != info.target_info.url)
}

/// Drops the history of a freshly opened tab (its initial `about:blank` entry), so `back` from
/// the first page it loaded has nowhere to go, as in a browser tab opened on that page.
/// Whether a navigation failed with `net::ERR_ABORTED`: the response was a download or had no
/// content (204), and the page stayed where it was.
pub(crate) fn is_aborted(e: &CliError) -> bool {
    matches!(e, CliError::NavigationFailed { reason, .. } if reason == "net::ERR_ABORTED")
}

/// Loads `about:blank` (best effort, not waited for).
pub(crate) async fn show_blank(page: &Session) {
    let blank = page::Navigate {
        url: "about:blank".into(),
        ..Default::default()
    };
    let _ = page.send_timeout(&blank, deadline::QUICK_CALL).await;
}

pub(crate) async fn forget_history(page: &Session, deadline: &Deadline) -> Result<()> {
    page.send_timeout(
        &page::ResetNavigationHistory,
        deadline.capped(deadline::QUICK_CALL),
    )
    .await?;
    Ok(())
}

/// Which history move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistoryMove {
    /// One entry back.
    Back,
    /// One entry forward.
    Forward,
    /// The current entry again.
    Reload,
}

/// Goes back/forward/reloads and waits for the load. Returns false when there was nowhere to go.
/// Out of time, the load is stopped, as `goto`'s: left loading, the page answered nothing until
/// the server did (a reload of a slow page read as a page whose script never ends).
pub(crate) async fn history(
    page: &Session,
    main_frame: &str,
    mv: HistoryMove,
    deadline: &Deadline,
    what: &str,
    loading: InFlight<'_>,
) -> Result<bool> {
    let moved = history_move(page, main_frame, mv, deadline, what)
        .await
        .map_err(|e| with_pending(e, loading));
    if moved.is_err() {
        stop_loading(page).await;
    }
    moved
}

async fn history_move(
    page: &Session,
    main_frame: &str,
    mv: HistoryMove,
    deadline: &Deadline,
    what: &str,
) -> Result<bool> {
    let mut waiter = LoadWaiter::subscribe(page);
    match mv {
        HistoryMove::Reload => {
            page.send_timeout(
                &page::Reload::default(),
                deadline.capped(deadline::SLOW_CALL),
            )
            .await?;
        }
        HistoryMove::Back | HistoryMove::Forward => {
            let h = page
                .send_timeout(
                    &page::GetNavigationHistory,
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await?;
            let target = match mv {
                HistoryMove::Back => h.current_index - 1,
                _ => h.current_index + 1,
            };
            let Some(entry) = usize::try_from(target).ok().and_then(|i| h.entries.get(i)) else {
                return Ok(false);
            };
            page.send_timeout(
                &page::NavigateToHistoryEntry { entry_id: entry.id },
                deadline.capped(deadline::SLOW_CALL),
            )
            .await?;
        }
    }
    waiter.committed(main_frame, deadline, what).await?;
    waiter.loaded(deadline, what).await?;
    Ok(true)
}

/// Loads a page that did not answer `Page.enable` (its renderer crashed before, or a script
/// blocks it) again: `Page.reload` recreates a crashed renderer, and only then does `Page.enable`
/// answer.
pub(crate) async fn reload_and_enable(page: &Session, deadline: &Deadline) -> Result<()> {
    let mut waiter = LoadWaiter::subscribe(page);
    page.send_timeout(
        &page::Reload::default(),
        deadline.capped(deadline::SLOW_CALL),
    )
    .await?;
    page.send_timeout(&page::Enable, deadline.capped(deadline::QUICK_CALL))
        .await?;
    waiter
        .loaded(deadline, "loading the crashed page again")
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_resolves_against_the_page_for_goto_and_is_refused_elsewhere() {
        let base = "http://127.0.0.1:8801/dir/page.html?q=1";
        assert_eq!(
            resolve_goto("/p/0/0", base).ok().as_deref(),
            Some("http://127.0.0.1:8801/p/0/0")
        );
        assert_eq!(
            resolve_goto(" /a#b ", base).ok().as_deref(),
            Some("http://127.0.0.1:8801/a#b")
        );
        // Not a path: as normalize_url reads it.
        assert_eq!(
            resolve_goto("example.com/x", base).ok().as_deref(),
            Some("https://example.com/x")
        );
        assert_eq!(
            resolve_goto("//cdn.example/x", base).ok().as_deref(),
            Some("https://cdn.example/x")
        );
        for (input, page) in [("/p", "about:blank"), ("/p", "data:text/html,x")] {
            let e = resolve_goto(input, page).map(|_| ()).unwrap_err();
            assert!(matches!(e, CliError::InvalidArgument(_)), "{e:?}");
            assert!(e.to_string().contains("full URL"), "{e}");
        }
        let e = normalize_url("/p/0/0").map(|_| ()).unwrap_err();
        assert!(e.to_string().contains("is a path"), "{e}");
    }

    #[test]
    fn urls_are_read_as_the_reference_reads_them() {
        let n = |u: &str| normalize_url(u).map_err(|e| e.to_string());
        assert_eq!(
            n("http://127.0.0.1:8/p").as_deref(),
            Ok("http://127.0.0.1:8/p")
        );
        assert_eq!(n("HTTP://x/").as_deref(), Ok("HTTP://x/"));
        assert_eq!(n("file:///tmp/a.html").as_deref(), Ok("file:///tmp/a.html"));
        assert_eq!(n("about:blank").as_deref(), Ok("about:blank"));
        assert_eq!(n("chrome://version").as_deref(), Ok("chrome://version"));
        assert_eq!(n(" example.com/x ").as_deref(), Ok("https://example.com/x"));
        assert_eq!(
            n("localhost:3000/a").as_deref(),
            Ok("https://localhost:3000/a")
        );
        assert_eq!(n("127.0.0.1:8080").as_deref(), Ok("https://127.0.0.1:8080"));
        assert_eq!(n("//host/p").as_deref(), Ok("https://host/p"));
        assert_eq!(n("notaurl").as_deref(), Ok("https://notaurl"));
        for bad in [
            "javascript:alert(1)",
            "JavaScript:1",
            "data:text/html,<b>x</b>",
            "vbscript:x",
        ] {
            assert!(
                n(bad).is_err_and(|e| e.contains("dangerous URL protocol blocked")),
                "{bad}"
            );
        }
        assert!(n("  ").is_err());
        for bad in ["not a url", "exa mple.com", "//a b/"] {
            assert!(n(bad).is_err_and(|e| e.contains("not a URL")), "{bad}");
        }
    }

    proptest::proptest! {
        /// Whatever is accepted comes out with a scheme, and reading it again changes nothing.
        #[test]
        fn normalized_urls_have_a_scheme_and_are_stable(input in "\\PC{0,40}") {
            if let Ok(url) = normalize_url(&input) {
                proptest::prop_assert!(url.contains(':'), "{url}");
                proptest::prop_assert_eq!(normalize_url(&url).ok(), Some(url.clone()));
            }
        }
    }
}
