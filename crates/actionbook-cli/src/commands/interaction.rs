//! Interaction (spec 11): `browser click`, `fill`, `eval`; across every frame, with refs
//! persisted per tab.

use std::time::Duration;

use cdp_protocol::{Event as _, Session, page};
use envelope::{
    ActionData, ActionKind, Changed, EvalData, InputData, InputKind, Target, ValueSummary,
};
use serde::{Deserialize, Serialize};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::eval::{self, ObjectHandle};
use crate::page::input::{keyboard, mouse};
use crate::page::navigation::LoadWaiter;
use crate::page::{edit, locate};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// `browser click <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Click {
    /// `@eN`, a CSS selector, an XPath (starting with `/`), or `x,y` viewport coordinates.
    pub selector: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser fill <selector> <text>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Fill {
    /// `@eN`, a CSS selector or an XPath (starting with `/`).
    pub selector: String,
    /// The text that replaces the field's value (may start with `-`: `fill '#n' -5`).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub text: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser eval <code>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Eval {
    /// A JavaScript expression; a promise is awaited (may start with `-`: `eval -1`).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub code: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// The deepest focused element of the top-level document: through open shadow roots and same-origin
/// iframes (an out-of-process iframe shows as its `<iframe>` element).
const DEEP_ACTIVE_JS: &str = "(() => { let a = document.activeElement; \
  for (let i = 0; i < 64 && a; i++) { \
    if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; } \
    let d = null; try { d = a.contentDocument; } catch (e) {} \
    if (d && d.activeElement) { a = d.activeElement; continue; } \
    break; } \
  return a; })()";

/// What a click aims at: an element, or a point of the viewport.
enum ClickAt {
    Element,
    Point(f64, f64),
}

/// Parses `x,y` viewport coordinates (CSS pixels; spaces and decimals allowed). `None` when the text
/// does not look like coordinates at all (then it is a selector: no CSS selector or XPath starts
/// with a digit or sign and holds only digits and one comma).
pub(crate) fn parse_coordinates(text: &str) -> Option<Result<(f64, f64)>> {
    let (x, y) = text.split_once(',')?;
    let (x, y) = (x.trim(), y.trim());
    let numeric = |s: &str| {
        !s.is_empty()
            && s.chars().any(|c| c.is_ascii_digit())
            && s.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
    };
    if !numeric(x) || !numeric(y) {
        return None;
    }
    let bad = || {
        CliError::InvalidArgument(format!(
            "invalid coordinates {text:?}: expected x,y in viewport CSS pixels, e.g. 120,45.5"
        ))
    };
    let (Ok(px), Ok(py)) = (x.parse::<f64>(), y.parse::<f64>()) else {
        return Some(Err(bad()));
    };
    if !px.is_finite() || !py.is_finite() {
        return Some(Err(bad()));
    }
    if px < 0.0 || py < 0.0 {
        return Some(Err(CliError::InvalidArgument(format!(
            "coordinates {text:?} are outside the viewport: x and y must not be negative"
        ))));
    }
    Some(Ok((px, py)))
}

/// The main frame's current document (its loader id): it changes exactly when a new document loads.
async fn main_document(page: &Session, deadline: &Deadline) -> Option<String> {
    page.send_timeout(&page::GetFrameTree, deadline.capped(deadline::PROBE))
        .await
        .ok()
        .map(|r| r.frame_tree.frame.loader_id.into_inner())
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

/// The viewport's size in CSS pixels.
async fn viewport(page: &Session, deadline: &Deadline) -> Result<(f64, f64)> {
    eval::read(
        page,
        "[window.innerWidth, window.innerHeight]",
        deadline.capped(deadline::QUICK_CALL),
        "the viewport size",
    )
    .await
}

/// The navigation events a click may start.
const NAV_START: &[&str] = &[
    page::FrameRequestedNavigation::METHOD,
    page::FrameStartedLoading::METHOD,
    page::FrameNavigated::METHOD,
    page::NavigatedWithinDocument::METHOD,
];

/// The frame a navigation event is about.
fn event_frame(ev: &cdp_protocol::RawEvent) -> Option<String> {
    match ev.method.as_str() {
        page::FrameRequestedNavigation::METHOD => ev
            .decode::<page::FrameRequestedNavigation>()
            .ok()
            .map(|e| e.frame_id.into_inner()),
        page::FrameStartedLoading::METHOD => ev
            .decode::<page::FrameStartedLoading>()
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

impl TabCommand for Click {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let at = match parse_coordinates(&self.selector) {
            Some(p) => {
                let (x, y) = p?;
                ClickAt::Point(x, y)
            }
            None => ClickAt::Element,
        };
        let (before, _) = cx.page_info().await?;
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let main = cx.main_frame();
        let (x, y, target) = match at {
            ClickAt::Point(x, y) => {
                let (w, h) = viewport(&page, &deadline).await?;
                if x >= w || y >= h {
                    return Err(CliError::InvalidArgument(format!(
                        "coordinates {} are outside the viewport ({w}x{h} CSS pixels)",
                        self.selector.trim()
                    )));
                }
                (x, y, Target::coordinates(self.selector.trim()))
            }
            ClickAt::Element => {
                let frames = &mut cx.state.frames;
                let node = locate::locate(frames, &page, &self.selector, &deadline).await?;
                let (x, y) =
                    locate::center_in_page(frames, &page, &node, &self.selector, &deadline).await?;
                (x, y, Target::selector(self.selector))
            }
        };
        // Independent reads go out together: each is a round trip to the renderer.
        let (document, focus, idle_before) = tokio::join!(
            main_document(&page, &deadline),
            eval::probe_handle(&page, DEEP_ACTIVE_JS),
            focus_idle(&page)
        );
        let mut events = page.events(NAV_START);
        mouse::click(&page, x, y, &deadline).await?;
        // A click that navigates: wait for the new page (bounded by --timeout). The renderer
        // reports a navigation the click starts itself (link, form, a handler setting location)
        // on the page's DevTools pipe before it answers anything sent there after the click, so
        // one round trip is a barrier for those. A short window after it catches most that a
        // handler starts from a timer of its own; later ones are seen by the next command. The
        // reads of the page after the click run meanwhile and are kept when nothing navigated.
        let _ = eval::read::<serde_json::Value>(
            &page,
            "0",
            deadline.capped(deadline::PROBE),
            "a barrier",
        )
        .await;
        let quiet = tokio::time::Instant::now() + Duration::from_millis(5);
        let watch = async {
            while let Ok(Some(ev)) = tokio::time::timeout_at(quiet, events.recv()).await {
                if event_frame(&ev).as_deref() == Some(main.as_str()) {
                    return true;
                }
            }
            false
        };
        let reads = async {
            tokio::join!(
                main_document(&page, &deadline),
                focus_moved(&page, focus.as_ref()),
                eval::page_info(&page, &deadline)
            )
        };
        let (navigating, (mut document_now, moved, mut info)) = tokio::join!(watch, reads);
        drop(focus);
        if navigating {
            let mut waiter = LoadWaiter::subscribe(&page);
            let _ = tokio::time::timeout(deadline.remaining(), async {
                // Let the commit happen, then wait for the load.
                tokio::time::sleep(Duration::from_millis(20)).await;
                waiter.loaded(&deadline, "browser click").await
            })
            .await;
            // What was read meanwhile may be of the old page.
            // (Focus as read right after the click stands; a new document counts as moved.)
            (document_now, info) = tokio::join!(
                main_document(&page, &deadline),
                eval::page_info(&page, &deadline)
            );
        }
        // A new main-frame document invalidates every ref of the old one: drop them (numbering goes
        // on, so an old ref is reported stale rather than naming a node of the new page).
        let new_document = match (&document, document_now) {
            (Some(a), Some(b)) => *a != b,
            _ => false,
        };
        if new_document {
            cx.state.frames.drop_refs_keep_numbering();
            cx.save_refs()?;
        }
        // Across documents: focus changed unless nothing was focused on either page (as the
        // reference CLI reports a plain link click).
        let focus_changed = match new_document {
            true => !(idle_before && focus_idle(&page).await),
            false => moved,
        };
        let (after, title) = info?;
        cx.url = Some(after.clone());
        cx.title = Some(title);
        Ok(Done::data(ActionData {
            action: ActionKind::Click,
            target: Some(target),
            destination: None,
            keys: None,
            direction: None,
            pixels: None,
            changed: Changed {
                url_changed: after != before,
                focus_changed,
                scroll_changed: None,
            },
        }))
    }
}

fn with_article(what: &str) -> String {
    let vowel = what
        .trim_start_matches('<')
        .starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if vowel { "an" } else { "a" })
}

impl TabCommand for Fill {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Replaces the text of an input, textarea or contenteditable element: checks it takes text,
    /// focuses and selects it, checks focus really is on it, then types `text` (trusted input
    /// events, as typing would give).
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let selector = self.selector.as_str();
        let node = locate::locate(&mut cx.state.frames, &page, selector, &deadline).await?;
        let kind = edit::field_kind(&node, selector, &deadline).await?;
        let what = if kind.what.is_empty() {
            "element"
        } else {
            kind.what.as_str()
        };
        match kind.kind.as_str() {
            "text" | "editable" => {
                if !edit::focus_and_select(&node, selector, &deadline).await? {
                    return Err(CliError::InvalidArgument(format!(
                        "element {selector} ({what}) did not take keyboard focus (hidden, inert, or \
                         focus was moved by the page); nothing was typed"
                    )));
                }
                if self.text.is_empty() {
                    edit::clear(&node, selector, &deadline).await?;
                } else {
                    keyboard::insert_text(&page, &self.text, &deadline).await?;
                }
            }
            "value" => {
                let kept = edit::set_value(&node, selector, &self.text, &deadline).await?;
                // The element normalises what it keeps (seconds dropped, ...); an empty value
                // means it rejected the text.
                if !self.text.is_empty() && kept.as_deref().is_none_or(str::is_empty) {
                    return Err(CliError::InvalidArgument(format!(
                        "element {selector} is {}: {:?} is not a valid value for it",
                        with_article(what),
                        self.text
                    )));
                }
            }
            _ => {
                let hint = kind.hint.as_deref().unwrap_or("fill sets text");
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is {}: {hint}",
                    with_article(what)
                )));
            }
        }
        Ok(Done::data(InputData {
            action: InputKind::Fill,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Text {
                text_length: self.text.chars().count() as u64,
            },
        }))
    }
}

impl TabCommand for Eval {
    type Data = EvalData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<EvalData>> {
        let v = eval::evaluate(&cx.page, &self.code, &cx.deadline, "browser eval").await?;
        Ok(Done::data(EvalData {
            value: v.value,
            value_type: v.kind,
            preview: v.preview,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_coordinates;
    use proptest::prelude::*;

    #[test]
    fn coordinates_forms() {
        assert_eq!(
            parse_coordinates("10,10").map(|r| r.ok()),
            Some(Some((10.0, 10.0)))
        );
        assert_eq!(
            parse_coordinates(" 1.5 , 20 ").map(|r| r.ok()),
            Some(Some((1.5, 20.0)))
        );
        assert!(matches!(parse_coordinates("-1,5"), Some(Err(_))));
        assert!(matches!(parse_coordinates("1..2,5"), Some(Err(_))));
        // Selectors, not coordinates.
        for sel in [
            "#a,#b", "button", "a, b", "@e5", "//a[1]", "1,b", ",", "x,y",
        ] {
            assert!(parse_coordinates(sel).is_none(), "{sel}");
        }
    }

    proptest! {
        #[test]
        fn any_non_negative_pair_round_trips(x in 0.0f64..10000.0, y in 0.0f64..10000.0) {
            let text = format!("{x},{y}");
            prop_assert_eq!(parse_coordinates(&text).map(|r| r.ok()), Some(Some((x, y))));
        }

        #[test]
        fn never_panics(s in ".{0,20}") {
            let _ = parse_coordinates(&s);
        }
    }
}
