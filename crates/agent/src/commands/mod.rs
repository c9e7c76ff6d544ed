//! The agent layer's commands (`browser perform`, `browser ai`, `browser extract`): their
//! request types and the [`Extension`]s that join them to the engine's command table, so the
//! CLI, batch files and MCP get them as they get every other command.

use std::path::PathBuf;
use std::sync::Arc;

use actionbook::commands::extension::{self, Extension, ExtensionCall};
use actionbook::{CommandSpec, CommandTraits, Stage, TabTarget};
use envelope::{CommandName, Context, Data, Document, Envelope, ErrorCode, ErrorInfo};
use serde::{Deserialize, Serialize};

mod cache;

pub use cache::{CacheClear, CacheList};

use crate::ai::{self, DEFAULT_MAX_STEPS};
use crate::error::{AgentError, Result};
use crate::mcp::{self, McpServerConfig, McpServers};
use crate::model::{self, LlmSection, Model, ModelConfig, ModelSlot};
use crate::trace::Trace;
use crate::variables::Variables;
use crate::{extract, perform};

/// `browser perform "<instruction>"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Perform {
    /// What to do, in words ("click the login button", "fill the email with <<email>>").
    pub instruction: String,
    /// A variable, `name=value`, written `<<name>>` in the instruction (repeatable): the model
    /// sees only the name; no output carries the value.
    #[serde(default, rename = "var", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "var", value_name = "NAME=VALUE"))]
    pub vars: Vec<String>,
    /// A file of `name=value` lines (`#` comments), as `--var` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub var_file: Option<PathBuf>,
    /// An MCP server to run for this command (repeatable): its command line, its tools offered
    /// to the model as `<server>__<tool>` (the server named after its program or script, or
    /// `name=` before the command); beside `[[llm.mcp_servers]]` of config.toml. The CLI's
    /// only: out of the schema, so MCP calls and batch lines cannot name a program to run.
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "mcp-server", value_name = "COMMAND"))]
    #[schemars(skip)]
    pub mcp_servers: Vec<String>,
    /// Ask the model even when the action cache knows this instruction on this page.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_cache: bool,
    /// Read the page from the tab's last snapshot when the tab is still at its URL (no new
    /// capture; HyperAgent's useDomCache): faster on a big page, blind to changes since.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub dom_cache: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser ai "<task>"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Ai {
    /// The task, in words ("search for flights from Miami to New Orleans on July 16").
    pub task: String,
    /// The most model calls the loop makes (each is one step: a look at the page and actions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_steps: Option<u32>,
    /// A variable, `name=value`, written `<<name>>` in the task (repeatable).
    #[serde(default, rename = "var", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "var", value_name = "NAME=VALUE"))]
    pub vars: Vec<String>,
    /// A file of `name=value` lines (`#` comments), as `--var` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub var_file: Option<PathBuf>,
    /// Write each step (messages sent, the model's answer, what ran) as `step-N.json` into this
    /// directory, variables masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    pub trace: Option<PathBuf>,
    /// An MCP server to run for this command (repeatable): its command line, its tools offered
    /// to the model as `<server>__<tool>` (the server named after its program or script, or
    /// `name=` before the command); beside `[[llm.mcp_servers]]` of config.toml. The CLI's
    /// only: out of the schema, so MCP calls and batch lines cannot name a program to run.
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "mcp-server", value_name = "COMMAND"))]
    #[schemars(skip)]
    pub mcp_servers: Vec<String>,
    /// Show the model a screenshot of the viewport each step too, its interactive elements
    /// labelled `[N]` for ref `eN` (more tokens; for pages whose layout says what text does not).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub visual: bool,
    /// Start from the tab's last snapshot when the tab is still at its URL (no first capture).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub dom_cache: bool,
    /// Ask the model at every step even when the action cache has the step (and record none).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_cache: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `actionbook ai "<task>"`: the task in a headless session of its own, closed after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct OneShot {
    /// The task, in words.
    pub task: String,
    /// The page to open first (else the task starts on a blank tab: say where to go in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL"))]
    pub url: Option<String>,
    /// A browser window instead of headless.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub headed: bool,
    /// The most model calls the loop makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub max_steps: Option<u32>,
    /// A variable, `name=value`, written `<<name>>` in the task (repeatable).
    #[serde(default, rename = "var", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "var", value_name = "NAME=VALUE"))]
    pub vars: Vec<String>,
    /// A file of `name=value` lines (`#` comments), as `--var` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub var_file: Option<PathBuf>,
    /// Write each step as `step-N.json` into this directory, variables masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    pub trace: Option<PathBuf>,
    /// An MCP server to run for this command (repeatable): its command line, its tools offered
    /// to the model as `<server>__<tool>` (the server named after its program or script, or
    /// `name=` before the command); beside `[[llm.mcp_servers]]` of config.toml. The CLI's
    /// only: out of the schema, so MCP calls and batch lines cannot name a program to run.
    #[serde(default, rename = "mcp_server", skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "cli", arg(long = "mcp-server", value_name = "COMMAND"))]
    #[schemars(skip)]
    pub mcp_servers: Vec<String>,
    /// Show the model the annotated viewport each step too (as `browser ai --visual`).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub visual: bool,
    /// Ask the model at every step even when the action cache has the step.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_cache: bool,
}

/// `browser extract "<what>"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Extract {
    /// What to extract, in words ("every product with its price").
    pub what: String,
    /// A JSON Schema file the answer must validate against (without one: any JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    pub schema: Option<PathBuf>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// Where the commands get their model.
#[derive(Debug, Clone)]
pub enum ModelSource {
    /// From the caller's environment (`ACTIONBOOK_LLM_*`, the providers' keys) over
    /// `config.toml`'s `[llm]`, per command.
    Configured,
    /// This model, always (a Rust program embedding the engine).
    Fixed(Arc<dyn Model>),
}

impl ModelSource {
    /// The model of one call.
    fn model(&self, call: &ExtensionCall<'_>) -> ModelSlot {
        match self {
            ModelSource::Fixed(m) => Ok(m.clone()),
            ModelSource::Configured => {
                let file = llm_section(call.home.root());
                let env = |name: &str| call.env.var(name);
                let config = ModelConfig::resolve(&env, file.as_ref())?;
                model::connect(&config)
            }
        }
    }
}

/// The MCP servers of a command: `[[llm.mcp_servers]]` of config.toml, then `--mcp-server`s.
fn mcp_servers(call: &ExtensionCall<'_>, flags: &[String]) -> Result<Vec<McpServerConfig>> {
    let file = mcp::from_config_file(&actionbook::manuals::config::config_path(call.home.root()))?;
    mcp::configured(file, flags)
}

/// `[llm]` of `config.toml` (absent or unreadable: none; the environment may still configure).
fn llm_section(home: &std::path::Path) -> Option<LlmSection> {
    #[derive(Deserialize)]
    struct File {
        llm: Option<LlmSection>,
    }
    let text = std::fs::read_to_string(actionbook::manuals::config::config_path(home)).ok()?;
    toml::from_str::<File>(&text).ok()?.llm
}

fn perform_schema() -> schemars::Schema {
    schemars::schema_for!(Perform)
}
fn ai_schema() -> schemars::Schema {
    schemars::schema_for!(Ai)
}
fn one_shot_schema() -> schemars::Schema {
    schemars::schema_for!(OneShot)
}
fn extract_schema() -> schemars::Schema {
    schemars::schema_for!(Extract)
}

/// `perform`'s row.
pub static PERFORM: CommandSpec = CommandSpec {
    name: CommandName::BrowserPerform,
    level: CommandName::BrowserPerform.level(),
    stage: Stage::Global,
    traits: CommandTraits::CHANGES.destructive().stops_when_asked(),
    about: "Do one thing on the page said in words: one model call over the snapshot picks the action and its element (cached: no call)",
    example: "actionbook browser perform \"click the login button\" --session s1 --tab t1",
    alias: None,
    schema: perform_schema,
};

/// `ai`'s row.
pub static AI: CommandSpec = CommandSpec {
    name: CommandName::BrowserAi,
    level: CommandName::BrowserAi.level(),
    stage: Stage::Global,
    traits: CommandTraits::CHANGES.destructive().stops_when_asked(),
    about: "Carry out a task said in words: snapshot, model, actions, repeated until done (--max-steps, --timeout bound it)",
    example: "actionbook browser ai \"search for flights from Miami to New Orleans\" --session s1 --tab t1 --timeout 300000",
    alias: None,
    schema: ai_schema,
};

/// The one-shot `ai`'s row.
pub static ONE_SHOT: CommandSpec = CommandSpec {
    name: CommandName::Ai,
    level: CommandName::Ai.level(),
    stage: Stage::NonBrowser,
    traits: CommandTraits::CHANGES.destructive().stops_when_asked(),
    about: "Carry out a task in a headless browser of its own (started, then closed): browser ai without a session",
    example: "actionbook ai \"find the price of the first product\" --url https://example.com/shop --timeout 300000",
    alias: None,
    schema: one_shot_schema,
};

/// `extract`'s row.
pub static EXTRACT: CommandSpec = CommandSpec {
    name: CommandName::BrowserExtract,
    level: CommandName::BrowserExtract.level(),
    stage: Stage::Global,
    traits: CommandTraits::READ_ONLY,
    about: "Extract data from the page as JSON by a model (--schema: a JSON Schema it must validate against)",
    example: "actionbook browser extract \"every product with its price\" --schema products.json --session s1 --tab t1",
    alias: None,
    schema: extract_schema,
};

/// Which command an [`AgentCommand`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Perform,
    Ai,
    OneShot,
    Extract,
}

/// One of the agent layer's commands, as an extension of the engine's table.
#[derive(Debug)]
pub struct AgentCommand {
    kind: Kind,
    models: ModelSource,
}

/// Registers `perform`, `ai` and `extract` with their model from the caller's configuration.
pub fn register() {
    register_with(ModelSource::Configured);
}

/// Registers the commands with models from `models` (a name already registered stays as it was).
pub fn register_with(models: ModelSource) {
    for kind in [Kind::Perform, Kind::Ai, Kind::OneShot, Kind::Extract] {
        extension::register(Arc::new(AgentCommand {
            kind,
            models: models.clone(),
        }));
    }
    for clear in [false, true] {
        extension::register(Arc::new(cache::CacheCommand { clear }));
    }
}

fn decode<T: serde::de::DeserializeOwned>(name: CommandName, args: serde_json::Value) -> Result<T> {
    serde_json::from_value(args).map_err(|e| AgentError::BadArguments(format!("{name}: {e}")))
}

async fn variables(
    call: &ExtensionCall<'_>,
    items: &[String],
    file: Option<&PathBuf>,
) -> Result<Variables> {
    let mut files = Vec::new();
    if let Some(f) = file {
        let path = call.env.resolve_path(f);
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|source| AgentError::File {
                path: path.display().to_string(),
                source,
            })?;
        files.push(text);
    }
    Ok(Variables::parse(items, &files)?.with_secrets(&call.env.secrets))
}

async fn read_schema(
    call: &ExtensionCall<'_>,
    file: &std::path::Path,
) -> Result<serde_json::Value> {
    let path = call.env.resolve_path(file);
    let bad = |message: String| AgentError::BadSchema {
        path: path.display().to_string(),
        message,
    };
    let text = tokio::fs::read_to_string(&path)
        .await
        .map_err(|e| bad(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if !value.is_object() {
        return Err(bad("a JSON Schema is an object".into()));
    }
    Ok(value)
}

fn success<T: Serialize + envelope::RenderText>(
    name: CommandName,
    context: impl Into<Option<Context>>,
    value: &T,
    warnings: Vec<String>,
) -> Envelope {
    let context = context.into();
    match Document::new(value) {
        Ok(doc) => {
            let mut env = Envelope::success(name, context, Data::Document(doc));
            env.meta.warnings = warnings;
            env
        }
        Err(e) => Envelope::failure(
            name,
            context,
            ErrorInfo::new(
                ErrorCode::InternalError,
                format!("encoding the answer: {e}"),
            ),
        ),
    }
}

impl AgentCommand {
    async fn perform(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: Perform = decode(CommandName::BrowserPerform, call.args.clone())?;
        let vars = variables(call, &r.vars, r.var_file.as_ref()).await?;
        let model = || self.models.model(call);
        let options = perform::Options {
            use_cache: !r.no_cache,
            dom_cache: r.dom_cache,
            mcp_servers: mcp_servers(call, &r.mcp_servers)?,
        };
        let answer = perform::perform(call, model, &r.target, &r.instruction, &vars, options)
            .await
            .map_err(|e| AgentError::Engine(vars.mask_info(e.to_info())))?;
        let context = answer
            .outcome
            .context
            .clone()
            .unwrap_or_else(|| tab_context(&r.target));
        let warnings = answer.outcome.warnings.clone();
        Ok(success(
            CommandName::BrowserPerform,
            context,
            &answer,
            warnings,
        ))
    }

    async fn ai(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: Ai = decode(CommandName::BrowserAi, call.args.clone())?;
        let vars = variables(call, &r.vars, r.var_file.as_ref()).await?;
        let model = self.models.model(call);
        let max_steps = r.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        let trace = open_trace(call, r.trace.as_deref()).await?;
        let servers = mcp_servers(call, &r.mcp_servers)?;
        // Once per command run: started before the first step, stopped after the last.
        let mut mcp = McpServers::start(servers, call).await?;
        let options = ai::Options {
            max_steps,
            trace: trace.as_ref(),
            visual: r.visual,
            dom_cache: r.dom_cache,
            use_cache: !r.no_cache,
            mcp: &mcp,
        };
        let done = ai::ai(call, &model, &r.target, &r.task, &vars, options).await;
        mcp.shutdown().await;
        Ok(ai_envelope(
            CommandName::BrowserAi,
            done,
            Some(tab_context(&r.target)),
            &vars,
        ))
    }

    /// The one-shot `ai`: start a session, run the loop on its tab, close it whatever happened.
    async fn one_shot(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: OneShot = decode(CommandName::Ai, call.args.clone())?;
        let vars = variables(call, &r.vars, r.var_file.as_ref()).await?;
        let model = self.models.model(call);
        // A model that cannot be reached is said before a browser starts.
        if let Err(e) = &model {
            return Err(AgentError::Model(e.clone()));
        }
        let trace = open_trace(call, r.trace.as_deref()).await?;
        // The servers before the browser: one that cannot start is said before a browser does.
        let servers = mcp_servers(call, &r.mcp_servers)?;
        let mut mcp = McpServers::start(servers, call).await?;
        let done = self
            .one_shot_in(call, &r, &model, &vars, trace.as_ref(), &mcp)
            .await;
        mcp.shutdown().await;
        done
    }

    /// The one-shot `ai` once its MCP servers run.
    async fn one_shot_in(
        &self,
        call: &ExtensionCall<'_>,
        r: &OneShot,
        model: &ModelSlot,
        vars: &Variables,
        trace: Option<&Trace>,
        mcp: &McpServers,
    ) -> Result<Envelope> {
        let mut start = serde_json::json!({ "headless": !r.headed });
        if let Some(url) = &r.url {
            start["open_url"] = serde_json::Value::from(url.as_str());
        }
        let start = actionbook::Command::from_json(CommandName::BrowserStart, start)
            .map_err(|e| AgentError::BadArguments(e.to_string()))?;
        let started = crate::page::run(call, start).await?;
        let Some(envelope::Data::Start(s)) = started.data() else {
            return Err(AgentError::Engine(ErrorInfo::new(
                ErrorCode::InternalError,
                "start answered no session",
            )));
        };
        let target = TabTarget::new(s.session.session_id.as_str(), s.tab.tab_id.as_str());
        let max_steps = r.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        let options = ai::Options {
            max_steps,
            trace,
            visual: r.visual,
            // A session of its own has no earlier snapshot.
            dom_cache: false,
            use_cache: !r.no_cache,
            mcp,
        };
        let done = ai::ai(call, model, &target, &r.task, vars, options).await;
        let mut env = ai_envelope(CommandName::Ai, done, None, vars);
        // Closed even when the deadline is spent: a one-shot leaves no browser behind.
        let close = actionbook::Command::from_json(
            CommandName::BrowserClose,
            serde_json::json!({ "session": target.session.as_str() }),
        );
        let closed = match close {
            Ok(close) => {
                let request = actionbook::Request::new(close)
                    .with_timeout_ms(CLOSE_TIMEOUT_MS)
                    .with_env(call.env.clone());
                call.runner.run(request).await.error().cloned()
            }
            Err(e) => Some(ErrorInfo::new(ErrorCode::InternalError, e.to_string())),
        };
        if let Some(e) = closed {
            env.meta.warnings.push(format!(
                "the session {} did not close: {}",
                target.session.as_str(),
                e.message
            ));
        }
        Ok(env)
    }

    async fn extract(&self, call: &ExtensionCall<'_>) -> Result<Envelope> {
        let r: Extract = decode(CommandName::BrowserExtract, call.args.clone())?;
        let schema = match &r.schema {
            Some(f) => Some(read_schema(call, f).await?),
            None => None,
        };
        let model = self.models.model(call);
        let answer = extract::extract(call, &model, &r.target, &r.what, schema).await?;
        Ok(success(
            CommandName::BrowserExtract,
            tab_context(&r.target),
            &answer,
            vec![],
        ))
    }

    fn target_of(&self, args: &serde_json::Value) -> Option<Context> {
        let session = args.get("session")?.as_str()?;
        let tab = args.get("tab")?.as_str()?;
        Some(Context::tab(session, tab))
    }
}

/// The trace of `--trace <dir>` (relative to the caller's directory).
async fn open_trace(
    call: &ExtensionCall<'_>,
    dir: Option<&std::path::Path>,
) -> Result<Option<Trace>> {
    match dir {
        Some(d) => Ok(Some(Trace::open(&call.env.resolve_path(d)).await?)),
        None => Ok(None),
    }
}

/// `perform`'s and `extract`'s timeout when none is given (one model call and one action).
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 120_000;
/// `ai`'s timeout when none is given (its `--max-steps` steps).
pub const DEFAULT_LOOP_TIMEOUT_MS: u64 = 600_000;

/// How long the one-shot `ai` gives its session to close.
const CLOSE_TIMEOUT_MS: u64 = 30_000;

/// The envelope of a loop's end: its answer, or its error with the steps taken in
/// `error.details.steps` (an agent reads what happened before it failed).
fn ai_envelope(
    name: CommandName,
    done: std::result::Result<ai::AiAnswer, ai::Unfinished>,
    fallback: Option<Context>,
    vars: &Variables,
) -> Envelope {
    match done {
        Ok(answer) => {
            let context = answer
                .steps
                .iter()
                .rev()
                .flat_map(|s| s.actions.iter().rev())
                .find_map(|o| o.context.clone())
                .or(fallback)
                .filter(|_| name != CommandName::Ai);
            success(name, context, &answer, vec![])
        }
        Err(unfinished) => {
            let mut info = vars.mask_info(unfinished.error.to_info());
            let mut details = match info.details.take() {
                Some(serde_json::Value::Object(m)) => m,
                _ => serde_json::Map::new(),
            };
            details.insert(
                "steps".into(),
                serde_json::to_value(&unfinished.steps).unwrap_or_default(),
            );
            info.details = Some(serde_json::Value::Object(details));
            Envelope::failure(name, fallback, info)
        }
    }
}

fn tab_context(target: &TabTarget) -> Context {
    Context::tab(target.session.as_str(), target.tab.as_str())
}

#[async_trait::async_trait]
impl Extension for AgentCommand {
    fn spec(&self) -> &'static CommandSpec {
        match self.kind {
            Kind::Perform => &PERFORM,
            Kind::Ai => &AI,
            Kind::OneShot => &ONE_SHOT,
            Kind::Extract => &EXTRACT,
        }
    }

    #[cfg(feature = "cli")]
    fn augment_args(&self, cmd: clap::Command) -> clap::Command {
        use clap::Args as _;
        match self.kind {
            Kind::Perform => Perform::augment_args(cmd),
            Kind::Ai => Ai::augment_args(cmd),
            Kind::OneShot => OneShot::augment_args(cmd),
            Kind::Extract => Extract::augment_args(cmd),
        }
    }

    #[cfg(feature = "cli")]
    fn args_from_matches(
        &self,
        matches: &mut clap::ArgMatches,
    ) -> std::result::Result<serde_json::Value, clap::Error> {
        use clap::FromArgMatches as _;
        let to_json = |v: serde_json::Result<serde_json::Value>| {
            v.map_err(|e| clap::Error::raw(clap::error::ErrorKind::InvalidValue, e.to_string()))
        };
        match self.kind {
            Kind::Perform => to_json(serde_json::to_value(Perform::from_arg_matches_mut(
                matches,
            )?)),
            Kind::Ai => to_json(serde_json::to_value(Ai::from_arg_matches_mut(matches)?)),
            Kind::OneShot => to_json(serde_json::to_value(OneShot::from_arg_matches_mut(
                matches,
            )?)),
            Kind::Extract => to_json(serde_json::to_value(Extract::from_arg_matches_mut(
                matches,
            )?)),
        }
    }

    fn default_timeout_ms(&self) -> Option<u64> {
        // A model call takes seconds and a loop many of them: the engine's 30 s would cut most.
        Some(match self.kind {
            Kind::Perform | Kind::Extract => DEFAULT_CALL_TIMEOUT_MS,
            Kind::Ai | Kind::OneShot => DEFAULT_LOOP_TIMEOUT_MS,
        })
    }

    async fn run(&self, call: ExtensionCall<'_>) -> Envelope {
        let name = self.spec().name;
        let done = match self.kind {
            Kind::Perform => self.perform(&call).await,
            Kind::Ai => self.ai(&call).await,
            Kind::OneShot => self.one_shot(&call).await,
            Kind::Extract => self.extract(&call).await,
        };
        match done {
            Ok(env) => env,
            Err(e) => Envelope::failure(name, self.target_of(&call.args), e.to_info()),
        }
    }
}
