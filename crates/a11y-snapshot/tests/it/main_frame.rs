//! Main-frame form, names with glyphs and non-breaking spaces, SVG icon in a button, shadow DOM.

use a11y_snapshot::{
    Known, ResolveOptions, SnapshotOptions, Target, node_list, render_actionbook,
    render_simplified, resolve,
};

use crate::support::{Tab, ref_of, text};

pub(crate) const FORM: &str = r#"<!doctype html><html><head><title>Form</title></head><body>
<h1>Conformance Fixture</h1>
<p>Hello <b>agent</b>, this is a test page.</p>
<form>
  <label for=name>Name</label> <input id=name placeholder="Your name" value="Ada">
  <label for=color>Color</label> <select id=color><option>Red</option><option selected>Green</option></select>
  <label><input type=checkbox id=agree checked> I agree</label>
  <button type=button id=submit>Submit</button>
  <button type=button disabled>Disabled</button>
</form>
<a id=two href="page2.html">Go to page two</a>
<div class=card style="cursor:pointer" id=card><span>Card one</span></div>
<div onclick="void 0" id=clicky>Clickable div</div>
<button id=glyph>&#xe001; Save&nbsp;&nbsp;all&#x200b;</button>
<button id=icon aria-label="Close"><svg width=10 height=10 viewBox="0 0 10 10"><path d="M0 0L10 10"/></svg></button>
<my-host id=host></my-host>
<script>
  const root = document.getElementById('host').attachShadow({mode: 'open'});
  root.innerHTML = '<label>Shadow field <input id=sin></label><inner-host id=inner></inner-host>';
  root.getElementById('inner').attachShadow({mode: 'open'}).innerHTML = '<button id=deepbtn>Nested shadow button</button>';
  document.getElementById('glyph').append('\uD800');
</script>
</body></html>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_roles_names_values_and_refs() {
    let mut tab = Tab::open(
        &[("/form.html", FORM), ("/page2.html", "<p>two</p>")],
        "/form.html",
    )
    .await;
    let snap = tab.snapshot().await;
    let t = text(&snap);
    for line in [
        "- heading \"Conformance Fixture\" [ref=e1]",
        "- paragraph: Hello agent, this is a test page.",
        "- textbox \"Name\" [ref=e2]: Ada",
        "- combobox \"Color\" [ref=e3]:",
        "- option \"Green\" [selected] [ref=e5]",
        "- checkbox \"I agree\" [checked] [ref=e6]",
        "- button \"Submit\" [ref=e7]",
        "- button \"Disabled\" [disabled] [ref=e8]",
        "- link \"Go to page two\" [ref=e9]:",
        "- /url: ",
        "[cursor=pointer]",
        "- button \"Save all\"",
        "- button \"Close\"",
        "- textbox \"Shadow field\"",
        "- button \"Nested shadow button\"",
    ] {
        assert!(t.contains(line), "missing {line:?} in\n{t}");
    }
    assert!(t.contains("- generic \"Card one\""), "{t}");
    assert!(t.contains("- generic \"Clickable div\""), "{t}");
    for noise in [
        "StaticText",
        "InlineTextBox",
        "LabelText",
        "MenuListPopup",
        "\u{a0}",
        "\u{e001}",
        "\u{fffd}",
    ] {
        assert!(!t.contains(noise), "{noise:?} in\n{t}");
    }
    assert!(!t.ends_with('\n'));

    // JSON nodes: every ref'd node, in document order, values included.
    let (nodes, stats) = node_list(&snap, &SnapshotOptions::default());
    assert_eq!(nodes[1].role, "textbox");
    assert_eq!(nodes[1].value, "Ada");
    assert_eq!(stats.node_count, nodes.len());
    assert!(stats.interactive_count < stats.node_count);

    // Interactive only: no heading, no paragraph, but the shadow and SVG buttons stay.
    let inter = render_actionbook(
        &snap,
        &SnapshotOptions {
            interactive_only: true,
            ..SnapshotOptions::default()
        },
    );
    assert!(
        !inter.contains("heading")
            && !inter.contains("paragraph")
            && inter.contains("Nested shadow button"),
        "{inter}"
    );
    let simple = render_simplified(&snap, &SnapshotOptions::default());
    assert!(simple.starts_with("=== Frame 0 (Main) ==="), "{simple}");

    // Each ref resolves to the element it was printed for.
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    for (role, name, id) in [
        ("textbox", "Name", "name"),
        ("checkbox", "I agree", "agree"),
        ("button", "Submit", "submit"),
        ("link", "Go to page two", "two"),
        ("button", "Close", "icon"),
        ("button", "Save all", "glyph"),
        ("textbox", "Shadow field", "sin"),
        ("button", "Nested shadow button", "deepbtn"),
        ("generic", "Card one", "card"),
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
        assert!(!node.recovered);
        let got = tab
            .call_on(
                &node.session,
                &node.object_id,
                "function () { return this.id; }",
            )
            .await;
        assert_eq!(got, serde_json::json!(id), "{role} {name}");
        // The stored XPath (our dialect, shadow roots and SVG included) reaches the same node.
        let xp = snap.xpath(node.encoded_id()).unwrap();
        let by_xpath = resolve(
            &tab.frames,
            &Target::XPath(xp.clone()),
            known,
            &ResolveOptions::default(),
        )
        .await
        .unwrap();
        assert_eq!(by_xpath.backend_node_id, node.backend_node_id, "{xp}");
        // And the encoded id.
        let by_id = resolve(
            &tab.frames,
            &Target::Encoded(node.encoded_id()),
            known,
            &ResolveOptions::default(),
        )
        .await
        .unwrap();
        assert_eq!(by_id.backend_node_id, node.backend_node_id);
    }
    // SVG path: XPath with name() steps resolves.
    let svg = resolve(
        &tab.frames,
        &Target::parse("#icon path").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    let xp = snap.xpath(svg.encoded_id()).unwrap();
    assert!(
        xp.ends_with("/button[2]/*[name()='svg'][1]/*[name()='path'][1]"),
        "{xp}"
    );
    let back = resolve(
        &tab.frames,
        &Target::XPath(xp),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(back.backend_node_id, svg.backend_node_id);

    // CSS and general XPath; errors for no match and bad selectors.
    let css = resolve(
        &tab.frames,
        &Target::parse("#submit").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    let general = resolve(
        &tab.frames,
        &Target::parse("//button[@id='submit']").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(css.backend_node_id, general.backend_node_id);
    let none = resolve(
        &tab.frames,
        &Target::parse(".nomatch").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(
        matches!(none, Err(a11y_snapshot::SnapshotError::NotFound { .. })),
        "{none:?}"
    );
    let bad = resolve(
        &tab.frames,
        &Target::parse("div[").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(
        matches!(
            bad,
            Err(a11y_snapshot::SnapshotError::InvalidSelector { .. })
        ),
        "{bad:?}"
    );
    let unknown = resolve(
        &tab.frames,
        &Target::parse("@e999").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(
        matches!(
            unknown,
            Err(a11y_snapshot::SnapshotError::RefNotFound { .. })
        ),
        "{unknown:?}"
    );

    // Subtree by selector: the form only.
    let form = resolve(
        &tab.frames,
        &Target::parse("form").unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    let sub = render_actionbook(
        &snap,
        &SnapshotOptions {
            subtree: Some(form.encoded_id()),
            ..SnapshotOptions::default()
        },
    );
    assert!(sub.contains("Submit") && !sub.contains("heading"), "{sub}");
    tab.close().await;
}

/// A same-process page for comparing frame providers.
pub(crate) const PROVIDERS_PAGE: &str = r#"<!doctype html><h1>Two providers</h1><button>One</button>
      <iframe src="inner.html" title="Inner"></iframe>"#;
pub(crate) const PROVIDERS_INNER: &str =
    "<!doctype html><input aria-label=Field><a href=/x>Link</a>";

/// The single-session frame provider gives the same snapshot as frame-graph on a same-process page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_frames_match_frame_graph() {
    let mut tab = Tab::open(
        &[
            ("/p.html", PROVIDERS_PAGE),
            ("/inner.html", PROVIDERS_INNER),
        ],
        "/p.html",
    )
    .await;
    let via_graph = text(&tab.snapshot().await);
    let frames = a11y_snapshot::SessionFrames::new(tab.session.clone())
        .await
        .unwrap();
    let mut refs = a11y_snapshot::RefTable::new();
    let snap = a11y_snapshot::take_snapshot(
        &frames,
        &mut refs,
        &a11y_snapshot::CaptureOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(text(&snap), via_graph);
    assert!(via_graph.contains("  - textbox \"Field\""), "{via_graph}");
    let known = Known {
        refs: Some(&refs),
        snapshot: Some(&snap),
    };
    let link = ref_of(&snap, "link", "Link");
    let node = resolve(
        &frames,
        &Target::Ref(link),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(node.frame_index, 1);
    tab.close().await;
}
