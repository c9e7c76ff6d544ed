//! Unit tests of `browser eval`'s conversions and errors.

use super::*;

fn object(v: Value) -> RemoteObject {
    serde_json::from_value(v).unwrap_or_default()
}

#[test]
fn huge_values_are_cut_at_a_char_boundary_with_a_short_preview() {
    let small = eval_value(object(json!({"type": "string", "value": "abc"})));
    assert!(cut_value(&small, 3).is_none());
    let big = eval_value(object(json!({"type": "string", "value": "ab\u{e9}cd"})));
    // "é" is two bytes: a cut at 3 would split it.
    let (cut, len) = cut_value(&big, 3).expect("cut");
    assert_eq!((cut.value, len), (json!("ab"), 6));
    assert_eq!(
        (cut.kind.as_str(), cut.preview.as_str()),
        ("string", "ab\u{2026}")
    );
    let obj = eval_value(object(
        json!({"type": "object", "value": {"a": "x".repeat(500)}}),
    ));
    let (cut, len) = cut_value(&obj, 100).expect("cut");
    assert_eq!(cut.value.as_str().map(str::len), Some(100));
    assert!(
        cut.value
            .as_str()
            .is_some_and(|s| s.starts_with("{\"a\":\"xx"))
    );
    assert_eq!((cut.kind.as_str(), len), ("object", 508));
    assert_eq!(cut.preview.chars().count(), 101);
}

#[test]
fn truthiness_of_values_as_the_page_gives_them() {
    let v = |o: Value| eval_value(object(o));
    for (o, want) in [
        (json!({"type": "undefined"}), false),
        (
            json!({"type": "object", "subtype": "null", "value": null}),
            false,
        ),
        (json!({"type": "boolean", "value": false}), false),
        (json!({"type": "boolean", "value": true}), true),
        (json!({"type": "number", "value": 0}), false),
        (json!({"type": "number", "value": 0.5}), true),
        (
            json!({"type": "number", "unserializableValue": "NaN"}),
            false,
        ),
        (
            json!({"type": "number", "unserializableValue": "-0"}),
            false,
        ),
        (
            json!({"type": "number", "unserializableValue": "-Infinity"}),
            true,
        ),
        (
            json!({"type": "bigint", "unserializableValue": "0n"}),
            false,
        ),
        (json!({"type": "bigint", "unserializableValue": "2n"}), true),
        (json!({"type": "string", "value": ""}), false),
        (json!({"type": "string", "value": "0"}), true),
        (json!({"type": "object", "value": []}), true),
    ] {
        assert_eq!(truthy(&v(o.clone())), want, "{o}");
    }
}

#[test]
fn eval_values() {
    let v = eval_value(object(
        json!({"type": "number", "value": 3, "description": "3"}),
    ));
    assert_eq!((v.kind.as_str(), v.preview.as_str()), ("number", "3"));
    let v = eval_value(object(
        json!({"type": "object", "value": {"a": 1, "b": [1, 2]}}),
    ));
    assert_eq!(v.preview, r#"{"a":1,"b":[1,2]}"#);
    let v = eval_value(object(json!({"type": "string", "value": "Fixture Home"})));
    assert_eq!(v.preview, "Fixture Home");
    let v = eval_value(object(json!({"type": "undefined"})));
    assert_eq!(
        (v.kind.as_str(), v.value.clone()),
        ("undefined", Value::Null)
    );
    let v = eval_value(object(
        json!({"type": "number", "unserializableValue": "NaN"}),
    ));
    assert_eq!(v.preview, "NaN");
    let v = eval_value(object(
        json!({"type": "object", "subtype": "null", "value": null}),
    ));
    assert_eq!(v.kind, "null");
    // Numbers print as JavaScript prints them.
    let v = eval_value(object(
        json!({"type": "number", "value": 12345678901234567890.0_f64}),
    ));
    assert_eq!(v.preview, "12345678901234567000");
    for (n, js) in [
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (0.1, "0.1"),
        (2.5, "2.5"),
        (-0.0, "0"),
    ] {
        assert_eq!(js_number(n), js);
    }
    // Inside an object too (the preview, which text output prints).
    let v = eval_value(object(
        json!({"type": "object", "value": {"n": 12345678901234567890.0_f64, "a": [1, "x\"", null, true, 1e21]}}),
    ));
    assert_eq!(
        v.preview,
        r#"{"a":[1,"x\"",null,true,1e+21],"n":12345678901234567000}"#
    );
}

#[test]
fn user_errors_name_their_kind_and_line() {
    let ex: ExceptionDetails = serde_json::from_value(json!({
        "text": "Uncaught", "lineNumber": 0, "columnNumber": 0,
        "exception": {"type": "object", "className": "Error", "description": "Error: boom\n    at <anonymous>:3:7"}
    }))
    .unwrap_or_default();
    let e = user_error(&ex);
    let d = e.details().unwrap_or_default();
    assert_eq!(
        (d["kind"].as_str(), d["line"].as_i64()),
        (Some("runtime"), Some(2)),
        "{d}"
    );
    assert_eq!(e.to_string(), "Error: boom (line 2)");
    let ex: ExceptionDetails = serde_json::from_value(json!({
        "text": "Uncaught", "lineNumber": 1, "columnNumber": 7,
        "exception": {"type": "object", "className": "SyntaxError", "description": "SyntaxError: Unexpected identifier 'error'"}
    }))
    .unwrap_or_default();
    let d = user_error(&ex).details().unwrap_or_default();
    assert_eq!(
        (d["kind"].as_str(), d["line"].as_i64()),
        (Some("syntax"), Some(1)),
        "{d}"
    );
    assert_eq!(stack_line("x\n at <anonymous>:12:40"), Some((11, 40)));
    // The stack numbers lines as the user's code does.
    assert_eq!(
        user_stack("Error: boom\n    at f (<anonymous>:3:9)\n    at <anonymous>:2:7"),
        "Error: boom\n    at f (<anonymous>:2:9)\n    at <anonymous>:1:7"
    );
    assert_eq!(user_stack("no frames"), "no frames");
    assert_eq!(user_stack("at <anonymous>:x"), "at <anonymous>:x");
    assert_eq!(user_script_with("", "1"), "{\n1\n}");
    assert_eq!(user_script_with("let a;", "1"), "{ let a; {\n1\n}}");
}

#[test]
fn eval_error_uses_first_line() {
    let ex: ExceptionDetails = serde_json::from_value(json!({
        "text": "Uncaught",
        "lineNumber": 0,
        "columnNumber": 6,
        "exception": {"type": "object", "className": "Error", "description": "Error: boom\n    at <anonymous>:1:7"}
    }))
    .unwrap_or_default();
    let e = eval_error(&ex);
    assert_eq!(e.to_string(), "Error: boom");
    assert_eq!(e.code(), envelope::ErrorCode::EvalFailed);
    let ex: ExceptionDetails = serde_json::from_value(json!({
        "text": "Uncaught",
        "exception": {"type": "string", "value": "plain"}
    }))
    .unwrap_or_default();
    assert_eq!(eval_error(&ex).to_string(), "Uncaught plain");
}
