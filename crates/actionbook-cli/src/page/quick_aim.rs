//! The quick aim: an element of the top document found by a CSS selector, checked, aimed at and
//! listened on in one `Runtime.evaluate` that also reads the page before the action; after the
//! input, one more evaluate stops the listeners and reads the page after it. No object handle is
//! made (the page keeps the element on its window until [`after`]), so nothing is left to
//! release. Whatever the quick aim does not handle itself (no match in the top document, a check
//! that does not pass, an animation, a scroll, out-of-process frames) is answered
//! [`Aimed::Careful`]: the caller takes the careful path of `actionability`, which waits, names
//! the check and confirms the hover before pressing.

use cdp_protocol::{Session, runtime};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::actionability::{self, Checks, POINTER_EVENTS, SCRIPT, Seen};
use crate::page::eval;

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
        "String(performance.timeOrigin)",
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
}

/// The page's script run on the element it names first.
fn expression(element: &str, op: &str, arg: &Value) -> String {
    format!(
        "(async () => {{ const el = {element}; if (!el || el.nodeType !== 1) return {{ status: 'absent' }};\n\
         return await ({SCRIPT}\n).call(el, {op}, {arg}); }})()",
        op = Value::String(op.to_string()),
    )
}

/// The element a quick aim left on its window.
const AIMED_JS: &str = "window[Symbol.for('actionbook.aimed')]";

async fn evaluate<T: serde::de::DeserializeOwned>(
    page: &Session,
    expression: String,
    deadline: &Deadline,
) -> std::result::Result<Option<T>, cdp_protocol::CdpError> {
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression,
                await_promise: Some(true),
                return_by_value: Some(true),
                silent: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    if r.exception_details.is_some() {
        return Ok(None);
    }
    Ok(r.result.value.and_then(|v| serde_json::from_value(v).ok()))
}

/// Aims at the first match of the CSS selector `css` in the top document (see the module doc).
pub(crate) async fn aim(
    page: &Session,
    css: &str,
    checks: Checks,
    deadline: &Deadline,
) -> Result<Aimed> {
    let find = format!(
        "document.querySelector({})",
        serde_json::to_string(css).map_err(|e| CliError::internal(e.to_string()))?
    );
    let arg = json!({
        "checks": checks,
        "at": null,
        "scroll": "ifneeded",
        "events": POINTER_EVENTS,
        "expire": actionability::expire_ms(deadline),
        "quick": true,
    });
    // A throw (a selector the page refuses) or any other answer: the careful path says why.
    let Some(r) = evaluate::<AimReply>(page, expression(&find, "aim", &arg), deadline).await?
    else {
        return Ok(Aimed::Careful);
    };
    match (r.status.as_str(), r.before) {
        ("ok", Some(before)) if r.top && !r.scrolled => Ok(Aimed::Ready(QuickAim {
            x: r.x,
            y: r.y,
            before,
        })),
        ("ok", _) => {
            // Scrolled first: the careful path confirms the pointer reaches it before pressing.
            cancel(page).await;
            Ok(Aimed::Careful)
        }
        _ => Ok(Aimed::Careful),
    }
}

/// Stops the listeners of a quick aim that is not followed by input.
pub(crate) async fn cancel(page: &Session) {
    let _ = evaluate::<Value>(
        page,
        expression(AIMED_JS, "finish", &Value::Null),
        &Deadline::after_ms(deadline::CLEANUP.as_millis() as u64),
    )
    .await;
}

/// After the input: stops the listeners of the quick aim and reads the page (see the module doc).
/// A document that was replaced meanwhile answers `seen.gone`.
pub(crate) async fn after(page: &Session, deadline: &Deadline) -> Result<PageAfter> {
    let gone = PageAfter {
        seen: Seen {
            events: Vec::new(),
            gone: true,
        },
        info: None,
        focus_changed: false,
    };
    let r =
        match evaluate::<AfterReply>(page, expression(AIMED_JS, "after", &Value::Null), deadline)
            .await
        {
            Ok(Some(r)) => r,
            Ok(None) => return Ok(gone),
            // The context went away with the document (a navigation the input started).
            Err(cdp_protocol::CdpError::Protocol { .. }) => return Ok(gone),
            Err(e) => return Err(e.into()),
        };
    if r.status != "ok" {
        return Ok(gone);
    }
    Ok(PageAfter {
        seen: Seen::from_values(r.seen),
        info: Some((r.url, r.title)),
        focus_changed: r.focus_changed,
    })
}
