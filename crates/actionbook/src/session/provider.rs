//! Browser providers (`browser start --provider <name>`): an HTTP API that hands out a remote
//! browser (create a session, read its CDP WebSocket URL and id from the JSON answer) and stops it
//! when the session closes.
//!
//! `hyperbrowser` is built in (`POST {base}/api/session` with `x-api-key: $HYPERBROWSER_API_KEY`,
//! `wsEndpoint` and `id` in the answer, `PUT {base}/api/session/{id}/stop`; the base is
//! `$ACTIONBOOK_HYPERBROWSER_API_URL`, else `https://api.hyperbrowser.ai`). Others are written in
//! config.toml, without code:
//!
//! ```toml
//! [providers.mypool]
//! create_url = "https://pool.example/api/browsers"
//! method = "POST"                       # the default
//! headers = { Authorization = "Bearer ${POOL_TOKEN}" }
//! body = '{"browser": "chromium"}'      # a JSON text or a TOML table; none: no body
//! ws_pointer = "/data/wsUrl"            # JSON pointer (RFC 6901) of the CDP WebSocket URL
//! id_pointer = "/data/id"               # of the id the stop call needs (optional)
//! stop_url = "https://pool.example/api/browsers/{id}"
//! stop_method = "DELETE"                # the default
//! ```
//!
//! `${NAME}` (or `${NAME:-default}`) is the caller's environment variable `NAME`, in URLs, header
//! values and the body. Keys are never printed, logged or written to the session record: the
//! record keeps the provider's name and the session id only, and `close` reads the key again from
//! the environment of the command that closes.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::EnvVars;

/// The built-in provider's name.
pub const HYPERBROWSER: &str = "hyperbrowser";

/// How long the stop call of `close` may take.
pub(crate) const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// How a provider's API is called.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProviderSpec {
    /// Where a session is created.
    pub create_url: String,
    /// The create call's HTTP method.
    #[serde(default = "post")]
    pub method: String,
    /// Headers of both calls (values may name `${VAR}`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The create call's body: a JSON text, or a table sent as JSON.
    #[serde(default)]
    pub body: Option<Value>,
    /// JSON pointer of the CDP WebSocket URL in the answer.
    pub ws_pointer: String,
    /// JSON pointer of the session id in the answer.
    #[serde(default)]
    pub id_pointer: Option<String>,
    /// Where a session is stopped (`{id}` is its id).
    #[serde(default)]
    pub stop_url: Option<String>,
    /// The stop call's HTTP method.
    #[serde(default = "delete")]
    pub stop_method: String,
}

fn post() -> String {
    "POST".into()
}

fn delete() -> String {
    "DELETE".into()
}

pub(crate) use crate::store::ProviderSession;

/// A session a provider created.
#[derive(Debug, Clone)]
pub(crate) struct Created {
    /// The CDP WebSocket URL.
    pub ws_url: String,
    /// Its id, for the stop call.
    pub id: Option<String>,
}

/// The built-in Hyperbrowser spec.
fn hyperbrowser() -> ProviderSpec {
    let base = "${ACTIONBOOK_HYPERBROWSER_API_URL:-https://api.hyperbrowser.ai}";
    ProviderSpec {
        create_url: format!("{base}/api/session"),
        method: post(),
        headers: BTreeMap::from([("x-api-key".into(), "${HYPERBROWSER_API_KEY}".into())]),
        body: Some(Value::Object(Default::default())),
        ws_pointer: "/wsEndpoint".into(),
        id_pointer: Some("/id".into()),
        stop_url: Some(format!("{base}/api/session/{{id}}/stop")),
        stop_method: "PUT".into(),
    }
}

/// The providers config.toml names (`[providers.<name>]`), by name; a malformed one is an error
/// naming it.
fn configured(
    other: &toml_table::Table,
) -> std::result::Result<BTreeMap<String, ProviderSpec>, String> {
    let Some(section) = other.get("providers") else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(map) = section else {
        return Err("[providers] is not a table".into());
    };
    map.iter()
        .map(|(name, v)| {
            serde_json::from_value::<ProviderSpec>(v.clone())
                .map(|s| (name.clone(), s))
                .map_err(|e| format!("[providers.{name}]: {e}"))
        })
        .collect()
}

/// config.toml's top-level tables as JSON (so no TOML parser is needed here).
mod toml_table {
    /// A table of config.toml, as JSON.
    pub(crate) type Table = serde_json::Map<String, serde_json::Value>;
}

/// The spec of provider `name`: config.toml's `[providers.<name>]`, else the built-in one.
pub(crate) async fn spec(home: &crate::store::Home, name: &str) -> Result<ProviderSpec> {
    let path = crate::manuals::config::config_path(home.root());
    let file = tokio::task::spawn_blocking(move || crate::manuals::config::ConfigFile::load(&path))
        .await
        .map_err(|e| CliError::internal(format!("reading config.toml: {e}")))??;
    let other: toml_table::Table = serde_json::to_value(&file.other)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let mut known =
        configured(&other).map_err(|e| CliError::InvalidArgument(format!("config.toml: {e}")))?;
    if let Some(s) = known.remove(name) {
        return Ok(s);
    }
    if name == HYPERBROWSER {
        return Ok(hyperbrowser());
    }
    let mut names: Vec<String> = known.into_keys().collect();
    names.push(HYPERBROWSER.into());
    Err(CliError::InvalidArgument(format!(
        "unknown provider '{name}' (known: {}); add one as [providers.{name}] in config.toml",
        names.join(", ")
    )))
}

#[cfg(test)]
use crate::model::referenced_vars;

/// `text` with each `${NAME}` replaced by the caller's variable (`${NAME:-default}`: the default
/// when it is unset or empty). An unset one without a default is an error naming it.
fn expand(text: &str, env: &EnvVars, provider: &str) -> Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('}').ok_or_else(|| {
            CliError::InvalidArgument(format!(
                "provider {provider}: an unclosed ${{ in its config"
            ))
        })?;
        let (name, default) = match after[..end].split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (&after[..end], None),
        };
        match (env.get(name), default) {
            (Some(v), _) => out.push_str(v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(CliError::Provider {
                    provider: provider.into(),
                    reason: format!("${name} is not set in the environment of this command"),
                    refused: true,
                });
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One call to the provider's API: its JSON answer. Nothing of the request (headers, body) is
/// echoed in an error; the URL is redacted.
async fn call(
    (provider, env): (&str, &EnvVars),
    (method, url): (&str, &str),
    headers: &[(String, String)],
    body: Option<String>,
    timeout: Duration,
) -> Result<Value> {
    let fail = |reason: String, refused: bool| CliError::Provider {
        provider: provider.into(),
        reason,
        refused,
    };
    let shown = cdp_protocol::redact_url(url);
    let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
        .map_err(|_| fail(format!("{method:?} is no HTTP method"), true))?;
    // The caller's proxies (not the daemon's environment, which may be another shell's).
    let proxies = cdp_protocol::ProxyConfig::from_vars(|k| env.get(k).map(str::to_string));
    let mut builder = reqwest::Client::builder().timeout(timeout).no_proxy();
    let no_proxy = || reqwest::NoProxy::from_string(proxies.no_proxy.as_deref().unwrap_or(""));
    if let Some(p) = &proxies.http {
        let p = reqwest::Proxy::http(p).map_err(|e| fail(format!("HTTP_PROXY: {e}"), true))?;
        builder = builder.proxy(p.no_proxy(no_proxy()));
    }
    if let Some(p) = &proxies.https {
        let p = reqwest::Proxy::https(p).map_err(|e| fail(format!("HTTPS_PROXY: {e}"), true))?;
        builder = builder.proxy(p.no_proxy(no_proxy()));
    }
    let client = builder
        .build()
        .map_err(|e| fail(format!("HTTP client: {e}"), false))?;
    let mut req = client.request(method.clone(), url);
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    if let Some(b) = body {
        req = req.header("content-type", "application/json").body(b);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| fail(format!("{method} {shown}: {}", without_url(&e)), false))?;
    let status = resp.status();
    let text = resp.text().await.unwrap_or_default();
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(fail(
            format!("{method} {shown} answered {status}: the API key was refused"),
            true,
        ));
    }
    if !status.is_success() {
        let said: String = text.chars().take(200).collect();
        return Err(fail(
            format!("{method} {shown} answered {status}: {said}"),
            false,
        ));
    }
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| {
        fail(
            format!("{method} {shown}: the answer is not JSON ({e})"),
            false,
        )
    })
}

/// A reqwest error's text without the URL (it is printed redacted by the caller).
fn without_url(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    if let Some(u) = e.url() {
        s = s.replace(u.as_str(), "").replace(" for url ()", "");
    }
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        s = format!("{s}: {inner}");
        source = inner.source();
    }
    s
}

/// The headers with their `${VAR}`s filled in.
fn headers(spec: &ProviderSpec, env: &EnvVars, name: &str) -> Result<Vec<(String, String)>> {
    spec.headers
        .iter()
        .map(|(k, v)| Ok((k.clone(), expand(v, env, name)?)))
        .collect()
}

/// Creates a session at provider `name`.
pub(crate) async fn create(
    name: &str,
    spec: &ProviderSpec,
    env: &EnvVars,
    deadline: &Deadline,
) -> Result<Created> {
    let url = expand(&spec.create_url, env, name)?;
    let heads = headers(spec, env, name)?;
    let body = match &spec.body {
        None => None,
        Some(Value::String(s)) => Some(expand(s, env, name)?),
        Some(v) => Some(expand(&v.to_string(), env, name)?),
    };
    let answer = call(
        (name, env),
        (&spec.method, &url),
        &heads,
        body,
        deadline.remaining(),
    )
    .await?;
    let ws_url = answer
        .pointer(&spec.ws_pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| CliError::Provider {
            provider: name.into(),
            reason: format!("its answer has no string at ws_pointer {}", spec.ws_pointer),
            refused: false,
        })?
        .to_string();
    let id = spec
        .id_pointer
        .as_deref()
        .and_then(|p| answer.pointer(p))
        .and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    Ok(Created { ws_url, id })
}

/// Stops a provider's session (when its spec has a stop call). Errors say why; callers turn
/// them into warnings (the session is closed on our side either way).
pub(crate) async fn stop(
    home: &crate::store::Home,
    session: &ProviderSession,
    env: &EnvVars,
) -> Result<()> {
    let spec = spec(home, &session.name).await?;
    let Some(stop_url) = &spec.stop_url else {
        return Ok(());
    };
    let id = session.id.as_deref().unwrap_or_default();
    let url = expand(stop_url, env, &session.name)?.replace("{id}", &encode_segment(id));
    let heads = headers(&spec, env, &session.name)?;
    call(
        (&session.name, env),
        (&spec.stop_method, &url),
        &heads,
        None,
        STOP_TIMEOUT,
    )
    .await
    .map(|_| ())
}

/// `id` percent-encoded for a URL path segment.
fn encode_segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> EnvVars {
        EnvVars(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn variables_are_filled_in_and_a_missing_one_is_named() {
        let e = env(&[("TOKEN", "abc")]);
        assert_eq!(
            expand("Bearer ${TOKEN}", &e, "p").ok().as_deref(),
            Some("Bearer abc")
        );
        assert_eq!(
            expand("${URL:-https://x.test}/a", &e, "p").ok().as_deref(),
            Some("https://x.test/a")
        );
        let err = expand("${NOPE}", &e, "p").err().map(|e| e.to_string());
        assert!(err.is_some_and(|m| m.contains("$NOPE") && !m.contains("abc")));
        assert!(expand("${OPEN", &e, "p").is_err());
        assert_eq!(
            referenced_vars("a = \"${A}\"\nb = \"${B:-x} ${A} ${1X} ${}\""),
            vec!["A".to_string(), "B".to_string()]
        );
    }

    #[test]
    fn a_configured_provider_reads_as_its_spec() {
        let cfg: toml_table::Table = serde_json::from_value(serde_json::json!({
            "providers": {"pool": {
                "create_url": "http://h/new", "headers": {"Authorization": "Bearer ${T}"},
                "body": "{}", "ws_pointer": "/ws", "id_pointer": "/id",
                "stop_url": "http://h/{id}"
            }}
        }))
        .unwrap_or_default();
        let specs = configured(&cfg).unwrap_or_default();
        let s = specs.get("pool").cloned();
        assert_eq!(s.as_ref().map(|s| s.method.as_str()), Some("POST"));
        assert_eq!(s.as_ref().map(|s| s.stop_method.as_str()), Some("DELETE"));
        let bad: toml_table::Table = serde_json::from_value(serde_json::json!({
            "providers": {"x": {"create_url": "http://h", "ws_pointr": "/ws"}}
        }))
        .unwrap_or_default();
        assert!(configured(&bad).is_err_and(|e| e.contains("[providers.x]")));
        assert_eq!(encode_segment("a b/c"), "a%20b%2Fc");
    }
}
