//! Which provider, model and key to use, resolved from the environment and the config file.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::model::error::ModelError;

/// Default per-request timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Default number of retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// Default first backoff delay; it doubles on each retry.
pub const DEFAULT_RETRY_BASE_MS: u64 = 500;
/// Default cap on any single wait between retries, `Retry-After` included.
pub const DEFAULT_MAX_RETRY_WAIT_MS: u64 = 30_000;

/// A model provider; Gemini and DeepSeek are reached through their OpenAI-compatible endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI, or any OpenAI-compatible server (llama.cpp, Ollama, vLLM...) via `base_url`.
    #[default]
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
    /// Google Gemini's OpenAI-compatible endpoint.
    Gemini,
    /// DeepSeek's OpenAI-compatible endpoint.
    DeepSeek,
}

impl Provider {
    /// Every provider, for help texts.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::DeepSeek,
    ];

    /// The lowercase name used in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::DeepSeek => "deepseek",
        }
    }

    /// Base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com/v1beta/openai",
            Provider::DeepSeek => "https://api.deepseek.com/v1",
        }
    }

    /// Model used when none is configured.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi => "gpt-4o-mini",
            Provider::Anthropic => "claude-3-5-haiku-latest",
            Provider::Gemini => "gemini-2.0-flash",
            Provider::DeepSeek => "deepseek-chat",
        }
    }

    /// The provider's customary key variables, tried in order after `ACTIONBOOK_LLM_API_KEY`.
    pub fn key_env_vars(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY"],
            Provider::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            Provider::DeepSeek => &["DEEPSEEK_API_KEY"],
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        // Accept a few spellings people actually type.
        let alias = match wanted.as_str() {
            "openai-compatible" | "open-ai" | "local" => Some(Provider::OpenAi),
            "claude" => Some(Provider::Anthropic),
            "google" => Some(Provider::Gemini),
            "deep-seek" => Some(Provider::DeepSeek),
            _ => None,
        };
        alias
            .or_else(|| Provider::ALL.into_iter().find(|p| p.as_str() == wanted))
            .ok_or_else(|| ModelError::NotConfigured {
                what: format!(
                    "unknown provider '{}' (expected one of: openai, anthropic, gemini, deepseek)",
                    s.trim()
                ),
            })
    }
}

/// A secret string whose Debug and Display print `***`, never the value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// The `[llm]` section of the config file; every field is optional.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LlmSection {
    /// Provider name (`openai`, `anthropic`, `gemini`, `deepseek`).
    pub provider: Option<String>,
    /// Base URL of the API.
    pub base_url: Option<String>,
    /// Model id.
    pub model: Option<String>,
    /// API key (the environment is the better place for it).
    pub api_key: Option<String>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Retries after the first attempt.
    pub max_retries: Option<u32>,
}

impl fmt::Debug for LlmSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmSection")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("timeout_ms", &self.timeout_ms)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// Everything needed to talk to one model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// Which API dialect to speak.
    pub provider: Provider,
    /// Base URL, without a trailing slash.
    pub base_url: String,
    /// Model id.
    pub model: String,
    /// API key; `None` sends no auth header (local servers need none).
    pub api_key: Option<Secret>,
    /// Per-request timeout in milliseconds.
    pub timeout_ms: u64,
    /// Retries after the first attempt on 429, 5xx and connection errors.
    pub max_retries: u32,
    /// First backoff delay in milliseconds; doubles on each retry.
    pub retry_base_ms: u64,
    /// Cap on any single wait between retries, in milliseconds.
    pub max_retry_wait_ms: u64,
}

impl ModelConfig {
    /// A config for `provider` with its preset base URL and default model, and no key.
    pub fn preset(provider: Provider) -> Self {
        Self {
            provider,
            base_url: provider.default_base_url().to_string(),
            model: provider.default_model().to_string(),
            api_key: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_base_ms: DEFAULT_RETRY_BASE_MS,
            max_retry_wait_ms: DEFAULT_MAX_RETRY_WAIT_MS,
        }
    }

    /// Resolves the config: `ACTIONBOOK_LLM_*` variables win over the file, presets fill the rest.
    ///
    /// The key is `ACTIONBOOK_LLM_API_KEY`, else the file's `api_key`, else the provider's
    /// customary variable (`OPENAI_API_KEY`, ...). No key at all is not an error: local servers
    /// need none, and a remote one answers 401, which becomes `ModelError::BadKey`.
    pub fn resolve(
        env: &dyn Fn(&str) -> Option<String>,
        file: Option<&LlmSection>,
    ) -> Result<ModelConfig, ModelError> {
        // An empty variable counts as unset, as shells make `FOO=` easy to leave behind.
        let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let from_file = |pick: fn(&LlmSection) -> &Option<String>| {
            file.and_then(|f| pick(f).clone())
                .filter(|v| !v.trim().is_empty())
        };

        let provider = match var("ACTIONBOOK_LLM_PROVIDER").or_else(|| from_file(|f| &f.provider)) {
            Some(name) => name.parse::<Provider>()?,
            None => Provider::OpenAi,
        };
        let mut config = ModelConfig::preset(provider);

        if let Some(base_url) =
            var("ACTIONBOOK_LLM_BASE_URL").or_else(|| from_file(|f| &f.base_url))
        {
            config.base_url = normalize_base_url(&base_url)?;
        }
        if let Some(model) = var("ACTIONBOOK_LLM_MODEL").or_else(|| from_file(|f| &f.model)) {
            config.model = model.trim().to_string();
        }
        config.api_key = var("ACTIONBOOK_LLM_API_KEY")
            .or_else(|| from_file(|f| &f.api_key))
            .or_else(|| provider.key_env_vars().iter().find_map(|name| var(name)))
            .map(|key| Secret::new(key.trim()));
        if let Some(f) = file {
            if let Some(ms) = f.timeout_ms {
                config.timeout_ms = ms;
            }
            if let Some(n) = f.max_retries {
                config.max_retries = n;
            }
        }
        if let Some(raw) = var("ACTIONBOOK_LLM_TIMEOUT_MS") {
            config.timeout_ms = match raw.trim().parse::<u64>() {
                Ok(ms) if ms > 0 => ms,
                _ => {
                    return Err(ModelError::NotConfigured {
                        what: format!(
                            "ACTIONBOOK_LLM_TIMEOUT_MS '{}' is not a positive number of milliseconds",
                            raw.trim()
                        ),
                    });
                }
            };
        }
        Ok(config)
    }
}

/// Checks that `raw` is an http(s) URL and drops trailing slashes so paths can be appended.
fn normalize_base_url(raw: &str) -> Result<String, ModelError> {
    let trimmed = raw.trim().trim_end_matches('/');
    let parsed = url::Url::parse(trimmed).map_err(|e| ModelError::NotConfigured {
        what: format!("base URL '{trimmed}' is not a valid URL: {e}"),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ModelError::NotConfigured {
            what: format!("base URL '{trimmed}' must start with http:// or https://"),
        });
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_parses_names_and_aliases() {
        assert_eq!("Anthropic".parse::<Provider>(), Ok(Provider::Anthropic));
        assert_eq!("claude".parse::<Provider>(), Ok(Provider::Anthropic));
        assert_eq!("deepseek".parse::<Provider>(), Ok(Provider::DeepSeek));
        assert!(matches!(
            "mistral".parse::<Provider>(),
            Err(ModelError::NotConfigured { .. })
        ));
    }

    #[test]
    fn the_timeout_comes_from_the_environment_over_the_file() {
        let file = LlmSection {
            timeout_ms: Some(5_000),
            ..LlmSection::default()
        };
        let env = |v: &'static str| {
            move |n: &str| (n == "ACTIONBOOK_LLM_TIMEOUT_MS").then(|| v.to_string())
        };
        let from_file = ModelConfig::resolve(&|_| None, Some(&file)).map(|c| c.timeout_ms);
        assert_eq!(from_file, Ok(5_000));
        let from_env = ModelConfig::resolve(&env("2500"), Some(&file)).map(|c| c.timeout_ms);
        assert_eq!(from_env, Ok(2_500));
        assert!(matches!(
            ModelConfig::resolve(&env("soon"), None),
            Err(ModelError::NotConfigured { .. })
        ));
    }

    #[test]
    fn base_url_is_checked_and_trimmed() {
        assert_eq!(
            normalize_base_url("http://127.0.0.1:8080/v1/"),
            Ok("http://127.0.0.1:8080/v1".to_string())
        );
        assert!(normalize_base_url("ftp://x").is_err());
        assert!(normalize_base_url("not a url").is_err());
    }
}
