//! What changed between two [`Outline`]s of the same document: rows added, removed and changed
//! (same identity, other line or another parent), printed in the snapshot's line format with a
//! marker column (`+`, `-`, `~`) and, unmarked, the ancestors needed to place them.

use crate::fasthash::FastMap;
use crate::outline::{NO_ROW, Outline, Style};

/// What happened to a printed row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Only there to place a change (an ancestor, printed unmarked).
    Context,
    /// In the new outline only.
    Added,
    /// In the old outline only.
    Removed,
    /// In both, with another line or another parent.
    Changed,
}

/// Which outline a printed row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The earlier outline.
    Old,
    /// The later outline.
    New,
}

/// One line of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaLine {
    /// The outline the row is in.
    pub side: Side,
    /// The row.
    pub row: u32,
    /// What happened to it.
    pub change: Change,
}

/// The difference between two outlines, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delta {
    /// Lines to print (changes and their context).
    pub lines: Vec<DeltaLine>,
    /// Rows added.
    pub added: usize,
    /// Rows removed.
    pub removed: usize,
    /// Rows changed.
    pub changed: usize,
}

impl Delta {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added + self.removed + self.changed == 0
    }

    /// The new outline's rows this diff shows as added or changed.
    pub fn touched_new_rows(&self) -> impl Iterator<Item = u32> + '_ {
        self.lines
            .iter()
            .filter(|l| l.side == Side::New && matches!(l.change, Change::Added | Change::Changed))
            .map(|l| l.row)
    }
}

/// The diff from `old` to `new`.
pub fn diff(old: &Outline, new: &Outline) -> Delta {
    diff_with(old, new, true)
}

/// The diff from `old` to `new`, a row that moved under another parent counting as changed only
/// when `parents` (outlines built with other filters place rows under other ancestors: there a
/// row is changed only when its own line is).
pub fn diff_with(old: &Outline, new: &Outline, parents: bool) -> Delta {
    let old_rows = old.rows();
    let new_rows = new.rows();
    let mut by_key: FastMap<u64, u32> = FastMap::default();
    by_key.reserve(old_rows.len());
    for (i, r) in old_rows.iter().enumerate() {
        by_key.insert(r.key, i as u32);
    }
    let key_of = |o: &Outline, r: u32| (r != NO_ROW).then(|| o.rows()[r as usize].key);
    let mut new_of = vec![NO_ROW; old_rows.len()];
    let mut change = Vec::with_capacity(new_rows.len());
    let mut delta = Delta::default();
    for (i, r) in new_rows.iter().enumerate() {
        match by_key.get(&r.key) {
            Some(&o) => {
                new_of[o as usize] = i as u32;
                let same = old.line(o) == new.line(i as u32)
                    && old.url(o) == new.url(i as u32)
                    && (!parents
                        || key_of(old, old_rows[o as usize].parent) == key_of(new, r.parent));
                if same {
                    change.push(Change::Context);
                } else {
                    change.push(Change::Changed);
                    delta.changed += 1;
                }
            }
            None => {
                change.push(Change::Added);
                delta.added += 1;
            }
        }
    }
    // A removed row goes after the new position of the nearest earlier old row that survived.
    let mut removed_after: Vec<Vec<u32>> = vec![Vec::new(); new_rows.len() + 1];
    let mut anchor = 0usize;
    for (o, &n) in new_of.iter().enumerate() {
        if n == NO_ROW {
            removed_after[anchor].push(o as u32);
            delta.removed += 1;
        } else {
            anchor = n as usize + 1;
        }
    }
    if delta.is_empty() {
        return delta;
    }
    let mut shown_new = vec![false; new_rows.len()];
    let mut shown_old = vec![false; old_rows.len()];
    let mut chain: Vec<DeltaLine> = Vec::new();
    for slot in 0..=new_rows.len() {
        for &o in &removed_after[slot] {
            // Context: the old ancestors, as their new rows when they survived.
            chain.clear();
            for a in old.ancestors(o) {
                match new_of[a as usize] {
                    NO_ROW if shown_old[a as usize] => break,
                    NO_ROW => {
                        shown_old[a as usize] = true;
                        chain.push(DeltaLine {
                            side: Side::Old,
                            row: a,
                            change: Change::Removed,
                        });
                    }
                    n if shown_new[n as usize] => break,
                    n => {
                        shown_new[n as usize] = true;
                        chain.push(DeltaLine {
                            side: Side::New,
                            row: n,
                            change: Change::Context,
                        });
                    }
                }
            }
            delta.lines.extend(chain.drain(..).rev());
            shown_old[o as usize] = true;
            delta.lines.push(DeltaLine {
                side: Side::Old,
                row: o,
                change: Change::Removed,
            });
        }
        if slot == new_rows.len() {
            break;
        }
        let c = change[slot];
        if c == Change::Context || shown_new[slot] {
            continue;
        }
        chain.clear();
        for a in new.ancestors(slot as u32) {
            if std::mem::replace(&mut shown_new[a as usize], true) {
                break;
            }
            chain.push(DeltaLine {
                side: Side::New,
                row: a,
                change: change[a as usize],
            });
        }
        delta.lines.extend(chain.drain(..).rev());
        shown_new[slot] = true;
        delta.lines.push(DeltaLine {
            side: Side::New,
            row: slot as u32,
            change: c,
        });
    }
    delta
}

/// The diff as text: one line per row, `+ `, `- `, `~ ` or two spaces (context) before the
/// snapshot line; `no changes since revision N` alone when nothing changed.
pub fn render_delta(delta: &Delta, old: &Outline, new: &Outline, base_revision: u64) -> String {
    if delta.is_empty() {
        return format!("no changes since revision {base_revision}");
    }
    let mut out = String::new();
    for l in &delta.lines {
        let marker = match l.change {
            Change::Context => ' ',
            Change::Added => '+',
            Change::Removed => '-',
            Change::Changed => '~',
        };
        let style = Style {
            marker: Some(marker),
            ..Style::default()
        };
        match l.side {
            Side::Old => old.write_row(&mut out, l.row, style),
            Side::New => new.write_row(&mut out, l.row, style),
        }
    }
    out
}
