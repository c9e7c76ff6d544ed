//! Ref stability across snapshots with a node inserted between them, reset after goto, stale-node
//! recovery with the identity check.

use a11y_snapshot::{
    Known, ResolveOptions, SnapshotError, SnapshotOptions, Target, node_list, resolve,
};

use crate::support::{Tab, ref_of, text};

pub(crate) const LIST: &str = r#"<!doctype html><title>List</title><h1>Items</h1>
<ul id=list><li><button id=b1>Alpha</button></li><li><button id=b2>Bravo</button></li><li><button id=b3>Charlie</button></li></ul>
<a href="/other.html" id=link>Other</a>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refs_stay_put_and_reset_on_goto() {
    let mut tab = Tab::open(
        &[
            ("/list.html", LIST),
            ("/other.html", "<button>Other page</button>"),
        ],
        "/list.html",
    )
    .await;
    let first = tab.snapshot().await;
    let (before, _) = node_list(&first, &SnapshotOptions::default());
    tab.eval("document.getElementById('list').insertAdjacentHTML('afterbegin', '<li><button id=new>New first</button></li>')").await;
    let interactive = SnapshotOptions {
        interactive_only: true,
        ..SnapshotOptions::default()
    };
    let second = tab.snapshot().await;
    let (after, _) = node_list(&second, &SnapshotOptions::default());
    let (after_inter, _) = node_list(&second, &interactive);
    for n in &before {
        assert!(after.contains(n), "{n:?} lost its ref:\n{}", text(&second));
    }
    let new = after.iter().find(|n| n.name == "New first").unwrap();
    assert_eq!(
        new.reference.number() as usize,
        before.len() + 1,
        "new node takes the next number"
    );
    for n in &after_inter {
        assert!(after.contains(n), "interactive-only keeps the same refs");
    }
    tab.goto("/other.html").await;
    let third = tab.snapshot().await;
    assert_eq!(
        ref_of(&third, "button", "Other page").to_string(),
        "e1",
        "{}",
        text(&third)
    );
    tab.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_nodes_recover_only_when_identical() {
    let mut tab = Tab::open(&[("/list.html", LIST)], "/list.html").await;
    let snap = tab.snapshot().await;
    let bravo = ref_of(&snap, "button", "Bravo");
    let charlie = ref_of(&snap, "button", "Charlie");
    // A re-render replaces Bravo by an identical button: same role and name at the same place.
    tab.eval("{ const li = document.getElementById('b2').parentElement; li.innerHTML = '<button id=b2new>Bravo</button>'; }").await;
    // Charlie is replaced by a different element at the same position.
    tab.eval("{ const li = document.getElementById('b3').parentElement; li.innerHTML = '<button id=b3new>Delta</button>'; }").await;
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    let node = resolve(
        &tab.frames,
        &Target::Ref(bravo),
        known,
        &ResolveOptions::default(),
    )
    .await
    .unwrap();
    assert!(node.recovered);
    assert_eq!(
        tab.call_on(
            &node.session,
            &node.object_id,
            "function () { return this.id; }"
        )
        .await,
        serde_json::json!("b2new")
    );
    let stale = resolve(
        &tab.frames,
        &Target::Ref(charlie),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(
        matches!(stale, Err(SnapshotError::Stale { .. })),
        "{stale:?}"
    );
    // Removed entirely: stale as well.
    tab.eval("document.getElementById('list').remove()").await;
    let alpha = ref_of(&snap, "button", "Alpha");
    let gone = resolve(
        &tab.frames,
        &Target::Ref(alpha),
        known,
        &ResolveOptions::default(),
    )
    .await;
    assert!(matches!(gone, Err(SnapshotError::Stale { .. })), "{gone:?}");
    tab.close().await;
}

/// Rows re-rendered after the first was deleted: the second row's "Delete" button is gone, and at
/// its old position stands the third row's, same role and name. That is not the button the ref
/// named: stale, never recovered (a click through it deleted the wrong row).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_node_with_twins_is_stale_not_recovered_by_position() {
    const ROWS: &str = r#"<!doctype html><title>Rows</title><ul id=list></ul>
<script>let rows = ['alpha', 'beta', 'gamma'];
function render() { list.innerHTML = rows.map((r) => `<li>${r} <button>Delete</button></li>`).join(''); }
render();</script>"#;
    let mut tab = Tab::open(&[("/rows.html", ROWS)], "/rows.html").await;
    let snap = tab.snapshot().await;
    let (nodes, _) = node_list(&snap, &SnapshotOptions::default());
    let deletes: Vec<_> = nodes
        .iter()
        .filter(|n| n.role == "button" && n.name == "Delete")
        .map(|n| n.reference)
        .collect();
    assert_eq!(deletes.len(), 3, "{}", text(&snap));
    tab.eval("rows.splice(0, 1); render();").await;
    let known = Known {
        refs: Some(&tab.refs),
        snapshot: Some(&snap),
    };
    let beta = resolve(
        &tab.frames,
        &Target::Ref(deletes[1]),
        known,
        &ResolveOptions::default(),
    )
    .await;
    match beta {
        Err(SnapshotError::Stale { reason, .. }) => {
            // The two other Delete refs, named (the stale one itself is not counted).
            let others = format!(
                "2 other refs given on this page were also button \"Delete\" (@{}, @{})",
                deletes[0], deletes[2]
            );
            assert!(reason.contains(&others), "{reason}")
        }
        other => panic!("expected stale, got {other:?}"),
    }
    tab.close().await;
}
