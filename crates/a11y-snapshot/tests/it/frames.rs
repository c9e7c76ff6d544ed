//! Same-origin iframes (content present, not the 3-node bug), nested iframes, an OOPIF nested under
//! its iframe line, and resolution of refs back to the right node in each frame.

use a11y_snapshot::{Known, ResolveOptions, Target, resolve};

use crate::support::{Tab, ref_of, text};

pub(crate) const MAIN: &str = r#"<!doctype html><title>Frames</title><h1>Main frame</h1><button id=main-btn>Main button</button>
<iframe id=fa src="frame_a.html" title="Frame A" width=400 height=200></iframe>
<iframe id=fc src="frame_c.html" title="Frame C" width=500 height=300></iframe>
<iframe id=xs src="{{XSITE}}/oopif_child.html" title="Cross-site frame" width=500 height=250></iframe>"#;
pub(crate) const FRAME_A: &str = r#"<!doctype html><p>Inside frame A</p><label for=a-in>FrameA input</label><input id=a-in><button id=a-btn>FrameA button</button>"#;
pub(crate) const FRAME_C: &str = r#"<!doctype html><p>Inside frame C</p><button id=c-btn>FrameC button</button><iframe src="frame_nested.html" title="Nested" width=300 height=120></iframe>"#;
pub(crate) const NESTED: &str =
    r#"<!doctype html><p>Nested frame text</p><button id=nested-btn>NestedFrame button</button>"#;
pub(crate) const OOPIF: &str = r#"<!doctype html><p>CrossSiteFrame text</p><button id=x-btn>CrossSiteFrame button</button><label for=x-in>CrossSiteFrame input</label><input id=x-in><iframe src="oopif_inner.html" title="Inside OOPIF" width=300 height=80></iframe>"#;
pub(crate) const OOPIF_INNER: &str =
    r#"<!doctype html><button id=oi-btn>OOPIF nested button</button>"#;

/// A tab on the main page: two same-origin iframes (one nesting another) and an OOPIF (nesting one).
async fn open_frames_page() -> Tab {
    Tab::open(
        &[
            ("/main.html", MAIN),
            ("/frame_a.html", FRAME_A),
            ("/frame_c.html", FRAME_C),
            ("/frame_nested.html", NESTED),
            ("/oopif_child.html", OOPIF),
            ("/oopif_inner.html", OOPIF_INNER),
        ],
        "/main.html",
    )
    .await
}

fn indent_of(t: &str, needle: &str) -> usize {
    let line = t
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} missing in\n{t}"));
    line.len() - line.trim_start().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iframe_content_is_nested_and_resolvable() {
    let mut tab = open_frames_page().await;
    let oopifs = tab
        .frames
        .frames()
        .into_iter()
        .filter(|f| f.is_out_of_process)
        .count();
    assert_eq!(oopifs, 1, "the cross-site iframe is out of process");
    let snap = tab.snapshot().await;
    let t = text(&snap);
    assert_eq!(snap.frames.len(), 6, "{t}");

    // Same-origin frame content is all there, one level below its iframe line.
    let a = indent_of(&t, "- iframe \"Frame A\"");
    assert_eq!(indent_of(&t, "textbox \"FrameA input\""), a + 2, "{t}");
    assert_eq!(indent_of(&t, "button \"FrameA button\""), a + 2);
    assert!(t.contains("- paragraph: Inside frame A"));
    // Nested: C's content under C, the nested frame's content under the nested iframe line.
    let c = indent_of(&t, "- iframe \"Frame C\"");
    let n = indent_of(&t, "- iframe \"Nested\"");
    assert_eq!(n, c + 2, "{t}");
    assert_eq!(indent_of(&t, "button \"NestedFrame button\""), n + 2);
    // OOPIF content, from its own session, under its iframe line.
    let x = indent_of(&t, "- iframe \"Cross-site frame\"");
    assert_eq!(
        indent_of(&t, "button \"CrossSiteFrame button\""),
        x + 2,
        "{t}"
    );
    assert_eq!(indent_of(&t, "textbox \"CrossSiteFrame input\""), x + 2);
    // Order: the iframe lines follow document order.
    let pos = |s: &str| t.find(s).unwrap();
    assert!(pos("Frame A") < pos("Frame C") && pos("Frame C") < pos("Cross-site frame"));

    // Each ref goes back to the right element in the right frame.
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    let mut frame_indices = std::collections::HashSet::new();
    for (role, name, id) in [
        ("button", "Main button", "main-btn"),
        ("button", "FrameA button", "a-btn"),
        ("textbox", "FrameA input", "a-in"),
        ("button", "FrameC button", "c-btn"),
        ("button", "NestedFrame button", "nested-btn"),
        ("button", "CrossSiteFrame button", "x-btn"),
        ("textbox", "CrossSiteFrame input", "x-in"),
        ("button", "OOPIF nested button", "oi-btn"),
        ("iframe", "Frame A", "fa"),
    ] {
        let r = ref_of(&snap, role, name);
        let node = resolve(
            &tab.frames,
            &Target::Ref(r),
            known,
            &ResolveOptions::default(),
        )
        .await
        .unwrap();
        let got = tab
            .call_on(
                &node.session,
                &node.object_id,
                "function () { return this.id; }",
            )
            .await;
        assert_eq!(got, serde_json::json!(id), "{role} {name}");
        frame_indices.insert(node.frame_index);
        let enc = node.encoded_id().to_string();
        assert!(
            snap.maps().xpaths.contains_key(&node.encoded_id()),
            "{enc} has an xpath"
        );
    }
    assert_eq!(frame_indices.len(), 6, "refs spread over all six frames");
    // A same-site frame inside the OOPIF (same process as the OOPIF, no session of its own).
    let inner = indent_of(&t, "- iframe \"Inside OOPIF\"");
    assert_eq!(inner, x + 2, "{t}");
    assert_eq!(
        indent_of(&t, "button \"OOPIF nested button\""),
        inner + 2,
        "{t}"
    );

    // CSS in the main frame only by default; inside frames when asked.
    let main_only = resolve(
        &tab.frames,
        &Target::parse("#nested-btn").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(main_only.is_err());
    let opts = ResolveOptions {
        search_frames: true,
        ..ResolveOptions::default()
    };
    let found = resolve(
        &tab.frames,
        &Target::parse("#nested-btn").unwrap(),
        known,
        &opts,
    )
    .await
    .unwrap();
    assert_eq!(
        found.backend_node_id,
        resolve(
            &tab.frames,
            &Target::Ref(ref_of(&snap, "button", "NestedFrame button")),
            known,
            &opts
        )
        .await
        .unwrap()
        .backend_node_id
    );
    // Boxes in top-level page coordinates: each frame's button lies inside its iframe's box.
    let mut boxed = snap.clone();
    a11y_snapshot::capture_boxes(
        &tab.frames,
        &mut boxed,
        &a11y_snapshot::CaptureOptions::default(),
    )
    .await
    .unwrap();
    let box_of = |role: &str, name: &str| {
        let r = ref_of(&snap, role, name);
        let n = snap.node_by_ref(r).unwrap();
        *boxed
            .boxes
            .get(&n.encoded_id())
            .unwrap_or_else(|| panic!("no box for {name}"))
    };
    for (frame, button) in [
        ("Frame A", "FrameA button"),
        ("Cross-site frame", "CrossSiteFrame button"),
        ("Nested", "NestedFrame button"),
        ("Frame C", "NestedFrame button"),
    ] {
        let (f, b) = (box_of("iframe", frame), box_of("button", button));
        assert!(
            b.x >= f.x
                && b.y >= f.y
                && b.x + b.width <= f.x + f.width + 0.5
                && b.y + b.height <= f.y + f.height + 0.5,
            "{button} {b:?} not inside {frame} {f:?}"
        );
        assert!(b.width > 0.0 && b.height > 0.0);
    }
    let xsite = resolve(
        &tab.frames,
        &Target::parse("//button[@id='x-btn']").unwrap(),
        known,
        &opts,
    )
    .await
    .unwrap();
    assert!(xsite.frame_index > 0);

    // Stale nodes inside the OOPIF: an identical re-render is recovered through the stored XPath on
    // the OOPIF's session; a different element at the same place is reported stale.
    let x_btn = ref_of(&snap, "button", "CrossSiteFrame button");
    let x_in = ref_of(&snap, "textbox", "CrossSiteFrame input");
    let rerender = "function () { const b = document.getElementById('x-btn'); const n = b.cloneNode(true); n.id = 'x-btn2'; b.replaceWith(n); \
                    const i = document.getElementById('x-in'); const t = document.createElement('input'); t.id = 'x-other'; t.setAttribute('aria-label', 'Something else'); i.replaceWith(t); }";
    tab.call_on(&xsite.session, &xsite.object_id, rerender)
        .await;
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    let again = resolve(
        &tab.frames,
        &Target::Ref(x_btn),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert!(again.recovered);
    assert_eq!(
        tab.call_on(
            &again.session,
            &again.object_id,
            "function () { return this.id; }"
        )
        .await,
        serde_json::json!("x-btn2")
    );
    let stale = resolve(
        &tab.frames,
        &Target::Ref(x_in),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(
        matches!(stale, Err(a11y_snapshot::SnapshotError::Stale { .. })),
        "{stale:?}"
    );
    tab.close().await;
}

/// An out-of-process iframe whose renderer crashed: the snapshot of the rest of the page still
/// works (and does not wait for the dead frame), the iframe line stays without content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_oopif_leaves_the_rest_of_the_snapshot() {
    let mut tab = open_frames_page().await;
    let oopif = tab
        .frames
        .frames()
        .into_iter()
        .find(|f| f.is_out_of_process)
        .expect("an OOPIF");
    let session = tab
        .frames
        .session_for(&oopif.frame_id)
        .expect("its session");
    // Page.crash never answers: its renderer is gone.
    let _ = session
        .call_timeout(
            "Page.crash",
            serde_json::json!({}),
            std::time::Duration::from_millis(500),
        )
        .await;
    let mut crashed = false;
    for _ in 0..100 {
        if tab.frames.is_crashed(&oopif.frame_id) {
            crashed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(crashed, "the graph saw the crash");
    let snap = tokio::time::timeout(std::time::Duration::from_secs(20), tab.snapshot())
        .await
        .expect("the snapshot does not wait for the crashed frame");
    let t = text(&snap);
    assert!(t.contains("button \"Main button\""), "{t}");
    assert!(t.contains("button \"FrameA button\""), "{t}");
    assert!(t.contains("button \"NestedFrame button\""), "{t}");
    assert!(t.contains("iframe \"Cross-site frame\""), "{t}");
    assert!(
        !t.contains("CrossSiteFrame button"),
        "no content from the dead renderer: {t}"
    );
    assert!(!t.contains("OOPIF nested button"), "{t}");
    tab.close().await;
}
