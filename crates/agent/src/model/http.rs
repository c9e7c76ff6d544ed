//! The HTTP transport shared by the clients: timeout, retries with backoff, status mapping.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::model::config::{ModelConfig, Secret};
use crate::model::error::ModelError;

/// Longest provider message or body excerpt kept in an error.
const MAX_MESSAGE_CHARS: usize = 1000;
/// Longest body excerpt quoted when an answer does not parse.
const MAX_SNIPPET_CHARS: usize = 200;

/// A reqwest client plus the retry policy and the key (kept to scrub it from messages).
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    client: reqwest::Client,
    timeout_ms: u64,
    max_retries: u32,
    retry_base_ms: u64,
    max_retry_wait_ms: u64,
    key: Option<Secret>,
}

impl HttpClient {
    /// Builds the client; proxies come from HTTPS_PROXY/NO_PROXY as reqwest does by default.
    pub(crate) fn new(config: &ModelConfig) -> Result<Self, ModelError> {
        let mut builder = reqwest::Client::builder()
            .timeout(Duration::from_millis(config.timeout_ms))
            .user_agent(concat!("actionbook/", env!("CARGO_PKG_VERSION")));
        // A model server on this machine (llama.cpp, Ollama) is never behind the proxy.
        if is_loopback(&config.base_url) {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| ModelError::NotConfigured {
            what: format!("could not build the HTTP client: {}", error_chain(&e)),
        })?;
        Ok(Self {
            client,
            timeout_ms: config.timeout_ms,
            max_retries: config.max_retries,
            retry_base_ms: config.retry_base_ms,
            max_retry_wait_ms: config.max_retry_wait_ms,
            key: config.api_key.clone(),
        })
    }

    /// A header value holding the key, marked sensitive so it is never printed.
    pub(crate) fn secret_header(&self, prefix: &str) -> Result<Option<HeaderValue>, ModelError> {
        let Some(key) = self.key.as_ref().filter(|k| !k.expose().is_empty()) else {
            return Ok(None);
        };
        let mut value =
            HeaderValue::from_str(&format!("{prefix}{}", key.expose())).map_err(|_| {
                ModelError::NotConfigured {
                    what: "the API key contains characters that cannot be sent in an HTTP header"
                        .to_string(),
                }
            })?;
        value.set_sensitive(true);
        Ok(Some(value))
    }

    /// POSTs `body` as JSON and parses a 2xx answer as `R`, retrying 429, 5xx and connection errors.
    pub(crate) async fn post_json<B, R>(
        &self,
        url: &str,
        mut headers: HeaderMap,
        body: &B,
        model: &str,
    ) -> Result<R, ModelError>
    where
        B: serde::Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let payload = serde_json::to_vec(body).map_err(|e| ModelError::Transport {
            message: format!("could not encode the request: {e}"),
        })?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));

        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let may_retry = attempt <= self.max_retries;
            let sent = self
                .client
                .post(url)
                .headers(headers.clone())
                .body(payload.clone())
                .send()
                .await;
            let response = match sent {
                Ok(response) => response,
                // A timed-out generation is not retried: it would likely time out again, slowly.
                Err(e) if e.is_timeout() => {
                    return Err(ModelError::Timeout {
                        ms: self.timeout_ms,
                    });
                }
                Err(e) if e.is_connect() && may_retry => {
                    tokio::time::sleep(self.backoff(attempt)).await;
                    continue;
                }
                Err(e) => {
                    return Err(ModelError::Transport {
                        message: self.redact(&error_chain(&e)),
                    });
                }
            };

            let status = response.status().as_u16();
            if response.status().is_success() {
                let bytes = response.bytes().await.map_err(|e| self.body_error(&e))?;
                return serde_json::from_slice(&bytes).map_err(|e| ModelError::BadAnswer {
                    message: format!(
                        "the response is not the expected JSON ({e}); it starts with: {}",
                        self.redact(&excerpt(&bytes, MAX_SNIPPET_CHARS))
                    ),
                });
            }

            if status == 429 || status >= 500 {
                let retry_after = retry_after_ms(response.headers(), SystemTime::now());
                if may_retry {
                    let wait = retry_after
                        .map(Duration::from_millis)
                        .unwrap_or_else(|| self.backoff(attempt))
                        .min(Duration::from_millis(self.max_retry_wait_ms));
                    // Drop the body before sleeping so the connection can go back to the pool.
                    drop(response);
                    tokio::time::sleep(wait).await;
                    continue;
                }
                return Err(if status == 429 {
                    ModelError::RateLimited {
                        attempts: attempt,
                        retry_after_ms: retry_after,
                    }
                } else {
                    ModelError::Server {
                        status,
                        attempts: attempt,
                    }
                });
            }

            return Err(match status {
                401 | 403 => ModelError::BadKey { status },
                404 => ModelError::UnknownModel {
                    model: model.to_string(),
                },
                _ => {
                    let bytes = response.bytes().await.map_err(|e| self.body_error(&e))?;
                    let detail = provider_error(&bytes);
                    if detail.model_not_found {
                        ModelError::UnknownModel {
                            model: model.to_string(),
                        }
                    } else {
                        ModelError::Refused {
                            status,
                            message: self.redact(&detail.message),
                        }
                    }
                }
            });
        }
    }

    /// Exponential backoff for the retry after attempt `attempt` (1-based), capped.
    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u64
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u64::MAX);
        Duration::from_millis(
            self.retry_base_ms
                .saturating_mul(factor)
                .min(self.max_retry_wait_ms),
        )
    }

    fn body_error(&self, e: &reqwest::Error) -> ModelError {
        if e.is_timeout() {
            ModelError::Timeout {
                ms: self.timeout_ms,
            }
        } else {
            ModelError::Transport {
                message: self.redact(&error_chain(e)),
            }
        }
    }

    /// Replaces the key wherever it appears, in case a server or proxy echoes it back.
    fn redact(&self, text: &str) -> String {
        match self.key.as_ref().map(Secret::expose) {
            Some(key) if !key.is_empty() => text.replace(key, "***"),
            _ => text.to_string(),
        }
    }
}

/// Whether `base_url` points at this machine.
fn is_loopback(base_url: &str) -> bool {
    let Ok(url) = url::Url::parse(base_url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// An error and all its sources, since reqwest's own Display hides the cause.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// At most `max` characters of a body, decoded leniently.
fn excerpt(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// The provider's explanation of a 4xx, and whether it says the model does not exist.
struct ProviderError {
    message: String,
    model_not_found: bool,
}

/// `{"error": {...}}` (OpenAI, Anthropic), `{"error": "text"}` (llama.cpp, Ollama) or `{"message": ...}`.
#[derive(Deserialize)]
struct ErrorEnvelope {
    error: Option<ErrorField>,
    message: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ErrorField {
    Detail(ErrorDetail),
    Text(String),
}

#[derive(Deserialize)]
struct ErrorDetail {
    message: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    code: Option<serde_json::Value>,
}

fn provider_error(bytes: &[u8]) -> ProviderError {
    // Gemini's OpenAI-compatible endpoint wraps the envelope in a one-element array.
    let envelope = serde_json::from_slice::<ErrorEnvelope>(bytes)
        .ok()
        .or_else(|| {
            serde_json::from_slice::<Vec<ErrorEnvelope>>(bytes)
                .ok()
                .and_then(|list| list.into_iter().next())
        });
    let (message, kind, code) = match envelope {
        Some(ErrorEnvelope {
            error: Some(ErrorField::Detail(d)),
            message,
        }) => (d.message.or(message), d.kind, d.code),
        Some(ErrorEnvelope {
            error: Some(ErrorField::Text(text)),
            ..
        }) => (Some(text), None, None),
        Some(ErrorEnvelope {
            error: None,
            message,
        }) => (message, None, None),
        None => (None, None, None),
    };
    let message = message
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| excerpt(bytes, MAX_MESSAGE_CHARS));
    let code = code.as_ref().and_then(|c| c.as_str()).unwrap_or_default();
    let lower = message.to_ascii_lowercase();
    let model_not_found = code == "model_not_found"
        || kind.as_deref() == Some("not_found_error")
        || (lower.contains("model")
            && (lower.contains("not found")
                || lower.contains("does not exist")
                || lower.contains("unknown model")));
    ProviderError {
        message: excerpt(message.as_bytes(), MAX_MESSAGE_CHARS),
        model_not_found,
    }
}

/// Milliseconds the server asked us to wait: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date.
fn retry_after_ms(headers: &HeaderMap, now: SystemTime) -> Option<u64> {
    let header = |name: &HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let ms_header = HeaderName::from_static("retry-after-ms");
    if let Some(ms) = header(&ms_header).and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(ms.round() as u64);
    }
    let value = header(&RETRY_AFTER)?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| (secs * 1000.0).round() as u64);
    }
    let at = parse_http_date(value)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(at.saturating_sub(now).saturating_mul(1000))
}

/// Seconds since the epoch of an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
fn parse_http_date(value: &str) -> Option<u64> {
    let mut parts = value.split_whitespace();
    let _weekday = parts.next()?;
    let day: u64 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT" || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    // Days from civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + (h * 3600 + m * 60 + s) as i64;
    u64::try_from(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(HeaderName::from_static(k), HeaderValue::from_static(v));
        }
        map
    }

    #[test]
    fn retry_after_seconds_ms_and_date() {
        let now = UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "2")]), now),
            Some(2000)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after-ms", "150")]), now),
            Some(150)
        );
        // 784111777 is Sun, 06 Nov 1994 08:49:37 GMT.
        assert_eq!(
            retry_after_ms(
                &headers(&[("retry-after", "Sun, 06 Nov 1994 08:49:40 GMT")]),
                now
            ),
            Some(3000)
        );
        assert_eq!(
            retry_after_ms(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(retry_after_ms(&headers(&[]), now), None);
    }

    #[test]
    fn provider_error_shapes() {
        let e =
            provider_error(br#"{"error":{"message":"bad input","type":"invalid_request_error"}}"#);
        assert_eq!(e.message, "bad input");
        assert!(!e.model_not_found);
        let e = provider_error(br#"{"error":"model 'x' not found, try pulling it first"}"#);
        assert!(e.model_not_found);
        let e = provider_error(br#"[{"error":{"code":400,"message":"API key not valid"}}]"#);
        assert_eq!(e.message, "API key not valid");
        let e = provider_error(b"<html>oops</html>");
        assert_eq!(e.message, "<html>oops</html>");
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost:11434/v1"));
        assert!(is_loopback("http://[::1]:8080"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("http://10.0.0.5:8080"));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut config = ModelConfig::preset(crate::model::config::Provider::OpenAi);
        config.retry_base_ms = 500;
        config.max_retry_wait_ms = 1500;
        let http = HttpClient::new(&config).expect("client builds");
        assert_eq!(http.backoff(1), Duration::from_millis(500));
        assert_eq!(http.backoff(2), Duration::from_millis(1000));
        assert_eq!(http.backoff(3), Duration::from_millis(1500));
        assert_eq!(http.backoff(80), Duration::from_millis(1500));
    }
}
