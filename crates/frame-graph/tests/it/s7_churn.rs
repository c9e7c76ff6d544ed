//! Scenario 7: 200 iframes created and removed in quick succession; the graph ends consistent
//! with the browser's own frame trees and holds no leaked sessions.

use crate::support::*;
use cdp_protocol::{Session, TargetId};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

fn tree_pairs(tree: &Value, out: &mut BTreeSet<(String, String)>) {
    let frame = &tree["frame"];
    if let (Some(id), Some(parent)) = (frame["id"].as_str(), frame["parentId"].as_str()) {
        out.insert((id.to_owned(), parent.to_owned()));
    }
    if let Some(children) = tree["childFrames"].as_array() {
        for c in children {
            tree_pairs(c, out);
        }
    }
}

/// Frame ids named by `<iframe>` elements in a document (F1/F2: the owner element carries it).
fn owner_frame_ids(node: &Value, out: &mut BTreeSet<String>) {
    if node["nodeType"] == 1
        && let Some(id) = node["frameId"].as_str()
    {
        out.insert(id.to_owned());
    }
    for key in ["children", "shadowRoots"] {
        for c in node[key].as_array().into_iter().flatten() {
            owner_frame_ids(c, out);
        }
    }
    if node["contentDocument"].is_object() {
        owner_frame_ids(&node["contentDocument"], out);
    }
}

/// What the browser says the page is, independently of the graph: (frame, parent) pairs from the
/// page's frame tree plus the frame tree of every iframe target whose `<iframe>` element is in
/// the page (each read through a fresh session of our own), and those live OOPIF target ids.
/// Chromium can keep a removed OOPIF's target around for a while under load; such a target has
/// no element in the page, so it is not part of the page.
async fn truth(
    browser: &Browser,
    page: &Session,
) -> (BTreeSet<(String, String)>, BTreeSet<String>) {
    let mut pairs = BTreeSet::new();
    let mut live = BTreeSet::new();
    let Ok(tree) = page.call("Page.getFrameTree", json!({})).await else {
        return (pairs, live);
    };
    tree_pairs(&tree["frameTree"], &mut pairs);
    let mut owners = BTreeSet::new();
    if let Ok(doc) = page
        .call("DOM.getDocument", json!({"depth": -1, "pierce": true}))
        .await
    {
        owner_frame_ids(&doc["root"], &mut owners);
    }
    let targets = browser
        .conn
        .browser()
        .call("Target.getTargets", json!({}))
        .await
        .expect("getTargets");
    let iframes: BTreeSet<String> = targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "iframe")
        .filter_map(|t| t["targetId"].as_str().map(str::to_owned))
        .collect();
    // Walk down: OOPIFs named by owners found so far, whose documents may name further ones.
    let mut todo: Vec<String> = iframes.intersection(&owners).cloned().collect();
    while let Some(id) = todo.pop() {
        if !live.insert(id.clone()) {
            continue;
        }
        let Ok(s) = browser
            .conn
            .browser()
            .attach_to_target(&TargetId::new(id.as_str()))
            .await
        else {
            continue;
        };
        if let Ok(tree) = s.call("Page.getFrameTree", json!({})).await {
            tree_pairs(&tree["frameTree"], &mut pairs);
        }
        let mut nested = BTreeSet::new();
        if let Ok(doc) = s
            .call("DOM.getDocument", json!({"depth": -1, "pierce": true}))
            .await
        {
            owner_frame_ids(&doc["root"], &mut nested);
        }
        todo.extend(iframes.intersection(&nested).cloned());
        let _ = s.detach().await;
    }
    (pairs, live)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn churn_of_200_iframes_ends_consistent() {
    let server = Server::start().await;
    server.route("/", "<body><p>churn</p></body>");
    server.route("/s.html", "<body>s</body>");
    server.route(
        "/c.html",
        r#"<body>c<iframe src="/cc.html"></iframe></body>"#,
    );
    server.route("/cc.html", "<body>cc</body>");
    let browser = Browser::launch().await;
    let page = browser.new_page().await;
    goto(&page, &server.url("/")).await;
    let graph = graph(&page).await;

    let cross = server.cross("/c.html");
    // Same-origin, cross-site and about:blank frames; most removed within a few milliseconds,
    // every 25th kept.
    let script = format!(
        r#"new Promise(resolve => {{
            let i = 0;
            const step = () => {{
                for (let k = 0; k < 10 && i < 200; k++, i++) {{
                    const f = document.createElement('iframe');
                    f.src = i % 3 === 0 ? '/s.html?' + i : i % 3 === 1 ? '{cross}?' + i : 'about:blank';
                    f.id = 'f' + i;
                    document.body.appendChild(f);
                    if (i % 25 !== 3) setTimeout(() => f.remove(), (i % 7) * 3);
                }}
                if (i < 200) setTimeout(step, 5); else setTimeout(resolve, 100);
            }};
            step();
        }})"#
    );
    eval(&page, &script).await;

    // The graph catches up with the browser: same frames, same parents.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let live = loop {
        let (want, live) = truth(&browser, &page).await;
        let main = graph.main_frame().frame_id;
        let have: BTreeSet<(String, String)> = graph
            .frames()
            .into_iter()
            .filter(|f| f.frame_id != main)
            .filter_map(|f| {
                f.parent_frame_id
                    .map(|p| (f.frame_id.as_str().to_owned(), p.as_str().to_owned()))
            })
            .collect();
        // 8 kept frames plus one same-site child inside each kept cross-site frame.
        if want == have && graph.sessions().len() == 1 + live.len() && want.len() == 8 + live.len()
        {
            break live;
        }
        if tokio::time::Instant::now() > deadline {
            panic!(
                "graph never matched the browser: want {want:?} have {have:?} sessions {:?} live OOPIFs {live:?}",
                graph.sessions()
            );
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let oopifs = live.len();
    // sync re-reads every session and must not change a graph that is already right.
    let before: Vec<_> = graph
        .frames()
        .into_iter()
        .map(|f| (f.frame_id, f.frame_index))
        .collect();
    graph.sync().await.expect("sync");
    let mut after: Vec<_> = graph
        .frames()
        .into_iter()
        .map(|f| (f.frame_id, f.frame_index))
        .collect();
    let mut before_sorted = before.clone();
    before_sorted.sort();
    after.sort();
    assert_eq!(after, before_sorted);
    // No session is left attached to an iframe target outside the page (no leaked sessions).
    let targets = browser
        .conn
        .browser()
        .call("Target.getTargets", json!({}))
        .await
        .expect("getTargets");
    for t in targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "iframe")
    {
        let id = t["targetId"].as_str().unwrap_or_default();
        assert!(
            t["attached"] == false || live.contains(id),
            "session leaked on {t}"
        );
    }
    assert_eq!(
        oopifs, 3,
        "kept frames 3, 28, ..., 178: three of them cross-site"
    );
    // Kept frames have owners (checked against the DOM), unique indices and contexts.
    let frames = graph.frames();
    let mut indices: Vec<u32> = frames.iter().map(|f| f.frame_index.get()).collect();
    indices.sort();
    indices.dedup();
    assert_eq!(indices.len(), frames.len());
    let main = graph.main_frame().frame_id;
    let top: Vec<_> = frames
        .iter()
        .filter(|f| f.parent_frame_id.as_ref() == Some(&main))
        .collect();
    assert_eq!(top.len(), 8);
    for f in top {
        let owner = f.owner_backend_node_id.expect("owner");
        assert_eq!(
            graph.frame_by_owner(&main, owner).map(|x| x.frame_id),
            Some(f.frame_id.clone())
        );
        if let Some((_, i)) = f.url.split_once('?') {
            let dom_owner = backend_id_in(&graph, &main, &format!("#f{i}")).await;
            assert_eq!(owner.get(), dom_owner, "{}", f.url);
            let v = eval_in(&graph, &f.frame_id, BODY_TEXT).await;
            assert!(v == "s" || v == "c", "{v}");
        }
    }
    for s in graph.sessions().into_iter().flatten() {
        let r = browser
            .conn
            .session(s)
            .call(
                "Runtime.evaluate",
                json!({"expression": "1+1", "returnByValue": true}),
            )
            .await;
        assert!(r.is_ok(), "session alive");
    }
    graph.registry().check_invariants().expect("invariants");
    graph.shutdown();
    browser.close().await;
}
