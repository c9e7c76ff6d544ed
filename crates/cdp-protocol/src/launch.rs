//! Launching Chromium (and finding it) and connecting to an existing browser.

use crate::browser as browser_domain;
use crate::connection::{ConnectOptions, Connection};
use crate::error::CdpError;
use crate::process::{self, OwnedChild, ProcessIdentity};
use crate::redact::redact_url;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

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
/// How long Chromium gets after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(3);
/// How long helpers get to follow their browser out before they are killed.
const HELPER_GRACE: Duration = Duration::from_secs(2);
const STDERR_TAIL_LINES: usize = 12;
/// How often a running browser is checked for having exited (and reaped).
const REAP_POLL: Duration = Duration::from_millis(500);

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
    /// Budget of the whole launch, from the call until the DevTools endpoint is up and
    /// connected (default 20 s); past it the browser is killed and the launch fails with
    /// [`CdpError::LaunchTimeout`]. Pass the caller's remaining deadline here.
    pub startup_timeout: Duration,
    /// The browser is meant to outlive the launcher (use with [`Browser::detach`]). Every browser
    /// runs in a process group of its own (ended as a group), detached or not.
    pub detached: bool,
    /// Options of the connection to the launched browser (message limit, call deadline, send
    /// queue); its connect budget is whatever is left of `startup_timeout`.
    pub connect: ConnectOptions,
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
            connect: ConnectOptions::default(),
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

    /// Sets the budget of the whole launch (endpoint up and connected).
    pub fn startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Own process group (survives the launcher).
    pub fn detached(mut self, detached: bool) -> Self {
        self.detached = detached;
        self
    }

    /// Sets the options of the connection to the launched browser.
    pub fn connect_options(mut self, options: ConnectOptions) -> Self {
        self.connect = options;
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
    /// Who the browser process is (record this, not the pid, to find or end it later).
    pub identity: Option<ProcessIdentity>,
}

/// A launched Chromium and the connection to it.
///
/// [`Browser::close`] (or dropping it) ends the process and reaps it; [`Browser::detach`] leaves
/// it running. Dropping never waits: the process is ended and reaped on a thread of its own.
#[derive(Debug)]
pub struct Browser {
    conn: Connection,
    ws_url: String,
    process: BrowserProcess,
}

/// The process side of a browser; dropping it kills and reaps the process (off-thread).
#[derive(Debug)]
struct BrowserProcess {
    pid: Option<u32>,
    identity: Option<ProcessIdentity>,
    path: PathBuf,
    user_data_dir: PathBuf,
    temp_profile: bool,
    /// `None` once closed or detached. Shared with the reaper task; never locked across an await.
    child: Arc<Mutex<Option<OwnedChild>>>,
    /// Reaps the browser as soon as it exits (a crash leaves no zombie behind).
    reaper: Option<tokio::task::AbortHandle>,
}

impl Browser {
    /// Starts Chromium, waits for its DevTools endpoint and connects, all within
    /// `options.startup_timeout`. Dropping the future half-way ends the browser (without
    /// blocking the thread).
    pub async fn launch(options: LaunchOptions) -> Result<Browser, CdpError> {
        let deadline = Instant::now() + options.startup_timeout;
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
        // A group of its own, always: ending the browser signals the group, so a wrapper's
        // children (double-forked ones too, which no descendant scan finds) go with it; and a
        // detached browser outlives the launcher's group.
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let child = OwnedChild::new(
            cmd.spawn()
                .map_err(|e| launch_err(format!("cannot start: {e}")))?,
        );
        // From here on, an error or a dropped future drops `process`, which ends the browser.
        let process = BrowserProcess::new(child, path.clone(), user_data_dir, temp_profile);
        let timed_out = || CdpError::LaunchTimeout {
            path: path_str.clone(),
            after: options.startup_timeout,
            stderr_tail: stderr_tail(&stderr_path),
        };
        let ws_url = match tokio::time::timeout_at(
            deadline,
            process.wait_for_endpoint(&port_file, &stderr_path),
        )
        .await
        {
            Ok(found) => found?,
            Err(_) => return Err(timed_out()),
        };
        let conn = match Connection::connect_until(&ws_url, options.connect.clone(), deadline).await
        {
            Ok(conn) => conn,
            Err(CdpError::ConnectTimeout { .. }) => return Err(timed_out()),
            Err(e) => {
                return Err(launch_err(format!(
                    "cannot connect to {}: {e}",
                    redact_url(&ws_url)
                )));
            }
        };
        Ok(Browser {
            conn,
            ws_url,
            process,
        })
    }
}

impl BrowserProcess {
    fn new(
        child: OwnedChild,
        path: PathBuf,
        user_data_dir: PathBuf,
        temp_profile: bool,
    ) -> BrowserProcess {
        let identity = child
            .identity()
            .cloned()
            .map(|id| id.with_user_data_dir(&user_data_dir));
        let child = Arc::new(Mutex::new(Some(child)));
        // A crashed browser must not stay a zombie until someone closes it. Polling waitpid is
        // one syscall a tick; `AsyncFd` on the pidfd would need unsafe code.
        let slot = child.clone();
        let reaper = tokio::spawn(async move {
            loop {
                tokio::time::sleep(REAP_POLL).await;
                if !lock(&slot).as_mut().is_some_and(OwnedChild::is_running) {
                    return;
                }
            }
        })
        .abort_handle();
        BrowserProcess {
            pid: identity.as_ref().map(|i| i.pid),
            identity,
            path,
            user_data_dir,
            temp_profile,
            child,
            reaper: Some(reaper),
        }
    }

    /// Polls for the DevTools endpoint until found or the browser exits (the caller bounds it).
    async fn wait_for_endpoint(
        &self,
        port_file: &Path,
        stderr_path: &Path,
    ) -> Result<String, CdpError> {
        loop {
            if let Some(status) = self.try_wait() {
                return Err(CdpError::BrowserExited {
                    path: self.path.display().to_string(),
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
            tokio::time::sleep(POLL).await;
        }
    }

    /// Exit status as text if the process has exited (and is now reaped).
    fn try_wait(&self) -> Option<String> {
        let mut guard = lock(&self.child);
        let child = guard.as_mut()?;
        child.try_wait().map(|status| match status {
            Some(status) => status.to_string(),
            None => "unknown (reaped elsewhere)".to_owned(),
        })
    }

    /// True while the child is still owned (not closed or detached).
    fn owned(&self) -> bool {
        lock(&self.child).is_some()
    }

    /// Takes the child (it is no longer ours to end) and stops the reaper task.
    fn take_child(&mut self) -> Option<OwnedChild> {
        if let Some(reaper) = self.reaper.take() {
            reaper.abort();
        }
        lock(&self.child).take()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Ends a browser and cleans up after it, blocking: SIGTERM (Chromium then shuts its helpers
/// down and reaps them, which matters where PID 1 does not reap orphans), SIGKILL after a grace
/// period, then helpers that linger (its descendants, found before it exited, and anything still
/// naming its profile), then a temporary profile. Every wait is bounded.
fn end_browser_blocking(
    mut child: Option<OwnedChild>,
    descendants: Option<Vec<ProcessIdentity>>,
    profile: &Path,
    remove_profile: bool,
) {
    let descendants = match (descendants, &child) {
        (Some(d), _) => d,
        // Only while unreaped: a reaped child's pid may be another process's by now.
        (None, Some(c)) if !c.is_reaped() => process::descendants_blocking(c.id()),
        (None, _) => Vec::new(),
    };
    if let Some(c) = child.as_mut() {
        c.terminate_blocking(TERM_GRACE);
    }
    process::kill_stragglers_blocking(descendants, Some(profile), HELPER_GRACE);
    if remove_profile {
        let _ = std::fs::remove_dir_all(profile);
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

    /// Who the browser process is: pid, start time, boot id and profile directory (`None` where
    /// `/proc` is unreadable). Record this rather than the pid.
    pub fn identity(&self) -> Option<&ProcessIdentity> {
        self.process.identity.as_ref()
    }

    /// The profile directory in use.
    pub fn user_data_dir(&self) -> &Path {
        &self.process.user_data_dir
    }

    /// The executable that was started.
    pub fn executable(&self) -> &Path {
        &self.process.path
    }

    /// Closes the browser: `Browser.close` over CDP, then kill and reap the process (all bounded,
    /// none of it on the async workers), and remove a temporary profile. Calling it again does
    /// nothing.
    pub async fn close(&self) -> Result<(), CdpError> {
        // The child stays in `self` until the very end: if this future is dropped half-way
        // (e.g. by a caller's timeout), dropping the Browser still ends it.
        let Some(pid) = self.process.pid.filter(|_| self.process.owned()) else {
            return Ok(());
        };
        // Taken while the browser runs: once it exits, its helpers are reparented.
        let slot = self.process.child.clone();
        let descendants = tokio::task::spawn_blocking(move || {
            let found = process::descendants_blocking(pid);
            // Still unreaped after the scan, so unreaped during it: the pid was the browser's
            // (the reaper task may have reaped a crashed one, freeing its pid for reuse).
            let pinned = lock(&slot).as_ref().is_some_and(|c| !c.is_reaped());
            if pinned { found } else { Vec::new() }
        })
        .await
        .unwrap_or_default();
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
        let child = lock(&self.process.child).take();
        if let Some(reaper) = &self.process.reaper {
            reaper.abort();
        }
        let profile = self.process.user_data_dir.clone();
        let remove = self.process.temp_profile;
        tokio::task::spawn_blocking(move || {
            end_browser_blocking(child, Some(descendants), &profile, remove)
        })
        .await
        .map_err(|e| CdpError::Io(std::io::Error::other(e)))
    }

    /// Leaves the browser running and forgets it (no kill on drop). Its temporary profile, if any,
    /// is kept: the caller owns it now.
    pub fn detach(mut self) -> DetachedBrowser {
        // Dropping the child neither kills nor waits.
        drop(self.process.take_child());
        DetachedBrowser {
            pid: self.process.pid,
            ws_url: self.ws_url.clone(),
            user_data_dir: self.process.user_data_dir.clone(),
            identity: self.process.identity.clone(),
        }
        // `self` drops here with no child: nothing is killed and the profile stays.
    }
}

impl Drop for BrowserProcess {
    fn drop(&mut self) {
        let Some(child) = self.take_child() else {
            return;
        };
        let profile = self.user_data_dir.clone();
        let remove = self.temp_profile;
        if std::thread::panicking() {
            // A panic (a failed test, most often) may end the process before a reaper thread
            // runs, leaving the browser behind: end it here, while unwinding, at the cost of the
            // wait.
            end_browser_blocking(Some(child), None, &profile, remove);
            return;
        }
        let slot = Arc::new(Mutex::new(Some(child)));
        let theirs = slot.clone();
        // Never wait here (this runs on whatever thread dropped the browser, often an async
        // worker cancelling a launch): the waiting happens on a thread of its own.
        let spawned = std::thread::Builder::new()
            .name("actionbook-browser-reaper".to_owned())
            .spawn(move || {
                let child = lock(&theirs).take();
                end_browser_blocking(child, None, &profile, remove);
            });
        if spawned.is_err() {
            // No thread to wait on: SIGKILL without waiting (a zombie is left until we exit).
            if let Some(mut child) = lock(&slot).take() {
                let _ = child.signal(process::Signal::Kill);
            }
        }
    }
}

fn launch_args(options: &LaunchOptions, user_data_dir: &Path) -> Vec<String> {
    let mut args = Vec::new();
    if options.headless {
        args.push("--headless=new".to_owned());
    }
    if process::running_as_root() {
        args.push("--no-sandbox".to_owned());
    }
    args.extend(STANDARD_FLAGS.iter().map(|f| (*f).to_owned()));
    args.push(format!("--user-data-dir={}", user_data_dir.display()));
    args.extend(options.args.iter().cloned());
    args.push("about:blank".to_owned());
    args
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
/// trusted root certificates for TLS endpoints, message size, call deadline, and the budget of
/// the whole connect (`connect_timeout`: discovery and handshake together). Errors name the
/// endpoint with its credentials and token-like parameters redacted.
pub async fn connect_with(
    endpoint: &str,
    options: ConnectOptions,
) -> Result<(Connection, String), CdpError> {
    let budget = options.connect_budget();
    let deadline = Instant::now() + budget;
    let connect_err = |reason: String| CdpError::Connect {
        url: redact_url(endpoint),
        reason,
    };
    let parsed = url::Url::parse(endpoint).map_err(|e| connect_err(e.to_string()))?;
    let discovery = async {
        match parsed.scheme() {
            "ws" | "wss" => Ok(endpoint.to_owned()),
            "http" => resolve_ws_url(&parsed, &options.headers, None, &options.proxy).await,
            "https" => {
                let roots = Some(options.root_certificates.as_slice());
                resolve_ws_url(&parsed, &options.headers, roots, &options.proxy).await
            }
            other => Err(connect_err(format!("unsupported scheme {other:?}"))),
        }
    };
    let ws_url = tokio::time::timeout_at(deadline, discovery)
        .await
        .map_err(|_| CdpError::ConnectTimeout {
            url: redact_url(endpoint),
            after: budget,
        })??;
    let conn = Connection::connect_until(&ws_url, options, deadline)
        .await
        .map_err(|e| match e {
            CdpError::ConnectTimeout { .. } => CdpError::ConnectTimeout {
                url: redact_url(endpoint),
                after: budget,
            },
            other => other,
        })?;
    Ok((conn, ws_url))
}

/// `GET /json/version` over plain TCP, or TLS when `tls_roots` (extra trusted roots) is given
/// (Chromium ignores HTTP/1.0 and keeps 1.1 connections open, so the body is read by
/// `Content-Length`). The caller bounds it.
async fn resolve_ws_url(
    endpoint: &url::Url,
    headers: &[(String, String)],
    tls_roots: Option<&[Vec<u8>]>,
    proxy: &crate::ProxyConfig,
) -> Result<String, CdpError> {
    let url_str = redact_url(endpoint.as_str());
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
    let body = async {
        let stream = crate::tls::connect(tcp_host, port, tls_roots, proxy)
            .await
            .map_err(std::io::Error::other)?;
        http_get(stream, &request).await
    }
    .await
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
