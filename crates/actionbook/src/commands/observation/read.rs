//! The read commands (spec 10.6, 10.8–10.11): `viewport`, `html`, `text`, `value`, `attr`,
//! `attrs`, `box`, `styles`, `describe`, `state`, `inspect-point`. Every selector is `@eN`, CSS or
//! XPath, in any frame.

use cdp_protocol::FrameId;
use envelope::{
    AttributesData, BoundingBox, BoxData, DescribeData, DescribeState, ElementState,
    InspectPointData, InspectedElement, Nearby, Point, ReadData, StateData, StringMap, Target,
    ViewportData,
};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

use crate::boundary::ContentBoundary;
use crate::commands::navigation::tab_only;
use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::eval::{self, ObjectHandle};
use crate::page::hit_test;
use crate::page::locate::{self, Located};
use crate::page::quad::PageGeometry;
use crate::page::read::{self, AxFacts, TextMode};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

tab_only! {
    /// `browser viewport`.
    Viewport;
}

macro_rules! selector_command {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $name {
            /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
            pub selector: String,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }
    )*};
}

selector_command! {
    /// `browser html <selector>`.
    Html;
    /// `browser value <selector>`.
    Value;
    /// `browser attrs <selector>`.
    Attrs;
    /// `browser box <selector>`.
    ElementBox;
    /// `browser state <selector>`.
    State;
}

/// `browser text <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Text {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// `raw` (the rendered text, default) or `readability` (the main article's text only).
    #[cfg_attr(feature = "cli", arg(long, value_name = "raw|readability"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<TextKind>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// How `browser text` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum TextKind {
    /// The rendered text.
    Raw,
    /// The main article's text, without navigation, asides, footers and ads.
    Readability,
}

/// `browser attr <selector> <name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Attr {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// The attribute.
    pub name: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser styles <selector> [names...]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Styles {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// CSS properties to read (default: display, visibility, size, box, colours, font ...).
    #[serde(default)]
    pub names: Vec<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser describe <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Describe {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// Also describe one level around it: its parent, previous and next sibling, three children.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub nearby: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser inspect-point <x,y>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct InspectPoint {
    /// `x,y` in CSS pixels of the viewport.
    pub coordinates: String,
    /// Also report this many ancestors.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_depth: Option<usize>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// The element `selector` names (refs loaded from disk first).
async fn find(cx: &mut TabCx<'_>, selector: &str) -> Result<Located> {
    cx.load_refs();
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    locate::locate(&mut cx.state.frames, &page, selector, &deadline).await
}

fn read_data(selector: String, value: String) -> Done<ReadData> {
    Done::data(ReadData {
        target: Target::selector(selector),
        value,
    })
}

/// The viewport size, in CSS pixels.
pub(crate) async fn viewport_size(cx: &TabCx<'_>) -> Result<(f64, f64)> {
    eval::read(
        &cx.page,
        "[window.innerWidth, window.innerHeight]",
        cx.deadline.capped(crate::deadline::QUICK_CALL),
        "the viewport size",
    )
    .await
}

macro_rules! target_of {
    ($($t:ty),*) => {$(
        impl $t {
            fn tab(&self) -> &TabTarget {
                &self.target
            }
        }
    )*};
}
target_of!(
    Html,
    Text,
    Value,
    Attr,
    Attrs,
    ElementBox,
    Styles,
    Describe,
    State,
    InspectPoint
);

impl TabCommand for Viewport {
    type Data = ViewportData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ViewportData>> {
        let (w, h) = viewport_size(cx).await?;
        Ok(Done::data(ViewportData {
            width: w.max(0.0).round() as u64,
            height: h.max(0.0).round() as u64,
        }))
    }
}

impl TabCommand for Html {
    type Data = ReadData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    fn bound(data: &mut ReadData, boundary: &ContentBoundary) {
        data.value = boundary.wrap(&data.value);
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ReadData>> {
        let node = find(cx, &self.selector).await?;
        let v = read::outer_html(&node, &self.selector, &cx.deadline).await?;
        Ok(read_data(self.selector, v))
    }
}

impl TabCommand for Text {
    type Data = ReadData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    fn bound(data: &mut ReadData, boundary: &ContentBoundary) {
        data.value = boundary.wrap(&data.value);
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ReadData>> {
        let node = find(cx, &self.selector).await?;
        let mode = match self.mode {
            Some(TextKind::Readability) => TextMode::Readability,
            _ => TextMode::Raw,
        };
        let (v, warning) = read::text(&node, &self.selector, mode, &cx.deadline).await?;
        let mut done = read_data(self.selector, v);
        done.warnings.extend(warning);
        Ok(done)
    }
}

impl TabCommand for Value {
    type Data = ReadData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    fn bound(data: &mut ReadData, boundary: &ContentBoundary) {
        data.value = boundary.wrap(&data.value);
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ReadData>> {
        let node = find(cx, &self.selector).await?;
        let v = read::value(&node, &self.selector, &cx.deadline).await?;
        let warning = (!v.selected.is_empty()).then(|| {
            let all: Vec<String> = v.selected.iter().map(|s| format!("{s:?}")).collect();
            format!(
                "{} is a multiple select with {} options selected: {} (the value is the first)",
                self.selector,
                all.len(),
                all.join(", ")
            )
        });
        let mut done = read_data(self.selector, v.value);
        done.warnings.extend(warning);
        Ok(done)
    }
}

impl TabCommand for Attr {
    type Data = ReadData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    fn bound(data: &mut ReadData, boundary: &ContentBoundary) {
        data.value = boundary.wrap(&data.value);
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ReadData>> {
        let node = find(cx, &self.selector).await?;
        match read::attribute(&node, &self.selector, &self.name, &cx.deadline).await? {
            Some(v) => Ok(read_data(self.selector, v)),
            None => Err(CliError::InvalidArgument(format!(
                "{} has no attribute {:?} (`browser attrs` lists the ones it has)",
                self.selector, self.name
            ))),
        }
    }
}

impl TabCommand for Attrs {
    type Data = AttributesData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<AttributesData>> {
        let node = find(cx, &self.selector).await?;
        let v = read::attributes(&node, &self.selector, &cx.deadline).await?;
        Ok(Done::data(AttributesData {
            target: Target::selector(self.selector),
            value: v.into_iter().collect::<StringMap>(),
        }))
    }
}

impl TabCommand for Styles {
    type Data = AttributesData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<AttributesData>> {
        let names: Vec<String> = if self.names.is_empty() {
            read::DEFAULT_STYLES.iter().map(|s| s.to_string()).collect()
        } else {
            self.names.iter().map(|n| n.trim().to_string()).collect()
        };
        let node = find(cx, &self.selector).await?;
        let v = read::styles(&node, &self.selector, &names, &cx.deadline).await?;
        Ok(Done::data(AttributesData {
            target: Target::selector(self.selector),
            value: v.into_iter().collect::<StringMap>(),
        }))
    }
}

impl TabCommand for ElementBox {
    type Data = BoxData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<BoxData>> {
        let node = find(cx, &self.selector).await?;
        let page = cx.page.clone();
        let g = cx.state.frames.graph(&page, &cx.deadline).await?;
        let geo = PageGeometry::new(g, &cx.deadline);
        let b = read::border_box(&geo, &node, &self.selector, &cx.deadline)
            .await?
            .unwrap_or_default();
        Ok(Done::data(BoxData {
            target: Target::selector(self.selector),
            value: BoundingBox {
                x: b.x,
                y: b.y,
                width: b.width,
                height: b.height,
            },
        }))
    }
}

impl TabCommand for State {
    type Data = StateData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StateData>> {
        let node = find(cx, &self.selector).await?;
        let page = cx.page.clone();
        let g = cx.state.frames.graph(&page, &cx.deadline).await?;
        let s = read::state(&g, &node, &self.selector, &cx.deadline).await?;
        let mut done = Done::data(StateData {
            target: Target::selector(self.selector),
            state: ElementState {
                visible: s.visible,
                enabled: s.enabled,
                checked: s.checked,
                focused: s.focused,
                editable: s.editable,
                selected: s.selected,
            },
        });
        if s.mixed {
            // The spec's `checked` is a boolean; the third state is said beside it.
            done.warnings.push(format!(
                "the element is in the mixed state (an indeterminate checkbox, aria-checked or \
                 aria-pressed mixed): \
                 neither checked nor unchecked; `checked: {}` is its underlying value",
                s.checked
            ));
        }
        Ok(done)
    }
}

/// `role "name"` (or just `role`).
fn summary(role: &str, name: &str) -> String {
    if name.is_empty() {
        role.to_string()
    } else {
        // Escaped as the snapshot prints names: `button "Go \"quoted\""`.
        format!("{role} {}", a11y_snapshot::render::quoted(name))
    }
}

/// Whether a node is worth naming: it has a name or text, or users act on it.
fn significant(n: &AxFacts, name: &str) -> bool {
    !n.ignored && (!name.is_empty() || a11y_snapshot::roles::is_interactive_role(&n.role))
}

/// The name of a node for `--nearby`: its accessible name, else its own text children.
fn name_with_text(n: &AxFacts, all: &[AxFacts]) -> String {
    if !n.name.is_empty() {
        return n.name.clone();
    }
    let text: Vec<&str> = n
        .children
        .iter()
        .filter_map(|id| all.iter().find(|c| &c.id == id))
        .filter(|c| !c.ignored && (c.role == "text" || (c.role == "generic" && !c.name.is_empty())))
        .map(|c| c.name.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    text.join(" ")
}

/// Unnamed siblings on each side whose text `--nearby` looks one level further down for.
const NEARBY_LOOKS: usize = 3;

/// One level around the element, from the accessibility tree: the nearest meaningful ancestor,
/// the neighbours under its own parent, its first three meaningful children.
async fn nearby(node: &Located, me: &AxFacts, around: &[AxFacts], deadline: &Deadline) -> Nearby {
    // The children of the element's own accessibility parent: its siblings, and the parent's text.
    let direct = me
        .parent
        .as_deref()
        .and_then(|id| around.iter().find(|n| n.id == id))
        .cloned();
    let siblings = match direct.as_ref().and_then(|p| p.backend) {
        Some(backend) => read::ax_tree(node.session(), backend, true, deadline)
            .await
            .unwrap_or_default(),
        None => Vec::new(),
    };
    // The parent's own answer first: an ancestor in the element's answer lists the child on the
    // path first, out of order.
    let mut pool = siblings;
    pool.extend_from_slice(around);
    // The element's siblings, nearest first on each side, and its own children.
    let (before, after): (Vec<String>, Vec<String>) = match direct
        .as_ref()
        .and_then(|d| pool.iter().find(|n| n.id == d.id && !n.children.is_empty()))
    {
        Some(p) => match p.children.iter().position(|c| *c == me.id) {
            Some(at) => (
                p.children[..at].iter().rev().cloned().collect(),
                p.children[at + 1..].to_vec(),
            ),
            None => (Vec::new(), Vec::new()),
        },
        None => (Vec::new(), Vec::new()),
    };
    let children = me.children.clone();
    let near = |ids: &[String]| ids.iter().take(NEARBY_LOOKS).cloned().collect::<Vec<_>>();
    let wanted: Vec<String> = near(&before)
        .into_iter()
        .chain(near(&after))
        .chain(near(&children))
        .collect();
    with_text(node, &wanted, &mut pool, deadline).await;
    // A generic node (a plain `<span>` or `<div>`) is named by what it is in the DOM: the tags of
    // those that may be printed, the parent chain's included.
    let mut generic: Vec<i64> = Vec::new();
    let mut cur = direct.as_ref().map(|d| d.id.clone());
    for _ in 0..64 {
        let Some(p) = cur
            .as_deref()
            .and_then(|id| pool.iter().find(|n| n.id == id))
        else {
            break;
        };
        if p.role == "generic" && !p.document {
            generic.extend(p.backend);
        }
        cur = p.parent.clone();
    }
    for id in &wanted {
        if let Some(k) = pool.iter().find(|n| &n.id == id)
            && k.role == "generic"
        {
            generic.extend(k.backend);
        }
    }
    let tags = tags_of(node.session(), &generic, deadline).await;
    let label = |id: &String| {
        let k = pool.iter().find(|n| &n.id == id)?;
        if k.role == "text" && k.name == me.name && me.children.contains(id) {
            return None; // the element's own text, already its name
        }
        let name = name_with_text(k, &pool);
        let role = shown_role(
            &k.role,
            k.backend.and_then(|b| tags.get(&b)).map(String::as_str),
        );
        significant(k, &name).then(|| summary(role, &name))
    };
    let by_id = |id: &str| pool.iter().find(|n| n.id == id);
    let mut parent = None;
    let mut cur = direct.as_ref().and_then(|d| by_id(&d.id));
    for _ in 0..64 {
        // The root (the document) is no parent worth naming.
        let Some(p) = cur.filter(|p| p.parent.is_some() && !p.document) else {
            break;
        };
        if let Some(l) = label(&p.id) {
            parent = Some(l);
            break;
        }
        cur = p.parent.as_deref().and_then(by_id);
    }
    Nearby {
        parent,
        previous_sibling: near(&before).iter().find_map(label),
        next_sibling: near(&after).iter().find_map(label),
        children: children.iter().filter_map(label).take(3).collect(),
    }
}

/// The role a summary prints: the accessibility role, except that a generic node (no role of its
/// own) is named by its tag, a `<span>` as `text` (spec 10.9's example: `text "John Smith"`).
fn shown_role<'a>(role: &'a str, tag: Option<&'a str>) -> &'a str {
    match (role, tag) {
        ("generic", Some("span")) => "text",
        ("generic", Some(tag)) if !tag.is_empty() => tag,
        _ => role,
    }
}

/// The lowercase tag names of these DOM nodes (those the browser could not describe in time are
/// left out: their summary keeps the accessibility role).
async fn tags_of(
    session: &cdp_protocol::Session,
    backends: &[i64],
    deadline: &Deadline,
) -> std::collections::HashMap<i64, String> {
    let mut tags = std::collections::HashMap::new();
    for &b in backends {
        if tags.contains_key(&b) {
            continue;
        }
        let described = session
            .send_timeout(
                &cdp_protocol::dom::DescribeNode {
                    backend_node_id: Some(cdp_protocol::BackendNodeId::new(b)),
                    ..Default::default()
                },
                deadline.capped(crate::deadline::QUICK_CALL),
            )
            .await;
        if let Ok(r) = described {
            tags.insert(b, r.node.local_name.to_ascii_lowercase());
        }
    }
    tags
}

/// Brings into `pool` the nodes `ids` name with their own children, where it lacks them or they
/// have no name (their text is one level down: `<li>Jane <b>Roe</b></li>`). Chromium leaves out
/// the children of an ignored node (a plain `<div>`), so those are fetched by id: a DOM node's
/// accessibility id is its backend node id, which is checked on the answer.
async fn with_text(node: &Located, ids: &[String], pool: &mut Vec<AxFacts>, deadline: &Deadline) {
    let fetch: Vec<i64> = ids
        .iter()
        .filter(|id| match pool.iter().find(|n| &n.id == *id) {
            Some(n) => !n.ignored && n.name.is_empty() && !n.children.is_empty(),
            None => true,
        })
        .filter_map(|id| id.parse::<i64>().ok().filter(|b| *b > 0))
        .collect();
    let found = join_all(
        fetch
            .iter()
            .map(|b| read::ax_tree(node.session(), *b, true, deadline)),
    )
    .await;
    for (b, nodes) in fetch.iter().zip(found) {
        let Ok(nodes) = nodes else { continue };
        // Only when the id really was the node's backend id.
        if nodes
            .iter()
            .any(|n| n.backend == Some(*b) && n.id == b.to_string())
        {
            pool.extend(nodes);
        }
    }
}

impl TabCommand for Describe {
    type Data = DescribeData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<DescribeData>> {
        let node = find(cx, &self.selector).await?;
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let g = cx.state.frames.graph(&page, &deadline).await?;
        let backend = node.encoded.backend_node_id;
        let (ax, facts, state) = tokio::join!(
            read::ax_tree(node.session(), backend, self.nearby, &deadline),
            read::dom_facts(&node.handle, &self.selector, &deadline),
            read::state(&g, &node, &self.selector, &deadline),
        );
        let (ax, facts, state) = (ax.unwrap_or_default(), facts?, state?);
        let me = ax
            .iter()
            .find(|n| n.backend == Some(backend))
            .cloned()
            .unwrap_or_else(|| AxFacts {
                role: "generic".into(),
                ..Default::default()
            });
        let name = if me.name.is_empty() {
            facts.fallback_name.clone()
        } else {
            me.name.clone()
        };
        let mut summary_text = summary(shown_role(&me.role, Some(&facts.tag)), &name);
        // Qualifiers after role and name (the spec's order), in brackets as the reference CLI
        // writes them (`checkbox "Agree" [disabled, checked]`): a name cannot be taken for one.
        let mut qualifiers = Vec::new();
        if !state.enabled {
            qualifiers.push("disabled");
        }
        if state.checkable && state.mixed {
            qualifiers.push("mixed");
        } else if state.checkable && state.checked {
            qualifiers.push("checked");
        }
        if state.selectable && state.selected {
            qualifiers.push("selected");
        }
        if !qualifiers.is_empty() {
            summary_text.push_str(&format!(" [{}]", qualifiers.join(", ")));
        }
        let nearby = match self.nearby {
            true => Some(nearby(&node, &me, &ax, &deadline).await),
            false => None,
        };
        Ok(Done::data(DescribeData {
            target: Target::selector(self.selector),
            summary: summary_text,
            role: me.role,
            name,
            tag: facts.tag,
            attributes: facts.attributes.into_iter().collect::<StringMap>(),
            state: DescribeState {
                visible: state.visible,
                enabled: state.enabled,
                checked: state.checkable.then_some(state.checked),
                selected: state.selectable.then_some(state.selected),
            },
            nearby,
        }))
    }
}

/// Role, name, a selector that finds it again and its ref, of one hit element (or ancestor).
async fn inspected(
    cx: &TabCx<'_>,
    g: &frame_graph::FrameGraph,
    session: &cdp_protocol::Session,
    frame: &FrameId,
    backend: i64,
    deadline: &Deadline,
) -> InspectedElement {
    let (role, name) = read::role_and_name(session, backend, deadline).await;
    let main = g.main_frame().frame_id;
    let selector = if *frame == main {
        let handle = session
            .send_timeout(
                &cdp_protocol::dom::ResolveNode {
                    backend_node_id: Some(cdp_protocol::BackendNodeId::new(backend)),
                    ..Default::default()
                },
                deadline.capped(crate::deadline::QUICK_CALL),
            )
            .await
            .ok()
            .and_then(|r| r.object.object_id)
            .map(|id| ObjectHandle::new(session.clone(), id));
        match handle {
            Some(h) => read::selector_of(&h, deadline).await.ok(),
            None => None,
        }
    } else {
        None
    };
    // Elements of other frames: the frame-scoped encoded id (`locate` takes it).
    let selector = selector.unwrap_or_else(|| {
        let index = g.index_for(frame).map(|i| i.get()).unwrap_or(0);
        format!("{index}-{backend}")
    });
    let ref_id = cx
        .state
        .frames
        .refs
        .as_ref()
        .and_then(|r| r.get(frame.as_str(), backend))
        .map(|r| r.to_string().trim_start_matches('@').to_string());
    InspectedElement {
        role,
        name,
        selector,
        ref_id,
    }
}

/// Whether the first meaningful ancestor of `n` in the partial tree `ax` is the document.
fn under_document(ax: &[read::AxFacts], n: &read::AxFacts) -> bool {
    let mut cur = n.parent.as_ref();
    for _ in 0..ax.len() {
        let Some(p) = cur.and_then(|id| ax.iter().find(|d| d.id == *id)) else {
            return false;
        };
        if p.document {
            return true;
        }
        if !p.ignored {
            return false;
        }
        cur = p.parent.as_ref();
    }
    false
}

impl TabCommand for InspectPoint {
    type Data = InspectPointData;
    fn target(&self) -> &TabTarget {
        self.tab()
    }
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InspectPointData>> {
        let bad = || {
            CliError::InvalidArgument(format!(
                "invalid coordinates {:?}: expected x,y in viewport CSS pixels, e.g. 120,45",
                self.coordinates
            ))
        };
        let (x, y) = match crate::commands::interaction::parse_coordinates(&self.coordinates) {
            Some(p) => p?,
            None => return Err(bad()),
        };
        let (w, h) = viewport_size(cx).await?;
        if x >= w || y >= h {
            return Err(CliError::InvalidArgument(format!(
                "point {x},{y} is outside the viewport ({w}x{h} CSS pixels)"
            )));
        }
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let g = cx.state.frames.graph(&page, &deadline).await?;
        let hit = hit_test::hit_test(&g, &page, x, y, &deadline).await?;
        let element = inspected(
            cx,
            &g,
            &hit.session,
            &hit.frame_id,
            hit.backend_node_id,
            &deadline,
        )
        .await;
        let mut parents = Vec::new();
        let depth = self.parent_depth.unwrap_or(0);
        if depth > 0 {
            let ax = read::ax_tree(&hit.session, hit.backend_node_id, true, &deadline)
                .await
                .unwrap_or_default();
            let mut chain = Vec::new();
            let mut cur = ax
                .iter()
                .find(|n| n.backend == Some(hit.backend_node_id))
                .and_then(|n| n.parent.clone());
            while let Some(id) = cur {
                let Some(n) = ax.iter().find(|n| n.id == id) else {
                    break;
                };
                // The document is no element: the chain ends below it (in a frame, at the
                // frame's own document; the frame element is in another document).
                if n.document {
                    break;
                }
                // An unnamed generic right under the document (ignored nodes between) is the <body> (or <html>) wrapper:
                // the top document's tree ignores it, a frame's keeps it; it means nothing in both.
                let wrapper = n.role == "generic" && n.name.is_empty() && under_document(&ax, n);
                if !n.ignored
                    && !wrapper
                    && n.role != "none"
                    && let Some(b) = n.backend
                {
                    chain.push(b);
                }
                if chain.len() >= depth {
                    break;
                }
                cur = n.parent.clone();
            }
            parents = join_all(
                chain
                    .into_iter()
                    .map(|b| inspected(cx, &g, &hit.session, &hit.frame_id, b, &deadline)),
            )
            .await;
        }
        Ok(Done::data(InspectPointData {
            point: Point { x, y },
            element,
            parents,
            screenshot_path: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summaries_quote_names_as_the_snapshot_does() {
        assert_eq!(summary("button", "Go"), r#"button "Go""#);
        assert_eq!(
            summary("button", r#"Go "quoted" \ now"#),
            r#"button "Go \"quoted\" \\ now""#
        );
        assert_eq!(summary("generic", ""), "generic");
    }
}
