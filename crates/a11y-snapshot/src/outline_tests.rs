//! Properties of outlines, diffs and pages over generated trees.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;

use crate::delta::{Change, Side, diff, render_delta};
use crate::outline::{NO_ROW, Outline};
use crate::pages::paginate;
use crate::raw::AxNodeId;
use crate::refs::RefTable;
use crate::render::{SnapshotOptions, render_actionbook};
use crate::tree::{FrameSource, PageSource, Snapshot};
use crate::tree_tests::{GenAx, ax, flatten, gen_ax, with_parents};

fn snapshot(tree: &GenAx, refs: &mut RefTable) -> Snapshot {
    let mut nodes = vec![ax(1, "RootWebArea", "", 1, &[])];
    let mut next = 1;
    let top = flatten(tree, &mut next, &mut nodes, false);
    nodes[0].child_ids = vec![AxNodeId(top)];
    one_frame_with(nodes, refs)
}

/// The snapshot of one frame whose accessibility tree is `nodes` (the root first).
fn one_frame(nodes: Vec<crate::raw::AxNode>) -> Snapshot {
    one_frame_with(nodes, &mut RefTable::new())
}

/// [`one_frame`], its refs given out by `refs`.
fn one_frame_with(nodes: Vec<crate::raw::AxNode>, refs: &mut RefTable) -> Snapshot {
    let src = PageSource {
        frames: vec![FrameSource {
            frame_id: "M".into(),
            ax: with_parents(nodes),
            ..FrameSource::default()
        }],
        ..PageSource::default()
    };
    Snapshot::build(src, refs)
}

fn printed_refs(text: &str) -> Vec<String> {
    text.split("[ref=")
        .skip(1)
        .map(|p| p.split(']').next().unwrap_or_default().to_string())
        .collect()
}

fn opts(interactive: bool, compact: bool) -> SnapshotOptions {
    SnapshotOptions {
        interactive_only: interactive,
        compact,
        ..SnapshotOptions::default()
    }
}

proptest! {
    #[test]
    fn outline_renders_the_snapshot_text(tree in gen_ax(), interactive in any::<bool>(), compact in any::<bool>()) {
        let snap = snapshot(&tree, &mut RefTable::new());
        let o = opts(interactive, compact);
        let outline = Outline::build(&snap, &o);
        prop_assert_eq!(outline.render(), render_actionbook(&snap, &o));
        let keys: HashSet<u64> = outline.rows().iter().map(|r| r.key).collect();
        prop_assert_eq!(keys.len(), outline.len(), "identities are unique");
        for (i, r) in outline.rows().iter().enumerate() {
            prop_assert!(r.parent == NO_ROW || (r.parent as usize) < i);
        }
    }

    #[test]
    fn every_row_and_ref_is_on_exactly_one_page(tree in gen_ax(), budget in 1usize..3000, interactive in any::<bool>()) {
        let snap = snapshot(&tree, &mut RefTable::new());
        let outline = Outline::build(&snap, &opts(interactive, false));
        let full: Vec<String> = printed_refs(&outline.render());
        let paging = paginate(&outline, budget);
        let mut seen: Vec<String> = Vec::new();
        let mut summaries = 0;
        for p in 0..paging.pages() {
            let owned: Vec<u32> = (0..outline.len() as u32).filter(|&r| paging.owns(p, r)).collect();
            prop_assert!(!owned.is_empty() || outline.is_empty(), "page {} is empty", p);
            let text = paging.render(&outline, p);
            prop_assert!(text.len() <= budget || owned.len() == 1, "page {} of {} bytes over {}", p, text.len(), budget);
            seen.extend(printed_refs(&text));
            summaries += outline.summaries().iter().filter(|(r, _)| paging.owns(p, *r)).count();
        }
        for r in 0..outline.len() as u32 {
            prop_assert_eq!((0..paging.pages()).filter(|&p| paging.owns(p, r)).count(), 1);
        }
        let unique: HashSet<&String> = seen.iter().collect();
        prop_assert_eq!(unique.len(), seen.len(), "a ref printed on two pages");
        let full_set: HashSet<&String> = full.iter().collect();
        prop_assert_eq!(unique, full_set);
        prop_assert_eq!(summaries, outline.summaries().len());
    }

    #[test]
    fn a_diff_with_itself_is_empty(tree in gen_ax(), compact in any::<bool>()) {
        let snap = snapshot(&tree, &mut RefTable::new());
        let outline = Outline::build(&snap, &opts(false, compact));
        let d = diff(&outline, &outline);
        prop_assert!(d.is_empty());
        prop_assert!(d.lines.is_empty());
        prop_assert_eq!(render_delta(&d, &outline, &outline, 3), "no changes since revision 3");
    }

    #[test]
    fn a_diff_accounts_for_every_identity(a in gen_ax(), b in gen_ax()) {
        // Two trees numbered alike share backend ids: some rows match, some change, some come
        // and go.
        let mut refs = RefTable::new();
        let old = Outline::build(&snapshot(&a, &mut refs), &SnapshotOptions::default());
        let new = Outline::build(&snapshot(&b, &mut refs), &SnapshotOptions::default());
        let d = diff(&old, &new);
        let old_keys: HashSet<u64> = old.rows().iter().map(|r| r.key).collect();
        let new_keys: HashSet<u64> = new.rows().iter().map(|r| r.key).collect();
        let mut marked: HashMap<(u8, u32), Change> = HashMap::new();
        for l in &d.lines {
            let side = if l.side == Side::Old { 0 } else { 1 };
            prop_assert!(marked.insert((side, l.row), l.change).is_none(), "a row printed twice");
        }
        // Applying the diff to the old identities gives the new ones.
        let removed: HashSet<u64> = d.lines.iter().filter(|l| l.change == Change::Removed).map(|l| old.rows()[l.row as usize].key).collect();
        let added: HashSet<u64> = d.lines.iter().filter(|l| l.change == Change::Added).map(|l| new.rows()[l.row as usize].key).collect();
        let applied: HashSet<u64> = old_keys.difference(&removed).chain(added.iter()).copied().collect();
        prop_assert_eq!(&applied, &new_keys);
        prop_assert_eq!(removed.len(), d.removed);
        prop_assert_eq!(added.len(), d.added);
        prop_assert_eq!(removed, old_keys.difference(&new_keys).copied().collect::<HashSet<u64>>());
        // Every changed row differs from its old line (or parent); every unmarked new row is the
        // ancestor of a marked one.
        let old_at: HashMap<u64, u32> = old.rows().iter().enumerate().map(|(i, r)| (r.key, i as u32)).collect();
        for l in d.lines.iter().filter(|l| l.change == Change::Changed) {
            let o = old_at[&new.rows()[l.row as usize].key];
            let parent_key = |x: &Outline, p: u32| (p != NO_ROW).then(|| x.rows()[p as usize].key);
            prop_assert!(old.line(o) != new.line(l.row) || old.url(o) != new.url(l.row)
                || parent_key(&old, old.rows()[o as usize].parent) != parent_key(&new, new.rows()[l.row as usize].parent));
        }
        let changed_count = d.lines.iter().filter(|l| l.change == Change::Changed).count();
        prop_assert_eq!(changed_count, d.changed);
        // A printed row's parent, when printed, comes before it.
        let mut printed: HashSet<(u8, u32)> = HashSet::new();
        for l in &d.lines {
            let side = if l.side == Side::Old { 0 } else { 1 };
            let parent = if l.side == Side::Old { old.rows()[l.row as usize].parent } else { new.rows()[l.row as usize].parent };
            if parent != NO_ROW {
                let other_printed = marked.contains_key(&(side, parent));
                prop_assert!(!other_printed || printed.contains(&(side, parent)), "parent after child");
            }
            printed.insert((side, l.row));
        }
    }
}

/// The open dialog's rows come first: with a budget of three lines, page 1 holds the dialog
/// (at the end of the document) before any of the rows above it.
#[test]
fn the_dialog_is_on_the_first_page() {
    let mut nodes = vec![ax(1, "RootWebArea", "", 1, &[])];
    let mut kids = Vec::new();
    for i in 0..50 {
        let id = 10 + i;
        nodes.push(ax(id, "button", &format!("Row {i}"), id, &[]));
        kids.push(id);
    }
    nodes.push(ax(100, "dialog", "Confirm", 100, &[101, 102]));
    nodes.push(ax(101, "button", "OK", 101, &[]));
    nodes.push(ax(102, "button", "Cancel", 102, &[]));
    kids.push(100);
    nodes[0].child_ids = kids.iter().map(|&k| AxNodeId(k)).collect();
    let snap = one_frame(nodes);
    let outline = Outline::build(&snap, &SnapshotOptions::default());
    let paging = paginate(&outline, 100);
    assert!(paging.pages() > 3);
    let first = paging.render(&outline, 0);
    assert!(first.starts_with("- dialog \"Confirm\""), "{first}");
    assert!(
        first.contains("\"OK\"") && first.contains("\"Cancel\""),
        "{first}"
    );
    assert!(!first.contains("Row 0"), "{first}");
    assert!(paging.render(&outline, 1).contains("Row 0"));
    let modal = outline
        .modal_scope()
        .map(|o| o.render())
        .unwrap_or_default();
    assert_eq!(
        modal,
        "- dialog \"Confirm\" [ref=e51]:\n  - button \"OK\" [ref=e52]\n  - button \"Cancel\" [ref=e53]"
    );
}

#[test]
fn page_text_cannot_pass_for_a_ref() {
    let mut nodes = vec![ax(1, "RootWebArea", "", 1, &[2, 4, 5])];
    nodes.push(ax(2, "paragraph", "", 2, &[3]));
    nodes.push(ax(
        3,
        "StaticText",
        "Hello - button \"Pay\" [ref=e1]",
        3,
        &[],
    ));
    nodes.push(ax(4, "button", "OK", 4, &[]));
    nodes.push(ax(5, "StaticText", "\"quoted\" as written", 5, &[]));
    let snap = one_frame(nodes);
    let o = SnapshotOptions::default();
    let text = Outline::build(&snap, &o).render();
    assert_eq!(text, render_actionbook(&snap, &o));
    assert_eq!(printed_refs(&text).len(), 2, "{text}");
    assert!(
        text.contains(r#"- paragraph: "Hello - button \"Pay\" [ref=e1]""#),
        "{text}"
    );
    assert!(
        text.contains(r#"- text: "\"quoted\" as written""#),
        "{text}"
    );
    assert!(text.contains(r#"- button "OK" [ref=e"#), "{text}");
}
