//! The quick aim: an element found by a CSS selector in the top document, or by a handle (a ref)
//! in the top document or a same-process frame below it, checked, aimed at and listened on in
//! one call that also reads the page before the action. After the input the listeners report by
//! themselves, through a page binding ([`Reports`]), what they saw and the page after it, so the
//! engine awaits that report beside the input's own acknowledgements instead of asking after
//! them (an ask would wait behind the re-render the input's handlers cause). Should no report come
//! (the press went elsewhere, the page replaced the binding), one more call ([`after`]) stops the
//! listeners and reads the page. Without a handle the page keeps the element on its window until
//! then, so nothing is left to release. Whatever the quick aim does not handle itself (no match,
//! a check that does not pass, an animation, a scroll, a frame it cannot see through) is answered
//! [`Aimed::Careful`]: the caller takes the careful path of `actionability`, which waits, names
//! the check and confirms the hover before pressing.

use std::sync::atomic::{AtomicU64, Ordering};

use cdp_protocol::{Event as _, EventStream, Session, runtime};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::Result;
use crate::page::actionability::{
    self, Checks, Counted, POINTER_EVENTS, SCRIPT, Seen, Unsubmitted,
};
use crate::page::eval::{self, ObjectHandle};

/// The page before the action, as the quick aim read it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub(crate) struct PageBefore {
    /// `location.href`.
    pub url: String,
    /// `document.title`.
    pub title: String,
    /// Nothing was focused (the body, or nothing).
    pub idle: bool,
    /// The document's identity: its `performance.timeOrigin` (see [`document_now`]).
    pub document: String,
    /// The page is shown (`document.visibilityState`): input to a hidden page is never
    /// acknowledged, so it must be brought to the front first.
    pub visible: bool,
}

/// The identity of the top document now, as [`PageBefore::document`] has it (`None` when the page
/// did not answer): a new document has a new time origin, a same-document navigation keeps it.
pub(crate) async fn document_now(page: &Session, deadline: &Deadline) -> Option<String> {
    eval::read::<String>(
        page,
        // Guarded as in the probe: a page's own `performance` must not fail the read.
        "(() => { try { return String(performance.timeOrigin); } catch (e) { return ''; } })()",
        deadline.capped(deadline::PROBE),
        "the document's time origin",
    )
    .await
    .ok()
}

/// An element aimed at: the point in page coordinates, the listeners installed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QuickAim {
    /// The point, in CSS pixels of the top-level viewport.
    pub x: f64,
    /// See `x`.
    pub y: f64,
    /// The page before the action.
    pub before: PageBefore,
    /// How many elements the CSS selector matched (the first was aimed at); 1 for a handle.
    pub matches: usize,
}

/// What the quick aim found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Aimed {
    /// Ready for the input.
    Ready(QuickAim),
    /// Take the careful path (nothing is left listening).
    Careful,
}

#[derive(Debug, Deserialize)]
struct AimReply {
    status: String,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
    #[serde(default)]
    top: bool,
    #[serde(default)]
    scrolled: bool,
    #[serde(default)]
    before: Option<PageBefore>,
    /// Set by the lookup when the selector matched several elements.
    #[serde(default)]
    matches: Option<usize>,
}

/// The page after the action.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageAfter {
    /// What the listeners saw (`gone`: the document was replaced before it could be asked).
    pub seen: Seen,
    /// `location.href` and `document.title`, when the document could be asked.
    pub info: Option<(String, String)>,
    /// Focus moved to another element of the document.
    pub focus_changed: bool,
    /// The listeners' own report carried this (through the page binding), not an ask after it.
    pub reported: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AfterReply {
    status: String,
    #[serde(default)]
    seen: Vec<Value>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    focus_changed: bool,
    #[serde(default)]
    token: Option<String>,
    /// The element is a frame element (see [`Seen::frame_owner`]).
    #[serde(default)]
    owner: bool,
    /// What the browser counted (see [`Seen::dispatched`]).
    #[serde(default)]
    counted: Option<Counted>,
    /// A form submission the browser's validation stopped (see [`Seen::unsubmitted`]).
    #[serde(default)]
    unsubmitted: Option<Unsubmitted>,
}

impl AfterReply {
    /// The page after the action, from a reply that is `ok`; `None` otherwise.
    fn page_after(self) -> Option<PageAfter> {
        (self.status == "ok").then(|| PageAfter {
            seen: Seen::read(self.seen, self.owner, self.counted, self.unsubmitted),
            info: Some((self.url, self.title)),
            focus_changed: self.focus_changed,
            reported: false,
        })
    }
}

/// The page binding the listeners report through (a global function of every document of the
/// tab: named so no page has one of its own).
const BINDING: &str = "__actionbook_landed";

/// Where a quick aim's element is: matched by a CSS selector or an XPath in the top document, or
/// held.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reach<'a> {
    /// A selector, matched in the top document; `context` is that document's execution context
    /// when the frame graph knows it (the script then runs from a source that never changes,
    /// which V8 compiles once, instead of an expression built for each call).
    Top {
        /// The selector.
        lookup: Lookup<'a>,
        /// The top document's default-world context, if known.
        context: Option<cdp_protocol::ExecutionContextId>,
    },
    /// A handle (a resolved ref), in the page's own session.
    Handle(&'a ObjectHandle),
}

/// A selector the page's script looks up in the top document itself.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lookup<'a> {
    /// `document.querySelectorAll`.
    Css(&'a str),
    /// `document.evaluate`, in document order (a cached `perform` aims by the XPath it recorded).
    XPath(&'a str),
}

impl Lookup<'_> {
    /// The script's `css` argument: the CSS as a string, an XPath as `{xpath}`.
    fn arg(self) -> Value {
        match self {
            Lookup::Css(css) => json!(css),
            Lookup::XPath(xpath) => json!({ "xpath": xpath }),
        }
    }
}

/// The reports of the listeners of one quick aim, through the page binding.
#[derive(Debug)]
pub(crate) struct Reports {
    events: EventStream,
    token: String,
    bound: bool,
}

impl Reports {
    /// Listens for the report of the next quick aim (call it before the aim). `bound`: the page
    /// session has the binding already (an earlier aim's report came through it), so the aim does
    /// not add it again: one message less for the renderer to handle before the aim.
    pub fn listen(page: &Session, bound: bool) -> Reports {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        // Unique across daemons too: a report left over from another daemon's aim is not ours.
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        Reports {
            events: page.events(&[runtime::BindingCalled::METHOD]),
            token: format!("{started:x}-{}", NEXT.fetch_add(1, Ordering::Relaxed)),
            bound,
        }
    }

    /// What the aim hands the page: the binding, the token, the mouseups that end the input.
    fn arg(&self, ups: u32) -> Value {
        json!({ "name": BINDING, "token": self.token, "ups": ups })
    }

    /// The page after the input, when its report is in.
    fn decode(&self, ev: &cdp_protocol::RawEvent) -> Option<PageAfter> {
        let called = ev.decode::<runtime::BindingCalled>().ok()?;
        if called.name != BINDING {
            return None;
        }
        let reply: AfterReply = serde_json::from_str(&called.payload).ok()?;
        if reply.token.as_deref() != Some(self.token.as_str()) {
            return None;
        }
        reply.page_after().map(|after| PageAfter {
            reported: true,
            ..after
        })
    }

    /// The report, if it has come.
    pub fn ready(&mut self) -> Option<PageAfter> {
        while let Some(ev) = self.events.try_recv() {
            if let Some(after) = self.decode(&ev) {
                return Some(after);
            }
        }
        None
    }

    /// Waits for the report (`None`: the connection closed).
    pub async fn next(&mut self) -> Option<PageAfter> {
        loop {
            let ev = self.events.recv().await?;
            if let Some(after) = self.decode(&ev) {
                return Some(after);
            }
        }
    }
}

/// The page's script run on the element `css` matches first in the top document (a CSS string,
/// or `{xpath}`: see [`Lookup`]), or (`css` null) the one a quick aim left on its window. An
/// object answer says how many matched when several did (`matches`): counted by the same lookup,
/// so the click is not slowed by asking again.
fn lookup_and_run(css: &str, op: &str, arg: &str) -> String {
    format!(
        "const q = {css}; \
         const all = q === null ? null : typeof q === 'string' ? document.querySelectorAll(q) \
           : (r => Array.from({{ length: r.snapshotLength }}, (_, i) => r.snapshotItem(i)))( \
               document.evaluate(q.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null)); \
         const el = all === null ? {AIMED_JS} : all[0]; \
         if (!el || el.nodeType !== 1) return {{ status: 'absent' }};\n\
         const r = await ({SCRIPT}\n).call(el, {op}, {arg}); \
         if (all !== null && all.length > 1 && r && typeof r === 'object') r.matches = all.length; \
         return r;"
    )
}

/// [`lookup_and_run`] as one expression, its values inlined.
fn expression(css: &Value, op: &str, arg: &Value) -> String {
    format!(
        "(async () => {{ {} }})()",
        lookup_and_run(
            &css.to_string(),
            &Value::String(op.to_string()).to_string(),
            &arg.to_string()
        )
    )
}

/// The element a quick aim left on its window.
const AIMED_JS: &str = "window[Symbol.for('actionbook.aimed')]";

/// The page's script run in the top document's context on the element `css` matches, or (`css`
/// null) the one a quick aim left on its window: one source for every call.
fn top_function() -> &'static str {
    static FUNCTION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FUNCTION.get_or_init(|| {
        format!(
            "async function (css, op, arg) {{ {} }}",
            lookup_and_run("css", "op", "arg")
        )
    })
}

/// The element an operation of the script runs on.
#[derive(Debug, Clone, Copy)]
enum On<'a> {
    /// In the top document: the element `css` matches, or (`None`) the one the aim left on its
    /// window.
    Top {
        css: Option<Lookup<'a>>,
        context: Option<cdp_protocol::ExecutionContextId>,
    },
    /// A held element.
    Handle(&'a ObjectHandle),
}

impl<'a> Reach<'a> {
    /// The element to aim at.
    fn element(self) -> On<'a> {
        match self {
            Reach::Top { lookup, context } => On::Top {
                css: Some(lookup),
                context,
            },
            Reach::Handle(h) => On::Handle(h),
        }
    }

    /// The element aimed at, after the aim.
    fn aimed(self) -> On<'a> {
        match self {
            Reach::Top { context, .. } => On::Top { css: None, context },
            Reach::Handle(h) => On::Handle(h),
        }
    }
}

/// Runs one operation of the script in the top document: in its known context from the one
/// source, else (no context known, or it went away) as an expression.
async fn run_top(
    page: &Session,
    css: Option<Lookup<'_>>,
    context: Option<cdp_protocol::ExecutionContextId>,
    op: &str,
    arg: Value,
    timeout: std::time::Duration,
) -> std::result::Result<runtime::EvaluateResponse, cdp_protocol::CdpError> {
    if let Some(context) = context {
        let call = runtime::CallFunctionOn {
            execution_context_id: Some(context),
            ..eval::function_call(
                top_function(),
                vec![css.map_or(Value::Null, Lookup::arg), json!(op), arg.clone()],
                true,
            )
        };
        match page.send_timeout(&call, timeout).await {
            // The context was replaced since the frame graph saw it (a navigation): by expression.
            Err(cdp_protocol::CdpError::Protocol { .. }) => {}
            done => return done,
        }
    }
    page.send_timeout(
        &runtime::Evaluate {
            expression: expression(&css.map_or(Value::Null, Lookup::arg), op, &arg),
            await_promise: Some(true),
            return_by_value: Some(true),
            silent: Some(true),
            ..Default::default()
        },
        timeout,
    )
    .await
}

/// Runs one operation of the script on an element, its promise awaited; `None` for a throw or an
/// answer of another shape.
async fn run<T: serde::de::DeserializeOwned>(
    page: &Session,
    on: On<'_>,
    op: &str,
    arg: Value,
    timeout: std::time::Duration,
) -> std::result::Result<Option<T>, cdp_protocol::CdpError> {
    let r = match on {
        On::Top { css, context } => run_top(page, css, context, op, arg, timeout).await?,
        On::Handle(handle) => {
            handle
                .call_on(
                    SCRIPT,
                    vec![Value::String(op.to_string()), arg],
                    true,
                    timeout,
                )
                .await?
        }
    };
    if r.exception_details.is_some() {
        return Ok(None);
    }
    Ok(r.result.value.and_then(|v| serde_json::from_value(v).ok()))
}

/// Aims at the element `reach` names (see the module doc); the listeners report through
/// `reports` once `ups` mouseups have been handled. The binding they report through is added
/// beside the aim (in order on the page's session, so it is there before any input).
pub(crate) async fn aim(
    page: &Session,
    reach: Reach<'_>,
    checks: Checks,
    reports: &Reports,
    ups: u32,
    deadline: &Deadline,
) -> Result<Aimed> {
    let arg = json!({
        "checks": checks,
        "at": null,
        "scroll": "ifneeded",
        "events": POINTER_EVENTS,
        "expire": actionability::expire_ms(deadline),
        "quick": true,
        // A press that lands elsewhere is stopped before the page sees it (see quick_click).
        "guard": true,
        "report": reports.arg(ups),
        // Plain CSS: an element the page puts in the aimed one's place and that matches it is
        // taken for it (see `actionability.js`).
        "css": match reach {
            Reach::Top { lookup: Lookup::Css(css), .. } => Some(css),
            _ => None,
        },
    });
    let timeout = deadline.capped(deadline::QUICK_CALL);
    let binding = runtime::AddBinding {
        name: BINDING.to_string(),
    };
    let bind = async {
        if !reports.bound {
            let _ = page.send_timeout(&binding, timeout).await;
        }
    };
    // A binding that could not be added only means no report: after() asks instead.
    let ((), aimed) = tokio::join!(
        bind,
        run::<AimReply>(page, reach.element(), "aim", arg, timeout)
    );
    // A throw (a selector the page refuses) or any other answer: the careful path says why.
    let Some(r) = aimed? else {
        return Ok(Aimed::Careful);
    };
    match (r.status.as_str(), r.before) {
        ("ok", Some(before)) if r.top && !r.scrolled => Ok(Aimed::Ready(QuickAim {
            x: r.x,
            y: r.y,
            before,
            matches: r.matches.unwrap_or(1),
        })),
        ("ok", _) => {
            // Scrolled first, or not reaching the top: the careful path confirms the pointer
            // reaches it before pressing.
            cancel(page, reach).await;
            Ok(Aimed::Careful)
        }
        _ => Ok(Aimed::Careful),
    }
}

/// Stops the listeners of a quick aim that is not followed by input.
pub(crate) async fn cancel(page: &Session, reach: Reach<'_>) {
    let _ = run::<Value>(
        page,
        reach.aimed(),
        "finish",
        Value::Null,
        deadline::CLEANUP,
    )
    .await;
}

/// After the input `input` (sending it, its acknowledgements awaited): the listeners' report,
/// awaited beside the acknowledgements, or (none came by then) [`after`].
pub(crate) async fn landed(
    page: &Session,
    reach: Reach<'_>,
    reports: &mut Reports,
    input: impl std::future::Future<Output = Result<()>>,
    deadline: &Deadline,
) -> Result<PageAfter> {
    tokio::pin!(input);
    let mut report = None;
    let sent = loop {
        tokio::select! {
            sent = &mut input => break sent,
            Some(after) = reports.next(), if report.is_none() => report = Some(after),
        }
    };
    if let Err(e) = sent {
        cancel(page, reach).await;
        return Err(e);
    }
    if let Some(after) = report.or_else(|| reports.ready()) {
        return Ok(after);
    }
    // The report comes a task and a timer after the input was handled, which its
    // acknowledgements say: wait for it a while; none by then (the press went to another
    // document, the page replaced the binding), ask.
    let grace = deadline.capped(REPORT_GRACE);
    match tokio::time::timeout(grace, reports.next()).await {
        Ok(Some(after)) => Ok(after),
        _ => after(page, reach, deadline).await,
    }
}

/// How long the report of the listeners is waited for after the input was acknowledged.
const REPORT_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// After the input: stops the listeners of the quick aim (or takes the report they made) and
/// reads the page (see the module doc). A document that was replaced meanwhile answers
/// `seen.gone`.
async fn after(page: &Session, reach: Reach<'_>, deadline: &Deadline) -> Result<PageAfter> {
    let gone = PageAfter {
        seen: Seen {
            gone: true,
            ..Seen::default()
        },
        info: None,
        focus_changed: false,
        reported: false,
    };
    let timeout = deadline.capped(deadline::QUICK_CALL);
    match run::<AfterReply>(page, reach.aimed(), "after", Value::Null, timeout).await {
        Ok(Some(r)) => Ok(r.page_after().unwrap_or(gone)),
        Ok(None) => Ok(gone),
        // The context went away with the document (a navigation the input started).
        Err(cdp_protocol::CdpError::Protocol { .. }) => Ok(gone),
        Err(e) => Err(e.into()),
    }
}
