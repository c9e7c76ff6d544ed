//! The storage operation run in a frame (read or write localStorage and sessionStorage) and
//! how it is called.

use super::*;

/// The storage operation run in a frame: with `local` and `session` both null it reads both
/// storages; otherwise it writes the pairs given. `origin` (unless null) is the document's
/// origin it expects: another one answers `{wrong}` (a visit not yet committed).
pub(super) const STORAGE_STATE_JS: &str = r#"(function (origin, local, session) {
  if (origin !== null && self.origin !== origin) return { wrong: String(self.origin) };
  const read = (s) => { const items = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); const v = s.getItem(k); if (k !== null && v !== null) items.push([k, v]); } return items; };
  const out = { origin: String(self.origin), local: [], session: [] };
  try {
    if (local === null && session === null) { out.local = read(self.localStorage); out.session = read(self.sessionStorage); }
    if (local !== null) for (const [k, v] of local) self.localStorage.setItem(k, v);
    if (session !== null) for (const [k, v] of session) self.sessionStorage.setItem(k, v);
  } catch (e) { return { error: String(e && e.message || e) }; }
  return out;
})"#;

/// What [`STORAGE_STATE_JS`] answers.
#[derive(Debug, Default, Deserialize)]
pub(super) struct StorageAnswer {
    #[serde(default)]
    pub(super) wrong: Option<String>,
    #[serde(default)]
    pub(super) error: Option<String>,
    #[serde(default)]
    pub(super) local: Vec<(String, String)>,
    #[serde(default)]
    pub(super) session: Vec<(String, String)>,
}

pub(super) fn pairs(items: &[NameValue]) -> Vec<(&str, &str)> {
    items
        .iter()
        .map(|i| (i.name.as_str(), i.value.as_str()))
        .collect()
}

pub(super) fn name_values(items: Vec<(String, String)>) -> Vec<NameValue> {
    items
        .into_iter()
        .map(|(name, value)| NameValue { name, value })
        .collect()
}

/// The expression running [`STORAGE_STATE_JS`] with these arguments.
pub(super) fn storage_expression(
    origin: Option<&str>,
    local: Option<&[NameValue]>,
    session: Option<&[NameValue]>,
) -> String {
    let args = serde_json::json!([origin, local.map(pairs), session.map(pairs)]);
    let args = args
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!("{STORAGE_STATE_JS}({args})")
}

/// Runs the storage operation in `context` of `session` (`None`: the main frame's document).
pub(super) async fn run_storage(
    session: &Session,
    context: Option<cdp_protocol::ExecutionContextId>,
    expression: &str,
    deadline: &Deadline,
) -> Result<StorageAnswer> {
    let r = session
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                context_id: context,
                return_by_value: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "the storage script failed in the page: {}",
            ex.message()
        )));
    }
    let value = r.result.value.unwrap_or(serde_json::Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for its storage: {e}")))
}
