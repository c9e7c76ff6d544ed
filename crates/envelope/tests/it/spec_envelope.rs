//! Spec sections 2.4, 3 and 4: the envelope itself, errors, meta.

use envelope::*;
use serde_json::json;

use crate::util::*;

fn snapshot_data() -> SnapshotData {
    SnapshotData::new(
        "/tmp/s.txt",
        vec![],
        SnapshotStats {
            node_count: 0,
            interactive_count: 0,
        },
    )
}

#[test]
fn section_2_4_envelope_members_and_context() {
    let ctx = Context::tab("research-google", "t1")
        .with_window_id("w1")
        .with_url("https://google.com")
        .with_title("Google");
    let env =
        Envelope::success(CommandName::BrowserSnapshot, ctx, snapshot_data()).with_duration_ms(123);
    let mut got = envelope_json(&env);
    // The spec's example shows `"data": {}` as a placeholder; compare everything else.
    got["data"] = json!({});
    assert_eq!(
        got,
        json(
            r#"{
              "ok": true,
              "command": "browser snapshot",
              "context": {
                "session_id": "research-google",
                "tab_id": "t1",
                "window_id": "w1",
                "url": "https://google.com",
                "title": "Google"
              },
              "data": {},
              "error": null,
              "meta": { "duration_ms": 123, "warnings": [], "pagination": null, "truncated": false }
            }"#
        )
    );
}

#[test]
fn section_2_4_members_are_written_in_spec_order() {
    let env = Envelope::success(
        CommandName::BrowserTitle,
        tab_ctx("u"),
        PageValueData { value: "T".into() },
    );
    let s = env.to_json();
    let pos = |k: &str| {
        s.find(&format!("\"{k}\":"))
            .unwrap_or_else(|| panic!("{k} in {s}"))
    };
    assert!(pos("ok") < pos("command"));
    assert!(pos("command") < pos("context"));
    assert!(pos("context") < pos("data"));
    assert!(pos("data") < pos("error"));
    assert!(pos("error") < pos("meta"));
}

#[test]
fn section_2_4_error_structure() {
    let err = ErrorInfo::new(ErrorCode::ElementNotFound, "Element not found: #submit")
        .with_details(json!({ "selector": "#submit" }));
    assert_eq!(
        serde_json::to_value(&err).unwrap(),
        json(
            r##"{
              "code": "ELEMENT_NOT_FOUND",
              "message": "Element not found: #submit",
              "retryable": false,
              "details": { "selector": "#submit" }
            }"##
        )
    );
}

#[test]
fn section_2_4_meta_structure_with_pagination() {
    let env = Envelope::success(
        CommandName::Search,
        None,
        SearchData {
            query: "q".into(),
            items: vec![],
        },
    )
    .with_duration_ms(123)
    .with_pagination(Pagination::new(1, 10, 42));
    assert_eq!(
        envelope_json(&env)["meta"],
        json(
            r#"{
              "duration_ms": 123,
              "warnings": [],
              "pagination": { "page": 1, "page_size": 10, "total": 42, "has_more": true },
              "truncated": false
            }"#
        )
    );
    assert_round_trip(&env);
}

#[test]
fn pagination_has_more_is_false_on_the_last_page() {
    assert!(!Pagination::new(5, 10, 42).has_more);
    assert!(Pagination::new(4, 10, 42).has_more);
    assert!(!Pagination::new(1, 10, 0).has_more);
}

#[test]
fn section_3_1_unified_error_response() {
    let env = Envelope::failure(
        CommandName::BrowserClick,
        tab_ctx("https://google.com"),
        ErrorInfo::new(
            ErrorCode::ElementNotFound,
            "Element not found: button[type=submit]",
        )
        .with_details(json!({ "selector": "button[type=submit]" })),
    )
    .with_duration_ms(3012);
    assert_eq!(
        envelope_json(&env),
        json(
            r#"{
              "ok": false,
              "command": "browser click",
              "context": { "session_id": "research-google", "tab_id": "t1", "url": "https://google.com" },
              "data": null,
              "error": {
                "code": "ELEMENT_NOT_FOUND",
                "message": "Element not found: button[type=submit]",
                "retryable": false,
                "details": { "selector": "button[type=submit]" }
              },
              "meta": { "duration_ms": 3012, "warnings": [], "pagination": null, "truncated": false }
            }"#
        )
    );
    assert_text(
        &env,
        "[research-google t1] https://google.com\nerror ELEMENT_NOT_FOUND: Element not found: button[type=submit]",
    );
    assert_round_trip(&env);
    assert_eq!(env.exit_code(), 1);
}

#[test]
fn section_3_2_every_recommended_code_serialises_as_spelled() {
    let spec = [
        "INVALID_ARGUMENT",
        "SESSION_NOT_FOUND",
        "TAB_NOT_FOUND",
        "FRAME_NOT_FOUND",
        "ELEMENT_NOT_FOUND",
        "MULTIPLE_MATCHES",
        "INDEX_OUT_OF_RANGE",
        "TIMEOUT",
        "NAVIGATION_FAILED",
        "EVAL_FAILED",
        "ARTIFACT_WRITE_FAILED",
        "UNSUPPORTED_OPERATION",
        "INTERNAL_ERROR",
    ];
    for s in spec {
        let code: ErrorCode = s.parse().unwrap();
        assert_eq!(serde_json::to_value(code).unwrap(), json!(s));
        let back: ErrorCode = serde_json::from_value(json!(s)).unwrap();
        assert_eq!(back, code);
    }
}

#[test]
fn section_4_non_session_commands_omit_context_even_when_given_one() {
    let env = Envelope::success(CommandName::Version, session_ctx(), "1.0.0");
    assert!(env.context().is_none());
    assert!(envelope_json(&env).get("context").is_none());
    let env = Envelope::success(
        CommandName::BrowserListSessions,
        session_ctx(),
        SessionListData::new(vec![]),
    );
    assert!(envelope_json(&env).get("context").is_none());
}

#[test]
fn section_4_failure_has_null_data_and_success_null_error() {
    let ok = Envelope::success(CommandName::Version, None, "1.0.0");
    let v = envelope_json(&ok);
    assert!(v["error"].is_null() && v.get("error").is_some());
    let err = Envelope::failure(
        CommandName::Version,
        None,
        ErrorInfo::new(ErrorCode::InternalError, "x"),
    );
    let v = envelope_json(&err);
    assert!(v["data"].is_null() && v.get("data").is_some());
    assert_eq!(v["ok"], json!(false));
}

#[test]
fn section_4_inconsistent_json_is_rejected() {
    let meta = r#""meta":{"duration_ms":0,"warnings":[],"pagination":null,"truncated":false}"#;
    let bad = [
        // ok but error set
        format!(
            r#"{{"ok":true,"command":"version","data":"1","error":{{"code":"TIMEOUT","message":"m","retryable":true,"details":null}},{meta}}}"#
        ),
        // failure without error
        format!(r#"{{"ok":false,"command":"version","data":null,"error":null,{meta}}}"#),
        // failure with data
        format!(
            r#"{{"ok":false,"command":"version","data":"1","error":{{"code":"TIMEOUT","message":"m","retryable":true,"details":null}},{meta}}}"#
        ),
        // non-session command with a context
        format!(
            r#"{{"ok":true,"command":"version","context":{{"session_id":"s1"}},"data":"1","error":null,{meta}}}"#
        ),
        // data that does not fit the command
        format!(
            r#"{{"ok":true,"command":"browser title","data":{{"width":1}},"error":null,{meta}}}"#
        ),
        // unknown command
        format!(r#"{{"ok":true,"command":"browser open","data":"1","error":null,{meta}}}"#),
        // unknown error code
        format!(
            r#"{{"ok":false,"command":"version","data":null,"error":{{"code":"NOPE","message":"m","retryable":true,"details":null}},{meta}}}"#
        ),
    ];
    for json in bad {
        assert!(Envelope::from_json(&json).is_err(), "accepted: {json}");
    }
}

#[test]
fn section_5_3_error_text_has_no_header_without_context() {
    let env = Envelope::failure(
        CommandName::Search,
        None,
        ErrorInfo::new(ErrorCode::ApiError, "cannot reach the actionbook api"),
    );
    assert_text(&env, "error API_ERROR: cannot reach the actionbook api");
}

#[test]
fn exit_codes() {
    let ok = Envelope::success(CommandName::Version, None, "1.0.0");
    assert_eq!(ok.exit_code(), EXIT_SUCCESS);
    let usage = Envelope::failure(
        CommandName::BrowserGoto,
        None,
        ErrorInfo::new(ErrorCode::InvalidArgument, "missing --tab"),
    );
    assert_eq!(usage.exit_code(), EXIT_USAGE);
    let timeout = Envelope::failure(
        CommandName::BrowserWaitElement,
        Context::tab("s1", "t1"),
        ErrorInfo::new(ErrorCode::Timeout, "timed out"),
    );
    assert_eq!(timeout.exit_code(), EXIT_FAILURE);
    assert!(timeout.error().unwrap().retryable);
}

#[test]
fn context_mut_updates_url_after_navigation() {
    let mut env = Envelope::success(
        CommandName::BrowserTitle,
        tab_ctx("https://a.test/"),
        PageValueData { value: "B".into() },
    );
    env.context_mut().unwrap().url = Some("https://b.test/".into());
    assert_eq!(env.to_text(), "[research-google t1] https://b.test/\nB\n");
}
