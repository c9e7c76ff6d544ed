//! The MCP server loop over any line transport (stdio in the binary, in-memory pipes in tests).
//!
//! One reader (this loop), one writer task that owns the output; each request runs on a task of
//! its own, so a `ping` or `tools/list` is answered while a long `tools/call` runs. At end of input
//! the server stops reading, lets the calls in flight answer, flushes and returns.
//!
//! `notifications/cancelled`: a call of a read or a wait (the commands the daemon stops when their
//! CLI client goes away, as on Ctrl-C) is stopped the same way, its tab freed, and gets no
//! response, as the MCP spec asks. Any other call (a click, a start, an eval, ...) runs to its end
//! and is answered: cut midway it would leave the page or the session half changed, and the spec
//! lets a receiver ignore the cancellation of a request that cannot be cancelled.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};

use futures::FutureExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use super::Backend;
use super::result::{ToolResult, tool_result};
use super::rpc::{self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, RpcError};
use super::tools::Catalogue;
use crate::commands::extension::Asker;
use crate::reply;

/// The protocol revisions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Largest message read (a longer line is answered with a parse error and skipped).
const MAX_LINE: usize = 16 << 20;

/// What the server tells the client about itself.
const INSTRUCTIONS: &str = "Drive a real Chromium. Start with browser_start (it answers the session id and its first tab, t1), \
then pass session and tab to every page tool. browser_snapshot returns the page's accessibility tree with stable refs (@e3) \
that browser_click/browser_fill take as selectors (CSS and XPath work too, in any frame). Every result carries the \
actionbook envelope in structuredContent; a failed command has isError and an error code.";

/// The server: its tools and where their commands run.
#[derive(Debug)]
pub struct Server {
    /// The published tools.
    pub catalogue: Catalogue,
    /// The engine or the daemon.
    pub backend: Backend,
    /// Tools per `tools/list` page.
    pub page_size: usize,
}

impl Server {
    /// Serves `input` until it ends, writing responses to `output`.
    pub async fn serve<R, W>(self: Arc<Self>, mut input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(write_lines(output, rx));
        let mut calls = JoinSet::new();
        // The requests in flight, by id (its JSON text): how to cancel each.
        let cancels: Arc<Mutex<HashMap<String, oneshot::Sender<()>>>> = Arc::default();
        let mut line = Vec::new();
        loop {
            line.clear();
            let (n, too_long) = read_line(&mut input, &mut line).await?;
            if n == 0 {
                break;
            }
            while calls.try_join_next().is_some() {}
            let message = if too_long {
                Incoming::Invalid {
                    id: Value::Null,
                    error: RpcError::new(
                        rpc::PARSE_ERROR,
                        format!("message longer than {MAX_LINE} bytes"),
                    ),
                }
            } else {
                rpc::parse(&line)
            };
            match message {
                Incoming::Request { id, method, params } => {
                    let server = self.clone();
                    let tx = tx.clone();
                    let key = id.to_string();
                    let (cancel, cancelled) = oneshot::channel();
                    lock(&cancels).insert(key.clone(), cancel);
                    let cancels = cancels.clone();
                    calls.spawn(async move {
                        // A bug must not leave the client waiting for an answer that never comes.
                        let handled =
                            AssertUnwindSafe(server.handle(&id, &method, params, cancelled, &tx))
                                .catch_unwind()
                                .await;
                        lock(&cancels).remove(&key);
                        let line = handled.unwrap_or_else(|_| {
                            Some(rpc::error_line(
                                &id,
                                &RpcError::new(
                                    rpc::INTERNAL_ERROR,
                                    "internal error: the request handler panicked",
                                ),
                            ))
                        });
                        // None: cancelled and stopped, answered by nothing.
                        if let Some(line) = line {
                            let _ = tx.send(line);
                        }
                    });
                }
                Incoming::Invalid { id, error } => {
                    let _ = tx.send(rpc::error_line(&id, &error));
                }
                Incoming::Notification { method, params }
                    if method == "notifications/cancelled" =>
                {
                    // An unknown or finished request: nothing to do (the spec's MAY ignore).
                    let id = params
                        .get("requestId")
                        .filter(|id| id.is_string() || id.is_number());
                    if let Some(cancel) = id.and_then(|id| lock(&cancels).remove(&id.to_string())) {
                        let _ = cancel.send(());
                    }
                }
                // `notifications/initialized` and the like.
                Incoming::Notification { .. } | Incoming::Ignored => {}
            }
        }
        while calls.join_next().await.is_some() {}
        drop(tx);
        writer.await.map_err(std::io::Error::other)?
    }

    /// The response line of one request; none when `cancelled` stopped it.
    async fn handle(
        &self,
        id: &Value,
        method: &str,
        params: Value,
        cancelled: oneshot::Receiver<()>,
        out: &mpsc::UnboundedSender<String>,
    ) -> Option<String> {
        let result = match method {
            "initialize" => Ok(initialize(&params)),
            "ping" => Ok(json!({})),
            "tools/list" => self.list(&params),
            "tools/call" => {
                // Only a cancellation sent resolves it, not its sender dropped.
                let cancelled = async {
                    if cancelled.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                };
                return Some(match self.call(params, cancelled, out).await? {
                    Ok(result) => rpc::success_line(id, result),
                    Err(e) => rpc::error_line(id, &e),
                });
            }
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            )),
        };
        Some(match result {
            Ok(result) => rpc::success_line(id, result),
            Err(e) => rpc::error_line(id, &e),
        })
    }

    fn list(&self, params: &Value) -> Result<Value, RpcError> {
        let tools = self.catalogue.tools();
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0 && n < tools.len())
                .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("invalid cursor {c:?}")))?,
            Some(other) => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!("invalid cursor {other}"),
                ));
            }
        };
        let end = (start + self.page_size.max(1)).min(tools.len());
        let page: Vec<&Value> = tools[start..end].iter().map(|t| &t.definition).collect();
        let mut result = json!({ "tools": page });
        if end < tools.len() {
            result["nextCursor"] = Value::from(end.to_string());
        }
        Ok(result)
    }

    /// A `tools/call`: an unknown tool is a protocol error, everything else a tool result; none
    /// when `cancelled` stopped the command.
    async fn call(
        &self,
        params: Value,
        cancelled: impl Future<Output = ()>,
        out: &mpsc::UnboundedSender<String>,
    ) -> Option<Result<ToolResult, RpcError>> {
        let name = params.get("name").and_then(Value::as_str);
        let Some(name) = name else {
            let e = RpcError::new(INVALID_PARAMS, "tools/call needs a tool name (params.name)");
            return Some(Err(e));
        };
        let Some(tool) = self.catalogue.find(name) else {
            let e = RpcError::new(INVALID_PARAMS, format!("unknown tool: {name}"));
            return Some(Err(e));
        };
        let (envelope, json) = match self
            .catalogue
            .request(tool, params.get("arguments").cloned())
        {
            // The commands the daemon stops when their client is gone (reads and waits): the
            // others run to their end, whatever the client says.
            Ok(request) if tool.spec.stops_without_its_caller() => {
                self.backend.execute_until(request, cancelled).await?
            }
            // An agent loop: asked to stop at its next safe point; its steps as progress
            // notifications when the client gave a progress token.
            Ok(request) if tool.spec.traits.stops_when_asked => {
                let asker = progress_asker(&params, out);
                self.backend
                    .execute_asked(request, &asker, cancelled)
                    .await?
            }
            Ok(request) => self.backend.execute(request).await,
            Err(e) => {
                let env = reply::failure(tool.spec.name, None, &e);
                let json = env.to_json();
                (env, json)
            }
        };
        Some(Ok(tool_result(&envelope, json)))
    }
}

/// The asker of a call: its progress lines become `notifications/progress` for the call's
/// `_meta.progressToken`, when it has one.
fn progress_asker(params: &Value, out: &mpsc::UnboundedSender<String>) -> Asker {
    let Some(token) = params
        .pointer("/_meta/progressToken")
        .filter(|t| t.is_string() || t.is_number())
        .cloned()
    else {
        return Asker::default();
    };
    let out = out.clone();
    let count = std::sync::atomic::AtomicU64::new(0);
    Asker::with_progress(move |line| {
        let progress = count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let note = json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": { "progressToken": token, "progress": progress, "message": line },
        });
        let _ = out.send(note.to_string());
    })
}

/// The map's lock; a panic elsewhere while holding it leaves the map usable.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    // The client's revision when we speak it, else our newest (the client then decides).
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": {
            "name": "actionbook",
            "title": "Actionbook",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "instructions": INSTRUCTIONS,
    })
}

/// Reads one line into `line`: the bytes consumed (0 at end of input), and whether the line was
/// longer than [`MAX_LINE`] (then only its start is kept and the rest skipped, never buffered).
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<(usize, bool)> {
    let (mut total, mut too_long) = (0, false);
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok((total, too_long));
        }
        let (n, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + n <= MAX_LINE {
            line.extend_from_slice(&buf[..n]);
        } else {
            too_long = true;
        }
        input.consume(n);
        total += n;
        if done {
            return Ok((total, too_long));
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut rx: mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    while let Some(mut line) = rx.recv().await {
        line.push('\n');
        output.write_all(line.as_bytes()).await?;
        // Flush per message: the client waits for it (and a pipe may buffer).
        output.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::engine::{Engine, EngineConfig};
    use crate::mcp::tools;
    use crate::model::ClientEnv;
    use crate::store::Home;

    /// Feeds `lines` to a server over in-memory pipes, ends the input, returns every answer.
    async fn exchange(lines: &[Value], page_size: usize) -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let engine = Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let specs = tools::select("all").unwrap_or_else(|e| panic!("{e}"));
        let server = Arc::new(Server {
            catalogue: Catalogue::new(&specs, None, None, ClientEnv::default()),
            backend: Backend::InProcess(engine),
            page_size,
        });
        let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 20);
        let serving = tokio::spawn(server.serve(tokio::io::BufReader::new(server_in), server_out));
        for line in lines {
            let mut text = line.to_string();
            text.push('\n');
            let _ = client_in.write_all(text.as_bytes()).await;
        }
        let _ = client_in
            .write_all(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await;
        drop(client_in);
        let served = serving
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        assert!(served.is_ok(), "{served:?}");
        let mut out = String::new();
        let _ = client_out.read_to_string(&mut out).await;
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    fn by_id(answers: &[Value], id: i64) -> Value {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no answer {id} in {answers:?}"))
    }

    #[tokio::test]
    async fn answers_every_request_once_pages_tools_and_stops_at_end_of_input() {
        let request = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let total = crate::commands::COMMANDS.len();
        let answers = exchange(
            &[
                request(1, "initialize", json!({"protocolVersion": "1999-01-01"})),
                request(2, "tools/list", json!({})),
                request(3, "tools/list", json!({"cursor": "3"})),
                request(4, "tools/list", json!({"cursor": total.to_string()})),
                request(5, "tools/call", json!({"name": "browser_list_sessions"})),
                request(6, "tools/call", json!({"arguments": {}})),
                request(7, "ping", Value::Null),
                // Cancelling what is not a command (a ping, a bad call) or is unknown: ignored.
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}),
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}),
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
            ],
            3,
        )
        .await;
        assert_eq!(answers.len(), 7, "{answers:?}");
        assert_eq!(
            by_id(&answers, 1)["result"]["protocolVersion"],
            PROTOCOL_VERSIONS[0]
        );
        let first = by_id(&answers, 2);
        assert_eq!(first["result"]["tools"].as_array().map(Vec::len), Some(3));
        assert_eq!(first["result"]["nextCursor"], "3");
        let second = by_id(&answers, 3);
        assert_eq!(
            second["result"]["tools"][0]["name"],
            tools::tool_name(crate::commands::COMMANDS[3].name)
        );
        assert_eq!(by_id(&answers, 4)["error"]["code"], INVALID_PARAMS);
        let listed = by_id(&answers, 5);
        assert_eq!(listed["result"]["isError"], false, "{listed}");
        assert_eq!(
            listed["result"]["structuredContent"]["data"]["total_sessions"],
            0
        );
        assert_eq!(by_id(&answers, 6)["error"]["code"], INVALID_PARAMS);
        assert_eq!(by_id(&answers, 7)["result"], json!({}));
    }
}
