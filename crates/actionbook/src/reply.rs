//! What a handler returns (`Done`) and how results become envelopes.

use envelope::{CommandName, Context, Data, Document, Envelope, Pagination};

use crate::error::CliError;

/// What a handler returns: its data plus an optional context override and warnings.
#[derive(Debug)]
pub(crate) struct Done<D> {
    /// The command's data.
    pub data: D,
    /// The context to report, when the handler knows better than the pipeline.
    pub context: Option<Context>,
    /// `meta.warnings`.
    pub warnings: Vec<String>,
    /// `meta.pagination` (`search`, and `browser snapshot` cut to a budget).
    pub pagination: Option<Pagination>,
    /// `meta.truncated` (tab commands: part of the data was cut).
    pub truncated: bool,
}

impl<D> Done<D> {
    /// Data only.
    pub fn data(data: D) -> Self {
        Done {
            data,
            context: None,
            warnings: Vec::new(),
            pagination: None,
            truncated: false,
        }
    }

    /// Data with an explicit context.
    pub fn with_context(data: D, context: Context) -> Self {
        Done {
            data,
            context: Some(context),
            warnings: Vec::new(),
            pagination: None,
            truncated: false,
        }
    }
}

/// A value with its own text form as envelope data ([`Document`]).
pub(crate) fn document<T: serde::Serialize + envelope::RenderText + ?Sized>(
    value: &T,
) -> crate::error::Result<Document> {
    Document::new(value).map_err(|e| CliError::internal(format!("encoding the data: {e}")))
}

/// A successful envelope.
pub fn success(
    name: CommandName,
    context: Option<Context>,
    data: impl Into<Data>,
    warnings: Vec<String>,
) -> Envelope {
    let mut env = Envelope::success(name, context, data);
    env.meta.warnings = warnings;
    env
}

/// A failed envelope.
pub fn failure(name: CommandName, context: Option<Context>, err: &CliError) -> Envelope {
    Envelope::failure(name, context, err.to_info())
}

/// Whether retrying is both useful ([`CliError::retryable`]) and safe for a command with these
/// traits: it is idempotent (reads, `goto`, `fill`), or it surely did nothing
/// ([`CliError::not_performed`]). A click, type or eval that timed out or lost its connection may
/// have run, so it is not retryable.
pub(crate) fn retryable_for(err: &CliError, traits: crate::model::CommandTraits) -> bool {
    err.retryable() && (traits.idempotent || err.not_performed())
}

/// A failed envelope of a command with these traits: `retryable` only when retrying is safe
/// ([`retryable_for`]).
pub(crate) fn failure_of(
    name: CommandName,
    traits: crate::model::CommandTraits,
    context: Option<Context>,
    err: &CliError,
) -> Envelope {
    Envelope::failure(
        name,
        context,
        err.info_with_retryable(retryable_for(err, traits)),
    )
}

/// The JSON envelope of a failure that belongs to no known command (an unknown subcommand, or a
/// request naming a command this build does not have): `command` is the name as given, since
/// there is no normalised one to report.
pub fn unknown_command_json(name: &str, err: &CliError) -> String {
    // The envelope type only holds known names: render one with a placeholder and put the given
    // name in its place (the field is always second, and the placeholder's rendering is fixed).
    let json = failure(CommandName::Help, None, err).to_json();
    let placeholder = r#"{"ok":false,"command":"help","#;
    match json.strip_prefix(placeholder) {
        Some(rest) => format!(
            r#"{{"ok":false,"command":{},{rest}"#,
            serde_json::Value::String(name.to_string())
        ),
        None => json,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CommandTraits as T;

    #[test]
    fn retrying_is_offered_only_when_safe() {
        let timeout = CliError::Timeout {
            what: "browser click".into(),
            ms: 100,
        };
        let lost = CliError::Cdp(cdp_protocol::CdpError::ConnectionClosed);
        let click = T::CHANGES.destructive();
        let goto = T::CHANGES.loads_page().idempotent();
        // A click that timed out or lost its connection may have run.
        assert!(!retryable_for(&timeout, click));
        assert!(!retryable_for(&lost, click));
        assert!(
            !failure_of(CommandName::BrowserClick, T::CHANGES, None, &timeout)
                .error()
                .is_some_and(|e| e.retryable)
        );
        // Reads and goto can run again.
        assert!(retryable_for(&timeout, goto));
        assert!(retryable_for(&lost, T::READ_ONLY));
        // A click that never found its element actionable did nothing.
        let not_actionable = CliError::NotActionable {
            action: "browser click".into(),
            selector: "#b".into(),
            reason: "covered",
            by: None,
            detail: "is covered".into(),
            ms: 100,
        };
        assert!(retryable_for(&not_actionable, click));
        // Never retryable stays so.
        let bad = CliError::InvalidArgument("x".into());
        assert!(!retryable_for(&bad, T::READ_ONLY));
    }

    #[test]
    fn failure_envelope_has_null_data_and_error() {
        let env = failure(
            CommandName::BrowserClick,
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
        let env = success(CommandName::Help, None, "hi", vec![]);
        let v: serde_json::Value = serde_json::from_str(&env.to_json()).unwrap_or_default();
        assert!(v.get("context").is_none());
        assert_eq!(v["data"], "hi");
        assert_eq!(env.to_text(), "hi\n");
    }

    #[test]
    fn unknown_commands_are_named_as_given() {
        let err = CliError::InvalidArgument("unrecognized subcommand 'nope'".into());
        let json = unknown_command_json("browser \"nope\"", &err);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(v["command"], "browser \"nope\"", "{json}");
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["code"], "INVALID_ARGUMENT");
        assert!(json.starts_with(r#"{"ok":false,"command":"browser \"nope\"","data":null"#));
    }
}
