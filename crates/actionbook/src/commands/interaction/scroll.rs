//! `browser scroll`: the page or a container up/down/left/right by pixels, to the top or bottom,
//! or an element into view; one command name for every form (spec 11.1). A page that cannot move
//! (an app layout scrolling in a pane) hands a page scroll to the pane a wheel would scroll.

use envelope::{ActionData, ActionKind, Changed, Target};
use serde::{Deserialize, Serialize};

use super::aftermath::Before;
use super::pointer::locate_waiting;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::scroll::{self, Motion};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// How `scroll` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum ScrollDirection {
    /// Up by `<pixels>`.
    Up,
    /// Down by `<pixels>`.
    Down,
    /// Left by `<pixels>`.
    Left,
    /// Right by `<pixels>`.
    Right,
    /// To the top.
    Top,
    /// To the bottom.
    Bottom,
    /// The element `<selector>` into view (`--align`).
    IntoView,
}

impl ScrollDirection {
    fn as_str(self) -> &'static str {
        match self {
            ScrollDirection::Up => "up",
            ScrollDirection::Down => "down",
            ScrollDirection::Left => "left",
            ScrollDirection::Right => "right",
            ScrollDirection::Top => "top",
            ScrollDirection::Bottom => "bottom",
            ScrollDirection::IntoView => "into-view",
        }
    }
}

/// Where `scroll into-view` puts the element.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Align {
    /// At the start (top) of the viewport.
    Start,
    /// In the middle.
    Center,
    /// At the end (bottom).
    End,
    /// As little scrolling as needed (none when it is in view).
    #[default]
    Nearest,
}

impl Align {
    fn as_str(self) -> &'static str {
        match self {
            Align::Start => "start",
            Align::Center => "center",
            Align::End => "end",
            Align::Nearest => "nearest",
        }
    }
}

/// `browser scroll up|down|left|right <pixels>`, `scroll top|bottom`, `scroll into-view <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Scroll {
    /// `up`, `down`, `left`, `right` (with pixels), `top`, `bottom`, or `into-view` (with a
    /// selector).
    #[cfg_attr(feature = "cli", arg(value_enum))]
    pub direction: ScrollDirection,
    /// Pixels for up/down/left/right; the element (`@eN`, CSS, XPath) for into-view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Scroll inside this element instead of the page (without it: the page, or, when the page
    /// cannot move, the pane a wheel at the viewport's centre would scroll, named in a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
    pub container: Option<String>,
    /// Where into-view puts the element (default: nearest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub align: Option<Align>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// The pixels of a directional scroll.
fn pixels(direction: ScrollDirection, value: Option<&str>) -> Result<i64> {
    let Some(v) = value else {
        return Err(CliError::InvalidArgument(format!(
            "scroll {} needs a distance in pixels, e.g. scroll {} 300",
            direction.as_str(),
            direction.as_str()
        )));
    };
    match v.trim().parse::<i64>() {
        Ok(p) if (0..=1_000_000).contains(&p) => Ok(p),
        _ => Err(CliError::InvalidArgument(format!(
            "invalid distance {v:?}: scroll {} takes whole pixels from 0 to 1000000",
            direction.as_str()
        ))),
    }
}

impl TabCommand for Scroll {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Scrolls and reports whether anything moved (`changed.scroll_changed`); returns once the
    /// compositor shows the new position.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        use ScrollDirection as D;
        let motion = match self.direction {
            D::Up | D::Down | D::Left | D::Right => {
                let p = pixels(self.direction, self.value.as_deref())? as f64;
                Some(match self.direction {
                    D::Up => Motion::By(0.0, -p),
                    D::Down => Motion::By(0.0, p),
                    D::Left => Motion::By(-p, 0.0),
                    _ => Motion::By(p, 0.0),
                })
            }
            D::Top | D::Bottom => {
                if let Some(v) = &self.value {
                    return Err(CliError::InvalidArgument(format!(
                        "scroll {} takes no value (got {v:?})",
                        self.direction.as_str()
                    )));
                }
                Some(if self.direction == D::Top {
                    Motion::Top
                } else {
                    Motion::Bottom
                })
            }
            D::IntoView => None,
        };
        if self.align.is_some() && motion.is_some() {
            return Err(CliError::InvalidArgument(
                "--align is for scroll into-view".into(),
            ));
        }
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let before = Before::read(cx).await?;
        let container = match &self.container {
            Some(sel) => Some(locate_waiting(cx, sel).await?),
            None => None,
        };
        let mut data = ActionData::new(ActionKind::Scroll, None);
        data.direction = Some(self.direction.as_str().to_string());
        data.container = self.container.clone();
        let mut warnings = Vec::new();
        let moved = match motion {
            Some(m) => {
                if let Motion::By(dx, dy) = m {
                    data.pixels = Some((dx.abs() + dy.abs()) as i64);
                }
                let what = self.container.as_deref().unwrap_or("the page");
                let s = scroll::scroll(&page, container.as_ref(), m, &deadline, what).await?;
                // Named in a warning, not in the data: the spec's data has no field for it, and
                // an agent reading only `scroll_changed` would think the page moved.
                if let Some(pane) = s.instead {
                    warnings.push(instead_warning(self.direction, &pane));
                }
                s.moved
            }
            None => {
                let Some(sel) = self.value.as_deref() else {
                    return Err(CliError::InvalidArgument(
                        "scroll into-view needs the element, e.g. scroll into-view @e5".into(),
                    ));
                };
                let align = self.align.unwrap_or_default();
                data.target = Some(Target::selector(sel));
                data.align = Some(align.as_str().to_string());
                let node = locate_waiting(cx, sel).await?;
                scroll::into_view(&node, align.as_str(), container.as_ref(), &deadline, sel).await?
            }
        };
        let after = before.after(cx).await?;
        data.changed = Changed {
            url_changed: after.url_changed,
            focus_changed: after.focus_changed,
            scroll_changed: Some(moved),
        };
        let mut done = Done::data(data);
        done.warnings = warnings;
        Ok(done)
    }
}

/// The warning for a scroll that moved `pane` because the page itself could not move.
fn instead_warning(direction: ScrollDirection, pane: &scroll::Pane) -> String {
    let way = match direction {
        ScrollDirection::Top => "to the top",
        ScrollDirection::Bottom => "to the bottom",
        d => d.as_str(),
    };
    let which = if pane.centre {
        "the scrollable area at the viewport's centre"
    } else {
        "the largest scrollable area in view"
    };
    format!(
        "the page itself cannot scroll {way}; scrolled <{}> ({which})",
        pane.what
    )
}
