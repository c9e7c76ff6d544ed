//! The DOM side of a snapshot: one document tree from `DOM.getDocument{pierce:true}` cut into compact
//! per-frame arenas, with XPath steps, scrollability and the attributes used for cursor detection.

use std::collections::HashMap;

use std::sync::Arc;

use crate::doc_view::DocView;
use crate::raw::{DomAttrs, DomNode};

/// Sentinel for "no parent".
pub const NO_PARENT: u32 = u32::MAX;

/// What kind of DOM node an entry is (for XPath steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DomKind {
    /// The frame's document node.
    Document,
    /// An element.
    Element,
    /// A text or CDATA node.
    Text,
    /// A comment.
    Comment,
    /// A shadow root (its step is the marker `#shadow-root`).
    ShadowRoot,
    /// Doctype, processing instruction, fragment: never addressed.
    Other,
}

/// One DOM node of a frame.
#[derive(Debug, Clone)]
pub struct DomEntry {
    /// backendNodeId.
    pub backend_node_id: i64,
    /// Index of the parent entry (the host for a shadow root), or [`NO_PARENT`].
    pub parent: u32,
    /// Node kind.
    pub kind: DomKind,
    /// Tag name: lower case for HTML elements, as written for foreign (SVG, MathML) elements
    /// (shared between the entries of one arena).
    pub name: Arc<str>,
    /// The element is not in the HTML namespace (XPath needs `*[name()='x']`).
    pub foreign: bool,
    /// 1-based position among siblings with the same step kind and name (0 when there is no step).
    pub position: u32,
    /// `isScrollable` from Chromium.
    pub scrollable: bool,
    /// Attributes of interest.
    pub attrs: DomAttrs,
    /// The node has children that were not fetched (depth-limited answer).
    pub truncated: bool,
    /// Set when a capture source found `cursor: pointer` on the element (and not on its parent).
    pub cursor_pointer: bool,
    /// Inside a user-agent or closed shadow root: page scripts cannot see the node.
    pub script_hidden: bool,
}

impl DomEntry {
    /// Whether the element is interactive for a mouse/keyboard user without having an interactive role:
    /// `onclick`, `tabindex >= 0`, `contenteditable`, or `cursor: pointer`.
    pub fn cursor_interactive(&self) -> bool {
        self.kind == DomKind::Element
            && (self.attrs.onclick
                || self.attrs.tabindex.is_some_and(|t| t >= 0)
                || self.attrs.contenteditable
                || self.cursor_pointer)
    }
}

/// The DOM of one frame document as a flat arena, entries in pre-order (an element, then its shadow
/// root's subtree, then its light children).
#[derive(Debug, Clone, Default)]
pub struct FrameDom {
    /// The nodes.
    pub entries: Vec<DomEntry>,
    index: NodeIndex,
    /// Frame owners: (entry, the child frame's id).
    child_frames: Vec<(u32, String)>,
    names: HashMap<Box<str>, Arc<str>>,
    /// Layout bounds (x, y, width, height in the document's coordinates) of the entries that
    /// have a layout object.
    boxes: crate::fasthash::FastMap<u32, [f32; 4]>,
    /// The document's scroll offset (x, y).
    scroll: (f32, f32),
}

/// backendNodeId → entry: a vector while the ids are small (they are handed out from 1 up per
/// renderer), a hash map otherwise.
#[derive(Debug, Clone)]
enum NodeIndex {
    Dense(Vec<u32>),
    Sparse(crate::fasthash::FastMap<i64, u32>),
}

impl Default for NodeIndex {
    fn default() -> Self {
        NodeIndex::Dense(Vec::new())
    }
}

impl NodeIndex {
    fn get(&self, id: i64) -> Option<u32> {
        match self {
            NodeIndex::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .filter(|&e| e != NO_PARENT),
            NodeIndex::Sparse(m) => m.get(&id).copied(),
        }
    }

    /// Records `id → entry` unless `id` is known already (the first entry wins).
    fn insert(&mut self, id: i64, entry: u32, entries: usize) {
        if let NodeIndex::Dense(v) = self {
            match usize::try_from(id) {
                Ok(i) if i < entries.saturating_mul(4).max(4096) => {
                    if i >= v.len() {
                        v.resize(i + 1, NO_PARENT);
                    }
                    if v[i] == NO_PARENT {
                        v[i] = entry;
                    }
                    return;
                }
                _ => {
                    let map = v
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| **e != NO_PARENT)
                        .map(|(i, e)| (i as i64, *e))
                        .collect();
                    *self = NodeIndex::Sparse(map);
                }
            }
        }
        if let NodeIndex::Sparse(m) = self {
            m.entry(id).or_insert(entry);
        }
    }
}

/// A document cut at frame boundaries.
#[derive(Debug, Default)]
pub struct DocumentPieces {
    /// The session's own document (main frame or OOPIF root).
    pub root: FrameDom,
    /// Same-process child frame documents found inside, keyed by frameId, in document order.
    pub children: Vec<(String, FrameDom)>,
}

impl FrameDom {
    /// The entry index of a backendNodeId.
    pub fn find(&self, backend_node_id: i64) -> Option<u32> {
        self.index.get(backend_node_id)
    }

    /// Frame owner elements: (entry, the child frame's id).
    pub fn child_frames(&self) -> &[(u32, String)] {
        &self.child_frames
    }

    /// The child frame an owner element holds.
    pub fn child_frame_of(&self, entry: u32) -> Option<&str> {
        self.child_frames
            .iter()
            .find(|(e, _)| *e == entry)
            .map(|(_, f)| f.as_str())
    }

    /// The shared copy of a tag name.
    fn intern(&mut self, name: &str) -> Arc<str> {
        if let Some(n) = self.names.get(name) {
            return Arc::clone(n);
        }
        let n: Arc<str> = Arc::from(name);
        self.names.insert(name.into(), Arc::clone(&n));
        n
    }

    /// Appends an entry and indexes it.
    fn push(&mut self, entry: DomEntry) -> u32 {
        let me = self.entries.len() as u32;
        self.index
            .insert(entry.backend_node_id, me, self.entries.len() + 1);
        self.entries.push(entry);
        me
    }

    /// The entry for a backendNodeId.
    pub fn get(&self, backend_node_id: i64) -> Option<&DomEntry> {
        self.find(backend_node_id)
            .map(|i| &self.entries[i as usize])
    }

    /// Number of element nodes.
    pub fn element_count(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.kind == DomKind::Element)
            .count()
    }

    /// The XPath of an entry relative to its frame document, in this crate's dialect: standard steps
    /// (`div[2]`, `text()[1]`, `*[name()='svg'][1]`) plus a `#shadow-root` step to enter a shadow root.
    pub fn xpath(&self, entry: u32) -> String {
        let mut steps: Vec<u32> = Vec::new();
        let mut cur = entry;
        while (cur as usize) < self.entries.len() {
            let e = &self.entries[cur as usize];
            if e.kind == DomKind::Document {
                break;
            }
            steps.push(cur);
            cur = e.parent;
        }
        let mut out = String::with_capacity(steps.len() * 10);
        for &i in steps.iter().rev() {
            let e = &self.entries[i as usize];
            out.push('/');
            push_step(&mut out, e);
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }

    /// True when `entry` is `ancestor` or inside it (shadow trees included).
    pub fn is_within(&self, entry: u32, ancestor: u32) -> bool {
        let mut cur = entry;
        while (cur as usize) < self.entries.len() {
            if cur == ancestor {
                return true;
            }
            cur = self.entries[cur as usize].parent;
        }
        false
    }

    /// Forgets every `cursor: pointer` mark (the caller asked for no cursor detection).
    pub(crate) fn clear_cursor_pointer(&mut self) {
        for e in &mut self.entries {
            e.cursor_pointer = false;
        }
    }

    /// Entries whose children were not fetched (need `DOM.describeNode` fill-in).
    pub fn truncated(&self) -> impl Iterator<Item = &DomEntry> {
        self.entries.iter().filter(|e| e.truncated)
    }
}

fn push_step(out: &mut String, e: &DomEntry) {
    use std::fmt::Write;
    match e.kind {
        DomKind::Element if e.foreign => {
            let _ = write!(out, "*[name()='{}'][{}]", e.name, e.position);
        }
        DomKind::Element => {
            let _ = write!(out, "{}[{}]", e.name, e.position);
        }
        DomKind::Text => {
            let _ = write!(out, "text()[{}]", e.position);
        }
        DomKind::Comment => {
            let _ = write!(out, "comment()[{}]", e.position);
        }
        DomKind::ShadowRoot => out.push_str("#shadow-root"),
        DomKind::Document | DomKind::Other => out.push_str("node()"),
    }
}

fn kind_of(n: &DomNode) -> DomKind {
    match n.node_type {
        1 => DomKind::Element,
        3 | 4 => DomKind::Text,
        8 => DomKind::Comment,
        9 => DomKind::Document,
        11 if n.shadow_root_type.is_some() => DomKind::ShadowRoot,
        _ => DomKind::Other,
    }
}

/// HTML elements report an upper-case nodeName in HTML documents; foreign elements keep their case.
fn element_name(n: &DomNode) -> (String, bool) {
    let (key, foreign) = element_key(n);
    if foreign || !key.bytes().any(|b| b.is_ascii_uppercase()) {
        (key.to_string(), foreign)
    } else {
        (key.to_ascii_lowercase(), false)
    }
}

/// The element's step name without allocating (may still contain upper case for odd HTML local
/// names; positions only need a consistent key) and whether it is foreign.
fn element_key(n: &DomNode) -> (&str, bool) {
    let foreign = n.node_name.bytes().any(|b| b.is_ascii_lowercase());
    if foreign {
        (n.node_name.as_str(), true)
    } else if n.local_name.is_empty() {
        (n.node_name.as_str(), false)
    } else {
        (n.local_name.as_str(), false)
    }
}

struct Pending {
    node: DomNode,
    parent: u32,
    position: u32,
    piece: usize,
    hidden: bool,
}

/// Cuts one session's document into per-frame arenas. Same-process frame documents (`contentDocument`)
/// become separate pieces keyed by the owner's `frameId`; OOPIF owners keep `child_frame_id` only.
/// Consumes the tree node by node (no recursion, so very deep documents are fine).
pub fn split_document(root: DomNode) -> DocumentPieces {
    let mut pieces: Vec<(Option<String>, FrameDom)> = vec![(None, FrameDom::default())];
    let mut stack = vec![Pending {
        node: root,
        parent: NO_PARENT,
        position: 0,
        piece: 0,
        hidden: false,
    }];
    while let Some(Pending {
        mut node,
        parent,
        position,
        piece,
        hidden,
    }) = stack.pop()
    {
        let kind = kind_of(&node);
        let hidden = hidden
            || (kind == DomKind::ShadowRoot && node.shadow_root_type.as_deref() != Some("open"));
        let (name, foreign) = if kind == DomKind::Element {
            element_name(&node)
        } else {
            (String::new(), false)
        };
        let fetched = node.children.as_ref().map_or(0, |c| c.len()) as u32;
        let truncated = node.child_node_count.is_some_and(|c| c > fetched)
            || (node.children.is_none() && node.child_node_count.is_some_and(|c| c > 0));
        // Documents can carry their own frameId too; only owner elements name a child frame.
        let child_frame = if kind == DomKind::Element {
            node.frame_id.take()
        } else {
            None
        };
        let dom = &mut pieces[piece].1;
        let name = dom.intern(&name);
        let entry = DomEntry {
            backend_node_id: node.backend_node_id,
            parent,
            kind,
            name,
            foreign,
            position,
            scrollable: node.is_scrollable.unwrap_or(false),
            attrs: std::mem::take(&mut node.attributes),
            truncated,
            cursor_pointer: false,
            script_hidden: hidden,
        };
        let me = dom.push(entry);
        if let Some(f) = &child_frame {
            dom.child_frames.push((me, f.clone()));
        }

        if let Some(doc) = node.content_document.take() {
            let frame_id =
                child_frame.unwrap_or_else(|| format!("unknown-frame-{}", node.backend_node_id));
            pieces.push((Some(frame_id), FrameDom::default()));
            let p = pieces.len() - 1;
            // Pushed first so the frame's own light children are processed before it (document order of
            // pieces follows the owner elements).
            stack.push(Pending {
                node: *doc,
                parent: NO_PARENT,
                position: 0,
                piece: p,
                hidden: false,
            });
        }
        let children = node.children.take().unwrap_or_default();
        let positions = positions_of(&children);
        for (child, pos) in children.into_iter().zip(positions).rev() {
            stack.push(Pending {
                node: child,
                parent: me,
                position: pos,
                piece,
                hidden,
            });
        }
        let shadows = node.shadow_roots.take().unwrap_or_default();
        let positions = positions_of(&shadows);
        for (child, pos) in shadows.into_iter().zip(positions).rev() {
            stack.push(Pending {
                node: child,
                parent: me,
                position: pos,
                piece,
                hidden,
            });
        }
    }
    // Pieces were created in pre-order of their owners, but a piece is pushed on the stack before its
    // owner's siblings, so creation order is already document order.
    let mut it = pieces.into_iter();
    let root = it.next().map(|(_, d)| d).unwrap_or_default();
    let children = it.map(|(id, d)| (id.unwrap_or_default(), d)).collect();
    DocumentPieces { root, children }
}

fn positions_of(children: &[DomNode]) -> Vec<u32> {
    // Few children: a linear scan beats hashing; many: a map. Keys borrow the names (no allocation).
    let mut small: Vec<(DomKind, &str, bool, u32)> = Vec::new();
    let mut large: HashMap<(DomKind, &str, bool), u32> = HashMap::new();
    let use_map = children.len() > 24;
    children
        .iter()
        .map(|c| {
            let kind = kind_of(c);
            let (key, foreign) = match kind {
                DomKind::Element => element_key(c),
                _ => ("", false),
            };
            if !matches!(kind, DomKind::Element | DomKind::Text | DomKind::Comment) {
                return 0;
            }
            if use_map {
                let n = large.entry((kind, key, foreign)).or_insert(0);
                *n += 1;
                return *n;
            }
            match small
                .iter_mut()
                .find(|(k, name, f, _)| *k == kind && *f == foreign && *name == key)
            {
                Some(e) => {
                    e.3 += 1;
                    e.3
                }
                None => {
                    small.push((kind, key, foreign, 1));
                    1
                }
            }
        })
        .collect()
}

/// What [`FrameDom::from_view`] needs besides the captured document.
#[derive(Debug, Default)]
pub(crate) struct ViewExtras<'a> {
    /// frameId of every document of the capture, by document index (for frame owners).
    pub frame_ids: &'a [String],
    /// Elements hosting a shadow tree whose DOM structure has to come from elsewhere (see
    /// [`shadow_hosts`]); their flat-tree descendants get no entries here.
    pub hosts: &'a [u32],
}

impl FrameDom {
    /// The frame DOM of one captured document, from its flat tree: outside shadow trees the flat tree
    /// is the DOM tree (pseudo elements aside), so parents and XPath positions come straight from it.
    /// Descendants of `extras.hosts` are left out (graft their DOM with [`graft`], then call
    /// [`FrameDom::fill_from_view`]).
    /// Also returns, per captured node, its entry index ([`NO_PARENT`] for nodes without one).
    pub(crate) fn from_view(view: &DocView<'_>, extras: &ViewExtras<'_>) -> (FrameDom, Vec<u32>) {
        let n = view.len();
        let mut dom = FrameDom::default();
        dom.entries.reserve(n);
        let mut entry_of = vec![NO_PARENT; n];
        let mut skip = vec![false; n];
        for &h in extras.hosts {
            // Everything below a host is grafted from its described DOM.
            let mut stack: Vec<u32> = view.children(h).collect();
            while let Some(c) = stack.pop() {
                if let Some(s) = skip.get_mut(c as usize) {
                    *s = true;
                }
                stack.extend(view.children(c));
            }
        }
        let pointer = cursor_pointers(view);
        let scrollable = scroll_containers(view);
        // Positions are numbered per parent while walking its children.
        let mut positions = vec![0u32; n];
        let mut counts: Vec<(DomKind, &str, bool, u32)> = Vec::new();
        let mut big: HashMap<(DomKind, &str, bool), u32> = HashMap::new();
        for p in 0..n as u32 {
            counts.clear();
            big.clear();
            let kids: Vec<u32> = view
                .children(p)
                .filter(|&c| view.pseudo(c).is_none())
                .collect();
            let use_map = kids.len() > 24;
            for c in kids {
                let kind = view_kind(view, c);
                if !matches!(kind, DomKind::Element | DomKind::Text | DomKind::Comment) {
                    continue;
                }
                let (key, foreign) = if kind == DomKind::Element {
                    let name = view.node_name(c);
                    (name, name.bytes().any(|b| b.is_ascii_lowercase()))
                } else {
                    ("", false)
                };
                let pos = if use_map {
                    let e = big.entry((kind, key, foreign)).or_insert(0);
                    *e += 1;
                    *e
                } else {
                    match counts
                        .iter_mut()
                        .find(|(k, nm, f, _)| *k == kind && *f == foreign && *nm == key)
                    {
                        Some(e) => {
                            e.3 += 1;
                            e.3
                        }
                        None => {
                            counts.push((kind, key, foreign, 1));
                            1
                        }
                    }
                };
                positions[c as usize] = pos;
            }
        }
        for i in 0..n as u32 {
            if skip[i as usize] || view.pseudo(i).is_some() {
                continue;
            }
            let kind = view_kind(view, i);
            let parent = match view.parent(i) {
                crate::doc_view::NIL => NO_PARENT,
                p => entry_of.get(p as usize).copied().unwrap_or(NO_PARENT),
            };
            let (name, foreign): (Arc<str>, bool) = if kind == DomKind::Element {
                let raw = view.node_name(i);
                let foreign = raw.bytes().any(|b| b.is_ascii_lowercase());
                if foreign {
                    (dom.intern(raw), true)
                } else if raw.bytes().any(|b| b.is_ascii_uppercase()) {
                    (dom.intern(&raw.to_ascii_lowercase()), false)
                } else {
                    (dom.intern(raw), false)
                }
            } else {
                (dom.intern(""), false)
            };
            let entry = DomEntry {
                backend_node_id: view.backend_id(i),
                parent,
                kind,
                name,
                foreign,
                position: positions[i as usize],
                scrollable: scrollable[i as usize],
                attrs: if kind == DomKind::Element {
                    view_attrs(view, i)
                } else {
                    DomAttrs::default()
                },
                truncated: false,
                cursor_pointer: pointer[i as usize],
                script_hidden: view.shadow_type(i).is_some_and(|t| t != "open"),
            };
            let me = dom.push(entry);
            entry_of[i as usize] = me;
            if let Some(b) = view.layout_of(i).and_then(|l| view.bounds(l)) {
                dom.boxes.insert(me, b);
            }
            if let Some(f) = view
                .doc
                .nodes
                .content_document_index
                .get(i as usize)
                .and_then(|d| usize::try_from(d).ok())
                .and_then(|d| extras.frame_ids.get(d))
            {
                dom.child_frames.push((me, f.clone()));
            }
        }
        dom.names = HashMap::new();
        dom.scroll = (
            view.doc.scroll_offset_x as f32,
            view.doc.scroll_offset_y as f32,
        );
        (dom, entry_of)
    }

    /// The layout bounds of an entry in its document's coordinates.
    pub fn bounds(&self, entry: u32) -> Option<[f32; 4]> {
        self.boxes.get(&entry).copied()
    }

    /// The document's scroll offset (x, y) at capture time.
    pub fn scroll_offset(&self) -> (f32, f32) {
        self.scroll
    }

    /// Sets attributes, cursor and scroll flags of grafted entries from the captured document.
    pub(crate) fn fill_from_view(&mut self, view: &DocView<'_>) {
        let pointer = cursor_pointers(view);
        let scrollable = scroll_containers(view);
        for i in 0..view.len() as u32 {
            let Some(e) = self.find(view.backend_id(i)) else {
                continue;
            };
            if let Some(b) = view.layout_of(i).and_then(|l| view.bounds(l)) {
                self.boxes.insert(e, b);
            }
            let e = &mut self.entries[e as usize];
            if e.kind == DomKind::Element {
                e.attrs = view_attrs(view, i);
                e.cursor_pointer = pointer[i as usize];
                e.scrollable = scrollable[i as usize];
            }
        }
    }
}

fn view_kind(view: &DocView<'_>, i: u32) -> DomKind {
    use crate::doc_view::node_type as t;
    match view.node_type(i) {
        t::ELEMENT => DomKind::Element,
        t::TEXT | t::CDATA => DomKind::Text,
        t::COMMENT => DomKind::Comment,
        t::DOCUMENT => DomKind::Document,
        _ => DomKind::Other,
    }
}

fn view_attrs(view: &DocView<'_>, i: u32) -> DomAttrs {
    use crate::doc_view::Attr;
    DomAttrs {
        onclick: view.has_attr(i, Attr::Onclick),
        tabindex: view
            .attr(i, Attr::Tabindex)
            .and_then(|v| v.trim().parse().ok()),
        contenteditable: view
            .attr(i, Attr::Contenteditable)
            .is_some_and(|v| !v.eq_ignore_ascii_case("false")),
        href: view.attr(i, Attr::Href).map(Box::from),
    }
}

/// Elements whose computed cursor is `pointer` while their flat-tree parent element's is not (what
/// the in-page scan reported before). Elements without a box inherit their parent's state.
pub(crate) fn cursor_pointers(view: &DocView<'_>) -> Vec<bool> {
    use crate::snapshot_dom::Style;
    let n = view.len();
    let mut pointer = vec![false; n];
    let mut inherited = vec![false; n];
    for i in 0..n as u32 {
        let parent = view.parent(i);
        let from_parent = parent != crate::doc_view::NIL && inherited[parent as usize];
        if !view.is_element(i) {
            inherited[i as usize] = from_parent;
            continue;
        }
        let own = if view.rendered(i) {
            view.style(i, Style::Cursor) == "pointer"
        } else {
            from_parent
        };
        inherited[i as usize] = own;
        pointer[i as usize] = own && !from_parent && view.rendered(i);
    }
    pointer
}

/// Scroll containers that can scroll: a box with `overflow-x`/`-y` of `auto`, `scroll` or
/// `overlay` whose content reaches beyond it on that axis (content boxes are in document
/// coordinates, scrolled or not). `<html>` and `<body>` hand their overflow to the viewport.
pub(crate) fn scroll_containers(view: &DocView<'_>) -> Vec<bool> {
    use crate::doc_view::Tag;
    use crate::snapshot_dom::Style;
    let n = view.len();
    let scrolls = |v: &str| matches!(v, "auto" | "scroll" | "overlay");
    let mut out = vec![false; n];
    // Extents of every node's subtree, bottom-up (children come after parents in the arrays).
    let mut right = vec![f32::MIN; n];
    let mut bottom = vec![f32::MIN; n];
    for i in (0..n as u32).rev() {
        for l in view.layouts(i) {
            if let Some([x, y, w, h]) = view.bounds(l)
                && (w > 0.0 || h > 0.0)
            {
                right[i as usize] = right[i as usize].max(x + w);
                bottom[i as usize] = bottom[i as usize].max(y + h);
            }
        }
        let p = view.parent(i);
        if p != crate::doc_view::NIL {
            let (r, b) = (right[i as usize], bottom[i as usize]);
            right[p as usize] = right[p as usize].max(r);
            bottom[p as usize] = bottom[p as usize].max(b);
        }
    }
    for i in 0..n as u32 {
        if !view.is_element(i) || matches!(view.tag(i), Tag::Html | Tag::Body) {
            continue;
        }
        let (ox, oy) = (
            view.style(i, Style::OverflowX),
            view.style(i, Style::OverflowY),
        );
        if !(scrolls(ox) || scrolls(oy)) {
            continue;
        }
        let Some([x, y, w, h]) = view.layout_of(i).and_then(|l| view.bounds(l)) else {
            continue;
        };
        let (mut r, mut b) = (f32::MIN, f32::MIN);
        for c in view.children(i) {
            r = r.max(right[c as usize]);
            b = b.max(bottom[c as usize]);
        }
        out[i as usize] = (scrolls(ox) && r > x + w + 0.5) || (scrolls(oy) && b > y + h + 0.5);
    }
    out
}

/// Outermost elements of the document tree that host a shadow tree: their DOM (light children,
/// shadow roots, slots) differs from the flat tree and is read with `DOM.describeNode`.
pub(crate) fn shadow_hosts(view: &DocView<'_>) -> Vec<u32> {
    let n = view.len();
    let mut out = Vec::new();
    let mut covered = vec![false; n];
    for i in 0..n as u32 {
        let p = view.parent(i);
        if p != crate::doc_view::NIL && covered[p as usize] {
            covered[i as usize] = true;
            continue;
        }
        if view.shadow_type(i).is_none() && view.children(i).any(|c| view.shadow_type(c).is_some())
        {
            out.push(i);
            covered[i as usize] = true;
        }
    }
    out
}

/// Grafts the children of a `DOM.describeNode` answer onto a truncated node (depth-limited capture).
/// Returns false when the node is unknown. Frame documents found inside are returned as extra pieces.
pub fn graft(dom: &mut FrameDom, described: DomNode) -> Option<Vec<(String, FrameDom)>> {
    let at = dom.find(described.backend_node_id)?;
    let mut sub = split_document(described);
    // sub.root.entries[0] stands for the described node itself; re-home its descendants under `at`.
    let base = dom.entries.len() as u32;
    let mut first = true;
    for mut e in sub.root.entries.drain(..) {
        if first {
            first = false;
            continue;
        }
        e.parent = if e.parent == 0 {
            at
        } else {
            e.parent - 1 + base
        };
        dom.push(e);
    }
    for (e, f) in sub.root.child_frames.drain(..) {
        // Entry numbers of the described piece, re-homed like the entries above.
        if e > 0 {
            dom.child_frames.push((e - 1 + base, f));
        }
    }
    if let Some(e) = dom.entries.get_mut(at as usize) {
        e.truncated = false;
    }
    Some(sub.children)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(id: i64, name: &str, children: Vec<DomNode>) -> DomNode {
        DomNode {
            backend_node_id: id,
            node_type: 1,
            node_name: name.to_string(),
            local_name: name.to_ascii_lowercase(),
            child_node_count: Some(children.len() as u32),
            children: Some(children),
            ..DomNode::default()
        }
    }

    fn text(id: i64) -> DomNode {
        DomNode {
            backend_node_id: id,
            node_type: 3,
            node_name: "#text".into(),
            ..DomNode::default()
        }
    }

    #[test]
    fn xpaths_cover_svg_text_shadow_and_frames() {
        let mut host = el(20, "MY-HOST", vec![]);
        host.shadow_roots = Some(vec![DomNode {
            backend_node_id: 21,
            node_type: 11,
            node_name: "#document-fragment".into(),
            shadow_root_type: Some("open".into()),
            children: Some(vec![el(22, "INPUT", vec![])]),
            ..DomNode::default()
        }]);
        let mut iframe = el(30, "IFRAME", vec![]);
        iframe.frame_id = Some("CHILD".into());
        iframe.content_document = Some(Box::new(DomNode {
            backend_node_id: 31,
            node_type: 9,
            node_name: "#document".into(),
            children: Some(vec![el(
                32,
                "HTML",
                vec![el(33, "BODY", vec![el(34, "BUTTON", vec![])])],
            )]),
            ..DomNode::default()
        }));
        let body = el(
            3,
            "BODY",
            vec![
                el(4, "DIV", vec![]),
                text(5),
                el(
                    6,
                    "DIV",
                    vec![el(
                        7,
                        "BUTTON",
                        vec![el(8, "svg", vec![el(9, "path", vec![])])],
                    )],
                ),
                host,
                iframe,
            ],
        );
        let doc = DomNode {
            backend_node_id: 1,
            node_type: 9,
            node_name: "#document".into(),
            children: Some(vec![
                DomNode {
                    backend_node_id: 100,
                    node_type: 10,
                    node_name: "html".into(),
                    ..DomNode::default()
                },
                el(2, "HTML", vec![body]),
            ]),
            ..DomNode::default()
        };
        let pieces = split_document(doc);
        let d = &pieces.root;
        let xp = |id: i64| d.find(id).map(|i| d.xpath(i)).unwrap_or_default();
        assert_eq!(xp(6), "/html[1]/body[1]/div[2]");
        assert_eq!(xp(5), "/html[1]/body[1]/text()[1]");
        assert_eq!(
            xp(9),
            "/html[1]/body[1]/div[2]/button[1]/*[name()='svg'][1]/*[name()='path'][1]"
        );
        assert_eq!(xp(22), "/html[1]/body[1]/my-host[1]/#shadow-root/input[1]");
        assert_eq!(xp(30), "/html[1]/body[1]/iframe[1]");
        assert!(d.find(34).is_none());
        assert_eq!(pieces.children.len(), 1);
        let (fid, child) = &pieces.children[0];
        assert_eq!(fid, "CHILD");
        assert_eq!(
            child.find(34).map(|i| child.xpath(i)).as_deref(),
            Some("/html[1]/body[1]/button[1]")
        );
        assert_eq!(d.find(30).and_then(|e| d.child_frame_of(e)), Some("CHILD"));
    }
}
