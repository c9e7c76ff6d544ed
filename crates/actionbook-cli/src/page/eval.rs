//! Running script in a page: typed reads of small values, `browser eval` with its RemoteObject
//! conversion, and handles on page objects that are released when dropped.

use std::time::Duration;

use cdp_protocol::runtime::{self, ExceptionDetails, RemoteObject};
use cdp_protocol::{CdpError, ErrorKind, RemoteObjectId, Session};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// A handle on a page object (`Runtime.RemoteObjectId`), released when dropped: the renderer keeps
/// an object alive while a handle names it, so a handle that is never released leaks.
#[derive(Debug)]
pub(crate) struct ObjectHandle {
    session: Session,
    object_id: RemoteObjectId,
}

impl ObjectHandle {
    /// Takes ownership of `object_id` (a handle of `session`).
    pub fn new(session: Session, object_id: RemoteObjectId) -> ObjectHandle {
        ObjectHandle { session, object_id }
    }

    /// The session the object lives in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The handle.
    pub fn object_id(&self) -> &RemoteObjectId {
        &self.object_id
    }

    /// Runs `function` with the object as `this` (`arguments` by value) and returns the typed
    /// response, its result by value.
    pub async fn call(
        &self,
        function: &str,
        arguments: Vec<Value>,
        timeout: Duration,
    ) -> std::result::Result<runtime::EvaluateResponse, CdpError> {
        self.session
            .send_timeout(
                &runtime::CallFunctionOn {
                    object_id: Some(self.object_id.clone()),
                    function_declaration: function.to_string(),
                    arguments: Some(
                        arguments
                            .into_iter()
                            .map(|value| runtime::CallArgument {
                                value: Some(value),
                                ..Default::default()
                            })
                            .collect(),
                    ),
                    return_by_value: Some(true),
                    await_promise: Some(false),
                    silent: Some(true),
                    ..Default::default()
                },
                timeout,
            )
            .await
    }

    /// [`ObjectHandle::call`] as a probe: the decoded value, or `None` when anything went wrong.
    pub async fn probe<T: DeserializeOwned>(&self, function: &str) -> Option<T> {
        self.call(function, Vec::new(), deadline::PROBE)
            .await
            .ok()
            .and_then(by_value)
    }
}

impl Drop for ObjectHandle {
    fn drop(&mut self) {
        // Nobody waits for the release: it only frees the object in the renderer.
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let session = self.session.clone();
        let object_id = std::mem::take(&mut self.object_id);
        rt.spawn(async move {
            let _ = session
                .send_timeout(&runtime::ReleaseObject { object_id }, deadline::CLEANUP)
                .await;
        });
    }
}

/// The decoded by-value result of an evaluation; `None` when it threw or does not decode.
fn by_value<T: DeserializeOwned>(r: runtime::EvaluateResponse) -> Option<T> {
    if r.exception_details.is_some() {
        return None;
    }
    serde_json::from_value(r.result.value.unwrap_or(Value::Null)).ok()
}

/// Evaluates a small expression of ours and decodes its by-value result. A throw, or a value of
/// another shape, is an error naming what was read (protocol or page drift never reads as empty).
pub(crate) async fn read<T: DeserializeOwned>(
    page: &Session,
    expression: &str,
    timeout: Duration,
    what: &str,
) -> Result<T> {
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                return_by_value: Some(true),
                ..Default::default()
            },
            timeout,
        )
        .await?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "reading {what} failed in the page: {}",
            first_line(ex.message())
        )));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for {what}: {e}")))
}

/// Evaluates an expression of ours without awaiting it or failing the command (a probe): the
/// decoded value, or `None` when anything went wrong.
pub(crate) async fn probe<T: DeserializeOwned>(page: &Session, expression: &str) -> Option<T> {
    page.send_timeout(
        &runtime::Evaluate {
            expression: expression.to_string(),
            return_by_value: Some(true),
            silent: Some(true),
            ..Default::default()
        },
        deadline::PROBE,
    )
    .await
    .ok()
    .and_then(by_value)
}

/// Evaluates an expression of ours and keeps its result as a handle (`None` for primitives or
/// when anything went wrong).
pub(crate) async fn probe_handle(page: &Session, expression: &str) -> Option<ObjectHandle> {
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                return_by_value: Some(false),
                silent: Some(true),
                ..Default::default()
            },
            deadline::PROBE,
        )
        .await
        .ok()?;
    let id = r.result.object_id?;
    Some(ObjectHandle::new(page.clone(), id))
}

/// `(location.href, document.title)` of a page.
pub(crate) async fn page_info(page: &Session, deadline: &Deadline) -> Result<(String, String)> {
    let cap = deadline
        .remaining()
        .max(deadline::PAGE_INFO_MIN)
        .min(deadline::PAGE_INFO_MAX);
    read(
        page,
        "[location.href, document.title]",
        cap,
        "the URL and title",
    )
    .await
}

/// The result of `browser eval`.
#[derive(Debug, Clone)]
pub(crate) struct EvalValue {
    /// The value (JSON).
    pub value: Value,
    /// Its JavaScript type.
    pub kind: String,
    /// How it prints.
    pub preview: String,
}

/// The object group of `browser eval`'s handles, released together when it is done.
const EVAL_GROUP: &str = "actionbook-eval";

/// Evaluates page script (promises awaited). TIMEOUT terminates the script so the tab stays usable.
pub(crate) async fn evaluate(
    page: &Session,
    code: &str,
    deadline: &Deadline,
    what: &str,
) -> Result<EvalValue> {
    // By reference first: the script runs exactly once, then objects are fetched by value.
    let params = runtime::Evaluate {
        expression: code.to_string(),
        await_promise: Some(true),
        return_by_value: Some(false),
        user_gesture: Some(true),
        object_group: Some(EVAL_GROUP.to_string()),
        ..Default::default()
    };
    let r = match page.send_timeout(&params, deadline.remaining()).await {
        Ok(r) => r,
        Err(e) if e.kind() == ErrorKind::Timeout => {
            let _ = page
                .send_timeout(&runtime::TerminateExecution, deadline::TERMINATE)
                .await;
            return Err(deadline.timeout(what));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(ex) = &r.exception_details {
        // The thrown value is held in the group too.
        release_group(page).await;
        return Err(eval_error(ex));
    }
    let Some(object_id) = r.result.object_id.clone() else {
        return Ok(eval_value(&r.result));
    };
    let obj = &r.result;
    let value = if obj.subtype.as_deref() == Some("node")
        || matches!(obj.r#type.as_str(), "function" | "symbol")
    {
        described(obj)
    } else {
        let by_value = page
            .send_timeout(
                &runtime::CallFunctionOn {
                    object_id: Some(object_id),
                    function_declaration: "function() { return this; }".to_string(),
                    return_by_value: Some(true),
                    ..Default::default()
                },
                deadline.remaining().max(deadline::CLEANUP),
            )
            .await;
        match by_value {
            Ok(v) if v.exception_details.is_none() => eval_value(&v.result),
            // Not serialisable (window, cyclic): describe it.
            _ => described(obj),
        }
    };
    release_group(page).await;
    Ok(value)
}

async fn release_group(page: &Session) {
    let _ = page
        .send_timeout(
            &runtime::ReleaseObjectGroup {
                object_group: EVAL_GROUP.to_string(),
            },
            deadline::CLEANUP,
        )
        .await;
}

/// An object that is not sent by value: its description.
fn described(obj: &RemoteObject) -> EvalValue {
    let d = obj
        .description
        .clone()
        .or_else(|| obj.class_name.clone())
        .unwrap_or_default();
    EvalValue {
        value: Value::String(d.clone()),
        kind: obj.r#type.clone(),
        preview: d,
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// EVAL_FAILED from the script's exception.
pub(crate) fn eval_error(ex: &ExceptionDetails) -> CliError {
    let exception = ex.exception.as_ref();
    let description = exception
        .and_then(|e| e.description.clone())
        .or_else(|| {
            exception
                .and_then(|e| e.value.as_ref())
                .and_then(Value::as_str)
                .map(|s| format!("Uncaught {s}"))
        })
        .or_else(|| Some(ex.text.clone()).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| "script threw".to_string());
    let message = description
        .lines()
        .next()
        .unwrap_or("script threw")
        .to_string();
    CliError::EvalFailed {
        message,
        details: Some(json!({
            "error_type": exception.and_then(|e| e.class_name.clone()),
            "stack": description,
            "line_number": ex.line_number,
            "column_number": ex.column_number,
        })),
    }
}

/// Turns a by-value RemoteObject into `{value, type, preview}`.
pub(crate) fn eval_value(obj: &RemoteObject) -> EvalValue {
    let kind = obj.r#type.as_str();
    if let Some(u) = &obj.unserializable_value {
        return EvalValue {
            value: Value::String(u.clone()),
            kind: kind.to_string(),
            preview: u.clone(),
        };
    }
    match (kind, obj.subtype.as_deref()) {
        ("undefined", _) => EvalValue {
            value: Value::Null,
            kind: "undefined".into(),
            preview: "undefined".into(),
        },
        ("object", Some("null")) => EvalValue {
            value: Value::Null,
            kind: "null".into(),
            preview: "null".into(),
        },
        ("string", _) => {
            let s = obj
                .value
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            EvalValue {
                value: Value::String(s.clone()),
                kind: "string".into(),
                preview: s,
            }
        }
        ("function", _) => {
            let d = obj.description.clone().unwrap_or_default();
            EvalValue {
                value: Value::String(d.clone()),
                kind: "function".into(),
                preview: d,
            }
        }
        _ => {
            let v = obj.value.clone().unwrap_or(Value::Null);
            let preview = serde_json::to_string(&v).unwrap_or_default();
            EvalValue {
                value: v,
                kind: kind.to_string(),
                preview,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(v: Value) -> RemoteObject {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn eval_values() {
        let v = eval_value(&object(
            json!({"type": "number", "value": 3, "description": "3"}),
        ));
        assert_eq!((v.kind.as_str(), v.preview.as_str()), ("number", "3"));
        let v = eval_value(&object(
            json!({"type": "object", "value": {"a": 1, "b": [1, 2]}}),
        ));
        assert_eq!(v.preview, r#"{"a":1,"b":[1,2]}"#);
        let v = eval_value(&object(json!({"type": "string", "value": "Fixture Home"})));
        assert_eq!(v.preview, "Fixture Home");
        let v = eval_value(&object(json!({"type": "undefined"})));
        assert_eq!(
            (v.kind.as_str(), v.value.clone()),
            ("undefined", Value::Null)
        );
        let v = eval_value(&object(
            json!({"type": "number", "unserializableValue": "NaN"}),
        ));
        assert_eq!(v.preview, "NaN");
        let v = eval_value(&object(
            json!({"type": "object", "subtype": "null", "value": null}),
        ));
        assert_eq!(v.kind, "null");
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
}
