//! The keyboard: text typed into whatever has focus.

use cdp_protocol::{Session, input};

use crate::deadline::{self, Deadline};
use crate::error::Result;

/// Types `text` into the focused element in one `Input.insertText` (trusted input events, as an
/// IME commit gives).
pub(crate) async fn insert_text(page: &Session, text: &str, deadline: &Deadline) -> Result<()> {
    page.send_timeout(
        &input::InsertText {
            text: text.to_string(),
        },
        deadline.remaining().max(deadline::INSERT_TEXT_MIN),
    )
    .await?;
    Ok(())
}
