//! Test support (feature `test-support`): a fixture HTTP server and a test-browser launcher.
//!
//! These helpers panic with a clear message when the environment is broken (no port, no
//! browser): they are for tests, where that is the useful outcome.

use crate::error::CdpError;
use crate::launch::{Browser, LaunchOptions, find_executable};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const MAX_REQUEST_HEAD: usize = 64 * 1024;
/// The largest request body the server reads (the rest is left unread).
const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
struct Route {
    /// `200 OK`, `302 Found`, ...
    status: String,
    content_type: String,
    /// Extra response headers (`Set-Cookie`, `Location`, ...).
    headers: Vec<(String, String)>,
    body: Arc<[u8]>,
    delay: Duration,
}

type Routes = Arc<Mutex<HashMap<String, Route>>>;

/// An HTTP/1.1 server on `127.0.0.1:0` serving fixed pages; stops when dropped.
///
/// The same port is reachable as `localhost`, which is another site for Chromium: pages from
/// [`FixtureServer::url`] embedding [`FixtureServer::cross_site_url`] get out-of-process iframes
/// under `--site-per-process`.
#[derive(Debug)]
pub struct FixtureServer {
    port: u16,
    routes: Routes,
    task: tokio::task::JoinHandle<()>,
}

impl FixtureServer {
    /// Binds `127.0.0.1:0` and starts serving (panics if no port can be bound).
    pub async fn start() -> FixtureServer {
        match Self::try_start().await {
            Ok(s) => s,
            Err(e) => panic!("fixture server: cannot bind 127.0.0.1:0: {e}"),
        }
    }

    /// Like [`FixtureServer::start`], returning the error.
    pub async fn try_start() -> std::io::Result<FixtureServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let routes: Routes = Arc::default();
        let task = tokio::spawn(serve(listener, routes.clone()));
        Ok(FixtureServer { port, routes, task })
    }

    /// Adds or replaces the page at `path` (e.g. `"/index.html"`).
    pub fn route(&self, path: &str, content_type: &str, body: impl Into<Vec<u8>>) {
        self.route_delayed(path, content_type, body, Duration::ZERO);
    }

    /// Like [`FixtureServer::route`], answering only after `delay` (slow-load tests).
    pub fn route_delayed(
        &self,
        path: &str,
        content_type: &str,
        body: impl Into<Vec<u8>>,
        delay: Duration,
    ) {
        let route = Route {
            status: "200 OK".to_owned(),
            content_type: content_type.to_owned(),
            headers: Vec::new(),
            body: Arc::from(body.into()),
            delay,
        };
        self.insert(path, route);
    }

    /// Like [`FixtureServer::route`] with a status line (`"302 Found"`) and extra headers
    /// (`Location`, `Set-Cookie`, ...): redirects and cookies. Answers carry
    /// `Cache-Control: no-store` unless `headers` has a `Cache-Control` of its own (a page that
    /// may enter the back/forward cache).
    pub fn route_with(
        &self,
        path: &str,
        status: &str,
        headers: &[(&str, &str)],
        content_type: &str,
        body: impl Into<Vec<u8>>,
    ) {
        let route = Route {
            status: status.to_owned(),
            content_type: content_type.to_owned(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            body: Arc::from(body.into()),
            delay: Duration::ZERO,
        };
        self.insert(path, route);
    }

    fn insert(&self, path: &str, route: Route) {
        self.routes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(normalize(path), route);
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.port, normalize(path))
    }

    /// `http://localhost:PORT/path`: the same server as another site.
    pub fn cross_site_url(&self, path: &str) -> String {
        format!("http://localhost:{}{}", self.port, normalize(path))
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn normalize(path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}

async fn serve(listener: TcpListener, routes: Routes) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Transient accept errors (e.g. too many files): back off briefly.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        tokio::spawn(handle(stream, routes.clone()));
    }
}

/// One request per connection (`Connection: close`), which Chromium handles fine.
async fn handle(mut stream: TcpStream, routes: Routes) {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(READ_TIMEOUT, async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        true
    })
    .await;
    if !matches!(read, Ok(true)) {
        return;
    }
    // The request body is read before answering: a connection closed with unread data is reset,
    // and the browser may then fail the request (a large upload).
    let head_end = head
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(head.len(), |i| i + 4);
    let text = String::from_utf8_lossy(&head[..head_end]).into_owned();
    let length = text
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST_BODY);
    let mut unread = length.saturating_sub(head.len() - head_end);
    let _ = tokio::time::timeout(READ_TIMEOUT, async {
        while unread > 0 {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => unread = unread.saturating_sub(n),
            }
        }
    })
    .await;
    let mut parts = text.lines().next().unwrap_or_default().split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or("/").to_owned();
    let path = target.split(['?', '#']).next().unwrap_or("/").to_owned();
    let route = {
        let routes = routes.lock().unwrap_or_else(|p| p.into_inner());
        routes.get(&target).or_else(|| routes.get(&path)).cloned()
    };
    let (status, content_type, extra, body, delay) = match route {
        Some(r) => (r.status, r.content_type, r.headers, r.body, r.delay),
        None => (
            "404 Not Found".to_owned(),
            "text/plain".to_owned(),
            Vec::new(),
            Arc::from(&b"not found"[..]),
            Duration::ZERO,
        ),
    };
    // `no-store` unless the route says otherwise (it keeps pages out of the back/forward cache).
    let own_cache_control = extra
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("cache-control"));
    let cache_control = if own_cache_control {
        ""
    } else {
        "Cache-Control: no-store\r\n"
    };
    let extra: String = extra.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{cache_control}Connection: close\r\n{extra}\r\n",
        body.len()
    );
    let _ = stream.write_all(header.as_bytes()).await;
    if method != "HEAD" {
        let _ = stream.write_all(&body).await;
    }
    let _ = stream.shutdown().await;
}

/// Options of the standard test browser: headless, the standard flags, `--site-per-process`,
/// a fresh profile, and a generous startup deadline (test machines are often loaded).
pub fn test_launch_options() -> LaunchOptions {
    LaunchOptions::default()
        .arg("--site-per-process")
        .startup_timeout(Duration::from_secs(60))
}

/// Launches the standard test browser (panics with the launch error if it cannot).
pub async fn launch_test_browser() -> Browser {
    match try_launch_test_browser().await {
        Ok(b) => b,
        Err(e) => panic!("cannot launch the test browser: {e}"),
    }
}

/// Like [`launch_test_browser`], returning the error.
pub async fn try_launch_test_browser() -> Result<Browser, CdpError> {
    Browser::launch(test_launch_options()).await
}

/// True when a browser executable can be found.
pub fn chromium_available() -> bool {
    find_executable().is_ok()
}

/// Opens a blank page target in `browser` and attaches to it (flattened): the page's session.
pub async fn open_blank_page(
    browser: &Browser,
) -> Result<(crate::TargetId, crate::Session), CdpError> {
    let root = browser.connection().browser();
    let created = root
        .send(&crate::target::CreateTarget {
            url: "about:blank".into(),
            ..Default::default()
        })
        .await?;
    let session = root.attach_to_target(&created.target_id).await?;
    Ok((created.target_id, session))
}
