//! Asking the model, within the command's deadline, with one repair round: an answer with no
//! usable tool call is sent back with what was wrong, once; a second bad answer is an error.

use actionbook::commands::extension::ExtensionCall;

use crate::actions::{self, Decision};
use crate::error::{AgentError, Result};
use crate::mcp::McpServers;
use crate::model::{Message, Model, ModelAnswer, ModelRequest, ToolSpec, Usage};
use crate::page::PageView;

/// Sends `request`, bounded by what is left of the call's deadline; dropped when the asker asks
/// the command to stop.
pub async fn complete(
    model: &dyn Model,
    request: &ModelRequest,
    call: &ExtensionCall<'_>,
) -> Result<ModelAnswer> {
    let deadline = call.deadline;
    tokio::select! {
        answer = tokio::time::timeout(deadline.remaining(), model.complete(request)) => match answer {
            Ok(answer) => Ok(answer?),
            Err(_) => Err(AgentError::Timeout {
                what: "model call",
                timeout_ms: deadline.timeout_ms(),
            }),
        },
        () = call.asker.stopped() => Err(AgentError::Stopped),
    }
}

/// What one answer asked for: its decisions in order, or what was wrong with it.
fn read(
    answer: &ModelAnswer,
    view: &PageView,
    mcp: &McpServers,
) -> std::result::Result<Vec<Decision>, String> {
    if answer.tool_calls.is_empty() {
        return Err("answer with a tool call (no text answer is read)".to_string());
    }
    let mut out = Vec::new();
    for call in &answer.tool_calls {
        let decision = actions::decode(call, mcp)?;
        if let Decision::Act(action) = &decision
            && let Some(r) = action.reference()
            && view.node(r).is_none()
        {
            return Err(format!(
                "{r} is not a ref of the snapshot; use a ref printed as [ref=eN]"
            ));
        }
        out.push(decision);
    }
    Ok(out)
}

/// Asks for the next decisions; `messages` grows by the exchange (the answer, and the repair
/// round's when there was one).
pub async fn decide(
    model: &dyn Model,
    messages: &mut Vec<Message>,
    tools: &[ToolSpec],
    view: &PageView,
    call: &ExtensionCall<'_>,
    usage: &mut Usage,
    mcp: &McpServers,
) -> Result<Vec<Decision>> {
    let mut problem = None;
    for _round in 0..2 {
        let request = ModelRequest {
            messages: messages.clone(),
            tools: tools.to_vec(),
            json_schema: None,
            max_tokens: None,
        };
        let answer = complete(model, &request, call).await?;
        usage.add(answer.usage);
        messages.push(answer.to_message());
        match read(&answer, view, mcp) {
            Ok(decisions) => return Ok(decisions),
            Err(what) => {
                // Each call is answered (the APIs require it), then the repair instruction.
                for call in &answer.tool_calls {
                    messages.push(Message::tool_result(&call.id, format!("not run: {what}")));
                }
                messages.push(Message::user(format!(
                    "Your answer could not be used: {what}. Answer again with a tool call."
                )));
                problem = Some(what);
            }
        }
    }
    Err(AgentError::NoUsableAnswer {
        message: problem.unwrap_or_default(),
    })
}
