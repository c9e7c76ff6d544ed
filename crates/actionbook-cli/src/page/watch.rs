//! Watching a page for a condition: waking when its document changes (event-driven, with a short
//! poll as the floor for what a main-frame observer cannot see), an element's visibility, and
//! JavaScript truthiness of an evaluated value.

use std::time::Duration;

use cdp_protocol::{Session, runtime};
use serde_json::Value;

use crate::page::eval::EvalValue;

/// The longest a watcher sleeps between two checks: changes in iframes, style changes made
/// without touching the DOM, and timers are noticed within this.
pub(crate) const POLL: Duration = Duration::from_millis(30);

/// Resolves on the first mutation of the main frame's document (or after `ms` in the page, so no
/// observer outlives its watcher for long).
const MUTATION_JS: &str = "new Promise(r => { \
  const o = new MutationObserver(() => { o.disconnect(); r(true); }); \
  o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); \
  setTimeout(() => { o.disconnect(); r(false); }, MS); })";

/// Returns when the main frame's document changes, or after `at_most` (whichever is first; a
/// page that cannot be observed, e.g. while it navigates, just sleeps).
pub(crate) async fn next_change(page: &Session, at_most: Duration) {
    let ms = crate::deadline::page_timer_ms(at_most.saturating_add(Duration::from_millis(50)));
    let evaluate = runtime::Evaluate {
        expression: MUTATION_JS.replace("MS", &ms.to_string()),
        await_promise: Some(true),
        return_by_value: Some(true),
        silent: Some(true),
        ..Default::default()
    };
    let observe = page.send_timeout(&evaluate, at_most);
    let _ = tokio::time::timeout(at_most, async {
        if observe.await.is_err() {
            // Not observable now: do not spin, sleep the rest.
            std::future::pending::<()>().await;
        }
    })
    .await;
}

/// Whether an element is visible (`this` is the element): rendered (`checkVisibility`, which
/// sees `display: none` ancestors and `content-visibility`), not `visibility: hidden`, and with
/// a non-empty box.
pub(crate) const VISIBLE_FN: &str = "function() { \
  if (!this.isConnected) return false; \
  if (typeof this.checkVisibility === 'function' && !this.checkVisibility({visibilityProperty: true})) return false; \
  const r = this.getBoundingClientRect(); return r.width > 0 && r.height > 0; }";

/// JavaScript truthiness of an evaluated value.
pub(crate) fn truthy(v: &EvalValue) -> bool {
    match (v.kind.as_str(), &v.value) {
        ("undefined" | "null", _) => false,
        (_, Value::Bool(b)) => *b,
        ("number", Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        // Unserializable numbers: NaN and -0 are falsy, the infinities truthy.
        ("number", Value::String(s)) => !matches!(s.as_str(), "NaN" | "-0"),
        ("bigint", Value::String(s)) => s != "0n",
        ("string", Value::String(s)) => !s.is_empty(),
        // Objects, functions, symbols.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn value(kind: &str, value: Value) -> EvalValue {
        EvalValue {
            value,
            kind: kind.to_string(),
            preview: String::new(),
        }
    }

    #[test]
    fn truthiness_is_javascripts() {
        let falsy = [
            value("undefined", Value::Null),
            value("null", Value::Null),
            value("boolean", json!(false)),
            value("number", json!(0)),
            value("number", json!(0.0)),
            value("number", json!("NaN")),
            value("number", json!("-0")),
            value("bigint", json!("0n")),
            value("string", json!("")),
        ];
        for v in &falsy {
            assert!(!truthy(v), "{} {}", v.kind, v.value);
        }
        let truthy_ones = [
            value("boolean", json!(true)),
            value("number", json!(-1)),
            value("number", json!("Infinity")),
            value("bigint", json!("1n")),
            value("string", json!("0")),
            value("string", json!("false")),
            value("object", json!({})),
            value("object", json!([])),
            value("function", json!("function f() {}")),
        ];
        for v in &truthy_ones {
            assert!(truthy(v), "{} {}", v.kind, v.value);
        }
    }
}
