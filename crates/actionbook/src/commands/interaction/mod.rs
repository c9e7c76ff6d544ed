//! Interaction (spec 11): every action and input command, across every frame (out-of-process
//! iframes included), with auto-wait, actionability checks and input that is known to land.
//!
//! - `pointer`: the shared shape of a pointer action (wait until actionable and hovered, act,
//!   confirm; a press reaches the page once); `aftermath`: what an action changed (navigation
//!   waited for, focus, URL); `quick_click`: the common click (a CSS selector matching in a
//!   page without out-of-process frames) in two round trips, the rest on the careful path;
//! - [`click`]: `click`, `hover`, `mouse-move`, `cursor-position`, `drag`;
//! - [`keys`]: `press`, `type`, `focus`;
//! - [`form`]: `fill`, `select`, `upload`;
//! - [`scroll`]: `scroll` (every form);
//! - [`eval`][]: `eval`.

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

pub(crate) mod aftermath;
pub mod click;
pub mod eval;
pub mod form;
pub mod keys;
pub(crate) mod pointer;
pub(crate) mod quick_click;
pub mod scroll;

pub use click::{Click, CursorPosition, Drag, Hover, MouseMove};
pub use eval::Eval;
pub use form::{Fill, Select, Upload};
pub use keys::{Focus, Press, Type};
pub use scroll::Scroll;

/// A mouse button (`--button`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ButtonName {
    /// The primary button.
    #[default]
    Left,
    /// The secondary button (opens a context menu).
    Right,
    /// The middle button.
    Middle,
}

impl ButtonName {
    /// The mouse primitive's button.
    pub(crate) fn button(self) -> crate::page::input::mouse::Button {
        use crate::page::input::mouse::Button;
        match self {
            ButtonName::Left => Button::Left,
            ButtonName::Right => Button::Right,
            ButtonName::Middle => Button::Middle,
        }
    }
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

fn one() -> u32 {
    1
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
