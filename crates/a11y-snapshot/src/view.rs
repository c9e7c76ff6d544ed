//! What of a [`Snapshot`] is on screen and what is inside an open dialog: per-node flags computed
//! from the layout bounds the DOM capture carries (no extra browser call besides the viewport).
//!
//! Bounds are in each frame document's coordinates; a child frame's document is placed at its
//! `<iframe>` box in the parent document minus its own scroll offset, and clipped to that box, so
//! nodes of same-origin frames and OOPIFs are judged alike. Scroll containers clip their content.

use crate::tree::{BoundingBox, Snapshot};

#[derive(Debug, Clone, Copy)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn from_bounds(b: [f32; 4], dx: f64, dy: f64) -> Rect {
        let x0 = f64::from(b[0]) + dx;
        let y0 = f64::from(b[1]) + dy;
        Rect {
            x0,
            y0,
            x1: x0 + f64::from(b[2]).max(0.0),
            y1: y0 + f64::from(b[3]).max(0.0),
        }
    }

    fn meets(&self, o: &Rect) -> bool {
        self.x0 <= o.x1 && self.x1 >= o.x0 && self.y0 <= o.y1 && self.y1 >= o.y0
    }

    fn clip(&self, o: &Rect) -> Rect {
        Rect {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1).max(self.x0.max(o.x0)),
            y1: self.y1.min(o.y1).max(self.y0.max(o.y0)),
        }
    }
}

/// Roles of the nodes [`Snapshot::modal_nodes`] treats as dialogs.
pub fn is_dialog_role(role: &str) -> bool {
    matches!(role, "dialog" | "alertdialog")
}

impl Snapshot {
    /// Per node: its box (or, for a node without one, a descendant's) intersects the viewport,
    /// clipped by the frames and scroll containers around it. All false when the viewport was
    /// not measured.
    pub fn visible_nodes(&self) -> Vec<bool> {
        let mut out = vec![false; self.nodes.len()];
        let Some(vp) = self.viewport else {
            return out;
        };
        let view = rect(vp);
        // Per frame (same order as `self.frames`): where its document's origin is in main-document
        // coordinates and the part of the viewport it can show.
        let mut place: Vec<(f64, f64, Rect)> = Vec::with_capacity(self.frames.len());
        for f in &self.frames {
            let (sx, sy) = f.dom.scroll_offset();
            let parent = f
                .parent_frame_id
                .as_ref()
                .and_then(|p| self.frames.iter().position(|q| &q.frame_id == p))
                .filter(|&p| p < place.len());
            let here = match parent {
                None => (0.0, 0.0, view),
                Some(p) => {
                    let (px, py, pclip) = place[p];
                    let owner = f
                        .owner_backend_node_id
                        .and_then(|o| self.frames[p].dom.find(o))
                        .and_then(|e| self.frames[p].dom.bounds(e));
                    match owner {
                        Some(b) => {
                            let r = Rect::from_bounds(b, px, py);
                            (r.x0 - f64::from(sx), r.y0 - f64::from(sy), pclip.clip(&r))
                        }
                        // An owner without layout: the frame shows nothing.
                        None => (
                            px,
                            py,
                            Rect {
                                x1: pclip.x0 - 1.0,
                                ..pclip
                            },
                        ),
                    }
                }
            };
            place.push(here);
        }
        let frame_pos = |fi: u32| self.frames.iter().position(|f| f.frame_index == fi);
        // Pre-order walk with the clip in force; then children report upwards.
        let mut order: Vec<(u32, u32)> = Vec::with_capacity(self.nodes.len());
        let mut own: Vec<Option<bool>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<(u32, u32, Option<u32>, Rect)> = self
            .roots
            .iter()
            .rev()
            .map(|&r| (r, u32::MAX, None, view))
            .collect();
        while let Some((i, parent, parent_frame, clip)) = stack.pop() {
            if std::mem::replace(&mut seen[i as usize], true) {
                continue;
            }
            let n = &self.nodes[i as usize];
            let pos = frame_pos(n.frame_index);
            let mut clip = clip;
            if parent_frame.is_some_and(|p| p != n.frame_index)
                && let Some(p) = pos
            {
                clip = clip.clip(&place[p].2);
            }
            let b = pos.and_then(|p| {
                let f = &self.frames[p];
                let b = f.dom.bounds(n.dom_entry)?;
                Some(Rect::from_bounds(b, place[p].0, place[p].1))
            });
            own[i as usize] = b.map(|b| b.meets(&clip));
            order.push((i, parent));
            let child_clip = match b {
                Some(b) if n.scrollable => clip.clip(&b),
                _ => clip,
            };
            for &c in n.children.iter().rev() {
                stack.push((c, i, Some(n.frame_index), child_clip));
            }
        }
        let mut below = vec![false; self.nodes.len()];
        for &(i, parent) in order.iter().rev() {
            let v = match own[i as usize] {
                Some(hit) => hit,
                None => below[i as usize],
            };
            out[i as usize] = v;
            if v && parent != u32::MAX {
                below[parent as usize] = true;
            }
        }
        out
    }

    /// Per node: it is the topmost open dialog (the last `dialog`/`alertdialog` in document order)
    /// or inside it. All false when none is open.
    pub fn modal_nodes(&self) -> Vec<bool> {
        let mut out = vec![false; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<u32> = self.roots.iter().rev().copied().collect();
        let mut top = None;
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i as usize], true) {
                continue;
            }
            let n = &self.nodes[i as usize];
            if is_dialog_role(&n.role) {
                top = Some(i);
            }
            stack.extend(n.children.iter().rev());
        }
        let mut stack: Vec<u32> = top.into_iter().collect();
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut out[i as usize], true) {
                continue;
            }
            stack.extend(self.nodes[i as usize].children.iter().copied());
        }
        out
    }
}

fn rect(b: BoundingBox) -> Rect {
    Rect {
        x0: b.x,
        y0: b.y,
        x1: b.x + b.width,
        y1: b.y + b.height,
    }
}
