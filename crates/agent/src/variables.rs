//! Variables: `--var name=value` (or a file of such lines), written `<<name>>` in instructions.
//! The model only ever sees `<<name>>`; the value goes into the action at the moment it runs,
//! and every text the agent layer gives back (answers, errors, cache, trace) has the values
//! masked again.

//! The syntax, name rules, substitution and masking are the engine's secrets
//! ([`actionbook::secrets::Secrets`]); a session's secrets are variables here too, so `<<pw>>`
//! works in an instruction of a session that has a `pw` secret.

use actionbook::secrets::Secrets;

use crate::error::{AgentError, Result};

/// The variables of one command. `Debug` shows the names only.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Variables {
    values: Secrets,
}

impl Variables {
    /// The variables of `--var name=value` items, then the lines of `--var-file` contents
    /// (blank lines and `#` comments skipped); a later one of a name wins.
    pub fn parse(items: &[String], files: &[String]) -> Result<Variables> {
        let values = Secrets::parse(items, files)
            .map_err(|e| AgentError::BadArguments(format!("--var: {e}")))?;
        Ok(Variables { values })
    }

    /// These variables with the session's secrets (as the engine hands them in the request's
    /// environment) under them: a `--var` of the same name wins.
    #[must_use]
    pub fn with_secrets(self, secrets: &Secrets) -> Variables {
        Variables {
            values: secrets.merged(&self.values),
        }
    }

    /// The names, for the model's prompt.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.names()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every `<<name>>` of a known variable replaced by its value (unknown names
    /// stay as written: a page may legitimately contain `<<x>>`).
    pub fn substitute(&self, text: &str) -> String {
        self.values.substitute(text)
    }

    /// `text` with every value written back as `<<name>>` (longest first; as written, URL-,
    /// form- and JSON-encoded).
    pub fn mask(&self, text: &str) -> String {
        self.values.mask(text)
    }

    /// `value` (any JSON) with every string masked.
    pub fn mask_json(&self, value: &serde_json::Value) -> serde_json::Value {
        self.values.mask_json(value)
    }

    /// An envelope error with the values masked in its message, hint and details.
    pub fn mask_info(&self, info: envelope::ErrorInfo) -> envelope::ErrorInfo {
        self.values.mask_info(info)
    }

    /// `value` (any JSON) with every string's `<<name>>`s replaced by their values.
    pub fn substitute_json(&self, value: &serde_json::Value) -> serde_json::Value {
        self.values.substitute_json(value)
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
        // Names only: values are secrets.
        assert_eq!(
            format!("{vars:?}"),
            r#"Variables { values: ["city", "pw", "user"] }"#
        );
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
