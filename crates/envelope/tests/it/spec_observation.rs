//! Spec section 10: observation commands.

use envelope::*;
use serde_json::json;

use crate::util::*;

const GOOGLE: &str = "https://google.com";
const EXAMPLE: &str = "https://example.com";

fn ok(command: CommandName, url: &str, data: impl Into<Data>) -> Envelope {
    Envelope::success(command, tab_ctx(url), data)
}

fn item(n: u32, text: &str) -> QueryMatch {
    QueryMatch {
        selector: format!(".item:nth-of-type({n})"),
        tag: "div".into(),
        text: text.into(),
        visible: true,
        enabled: true,
    }
}

#[test]
fn section_10_1_snapshot() {
    let path = "/Users/alice/.actionbook/sessions/s1/snapshot_1711900000000.txt";
    let data = SnapshotData::new(
        path,
        vec![SnapshotNode {
            ref_id: "e1".into(),
            role: "textbox".into(),
            name: "Search".into(),
            value: String::new(),
        }],
        SnapshotStats {
            node_count: 2,
            interactive_count: 2,
        },
    );
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data);
    golden(
        &env,
        r#"{
          "format": "snapshot",
          "path": "/Users/alice/.actionbook/sessions/s1/snapshot_1711900000000.txt",
          "nodes": [ { "ref": "e1", "role": "textbox", "name": "Search", "value": "" } ],
          "stats": { "node_count": 2, "interactive_count": 2 }
        }"#,
        "[research-google t1] https://google.com\nRefs are stable across snapshots — if the DOM node stays the same, the ref stays the same.\noutput saved to /Users/alice/.actionbook/sessions/s1/snapshot_1711900000000.txt",
    );
}

#[test]
fn section_10_1_snapshot_truncation_only_in_meta() {
    let data = SnapshotData::new("/p", vec![], SnapshotStats::default());
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data).with_truncated(true);
    let v = envelope_json(&env);
    assert_eq!(v["meta"]["truncated"], json!(true));
    assert!(v["data"].get("truncated").is_none());
    assert_round_trip(&env);
}

/// Beyond 10.1 (issue 18): a diff answer carries `revision`, `base_revision`, `full` and the
/// counts; a full diff has `base_revision: null`; a page has `pages` and `meta.pagination`.
#[test]
fn snapshot_diff_and_page_shapes_round_trip() {
    let mut data = SnapshotData::new("/p", vec![], SnapshotStats::default());
    data.revision = Some(4);
    data.diff = Some(SnapshotDiff {
        base_revision: Some(3),
        full: false,
        added: 1,
        removed: 0,
        changed: 2,
    });
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data.clone());
    let v = envelope_json(&env);
    assert_eq!(v["data"]["revision"], json!(4));
    assert_eq!(v["data"]["base_revision"], json!(3));
    assert_eq!(v["data"]["full"], json!(false));
    assert_eq!(v["data"]["changed"], json!(2));
    assert!(v["data"].get("pages").is_none());
    assert!(
        env.to_text()
            .contains("revision 4: 1 added, 0 removed, 2 changed since revision 3")
    );
    assert_round_trip(&env);

    data.diff = Some(SnapshotDiff {
        base_revision: None,
        full: true,
        ..SnapshotDiff::default()
    });
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data.clone());
    let v = envelope_json(&env);
    assert_eq!(v["data"]["base_revision"], json!(null));
    assert!(env.to_text().contains("full snapshot"));
    assert_round_trip(&env);

    data.diff = Some(SnapshotDiff {
        base_revision: Some(3),
        ..SnapshotDiff::default()
    });
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data.clone());
    assert!(
        env.to_text()
            .contains("revision 4: no changes since revision 3")
    );

    data.diff = None;
    data.pages = Some(3);
    let env = ok(CommandName::BrowserSnapshot, GOOGLE, data)
        .with_pagination(Pagination::new(1, 10, 30))
        .with_truncated(true);
    let v = envelope_json(&env);
    assert_eq!(v["data"]["pages"], json!(3));
    assert!(v["data"].get("base_revision").is_none());
    assert_eq!(v["meta"]["pagination"]["has_more"], json!(true));
    assert_round_trip(&env);
}

fn artifact(path: &str, mime: &str, bytes: u64) -> ArtifactData {
    ArtifactData {
        artifact: Artifact {
            path: path.into(),
            mime_type: mime.into(),
            bytes,
        },
    }
}

#[test]
fn section_10_2_screenshot() {
    let env = ok(
        CommandName::BrowserScreenshot,
        GOOGLE,
        artifact("/tmp/google.png", "image/png", 183920),
    );
    golden(
        &env,
        r#"{ "artifact": { "path": "/tmp/google.png", "mime_type": "image/png", "bytes": 183920 } }"#,
        "[research-google t1] https://google.com\nok browser screenshot\npath: /tmp/google.png",
    );
}

#[test]
fn section_10_3_pdf() {
    let env = ok(
        CommandName::BrowserPdf,
        GOOGLE,
        artifact("/tmp/google.pdf", "application/pdf", 1000),
    );
    golden(
        &env,
        r#"{ "artifact": { "path": "/tmp/google.pdf", "mime_type": "application/pdf", "bytes": 1000 } }"#,
        "[research-google t1] https://google.com\nok browser pdf\npath: /tmp/google.pdf",
    );
}

#[test]
fn section_10_4_title() {
    let env = ok(
        CommandName::BrowserTitle,
        GOOGLE,
        PageValueData {
            value: "Google".into(),
        },
    );
    golden(
        &env,
        r#"{ "value": "Google" }"#,
        "[research-google t1] https://google.com\nGoogle",
    );
}

#[test]
fn section_10_5_url() {
    let env = ok(
        CommandName::BrowserUrl,
        GOOGLE,
        PageValueData {
            value: GOOGLE.into(),
        },
    );
    golden(
        &env,
        r#"{ "value": "https://google.com" }"#,
        "[research-google t1] https://google.com\nhttps://google.com",
    );
}

#[test]
fn section_10_6_viewport() {
    let env = ok(
        CommandName::BrowserViewport,
        GOOGLE,
        ViewportData {
            width: 1440,
            height: 900,
        },
    );
    golden(
        &env,
        r#"{ "width": 1440, "height": 900 }"#,
        "[research-google t1] https://google.com\n1440x900",
    );
}

#[test]
fn section_10_7_query_one() {
    let data = QueryData::One {
        query: ".item".into(),
        count: 1,
        item: item(1, "Item A"),
    };
    golden(
        &ok(CommandName::BrowserQuery, EXAMPLE, data),
        r#"{
          "mode": "one",
          "query": ".item",
          "count": 1,
          "item": { "selector": ".item:nth-of-type(1)", "tag": "div", "text": "Item A", "visible": true, "enabled": true }
        }"#,
        "[research-google t1] https://example.com\n1 match\nselector: .item:nth-of-type(1)\ntext: Item A",
    );
}

#[test]
fn section_10_7_query_one_multiple_matches_error() {
    let err = ErrorInfo::new(
        ErrorCode::MultipleMatches,
        "Query mode 'one' requires exactly 1 match, found 3",
    )
    .with_details(json!({
        "query": ".item",
        "count": 3,
        "sample_selectors": [".item:nth-of-type(1)", ".item:nth-of-type(2)", ".item:nth-of-type(3)"]
    }));
    let env = Envelope::failure(
        CommandName::BrowserQuery,
        Context::tab("research-google", "t1"),
        err,
    );
    let v = envelope_json(&env);
    assert_eq!(
        v["error"],
        json(
            r#"{
              "code": "MULTIPLE_MATCHES",
              "message": "Query mode 'one' requires exactly 1 match, found 3",
              "retryable": false,
              "details": { "query": ".item", "count": 3, "sample_selectors": [".item:nth-of-type(1)", ".item:nth-of-type(2)", ".item:nth-of-type(3)"] }
            }"#
        )
    );
    assert_invariants(&v);
    assert_round_trip(&env);
    assert_text(
        &env,
        "[research-google t1]\nerror MULTIPLE_MATCHES: Query mode 'one' requires exactly 1 match, found 3",
    );
}

#[test]
fn section_10_7_query_all() {
    let data = QueryData::All {
        query: ".item".into(),
        count: 3,
        items: vec![item(1, "Item A")],
    };
    golden(
        &ok(CommandName::BrowserQuery, EXAMPLE, data),
        r#"{
          "mode": "all",
          "query": ".item",
          "count": 3,
          "items": [ { "selector": ".item:nth-of-type(1)", "tag": "div", "text": "Item A", "visible": true, "enabled": true } ]
        }"#,
        "[research-google t1] https://example.com\n3 matches\n1. .item:nth-of-type(1)\n   Item A",
    );
}

#[test]
fn section_5_5_query_all_zero_matches_is_an_empty_list() {
    let data = QueryData::All {
        query: ".none".into(),
        count: 0,
        items: vec![],
    };
    golden(
        &ok(CommandName::BrowserQuery, EXAMPLE, data),
        r#"{ "mode": "all", "query": ".none", "count": 0, "items": [] }"#,
        "[research-google t1] https://example.com\n0 matches",
    );
}

#[test]
fn section_10_7_query_nth() {
    let data = QueryData::Nth {
        query: ".item".into(),
        index: 2,
        count: 3,
        item: item(2, "Item B"),
    };
    golden(
        &ok(CommandName::BrowserQuery, EXAMPLE, data),
        r#"{
          "mode": "nth",
          "query": ".item",
          "index": 2,
          "count": 3,
          "item": { "selector": ".item:nth-of-type(2)", "tag": "div", "text": "Item B", "visible": true, "enabled": true }
        }"#,
        "[research-google t1] https://example.com\nmatch 2/3\nselector: .item:nth-of-type(2)\ntext: Item B",
    );
}

#[test]
fn section_10_7_query_count() {
    let data = QueryData::Count {
        query: ".item".into(),
        count: 3,
    };
    golden(
        &ok(CommandName::BrowserQuery, EXAMPLE, data),
        r#"{ "mode": "count", "query": ".item", "count": 3 }"#,
        "[research-google t1] https://example.com\n3",
    );
}

fn read(selector: &str, value: &str) -> ReadData {
    ReadData {
        target: Target::selector(selector),
        value: value.into(),
    }
}

#[test]
fn section_10_8_html() {
    let env = ok(
        CommandName::BrowserHtml,
        EXAMPLE,
        read("#title", r#"<h1 id="title">Example Domain</h1>"#),
    );
    golden(
        &env,
        r##"{ "target": { "selector": "#title" }, "value": "<h1 id=\"title\">Example Domain</h1>" }"##,
        "[research-google t1] https://example.com\n<h1 id=\"title\">Example Domain</h1>",
    );
}

#[test]
fn section_10_8_text() {
    let env = ok(
        CommandName::BrowserText,
        EXAMPLE,
        read("#title", "Example Domain"),
    );
    golden(
        &env,
        r##"{ "target": { "selector": "#title" }, "value": "Example Domain" }"##,
        "[research-google t1] https://example.com\nExample Domain",
    );
}

#[test]
fn section_10_8_value() {
    let env = ok(
        CommandName::BrowserValue,
        EXAMPLE,
        read("#email", "user@example.com"),
    );
    golden(
        &env,
        r##"{ "target": { "selector": "#email" }, "value": "user@example.com" }"##,
        "[research-google t1] https://example.com\nuser@example.com",
    );
}

#[test]
fn section_10_8_attr() {
    let env = ok(
        CommandName::BrowserAttr,
        EXAMPLE,
        read("a.link", "https://google.com"),
    );
    golden(
        &env,
        r#"{ "target": { "selector": "a.link" }, "value": "https://google.com" }"#,
        "[research-google t1] https://example.com\nhttps://google.com",
    );
}

#[test]
fn section_10_8_attrs_key_value_list_in_document_order() {
    let data = AttributesData {
        target: Target::selector("#btn"),
        value: [("id", "btn"), ("type", "submit"), ("class", "primary")]
            .into_iter()
            .collect(),
    };
    let env = ok(CommandName::BrowserAttrs, EXAMPLE, data);
    golden(
        &env,
        r##"{ "target": { "selector": "#btn" }, "value": { "id": "btn", "type": "submit", "class": "primary" } }"##,
        "[research-google t1] https://example.com\nid: btn\ntype: submit\nclass: primary",
    );
    // Order survives the JSON round trip (IPC), so the text printed after it is the same.
    let back = Envelope::from_json(&env.to_json()).unwrap();
    assert_eq!(back.to_text(), env.to_text());
}

#[test]
fn section_10_8_box() {
    let data = BoxData {
        target: Target::selector("#btn"),
        value: BoundingBox {
            x: 10.0,
            y: 20.0,
            width: 120.0,
            height: 32.0,
        },
    };
    golden(
        &ok(CommandName::BrowserBox, EXAMPLE, data),
        r##"{ "target": { "selector": "#btn" }, "value": { "x": 10, "y": 20, "width": 120, "height": 32 } }"##,
        "[research-google t1] https://example.com\nx: 10\ny: 20\nwidth: 120\nheight: 32",
    );
}

#[test]
fn section_10_8_styles() {
    let data = AttributesData {
        target: Target::selector("#btn"),
        value: [("color", "rgb(0,0,0)"), ("font-size", "14px")]
            .into_iter()
            .collect(),
    };
    golden(
        &ok(CommandName::BrowserStyles, EXAMPLE, data),
        r##"{ "target": { "selector": "#btn" }, "value": { "color": "rgb(0,0,0)", "font-size": "14px" } }"##,
        "[research-google t1] https://example.com\ncolor: rgb(0,0,0)\nfont-size: 14px",
    );
}

fn describe(summary: &str, name: &str, ty: &str, nearby: Option<Nearby>) -> DescribeData {
    DescribeData {
        target: Target::selector("button[type=submit]"),
        summary: summary.into(),
        role: "button".into(),
        name: name.into(),
        tag: "button".into(),
        attributes: [("type", ty)].into_iter().collect(),
        state: DescribeState {
            visible: true,
            enabled: true,
            checked: None,
            selected: None,
        },
        nearby,
    }
}

#[test]
fn section_10_9_describe() {
    let env = ok(
        CommandName::BrowserDescribe,
        GOOGLE,
        describe("button \"Google Search\"", "Google Search", "submit", None),
    );
    golden(
        &env,
        r#"{
          "target": { "selector": "button[type=submit]" },
          "summary": "button \"Google Search\"",
          "role": "button",
          "name": "Google Search",
          "tag": "button",
          "attributes": { "type": "submit" },
          "state": { "visible": true, "enabled": true },
          "nearby": null
        }"#,
        "[research-google t1] https://google.com\nbutton \"Google Search\"",
    );
}

#[test]
fn section_10_9_describe_nearby() {
    let nearby = Nearby {
        parent: Some("listitem \"John Smith\"".into()),
        previous_sibling: Some("text \"John Smith\"".into()),
        next_sibling: None,
        children: vec![],
    };
    let env = ok(
        CommandName::BrowserDescribe,
        GOOGLE,
        describe("button \"Edit\"", "Edit", "button", Some(nearby)),
    );
    golden(
        &env,
        r#"{
          "target": { "selector": "button[type=submit]" },
          "summary": "button \"Edit\"",
          "role": "button",
          "name": "Edit",
          "tag": "button",
          "attributes": { "type": "button" },
          "state": { "visible": true, "enabled": true },
          "nearby": {
            "parent": "listitem \"John Smith\"",
            "previous_sibling": "text \"John Smith\"",
            "next_sibling": null,
            "children": []
          }
        }"#,
        "[research-google t1] https://google.com\nbutton \"Edit\"\nparent: listitem \"John Smith\"\nprevious_sibling: text \"John Smith\"",
    );
}

#[test]
fn section_10_10_state() {
    let data = StateData {
        target: Target::selector("#search"),
        state: ElementState {
            visible: true,
            enabled: true,
            checked: false,
            focused: true,
            editable: true,
            selected: false,
        },
    };
    golden(
        &ok(CommandName::BrowserState, GOOGLE, data),
        r##"{
          "target": { "selector": "#search" },
          "state": { "visible": true, "enabled": true, "checked": false, "focused": true, "editable": true, "selected": false }
        }"##,
        "[research-google t1] https://google.com\nvisible: true\nenabled: true\nchecked: false\nfocused: true\neditable: true\nselected: false",
    );
}

#[test]
fn section_10_11_inspect_point() {
    let data = InspectPointData {
        point: Point { x: 420.0, y: 310.0 },
        element: InspectedElement {
            role: "button".into(),
            name: "Google Search".into(),
            selector: "input[name=btnK]".into(),
            ref_id: None,
        },
        parents: vec![],
        screenshot_path: None,
    };
    golden(
        &ok(CommandName::BrowserInspectPoint, GOOGLE, data),
        r#"{
          "point": { "x": 420, "y": 310 },
          "element": { "role": "button", "name": "Google Search", "selector": "input[name=btnK]" },
          "parents": [],
          "screenshot_path": null
        }"#,
        "[research-google t1] https://google.com\nbutton \"Google Search\"\nselector: input[name=btnK]\npoint: 420,310",
    );
}

fn one_log() -> LogsData {
    LogsData {
        items: vec![LogEntry {
            id: "log-1".into(),
            level: "info".into(),
            text: "App mounted".into(),
            source: Some("app.js".into()),
            timestamp_ms: 1710000000000,
            frame_url: None,
        }],
        cleared: false,
    }
}

const ONE_LOG_JSON: &str = r#"{
  "items": [ { "id": "log-1", "level": "info", "text": "App mounted", "source": "app.js", "timestamp_ms": 1710000000000 } ],
  "cleared": false
}"#;

#[test]
fn section_10_12_logs_console() {
    golden(
        &ok(CommandName::BrowserLogsConsole, EXAMPLE, one_log()),
        ONE_LOG_JSON,
        "[research-google t1] https://example.com\n1 log\ninfo 1710000000000 app.js App mounted",
    );
}

#[test]
fn section_10_13_logs_errors_same_structure() {
    golden(
        &ok(CommandName::BrowserLogsErrors, EXAMPLE, one_log()),
        ONE_LOG_JSON,
        "[research-google t1] https://example.com\n1 log\ninfo 1710000000000 app.js App mounted",
    );
}
