//! Launching Chromium (and finding it) and connecting to an existing browser.

use crate::browser as browser_domain;
use crate::connection::{ConnectOptions, Connection};
use crate::error::CdpError;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Environment variable naming the browser executable to use.
pub const BROWSER_PATH_ENV: &str = "ACTIONBOOK_BROWSER_EXECUTABLE_PATH";
/// Executable names searched on `PATH`, in order.
pub const BROWSER_NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];
/// Flags that keep Chromium quiet, off the network and debuggable on loopback only.
pub const STANDARD_FLAGS: &[&str] = &[
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
];
/// Name of the file (in the user-data-dir) that receives Chromium's stderr.
pub const STDERR_FILE: &str = "actionbook-chromium-stderr.log";

const POLL: Duration = Duration::from_millis(25);
const GRACEFUL_CLOSE: Duration = Duration::from_secs(5);
const KILL_WAIT: Duration = Duration::from_secs(5);
const TERM_GRACE: Duration = Duration::from_secs(3);
const STDERR_TAIL_LINES: usize = 12;

/// How to launch a browser.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The executable; `None` = [`find_executable`].
    pub executable: Option<PathBuf>,
    /// Run headless (`--headless=new`); default true.
    pub headless: bool,
    /// Profile directory; `None` = a fresh temporary one, removed on close.
    pub user_data_dir: Option<PathBuf>,
    /// Extra flags, e.g. `"--site-per-process"`.
    pub args: Vec<String>,
    /// How long to wait for the DevTools endpoint (default 20 s).
    pub startup_timeout: Duration,
    /// Start Chromium in its own process group so it survives the launcher (use with [`Browser::detach`]).
    pub detached: bool,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: None,
            headless: true,
            user_data_dir: None,
            args: Vec::new(),
            startup_timeout: Duration::from_secs(20),
            detached: false,
        }
    }
}

impl LaunchOptions {
    /// Sets the executable.
    pub fn executable(mut self, path: impl Into<PathBuf>) -> Self {
        self.executable = Some(path.into());
        self
    }

    /// Headless or headed.
    pub fn headless(mut self, headless: bool) -> Self {
        self.headless = headless;
        self
    }

    /// Uses this profile directory (kept on close).
    pub fn user_data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.user_data_dir = Some(dir.into());
        self
    }

    /// Adds one extra flag.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Sets the startup deadline.
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Own process group (survives the launcher).
    pub fn detached(mut self, detached: bool) -> Self {
        self.detached = detached;
        self
    }
}

/// A browser left running by [`Browser::detach`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetachedBrowser {
    /// Process id of the browser.
    pub pid: Option<u32>,
    /// Its DevTools WebSocket URL.
    pub ws_url: String,
    /// Its profile directory (not removed: the browser still uses it).
    pub user_data_dir: PathBuf,
}

/// A launched Chromium and the connection to it.
///
/// [`Browser::close`] (or dropping it) ends the process and reaps it; [`Browser::detach`] leaves it running.
#[derive(Debug)]
pub struct Browser {
    conn: Connection,
    ws_url: String,
    process: BrowserProcess,
}

/// The process side of a browser; dropping it kills and reaps the process.
#[derive(Debug)]
struct BrowserProcess {
    pid: Option<u32>,
    path: PathBuf,
    user_data_dir: PathBuf,
    temp_profile: bool,
    /// `None` once closed or detached. Never locked across an await.
    child: Mutex<Option<Child>>,
}

impl Browser {
    /// Starts Chromium, waits (bounded) for its DevTools endpoint and connects.
    pub async fn launch(options: LaunchOptions) -> Result<Browser, CdpError> {
        let path = match &options.executable {
            Some(p) => p.clone(),
            None => find_executable()?,
        };
        let path_str = path.display().to_string();
        if !path.is_file() {
            return Err(CdpError::Launch {
                path: path_str,
                reason: "no such executable file".to_owned(),
            });
        }
        let (user_data_dir, temp_profile) = match &options.user_data_dir {
            Some(dir) => (dir.clone(), false),
            None => (fresh_profile_dir()?, true),
        };
        let launch_err = |reason: String| CdpError::Launch {
            path: path_str.clone(),
            reason,
        };
        std::fs::create_dir_all(&user_data_dir).map_err(|e| {
            launch_err(format!(
                "cannot create user data dir {}: {e}",
                user_data_dir.display()
            ))
        })?;
        // A stale file from an earlier run would point at a dead port.
        let port_file = user_data_dir.join("DevToolsActivePort");
        let _ = std::fs::remove_file(&port_file);
        let stderr_path = user_data_dir.join(STDERR_FILE);
        // A file, not a pipe: a detached browser must never block on a full pipe.
        let stderr_file = std::fs::File::create(&stderr_path)
            .map_err(|e| launch_err(format!("cannot create {}: {e}", stderr_path.display())))?;

        let mut cmd = Command::new(&path);
        cmd.args(launch_args(&options, &user_data_dir))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(stderr_file));
        if options.detached {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = cmd
            .spawn()
            .map_err(|e| launch_err(format!("cannot start: {e}")))?;
        let process = BrowserProcess {
            pid: Some(child.id()),
            path: path.clone(),
            user_data_dir,
            temp_profile,
            child: Mutex::new(Some(child)),
        };
        // From here on, an error drops `process`, which kills and reaps the browser.
        let ws_url = process
            .wait_for_endpoint(&port_file, &stderr_path, options.startup_timeout)
            .await?;
        let conn = Connection::connect(&ws_url, ConnectOptions::default())
            .await
            .map_err(|e| launch_err(format!("cannot connect to {ws_url}: {e}")))?;
        Ok(Browser {
            conn,
            ws_url,
            process,
        })
    }
}

impl BrowserProcess {
    async fn wait_for_endpoint(
        &self,
        port_file: &Path,
        stderr_path: &Path,
        timeout: Duration,
    ) -> Result<String, CdpError> {
        let path = self.path.display().to_string();
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait() {
                return Err(CdpError::BrowserExited {
                    path,
                    status,
                    stderr_tail: stderr_tail(stderr_path),
                });
            }
            if let Some(url) = read_port_file(port_file) {
                return Ok(url);
            }
            if let Some(url) = read_stderr_endpoint(stderr_path) {
                return Ok(url);
            }
            if Instant::now() >= deadline {
                let tail = stderr_tail(stderr_path);
                return Err(CdpError::Launch {
                    path,
                    reason: format!(
                        "no DevTools endpoint after {timeout:?}; last stderr lines:\n{tail}"
                    ),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Exit status as text if the process has exited (and is now reaped).
    fn try_wait(&self) -> Option<String> {
        let mut guard = self.child.lock().unwrap_or_else(|p| p.into_inner());
        let child = guard.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(e) => Some(format!("unknown ({e})")),
        }
    }

    /// The pid while the child is still owned and not yet reaped.
    fn running_pid(&self) -> Option<u32> {
        let guard = self.child.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map(Child::id)
    }

    fn take_child(&self) -> Option<Child> {
        self.child.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn remove_temp_profile(&self) {
        if self.temp_profile {
            let _ = std::fs::remove_dir_all(&self.user_data_dir);
        }
    }
}

impl Browser {
    /// The connection to the browser.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The root (browser) session, for `Target.*` and `Browser.*` calls.
    pub fn session(&self) -> crate::Session {
        self.conn.browser()
    }

    /// The DevTools WebSocket URL.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The browser's process id.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid
    }

    /// The profile directory in use.
    pub fn user_data_dir(&self) -> &Path {
        &self.process.user_data_dir
    }

    /// The executable that was started.
    pub fn executable(&self) -> &Path {
        &self.process.path
    }

    /// Closes the browser: `Browser.close` over CDP, then kill and reap the process (all bounded),
    /// and remove a temporary profile. Calling it again does nothing.
    pub async fn close(&self) -> Result<(), CdpError> {
        // The child stays in `self` until the very end: if this future is dropped half-way
        // (e.g. by a caller's timeout), dropping the Browser still kills and reaps it.
        let Some(pid) = self.process.running_pid() else {
            return Ok(());
        };
        let descendants = descendants_of(pid);
        if !self.conn.is_closed() {
            // The socket usually closes before the answer arrives; both outcomes are fine.
            let _ = self
                .conn
                .browser()
                .send_timeout(&browser_domain::Close, GRACEFUL_CLOSE)
                .await;
        }
        let deadline = Instant::now() + GRACEFUL_CLOSE;
        while Instant::now() < deadline && self.process.try_wait().is_none() {
            tokio::time::sleep(POLL).await;
        }
        self.conn.close().await;
        let profile = self.process.user_data_dir.clone();
        let cleanup = match self.process.take_child() {
            Some(mut child) => {
                tokio::task::spawn_blocking(move || {
                    if matches!(child.try_wait(), Ok(None)) {
                        kill_and_reap(&mut child);
                    }
                    kill_leftovers(&descendants, &profile);
                })
                .await
            }
            None => Ok(()),
        };
        self.process.remove_temp_profile();
        cleanup.map_err(|e| CdpError::Io(std::io::Error::other(e)))
    }

    /// Leaves the browser running and forgets it (no kill on drop). Its temporary profile, if any,
    /// is kept: the caller owns it now.
    pub fn detach(self) -> DetachedBrowser {
        // Dropping a std Child neither kills nor waits.
        drop(self.process.take_child());
        DetachedBrowser {
            pid: self.process.pid,
            ws_url: self.ws_url.clone(),
            user_data_dir: self.process.user_data_dir.clone(),
        }
        // `self` drops here with no child: nothing is killed and the profile stays.
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        let child = self
            .child
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(mut child) = child {
            let descendants = descendants_of(child.id());
            kill_and_reap(&mut child);
            kill_leftovers(&descendants, &self.user_data_dir);
            self.remove_temp_profile();
        }
    }
}

/// Ends the process and reaps it so no zombie is left: SIGTERM first (Chromium then shuts its
/// helpers down and reaps them, which matters where PID 1 does not reap orphans), SIGKILL after
/// a short grace period. Every wait is bounded.
fn kill_and_reap(child: &mut Child) {
    if matches!(child.try_wait(), Ok(None)) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if wait_bounded(child, TERM_GRACE) {
            return;
        }
    }
    let _ = child.kill();
    wait_bounded(child, KILL_WAIT);
}

/// Polls until the child has exited (and is reaped) or `limit` passes; true when it exited.
fn wait_bounded(child: &mut Child, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if !matches!(child.try_wait(), Ok(None)) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Chromium's helpers (zygote, renderers) normally exit with the browser; kill any that linger.
/// They are found as the browser's descendants (taken before it exited) and, since orphans are
/// reparented, by the `--user-data-dir` flag every helper carries.
fn kill_leftovers(descendants: &[u32], profile: &Path) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut alive: Vec<u32> = descendants
            .iter()
            .copied()
            .filter(|p| process_alive(*p))
            .collect();
        for p in processes_with_profile(profile) {
            if !alive.contains(&p) {
                alive.push(p);
            }
        }
        if alive.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            // No unsafe code here: use kill(1) rather than libc.
            let _ = Command::new("kill")
                .arg("-KILL")
                .args(alive.iter().map(|p| p.to_string()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Live processes whose command line has `--user-data-dir=<profile>`.
fn processes_with_profile(profile: &Path) -> Vec<u32> {
    let flag = format!("--user-data-dir={}", profile.display());
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .filter(|pid| *pid != std::process::id())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == flag.as_bytes()))
        })
        .filter(|pid| process_alive(*pid))
        .collect()
}

/// True when `/proc/PID` exists and is not a zombie.
pub(crate) fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Every live descendant of `pid`, from `/proc` (empty where `/proc` is unavailable).
pub(crate) fn descendants_of(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    for entry in dir.flatten() {
        let Some(p) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // Fields after the parenthesised command: state, ppid, ...
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|s| s.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parent_of.push((p, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for (child, _) in parent_of.iter().filter(|(_, pp)| *pp == parent) {
            if !out.contains(child) {
                out.push(*child);
                frontier.push(*child);
            }
        }
    }
    out
}

fn launch_args(options: &LaunchOptions, user_data_dir: &Path) -> Vec<String> {
    let mut args = Vec::new();
    if options.headless {
        args.push("--headless=new".to_owned());
    }
    if running_as_root() {
        args.push("--no-sandbox".to_owned());
    }
    args.extend(STANDARD_FLAGS.iter().map(|f| (*f).to_owned()));
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    args.extend(options.args.iter().cloned());
    args.push("about:blank".to_owned());
    args
}

/// Effective uid 0, read from `/proc/self/status` (or `id -u` where there is no `/proc`).
pub fn running_as_root() -> bool {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(line) = status.lines().find(|l| l.starts_with("Uid:"))
    {
        // Uid: real effective saved fs
        return line.split_whitespace().nth(2) == Some("0");
    }
    Command::new("id")
        .arg("-u")
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Finds the browser: `ACTIONBOOK_BROWSER_EXECUTABLE_PATH`, then `chromium`, `chromium-browser`,
/// `google-chrome`, `google-chrome-stable` on `PATH`.
pub fn find_executable() -> Result<PathBuf, CdpError> {
    let mut tried = Vec::new();
    if let Some(p) = std::env::var_os(BROWSER_PATH_ENV).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        tried.push(format!("{BROWSER_PATH_ENV}={}", p.display()));
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for name in BROWSER_NAMES {
        for dir in std::env::split_paths(&path_var) {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
        tried.push(format!("{name} on PATH"));
    }
    Err(CdpError::BrowserNotFound { tried })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn fresh_profile_dir() -> Result<PathBuf, CdpError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "actionbook-chromium-{}-{nanos}-{n}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// `DevToolsActivePort`: line 1 the port, line 2 the browser path.
fn read_port_file(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let port: u16 = lines.next()?.trim().parse().ok()?;
    let ws_path = lines.next()?.trim();
    if port == 0 || !ws_path.starts_with('/') {
        return None;
    }
    Some(format!("ws://127.0.0.1:{port}{ws_path}"))
}

fn read_stderr_endpoint(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("DevTools listening on ")
            .filter(|u| u.starts_with("ws://"))
            .map(str::to_owned)
    })
}

fn stderr_tail(path: &Path) -> String {
    let text = std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(STDERR_TAIL_LINES);
    if lines.is_empty() {
        "(no stderr output)".to_owned()
    } else {
        lines[start..].join("\n")
    }
}

/// Connects to a running browser: `http://host:port` or `https://host:port` (resolved via
/// `GET /json/version`) or a `ws://`/`wss://` URL directly, with extra handshake headers.
/// Returns the connection and the WebSocket URL.
pub async fn connect(
    endpoint: &str,
    headers: &[(String, String)],
) -> Result<(Connection, String), CdpError> {
    connect_with(
        endpoint,
        ConnectOptions::default().headers(headers.to_vec()),
    )
    .await
}

/// [`connect`] with full [`ConnectOptions`]: headers (sent to `/json/version` too), extra
/// trusted root certificates for TLS endpoints, message size and deadline.
pub async fn connect_with(
    endpoint: &str,
    options: ConnectOptions,
) -> Result<(Connection, String), CdpError> {
    let connect_err = |reason: String| CdpError::Connect {
        url: endpoint.to_owned(),
        reason,
    };
    let parsed = url::Url::parse(endpoint).map_err(|e| connect_err(e.to_string()))?;
    let ws_url = match parsed.scheme() {
        "ws" | "wss" => endpoint.to_owned(),
        "http" => resolve_ws_url(&parsed, &options.headers, None).await?,
        "https" => {
            resolve_ws_url(&parsed, &options.headers, Some(&options.root_certificates)).await?
        }
        other => return Err(connect_err(format!("unsupported scheme {other:?}"))),
    };
    let conn = Connection::connect(&ws_url, options).await?;
    Ok((conn, ws_url))
}

/// `GET /json/version` over plain TCP, or TLS when `tls_roots` (extra trusted roots) is given
/// (Chromium ignores HTTP/1.0 and keeps 1.1 connections open, so the body is read by
/// `Content-Length`).
async fn resolve_ws_url(
    endpoint: &url::Url,
    headers: &[(String, String)],
    tls_roots: Option<&[Vec<u8>]>,
) -> Result<String, CdpError> {
    const TIMEOUT: Duration = Duration::from_secs(10);
    let url_str = endpoint.as_str().to_owned();
    let err = |reason: String| CdpError::Connect {
        url: url_str.clone(),
        reason,
    };
    let host = endpoint
        .host_str()
        .ok_or_else(|| err("no host".to_owned()))?
        .to_owned();
    let port = endpoint.port_or_known_default().unwrap_or(80);
    let mut request = format!(
        "GET /json/version HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\nConnection: close\r\n"
    );
    for (name, value) in headers {
        if name.contains(['\r', '\n', ':']) || value.contains(['\r', '\n']) {
            return Err(err(format!("bad header {name:?}")));
        }
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let tcp_host = host.trim_start_matches('[').trim_end_matches(']');
    let fetch = async {
        let stream = crate::tls::connect(tcp_host, port, tls_roots)
            .await
            .map_err(std::io::Error::other)?;
        http_get(stream, &request).await
    };
    let body = tokio::time::timeout(TIMEOUT, fetch)
        .await
        .map_err(|_| err(format!("no answer from /json/version within {TIMEOUT:?}")))?
        .map_err(|e| err(format!("GET /json/version: {e}")))?;
    let json: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| err(format!("/json/version is not JSON: {e}")))?;
    let ws = json
        .get("webSocketDebuggerUrl")
        .and_then(|v| v.as_str())
        .ok_or_else(|| err("/json/version has no webSocketDebuggerUrl".to_owned()))?;
    Ok(rewrite_loopback_host(ws, &host, port, tls_roots.is_some()))
}

/// Sends `request` and returns the body of a 200 answer (Content-Length, chunked or until EOF).
async fn http_get(mut stream: crate::tls::Stream, request: &str) -> std::io::Result<Vec<u8>> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const LIMIT: usize = 1024 * 1024;
    let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, m);
    stream.write_all(request.as_bytes()).await?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > LIMIT {
            return Err(bad("response head too large".to_owned()));
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(bad("connection closed before a response".to_owned()));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default().to_owned();
    if status_line.split_whitespace().nth(1) != Some("200") {
        return Err(bad(format!("answered {status_line:?}")));
    }
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    let content_length = header("content-length").and_then(|v| v.parse::<usize>().ok());
    let chunked = header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let mut body = buf.split_off(head_end);
    let complete = |body: &[u8]| match content_length {
        Some(len) => body.len() >= len,
        None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
        None => false,
    };
    while !complete(&body) {
        if body.len() > LIMIT {
            return Err(bad("response body too large".to_owned()));
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    if let Some(len) = content_length {
        body.truncate(len);
    } else if chunked {
        body = dechunk(&body).ok_or_else(|| bad("malformed chunked body".to_owned()))?;
    }
    Ok(body)
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// Browsers behind a port mapping (or a TLS-terminating proxy, `secure`) report their own
/// loopback address; use the one we reached, over `wss://` when we reached it over TLS.
fn rewrite_loopback_host(ws: &str, host: &str, port: u16, secure: bool) -> String {
    let Ok(mut url) = url::Url::parse(ws) else {
        return ws.to_owned();
    };
    let loopback = matches!(
        url.host_str(),
        Some("127.0.0.1" | "localhost" | "0.0.0.0" | "[::1]" | "::1")
    );
    let plain_behind_tls = secure && url.scheme() == "ws";
    if loopback && (url.host_str() != Some(host) || url.port() != Some(port) || plain_behind_tls) {
        if (plain_behind_tls && url.set_scheme("wss").is_err())
            || url.set_host(Some(host)).is_err()
            || url.set_port(Some(port)).is_err()
        {
            return ws.to_owned();
        }
        return url.to_string();
    }
    ws.to_owned()
}
