//! The mouse: moves and clicks at page coordinates, on the top-level page session.

use cdp_protocol::input::{DispatchMouseEvent, MouseButton, MouseEventType};
use cdp_protocol::{Session, page};

use crate::deadline::{self, Deadline};
use crate::error::Result;

/// Shows the tab: a page in a background tab is hidden, and Chromium never acknowledges input
/// events sent to a hidden page (they would wait out their timeout and do nothing).
pub(crate) async fn bring_to_front(page: &Session, deadline: &Deadline) -> Result<()> {
    page.send_timeout(&page::BringToFront, deadline.capped(deadline::QUICK_CALL))
        .await?;
    Ok(())
}

/// A real left click at page coordinates: move, press, release (the tab is brought to the front
/// first, as a user switching to it would).
pub(crate) async fn click(page: &Session, x: f64, y: f64, deadline: &Deadline) -> Result<()> {
    bring_to_front(page, deadline).await?;
    let steps = [
        (MouseEventType::MouseMoved, MouseButton::None, 0, None),
        (MouseEventType::MousePressed, MouseButton::Left, 1, Some(1)),
        (MouseEventType::MouseReleased, MouseButton::Left, 0, Some(1)),
    ];
    for (kind, button, buttons, click_count) in steps {
        let event = DispatchMouseEvent {
            r#type: kind,
            x,
            y,
            button: Some(button),
            buttons: Some(buttons),
            click_count,
            ..Default::default()
        };
        page.send_timeout(&event, deadline.capped(deadline::QUICK_CALL))
            .await?;
    }
    Ok(())
}
