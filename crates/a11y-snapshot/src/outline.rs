//! The Actionbook snapshot text as rows: one [`Row`] per printed line, with a node identity that
//! survives between snapshots of the same document, its parent row, and the pieces of its text.
//!
//! [`render_actionbook`](crate::render_actionbook) is this outline joined; diffs ([`crate::delta`]),
//! pages ([`crate::pages`]) and new-node marks work on outlines, so they print the very lines a full
//! snapshot prints. An outline holds no DOM and no browser handle: it is what a tab keeps of an
//! earlier snapshot (about 60 bytes a line).

use std::fmt::Write;
use std::hash::Hasher;

use crate::fasthash::{FastHasher, FastMap};
use crate::ids::Ref;
use crate::render::{
    Line, NodeSummary, SnapshotOptions, lines, push_page_text, push_plain, push_quoted, push_states,
};
use crate::tree::{Node, Snapshot};

/// "No row" in [`Row::parent`].
pub const NO_ROW: u32 = u32::MAX;

/// One printed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The node's identity: its frame and backendNodeId (or, for a node without DOM, its parent's
    /// identity, role and place), the same in every snapshot of the document that still has it.
    pub key: u64,
    /// The parent row, or [`NO_ROW`].
    pub parent: u32,
    /// Indentation level.
    pub depth: u32,
    /// The ref printed on the line.
    pub reference: Option<Ref>,
    /// The ref'd node is interactive (an interactive role or cursor-interactive).
    pub interactive: bool,
    /// The node's box intersects the viewport (see [`Snapshot::visible_nodes`]).
    pub in_view: bool,
    /// Inside (or being) the topmost open dialog.
    pub in_modal: bool,
    /// Text offsets: start, end of `- role "name" [states]`, end of ` [ref=…]`, end of the tail
    /// (`:` or `: value`), end of the link URL.
    span: [u32; 5],
}

/// The rows of one snapshot under one set of [`SnapshotOptions`].
#[derive(Debug, Clone, Default)]
pub struct Outline {
    rows: Vec<Row>,
    text: String,
    /// `data.nodes` entries of the ref'd rows: (row, summary), in row order.
    summaries: Vec<(u32, NodeSummary)>,
}

/// How a row is printed besides its own text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Style {
    /// A marker column before the indentation (`+`, `-`, `~`, ` `).
    pub marker: Option<char>,
    /// Leave out ` [ref=…]` (a context line whose ref is printed elsewhere).
    pub strip_ref: bool,
    /// Append ` [new]` after the ref.
    pub new: bool,
}

/// Which links print their URL from the path on: those of frames whose document has the main
/// frame's origin, pointing into that origin. The page's URL is beside every snapshot (the
/// header line, the agent's prompt), so `/p/0/0` names the same page as
/// `http://127.0.0.1:8801/p/0/0` in 20 fewer bytes (about 6 % of a link-heavy page's text). A
/// link of a frame of another origin keeps its full URL: read beside the main page's URL, its
/// path would name another page.
#[derive(Debug, Default)]
struct LinkOrigins {
    /// `scheme://host[:port]` of the main frame, for http(s) pages.
    main: Option<String>,
    /// Frames (by index) whose document is of that origin.
    same: Vec<u32>,
}

impl LinkOrigins {
    fn of(snap: &Snapshot) -> LinkOrigins {
        let origin = |u: &str| {
            url::Url::parse(u)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .map(|u| u.origin().ascii_serialization())
        };
        let Some(main) = snap.frames.first().and_then(|f| origin(&f.url)) else {
            return LinkOrigins::default();
        };
        let same = snap
            .frames
            .iter()
            .filter(|f| origin(&f.url).as_deref() == Some(main.as_str()))
            .map(|f| f.frame_index)
            .collect();
        LinkOrigins {
            main: Some(main),
            same,
        }
    }

    /// `url` as printed for a link in frame `frame_index`.
    fn shorten<'u>(&self, frame_index: u32, url: &'u str) -> &'u str {
        match &self.main {
            Some(main) if self.same.contains(&frame_index) => url
                .strip_prefix(main.as_str())
                .filter(|path| path.starts_with('/'))
                .unwrap_or(url),
            _ => url,
        }
    }
}

fn frame_hash(frame_id: &str) -> u64 {
    let mut h = FastHasher::default();
    h.write(frame_id.as_bytes());
    h.write_u64(frame_id.len() as u64);
    h.finish()
}

fn mix(parts: &[u64]) -> u64 {
    let mut h = FastHasher::default();
    for &p in parts {
        h.write_u64(p);
    }
    h.finish()
}

impl Outline {
    /// The rows `opts` select from `snap`, with their view and modal flags.
    pub fn build(snap: &Snapshot, opts: &SnapshotOptions) -> Outline {
        let ls = lines(snap, opts);
        let visible = snap.visible_nodes();
        let modal = snap.modal_nodes();
        let frames: FastMap<u32, u64> = snap
            .frames
            .iter()
            .map(|f| (f.frame_index, frame_hash(&f.frame_id)))
            .collect();
        let origins = LinkOrigins::of(snap);
        let mut out = Outline {
            rows: Vec::with_capacity(ls.len()),
            text: String::with_capacity(ls.len() * 40),
            summaries: Vec::new(),
        };
        let mut seen: FastMap<u64, u32> = FastMap::default();
        seen.reserve(ls.len());
        // Rows without DOM are numbered among their parent's rows without DOM.
        let mut domless: FastMap<(u32, u64), u32> = FastMap::default();
        let mut stack: Vec<(usize, u32)> = Vec::new();
        let mut k = 0;
        while k < ls.len() {
            let Line { node, depth } = ls[k];
            let n = &snap.nodes[node as usize];
            while stack.last().is_some_and(|&(d, _)| d >= depth) {
                stack.pop();
            }
            let parent = stack.last().map_or(NO_ROW, |&(_, r)| r);
            let parent_key = out.rows.get(parent as usize).map_or(0, |r| r.key);
            let role_hash = frame_hash(&n.role);
            let mut key = if n.backend_node_id != 0 {
                mix(&[
                    frames.get(&n.frame_index).copied().unwrap_or(0),
                    n.backend_node_id as u64,
                ])
            } else {
                let c = domless.entry((parent, role_hash)).or_insert(0);
                *c += 1;
                mix(&[parent_key, role_hash, u64::from(*c), 1])
            };
            // The same node twice (it should not happen) still gets two identities.
            let row_index = out.rows.len() as u32;
            let mut salt = 0u64;
            while seen.contains_key(&key) {
                salt += 1;
                key = mix(&[key, salt]);
            }
            seen.insert(key, row_index);
            let has_children = ls.get(k + 1).is_some_and(|l| l.depth > depth);
            let absorbs = n.role != "text"
                && has_children
                && n.name.is_empty()
                && n.value.is_empty()
                && n.url.as_deref().is_none_or(str::is_empty)
                && snap.nodes[ls[k + 1].node as usize].role == "text"
                && ls.get(k + 2).is_none_or(|l| l.depth <= depth);
            let absorbed = absorbs.then(|| &snap.nodes[ls[k + 1].node as usize]);
            let shown_ref = crate::render::shows_ref(n, opts);
            let span = out.push_text(n, shown_ref, has_children, absorbed, &origins);
            if let Some(r) = shown_ref {
                out.summaries.push((row_index, summary(n, r)));
            }
            if let Some(t) = absorbed
                && let Some(r) = crate::render::shows_ref(t, opts)
            {
                out.summaries.push((row_index, summary(t, r)));
            }
            out.rows.push(Row {
                key,
                parent,
                depth: depth as u32,
                reference: shown_ref,
                interactive: shown_ref.is_some() && (n.interactive || n.cursor),
                in_view: visible.get(node as usize).copied().unwrap_or(false),
                in_modal: modal.get(node as usize).copied().unwrap_or(false),
                span,
            });
            stack.push((depth, row_index));
            k += if absorbed.is_some() { 2 } else { 1 };
        }
        out
    }

    /// Writes one node's line pieces; returns their offsets.
    fn push_text(
        &mut self,
        n: &Node,
        shown_ref: Option<Ref>,
        has_children: bool,
        absorbed: Option<&Node>,
        origins: &LinkOrigins,
    ) -> [u32; 5] {
        let out = &mut self.text;
        let start = out.len() as u32;
        out.push_str("- ");
        if n.role == "text" {
            out.push_str("text: ");
            push_page_text(out, &n.name);
            let end = out.len() as u32;
            return [start, end, end, end, end];
        }
        out.push_str(&n.role);
        if !n.name.is_empty() {
            out.push(' ');
            push_quoted(out, &n.name);
        }
        push_states(out, n);
        let head = out.len() as u32;
        if let Some(r) = shown_ref {
            let _ = write!(out, " [ref={r}]");
            if n.cursor && !n.interactive {
                out.push_str(" [cursor=pointer]");
            }
        }
        let reference = out.len() as u32;
        let url = n.url.as_deref().filter(|u| !u.is_empty());
        if let Some(t) = absorbed {
            out.push_str(": ");
            push_page_text(out, &t.name);
        } else if has_children || url.is_some() {
            out.push(':');
        } else if !n.value.is_empty() && n.value != n.name {
            out.push_str(": ");
            push_page_text(out, &n.value);
        }
        let tail = out.len() as u32;
        if let Some(u) = url {
            push_plain(out, origins.shorten(n.frame_index, u));
        }
        [start, head, reference, tail, out.len() as u32]
    }

    /// The rows.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when nothing is printed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The line of row `i` as printed, without indentation and link URL (what a diff compares).
    pub fn line(&self, i: u32) -> &str {
        let s = self.rows[i as usize].span;
        &self.text[s[0] as usize..s[3] as usize]
    }

    /// The link URL of row `i` ("" when none).
    pub fn url(&self, i: u32) -> &str {
        let s = self.rows[i as usize].span;
        &self.text[s[3] as usize..s[4] as usize]
    }

    /// The `data.nodes` entries of the ref'd rows, with their rows.
    pub fn summaries(&self) -> &[(u32, NodeSummary)] {
        &self.summaries
    }

    /// Drops the `data.nodes` entries (an older revision only needs its lines).
    pub fn drop_summaries(&mut self) {
        self.summaries = Vec::new();
    }

    /// Bytes this outline holds (for the tab's bound on kept revisions).
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity() * std::mem::size_of::<Row>()
            + self.text.capacity()
            + self
                .summaries
                .iter()
                .map(|(_, s)| 48 + s.role.len() + s.name.len() + s.value.len())
                .sum::<usize>()
    }

    /// Bytes row `i` takes in the text (its line break included), without its ref when `strip_ref`.
    pub fn printed_len(&self, i: u32, strip_ref: bool) -> usize {
        let row = &self.rows[i as usize];
        let [start, head, reference, tail, end] = row.span.map(|o| o as usize);
        let depth = row.depth as usize;
        let mut n = 1 + 2 * depth + (tail - start);
        if strip_ref {
            n -= reference - head;
        }
        if end > tail {
            n += 1 + 2 * (depth + 1) + "- /url: ".len() + (end - tail);
        }
        n
    }

    /// The ancestors of row `i`, nearest first.
    pub fn ancestors(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let mut cur = self.rows[i as usize].parent;
        std::iter::from_fn(move || {
            if cur == NO_ROW {
                return None;
            }
            let r = cur;
            cur = self.rows[r as usize].parent;
            Some(r)
        })
    }

    /// Appends row `i` printed with `style` (a line break first unless `out` is empty).
    pub(crate) fn write_row(&self, out: &mut String, i: u32, style: Style) {
        let row = &self.rows[i as usize];
        let [start, head, reference, tail, end] = row.span.map(|o| o as usize);
        if !out.is_empty() {
            out.push('\n');
        }
        let depth = row.depth as usize;
        let lead = |out: &mut String, depth: usize| {
            if let Some(m) = style.marker {
                out.push(m);
                out.push(' ');
            }
            for _ in 0..depth {
                out.push_str("  ");
            }
        };
        lead(out, depth);
        out.push_str(&self.text[start..head]);
        if !style.strip_ref {
            out.push_str(&self.text[head..reference]);
        }
        if style.new {
            out.push_str(" [new]");
        }
        out.push_str(&self.text[reference..tail]);
        if end > tail {
            out.push('\n');
            lead(out, depth + 1);
            out.push_str("- /url: ");
            out.push_str(&self.text[tail..end]);
        }
    }

    /// The snapshot text: every row, no trailing newline.
    pub fn render(&self) -> String {
        self.render_marked(&[])
    }

    /// The snapshot text with ` [new]` on the rows whose `new` flag is set (`new` may be shorter).
    pub fn render_marked(&self, new: &[bool]) -> String {
        let mut out = String::with_capacity(self.text.len() + self.rows.len() * 8);
        for i in 0..self.rows.len() {
            let style = Style {
                new: new.get(i).copied().unwrap_or(false),
                ..Style::default()
            };
            self.write_row(&mut out, i as u32, style);
        }
        out
    }

    /// Which rows are not in `earlier` (by identity).
    pub fn new_since(&self, earlier: &Outline) -> Vec<bool> {
        let old: std::collections::HashSet<u64, std::hash::BuildHasherDefault<FastHasher>> =
            earlier.rows.iter().map(|r| r.key).collect();
        self.rows.iter().map(|r| !old.contains(&r.key)).collect()
    }

    /// The outline of the rows `keep` selects plus their ancestors, depths measured from `rebase`
    /// (the rows' parents are re-linked; identities and text are unchanged).
    pub fn retain(&self, keep: &[bool], rebase: u32) -> Outline {
        let mut wanted = vec![false; self.rows.len()];
        for (i, &k) in keep.iter().enumerate().take(self.rows.len()) {
            if k && !wanted[i] {
                wanted[i] = true;
                for a in self.ancestors(i as u32) {
                    if std::mem::replace(&mut wanted[a as usize], true) {
                        break;
                    }
                }
            }
        }
        self.copy_rows(&wanted, rebase)
    }

    /// The rows of the topmost dialog's subtree (the dialog at depth 0), or `None` when no dialog is
    /// open.
    pub fn modal_scope(&self) -> Option<Outline> {
        let top = self.rows.iter().find(|r| r.in_modal)?;
        let keep: Vec<bool> = self.rows.iter().map(|r| r.in_modal).collect();
        Some(self.copy_rows(&keep, top.depth))
    }

    /// Exactly the rows `wanted` selects (a parent left out becomes [`NO_ROW`]).
    fn copy_rows(&self, wanted: &[bool], rebase: u32) -> Outline {
        let mut map = vec![NO_ROW; self.rows.len()];
        let mut out = Outline::default();
        for (i, row) in self.rows.iter().enumerate() {
            if !wanted.get(i).copied().unwrap_or(false) {
                continue;
            }
            let [start, head, reference, tail, end] = row.span;
            let base = out.text.len() as u32;
            out.text.push_str(&self.text[start as usize..end as usize]);
            let shift = |o: u32| o - start + base;
            map[i] = out.rows.len() as u32;
            out.rows.push(Row {
                parent: if row.parent == NO_ROW {
                    NO_ROW
                } else {
                    map[row.parent as usize]
                },
                depth: row.depth.saturating_sub(rebase),
                span: [base, shift(head), shift(reference), shift(tail), shift(end)],
                ..*row
            });
        }
        out.summaries = self
            .summaries
            .iter()
            .filter(|(r, _)| map[*r as usize] != NO_ROW)
            .map(|(r, s)| (map[*r as usize], s.clone()))
            .collect();
        out
    }

    /// The rows in the viewport plus their ancestors.
    pub fn viewport_scope(&self) -> Outline {
        let keep: Vec<bool> = self.rows.iter().map(|r| r.in_view).collect();
        self.retain(&keep, 0)
    }
}

fn summary(n: &Node, r: Ref) -> NodeSummary {
    NodeSummary {
        reference: r,
        role: n.role.clone(),
        name: n.name.clone(),
        value: n.value.clone(),
    }
}

#[cfg(test)]
mod link_origin_tests {
    use super::LinkOrigins;

    fn origins(main: &str, same: &[u32]) -> LinkOrigins {
        LinkOrigins {
            main: Some(main.to_string()),
            same: same.to_vec(),
        }
    }

    #[test]
    fn same_origin_links_print_their_path_and_others_their_url() {
        let o = origins("http://127.0.0.1:8801", &[0, 2]);
        assert_eq!(o.shorten(0, "http://127.0.0.1:8801/p/0/0"), "/p/0/0");
        assert_eq!(o.shorten(2, "http://127.0.0.1:8801/#top"), "/#top");
        // Another port, host or scheme is another origin.
        assert_eq!(
            o.shorten(0, "http://127.0.0.1:88010/x"),
            "http://127.0.0.1:88010/x"
        );
        assert_eq!(
            o.shorten(0, "https://127.0.0.1:8801/x"),
            "https://127.0.0.1:8801/x"
        );
        assert_eq!(
            o.shorten(0, "http://localhost:8801/x"),
            "http://localhost:8801/x"
        );
        // A frame of another origin (an OOPIF) keeps full URLs even into the main origin.
        assert_eq!(
            o.shorten(1, "http://127.0.0.1:8801/p"),
            "http://127.0.0.1:8801/p"
        );
        assert_eq!(o.shorten(0, "mailto:a@b.c"), "mailto:a@b.c");
        // No http(s) main page: nothing is shortened.
        let none = LinkOrigins::default();
        assert_eq!(none.shorten(0, "http://x/y"), "http://x/y");
    }

    #[test]
    fn only_http_frames_of_the_main_origin_count_as_same() {
        let frames = [
            "http://127.0.0.1:8801/a.html",
            "http://localhost:8801/b.html",
            "about:srcdoc",
            "http://127.0.0.1:8801/c.html",
        ]
        .into_iter()
        .enumerate()
        .map(|(i, url)| crate::tree::FrameSource {
            frame_index: i as u32,
            frame_id: format!("F{i}"),
            parent_frame_id: (i > 0).then(|| "F0".to_string()),
            url: url.to_string(),
            ..Default::default()
        })
        .collect();
        let source = |frames| crate::tree::PageSource {
            frames,
            capture_time: std::time::Duration::ZERO,
            warnings: Vec::new(),
            viewport: None,
        };
        let mut refs = crate::refs::RefTable::new();
        let snap = crate::tree::Snapshot::build(source(frames), &mut refs);
        let o = LinkOrigins::of(&snap);
        assert_eq!(o.main.as_deref(), Some("http://127.0.0.1:8801"));
        assert_eq!(o.same, vec![0, 3]);
        let blank = vec![crate::tree::FrameSource {
            url: "about:blank".to_string(),
            ..Default::default()
        }];
        let snap = crate::tree::Snapshot::build(source(blank), &mut refs);
        assert_eq!(LinkOrigins::of(&snap).main, None);
    }
}
