//! What an action changed: the page state read before it ([`Before`]) and compared after it
//! ([`Before::after`]): a navigation the action started (waited for, so `context.url` and
//! `context.title` are the new page's, spec 5.6), whether focus moved, the URL and title, and the
//! tabs it opened (a `target=_blank` link, `window.open`: recorded as tabs of the session).

use std::time::Duration;

use cdp_protocol::{Event as _, EventFilter, EventStream, RawEvent, Session, page, runtime};

use crate::deadline::{self, Deadline};
use crate::error::Result;
use crate::page::eval::{self, ObjectHandle};
use crate::page::locate::DEEP_ACTIVE_JS;
use crate::page::navigation::{LoadWaiter, main_document};
use crate::page::quick_aim::{self, PageAfter, PageBefore};
use crate::session::targets;
use crate::tab::TabCx;

/// Resolves after one task of the page's event loop (a message posted to itself); in an async
/// function, so the promise is native whatever the page made of `Promise` (zone.js).
const TASK_BARRIER_JS: &str = "(async () => new Promise(r => { const c = new MessageChannel(); \
  c.port1.onmessage = () => r(0); c.port2.postMessage(0); }))()";

/// The navigation events an action may start, the end of a load (a navigation that ends without
/// a new document: a 204, a download), and a new window it asks for (sent before the input that
/// asked is acknowledged).
const NAV_EVENTS: &[&str] = &[
    page::FrameRequestedNavigation::METHOD,
    page::FrameStartedLoading::METHOD,
    page::FrameNavigated::METHOD,
    page::NavigatedWithinDocument::METHOD,
    page::FrameStoppedLoading::METHOD,
    page::WindowOpen::METHOD,
];

/// How long a new window the page asked for with a user gesture is waited for as a target: the
/// browser lists one it lets open before it announces it, so this only covers a slow browser; a
/// popup it blocks never comes (one without a gesture is not waited for).
const POPUP_GRACE: Duration = Duration::from_millis(500);

/// How long a navigation announced (requested) but not started is waited for: one that is
/// dropped before it starts sends nothing more. (A form's navigation starts in a task of its own,
/// after whatever the page queued before it: long on a busy page.) A `javascript:` or `mailto:`
/// link, a 204 do not hold a click up: checked.
const START_GRACE: Duration = Duration::from_secs(2);

/// The frame a navigation event is about.
fn event_frame(ev: &RawEvent) -> Option<String> {
    match ev.method.as_str() {
        page::FrameRequestedNavigation::METHOD => ev
            .decode::<page::FrameRequestedNavigation>()
            .ok()
            .map(|e| e.frame_id.into_inner()),
        page::FrameStartedLoading::METHOD => ev
            .decode::<page::FrameStartedLoading>()
            .ok()
            .map(|e| e.frame_id.into_inner()),
        page::FrameStoppedLoading::METHOD => ev
            .decode::<page::FrameStoppedLoading>()
            .ok()
            .map(|e| e.frame_id.into_inner()),
        page::FrameNavigated::METHOD => ev
            .decode::<page::FrameNavigated>()
            .ok()
            .map(|e| e.frame.id.into_inner()),
        page::NavigatedWithinDocument::METHOD => ev
            .decode::<page::NavigatedWithinDocument>()
            .ok()
            .map(|e| e.frame_id.into_inner()),
        _ => None,
    }
}

/// The navigation of the main frame an action may have started, followed by its events.
#[derive(Debug)]
struct Navigation {
    /// The page's navigation events since the action's input was sent.
    events: EventStream,
    /// The main frame's id.
    main: String,
    /// Announced (requested, started or committed).
    requested: bool,
    /// Loading.
    started: bool,
    /// Committed (a new document, or a move within the document), or ended without one.
    settled: bool,
    /// The document acted on went away (a frame's, when the main frame announced nothing).
    gone: bool,
    /// The page asked for a new window.
    window_open: bool,
    /// ... with a user gesture.
    gesture: bool,
    /// The URLs a link asked to open in a new tab or window (a middle click, Control+click,
    /// Control+Enter): such a tab has no opener, so it is found by its URL.
    opened_urls: Vec<String>,
}

impl Navigation {
    /// Follows `events` (subscribed before the input) for the main frame `main`.
    fn new(events: EventStream, main: String) -> Navigation {
        Navigation {
            events,
            main,
            requested: false,
            started: false,
            settled: false,
            gone: false,
            window_open: false,
            gesture: false,
            opened_urls: Vec::new(),
        }
    }

    /// Whether the page is to be read again after waiting for a navigation.
    fn navigating(&self) -> bool {
        self.requested || self.gone
    }

    /// Takes in one event (of any frame).
    fn see(&mut self, ev: &RawEvent) {
        if ev.method == page::WindowOpen::METHOD {
            self.window_open = true;
            self.gesture |= ev
                .decode::<page::WindowOpen>()
                .is_ok_and(|w| w.user_gesture);
            return;
        }
        // A navigation of any frame into another tab is no navigation of this one (waiting for
        // its commit held the action up for START_GRACE): a new tab to look for.
        if ev.method == page::FrameRequestedNavigation::METHOD
            && let Ok(r) = ev.decode::<page::FrameRequestedNavigation>()
            && matches!(r.disposition.as_str(), "newTab" | "newWindow")
        {
            self.window_open = true;
            self.gesture = true;
            self.opened_urls.push(r.url);
            return;
        }
        if event_frame(ev).as_deref() != Some(self.main.as_str()) {
            return;
        }
        match ev.method.as_str() {
            page::FrameRequestedNavigation::METHOD => self.requested = true,
            page::FrameStartedLoading::METHOD => {
                self.requested = true;
                self.started = true;
            }
            page::FrameNavigated::METHOD | page::NavigatedWithinDocument::METHOD => {
                self.requested = true;
                self.settled = true;
            }
            // The load of the page before the action may end meanwhile: only a stop after the
            // action's navigation started ends that navigation.
            page::FrameStoppedLoading::METHOD if self.started => self.settled = true,
            _ => {}
        }
    }

    /// Takes in the events already queued, without waiting.
    fn drain(&mut self) {
        while let Some(ev) = self.events.try_recv() {
            self.see(&ev);
        }
    }

    /// Takes in events until one announces a navigation, or until `quiet`.
    async fn watch_until(&mut self, quiet: tokio::time::Instant) {
        while !self.requested
            && let Ok(Some(ev)) = tokio::time::timeout_at(quiet, self.events.recv()).await
        {
            self.see(&ev);
        }
    }

    /// Waits until the navigation has committed or ended: bounded by the deadline, and by
    /// [`START_GRACE`] while it has not started loading.
    async fn settle(&mut self, deadline: &Deadline) {
        let since = tokio::time::Instant::now();
        while self.requested && !self.settled && !deadline.is_over() {
            let wait = match self.started {
                true => deadline.remaining(),
                false => {
                    let left = START_GRACE.saturating_sub(since.elapsed());
                    if left.is_zero() {
                        return;
                    }
                    left.min(deadline.remaining())
                }
            };
            match tokio::time::timeout(wait, self.events.recv()).await {
                Ok(Some(ev)) => self.see(&ev),
                Ok(None) | Err(_) => return,
            }
        }
    }
}

/// Whether nothing is focused in the page (focus on the body, or nowhere); false if unknown.
async fn focus_idle(page: &Session) -> bool {
    let expression =
        format!("(() => {{ const a = {DEEP_ACTIVE_JS}; return !a || a === document.body; }})()");
    eval::probe::<bool>(page, &expression)
        .await
        .unwrap_or(false)
}

/// Whether focus is now on another element than `before` (compared by identity in the page).
async fn focus_moved(page: &Session, before: Option<&ObjectHandle>) -> bool {
    let same = match before {
        Some(handle) => {
            handle
                .probe::<bool>(&format!(
                    "function() {{ return {DEEP_ACTIVE_JS} === this; }}"
                ))
                .await
        }
        None => eval::probe::<bool>(page, &format!("{DEEP_ACTIVE_JS} === null")).await,
    };
    // An unanswerable comparison (the old object's context died) means the document changed.
    same != Some(true)
}

/// The page as it was before an action.
#[derive(Debug)]
pub(crate) struct Before {
    url: String,
    document: Option<String>,
    /// `document` is the quick aim's time origin, not the main frame's loader id.
    by_origin: bool,
    focus: Option<ObjectHandle>,
    idle: bool,
    events: Option<EventStream>,
    /// New windows asked for by any session of the connection (the tab's out-of-process frames
    /// announce theirs on their own sessions), from [`Before::arm`].
    popups: Option<EventStream>,
    main: String,
}

/// What an action changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct After {
    /// The URL changed.
    pub url_changed: bool,
    /// Focus moved to another element.
    pub focus_changed: bool,
    /// The tabs the action opened (recorded in the session), in the browser's order.
    pub new_tabs: Vec<String>,
}

impl Before {
    /// Reads the page before an action (the reads go out together).
    pub async fn read(cx: &mut TabCx<'_>) -> Result<Before> {
        let (url, _) = cx.page_info().await?;
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let (document, focus, idle) = tokio::join!(
            main_document(&page, &deadline),
            eval::probe_handle(&page, DEEP_ACTIVE_JS),
            focus_idle(&page)
        );
        Ok(Before {
            url,
            document,
            focus,
            idle,
            by_origin: false,
            events: None,
            popups: None,
            main: cx.main_frame(),
        })
    }

    /// The page before an action as a quick aim read it.
    pub fn quick(before: &PageBefore, main: String) -> Before {
        Before {
            url: before.url.clone(),
            document: Some(before.document.clone()),
            by_origin: true,
            focus: None,
            idle: before.idle,
            events: None,
            popups: None,
            main,
        }
    }

    /// Starts watching for the navigations the input about to be sent may start (call it right
    /// before sending it: what happened while waiting for the element is not the input's doing).
    pub fn arm(&mut self, page: &Session) {
        self.events = Some(page.events(NAV_EVENTS));
        // Only this event, rare, from every session: those of the tab are picked when read.
        let popups = EventFilter::methods(&[page::WindowOpen::METHOD]);
        self.popups = Some(page.link().events(popups));
    }

    /// After the action: waits for a navigation it started (bounded by the deadline), drops the
    /// refs of a document that was replaced, and sets the context's URL and title.
    pub async fn after(mut self, cx: &mut TabCx<'_>) -> Result<After> {
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        // The renderer reports a navigation the action starts itself (link, form, a handler
        // setting location) on the page's DevTools pipe before it answers anything sent there
        // after the action, so one round trip is a barrier for those. A short window after it
        // catches most that a handler starts from a timer of its own; later ones are seen by the
        // next command. The reads of the page after the action run meanwhile and are kept when
        // nothing navigated.
        // The barrier awaits one task of the page's own: a navigation the input scheduled as a
        // task (a form submitted by Enter) has started by then. A message, not a timer: timers of
        // a background tab are throttled.
        let _ = page
            .send_timeout(
                &runtime::Evaluate {
                    expression: TASK_BARRIER_JS.to_string(),
                    await_promise: Some(true),
                    return_by_value: Some(true),
                    ..Default::default()
                },
                deadline.capped(deadline::PROBE),
            )
            .await;
        let quiet = tokio::time::Instant::now() + Duration::from_millis(5);
        let events = self
            .events
            .take()
            .unwrap_or_else(|| page.events(NAV_EVENTS));
        let mut nav = Navigation::new(events, self.main.clone());
        let focus = self.focus.take();
        let reads = async {
            tokio::join!(
                main_document(&page, &deadline),
                focus_moved(&page, focus.as_ref()),
                eval::page_info(&page, &deadline)
            )
        };
        let ((), (document_now, moved, info)) = tokio::join!(nav.watch_until(quiet), reads);
        drop(focus);
        nav.drain();
        self.conclude(cx, nav, document_now, moved, info).await
    }

    /// After an action whose page was read after the input by the quick aim's listeners
    /// ([`quick_aim::landed`]: a task and a timer of the page after the input, a barrier for the
    /// navigations it started): waits for a navigation, drops the refs of a replaced document,
    /// sets the context's URL and title.
    pub async fn after_quick(mut self, cx: &mut TabCx<'_>, read: &PageAfter) -> Result<After> {
        let page = cx.page.clone();
        let events = self
            .events
            .take()
            .unwrap_or_else(|| page.events(NAV_EVENTS));
        // Only what came before the answer, without waiting: a timer due now would still park
        // the runtime until the timer wheel's next millisecond.
        let mut nav = Navigation::new(events, self.main.clone());
        nav.drain();
        // A document gone without a navigation of the main frame is a frame's: the main page is
        // read again all the same.
        nav.gone = read.seen.gone;
        // Both are read again after a navigation.
        let info = Ok(read.info.clone().unwrap_or_default());
        let document = self.document.clone();
        self.conclude(cx, nav, document, read.focus_changed, info)
            .await
    }

    /// The end of [`Before::after`] and [`Before::after_quick`], from what was read after the
    /// action.
    async fn conclude(
        mut self,
        cx: &mut TabCx<'_>,
        mut nav: Navigation,
        mut document_now: Option<String>,
        moved: bool,
        mut info: Result<(String, String)>,
    ) -> Result<After> {
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let mut window_open = (nav.window_open, nav.gesture);
        let mut opened_urls = nav.opened_urls.clone();
        let popups = self.popups.take();
        if nav.navigating() {
            let mut waiter = LoadWaiter::subscribe(&page);
            // The commit first: until then the load state read is the old page's (complete).
            nav.settle(&deadline).await;
            window_open = (nav.window_open, nav.gesture);
            opened_urls = nav.opened_urls.clone();
            drop(nav);
            // Past the deadline the command answers with what it has; the next one sees the
            // rest.
            let _ = waiter
                .loaded(&deadline, "the navigation the action started")
                .await;
            // What was read meanwhile may be of the old page.
            let document = async {
                match self.by_origin {
                    true => quick_aim::document_now(&page, &deadline).await,
                    false => main_document(&page, &deadline).await,
                }
            };
            (document_now, info) = tokio::join!(document, eval::page_info(&page, &deadline));
        }
        // A new main-frame document invalidates every ref of the old one: drop them (numbering goes
        // on, so an old ref is reported stale rather than naming a node of the new page).
        let new_document = match (&self.document, document_now) {
            (Some(a), Some(b)) => *a != b,
            _ => false,
        };
        if new_document {
            cx.state.frames.drop_refs_keep_numbering();
            cx.save_refs().await?;
        }
        // Across documents: focus changed unless nothing was focused on either page (as the
        // reference CLI reports a plain link click).
        let focus_changed = match new_document {
            true => !(self.idle && focus_idle(&page).await),
            false => moved,
        };
        let (url, title) = info?;
        let url_changed = url != self.url;
        cx.url = Some(url);
        cx.title = Some(title);
        // A frame of the tab in another process asks for a window on its own session.
        if let Some(mut popups) = popups {
            let ours = cx.state.frames.frame_sessions();
            while let Some(ev) = popups.try_recv() {
                if ev.session_id.as_ref().is_some_and(|s| ours.contains(s))
                    && let Ok(w) = ev.decode::<page::WindowOpen>()
                {
                    window_open = (true, window_open.1 || w.user_gesture);
                }
            }
        }
        // Only an action the page answered with a new window looks for tabs: the common one
        // costs nothing.
        let new_tabs = match window_open {
            (true, gesture) => opened_tabs(cx, gesture, &opened_urls, &deadline).await,
            (false, _) => Vec::new(),
        };
        Ok(After {
            url_changed,
            focus_changed,
            new_tabs,
        })
    }
}

/// The pages this tab opened that the session has no tab for yet, recorded as its next tabs
/// (in the browser's order) and named: the windows an action just opened (by their opener, or,
/// opened without one, by a URL in `urls`). Waited for (within [`POPUP_GRACE`]) only with
/// `wait`; best effort (an action is not failed for the tab list).
async fn opened_tabs(
    cx: &TabCx<'_>,
    wait: bool,
    urls: &[String],
    deadline: &Deadline,
) -> Vec<String> {
    let opener = cx
        .session
        .with_record(|r| r.tab(&cx.tab_id).map(|t| t.target_id.clone()));
    let Some(opener) = opener else {
        return Vec::new();
    };
    let grace = match wait {
        true => POPUP_GRACE.min(deadline.remaining()),
        false => Duration::ZERO,
    };
    let until = tokio::time::Instant::now() + grace;
    let mut pause = Duration::from_millis(10);
    loop {
        let Ok(pages) = targets::page_targets(&cx.conn, deadline).await else {
            return Vec::new();
        };
        let new: Vec<String> = cx.session.with_record(|r| {
            pages
                .into_iter()
                .filter(|p| {
                    let ours = match &p.opener_id {
                        Some(o) => *o == opener,
                        None => urls.contains(&p.url),
                    };
                    ours && r.tab_of_target(&p.target_id).is_none()
                })
                .map(|p| p.target_id)
                .collect()
        });
        if !new.is_empty() {
            let opened_by: Vec<(String, String)> =
                new.iter().map(|id| (id.clone(), opener.clone())).collect();
            targets::refresh_tabs_with(&cx.session, deadline, &opened_by).await;
            return cx.session.with_record(|r| {
                new.iter()
                    .filter_map(|id| r.tab_of_target(id).map(|t| t.tab_id.clone()))
                    .collect()
            });
        }
        let now = tokio::time::Instant::now();
        if now >= until {
            return Vec::new();
        }
        tokio::time::sleep(pause.min(until - now)).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}
