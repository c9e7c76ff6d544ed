//! `browser extract "<what>" [--schema file.json]`: the page's snapshot in, JSON out that
//! validates against the schema given (or any JSON object), with the refs the values came from.
//! An answer that does not validate is sent back once with what is wrong; a second one is an
//! error listing the problems.

use actionbook::TabTarget;
use actionbook::commands::extension::ExtensionCall;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::ask;
use crate::error::{AgentError, Result};
use crate::model::{Message, ModelError, ModelRequest, ModelSlot, Usage};
use crate::page;
use crate::schema;

/// What `extract` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractAnswer {
    /// The extracted value (it validates against the schema given).
    pub value: Value,
    /// Refs of the elements the values came from, as the model said.
    pub refs: Vec<String>,
    /// Tokens the model used (both rounds when there was a repair).
    pub usage: Usage,
    /// Whether the first answer needed the repair round.
    pub repaired: bool,
    /// The model asked.
    pub model: String,
}

impl envelope::RenderText for ExtractAnswer {
    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        body.line(serde_json::to_string_pretty(&self.value).unwrap_or_default());
    }
}

const SYSTEM: &str = "You extract data from a web page. You get what to extract and the page's accessibility snapshot \
(one element a line, `- role \"name\" [ref=eN]`). Answer with JSON only: `data` holding exactly what was asked, in the shape \
of its schema, taken from the page (never invented: leave out or null what the page does not say), and `refs`, the refs of the \
elements the values came from.";

/// Any JSON value, when no schema is given.
fn free_form() -> Value {
    json!({ "type": "object", "additionalProperties": true })
}

/// Runs `extract`.
pub async fn extract(
    call: &ExtensionCall<'_>,
    model: &ModelSlot,
    target: &TabTarget,
    what: &str,
    user_schema: Option<Value>,
) -> Result<ExtractAnswer> {
    if what.trim().is_empty() {
        return Err(AgentError::BadArguments(
            "extract needs a description of what to extract".into(),
        ));
    }
    let model = model.as_deref().map_err(|e| AgentError::Model(e.clone()))?;
    let view = page::look(call, target, false).await?;
    let data_schema = user_schema.unwrap_or_else(free_form);
    let wrapped = json!({
        "type": "object",
        "required": ["data", "refs"],
        "properties": {
            "data": data_schema,
            "refs": { "type": "array", "items": { "type": "string" } }
        }
    });
    let mut messages = vec![
        Message::system(SYSTEM),
        Message::user(format!(
            "Extract: {what}\nSchema of data: {data_schema}\n\nPage: {}\n{}",
            view.url().unwrap_or("(unknown URL)"),
            view.text
        )),
    ];
    let mut usage = Usage::default();
    let mut last = Vec::new();
    for round in 0..2 {
        let request = ModelRequest {
            messages: messages.clone(),
            tools: vec![],
            json_schema: Some(("extraction".to_string(), wrapped.clone())),
            max_tokens: None,
        };
        let answer = match ask::complete(model, &request, call).await {
            // An answer that is no JSON at all gets the repair round too.
            Err(AgentError::Model(ModelError::BadAnswer { message })) if round == 0 => {
                last = vec![message.clone()];
                messages.push(Message::user(format!(
                    "Your answer could not be read as JSON ({message}). Answer with JSON only."
                )));
                continue;
            }
            other => other?,
        };
        usage.add(answer.usage);
        let json = answer.json.clone().unwrap_or(Value::Null);
        last = schema::problems(&wrapped, &json);
        if last.is_empty() {
            let refs = json["refs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(|r| r.trim_start_matches('@').to_string())
                        .collect()
                })
                .unwrap_or_default();
            return Ok(ExtractAnswer {
                value: json["data"].clone(),
                refs,
                usage,
                repaired: round > 0,
                model: model.name().to_string(),
            });
        }
        messages.push(Message::assistant(json.to_string()));
        messages.push(Message::user(format!(
            "That JSON does not match the schema: {}. Answer again with JSON that does.",
            last.join("; ")
        )));
    }
    Err(AgentError::SchemaMismatch { problems: last })
}
