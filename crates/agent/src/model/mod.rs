//! The model layer: provider-neutral types, configuration, and HTTP clients for LLM APIs.

pub mod anthropic;
pub mod config;
pub mod error;
mod http;
pub mod openai;
pub mod types;

use std::sync::Arc;

use async_trait::async_trait;

pub use anthropic::Anthropic;
pub use config::{LlmSection, ModelConfig, Provider, Secret};
pub use error::ModelError;
pub use openai::OpenAiCompatible;
pub use types::{Image, Message, ModelAnswer, ModelRequest, Role, ToolCall, ToolSpec, Usage};

/// A chat model that answers one request at a time.
#[async_trait]
pub trait Model: Send + Sync + std::fmt::Debug {
    /// Sends the conversation and returns the model's answer.
    async fn complete(&self, request: &ModelRequest) -> Result<ModelAnswer, ModelError>;
    /// The model id this client talks to.
    fn name(&self) -> &str;
}

/// A command's model: connected, or why it could not be (only an error once a model is needed:
/// a cached `perform` needs none).
pub type ModelSlot = Result<Arc<dyn Model>, ModelError>;

/// Builds the client that speaks `config.provider`'s API.
pub fn connect(config: &ModelConfig) -> Result<Arc<dyn Model>, ModelError> {
    Ok(match config.provider {
        Provider::Anthropic => Arc::new(Anthropic::new(config)?),
        Provider::OpenAi | Provider::Gemini | Provider::DeepSeek => {
            Arc::new(OpenAiCompatible::new(config)?)
        }
    })
}

/// Reads a JSON-mode answer, tolerating the code fence some local models wrap it in.
fn parse_json_answer(text: Option<&str>) -> Result<serde_json::Value, ModelError> {
    let Some(text) = text else {
        return Err(ModelError::BadAnswer {
            message: "a JSON answer was requested but the answer has no text".to_string(),
        });
    };
    let trimmed = text.trim();
    let unfenced = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    serde_json::from_str(unfenced.trim()).map_err(|e| ModelError::BadAnswer {
        message: format!("a JSON answer was requested but the text is not JSON ({e})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_answer_plain_and_fenced() {
        assert_eq!(
            parse_json_answer(Some(" {\"a\":1} ")),
            Ok(serde_json::json!({"a": 1}))
        );
        assert_eq!(
            parse_json_answer(Some("```json\n{\"a\":1}\n```")),
            Ok(serde_json::json!({"a": 1}))
        );
        assert!(matches!(
            parse_json_answer(Some("sure! here it is")),
            Err(ModelError::BadAnswer { .. })
        ));
        assert!(parse_json_answer(None).is_err());
    }
}
