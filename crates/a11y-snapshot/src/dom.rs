//! The DOM side of a snapshot: one document tree from `DOM.getDocument{pierce:true}` cut into compact
//! per-frame arenas, with XPath steps, scrollability and the attributes used for cursor detection.

use std::collections::HashMap;

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
    /// Tag name: lower case for HTML elements, as written for foreign (SVG, MathML) elements.
    pub name: Box<str>,
    /// The element is not in the HTML namespace (XPath needs `*[name()='x']`).
    pub foreign: bool,
    /// 1-based position among siblings with the same step kind and name (0 when there is no step).
    pub position: u32,
    /// `isScrollable` from Chromium.
    pub scrollable: bool,
    /// Attributes of interest.
    pub attrs: DomAttrs,
    /// For frame owners: the child frame's id.
    pub child_frame_id: Option<String>,
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
    index: crate::fasthash::FastMap<i64, u32>,
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
        self.index.get(&backend_node_id).copied()
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

    /// Marks elements found to have `cursor: pointer`, given their element pre-order indices and tag names
    /// (as produced by the in-page scan); entries whose tag does not match are skipped (the page changed).
    pub fn mark_cursor_pointer(&mut self, hits: &[(u32, String)]) -> usize {
        if hits.is_empty() {
            return 0;
        }
        let elements: Vec<u32> = (0..self.entries.len() as u32)
            .filter(|&i| {
                let e = &self.entries[i as usize];
                e.kind == DomKind::Element && !e.script_hidden
            })
            .collect();
        let mut marked = 0;
        for (idx, tag) in hits {
            if let Some(&i) = elements.get(*idx as usize) {
                let e = &mut self.entries[i as usize];
                if e.name.eq_ignore_ascii_case(tag) {
                    e.cursor_pointer = true;
                    marked += 1;
                }
            }
        }
        marked
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
fn element_name(n: &DomNode) -> (Box<str>, bool) {
    let (key, foreign) = element_key(n);
    if foreign || !key.bytes().any(|b| b.is_ascii_uppercase()) {
        (key.into(), foreign)
    } else {
        (key.to_ascii_lowercase().into_boxed_str(), false)
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
            ("".into(), false)
        };
        let fetched = node.children.as_ref().map_or(0, |c| c.len()) as u32;
        let truncated = node.child_node_count.is_some_and(|c| c > fetched)
            || (node.children.is_none() && node.child_node_count.is_some_and(|c| c > 0));
        let entry = DomEntry {
            backend_node_id: node.backend_node_id,
            parent,
            kind,
            name,
            foreign,
            position,
            scrollable: node.is_scrollable.unwrap_or(false),
            attrs: std::mem::take(&mut node.attributes),
            // Documents can carry their own frameId too; only owner elements name a child frame.
            child_frame_id: if kind == DomKind::Element {
                node.frame_id.take()
            } else {
                None
            },
            truncated,
            cursor_pointer: false,
            script_hidden: hidden,
        };
        let dom = &mut pieces[piece].1;
        let me = dom.entries.len() as u32;
        dom.index.insert(entry.backend_node_id, me);
        let child_frame = entry.child_frame_id.clone();
        dom.entries.push(entry);

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
        let me = dom.entries.len() as u32;
        dom.index.insert(e.backend_node_id, me);
        dom.entries.push(e);
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
        assert_eq!(
            d.get(30).and_then(|e| e.child_frame_id.clone()).as_deref(),
            Some("CHILD")
        );
    }
}
