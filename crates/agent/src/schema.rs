//! Checking `extract`'s JSON against the user's JSON Schema: the keywords a data schema uses
//! (`type`, `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const`,
//! `minItems`/`maxItems`, `minimum`/`maximum`, `anyOf`/`oneOf`); others are not checked (the
//! model was sent the whole schema).

use serde_json::Value;

/// What in `value` does not match `schema`, one line each (`$.rows[2].price: expected number`).
pub fn problems(schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, value, "$", &mut out);
    out
}

fn type_fits(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn check(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        return;
    };
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !types.is_empty() && !types.iter().any(|t| type_fits(t, value)) {
            out.push(format!("{at}: expected {}", types.join(" or ")));
            return;
        }
    }
    if let Some(options) = s.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        out.push(format!(
            "{at}: not one of {}",
            Value::Array(options.clone())
        ));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        out.push(format!("{at}: expected {c}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = s.get(key).and_then(Value::as_array)
            && !options.iter().any(|o| problems(o, value).is_empty())
        {
            out.push(format!("{at}: matches none of {key}"));
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            out.push(format!("{at}: below the minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            out.push(format!("{at}: above the maximum {max}"));
        }
    }
    if let Some(obj) = value.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for name in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !obj.contains_key(name) {
                out.push(format!("{at}: missing {name}"));
            }
        }
        for (k, v) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(sub) => check(sub, v, &format!("{at}.{k}"), out),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{at}: {k} is not allowed"));
                }
                None => {}
            }
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(sub) = s.get("items") {
            for (i, v) in items.iter().enumerate() {
                check(sub, v, &format!("{at}[{i}]"), out);
            }
        }
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            out.push(format!("{at}: fewer than {min} items"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && (items.len() as u64) > max
        {
            out.push(format!("{at}: more than {max} items"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_what_does_not_match() {
        let schema = json!({
            "type": "object",
            "required": ["rows"],
            "additionalProperties": false,
            "properties": {
                "rows": { "type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["name", "price"],
                    "properties": { "name": { "type": "string" }, "price": { "type": "number", "minimum": 0 },
                                    "unit": { "enum": ["kg", "each"] } } } }
            }
        });
        assert!(problems(&schema, &json!({"rows": [{"name": "a", "price": 1.5}]})).is_empty());
        assert_eq!(
            problems(
                &schema,
                &json!({"rows": [{"name": "a", "price": "1"}, {"price": -1, "unit": "lb"}], "x": 1})
            ),
            vec![
                "$.rows[0].price: expected number",
                "$.rows[1]: missing name",
                "$.rows[1].price: below the minimum 0",
                "$.rows[1].unit: not one of [\"kg\",\"each\"]",
                "$: x is not allowed",
            ]
        );
        assert_eq!(problems(&schema, &json!([])), vec!["$: expected object"]);
        assert_eq!(
            problems(&json!({"type": "integer"}), &json!(2.5)),
            vec!["$: expected integer"]
        );
    }
}
