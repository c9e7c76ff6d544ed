//! Test support: a fixture HTTP server, an isolated ACTIONBOOK_HOME with a Chromium wrapper, and a
//! guard that kills every process a test started (daemon and browsers), even when the test fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cdp_protocol::testing::FixtureServer;
use serde_json::Value;

/// The shared fixture server (`cdp_protocol::testing`) for these synchronous tests: it runs on a
/// runtime of its own while the test thread runs CLI processes. Pages from [`Fixture::url`] that
/// embed [`Fixture::cross_site_url`] get out-of-process iframes.
pub struct Fixture {
    server: FixtureServer,
    _runtime: tokio::runtime::Runtime,
}

impl Fixture {
    /// Starts the server on a free port.
    pub fn start() -> Fixture {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("fixture runtime");
        let server = runtime.block_on(FixtureServer::start());
        Fixture {
            server,
            _runtime: runtime,
        }
    }

    /// Adds or replaces an HTML route.
    pub fn html(&self, path: &str, body: &str) -> &Fixture {
        self.route(path, "text/html; charset=utf-8", body, Duration::ZERO)
    }

    /// Adds a route that answers after `delay`.
    pub fn route(&self, path: &str, ct: &'static str, body: &str, delay: Duration) -> &Fixture {
        self.server.route_delayed(path, ct, body, delay);
        self
    }

    /// Adds a route with a status line (`"302 Found"`) and extra headers (`Location`,
    /// `Set-Cookie`, ...).
    pub fn route_with(
        &self,
        path: &str,
        status: &str,
        headers: &[(&str, &str)],
        ct: &str,
        body: &str,
    ) -> &Fixture {
        self.server.route_with(path, status, headers, ct, body);
        self
    }

    /// Adds a route with a binary body.
    pub fn bytes(&self, path: &str, ct: &'static str, body: &[u8]) -> &Fixture {
        self.server.route(path, ct, body.to_vec());
        self
    }

    /// `http://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// `http://localhost:PORT/path` (another site: an out-of-process iframe under site isolation).
    pub fn cross_site_url(&self, path: &str) -> String {
        self.server.cross_site_url(path)
    }
}

/// The result of one CLI run.
#[derive(Debug)]
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Stdout parsed as JSON (panics with the output when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): stdout={:?} stderr={:?}",
                self.stdout, self.stderr
            )
        })
    }

    /// Asserts exit 0 and returns self.
    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(self.code, 0, "command failed: {self:?}");
        self
    }
}

/// An isolated actionbook home; kills its daemon and browsers on drop.
pub struct Env {
    /// Keeps the temporary directory alive (removed on drop).
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    wrapper: PathBuf,
}

const CHROMIUM: &str = "/usr/bin/chromium";

impl Env {
    /// A fresh home with a Chromium wrapper (headless, no sandbox, site isolation for OOPIFs).
    pub fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let wrapper = dir.path().join("chromium-wrapper.sh");
        write_script(
            &wrapper,
            &format!(
                "#!/bin/sh\nexec {CHROMIUM} --headless=new --no-sandbox --disable-gpu --disable-quic \
                 --disable-background-networking --disable-component-update --disable-sync \
                 --site-per-process \"$@\"\n"
            ),
        );
        Env {
            _dir: dir,
            home,
            wrapper,
        }
    }

    /// The Chromium wrapper this home's sessions launch (for an in-process engine's requests).
    pub fn wrapper(&self) -> &Path {
        &self.wrapper
    }

    /// Whether Chromium is installed (tests needing it are skipped with a message otherwise).
    pub fn chromium_available() -> bool {
        Path::new(CHROMIUM).exists()
    }

    /// The command with this home's environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_actionbook"));
        c.args(args)
            .env("ACTIONBOOK_HOME", &self.home)
            .env("ACTIONBOOK_BROWSER_EXECUTABLE_PATH", &self.wrapper)
            .env("ACTIONBOOK_DAEMON_IDLE_TIMEOUT_SECS", "600")
            .env_remove("ACTIONBOOK_BROWSER_HEADLESS")
            .stdin(Stdio::null());
        c
    }

    /// Runs the CLI to completion.
    pub fn run(&self, args: &[&str]) -> Run {
        let out: Output = self.command(args).output().expect("run actionbook");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs with `--json` and returns the envelope.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        self.run(&a).json()
    }

    /// Starts a headless session and returns its id.
    pub fn start(&self, extra: &[&str]) -> String {
        let mut args = vec!["browser", "start", "--headless"];
        args.extend_from_slice(extra);
        let v = self.json(&args);
        assert_eq!(v["ok"], true, "start failed: {v}");
        v["context"]["session_id"]
            .as_str()
            .expect("session id")
            .to_string()
    }

    /// `browser start --headless --timeout <ms> --json` launching `executable` instead of the
    /// test Chromium: its envelope.
    pub fn start_with_browser(&self, executable: &std::path::Path, timeout_ms: u64) -> Value {
        let ms = timeout_ms.to_string();
        let out = self
            .command(&["browser", "start", "--headless", "--timeout", &ms, "--json"])
            .env("ACTIONBOOK_BROWSER_EXECUTABLE_PATH", executable)
            .output()
            .expect("run");
        serde_json::from_slice(&out.stdout).expect("json")
    }

    /// The daemon's pid, if one is recorded.
    pub fn daemon_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.home.join("daemon.pid"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
    }

    /// The recorded daemon's pid while that process still is this home's daemon. Pids are
    /// reused quickly here (pid_max 32768 and many processes): a recorded pid of a daemon that
    /// exited may be another test's process by now, which a kill must spare.
    pub fn live_daemon_pid(&self) -> Option<u32> {
        let pid = self.daemon_pid()?;
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        let home = format!("ACTIONBOOK_HOME={}", self.home.display());
        let ours = String::from_utf8_lossy(&cmdline).contains("__daemon")
            && environ.split(|b| *b == 0).any(|var| var == home.as_bytes());
        (ours && alive(pid)).then_some(pid)
    }

    /// Pids of live browser processes whose command line mentions this home.
    pub fn browser_pids(&self) -> Vec<u32> {
        let needle = self.home.to_string_lossy().into_owned();
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                continue;
            };
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains("--user-data-dir") && cmd.contains(&needle) && alive(pid) {
                out.push(pid);
            }
        }
        out
    }

    /// Main browser processes (not renderers/helpers) of this home.
    /// A browser's child between its fork and its exec still has the browser's command line:
    /// a process whose parent is one of this home's browsers is not a main browser.
    pub fn main_browser_pids(&self) -> Vec<u32> {
        let all = self.browser_pids();
        all.iter()
            .copied()
            .filter(|pid| {
                let main = std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|c| !String::from_utf8_lossy(&c).contains("--type="))
                    .unwrap_or(false);
                main && parent_of(*pid).is_none_or(|p| !all.contains(&p))
            })
            .collect()
    }

    /// Kills the daemon with SIGKILL and waits until it is gone (every thread: /proc/PID vanishes or
    /// its socket stops accepting).
    pub fn kill_daemon(&self) {
        if let Some(pid) = self.live_daemon_pid() {
            kill(pid);
            wait_gone(pid, Duration::from_secs(5));
            let until = Instant::now() + Duration::from_secs(5);
            while std::os::unix::net::UnixStream::connect(self.home.join("daemon.sock")).is_ok()
                && Instant::now() < until
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.home.join("daemon.log")).unwrap_or_default();
            eprintln!("--- daemon.log ---\n{log}--- end ---");
        }
        // Close what is still open (quietly), then make sure nothing survives.
        if self.live_daemon_pid().is_some() {
            let list = self.run(&["browser", "list-sessions", "--json"]);
            if let Ok(v) = serde_json::from_str::<Value>(list.stdout.trim()) {
                for s in v["data"]["sessions"].as_array().into_iter().flatten() {
                    if let Some(id) = s["session_id"].as_str() {
                        let _ =
                            self.run(&["browser", "close", "--session", id, "--timeout", "5000"]);
                    }
                }
            }
        }
        if let Some(pid) = self.live_daemon_pid() {
            kill(pid);
        }
        for pid in self.browser_pids() {
            kill(pid);
        }
    }
}

/// Writes an executable script.
pub fn write_script(path: &std::path::Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Whether a process is alive (not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .unwrap_or("");
            !matches!(state, "Z" | "X")
        }
        Err(_) => false,
    }
}

/// The parent of a process (`None` once it is gone).
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// SIGKILL.
pub fn kill(pid: u32) {
    let _ = Command::new("kill")
        .arg("-KILL")
        .arg(pid.to_string())
        .stderr(Stdio::null())
        .status();
}

/// Waits until a process is gone.
pub fn wait_gone(pid: u32, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while alive(pid) {
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Skips the calling test when Chromium is missing.
#[macro_export]
macro_rules! need_chromium {
    () => {
        if !$crate::support::Env::chromium_available() {
            eprintln!("skipped: /usr/bin/chromium is not installed");
            return;
        }
    };
}

/// The standard fixture site.
pub fn site() -> Fixture {
    let f = Fixture::start();
    let oopif = f.cross_site_url("/oopif.html");
    f.html(
        "/index.html",
        r#"<!doctype html><html><head><title>Fixture Home</title></head><body>
<h1>Conformance Fixture</h1>
<p id="intro">Hello <b>agent</b>, this is a test page.</p>
<form onsubmit="return false">
  <label for="name">Name</label><input id="name" name="name" type="text" placeholder="Your name">
  <label for="color">Color</label><select id="color"><option value="red">Red</option><option value="green">Green</option></select>
  <input type="checkbox" id="agree"><label for="agree">I agree</label>
  <button id="submit" type="button" onclick="document.title='clicked'">Submit</button>
</form>
<a id="next" href="/page2.html">Go to page two</a>
</body></html>"#,
    );
    f.html(
        "/page2.html",
        r#"<!doctype html><html><head><title>Page Two</title></head><body><h1>Second page</h1><a id="back" href="/index.html">Back home</a></body></html>"#,
    );
    f.html(
        "/frames.html",
        r#"<!doctype html><html><head><title>Frames</title></head><body>
<h1>Frames</h1>
<script>window.inputs = 0; window.addEventListener('message', e => { window.lastMessage = e.data; });</script>
<input id="top" aria-label="Top input" oninput="window.inputs++">
<div id="host"></div>
<iframe id="same" title="Same frame" src="/same.html" width="500" height="300"></iframe>
<script>
  const root = document.getElementById('host').attachShadow({mode: 'open'});
  root.innerHTML = '<input id="shadow" aria-label="Shadow input">';
</script>
</body></html>"#,
    );
    f.html(
        "/same.html",
        &format!(
            r#"<!doctype html><html><head><title>Same</title></head><body>
<button id="same-btn" onclick="window.clicked=(window.clicked||0)+1">Same button</button>
<iframe id="nested" title="Nested frame" src="/nested.html" width="300" height="100"></iframe>
<iframe id="oop" title="Remote frame" src="{oopif}" width="300" height="100"></iframe>
</body></html>"#
        ),
    );
    f.html(
        "/nested.html",
        r#"<!doctype html><html><head><title>Nested</title></head><body><input id="nested-input" aria-label="Nested input"></body></html>"#,
    );
    f.html(
        "/oopif.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body>
<button id="oop-btn" onclick="parent.parent.postMessage('remote-clicked','*')">Remote button</button>
<input id="oop-input" aria-label="Remote input" oninput="parent.parent.postMessage('remote-input:'+this.value,'*')">
</body></html>"#,
    );
    f.route(
        "/slow.html",
        "text/html",
        "<title>Slow</title>slow",
        Duration::from_secs(6),
    );
    f
}

/// The ref (`@eN`) of the node with this role and name in a snapshot envelope.
pub fn ref_of(snapshot: &Value, role: &str, name: &str) -> String {
    snapshot["data"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["role"] == role && n["name"] == name)
        .and_then(|n| n["ref"].as_str())
        .map(|r| format!("@{r}"))
        .unwrap_or_else(|| panic!("no {role} {name:?} in {snapshot}"))
}

/// `browser start --headless --open-url <url>`: the session id, its CDP endpoint and the first
/// tab's target id (for tests that reach the browser from a second CDP client).
pub fn start_with_endpoint(env: &Env, url: &str) -> (String, String, String) {
    let v = env.json(&["browser", "start", "--headless", "--open-url", url]);
    let field = |v: &Value, what: &str| {
        v.as_str()
            .unwrap_or_else(|| panic!("no {what} in {v}"))
            .to_string()
    };
    (
        field(&v["context"]["session_id"], "session id"),
        field(&v["data"]["session"]["cdp_endpoint"], "cdp endpoint"),
        field(&v["data"]["tab"]["native_tab_id"], "target id"),
    )
}

/// Runs `browser <args...>` on the tab (`t` is `--session S --tab T`) with `--json`.
pub fn on(env: &Env, t: &[&str], args: &[&str]) -> Value {
    env.json(&[&["browser"][..], args, t].concat())
}

/// Starts `browser <args...>` on the tab (`t` is `--session S --tab T`) in a client of its own
/// (JSON on its stdout) and returns once the command holds the tab: a quick command queued behind
/// it runs out of time.
pub fn holding(env: &Env, t: &[&str], args: &[&str]) -> std::process::Child {
    let mut child = env
        .command(&[&["--json", "browser"][..], args, t].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the client");
    for _ in 0..50 {
        let v = on(env, t, &["title", "--timeout", "300"]);
        if v["error"]["code"] == "TIMEOUT" {
            return child;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the command never held the tab: {args:?}");
}

/// Runs `browser <args...>` on the tab in text mode.
pub fn text(env: &Env, t: &[&str], args: &[&str]) -> Run {
    env.run(&[&["browser"][..], args, t].concat())
}

/// Evaluates `code` in the tab and returns its value (the evaluation must succeed).
pub fn value(env: &Env, t: &[&str], code: &str) -> Value {
    let v = on(env, t, &["eval", code]);
    assert_eq!(v["ok"], true, "eval {code}: {v}");
    v["data"]["value"].clone()
}

/// Evaluates until the value is `want` (at most 10 s) and returns the last value.
pub fn value_until(env: &Env, t: &[&str], code: &str, want: &Value) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let v = on(env, t, &["eval", code]);
        if &v["data"]["value"] == want || Instant::now() > until {
            return v["data"]["value"].clone();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Asserts a failure with this code whose message contains `part`.
#[track_caller]
pub fn assert_failure(v: &Value, code: &str, part: &str) {
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains(part), "message {msg:?} lacks {part:?}: {v}");
}

/// A 127.0.0.1 port where connections are refused for as long as this lives. A port bound and
/// let go is not enough: another test's server may be given it at once (seen in CI: the page's
/// "refused" fetch reached a fixture server). Here the port stays the local end of a connected
/// socket, which no `bind` can be given and which answers every other connection with a reset.
pub struct RefusedPort {
    _listener: std::net::TcpListener,
    client: std::net::TcpStream,
    _server: std::net::TcpStream,
}

impl RefusedPort {
    /// Holds a fresh refused port.
    pub fn new() -> RefusedPort {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = std::net::TcpStream::connect(listener.local_addr().expect("addr"))
            .expect("connect to own listener");
        let (server, _) = listener.accept().expect("accept");
        RefusedPort {
            _listener: listener,
            client,
            _server: server,
        }
    }

    /// The refused port.
    pub fn port(&self) -> u16 {
        self.client.local_addr().expect("local addr").port()
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port())
    }
}

/// Polls `seen` until it holds (20 s at most; the test fails naming `what` otherwise).
#[track_caller]
pub fn eventually(what: &str, mut seen: impl FnMut() -> bool) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !seen() {
        assert!(std::time::Instant::now() < until, "never seen: {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A PNG file's pixels as RGBA: width, height and the bytes, row by row.
pub fn png_pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("open png"));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png frame");
    buf.truncate(info.buffer_size());
    // As RGBA, whatever the encoder chose.
    let px = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        other => panic!("unexpected png colour type {other:?}"),
    };
    (info.width, info.height, px)
}

/// Whether the two images differ anywhere in the rectangle.
pub fn differs(
    a: &(u32, u32, Vec<u8>),
    b: &(u32, u32, Vec<u8>),
    x: u32,
    y: u32,
    w: u32,
    h: u32,
) -> bool {
    (y..(y + h).min(a.1)).any(|yy| {
        (x..(x + w).min(a.0)).any(|xx| {
            let i = ((yy * a.0 + xx) * 4) as usize;
            a.2[i..i + 4] != b.2[i..i + 4]
        })
    })
}
