//! Variables: `--var name=value` (or a file of such lines), written `<<name>>` in instructions.
//! The model only ever sees `<<name>>`; the value goes into the action at the moment it runs,
//! and every text the agent layer gives back (answers, errors, cache, trace) has the values
//! masked again.

use std::collections::BTreeMap;

use crate::error::{AgentError, Result};

/// The variables of one command.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Variables {
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for Variables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: values are secrets.
        f.debug_list().entries(self.values.keys()).finish()
    }
}

/// A name is letters, digits, `_` and `-` (so `<<name>>` cannot swallow other text).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Variables {
    /// The variables of `--var name=value` items, then the lines of `--var-file` contents
    /// (blank lines and `#` comments skipped); a later one of a name wins.
    pub fn parse(items: &[String], files: &[String]) -> Result<Variables> {
        let mut values = BTreeMap::new();
        let lines = files.iter().flat_map(|f| {
            f.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        });
        for item in items.iter().cloned().chain(lines) {
            let Some((name, value)) = item.split_once('=') else {
                return Err(AgentError::BadArguments(format!(
                    "--var {:?}: write name=value",
                    item.split('=').next().unwrap_or_default()
                )));
            };
            let name = name.trim();
            if !valid_name(name) {
                return Err(AgentError::BadArguments(format!(
                    "--var: {name:?} is no variable name (letters, digits, _ and -)"
                )));
            }
            values.insert(name.to_string(), value.to_string());
        }
        Ok(Variables { values })
    }

    /// The names, for the model's prompt.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every `<<name>>` of a known variable replaced by its value (unknown names
    /// stay as written: a page may legitimately contain `<<x>>`).
    pub fn substitute(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.values {
            out = out.replace(&format!("<<{name}>>"), value);
        }
        out
    }

    /// `text` with every value written back as `<<name>>` (longest values first, so a value
    /// that contains another is masked whole). Empty values are left: they mask nothing.
    /// A value is masked as written and as a URL carries it (`%20` and `+` encodings), so a page
    /// that puts it in its address does not leak it through the URL sent with the snapshot.
    pub fn mask(&self, text: &str) -> String {
        let mut pairs: Vec<(String, &String)> = self
            .values
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .flat_map(|(name, v)| {
                let form: String = url::form_urlencoded::byte_serialize(v.as_bytes()).collect();
                let mut forms = vec![v.clone(), form.clone(), form.replace('+', "%20")];
                forms.dedup();
                forms.into_iter().map(move |f| (f, name))
            })
            .collect();
        pairs.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        let mut out = text.to_string();
        for (value, name) in pairs {
            out = out.replace(value.as_str(), &format!("<<{name}>>"));
        }
        out
    }

    /// `value` (any JSON) with every string masked.
    pub fn mask_json(&self, value: &serde_json::Value) -> serde_json::Value {
        map_strings(value, &|s| self.mask(s))
    }

    /// An envelope error with the values masked in its message, hint and details.
    pub fn mask_info(&self, mut info: envelope::ErrorInfo) -> envelope::ErrorInfo {
        info.message = self.mask(&info.message);
        info.hint = info.hint.map(|h| self.mask(&h));
        info.details = info.details.map(|d| self.mask_json(&d));
        info
    }

    /// `value` (any JSON) with every string's `<<name>>`s replaced by their values.
    pub fn substitute_json(&self, value: &serde_json::Value) -> serde_json::Value {
        map_strings(value, &|s| self.substitute(s))
    }
}

/// `value` with `f` applied to every string in it (keys stay).
fn map_strings(value: &serde_json::Value, f: &dyn Fn(&str) -> String) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(a) => Value::Array(a.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), map_strings(v, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitutes_and_masks_back() -> Result<()> {
        let vars = Variables::parse(
            &["pw=hunter2".into(), "user=ada".into()],
            &["# comment\n\ncity=Miami\n".into()],
        )?;
        assert_eq!(
            vars.substitute("log in as <<user>> with <<pw>> in <<city>>, not <<other>>"),
            "log in as ada with hunter2 in Miami, not <<other>>"
        );
        assert_eq!(
            vars.mask("typed hunter2 for ada"),
            "typed <<pw>> for <<user>>"
        );
        assert_eq!(format!("{vars:?}"), r#"["city", "pw", "user"]"#);
        assert!(Variables::parse(&["nope".into()], &[]).is_err());
        assert!(Variables::parse(&["a b=1".into()], &[]).is_err());
        Ok(())
    }

    #[test]
    fn a_value_inside_another_is_masked_whole() -> Result<()> {
        let vars = Variables::parse(&["a=abc".into(), "b=abcdef".into()], &[])?;
        assert_eq!(vars.mask("x abcdef y abc"), "x <<b>> y <<a>>");
        let json = serde_json::json!({"v": ["abc", 1]});
        assert_eq!(
            vars.mask_json(&json),
            serde_json::json!({"v": ["<<a>>", 1]})
        );
        Ok(())
    }

    #[test]
    fn a_value_in_a_url_is_masked_in_its_encodings() -> Result<()> {
        let vars = Variables::parse(&["city=New Orleans & Co".into()], &[])?;
        assert_eq!(
            vars.mask("/r?to=New%20Orleans%20%26%20Co&b=New+Orleans+%26+Co and New Orleans & Co"),
            "/r?to=<<city>>&b=<<city>> and <<city>>"
        );
        Ok(())
    }
}
