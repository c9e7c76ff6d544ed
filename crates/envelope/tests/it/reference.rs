//! Outputs of the reference CLI 1.6 (NOTES/actionbook-observed-outputs.md) for cases
//! the spec leaves open: error hints, error contexts, warnings, empty lists, real
//! values. Full envelopes are compared as JSON values; text as exact lines.

use envelope::*;
use serde_json::json;

use crate::util::*;

const INDEX: &str = "http://127.0.0.1:18731/index.html";

fn fixture_ctx() -> Context {
    Context::tab("s1", "t1")
        .with_url(INDEX)
        .with_title("Fixture Home")
}

/// Asserts the whole envelope equals the reference's JSON line.
fn assert_envelope(env: &Envelope, reference: &str) {
    let got = envelope_json(env);
    assert_eq!(
        got,
        json(reference),
        "envelope differs from the reference\n{got:#}"
    );
    assert_invariants(&got);
    assert_round_trip(env);
}

#[test]
fn goto() {
    let data = NavigationData {
        kind: NavigationKind::Goto,
        requested_url: Some(INDEX.into()),
        from_url: INDEX.into(),
        to_url: INDEX.into(),
        title: "Fixture Home".into(),
    };
    let env = Envelope::success(CommandName::BrowserGoto, fixture_ctx(), data).with_duration_ms(62);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser goto","context":{"session_id":"s1","tab_id":"t1","url":"http://127.0.0.1:18731/index.html","title":"Fixture Home"},"data":{"from_url":"http://127.0.0.1:18731/index.html","kind":"goto","requested_url":"http://127.0.0.1:18731/index.html","title":"Fixture Home","to_url":"http://127.0.0.1:18731/index.html"},"error":null,"meta":{"duration_ms":62,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        "[s1 t1] http://127.0.0.1:18731/index.html\nok browser goto\ntitle: Fixture Home",
    );
}

#[test]
fn query_one_multiple_matches_prints_hint_and_header_without_url() {
    let err = ErrorInfo::new(ErrorCode::MultipleMatches, "Query mode 'one' requires exactly 1 match, found 3")
        .with_details(json!({"count":3,"query":".item","sample_selectors":[".item:nth-of-type(1)",".item:nth-of-type(2)",".item:nth-of-type(3)"]}))
        .with_hint("use 'query all' or narrow your selector");
    let env = Envelope::failure(CommandName::BrowserQuery, Context::tab("s1", "t1"), err)
        .with_duration_ms(3);
    assert_envelope(
        &env,
        r#"{"ok":false,"command":"browser query","context":{"session_id":"s1","tab_id":"t1"},"data":null,"error":{"code":"MULTIPLE_MATCHES","details":{"count":3,"query":".item","sample_selectors":[".item:nth-of-type(1)",".item:nth-of-type(2)",".item:nth-of-type(3)"]},"hint":"use 'query all' or narrow your selector","message":"Query mode 'one' requires exactly 1 match, found 3","retryable":false},"meta":{"duration_ms":3,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        "[s1 t1]\nerror MULTIPLE_MATCHES: Query mode 'one' requires exactly 1 match, found 3\nhint: use 'query all' or narrow your selector",
    );
    assert_eq!(env.exit_code(), 1);
}

#[test]
fn query_texts_with_empty_match_text_and_three_matches() {
    let m = |n: u32, text: &str| QueryMatch {
        selector: format!(".item:nth-of-type({n})"),
        tag: "div".into(),
        text: text.into(),
        visible: true,
        enabled: true,
    };
    let one = QueryData::One {
        query: "#name".into(),
        count: 1,
        item: QueryMatch {
            selector: "#name:nth-of-type(1)".into(),
            tag: "input".into(),
            ..m(1, "")
        },
    };
    let env = Envelope::success(CommandName::BrowserQuery, fixture_ctx(), one);
    assert_text(
        &env,
        &format!("[s1 t1] {INDEX}\n1 match\nselector: #name:nth-of-type(1)\ntext: "),
    );

    let all = QueryData::All {
        query: ".item".into(),
        count: 3,
        items: vec![m(1, "Item A"), m(2, "Item B"), m(3, "Item C")],
    };
    let env = Envelope::success(CommandName::BrowserQuery, fixture_ctx(), all).with_duration_ms(2);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser query","context":{"session_id":"s1","tab_id":"t1","url":"http://127.0.0.1:18731/index.html","title":"Fixture Home"},"data":{"count":3,"items":[{"enabled":true,"selector":".item:nth-of-type(1)","tag":"div","text":"Item A","visible":true},{"enabled":true,"selector":".item:nth-of-type(2)","tag":"div","text":"Item B","visible":true},{"enabled":true,"selector":".item:nth-of-type(3)","tag":"div","text":"Item C","visible":true}],"mode":"all","query":".item"},"error":null,"meta":{"duration_ms":2,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        &format!(
            "[s1 t1] {INDEX}\n3 matches\n1. .item:nth-of-type(1)\n   Item A\n2. .item:nth-of-type(2)\n   Item B\n3. .item:nth-of-type(3)\n   Item C"
        ),
    );
}

#[test]
fn session_not_found_on_a_session_command() {
    let err = ErrorInfo::new(ErrorCode::SessionNotFound, "session 'nosuch' not found")
        .with_hint("run `actionbook browser list-sessions` to see available sessions");
    let env = Envelope::failure(CommandName::BrowserStatus, Context::session("nosuch"), err);
    assert_envelope(
        &env,
        r#"{"ok":false,"command":"browser status","context":{"session_id":"nosuch"},"data":null,"error":{"code":"SESSION_NOT_FOUND","details":null,"hint":"run `actionbook browser list-sessions` to see available sessions","message":"session 'nosuch' not found","retryable":false},"meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        "[nosuch]\nerror SESSION_NOT_FOUND: session 'nosuch' not found\nhint: run `actionbook browser list-sessions` to see available sessions",
    );
}

#[test]
fn tab_not_found_has_session_only_context() {
    let env = Envelope::failure(
        CommandName::BrowserTitle,
        Context::session("s1"),
        ErrorInfo::new(ErrorCode::TabNotFound, "tab 't99' not found"),
    );
    assert_envelope(
        &env,
        r#"{"ok":false,"command":"browser title","context":{"session_id":"s1"},"data":null,"error":{"code":"TAB_NOT_FOUND","details":null,"message":"tab 't99' not found","retryable":false},"meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(&env, "[s1]\nerror TAB_NOT_FOUND: tab 't99' not found");
}

#[test]
fn element_not_found() {
    let env = Envelope::failure(
        CommandName::BrowserClick,
        Context::tab("s1", "t1"),
        ErrorInfo::new(ErrorCode::ElementNotFound, "element not found: #nope")
            .with_details(json!({"selector": "#nope"})),
    )
    .with_duration_ms(2);
    assert_envelope(
        &env,
        r##"{"ok":false,"command":"browser click","context":{"session_id":"s1","tab_id":"t1"},"data":null,"error":{"code":"ELEMENT_NOT_FOUND","details":{"selector":"#nope"},"message":"element not found: #nope","retryable":false},"meta":{"duration_ms":2,"warnings":[],"pagination":null,"truncated":false}}"##,
    );
    assert_text(
        &env,
        "[s1 t1]\nerror ELEMENT_NOT_FOUND: element not found: #nope",
    );
}

#[test]
fn wait_timeout_is_retryable() {
    let env = Envelope::failure(
        CommandName::BrowserWaitElement,
        Context::tab("s1", "t1"),
        ErrorInfo::new(
            ErrorCode::Timeout,
            "browser wait element timed out after 1500ms",
        )
        .with_hint("increase --timeout or retry the command"),
    )
    .with_duration_ms(1501);
    assert_envelope(
        &env,
        r#"{"ok":false,"command":"browser wait element","context":{"session_id":"s1","tab_id":"t1"},"data":null,"error":{"code":"TIMEOUT","details":null,"hint":"increase --timeout or retry the command","message":"browser wait element timed out after 1500ms","retryable":true},"meta":{"duration_ms":1501,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
}

#[test]
fn close_unknown_session_warns() {
    let data = CloseData {
        session_id: "s2".into(),
        status: SessionState::Closed,
        closed_tabs: 0,
    };
    let env = Envelope::success(CommandName::BrowserClose, Context::session("s2"), data)
        .with_warning("session not found in daemon — already closed or daemon restarted");
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser close","context":{"session_id":"s2"},"data":{"closed_tabs":0,"session_id":"s2","status":"closed"},"error":null,"meta":{"duration_ms":0,"warnings":["session not found in daemon — already closed or daemon restarted"],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        "[s2]\nok browser close\nclosed_tabs: 0\nwarning: session not found in daemon — already closed or daemon restarted",
    );
}

#[test]
fn empty_lists() {
    let env = Envelope::success(
        CommandName::BrowserListSessions,
        None,
        SessionListData::new(vec![]),
    );
    assert_text(&env, "0 sessions");
    let env = Envelope::success(
        CommandName::BrowserCookiesList,
        Context::session("s1"),
        CookieListData::default(),
    );
    assert_text(&env, "[s1]\n0 cookies");
    let env = Envelope::success(
        CommandName::BrowserLogsConsole,
        fixture_ctx(),
        LogsData::default(),
    );
    assert_text(&env, &format!("[s1 t1] {INDEX}\n0 logs"));
}

fn tab(id: &str, title: &str, url: &str, native: &str) -> TabInfo {
    TabInfo {
        tab_id: id.into(),
        url: url.into(),
        title: title.into(),
        native_tab_id: Some(native.into()),
    }
}

#[test]
fn list_tabs_with_string_native_ids() {
    let page2 = "http://127.0.0.1:18731/page2.html";
    let data = TabListData::new(vec![
        tab("t2", "Page Two", page2, "D41B11015FA985BB0577BA4AADE8718A"),
        tab(
            "t3",
            "Fixture Home",
            INDEX,
            "41BD0064FCB4109CE1B96E1D9D719688",
        ),
        tab(
            "t1",
            "Fixture Home",
            INDEX,
            "74EE779331C7D0351946DB77420672DC",
        ),
    ]);
    let env = Envelope::success(CommandName::BrowserListTabs, Context::session("s1"), data);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser list-tabs","context":{"session_id":"s1"},"data":{"tabs":[{"native_tab_id":"D41B11015FA985BB0577BA4AADE8718A","tab_id":"t2","title":"Page Two","url":"http://127.0.0.1:18731/page2.html"},{"native_tab_id":"41BD0064FCB4109CE1B96E1D9D719688","tab_id":"t3","title":"Fixture Home","url":"http://127.0.0.1:18731/index.html"},{"native_tab_id":"74EE779331C7D0351946DB77420672DC","tab_id":"t1","title":"Fixture Home","url":"http://127.0.0.1:18731/index.html"}],"total_tabs":3},"error":null,"meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        &format!(
            "[s1]\n3 tabs\n[t2] Page Two\n{page2}\n[t3] Fixture Home\n{INDEX}\n[t1] Fixture Home\n{INDEX}"
        ),
    );
}

#[test]
fn new_tab_before_load_has_empty_title() {
    let data = NewTabData {
        tab: tab("t3", "", INDEX, "41BD0064FCB4109CE1B96E1D9D719688"),
        created: true,
        new_window: false,
        tabs: vec![],
    };
    let ctx = Context::tab("s1", "t3").with_url(INDEX).with_title("");
    let env = Envelope::success(CommandName::BrowserNewTab, ctx, data).with_duration_ms(116);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser new-tab","context":{"session_id":"s1","tab_id":"t3","url":"http://127.0.0.1:18731/index.html","title":""},"data":{"created":true,"new_window":false,"tab":{"native_tab_id":"41BD0064FCB4109CE1B96E1D9D719688","tab_id":"t3","title":"","url":"http://127.0.0.1:18731/index.html"}},"error":null,"meta":{"duration_ms":116,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(
        &env,
        &format!("[s1 t3] {INDEX}\nok browser new-tab\ntitle: "),
    );
}

#[test]
fn cookies_list_with_unset_same_site() {
    let c = |name: &str, value: &str| Cookie {
        name: name.into(),
        value: value.into(),
        domain: "127.0.0.1".into(),
        path: "/".into(),
        http_only: false,
        secure: false,
        same_site: String::new(),
        expires: None,
    };
    let env = Envelope::success(
        CommandName::BrowserCookiesList,
        Context::session("s1"),
        CookieListData {
            items: vec![c("foo", "bar"), c("foo2", "baz")],
        },
    )
    .with_duration_ms(1);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser cookies list","context":{"session_id":"s1"},"data":{"items":[{"domain":"127.0.0.1","expires":null,"http_only":false,"name":"foo","path":"/","same_site":"","secure":false,"value":"bar"},{"domain":"127.0.0.1","expires":null,"http_only":false,"name":"foo2","path":"/","same_site":"","secure":false,"value":"baz"}]},"error":null,"meta":{"duration_ms":1,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(&env, "[s1]\n2 cookies\nfoo 127.0.0.1 /\nfoo2 127.0.0.1 /");
}

#[test]
fn storage_get_missing_key_is_null_item() {
    let ctx = Context::tab("s1", "t1").with_url(INDEX);
    let env = Envelope::success(
        CommandName::BrowserSessionStorageGet,
        ctx,
        StorageGetData {
            storage: StorageKind::Session,
            item: None,
        },
    )
    .with_duration_ms(2);
    assert_envelope(
        &env,
        r#"{"ok":true,"command":"browser session-storage get","context":{"session_id":"s1","tab_id":"t1","url":"http://127.0.0.1:18731/index.html"},"data":{"item":null,"storage":"session"},"error":null,"meta":{"duration_ms":2,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    assert_text(&env, &format!("[s1 t1] {INDEX}"));
}

#[test]
fn storage_list_two_keys() {
    let item = |k: &str, v: &str| StorageItem {
        key: k.into(),
        value: v.into(),
    };
    let env = Envelope::success(
        CommandName::BrowserLocalStorageList,
        Context::tab("s1", "t1").with_url(INDEX),
        StorageListData {
            storage: StorageKind::Local,
            items: vec![item("k2", "v2"), item("k1", "v1")],
        },
    );
    assert_text(&env, &format!("[s1 t1] {INDEX}\n2 keys\nk2=v2\nk1=v1"));
}

#[test]
fn box_with_fractional_values() {
    let data = BoxData {
        target: Target::selector("#submit"),
        value: BoundingBox {
            x: 407.625,
            y: 114.875,
            width: 57.484375,
            height: 21.0,
        },
    };
    let env = Envelope::success(CommandName::BrowserBox, fixture_ctx(), data);
    assert_eq!(
        envelope_json(&env)["data"]["value"],
        json!({"x": 407.625, "y": 114.875, "width": 57.484375, "height": 21})
    );
    assert_text(
        &env,
        &format!("[s1 t1] {INDEX}\nx: 407.625\ny: 114.875\nwidth: 57.484375\nheight: 21"),
    );
    assert_round_trip(&env);
}

#[test]
fn inspect_point_text() {
    let data = InspectPointData {
        point: Point { x: 50.0, y: 50.0 },
        element: InspectedElement {
            role: "heading".into(),
            name: "Conformance Fixture".into(),
            selector: "e1".into(),
            ref_id: None,
        },
        parents: vec![],
        screenshot_path: None,
    };
    let env = Envelope::success(CommandName::BrowserInspectPoint, fixture_ctx(), data);
    assert_text(
        &env,
        &format!("[s1 t1] {INDEX}\nheading \"Conformance Fixture\"\nselector: e1\npoint: 50,50"),
    );
}

#[test]
fn eval_object_prints_preview_and_multiline_error_message() {
    let data = EvalData {
        value: json!({"a": 1, "b": [1, 2]}),
        value_type: "object".into(),
        preview: r#"{"a":1,"b":[1,2]}"#.into(),
        pre_url: None,
        pre_origin: None,
        pre_ready_state: None,
    };
    let env = Envelope::success(CommandName::BrowserEval, fixture_ctx(), data);
    assert_text(&env, &format!("[s1 t1] {INDEX}\n{{\"a\":1,\"b\":[1,2]}}"));

    let env = Envelope::failure(
        CommandName::BrowserEval,
        Context::tab("s1", "t1"),
        ErrorInfo::new(
            ErrorCode::EvalFailed,
            "Error: boom\n    at <anonymous>:1:21",
        )
        .with_hint("Inspect the expression and referenced variables before retrying"),
    );
    assert_text(
        &env,
        "[s1 t1]\nerror EVAL_FAILED: Error: boom\n    at <anonymous>:1:21\nhint: Inspect the expression and referenced variables before retrying",
    );
}

#[test]
fn version_json_omits_context_where_the_reference_writes_null() {
    let env = Envelope::success(CommandName::Version, None, "1.6.0");
    let mut reference = json(
        r#"{"ok":true,"command":"version","context":null,"data":"1.6.0","error":null,"meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}}"#,
    );
    // Spec section 4 ("must omit") wins over the reference's `"context": null`.
    reference.as_object_mut().unwrap().remove("context");
    assert_eq!(envelope_json(&env), reference);
    assert_text(&env, "1.6.0");
    // ...and the reference's form is still read.
    let back = Envelope::from_json(
        r#"{"ok":true,"command":"version","context":null,"data":"1.6.0","error":null,"meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}}"#,
    )
    .unwrap();
    assert_eq!(back, env);
}

#[test]
fn start_reads_reference_output() {
    let line = r#"{"ok":true,"command":"browser start","context":{"session_id":"s1","tab_id":"t1","url":"chrome://newtab/","title":"New Tab"},"data":{"reused":false,"session":{"cdp_endpoint":"ws://127.0.0.1:40227/devtools/browser/333407d1","headless":true,"mode":"local","session_id":"s1","status":"running"},"tab":{"native_tab_id":"74EE779331C7D0351946DB77420672DC","tab_id":"t1","title":"New Tab","url":"chrome://newtab/"}},"error":null,"meta":{"duration_ms":930,"warnings":[],"pagination":null,"truncated":false}}"#;
    let env = Envelope::from_json(line).unwrap();
    assert_eq!(envelope_json(&env), json(line));
    assert_text(
        &env,
        "[s1 t1] chrome://newtab/\nok browser start\nmode: local\nstatus: running\ntitle: New Tab",
    );
}
