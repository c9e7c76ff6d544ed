//! `actionbook doctor`: what a newcomer needs to know in one command. Each check is a line with
//! `ok`, `warn` or `fail`, what was seen, and the fix for anything not ok: the browser (found,
//! its version), a headless launch, the home (writable), the daemon, `config.toml`, the remote
//! manuals API, free disk space, sessions whose browser is gone.
//!
//! It runs in the asking process, not in the daemon: a daemon that does not answer is one of the
//! things it looks at. Nothing it does changes the home (its probe file is removed, its test
//! browser runs on a temporary profile and is closed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use envelope::{RenderText, TextBody};
use serde::Serialize;

use crate::daemon::client::{self, DaemonState};
use crate::manuals::config::{self, Settings};
use crate::store::{self, Home};

/// How long the test browser may take to start and answer.
const LAUNCH_LIMIT: Duration = Duration::from_secs(30);
/// How long `<browser> --version` may take.
const VERSION_LIMIT: Duration = Duration::from_secs(10);
/// Free space under the home below which `disk` warns, and below which it fails.
const DISK_WARN: u64 = 1 << 30;
const DISK_FAIL: u64 = 100 << 20;

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Fine.
    Ok,
    /// Works, but worth knowing (with a fix).
    Warn,
    /// Broken (with a fix).
    Fail,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }
}

/// One check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `browser`, `launch`, `home`, `daemon`, `config`, `api`, `disk`, `sessions`.
    pub name: &'static str,
    /// The verdict.
    pub status: Verdict,
    /// What was seen.
    pub detail: String,
    /// What to do (for `warn` and `fail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            status: Verdict::Ok,
            detail: detail.into(),
            fix: None,
        }
    }

    fn bad(name: &'static str, status: Verdict, detail: impl Into<String>, fix: &str) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            fix: Some(fix.to_string()),
        }
    }
}

/// `doctor`'s data: every check, in order, and whether none failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DoctorData {
    /// No check failed (warnings allowed).
    pub healthy: bool,
    /// The checks.
    pub checks: Vec<Check>,
}

impl RenderText for DoctorData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        for c in &self.checks {
            body.line(format_args!(
                "{:<4}  {:<8}  {}",
                c.status.word(),
                c.name,
                c.detail
            ));
            if let Some(fix) = &c.fix {
                body.line(format_args!("            fix: {fix}"));
            }
        }
    }
}

/// Runs every check on `home` (`home` is `Err` when `ACTIONBOOK_HOME` could not be worked out).
pub fn run(home: std::result::Result<&Home, String>) -> DoctorData {
    let settings = home.as_ref().ok().map(|h| Settings::load(h.root()));
    let mut checks = Vec::new();
    let browser = browser_check(settings.as_ref().and_then(|s| s.as_ref().ok()));
    let executable = browser.1.clone();
    checks.push(browser.0);
    checks.push(match &executable {
        Some(path) => launch_check(path),
        None => Check::bad(
            "launch",
            Verdict::Fail,
            "not tried: no browser",
            "install Chromium first (see `browser`)",
        ),
    });
    match home {
        Ok(home) => {
            checks.push(home_check(home));
            checks.push(daemon_check(home));
            checks.push(config_check(home, settings.as_ref()));
            checks.push(api_check(settings.as_ref().and_then(|s| s.as_ref().ok())));
            checks.push(disk_check(home.root()));
            checks.push(sessions_check(home));
        }
        Err(why) => checks.push(Check::bad(
            "home",
            Verdict::Fail,
            why,
            "set ACTIONBOOK_HOME to a writable directory (or HOME, for ~/.actionbook)",
        )),
    }
    DoctorData {
        healthy: checks.iter().all(|c| c.status != Verdict::Fail),
        checks,
    }
}

/// The browser `browser start` would launch (`ACTIONBOOK_BROWSER_EXECUTABLE_PATH`, then
/// `config.toml`, then `PATH`), and its version.
fn browser_check(settings: Option<&Settings>) -> (Check, Option<PathBuf>) {
    const FIX: &str = "install Chromium (Debian/Ubuntu: `apt-get install chromium`) or set \
                       ACTIONBOOK_BROWSER_EXECUTABLE_PATH (or `actionbook setup --browser <path>`)";
    let configured = settings.and_then(|s| s.browser_executable.clone());
    let path = match configured {
        Some(setting) => {
            let p = PathBuf::from(&setting.value);
            if !p.is_file() {
                let from = match setting.source {
                    config::Source::Env => "ACTIONBOOK_BROWSER_EXECUTABLE_PATH",
                    config::Source::File => "config.toml",
                    config::Source::Default => "the default",
                };
                let detail = format!("{} (from {from}) does not exist", p.display());
                return (Check::bad("browser", Verdict::Fail, detail, FIX), None);
            }
            p
        }
        None => match cdp_protocol::find_executable() {
            Ok(p) => p,
            Err(e) => {
                return (
                    Check::bad("browser", Verdict::Fail, e.to_string(), FIX),
                    None,
                );
            }
        },
    };
    match version_of(&path) {
        Ok(v) => (
            Check::ok("browser", format!("{} ({v})", path.display())),
            Some(path),
        ),
        Err(why) => (
            Check::bad(
                "browser",
                Verdict::Fail,
                format!("{}: {why}", path.display()),
                FIX,
            ),
            None,
        ),
    }
}

/// `<browser> --version`, within [`VERSION_LIMIT`].
fn version_of(path: &Path) -> std::result::Result<String, String> {
    let mut child = std::process::Command::new(path)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let until = Instant::now() + VERSION_LIMIT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`--version` gave no answer within {} s",
                    VERSION_LIMIT.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for it: {e}")),
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("reading its version: {e}"))?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match (out.status.success(), v.is_empty()) {
        (true, false) => Ok(v),
        _ => Err(format!("`--version` failed ({})", out.status)),
    }
}

/// Launches `path` headless on a temporary profile, asks its version over CDP, closes it.
fn launch_check(path: &Path) -> Check {
    const FIX: &str = "run the browser by hand with --headless=new --no-sandbox to see why; on a \
                       server, install its libraries (`apt-get install chromium` pulls them in)";
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return Check::bad("launch", Verdict::Fail, format!("no runtime: {e}"), FIX),
    };
    let profile = std::env::temp_dir().join(format!(
        "actionbook-doctor-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    let started = Instant::now();
    let result = runtime.block_on(async {
        let options = cdp_protocol::LaunchOptions {
            executable: Some(path.to_path_buf()),
            headless: true,
            user_data_dir: Some(profile.clone()),
            args: vec![
                "--disable-gpu".into(),
                "--disable-background-networking".into(),
            ],
            startup_timeout: LAUNCH_LIMIT,
            ..Default::default()
        };
        let browser = cdp_protocol::Browser::launch(options)
            .await
            .map_err(|e| e.to_string())?;
        let version = browser
            .session()
            .send_timeout(&cdp_protocol::browser::GetVersion, LAUNCH_LIMIT)
            .await
            .map_err(|e| format!("it started but did not answer over CDP: {e}"));
        let _ = tokio::time::timeout(Duration::from_secs(10), browser.close()).await;
        version
    });
    let _ = std::fs::remove_dir_all(&profile);
    match result {
        Ok(v) => Check::ok(
            "launch",
            format!(
                "headless {} answered over CDP in {} ms",
                v.product,
                started.elapsed().as_millis()
            ),
        ),
        Err(why) => Check::bad("launch", Verdict::Fail, why, FIX),
    }
}

/// The home exists (or can be made) and takes a file.
fn home_check(home: &Home) -> Check {
    const FIX: &str = "make it writable by you, or point ACTIONBOOK_HOME at a directory that is";
    if let Err(e) = home.ensure() {
        return Check::bad("home", Verdict::Fail, e.to_string(), FIX);
    }
    let probe = home.root().join(format!(".doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"probe") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            Check::ok("home", format!("{} (writable)", home.root().display()))
        }
        Err(e) => Check::bad(
            "home",
            Verdict::Fail,
            format!("{}: cannot write: {e}", home.root().display()),
            FIX,
        ),
    }
}

/// Whether the home's daemon answers.
fn daemon_check(home: &Home) -> Check {
    match client::status(home) {
        DaemonState::Serving(pid) => Check::ok(
            "daemon",
            match pid {
                Some(pid) => format!("running (pid {pid})"),
                None => "running".to_string(),
            },
        ),
        DaemonState::Held(pid) => Check::bad(
            "daemon",
            Verdict::Warn,
            format!(
                "the home is held{} but nothing answers on its socket (a daemon exiting, or a \
                 program running the engine itself)",
                pid.map(|p| format!(" by pid {p}")).unwrap_or_default()
            ),
            "`actionbook daemon restart` (sessions and their browsers stay)",
        ),
        DaemonState::Stopped => Check::ok(
            "daemon",
            "not running (the first browser command starts it)",
        ),
    }
}

/// `config.toml` parses, and what the environment overrides says.
fn config_check<E: std::fmt::Display>(
    home: &Home,
    settings: Option<&std::result::Result<Settings, E>>,
) -> Check {
    let path = config::config_path(home.root());
    match settings {
        Some(Ok(s)) if !s.warnings.is_empty() => Check::bad(
            "config",
            Verdict::Warn,
            format!("{}: {}", path.display(), s.warnings.join("; ")),
            "correct the values named (or `actionbook setup --reset`)",
        ),
        Some(Ok(_)) if path.exists() => Check::ok("config", path.display().to_string()),
        Some(Ok(_)) => Check::ok("config", format!("no {} (defaults)", path.display())),
        Some(Err(e)) => Check::bad(
            "config",
            Verdict::Fail,
            e.to_string(),
            "fix the file (it is TOML), or start over with `actionbook setup --reset`",
        ),
        None => Check::bad(
            "config",
            Verdict::Fail,
            "no home to read it from",
            "see `home`",
        ),
    }
}

/// The remote manuals API answers a search (a warning, not a failure: local manuals still work).
fn api_check(settings: Option<&Settings>) -> Check {
    const FIX: &str = "check ACTIONBOOK_API_URL / ACTIONBOOK_API_KEY (or [api] in config.toml) \
                       and the network; local manuals work without it";
    let Some(settings) = settings else {
        return Check::ok("api", "not checked (no configuration)");
    };
    match settings.remote() {
        Ok(None) => Check::ok("api", "not configured (local manuals only)"),
        Ok(Some(api)) => {
            let url = api.base_url().to_string();
            let started = Instant::now();
            match api.search(&crate::manuals::store::SearchQuery::new("login")) {
                Ok(_) => Check::ok(
                    "api",
                    format!("{url} answered in {} ms", started.elapsed().as_millis()),
                ),
                Err(f) => Check::bad("api", Verdict::Warn, format!("{url}: {}", f.reason), FIX),
            }
        }
        Err(e) => Check::bad("api", Verdict::Warn, e.to_string(), FIX),
    }
}

/// Free space on the home's file system.
fn disk_check(root: &Path) -> Check {
    const FIX: &str = "free space (old HAR files, screenshots and profiles live under the home), \
                       or move ACTIONBOOK_HOME";
    match rustix::fs::statvfs(root) {
        Ok(s) => {
            let free = s.f_bavail.saturating_mul(s.f_frsize);
            let detail = format!("{} free under {}", human(free), root.display());
            match free {
                f if f < DISK_FAIL => Check::bad("disk", Verdict::Fail, detail, FIX),
                f if f < DISK_WARN => Check::bad("disk", Verdict::Warn, detail, FIX),
                _ => Check::ok("disk", detail),
            }
        }
        Err(e) => Check::bad(
            "disk",
            Verdict::Warn,
            format!("cannot read the free space of {}: {e}", root.display()),
            "check the home's file system",
        ),
    }
}

fn human(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    match bytes as f64 {
        b if b >= GIB => format!("{:.1} GiB", b / GIB),
        b => format!("{:.0} MiB", b / MIB),
    }
}

/// Sessions whose launched browser is gone (their records stay until `close`).
fn sessions_check(home: &Home) -> Check {
    let dir = home.sessions_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::ok("sessions", "none");
        }
        Err(e) => {
            return Check::bad(
                "sessions",
                Verdict::Warn,
                format!("{}: {e}", dir.display()),
                "check the home's permissions",
            );
        }
    };
    let (mut total, mut stale, mut unreadable) = (0usize, Vec::new(), Vec::new());
    for entry in entries.flatten() {
        let id = entry.file_name().to_string_lossy().into_owned();
        let file = entry.path().join(store::SESSION_FILE);
        match store::read_session_record(&file) {
            Ok(Some(rec)) => {
                total += 1;
                let gone = rec.launched
                    && rec
                        .browser_identity
                        .as_ref()
                        .is_none_or(|who| !who.status().is_running());
                if gone {
                    stale.push(id);
                }
            }
            Ok(None) => {}
            Err(_) => unreadable.push(id),
        }
    }
    match (stale.is_empty(), unreadable.is_empty()) {
        (true, true) => Check::ok(
            "sessions",
            match total {
                0 => "none".to_string(),
                n => format!("{n} session(s), every launched browser running"),
            },
        ),
        _ => {
            let mut said = Vec::new();
            if !stale.is_empty() {
                said.push(format!("browser gone: {}", stale.join(", ")));
            }
            if !unreadable.is_empty() {
                said.push(format!("record unreadable: {}", unreadable.join(", ")));
            }
            let first = stale
                .first()
                .or(unreadable.first())
                .cloned()
                .unwrap_or_default();
            Check {
                name: "sessions",
                status: Verdict::Warn,
                detail: format!("{total} session(s); {}", said.join("; ")),
                fix: Some(format!(
                    "`actionbook browser restart --session {first}` brings one back, `actionbook \
                     browser close --session {first}` ends it"
                )),
            }
        }
    }
}
