//! The pointer commands: `click`, `hover`, `mouse-move`, `cursor-position`, `drag`.

use cdp_protocol::Session;
use cdp_protocol::input::{self as cdp_input, DispatchDragEvent, DragEventType};
use envelope::{ActionData, ActionKind, Changed, Point};
use serde::{Deserialize, Serialize};

use super::aftermath::{After, Before};
use super::pointer::{self, Spot, approach, not_delivered, pressed_on_target};
use super::quick_click::{self, QuickClick};
use super::{ButtonName, form, one};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::actionability::{self, AimOptions, Checks, NotReady, Scroll};
use crate::page::eval;
use crate::page::input::mouse;
use crate::page::locate;
use crate::reply::Done;
use crate::session::targets;
use crate::store::TabRecord;
use crate::tab::{TabCommand, TabCx};

/// `browser click <selector|x,y>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Click {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]`, an XPath (`/...`), or `x,y` coordinates.
    /// An `<option>` of a closed `<select>` is chosen, as `select` chooses it.
    pub selector: String,
    /// When the target is a link (or inside one), open its address in a new tab instead of
    /// clicking (the tab's id is `data.new_tab_id`). Without it, a click that opens a tab itself
    /// (a `target=_blank` link, `window.open`) names it the same way, recorded as a tab of the
    /// session (`--tab` takes it at once).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub new_tab: bool,
    /// The mouse button.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "left"))]
    pub button: ButtonName,
    /// How many clicks (2 is a double click: `clickCount` 1, then 2).
    #[serde(default = "one")]
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 1))]
    pub count: u32,
    /// Skip the actionability checks (visible, enabled, stable, not covered); the press must
    /// still be seen arriving at the element (as without it, one press: a covering element that
    /// took it is named in the error, not pressed again). An element that renders no box (`display: none`)
    /// or stays outside the viewport though scrolled into view (placed off-screen) has no point
    /// to press: INVALID_ARGUMENT at once.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub force: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

impl Click {
    /// A plain left click on `selector` (no new tab, one click, checks on).
    pub fn new(selector: impl Into<String>, target: TabTarget) -> Click {
        Click {
            selector: selector.into(),
            new_tab: false,
            button: ButtonName::Left,
            count: 1,
            force: false,
            target,
        }
    }
}

/// `browser hover <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Hover {
    /// `@eN`, CSS (`query`'s extensions too), an XPath, or `x,y` viewport coordinates.
    pub selector: String,
    /// Skip the actionability checks (the move must still reach the element; one that renders
    /// no box or stays off-screen though scrolled into view is INVALID_ARGUMENT at once).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub force: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser mouse-move <x,y>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct MouseMove {
    /// `x,y` viewport coordinates (CSS pixels).
    pub coordinates: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser cursor-position`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CursorPosition {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser drag <selector> <selector|x,y>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Drag {
    /// The element to drag: `@eN`, CSS (`query`'s extensions too) or an XPath.
    pub selector: String,
    /// Where to drop it: an element, or `x,y` viewport coordinates.
    pub destination: String,
    /// The mouse button held.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "left"))]
    pub button: ButtonName,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
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

/// Refuses a point outside the viewport (nothing is there to receive input).
async fn in_viewport(cx: &TabCx<'_>, spot: &Spot) -> Result<()> {
    let Spot::Point(x, y, text) = spot else {
        return Ok(());
    };
    let (w, h) = viewport(&cx.page, &cx.deadline).await?;
    if *x >= w || *y >= h {
        return Err(CliError::InvalidArgument(format!(
            "coordinates {text} are outside the viewport ({w}x{h} CSS pixels)"
        )));
    }
    Ok(())
}

/// Shows the tab (input to a hidden page is never acknowledged) and reads the page before the
/// action, at once.
async fn front_and_before(cx: &mut TabCx<'_>) -> Result<Before> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let (front, before) = tokio::join!(mouse::bring_to_front(&page, &deadline), Before::read(cx));
    front?;
    before
}

/// The action's data, with what changed (a tab it opened is `new_tab_id`).
fn action_data(kind: ActionKind, spot: &Spot, after: &After) -> ActionData {
    let mut data = ActionData::new(kind, spot.target());
    data.changed = Changed {
        url_changed: after.url_changed,
        focus_changed: after.focus_changed,
        scroll_changed: None,
    };
    data.new_tab_id = after.new_tabs.first().cloned();
    data
}

/// The answer of a click: its data and warnings, and all the tabs it opened when more than one
/// (`new_tab_id` names the first).
fn click_done(spot: &Spot, after: &After, mut warnings: Vec<String>) -> Done<ActionData> {
    if after.new_tabs.len() > 1 {
        warnings.push(format!(
            "the click opened {} tabs: {} (new_tab_id names the first)",
            after.new_tabs.len(),
            after.new_tabs.join(", ")
        ));
    }
    let mut done = Done::data(action_data(ActionKind::Click, spot, after));
    done.warnings = warnings;
    done
}

/// Moves the pointer onto the spot once it passes `checks`, confirmed to have reached it (hover,
/// mouse-move).
async fn move_onto(
    cx: &mut TabCx<'_>,
    spot: &Spot,
    kind: ActionKind,
    action: &str,
    checks: Checks,
) -> Result<Done<ActionData>> {
    let mut before = front_and_before(cx).await?;
    let deadline = cx.deadline.clone();
    before.arm(&cx.page.clone());
    let ready = approach(cx, spot, action, checks, true, None).await?;
    ready.finish(&deadline, spot.text()).await;
    let after = before.after(cx).await?;
    Ok(Done::data(action_data(kind, spot, &after)))
}

/// The address of the link the element is (or is in), if any.
const LINK_JS: &str = "function() { const a = this.closest ? this.closest('a[href], area[href]') : null; \
  return a && a.href ? a.href : null; }";

/// `click --new-tab`: the link's address opened in a new tab of the session, recorded as its
/// next tab; `None` when the spot is not a link.
async fn open_link_in_new_tab(cx: &mut TabCx<'_>, spot: &Spot) -> Result<Option<String>> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let node = match spot {
        Spot::Element(sel) => pointer::locate_waiting(cx, sel).await?,
        Spot::Point(x, y, _) => {
            locate::at_point(&mut cx.state.frames, &page, *x, *y, &deadline)
                .await?
                .0
        }
    };
    let href = node
        .handle
        .call(LINK_JS, Vec::new(), deadline.capped(deadline::QUICK_CALL))
        .await
        .map_err(|e| CliError::on_node(e, spot.text()))?
        .result
        .value
        .and_then(|v| v.as_str().map(str::to_string));
    let Some(href) = href else {
        return Ok(None);
    };
    let target_id = targets::open_page(&cx.conn, &href, &deadline).await?;
    let native = targets::window_of_target(&cx.conn, &target_id, &deadline)
        .await
        .ok();
    let tab_id = cx
        .session
        .update(|r| {
            let window_id = native.map(|n| r.window_for_native(n));
            let id = r.alloc_tab_id();
            r.tabs.push(TabRecord {
                tab_id: id.clone(),
                target_id,
                url: href.clone(),
                title: String::new(),
                window_id,
                cursor: None,
                dialog_policy: None,
                emulation: None,
            });
            id
        })
        .await?;
    Ok(Some(tab_id))
}

impl TabCommand for Click {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Waits until the element is actionable and the pointer is on it, clicks, and confirms the
    /// press arrived at it (see [`pointer::click`]); a click that starts a navigation waits for it.
    /// An `<option>` of a closed `<select>` is chosen instead (see [`Click::choose_option`]); an
    /// inert element (behind a modal dialog, under `[inert]`) is refused at the first look. A
    /// form the click would submit that the browser's validation stopped is warned of.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let spot = Spot::parse(&self.selector)?;
        if !(1..=10).contains(&self.count) {
            return Err(CliError::InvalidArgument(format!(
                "--count {} is out of range: 1 to 10 clicks (2 is a double click)",
                self.count
            )));
        }
        in_viewport(cx, &spot).await?;
        cx.load_refs();
        let mut warnings = Vec::new();
        if self.new_tab {
            match open_link_in_new_tab(cx, &spot).await? {
                Some(tab_id) => {
                    let (url, title) = cx.page_info().await?;
                    cx.url = Some(url);
                    cx.title = Some(title);
                    let mut data = ActionData::new(ActionKind::Click, spot.target());
                    data.new_tab_id = Some(tab_id);
                    return Ok(Done::data(data));
                }
                None => warnings.push(format!(
                    "--new-tab: {} is not a link; it was clicked instead",
                    spot.text()
                )),
            }
        }
        if let Spot::Element(sel) = &spot
            && !self.force
        {
            match quick_click::click(cx, sel, self.button.button(), self.count).await? {
                QuickClick::Done { after, seen } => {
                    warnings.extend(seen.unsubmitted.map(|u| u.warning()));
                    return Ok(click_done(&spot, &after, warnings));
                }
                QuickClick::Careful => {}
            }
        }
        let mut before = front_and_before(cx).await?;
        let clicked = pointer::click(
            cx,
            &spot,
            self.button.button(),
            self.count,
            self.force,
            &mut before,
        )
        .await;
        let seen = match clicked {
            // Nothing was pressed: the aim found an option no pointer reaches.
            Err(CliError::ClosedOption { .. }) => {
                return self.choose_option(cx, &spot, before, warnings).await;
            }
            clicked => clicked?,
        };
        warnings.extend(seen.unsubmitted.map(|u| u.warning()));
        let after = before.after(cx).await?;
        Ok(click_done(&spot, &after, warnings))
    }
}

impl Click {
    /// A click on an `<option>` of a closed drop-down `<select>` (no pointer reaches it): a plain
    /// left click chooses it, as `browser select` does, which is what a user's click on it in the
    /// open list does; a click of another kind means nothing there and is refused (nothing done).
    async fn choose_option(
        &self,
        cx: &mut TabCx<'_>,
        spot: &Spot,
        mut before: Before,
        mut warnings: Vec<String>,
    ) -> Result<Done<ActionData>> {
        let selector = spot.text();
        let refused = if self.new_tab {
            Some("--new-tab opens a link in a new tab, and an option is not one".to_string())
        } else if self.button != ButtonName::Left {
            let name = format!("{:?}", self.button).to_lowercase();
            Some(format!(
                "--button {name}: only a left click chooses an option"
            ))
        } else if self.count != 1 {
            Some(format!(
                "--count {}: one click chooses an option",
                self.count
            ))
        } else {
            None
        };
        if let Some(why) = refused {
            return Err(CliError::InvalidArgument(format!(
                "{selector} is an <option> of a closed <select>, which a click chooses (as \
                 `browser select` does); {why}; nothing was done"
            )));
        }
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let node = pointer::locate_waiting(cx, selector).await?;
        // Its input and change handlers may navigate (a select that jumps to a page).
        before.arm(&page);
        warnings.extend(form::choose_option(&node, selector, &deadline).await?);
        let after = before.after(cx).await?;
        Ok(click_done(spot, &after, warnings))
    }
}

impl TabCommand for Hover {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Moves the pointer onto the element once it is actionable, and confirms the move reached it
    /// (`:hover` styles apply from then on).
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let spot = Spot::parse(&self.selector)?;
        in_viewport(cx, &spot).await?;
        cx.load_refs();
        let checks = if self.force {
            Checks::NONE
        } else {
            Checks::HOVER
        };
        move_onto(cx, &spot, ActionKind::Hover, "browser hover", checks).await
    }
}

impl TabCommand for MouseMove {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Moves the pointer to a point and confirms the element there saw it.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let spot = match Spot::parse(&self.coordinates)? {
            p @ Spot::Point(..) => p,
            Spot::Element(s) => {
                return Err(CliError::InvalidArgument(format!(
                    "mouse-move takes x,y viewport coordinates, not {s:?} (use hover for an element)"
                )));
            }
        };
        in_viewport(cx, &spot).await?;
        let done = move_onto(
            cx,
            &spot,
            ActionKind::MouseMove,
            "browser mouse-move",
            Checks::NONE,
        )
        .await?;
        // Where the pointer is is all this command changes: on disk before it answers, so a
        // daemon killed right after still knows it (other pointer commands write it soon after).
        cx.update_tab_if(|_| true).await?;
        Ok(done)
    }
}

impl TabCommand for CursorPosition {
    type Data = Point;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Where the pointer was last moved in this tab (`0,0` before any move).
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Point>> {
        let (x, y) = match cx.state.cursor {
            Some(c) => c,
            None => cx
                .session
                .with_record(|r| r.tab(&cx.tab_id).and_then(|t| t.cursor))
                .map_or((0.0, 0.0), |[x, y]| (x, y)),
        };
        Ok(Done::data(Point { x, y }))
    }
}

/// The drop point on `node` (at `at`, when given), without scrolling; NOT_ACTIONABLE naming why not
/// (or the error of a check no wait changes, see [`NotReady::lasting`]).
async fn aim_drop(
    graph: &frame_graph::FrameGraph,
    node: &locate::Located,
    at: Option<(f64, f64)>,
    deadline: &Deadline,
    dest: &str,
) -> Result<actionability::Aim> {
    let opts = AimOptions {
        at,
        scroll: Scroll::Never,
        ..AimOptions::pointer(Checks::DROP)
    };
    actionability::aim(graph, node, &opts, deadline, dest)
        .await?
        .map_err(|why| {
            why.lasting("browser drag", dest)
                .unwrap_or_else(|| CliError::NotActionable {
                    action: "browser drag".into(),
                    selector: dest.to_string(),
                    reason: why.reason(),
                    by: why.by().map(str::to_string),
                    detail: why.describe(),
                    ms: deadline.timeout_ms(),
                })
        })
}

/// Whether `node` is an `<iframe>` or `<frame>` (its pointer input goes to the document inside).
async fn is_frame_element(node: &locate::Located) -> bool {
    node.handle
        .probe::<bool>(
            "function() { return this.localName === 'iframe' || this.localName === 'frame'; }",
        )
        .await
        .unwrap_or(false)
}

/// How many moves a drag makes from its source to its destination.
const DRAG_STEPS: u32 = 10;

impl TabCommand for Drag {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Presses on the source (once it is actionable and hovered), moves in steps to the
    /// destination and releases there. A drag the page starts as HTML5 drag and drop (a
    /// `draggable` source) is carried on with drag events, as the browser would for a user.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let source = Spot::parse(&self.selector)?;
        let dest = Spot::parse(&self.destination)?;
        in_viewport(cx, &source).await?;
        in_viewport(cx, &dest).await?;
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let mut before = front_and_before(cx).await?;
        let button = self.button.button();
        let ready = approach(cx, &source, "browser drag", Checks::HOVER, true, None).await?;
        let from = (ready.aim.x, ready.aim.y);
        // Where the drop goes (the dragged element may be under the pointer there: no hit test).
        let graph = cx.state.frames.graph(&page, &deadline).await?;
        let (mut dest_node, at) = match &dest {
            Spot::Element(sel) => (pointer::locate_waiting(cx, sel).await?, None),
            Spot::Point(x, y, _) => {
                let (n, at) =
                    locate::at_point(&mut cx.state.frames, &page, *x, *y, &deadline).await?;
                (n, Some(at))
            }
        };
        let mut aimed = aim_drop(&graph, &dest_node, at, &deadline, dest.text()).await;
        // A frame element takes no drop itself: the document inside it does, at that point. The
        // drop is aimed at (and watched on) the element there.
        if let Ok(a) = &aimed
            && matches!(dest, Spot::Element(_))
            && is_frame_element(&dest_node).await
        {
            let (x, y) = (a.x, a.y);
            a.finish(&dest_node, &deadline, dest.text()).await;
            let (inner, point) =
                locate::at_point(&mut cx.state.frames, &page, x, y, &deadline).await?;
            aimed = aim_drop(&graph, &inner, Some(point), &deadline, dest.text()).await;
            dest_node = inner;
        }
        let drop_aim = match aimed {
            Ok(a) => a,
            Err(e) => {
                ready.finish(&deadline, source.text()).await;
                return Err(e);
            }
        };
        let to = (drop_aim.x, drop_aim.y);
        page.send_timeout(
            &cdp_input::SetInterceptDrags { enabled: true },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
        let mut intercepted = page.subscribe::<cdp_input::DragIntercepted>();
        before.arm(&page);
        let result = async {
            mouse::press(&page, from.0, from.1, button, &deadline).await?;
            // A first step past the drag threshold: a draggable source starts its drag here.
            let first = (
                from.0 + (to.0 - from.0) / f64::from(DRAG_STEPS),
                from.1 + (to.1 - from.1) / f64::from(DRAG_STEPS),
            );
            let nudge = if (first.0 - from.0).abs() + (first.1 - from.1).abs() < 6.0 {
                (from.0 + 6.0, from.1)
            } else {
                first
            };
            mouse::move_to(&page, nudge.0, nudge.1, Some(button), &deadline).await?;
            // Seen, or (the page stopped it first) counted by the browser.
            let peeked = actionability::peek(&ready.node, &deadline, source.text()).await;
            let started =
                peeked.first(&["dragstart"]).is_some() || peeked.dispatched("dragstart") > Some(0);
            let data = if started {
                tokio::time::timeout(deadline.capped(deadline::QUICK_CALL), intercepted.recv())
                    .await
                    .ok()
                    .flatten()
                    .and_then(|e| e.ok())
                    .map(|e| e.data)
            } else {
                None
            };
            match data {
                Some(data) => {
                    for kind in [
                        DragEventType::DragEnter,
                        DragEventType::DragOver,
                        DragEventType::Drop,
                    ] {
                        page.send_timeout(
                            &DispatchDragEvent {
                                r#type: kind,
                                x: to.0,
                                y: to.1,
                                data: data.clone(),
                                modifiers: None,
                            },
                            deadline.capped(deadline::QUICK_CALL),
                        )
                        .await?;
                    }
                    Ok::<bool, CliError>(true)
                }
                None => {
                    mouse::move_in_steps(&page, nudge, to, DRAG_STEPS, Some(button), &deadline)
                        .await?;
                    mouse::release(&page, to.0, to.1, button, &deadline).await?;
                    Ok(false)
                }
            }
        }
        .await;
        let _ = page
            .send_timeout(
                &cdp_input::SetInterceptDrags { enabled: false },
                deadline::CLEANUP,
            )
            .await;
        pointer::record_cursor(cx, to.0, to.1);
        // Out of the frames the drag started in (told once the button is up, as a drag holds the
        // pointer's events to where it started).
        let left = pointer::pointer_enters(cx, &graph, &dest_node.frame_id, None);
        mouse::leave_frames(&graph, &left, &deadline).await;
        let pressed = ready.finish(&deadline, source.text()).await;
        let dropped = drop_aim.finish(&dest_node, &deadline, dest.text()).await;
        let html5 = result?;
        if let Err(why) = pressed_on_target(&pressed) {
            return Err(not_delivered("browser drag", source.text(), &why));
        }
        // The drop must be seen where it was aimed: an HTML5 drop on the target, a release in its
        // document (the dragged element may be the one under the pointer).
        // (Or counted by the browser there, when the page stopped it before the listeners.)
        let counted = |kinds: &[&str]| kinds.iter().any(|k| dropped.dispatched(k) > Some(0));
        let landed = dropped.gone
            || match html5 {
                true => dropped.count_on_target("drop") > 0 || counted(&["drop"]),
                false => {
                    dropped.first(&["pointerup", "mouseup"]).is_some()
                        || counted(&["pointerup", "mouseup"])
                }
            };
        if !landed {
            return Err(not_delivered(
                "browser drag",
                dest.text(),
                &NotReady::Missed { by: None },
            ));
        }
        let after = before.after(cx).await?;
        let mut data = action_data(ActionKind::Drag, &source, &after);
        data.destination = Some(dest.target());
        Ok(Done::data(data))
    }
}
