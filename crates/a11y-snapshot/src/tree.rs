//! The merged snapshot tree: DOM pieces and AX trees of every frame joined into one pruned tree,
//! with refs, encoded ids and the maps that lead back to nodes.
//!
//! [`PageSource`] is the seam between capture and everything else: any capture strategy (today
//! `DOM.getDocument` + per-frame `getFullAXTree`, later `DOMSnapshot.captureSnapshot` with our own role and
//! name computation) only has to fill it in.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::Serialize;

use crate::ax_input::{AxInput, ChromiumAx, ComputedTree};
use crate::dom::{DomKind, FrameDom};
use crate::ids::{EncodedId, Ref};
use crate::raw::{AxNode, AxScalar};
use crate::refs::{RefEntry, RefTable};
use crate::roles::{
    RoleKind, clean_text, is_content_role, is_interactive_role, is_leaf_role, map_role,
};

/// Everything captured for one frame: its DOM piece and its AX nodes.
#[derive(Debug, Clone, Default)]
pub struct FrameSource {
    /// Stable frame ordinal (0 = main frame).
    pub frame_index: u32,
    /// CDP frameId.
    pub frame_id: String,
    /// Parent frame's id (None for the main frame).
    pub parent_frame_id: Option<String>,
    /// The `<iframe>` element in the parent frame's document.
    pub owner_backend_node_id: Option<i64>,
    /// Frame URL.
    pub url: String,
    /// The CDP session that owns the frame (None = the page session).
    pub session_id: Option<String>,
    /// The frame's DOM.
    pub dom: FrameDom,
    /// The frame's `getFullAXTree` nodes (used when `computed` is None).
    pub ax: Vec<AxNode>,
    /// The frame's AX tree as computed from the DOM capture (takes precedence over `ax`).
    pub computed: Option<ComputedTree>,
}

/// Everything captured for one page, main frame first, then the other frames in document order.
#[derive(Debug, Clone, Default)]
pub struct PageSource {
    /// Per-frame captures.
    pub frames: Vec<FrameSource>,
    /// Wall time the capture took.
    pub capture_time: Duration,
    /// Parts that could not be captured (a frame that went away meanwhile, ...), for `meta.warnings`.
    pub warnings: Vec<String>,
    /// The main frame's layout viewport in its document's coordinates, when it was measured.
    pub viewport: Option<BoundingBox>,
}

/// Boolean states of a node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct States {
    /// checked (or aria-checked=true).
    pub checked: bool,
    /// aria-checked=mixed.
    pub mixed: bool,
    /// aria-pressed=true.
    pub pressed: bool,
    /// selected.
    pub selected: bool,
    /// Some(expanded) when the node is expandable.
    pub expanded: Option<bool>,
    /// disabled.
    pub disabled: bool,
    /// focused.
    pub focused: bool,
    /// required.
    pub required: bool,
}

/// One node of the merged tree.
#[derive(Debug, Clone)]
pub struct Node {
    /// Role as printed (`button`, `text`, `iframe`, `generic`, ...).
    pub role: String,
    /// Cleaned accessible name ("" when none).
    pub name: String,
    /// Cleaned value ("" when none).
    pub value: String,
    /// States.
    pub states: States,
    /// Lower-case tag name of the DOM element ("" for text and nodes without DOM).
    pub tag: String,
    /// backendNodeId (0 when the AX node has no DOM node).
    pub backend_node_id: i64,
    /// Frame ordinal.
    pub frame_index: u32,
    /// Link target (absolute URL) for links.
    pub url: Option<String>,
    /// Has an interactive role.
    pub interactive: bool,
    /// Interactive only through cursor:pointer / onclick / tabindex / contenteditable.
    pub cursor: bool,
    /// A scroll container (Chromium's `isScrollable`).
    pub scrollable: bool,
    /// The node's ref, when it gets one.
    pub reference: Option<Ref>,
    /// Children (for an iframe: the child frame's top-level nodes).
    pub children: Vec<u32>,
    /// Entry index in the frame's DOM arena (u32::MAX when unknown).
    pub dom_entry: u32,
}

impl Node {
    /// The encoded id `<frameIndex>-<backendNodeId>`.
    pub fn encoded_id(&self) -> EncodedId {
        EncodedId::new(self.frame_index, self.backend_node_id)
    }
}

/// A frame as seen by a snapshot.
#[derive(Debug, Clone)]
pub struct SnapshotFrame {
    /// Frame ordinal.
    pub frame_index: u32,
    /// CDP frameId.
    pub frame_id: String,
    /// Parent frame id.
    pub parent_frame_id: Option<String>,
    /// The owning `<iframe>` element in the parent document.
    pub owner_backend_node_id: Option<i64>,
    /// URL.
    pub url: String,
    /// Owning CDP session (None = page session).
    pub session_id: Option<String>,
    /// The frame's DOM arena (kept for XPaths and subtree selection).
    pub dom: FrameDom,
    /// The frame's top-level nodes.
    pub roots: Vec<u32>,
    /// The iframe line this frame is nested under.
    pub host: Option<u32>,
    /// Frame path for display ("Main → Frame 1 → Frame 3").
    pub path: String,
}

/// Numbers about one snapshot.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct SnapshotMetrics {
    /// DOM elements across all frames.
    pub element_count: usize,
    /// Frames captured.
    pub frame_count: usize,
    /// AX nodes received.
    pub ax_node_count: usize,
    /// Nodes kept in the tree.
    pub node_count: usize,
    /// Nodes with a ref.
    pub ref_count: usize,
    /// Capture (browser) time in ms.
    pub capture_ms: f64,
    /// Merge/prune time in ms.
    pub build_ms: f64,
}

/// Frame information in [`SnapshotMaps`].
#[derive(Debug, Clone, Serialize)]
pub struct FrameMapInfo {
    /// CDP frameId.
    pub frame_id: String,
    /// Parent frame id.
    pub parent_frame_id: Option<String>,
    /// URL.
    pub url: String,
    /// Owner element in the parent frame.
    pub owner_backend_node_id: Option<i64>,
    /// Owning session id.
    pub session_id: Option<String>,
}

/// A bounding box in top-level page coordinates (CSS px).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BoundingBox {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// The lookup maps returned with a snapshot.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SnapshotMaps {
    /// encoded id → backendNodeId.
    pub backend_node_ids: BTreeMap<EncodedId, i64>,
    /// encoded id → XPath relative to its frame document.
    pub xpaths: BTreeMap<EncodedId, String>,
    /// frameIndex → frame info.
    pub frames: BTreeMap<u32, FrameMapInfo>,
    /// encoded id → bounding box (only when asked for).
    pub boxes: BTreeMap<EncodedId, BoundingBox>,
}

/// One accessibility snapshot of a page across all its frames.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// All kept nodes (arena; children refer to indices).
    pub nodes: Vec<Node>,
    /// Top-level nodes of the main frame.
    pub roots: Vec<u32>,
    /// Frames in document order, main frame first.
    pub frames: Vec<SnapshotFrame>,
    /// Numbers.
    pub metrics: SnapshotMetrics,
    /// Bounding boxes, when captured.
    pub boxes: BTreeMap<EncodedId, BoundingBox>,
    /// Parts of the page that could not be captured.
    pub warnings: Vec<String>,
    /// The main frame's layout viewport at capture time (document coordinates), when measured.
    pub viewport: Option<BoundingBox>,
    by_id: crate::fasthash::FastMap<EncodedId, u32>,
}

const NO_ENTRY: u32 = u32::MAX;

impl Snapshot {
    /// Merges and prunes a capture, giving refs from (and recording them in) `refs`.
    pub fn build(source: PageSource, refs: &mut RefTable) -> Snapshot {
        let started = std::time::Instant::now();
        let mut snap = Snapshot::default();
        let mut ax_count = 0;
        let mut element_count = 0;
        let capture_time = source.capture_time;
        snap.warnings = source.warnings;
        snap.viewport = source.viewport;
        for mut f in source.frames {
            ax_count += f.computed.as_ref().map_or(f.ax.len(), ComputedTree::len);
            element_count += f.dom.element_count();
            let roots = build_frame(&mut snap.nodes, &mut f);
            snap.frames.push(SnapshotFrame {
                frame_index: f.frame_index,
                frame_id: f.frame_id,
                parent_frame_id: f.parent_frame_id,
                owner_backend_node_id: f.owner_backend_node_id,
                url: f.url,
                session_id: f.session_id,
                dom: f.dom,
                roots,
                host: None,
                path: String::new(),
            });
            // f.ax is dropped here: the AX JSON of a frame does not outlive its merge.
        }
        snap.nest_frames();
        snap.roots = snap
            .frames
            .first()
            .map(|f| f.roots.clone())
            .unwrap_or_default();
        snap.assign_refs(refs);
        for (i, n) in snap.nodes.iter().enumerate() {
            if n.backend_node_id != 0 {
                snap.by_id.entry(n.encoded_id()).or_insert(i as u32);
            }
        }
        snap.metrics = SnapshotMetrics {
            element_count,
            frame_count: snap.frames.len(),
            ax_node_count: ax_count,
            node_count: snap.nodes.len(),
            ref_count: snap.nodes.iter().filter(|n| n.reference.is_some()).count(),
            capture_ms: capture_time.as_secs_f64() * 1000.0,
            build_ms: started.elapsed().as_secs_f64() * 1000.0,
        };
        snap
    }

    /// Puts each child frame's top-level nodes under its `<iframe>` line (a synthetic iframe node when the
    /// owner element was pruned or is unknown).
    fn nest_frames(&mut self) {
        let index_of: HashMap<String, usize> = self
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (f.frame_id.clone(), i))
            .collect();
        for i in 1..self.frames.len() {
            let (parent_pos, owner) = {
                let f = &self.frames[i];
                let p = f
                    .parent_frame_id
                    .as_ref()
                    .and_then(|p| index_of.get(p).copied())
                    .unwrap_or(0);
                (p, f.owner_backend_node_id)
            };
            let parent_index = self.frames[parent_pos].frame_index;
            let host = owner.and_then(|o| {
                self.nodes.iter().position(|n| {
                    n.frame_index == parent_index && n.backend_node_id == o && n.role == "iframe"
                })
            });
            let host = match host {
                Some(h) => h as u32,
                None => {
                    let entry = owner
                        .and_then(|o| self.frames[parent_pos].dom.find(o))
                        .unwrap_or(NO_ENTRY);
                    let node = Node {
                        role: "iframe".into(),
                        name: String::new(),
                        value: String::new(),
                        states: States::default(),
                        tag: "iframe".into(),
                        backend_node_id: owner.unwrap_or(0),
                        frame_index: parent_index,
                        url: None,
                        interactive: true,
                        cursor: false,
                        scrollable: false,
                        reference: None,
                        children: Vec::new(),
                        dom_entry: entry,
                    };
                    self.nodes.push(node);
                    let h = (self.nodes.len() - 1) as u32;
                    self.frames[parent_pos].roots.push(h);
                    h
                }
            };
            let roots = self.frames[i].roots.clone();
            self.nodes[host as usize].children.extend(roots);
            self.frames[i].host = Some(host);
        }
        for i in 0..self.frames.len() {
            let mut path = Vec::new();
            let mut cur = Some(i);
            let mut guard = 0;
            while let Some(c) = cur {
                let f = &self.frames[c];
                path.push(if f.frame_index == 0 {
                    "Main".to_string()
                } else {
                    format!("Frame {}", f.frame_index)
                });
                cur = f
                    .parent_frame_id
                    .as_ref()
                    .and_then(|p| index_of.get(p).copied());
                guard += 1;
                if guard > 64 {
                    break;
                }
            }
            path.reverse();
            self.frames[i].path = path.join(" → ");
        }
    }

    /// Walks the tree in document order: clears cursor flags inside interactive ancestors and gives refs.
    fn assign_refs(&mut self, refs: &mut RefTable) {
        let frame_pos: HashMap<u32, usize> = self
            .frames
            .iter()
            .enumerate()
            .map(|(i, f)| (f.frame_index, i))
            .collect();
        let mut seen: std::collections::HashSet<EncodedId> = std::collections::HashSet::new();
        let mut stack: Vec<(u32, bool)> = self.roots.iter().rev().map(|&r| (r, false)).collect();
        let mut visited = vec![false; self.nodes.len()];
        while let Some((i, inside)) = stack.pop() {
            let iu = i as usize;
            if std::mem::replace(&mut visited[iu], true) {
                continue;
            }
            let n = &mut self.nodes[iu];
            if inside && n.cursor && !n.interactive {
                n.cursor = false;
            }
            let eligible = n.backend_node_id != 0
                && (n.interactive || n.cursor || (is_content_role(&n.role) && !n.name.is_empty()));
            if eligible
                && seen.insert(n.encoded_id())
                && let Some(&fp) = frame_pos.get(&n.frame_index)
            {
                let f = &self.frames[fp];
                let xpath = if n.dom_entry != NO_ENTRY {
                    f.dom.xpath(n.dom_entry)
                } else {
                    String::new()
                };
                let r = refs.assign(RefEntry {
                    reference: Ref::new(1).unwrap_or_else(unreachable_ref),
                    frame_id: f.frame_id.clone(),
                    frame_index: n.frame_index,
                    backend_node_id: n.backend_node_id,
                    role: n.role.clone(),
                    name: n.name.clone(),
                    xpath,
                    interactive: n.interactive || n.cursor,
                });
                n.reference = Some(r);
            }
            let child_inside = inside || n.interactive && n.role != "iframe";
            for &c in n.children.iter().rev() {
                stack.push((c, child_inside));
            }
        }
    }

    /// The node with this encoded id, if the snapshot kept it.
    pub fn node(&self, id: EncodedId) -> Option<&Node> {
        self.by_id.get(&id).map(|&i| &self.nodes[i as usize])
    }

    /// The node carrying a ref.
    pub fn node_by_ref(&self, r: Ref) -> Option<&Node> {
        self.nodes.iter().find(|n| n.reference == Some(r))
    }

    /// The frame with this ordinal.
    pub fn frame(&self, frame_index: u32) -> Option<&SnapshotFrame> {
        self.frames.iter().find(|f| f.frame_index == frame_index)
    }

    /// XPath (relative to its frame) of any DOM node of the snapshot, kept in the tree or not.
    pub fn xpath(&self, id: EncodedId) -> Option<String> {
        let f = self.frame(id.frame_index)?;
        f.dom.find(id.backend_node_id).map(|e| f.dom.xpath(e))
    }

    /// The maps: encoded id → backendNodeId and → XPath for every kept node with a DOM node, frame info,
    /// and boxes when captured.
    pub fn maps(&self) -> SnapshotMaps {
        let mut m = SnapshotMaps::default();
        for n in &self.nodes {
            if n.backend_node_id == 0 {
                continue;
            }
            let id = n.encoded_id();
            m.backend_node_ids.insert(id, n.backend_node_id);
            if n.dom_entry != NO_ENTRY
                && let Some(f) = self.frame(n.frame_index)
            {
                m.xpaths.insert(id, f.dom.xpath(n.dom_entry));
            }
        }
        for f in &self.frames {
            m.frames.insert(
                f.frame_index,
                FrameMapInfo {
                    frame_id: f.frame_id.clone(),
                    parent_frame_id: f.parent_frame_id.clone(),
                    url: f.url.clone(),
                    owner_backend_node_id: f.owner_backend_node_id,
                    session_id: f.session_id.clone(),
                },
            );
        }
        m.boxes = self.boxes.clone();
        m
    }
}

#[cold]
fn unreachable_ref() -> Ref {
    // Ref::new(1) is always Some; this keeps the code free of unwrap.
    Ref::new(u32::MAX).unwrap_or_else(unreachable_ref)
}

/// Builds one frame's pruned tree into `nodes`; returns the frame's top-level node indices.
fn build_frame(nodes: &mut Vec<Node>, f: &mut FrameSource) -> Vec<u32> {
    match f.computed.take() {
        Some(mut t) => build_tree(nodes, f, &mut t),
        None => {
            let ax = std::mem::take(&mut f.ax);
            build_tree(nodes, f, &mut ChromiumAx::new(ax))
        }
    }
}

fn build_tree<A: AxInput>(nodes: &mut Vec<Node>, f: &FrameSource, ax: &mut A) -> Vec<u32> {
    if ax.len() == 0 {
        return Vec::new();
    }
    nodes.reserve(ax.len() / 2);
    let root = ax.root();
    let mut visited = vec![false; ax.len()];
    // Post-order walk with an explicit stack; outputs of finished children accumulate on `out`.
    let mut out: Vec<u32> = Vec::new();
    // (ax index, out.len() at entry, child cursor, looks at children)
    let mut stack: Vec<(u32, usize, u32, bool)> =
        vec![(root, 0, ax.first(root), descends(ax.role(root)))];
    if let Some(v) = visited.get_mut(root as usize) {
        *v = true;
    }
    while let Some(top) = stack.last_mut() {
        let (ai, start, cursor, descend) = *top;
        if descend && let Some((child, next)) = ax.advance(ai, cursor) {
            top.2 = next;
            if let Some(ci) = child
                && (ci as usize) < visited.len()
                && !std::mem::replace(&mut visited[ci as usize], true)
            {
                let len = out.len();
                stack.push((ci, len, ax.first(ci), descends(ax.role(ci))));
            }
            continue;
        }
        stack.pop();
        finish_node(nodes, f, ax, ai, &mut out, start);
    }
    // The frame's body (or another nameless wrapper) as the only top-level node adds a level for nothing.
    while out.len() == 1 {
        let n = &nodes[out[0] as usize];
        if n.role == "generic" && n.name.is_empty() && !n.cursor && !n.scrollable {
            out = n.children.clone();
        } else {
            break;
        }
    }
    out
}

fn take_text(v: AxScalar) -> String {
    match v {
        AxScalar::Str(s) => clean_text(s),
        AxScalar::None => String::new(),
        other => other.as_text().into_owned(),
    }
}

/// Whether the builder looks at an AX node's children.
fn descends(raw_role: &str) -> bool {
    !matches!(map_role(raw_role).1, RoleKind::DropSubtree | RoleKind::Text)
}

/// Decides what an AX node becomes once its children are done: nothing, its children, or a node.
/// Strings are moved out of the AX tree (the node is not used again).
fn finish_node<A: AxInput>(
    nodes: &mut Vec<Node>,
    f: &FrameSource,
    ax: &mut A,
    ai: u32,
    out: &mut Vec<u32>,
    start: usize,
) {
    let raw_role = ax.role(ai);
    let is_root = matches!(raw_role, "RootWebArea" | "WebArea");
    let canvas = raw_role == "Canvas";
    let (role, kind) = {
        let (mapped, kind) = map_role(raw_role);
        let role = if mapped.starts_with(|c: char| c.is_ascii_uppercase()) {
            let mut r = mapped.to_string();
            r[..1].make_ascii_lowercase();
            r
        } else if kind == RoleKind::Text {
            String::new()
        } else {
            mapped.to_string()
        };
        (role, kind)
    };
    if kind == RoleKind::DropSubtree {
        out.truncate(start);
        return;
    }
    let ignored = ax.ignored(ai);
    let backend = ax.backend(ai);
    let entry_idx = ax.entry(ai, &f.dom);
    let entry = (entry_idx != NO_ENTRY).then(|| &f.dom.entries[entry_idx as usize]);
    // An ignored or presentational node gives way to its children, unless a user can click it
    // (cursor:pointer wrappers are often ignored by Chromium); then it is a generic node.
    let clickable_wrapper = (ignored || kind == RoleKind::Transparent)
        && kind != RoleKind::Text
        && backend != 0
        && entry.is_some_and(|e| e.cursor_interactive() && e.kind == DomKind::Element)
        && !is_root;
    if (ignored || kind == RoleKind::Transparent) && !clickable_wrapper {
        return;
    }
    let (role, kind) = if clickable_wrapper {
        ("generic".to_string(), RoleKind::Structural)
    } else {
        (role, kind)
    };
    let mut name = take_text(ax.take_name(ai));
    if kind == RoleKind::Text {
        out.truncate(start);
        if name.is_empty() {
            return;
        }
        nodes.push(Node {
            role: "text".into(),
            name,
            value: String::new(),
            states: States::default(),
            tag: String::new(),
            backend_node_id: backend,
            frame_index: f.frame_index,
            url: None,
            interactive: false,
            cursor: false,
            scrollable: false,
            reference: None,
            children: Vec::new(),
            dom_entry: entry_idx,
        });
        out.push((nodes.len() - 1) as u32);
        return;
    }
    let interactive = is_interactive_role(&role);
    // A canvas's fallback content is kept when there is something to operate in it (Chromium
    // exposes it, focusable and clickable); fallback text alone stays the picture's business.
    let fallback = canvas && operable_within(nodes, &out[start..]);
    if fallback && name.is_empty() {
        // No line of its own: the controls take its place.
        return;
    }
    if is_leaf_role(&role) && !fallback {
        // Inner editor structure and decoration of form controls and images is noise.
        out.truncate(start);
        if name.is_empty()
            && matches!(
                role.as_str(),
                "image" | "img" | "graphics-document" | "graphics-symbol"
            )
        {
            return;
        }
    }
    let cursor = !interactive && entry.is_some_and(|e| e.cursor_interactive());
    let scrollable = entry.is_some_and(|e| e.scrollable);
    if kind == RoleKind::Structural && name.is_empty() && !cursor && !scrollable {
        match out.len() - start {
            0 => return,
            1 => return, // the single child takes the wrapper's place
            _ => {}
        }
    }
    let mut children: Vec<u32> = out.drain(start..).collect();
    // StaticText that only repeats the node's name goes (Stagehand's rule: all text children together).
    if !name.is_empty() && children.iter().any(|&c| nodes[c as usize].role == "text") {
        let mut joined = String::new();
        for &c in &children {
            let n = &nodes[c as usize];
            if n.role == "text" {
                if !joined.is_empty() {
                    joined.push(' ');
                }
                joined.push_str(&n.name);
            }
        }
        if clean_text(joined) == name
            || children.iter().all(|&c| {
                nodes[c as usize].role == "text" && name.contains(&nodes[c as usize].name)
            })
        {
            children.retain(|&c| nodes[c as usize].role != "text");
        }
    }
    // Adjacent text pieces become one line.
    if children.len() > 1 {
        let mut merged: Vec<u32> = Vec::with_capacity(children.len());
        for c in children {
            let is_text = nodes[c as usize].role == "text";
            if is_text
                && let Some(&last) = merged.last()
                && nodes[last as usize].role == "text"
            {
                let add = std::mem::take(&mut nodes[c as usize].name);
                let prev = &mut nodes[last as usize].name;
                let glue =
                    !(prev.ends_with(' ') || add.starts_with(|ch: char| ",.;:!?)".contains(ch)));
                if glue {
                    prev.push(' ');
                }
                prev.push_str(&add);
                continue;
            }
            merged.push(c);
        }
        children = merged;
    }
    if cursor && name.is_empty() {
        name = descendant_text(nodes, &children, 100);
        if !name.is_empty() {
            children
                .retain(|&c| !(nodes[c as usize].role == "text" && nodes[c as usize].name == name));
        }
    }
    let mut states = States::default();
    let mut url = None;
    for p in ax.properties(ai) {
        let v = &p.value.value;
        match p.name {
            "checked" => {
                states.checked = v.is_true();
                states.mixed = matches!(v, AxScalar::Str(s) if s == "mixed");
            }
            "pressed" => states.pressed = v.is_true(),
            "selected" => states.selected = v.is_true(),
            "expanded" => states.expanded = Some(v.is_true()),
            "disabled" => states.disabled = v.is_true(),
            "focused" => states.focused = v.is_true(),
            "required" => states.required = v.is_true(),
            "url" if role == "link" => {
                let u = v.as_text();
                if !u.is_empty() {
                    url = Some(u.into_owned());
                }
            }
            _ => {}
        }
    }
    if url.is_none() && role == "link" {
        url = entry.and_then(|e| e.attrs.href.as_deref().map(str::to_string));
    }
    let value = take_text(ax.take_value(ai));
    let tag = entry
        .filter(|e| e.kind == DomKind::Element)
        .map(|e| e.name.to_string())
        .unwrap_or_default();
    nodes.push(Node {
        role,
        name,
        value,
        states,
        tag,
        backend_node_id: backend,
        frame_index: f.frame_index,
        url,
        interactive,
        cursor,
        scrollable,
        reference: None,
        children,
        dom_entry: entry_idx,
    });
    out.push((nodes.len() - 1) as u32);
}

/// Whether any of these nodes or their descendants is interactive (by role or cursor).
fn operable_within(nodes: &[Node], roots: &[u32]) -> bool {
    let mut stack: Vec<u32> = roots.to_vec();
    while let Some(i) = stack.pop() {
        let Some(n) = nodes.get(i as usize) else {
            continue;
        };
        if n.interactive || n.cursor {
            return true;
        }
        stack.extend(&n.children);
    }
    false
}

fn descendant_text(nodes: &[Node], children: &[u32], limit: usize) -> String {
    let mut s = String::new();
    let mut stack: Vec<u32> = children.iter().rev().copied().collect();
    while let Some(c) = stack.pop() {
        let n = &nodes[c as usize];
        if n.role == "text" || (!n.name.is_empty() && n.children.is_empty()) {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&n.name);
            if s.len() >= limit {
                break;
            }
        } else {
            stack.extend(n.children.iter().rev());
        }
    }
    if s.len() > limit {
        let mut cut = limit;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}
