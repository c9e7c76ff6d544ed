//! External MCP servers' tools as actions of the model loop (HyperAgent's `initializeMCPClient`),
//! over rmcp's client and its child-process stdio transport.
//!
//! Servers come from `config.toml`'s `[[llm.mcp_servers]]` and from `--mcp-server "<cmd …>"`.
//! They start once per command run, when the command first needs the model (a cached
//! `perform` starts none), each in a process group of its own, and are stopped when the
//! command ends, however it ends: an orderly close first (stdin closed, as the MCP stdio
//! transport says), then SIGKILL to the whole group; a command future dropped midway kills the
//! groups as its servers are dropped. Each server's tools are offered as `<server>__<tool>`
//! with their own input schemas; a call's text content goes back to the model.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use actionbook::commands::extension::ExtensionCall;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::error::{AgentError, Result};
use crate::model::ToolSpec;

/// How long a server gets to start (answer `initialize` and `tools/list`), and each tool call
/// to answer, unless its config says otherwise (the command's deadline bounds both).
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// How long an orderly close may take before the server's process group is killed.
const CLOSE_GRACE: Duration = Duration::from_millis(1_500);
/// How much of a server's stderr is kept (its tail) to explain a failure.
const STDERR_TAIL: usize = 2_000;
/// The most of a tool result told to the model (a server may answer megabytes).
const MAX_RESULT_CHARS: usize = 16_000;
/// The longest tool name the model APIs take (OpenAI: 64).
const MAX_TOOL_NAME: usize = 64;
/// Programs that run the server named by their first argument (`python3 kv.py` is `kv`).
const LAUNCHERS: &[&str] = &[
    "python", "python3", "node", "npx", "bun", "bunx", "deno", "uv", "uvx", "pipx", "sh", "bash",
    "env", "ruby", "perl", "php", "java", "dotnet", "go", "cargo", "docker", "podman",
];

/// One server, as `[[llm.mcp_servers]]` says it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// Its name, the prefix of its tools' names (`[A-Za-z0-9_-]`, no `__`).
    pub name: String,
    /// The program.
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to its environment (it inherits the engine's).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How long it may take to start, and each call to answer (default 30 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl McpServerConfig {
    /// The server of `--mcp-server "<cmd …>"`: the line split as a shell splits words (quotes
    /// and backslashes), named after its program (or the script a launcher runs); a leading
    /// `name=` names it.
    pub fn from_command_line(line: &str) -> Result<McpServerConfig> {
        let bad = |why: &str| AgentError::BadArguments(format!("--mcp-server {line:?}: {why}"));
        let (name, rest) = match line.trim_start().split_once('=') {
            Some((n, rest)) if !n.is_empty() && valid_name(n) && !n.contains(' ') => {
                (Some(n.to_string()), rest)
            }
            _ => (None, line),
        };
        let words = split_words(rest).map_err(|why| bad(&why))?;
        let Some((command, args)) = words.split_first() else {
            return Err(bad("no command"));
        };
        let name = name.unwrap_or_else(|| derive_name(command, args));
        Ok(McpServerConfig {
            name,
            command: command.clone(),
            args: args.to_vec(),
            env: BTreeMap::new(),
            timeout_ms: None,
        })
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS).max(1))
    }

    /// The command line, for messages.
    fn shown(&self) -> String {
        let mut s = self.command.clone();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

/// `[A-Za-z0-9_-]+` without `__` (the separator of `<server>__<tool>`).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A name fit for a tool name: other characters become `_`, runs of `_` one.
fn sanitize(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out.trim_matches('_').to_string()
}

/// The name of a server given as a command: its program's file name without extension, or,
/// for a launcher, that of the first argument that is no option (`npx -y @scope/server-x` is
/// `server-x`).
fn derive_name(command: &str, args: &[String]) -> String {
    let stem = |word: &str| {
        let file = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let file = file
            .split('@')
            .next()
            .filter(|f| !f.is_empty())
            .unwrap_or(file);
        let stem = match file.rsplit_once('.') {
            Some((s, _)) if !s.is_empty() => s,
            _ => file,
        };
        sanitize(stem)
    };
    let program = stem(command);
    let launcher = LAUNCHERS
        .iter()
        .any(|l| program == *l || program.starts_with(&format!("{l}3")));
    let picked = if launcher {
        args.iter()
            .find(|a| !a.starts_with('-') && !a.contains('='))
            .map(|a| stem(a.trim_start_matches('@')))
            .filter(|s| !s.is_empty())
    } else {
        None
    };
    let name = picked.unwrap_or(program);
    if name.is_empty() {
        "mcp".to_string()
    } else {
        name
    }
}

/// Splits a command line into words as a POSIX shell does for quotes and backslashes (no
/// expansions, no operators).
fn split_words(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a \" is not closed".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a \" is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// The servers of one command: the config file's, then the flag's (a name taken gets `-2`).
pub fn configured(
    from_file: Vec<McpServerConfig>,
    flags: &[String],
) -> Result<Vec<McpServerConfig>> {
    let mut all = Vec::new();
    for server in from_file {
        if !valid_name(&server.name) {
            return Err(AgentError::BadArguments(format!(
                "[[llm.mcp_servers]] name {:?}: use letters, digits, _ and - (no __)",
                server.name
            )));
        }
        if server.command.trim().is_empty() {
            return Err(AgentError::BadArguments(format!(
                "[[llm.mcp_servers]] {:?} has no command",
                server.name
            )));
        }
        if all.iter().any(|s: &McpServerConfig| s.name == server.name) {
            return Err(AgentError::BadArguments(format!(
                "[[llm.mcp_servers]] names {:?} twice",
                server.name
            )));
        }
        all.push(server);
    }
    for line in flags {
        let mut server = McpServerConfig::from_command_line(line)?;
        let base = server.name.clone();
        let mut n = 2;
        while all.iter().any(|s| s.name == server.name) {
            server.name = format!("{base}-{n}");
            n += 1;
        }
        all.push(server);
    }
    Ok(all)
}

/// A tool of a server as the model is offered it.
#[derive(Debug, Clone)]
struct OfferedTool {
    /// `<server>__<tool>`, as the model calls it.
    exposed: String,
    /// The tool's own name, as the server knows it.
    tool: String,
    /// Which server (index into [`McpServers::servers`]).
    server: usize,
    description: String,
    input_schema: Value,
}

/// The tail of a server's stderr, kept by a task reading it.
type StderrTail = Arc<Mutex<String>>;

/// One running server.
struct Server {
    config: McpServerConfig,
    /// Its process id, which is also its process group's (spawned as a group leader).
    pid: Option<u32>,
    service: Option<RunningService<RoleClient, ()>>,
    stderr: StderrTail,
    /// The task reading its stderr (done once the server and its children closed it).
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.config.name)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A command future dropped midway (a start cut short, a shutdown that did not
        // finish): its group goes too, no orphans.
        self.kill_group();
    }
}

impl Server {
    /// What its stderr said last, for an error message (empty: nothing).
    fn said(&self) -> String {
        said(&self.stderr)
    }

    /// Waits (half a second at most) for its stderr to close, so that what a server that went
    /// said on its way out is in the error.
    async fn let_stderr_drain(&self) {
        let until = tokio::time::Instant::now() + Duration::from_millis(500);
        while self.reader.as_ref().is_some_and(|r| !r.is_finished())
            && tokio::time::Instant::now() < until
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// SIGKILL to its process group: the server and whatever it started. Once per server (the
    /// pid is taken). The leader may be gone already (an orderly close reaps it moments
    /// before): the group id stays unusable by others while a member it left lives, and with
    /// none left the kill finds nothing (ESRCH, ignored).
    fn kill_group(&mut self) {
        if let Some(pid) = self.pid.take()
            && let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

fn said(tail: &StderrTail) -> String {
    let text = tail.lock().unwrap_or_else(PoisonError::into_inner);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!(" (its stderr: {trimmed})")
    }
}

/// The servers of one command run, and the tools they offer.
#[derive(Debug, Default)]
pub struct McpServers {
    servers: Vec<Server>,
    tools: Vec<OfferedTool>,
}

/// What a tool call gave: its text, or the failure the model is told about (what the tool
/// said when it failed, or why the server refused the arguments); the server itself failing
/// is an [`AgentError`].
pub type CallOutcome = std::result::Result<String, String>;

impl McpServers {
    /// Starts every server (in order; the first that fails stops the rest, and those started
    /// are stopped), each given its `timeout_ms` (bounded by the command's deadline) to answer
    /// `initialize` and list its tools. Its tools' names never take one the model already has.
    pub async fn start(
        configs: Vec<McpServerConfig>,
        call: &ExtensionCall<'_>,
    ) -> Result<McpServers> {
        let mut servers = McpServers::default();
        // Ours, the ends and the program's actions keep their names.
        let mut taken: Vec<String> = crate::actions::action_tools()
            .into_iter()
            .map(|t| t.name)
            .collect();
        taken.extend(crate::actions::ENDS.iter().map(|e| e.to_string()));
        let cwd = call.env.cwd.clone();
        for config in configs {
            let started = tokio::select! {
                s = start_one(config, cwd.as_deref(), call) => s,
                () = call.asker.stopped() => Err(AgentError::Stopped),
            };
            match started {
                Ok((server, tools)) => {
                    let index = servers.servers.len();
                    servers.servers.push(server);
                    servers.offer(index, tools, &taken);
                }
                Err(e) => {
                    servers.shutdown().await;
                    return Err(e);
                }
            }
        }
        Ok(servers)
    }

    /// Names the server's tools `<server>__<tool>` (other characters than `[A-Za-z0-9_-]`
    /// become `_`; cut short enough that a `_N` still fits the APIs' 64), a clash with ours,
    /// another server's or a program's getting `_2`.
    fn offer(&mut self, server: usize, tools: Vec<rmcp::model::Tool>, taken: &[String]) {
        let prefix = &self.servers[server].config.name;
        for tool in tools {
            let mut base = format!("{prefix}__{}", sanitize(&tool.name));
            base.truncate(MAX_TOOL_NAME - 3);
            let mut exposed = base.clone();
            let mut n = 2;
            while taken.contains(&exposed) || self.tools.iter().any(|t| t.exposed == exposed) {
                exposed = format!("{base}_{n}");
                n += 1;
            }
            let mut input_schema = Value::Object((*tool.input_schema).clone());
            // The model APIs want an object schema; MCP's is one, sometimes without its type.
            if input_schema.get("type").is_none() {
                input_schema["type"] = Value::from("object");
            }
            let description = tool
                .description
                .as_deref()
                .or(tool.title.as_deref())
                .unwrap_or_default();
            self.tools.push(OfferedTool {
                exposed,
                tool: tool.name.to_string(),
                server,
                description: format!("{description} (tool of the MCP server {prefix})")
                    .trim_start()
                    .to_string(),
                input_schema,
            });
        }
    }

    /// Their tools, for the model.
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.exposed.clone(),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
            })
            .collect()
    }

    /// Whether `name` is one of their tools.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.exposed == name)
    }

    /// Calls the tool the model named `name` with `input`, within its server's timeout and the
    /// command's deadline; a stop asked drops the call.
    pub async fn call(
        &self,
        name: &str,
        input: &Value,
        call: &ExtensionCall<'_>,
    ) -> Result<CallOutcome> {
        let Some(tool) = self.tools.iter().find(|t| t.exposed == name) else {
            return Ok(Err(format!("there is no tool {name:?}")));
        };
        let server = &self.servers[tool.server];
        let server_name = server.config.name.clone();
        let Some(service) = &server.service else {
            return Err(AgentError::McpServerDied {
                server: server_name,
                reason: "it was stopped".into(),
            });
        };
        let arguments = match input {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            other => {
                return Ok(Err(format!("the arguments are an object, not {other}")));
            }
        };
        let params = CallToolRequestParams::new(tool.tool.clone()).with_arguments(arguments);
        let limit = server.config.timeout().min(call.deadline.remaining());
        let answered = tokio::select! {
            a = tokio::time::timeout(limit, service.peer().call_tool(params)) => a,
            () = call.asker.stopped() => return Err(AgentError::Stopped),
        };
        let result = match answered {
            Err(_) => {
                return Err(AgentError::McpTimeout {
                    server: server_name,
                    what: "a tools/call",
                    timeout_ms: limit.as_millis() as u64,
                });
            }
            Ok(Err(ServiceError::McpError(e))) => {
                // The server refused the call (unknown tool, bad arguments): the model is told.
                return Ok(Err(e.message.to_string()));
            }
            Ok(Err(e)) => {
                server.let_stderr_drain().await;
                return Err(AgentError::McpServerDied {
                    server: server_name,
                    reason: format!("{}{}", describe_service_error(&e), server.said()),
                });
            }
            Ok(Ok(r)) => r,
        };
        let mut text = result
            .content
            .iter()
            .map(|c| match c {
                ContentBlock::Text(t) => t.text.clone(),
                ContentBlock::Image(i) => format!("[image {}]", i.mime_type),
                ContentBlock::Audio(a) => format!("[audio {}]", a.mime_type),
                ContentBlock::Resource(_) => "[embedded resource]".to_string(),
                ContentBlock::ResourceLink(r) => format!("[resource {}]", r.uri),
                _ => "[content of another kind]".to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty()
            && let Some(structured) = &result.structured_content
        {
            text = structured.to_string();
        }
        if text.chars().count() > MAX_RESULT_CHARS {
            text = text.chars().take(MAX_RESULT_CHARS).collect();
            text.push_str(" …(cut)");
        }
        if result.is_error == Some(true) {
            return Ok(Err(text));
        }
        Ok(Ok(text))
    }

    /// Stops every server: an orderly close (stdin closed; the server should exit), then
    /// SIGKILL to its process group whatever it did.
    pub async fn shutdown(&mut self) {
        for s in &mut self.servers {
            if let Some(mut service) = s.service.take() {
                let _ = service.close_with_timeout(CLOSE_GRACE).await;
                s.kill_group();
                drop(service);
            }
            s.kill_group();
        }
    }
}

fn describe_service_error(e: &ServiceError) -> String {
    match e {
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            "it exited or closed its stdout".to_string()
        }
        other => other.to_string(),
    }
}

/// Spawns one server and runs the handshake: `initialize`, then `tools/list`.
async fn start_one(
    config: McpServerConfig,
    cwd: Option<&Path>,
    call: &ExtensionCall<'_>,
) -> Result<(Server, Vec<rmcp::model::Tool>)> {
    let mut cmd = tokio::process::Command::new(&config.command);
    cmd.args(&config.args)
        .envs(&config.env)
        // Its own group: killed whole at the end, and a Ctrl-C in the caller's terminal is ours
        // to pass on, not the server's to take.
        .process_group(0)
        .kill_on_drop(true);
    if let Some(dir) = cwd.filter(|d| d.is_dir()) {
        cmd.current_dir(dir);
    }
    let spawned = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn();
    let (transport, stderr) = match spawned {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(AgentError::McpNotFound {
                server: config.name.clone(),
                command: config.shown(),
            });
        }
        Err(e) => {
            let reason = match e.kind() {
                std::io::ErrorKind::PermissionDenied => {
                    format!("{} is not executable", config.command)
                }
                _ => e.to_string(),
            };
            return Err(AgentError::McpNotStarted {
                server: config.name.clone(),
                command: config.shown(),
                reason,
            });
        }
    };
    let pid = transport.id();
    let tail: StderrTail = Arc::default();
    let reader = stderr.map(|mut err| {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 1024];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                if t.len() > STDERR_TAIL {
                    let mut cut = t.len() - STDERR_TAIL;
                    while !t.is_char_boundary(cut) {
                        cut += 1;
                    }
                    t.drain(..cut);
                }
            }
        })
    });
    let mut server = Server {
        config,
        pid,
        service: None,
        stderr: tail,
        reader,
    };
    let limit = server.config.timeout().min(call.deadline.remaining());
    let name = server.config.name.clone();
    let handshake = async {
        let service = ().serve(transport).await;
        let service = match service {
            Ok(s) => s,
            Err(e) => return Err(Some(e.to_string())),
        };
        let tools = service.peer().list_all_tools().await;
        Ok((service, tools))
    };
    let failed = |server: &mut Server, reason: String| {
        server.kill_group();
        AgentError::McpNotStarted {
            server: server.config.name.clone(),
            command: server.config.shown(),
            reason,
        }
    };
    match tokio::time::timeout(limit, handshake).await {
        Ok(Ok((service, Ok(tools)))) => {
            server.service = Some(service);
            Ok((server, tools))
        }
        Ok(Ok((service, Err(e)))) => {
            drop(service);
            server.let_stderr_drain().await;
            let why = format!("tools/list failed: {}", describe_service_error(&e));
            let why = format!("{why}{}", server.said());
            Err(failed(&mut server, why))
        }
        Ok(Err(why)) => {
            // It went before answering: let its stderr reach us to say why.
            server.let_stderr_drain().await;
            let why = why.unwrap_or_default();
            let why = if why.contains("connection closed") || why.contains("closed") {
                "it exited before answering initialize".to_string()
            } else {
                format!("initialize failed: {why}")
            };
            let why = format!("{why}{}", server.said());
            Err(failed(&mut server, why))
        }
        Err(_) => {
            server.kill_group();
            Err(AgentError::McpTimeout {
                server: name,
                what: "initialize and tools/list (JSON-RPC lines on its stdout)",
                timeout_ms: limit.as_millis() as u64,
            })
        }
    }
}

/// `[[llm.mcp_servers]]` of `config.toml`: none when the file is absent or not TOML (as `[llm]`
/// is read); entries that do not fit are an error naming what is wrong.
pub fn from_config_file(path: &Path) -> Result<Vec<McpServerConfig>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(vec![]);
    };
    let Ok(doc) = toml::from_str::<toml::Table>(&text) else {
        return Ok(vec![]);
    };
    let Some(list) = doc.get("llm").and_then(|l| l.get("mcp_servers")) else {
        return Ok(vec![]);
    };
    list.clone()
        .try_into::<Vec<McpServerConfig>>()
        .map_err(|e| {
            AgentError::BadArguments(format!(
                "{}: [[llm.mcp_servers]]: {}",
                path.display(),
                e.message()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_as_a_shell_splits_them() {
        assert_eq!(
            split_words(r#"python3 "my server.py" --key 'a b' c\ d"#),
            Ok(vec![
                "python3".to_string(),
                "my server.py".into(),
                "--key".into(),
                "a b".into(),
                "c d".into()
            ])
        );
        assert!(split_words("node 'open").is_err());
        assert_eq!(split_words("  "), Ok(vec![]));
    }

    #[test]
    fn a_flag_server_is_named_after_its_program_or_script() {
        let name = |l: &str| McpServerConfig::from_command_line(l).ok().map(|c| c.name);
        assert_eq!(name("python3 /tmp/kv_server.py"), Some("kv_server".into()));
        assert_eq!(
            name("npx -y @modelcontextprotocol/server-filesystem /tmp"),
            Some("server-filesystem".into())
        );
        assert_eq!(
            name("/usr/local/bin/weather-mcp --stdio"),
            Some("weather-mcp".into())
        );
        assert_eq!(name("kv=python3 server.py"), Some("kv".into()));
        assert!(McpServerConfig::from_command_line("").is_err());
        let kv = McpServerConfig::from_command_line("kv=python3 server.py --x=1");
        assert_eq!(
            kv.ok().map(|c| c.args),
            Some(vec!["server.py".into(), "--x=1".into()])
        );
    }

    #[test]
    fn names_are_unique_and_fit_tool_names() {
        let file = vec![McpServerConfig {
            name: "kv".into(),
            command: "kv-server".into(),
            ..Default::default()
        }];
        let all = configured(file, &["python3 kv.py".into(), "python3 kv.py".into()]);
        let names: Vec<String> = all
            .map(|a| a.into_iter().map(|s| s.name).collect())
            .unwrap_or_default();
        assert_eq!(names, vec!["kv", "kv-2", "kv-3"]);
        let bad = McpServerConfig {
            name: "a__b".into(),
            command: "x".into(),
            ..Default::default()
        };
        assert!(configured(vec![bad], &[]).is_err());
        assert_eq!(sanitize("files/read.all"), "files_read_all");
    }

    #[test]
    fn no_schema_lets_an_mcp_client_or_a_batch_line_name_a_program() {
        let schemas = [
            serde_json::to_value(schemars::schema_for!(crate::commands::Ai)),
            serde_json::to_value(schemars::schema_for!(crate::commands::Perform)),
            serde_json::to_value(schemars::schema_for!(crate::commands::OneShot)),
        ];
        for schema in schemas {
            let schema = schema.unwrap_or_default();
            assert!(
                schema["properties"]["task"].is_object()
                    || schema["properties"]["instruction"].is_object()
            );
            assert!(schema["properties"].get("mcp_server").is_none(), "{schema}");
        }
        // The CLI's request still carries them.
        let ai: crate::commands::Ai = serde_json::from_value(serde_json::json!({
            "task": "t", "mcp_server": ["python3 kv.py"], "session": "s", "tab": "t"
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ai.mcp_servers, vec!["python3 kv.py".to_string()]);
    }
}
