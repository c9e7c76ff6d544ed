//! Session secrets (issue 40): `--secret name=value`, `ACTIONBOOK_SECRET_<NAME>` and `secret set`
//! are typed where `fill` says `<<name>>`, the page really gets the value, and the value is in
//! no byte of any command's output nor of any file under the home (masked as `<<name>>`).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Run, eventually};

const PW: &str = "S3cr3t-xyz";

/// A login page that shows what is typed in a `<div>`, logs it, and POSTs it (form-encoded) to
/// `/login`, whose bodies the server keeps.
const LOGIN: &str = r#"<!doctype html><html><head><title>Login</title></head><body>
<label for="pw">Password</label><input id="pw" type="text">
<button id="go" onclick="send()">Log in</button>
<div id="echo"></div>
<script>
  const pw = document.getElementById('pw');
  pw.addEventListener('input', () => { document.getElementById('echo').textContent = 'you typed ' + pw.value; });
  function send() {
    console.log('sending ' + pw.value);
    fetch('/login', { method: 'POST', body: new URLSearchParams({ pw: pw.value }) })
      .then(r => r.text()).then(t => { document.title = 'sent'; });
  }
</script>
</body></html>"#;

/// A tiny HTTP server of the test's own: `GET /` is the login page, `POST /login` is kept.
struct LoginServer {
    port: u16,
    posted: Arc<Mutex<Vec<String>>>,
}

impl LoginServer {
    fn start() -> LoginServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let posted = Arc::new(Mutex::new(Vec::new()));
        let kept = posted.clone();
        // Detached: it ends with the test process.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = serve(stream, &kept);
            }
        });
        LoginServer { port, posted }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    fn posted(&self) -> Vec<String> {
        self.posted.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

fn serve(mut s: std::net::TcpStream, kept: &Mutex<Vec<String>>) -> std::io::Result<()> {
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let (ct, body) = if head.starts_with("POST /login") {
        let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
        if let Ok(mut k) = kept.lock() {
            k.push(body);
        }
        ("text/plain", "welcome".to_string())
    } else if head.starts_with("GET / ") {
        ("text/html; charset=utf-8", LOGIN.to_string())
    } else {
        ("text/plain", String::new())
    };
    let status = if body.is_empty() {
        "404 Not Found"
    } else {
        "200 OK"
    };
    write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Runs a command, asserts the value is in none of its output, returns its envelope.
#[track_caller]
fn clean(env: &Env, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let run: Run = env.run(&a);
    assert!(
        !run.stdout.contains(PW) && !run.stderr.contains(PW),
        "{args:?} leaked the secret: {run:?}"
    );
    run.json()
}

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(files_holding(&p, needle));
        } else if let Ok(bytes) = std::fs::read(&p)
            && bytes.windows(needle.len()).any(|w| w == needle)
        {
            found.push(p.display().to_string());
        }
    }
    found
}

/// The browser profile is the page's own storage (its form autofill, its caches): what the page
/// was given, not what actionbook wrote.
fn ours(files: Vec<String>) -> Vec<String> {
    files
        .into_iter()
        .filter(|f| !f.contains("/profiles/"))
        .collect()
}

#[test]
fn a_secret_is_typed_for_real_and_masked_in_every_answer_and_file() {
    need_chromium!();
    let env = Env::new();
    let server = LoginServer::start();
    let secret = format!("pw={PW}");
    let v = clean(
        &env,
        &[
            "browser",
            "start",
            "--headless",
            "--secret",
            &secret,
            "--open-url",
            &server.url(),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    let sid = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let on = |args: &[&str]| clean(&env, &[&["browser"][..], args, &t].concat());

    let v = on(&["network", "har", "start", "--content", "text"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&["fill", "#pw", "<<pw>>"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = on(&["click", "#go"]);
    assert_eq!(v["ok"], true, "{v}");
    // It was really typed: the server got the value the page posted.
    eventually("the login post", || {
        server.posted().iter().any(|b| b == &format!("pw={PW}"))
    });
    eventually("the page's answer", || {
        on(&["eval", "document.title"])["data"]["value"] == "sent"
    });

    let snap = on(&["snapshot"]);
    assert_eq!(snap["data"]["nodes"][0]["value"], "<<pw>>", "{snap}");
    let text = on(&["text", "#echo"]);
    assert!(text.to_string().contains("you typed <<pw>>"), "{text}");
    let html = on(&["html", "#echo"]);
    assert!(html.to_string().contains("<<pw>>"), "{html}");
    let value = on(&["value", "#pw"]);
    assert!(value.to_string().contains("<<pw>>"), "{value}");
    let eval = on(&["eval", "document.getElementById('pw').value + '!'"]);
    assert_eq!(eval["data"]["value"], "<<pw>>!", "{eval}");
    let logs = on(&["logs", "console"]);
    assert!(logs.to_string().contains("sending <<pw>>"), "{logs}");
    let requests = on(&["network", "requests", "--method", "POST"]);
    assert!(requests.to_string().contains("/login"), "{requests}");
    // An error that quotes the page's text is masked too.
    let wrong = on(&[
        "eval",
        "throw new Error('bad ' + document.getElementById('pw').value)",
    ]);
    assert_eq!(wrong["ok"], false, "{wrong}");
    let har = env.home.join("login.har");
    let har_path = har.display().to_string();
    let v = on(&["network", "har", "stop", &har_path]);
    assert_eq!(v["ok"], true, "{v}");
    let har_text = std::fs::read_to_string(&har).unwrap_or_default();
    assert!(
        har_text.contains("pw=<<pw>>"),
        "the HAR post body: {har_text}"
    );
    let v = clean(&env, &["browser", "secret", "list", "--session", &sid]);
    assert_eq!(v["data"]["names"], serde_json::json!(["pw"]), "{v}");

    let leaked = ours(files_holding(&env.home, PW.as_bytes()));
    assert!(leaked.is_empty(), "the secret is on disk in {leaked:?}");
}

#[test]
fn env_secrets_unknown_names_and_a_daemon_restart() {
    need_chromium!();
    let env = Env::new();
    let server = LoginServer::start();
    let sid = env.start(&["--open-url", &server.url(), "--secret", "other=x1"]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let run = |args: &[&str], pw: Option<&str>| {
        let mut a = [&["browser"][..], args, &t, &["--json"]].concat();
        a.dedup();
        let mut c = env.command(&a);
        if let Some(pw) = pw {
            c.env("ACTIONBOOK_SECRET_PW", pw);
        }
        let out = c.output().expect("run");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !stdout.contains(PW) && !stderr.contains(PW),
            "{stdout} {stderr}"
        );
        serde_json::from_str::<Value>(stdout.trim()).unwrap_or_default()
    };
    let value = || {
        env.json(
            &[
                &["browser", "eval", "document.getElementById('pw').value"][..],
                &t,
            ]
            .concat(),
        )["data"]["value"]
            .clone()
    };

    // From the caller's environment, named lower-case.
    let v = run(&["fill", "#pw", "<<pw>>"], Some(PW));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(), PW);
    let v = run(&["text", "#echo"], Some(PW));
    assert!(v.to_string().contains("you typed <<pw>>"), "{v}");

    // Unknown: refused, never typed as written.
    let v = run(&["fill", "#pw", "a<<nope>>"], None);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("<<nope>>"),
        "{v}"
    );
    assert_eq!(value(), PW, "the failed fill typed nothing");

    // A start's secret is in the daemon's memory only: gone after it is killed, with the way out.
    let v = run(&["fill", "#pw", "<<other>>"], None);
    assert_eq!(v["ok"], true, "{v}");
    // The answer masks the session's secret as well.
    assert_eq!(value(), "<<other>>");
    env.kill_daemon();
    let v = run(&["fill", "#pw", "<<other>>"], None);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("<<other>>") && msg.contains("secret set"),
        "{msg}"
    );
    let set = format!("other={PW}");
    let v = env.json(&["browser", "secret", "set", &set, "--session", &sid]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(!v.to_string().contains(PW), "{v}");
    let v = run(&["fill", "#pw", "<<other>>"], None);
    assert_eq!(v["ok"], true, "{v}");
    let v = run(&["value", "#pw"], None);
    assert!(v.to_string().contains("<<other>>"), "{v}");

    let leaked = ours(files_holding(&env.home, PW.as_bytes()));
    assert!(leaked.is_empty(), "the secret is on disk in {leaked:?}");
}
