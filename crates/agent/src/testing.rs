//! A scripted model: a real HTTP server on 127.0.0.1 speaking OpenAI's chat completions, whose
//! answers a test computes from each request (as a model reads the page it was sent), recording
//! every request for the test's assertions. Feature `test-support`: for the tests of this crate
//! and of the crates above it (the binary's).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The answer a script gives: an HTTP status and a JSON body (and an optional Retry-After).
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The JSON body.
    pub body: Value,
    /// A `Retry-After` header, in seconds.
    pub retry_after: Option<u32>,
}

/// The status of an answer never sent ([`hold`]).
const HOLD: u16 = 0;

/// An answer that never comes: the request is held open until the client gives up on it.
pub fn hold() -> Answer {
    Answer {
        status: HOLD,
        body: Value::Null,
        retry_after: None,
    }
}

type Script = dyn Fn(usize, &Value) -> Answer + Send + Sync;

/// The running server.
#[derive(Debug)]
pub struct ModelServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    requests: Arc<Mutex<Vec<Value>>>,
    dropped: Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ModelServer {
    /// Starts a server answering request `n` (0-based) with `script(n, body)`.
    pub async fn start(script: impl Fn(usize, &Value) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let seen = requests.clone();
        let dropped = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let gone = dropped.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (seen, script, gone) = (seen.clone(), script.clone(), gone.clone());
                tokio::spawn(async move {
                    if let Ok(Held) = serve(stream, &seen, &*script).await {
                        gone.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                });
            }
        });
        ModelServer {
            port,
            requests,
            dropped,
            task,
        }
    }

    /// `ACTIONBOOK_LLM_BASE_URL` for it.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request body so far.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many held requests ([`hold`]) the client gave up on (closed their connection).
    pub fn dropped(&self) -> usize {
        self.dropped.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A connection that ended on a held request its client closed.
struct Held;

async fn serve(
    mut stream: TcpStream,
    seen: &Mutex<Vec<Value>>,
    script: &Script,
) -> std::io::Result<Held> {
    loop {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 16384];
        let header_end = loop {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
        };
        let head = String::from_utf8_lossy(&buf[..header_end]).to_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < header_end + length {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let body: Value =
            serde_json::from_slice(&buf[header_end..header_end + length]).unwrap_or(Value::Null);
        let n = {
            let mut s = seen.lock().expect("lock");
            s.push(body.clone());
            s.len() - 1
        };
        let answer = script(n, &body);
        if answer.status == HOLD {
            // A model that never answers: the connection stays open until the client drops it.
            let mut rest = [0u8; 1024];
            while stream.read(&mut rest).await? > 0 {}
            return Ok(Held);
        }
        let text = answer.body.to_string();
        let mut reply = format!(
            "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            answer.status,
            text.len()
        );
        if let Some(s) = answer.retry_after {
            reply.push_str(&format!("retry-after: {s}\r\n"));
        }
        reply.push_str("\r\n");
        reply.push_str(&text);
        stream.write_all(reply.as_bytes()).await?;
    }
}

/// A chat-completions answer with these tool calls (`(name, arguments)`).
pub fn tool_calls(calls: &[(&str, Value)]) -> Answer {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({ "id": format!("call_{i}"), "type": "function",
                    "function": { "name": name, "arguments": args.to_string() } })
        })
        .collect();
    Answer {
        status: 200,
        body: json!({
            "choices": [{ "index": 0, "finish_reason": "tool_calls",
                          "message": { "role": "assistant", "content": null, "tool_calls": calls } }],
            "usage": { "prompt_tokens": 100, "completion_tokens": 10 }
        }),
        retry_after: None,
    }
}

/// A chat-completions answer whose content is `text`.
pub fn content(text: &str) -> Answer {
    Answer {
        status: 200,
        body: json!({
            "choices": [{ "index": 0, "finish_reason": "stop",
                          "message": { "role": "assistant", "content": text } }],
            "usage": { "prompt_tokens": 50, "completion_tokens": 5 }
        }),
        retry_after: None,
    }
}

/// The text of the last user message of a request.
pub fn last_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rfind(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .unwrap_or_default()
}

/// A message's text: the string, or its text parts joined (a message with images).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The images (`data:` URLs) of every user message of a request, in order.
pub fn user_images(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter_map(|p| p["image_url"]["url"].as_str())
        .map(str::to_string)
        .collect()
}

/// Every user message's text of a request, joined.
pub fn all_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ref (`e12`) of the first snapshot line of `text` that contains `needle`.
pub fn ref_of(text: &str, needle: &str) -> Option<String> {
    text.lines().filter(|l| l.contains(needle)).find_map(|l| {
        let at = l.find("[ref=")? + 5;
        let end = l[at..].find(']')? + at;
        Some(l[at..end].to_string())
    })
}
