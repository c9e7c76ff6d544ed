//! Client for Anthropic's Messages API.

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::Model;
use crate::model::config::ModelConfig;
use crate::model::error::ModelError;
use crate::model::http::HttpClient;
use crate::model::types::{Message, ModelAnswer, ModelRequest, Role, ToolCall, Usage};

/// API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// `max_tokens` sent when the request sets none, since Anthropic requires one.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// A model behind `POST {base_url}/v1/messages`.
#[derive(Debug, Clone)]
pub struct Anthropic {
    http: HttpClient,
    url: String,
    model: String,
}

impl Anthropic {
    /// A client for `config.model` at `config.base_url`.
    pub fn new(config: &ModelConfig) -> Result<Self, ModelError> {
        Ok(Self {
            http: HttpClient::new(config)?,
            url: format!("{}/v1/messages", config.base_url.trim_end_matches('/')),
            model: config.model.clone(),
        })
    }

    fn body<'a>(&'a self, request: &'a ModelRequest) -> MessagesRequest<'a> {
        let system_parts: Vec<&str> = request
            .messages
            .iter()
            .filter(|m| m.role == Role::System && !m.content.is_empty())
            .map(|m| m.content.as_str())
            .collect();
        let system = (!system_parts.is_empty()).then(|| system_parts.join("\n\n"));

        let mut tools: Vec<WireTool<'a>> = request
            .tools
            .iter()
            .map(|t| WireTool {
                name: &t.name,
                description: &t.description,
                input_schema: &t.input_schema,
            })
            .collect();
        // JSON mode: one forced tool whose input is the answer (so no other tool is called this turn).
        let tool_choice = request.json_schema.as_ref().map(|(name, schema)| {
            tools.push(WireTool {
                name,
                description: "Give the answer as this tool's input, matching its schema.",
                input_schema: schema,
            });
            ToolChoice { kind: "tool", name }
        });

        MessagesRequest {
            model: &self.model,
            max_tokens: request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            system,
            messages: wire_messages(&request.messages),
            tools,
            tool_choice,
        }
    }
}

#[async_trait]
impl Model for Anthropic {
    async fn complete(&self, request: &ModelRequest) -> Result<ModelAnswer, ModelError> {
        let body = self.body(request);
        let mut headers = HeaderMap::new();
        if let Some(value) = self.http.secret_header("")? {
            headers.insert(HeaderName::from_static("x-api-key"), value);
        }
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        let response: MessagesResponse = self
            .http
            .post_json(&self.url, headers, &body, &self.model)
            .await?;
        answer_from(
            response,
            request.json_schema.as_ref().map(|(name, _)| name.as_str()),
        )
    }

    fn name(&self) -> &str {
        &self.model
    }
}

/// Converts the conversation; same-role neighbours merge, so consecutive tool results share one user turn.
fn wire_messages(messages: &[Message]) -> Vec<WireMessage<'_>> {
    let mut out: Vec<WireMessage<'_>> = Vec::new();
    for m in messages {
        let (role, blocks) = match m.role {
            // Sent in the top-level `system` field instead.
            Role::System => continue,
            Role::User => {
                let mut blocks: Vec<Block<'_>> = text_block(&m.content).into_iter().collect();
                blocks.extend(m.images.iter().map(|i| Block::Image {
                    source: ImageSource {
                        kind: "base64",
                        media_type: &i.media_type,
                        data: &i.base64,
                    },
                }));
                ("user", blocks)
            }
            Role::Assistant => {
                let mut blocks: Vec<Block<'_>> = text_block(&m.content).into_iter().collect();
                blocks.extend(m.tool_calls.iter().map(|c| Block::ToolUse {
                    id: &c.id,
                    name: &c.name,
                    input: &c.arguments,
                }));
                ("assistant", blocks)
            }
            Role::Tool => (
                "user",
                vec![Block::ToolResult {
                    tool_use_id: m.tool_call_id.as_deref().unwrap_or_default(),
                    content: &m.content,
                }],
            ),
        };
        // The API rejects empty turns and empty text blocks.
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => out.push(WireMessage {
                role,
                content: blocks,
            }),
        }
    }
    out
}

fn text_block(text: &str) -> Option<Block<'_>> {
    (!text.is_empty()).then_some(Block::Text { text })
}

fn answer_from(
    response: MessagesResponse,
    json_tool: Option<&str>,
) -> Result<ModelAnswer, ModelError> {
    let usage = Usage {
        input_tokens: response.usage.input_tokens,
        output_tokens: response.usage.output_tokens,
    };
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    let mut json = None;
    for block in response.content {
        match block {
            ResponseBlock::Text { text } => texts.push(text),
            ResponseBlock::ToolUse { id, name, input } => {
                if json.is_none() && json_tool == Some(name.as_str()) {
                    json = Some(input);
                } else {
                    tool_calls.push(ToolCall {
                        id,
                        name,
                        arguments: input,
                    });
                }
            }
            ResponseBlock::Other => {}
        }
    }
    let text = (!texts.is_empty()).then(|| texts.concat());
    if response.stop_reason.as_deref() == Some("refusal") {
        return Err(ModelError::Refused {
            status: 200,
            message: text.unwrap_or_else(|| "the model declined to answer".to_string()),
        });
    }
    if let Some(name) = json_tool
        && json.is_none()
    {
        return Err(ModelError::BadAnswer {
            message: format!("the answer did not use the '{name}' tool that carries the JSON"),
        });
    }
    Ok(ModelAnswer {
        text,
        tool_calls,
        json,
        usage,
    })
}

#[derive(Serialize)]
struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice<'a>>,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
    },
    Image {
        source: ImageSource<'a>,
    },
}

#[derive(Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct ToolChoice<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
}

#[derive(Deserialize)]
struct MessagesResponse {
    #[serde(default)]
    content: Vec<ResponseBlock>,
    #[serde(default)]
    usage: ResponseUsage,
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    // Thinking and other block kinds carry nothing the agent uses.
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default)]
struct ResponseUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}
