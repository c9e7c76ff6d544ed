//! Renderers over one [`Snapshot`]: the Actionbook snapshot text, HyperAgent's simplified per-frame
//! form, and the structured node list for JSON output. All share [`SnapshotOptions`].

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::ids::{EncodedId, Ref};
use crate::tree::{Node, Snapshot};

/// Filters from the CLI contract (`browser snapshot`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotOptions {
    /// Only interactive elements (`--interactive`), nested under their interactive ancestors.
    pub interactive_only: bool,
    /// Include cursor-interactive custom elements (`--cursor`, default true).
    pub cursor: bool,
    /// Drop empty structural nodes (`--compact`).
    pub compact: bool,
    /// Deepest level printed, 0 = top level only (`--depth`).
    pub max_depth: Option<usize>,
    /// Only the subtree of this node (`--selector`, resolved by the caller).
    pub subtree: Option<EncodedId>,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            interactive_only: false,
            cursor: true,
            compact: false,
            max_depth: None,
            subtree: None,
        }
    }
}

/// One printed line: a node at a depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Node index in [`Snapshot::nodes`].
    pub node: u32,
    /// Indentation level.
    pub depth: usize,
}

pub(crate) fn shows_ref(n: &Node, opts: &SnapshotOptions) -> Option<Ref> {
    if n.cursor && !n.interactive && !opts.cursor {
        return None;
    }
    n.reference
}

fn is_shown(n: &Node, opts: &SnapshotOptions) -> bool {
    if opts.interactive_only {
        return n.interactive || (n.cursor && opts.cursor);
    }
    if opts.compact
        && n.role == "generic"
        && n.name.is_empty()
        && shows_ref(n, opts).is_none()
        && !n.scrollable
    {
        return false;
    }
    true
}

/// The nodes the options select, in document order with their depth.
pub fn lines(snap: &Snapshot, opts: &SnapshotOptions) -> Vec<Line> {
    let starts: Vec<u32> = match opts.subtree {
        None => snap.roots.clone(),
        Some(id) => subtree_starts(snap, id),
    };
    let mut out = Vec::new();
    let mut visited = vec![false; snap.nodes.len()];
    let mut stack: Vec<(u32, usize)> = starts.iter().rev().map(|&s| (s, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        if std::mem::replace(&mut visited[i as usize], true) {
            continue;
        }
        let n = &snap.nodes[i as usize];
        let shown = is_shown(n, opts);
        if shown && opts.max_depth.is_some_and(|m| depth > m) {
            continue;
        }
        let child_depth = if shown {
            out.push(Line { node: i, depth });
            depth + 1
        } else {
            depth
        };
        for &c in n.children.iter().rev() {
            stack.push((c, child_depth));
        }
    }
    out
}

/// The top-most kept nodes at or inside the DOM node `id`.
fn subtree_starts(snap: &Snapshot, id: EncodedId) -> Vec<u32> {
    if let Some(pos) = snap.nodes.iter().position(|n| n.encoded_id() == id) {
        return vec![pos as u32];
    }
    let Some(frame) = snap.frame(id.frame_index) else {
        return Vec::new();
    };
    let Some(anchor) = frame.dom.find(id.backend_node_id) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut stack: Vec<u32> = snap.roots.iter().rev().copied().collect();
    let mut visited = vec![false; snap.nodes.len()];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut visited[i as usize], true) {
            continue;
        }
        let n = &snap.nodes[i as usize];
        if n.frame_index == id.frame_index
            && n.dom_entry != u32::MAX
            && frame.dom.is_within(n.dom_entry, anchor)
        {
            found.push(i);
            continue;
        }
        stack.extend(n.children.iter().rev());
    }
    found
}

/// `s` in double quotes as a snapshot line prints a name (`"`, `\\` and line breaks escaped).
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_quoted(&mut out, s);
    out
}

pub(crate) fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A page's text after `: ` on a snapshot line: as it is, or quoted when it could be read as
/// part of the line (page text that writes `[ref=e1]` would otherwise hand out a ref that is
/// not there; one that begins with `"` would read as quoted).
pub(crate) fn push_page_text(out: &mut String, s: &str) {
    if s.contains("[ref=") || s.starts_with('"') {
        push_quoted(out, s);
    } else {
        push_plain(out, s);
    }
}

pub(crate) fn push_plain(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

pub(crate) fn push_states(out: &mut String, n: &Node) {
    let s = &n.states;
    if s.mixed {
        out.push_str(" [checked=mixed]");
    } else if s.checked {
        out.push_str(" [checked]");
    }
    if s.disabled {
        out.push_str(" [disabled]");
    }
    if s.expanded == Some(true) {
        out.push_str(" [expanded]");
    }
    if s.pressed {
        out.push_str(" [pressed]");
    }
    if s.selected {
        out.push_str(" [selected]");
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// The Actionbook snapshot text (aria-snapshot-like YAML): `- role "name" [states] [ref=eN]`, link
/// URLs as `- /url:` children, iframe content nested under the iframe line, no trailing newline.
pub fn render_actionbook(snap: &Snapshot, opts: &SnapshotOptions) -> String {
    crate::outline::Outline::build(snap, opts).render()
}

/// HyperAgent's simplified form: one section per frame (`=== Frame 1 (Main → Frame 1) ===`), lines
/// `[1-42] button "Label"` indented two spaces per level; child frame content goes to its own section.
pub fn render_simplified(snap: &Snapshot, opts: &SnapshotOptions) -> String {
    let ls = lines(snap, opts);
    let mut out = String::with_capacity(ls.len() * 40);
    for f in &snap.frames {
        let mine: Vec<&Line> = ls
            .iter()
            .filter(|l| snap.nodes[l.node as usize].frame_index == f.frame_index)
            .collect();
        if mine.is_empty() && f.frame_index != 0 {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let _ = write!(out, "=== Frame {} ({}) ===", f.frame_index, f.path);
        let base = mine.iter().map(|l| l.depth).min().unwrap_or(0);
        for l in mine {
            let n = &snap.nodes[l.node as usize];
            out.push('\n');
            indent(&mut out, l.depth - base);
            let _ = write!(out, "[{}] ", n.encoded_id());
            if n.scrollable {
                out.push_str("scrollable, ");
            }
            out.push_str(&n.role);
            if !n.name.is_empty() {
                out.push(' ');
                push_quoted(&mut out, &n.name);
            }
            if !n.value.is_empty() && n.value != n.name {
                out.push_str(" value=");
                push_quoted(&mut out, &n.value);
            }
            push_states(&mut out, n);
        }
    }
    out
}

/// One ref'd node of the JSON node list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSummary {
    /// `eN`.
    #[serde(rename = "ref")]
    pub reference: Ref,
    /// Role.
    pub role: String,
    /// Name.
    pub name: String,
    /// Value ("" when none).
    pub value: String,
}

/// Counts reported with the node list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStats {
    /// Nodes in the list.
    pub node_count: usize,
    /// Of which interactive (interactive role or cursor-interactive).
    pub interactive_count: usize,
}

/// The ref'd nodes the options select, flat, in document order (the CLI's `data.nodes` and `data.stats`).
pub fn node_list(snap: &Snapshot, opts: &SnapshotOptions) -> (Vec<NodeSummary>, NodeStats) {
    let mut nodes = Vec::new();
    let mut interactive = 0;
    for l in lines(snap, opts) {
        let n = &snap.nodes[l.node as usize];
        if let Some(r) = shows_ref(n, opts) {
            if n.interactive || n.cursor {
                interactive += 1;
            }
            nodes.push(NodeSummary {
                reference: r,
                role: n.role.clone(),
                name: n.name.clone(),
                value: n.value.clone(),
            });
        }
    }
    let stats = NodeStats {
        node_count: nodes.len(),
        interactive_count: interactive,
    };
    (nodes, stats)
}
