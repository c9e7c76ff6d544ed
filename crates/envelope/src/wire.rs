//! The serialisation types of the envelope: [`Envelope`], [`Context`], [`ErrorInfo`],
//! [`Meta`], [`Pagination`]. The wire format itself is described in the crate docs.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::code::{EXIT_SUCCESS, ErrorCode};
use crate::{CommandName, Data, Error};

/// One command's response: `{ok, command, context, data, error, meta}`.
///
/// Built with [`Envelope::success`] or [`Envelope::failure`], so the rules of spec
/// section 4 hold by construction: exactly one of `data` / `error` is non-null, `ok`
/// says which, and commands that are not session commands never carry a `context`.
/// [`Envelope::to_json`] and [`Envelope::to_text`] render the same value, so the two
/// output formats cannot disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    command: CommandName,
    context: Option<Context>,
    outcome: Outcome,
    /// Timing, warnings, pagination and truncation (always present on the wire).
    pub meta: Meta,
}

/// Success data or failure information: the two halves of an envelope that exclude each other.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Success(Data),
    Failure(ErrorInfo),
}

impl Envelope {
    /// A successful response carrying `data`.
    ///
    /// `context` is dropped when `command` does not return one (non-browser commands and
    /// `browser list-sessions`), so callers can pass what they have.
    pub fn success(
        command: CommandName,
        context: impl Into<Option<Context>>,
        data: impl Into<Data>,
    ) -> Self {
        Envelope {
            command,
            context: context.into().filter(|_| command.returns_context()),
            outcome: Outcome::Success(data.into()),
            meta: Meta::default(),
        }
    }

    /// A failed response. `context` is what was located before the failure (session
    /// id once the session is found, tab id once the tab is found); it is dropped for
    /// commands that do not return one.
    pub fn failure(
        command: CommandName,
        context: impl Into<Option<Context>>,
        error: ErrorInfo,
    ) -> Self {
        Envelope {
            command,
            context: context.into().filter(|_| command.returns_context()),
            outcome: Outcome::Failure(error),
            meta: Meta::default(),
        }
    }

    /// Sets `meta.duration_ms`.
    #[must_use]
    pub fn with_duration_ms(mut self, duration_ms: u64) -> Self {
        self.meta.duration_ms = duration_ms;
        self
    }

    /// Appends a warning to `meta.warnings`.
    #[must_use]
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.meta.warnings.push(warning.into());
        self
    }

    /// Sets `meta.pagination`.
    #[must_use]
    pub fn with_pagination(mut self, pagination: Pagination) -> Self {
        self.meta.pagination = Some(pagination);
        self
    }

    /// Sets `meta.truncated`.
    #[must_use]
    pub fn with_truncated(mut self, truncated: bool) -> Self {
        self.meta.truncated = truncated;
        self
    }

    /// `ok`: whether the command succeeded.
    pub fn ok(&self) -> bool {
        matches!(self.outcome, Outcome::Success(_))
    }

    /// `command`: the normalised command name.
    pub fn command(&self) -> CommandName {
        self.command
    }

    /// `context`: the session/tab the command ran in, if any.
    pub fn context(&self) -> Option<&Context> {
        self.context.as_ref()
    }

    /// Mutable `context`, e.g. to update `url` / `title` after a navigation.
    pub fn context_mut(&mut self) -> Option<&mut Context> {
        self.context.as_mut()
    }

    /// `data`: present exactly when the command succeeded.
    pub fn data(&self) -> Option<&Data> {
        match &self.outcome {
            Outcome::Success(d) => Some(d),
            Outcome::Failure(_) => None,
        }
    }

    /// `error`: present exactly when the command failed.
    pub fn error(&self) -> Option<&ErrorInfo> {
        match &self.outcome {
            Outcome::Success(_) => None,
            Outcome::Failure(e) => Some(e),
        }
    }

    /// The process exit status: `0` on success, else [`ErrorCode::exit_code`].
    pub fn exit_code(&self) -> u8 {
        match &self.outcome {
            Outcome::Success(_) => EXIT_SUCCESS,
            Outcome::Failure(e) => e.code.exit_code(),
        }
    }

    /// The envelope as one line of compact JSON (the `--json` output).
    pub fn to_json(&self) -> String {
        match serde_json::to_string(self) {
            Ok(s) => s,
            // Unreachable in practice: every map key is a string and no Serialize impl
            // here fails. Still, never panic on the output path.
            Err(e) => format!(
                "{{\"ok\":false,\"command\":{},\"data\":null,\"error\":{{\"code\":\"INTERNAL_ERROR\",\"message\":{},\"retryable\":false,\"details\":null}},\"meta\":{{\"duration_ms\":0,\"warnings\":[],\"pagination\":null,\"truncated\":false}}}}",
                serde_json::Value::from(self.command.as_str()),
                serde_json::Value::from(format!("cannot serialise envelope: {e}")),
            ),
        }
    }

    /// Parses an envelope from JSON, choosing the type of `data` from `command`.
    ///
    /// (Deserialising with `serde_json::from_str` / `from_slice` / `from_reader` is the
    /// same; `serde_json::from_value` is not supported, because `data` is read raw to
    /// keep the order of its objects.)
    pub fn from_json(json: &str) -> Result<Self, Error> {
        serde_json::from_str(json).map_err(Error::Json)
    }

    pub(crate) fn outcome_parts(&self) -> (Option<&Data>, Option<&ErrorInfo>) {
        (self.data(), self.error())
    }
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (data, error) = self.outcome_parts();
        let len = if self.context.is_some() { 6 } else { 5 };
        let mut st = s.serialize_struct("Envelope", len)?;
        st.serialize_field("ok", &self.ok())?;
        st.serialize_field("command", &self.command)?;
        match &self.context {
            Some(ctx) => st.serialize_field("context", ctx)?,
            None => st.skip_field("context")?,
        }
        st.serialize_field("data", &data)?;
        st.serialize_field("error", &error)?;
        st.serialize_field("meta", &self.meta)?;
        st.end()
    }
}

/// The envelope as it is on the wire, before `data` is given its type.
#[derive(Deserialize)]
struct RawEnvelope {
    ok: bool,
    command: CommandName,
    #[serde(default)]
    context: Option<Context>,
    // Raw so `data` is parsed once, straight into its type, keeping object order.
    #[serde(default)]
    data: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    error: Option<ErrorInfo>,
    meta: Meta,
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let raw = RawEnvelope::deserialize(d)?;
        let outcome = match (raw.ok, raw.error) {
            (true, None) => {
                let Some(data) = raw.data else {
                    return Err(D::Error::custom("ok envelope has null data"));
                };
                let data = Data::from_json(raw.command.data_kind(), data.get())
                    .map_err(D::Error::custom)?;
                Outcome::Success(data)
            }
            (false, Some(error)) if raw.data.is_none() => Outcome::Failure(error),
            (false, Some(_)) => return Err(D::Error::custom("failed envelope has non-null data")),
            (true, Some(_)) => return Err(D::Error::custom("ok envelope has non-null error")),
            (false, None) => return Err(D::Error::custom("failed envelope has null error")),
        };
        if raw.context.is_some() && !raw.command.returns_context() {
            return Err(D::Error::custom(format!(
                "command '{}' must not carry a context",
                raw.command
            )));
        }
        Ok(Envelope {
            command: raw.command,
            context: raw.context,
            outcome,
            meta: raw.meta,
        })
    }
}

/// `context`: where a session command ran. Absent fields are omitted on the wire.
///
/// `session_id` is present whenever the session was located; `tab_id` whenever the
/// tab was located; `window_id` only in multi-window cases; `url` / `title` when known.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Context {
    /// The session id (`s1`, `research-google`).
    pub session_id: String,
    /// The tab id (`t1`) for tab-level commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab_id: Option<String>,
    /// The window id (`w1`), only in multi-window scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    /// The tab's URL when known (after a navigation: the new URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The tab's title when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Context {
    /// A session-level context: `{session_id}`.
    pub fn session(session_id: impl Into<String>) -> Self {
        Context {
            session_id: session_id.into(),
            ..Context::default()
        }
    }

    /// A tab-level context: `{session_id, tab_id}`.
    pub fn tab(session_id: impl Into<String>, tab_id: impl Into<String>) -> Self {
        Context {
            session_id: session_id.into(),
            tab_id: Some(tab_id.into()),
            ..Context::default()
        }
    }

    /// Sets `url`.
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// Sets `title`.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets `window_id`.
    #[must_use]
    pub fn with_window_id(mut self, window_id: impl Into<String>) -> Self {
        self.window_id = Some(window_id.into());
        self
    }
}

/// `error`: why a command failed.
///
/// `details` is always written (`null` when there are none); `hint` (not in the spec,
/// as the reference CLI does) is omitted when absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// The machine-readable code.
    pub code: ErrorCode,
    /// A human-readable message, e.g. `Element not found: #submit`.
    pub message: String,
    /// Whether retrying unchanged may succeed (defaults to [`ErrorCode::retryable`]).
    pub retryable: bool,
    /// Structured details, e.g. `{"selector": "#submit"}`.
    #[serde(default)]
    pub details: Option<serde_json::Value>,
    /// A suggestion for the caller, printed as `hint: ...` in text output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ErrorInfo {
    /// An error with `code`'s default `retryable`, no details and no hint.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorInfo {
            code,
            message: message.into(),
            retryable: code.retryable(),
            details: None,
            hint: None,
        }
    }

    /// Sets `details` (a JSON `null` is stored as no details).
    #[must_use]
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = (!details.is_null()).then_some(details);
        self
    }

    /// Sets `hint`.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Overrides `retryable`.
    #[must_use]
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

/// `meta`: facts about the response rather than the page. All four fields are always written.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Meta {
    /// Wall-clock time the command took, in milliseconds.
    pub duration_ms: u64,
    /// Non-fatal problems, printed as `warning: ...` lines in text output.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Paging of list results; the only place pagination appears (spec 5.4).
    #[serde(default)]
    pub pagination: Option<Pagination>,
    /// Whether the data was cut short; the only place truncation appears (spec 5.4).
    #[serde(default)]
    pub truncated: bool,
}

/// `meta.pagination`: which page of a longer list `data` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    /// 1-based page number.
    pub page: u64,
    /// Items per page.
    pub page_size: u64,
    /// Total number of items across all pages.
    pub total: u64,
    /// Whether pages follow this one.
    pub has_more: bool,
}

impl Pagination {
    /// Pagination for `page` (1-based) of `total` items, `page_size` per page;
    /// `has_more` is computed.
    pub fn new(page: u64, page_size: u64, total: u64) -> Self {
        Pagination {
            page,
            page_size,
            total,
            has_more: page.saturating_mul(page_size) < total,
        }
    }
}
