//! Waiting (spec 12): `browser wait element`, `navigation`, `network-idle`, `condition`; and
//! `browser wait text` and `url` (ours).
//!
//! Every wait is bounded by the command's `--timeout`, which the spec requires (a wait without it
//! is `INVALID_ARGUMENT`, see [`crate::model::CommandTraits::needs_timeout`]), and
//! runs on its own tab's queue only, so the other tabs of the session keep working meanwhile. When
//! time runs out it fails with `TIMEOUT`, `error.details` holding `elapsed_ms` and what it saw
//! last (`observed_value`). Element and condition waits check again on every change of the main
//! frame's document, and at least every `watch::POLL`.

use std::time::{Duration, Instant};

use envelope::{WaitData, WaitKind};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::navigation::tab_only;
use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::navigation::{LoadWaiter, main_document};
use crate::page::{eval, locate, watch};
use crate::reply::Done;
use crate::tab::services::network::{NetworkRecorder, RecorderState};
use crate::tab::services::restores::RestoreWatch;
use crate::tab::{TabCommand, TabCx};

/// How long the network must stay quiet (no request waiting for its response, no request event)
/// to count as idle.
pub(crate) const NETWORK_QUIET: Duration = Duration::from_millis(500);

/// How long a wait that ran out of time may still look at the page to report what it saw.
const TIMED_OUT_LOOK: Duration = Duration::from_millis(250);

/// The time the first look of a wait always has (more when `--timeout` gives more): a wait
/// checks at least once, `--timeout 0` included, whatever the machine's load.
const FIRST_LOOK: Duration = Duration::from_millis(1000);

/// Which state of the element is waited for (`--state`, beyond the spec).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ElementState {
    /// In the DOM (the spec's meaning).
    #[default]
    Attached,
    /// In the DOM, rendered, with a non-empty box.
    Visible,
    /// Not visible: absent, or present but not rendered.
    Hidden,
    /// Not in the DOM.
    Detached,
}

/// `browser wait element <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WaitElement {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`); any frame.
    pub selector: String,
    /// The state to wait for: attached (default), visible, hidden or detached.
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ElementState>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser wait text <text>` (beyond the spec, as agent-browser's `wait --text` and Playwright
/// MCP's `browser_wait_for`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WaitText {
    /// The text, as the page shows it (case and runs of whitespace aside); any frame.
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub text: String,
    /// Wait until no element shows the text any more instead.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub gone: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// Finds, in a frame's document, the element that shows a text: the innermost one whose text
/// has it (case and runs of whitespace aside), and visible; `null` when none. It descends only
/// into children whose text has it (so it costs about one pass over the page's text, where a
/// selector saying the same is quadratic), in the document's body and in each open shadow root
/// (text split across a shadow boundary is not found). A hidden element holding it (a closed
/// menu, a `<script>`) does not show it; nor do `<template>` contents or the title.
const SHOWN_TEXT_JS: &str = r#"((want, H) => {
  want = H.fold(want);
  const has = (el) => H.fold(el.textContent || '').includes(want);
  const innermost = (children) => {
    for (const c of children) {
      if (!has(c)) continue;
      const inner = [...c.children].filter(has);
      if (inner.length === 0) {
        if (H.isVisible(c)) return c;
        continue;
      }
      const r = innermost(inner);
      if (r) return r;
    }
    return null;
  };
  const roots = [document.body ? [document.body] : []];
  const walk = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.shadowRoot) roots.push([...n.shadowRoot.children]);
  }
  for (const r of roots) {
    const found = innermost(r);
    if (found) return found;
  }
  return null;
})"#;

/// The finder of the element that shows `text` ([`SHOWN_TEXT_JS`]); it prints as `text "..."`.
fn shown_text(text: &str) -> a11y_snapshot::Target {
    let want = serde_json::Value::String(text.to_string());
    a11y_snapshot::Target::Finder {
        selector: format!("text {want}"),
        expression: format!(
            "({SHOWN_TEXT_JS})({want}, {})",
            crate::page::query::HELPERS_JS
        ),
    }
}

/// `browser wait url <pattern>` (beyond the spec, as agent-browser's `wait --url` and
/// Playwright's `waitForURL`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WaitUrl {
    /// The page's URL to wait for: a pattern over the whole URL where `*` (or `**`) is any run of
    /// characters (`**/dashboard*`), text it contains (no `*`: `/dashboard`), or `/regex/`.
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub pattern: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// What `wait url` matches: a regular expression (`/.../`), a whole-URL pattern with `*`, or text
/// the URL contains. `?` is no wildcard: URLs have it in their queries.
#[derive(Debug)]
enum UrlPattern {
    Regex(regex::Regex),
    Wildcard(String),
    Contains(String),
}

impl UrlPattern {
    fn parse(p: &str) -> Result<UrlPattern> {
        let p = p.trim();
        if p.is_empty() {
            return Err(CliError::InvalidArgument("the URL pattern is empty".into()));
        }
        if p.len() >= 2 && p.starts_with('/') && p.ends_with('/') {
            return regex::Regex::new(&p[1..p.len() - 1])
                .map(UrlPattern::Regex)
                .map_err(|e| {
                    CliError::InvalidArgument(format!("{p}: not a regular expression: {e}"))
                });
        }
        Ok(match p.contains('*') {
            true => UrlPattern::Wildcard(p.to_string()),
            false => UrlPattern::Contains(p.to_string()),
        })
    }

    fn matches(&self, url: &str) -> bool {
        match self {
            UrlPattern::Regex(re) => re.is_match(url),
            UrlPattern::Contains(p) => url.contains(p.as_str()),
            UrlPattern::Wildcard(p) => {
                // The parts between stars, in order; the first at the start and the last at the
                // end unless a star stands there. Leftmost placement of each part is enough.
                let parts: Vec<&str> = p.split('*').collect();
                let (first, middle, last) = match parts.as_slice() {
                    [first, middle @ .., last] => (*first, middle, *last),
                    _ => return url == p.as_str(),
                };
                let Some(mut rest) = url.strip_prefix(first) else {
                    return false;
                };
                for part in middle {
                    match rest.find(part) {
                        Some(at) => rest = &rest[at + part.len()..],
                        None => return false,
                    }
                }
                rest.ends_with(last)
            }
        }
    }
}

/// `browser wait condition <expression>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WaitCondition {
    /// A JavaScript expression, evaluated until truthy; a promise is awaited; a throw is EVAL_FAILED.
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub expression: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

tab_only! {
    /// `browser wait navigation`.
    WaitNavigation;
    /// `browser wait network-idle`.
    WaitNetworkIdle;
}

fn satisfied(kind: WaitKind, started: Instant, observed: Value) -> Done<WaitData> {
    Done::data(WaitData {
        kind,
        satisfied: true,
        elapsed_ms: elapsed_ms(started),
        observed_value: observed,
    })
}

/// The bound of a wait's look number `n` (from 0): the first always has [`FIRST_LOOK`].
fn look_bound(deadline: &Deadline, n: u32) -> Deadline {
    match n {
        0 => deadline.at_least(FIRST_LOOK),
        _ => deadline.clone(),
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn timed_out(what: &str, deadline: &Deadline, started: Instant, observed: Value) -> CliError {
    CliError::WaitTimedOut {
        what: what.to_string(),
        ms: deadline.timeout_ms(),
        elapsed_ms: elapsed_ms(started),
        observed,
    }
}

/// What a look for the element found.
#[derive(Debug, Clone, Copy)]
struct Seen {
    found: bool,
    /// Known when the state asks about visibility and the element was found.
    visible: Option<bool>,
}

impl Seen {
    fn satisfies(self, state: ElementState) -> bool {
        match state {
            ElementState::Attached => self.found,
            ElementState::Detached => !self.found,
            ElementState::Visible => self.found && self.visible == Some(true),
            ElementState::Hidden => !self.found || self.visible == Some(false),
        }
    }
}

/// One look for the element. Absent (or gone, or in a frame being replaced) is an answer; `None`
/// is no answer this time (a context torn down mid-look, a visibility probe that failed), which
/// must not satisfy `detached` or `hidden`; a bad selector, a ref that was never handed out and a
/// broken page are errors.
async fn look(
    cx: &mut TabCx<'_>,
    selector: &str,
    finder: Option<&a11y_snapshot::Target>,
    state: ElementState,
    deadline: &Deadline,
) -> Result<Option<Seen>> {
    let page = cx.page.clone();
    let absent = Some(Seen {
        found: false,
        visible: None,
    });
    let frames = &mut cx.state.frames;
    let present = match finder {
        Some(f) => locate::presence_of(frames, &page, f, selector, deadline).await,
        None => locate::presence(frames, &page, selector, deadline).await,
    };
    let node = match present {
        Ok(locate::Presence::Found(node)) => node,
        Ok(locate::Presence::Absent) => return Ok(absent),
        // A frame that did not answer may hold it: no answer this time.
        Ok(locate::Presence::Unanswered) => return Ok(None),
        Err(CliError::ElementNotFound { .. }) if selector.starts_with('@') => {
            // A ref names one node of a snapshot: one the table never had cannot appear.
            let known = cx.state.frames.refs.as_ref().is_some_and(|t| {
                selector[1..]
                    .trim_start_matches('e')
                    .parse::<u32>()
                    .is_ok_and(|n| n < t.next_number())
            });
            if known {
                return Ok(absent);
            }
            return Err(CliError::ElementNotFound {
                selector: selector.to_string(),
            });
        }
        Err(CliError::ElementNotFound { .. } | CliError::Stale(_) | CliError::FrameNotFound(_)) => {
            return Ok(absent);
        }
        Err(CliError::Cdp(e)) if !e.is_closed() && e.kind() != cdp_protocol::ErrorKind::Timeout => {
            // A context torn down by a navigation mid-look: no answer, look again.
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let visible = match state {
        ElementState::Visible | ElementState::Hidden => {
            // A probe that failed (the node gone between the two steps, a slow page) is no
            // answer: the next look decides.
            match node.handle.probe::<bool>(watch::VISIBLE_FN).await {
                Some(v) => Some(v),
                None => return Ok(None),
            }
        }
        _ => None,
    };
    Ok(Some(Seen {
        found: true,
        visible,
    }))
}

fn state_name(state: ElementState) -> &'static str {
    match state {
        ElementState::Attached => "attached",
        ElementState::Visible => "visible",
        ElementState::Hidden => "hidden",
        ElementState::Detached => "detached",
    }
}

impl TabCommand for WaitElement {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        let state = self.state.unwrap_or_default();
        let selector = self.selector.trim().to_string();
        if selector.is_empty() {
            return Err(CliError::InvalidArgument("the selector is empty".into()));
        }
        let looked_for = json!({ "selector": selector });
        wait_for_element(cx, &selector, None, state, WaitKind::Element, looked_for).await
    }
}

impl TabCommand for WaitText {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Waits for a visible element showing the text (`--gone`: for none), in any frame.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        if self.text.trim().is_empty() {
            return Err(CliError::InvalidArgument("the text is empty".into()));
        }
        let finder = shown_text(&self.text);
        let selector = finder.to_string();
        let state = if self.gone {
            ElementState::Detached
        } else {
            ElementState::Attached
        };
        let looked_for = json!({ "text": self.text, "gone": self.gone });
        wait_for_element(
            cx,
            &selector,
            Some(&finder),
            state,
            WaitKind::Text,
            looked_for,
        )
        .await
    }
}

/// Waits until the element `selector` names is in `state`. `looked_for` is what the answer says
/// was waited for (`observed_value`); a timeout's details add what the last look saw.
async fn wait_for_element(
    cx: &mut TabCx<'_>,
    selector: &str,
    finder: Option<&a11y_snapshot::Target>,
    state: ElementState,
    kind: WaitKind,
    looked_for: Value,
) -> Result<Done<WaitData>> {
    let started = Instant::now();
    cx.load_refs();
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let mut last: Option<Seen> = None;
    let mut looks = 0u32;
    loop {
        // A look cut short by the deadline is no answer (the last complete one is reported).
        let bound = look_bound(&deadline, looks);
        looks += 1;
        let looked = look(cx, selector, finder, state, &bound);
        let seen = match tokio::time::timeout(bound.remaining(), looked).await {
            Ok(Ok(seen)) => seen,
            Ok(Err(e)) if e.code() != envelope::ErrorCode::Timeout => return Err(e),
            _ => None,
        };
        last = seen.or(last);
        if let Some(seen) = seen
            && seen.satisfies(state)
        {
            return Ok(satisfied(kind, started, looked_for));
        }
        if deadline.is_over() {
            let mut observed = looked_for;
            if kind == WaitKind::Element {
                observed["state"] = json!(state_name(state));
            }
            observed["found"] = json!(last.map(|s| s.found));
            if let Some(v) = last.and_then(|s| s.visible) {
                observed["visible"] = json!(v);
            }
            let what = match kind {
                WaitKind::Text => "browser wait text",
                _ => "browser wait element",
            };
            return Err(timed_out(what, &deadline, started, observed));
        }
        watch::next_change(&page, deadline.capped(watch::POLL)).await;
    }
}

impl TabCommand for WaitUrl {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Until the main frame's URL matches: already matching answers at once; a navigation, a
    /// redirect or a history change (`pushState`) that makes it match ends the wait. Read from
    /// the page itself (`location.href`) at every look.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        const WHAT: &str = "browser wait url";
        let started = Instant::now();
        let pattern = UrlPattern::parse(&self.pattern)?;
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let mut last: Option<String> = None;
        let mut looks = 0u32;
        loop {
            let bound = look_bound(&deadline, looks);
            looks += 1;
            let timeout = bound.capped(crate::deadline::QUICK_CALL);
            match eval::read::<String>(&page, "location.href", timeout, WHAT).await {
                Ok(url) if pattern.matches(&url) => {
                    let observed = json!({ "pattern": self.pattern, "url": url });
                    return Ok(satisfied(WaitKind::Url, started, observed));
                }
                Ok(url) => last = Some(url),
                // The tab closed or the browser went away: no URL will come.
                Err(e) if e.is_session_end() => return Err(e),
                // A document being replaced has no context to ask: no answer this time.
                Err(_) => {}
            }
            if deadline.is_over() {
                let observed = json!({ "pattern": self.pattern, "url": last });
                return Err(timed_out(WHAT, &deadline, started, observed));
            }
            tokio::time::sleep(deadline.capped(watch::POLL)).await;
        }
    }
}

/// `[readyState, ms since the main document's response started]`.
const DOCUMENT_AGE: &str = "(() => { const n = performance.getEntriesByType('navigation')[0]; \
     return [document.readyState, Date.now() - performance.timeOrigin - (n ? n.responseStart : 0)]; })()";

impl TabCommand for WaitNavigation {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// The next navigation of the main frame commits and its document loads. One already under
    /// way counts: a document still loading is waited for; a navigation not yet committed is the
    /// next commit; so does one that ended since the tab's previous command (a script's redirect
    /// that was quicker than the agent's next call), whose document is then already there.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        const WHAT: &str = "browser wait navigation";
        let started = Instant::now();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let main = cx.main_frame();
        // Subscribed before the first look, so a commit in between is not missed.
        let mut waiter = LoadWaiter::subscribe(&page);
        // Measured before the page is asked, so a document younger than this is surely newer
        // than the previous command's end (page clock against page clock: no skew).
        let since_last_ms = cx
            .state
            .last_done
            .map(|t| t.elapsed().as_secs_f64() * 1000.0);
        let first_look = async {
            tokio::join!(
                main_document(&cx.page, &cx.deadline),
                // The document's age from its response (when it could commit), not from the
                // navigation's start, which may precede the previous command's end.
                eval::probe::<(String, f64)>(&page, DOCUMENT_AGE)
            )
        };
        let (before, look) = tokio::time::timeout(deadline.remaining(), first_look)
            .await
            .unwrap_or((None, None));
        let loading = look.as_ref().is_some_and(|(s, _)| s != "complete");
        let arrived_since_last = match (look.as_ref(), since_last_ms) {
            (Some((_, age_ms)), Some(since)) => *age_ms < since,
            _ => false,
        };
        // A document restored from the back/forward cache is an old one (its age is that of its
        // first load): the restore itself says when it came back.
        let restored_since_last = match cx.state.services.get::<RestoreWatch>() {
            Some(w) => w
                .last_restore()
                .await
                .zip(cx.state.last_done)
                .is_some_and(|(restored, done)| restored > done),
            None => false,
        };
        let arrived_since_last = arrived_since_last || restored_since_last;
        let waited = async {
            if !loading && !arrived_since_last {
                waiter.committed(&main, &deadline, WHAT).await?;
            }
            waiter.loaded(&deadline, WHAT).await
        }
        .await;
        cx.state.info_trusted = false;
        let observe = async {
            let (info, ready) = tokio::join!(
                eval::probe::<(String, String)>(&page, "[location.href, document.title]"),
                eval::probe::<String>(&page, "document.readyState")
            );
            (info, ready)
        };
        match waited {
            Ok(()) => {
                let (info, ready) = observe.await;
                if main_document(&cx.page, &cx.deadline).await != before {
                    // A new document: the old one's refs are gone (numbering goes on, so an old
                    // ref reads as stale).
                    cx.state.frames.drop_refs_keep_numbering();
                    cx.save_refs().await?;
                }
                let url = info.as_ref().map(|(u, _)| u.clone());
                if let Some((u, t)) = info {
                    cx.url = Some(u);
                    cx.title = Some(t);
                }
                Ok(satisfied(
                    WaitKind::Navigation,
                    started,
                    json!({ "url": url, "ready_state": ready }),
                ))
            }
            Err(CliError::Timeout { .. } | CliError::LoadUnfinished { .. }) => {
                // The time is spent: what the page shows now is only worth a short look.
                let (info, ready) = tokio::time::timeout(TIMED_OUT_LOOK, observe)
                    .await
                    .unwrap_or((None, None));
                let url = info.map(|(u, _)| u);
                Err(timed_out(
                    WHAT,
                    &deadline,
                    started,
                    json!({ "url": url, "ready_state": ready }),
                ))
            }
            Err(e) => Err(e),
        }
    }
}

impl TabCommand for WaitNetworkIdle {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// No request of the tab (any frame, OOPIFs and workers included) in flight for
    /// [`NETWORK_QUIET`], counted from the start of the wait; requests already in flight then
    /// count (the tab's recorder tracks them from the attach; see its docs for what "in flight"
    /// means for a response whose body is never read).
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        const WHAT: &str = "browser wait network-idle";
        let started = Instant::now();
        let deadline = cx.deadline.clone();
        let recorder = cx
            .state
            .services
            .get::<NetworkRecorder>()
            .ok_or_else(|| CliError::internal("the tab has no network recorder"))?;
        // The recorder may still be starting (a tab attached just now): that wait is part of
        // the command's own --timeout, not a fixed slice of it.
        let _ = tokio::time::timeout(
            deadline.remaining(),
            crate::tab::services::TabService::ready(recorder),
        )
        .await;
        match recorder.state() {
            RecorderState::Recording => {}
            RecorderState::Starting => {
                return Err(timed_out(
                    WHAT,
                    &deadline,
                    started,
                    json!({ "idle": false, "recording": false }),
                ));
            }
            RecorderState::Failed(why) => {
                return Err(CliError::Unsupported(format!(
                    "the tab's network activity cannot be observed: {why}"
                )));
            }
            RecorderState::Off => return Err(crate::commands::network::recording_off()),
        }
        match recorder.idle(NETWORK_QUIET, started, deadline.at()).await {
            Ok(_) => {
                let mut done = satisfied(
                    WaitKind::NetworkIdle,
                    started,
                    json!({ "idle": true, "pending": 0 }),
                );
                // Frames or workers it could not watch: idle may not cover their requests.
                done.warnings.extend(recorder.problems());
                Ok(done)
            }
            Err(a) => {
                let pending: Vec<Value> = recorder
                    .in_flight()
                    .iter()
                    .take(10)
                    .map(|r| json!({ "url": r.url, "type": r.resource_type, "method": r.method }))
                    .collect();
                Err(timed_out(
                    WHAT,
                    &deadline,
                    started,
                    json!({ "idle": false, "pending": a.in_flight, "requests": pending }),
                ))
            }
        }
    }
}

impl TabCommand for WaitCondition {
    type Data = WaitData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Evaluates the expression (promises awaited) until it is truthy (JavaScript's own `!!`,
    /// decided in the page); its last value, as `browser eval` gives it (cut and said so when
    /// huge), is the observed one. A throw fails at once with EVAL_FAILED. One evaluation per
    /// look.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<WaitData>> {
        const WHAT: &str = "browser wait condition";
        let started = Instant::now();
        if self.expression.trim().is_empty() {
            return Err(CliError::InvalidArgument("the expression is empty".into()));
        }
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let mut last = Value::Null;
        let mut form = eval::ConditionForm::default();
        let mut looks = 0u32;
        loop {
            let bound = look_bound(&deadline, looks);
            looks += 1;
            match eval::evaluate_condition(&page, &self.expression, &mut form, &bound, WHAT).await {
                Ok(c) => {
                    let (v, truncated, warnings) = eval::reportable(c.value, c.cut);
                    if c.truthy {
                        let mut done = satisfied(WaitKind::Condition, started, v.value);
                        done.truncated = truncated;
                        done.warnings = warnings;
                        return Ok(done);
                    }
                    // Falsy values are small (only `document.all` is an object), and bounded.
                    last = v.value;
                }
                Err(CliError::Timeout { .. }) => {
                    return Err(timed_out(WHAT, &deadline, started, last));
                }
                // The context went away under the evaluation (a navigation): again.
                Err(CliError::Cdp(e)) if !e.is_closed() => {}
                Err(e) => return Err(e),
            }
            if deadline.is_over() {
                return Err(timed_out(WHAT, &deadline, started, last));
            }
            watch::next_change(&page, deadline.capped(watch::POLL)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn m(p: &str, url: &str) -> bool {
        match UrlPattern::parse(p) {
            Ok(p) => p.matches(url),
            Err(e) => panic!("{p}: {e}"),
        }
    }

    #[test]
    fn url_patterns_match_as_agents_write_them() {
        let url = "https://app.test/dash/settings?tab=2";
        assert!(m("**/dash/*", url));
        assert!(m("**/settings?tab=2", url));
        assert!(m("https://app.test/*", url));
        assert!(m("*", url));
        assert!(m("/dash/settings", url));
        assert!(m("settings?tab=2", url));
        assert!(m("/settings\\?tab=\\d/", url));
        assert!(!m("**/login*", url));
        assert!(!m("**/dash", url));
        assert!(!m("http://*", url));
        assert!(!m("*/dash/*/x", url));
        assert!(UrlPattern::parse("  ").is_err());
        assert!(UrlPattern::parse("/(/").is_err());
    }

    proptest! {
        /// A pattern made of a URL's own pieces with stars between them matches it, and any star
        /// pattern matches exactly when the regular expression it stands for does.
        #[test]
        fn pieces_of_a_url_with_stars_match_it(
            url in "[a-z:/.?=&]{0,30}",
            cuts in proptest::collection::vec(0usize..31, 0..4),
            other in "[ab/*?]{0,8}",
            small in "[ab/?]{0,10}",
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= url.len()).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut pattern = String::new();
            let mut at = 0;
            for c in &cuts {
                pattern.push_str(&url[at..*c]);
                pattern.push('*');
                at = *c;
            }
            pattern.push_str(&url[at..]);
            let regex_like = |p: &str| p.len() >= 2 && p.starts_with('/') && p.ends_with('/');
            if pattern.contains('*') && pattern.trim() == pattern && !regex_like(&pattern) {
                prop_assert!(m(&pattern, &url), "{} !~ {}", pattern, url);
            }
            if other.contains('*') && other.trim() == other && !regex_like(&other) {
                let parts: Vec<String> = other.split('*').map(regex::escape).collect();
                let reference = regex::Regex::new(&format!("^{}$", parts.join(".*")));
                prop_assert!(reference.is_ok());
                if let Ok(re) = reference {
                    prop_assert_eq!(m(&other, &small), re.is_match(&small), "{} ~ {}", other, small);
                }
            }
        }
    }
}
