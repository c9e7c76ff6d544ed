//! Model layer tests against a real HTTP server on 127.0.0.1.

mod anthropic;
mod config;
mod errors;
mod openai;
mod server;

use actionbook_agent::model::{ModelConfig, Provider, Secret};

/// A config pointed at the mock server, with tiny backoff so retries are fast.
pub fn test_config(provider: Provider, base_url: &str, key: Option<&str>) -> ModelConfig {
    let mut config = ModelConfig::preset(provider);
    config.base_url = base_url.to_string();
    config.model = "test-model".to_string();
    config.api_key = key.map(Secret::new);
    config.retry_base_ms = 1;
    config.max_retry_wait_ms = 50;
    config.timeout_ms = 5_000;
    config
}
