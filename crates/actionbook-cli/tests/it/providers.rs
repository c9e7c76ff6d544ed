//! `browser start --provider`: Hyperbrowser's API and a pool written in config.toml, both
//! played by a stand-in HTTP server on 127.0.0.1 that records what it was sent and hands out the
//! WebSocket URL of a Chromium the test launched.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::need_chromium;
use crate::remote::{RemoteBrowser, record};
use crate::support::{Env, on, site};

/// One request the stand-in got.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    /// Path and query.
    path: String,
    /// Headers, names lower-cased.
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

type Answer = dyn Fn(&Seen) -> (u16, Value) + Send + Sync;

/// A provider API stand-in: answers each request with `answer`, keeps every request.
struct StandIn {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
}

impl StandIn {
    fn start(answer: impl Fn(&Seen) -> (u16, Value) + Send + Sync + 'static) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let answer: Arc<Answer> = Arc::new(answer);
        let (kept, stopping) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (kept, answer) = (kept.clone(), answer.clone());
                std::thread::spawn(move || serve(stream, &kept, &*answer));
            }
        });
        StandIn { port, seen, stop }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one HTTP/1.1 request, records it and answers (then closes).
fn serve(stream: TcpStream, kept: &Mutex<Vec<Seen>>, answer: &Answer) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or_default().to_string(),
        parts.next().unwrap_or_default().to_string(),
    );
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let req = Seen {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let (status, value) = answer(&req);
    if let Ok(mut s) = kept.lock() {
        s.push(req);
    }
    let body = value.to_string();
    let mut stream = reader.into_inner();
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Runs `browser <args> --json` with extra environment variables: the envelope and all it printed.
fn run_with(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> (Value, String) {
    let mut all = vec!["browser"];
    all.extend_from_slice(args);
    all.push("--json");
    let mut c = env.command(&all);
    for (k, v) in vars {
        c.env(k, v);
    }
    let out = c.output().expect("run");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (v, printed)
}

/// Everything of the home a key must not be in: session records and the daemon's log.
fn home_text(env: &Env) -> String {
    let mut out = std::fs::read_to_string(env.home.join("daemon.log")).unwrap_or_default();
    for e in std::fs::read_dir(env.home.join("sessions"))
        .into_iter()
        .flatten()
        .flatten()
    {
        out.push_str(&std::fs::read_to_string(e.path().join("session.json")).unwrap_or_default());
    }
    out
}

const HB_KEY: &str = "hb-key-7731-secret";

#[test]
fn hyperbrowser_sessions_are_created_driven_and_stopped_through_its_api() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let rb = RemoteBrowser::launch(&env, "hb", "about:blank");
    let ws = rb.ws_url();
    let api = StandIn::start(move |r| match (r.method.as_str(), r.path.as_str()) {
        ("POST", "/api/session") if r.header("x-api-key") == Some(HB_KEY) => (
            200,
            json!({"id": "hb-1", "status": "active", "wsEndpoint": ws}),
        ),
        ("POST", "/api/session") => (401, json!({"error": "Invalid API key"})),
        ("PUT", "/api/session/hb-1/stop") => (200, json!({"success": true})),
        _ => (404, json!({"error": "not found"})),
    });
    let url = api.url();
    let vars = [
        ("HYPERBROWSER_API_KEY", HB_KEY),
        ("ACTIONBOOK_HYPERBROWSER_API_URL", url.as_str()),
    ];
    let (v, printed) = run_with(
        &env,
        &vars,
        &[
            "start",
            "--provider",
            "hyperbrowser",
            "--set-session-id",
            "hb",
            "--open-url",
            &f.url("/index.html"),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["session"]["mode"], "cloud", "{v}");
    assert_eq!(v["data"]["tab"]["title"], "Fixture Home", "{v}");
    assert!(!printed.contains(HB_KEY), "the key was printed: {printed}");
    let created = api.seen();
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(created[0].header("x-api-key"), Some(HB_KEY));
    assert!(serde_json::from_str::<Value>(&created[0].body).is_ok_and(|b| b.is_object()));
    // The record keeps what stopping needs, and no key.
    let rec = record(&env, "hb");
    assert_eq!(
        rec["provider"],
        json!({"name": "hyperbrowser", "id": "hb-1"})
    );
    let v = on(&env, &["--session", "hb", "--tab", "t1"], &["title"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    // close stops the provider's session.
    let (v, printed) = run_with(&env, &vars, &["close", "--session", "hb"]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!printed.contains(HB_KEY), "{printed}");
    let stops: Vec<Seen> = api
        .seen()
        .into_iter()
        .filter(|r| r.method == "PUT")
        .collect();
    assert_eq!(stops.len(), 1, "{stops:?}");
    assert_eq!(stops[0].path, "/api/session/hb-1/stop");
    assert_eq!(stops[0].header("x-api-key"), Some(HB_KEY));
    // A refused key: the caller's to fix, said without the key, and nothing is left behind.
    let bad = [
        ("HYPERBROWSER_API_KEY", "wrong-key-5521"),
        ("ACTIONBOOK_HYPERBROWSER_API_URL", url.as_str()),
    ];
    let (v, printed) = run_with(&env, &bad, &["start", "--provider", "hyperbrowser"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(v["error"]["message"].to_string().contains("401"), "{v}");
    assert!(
        v["error"]["hint"]
            .to_string()
            .contains("HYPERBROWSER_API_KEY")
            || printed.contains("HYPERBROWSER_API_KEY"),
        "{printed}"
    );
    assert!(!printed.contains("wrong-key-5521"), "{printed}");
    let v = env.json(&["browser", "list-sessions"]);
    assert_eq!(v["data"]["total_sessions"], 0, "{v}");
    // No key at all: named, nothing sent.
    let before = api.seen().len();
    let (v, _) = run_with(
        &env,
        &[("ACTIONBOOK_HYPERBROWSER_API_URL", url.as_str())],
        &["start", "--provider", "hyperbrowser"],
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .to_string()
            .contains("HYPERBROWSER_API_KEY"),
        "{v}"
    );
    assert_eq!(api.seen().len(), before);
    let text = home_text(&env);
    assert!(!text.contains(HB_KEY) && !text.contains("wrong-key-5521"));
    // An unknown provider is named with those there are.
    let v = env.json(&["browser", "start", "--provider", "nope"]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(v["error"]["message"].to_string().contains("hyperbrowser"));
}

#[test]
fn a_pool_written_in_config_toml_hands_out_browsers_without_code() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let rb = RemoteBrowser::launch(&env, "pool", "about:blank");
    let ws = rb.ws_url();
    let api = StandIn::start(move |r| match (r.method.as_str(), r.path.as_str()) {
        ("POST", "/pool/new?region=local") => (200, json!({"data": {"ws": ws, "id": 42}})),
        ("DELETE", "/pool/42") => (200, json!({})),
        _ => (404, json!({})),
    });
    std::fs::create_dir_all(&env.home).expect("home");
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            r#"
[providers.mypool]
create_url = "{url}/pool/new?region=${{POOL_REGION:-local}}"
headers = {{ Authorization = "Bearer ${{POOL_TOKEN}}" }}
body = '{{"browser": "chromium"}}'
ws_pointer = "/data/ws"
id_pointer = "/data/id"
stop_url = "{url}/pool/{{id}}"
"#,
            url = api.url()
        ),
    )
    .expect("config");
    let vars = [("POOL_TOKEN", "tok-991-secret")];
    let (v, printed) = run_with(
        &env,
        &vars,
        &[
            "start",
            "--provider",
            "mypool",
            "--set-session-id",
            "pool",
            "--open-url",
            &f.url("/index.html"),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(!printed.contains("tok-991-secret"), "{printed}");
    let seen = api.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(
        seen[0].header("authorization"),
        Some("Bearer tok-991-secret")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&seen[0].body).ok(),
        Some(json!({"browser": "chromium"}))
    );
    assert_eq!(
        record(&env, "pool")["provider"],
        json!({"name": "mypool", "id": "42"})
    );
    let v = on(&env, &["--session", "pool", "--tab", "t1"], &["title"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
    let (v, _) = run_with(&env, &vars, &["close", "--session", "pool"]);
    assert_eq!(v["ok"], true, "{v}");
    let stops: Vec<Seen> = api
        .seen()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .collect();
    assert_eq!(stops.len(), 1, "{stops:?}");
    assert_eq!(stops[0].path, "/pool/42");
    assert_eq!(
        stops[0].header("authorization"),
        Some("Bearer tok-991-secret")
    );
    assert!(!home_text(&env).contains("tok-991-secret"));
}
