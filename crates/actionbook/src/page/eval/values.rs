//! Eval values as the reply carries them: RemoteObjects into `{value, type, preview}`, numbers
//! and JSON as JavaScript prints them, values over the reply limit cut.

use super::*;

/// Turns a by-value RemoteObject into `{value, type, preview}`.
pub(crate) fn eval_value(mut obj: RemoteObject) -> EvalValue {
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
            let s = match obj.value.take() {
                Some(Value::String(s)) => s,
                _ => String::new(),
            };
            // A string past the limit is cut by `reportable`, which makes its preview anew: no
            // second whole copy of a value that may be hundreds of MB.
            let mut end = s.len().min(EVAL_VALUE_LIMIT);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            EvalValue {
                preview: s[..end].to_string(),
                value: Value::String(s),
                kind: "string".into(),
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
            let v = obj.value.take().unwrap_or(Value::Null);
            let preview = js_json(&v);
            EvalValue {
                value: v,
                kind: kind.to_string(),
                preview,
            }
        }
    }
}

/// An eval value made fit for a reply, as `browser eval` reports it: the value (cut past
/// [`EVAL_VALUE_LIMIT`] bytes), whether anything of it was left out (here or in the page), and
/// warnings that say what.
pub(crate) fn reportable(v: EvalValue, page_cut: PageCut) -> (EvalValue, bool, Vec<String>) {
    // The page already stopped at about the limit (page_cut.size): the size is a lower bound.
    let cut = cut_value(&v, EVAL_VALUE_LIMIT);
    let mut warnings = Vec::new();
    if page_cut.depth {
        warnings.push(format!(
            "objects nested deeper than {EVAL_VALUE_DEPTH} levels are given as their type in \
             brackets (\"[Object]\"); return the part you need"
        ));
    }
    let truncated = cut.is_some() || page_cut.size || page_cut.depth;
    let v = match cut {
        Some((cut, bytes)) => {
            warnings.push(format!(
                "the value ({}{bytes} bytes{}) was cut to its first {} bytes; return the part \
                 you need",
                if page_cut.size { "over " } else { "" },
                if v.value.is_string() {
                    ""
                } else {
                    " of JSON, given as a string"
                },
                cut.value.as_str().map_or(0, str::len),
            ));
            cut
        }
        None => {
            if page_cut.size {
                warnings.push(format!(
                    "the value was cut at about {EVAL_VALUE_LIMIT} bytes of JSON (the rest is \
                     left out); return the part you need"
                ));
            }
            v
        }
    };
    (v, truncated, warnings)
}

/// A number as JavaScript prints it (`12345678901234567000`, `1e+21`, `1e-7`), not as JSON
/// writers do (`1.2345678901234567e19`).
pub(super) fn js_number(n: f64) -> String {
    let a = n.abs();
    if a == 0.0 {
        // `String(-0)` is "0".
        "0".to_string()
    } else if a >= 1e21 || (a != 0.0 && a < 1e-6) {
        let e = format!("{n:e}");
        // JavaScript writes the exponent's sign: `1e+21`.
        match e.split_once('e') {
            Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
            _ => e,
        }
    } else {
        format!("{n}")
    }
}

/// Compact JSON text with numbers as JavaScript prints them (`{"n":12345678901234567000}`).
pub(super) fn js_json(v: &Value) -> String {
    pub(super) fn write(v: &Value, out: &mut String) {
        match v {
            Value::Number(n) if n.is_f64() => {
                out.push_str(&n.as_f64().map(js_number).unwrap_or_default())
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, x)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push(':');
                    write(x, out);
                }
                out.push('}');
            }
            other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// The most of an eval value a reply carries, in bytes (of the string, or of the JSON text of
/// any other value): far below the IPC frame limit, so that a huge value (a 40 MB string) is cut
/// and answered rather than failing the reply.
pub(crate) const EVAL_VALUE_LIMIT: usize = 1 << 20;
/// How long the preview of a cut value is, in characters.
pub(super) const CUT_PREVIEW_CHARS: usize = 200;

/// A value over `limit` bytes ([`EVAL_VALUE_LIMIT`]) cut to its first `limit` bytes: a string's
/// own text, or any other value's JSON text (as a string), with a short preview; `None` when it
/// fits. The second item is the size it had.
pub(crate) fn cut_value(v: &EvalValue, limit: usize) -> Option<(EvalValue, usize)> {
    let text = match &v.value {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(serde_json::to_string(other).ok()?),
    };
    if text.len() <= limit {
        return None;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let preview: String = kept.chars().take(CUT_PREVIEW_CHARS).collect();
    Some((
        EvalValue {
            value: Value::String(kept.to_string()),
            kind: v.kind.clone(),
            preview: format!("{preview}\u{2026}"),
        },
        text.len(),
    ))
}
