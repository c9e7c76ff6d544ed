//! Pointer actions made of the actionability primitives: wait (within `--timeout`) until the
//! element is there and actionable and the pointer hovers it ([`approach`]), act, then confirm
//! from what the page saw that the input arrived ([`pressed_on_target`]). Waiting and looking again
//! happen only before the press: once a press was sent it is never sent again (what took it, a
//! covering element or the element itself after all, has acted on it), and a press that did not
//! arrive fails at once, naming what got it. Never `ok` for input no element got.

use std::time::Duration;

use super::aftermath::Before;
use frame_graph::FrameGraph;

use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::page::actionability::{self, Aim, AimOptions, AtPoint, Checks, NotReady, Scroll, Seen};
use crate::page::input::mouse::{self, Button};
use crate::page::locate::{self, Located};
use crate::tab::TabCx;

/// Where a pointer action goes: an element, or a point of the viewport.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Spot {
    /// `@eN`, CSS or XPath.
    Element(String),
    /// Viewport coordinates (CSS pixels), and the text they were given as.
    Point(f64, f64, String),
}

impl Spot {
    /// Reads `x,y` coordinates or a selector.
    pub fn parse(text: &str) -> Result<Spot> {
        match super::parse_coordinates(text) {
            Some(p) => {
                let (x, y) = p?;
                Ok(Spot::Point(x, y, text.trim().to_string()))
            }
            None => Ok(Spot::Element(text.to_string())),
        }
    }

    /// The selector or the coordinates as given.
    pub fn text(&self) -> &str {
        match self {
            Spot::Element(s) | Spot::Point(_, _, s) => s,
        }
    }

    /// The `data.target` of the action.
    pub fn target(&self) -> envelope::Target {
        match self {
            Spot::Element(s) => envelope::Target::selector(s.clone()),
            Spot::Point(_, _, s) => envelope::Target::coordinates(s.clone()),
        }
    }
}

/// An element the pointer is on, ready for the action.
#[derive(Debug)]
pub(crate) struct Ready {
    /// The element.
    pub node: Located,
    /// The point and the listeners.
    pub aim: Aim,
}

impl Ready {
    /// Stops the listeners and answers what they saw.
    pub async fn finish(&self, deadline: &Deadline, selector: &str) -> Seen {
        self.aim.finish(&self.node, deadline, selector).await
    }
}

/// Back-off between checks that did not pass (as a user would look again).
#[derive(Debug, Default)]
struct Poll {
    n: usize,
}

impl Poll {
    const STEPS_MS: [u64; 6] = [0, 20, 50, 100, 100, 250];
    const LAST_MS: u64 = 500;

    fn next(&mut self) -> Duration {
        let ms = Self::STEPS_MS.get(self.n).copied().unwrap_or(Self::LAST_MS);
        self.n += 1;
        Duration::from_millis(ms)
    }
}

/// The TIMEOUT of a check that never passed.
fn not_actionable(action: &str, selector: &str, why: &NotReady, deadline: &Deadline) -> CliError {
    CliError::NotActionable {
        action: action.to_string(),
        selector: selector.to_string(),
        reason: why.reason(),
        by: why.by().map(str::to_string),
        detail: why.describe(),
        ms: deadline.timeout_ms(),
    }
}

/// Records where the pointer is (the tab's cursor position survives a daemon restart): in memory
/// at once, on disk off the command's path.
pub(crate) fn record_cursor(cx: &mut TabCx<'_>, x: f64, y: f64) {
    cx.state.cursor = Some((x, y));
    cx.update_tab_soon(|t| t.cursor.replace([x, y]) != Some([x, y]));
}

/// Records that the pointer moves onto a node of `frame` (`owner`: the node, which may be an
/// out-of-process iframe's element) and answers the out-of-process frames it leaves by that, for
/// [`mouse::leave_frames`].
pub(crate) fn pointer_enters(
    cx: &mut TabCx<'_>,
    graph: &FrameGraph,
    frame: &str,
    owner: Option<i64>,
) -> Vec<String> {
    let now = mouse::frames_holding(graph, frame, owner);
    let was = std::mem::replace(&mut cx.state.pointer_frames, now);
    let held = &cx.state.pointer_frames;
    was.into_iter().filter(|f| !held.contains(f)).collect()
}

/// Waits until the spot passes `checks` and the pointer (moved there, `held` pressed) is on it;
/// with `confirm`, the move must be seen arriving at the element (else it is tried again after a
/// frame). An element that never appears is ELEMENT_NOT_FOUND after the wait, a check that never
/// passes a TIMEOUT naming it; one no wait can change fails at once ([`NotReady::lasting`]).
pub(crate) async fn approach(
    cx: &mut TabCx<'_>,
    spot: &Spot,
    action: &str,
    checks: Checks,
    confirm: bool,
    held: Option<Button>,
) -> Result<Ready> {
    let deadline = cx.deadline.clone();
    let selector = spot.text().to_string();
    let mut poll = Poll::default();
    let mut last: Option<NotReady> = None;
    let mut found = false;
    let forced = checks == Checks::NONE && matches!(spot, Spot::Element(_));
    loop {
        let outside_before = last == Some(NotReady::Outside);
        match attempt(cx, spot, checks, confirm, held).await {
            Ok(Ok(ready)) => return Ok(ready),
            // Forced, nothing is waited for: an element that renders no box has no point to act
            // at, and waiting for it to show is the check the user asked to skip.
            Ok(Err(Some(NotReady::NotVisible))) if forced => {
                return Err(CliError::NoBox {
                    action: action.to_string(),
                    selector,
                });
            }
            // Nor is there a point of an element that stays outside the viewport though it was
            // scrolled into view (fixed off-screen, moved out of a clipping container). Said after
            // a second look (which scrolls again and lets two more frames be shown): a scroll
            // carried across processes (to an out-of-process frame's parent) may show late on a
            // loaded machine.
            Ok(Err(Some(NotReady::Outside))) if forced && outside_before => {
                return Err(CliError::OffScreen {
                    action: action.to_string(),
                    selector,
                });
            }
            Ok(Err(Some(why))) => {
                // Waiting cannot help: canvas fallback content never gets a box, nor does an
                // option of a closed select; an inert element stays so until the page changes it
                // (a modal dialog does not close by itself).
                if let Some(e) = why.lasting(action, &selector) {
                    return Err(e);
                }
                found = true;
                let detached = why == NotReady::Detached;
                last = Some(why);
                if detached && !deadline.is_over() {
                    continue;
                }
            }
            // Nothing there yet: a CSS selector or XPath may match later (the page is still
            // building); a ref names one node of a snapshot, which does not come back.
            Ok(Err(None)) => {
                if selector.starts_with('@') || !wait(&mut poll, &deadline).await {
                    return Err(CliError::ElementNotFound { selector });
                }
                continue;
            }
            // A step cut short by the deadline: the check that kept it waiting is the answer.
            Err(e) if deadline.is_over() || is_timeout(&e) => {
                return Err(match &last {
                    Some(why) if deadline.remaining() < WAIT_MARGIN * 2 => {
                        not_actionable(action, &selector, why, &deadline)
                    }
                    // Never found while waiting: it is missing, whatever step ran out of time.
                    None if !found => CliError::ElementNotFound { selector },
                    _ => e,
                });
            }
            Err(e) => return Err(e),
        }
        if !wait(&mut poll, &deadline).await {
            let why = last.unwrap_or(NotReady::Missed { by: None });
            return Err(not_actionable(action, &selector, &why, &deadline));
        }
    }
}

/// The selector of an element spot when it is plain CSS (see [`AimOptions::css`]).
fn plain_css(spot: &Spot) -> Option<String> {
    match spot {
        Spot::Element(sel) => match locate::target(sel) {
            Ok(a11y_snapshot::Target::Css(css)) => Some(css),
            _ => None,
        },
        Spot::Point(..) => None,
    }
}

/// Whether an error is a step that ran out of time.
fn is_timeout(e: &CliError) -> bool {
    match e {
        CliError::Timeout { .. } => true,
        CliError::Cdp(c) => c.kind() == cdp_protocol::ErrorKind::Timeout,
        _ => false,
    }
}

/// One look at the spot: `Ok(Err(None))` when nothing is there, `Ok(Err(Some(why)))` when a
/// check did not pass.
async fn attempt(
    cx: &mut TabCx<'_>,
    spot: &Spot,
    checks: Checks,
    confirm: bool,
    held: Option<Button>,
) -> Result<std::result::Result<Ready, Option<NotReady>>> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let selector = spot.text();
    let graph = cx.state.frames.graph(&page, &deadline).await?;
    let found = match spot {
        Spot::Element(sel) => locate::locate(&mut cx.state.frames, &page, sel, &deadline)
            .await
            .map(|n| (n, None)),
        Spot::Point(x, y, _) => locate::at_point(&mut cx.state.frames, &page, *x, *y, &deadline)
            .await
            .map(|(n, at)| (n, Some(at))),
    };
    let (node, at) = match found {
        Ok(found) => found,
        Err(CliError::ElementNotFound { .. }) => return Ok(Err(None)),
        Err(e) => return Err(e),
    };
    let opts = AimOptions {
        checks,
        at,
        scroll: if at.is_some() {
            Scroll::Never
        } else {
            Scroll::IfNeeded
        },
        css: plain_css(spot),
        ..AimOptions::pointer(checks)
    };
    let mut aim = match actionability::aim(&graph, &node, &opts, &deadline, selector).await? {
        Ok(aim) => aim,
        Err(why) => return Ok(Err(Some(why))),
    };
    let left = pointer_enters(
        cx,
        &graph,
        &node.frame_id,
        Some(node.encoded.backend_node_id),
    );
    let (_, moved) = tokio::join!(
        mouse::leave_frames(&graph, &left, &deadline),
        mouse::move_to(&page, aim.x, aim.y, held, &deadline)
    );
    moved?;
    crate::fault::hold(cx.env.abort_at.as_deref(), "pointer.moved", &cx.session.dir).await;
    record_cursor(cx, aim.x, aim.y);
    if !confirm {
        return Ok(Ok(Ready { node, aim }));
    }
    let why = match aim.check(&graph, &node, &deadline, selector).await? {
        Ok(hover) if hover.hovered => return Ok(Ok(Ready { node, aim })),
        Ok(hover) => NotReady::Missed { by: hover.by },
        Err(why) => why,
    };
    aim.finish(&node, &deadline, selector).await;
    Ok(Err(Some(why)))
}

/// What is kept of the deadline for one last look (and the answer) when waiting.
const WAIT_MARGIN: Duration = Duration::from_millis(100);

/// Locates `selector`, waiting (within the deadline) while a CSS selector or XPath matches nothing
/// yet: ELEMENT_NOT_FOUND only after the wait. A ref is not waited for (it names one node of a
/// snapshot, which does not come back).
pub(crate) async fn locate_waiting(cx: &mut TabCx<'_>, selector: &str) -> Result<Located> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let mut poll = Poll::default();
    loop {
        match locate::locate(&mut cx.state.frames, &page, selector, &deadline).await {
            Err(CliError::ElementNotFound { .. })
                if !selector.starts_with('@') && wait(&mut poll, &deadline).await => {}
            found => return found,
        }
    }
}

/// Sleeps the next back-off step (cut short to leave time for one last look before the
/// deadline); false when the deadline is (nearly) there.
async fn wait(poll: &mut Poll, deadline: &Deadline) -> bool {
    let left = deadline.remaining();
    if left <= WAIT_MARGIN {
        return false;
    }
    tokio::time::sleep(poll.next().min(left - WAIT_MARGIN)).await;
    true
}

/// Whether a press reached the element, from what its document saw: the first `pointerdown` or
/// `mousedown` must be on it (a document that went away was navigated by the input, which the
/// confirmed hover had already shown to be on the element; a frame element's is inside it).
/// A press the browser dispatched in the document that the listeners did not see (the page
/// stopped it first) was the element's if the element is still what is at the point.
pub(crate) fn pressed_on_target(seen: &Seen) -> std::result::Result<(), NotReady> {
    if seen.gone {
        return Ok(());
    }
    match seen.first(&["pointerdown", "mousedown"]) {
        Some(e) if e.on_target => Ok(()),
        Some(e) => Err(NotReady::Covered {
            by: e.by.clone().unwrap_or_else(|| "another element".into()),
        }),
        // A frame element's press is in the document inside it, at the point its hover checked.
        None if seen.frame_owner => Ok(()),
        None if seen.press_dispatched() => match &seen.at_point {
            Some(AtPoint::Target) => Ok(()),
            Some(AtPoint::Other(by)) => Err(NotReady::Covered { by: by.clone() }),
            None => Err(NotReady::Missed { by: None }),
        },
        None => Err(NotReady::Missed { by: None }),
    }
}

/// The error of a press (or release) that was sent and did not arrive at the element: what got
/// it instead is named (it may have acted on it, so the command is not retried).
pub(crate) fn not_delivered(action: &str, selector: &str, why: &NotReady) -> CliError {
    let detail = match why {
        NotReady::Covered { by } | NotReady::Missed { by: Some(by) } => {
            format!("went to {by} instead")
        }
        other => other.describe(),
    };
    CliError::NotDelivered {
        action: action.to_string(),
        selector: selector.to_string(),
        reason: why.reason(),
        by: why.by().map(str::to_string),
        detail,
    }
}

/// Clicks the spot `count` times with `button`: approach (waiting while a check does not pass),
/// press and release, confirm; answers what the element's document saw. Pressed once only: a
/// press that did not arrive at the element is an error naming what got it, at once (a second
/// press would act twice, on whatever took the first or on the element).
pub(crate) async fn click(
    cx: &mut TabCx<'_>,
    spot: &Spot,
    button: Button,
    count: u32,
    force: bool,
    before: &mut Before,
) -> Result<Seen> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let selector = spot.text().to_string();
    let checks = match spot {
        _ if force => Checks::NONE,
        // A point is clicked whatever is there (a disabled control included).
        Spot::Point(..) => Checks::HOVER,
        Spot::Element(_) => Checks::ALL,
    };
    let ready = approach(cx, spot, "browser click", checks, !force, None).await?;
    before.arm(&page);
    let sent = mouse::clicks(&page, ready.aim.x, ready.aim.y, button, count, &deadline).await;
    let seen = ready.finish(&deadline, &selector).await;
    sent?;
    pressed_on_target(&seen).map_err(|why| not_delivered("browser click", &selector, &why))?;
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A probe's view: `events` seen, `downs` presses counted, `at` what is at the point.
    fn seen(events: Vec<serde_json::Value>, downs: u64, at: Option<AtPoint>) -> Seen {
        Seen {
            dispatched: Some(vec![
                ("pointerdown".into(), downs),
                ("mousedown".into(), downs),
            ]),
            at_point: at,
            ..Seen::from_values(events)
        }
    }

    #[test]
    fn presses_the_page_stopped_first_count_when_the_element_is_at_the_point() {
        // Seen on the element, or on another one: as before, whatever was counted.
        assert_eq!(
            pressed_on_target(&seen(vec![json!(["pointerdown", 1])], 1, None)),
            Ok(())
        );
        let other = seen(
            vec![json!(["pointerdown", 0, "div#cover"])],
            1,
            Some(AtPoint::Target),
        );
        assert_eq!(
            pressed_on_target(&other),
            Err(NotReady::Covered {
                by: "div#cover".into()
            })
        );
        // Not seen and not counted: missed.
        assert_eq!(
            pressed_on_target(&seen(vec![], 0, None)),
            Err(NotReady::Missed { by: None })
        );
        // Counted, not seen: the element's if it is what is at the point, else what is there took it.
        assert_eq!(
            pressed_on_target(&seen(vec![], 1, Some(AtPoint::Target))),
            Ok(())
        );
        assert_eq!(
            pressed_on_target(&seen(vec![], 1, Some(AtPoint::Other("div#lid".into())))),
            Err(NotReady::Covered {
                by: "div#lid".into()
            })
        );
        assert_eq!(
            pressed_on_target(&seen(vec![], 1, None)),
            Err(NotReady::Missed { by: None })
        );
    }
}
