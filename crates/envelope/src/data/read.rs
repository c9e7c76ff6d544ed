//! Observation data: snapshot, screenshot/pdf, title/url, viewport, the read commands
//! (html/text/value/attr/attrs/box/styles), describe, state, inspect-point, logs.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{StringMap, role_and_name};
use crate::num;
use crate::text::{RenderText, TextBody};

/// The element a command acted on or read (`data.target`): `{"selector": ...}` or,
/// for commands given `x,y`, `{"coordinates": "x,y"}`. Prints as the selector or
/// coordinates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Target {
    /// A ref (`@e5`), CSS selector or XPath.
    Selector {
        /// The selector as given.
        selector: String,
    },
    /// Page coordinates as given (`"420,310"`).
    Coordinates {
        /// The coordinates as given.
        coordinates: String,
    },
}

impl Target {
    /// A selector target.
    pub fn selector(selector: impl Into<String>) -> Self {
        Target::Selector {
            selector: selector.into(),
        }
    }

    /// A coordinates target (`"x,y"`).
    pub fn coordinates(coordinates: impl Into<String>) -> Self {
        Target::Coordinates {
            coordinates: coordinates.into(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Selector { selector } => f.write_str(selector),
            Target::Coordinates { coordinates } => f.write_str(coordinates),
        }
    }
}

/// A point in CSS pixels; also the data of `browser cursor-position`, printed as `x,y`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    /// Horizontal position.
    #[serde(serialize_with = "num::compact")]
    pub x: f64,
    /// Vertical position.
    #[serde(serialize_with = "num::compact")]
    pub y: f64,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", num::fmt(self.x), num::fmt(self.y))
    }
}

impl RenderText for Point {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(self);
    }
}

/// One ref'd node of a snapshot (`data.nodes[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SnapshotNode {
    /// The ref without `@` (`e1`).
    #[serde(rename = "ref")]
    pub ref_id: String,
    /// Accessibility role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Current value (empty when none).
    pub value: String,
}

/// Snapshot counts (`data.stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SnapshotStats {
    /// Nodes listed in `nodes`.
    pub node_count: u64,
    /// How many of them are interactive.
    pub interactive_count: u64,
}

/// `browser snapshot` data. The tree itself is in the file at `path`; truncation is
/// reported only in `meta.truncated`.
///
/// ```text
/// Refs are stable across snapshots — if the DOM node stays the same, the ref stays the same.
/// output saved to /Users/alice/.actionbook/sessions/s1/snapshot_1711900000000.txt
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotData {
    /// Always `"snapshot"` (see [`SnapshotData::FORMAT`]).
    pub format: String,
    /// Where the snapshot text was saved.
    pub path: String,
    /// The ref'd nodes, flat, in document order.
    pub nodes: Vec<SnapshotNode>,
    /// Counts.
    pub stats: SnapshotStats,
    /// The tab's snapshot revision this answer shows (only with `--diff`, `--since`,
    /// `--mark-new`, `--max-bytes`/`--max-tokens`, `--page`, `--viewport` or `--modal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// What a diff compared (`--diff` / `--since` only).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<SnapshotDiff>,
    /// Lines marked ` [new]` (`--mark-new` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_count: Option<u64>,
    /// How many pages the snapshot was cut into (`--max-bytes`/`--max-tokens`/`--page` only;
    /// `meta.pagination` says which one this is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u64>,
}

/// What `browser snapshot --diff` compared: `nodes` then lists the added and changed ref'd
/// nodes, and the file holds the changed lines marked `+`, `-`, `~` under their ancestors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SnapshotDiff {
    /// The revision diffed against; `null` when the answer is a full snapshot.
    pub base_revision: Option<u64>,
    /// The answer is a full snapshot (no earlier snapshot of this document to diff against).
    pub full: bool,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Lines changed.
    pub changed: u64,
}

impl SnapshotData {
    /// The `format` value.
    pub const FORMAT: &'static str = "snapshot";
    /// The guidance line printed before the path (spec 10.1).
    pub const REFS_NOTE: &'static str = "Refs are stable across snapshots — if the DOM node stays the same, the ref stays the same.";

    /// Snapshot data with `format` set.
    pub fn new(path: impl Into<String>, nodes: Vec<SnapshotNode>, stats: SnapshotStats) -> Self {
        SnapshotData {
            format: Self::FORMAT.to_owned(),
            path: path.into(),
            nodes,
            stats,
            revision: None,
            diff: None,
            new_count: None,
            pages: None,
        }
    }
}

impl RenderText for SnapshotData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(Self::REFS_NOTE);
        let revision = self.revision.unwrap_or_default();
        match &self.diff {
            Some(d) if d.full => body.line(format_args!(
                "revision {revision}: full snapshot (no earlier snapshot of this document)"
            )),
            Some(d) => match d.base_revision {
                Some(base) if d.added + d.removed + d.changed == 0 => body.line(format_args!(
                    "revision {revision}: no changes since revision {base}"
                )),
                base => body.line(format_args!(
                    "revision {revision}: {} added, {} removed, {} changed since revision {}",
                    d.added,
                    d.removed,
                    d.changed,
                    base.unwrap_or_default()
                )),
            },
            None => {}
        }
        if let Some(n) = self.new_count {
            body.line(format_args!(
                "revision {revision}: {n} new since the previous snapshot"
            ));
        }
        if let Some(p) = self.pages {
            body.line(format_args!("revision {revision}: {p} page(s)"));
        } else if self.diff.is_none() && self.new_count.is_none() && self.revision.is_some() {
            body.line(format_args!("revision {revision}"));
        }
        body.line(format_args!("output saved to {}", self.path));
    }
}

/// A written file (`data.artifact`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Artifact {
    /// Absolute path of the file.
    pub path: String,
    /// `image/png`, `image/jpeg` or `application/pdf`.
    pub mime_type: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// `browser screenshot` / `pdf` data.
///
/// ```text
/// ok browser screenshot
/// path: /tmp/google.png
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ArtifactData {
    /// The written file.
    pub artifact: Artifact,
}

impl RenderText for ArtifactData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("path", &self.artifact.path);
    }
}

/// `browser title` / `url` data: `{ "value": ... }`, printed as the value.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageValueData {
    /// The title or URL.
    pub value: String,
}

impl RenderText for PageValueData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.value);
    }
}

/// `browser viewport` data, printed as `1440x900`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ViewportData {
    /// Width in CSS pixels.
    pub width: u64,
    /// Height in CSS pixels.
    pub height: u64,
}

impl RenderText for ViewportData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(format_args!("{}x{}", self.width, self.height));
    }
}

/// `browser html` / `text` / `value` / `attr` data, printed as the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadData {
    /// The element read.
    pub target: Target,
    /// Outer HTML, inner text, input value or attribute value.
    pub value: String,
}

impl RenderText for ReadData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.value);
    }
}

/// `browser attrs` / `styles` data, printed as one `name: value` line per entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributesData {
    /// The element read.
    pub target: Target,
    /// Attribute names and values (document order) or style properties and computed
    /// values (requested order).
    pub value: StringMap,
}

impl RenderText for AttributesData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        for (k, v) in self.value.iter() {
            body.field(k, v);
        }
    }
}

/// An element's bounding box in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BoundingBox {
    /// Left edge.
    #[serde(serialize_with = "num::compact")]
    pub x: f64,
    /// Top edge.
    #[serde(serialize_with = "num::compact")]
    pub y: f64,
    /// Width.
    #[serde(serialize_with = "num::compact")]
    pub width: f64,
    /// Height.
    #[serde(serialize_with = "num::compact")]
    pub height: f64,
}

/// `browser box` data.
///
/// ```text
/// x: 10
/// y: 20
/// width: 120
/// height: 32
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoxData {
    /// The element measured.
    pub target: Target,
    /// Its box.
    pub value: BoundingBox,
}

impl RenderText for BoxData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("x", num::fmt(self.value.x));
        body.field("y", num::fmt(self.value.y));
        body.field("width", num::fmt(self.value.width));
        body.field("height", num::fmt(self.value.height));
    }
}

/// `data.state` of `browser describe`: `visible` and `enabled` always, the rest when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DescribeState {
    /// Rendered and not hidden.
    pub visible: bool,
    /// Not disabled.
    pub enabled: bool,
    /// Checked (checkboxes, radios; omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// Selected (options, tabs; omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
}

/// One level of context around a described element (`describe --nearby`): each
/// entry is a `role "name"` summary.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Nearby {
    /// The parent, if it has a name, text or interactive meaning.
    pub parent: Option<String>,
    /// The previous sibling, likewise.
    pub previous_sibling: Option<String>,
    /// The next sibling, likewise.
    pub next_sibling: Option<String>,
    /// Up to three children.
    pub children: Vec<String>,
}

/// `browser describe` data.
///
/// ```text
/// button "Edit"
/// parent: listitem "John Smith"
/// previous_sibling: text "John Smith"
/// ```
///
/// The first line is `summary`; with `nearby`, each present neighbour adds a line
/// (`parent:`, `previous_sibling:`, `next_sibling:`, then one `child:` per child).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescribeData {
    /// The element described.
    pub target: Target,
    /// Rule-based summary: role, then name, then qualifiers (`button "Google Search"`).
    pub summary: String,
    /// ARIA role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Tag name, lower case.
    pub tag: String,
    /// Key attributes (type, href, ...).
    pub attributes: StringMap,
    /// Current state.
    pub state: DescribeState,
    /// Neighbours (`--nearby`); `null` otherwise.
    pub nearby: Option<Nearby>,
}

impl RenderText for DescribeData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.summary);
        if let Some(n) = &self.nearby {
            if let Some(p) = &n.parent {
                body.field("parent", p);
            }
            if let Some(p) = &n.previous_sibling {
                body.field("previous_sibling", p);
            }
            if let Some(p) = &n.next_sibling {
                body.field("next_sibling", p);
            }
            for c in &n.children {
                body.field("child", c);
            }
        }
    }
}

/// `data.state` of `browser state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ElementState {
    /// Rendered and not hidden.
    pub visible: bool,
    /// Not disabled.
    pub enabled: bool,
    /// Checked.
    pub checked: bool,
    /// Has focus.
    pub focused: bool,
    /// Accepts text input.
    pub editable: bool,
    /// Selected.
    pub selected: bool,
}

/// `browser state` data.
///
/// ```text
/// visible: true
/// enabled: true
/// checked: false
/// focused: true
/// editable: true
/// selected: false
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateData {
    /// The element inspected.
    pub target: Target,
    /// Its state.
    pub state: ElementState,
}

impl RenderText for StateData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        let s = &self.state;
        body.field("visible", s.visible);
        body.field("enabled", s.enabled);
        body.field("checked", s.checked);
        body.field("focused", s.focused);
        body.field("editable", s.editable);
        body.field("selected", s.selected);
    }
}

/// An element found by `inspect-point` (or one of its parents).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct InspectedElement {
    /// ARIA role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// A selector that finds it again.
    pub selector: String,
    /// Its ref in the tab's ref table (`e5`), when a snapshot gave it one; omitted otherwise.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<String>,
}

/// `browser inspect-point` data.
///
/// ```text
/// button "Google Search"
/// selector: input[name=btnK]
/// point: 420,310
/// ```
///
/// An element with a ref adds `ref: @eN` after `point:`; each parent (`--parent-depth`)
/// adds `parent: role "name"`, and a screenshot adds `screenshot_path: <path>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectPointData {
    /// The point inspected.
    pub point: Point,
    /// The topmost element there.
    pub element: InspectedElement,
    /// Its ancestors, nearest first (`--parent-depth`).
    pub parents: Vec<InspectedElement>,
    /// A screenshot marking the point, if one was taken; `null` otherwise.
    pub screenshot_path: Option<String>,
}

impl RenderText for InspectPointData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(role_and_name(&self.element.role, &self.element.name));
        body.field("selector", &self.element.selector);
        body.field("point", self.point);
        // Extras after the spec's three lines, so those keep their places.
        if let Some(r) = &self.element.ref_id {
            body.field("ref", format_args!("@{r}"));
        }
        for p in &self.parents {
            body.field("parent", role_and_name(&p.role, &p.name));
        }
        if let Some(path) = &self.screenshot_path {
            body.field("screenshot_path", path);
        }
    }
}

/// One console message or page error (`data.items[]` of `logs`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LogEntry {
    /// Stable id, usable with `--since` (`log-1`).
    pub id: String,
    /// `log`, `info`, `warn`, `error`, `debug`, ...
    pub level: String,
    /// The message text.
    pub text: String,
    /// Source file or URL, when known (`null` otherwise).
    pub source: Option<String>,
    /// When it was logged, milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// The URL of the frame it was logged in, when known (an extra: omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_url: Option<String>,
}

/// `browser logs console` / `errors` data.
///
/// ```text
/// 1 log
/// info 1710000000000 app.js App mounted
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LogsData {
    /// The entries, oldest first.
    pub items: Vec<LogEntry>,
    /// Whether the log was cleared after reading (`--clear`).
    pub cleared: bool,
}

impl RenderText for LogsData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.items.len(), "log", "logs");
        for e in &self.items {
            match e.source.as_deref().filter(|s| !s.is_empty()) {
                Some(src) => body.line(format_args!(
                    "{} {} {} {}",
                    e.level, e.timestamp_ms, src, e.text
                )),
                None => body.line(format_args!("{} {} {}", e.level, e.timestamp_ms, e.text)),
            }
        }
    }
}
