//! `browser start`, `list-sessions`, `status`, `close`, `restart`.

use std::sync::Arc;
use std::time::Duration;

use crate::args::{self, Mode};
use crate::browser::{self, Live};
use crate::engine::{Call, Done, Engine, GlobalCommand, SessionCommand, SessionSlot};
use crate::error::{CliError, Result};
use crate::output::Context;
use crate::state::{self, SessionRecord, SessionStatus, TabRecord};
use envelope::{
    BrowserMode, Capabilities, CloseData, RestartData, SessionInfo, SessionListData, SessionState,
    StartData, StatusData, TabInfo,
};

use super::tabs::tab_info;

fn mode_of(m: Mode) -> BrowserMode {
    match m {
        Mode::Local => BrowserMode::Local,
        Mode::Extension => BrowserMode::Extension,
        Mode::Cloud => BrowserMode::Cloud,
    }
}

fn state_of(s: SessionStatus) -> SessionState {
    match s {
        SessionStatus::Running => SessionState::Running,
        SessionStatus::Crashed => SessionState::Crashed,
        SessionStatus::Closed => SessionState::Closed,
    }
}

fn session_info(slot: &SessionSlot) -> SessionInfo {
    let rec = slot.record();
    SessionInfo {
        session_id: rec.session_id.clone(),
        mode: mode_of(rec.mode),
        status: state_of(slot.observed_status()),
        headless: rec.headless,
        tabs_count: Some(rec.tabs.len() as u64),
        cdp_endpoint: None,
    }
}

fn env_flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// Reads `ACTIONBOOK_BROWSER_HEADLESS` (true/false/1/0).
pub(crate) fn headless_from_env() -> Option<bool> {
    std::env::var("ACTIONBOOK_BROWSER_HEADLESS")
        .ok()
        .and_then(|v| env_flag(&v))
}

fn parse_headers(raw: &[String]) -> Result<Vec<(String, String)>> {
    raw.iter()
        .map(|h| {
            let (k, v) = h.split_once(':').ok_or_else(|| {
                CliError::InvalidArgument(format!("invalid header '{h}': expected KEY:VALUE"))
            })?;
            let k = k.trim();
            if k.is_empty() {
                return Err(CliError::InvalidArgument(format!(
                    "invalid header '{h}': empty name"
                )));
            }
            Ok((k.to_string(), v.trim().to_string()))
        })
        .collect()
}

fn start_data(rec: &SessionRecord, tab: TabInfo, reused: bool) -> StartData {
    StartData {
        session: SessionInfo {
            session_id: rec.session_id.clone(),
            mode: mode_of(rec.mode),
            status: SessionState::Running,
            headless: rec.headless,
            tabs_count: None,
            cdp_endpoint: Some(rec.cdp_endpoint.clone()),
        },
        tab,
        reused,
    }
}

fn tab_context(sid: &str, tab: &TabInfo) -> Context {
    Context {
        session_id: sid.to_string(),
        tab_id: Some(tab.tab_id.clone()),
        window_id: None,
        url: Some(tab.url.clone()),
        title: Some(tab.title.clone()),
    }
}

/// Opens (or adopts) the first tab of a fresh browser and loads `open_url` in it.
async fn first_tab(
    slot: &Arc<SessionSlot>,
    live: &Live,
    open_url: Option<&str>,
    warnings: &mut Vec<String>,
    call: &Call,
) -> Result<TabInfo> {
    let targets = browser::page_targets(live, call).await?;
    let target = match targets.into_iter().next() {
        Some(t) => t,
        None => {
            let id = browser::create_target(live, false, call).await?;
            browser::PageTarget {
                target_id: id,
                url: "about:blank".into(),
                title: String::new(),
                opener_id: None,
            }
        }
    };
    // The first window is w0 (an endpoint without the Browser domain leaves it unknown).
    let native_window = browser::window_of_target(live, &target.target_id, call)
        .await
        .ok();
    let tab_id = slot.update(|r| {
        let id = r.alloc_tab_id();
        let window_id = native_window.map(|n| r.window_for_native(n));
        r.tabs.push(TabRecord {
            tab_id: id.clone(),
            target_id: target.target_id.clone(),
            url: target.url.clone(),
            title: target.title.clone(),
            window_id,
        });
        id
    })?;
    let mut info = TabInfo {
        tab_id: tab_id.clone(),
        url: target.url.clone(),
        title: target.title.clone(),
        native_tab_id: Some(target.target_id.clone().into()),
    };
    let (url, title) = load_in_tab(slot, live, &tab_id, open_url, true, warnings, call).await?;
    info.url = url;
    info.title = title;
    Ok(info)
}

/// Loads `open_url` (if any) in a tab, under its queue, and returns the tab's URL and title. A
/// failed load is a warning: the session exists and is usable. `fresh`: the tab was just opened,
/// so its initial about:blank history entry is dropped.
async fn load_in_tab(
    slot: &Arc<SessionSlot>,
    live: &Live,
    tab_id: &str,
    open_url: Option<&str>,
    fresh: bool,
    warnings: &mut Vec<String>,
    call: &Call,
) -> Result<(String, String)> {
    let slot_tab = slot.tab_slot(tab_id).ok_or_else(|| CliError::TabNotFound {
        session: slot.id.clone(),
        tab: tab_id.to_string(),
    })?;
    let mut state = tokio::time::timeout(call.remaining(), slot_tab.state.lock())
        .await
        .map_err(|_| call.timeout("browser start"))?;
    let page = browser::tab_session(slot, tab_id, &mut state, live, call, true).await?;
    if let Some(url) = open_url {
        match browser::navigate(&page, url, call, "browser start").await {
            Ok(()) if fresh => browser::forget_history(&page, call).await?,
            Ok(()) => {}
            Err(e @ (CliError::NavigationFailed { .. } | CliError::Timeout { .. })) => {
                warnings.push(format!("--open-url: {e}"));
            }
            Err(e) => return Err(e),
        }
        // The page changed under the tab's ref table and URL/title checks.
        state.info_trusted = false;
        state.forget_refs(&slot.dir, tab_id);
    }
    let (url, title) = browser::page_info(&page, call).await?;
    slot.update(|r| {
        if let Some(t) = r.tabs.iter_mut().find(|t| t.tab_id == tab_id) {
            t.url.clone_from(&url);
            t.title.clone_from(&title);
        }
    })?;
    Ok((url, title))
}

impl GlobalCommand for args::Start {
    type Data = StartData;

    async fn run(self, engine: &Engine, call: &Call) -> Result<Done<StartData>> {
        if let Some(url) = &self.open_url {
            browser::normalize_url(url)?; // refused before a browser is started
        }
        let mode = self.mode.unwrap_or(if self.cdp_endpoint.is_some() {
            Mode::Cloud
        } else {
            Mode::Local
        });
        if let Some(id) = &self.set_session_id
            && !state::valid_session_id(id)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid session id '{id}': must match ^[a-z][a-z0-9_-]{{1,63}}$"
            )));
        }
        if let Some(p) = &self.profile
            && !state::valid_profile_name(p)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid profile name '{p}': use letters, digits, '.', '_' or '-'"
            )));
        }
        if mode == Mode::Extension {
            return Err(CliError::Unsupported(
                "extension mode is not supported yet; use --mode local, or --cdp-endpoint to attach to a running browser".into(),
            ));
        }
        if mode == Mode::Cloud && self.cdp_endpoint.is_none() {
            return Err(CliError::InvalidArgument(
                "--mode cloud needs --cdp-endpoint <ws:// or http:// URL> of the remote browser"
                    .into(),
            ));
        }
        let headers = parse_headers(&self.headers)?;
        let mut warnings = Vec::new();
        if !headers.is_empty() && self.cdp_endpoint.is_none() {
            warnings.push("--header is only used with --cdp-endpoint; ignored".to_string());
        }

        let _creating = tokio::time::timeout(call.remaining(), engine.creating())
            .await
            .map_err(|_| call.timeout("browser start"))?;

        // Attach to an existing session.
        if let Some(id) = &self.set_session_id
            && let Some(slot) = engine.session(id)
        {
            let rec = slot.record();
            if let Some(p) = &self.profile
                && rec.profile.as_deref() != Some(p.as_str())
            {
                let bound = rec.profile.as_deref().unwrap_or("(its own)");
                return Err(CliError::InvalidArgument(format!(
                    "session '{id}' is bound to profile '{bound}' but --profile '{p}' was passed; omit --profile to reuse the session"
                )));
            }
            let live = slot.connect(call).await?;
            let first = rec
                .tabs
                .first()
                .cloned()
                .ok_or_else(|| CliError::internal("session has no tabs"))?;
            let mut tab = tab_info(&first);
            if self.open_url.is_some() {
                let (url, title) = load_in_tab(
                    &slot,
                    &live,
                    &first.tab_id,
                    self.open_url.as_deref(),
                    false,
                    &mut warnings,
                    call,
                )
                .await?;
                tab.url = url;
                tab.title = title;
            } else if let Some(t) = browser::page_targets(&live, call)
                .await?
                .into_iter()
                .find(|t| t.target_id == first.target_id)
            {
                tab.url = t.url;
                tab.title = t.title;
            }
            let mut cx = tab_context(id, &tab);
            cx.window_id = rec.context_window(&first.tab_id);
            let mut done = Done::with_context(start_data(&rec, tab, true), cx);
            done.warnings = warnings;
            return Ok(done);
        }

        let (session_id, auto_number) = match &self.set_session_id {
            Some(id) => (id.clone(), None),
            None => {
                let (id, n) = engine.peek_session_id()?;
                (id, Some(n))
            }
        };
        let headless = self
            .headless
            .or(self.env_headless)
            .or_else(headless_from_env)
            .unwrap_or(false);

        let (record, live, owned) = if let Some(endpoint) = &self.cdp_endpoint {
            let (conn, ws) = tokio::time::timeout(
                call.remaining().min(Duration::from_secs(10)),
                crate::cdp::connect(endpoint, &headers),
            )
            .await
            .map_err(|_| call.timeout("connecting to --cdp-endpoint"))??;
            let record = SessionRecord {
                session_id: session_id.clone(),
                mode,
                profile: None,
                profile_named: false,
                profile_dir: None,
                headless,
                launched: false,
                browser_pid: None,
                cdp_endpoint: ws,
                user_endpoint: Some(endpoint.clone()),
                headers,
                executable: None,
                status: SessionStatus::Running,
                tabs: Vec::new(),
                next_tab: 1,
                windows: Vec::new(),
                next_window: 0,
            };
            (
                record,
                Live {
                    conn,
                    generation: 1,
                },
                None,
            )
        } else {
            let (profile, named) = match &self.profile {
                Some(p) => (p.clone(), true),
                None => (format!("session-{session_id}"), false),
            };
            if let Some(holder) = engine.sessions().into_iter().find(|s| {
                let r = s.record();
                r.profile.as_deref() == Some(profile.as_str())
                    && s.observed_status() == SessionStatus::Running
            }) {
                return Err(CliError::ProfileInUse {
                    profile,
                    session: holder.id.clone(),
                });
            }
            let profile_dir = engine.home().profile_dir(&profile);
            state::ensure_private_dir(&profile_dir)?;
            let executable = self
                .env_executable
                .clone()
                .filter(|s| !s.is_empty())
                .or_else(|| {
                    std::env::var("ACTIONBOOK_BROWSER_EXECUTABLE_PATH")
                        .ok()
                        .filter(|s| !s.is_empty())
                });
            let launched = match browser::launch(
                executable.clone().map(Into::into),
                headless,
                profile_dir.clone(),
                1,
            )
            .await
            {
                Ok(l) => l,
                Err(e) => {
                    if !named {
                        let _ = std::fs::remove_dir_all(&profile_dir);
                    }
                    return Err(e);
                }
            };
            let record = SessionRecord {
                session_id: session_id.clone(),
                mode,
                profile: Some(profile),
                profile_named: named,
                profile_dir: Some(profile_dir.clone()),
                headless,
                launched: true,
                browser_pid: launched.pid,
                cdp_endpoint: launched.ws_url.clone(),
                user_endpoint: None,
                headers: Vec::new(),
                executable,
                status: SessionStatus::Running,
                tabs: Vec::new(),
                next_tab: 1,
                windows: Vec::new(),
                next_window: 0,
            };
            (record, launched.live, Some(launched.browser))
        };

        if let Some(n) = auto_number {
            engine.commit_session_id(n)?;
        }
        let slot = engine.new_session_slot(record)?;
        slot.generations
            .store(live.generation, std::sync::atomic::Ordering::SeqCst);
        slot.set_live(Some(live.clone()));
        slot.set_owned(owned);
        engine.insert_session(slot.clone());
        let tab = match first_tab(&slot, &live, self.open_url.as_deref(), &mut warnings, call).await
        {
            Ok(t) => t,
            Err(e) => {
                let _ = teardown(engine, &slot).await;
                return Err(e);
            }
        };
        let rec = slot.record();
        let cx = tab_context(&session_id, &tab);
        let mut done = Done::with_context(start_data(&rec, tab, false), cx);
        done.warnings = warnings;
        Ok(done)
    }
}

impl GlobalCommand for args::ListSessions {
    type Data = SessionListData;

    async fn run(self, engine: &Engine, _call: &Call) -> Result<Done<SessionListData>> {
        let sessions: Vec<SessionInfo> =
            engine.sessions().iter().map(|s| session_info(s)).collect();
        Ok(Done::data(SessionListData {
            total_sessions: sessions.len() as u64,
            sessions,
        }))
    }
}

/// Records as new tabs the pages our tabs opened (`window.open`, `target=_blank` links), and the
/// pages those opened, in the browser's order; each in its opener's window.
fn adopt_popups(r: &mut SessionRecord, targets: &[browser::PageTarget]) {
    loop {
        let popup = targets.iter().find_map(|p| {
            let opener = r
                .tabs
                .iter()
                .find(|t| Some(&t.target_id) == p.opener_id.as_ref())?;
            let known = r.tabs.iter().any(|t| t.target_id == p.target_id);
            (!known).then(|| (p.clone(), opener.window_id.clone()))
        });
        let Some((p, window_id)) = popup else { return };
        let tab_id = r.alloc_tab_id();
        r.tabs.push(TabRecord {
            tab_id,
            target_id: p.target_id,
            url: p.url,
            title: p.title,
            window_id,
        });
    }
}

/// Refreshes the tabs' url/title from the browser (best effort), records the pages our tabs
/// opened as new tabs, and returns them.
pub(crate) async fn refresh_tabs(slot: &Arc<SessionSlot>, call: &Call) -> Vec<TabInfo> {
    if let Some(live) = slot.live()
        && let Ok(targets) = browser::page_targets(&live, call).await
    {
        {
            let _ = slot.update(|r| {
                r.tabs
                    .retain(|t| targets.iter().any(|p| p.target_id == t.target_id));
                for t in &mut r.tabs {
                    if let Some(p) = targets.iter().find(|p| p.target_id == t.target_id) {
                        t.url = p.url.clone();
                        t.title = p.title.clone();
                    }
                }
                adopt_popups(r, &targets);
            });
        }
    }
    slot.record().tabs.iter().map(tab_info).collect()
}

impl SessionCommand for args::Status {
    type Data = StatusData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(
        self,
        _engine: &Engine,
        slot: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<StatusData>> {
        // Probe the browser so a crash shows up as `crashed` (best effort).
        let _ = slot.connect(call).await;
        let tabs = refresh_tabs(slot, call).await;
        Ok(Done::data(StatusData {
            session: session_info(slot),
            tabs,
            capabilities: Capabilities {
                snapshot: true,
                pdf: false,
                upload: false,
            },
        }))
    }
}

/// Closes the session's browser (or detaches from one we only connected to) and forgets the session.
pub(crate) async fn teardown(engine: &Engine, slot: &Arc<SessionSlot>) -> usize {
    let rec = slot.record();
    let tabs = rec.tabs.len();
    shutdown_browser(slot, &rec).await;
    engine.remove_session(&slot.id);
    let _ = std::fs::remove_dir_all(&slot.dir);
    if rec.launched
        && !rec.profile_named
        && let Some(p) = &rec.profile
    {
        let _ = std::fs::remove_dir_all(engine.home().profile_dir(p));
    }
    tabs
}

/// Stops the browser of a session we launched (Browser.close, then kill and reap by pid).
async fn shutdown_browser(slot: &Arc<SessionSlot>, rec: &SessionRecord) {
    if let Some(b) = slot.take_owned() {
        let _ = tokio::time::timeout(Duration::from_secs(10), b.close()).await;
    } else if rec.launched {
        // Launched by an earlier daemon: ask it to close over CDP (re-connecting if need be).
        let live = match slot.live() {
            Some(l) => Some(l),
            None if rec.browser_pid.is_some_and(browser::pid_alive) => {
                let call = Call::with_timeout(2_000);
                slot.connect(&call).await.ok()
            }
            None => None,
        };
        if let Some(live) = live {
            let _ = live
                .browser()
                .call_timeout(
                    "Browser.close",
                    serde_json::json!({}),
                    Duration::from_secs(3),
                )
                .await;
        }
    }
    if rec.launched {
        if let Some(pid) = rec.browser_pid {
            browser::ensure_exited(pid, Duration::from_secs(3)).await;
        }
        // Helpers (renderers, zygote) that outlived their browser still name its profile.
        if let Some(p) = &rec.profile_dir {
            browser::kill_profile_processes(p);
        }
    }
    slot.set_live(None);
    slot.drop_all_tab_slots();
}

impl GlobalCommand for args::Close {
    type Data = CloseData;

    async fn run(self, engine: &Engine, call: &Call) -> Result<Done<CloseData>> {
        let sid = self.target.session.clone();
        let cx = Context::session(&sid);
        let Some(slot) = engine.session(&sid) else {
            let mut done = Done::with_context(
                CloseData {
                    session_id: sid,
                    status: SessionState::Closed,
                    closed_tabs: 0,
                },
                cx,
            );
            done.warnings
                .push("session not found — already closed".to_string());
            return Ok(done);
        };
        let _ops = tokio::time::timeout(call.remaining(), slot.ops.lock())
            .await
            .map_err(|_| call.timeout("browser close"))?;
        let closed_tabs = teardown(engine, &slot).await;
        Ok(Done::with_context(
            CloseData {
                session_id: sid,
                status: SessionState::Closed,
                closed_tabs: closed_tabs as u64,
            },
            cx,
        ))
    }
}

impl SessionCommand for args::Restart {
    type Data = RestartData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(
        self,
        engine: &Engine,
        slot: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<RestartData>> {
        let _ops = tokio::time::timeout(call.remaining(), slot.ops.lock())
            .await
            .map_err(|_| call.timeout("browser restart"))?;
        let rec = slot.record();
        shutdown_browser(slot, &rec).await;
        let generation = slot.next_generation();
        let (live, pid, ws, owned) = if rec.launched {
            let profile = rec
                .profile
                .clone()
                .unwrap_or_else(|| format!("session-{}", rec.session_id));
            let dir = rec
                .profile_dir
                .clone()
                .unwrap_or_else(|| engine.home().profile_dir(&profile));
            state::ensure_private_dir(&dir)?;
            let l = browser::launch(
                rec.executable.clone().map(Into::into),
                rec.headless,
                dir,
                generation,
            )
            .await?;
            (l.live, l.pid, l.ws_url, Some(l.browser))
        } else {
            let endpoint = rec
                .user_endpoint
                .clone()
                .unwrap_or(rec.cdp_endpoint.clone());
            let (conn, ws) = tokio::time::timeout(
                call.remaining().min(Duration::from_secs(10)),
                crate::cdp::connect(&endpoint, &rec.headers),
            )
            .await
            .map_err(|_| call.timeout("browser restart"))??;
            (Live { conn, generation }, None, ws, None)
        };
        // Old refs and tabs belong to the old browser.
        for t in &rec.tabs {
            let _ = std::fs::remove_file(slot.dir.join(format!("refs-{}.json", t.tab_id)));
        }
        slot.update(|r| {
            r.browser_pid = pid;
            r.cdp_endpoint = ws;
            r.status = SessionStatus::Running;
            r.tabs.clear();
            r.next_tab = 1;
            // A new browser: its windows start again at w0, like its tabs at t1.
            r.windows.clear();
            r.next_window = 0;
        })?;
        slot.set_live(Some(live.clone()));
        slot.set_owned(owned);
        let tab = first_tab(slot, &live, None, &mut Vec::new(), call).await?;
        Ok(Done::with_context(
            RestartData {
                session: session_info(slot),
                reopened: true,
            },
            Context::tab(&slot.id, &tab.tab_id),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse() {
        let h = parse_headers(&["Authorization: Bearer x".to_string()]).unwrap_or_default();
        assert_eq!(
            h,
            vec![("Authorization".to_string(), "Bearer x".to_string())]
        );
        assert!(parse_headers(&["nocolon".to_string()]).is_err());
        assert!(parse_headers(&[":v".to_string()]).is_err());
    }

    #[test]
    fn env_flags() {
        assert_eq!(env_flag("1"), Some(true));
        assert_eq!(env_flag("False"), Some(false));
        assert_eq!(env_flag("maybe"), None);
    }
}
