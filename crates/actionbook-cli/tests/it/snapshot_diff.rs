//! Snapshots an agent can afford (issue 18): `--diff` / `--since` against the tab's kept
//! revisions, `--mark-new`, a byte budget with `--page` continuation, and the `--viewport` and
//! `--modal` scopes, on pages with a same-origin iframe and an out-of-process iframe.

use std::collections::HashSet;

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture, assert_failure, on, ref_of, text, value_until};

fn fixture() -> Fixture {
    let f = Fixture::start();
    let remote = f.cross_site_url("/remote.html");
    f.html(
        "/diff.html",
        &format!(
            r#"<!doctype html><html><head><title>Diff</title></head><body>
<h1>Diff fixture</h1>
<p id="status">Status before</p>
<button id="flip" onclick="document.getElementById('status').textContent='Status after'">Flip</button>
<ul id="list"><li>Alpha item</li><li>Beta item</li></ul>
<iframe id="same" title="Same frame" src="/same.html" width="300" height="80"></iframe>
<iframe id="oop" title="Remote frame" src="{remote}" width="300" height="80"></iframe>
</body></html>"#
        ),
    );
    f.html(
        "/same.html",
        r#"<!doctype html><html><body><input aria-label="Inner field"></body></html>"#,
    );
    f.html(
        "/remote.html",
        r#"<!doctype html><html><body><button>Remote button</button><a href="/x">Remote link</a></body></html>"#,
    );
    f.html(
        "/other.html",
        r#"<!doctype html><html><head><title>Other</title></head><body><h1>Other page</h1><button>Other button</button></body></html>"#,
    );
    let items: String = (0..300)
        .map(|i| format!(r#"<li style="height:20px;margin:0">Item {i}</li>"#))
        .collect();
    f.html(
        "/long.html",
        &format!(
            r#"<!doctype html><html><head><title>Long</title>
<style>body {{ margin: 0 }} ul {{ margin: 0; padding: 0; list-style: none }}</style></head><body>
<iframe id="top-oop" title="Top remote" src="{remote}" style="position:absolute;left:400px;top:0;width:300px;height:80px;border:0"></iframe>
<iframe id="far-oop" title="Far remote" src="{remote}" style="position:absolute;left:400px;top:4300px;width:300px;height:80px;border:0"></iframe>
<ul>{items}</ul>
</body></html>"#
        ),
    );
    let rows: String = (0..400)
        .map(|i| format!(r#"<div><p>Row {i}</p><button>Act {i}</button></div>"#))
        .collect();
    f.html(
        "/modal.html",
        &format!(
            r#"<!doctype html><html><head><title>Modal</title></head><body>
{rows}
<dialog id="dlg"><h2>Confirm</h2><button>Dialog OK</button><button>Dialog cancel</button></dialog>
<script>document.getElementById('dlg').showModal()</script>
</body></html>"#
        ),
    );
    f
}

fn tab(sid: &str) -> [&str; 4] {
    ["--session", sid, "--tab", "t1"]
}

/// The snapshot file of an answer.
fn file(v: &Value) -> String {
    let path = v["data"]["path"]
        .as_str()
        .unwrap_or_else(|| panic!("no path: {v}"));
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn marked<'a>(diff: &'a str, marker: &str) -> Vec<&'a str> {
    diff.lines().filter(|l| l.starts_with(marker)).collect()
}

fn depth(line: &str) -> usize {
    let body = &line[2..];
    (body.len() - body.trim_start().len()) / 2
}

fn refs(v: &Value) -> Vec<String> {
    v["data"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["ref"].as_str().map(str::to_string))
        .collect()
}

fn wait_oopif(env: &Env, t: &[&str], v: &str) {
    let got = value_until(env, t, v, &Value::Bool(true));
    assert_eq!(got, Value::Bool(true), "{v}");
}

#[test]
fn diffs_show_exactly_what_changed_and_navigation_makes_them_full() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/diff.html")]);
    let t = tab(&sid);
    wait_oopif(
        &env,
        &t,
        "document.readyState === 'complete' && !!document.querySelector('#oop')",
    );
    // Until the OOPIF's content shows up, the snapshot is still growing.
    let mut first = on(&env, &t, &["snapshot"]);
    for _ in 0..50 {
        if file(&first).contains("Remote button") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        first = on(&env, &t, &["snapshot"]);
    }
    assert!(file(&first).contains("Remote button"), "{}", file(&first));
    assert!(
        first["data"].get("revision").is_none(),
        "plain snapshot shape: {first}"
    );

    // Nothing changed: one line says so.
    let same = on(&env, &t, &["snapshot", "--diff"]);
    assert_eq!(same["ok"], true, "{same}");
    let base = same["data"]["base_revision"].as_u64().expect("base");
    assert_eq!(same["data"]["revision"].as_u64(), Some(base + 1), "{same}");
    assert_eq!(file(&same), format!("no changes since revision {base}"));
    assert_eq!(same["data"]["full"], false);
    let shown = text(&env, &t, &["snapshot", "--diff"]).ok();
    assert!(
        shown.stdout.contains("no changes since revision"),
        "{}",
        shown.stdout
    );

    // A click that changes one label: exactly one `~` line, no other change.
    let flip = ref_of(&first, "button", "Flip");
    assert_eq!(on(&env, &t, &["click", &flip])["ok"], true);
    let d = on(&env, &t, &["snapshot", "--diff"]);
    let body = file(&d);
    assert_eq!(marked(&body, "~ ").len(), 1, "{body}");
    assert!(marked(&body, "~ ")[0].contains("Status after"), "{body}");
    assert!(
        marked(&body, "+ ").is_empty() && marked(&body, "- ").is_empty(),
        "{body}"
    );
    assert_eq!(d["data"]["changed"], 1, "{d}");
    assert_eq!(
        (d["data"]["added"].as_u64(), d["data"]["removed"].as_u64()),
        (Some(0), Some(0))
    );
    let label_rev = d["data"]["revision"].as_u64().expect("revision");

    // A new list item: one `+` subtree (its first line is the shallowest), under its list.
    let add = "(() => { const li = document.createElement('li'); li.innerHTML = '<a href=\"/g\">Gamma item</a>'; document.getElementById('list').appendChild(li); return true; })()";
    assert_eq!(on(&env, &t, &["eval", add])["ok"], true);
    let d = on(&env, &t, &["snapshot", "--diff"]);
    let body = file(&d);
    let plus = marked(&body, "+ ");
    assert!(!plus.is_empty(), "{body}");
    assert!(plus[0].contains("listitem"), "{body}");
    let top = depth(plus[0]);
    assert!(
        plus[1..].iter().all(|l| depth(l) > top),
        "one subtree: {body}"
    );
    assert!(body.contains("Gamma item"), "{body}");
    assert!(
        marked(&body, "- ").is_empty() && marked(&body, "~ ").is_empty(),
        "{body}"
    );
    // The ancestors place it: the list line comes first, unmarked.
    let first_line = body.lines().next().unwrap_or_default();
    assert!(first_line.starts_with("  "), "{body}");
    assert!(body.contains("- list"), "{body}");
    // The refs in a diff are the tab's refs: the new link can be clicked.
    let link = ref_of(&d, "link", "Gamma item");
    assert!(body.contains(&format!("[ref={}]", &link[1..])), "{body}");

    // New-element marks.
    let before_mark = on(&env, &t, &["snapshot"]);
    assert_eq!(before_mark["ok"], true);
    let add2 = "(() => { const li = document.createElement('li'); li.textContent = 'Delta item'; document.getElementById('list').appendChild(li); return true; })()";
    assert_eq!(on(&env, &t, &["eval", add2])["ok"], true);
    let m = on(&env, &t, &["snapshot", "--mark-new"]);
    let body = file(&m);
    let news: Vec<&str> = body.lines().filter(|l| l.contains("[new]")).collect();
    assert!(
        !news.is_empty() && news.iter().all(|l| l.contains("Delta item")),
        "{body}"
    );
    assert_eq!(
        m["data"]["new_count"].as_u64(),
        Some(news.len() as u64),
        "{m}"
    );

    // Removing the out-of-process iframe: its subtree goes as `-` lines.
    assert_eq!(
        on(
            &env,
            &t,
            &[
                "eval",
                "(() => { document.getElementById('oop').remove(); return true; })()"
            ]
        )["ok"],
        true
    );
    let d = on(&env, &t, &["snapshot", "--diff"]);
    let body = file(&d);
    let minus = marked(&body, "- ");
    assert!(minus.iter().any(|l| l.contains("iframe")), "{body}");
    assert!(minus.iter().any(|l| l.contains("Remote button")), "{body}");
    assert!(minus.iter().any(|l| l.contains("Remote link")), "{body}");
    assert!(marked(&body, "+ ").is_empty(), "{body}");
    assert!(
        !body.contains("Inner field")
            || !marked(&body, "- ")
                .iter()
                .any(|l| l.contains("Inner field")),
        "{body}"
    );

    // `--since` an older revision still kept: the label change and the additions together.
    let since = on(&env, &t, &["snapshot", "--since", &label_rev.to_string()]);
    assert_eq!(
        since["data"]["base_revision"].as_u64(),
        Some(label_rev),
        "{since}"
    );
    let body = file(&since);
    assert!(
        body.contains("Gamma item") && body.contains("Delta item"),
        "{body}"
    );
    assert!(
        !body.contains("Status after"),
        "unchanged since then: {body}"
    );

    // Across filters (a full snapshot, then an interactive diff) with nothing changed: rows sit
    // under other ancestors, which is no change; what the filter hides is removed, said in a warning.
    assert_eq!(on(&env, &t, &["snapshot"])["ok"], true);
    let across = on(&env, &t, &["snapshot", "--interactive", "--diff"]);
    assert_eq!(across["data"]["changed"], 0, "{across}");
    assert_eq!(across["data"]["added"], 0, "{across}");
    assert!(
        across["data"]["removed"].as_u64().is_some_and(|n| n > 0),
        "{across}"
    );
    assert!(
        across["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("other filters")),
        "{across}"
    );

    // A navigation: the diff is a full snapshot.
    assert_eq!(on(&env, &t, &["goto", &f.url("/other.html")])["ok"], true);
    let d = on(&env, &t, &["snapshot", "--diff"]);
    assert_eq!(d["data"]["full"], true, "{d}");
    assert_eq!(d["data"]["base_revision"], Value::Null, "{d}");
    let body = file(&d);
    assert!(body.contains("Other button"), "{body}");
    assert!(
        body.lines().all(|l| l.trim_start().starts_with("- ")),
        "{body}"
    );
    let plain = on(&env, &t, &["snapshot"]);
    assert_eq!(file(&plain), body, "a full diff is the full snapshot");

    // `--since` an evicted revision: INVALID_ARGUMENT naming the oldest kept.
    for _ in 0..8 {
        assert_eq!(on(&env, &t, &["snapshot", "--interactive"])["ok"], true);
    }
    let v = on(&env, &t, &["snapshot", "--since", "1"]);
    assert_failure(&v, "INVALID_ARGUMENT", "the oldest available is");
}

/// Every ref of the full snapshot is on exactly one page, for several budgets; pages are served
/// from the kept revision (a page changed meanwhile does not show), and the dialog comes first.
#[test]
fn budget_pages_cover_every_ref_once_with_the_dialog_first() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/modal.html")]);
    let t = tab(&sid);
    let full = on(&env, &t, &["snapshot"]);
    let all: HashSet<String> = refs(&full).into_iter().collect();
    assert!(all.len() > 400, "{}", all.len());
    let dialog_ok = ref_of(&full, "button", "Dialog OK");
    for budget in ["700", "4000", "9000"] {
        let p1 = on(&env, &t, &["snapshot", "--max-bytes", budget]);
        assert_eq!(p1["ok"], true, "{p1}");
        assert_eq!(p1["meta"]["truncated"], true, "{p1}");
        let pg = &p1["meta"]["pagination"];
        assert_eq!(pg["page"], 1, "{p1}");
        assert_eq!(pg["has_more"], true, "budget {budget}: {pg}");
        let pages = p1["data"]["pages"].as_u64().expect("pages");
        assert!(pages > 1);
        // The dialog's buttons are on page 1.
        assert!(refs(&p1).contains(&dialog_ok[1..].to_string()), "{p1}");
        assert!(file(&p1).contains("Dialog OK"), "{}", file(&p1));
        assert!(
            file(&p1).len() <= budget.parse::<usize>().unwrap_or(0),
            "budget {budget}"
        );
        if budget == "700" {
            // Meanwhile the page changes: the next pages still show the kept revision.
            let add = "(() => { const b = document.createElement('button'); b.textContent = 'Late button'; document.body.prepend(b); return true; })()";
            assert_eq!(on(&env, &t, &["eval", add])["ok"], true);
        }
        let mut seen: Vec<String> = refs(&p1);
        let mut texts = file(&p1);
        for p in 2..=pages {
            let v = on(&env, &t, &["snapshot", "--page", &p.to_string()]);
            assert_eq!(v["ok"], true, "{v}");
            assert_eq!(v["meta"]["pagination"]["page"], p, "{v}");
            assert_eq!(v["meta"]["pagination"]["has_more"], p < pages, "{v}");
            assert_eq!(v["data"]["revision"], p1["data"]["revision"], "{v}");
            seen.extend(refs(&v));
            texts.push('\n');
            texts.push_str(&file(&v));
        }
        let unique: HashSet<String> = seen.iter().cloned().collect();
        assert_eq!(
            unique.len(),
            seen.len(),
            "a ref on two pages (budget {budget})"
        );
        // Each ref is printed once across all pages.
        let printed: Vec<&str> = texts.split("[ref=").skip(1).collect();
        assert_eq!(printed.len(), seen.len(), "budget {budget}");
        let late_ok = budget != "700";
        // Pages of the first cut were served from its revision, later cuts captured anew.
        assert_eq!(texts.contains("Late button"), late_ok, "budget {budget}");
        let wanted: HashSet<String> = if late_ok {
            let now = on(&env, &t, &["snapshot"]);
            refs(&now).into_iter().collect()
        } else {
            all.clone()
        };
        assert_eq!(unique, wanted, "budget {budget}");
        let past = on(&env, &t, &["snapshot", "--page", &(pages + 1).to_string()]);
        assert_failure(&past, "INVALID_ARGUMENT", "page");
    }
    // The modal scope: only the dialog's subtree.
    let m = on(&env, &t, &["snapshot", "--modal"]);
    let body = file(&m);
    assert!(body.starts_with("- dialog"), "{body}");
    assert!(
        body.contains("Dialog cancel") && !body.contains("Row 1"),
        "{body}"
    );
    assert!(
        m["meta"]["warnings"]
            .as_array()
            .is_some_and(|w| w.is_empty()),
        "{m}"
    );
    // Bad combinations are refused.
    let v = on(
        &env,
        &t,
        &["snapshot", "--max-bytes", "100", "--max-tokens", "10"],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "--max-tokens");
    let v = on(&env, &t, &["snapshot", "--page", "2", "--diff"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--page");
}

/// `--viewport` lists what is on screen in every frame; after scrolling, the newly visible items.
#[test]
fn viewport_scope_follows_scrolling_across_frames() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/long.html")]);
    let t = tab(&sid);
    let ready = "document.readyState === 'complete'";
    wait_oopif(&env, &t, ready);
    let mut v = on(&env, &t, &["snapshot", "--viewport"]);
    for _ in 0..50 {
        if file(&v).contains("Remote button") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        v = on(&env, &t, &["snapshot", "--viewport"]);
    }
    let body = file(&v);
    assert!(body.contains("Item 0") && body.contains("Item 5"), "{body}");
    assert!(!body.contains("Item 200"), "{body}");
    // The top OOPIF is on screen, the far one is not: one remote button only.
    assert_eq!(body.matches("Remote button").count(), 1, "{body}");
    assert!(v["data"]["revision"].as_u64().is_some(), "{v}");
    assert_eq!(
        on(
            &env,
            &t,
            &[
                "eval",
                "(() => { window.scrollTo(0, 4000); return window.scrollY; })()"
            ]
        )["ok"],
        true
    );
    let v = on(&env, &t, &["snapshot", "--viewport"]);
    let body = file(&v);
    assert!(
        body.contains("Item 200") && body.contains("Item 210"),
        "{body}"
    );
    assert!(!body.contains("Item 5\""), "{body}");
    assert!(!body.lines().any(|l| l.ends_with("Item 5")), "{body}");
    // Now the far OOPIF (at 4300px) is in view and the top one is not.
    assert_eq!(body.matches("Remote button").count(), 1, "{body}");
    // The viewport diff lists the newly visible items.
    assert_eq!(
        on(
            &env,
            &t,
            &[
                "eval",
                "(() => { window.scrollTo(0, 4400); return window.scrollY; })()"
            ]
        )["ok"],
        true
    );
    let d = on(&env, &t, &["snapshot", "--viewport", "--diff"]);
    let body = file(&d);
    assert!(
        marked(&body, "+ ").iter().any(|l| l.contains("Item 245")),
        "{body}"
    );
    assert!(
        marked(&body, "- ").iter().any(|l| l.contains("Item 200")),
        "{body}"
    );
}
