//! Actionability and delivery: whether an element can take a pointer action now and at which point
//! of the page, and whether the input sent there arrived at it. The page side is
//! `actionability.js`, run in the element's own frame.
//!
//! An [`Aim`] is made in one call in the element's frame: the checks ([`Checks`]: attached,
//! visible, enabled), the action point (the centre of the element's visible part, scrolled into
//! view when it is not in view or not hit), the hit test at that point in the element's document
//! and up through every parent frame the script can reach, and capture listeners that record what
//! input arrives. A frame boundary the script cannot cross (an out-of-process or cross-origin
//! iframe, or one drawn transformed: scaled, rotated, skewed, zoomed, itself or inside such a
//! container, whose mapping the page cannot read) is crossed here: the owner `<iframe>` in the
//! parent frame continues the translation and the hit test ([`Aim::hops`]), a transformed one
//! through its content quad as the browser draws it ([`quad`]). The point is then in page
//! coordinates, where `Input.*` events go (on the top-level page, so overlays in parent frames
//! are respected).
//!
//! After the pointer moved to the point, [`Aim::check`] says whether the element is still where it
//! was (stable across the frame the move was handled in), still hit, and whether the move itself
//! reached the element: the browser routes input between frames by the hit-test data of the last
//! frame the compositor showed, so a move that went elsewhere means the page is not showing what
//! it is about to show. [`Aim::finish`] stops the listeners and answers what they saw, from which a
//! command decides whether its press (or keys) arrived ([`Seen`]).
//!
//! A check no wait can change fails at once ([`NotReady::lasting`]): canvas fallback content and
//! an `<option>` of a closed `<select>` never get a box, and an inert element (outside the open
//! modal dialog, or under `[inert]`) stays so until the page changes it. Inertness is looked for
//! only where a hit test failed (or was skipped: `--force`), in the same call: a reachable element
//! costs nothing more.

use cdp_protocol::dom;
use frame_graph::FrameGraph;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::locate::Located;
use crate::page::quad::{self, BoxOf};

/// The page side: one function, the operation as its first argument.
pub(crate) const SCRIPT: &str = include_str!("actionability.js");

/// The pointer events an aim listens for.
pub(crate) const POINTER_EVENTS: &[&str] = &[
    "pointermove",
    "mousemove",
    "pointerover",
    "mouseover",
    "pointerdown",
    "mousedown",
    "pointerup",
    "mouseup",
    "click",
    "auxclick",
    "dblclick",
    "contextmenu",
    "dragstart",
    "dragenter",
    "dragover",
    "drop",
];

/// The events of a press (what a guarded aim stops when they reach another element): the eight
/// of [`POINTER_EVENTS`] from `pointerdown` to `contextmenu`.
const PRESS_EVENTS: &[&str] = POINTER_EVENTS.split_at(4).1.split_at(8).0;

/// The keyboard events a keyboard probe listens for.
pub(crate) const KEY_EVENTS: &[&str] = &["keydown", "keyup", "beforeinput", "input"];

/// What must hold before a pointer action (each is waited for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Checks {
    /// The element renders a box and is not `visibility: hidden`.
    pub visible: bool,
    /// A form control is not disabled (`:disabled`, `aria-disabled="true"`).
    pub enabled: bool,
    /// The hit test at the action point lands on the element or inside it, in its document and
    /// in every parent document (a parent must show the frame element there).
    pub hit: bool,
}

impl Checks {
    /// Everything (click, double click, drag source).
    pub const ALL: Checks = Checks {
        visible: true,
        enabled: true,
        hit: true,
    };
    /// Hover: a disabled element can be hovered.
    pub const HOVER: Checks = Checks {
        visible: true,
        enabled: false,
        hit: true,
    };
    /// A drop target: the dragged element is often under the pointer, so no hit test.
    pub const DROP: Checks = Checks {
        visible: true,
        enabled: false,
        hit: false,
    };
    /// `--force`: nothing is checked (the point still needs a box).
    pub const NONE: Checks = Checks {
        visible: false,
        enabled: false,
        hit: false,
    };
}

/// When an aim scrolls the element into view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scroll {
    /// When the point is not in the frame's viewport or is not hit.
    IfNeeded,
    /// Always (a parent frame beyond a boundary did not show the point).
    Always,
    /// Never (a given point).
    Never,
}

impl Scroll {
    fn as_str(self) -> &'static str {
        match self {
            Scroll::IfNeeded => "ifneeded",
            Scroll::Always => "always",
            Scroll::Never => "never",
        }
    }
}

/// How to aim.
#[derive(Debug, Clone)]
pub(crate) struct AimOptions {
    /// What must hold.
    pub checks: Checks,
    /// A fixed point in the element's frame (coordinates given by the user), instead of its centre.
    pub at: Option<(f64, f64)>,
    /// When to scroll.
    pub scroll: Scroll,
    /// The events to record.
    pub events: &'static [&'static str],
    /// The CSS selector that named the element, when it was plain CSS: an element the page puts
    /// in its place (a re-render) and that matches it is taken for it.
    pub css: Option<String>,
}

impl AimOptions {
    /// A pointer action on an element with `checks`.
    pub fn pointer(checks: Checks) -> AimOptions {
        AimOptions {
            checks,
            at: None,
            scroll: Scroll::IfNeeded,
            events: POINTER_EVENTS,
            css: None,
        }
    }
}

/// Why an element cannot take the action (yet). Each is a check that has not passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotReady {
    /// The node left the document (it is looked up again).
    Detached,
    /// It renders no box, or is `visibility: hidden`.
    NotVisible,
    /// Fallback content of a `<canvas>`: never laid out, it cannot get a box.
    CanvasFallback,
    /// A disabled form control.
    Disabled,
    /// Its visible part is outside the viewport even after scrolling (or clipped away).
    Outside,
    /// It moved between two animation frames.
    Moving,
    /// Another element is on top of it at the action point.
    Covered {
        /// That element (`tag#id.class 'text'`).
        by: String,
    },
    /// The pointer moved there, but the move did not reach it (it went to another frame, or
    /// another element took it).
    Missed {
        /// The element that got it, when it was in the element's document.
        by: Option<String>,
    },
    /// An `<option>` of a closed drop-down `<select>`: no box while the list is closed.
    ClosedOption,
    /// Inert: outside the open modal dialog, which everything else of its document is.
    BehindModal {
        /// The dialog (`dialog#confirm 'Delete the file?'`).
        dialog: String,
    },
    /// Inert: under an element with the `inert` attribute.
    Inert {
        /// That element (`div#app`).
        by: String,
    },
}

impl NotReady {
    /// The check that failed, as `details.reason` names it.
    pub fn reason(&self) -> &'static str {
        match self {
            NotReady::Detached => "detached",
            NotReady::NotVisible => "not visible",
            NotReady::CanvasFallback => "canvas fallback",
            NotReady::Disabled => "disabled",
            NotReady::Outside => "outside viewport",
            NotReady::Moving => "moving",
            NotReady::Covered { .. } => "covered",
            NotReady::Missed { .. } => "input missed",
            NotReady::ClosedOption => "option of a closed select",
            NotReady::BehindModal { .. } => "behind modal dialog",
            NotReady::Inert { .. } => "inert",
        }
    }

    /// The element in the way, if one is known.
    pub fn by(&self) -> Option<&str> {
        match self {
            NotReady::Covered { by } => Some(by),
            NotReady::Missed { by } => by.as_deref(),
            NotReady::BehindModal { dialog: by } | NotReady::Inert { by } => Some(by),
            _ => None,
        }
    }

    /// Said in a sentence: `is covered by div#overlay 'Loading'`.
    pub fn describe(&self) -> String {
        match self {
            NotReady::Detached => "was removed from the page".into(),
            NotReady::NotVisible => "is not visible".into(),
            NotReady::CanvasFallback => {
                "is fallback content of a <canvas> (drawn over, it has no box)".into()
            }
            NotReady::Disabled => "is disabled".into(),
            NotReady::Outside => "is outside the viewport (even after scrolling)".into(),
            NotReady::Moving => "keeps moving".into(),
            NotReady::Covered { by } => format!("is covered by {by}"),
            NotReady::Missed { by: Some(by) } => format!("did not get the pointer ({by} did)"),
            NotReady::Missed { by: None } => {
                "did not get the pointer (it went to another frame)".into()
            }
            NotReady::ClosedOption => "is an <option> of a closed <select>".into(),
            NotReady::BehindModal { dialog } => crate::error::inert_detail(true, dialog),
            NotReady::Inert { by } => crate::error::inert_detail(false, by),
        }
    }

    /// The error at once of a check no wait can change (the element cannot get a box, or is
    /// inert until the page changes it); `None` for a check worth waiting for.
    pub fn lasting(&self, action: &str, selector: &str) -> Option<CliError> {
        let (action, selector) = (action.to_string(), selector.to_string());
        Some(match self {
            NotReady::CanvasFallback => CliError::CanvasFallback { action, selector },
            NotReady::ClosedOption => CliError::ClosedOption { action, selector },
            NotReady::BehindModal { dialog: by } | NotReady::Inert { by } => CliError::Inert {
                action,
                selector,
                modal: matches!(self, NotReady::BehindModal { .. }),
                by: by.clone(),
            },
            _ => return None,
        })
    }

    fn from_status(status: &str, by: Option<String>) -> Option<NotReady> {
        Some(match status {
            "ok" => return None,
            "notconnected" | "lost" => NotReady::Detached,
            "notvisible" => NotReady::NotVisible,
            "fallback" => NotReady::CanvasFallback,
            "disabled" => NotReady::Disabled,
            "outside" => NotReady::Outside,
            "moving" => NotReady::Moving,
            "covered" => NotReady::Covered {
                by: by.unwrap_or_else(|| "another element".into()),
            },
            "option" => NotReady::ClosedOption,
            "modal" => NotReady::BehindModal {
                dialog: by.unwrap_or_else(|| "dialog".into()),
            },
            "inert" => NotReady::Inert {
                by: by.unwrap_or_else(|| "an element".into()),
            },
            _ => NotReady::Detached,
        })
    }
}

/// What the page answers (`{status, x, y, top, levels, ...}`).
#[derive(Debug, Clone, Default, Deserialize)]
struct Reply {
    status: String,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
    /// The point reached the top document.
    #[serde(default)]
    top: bool,
    /// Frames climbed by the script.
    #[serde(default)]
    levels: u32,
    #[serde(default)]
    scrolled: bool,
    #[serde(default)]
    by: Option<String>,
    #[serde(default)]
    hovered: bool,
    #[serde(default)]
    seen: Vec<Value>,
    /// The element hosts a document (`finish`, `peek`).
    #[serde(default)]
    owner: bool,
    /// The browser's count of what was dispatched (`finish`, `peek`).
    #[serde(default)]
    counted: Option<Counted>,
    /// A form submission the browser's validation stopped (`finish`, `peek`).
    #[serde(default)]
    unsubmitted: Option<Unsubmitted>,
    /// The viewport size of the document of an `up` answered `warped`.
    #[serde(default)]
    vw: f64,
    /// See `vw`.
    #[serde(default)]
    vh: f64,
}

/// What the browser counted in the probe's document while it listened (`performance.eventCounts`).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Counted {
    /// Each event type listened for, with how many of it were dispatched in the document.
    #[serde(default)]
    events: Vec<(String, i64)>,
    /// The element (or something inside it) had the document's focus at the end.
    #[serde(default)]
    focused: bool,
    /// What was at a pointer probe's point when read, if a press was counted but not seen.
    #[serde(default)]
    hit: Option<CountedHit>,
}

/// A form submission the input started (a click on a submit button, Enter in a form) that the
/// browser's interactive validation stopped: it fired `invalid` at the fields out of their
/// constraints, focused the first and showed its message; no `submit` event, no navigation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Unsubmitted {
    /// The first invalid field, named compactly (`input[name=qty]`, `input#email`).
    #[serde(default)]
    pub field: String,
    /// Its `validationMessage` (`Value must be less than or equal to 5.`).
    #[serde(default)]
    pub message: String,
    /// How many fields were invalid.
    #[serde(default)]
    pub count: u32,
}

impl Unsubmitted {
    /// The warning of an action whose form was not submitted.
    pub fn warning(&self) -> String {
        let mut w = format!(
            "the form was not submitted: the browser's validation stopped it at {}",
            self.field
        );
        if !self.message.is_empty() {
            w.push_str(&format!(" ({:?})", self.message));
        }
        match self.count.saturating_sub(1) {
            0 => {}
            1 => w.push_str(" and 1 more invalid field"),
            n => w.push_str(&format!(" and {n} more invalid fields")),
        }
        w
    }
}

/// The page's answer for [`Counted::hit`].
#[derive(Debug, Clone, Default, Deserialize)]
struct CountedHit {
    #[serde(default)]
    on: bool,
    #[serde(default)]
    by: Option<String>,
}

/// An element aimed at: the action point in page coordinates, listeners installed.
#[derive(Debug)]
pub(crate) struct Aim {
    /// The point, in CSS pixels of the top-level viewport.
    pub x: f64,
    /// See `x`.
    pub y: f64,
    /// The owner `<iframe>` of every frame boundary crossed here, innermost first, with the
    /// point in the child frame it was handed (for [`Aim::check`]).
    hops: Vec<ObjectHandle>,
    checks: Checks,
}

/// One event a probe recorded: its type, and the element that got it when not the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// `mousedown`, `keydown`, ...
    pub kind: String,
    /// Whether the element acted on (or something inside it) got it.
    pub on_target: bool,
    /// What got it otherwise.
    pub by: Option<String>,
    /// Not the target's, and stopped before the page's listeners and default action (a guarded
    /// press: see `actionability.js`).
    pub stopped: bool,
}

/// What a probe's listeners saw; `None` when the document went away before it could be read
/// (a navigation the input started).
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// The events, in order.
    pub events: Vec<Event>,
    /// The document was gone when asked (the page navigated).
    pub gone: bool,
    /// The element is a frame element: its pointer input went to the document inside it, which
    /// these events do not show.
    pub frame_owner: bool,
    /// How many events of each kind the browser dispatched in the element's document while the
    /// probe listened (`None` when not counted). No page listener can hide these: a page that
    /// stops an event in a capture listener on its window registered before the probe's (an
    /// app's own keyboard shortcuts or pointer gestures) keeps it out of [`Seen::events`], not
    /// out of this count.
    pub dispatched: Option<Vec<(String, u64)>>,
    /// The element (or something inside it) had its document's focus when the probe finished
    /// (known where [`Seen::dispatched`] is).
    pub focused: bool,
    /// A pointer probe that saw no press though one was dispatched in its document: what was at
    /// the action point when it was read (in the same call as the counts).
    pub at_point: Option<AtPoint>,
    /// The input's default action tried to submit a form, and the browser's validation stopped
    /// it.
    pub unsubmitted: Option<Unsubmitted>,
}

/// What was at a pointer probe's action point (see [`Seen::at_point`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AtPoint {
    /// The element (or something inside it).
    Target,
    /// Another element (`tag#id.class 'text'`).
    Other(String),
}

impl Seen {
    /// The first event of one of `kinds`.
    pub fn first(&self, kinds: &[&str]) -> Option<&Event> {
        self.events
            .iter()
            .find(|e| kinds.contains(&e.kind.as_str()))
    }

    /// How many events of `kind` the browser dispatched in the element's document (`None` when
    /// not counted; see [`Seen::dispatched`]).
    pub fn dispatched(&self, kind: &str) -> Option<u64> {
        let counts = self.dispatched.as_ref()?;
        Some(
            counts
                .iter()
                .find(|(k, _)| k == kind)
                .map_or(0, |(_, n)| *n),
        )
    }

    /// How many events of `kind` the page dispatched in the document that the probe's listeners
    /// did not see (stopped before them); 0 when not counted.
    pub fn unseen(&self, kind: &str) -> u64 {
        let seen = self.events.iter().filter(|e| e.kind == kind).count() as u64;
        self.dispatched(kind).map_or(0, |n| n.saturating_sub(seen))
    }

    /// How many events of `kind` reached the element.
    pub fn count_on_target(&self, kind: &str) -> usize {
        self.events
            .iter()
            .filter(|e| e.on_target && e.kind == kind)
            .count()
    }

    /// Whether the press went elsewhere and each of its events that did was stopped before the
    /// page's listeners (a guarded aim): the page saw nothing of it.
    pub(crate) fn press_stopped(&self) -> bool {
        let mut off = self
            .events
            .iter()
            .filter(|e| PRESS_EVENTS.contains(&e.kind.as_str()) && !e.on_target)
            .peekable();
        off.peek().is_some() && off.all(|e| e.stopped)
    }

    pub(crate) fn from_values(values: Vec<Value>) -> Seen {
        let events = values
            .into_iter()
            .filter_map(|v| {
                let a = v.as_array()?;
                Some(Event {
                    kind: a.first()?.as_str()?.to_string(),
                    on_target: a.get(1).and_then(Value::as_i64) == Some(1),
                    by: a.get(2).and_then(Value::as_str).map(str::to_string),
                    stopped: a.get(3).and_then(Value::as_i64) == Some(1),
                })
            })
            .collect();
        Seen {
            events,
            gone: false,
            frame_owner: false,
            dispatched: None,
            focused: false,
            at_point: None,
            unsubmitted: None,
        }
    }

    /// What a probe answered: the events its listeners saw, whether its element is a frame
    /// element, what the browser counted, and a form submission its validation stopped.
    pub(crate) fn read(
        values: Vec<Value>,
        owner: bool,
        counted: Option<Counted>,
        unsubmitted: Option<Unsubmitted>,
    ) -> Seen {
        let mut seen = Seen {
            frame_owner: owner,
            unsubmitted,
            ..Seen::from_values(values)
        };
        if let Some(c) = counted {
            let events = c.events.into_iter();
            seen.dispatched = Some(events.map(|(k, n)| (k, n.max(0) as u64)).collect());
            seen.focused = c.focused;
            seen.at_point = c.hit.map(|h| match h.on {
                true => AtPoint::Target,
                false => AtPoint::Other(h.by.unwrap_or_else(|| "another element".into())),
            });
        }
        seen
    }

    /// A press (`pointerdown` or `mousedown`) was dispatched in the element's document, whether
    /// or not the listeners saw it.
    pub fn press_dispatched(&self) -> bool {
        ["pointerdown", "mousedown"]
            .iter()
            .any(|k| self.dispatched(k) > Some(0))
    }
}

/// Runs one operation of the script on `handle`.
async fn run(
    handle: &ObjectHandle,
    op: &str,
    arg: Value,
    deadline: &Deadline,
    selector: &str,
) -> Result<Reply> {
    handle
        .call_awaiting(
            SCRIPT,
            vec![Value::String(op.to_string()), arg],
            deadline.capped(deadline::QUICK_CALL),
            "the actionability check",
        )
        .await
        .map_err(|e| match e {
            CliError::Cdp(c) => CliError::on_node(c, selector),
            other => other,
        })
}

/// How long the page keeps listening if the command never finishes (it stops by itself); at
/// most the longest delay a page's timer takes (a longer one fires at once).
pub(crate) fn expire_ms(deadline: &Deadline) -> u64 {
    crate::deadline::page_timer_ms(
        deadline
            .remaining()
            .saturating_add(std::time::Duration::from_secs(5)),
    )
}

/// The `n`-th ancestor of `frame`.
fn ancestor(graph: &FrameGraph, frame: &str, n: u32) -> Result<String> {
    let mut cur = frame.to_string();
    for _ in 0..n {
        cur = graph
            .frame(&cur.as_str().into())
            .and_then(|f| f.parent_frame_id)
            .map(|p| p.into_inner())
            .ok_or_else(|| CliError::FrameNotFound(format!("the parent of frame {cur}")))?;
    }
    Ok(cur)
}

/// The `<iframe>` element owning `frame`, as a handle in its parent frame's session; and that
/// parent's id.
async fn owner_of(
    graph: &FrameGraph,
    frame: &str,
    deadline: &Deadline,
) -> Result<(ObjectHandle, String)> {
    let (session, owner, parent) = quad::owner_node(graph, frame, deadline).await?;
    let cap = deadline.capped(deadline::QUICK_CALL);
    let r = session
        .send_timeout(
            &dom::ResolveNode {
                backend_node_id: Some(owner),
                ..Default::default()
            },
            cap,
        )
        .await?;
    let id = r
        .object
        .object_id
        .ok_or_else(|| CliError::internal(format!("no handle for the owner of frame {frame}")))?;
    Ok((ObjectHandle::new(session, id), parent))
}

/// The content quad of the frame element `owner`, in the viewport of its own document (frame
/// `parent`, whose viewport is `size` CSS pixels): what carries a point of the frame it owns
/// into that document when the frame is drawn transformed. `None` when a box is not rendered.
async fn owner_quad(
    graph: &FrameGraph,
    owner: &ObjectHandle,
    parent: &str,
    size: (f64, f64),
    deadline: &Deadline,
) -> Result<Option<Vec<f64>>> {
    let Some(q) = quad::content_quad(owner.session(), BoxOf::Handle(owner), deadline).await? else {
        return Ok(None);
    };
    let info = graph
        .frame(&parent.into())
        .ok_or_else(|| CliError::FrameNotFound(parent.to_string()))?;
    if info.parent_frame_id.is_none() || info.is_out_of_process {
        return Ok(Some(q));
    }
    // `parent` is below its session's root frame, where the quad is: carried back into
    // `parent`'s viewport through the quad of `parent`'s own owner (same session, same space).
    let (session, node, _) = quad::owner_node(graph, parent, deadline).await?;
    let Some(by) = quad::content_quad(&session, BoxOf::Backend(node), deadline).await? else {
        return Ok(None);
    };
    Ok(quad::unmap_quad(&q, &by, size))
}

/// Carries a point from the frame `frame` (where the script stopped) up to the top document,
/// one boundary at a time: each owner `<iframe>` translates it into its document and hit tests
/// there. Returns the page point, or why not; the owners crossed go to `hops` (when given, they
/// are used instead of being looked up again).
#[allow(clippy::too_many_arguments)]
async fn cross_up(
    graph: &FrameGraph,
    mut frame: String,
    mut at: (f64, f64),
    hit: bool,
    settle: bool,
    hops: &mut Vec<ObjectHandle>,
    reuse: bool,
    deadline: &Deadline,
    selector: &str,
) -> Result<std::result::Result<(f64, f64), NotReady>> {
    for i in 0..64 {
        let owner = if reuse && i < hops.len() {
            None
        } else {
            Some(owner_of(graph, &frame, deadline).await?)
        };
        let parent = match &owner {
            Some((_, p)) => p.clone(),
            None => ancestor(graph, &frame, 1)?,
        };
        if let Some((h, _)) = owner {
            hops.push(h);
        }
        let handle = &hops[i];
        let mut r = run(
            handle,
            "up",
            json!({ "x": at.0, "y": at.1, "hit": hit, "settle": settle }),
            deadline,
            selector,
        )
        .await?;
        if r.status == "warped" {
            // The frame is drawn transformed: its offset does not carry the point, the content
            // quad of its <iframe> does (the page has no API for it; the browser does).
            let Some(q) = owner_quad(graph, handle, &parent, (r.vw, r.vh), deadline).await? else {
                return Ok(Err(NotReady::NotVisible));
            };
            r = run(
                handle,
                "up",
                json!({ "x": at.0, "y": at.1, "hit": hit, "settle": false, "quad": q }),
                deadline,
                selector,
            )
            .await?;
        }
        if let Some(nr) = NotReady::from_status(&r.status, r.by) {
            return Ok(Err(nr));
        }
        at = (r.x, r.y);
        if r.top {
            return Ok(Ok(at));
        }
        frame = ancestor(graph, &parent, r.levels)?;
    }
    Err(CliError::internal("more than 64 frame boundaries"))
}

/// Aims at `node`: checks, point, hit tests, listeners (see the module doc). `Ok(Err(_))` is a
/// check that did not pass (wait and try again); `Err(_)` is a failure of its own.
pub(crate) async fn aim(
    graph: &FrameGraph,
    node: &Located,
    opts: &AimOptions,
    deadline: &Deadline,
    selector: &str,
) -> Result<std::result::Result<Aim, NotReady>> {
    let mut scroll = opts.scroll;
    for _ in 0..2 {
        let arg = json!({
            "checks": opts.checks,
            "at": opts.at.map(|(x, y)| [x, y]),
            "scroll": scroll.as_str(),
            "events": opts.events,
            "expire": expire_ms(deadline),
            "css": opts.css,
        });
        let r = run(&node.handle, "aim", arg, deadline, selector).await?;
        if let Some(nr) = NotReady::from_status(&r.status, r.by) {
            return Ok(Err(nr));
        }
        let mut aim = Aim {
            x: r.x,
            y: r.y,
            hops: Vec::new(),
            checks: opts.checks,
        };
        if r.top {
            return Ok(Ok(aim));
        }
        let frame = ancestor(graph, &node.frame_id, r.levels)?;
        let crossed = cross_up(
            graph,
            frame,
            (r.x, r.y),
            opts.checks.hit,
            r.scrolled,
            &mut aim.hops,
            false,
            deadline,
            selector,
        )
        .await?;
        match crossed {
            Ok((x, y)) => {
                (aim.x, aim.y) = (x, y);
                return Ok(Ok(aim));
            }
            // A parent beyond the boundary does not show the point: have the element scroll
            // itself into view (Chromium carries that across processes) and aim again.
            Err(NotReady::Outside | NotReady::Covered { .. })
                if scroll == Scroll::IfNeeded && !r.scrolled =>
            {
                aim.finish(node, deadline, selector).await;
                scroll = Scroll::Always;
            }
            Err(nr) => {
                aim.finish(node, deadline, selector).await;
                return Ok(Err(nr));
            }
        }
    }
    Ok(Err(NotReady::Outside))
}

/// Listens for `events` in the document of `node` (keyboard input to it); read with
/// [`finish_listening`].
pub(crate) async fn listen(
    node: &Located,
    events: &'static [&'static str],
    deadline: &Deadline,
    selector: &str,
) -> Result<()> {
    let r = run(
        &node.handle,
        "listen",
        json!({ "events": events, "expire": expire_ms(deadline) }),
        deadline,
        selector,
    )
    .await?;
    match r.status.as_str() {
        "ok" => Ok(()),
        _ => Err(CliError::Stale(format!(
            "{selector} is no longer in the page; run `browser snapshot` again"
        ))),
    }
}

/// Stops a probe's listeners and answers what they saw (see [`Seen::gone`]).
pub(crate) async fn finish_listening(node: &Located, deadline: &Deadline, selector: &str) -> Seen {
    read_seen(node, "finish", deadline, selector).await
}

/// What a probe's listeners saw so far (they keep listening).
pub(crate) async fn peek(node: &Located, deadline: &Deadline, selector: &str) -> Seen {
    read_seen(node, "peek", deadline, selector).await
}

async fn read_seen(node: &Located, op: &str, deadline: &Deadline, selector: &str) -> Seen {
    let cap = deadline.remaining().max(deadline::CLEANUP);
    let r = node
        .handle
        .call_awaiting::<Reply>(
            SCRIPT,
            vec![Value::String(op.into()), Value::Null],
            cap.min(deadline::QUICK_CALL),
            selector,
        )
        .await;
    match r {
        Ok(r) if r.status == "ok" => Seen::read(r.seen, r.owner, r.counted, r.unsubmitted),
        Ok(_) => Seen::default(),
        Err(_) => Seen {
            gone: true,
            ..Seen::default()
        },
    }
}

/// What [`Aim::check`] found after the pointer moved to the point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hover {
    /// The move reached the element.
    pub hovered: bool,
    /// The element that got it instead, when one in its document did.
    pub by: Option<String>,
}

impl Aim {
    /// After the pointer moved to the point: the element is where it was (the move was handled in
    /// a later animation frame than the aim), still hit, and whether the move reached it.
    pub async fn check(
        &mut self,
        graph: &FrameGraph,
        node: &Located,
        deadline: &Deadline,
        selector: &str,
    ) -> Result<std::result::Result<Hover, NotReady>> {
        let r = run(&node.handle, "check", Value::Null, deadline, selector).await?;
        if let Some(nr) = NotReady::from_status(&r.status, r.by.clone()) {
            return Ok(Err(nr));
        }
        if !r.top {
            let frame = ancestor(graph, &node.frame_id, r.levels)?;
            let crossed = cross_up(
                graph,
                frame,
                (r.x, r.y),
                self.checks.hit,
                false,
                &mut self.hops,
                true,
                deadline,
                selector,
            )
            .await?;
            match crossed {
                Ok((x, y)) if (x - self.x).abs() > 0.5 || (y - self.y).abs() > 0.5 => {
                    return Ok(Err(NotReady::Moving));
                }
                Ok(_) => {}
                Err(nr) => return Ok(Err(nr)),
            }
        }
        Ok(Ok(Hover {
            hovered: r.hovered,
            by: r.by,
        }))
    }

    /// Stops the listeners and answers what they saw.
    pub async fn finish(&self, node: &Located, deadline: &Deadline, selector: &str) -> Seen {
        finish_listening(node, deadline, selector).await
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn press_events_are_the_presses_of_the_pointer_events() {
        assert_eq!(
            PRESS_EVENTS,
            [
                "pointerdown",
                "mousedown",
                "pointerup",
                "mouseup",
                "click",
                "auxclick",
                "dblclick",
                "contextmenu"
            ]
        );
    }

    use super::*;

    #[test]
    fn statuses_map_to_reasons() {
        assert_eq!(NotReady::from_status("ok", None), None);
        let covered = NotReady::from_status("covered", Some("div#x".into()));
        assert_eq!(
            covered.as_ref().map(NotReady::reason),
            Some("covered"),
            "{covered:?}"
        );
        assert_eq!(covered.as_ref().and_then(NotReady::by), Some("div#x"));
        for (s, r) in [
            ("notvisible", "not visible"),
            ("disabled", "disabled"),
            ("moving", "moving"),
            ("outside", "outside viewport"),
            ("notconnected", "detached"),
            ("option", "option of a closed select"),
            ("modal", "behind modal dialog"),
            ("inert", "inert"),
        ] {
            assert_eq!(NotReady::from_status(s, None).map(|n| n.reason()), Some(r));
        }
    }

    #[test]
    fn unsubmitted_names_the_field_its_message_and_the_rest() {
        let mut u = Unsubmitted {
            field: "input[name=qty]".into(),
            message: "Value must be less than or equal to 5.".into(),
            count: 3,
        };
        assert_eq!(
            u.warning(),
            "the form was not submitted: the browser's validation stopped it at \
             input[name=qty] (\"Value must be less than or equal to 5.\") and 2 more invalid fields"
        );
        u.count = 2;
        assert!(
            u.warning().ends_with(") and 1 more invalid field"),
            "{}",
            u.warning()
        );
        (u.count, u.message) = (1, String::new());
        assert!(
            u.warning().ends_with("at input[name=qty]"),
            "{}",
            u.warning()
        );
    }

    #[test]
    fn seen_events_decode() {
        let seen = Seen::from_values(vec![
            json!(["mousemove", 1]),
            json!(["mousedown", 0, "div#cover"]),
            json!("junk"),
        ]);
        assert_eq!(seen.events.len(), 2);
        let down = seen.first(&["pointerdown", "mousedown"]);
        assert_eq!(down.map(|e| e.on_target), Some(false));
        assert_eq!(down.and_then(|e| e.by.as_deref()), Some("div#cover"));
        assert_eq!(seen.count_on_target("mousemove"), 1);
    }
}
