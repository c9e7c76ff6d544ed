//! Talking to the browser: launch, (re)connect, tab sessions, navigation and evaluation helpers.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::cdp::{CdpError, Connection, Session, TargetId};
use serde_json::{Value, json};

use crate::engine::{Call, SessionSlot, TabState};
use crate::error::{CliError, Result};
use crate::state::SessionRecord;

/// A live browser connection of a session.
#[derive(Debug, Clone)]
pub(crate) struct Live {
    pub conn: Connection,
    /// Bumps on every new connection, so tab sessions of an old one are re-attached.
    pub generation: u64,
}

impl Live {
    pub fn is_closed(&self) -> bool {
        self.conn.is_closed()
    }

    /// The browser-level session.
    pub fn browser(&self) -> Session {
        self.conn.browser()
    }
}

/// Per-tab data owned by the higher layers (ref table, frames).
#[derive(Debug, Default)]
pub(crate) struct TabExtra {
    /// Ref table and frame locations.
    pub frames: crate::page_frames::TabFrames,
}

/// Whether a process with this pid is alive (and not a zombie).
pub(crate) fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // Field 3 (after the parenthesised comm) is the state; Z = zombie, X = dead.
            let state = stat
                .rfind(')')
                .and_then(|i| stat[i + 1..].split_whitespace().next())
                .unwrap_or("");
            !matches!(state, "Z" | "X" | "x")
        }
        Err(_) => false,
    }
}

/// Sends SIGKILL to a process (via `kill`, since unsafe code is forbidden).
pub(crate) fn kill_pid(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-KILL")
        .arg(pid.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

/// Kills every process whose command line names this user-data directory (browser helpers that
/// outlived a browser launched by an earlier daemon).
pub(crate) fn kill_profile_processes(profile_dir: &std::path::Path) {
    let needle = format!("--user-data-dir={}", profile_dir.display());
    let me = std::process::id();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if cmd.split(|b| *b == 0).any(|arg| arg == needle.as_bytes()) && pid_alive(pid) {
            kill_pid(pid);
        }
    }
}

/// Waits (bounded) for a process to exit; kills it when the grace period runs out.
pub(crate) async fn ensure_exited(pid: u32, grace: Duration) {
    let until = tokio::time::Instant::now() + grace;
    while pid_alive(pid) && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    if pid_alive(pid) {
        kill_pid(pid);
        let until = tokio::time::Instant::now() + Duration::from_secs(3);
        while pid_alive(pid) && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

fn bounded(call: &Call, cap: Duration) -> Duration {
    call.remaining().min(cap)
}

/// URL schemes that run code or carry a whole document in the URL: refused, as the reference
/// CLI does (`eval` is the way to run script).
const BLOCKED_SCHEMES: &[&str] = &["javascript", "data", "vbscript"];
/// Schemes written without `//` that are taken as they are.
const OPAQUE_SCHEMES: &[&str] = &["about", "chrome", "blob", "view-source", "mailto"];

/// The URL a page is loaded from, as the reference CLI reads what the user typed: a URL with a
/// scheme as is, `//host/path` and scheme-less input (`example.com/x`, `localhost:3000`) as
/// `https://`; `javascript:`, `data:` and `vbscript:` are refused (INVALID_ARGUMENT).
pub(crate) fn normalize_url(input: &str) -> Result<String> {
    let url = input.trim();
    if url.is_empty() {
        return Err(CliError::InvalidArgument("the URL is empty".to_string()));
    }
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .filter(|s| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
    if let Some(scheme) = scheme {
        if BLOCKED_SCHEMES.contains(&scheme.as_str()) {
            return Err(CliError::InvalidArgument(format!(
                "dangerous URL protocol blocked: {url}"
            )));
        }
        if url[scheme.len() + 1..].starts_with("//") || OPAQUE_SCHEMES.contains(&scheme.as_str()) {
            return Ok(url.to_string());
        }
    }
    match url.strip_prefix("//") {
        Some(rest) => Ok(format!("https://{rest}")),
        None => Ok(format!("https://{url}")),
    }
}

/// Re-connects to a recorded browser.
pub(crate) async fn reconnect(rec: &SessionRecord, generation: u64, call: &Call) -> Result<Live> {
    let fut = crate::cdp::connect(&rec.cdp_endpoint, &rec.headers);
    let (conn, _ws) = tokio::time::timeout(bounded(call, Duration::from_secs(5)), fut)
        .await
        .map_err(|_| call.timeout("connecting to the browser"))??;
    Ok(Live { conn, generation })
}

/// What a fresh launch gives.
#[derive(Debug)]
pub(crate) struct Launched {
    pub live: Live,
    pub ws_url: String,
    pub pid: Option<u32>,
    pub browser: crate::cdp::Browser,
}

/// Chromium flags we always add.
fn default_args() -> Vec<String> {
    let mut args = vec![
        "--no-first-run".to_string(),
        "--no-default-browser-check".to_string(),
        "--disable-background-networking".to_string(),
        "--disable-component-update".to_string(),
        "--disable-sync".to_string(),
    ];
    // Chromium refuses to start as root without --no-sandbox.
    if std::os::unix::fs::MetadataExt::uid(&match std::fs::metadata("/proc/self") {
        Ok(m) => m,
        Err(_) => return args,
    }) == 0
    {
        args.push("--no-sandbox".to_string());
    }
    args
}

/// Launches a browser for a session (own process group, so it outlives the daemon).
pub(crate) async fn launch(
    executable: Option<PathBuf>,
    headless: bool,
    profile_dir: PathBuf,
    generation: u64,
) -> Result<Launched> {
    let executable = match executable {
        Some(p) => p,
        None => crate::cdp::find_executable().map_err(|e| CliError::BrowserNotFound {
            detail: e.to_string(),
        })?,
    };
    let options = crate::cdp::LaunchOptions {
        executable: Some(executable.clone()),
        headless,
        user_data_dir: Some(profile_dir),
        args: default_args(),
        detached: true,
        ..Default::default()
    };
    let browser = match crate::cdp::Browser::launch(options).await {
        Ok(b) => b,
        Err(CdpError::BrowserNotFound { tried }) => {
            return Err(CliError::BrowserNotFound {
                detail: format!("no browser found (tried: {})", tried.join(", ")),
            });
        }
        Err(e @ (CdpError::Launch { .. } | CdpError::BrowserExited { .. } | CdpError::Io(_))) => {
            return Err(CliError::BrowserNotFound {
                detail: format!("cannot start {}: {e}", executable.display()),
            });
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Launched {
        live: Live {
            conn: browser.connection().clone(),
            generation,
        },
        ws_url: browser.ws_url().to_string(),
        pid: browser.pid(),
        browser,
    })
}

/// One page target of the browser.
#[derive(Debug, Clone)]
pub(crate) struct PageTarget {
    pub target_id: String,
    pub url: String,
    pub title: String,
    /// The page that opened this one (`window.open`, a `target=_blank` link), if any.
    pub opener_id: Option<String>,
}

/// The browser's page targets (tabs), in the browser's order.
pub(crate) async fn page_targets(live: &Live, call: &Call) -> Result<Vec<PageTarget>> {
    let v = live
        .browser()
        .call_timeout(
            "Target.getTargets",
            json!({}),
            bounded(call, Duration::from_secs(5)),
        )
        .await?;
    let mut out = Vec::new();
    for t in v["targetInfos"].as_array().into_iter().flatten() {
        if t["type"].as_str() != Some("page") {
            continue;
        }
        let Some(id) = t["targetId"].as_str() else {
            continue;
        };
        out.push(PageTarget {
            target_id: id.to_string(),
            url: t["url"].as_str().unwrap_or_default().to_string(),
            title: t["title"].as_str().unwrap_or_default().to_string(),
            opener_id: t["openerId"].as_str().map(str::to_string),
        });
    }
    Ok(out)
}

/// Creates a new page target.
pub(crate) async fn create_target(live: &Live, new_window: bool, call: &Call) -> Result<String> {
    let v = live
        .browser()
        .call_timeout(
            "Target.createTarget",
            json!({ "url": "about:blank", "newWindow": new_window }),
            bounded(call, Duration::from_secs(10)),
        )
        .await?;
    v["targetId"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| CliError::internal("Target.createTarget returned no targetId"))
}

/// Closes a page target.
pub(crate) async fn close_target(live: &Live, target_id: &str, call: &Call) -> Result<()> {
    live.browser()
        .call_timeout(
            "Target.closeTarget",
            json!({ "targetId": target_id }),
            bounded(call, Duration::from_secs(5)),
        )
        .await?;
    Ok(())
}

/// Chromium's window id of a target (`Browser.getWindowForTarget`).
pub(crate) async fn window_of_target(live: &Live, target_id: &str, call: &Call) -> Result<i64> {
    let v = live
        .browser()
        .call_timeout(
            "Browser.getWindowForTarget",
            json!({ "targetId": target_id }),
            bounded(call, Duration::from_secs(5)),
        )
        .await?;
    v["windowId"]
        .as_i64()
        .ok_or_else(|| CliError::internal("Browser.getWindowForTarget returned no windowId"))
}

/// Opens a blank tab in the window of `opener` (a page target) and returns its target id.
///
/// `Target.createTarget` always opens in the most recently created window, so the tab is opened
/// from the page itself: `window.open(<unique about:blank URL>, '_blank', 'noopener')` with a user
/// gesture opens a tab in the opener's window. The new target is found by its unique URL; when it did
/// not land in `native_window` it is closed and UNSUPPORTED_OPERATION reported.
pub(crate) async fn open_in_window(
    live: &Live,
    opener: &str,
    native_window: i64,
    window_id: &str,
    call: &Call,
) -> Result<String> {
    static NONCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let marker = format!(
        "about:blank#actionbook-{}-{nanos}-{}",
        std::process::id(),
        NONCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let page = match tokio::time::timeout(
        bounded(call, Duration::from_secs(10)),
        live.browser().attach_to_target(&TargetId::from(opener)),
    )
    .await
    {
        Err(_) => return Err(call.timeout("attaching to a tab of the window")),
        Ok(r) => r?,
    };
    let opened = page
        .call_timeout(
            "Runtime.evaluate",
            json!({
                "expression": format!("void window.open({}, '_blank', 'noopener')", json!(marker)),
                "userGesture": true,
            }),
            bounded(call, Duration::from_secs(5)),
        )
        .await;
    let _ = page.detach().await;
    let opened = opened?;
    if let Some(ex) = opened.get("exceptionDetails").filter(|e| !e.is_null()) {
        return Err(CliError::Unsupported(format!(
            "cannot open a tab in window {window_id}: window.open failed in its page ({})",
            ex["exception"]["description"]
                .as_str()
                .or_else(|| ex["text"].as_str())
                .unwrap_or("exception")
        )));
    }
    // The new target shows up in Target.getTargets with its URL; poll (bounded).
    let until = tokio::time::Instant::now() + bounded(call, Duration::from_secs(5));
    let target_id = loop {
        if let Some(t) = page_targets(live, call)
            .await?
            .into_iter()
            .find(|t| t.url == marker)
        {
            break t.target_id;
        }
        if tokio::time::Instant::now() >= until {
            if call.remaining() <= Duration::from_millis(1) {
                return Err(call.timeout("opening a tab in the window"));
            }
            return Err(CliError::Unsupported(format!(
                "cannot open a tab in window {window_id}: the page did not open one (popup blocked?)"
            )));
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
    };
    match window_of_target(live, &target_id, call).await {
        Ok(w) if w == native_window => Ok(target_id),
        other => {
            let _ = close_target(live, &target_id, call).await;
            match other {
                Err(e) => Err(e),
                Ok(_) => Err(CliError::Unsupported(format!(
                    "cannot open a tab in window {window_id}: the browser opened it in another window"
                ))),
            }
        }
    }
}

/// The attached flat session of a tab, attaching (and enabling Page) when needed.
pub(crate) async fn tab_session(
    slot: &Arc<SessionSlot>,
    tab_id: &str,
    state: &mut TabState,
    live: &Live,
    call: &Call,
    loads_page: bool,
) -> Result<Session> {
    if let Some((generation, s)) = &state.attached
        && *generation == live.generation
    {
        return Ok(s.clone());
    }
    let target_id = slot
        .record()
        .tab(tab_id)
        .map(|t| t.target_id.clone())
        .ok_or_else(|| CliError::TabNotFound {
            session: slot.id.clone(),
            tab: tab_id.to_string(),
        })?;
    let root = live.browser();
    let tid = TargetId::from(target_id.as_str());
    let mut crash_watch = crate::crash_watch::CrashWatch::subscribe(&live.conn);
    let attach = root.attach_to_target(&tid);
    let session = match tokio::time::timeout(bounded(call, Duration::from_secs(10)), attach).await {
        Err(_) => return Err(call.timeout("attaching to the tab")),
        Ok(Ok(s)) => s,
        Ok(Err(CdpError::Protocol { message, .. })) if message.contains("No target") => {
            // The page closed itself (window.close, crash): forget the tab.
            let _ = slot.update(|r| r.tabs.retain(|t| t.tab_id != tab_id));
            return Err(CliError::TabNotFound {
                session: slot.id.clone(),
                tab: tab_id.to_string(),
            });
        }
        Ok(Err(e)) => return Err(e.into()),
    };
    crash_watch.bind(&session);
    // A page that crashed before we attached never answers Page.enable (until it is loaded
    // again); it announces the crash only if this connection had seen it, so a page that does
    // not answer in time is taken as unresponsive: only commands that load a page may run.
    let enable = session.call_timeout(
        "Page.enable",
        json!({}),
        bounded(call, Duration::from_secs(5)),
    );
    let (crashed, page_enabled) = tokio::select! {
        r = enable => match r {
            Ok(_) => (false, true),
            Err(CdpError::Timeout { .. }) if loads_page => (false, false),
            Err(e) => {
                let _ = session.detach().await;
                return Err(match e {
                    CdpError::Timeout { .. } => CliError::PageUnresponsive {
                        session: slot.id.clone(),
                        tab: tab_id.to_string(),
                    },
                    e => e.into(),
                });
            }
        },
        true = crash_watch.next() => (true, false),
    };
    state.attached = Some((live.generation, session.clone()));
    state.dialogs = Some(crate::dialogs::answer_dialogs(&session));
    state.target_id = Some(target_id);
    state.info_trusted = false;
    state.crash_watch = Some(crash_watch);
    state.crashed = crashed;
    state.page_enabled = page_enabled;
    Ok(session)
}

/// Loads a page that did not answer `Page.enable` when attached (crashed before, or blocked) again:
/// `Page.reload` recreates a crashed renderer, and only then does `Page.enable` answer; afterwards
/// a navigation command runs on it as usual.
pub(crate) async fn revive(page: &Session, state: &mut TabState, call: &Call) -> Result<()> {
    let mut events = page.events(NAV_EVENTS);
    page.call_timeout(
        "Page.reload",
        json!({}),
        bounded(call, Duration::from_secs(10)),
    )
    .await?;
    page.call_timeout(
        "Page.enable",
        json!({}),
        bounded(call, Duration::from_secs(5)),
    )
    .await?;
    wait_loaded(page, &mut events, call, "loading the crashed page again").await?;
    state.page_enabled = true;
    state.crashed = false;
    Ok(())
}

/// `(location.href, document.title)` of a page.
pub(crate) async fn page_info(page: &Session, call: &Call) -> Result<(String, String)> {
    let cap = call
        .remaining()
        .max(Duration::from_secs(2))
        .min(Duration::from_secs(10));
    let v = page
        .call_timeout(
            "Runtime.evaluate",
            json!({ "expression": "[location.href, document.title]", "returnByValue": true }),
            cap,
        )
        .await?;
    let arr = &v["result"]["value"];
    Ok((
        arr[0].as_str().unwrap_or_default().to_string(),
        arr[1].as_str().unwrap_or_default().to_string(),
    ))
}

/// `document.readyState` of a page.
async fn ready_state(page: &Session, call: &Call) -> Result<String> {
    let v = page
        .call_timeout(
            "Runtime.evaluate",
            json!({ "expression": "document.readyState", "returnByValue": true }),
            bounded(call, Duration::from_secs(5)),
        )
        .await?;
    Ok(v["result"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// Waits until the page's document is fully loaded (bounded by the call's deadline).
pub(crate) async fn wait_loaded(
    page: &Session,
    events: &mut crate::cdp::EventStream,
    call: &Call,
    what: &str,
) -> Result<()> {
    loop {
        match ready_state(page, call).await {
            Ok(s) if s == "complete" => return Ok(()),
            Ok(_) => {}
            // The context may be swapped mid-navigation; try again.
            Err(CliError::Cdp(CdpError::Protocol { .. })) => {}
            Err(CliError::Cdp(CdpError::Timeout { .. })) => return Err(call.timeout(what)),
            Err(e) => return Err(e),
        }
        if call.remaining() <= Duration::from_millis(1) {
            return Err(call.timeout(what));
        }
        let tick = call.remaining().min(Duration::from_millis(100));
        let _ = tokio::time::timeout(tick, events.recv()).await;
    }
}

/// Waits for the main frame to commit a navigation (cross- or same-document).
async fn wait_committed(
    events: &mut crate::cdp::EventStream,
    main_frame: &str,
    call: &Call,
    what: &str,
) -> Result<()> {
    loop {
        let ev = match tokio::time::timeout(call.remaining(), events.recv()).await {
            Err(_) => return Err(call.timeout(what)),
            Ok(None) => return Err(CdpError::ConnectionClosed.into()),
            Ok(Some(ev)) => ev,
        };
        let params: Value = serde_json::from_str(ev.params.get()).unwrap_or(Value::Null);
        match ev.method.as_str() {
            "Page.frameNavigated" if params["frame"]["parentId"].is_null() => return Ok(()),
            "Page.navigatedWithinDocument" if params["frameId"].as_str() == Some(main_frame) => {
                return Ok(());
            }
            _ => {}
        }
    }
}

const NAV_EVENTS: &[&str] = &[
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
    "Page.loadEventFired",
];

/// Navigates and waits for the load. `NAVIGATION_FAILED` carries Chromium's net error.
pub(crate) async fn navigate(page: &Session, url: &str, call: &Call, what: &str) -> Result<()> {
    let url = normalize_url(url)?;
    let url = url.as_str();
    let mut events = page.events(NAV_EVENTS);
    let r = match page
        .call_timeout("Page.navigate", json!({ "url": url }), call.remaining())
        .await
    {
        Ok(r) => r,
        Err(CdpError::Timeout { .. }) => {
            let _ = page
                .call_timeout("Page.stopLoading", json!({}), Duration::from_secs(2))
                .await;
            return Err(call.timeout(what));
        }
        Err(CdpError::Protocol { message, .. }) => {
            return Err(CliError::NavigationFailed {
                url: url.to_string(),
                reason: message,
            });
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(err) = r["errorText"].as_str().filter(|s| !s.is_empty()) {
        return Err(CliError::NavigationFailed {
            url: url.to_string(),
            reason: err.to_string(),
        });
    }
    if r["loaderId"].is_null() {
        return Ok(()); // same-document navigation
    }
    let res = wait_loaded(page, &mut events, call, what).await;
    if res.is_err() {
        let _ = page
            .call_timeout("Page.stopLoading", json!({}), Duration::from_secs(2))
            .await;
    }
    res
}

/// Drops the history of a freshly opened tab (its initial `about:blank` entry), so `back` from
/// the first page it loaded has nowhere to go, as in a browser tab opened on that page.
pub(crate) async fn forget_history(page: &Session, call: &Call) -> Result<()> {
    page.call_timeout(
        "Page.resetNavigationHistory",
        json!({}),
        bounded(call, Duration::from_secs(5)),
    )
    .await?;
    Ok(())
}

/// Which history move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HistoryMove {
    Back,
    Forward,
    Reload,
}

/// Goes back/forward/reloads and waits for the load. Returns false when there was nowhere to go.
pub(crate) async fn history(
    page: &Session,
    main_frame: &str,
    mv: HistoryMove,
    call: &Call,
    what: &str,
) -> Result<bool> {
    let mut events = page.events(NAV_EVENTS);
    match mv {
        HistoryMove::Reload => {
            page.call_timeout(
                "Page.reload",
                json!({}),
                bounded(call, Duration::from_secs(10)),
            )
            .await?;
        }
        HistoryMove::Back | HistoryMove::Forward => {
            let h = page
                .call_timeout(
                    "Page.getNavigationHistory",
                    json!({}),
                    bounded(call, Duration::from_secs(5)),
                )
                .await?;
            let current = h["currentIndex"].as_i64().unwrap_or(0);
            let target = if mv == HistoryMove::Back {
                current - 1
            } else {
                current + 1
            };
            let entries = h["entries"].as_array().cloned().unwrap_or_default();
            let Some(entry) = usize::try_from(target).ok().and_then(|i| entries.get(i)) else {
                return Ok(false);
            };
            let Some(id) = entry["id"].as_i64() else {
                return Ok(false);
            };
            page.call_timeout(
                "Page.navigateToHistoryEntry",
                json!({ "entryId": id }),
                bounded(call, Duration::from_secs(10)),
            )
            .await?;
        }
    }
    wait_committed(&mut events, main_frame, call, what).await?;
    wait_loaded(page, &mut events, call, what).await?;
    Ok(true)
}

/// The result of `browser eval`.
#[derive(Debug, Clone)]
pub(crate) struct EvalValue {
    pub value: Value,
    pub kind: String,
    pub preview: String,
}

/// Evaluates page script (promises awaited). TIMEOUT terminates the script so the tab stays usable.
pub(crate) async fn evaluate(
    page: &Session,
    code: &str,
    call: &Call,
    what: &str,
) -> Result<EvalValue> {
    // By reference first: the script runs exactly once, then objects are fetched by value.
    let params = json!({
        "expression": code,
        "awaitPromise": true,
        "returnByValue": false,
        "userGesture": true,
        "objectGroup": "actionbook-eval",
    });
    let r = match page
        .call_timeout("Runtime.evaluate", params, call.remaining())
        .await
    {
        Ok(r) => r,
        Err(CdpError::Timeout { .. }) => {
            let _ = page
                .call_timeout(
                    "Runtime.terminateExecution",
                    json!({}),
                    Duration::from_secs(5),
                )
                .await;
            return Err(call.timeout(what));
        }
        Err(e) => return Err(e.into()),
    };
    if r.get("exceptionDetails").is_none_or(Value::is_null)
        && let Some(object_id) = r["result"]["objectId"].as_str()
    {
        let obj = &r["result"];
        let described = |obj: &Value| {
            let d = obj["description"]
                .as_str()
                .or_else(|| obj["className"].as_str())
                .unwrap_or_default()
                .to_string();
            EvalValue {
                value: Value::String(d.clone()),
                kind: obj["type"].as_str().unwrap_or("object").to_string(),
                preview: d,
            }
        };
        let value = if obj["subtype"].as_str() == Some("node")
            || matches!(obj["type"].as_str(), Some("function" | "symbol"))
        {
            described(obj)
        } else {
            match page
                .call_timeout(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": object_id,
                        "functionDeclaration": "function() { return this; }",
                        "returnByValue": true,
                    }),
                    call.remaining().max(Duration::from_secs(2)),
                )
                .await
            {
                Ok(v) if v.get("exceptionDetails").is_none_or(Value::is_null) => {
                    eval_value(&v["result"])
                }
                // Not serialisable (window, cyclic): describe it.
                _ => described(obj),
            }
        };
        let _ = page
            .call_timeout(
                "Runtime.releaseObjectGroup",
                json!({ "objectGroup": "actionbook-eval" }),
                Duration::from_secs(2),
            )
            .await;
        return Ok(value);
    }
    if let Some(ex) = r.get("exceptionDetails").filter(|e| !e.is_null()) {
        return Err(eval_error(ex));
    }
    Ok(eval_value(&r["result"]))
}

fn eval_error(ex: &Value) -> CliError {
    let exception = &ex["exception"];
    let description = exception["description"]
        .as_str()
        .map(str::to_string)
        .or_else(|| exception["value"].as_str().map(|s| format!("Uncaught {s}")))
        .or_else(|| ex["text"].as_str().map(str::to_string))
        .unwrap_or_else(|| "script threw".to_string());
    let message = description
        .lines()
        .next()
        .unwrap_or("script threw")
        .to_string();
    CliError::EvalFailed {
        message,
        details: Some(json!({
            "error_type": exception["className"].as_str(),
            "stack": description,
            "line_number": ex["lineNumber"],
            "column_number": ex["columnNumber"],
        })),
    }
}

/// Turns a by-value RemoteObject into `{value, type, preview}`.
pub(crate) fn eval_value(obj: &Value) -> EvalValue {
    let kind = obj["type"].as_str().unwrap_or("undefined");
    let subtype = obj["subtype"].as_str();
    if let Some(u) = obj["unserializableValue"].as_str() {
        return EvalValue {
            value: Value::String(u.to_string()),
            kind: kind.to_string(),
            preview: u.to_string(),
        };
    }
    match (kind, subtype) {
        ("undefined", _) => EvalValue {
            value: Value::Null,
            kind: "undefined".into(),
            preview: "undefined".into(),
        },
        ("object", Some("null")) => EvalValue {
            value: Value::Null,
            kind: "null".into(),
            preview: "null".into(),
        },
        ("string", _) => {
            let s = obj["value"].as_str().unwrap_or_default().to_string();
            EvalValue {
                value: Value::String(s.clone()),
                kind: "string".into(),
                preview: s,
            }
        }
        ("function", _) => {
            let d = obj["description"].as_str().unwrap_or_default().to_string();
            EvalValue {
                value: Value::String(d.clone()),
                kind: "function".into(),
                preview: d,
            }
        }
        _ => {
            let v = obj.get("value").cloned().unwrap_or(Value::Null);
            let preview = serde_json::to_string(&v).unwrap_or_default();
            EvalValue {
                value: v,
                kind: kind.to_string(),
                preview,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_as_the_reference_reads_them() {
        let n = |u: &str| normalize_url(u).map_err(|e| e.to_string());
        assert_eq!(
            n("http://127.0.0.1:8/p").as_deref(),
            Ok("http://127.0.0.1:8/p")
        );
        assert_eq!(n("HTTP://x/").as_deref(), Ok("HTTP://x/"));
        assert_eq!(n("file:///tmp/a.html").as_deref(), Ok("file:///tmp/a.html"));
        assert_eq!(n("about:blank").as_deref(), Ok("about:blank"));
        assert_eq!(n("chrome://version").as_deref(), Ok("chrome://version"));
        assert_eq!(n(" example.com/x ").as_deref(), Ok("https://example.com/x"));
        assert_eq!(
            n("localhost:3000/a").as_deref(),
            Ok("https://localhost:3000/a")
        );
        assert_eq!(n("127.0.0.1:8080").as_deref(), Ok("https://127.0.0.1:8080"));
        assert_eq!(n("//host/p").as_deref(), Ok("https://host/p"));
        assert_eq!(n("notaurl").as_deref(), Ok("https://notaurl"));
        for bad in [
            "javascript:alert(1)",
            "JavaScript:1",
            "data:text/html,<b>x</b>",
            "vbscript:x",
        ] {
            assert!(
                n(bad).is_err_and(|e| e.contains("dangerous URL protocol blocked")),
                "{bad}"
            );
        }
        assert!(n("  ").is_err());
    }

    proptest::proptest! {
        /// Whatever is accepted comes out with a scheme, and reading it again changes nothing.
        #[test]
        fn normalized_urls_have_a_scheme_and_are_stable(input in "\\PC{0,40}") {
            if let Ok(url) = normalize_url(&input) {
                proptest::prop_assert!(url.contains(':'), "{url}");
                proptest::prop_assert_eq!(normalize_url(&url).ok(), Some(url.clone()));
            }
        }
    }

    #[test]
    fn eval_values() {
        let v = eval_value(&json!({"type": "number", "value": 3, "description": "3"}));
        assert_eq!((v.kind.as_str(), v.preview.as_str()), ("number", "3"));
        let v = eval_value(&json!({"type": "object", "value": {"a": 1, "b": [1, 2]}}));
        assert_eq!(v.preview, r#"{"a":1,"b":[1,2]}"#);
        let v = eval_value(&json!({"type": "string", "value": "Fixture Home"}));
        assert_eq!(v.preview, "Fixture Home");
        let v = eval_value(&json!({"type": "undefined"}));
        assert_eq!(
            (v.kind.as_str(), v.value.clone()),
            ("undefined", Value::Null)
        );
        let v = eval_value(&json!({"type": "number", "unserializableValue": "NaN"}));
        assert_eq!(v.preview, "NaN");
        let v = eval_value(&json!({"type": "object", "subtype": "null", "value": null}));
        assert_eq!(v.kind, "null");
    }

    #[test]
    fn eval_error_uses_first_line() {
        let e = eval_error(&json!({
            "text": "Uncaught",
            "exception": {"className": "Error", "description": "Error: boom\n    at <anonymous>:1:7"}
        }));
        assert_eq!(e.to_string(), "Error: boom");
        assert_eq!(e.code(), envelope::ErrorCode::EvalFailed);
    }

    #[test]
    fn own_pid_is_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(u32::MAX - 1));
    }
}
