//! JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, UTF-8; requests carry
//! an `id` and get exactly one response, notifications carry none and get none.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Invalid JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// Not a valid request object.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// Bad parameters (also MCP's code for an unknown tool or cursor).
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// A bug on our side.
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RpcError {
    /// One of the codes above.
    pub code: i64,
    /// What went wrong.
    pub message: String,
}

impl RpcError {
    /// An error with `code`.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

/// One message read from the client.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request: answer it.
    Request {
        /// Its id, echoed in the response (a string or a number).
        id: Value,
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A notification: never answered.
    Notification {
        /// The method.
        method: String,
        /// Its params (`null` when absent).
        params: Value,
    },
    /// A response to a request of ours (we send none) or an empty line: ignored.
    Ignored,
    /// Not a valid message: answered with this error (id `null` when none could be read).
    Invalid {
        /// The id, when one could be read.
        id: Value,
        /// The error.
        error: RpcError,
    },
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    jsonrpc: Option<String>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<Value>,
    #[serde(default)]
    params: Option<Value>,
}

/// Reads one line.
pub(crate) fn parse(line: &[u8]) -> Incoming {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Incoming::Ignored;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("parse error: {e}")),
            };
        }
    };
    let invalid = |id: Value, why: &str| Incoming::Invalid {
        id,
        error: RpcError::new(INVALID_REQUEST, format!("invalid request: {why}")),
    };
    if value.is_array() {
        // Batches were removed from MCP in revision 2025-06-18.
        return invalid(Value::Null, "JSON-RPC batches are not supported");
    }
    // `"id": null` is not a notification (that has no id at all): MCP forbids null ids, and
    // JSON-RPC answers such a request, so it must not be left waiting.
    let null_id = value.get("id").is_some_and(Value::is_null);
    let Ok(m) = serde_json::from_value::<Message>(value) else {
        return invalid(Value::Null, "not a JSON-RPC message object");
    };
    let id = m.id.unwrap_or(Value::Null);
    let id_ok = matches!(id, Value::String(_) | Value::Number(_));
    if m.jsonrpc.as_deref() != Some("2.0") {
        return invalid(
            if id_ok { id } else { Value::Null },
            "jsonrpc must be \"2.0\"",
        );
    }
    let method = match m.method {
        Some(Value::String(s)) => s,
        Some(_) => {
            return invalid(
                if id_ok { id } else { Value::Null },
                "method must be a string",
            );
        }
        // A response (result or error) to a request we never send.
        None => return Incoming::Ignored,
    };
    match id {
        Value::Null if null_id => invalid(Value::Null, "id must be a string or a number, not null"),
        Value::Null => Incoming::Notification {
            method,
            params: m.params.unwrap_or(Value::Null),
        },
        id if id_ok => Incoming::Request {
            id,
            method,
            params: m.params.unwrap_or(Value::Null),
        },
        _ => invalid(Value::Null, "id must be a string or a number"),
    }
}

#[derive(Serialize)]
struct Success<'a, T: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: T,
}

#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: &'a RpcError,
}

/// The response line of a request that succeeded (no trailing newline).
pub(crate) fn success_line(id: &Value, result: impl Serialize) -> String {
    let line = serde_json::to_string(&Success {
        jsonrpc: "2.0",
        id,
        result,
    });
    line.unwrap_or_else(|e| {
        error_line(
            id,
            &RpcError::new(INTERNAL_ERROR, format!("cannot serialise the result: {e}")),
        )
    })
}

/// The response line of a request that failed (no trailing newline).
pub(crate) fn error_line(id: &Value, error: &RpcError) -> String {
    serde_json::to_string(&Failure {
        jsonrpc: "2.0",
        id,
        error,
    })
    .unwrap_or_else(|_| {
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_requests_notifications_and_bad_lines() {
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Incoming::Request {
                id: json!(7),
                method: "ping".into(),
                params: Value::Null
            }
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification {
                method: "notifications/initialized".into(),
                params: Value::Null
            }
        );
        assert_eq!(parse(b"  \r"), Incoming::Ignored);
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::Ignored
        );
        let code = |m: Incoming| match m {
            Incoming::Invalid { id, error } => (id, error.code),
            other => panic!("{other:?}"),
        };
        assert_eq!(code(parse(b"{nope")), (Value::Null, PARSE_ERROR));
        assert_eq!(code(parse(b"[]")), (Value::Null, INVALID_REQUEST));
        assert_eq!(
            code(parse(br#"{"id":"a","method":"ping"}"#)),
            (json!("a"), INVALID_REQUEST)
        );
        assert_eq!(
            code(parse(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#)),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(code(parse(b"\xff\xfe")), (Value::Null, PARSE_ERROR));
        assert_eq!(
            code(parse(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)),
            (Value::Null, INVALID_REQUEST)
        );
        // A response with a null id (an error about an unreadable message of ours): not answered.
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            Incoming::Ignored
        );
    }

    #[test]
    fn responses_echo_the_id() {
        assert_eq!(
            success_line(&json!("x"), json!({})),
            r#"{"jsonrpc":"2.0","id":"x","result":{}}"#
        );
        assert_eq!(
            error_line(&json!(3), &RpcError::new(METHOD_NOT_FOUND, "no")),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#
        );
    }

    proptest::proptest! {
        #[test]
        fn no_line_panics_and_every_request_keeps_its_id(s in "\\PC{0,80}", id in 0i64..1_000_000) {
            let _ = parse(s.as_bytes());
            let line = json!({"jsonrpc": "2.0", "id": id, "method": s, "params": {}}).to_string();
            let parsed = parse(line.as_bytes());
            let kept = matches!(parsed, Incoming::Request { id: ref got, .. } if *got == json!(id));
            proptest::prop_assert!(kept, "{:?}", parsed);
        }
    }
}
