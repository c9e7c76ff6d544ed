//! `actionbook mcp`: a Model Context Protocol server over stdio, its tools made from the command
//! table (one per row, input schema = the request's JSON Schema, annotations from its traits).
//!
//! - `rpc`: JSON-RPC 2.0 lines (parse, responses, error codes);
//! - [`tools`]: the catalogue (profiles, schemas, a fixed session) and call -> [`Request`];
//! - `result`: envelope -> tool result (`structuredContent`, text, snapshot text, images);
//! - [`server`]: the loop (initialize, ping, tools/list with pages, tools/call; exit at EOF).
//!
//! Where commands run ([`Backend`]): by default the per-user daemon, the one the CLI talks to,
//! so sessions are shared with CLI calls and outlive the MCP client (an agent's client restarts
//! its servers freely; the browser it left should still be there, and a human can inspect it with
//! the CLI). `--in-process` embeds the engine instead (no daemon process; sessions still persist
//! in the home and a later daemon or server re-attaches to them).
//!
//! Why not an SDK crate: the official `rmcp` (3.x) is maintained and fits a server of static,
//! macro-described tools; ours are data (the table), so we would use none of its macros and only
//! its stdio framing and message types, for about ten more crates (tokio-util, uuid, chrono,
//! tracing, proc-macros). A tools-only stdio server is one small loop of JSON-RPC lines, below.

use std::process::ExitCode;
use std::sync::Arc;

use envelope::Envelope;

use crate::commands::extension::Asker;
use crate::daemon::client;
use crate::engine::{Engine, EngineConfig, Request};
use crate::error::CliError;
use crate::model::{ClientEnv, SessionId};
use crate::store::Home;

mod result;
mod rpc;
pub mod server;
pub mod tools;

/// Tools per `tools/list` page by default.
pub const DEFAULT_PAGE_SIZE: usize = 50;

/// `actionbook mcp` options.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct McpOptions {
    /// Tools to publish: `core` (start/close, goto/back, snapshot, click, fill, type, press,
    /// select, wait, eval, screenshot, list-tabs/new-tab), `all`, or a comma list of profiles and
    /// tool names (`core,browser_title`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value = "core", value_name = "LIST")
    )]
    pub tools: String,
    /// Fix the session: no tool asks for it, `browser_start` creates or attaches to it.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SID"))]
    pub session: Option<SessionId>,
    /// Run the engine inside this process instead of talking to the daemon (on a home that no
    /// daemon serves at the same time).
    #[cfg_attr(feature = "cli", arg(long))]
    pub in_process: bool,
    /// Tools per `tools/list` page.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = DEFAULT_PAGE_SIZE))]
    pub page_size: usize,
}

/// Where the commands of tool calls run.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The per-user daemon of this home (started on demand, as by the CLI).
    Daemon(Home),
    /// An engine in this process.
    InProcess(Engine),
}

impl Backend {
    /// Runs `request`: its envelope and the envelope's JSON. Dropping the future stops the
    /// command as the daemon stops one whose client is gone (in process: its future is dropped;
    /// through the daemon: the connection is hung up, so the daemon drops it).
    pub async fn execute(&self, request: Request) -> (Envelope, String) {
        match self {
            Backend::InProcess(engine) => {
                let env = engine.execute(request).await;
                let json = env.to_json();
                (env, json)
            }
            Backend::Daemon(home) => {
                let sent_request = client::Unanswered::of(&request.command);
                let home = home.clone();
                let call = client::HangUp::default();
                let guard = HangUpOnDrop(Some(call.clone()));
                let sent = tokio::task::spawn_blocking(move || {
                    client::send_cancellable(&home, request, false, &call)
                })
                .await;
                guard.disarm();
                answered(sent, &sent_request)
            }
        }
    }

    /// Runs `request` unless `cancelled` resolves first: then the command is stopped (see
    /// [`Backend::execute`]) and there is no envelope. Callers pass a `cancelled` that can
    /// resolve only for commands that are safe to cut.
    pub async fn execute_until(
        &self,
        request: Request,
        cancelled: impl Future<Output = ()>,
    ) -> Option<(Envelope, String)> {
        tokio::select! {
            done = self.execute(request) => Some(done),
            () = cancelled => None,
        }
    }
}

impl Backend {
    /// Runs a command that [stops when asked](crate::CommandTraits::stops_when_asked) for
    /// `asker` (its progress lines go there): once `cancelled` resolves it is asked to stop (in
    /// process: through the asker; through the daemon: the call is hung up, and the daemon asks),
    /// and there is no envelope.
    pub async fn execute_asked(
        &self,
        request: Request,
        asker: &Asker,
        cancelled: impl Future<Output = ()>,
    ) -> Option<(Envelope, String)> {
        match self {
            Backend::InProcess(engine) => {
                let was_cancelled = std::sync::atomic::AtomicBool::new(false);
                let gone = async {
                    cancelled.await;
                    was_cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
                };
                let env = engine.execute_until_gone(request, asker, gone).await;
                if was_cancelled.load(std::sync::atomic::Ordering::Relaxed) {
                    return None;
                }
                let json = env.to_json();
                Some((env, json))
            }
            Backend::Daemon(home) => {
                let sent_request = client::Unanswered::of(&request.command);
                let (home, asker) = (home.clone(), asker.clone());
                let call = client::HangUp::default();
                let guard = HangUpOnDrop(Some(call.clone()));
                let sent = tokio::task::spawn_blocking(move || {
                    let progress = |line: &str| asker.progress(line);
                    client::send_with_progress(&home, request, false, &call, Some(&progress))
                });
                let sent = tokio::select! {
                    sent = sent => sent,
                    // The guard hangs up: the daemon asks the command to stop.
                    () = cancelled => return None,
                };
                guard.disarm();
                Some(answered(sent, &sent_request))
            }
        }
    }
}

/// The envelope of a daemon call's reply (and its JSON), or of its failure.
fn answered(
    sent: std::result::Result<crate::error::Result<client::Reply>, tokio::task::JoinError>,
    sent_request: &client::Unanswered,
) -> (Envelope, String) {
    let parsed = match sent {
        Ok(Ok(reply)) => Envelope::from_json(&reply.body)
            .map(|env| (env, reply.body))
            .map_err(|e| CliError::Internal(format!("unreadable reply: {e}"))),
        Ok(Err(e)) => Err(e),
        Err(e) => Err(CliError::Internal(format!("the daemon call failed: {e}"))),
    };
    parsed.unwrap_or_else(|e| {
        let env = sent_request.envelope(&e);
        let json = env.to_json();
        (env, json)
    })
}

/// Hangs up a daemon call when dropped before [`HangUpOnDrop::disarm`]: the call's future was
/// dropped (cancelled), and the blocking call returns at once on its shut connection.
struct HangUpOnDrop(Option<client::HangUp>);

impl HangUpOnDrop {
    /// The call ended: nothing to hang up.
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for HangUpOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.hang_up();
        }
    }
}

/// Runs the server on stdin/stdout until stdin ends. `timeout_ms` is every call's default.
pub fn run(home: Home, options: &McpOptions, timeout_ms: Option<u64>) -> ExitCode {
    let specs = match tools::select(&options.tools) {
        Ok(specs) => specs,
        Err(e) => {
            eprintln!("actionbook mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let catalogue = tools::Catalogue::new(
        &specs,
        options.session.clone(),
        timeout_ms,
        ClientEnv::from_process(),
    );
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("actionbook mcp: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let backend = if options.in_process {
        if std::os::unix::net::UnixStream::connect(home.socket()).is_ok() {
            // Two engines on one home would both drive its browsers and race on its records.
            eprintln!(
                "actionbook mcp: warning: a daemon serves {} too; give --in-process a home of its own (ACTIONBOOK_HOME) or drop the flag",
                home.root().display()
            );
        }
        match Engine::new(EngineConfig { home }) {
            Ok(engine) => Backend::InProcess(engine),
            Err(e) => {
                eprintln!("actionbook mcp: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        Backend::Daemon(home)
    };
    let server = Arc::new(server::Server {
        catalogue,
        backend: backend.clone(),
        page_size: options.page_size,
    });
    let served = runtime.block_on(async {
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        let served = server.serve(input, tokio::io::stdout()).await;
        if let Backend::InProcess(engine) = &backend {
            // The browsers stay up for the next server, daemon or CLI call (as at daemon exit).
            engine.detach_all();
        }
        served
    });
    // Stdin's reader thread may still block in read(2): do not wait for it.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("actionbook mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
