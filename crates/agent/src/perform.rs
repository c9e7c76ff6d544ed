//! `browser perform "<instruction>"`: one model call over the tab's snapshot, one action from
//! the closed set, run through the engine's command. A page that cannot do it is an error naming
//! why, never a guess that acts. A cached action for the same instruction on the same page runs
//! with no model call when its element is found again.

use actionbook::TabTarget;
use actionbook::commands::extension::ExtensionCall;
use serde::{Deserialize, Serialize};

use crate::actions::{self, Decision, Outcome};
use crate::ask;
use crate::cache::{self, Cache, Entry};
use crate::error::{AgentError, Result};
use crate::mcp::{McpServerConfig, McpServers};
use crate::model::{Message, ModelSlot, Usage};
use crate::page::{self, PageView};
use crate::variables::Variables;

/// What `perform` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerformAnswer {
    /// What ran, on which element.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Whether it came from the action cache (no model call).
    pub cached: bool,
    /// Whether the page was read from the tab's last snapshot (`--dom-cache`), not captured.
    pub dom_cached: bool,
    /// Tokens the model used (zero when cached).
    pub usage: Usage,
    /// The model asked (absent when cached).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl envelope::RenderText for PerformAnswer {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        body.line(describe(&self.outcome));
        if let Some(frame) = &self.outcome.frame {
            body.field("frame", frame);
        }
        if let Some(xpath) = &self.outcome.xpath {
            body.field("xpath", xpath);
        }
        // What a program's action or an MCP tool answered is the point of calling it.
        if let Some(result) = &self.outcome.result {
            body.field("result", result);
        }
        if self.cached {
            body.line("cached: no model call");
        } else {
            body.line(format!(
                "tokens: {} in, {} out",
                self.usage.input_tokens, self.usage.output_tokens
            ));
        }
    }
}

/// `click @e12 button "Sign in"`.
pub fn describe(o: &Outcome) -> String {
    let mut s = o.action.clone();
    if let Some(r) = &o.reference {
        s.push_str(&format!(" @{r}"));
    }
    if let Some(role) = &o.role {
        s.push_str(&format!(" {role}"));
    }
    if let Some(name) = o.name.as_deref().filter(|n| !n.is_empty()) {
        s.push_str(&format!(" {name:?}"));
    }
    s
}

/// The system prompt of `perform`.
const SYSTEM: &str = "You operate a web page for a user. You get one instruction and the page's accessibility snapshot: \
one element a line, `- role \"name\" [states] [ref=eN]`, frames nested under their iframe. \
Answer with exactly one tool call: the one action that carries out the instruction, on the element whose ref fits best. \
Write values exactly as given; `<<name>>` stands for a secret variable: pass it as written, never guess its value. \
If no element fits, or several fit equally well, call not_possible with the reason (and the candidates' refs); never guess.";

/// The user message: the instruction, the variables' names, the page.
pub fn prompt(instruction: &str, vars: &Variables, view: &PageView) -> String {
    let mut s = format!("Instruction: {instruction}\n");
    if !vars.is_empty() {
        let names: Vec<String> = vars.names().map(|n| format!("<<{n}>>")).collect();
        s.push_str(&format!("Variables: {}\n", names.join(", ")));
    }
    // A page that shows a variable's value (echoed back, or in its URL) shows the model its name.
    s.push_str(&vars.mask(&format!(
        "\nPage: {}\n{}",
        view.url().unwrap_or("(unknown URL)"),
        view.text
    )));
    s
}

/// How a `perform` runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The action cache is read (a hit: no model call) and written.
    pub use_cache: bool,
    /// The page may be read from the tab's last snapshot (`--dom-cache`).
    pub dom_cache: bool,
    /// The MCP servers whose tools are offered (started only when the model is asked).
    pub mcp_servers: Vec<McpServerConfig>,
}

/// Runs `perform`; `model` is called only when the model is asked.
pub async fn perform(
    call: &ExtensionCall<'_>,
    model: impl FnOnce() -> ModelSlot + Send,
    target: &TabTarget,
    instruction: &str,
    vars: &Variables,
    options: Options,
) -> Result<PerformAnswer> {
    let Options {
        use_cache,
        dom_cache,
        mcp_servers,
    } = options;
    if instruction.trim().is_empty() {
        return Err(AgentError::BadArguments(
            "perform needs an instruction".into(),
        ));
    }
    let cache_file = cache::path(call.home.root());
    let cache = if use_cache {
        Cache::load(&cache_file).await?
    } else {
        Cache::default()
    };
    if use_cache
        && let Some(answer) =
            replay_quickly(call, target, instruction, vars, &cache, &cache_file).await?
    {
        return Ok(answer);
    }
    let (view, dom_cached) = page::look_or_reuse(call, target, dom_cache).await?;
    let page_key = cache::page_key(view.url().unwrap_or_default());
    if let Some(action) = cache
        .find(instruction, &page_key)
        .and_then(|e| e.replay_on(&view, |n| vars.mask(n)))
    {
        let outcome = actions::run(call, target, &view, vars, &action).await?;
        Cache::count_hit(&cache_file, instruction, &page_key).await;
        return Ok(PerformAnswer {
            outcome,
            cached: true,
            dom_cached,
            usage: Usage::default(),
            model: None,
        });
    }
    // Built only now: a cached action needs no model, nor its HTTP client (TLS roots and all).
    let model = model();
    let model = model.as_deref().map_err(|e| AgentError::Model(e.clone()))?;
    // The MCP servers start only now that the model is asked, and stop whatever happens.
    let mut mcp = McpServers::start(mcp_servers, call).await?;
    let asked = Asked {
        model,
        target,
        instruction,
        vars,
        view: &view,
        dom_cached,
    };
    let done = ask_and_act(call, asked, &mcp).await;
    mcp.shutdown().await;
    let (answer, action) = done?;
    if use_cache && let Some(action) = action {
        let entry = Entry {
            instruction: instruction.to_string(),
            page: page_key,
            action,
            role: answer.outcome.role.clone(),
            name: answer.outcome.name.clone(),
            xpath: answer.outcome.xpath.clone(),
            top_document: answer.outcome.xpath.is_some() && answer.outcome.frame.is_none(),
            signature: answer.outcome.signature.clone(),
            hits: 0,
        };
        Cache::update(&cache_file, |c| {
            c.record(entry);
            true
        })
        .await?;
    }
    Ok(answer)
}

/// What `perform` asks the model about.
struct Asked<'a> {
    model: &'a dyn crate::model::Model,
    target: &'a TabTarget,
    instruction: &'a str,
    vars: &'a Variables,
    view: &'a PageView,
    dom_cached: bool,
}

/// Asks the model for the action and runs it: the answer, and the action to cache (none for
/// a program's action or an MCP tool: what they do is their own).
async fn ask_and_act(
    call: &ExtensionCall<'_>,
    asked: Asked<'_>,
    mcp: &McpServers,
) -> Result<(PerformAnswer, Option<actions::Action>)> {
    let Asked {
        model,
        target,
        instruction,
        vars,
        view,
        dom_cached,
    } = asked;
    let mut tools = actions::action_tools();
    tools.extend(mcp.tools());
    tools.push(actions::not_possible_tool());
    let mut messages = vec![
        Message::system(SYSTEM),
        Message::user(prompt(instruction, vars, view)),
    ];
    let mut usage = Usage::default();
    let decisions = ask::decide(model, &mut messages, &tools, view, call, &mut usage, mcp).await?;
    let answer = |outcome| PerformAnswer {
        outcome,
        cached: false,
        dom_cached,
        usage,
        model: Some(model.name().to_string()),
    };
    let action = match decisions.into_iter().next() {
        Some(Decision::Act(action)) => action,
        // The embedding program's action: run, never cached (what it does is its own).
        Some(Decision::Custom { name, input }) => {
            if call.asker.stop_asked() {
                return Err(AgentError::Stopped);
            }
            let outcome = actions::run_custom(call, target, vars, &name, &input).await?;
            return Ok((answer(outcome), None));
        }
        Some(Decision::Mcp { name, input }) => {
            if call.asker.stop_asked() {
                return Err(AgentError::Stopped);
            }
            let outcome = actions::run_mcp(call, mcp, vars, &name, &input).await?;
            return Ok((answer(outcome), None));
        }
        Some(Decision::NotPossible { reason, candidates }) if candidates.len() > 1 => {
            return Err(AgentError::Ambiguous {
                reason: vars.mask(&reason),
                refs: candidates,
            });
        }
        Some(Decision::NotPossible { reason, .. }) => {
            return Err(AgentError::NotOnPage {
                reason: vars.mask(&reason),
            });
        }
        _ => {
            return Err(AgentError::NoUsableAnswer {
                message: "perform takes one action, not done or fail".into(),
            });
        }
    };
    if call.asker.stop_asked() {
        return Err(AgentError::Stopped);
    }
    let outcome = actions::run(call, target, view, vars, &action).await?;
    Ok((answer(outcome), Some(action)))
}

/// The cached action of `instruction` on the tab's page, run with no snapshot: the element at
/// the entry's XPath in the top document, when it is still what was recorded there (its
/// signature: tag, type, id, name, labels and text). One small `eval` before the action (one
/// `Runtime.evaluate` that finds the element by its XPath itself), so about the plain command's
/// cost: it aims at the newest entry of the instruction, and the page it ran on (its context's
/// URL) says whether that entry is this page's; when it is another page's, this page's own entry
/// is aimed at (a second `eval`). An entry whose action names no element asks the URL alone.
/// `None` when there is no such entry or the element does not match: the caller then looks at
/// the page whole (the entry may still replay on an element that moved).
async fn replay_quickly(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    instruction: &str,
    vars: &Variables,
    cache: &Cache,
    cache_file: &std::path::Path,
) -> Result<Option<PerformAnswer>> {
    let Some(newest) = cache.newest(instruction) else {
        return Ok(None);
    };
    let (page_key, context, aim) = match newest.quick_aim() {
        Some(quick) => {
            let (now, context) = actions::place_at_xpath(call, target, quick.xpath).await;
            match context.as_ref().and_then(|c| c.url.clone()) {
                Some(url) => {
                    let page_key = cache::page_key(&url);
                    // Aimed at the newest entry's element: kept only when that entry is this
                    // page's.
                    let aimed = (page_key == newest.page).then_some(now);
                    (page_key, context, aimed)
                }
                // The eval failed (the page was navigating, say): the page is asked its URL.
                None => {
                    let (url, context) = page::url(call, target).await?;
                    (cache::page_key(&url), context, None)
                }
            }
        }
        None => {
            let (url, context) = page::url(call, target).await?;
            (cache::page_key(&url), context, None)
        }
    };
    let Some(entry) = cache.find(instruction, &page_key) else {
        return Ok(None);
    };
    let aim = match entry.action.reference() {
        None => None,
        Some(_) => {
            let Some(quick) = entry.quick_aim() else {
                return Ok(None);
            };
            let now = match aim {
                Some(now) => now,
                None => actions::place_at_xpath(call, target, quick.xpath).await.0,
            };
            let same = now.frame.is_none()
                && now.xpath.as_deref() == Some(quick.xpath)
                && now.signature.as_deref().map(|s| vars.mask(s)).as_deref()
                    == Some(quick.signature);
            if !same {
                return Ok(None);
            }
            Some(actions::Aim {
                selector: quick.xpath.to_string(),
                reference: None,
                role: quick.role.to_string(),
                name: quick.name.to_string(),
                place: now,
            })
        }
    };
    let action = entry.action.clone();
    if call.asker.stop_asked() {
        return Err(AgentError::Stopped);
    }
    let outcome = actions::run_aimed(call, target, context, vars, &action, aim).await?;
    Cache::count_hit(cache_file, instruction, &page_key).await;
    Ok(Some(PerformAnswer {
        outcome,
        cached: true,
        dom_cached: false,
        usage: Usage::default(),
        model: None,
    }))
}
