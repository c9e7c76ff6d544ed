//! Shared support for the workspace's benches: a tokio runtime and an in-process engine with one
//! session started on a page (what every engine bench needs before it measures anything).
//!
//! Benches stop with a message when their setup fails (there is nothing to measure then), so the
//! functions here panic with the reason instead of returning errors.

pub mod netlab;

use std::path::{Path, PathBuf};

use actionbook::{Engine, EngineConfig, Home, Request};

/// The session id every bench starts.
pub const SESSION: &str = "bench";

/// A multi-thread tokio runtime.
pub fn runtime() -> tokio::runtime::Runtime {
    match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => panic!("tokio runtime: {e}"),
    }
}

/// A request from CLI words (`["browser", "title", ...]`).
pub fn request(words: &[&str]) -> Request {
    match actionbook_cli::cli::request_from_args(words.iter().copied()) {
        Ok(r) => r,
        Err(e) => panic!("{words:?}: {e}"),
    }
}

/// One command from CLI words through `engine`: its envelope as JSON.
pub async fn run(engine: &Engine, words: &[&str]) -> serde_json::Value {
    let envelope = engine.execute(request(words)).await;
    match serde_json::from_str(&envelope.to_json()) {
        Ok(v) => v,
        Err(e) => panic!("envelope JSON: {e}"),
    }
}

/// Which Chromium a bench session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chromium {
    /// `/usr/bin/chromium` as the engine launches it.
    Plain,
    /// With `--site-per-process` (cross-site iframes out of process), through a wrapper script.
    SitePerProcess,
}

/// An in-process engine on a home of its own with session [`SESSION`] started headless.
pub struct StartedEngine {
    /// The engine.
    pub engine: Engine,
    /// The `start` envelope's JSON.
    pub started: serde_json::Value,
    /// Holds the home (and any wrapper script) until the bench ends.
    pub dir: tempfile::TempDir,
}

impl std::fmt::Debug for StartedEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartedEngine")
            .field("started", &self.started)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl StartedEngine {
    /// Starts session [`SESSION`] with its first tab on `url`.
    pub fn start(rt: &tokio::runtime::Runtime, url: &str, chromium: Chromium) -> StartedEngine {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("tempdir: {e}"),
        };
        let engine = match Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        }) {
            Ok(e) => e,
            Err(e) => panic!("engine: {e}"),
        };
        let mut start = request(&[
            "browser",
            "start",
            "--headless",
            "--set-session-id",
            SESSION,
            "--open-url",
            url,
        ]);
        start.env.browser_executable = Some(match chromium {
            Chromium::Plain => PathBuf::from("/usr/bin/chromium"),
            Chromium::SitePerProcess => site_per_process_wrapper(dir.path()),
        });
        let started = rt.block_on(engine.execute(start));
        assert!(started.ok(), "start: {}", started.to_json());
        let started = match serde_json::from_str(&started.to_json()) {
            Ok(v) => v,
            Err(e) => panic!("start json: {e}"),
        };
        StartedEngine {
            engine,
            started,
            dir,
        }
    }

    /// The browser's CDP endpoint (for a second, raw client: the floor).
    pub fn cdp_endpoint(&self) -> &str {
        self.started["data"]["session"]["cdp_endpoint"]
            .as_str()
            .unwrap_or_default()
    }

    /// Closes the session (its browser ends).
    pub fn close(self, rt: &tokio::runtime::Runtime) {
        let closed =
            rt.block_on(
                self.engine
                    .execute(request(&["browser", "close", "--session", SESSION])),
            );
        assert!(closed.ok(), "close: {}", closed.to_json());
    }

    /// The first tab's CDP target id.
    pub fn first_target(&self) -> &str {
        self.started["data"]["tab"]["native_tab_id"]
            .as_str()
            .unwrap_or_default()
    }
}

/// A script in `dir` that runs `/usr/bin/chromium --site-per-process` with its arguments.
fn site_per_process_wrapper(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = dir.join("chromium.sh");
    let script = "#!/bin/sh\nexec /usr/bin/chromium --site-per-process \"$@\"\n";
    if let Err(e) = std::fs::write(&wrapper, script) {
        panic!("wrapper: {e}");
    }
    if let Err(e) = std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)) {
        panic!("wrapper: {e}");
    }
    wrapper
}
