//! Provider-neutral request and answer types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who speaks a message in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The user (or the agent acting for them).
    User,
    /// The model.
    Assistant,
    /// The result of a tool call the model asked for.
    Tool,
}

/// One message of a conversation, including tool calls and tool results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// Text of the message; for a tool result, the result itself; may be empty.
    #[serde(default)]
    pub content: String,
    /// Tool calls an assistant message made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result, the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Images a user message shows the model after its text (`--visual`'s screenshot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
}

/// An image for the model, inline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`.
    pub media_type: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub base64: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::plain(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::plain(Role::User, content)
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::plain(Role::Assistant, content)
    }

    /// An assistant message that made tool calls (the text may be empty).
    pub fn assistant_tool_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls,
            ..Self::plain(Role::Assistant, content)
        }
    }

    /// The result of the tool call with id `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(tool_call_id.into()),
            ..Self::plain(Role::Tool, content)
        }
    }

    fn plain(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            images: Vec::new(),
        }
    }

    /// This message with `image` shown after its text.
    pub fn with_image(mut self, image: Image) -> Self {
        self.images.push(image);
        self
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model uses to call it.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub input_schema: Value,
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Id to answer with in the tool result.
    pub id: String,
    /// Name of the tool called.
    pub name: String,
    /// Arguments, already parsed from JSON.
    pub arguments: Value,
}

/// One request to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Ask for a JSON answer matching this (name, JSON Schema); the answer lands in `ModelAnswer::json`.
    #[serde(default)]
    pub json_schema: Option<(String, Value)>,
    /// Cap on the answer's length in tokens.
    #[serde(default)]
    pub max_tokens: Option<u32>,
}

impl ModelRequest {
    /// A request with these messages and nothing else.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }
}

/// Tokens a request consumed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Adds another request's usage to this total.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// What the model answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelAnswer {
    /// Text of the answer, if any.
    pub text: Option<String>,
    /// Tool calls the model made, in order.
    pub tool_calls: Vec<ToolCall>,
    /// The JSON answer when the request had a `json_schema`.
    pub json: Option<Value>,
    /// Tokens consumed.
    pub usage: Usage,
}

impl ModelAnswer {
    /// The assistant message to append to the conversation before sending tool results.
    pub fn to_message(&self) -> Message {
        Message::assistant_tool_calls(
            self.text.clone().unwrap_or_default(),
            self.tool_calls.clone(),
        )
    }
}
