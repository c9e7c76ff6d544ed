//! Building the response: the envelope (JSON) and the fixed text format.
//!
//! Handlers return typed data implementing [`TextBody`]; [`Reply`] turns it into both forms at once so
//! the client only prints.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::CliError;

/// The `context` object of session- and tab-level commands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Context {
    /// The session.
    pub session_id: String,
    /// The tab, for tab-level commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
    /// The window, in multi-window scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    /// The tab's URL when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The tab's title when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Context {
    /// A session-level context.
    pub fn session(session_id: &str) -> Self {
        Context {
            session_id: session_id.to_string(),
            ..Context::default()
        }
    }

    /// A tab-level context without url/title.
    pub fn tab(session_id: &str, tab_id: &str) -> Self {
        Context {
            session_id: session_id.to_string(),
            tab_id: Some(tab_id.to_string()),
            ..Context::default()
        }
    }

    /// The text header line: `[sid]`, `[sid tid]` or `[sid tid] url`.
    pub fn header(&self) -> String {
        match (&self.tab_id, &self.url) {
            (Some(t), Some(u)) => format!("[{} {}] {}", self.session_id, t, u),
            (Some(t), None) => format!("[{} {}]", self.session_id, t),
            _ => format!("[{}]", self.session_id),
        }
    }
}

/// `error` of a failed envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// Machine code, e.g. `ELEMENT_NOT_FOUND`.
    pub code: String,
    /// Human-readable message.
    pub message: String,
    /// Whether a retry may succeed.
    pub retryable: bool,
    /// Structured details, or null.
    pub details: Option<Value>,
}

/// `meta` of every envelope.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// Wall time of the command.
    pub duration_ms: u64,
    /// Non-fatal warnings.
    pub warnings: Vec<String>,
    /// Pagination, when a command pages.
    pub pagination: Option<Value>,
    /// Whether the data was truncated.
    pub truncated: bool,
}

/// The unified response `{ok, command, context, data, error, meta}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Whether the command succeeded.
    pub ok: bool,
    /// Normalised command name, e.g. `browser goto`.
    pub command: String,
    /// Session/tab context; omitted for non-session commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// The command's data; null on failure.
    pub data: Value,
    /// The error; null on success.
    pub error: Option<ErrorBody>,
    /// Metadata.
    pub meta: Meta,
}

/// The text body of a command's data (everything after the header line).
pub trait TextBody {
    /// Appends the body lines (no trailing newline needed).
    fn text_body(&self, command: &str, out: &mut Vec<String>);
}

/// A finished command: the envelope plus its text rendering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The JSON envelope.
    pub envelope: Envelope,
    /// The complete text output (header and body), without a trailing newline.
    pub text: String,
}

impl Reply {
    /// A success.
    pub fn success<D: Serialize + TextBody>(
        command: &str,
        context: Option<Context>,
        data: &D,
        warnings: Vec<String>,
    ) -> Reply {
        let mut lines = Vec::new();
        if let Some(cx) = &context {
            lines.push(cx.header());
        }
        data.text_body(command, &mut lines);
        for w in &warnings {
            lines.push(format!("warning: {w}"));
        }
        let data = match serde_json::to_value(data) {
            Ok(v) => v,
            Err(e) => {
                return Reply::failure(
                    command,
                    context,
                    &CliError::internal(format!("cannot encode data: {e}")),
                );
            }
        };
        Reply {
            envelope: Envelope {
                ok: true,
                command: command.to_string(),
                context,
                data,
                error: None,
                meta: Meta {
                    warnings,
                    ..Meta::default()
                },
            },
            text: lines.join("\n"),
        }
    }

    /// A failure.
    pub fn failure(command: &str, context: Option<Context>, err: &CliError) -> Reply {
        Reply::failure_parts(
            command,
            context,
            err.code(),
            &err.to_string(),
            err.retryable(),
            err.details(),
        )
    }

    /// A failure from its parts (used for usage errors that never reach the engine).
    pub fn failure_parts(
        command: &str,
        context: Option<Context>,
        code: &str,
        message: &str,
        retryable: bool,
        details: Option<Value>,
    ) -> Reply {
        let mut lines = Vec::new();
        if let Some(cx) = &context {
            lines.push(cx.header());
        }
        lines.push(format!("error {code}: {message}"));
        Reply {
            envelope: Envelope {
                ok: false,
                command: command.to_string(),
                context,
                data: Value::Null,
                error: Some(ErrorBody {
                    code: code.to_string(),
                    message: message.to_string(),
                    retryable,
                    details,
                }),
                meta: Meta::default(),
            },
            text: lines.join("\n"),
        }
    }

    /// Sets `meta.duration_ms`.
    pub fn with_duration(mut self, ms: u64) -> Reply {
        self.envelope.meta.duration_ms = ms;
        self
    }

    /// The process exit code for this reply (0 ok, 1 command error).
    pub fn exit_code(&self) -> u8 {
        if self.envelope.ok { 0 } else { 1 }
    }
}

/// A plain string (help, version): the text is the string itself.
impl TextBody for String {
    fn text_body(&self, _command: &str, out: &mut Vec<String>) {
        out.push(self.clone());
    }
}

/// Helper for the common action body: `ok <command>` then `key: value` lines.
pub(crate) fn ok_lines(command: &str, out: &mut Vec<String>, fields: &[(&str, String)]) {
    out.push(format!("ok {command}"));
    for (k, v) in fields {
        out.push(format!("{k}: {v}"));
    }
}

/// `1 tab` / `2 tabs`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let mut cx = Context::tab("s1", "t1");
        assert_eq!(cx.header(), "[s1 t1]");
        cx.url = Some("http://a/".into());
        assert_eq!(cx.header(), "[s1 t1] http://a/");
        assert_eq!(Context::session("s1").header(), "[s1]");
    }

    #[test]
    fn failure_envelope_has_null_data_and_error() {
        let r = Reply::failure(
            "browser click",
            Some(Context::tab("s1", "t1")),
            &CliError::ElementNotFound {
                selector: "#x".into(),
            },
        );
        let v = serde_json::to_value(&r.envelope).unwrap_or_default();
        assert_eq!(v["ok"], false);
        assert_eq!(v["data"], Value::Null);
        assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND");
        assert_eq!(
            r.text,
            "[s1 t1]\nerror ELEMENT_NOT_FOUND: element not found: #x"
        );
    }

    #[test]
    fn non_session_envelope_omits_context() {
        let r = Reply::success("help", None, &"hi".to_string(), vec![]);
        let v = serde_json::to_value(&r.envelope).unwrap_or_default();
        assert!(v.get("context").is_none());
        assert_eq!(v["data"], "hi");
        assert_eq!(r.text, "hi");
    }
}
