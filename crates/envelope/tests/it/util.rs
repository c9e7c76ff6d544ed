//! Shared helpers: build contexts, compare JSON as values and text as exact lines.

use envelope::{Context, Envelope};
use serde_json::Value;

/// Parses JSON test input.
pub fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("bad test json: {e}\n{s}"))
}

/// `[research-google t1] <url>` context.
pub fn tab_ctx(url: &str) -> Context {
    Context::tab("research-google", "t1").with_url(url)
}

/// `[research-google]` context.
pub fn session_ctx() -> Context {
    Context::session("research-google")
}

/// The envelope's JSON as a value.
pub fn envelope_json(env: &Envelope) -> Value {
    json(&env.to_json())
}

/// Asserts the text output is exactly `want`'s lines, each terminated by `\n`.
pub fn assert_text(env: &Envelope, want: &str) {
    let got = env.to_text();
    assert!(got.ends_with('\n'), "text must end with a newline: {got:?}");
    let got_lines: Vec<&str> = got.split_terminator('\n').collect();
    let want_lines: Vec<&str> = want.split('\n').collect();
    assert_eq!(
        got_lines, want_lines,
        "text output differs\n--- got ---\n{got}"
    );
}

/// Asserts the envelope reads back from its own JSON unchanged.
pub fn assert_round_trip(env: &Envelope) {
    let back = Envelope::from_json(&env.to_json())
        .unwrap_or_else(|e| panic!("round trip failed: {e:?}\n{}", env.to_json()));
    assert_eq!(&back, env);
}

/// The golden check for a spec example that gives `data` and the text output:
/// `data` equals `want_data` as a JSON value, the text is exactly `want_text`, the
/// envelope round-trips, and the section-4 invariants hold.
pub fn golden(env: &Envelope, want_data: &str, want_text: &str) {
    golden_data(env, want_data);
    assert_text(env, want_text);
}

/// [`golden`] for examples that give only `data`.
pub fn golden_data(env: &Envelope, want_data: &str) {
    let got = envelope_json(env);
    assert_eq!(got["data"], json(want_data), "data differs\n{got:#}");
    assert_invariants(&got);
    assert_round_trip(env);
}

/// The section-4 rules on a serialised envelope.
pub fn assert_invariants(v: &Value) {
    let obj = v.as_object().expect("envelope is an object");
    for key in ["ok", "command", "data", "error", "meta"] {
        assert!(obj.contains_key(key), "missing {key}: {v}");
    }
    let ok = v["ok"].as_bool().expect("ok is a bool");
    assert_eq!(ok, v["error"].is_null(), "ok <=> error null: {v}");
    if !ok {
        assert!(v["data"].is_null(), "failure has null data: {v}");
    }
    let meta = v["meta"].as_object().expect("meta is an object");
    for key in ["duration_ms", "warnings", "pagination", "truncated"] {
        assert!(meta.contains_key(key), "meta.{key} missing: {v}");
    }
    let command: envelope::CommandName = v["command"]
        .as_str()
        .expect("command is a string")
        .parse()
        .expect("command is normalised");
    if !command.returns_context() {
        assert!(
            !obj.contains_key("context"),
            "non-session command has context: {v}"
        );
    }
}
