//! Glue to the `envelope` crate: building envelopes from handler results and errors.

pub use envelope::{CommandName, Context, Data, Envelope, ErrorInfo};

use crate::error::CliError;

/// The [`CommandName`] of a normalised command string; unknown strings (usage errors on garbage
/// argv) fall back to `help`.
pub fn command_name(name: &str) -> CommandName {
    name.parse().unwrap_or(CommandName::Help)
}

/// A successful envelope.
pub(crate) fn success(
    name: &str,
    context: Option<Context>,
    data: impl Into<Data>,
    warnings: Vec<String>,
) -> Envelope {
    let mut env = Envelope::success(command_name(name), context, data);
    env.meta.warnings = warnings;
    env
}

/// A failed envelope.
pub(crate) fn failure(name: &str, context: Option<Context>, err: &CliError) -> Envelope {
    Envelope::failure(command_name(name), context, err.to_info())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_envelope_has_null_data_and_error() {
        let env = failure(
            "browser click",
            Some(Context::tab("s1", "t1")),
            &CliError::ElementNotFound {
                selector: "#x".into(),
            },
        );
        let v: serde_json::Value = serde_json::from_str(&env.to_json()).unwrap_or_default();
        assert_eq!(v["ok"], false);
        assert_eq!(v["data"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND");
        assert_eq!(v["error"]["details"]["selector"], "#x");
        assert_eq!(
            env.to_text(),
            "[s1 t1]\nerror ELEMENT_NOT_FOUND: element not found: #x\n"
        );
    }

    #[test]
    fn non_session_envelope_omits_context() {
        let env = success("help", None, "hi", vec![]);
        let v: serde_json::Value = serde_json::from_str(&env.to_json()).unwrap_or_default();
        assert!(v.get("context").is_none());
        assert_eq!(v["data"], "hi");
        assert_eq!(env.to_text(), "hi\n");
    }

    #[test]
    fn every_browser_command_has_an_envelope_name() {
        for (name, _) in crate::commands::BrowserCommand::summaries() {
            assert_eq!(command_name(name).as_str(), *name);
        }
    }
}
