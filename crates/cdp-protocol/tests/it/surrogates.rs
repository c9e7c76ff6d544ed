//! Page text with a lone UTF-16 surrogate: Chromium writes it as a `\ud800` escape, which typed
//! responses and events must still decode (as U+FFFD).

use cdp_protocol::testing::{FixtureServer, launch_test_browser, open_blank_page};
use cdp_protocol::{dom, page, runtime};
use std::time::Duration;

const PAGE: &str = r#"<!doctype html><html><head><title>t</title></head><body><p>x</p>
<script>
document.body.textContent = 'a\uD800b';
document.title = 'lone \uDC00 title';
console.log('log \uD800');
</script></body></html>"#;

fn find_text<'a>(n: &'a dom::Node, out: &mut Vec<&'a str>) {
    if n.node_type == 3 {
        out.push(n.node_value.as_str());
    }
    for c in n.children.iter().flatten() {
        find_text(c, out);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lone_surrogates_in_page_text_decode_as_replacement_character() {
    let server = FixtureServer::start().await;
    server.route("/lone.html", "text/html", PAGE);
    let b = launch_test_browser().await;
    let (_, tab) = open_blank_page(&b).await.unwrap();
    let mut loads = tab.subscribe::<page::LoadEventFired>();
    let mut console = tab.subscribe::<runtime::ConsoleApiCalled>();
    tab.send(&page::Enable).await.unwrap();
    tab.send(&runtime::Enable).await.unwrap();
    tab.send(&page::Navigate {
        url: server.url("/lone.html"),
        ..Default::default()
    })
    .await
    .unwrap();
    tokio::time::timeout(Duration::from_secs(15), loads.recv())
        .await
        .expect("load event")
        .expect("stream open")
        .expect("load event decodes");

    let doc = tab
        .send(&dom::GetDocument {
            depth: Some(-1),
            pierce: Some(true),
        })
        .await
        .expect("getDocument decodes despite the lone surrogate");
    let mut texts = Vec::new();
    find_text(&doc.root, &mut texts);
    assert!(texts.contains(&"a\u{fffd}b"), "text nodes: {texts:?}");

    let v = tab
        .send(&runtime::Evaluate {
            expression: "document.body.textContent".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .expect("evaluate decodes despite the lone surrogate");
    assert_eq!(v.result.value, Some(serde_json::json!("a\u{fffd}b")));
    let title = tab
        .send(&runtime::Evaluate {
            expression: "[document.title, '\\uD83D\\uDE00']".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .expect("evaluate decodes");
    // A lone low surrogate is replaced too; a real pair stays the character it encodes.
    assert_eq!(
        title.result.value,
        Some(serde_json::json!(["lone \u{fffd} title", "\u{1F600}"]))
    );

    // Events go through the same lenient decode.
    let logged = tokio::time::timeout(Duration::from_secs(15), console.recv())
        .await
        .expect("console event")
        .expect("stream open")
        .expect("console event decodes");
    let arg = logged.args.first().and_then(|a| a.value.clone());
    assert_eq!(arg, Some(serde_json::json!("log \u{fffd}")));
    b.close().await.unwrap();
}
