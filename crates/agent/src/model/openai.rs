//! Client for OpenAI-compatible chat completions (OpenAI, Gemini, DeepSeek, llama.cpp, Ollama...).

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::config::ModelConfig;
use crate::model::error::ModelError;
use crate::model::http::HttpClient;
use crate::model::types::{Message, ModelAnswer, ModelRequest, Role, ToolCall, Usage};
use crate::model::{Model, parse_json_answer};

/// A model behind `POST {base_url}/chat/completions`.
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    http: HttpClient,
    url: String,
    model: String,
}

impl OpenAiCompatible {
    /// A client for `config.model` at `config.base_url`; sends `Authorization` only when a key is set.
    pub fn new(config: &ModelConfig) -> Result<Self, ModelError> {
        Ok(Self {
            http: HttpClient::new(config)?,
            url: format!("{}/chat/completions", config.base_url.trim_end_matches('/')),
            model: config.model.clone(),
        })
    }

    fn body<'a>(&'a self, request: &'a ModelRequest) -> ChatRequest<'a> {
        let messages = request
            .messages
            .iter()
            .map(ChatMessage::from_message)
            .collect();
        let tools: Vec<ChatTool<'a>> = request
            .tools
            .iter()
            .map(|t| ChatTool {
                kind: "function",
                function: ChatFunction {
                    name: &t.name,
                    description: &t.description,
                    parameters: &t.input_schema,
                },
            })
            .collect();
        let tool_choice = (!tools.is_empty()).then_some("auto");
        let response_format = request
            .json_schema
            .as_ref()
            .map(|(name, schema)| ResponseFormat {
                kind: "json_schema",
                json_schema: JsonSchemaFormat {
                    name,
                    schema,
                    // Non-strict: strict mode rejects common schemas (optional fields, formats).
                    strict: false,
                },
            });
        ChatRequest {
            model: &self.model,
            messages,
            tools,
            tool_choice,
            response_format,
            max_tokens: request.max_tokens,
        }
    }
}

#[async_trait]
impl Model for OpenAiCompatible {
    async fn complete(&self, request: &ModelRequest) -> Result<ModelAnswer, ModelError> {
        let body = self.body(request);
        let mut headers = HeaderMap::new();
        if let Some(value) = self.http.secret_header("Bearer ")? {
            headers.insert(AUTHORIZATION, value);
        }
        let response: ChatResponse = self
            .http
            .post_json(&self.url, headers, &body, &self.model)
            .await?;
        answer_from(response, request.json_schema.is_some())
    }

    fn name(&self) -> &str {
        &self.model
    }
}

fn answer_from(response: ChatResponse, want_json: bool) -> Result<ModelAnswer, ModelError> {
    let usage = response
        .usage
        .map(|u| Usage {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
        })
        .unwrap_or_default();
    let Some(choice) = response.choices.into_iter().next() else {
        return Err(ModelError::BadAnswer {
            message: "the answer has no choices".to_string(),
        });
    };
    let message = choice.message;
    if let Some(refusal) = message.refusal.filter(|r| !r.trim().is_empty()) {
        return Err(ModelError::Refused {
            status: 200,
            message: refusal,
        });
    }
    let tool_calls = message
        .tool_calls
        .into_iter()
        .enumerate()
        .map(|(index, call)| {
            let arguments = parse_arguments(&call.function.name, call.function.arguments)?;
            Ok(ToolCall {
                // Some local servers omit the id; the conversation still needs one to pair results.
                id: call
                    .id
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| format!("call_{index}")),
                name: call.function.name,
                arguments,
            })
        })
        .collect::<Result<Vec<_>, ModelError>>()?;
    let text = message.content.filter(|c| !c.is_empty());
    let json = if want_json {
        Some(parse_json_answer(text.as_deref())?)
    } else {
        None
    };
    Ok(ModelAnswer {
        text,
        tool_calls,
        json,
        usage,
    })
}

/// Arguments arrive as a JSON string (OpenAI) or, from some servers, as an object already.
fn parse_arguments(tool: &str, arguments: Option<Arguments>) -> Result<Value, ModelError> {
    match arguments {
        None => Ok(Value::Object(Default::default())),
        Some(Arguments::Object(value)) => Ok(value),
        Some(Arguments::Text(text)) if text.trim().is_empty() => {
            Ok(Value::Object(Default::default()))
        }
        Some(Arguments::Text(text)) => {
            serde_json::from_str(&text).map_err(|e| ModelError::BadAnswer {
                message: format!("the arguments of the call to '{tool}' are not JSON ({e})"),
            })
        }
    }
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<ChatTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    // Null only for an assistant turn that is just tool calls, as the API expects; parts (text,
    // then images) for a user turn with images.
    content: Option<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

impl<'a> ChatMessage<'a> {
    fn from_message(m: &'a Message) -> Self {
        let role = match m.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        let tool_calls = m
            .tool_calls
            .iter()
            .map(|c| WireToolCall {
                id: &c.id,
                kind: "function",
                function: WireFunction {
                    name: &c.name,
                    arguments: c.arguments.to_string(),
                },
            })
            .collect::<Vec<_>>();
        let content = if m.content.is_empty() && !tool_calls.is_empty() {
            None
        } else if m.images.is_empty() {
            Some(Content::Text(m.content.as_str()))
        } else {
            let mut parts = vec![Part::Text {
                text: m.content.as_str(),
            }];
            parts.extend(m.images.iter().map(|i| Part::ImageUrl {
                image_url: ImageUrl {
                    url: format!("data:{};base64,{}", i.media_type, i.base64),
                },
            }));
            Some(Content::Parts(parts))
        };
        Self {
            role,
            content,
            tool_calls,
            tool_call_id: m.tool_call_id.as_deref(),
        }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(Vec<Part<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: String,
}

#[derive(Serialize)]
struct ChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ChatFunction<'a>,
}

#[derive(Serialize)]
struct ChatFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: JsonSchemaFormat<'a>,
}

#[derive(Serialize)]
struct JsonSchemaFormat<'a> {
    name: &'a str,
    schema: &'a Value,
    strict: bool,
}

#[derive(Deserialize)]
struct ChatResponse {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ResponseToolCall>,
    refusal: Option<String>,
}

#[derive(Deserialize)]
struct ResponseToolCall {
    id: Option<String>,
    function: ResponseFunction,
}

#[derive(Deserialize)]
struct ResponseFunction {
    name: String,
    arguments: Option<Arguments>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Arguments {
    Text(String),
    Object(Value),
}

#[derive(Deserialize)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}
