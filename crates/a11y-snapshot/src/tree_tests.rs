//! Unit tests of the merge/prune/render path on hand-built and generated captures.

use proptest::prelude::*;

use crate::dom::split_document;
use crate::raw::{AxNode, AxNodeId, AxProperty, AxScalar, AxValue, DomAttrs, DomNode};
use crate::refs::RefTable;
use crate::render::{SnapshotOptions, lines, node_list, render_actionbook, render_simplified};
use crate::tree::{FrameSource, PageSource, Snapshot};

fn v(s: &str) -> Option<AxValue> {
    Some(AxValue {
        value: AxScalar::Str(s.to_string()),
    })
}

/// (id, role, name, backend, children)
pub(crate) fn ax(id: i64, role: &str, name: &str, backend: i64, kids: &[i64]) -> AxNode {
    AxNode {
        node_id: AxNodeId(id),
        ignored: false,
        role: v(role),
        name: if name.is_empty() { None } else { v(name) },
        value: None,
        properties: Vec::new(),
        parent_id: None,
        child_ids: kids.iter().map(|&k| AxNodeId(k)).collect(),
        backend_dom_node_id: (backend != 0).then_some(backend),
    }
}

pub(crate) fn with_parents(mut nodes: Vec<AxNode>) -> Vec<AxNode> {
    let pairs: Vec<(AxNodeId, AxNodeId)> = nodes
        .iter()
        .flat_map(|n| n.child_ids.iter().map(move |c| (*c, n.node_id)))
        .collect();
    for (c, p) in pairs {
        if let Some(n) = nodes.iter_mut().find(|n| n.node_id == c) {
            n.parent_id = Some(p);
        }
    }
    nodes
}

pub(crate) fn el(id: i64, tag: &str, kids: Vec<DomNode>) -> DomNode {
    DomNode {
        backend_node_id: id,
        node_type: 1,
        node_name: tag.to_ascii_uppercase(),
        local_name: tag.to_string(),
        child_node_count: Some(kids.len() as u32),
        children: Some(kids),
        ..DomNode::default()
    }
}

fn doc(id: i64, kids: Vec<DomNode>) -> DomNode {
    DomNode {
        backend_node_id: id,
        node_type: 9,
        node_name: "#document".into(),
        children: Some(kids),
        ..DomNode::default()
    }
}

fn txt(id: i64) -> DomNode {
    DomNode {
        backend_node_id: id,
        node_type: 3,
        node_name: "#text".into(),
        ..DomNode::default()
    }
}

/// A page like the reference CLI's conformance fixture: heading, paragraph, form, link, clickable
/// cards and a same-process iframe.
fn fixture() -> PageSource {
    let mut card = el(40, "div", vec![txt(41)]);
    card.attributes = DomAttrs {
        onclick: true,
        ..DomAttrs::default()
    };
    let mut link = el(30, "a", vec![txt(31)]);
    link.attributes.href = Some("page2.html".into());
    let mut iframe = el(50, "iframe", vec![]);
    iframe.frame_id = Some("CHILD".into());
    iframe.content_document = Some(Box::new(doc(
        100,
        vec![el(
            101,
            "html",
            vec![el(
                102,
                "body",
                vec![
                    el(103, "p", vec![txt(104)]),
                    el(105, "input", vec![]),
                    el(106, "button", vec![txt(107)]),
                ],
            )],
        )],
    )));
    let body = el(
        3,
        "body",
        vec![
            el(10, "h1", vec![txt(11)]),
            el(12, "p", vec![txt(13), el(14, "b", vec![txt(15)]), txt(16)]),
            el(
                20,
                "form",
                vec![
                    el(21, "label", vec![txt(22)]),
                    el(23, "input", vec![]),
                    el(24, "button", vec![txt(25)]),
                ],
            ),
            link,
            card,
            iframe,
        ],
    );
    let pieces = split_document(doc(1, vec![el(2, "html", vec![body])]));
    let mut checked = ax(9, "checkbox", "I agree", 24, &[]);
    checked.properties.push(AxProperty {
        name: "checked",
        value: AxValue {
            value: AxScalar::Str("true".into()),
        },
    });
    let mut link_ax = ax(12, "link", "Go to page two", 30, &[13]);
    link_ax.properties.push(AxProperty {
        name: "url",
        value: AxValue {
            value: AxScalar::Str("http://x/page2.html".into()),
        },
    });
    let mut ignored = ax(15, "generic", "", 0, &[16]);
    ignored.ignored = true;
    let main_ax = with_parents(vec![
        ax(1, "RootWebArea", "Fixture", 1, &[2, 15]),
        // The body: a nameless generic wrapper at the top of a frame is dropped.
        ax(2, "generic", "", 3, &[3, 5, 7, 12, 14, 17]),
        ax(3, "heading", "Conformance\u{a0}Fixture \u{e001}", 10, &[4]),
        ax(4, "StaticText", "Conformance Fixture", 11, &[99]),
        ax(99, "InlineTextBox", "Conformance Fixture", 0, &[]),
        ax(5, "paragraph", "", 12, &[6, 60, 61]),
        ax(6, "StaticText", "Hello ", 13, &[]),
        ax(60, "StaticText", "agent", 15, &[]),
        ax(61, "StaticText", ", this is a test page.", 16, &[]),
        ax(7, "form", "", 20, &[8, 10, 9]),
        ax(8, "LabelText", "", 21, &[80]),
        ax(80, "StaticText", "Name", 22, &[]),
        ax(10, "textbox", "Name", 23, &[11]),
        ax(11, "generic", "", 0, &[]),
        checked,
        link_ax,
        ax(13, "StaticText", "Go to page two", 31, &[]),
        ax(14, "generic", "", 40, &[140]),
        ax(140, "StaticText", "Card one", 41, &[]),
        ax(17, "Iframe", "Inner frame", 50, &[]),
        ignored,
        ax(16, "LineBreak", "", 0, &[]),
    ]);
    let child_ax = with_parents(vec![
        ax(1, "RootWebArea", "", 100, &[2]),
        ax(2, "generic", "", 102, &[3, 5, 6]),
        ax(3, "paragraph", "", 103, &[4]),
        ax(4, "StaticText", "Inside the iframe", 104, &[]),
        ax(5, "textbox", "Inner input", 105, &[]),
        ax(6, "button", "Inner button", 106, &[7]),
        ax(7, "StaticText", "Inner button", 107, &[]),
    ]);
    let mut children = pieces.children.into_iter();
    let child_dom = children.next().map(|(_, d)| d).unwrap_or_default();
    PageSource {
        frames: vec![
            FrameSource {
                frame_index: 0,
                frame_id: "MAIN".into(),
                url: "http://x/".into(),
                dom: pieces.root,
                ax: main_ax,
                ..FrameSource::default()
            },
            FrameSource {
                frame_index: 1,
                frame_id: "CHILD".into(),
                parent_frame_id: Some("MAIN".into()),
                owner_backend_node_id: Some(50),
                url: "http://x/inner.html".into(),
                dom: child_dom,
                ax: child_ax,
                ..FrameSource::default()
            },
        ],
        capture_time: std::time::Duration::ZERO,
        warnings: Vec::new(),
        viewport: None,
    }
}

#[test]
fn actionbook_text_matches_the_reference_shape() {
    let mut refs = RefTable::new();
    let snap = Snapshot::build(fixture(), &mut refs);
    let text = render_actionbook(&snap, &SnapshotOptions::default());
    let expected = r#"- heading "Conformance Fixture" [ref=e1]
- paragraph: Hello agent, this is a test page.
- form:
  - text: Name
  - textbox "Name" [ref=e2]
  - checkbox "I agree" [checked] [ref=e3]
- link "Go to page two" [ref=e4]:
  - /url: /page2.html
- generic "Card one" [ref=e5] [cursor=pointer]
- iframe "Inner frame" [ref=e6]:
  - paragraph: Inside the iframe
  - textbox "Inner input" [ref=e7]
  - button "Inner button" [ref=e8]"#;
    assert_eq!(text, expected);

    let inter = render_actionbook(
        &snap,
        &SnapshotOptions {
            interactive_only: true,
            ..SnapshotOptions::default()
        },
    );
    assert_eq!(
        inter,
        r#"- textbox "Name" [ref=e2]
- checkbox "I agree" [checked] [ref=e3]
- link "Go to page two" [ref=e4]:
  - /url: /page2.html
- generic "Card one" [ref=e5] [cursor=pointer]
- iframe "Inner frame" [ref=e6]:
  - textbox "Inner input" [ref=e7]
  - button "Inner button" [ref=e8]"#
    );
    let no_cursor = render_actionbook(
        &snap,
        &SnapshotOptions {
            interactive_only: true,
            cursor: false,
            ..SnapshotOptions::default()
        },
    );
    assert!(!no_cursor.contains("Card one"));

    let depth0 = render_actionbook(
        &snap,
        &SnapshotOptions {
            max_depth: Some(0),
            ..SnapshotOptions::default()
        },
    );
    assert!(
        depth0
            .lines()
            .all(|l| l.starts_with("- ") || l == "  - /url: /page2.html"),
        "{depth0}"
    );

    let simple = render_simplified(&snap, &SnapshotOptions::default());
    assert!(
        simple.starts_with("=== Frame 0 (Main) ===\n[0-10] heading \"Conformance Fixture\""),
        "{simple}"
    );
    assert!(
        simple.contains("=== Frame 1 (Main → Frame 1) ===\n[1-103] paragraph"),
        "{simple}"
    );
    assert!(simple.contains("[0-24] checkbox \"I agree\" [checked]"));

    let (nodes, stats) = node_list(&snap, &SnapshotOptions::default());
    assert_eq!(nodes.len(), 8);
    assert_eq!(stats.interactive_count, 7);
    assert_eq!(nodes[5].role, "iframe");

    let maps = snap.maps();
    let id = crate::EncodedId::new(1, 106);
    assert_eq!(
        maps.xpaths.get(&id).map(String::as_str),
        Some("/html[1]/body[1]/button[1]")
    );
    assert_eq!(maps.backend_node_ids.get(&id), Some(&106));
    assert_eq!(
        maps.frames.get(&1).map(|f| f.frame_id.as_str()),
        Some("CHILD")
    );

    // Subtree of the form (by its encoded id), and of an element that was pruned (the body wrapper).
    let sub = render_actionbook(
        &snap,
        &SnapshotOptions {
            subtree: Some(crate::EncodedId::new(0, 20)),
            ..SnapshotOptions::default()
        },
    );
    assert!(
        sub.starts_with("- form:") && !sub.contains("heading"),
        "{sub}"
    );
    let sub = render_actionbook(
        &snap,
        &SnapshotOptions {
            subtree: Some(crate::EncodedId::new(1, 102)),
            ..SnapshotOptions::default()
        },
    );
    assert!(
        sub.contains("- paragraph: Inside the iframe")
            && sub.contains("Inner button")
            && !sub.contains("form"),
        "{sub}"
    );
}

#[test]
fn refs_are_stable_across_snapshots_and_options() {
    let mut refs = RefTable::new();
    let first = Snapshot::build(fixture(), &mut refs);
    let (a, _) = node_list(&first, &SnapshotOptions::default());
    // A second capture where a new button appears before the heading.
    let mut src = fixture();
    src.frames[0].ax[1].child_ids.insert(0, AxNodeId(500));
    src.frames[0]
        .ax
        .push(ax(500, "button", "New first", 777, &[]));
    let second = Snapshot::build(src, &mut refs);
    let (b, _) = node_list(&second, &SnapshotOptions::default());
    let (c, _) = node_list(
        &second,
        &SnapshotOptions {
            interactive_only: true,
            ..SnapshotOptions::default()
        },
    );
    for n in &a {
        assert!(b.contains(n), "{n:?} changed");
    }
    assert_eq!(b[0].name, "New first");
    assert_eq!(b[0].reference.to_string(), "e9");
    for n in &c {
        assert!(b.contains(n));
    }
    refs.reset();
    let third = Snapshot::build(fixture(), &mut refs);
    assert_eq!(
        node_list(&third, &SnapshotOptions::default()).0[0]
            .reference
            .to_string(),
        "e1"
    );
}

#[test]
fn deep_trees_do_not_overflow() {
    // 5,000 nested divs around a button: DOM and AX both 5,000 levels deep.
    let depth = 5000;
    let mut node = el(100_000, "button", vec![]);
    for i in (0..depth).rev() {
        node = el(10 + i, "div", vec![node]);
    }
    let pieces = split_document(doc(1, vec![node]));
    let mut axs = vec![ax(1, "RootWebArea", "", 1, &[2])];
    for i in 0..depth {
        axs.push(ax(2 + i, "generic", "", 10 + i, &[3 + i]));
    }
    axs.push(ax(2 + depth, "button", "Deep", 100_000, &[]));
    let src = PageSource {
        frames: vec![FrameSource {
            frame_id: "M".into(),
            dom: pieces.root,
            ax: with_parents(axs),
            ..FrameSource::default()
        }],
        ..PageSource::default()
    };
    let mut refs = RefTable::new();
    let snap = Snapshot::build(src, &mut refs);
    assert_eq!(
        render_actionbook(&snap, &SnapshotOptions::default()),
        "- button \"Deep\" [ref=e1]"
    );
    assert!(
        snap.maps()
            .xpaths
            .values()
            .any(|x| x.matches("div[1]").count() == depth as usize)
    );
}

#[derive(Debug, Clone)]
pub(crate) struct GenAx {
    role: &'static str,
    name: bool,
    ignored: bool,
    kids: Vec<GenAx>,
}

pub(crate) fn gen_ax() -> impl Strategy<Value = GenAx> {
    let roles = vec![
        "button",
        "generic",
        "StaticText",
        "link",
        "heading",
        "none",
        "listitem",
        "InlineTextBox",
        "Iframe",
        "textbox",
        "paragraph",
    ];
    let leaf = (
        prop::sample::select(roles.clone()),
        any::<bool>(),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(role, name, ignored)| GenAx {
            role,
            name,
            ignored,
            kids: vec![],
        });
    leaf.prop_recursive(6, 80, 6, move |inner| {
        (
            prop::sample::select(roles.clone()),
            any::<bool>(),
            prop::bool::weighted(0.15),
            prop::collection::vec(inner, 0..6),
        )
            .prop_map(|(role, name, ignored, kids)| GenAx {
                role,
                name,
                ignored,
                kids,
            })
    })
}

pub(crate) fn flatten(g: &GenAx, next: &mut i64, out: &mut Vec<AxNode>, dup_backend: bool) -> i64 {
    *next += 1;
    let id = *next;
    let slot = out.len();
    // Some generated nodes share a backend id on purpose: refs must still be unique per output.
    let backend = if dup_backend && id % 7 == 0 { 7 } else { id };
    out.push(ax(
        id,
        g.role,
        if g.name { "Label" } else { "" },
        backend,
        &[],
    ));
    out[slot].ignored = g.ignored;
    let kids: Vec<i64> = g
        .kids
        .iter()
        .map(|k| flatten(k, next, out, dup_backend))
        .collect();
    out[slot].child_ids = kids.iter().map(|&k| AxNodeId(k)).collect();
    id
}

proptest! {
    #[test]
    fn renderers_never_emit_a_ref_twice(tree in gen_ax(), dup in any::<bool>(), interactive in any::<bool>(), compact in any::<bool>()) {
        let mut nodes = vec![ax(1, "RootWebArea", "", 1, &[])];
        let mut next = 1;
        let top = flatten(&tree, &mut next, &mut nodes, dup);
        nodes[0].child_ids = vec![AxNodeId(top)];
        // A repeated child id must not duplicate a subtree either.
        nodes[0].child_ids.push(AxNodeId(top));
        let src = PageSource { frames: vec![FrameSource { frame_id: "M".into(), ax: with_parents(nodes), ..FrameSource::default() }], ..PageSource::default() };
        let mut refs = RefTable::new();
        let snap = Snapshot::build(src, &mut refs);
        let opts = SnapshotOptions { interactive_only: interactive, compact, ..SnapshotOptions::default() };
        let text = render_actionbook(&snap, &opts);
        let mut seen = std::collections::HashSet::new();
        for part in text.split("[ref=").skip(1) {
            let r = part.split(']').next().unwrap_or_default().to_string();
            prop_assert!(seen.insert(r.clone()), "ref {} twice in\n{}", r, text);
        }
        let (list, _) = node_list(&snap, &opts);
        prop_assert_eq!(list.len(), seen.len());
        prop_assert!(!text.contains("StaticText") && !text.contains("InlineTextBox") && !text.contains("Iframe"));
        prop_assert_eq!(lines(&snap, &opts).len() >= list.len(), true);
    }
}

#[test]
fn compact_drops_empty_wrappers_and_ignored_clickables_stay() {
    // generic(div) > [generic(div) > [button A, button B], text], and an ignored clickable div.
    let mut clicky = el(40, "div", vec![txt(41)]);
    clicky.attributes = DomAttrs {
        onclick: true,
        ..DomAttrs::default()
    };
    let body = el(
        3,
        "body",
        vec![
            el(
                10,
                "div",
                vec![
                    el(
                        11,
                        "div",
                        vec![el(12, "button", vec![]), el(13, "button", vec![])],
                    ),
                    txt(14),
                ],
            ),
            clicky,
        ],
    );
    let pieces = split_document(doc(1, vec![el(2, "html", vec![body])]));
    let mut ignored = ax(8, "none", "", 40, &[9]);
    ignored.ignored = true;
    let nodes = with_parents(vec![
        ax(1, "RootWebArea", "", 1, &[2]),
        ax(2, "generic", "", 3, &[3, 8]),
        ax(3, "generic", "", 10, &[4, 7]),
        ax(4, "generic", "", 11, &[5, 6]),
        ax(5, "button", "A", 12, &[]),
        ax(6, "button", "B", 13, &[]),
        ax(7, "StaticText", "tail", 14, &[]),
        ignored,
        ax(9, "StaticText", "Press me", 41, &[]),
    ]);
    let src = PageSource {
        frames: vec![FrameSource {
            frame_id: "M".into(),
            dom: pieces.root,
            ax: nodes,
            ..FrameSource::default()
        }],
        ..PageSource::default()
    };
    let mut refs = RefTable::new();
    let snap = Snapshot::build(src, &mut refs);
    let full = render_actionbook(&snap, &SnapshotOptions::default());
    assert_eq!(
        full,
        "- generic:\n  - generic:\n    - button \"A\" [ref=e1]\n    - button \"B\" [ref=e2]\n  - text: tail\n- generic \"Press me\" [ref=e3] [cursor=pointer]"
    );
    let compact = render_actionbook(
        &snap,
        &SnapshotOptions {
            compact: true,
            ..SnapshotOptions::default()
        },
    );
    assert_eq!(
        compact,
        "- button \"A\" [ref=e1]\n- button \"B\" [ref=e2]\n- text: tail\n- generic \"Press me\" [ref=e3] [cursor=pointer]"
    );
}
