//! Secrets: named values written `<<name>>` where text is typed (`fill`, `type`, `select`), put in
//! at the moment the command runs and masked back to `<<name>>` in everything the engine answers
//! or writes. The same syntax and name rules as the agent layer's variables, which are made of
//! this type.
//!
//! A session's secrets come from `browser start --secret name=value` / `--secrets-file` (kept in
//! the engine's memory only: never in the session record, gone when the daemon restarts), from
//! `browser secret set`, and from the caller's `ACTIONBOOK_SECRET_<NAME>` variables (the name
//! lower-cased), carried with each request in [`crate::ClientEnv::secrets`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The environment variables whose values are secrets: `ACTIONBOOK_SECRET_PW` is `<<pw>>`.
pub const SECRET_ENV_PREFIX: &str = "ACTIONBOOK_SECRET_";

/// Named secret values. `Debug` shows the names only.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct Secrets {
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.values.keys()).finish()
    }
}

/// One `name=value` as given on a command line: `Debug` hides the value, so the request's debug
/// form never shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct SecretArg(pub String);

impl std::fmt::Debug for SecretArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.0.split('=').next().unwrap_or_default();
        write!(f, "{name}=<<{name}>>")
    }
}

impl std::str::FromStr for SecretArg {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(SecretArg(s.to_string()))
    }
}

/// A name is letters, digits, `_` and `-` (so `<<name>>` cannot swallow other text).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Why a `<<name>>` could not be put in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSecret(pub String);

impl Secrets {
    /// The secrets of `name=value` items, then of the lines of files' contents (blank lines and
    /// `#` comments skipped); a later one of a name wins. The error names the item, not its value.
    pub fn parse(items: &[String], files: &[String]) -> Result<Secrets, String> {
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
                // The item is not echoed: it may be the value itself.
                return Err("a secret is written name=value (one has no `=`)".into());
            };
            let name = name.trim();
            if !valid_name(name) {
                return Err(format!(
                    "{name:?} is no secret name (letters, digits, _ and -)"
                ));
            }
            values.insert(name.to_string(), value.to_string());
        }
        Ok(Secrets { values })
    }

    /// The secrets of `ACTIONBOOK_SECRET_<NAME>` variables among `vars`, named `<name>`
    /// lower-cased (`ACTIONBOOK_SECRET_PW` is `<<pw>>`); other names are skipped.
    pub fn from_env_vars(vars: impl IntoIterator<Item = (String, String)>) -> Secrets {
        let values = vars
            .into_iter()
            .filter_map(|(k, v)| {
                let name = k.strip_prefix(SECRET_ENV_PREFIX)?.to_ascii_lowercase();
                valid_name(&name).then_some((name, v))
            })
            .collect();
        Secrets { values }
    }

    /// Adds (or replaces) one secret.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values.insert(name.into(), value.into());
    }

    /// These secrets with `other`'s added (`other` wins on a name).
    #[must_use]
    pub fn merged(&self, other: &Secrets) -> Secrets {
        let mut values = self.values.clone();
        values.extend(other.values.iter().map(|(k, v)| (k.clone(), v.clone())));
        Secrets { values }
    }

    /// The names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every `<<name>>` of a known secret replaced by its value; unknown names stay
    /// as written (the agent layer's variables: a page may legitimately contain `<<x>>`).
    pub fn substitute(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.values {
            out = out.replace(&format!("<<{name}>>"), value);
        }
        out
    }

    /// `text` with every `<<name>>` replaced by its value; a `<<name>>` (of a valid name) that is
    /// not a known secret is an error naming it, never typed as written.
    pub fn resolve(&self, text: &str) -> Result<String, UnknownSecret> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("<<") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            match after.find(">>").map(|end| &after[..end]) {
                Some(name) if valid_name(name) => {
                    let value = self
                        .values
                        .get(name)
                        .ok_or_else(|| UnknownSecret(name.to_string()))?;
                    out.push_str(value);
                    rest = &after[name.len() + 2..];
                }
                _ => {
                    out.push_str("<<");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// `text` with every value written back as `<<name>>` (longest values first, so a value
    /// that contains another is masked whole). Empty values are left: they mask nothing.
    /// A value is masked as written, as a URL or a form body carries it (`%20` and `+`
    /// encodings) and as JSON escapes it, so a page that posts it or puts it in its address does
    /// not leak it through the requests or the URL.
    pub fn mask(&self, text: &str) -> String {
        self.mask_with(text, |f| f)
    }

    /// [`Secrets::mask`] on JSON text: each form as JSON escapes it inside a string.
    fn mask_json_text(&self, json: &str) -> String {
        self.mask_with(json, |f| json_escaped(&f))
    }

    fn mask_with(&self, text: &str, shape: impl Fn(String) -> String) -> String {
        let mut pairs: Vec<(String, &String)> = self
            .values
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .flat_map(|(name, v)| {
                let form: String = url::form_urlencoded::byte_serialize(v.as_bytes()).collect();
                let mut forms = vec![
                    v.clone(),
                    form.clone(),
                    form.replace('+', "%20"),
                    json_escaped(v),
                ];
                forms = forms.into_iter().map(&shape).collect();
                forms.sort();
                forms.dedup();
                forms.into_iter().map(move |f| (f, name))
            })
            .collect();
        pairs.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        let mut out = text.to_string();
        for (value, name) in pairs {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("<<{name}>>"));
            }
        }
        out
    }

    /// `value` (any JSON) with every string masked (keys too).
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

    /// `envelope` with every value masked in everything it carries (data, context, error,
    /// warnings). The one pass every answer goes through before it leaves the engine.
    pub fn mask_envelope(&self, envelope: envelope::Envelope) -> envelope::Envelope {
        if self.values.is_empty() {
            return envelope;
        }
        let json = envelope.to_json();
        // On the text, which keeps the order of objects; through a value (keys sorted) when the
        // value is one of the JSON's own words (`true`, a field name) and the text broke.
        let masked = envelope::Envelope::from_json(&self.mask_json_text(&json))
            .ok()
            .or_else(|| {
                let v = serde_json::from_str::<serde_json::Value>(&json).ok()?;
                envelope::Envelope::from_json(&self.mask_json(&v).to_string()).ok()
            });
        match masked {
            Some(m) => m,
            // Never the unmasked answer.
            None => envelope::Envelope::failure(
                envelope.command(),
                envelope.context().cloned(),
                envelope::ErrorInfo::new(
                    envelope::ErrorCode::InternalError,
                    "the answer could not be masked for the session's secrets",
                ),
            ),
        }
    }
}

/// `s` as JSON writes it inside a string (quotes and backslashes escaped).
fn json_escaped(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_default();
    json.strip_prefix('"')
        .and_then(|j| j.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

/// `value` with `f` applied to every string in it, object keys included.
fn map_strings(value: &serde_json::Value, f: &dyn Fn(&str) -> String) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(a) => Value::Array(a.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (f(k), map_strings(v, f))).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(items: &[&str]) -> Secrets {
        let items: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        Secrets::parse(&items, &[]).unwrap_or_default()
    }

    #[test]
    fn resolves_known_names_and_refuses_unknown_ones() {
        let s = parse(&["pw=hunter2", "user=ada"]);
        assert_eq!(s.resolve("<<user>>:<<pw>>").as_deref(), Ok("ada:hunter2"));
        assert_eq!(s.resolve("a << b >> c <<"), Ok("a << b >> c <<".into()));
        assert_eq!(s.resolve("x<<nope>>"), Err(UnknownSecret("nope".into())));
        assert_eq!(format!("{s:?}"), r#"["pw", "user"]"#);
        assert_eq!(format!("{:?}", SecretArg("pw=hunter2".into())), "pw=<<pw>>");
    }

    #[test]
    fn parse_errors_never_show_the_value() {
        let e = Secrets::parse(&["hunter2".into()], &[])
            .err()
            .unwrap_or_default();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(Secrets::parse(&["a b=1".into()], &[]).is_err());
        let f = Secrets::parse(&[], &["# c\n\npw=x y\n".into()]).unwrap_or_default();
        assert_eq!(f.resolve("<<pw>>").as_deref(), Ok("x y"));
    }

    #[test]
    fn masks_every_encoding_of_a_value() {
        let s = parse(&["pw=S3cr3t xy&\"z"]);
        let text =
            "raw S3cr3t xy&\"z form S3cr3t+xy%26%22z pct S3cr3t%20xy%26%22z json S3cr3t xy&\\\"z";
        let masked = s.mask(text);
        assert_eq!(
            masked, "raw <<pw>> form <<pw>> pct <<pw>> json <<pw>>",
            "{masked}"
        );
    }

    #[test]
    fn env_vars_are_lower_cased() {
        let s = Secrets::from_env_vars([
            ("ACTIONBOOK_SECRET_PW".to_string(), "v".to_string()),
            ("OTHER".to_string(), "w".to_string()),
        ]);
        assert_eq!(s.names().collect::<Vec<_>>(), ["pw"]);
    }

    #[test]
    fn an_envelope_is_masked_whole() {
        let s = parse(&["pw=hunter2"]);
        let env = envelope::Envelope::success(
            envelope::CommandName::BrowserText,
            envelope::Context::tab("s1", "t1").with_url("http://x/?p=hunter2"),
            envelope::Data::from(envelope::ReadData {
                target: envelope::Target::selector("#p"),
                value: "you typed hunter2".into(),
            }),
        );
        let json = s.mask_envelope(env).to_json();
        assert!(!json.contains("hunter2"), "{json}");
        assert!(json.contains("<<pw>>"), "{json}");
    }
}
