//! Golden outputs: on every fixture page of these tests, the snapshot text (full, interactive,
//! compact), the simplified form, the JSON node list and the ref table (refs, roles, names,
//! XPaths) must equal the files under `tests/golden/`, recorded from the snapshot as it was built
//! on Chromium's accessibility tree. They guard the output across changes of how it is captured.
//!
//! `A11Y_GOLDEN=record cargo test -p actionbook-a11y-snapshot --test it golden` rewrites the files.

use std::fmt::Write as _;
use std::path::PathBuf;

use a11y_snapshot::{
    RefTable, Snapshot, SnapshotOptions, node_list, render_actionbook, render_simplified,
};

use crate::support::Tab;

/// The directory of the golden files.
fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// A fixture page file shipped with the tests.
pub(crate) fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// FNV-1a, 64 bits: a digest for outputs too large to keep as files.
pub(crate) fn digest(s: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// Everything a snapshot shows, in one text, with the fixture server's port masked.
pub(crate) fn describe(snap: &Snapshot, refs: &RefTable, port: u16) -> String {
    let full = SnapshotOptions::default();
    let interactive = SnapshotOptions {
        interactive_only: true,
        ..SnapshotOptions::default()
    };
    let compact = SnapshotOptions {
        compact: true,
        ..SnapshotOptions::default()
    };
    let mut out = String::new();
    for (title, opts) in [
        ("text", &full),
        ("text --interactive", &interactive),
        ("text --compact", &compact),
    ] {
        let _ = writeln!(out, "## {title}\n{}", render_actionbook(snap, opts));
    }
    let _ = writeln!(
        out,
        "## simplified (backend node ids masked)\n{}",
        mask_encoded_ids(&render_simplified(snap, &full))
    );
    for (title, opts) in [("nodes", &full), ("nodes --interactive", &interactive)] {
        let (nodes, stats) = node_list(snap, opts);
        let _ = writeln!(
            out,
            "## {title}: {} nodes, {} interactive",
            stats.node_count, stats.interactive_count
        );
        for n in nodes {
            let _ = writeln!(out, "{}", serde_json::to_string(&n).unwrap_or_default());
        }
    }
    let _ = writeln!(out, "## refs");
    for e in refs.entries() {
        let _ = writeln!(
            out,
            "{} frame={} {} {:?} {}",
            e.reference, e.frame_index, e.role, e.name, e.xpath
        );
    }
    out.replace(&format!(":{port}/"), ":PORT/")
        .replace(&format!(":{port}\""), ":PORT\"")
}

/// `[1-42]` becomes `[1-*]`: backendNodeIds are not stable across browser runs.
fn mask_encoded_ids(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        match t
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(id, rest)| id.split_once('-').map(|(f, _)| (f, rest)))
        {
            Some((frame, rest)) => {
                let _ = write!(out, "{indent}[{frame}-*]{rest}");
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Chromium majors before this one build another tree for an unnamed `<form>` (a `generic`,
/// not a `form`); their golden files are in `golden/chromium148/` where they differ.
const FORM_ALWAYS_SINCE: u32 = 149;

/// Compares `actual` with the golden file `name` (or records it when `A11Y_GOLDEN=record`)
/// of the browser's version (`major`). Returns a description of the first difference.
pub(crate) fn check(name: &str, actual: &str, major: Option<u32>) -> Result<(), String> {
    let older = major.is_some_and(|m| m < FORM_ALWAYS_SINCE);
    let own = golden_dir().join("chromium148").join(format!("{name}.txt"));
    let path = match older && (own.exists() || record_older()) {
        true => own,
        false => golden_dir().join(format!("{name}.txt")),
    };
    if std::env::var("A11Y_GOLDEN").as_deref() == Ok("record") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, actual).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (record with A11Y_GOLDEN=record)", path.display()))?;
    if expected == actual {
        return Ok(());
    }
    let dump = std::env::temp_dir().join(format!("a11y-golden-{name}.txt"));
    let _ = std::fs::write(&dump, actual);
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let ctx = |v: &[&str]| v[at.saturating_sub(3)..(at + 4).min(v.len())].join("\n");
    Err(format!(
        "{name}: differs at line {} (actual written to {})\n--- expected\n{}\n--- actual\n{}",
        at + 1,
        dump.display(),
        ctx(&e),
        ctx(&a)
    ))
}

/// `A11Y_GOLDEN_OLDER=1` beside `A11Y_GOLDEN=record`: an older Chromium records into its own
/// directory (keep only the files that differ from the current ones).
fn record_older() -> bool {
    std::env::var("A11Y_GOLDEN_OLDER").is_ok()
}

/// One fixture: its pages, the page opened, and a script run before a second snapshot (refs
/// must stay stable across it).
struct Fixture {
    name: &'static str,
    pages: Vec<(&'static str, String)>,
    first: &'static str,
    then: Option<&'static str>,
}

fn fixtures() -> Vec<Fixture> {
    use crate::deep::{DEEP_INNER, DEEP_PAGE};
    use crate::frames::{FRAME_A, FRAME_C, MAIN, NESTED, OOPIF, OOPIF_INNER};
    use crate::main_frame::{FORM, PROVIDERS_INNER, PROVIDERS_PAGE};
    use crate::refs_and_stale::LIST;
    let own = |pages: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        pages.iter().map(|(p, h)| (*p, h.to_string())).collect()
    };
    let files = |names: &[&'static str]| -> Vec<(&'static str, String)> {
        names.iter().map(|n| (*n, fixture(&n[1..]))).collect()
    };
    vec![
        Fixture {
            name: "form",
            pages: own(&[("/form.html", FORM), ("/page2.html", "<p>two</p>")]),
            first: "/form.html",
            then: None,
        },
        Fixture {
            name: "providers",
            pages: own(&[
                ("/p.html", PROVIDERS_PAGE),
                ("/inner.html", PROVIDERS_INNER),
            ]),
            first: "/p.html",
            then: None,
        },
        Fixture {
            name: "frames",
            pages: own(&[
                ("/main.html", MAIN),
                ("/frame_a.html", FRAME_A),
                ("/frame_c.html", FRAME_C),
                ("/frame_nested.html", NESTED),
                ("/oopif_child.html", OOPIF),
                ("/oopif_inner.html", OOPIF_INNER),
            ]),
            first: "/main.html",
            then: None,
        },
        Fixture {
            name: "deep",
            pages: own(&[("/deep.html", DEEP_PAGE), ("/inner.html", DEEP_INNER)]),
            first: "/deep.html",
            then: None,
        },
        Fixture {
            name: "list",
            pages: own(&[("/list.html", LIST)]),
            first: "/list.html",
            then: Some(
                "document.getElementById('list').insertAdjacentHTML('afterbegin', \
                 '<li><button id=new>New first</button></li>')",
            ),
        },
        Fixture {
            name: "login",
            pages: files(&["/login.html"]),
            first: "/login.html",
            then: None,
        },
        Fixture {
            name: "iframes",
            pages: files(&[
                "/iframes.html",
                "/frame_a.html",
                "/frame_b.html",
                "/frame_c.html",
                "/frame_nested.html",
            ]),
            first: "/iframes.html",
            then: None,
        },
        Fixture {
            name: "oopif",
            pages: files(&["/oopif.html", "/oopif_child.html"]),
            first: "/oopif.html",
            then: None,
        },
        Fixture {
            name: "kitchen",
            pages: files(&["/kitchen.html"]),
            first: "/kitchen.html",
            then: Some(
                "document.querySelector('details').open = true; \
                 document.getElementById('f1').focus()",
            ),
        },
        Fixture {
            name: "large5k",
            pages: files(&["/large5k.html"]),
            first: "/large5k.html",
            then: None,
        },
    ]
}

/// The major version of the tab's browser.
pub(crate) async fn major(tab: &Tab) -> Option<u32> {
    tab.session
        .link()
        .browser_major(std::time::Duration::from_secs(10))
        .await
        .expect("Browser.getVersion")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outputs_match_the_golden_files() {
    let mut failures = Vec::new();
    for f in fixtures() {
        let pages: Vec<(&str, &str)> = f.pages.iter().map(|(p, h)| (*p, h.as_str())).collect();
        let mut tab = Tab::open(&pages, f.first).await;
        let port = tab.server.port();
        let snap = tab.snapshot().await;
        let mut text = describe(&snap, &tab.refs, port);
        if let Some(js) = f.then {
            tab.eval(js).await;
            tab.refresh().await;
            let again = tab.snapshot().await;
            let _ = writeln!(
                text,
                "#### after {js}\n{}",
                describe(&again, &tab.refs, port)
            );
        }
        if let Err(e) = check(f.name, &text, major(&tab).await) {
            failures.push(e);
        }
        tab.close().await;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
