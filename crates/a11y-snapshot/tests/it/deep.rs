//! A 1,000-deep DOM: the depth-limited fetch plus describeNode fill-in keeps every node.

use crate::support::{Tab, text};
use a11y_snapshot::{Known, ResolveOptions, Target, resolve};

/// A button and an iframe 1,000 divs down.
pub(crate) const DEEP_PAGE: &str = r#"<!doctype html><title>Deep</title><div id=top></div><script>
  let el = document.getElementById('top');
  for (let i = 0; i < 1000; i++) { const d = document.createElement('div'); el.appendChild(d); el = d; }
  const b = document.createElement('button'); b.id = 'deepest'; b.textContent = 'Deepest button'; el.appendChild(b);
  const f = document.createElement('iframe'); f.src = 'inner.html'; f.title = 'Deep frame'; el.appendChild(f);
</script><button id=after>After</button>"#;
pub(crate) const DEEP_INNER: &str = "<!doctype html><button id=inner>Inner deep button</button>";

/// 25,000 rows of four elements, built by script.
pub(crate) const BIG_PAGE: &str = r#"<!doctype html><title>Big</title><main id=m></main><script>
      const m = document.getElementById('m'); const parts = [];
      for (let i = 0; i < 25000; i++) parts.push('<div><span>Row ' + i + '</span><button>Go ' + i + '</button><i></i></div>');
      m.innerHTML = parts.join('');
    </script>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_deep_dom() {
    let mut tab = Tab::open(
        &[("/deep.html", DEEP_PAGE), ("/inner.html", DEEP_INNER)],
        "/deep.html",
    )
    .await;
    let snap = tab.snapshot().await;
    let t = text(&snap);
    assert!(t.contains("- button \"Deepest button\" [ref=e1]"), "{t}");
    assert!(t.contains("- button \"After\""), "{t}");
    // The iframe 1,000 levels down: its document is fetched too, with XPaths for its nodes.
    assert!(t.contains("- iframe \"Deep frame\""), "{t}");
    let inner_ref = crate::support::ref_of(&snap, "button", "Inner deep button");
    let inner_node = snap.node_by_ref(inner_ref).unwrap();
    assert_eq!(
        snap.xpath(inner_node.encoded_id()).as_deref(),
        Some("/html[1]/body[1]/button[1]")
    );
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    let node = resolve(
        &tab.frames,
        &"@e1"
            .parse::<a11y_snapshot::Ref>()
            .map(Target::Ref)
            .unwrap(),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    let xp = snap.xpath(node.encoded_id()).unwrap();
    assert_eq!(xp.matches("div[1]").count(), 1001, "{}", &xp[..200]);
    let back = resolve(
        &tab.frames,
        &Target::XPath(xp),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(back.backend_node_id, node.backend_node_id);
    tab.close().await;
}

/// A 100,000-element page (the reference CLI fails above ~16k): the snapshot completes and keeps
/// every button.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_thousand_elements() {
    let mut tab = Tab::open(&[("/big.html", BIG_PAGE)], "/big.html").await;
    let count = tab.eval("document.getElementsByTagName('*').length").await;
    assert!(count.as_u64().unwrap_or(0) >= 100_000, "{count}");
    let opts = a11y_snapshot::CaptureOptions {
        timeout: std::time::Duration::from_secs(180),
        ..a11y_snapshot::CaptureOptions::default()
    };
    let snap = a11y_snapshot::take_snapshot(&tab.frames, &mut tab.refs, &opts)
        .await
        .unwrap();
    assert!(snap.metrics.element_count >= 100_000, "{:?}", snap.metrics);
    let (nodes, _) = a11y_snapshot::node_list(&snap, &a11y_snapshot::SnapshotOptions::default());
    assert_eq!(nodes.iter().filter(|n| n.role == "button").count(), 25_000);
    assert_eq!(nodes.last().map(|n| n.name.as_str()), Some("Go 24999"));
    // Golden: too large to keep whole; its digest, size and both ends.
    let all = crate::golden::describe(&snap, &tab.refs, tab.server.port());
    let lines: Vec<&str> = all.lines().collect();
    let summary = format!(
        "digest {} bytes {} lines {}\n{}\n...\n{}\n",
        crate::golden::digest(&all),
        all.len(),
        lines.len(),
        lines[..40.min(lines.len())].join("\n"),
        lines[lines.len().saturating_sub(40)..].join("\n")
    );
    if let Err(e) = crate::golden::check("big100k", &summary, crate::golden::major(&tab).await) {
        panic!("{e}");
    }
    tab.close().await;
}
