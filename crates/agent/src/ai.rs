//! `browser ai "<task>"`: the loop. Each step sends the page (the full snapshot first, then only
//! what changed since the last step: the engine's `--diff`, full again after a navigation), the
//! model answers one or more actions (run in order; a failed one ends the step and its error goes
//! back to the model) or `done` / `fail`. No fixed sleeps between actions: the engine's
//! auto-wait decides. Bounded by `--max-steps` and `--timeout`.

use actionbook::TabTarget;
use actionbook::commands::extension::ExtensionCall;
use serde::{Deserialize, Serialize};

use crate::actions::{self, Decision, Outcome};
use crate::ask;
use crate::cache::{self, Cache, StepAction, StepEntry};
use crate::error::AgentError;
use crate::mcp::McpServers;
use crate::model::{Message, ModelSlot, Usage};
use crate::page::{self, PageView};
use crate::perform::describe;
use crate::trace::{Trace, TraceStep};
use crate::variables::Variables;

/// The default `--max-steps`.
pub const DEFAULT_MAX_STEPS: u32 = 10;

/// One step of the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based.
    pub step: u32,
    /// The URL the step saw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Whether the model was sent only what changed since the step before.
    pub diff: bool,
    /// Whether the step was replayed from the action cache (no model call).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// What ran, in order.
    pub actions: Vec<Outcome>,
    /// How the model ended the loop in this step (`done` or `fail`), if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The error that ended the step early, as the model was told it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Tokens of this step.
    pub usage: Usage,
}

/// What `ai` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AiAnswer {
    /// The model's result (`done`).
    pub result: String,
    /// Every step.
    pub steps: Vec<Step>,
    /// Tokens of every step.
    pub usage: Usage,
    /// The model asked.
    pub model: String,
}

impl envelope::RenderText for AiAnswer {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut envelope::TextBody<'_>) {
        for line in step_lines(&self.steps) {
            body.line(line);
        }
        body.line(format!("result: {}", self.result));
        body.line(format!(
            "tokens: {} in, {} out",
            self.usage.input_tokens, self.usage.output_tokens
        ));
    }
}

/// `step 1: fill @e3 textbox "From", click @e9 button "Search"`.
pub fn step_lines(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .map(|s| {
            let mut did: Vec<String> = s.actions.iter().map(describe).collect();
            did.extend(s.end.clone());
            let mut line = format!("step {}: {}", s.step, did.join(", "));
            if s.cached {
                line.push_str(" (cached)");
            }
            if let Some(e) = &s.error {
                line.push_str(&format!(" (failed: {e})"));
            }
            line
        })
        .collect()
}

/// A loop that ended without `done`: the error and the steps it took.
#[derive(Debug)]
pub struct Unfinished {
    /// Why it ended.
    pub error: AgentError,
    /// The steps taken.
    pub steps: Vec<Step>,
}

const SYSTEM: &str = "You operate a web page to complete a task for a user. Each turn you get the page's accessibility \
snapshot: one element a line, `- role \"name\" [states] [ref=eN]`, frames nested under their iframe; after the first turn only \
the lines that changed (+ added, - removed, ~ changed, under their unmarked ancestors) unless the page was replaced. \
Answer with tool calls: one or more actions, run in order (a failed one stops the rest; you are told), or done with the result \
when the task is complete, or fail with the reason when it cannot be. `<<name>>` stands for a secret variable: pass it as \
written. Do not repeat an action that already succeeded.";

/// Runs a cached step's actions (each already on its element found again): the step, ended
/// early by the first that fails.
async fn replay(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    view: &PageView,
    vars: &Variables,
    n: u32,
    diff: bool,
    actions: &[actions::Action],
) -> Step {
    let mut step = Step {
        step: n,
        url: view.url().map(|u| vars.mask(u)),
        diff,
        cached: true,
        actions: vec![],
        end: None,
        error: None,
        usage: Usage::default(),
    };
    for action in actions {
        match actions::run(call, target, view, vars, action).await {
            Ok(outcome) => step.actions.push(outcome),
            Err(e) => {
                step.error = Some(vars.mask(&e.to_string()));
                break;
            }
        }
    }
    step
}

/// Merges a step's view into what the loop knows of the page: a full snapshot replaces it, a
/// diff adds and updates its nodes.
fn merge(known: &mut Option<PageView>, view: PageView) {
    match known {
        Some(k) if view.is_diff => {
            for n in view.nodes {
                match k.nodes.iter_mut().find(|o| o.ref_id == n.ref_id) {
                    Some(o) => *o = n,
                    None => k.nodes.push(n),
                }
            }
            k.text = view.text;
            k.context = view.context;
            k.is_diff = true;
        }
        _ => *known = Some(view),
    }
}

/// How a loop runs.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The most steps (model calls).
    pub max_steps: u32,
    /// Where each step is written (`--trace`).
    pub trace: Option<&'a Trace>,
    /// Each step also shows the model the annotated viewport (`--visual`).
    pub visual: bool,
    /// The first step may read the tab's last snapshot (`--dom-cache`).
    pub dom_cache: bool,
    /// Steps recorded in the action cache replay with no model call; model steps are recorded.
    pub use_cache: bool,
    /// The MCP servers whose tools are offered beside ours (started by the command).
    pub mcp: &'a McpServers,
}

/// What the system prompt adds in visual mode.
const VISUAL: &str =
    " Each turn also has a screenshot of the viewport: a label [N] on an element is its ref eN.";

/// Runs `ai`.
pub async fn ai(
    call: &ExtensionCall<'_>,
    model: &ModelSlot,
    target: &TabTarget,
    task: &str,
    vars: &Variables,
    options: Options<'_>,
) -> std::result::Result<AiAnswer, Unfinished> {
    let Options {
        max_steps,
        trace,
        visual,
        dom_cache,
        use_cache,
        mcp,
    } = options;
    let unfinished = |error: AgentError, steps: Vec<Step>| Unfinished { error, steps };
    if task.trim().is_empty() {
        let e = AgentError::BadArguments("ai needs a task".into());
        return Err(unfinished(e, vec![]));
    }
    if max_steps == 0 {
        let e = AgentError::BadArguments("--max-steps must be at least 1".into());
        return Err(unfinished(e, vec![]));
    }
    let model = match model.as_deref() {
        Ok(m) => m,
        Err(e) => return Err(unfinished(AgentError::Model(e.clone()), vec![])),
    };
    let mut tools = actions::action_tools();
    tools.extend(mcp.tools());
    tools.extend(actions::end_tools());
    let mut intro = format!("Task: {task}\n");
    if !vars.is_empty() {
        let names: Vec<String> = vars.names().map(|n| format!("<<{n}>>")).collect();
        intro.push_str(&format!("Variables: {}\n", names.join(", ")));
    }
    let system = if visual {
        format!("{SYSTEM}{VISUAL}")
    } else {
        SYSTEM.to_string()
    };
    let mut messages = vec![Message::system(system)];
    let mut steps: Vec<Step> = Vec::new();
    let mut total = Usage::default();
    let mut known: Option<PageView> = None;
    let cache_file = cache::path(call.home.root());
    let mut cache = match use_cache {
        true => match Cache::load(&cache_file).await {
            Ok(c) => c,
            Err(e) => return Err(unfinished(e, steps)),
        },
        false => Cache::default(),
    };
    // Replaying cached steps until one is not in the cache or fails; the model has then seen
    // no page yet (its first look is a full one) and is told what the replays did.
    let mut replaying = use_cache;
    // Replays counted and not yet written: (step, page).
    let mut hits: Vec<(u32, String)> = Vec::new();
    let mut replayed: Vec<String> = Vec::new();
    let mut model_saw_page = false;
    for n in 1..=max_steps {
        if call.asker.stop_asked() {
            return Err(unfinished(AgentError::Stopped, steps));
        }
        let looked = match n {
            // The first look may be the tab's last snapshot (`--dom-cache`).
            1 => page::look_or_reuse(call, target, dom_cache)
                .await
                .map(|(v, _)| v),
            _ => page::look(call, target, model_saw_page).await,
        };
        let view = match looked {
            Ok(v) => v,
            Err(e) => return Err(unfinished(e, steps)),
        };
        page::remember(target, &view);
        let diff = view.is_diff;
        let header = if diff {
            "Page changes since the last step"
        } else {
            "Page"
        };
        let page_text = format!(
            "{header}: {}\n{}",
            view.url().unwrap_or("(unknown URL)"),
            if view.text.trim().is_empty() {
                "(no change)"
            } else {
                view.text.as_str()
            }
        );
        // A page that shows a variable's value (echoed back, or in its URL) shows its name.
        let page_text = vars.mask(&page_text);
        let page_key = cache::page_key(view.url().unwrap_or_default());
        merge(&mut known, view);
        let Some(view) = known.as_ref() else {
            continue;
        };
        if replaying {
            let cached = cache
                .find_step(task, n, &page_key)
                .and_then(|e| e.replay_on(view, |t| vars.mask(t)));
            match cached {
                Some(actions) => {
                    let step = replay(call, target, view, vars, n, diff, &actions).await;
                    cache.hit_step(task, n, &page_key);
                    hits.push((n, page_key.clone()));
                    for line in step_lines(std::slice::from_ref(&step)) {
                        call.asker.progress(&line);
                        replayed.push(line);
                    }
                    replaying = step.error.is_none();
                    steps.push(step);
                    continue;
                }
                None => replaying = false,
            }
        }
        let text = if model_saw_page {
            page_text
        } else {
            let mut told = intro.clone();
            if !replayed.is_empty() {
                told.push_str("Done so far (replayed from the cache, no model call):\n");
                told.push_str(&replayed.join("\n"));
                told.push('\n');
            }
            format!("{told}\n{page_text}")
        };
        model_saw_page = true;
        let sent_from = messages.len();
        let mut message = Message::user(text);
        if visual {
            match page::annotated_screenshot(call, target).await {
                Ok(image) => {
                    // Only the newest screenshot is resent: the older ones are history.
                    messages.iter_mut().for_each(|m| m.images.clear());
                    message = message.with_image(image);
                }
                Err(e) => return Err(unfinished(e, steps)),
            }
        }
        messages.push(message);
        let mut usage = Usage::default();
        let asked = ask::decide(model, &mut messages, &tools, view, call, &mut usage, mcp).await;
        total.add(usage);
        let decisions = match asked {
            Ok(d) => d,
            Err(e) => return Err(unfinished(e, steps)),
        };
        let calls: Vec<String> = messages
            .last()
            .map(|m| m.tool_calls.iter().map(|c| c.id.clone()).collect())
            .unwrap_or_default();
        let mut step = Step {
            step: n,
            url: view.url().map(|u| vars.mask(u)),
            diff,
            cached: false,
            actions: vec![],
            end: None,
            error: None,
            usage,
        };
        let mut results = Vec::new();
        let mut end = None;
        let mut stopped = false;
        let mut ran: Vec<StepAction> = Vec::new();
        let mut only_ours = true;
        for decision in decisions {
            if step.error.is_some() || end.is_some() || stopped {
                results.push("not run: an earlier call of this turn ended it".to_string());
                continue;
            }
            // Asked to stop: the action under way finished, the next does not start.
            if call.asker.stop_asked() {
                stopped = true;
                continue;
            }
            match decision {
                Decision::Act(action) => {
                    match actions::run(call, target, view, vars, &action).await {
                        Ok(outcome) => {
                            results.push(format!("ok: {}", describe(&outcome)));
                            ran.push(StepAction {
                                action,
                                role: outcome.role.clone(),
                                name: outcome.name.clone(),
                            });
                            step.actions.push(outcome);
                        }
                        Err(e @ AgentError::Timeout { .. }) => {
                            steps.push(step);
                            return Err(unfinished(e, steps));
                        }
                        // Held back by the session's policy: the caller decides, not the model.
                        Err(e) if e.held_back() => {
                            step.error = Some(vars.mask(&e.to_string()));
                            steps.push(step);
                            return Err(unfinished(e, steps));
                        }
                        Err(e) => {
                            let said = vars.mask(&e.to_string());
                            results.push(format!("failed: {said}"));
                            step.error = Some(said);
                        }
                    }
                }
                Decision::Custom { name, input } => {
                    // What a program's action does is its own: such a step is not cached.
                    only_ours = false;
                    match actions::run_custom(call, target, vars, &name, &input).await {
                        Ok(outcome) => {
                            let said = outcome.result.clone().unwrap_or_default();
                            results.push(format!("ok: {said}"));
                            step.actions.push(outcome);
                        }
                        Err(e) => {
                            let said = vars.mask(&e.to_string());
                            results.push(format!("failed: {said}"));
                            step.error = Some(said);
                        }
                    }
                }
                Decision::Mcp { name, input } => {
                    // What a server's tool does is its own: such a step is not cached.
                    only_ours = false;
                    match actions::run_mcp(call, mcp, vars, &name, &input).await {
                        Ok(outcome) => {
                            let said = outcome.result.clone().unwrap_or_default();
                            results.push(format!("ok: {said}"));
                            step.actions.push(outcome);
                        }
                        Err(e @ AgentError::ActionFailed { .. }) => {
                            let said = vars.mask(&e.to_string());
                            results.push(format!("failed: {said}"));
                            step.error = Some(said);
                        }
                        // The server failed (gone, silent) or a stop was asked: the loop ends.
                        Err(e) => {
                            step.error = Some(vars.mask(&e.to_string()));
                            steps.push(step);
                            return Err(unfinished(e, steps));
                        }
                    }
                }
                Decision::Done { result } => {
                    results.push("done".to_string());
                    step.end = Some("done".into());
                    end = Some(Ok(vars.mask(&result)));
                }
                Decision::Fail { reason } => {
                    results.push("ended".to_string());
                    step.end = Some("fail".into());
                    end = Some(Err(vars.mask(&reason)));
                }
                Decision::NotPossible { reason, .. } => {
                    results.push("ended".to_string());
                    step.end = Some("fail".into());
                    end = Some(Err(vars.mask(&reason)));
                }
            }
        }
        for (id, result) in calls.iter().zip(results) {
            messages.push(Message::tool_result(id, result));
        }
        for line in step_lines(std::slice::from_ref(&step)) {
            call.asker.progress(&line);
        }
        if let Some(trace) = trace {
            let written = TraceStep {
                step: n,
                command: "browser ai",
                messages: &messages[sent_from..],
                actions: &step.actions,
                error: step.error.clone(),
            };
            if let Err(e) = trace.write(&written, vars).await {
                steps.push(step);
                return Err(unfinished(e, steps));
            }
        }
        let whole = step.error.is_none() && end.is_none() && !stopped && !ran.is_empty();
        let recorded = (use_cache && whole && only_ours).then(|| StepEntry {
            task: task.to_string(),
            step: n,
            page: page_key,
            actions: ran,
            hits: 0,
        });
        // Written as the file holds it now (another command may have changed it meanwhile): the
        // hits counted since the last write and this step, if it is one to keep.
        if use_cache && (recorded.is_some() || !hits.is_empty()) {
            let counted = std::mem::take(&mut hits);
            let written = Cache::update(&cache_file, |c| {
                for (step, page) in &counted {
                    c.hit_step(task, *step, page);
                }
                if let Some(entry) = recorded {
                    c.record_step(entry);
                }
                true
            })
            .await;
            if let Err(e) = written {
                steps.push(step);
                return Err(unfinished(e, steps));
            }
        }
        steps.push(step);
        if stopped {
            return Err(unfinished(AgentError::Stopped, steps));
        }
        match end {
            Some(Ok(result)) => {
                return Ok(AiAnswer {
                    result,
                    steps,
                    usage: total,
                    model: model.name().to_string(),
                });
            }
            Some(Err(reason)) => return Err(unfinished(AgentError::GaveUp { reason }, steps)),
            None => {}
        }
    }
    Err(unfinished(AgentError::OutOfSteps { max_steps }, steps))
}
