//! The agent layer's one error type, and its mapping to envelope error codes (here, once).

use envelope::{ErrorCode, ErrorInfo};

use crate::model::ModelError;

/// What went wrong in `perform`, `ai` or `extract`.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The request's arguments do not fit (an empty instruction, a bad `--var`).
    #[error("{0}")]
    BadArguments(String),
    /// The model could not be configured or called.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The model said the page cannot do what was asked.
    #[error("the page cannot do this: {reason}")]
    NotOnPage {
        /// The model's reason.
        reason: String,
    },
    /// The model found several elements equally fit and would not guess.
    #[error("several elements fit: {}; say which one", refs.iter().map(|r| format!("@{r}")).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// The model's reason.
        reason: String,
        /// The candidates' refs (`e12`).
        refs: Vec<String>,
    },
    /// The model named a ref the snapshot it was sent does not have.
    #[error("the model chose @{reference}, which is not in the page's snapshot")]
    UnknownRef {
        /// The ref as the model wrote it.
        reference: String,
    },
    /// The model answered no usable action (no tool call, an unknown tool, bad arguments), even
    /// after it was told what was wrong.
    #[error("the model answered no usable action: {message}")]
    NoUsableAnswer {
        /// What was wrong.
        message: String,
    },
    /// `extract`'s answer does not validate against the schema, even after one repair round.
    #[error("the model's JSON does not match the schema: {}", problems.join("; "))]
    SchemaMismatch {
        /// What does not match, one item each.
        problems: Vec<String>,
    },
    /// The schema file could not be read or is no JSON Schema.
    #[error("--schema {path}: {message}")]
    BadSchema {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// `ai` used its step budget without the model saying done or fail.
    #[error("the task was not done within {max_steps} steps")]
    OutOfSteps {
        /// `--max-steps`.
        max_steps: u32,
    },
    /// The model said the task cannot be done.
    #[error("the model gave up: {reason}")]
    GaveUp {
        /// The model's reason.
        reason: String,
    },
    /// The command's `--timeout` ran out.
    #[error("the {what} ran out of its {timeout_ms} ms")]
    Timeout {
        /// What was under way.
        what: &'static str,
        /// `--timeout`.
        timeout_ms: u64,
    },
    /// An action of the embedding program failed.
    #[error("{action} failed: {reason}")]
    ActionFailed {
        /// The action's name.
        action: String,
        /// What it said.
        reason: String,
    },
    /// An MCP server's command could not be found (`[[llm.mcp_servers]]`, `--mcp-server`).
    #[error(
        "MCP server {server}: {command:?} was not found (not on PATH, nor relative to the caller's directory)"
    )]
    McpNotFound {
        /// The server's name.
        server: String,
        /// Its command line.
        command: String,
    },
    /// An MCP server did not start: it could not be spawned, exited at once, or refused
    /// `initialize` / `tools/list`.
    #[error("MCP server {server} ({command}) did not start: {reason}")]
    McpNotStarted {
        /// The server's name.
        server: String,
        /// Its command line.
        command: String,
        /// What went wrong (its stderr's last words included).
        reason: String,
    },
    /// An MCP server did not answer within its timeout (or the command's deadline).
    #[error("MCP server {server} did not answer {what} within {timeout_ms} ms")]
    McpTimeout {
        /// The server's name.
        server: String,
        /// What it was asked (`initialize and tools/list ...`, `a tools/call`).
        what: &'static str,
        /// How long it was given.
        timeout_ms: u64,
    },
    /// An MCP server went away during the command (exited, closed its stdout).
    #[error("MCP server {server} stopped answering: {reason}")]
    McpServerDied {
        /// The server's name.
        server: String,
        /// What was seen.
        reason: String,
    },
    /// Whoever asked stopped the command (gone, or a cancel) before it finished.
    #[error("stopped: whoever asked is gone or cancelled it")]
    Stopped,
    /// One of the engine's commands failed (its own error, kept whole).
    #[error("{}", .0.message)]
    Engine(ErrorInfo),
    /// A file of the agent layer (cache, trace, config) could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// What the OS said.
        source: std::io::Error,
    },
}

impl AgentError {
    /// Whether the session's action policy held one of the agent's commands back
    /// (`CONFIRMATION_REQUIRED`, `ACCESS_DENIED`): the loop ends there, its model not asked again.
    pub fn held_back(&self) -> bool {
        matches!(self, AgentError::Engine(e)
            if matches!(e.code, ErrorCode::ConfirmationRequired | ErrorCode::AccessDenied))
    }

    /// The envelope error of this failure: its code, message, hint and details.
    pub fn to_info(&self) -> ErrorInfo {
        let info = |code: ErrorCode| ErrorInfo::new(code, self.to_string());
        match self {
            AgentError::BadArguments(_) => info(ErrorCode::InvalidArgument),
            AgentError::Model(e) => match e {
                ModelError::NotConfigured { .. } => info(ErrorCode::InvalidArgument).with_hint(
                    "set ACTIONBOOK_LLM_PROVIDER, ACTIONBOOK_LLM_BASE_URL, ACTIONBOOK_LLM_MODEL and ACTIONBOOK_LLM_API_KEY (or [llm] in config.toml)",
                ),
                ModelError::BadKey { .. } => info(ErrorCode::ApiError)
                    .with_retryable(false)
                    .with_hint("check ACTIONBOOK_LLM_API_KEY (or the provider's OPENAI_API_KEY / ANTHROPIC_API_KEY)"),
                ModelError::UnknownModel { .. } => info(ErrorCode::ApiError)
                    .with_retryable(false)
                    .with_hint("set ACTIONBOOK_LLM_MODEL to a model the provider serves"),
                ModelError::Timeout { .. } => info(ErrorCode::Timeout),
                other => info(ErrorCode::ApiError).with_retryable(other.retryable()),
            },
            AgentError::NotOnPage { reason } => info(ErrorCode::ElementNotFound)
                .with_retryable(false)
                .with_details(serde_json::json!({ "reason": reason })),
            AgentError::Ambiguous { reason, refs } => info(ErrorCode::MultipleMatches)
                .with_details(serde_json::json!({ "reason": reason, "candidates": refs }))
                .with_hint("name the element more precisely, or act on one of the refs directly"),
            AgentError::UnknownRef { reference } => info(ErrorCode::ElementNotFound)
                .with_details(serde_json::json!({ "ref": reference })),
            AgentError::NoUsableAnswer { .. } | AgentError::SchemaMismatch { .. } => {
                info(ErrorCode::ApiError).with_retryable(true)
            }
            AgentError::BadSchema { .. } => info(ErrorCode::InvalidArgument),
            AgentError::OutOfSteps { max_steps } => info(ErrorCode::Timeout)
                .with_retryable(false)
                .with_details(serde_json::json!({ "max_steps": max_steps }))
                .with_hint("raise --max-steps, or split the task"),
            AgentError::GaveUp { .. } => info(ErrorCode::UnsupportedOperation).with_retryable(false),
            AgentError::Timeout { .. } => info(ErrorCode::Timeout),
            AgentError::ActionFailed { .. } => info(ErrorCode::UnsupportedOperation),
            AgentError::Stopped => info(ErrorCode::UnsupportedOperation).with_retryable(true),
            AgentError::McpNotFound { server, command } => info(ErrorCode::InvalidArgument)
                .with_details(serde_json::json!({ "server": server, "command": command }))
                .with_hint("check the command of --mcp-server or [[llm.mcp_servers]] in config.toml"),
            AgentError::McpNotStarted { server, command, .. } => info(ErrorCode::ApiError)
                .with_retryable(false)
                .with_details(serde_json::json!({ "server": server, "command": command }))
                .with_hint("run the server's command by hand: it must speak MCP (JSON-RPC lines) on stdin and stdout"),
            AgentError::McpTimeout { server, timeout_ms, .. } => info(ErrorCode::Timeout)
                .with_details(serde_json::json!({ "server": server, "timeout_ms": timeout_ms }))
                .with_hint("raise timeout_ms of the server in [[llm.mcp_servers]] (or --timeout)"),
            AgentError::McpServerDied { server, .. } => info(ErrorCode::ApiError)
                .with_retryable(true)
                .with_details(serde_json::json!({ "server": server })),
            // The agent's own command was held back: the token is that command's, which the
            // caller runs itself (the agent cannot be handed a token for a step it has yet to
            // choose).
            AgentError::Engine(e) if self.held_back() => e.clone().with_hint(
                "the agent's step was held back by the session's policy and nothing of it ran: \
                 details.command with details.arguments is the engine command it would run; to \
                 allow it, send exactly that with the token (a batch JSON line {\"command\": ..., \
                 \"args\": ..., \"confirm\": token}, or the MCP tool with `confirm`), then run \
                 the agent again",
            ),
            AgentError::Engine(e) => e.clone(),
            AgentError::File { .. } => info(ErrorCode::ArtifactWriteFailed),
        }
    }
}

/// The agent layer's results.
pub type Result<T, E = AgentError> = std::result::Result<T, E>;
