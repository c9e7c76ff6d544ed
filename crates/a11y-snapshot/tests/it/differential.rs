//! The computed accessibility tree against Chromium's own (`Accessibility.getFullAXTree`), live on
//! the same page: every output a snapshot gives (texts, node list, refs with XPaths) must agree.
//! The golden files pin today's output; this pins agreement with the browser on pages beyond them.

use a11y_snapshot::{AxSource, CaptureOptions, RefTable, take_snapshot};

use crate::golden::{describe, fixture};
use crate::support::Tab;

async fn both(tab: &Tab) -> (String, String) {
    let mut out = Vec::new();
    for source in [AxSource::Chromium, AxSource::Computed] {
        let mut refs = RefTable::new();
        let opts = CaptureOptions {
            accessibility: source,
            ..CaptureOptions::default()
        };
        let snap = take_snapshot(&tab.frames, &mut refs, &opts).await.unwrap();
        out.push(describe(&snap, &refs, tab.server.port()));
    }
    let computed = out.pop().unwrap_or_default();
    let chromium = out.pop().unwrap_or_default();
    (chromium, computed)
}

fn first_difference(name: &str, chromium: &str, computed: &str) -> Option<String> {
    if chromium == computed {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (chromium.lines().collect(), computed.lines().collect());
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let ctx = |v: &[&str]| v[at.saturating_sub(4)..(at + 4).min(v.len())].join("\n");
    let dump = std::env::temp_dir().join(format!("a11y-diff-{name}"));
    let _ = std::fs::write(dump.with_extension("chromium.txt"), chromium);
    let _ = std::fs::write(dump.with_extension("computed.txt"), computed);
    Some(format!(
        "{name}: computed differs from Chromium at line {} (both in {}.*)\n--- chromium\n{}\n--- computed\n{}",
        at + 1,
        dump.display(),
        ctx(&a),
        ctx(&b)
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn computed_tree_agrees_with_chromium() {
    let mut failures = Vec::new();
    for name in [
        "probe_generic.html",
        "probe_names.html",
        "probe_app.html",
        "probe_more.html",
        "probe_state.html",
        "probe_widgets.html",
        "kitchen.html",
    ] {
        let html = fixture(name);
        let path = format!("/{name}");
        let tab = Tab::open(&[(path.as_str(), html.as_str())], &path).await;
        let (chromium, computed) = both(&tab).await;
        failures.extend(first_difference(name, &chromium, &computed));
        tab.close().await;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
