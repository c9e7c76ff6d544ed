//! The mouse: moves, presses and releases at page coordinates (CSS pixels of the top-level
//! viewport), always on the top-level page session, so the browser hit tests them as it would a
//! user's (overlays in parent frames included) and routes them to the frame under the pointer.
//!
//! One thing the browser does not do for input sent that way: when the pointer moves out of an
//! out-of-process iframe, that frame's renderer is never told, so its document fires no
//! `mouseleave`/`pointerout` and keeps `:hover` (a second hover on the same element then fires no
//! `mouseenter`). [`leave_frames`] tells each such frame, as the browser tells it for a user.

use cdp_protocol::input::{DispatchMouseEvent, MouseButton, MouseEventType};
use cdp_protocol::{BackendNodeId, FrameId, Session, page};
use frame_graph::FrameGraph;
use futures::future::{join_all, try_join_all};

use crate::deadline::{self, Deadline};
use crate::error::Result;

/// A mouse button, as `--button` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Button {
    /// The primary button.
    #[default]
    Left,
    /// The secondary button (context menu).
    Right,
    /// The middle button (auxclick).
    Middle,
}

impl Button {
    fn cdp(self) -> MouseButton {
        match self {
            Button::Left => MouseButton::Left,
            Button::Right => MouseButton::Right,
            Button::Middle => MouseButton::Middle,
        }
    }

    /// Its bit in `buttons` (left 1, right 2, middle 4).
    fn bit(self) -> i64 {
        match self {
            Button::Left => 1,
            Button::Right => 2,
            Button::Middle => 4,
        }
    }
}

/// Shows the tab: a page in a background tab is hidden, and Chromium never acknowledges input
/// events sent to a hidden page (they would wait out their timeout and do nothing).
pub(crate) async fn bring_to_front(page: &Session, deadline: &Deadline) -> Result<()> {
    page.send_timeout(&page::BringToFront, deadline.capped(deadline::QUICK_CALL))
        .await?;
    Ok(())
}

fn event(
    kind: MouseEventType,
    x: f64,
    y: f64,
    button: Option<Button>,
    buttons: i64,
    click_count: Option<i64>,
) -> DispatchMouseEvent {
    DispatchMouseEvent {
        r#type: kind,
        x,
        y,
        button: Some(button.map_or(MouseButton::None, Button::cdp)),
        buttons: Some(buttons),
        click_count,
        ..Default::default()
    }
}

/// Sends events in order without waiting for each answer in turn (the browser handles a
/// session's input in the order sent), then waits for all.
async fn send_all(
    page: &Session,
    events: Vec<DispatchMouseEvent>,
    deadline: &Deadline,
) -> Result<()> {
    let cap = deadline.capped(deadline::QUICK_CALL);
    try_join_all(events.iter().map(|e| page.send_timeout(e, cap))).await?;
    Ok(())
}

/// Moves the pointer to `(x, y)` (with `held` pressed, for drags).
pub(crate) async fn move_to(
    page: &Session,
    x: f64,
    y: f64,
    held: Option<Button>,
    deadline: &Deadline,
) -> Result<()> {
    // A move with a button held names it (Blink reads that as a drag).
    let buttons = held.map_or(0, Button::bit);
    send_all(
        page,
        vec![event(MouseEventType::MouseMoved, x, y, held, buttons, None)],
        deadline,
    )
    .await
}

/// Moves the pointer from `from` to `to` in `steps` equal steps (the last one at `to`).
pub(crate) async fn move_in_steps(
    page: &Session,
    from: (f64, f64),
    to: (f64, f64),
    steps: u32,
    held: Option<Button>,
    deadline: &Deadline,
) -> Result<()> {
    let steps = steps.max(1);
    let buttons = held.map_or(0, Button::bit);
    let events = (1..=steps)
        .map(|i| {
            let t = f64::from(i) / f64::from(steps);
            let x = from.0 + (to.0 - from.0) * t;
            let y = from.1 + (to.1 - from.1) * t;
            event(MouseEventType::MouseMoved, x, y, held, buttons, None)
        })
        .collect();
    send_all(page, events, deadline).await
}

/// Presses `button` at `(x, y)` (the pointer is there already).
pub(crate) async fn press(
    page: &Session,
    x: f64,
    y: f64,
    button: Button,
    deadline: &Deadline,
) -> Result<()> {
    let e = event(
        MouseEventType::MousePressed,
        x,
        y,
        Some(button),
        button.bit(),
        Some(1),
    );
    send_all(page, vec![e], deadline).await
}

/// Releases `button` at `(x, y)`.
pub(crate) async fn release(
    page: &Session,
    x: f64,
    y: f64,
    button: Button,
    deadline: &Deadline,
) -> Result<()> {
    let e = event(
        MouseEventType::MouseReleased,
        x,
        y,
        Some(button),
        0,
        Some(1),
    );
    send_all(page, vec![e], deadline).await
}

/// `count` clicks of `button` at `(x, y)`: press and release each time, the n-th with
/// `clickCount` n (2 is a real double click: `dblclick` fires).
pub(crate) async fn clicks(
    page: &Session,
    x: f64,
    y: f64,
    button: Button,
    count: u32,
    deadline: &Deadline,
) -> Result<()> {
    send_all(page, click_events(x, y, button, count), deadline).await
}

/// A move to `(x, y)` and `count` clicks there, sent together (the browser handles them in
/// order: the move is dispatched before the first press).
pub(crate) async fn move_and_click(
    page: &Session,
    x: f64,
    y: f64,
    button: Button,
    count: u32,
    deadline: &Deadline,
) -> Result<()> {
    let mut events = vec![event(MouseEventType::MouseMoved, x, y, None, 0, None)];
    events.extend(click_events(x, y, button, count));
    send_all(page, events, deadline).await
}

/// The out-of-process frames the pointer is in when it is on a node of `frame` (on the node
/// `owner` itself, when it is an out-of-process iframe's element, the pointer is in that frame
/// too): `frame` when it is one and each out-of-process frame above it, innermost first. A
/// same-process frame shares its parent's renderer, which hears of the pointer leaving.
pub(crate) fn frames_holding(graph: &FrameGraph, frame: &str, owner: Option<i64>) -> Vec<String> {
    let mut held = Vec::new();
    let inner =
        owner.and_then(|o| graph.frame_by_owner(&FrameId::new(frame), BackendNodeId::new(o)));
    if let Some(inner) = inner.filter(|f| f.is_out_of_process) {
        held.push(inner.frame_id.into_inner());
    }
    let mut next = graph.frame(&FrameId::new(frame));
    // Bounded: a frame tree is never this deep, and a cycle in a stale graph must not hang.
    for _ in 0..64 {
        let Some(f) = next else { break };
        if f.is_out_of_process {
            held.push(f.frame_id.as_str().to_string());
        }
        next = f.parent_frame_id.and_then(|p| graph.frame(&p));
    }
    held
}

/// Tells each out-of-process frame in `left` that the pointer left it: a move to (-1, -1) sent to
/// the frame's own session, which makes its document fire what a user's pointer leaving fires
/// (`pointerout`, `mouseleave`, ..., `:hover` dropped). Sent without waiting for the answers
/// before other input (the caller sends the move that follows beside it); a frame that is gone
/// has nothing to leave, so failures are not errors.
pub(crate) async fn leave_frames(graph: &FrameGraph, left: &[String], deadline: &Deadline) {
    if left.is_empty() {
        return;
    }
    let cap = deadline.capped(deadline::QUICK_CALL);
    let off = event(MouseEventType::MouseMoved, -1.0, -1.0, None, 0, None);
    let sessions: Vec<Session> = left
        .iter()
        .filter_map(|f| graph.session_for(&FrameId::new(f.as_str())))
        .collect();
    join_all(sessions.iter().map(|s| s.send_timeout(&off, cap))).await;
}

/// The presses and releases of `count` clicks.
fn click_events(x: f64, y: f64, button: Button, count: u32) -> Vec<DispatchMouseEvent> {
    let mut events = Vec::new();
    for n in 1..=i64::from(count.max(1)) {
        events.push(event(
            MouseEventType::MousePressed,
            x,
            y,
            Some(button),
            button.bit(),
            Some(n),
        ));
        events.push(event(
            MouseEventType::MouseReleased,
            x,
            y,
            Some(button),
            0,
            Some(n),
        ));
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn button_bits() {
        assert_eq!(Button::Left.bit() | Button::Right.bit(), 3);
        assert_eq!(Button::Middle.cdp(), MouseButton::Middle);
        let e = event(
            MouseEventType::MousePressed,
            1.0,
            2.0,
            Some(Button::Right),
            2,
            Some(1),
        );
        assert_eq!((e.button, e.buttons), (Some(MouseButton::Right), Some(2)));
    }
}
