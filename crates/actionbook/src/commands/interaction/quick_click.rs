//! The quick click: the common cases of `click <css>` and `click <xpath>` (an element of the top document) and
//! `click @eN` (a ref in the top document or a same-process frame), in a page without
//! out-of-process frames, in two round trips (three for a ref, resolved first): the quick aim
//! (checks, point, listeners, the page before; `Page.bringToFront` after it only when the page
//! is hidden); the move and the presses sent together, the listeners' report of what they saw
//! and of the page after awaited beside their acknowledgements (see `quick_aim`). Anything else,
//! and anything the quick aim does not pass, goes the careful way of [`pointer::click`], which
//! waits, names the check that failed and confirms the hover before pressing.
//!
//! A press is never sent twice, yet the pointer's arrival can change the page (an overlay shown
//! on hover, a menu the pointer leaves closing and moving the element). So the aim's listeners
//! guard the press (as Playwright's hit target interceptor): a press event that reaches another
//! element is stopped on the window before the page's own listeners and its default action.
//! A press stopped so did nothing, and the careful path presses once the element is reachable;
//! one that reached another element unstopped (a page listener on the window before ours, another
//! document) fails naming what got it. The move needs no confirmation of its frame routing here:
//! the careful path confirms it because the browser routes input between frames by the hit-test
//! data of the last frame the compositor showed, which lags a scroll (the landing bug of issue
//! 12); a page without out-of-process frames is hit tested by its own renderer on its current
//! layout, and an element that had to be scrolled into view is left to the careful path.

use a11y_snapshot::Target;

use super::aftermath::{After, Before};
use super::pointer::{not_delivered, pressed_on_target, record_cursor};
use crate::error::Result;
use crate::page::actionability::{Checks, Seen};
use crate::page::input::mouse::{self, Button};
use crate::page::locate;
use crate::page::quick_aim::{self, Aimed, Lookup, Reach, Reports};
use crate::tab::TabCx;

/// How a quick click went.
#[derive(Debug)]
pub(crate) enum QuickClick {
    /// Clicked, the press seen arriving at the element.
    Done {
        /// What the click changed.
        after: After,
        /// What the element's document saw.
        seen: Seen,
    },
    /// Not for the quick path (nothing was sent): the careful path clicks.
    Careful,
}

/// Clicks `selector` the quick way when it can (see the module doc); a press that went elsewhere
/// is `NotDelivered`.
pub(crate) async fn click(
    cx: &mut TabCx<'_>,
    selector: &str,
    button: Button,
    count: u32,
) -> Result<QuickClick> {
    let target = match locate::target(selector) {
        Ok(t @ (Target::Css(_) | Target::XPath(_) | Target::Ref(_))) => t,
        _ => return Ok(QuickClick::Careful),
    };
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let graph = cx.state.frames.graph(&page, &deadline).await?;
    if graph.frames().iter().any(|f| f.is_out_of_process) {
        return Ok(QuickClick::Careful);
    }
    let held = match &target {
        // A ref that does not resolve (stale, unknown) is the careful path's to report.
        Target::Ref(_) => {
            match locate::locate(&mut cx.state.frames, &page, selector, &deadline).await {
                Ok(node) if node.session().id() == page.id() => Some(node),
                _ => return Ok(QuickClick::Careful),
            }
        }
        _ => None,
    };
    let reach = match (&target, &held) {
        (_, Some(node)) => Reach::Handle(&node.handle),
        (Target::Css(css), None) => Reach::Top {
            lookup: Lookup::Css(css),
            // Known already or not used: the aim never waits for a context.
            context: graph.current_context(&graph.main_frame().frame_id),
        },
        (Target::XPath(xpath), None) => Reach::Top {
            lookup: Lookup::XPath(xpath),
            // Known already or not used: the aim never waits for a context.
            context: graph.current_context(&graph.main_frame().frame_id),
        },
        _ => return Ok(QuickClick::Careful),
    };
    let main = cx.main_frame();
    // Added by the first aim of this page session whose report came through it (a page that
    // replaced the function has it added again after the one report that did not come).
    let bound = page.id().is_some() && cx.state.landing_binding.as_ref() == page.id();
    let mut reports = Reports::listen(&page, bound);
    let Aimed::Ready(aim) =
        quick_aim::aim(&page, reach, Checks::ALL, &reports, count.max(1), &deadline).await?
    else {
        return Ok(QuickClick::Careful);
    };
    cx.state.frames.note_matches(selector, aim.matches);
    // Input to a hidden page is never acknowledged: a tab in the background is shown first.
    if !aim.before.visible
        && let Err(e) = mouse::bring_to_front(&page, &deadline).await
    {
        quick_aim::cancel(&page, reach).await;
        return Err(e);
    }
    record_cursor(cx, aim.x, aim.y);
    // No out-of-process frame (see above): none the pointer was in is left to tell.
    cx.state.pointer_frames.clear();
    // The move and the presses together; the aim's guard stops a press the move's effects sent
    // elsewhere (see the module doc).
    let mut before = Before::quick(&aim.before, main);
    before.arm(&page);
    let input = mouse::move_and_click(&page, aim.x, aim.y, button, count, &deadline);
    let read = quick_aim::landed(&page, reach, &mut reports, input, &deadline).await?;
    cx.state.landing_binding = read.reported.then(|| page.id().cloned()).flatten();
    drop(held);
    if let Err(why) = pressed_on_target(&read.seen) {
        // Stopped before the page saw it: nothing was done, the careful path may press.
        if read.seen.press_stopped() {
            return Ok(QuickClick::Careful);
        }
        return Err(not_delivered("browser click", selector, &why));
    }
    let after = before.after_quick(cx, &read).await?;
    Ok(QuickClick::Done {
        after,
        seen: read.seen,
    })
}
