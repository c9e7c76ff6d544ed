//! Domain values shared by every layer: the browser mode, a session's status, the id rules, and
//! the caller's environment ([`ClientEnv`]).
//!
//! One type per concept: the mode and the status are the `envelope` crate's own enums (they are
//! what the output reports, and they persist with the same strings), not parallel copies mapped
//! back and forth.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How a session's browser is provided (`--mode`): `local`, `extension` or `cloud`.
pub use envelope::BrowserMode as Mode;
/// A session's lifecycle state: `running`, `crashed`, `closed` (and `disconnected`, reported only).
pub use envelope::SessionState as SessionStatus;

/// The modes with their `--mode` help, in the order the help lists them.
pub(crate) const MODES: &[(Mode, &str)] = &[
    (Mode::Local, "Launch a local Chromium"),
    (Mode::Extension, "Relay through the Chrome extension"),
    (
        Mode::Cloud,
        "A remote browser reached through `--cdp-endpoint`",
    ),
];

/// The `--mode` value parser (clap): the wire strings of [`MODES`] with their help.
#[cfg(feature = "cli")]
pub(crate) fn mode_parser() -> impl clap::builder::TypedValueParser<Value = Mode> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        MODES
            .iter()
            .map(|(m, help)| PossibleValue::new(m.as_str()).help(*help)),
    )
    .map(|s| {
        MODES
            .iter()
            .map(|(m, _)| *m)
            .find(|m| m.as_str() == s)
            .unwrap_or_default()
    })
}

/// The JSON Schema of a [`Mode`] field: one of the wire strings.
pub(crate) fn mode_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = MODES.iter().map(|(m, _)| m.as_str()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}

macro_rules! id_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(
            Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
            schemars::JsonSchema,
        )]
        #[serde(transparent)]
        #[schemars(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name(s.to_string())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                $name(s)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl From<&$name> for String {
            fn from(id: &$name) -> String {
                id.0.clone()
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok($name(s.to_string()))
            }
        }
    };
}

id_newtype!(
    /// A session id (`s1`, or a semantic one such as `research-google`).
    SessionId
);
id_newtype!(
    /// A tab id within its session (`t1`, `t2`, ...).
    TabId
);
id_newtype!(
    /// A window id within its session (`w0`, `w1`, ...).
    WindowId
);

/// `--session <SID>`: the session a session-level command addresses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SessionTarget {
    /// Session id.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SID"))]
    pub session: SessionId,
}

impl SessionTarget {
    /// The session `session`.
    pub fn new(session: impl Into<SessionId>) -> SessionTarget {
        SessionTarget {
            session: session.into(),
        }
    }
}

/// `--session <SID> --tab <TID>`: the tab a tab-level command addresses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct TabTarget {
    /// Session id.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SID"))]
    pub session: SessionId,
    /// Tab id.
    #[cfg_attr(feature = "cli", arg(long, value_name = "TID"))]
    pub tab: TabId,
}

impl TabTarget {
    /// Tab `tab` of session `session`.
    pub fn new(session: impl Into<SessionId>, tab: impl Into<TabId>) -> TabTarget {
        TabTarget {
            session: session.into(),
            tab: tab.into(),
        }
    }
}

/// What a command does, as far as its callers need to know: the engine (whether a tab's cached
/// URL/title stay trusted, whether it may run on a crashed page), retry logic (idempotency) and
/// an MCP server (`readOnlyHint`, `destructiveHint`, `idempotentHint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommandTraits {
    /// Only reads: the page, the tabs and the sessions are as they were (files it writes, such as
    /// a snapshot, are its output).
    pub read_only: bool,
    /// Loads a page into the tab (so it may run on a tab whose page crashed).
    pub loads_page: bool,
    /// May destroy state the caller cannot get back: closes a browser or a tab, relaunches, or
    /// runs the page's own code or handlers (whose effects are the page's to decide).
    pub destructive: bool,
    /// Running it again with the same request has no further effect, so it is safe to retry.
    pub idempotent: bool,
    /// The caller must give `--timeout` (the spec's waits): how long is the caller's to decide.
    pub needs_timeout: bool,
    /// Stops at its next safe point when its caller is gone or asks (an agent loop: between
    /// actions), answering what it did so far; others run to their end or are dropped whole.
    pub stops_when_asked: bool,
}

impl CommandTraits {
    /// Reads only (and so is idempotent).
    pub const READ_ONLY: CommandTraits = CommandTraits {
        read_only: true,
        loads_page: false,
        destructive: false,
        idempotent: true,
        needs_timeout: false,
        stops_when_asked: false,
    };
    /// Changes something, adds rather than destroys, and is not safe to repeat.
    pub const CHANGES: CommandTraits = CommandTraits {
        read_only: false,
        loads_page: false,
        destructive: false,
        idempotent: false,
        needs_timeout: false,
        stops_when_asked: false,
    };

    /// These traits, plus "loads a page".
    pub const fn loads_page(self) -> CommandTraits {
        CommandTraits {
            loads_page: true,
            ..self
        }
    }

    /// These traits, plus "destructive".
    pub const fn destructive(self) -> CommandTraits {
        CommandTraits {
            destructive: true,
            ..self
        }
    }

    /// These traits, plus "the caller must give `--timeout`".
    pub const fn needs_timeout(self) -> CommandTraits {
        CommandTraits {
            needs_timeout: true,
            ..self
        }
    }

    /// These traits, plus "stops at its next safe point when asked".
    pub const fn stops_when_asked(self) -> CommandTraits {
        CommandTraits {
            stops_when_asked: true,
            ..self
        }
    }

    /// These traits, plus "idempotent".
    pub const fn idempotent(self) -> CommandTraits {
        CommandTraits {
            idempotent: true,
            ..self
        }
    }
}

/// Validates a user-chosen session id against `^[a-z][a-z0-9_-]{1,63}$`.
pub fn valid_session_id(id: &str) -> bool {
    let b = id.as_bytes();
    (2..=64).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_' || *c == b'-')
}

/// Validates a user-chosen tab id (`tN` style: a lowercase letter then letters/digits/`_`/`-`).
pub fn valid_tab_id(id: &str) -> bool {
    valid_session_id(id)
}

/// Validates a window id: `w` then a decimal number without leading zeros (`w0`, `w12`).
pub fn valid_window_id(id: &str) -> bool {
    id.strip_prefix('w').is_some_and(|n| {
        !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) && (n == "0" || !n.starts_with('0'))
    })
}

/// Validates a profile name (used as a directory name).
pub fn valid_profile_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.')
}

/// Whether `name` is an HTTP header name (RFC 9110: token characters only).
pub fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Whether `value` can be an HTTP header value: no line break or NUL (which would end the header
/// or the request early).
pub fn valid_header_value(value: &str) -> bool {
    !value.contains(['\r', '\n', '\0'])
}

/// What the caller's process knows and the engine cannot: its environment and working directory.
///
/// The CLI fills it from its own process for every request (the daemon may have been started from
/// another shell, so its environment says nothing about the caller's); an embedder or an MCP server
/// fills what it wants its commands to see. The engine reads no environment variables itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientEnv {
    /// `ACTIONBOOK_BROWSER_HEADLESS` (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`): the default
    /// of `browser start --headless`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_headless: Option<bool>,
    /// `ACTIONBOOK_BROWSER_EXECUTABLE_PATH`: the browser `browser start` launches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_executable: Option<PathBuf>,
    /// `ACTIONBOOK_ALLOWED_DOMAINS`: the default of `browser start --allowed-domains`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<String>,
    /// The directory relative paths in the request are relative to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// `ACTIONBOOK_API_URL`, `ACTIONBOOK_API_KEY`, `ACTIONBOOK_API_TIMEOUT_MS`: the remote manuals
    /// API (`search`, `get`, `manual`), over `config.toml`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub api: std::collections::BTreeMap<String, String>,
    /// The agent layer's model settings ([`LLM_ENV`]: `ACTIONBOOK_LLM_*` and the providers' API
    /// keys), over `config.toml`'s `[llm]`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub llm: std::collections::BTreeMap<String, String>,
    /// `ACTIONBOOK_STATE_KEY`: the key storage-state files are encrypted with (64 hex characters
    /// or the base64 of 32 bytes); unset or empty: they are plain JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_key: Option<String>,
    /// `ACTIONBOOK_CONFIRM_ACTIONS`: the default of `browser start --confirm-actions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_actions: Option<String>,
    /// `ACTIONBOOK_DENY_ACTIONS`: the default of `browser start --deny-actions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_actions: Option<String>,
    /// `ACTIONBOOK_SECRET_<NAME>`: secrets written `<<name>>` (the name lower-cased), carried with
    /// each request so they are never on disk; the engine adds the session's own to them.
    #[serde(default, skip_serializing_if = "crate::secrets::Secrets::is_empty")]
    pub secrets: crate::secrets::Secrets,
    /// The variables remote sessions need: browser providers' keys and API URLs
    /// ([`REMOTE_ENV`], and those config.toml's `[providers.*]` name as `${NAME}`), and the
    /// proxy settings of CDP WebSockets (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
    #[serde(default, skip_serializing_if = "EnvVars::is_empty")]
    pub remote: EnvVars,
    /// `ACTIONBOOK_TEST_ABORT_AT`: the step of a structural command at which a test makes the
    /// engine's process abort (`crate::fault`); ignored by release builds.
    #[doc(hidden)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub abort_at: Option<String>,
}

/// Environment variables a request carries by name, their values hidden from `Debug` (they are
/// API keys and proxy credentials).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
#[schemars(transparent)]
pub struct EnvVars(pub std::collections::BTreeMap<String, String>);

impl std::fmt::Debug for EnvVars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

impl EnvVars {
    /// Whether none is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `name`, when set and not empty.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The caller's variables among `names`.
    pub fn from_process<'a>(names: impl IntoIterator<Item = &'a str>) -> EnvVars {
        EnvVars(
            names
                .into_iter()
                .filter_map(|n| Some((n.to_string(), std::env::var(n).ok()?)))
                .collect(),
        )
    }
}

/// The environment variables of remote sessions that every request carries
/// ([`ClientEnv::remote`]; config.toml's `[providers.*]` may name more).
pub const REMOTE_ENV: &[&str] = &[
    "HYPERBROWSER_API_KEY",
    "ACTIONBOOK_HYPERBROWSER_API_URL",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// The environment variables of the remote manuals API that a request carries ([`ClientEnv::api`]).
pub const API_ENV: &[&str] = &[
    crate::manuals::config::ENV_API_URL,
    crate::manuals::config::ENV_API_KEY,
    crate::manuals::config::ENV_API_TIMEOUT,
];

/// The environment variables of the agent layer's model that a request carries
/// ([`ClientEnv::llm`]).
pub const LLM_ENV: &[&str] = &[
    "ACTIONBOOK_LLM_PROVIDER",
    "ACTIONBOOK_LLM_BASE_URL",
    "ACTIONBOOK_LLM_MODEL",
    "ACTIONBOOK_LLM_API_KEY",
    "ACTIONBOOK_LLM_TIMEOUT_MS",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "DEEPSEEK_API_KEY",
];

/// Environment variable: the default of `browser start --headless`.
pub const HEADLESS_ENV: &str = "ACTIONBOOK_BROWSER_HEADLESS";
/// Environment variable: the default of `browser start --allowed-domains`.
pub const ALLOWED_DOMAINS_ENV: &str = "ACTIONBOOK_ALLOWED_DOMAINS";
/// Environment variable: the browser executable.
pub const EXECUTABLE_ENV: &str = "ACTIONBOOK_BROWSER_EXECUTABLE_PATH";
/// Environment variable: the default of `browser start --confirm-actions`.
pub const CONFIRM_ACTIONS_ENV: &str = "ACTIONBOOK_CONFIRM_ACTIONS";
/// Environment variable: the default of `browser start --deny-actions`.
pub const DENY_ACTIONS_ENV: &str = "ACTIONBOOK_DENY_ACTIONS";
/// Environment variable: the key storage-state files are encrypted with.
pub const STATE_KEY_ENV: &str = "ACTIONBOOK_STATE_KEY";

impl ClientEnv {
    /// This process's environment and working directory.
    pub fn from_process() -> ClientEnv {
        ClientEnv {
            browser_headless: std::env::var(HEADLESS_ENV).ok().and_then(|v| env_flag(&v)),
            browser_executable: std::env::var_os(EXECUTABLE_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            allowed_domains: std::env::var(ALLOWED_DOMAINS_ENV)
                .ok()
                .filter(|v| !v.trim().is_empty()),
            cwd: std::env::current_dir().ok(),
            api: API_ENV
                .iter()
                .filter_map(|n| Some((n.to_string(), std::env::var(n).ok()?)))
                .collect(),
            llm: LLM_ENV
                .iter()
                .filter_map(|n| Some((n.to_string(), std::env::var(n).ok()?)))
                .collect(),
            state_key: std::env::var(STATE_KEY_ENV).ok(),
            confirm_actions: std::env::var(CONFIRM_ACTIONS_ENV).ok(),
            deny_actions: std::env::var(DENY_ACTIONS_ENV).ok(),
            secrets: crate::secrets::Secrets::from_env_vars(std::env::vars()),
            remote: EnvVars::from_process(
                REMOTE_ENV
                    .iter()
                    .map(|n| n.to_string())
                    .chain(config_vars())
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            ),
            abort_at: crate::fault::requested(),
        }
    }

    /// The caller's value of the environment variable `name`, as far as the request carries it
    /// (for [`crate::manuals::Settings::resolve`]).
    pub fn var(&self, name: &str) -> Option<String> {
        match name {
            HEADLESS_ENV => self.browser_headless.map(|h| h.to_string()),
            ALLOWED_DOMAINS_ENV => self.allowed_domains.clone(),
            EXECUTABLE_ENV => self
                .browser_executable
                .as_ref()
                .map(|p| p.display().to_string()),
            _ => self.api.get(name).or_else(|| self.llm.get(name)).cloned(),
        }
    }

    /// `path` as an absolute path: relative ones are taken from [`ClientEnv::cwd`].
    pub fn resolve_path(&self, path: &Path) -> PathBuf {
        match &self.cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_path_buf(),
        }
    }
}

/// Reads a boolean environment value; `None` when it is not one.
pub(crate) fn env_flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// The home directory this process's environment names: `$ACTIONBOOK_HOME` (made absolute),
/// else `$HOME/.actionbook`; `None` when neither is set.
pub(crate) fn home_root_from_env() -> Option<PathBuf> {
    if let Some(h) = std::env::var_os("ACTIONBOOK_HOME").filter(|h| !h.is_empty()) {
        let h = PathBuf::from(h);
        return Some(std::path::absolute(&h).unwrap_or(h));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".actionbook"))
}

/// The variables config.toml (at `$ACTIONBOOK_HOME`, read by the caller's process) names as
/// `${NAME}`: a request carries them so the daemon can fill them in.
pub fn config_vars() -> Vec<String> {
    let Some(root) = home_root_from_env() else {
        return Vec::new();
    };
    let path = crate::manuals::config::config_path(&root);
    std::fs::read_to_string(path)
        .map(|t| referenced_vars(&t))
        .unwrap_or_default()
}

/// The names of the `${NAME}` / `${NAME:-default}` references in `text`.
pub(crate) fn referenced_vars(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find('}') else { break };
        let name = rest[..end].split(":-").next().unwrap_or_default();
        if valid_var(name) && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
        rest = &rest[end + 1..];
    }
    out
}

pub(crate) fn valid_var(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn session_id_rules() {
        assert!(valid_session_id("research-google"));
        assert!(valid_session_id("s1"));
        assert!(valid_session_id("github_login_debug"));
        assert!(!valid_session_id("Bad_ID"));
        assert!(!valid_session_id("a"));
        assert!(!valid_session_id("1abc"));
        assert!(!valid_session_id(&"a".repeat(65)));
        assert!(valid_session_id(&"a".repeat(64)));
        assert!(!valid_session_id("a b"));
    }

    proptest! {
        #[test]
        fn window_ids_roundtrip(n in 0u64..u64::MAX, s in "w?[0-9a-z]{0,4}") {
            let id = format!("w{}", n);
            prop_assert!(valid_window_id(&id));
            let padded = format!("w0{}", n);
            prop_assert!(!valid_window_id(&padded));
            // Equivalent to ^w(0|[1-9][0-9]*)$ on arbitrary short strings.
            let expected = match s.strip_prefix('w') {
                Some(d) => d == "0" || (!d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) && !d.starts_with('0')),
                None => false,
            };
            prop_assert_eq!(valid_window_id(&s), expected);
        }

        #[test]
        fn session_id_matches_regex(s in "\\PC{0,70}") {
            let expected = {
                let b: Vec<char> = s.chars().collect();
                (2..=64).contains(&b.len()) && b[0].is_ascii_lowercase()
                    && b[1..].iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_' || *c == '-')
            };
            prop_assert_eq!(valid_session_id(&s), expected);
        }
    }

    #[test]
    fn window_id_rules() {
        for ok in ["w0", "w1", "w12", "w100"] {
            assert!(valid_window_id(ok), "{ok}");
        }
        for bad in ["", "w", "w01", "W1", "1", "w-1", "w1a", "t1", "w 1"] {
            assert!(!valid_window_id(bad), "{bad}");
        }
    }

    #[test]
    fn env_flags() {
        assert_eq!(env_flag("1"), Some(true));
        assert_eq!(env_flag("False"), Some(false));
        assert_eq!(env_flag("maybe"), None);
    }

    #[test]
    fn modes_persist_as_before() {
        // Records written before the mode became the envelope's enum still load.
        let m: Mode = serde_json::from_str("\"cloud\"").unwrap_or_default();
        assert_eq!(m, Mode::Cloud);
        assert_eq!(MODES.len(), 3);
        let s: SessionStatus = serde_json::from_str("\"crashed\"").unwrap_or_default();
        assert_eq!(s, SessionStatus::Crashed);
    }

    #[test]
    fn relative_paths_are_the_callers() {
        let env = ClientEnv {
            cwd: Some("/work/here".into()),
            ..ClientEnv::default()
        };
        assert_eq!(
            env.resolve_path(Path::new("a.png")),
            PathBuf::from("/work/here/a.png")
        );
        assert_eq!(env.resolve_path(Path::new("/abs")), PathBuf::from("/abs"));
    }
}
