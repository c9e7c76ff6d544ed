//! Browser lifecycle (spec 7): `browser start`, `list-sessions`, `status`, `close`, `restart`.
//!
//! Over a thousand lines: `start`'s checks and its undo, `close`, `restart` and the recovery of
//! interrupted ones share the intent records and are read together; the remote half of `start`
//! (`--cdp-endpoint`, `--provider`) is in `remote_start.rs`.

use std::sync::Arc;

use envelope::{
    Capabilities, CloseData, RestartData, SessionInfo, SessionListData, StartData, StatusData,
    TabInfo,
};
use serde::{Deserialize, Serialize};

use super::remote_start::{Reach, own_context, stop_provider};
use super::{Cx, GlobalCommand, SessionCommand};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::{self, Mode, SessionStatus, SessionTarget};
use crate::page::{eval, navigation};
use crate::policy_actions::ActionPolicy;
use crate::reply::Done;
use crate::session::BrowserConn;
use crate::session::connect::connect_endpoint;
use crate::session::context::{self, TabContext};
use crate::session::endpoint;
use crate::session::launch::{
    self, Keep, forget_session, remove_session_files, shutdown_browser, teardown,
};
use crate::session::process::end_launched;
use crate::session::targets::{self, PageTarget, refresh_tabs};
use crate::store::state_file::StorageState;
use crate::store::{self, Intent, SessionRecord, TabRecord, artifacts};
use crate::tab::services::network;
use crate::tab::{BrowserSession, Sessions, attach};
use crate::{fault, model::ClientEnv};
use cdp_protocol::Browser;
use envelope::Context;
use std::path::Path;

/// `browser start`: create (or attach to) a session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Start {
    /// Browser mode.
    #[cfg_attr(feature = "cli", arg(long, value_parser = model::mode_parser()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "model::mode_schema")]
    pub mode: Option<Mode>,
    /// Run the browser headless: `--headless`, `--headless true|false` (default from
    /// ACTIONBOOK_BROWSER_HEADLESS, else false).
    #[cfg_attr(
        feature = "cli",
        arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headless: Option<bool>,
    /// Profile name (a persistent user-data directory under $ACTIONBOOK_HOME/profiles).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Load this URL in the first tab before answering.
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_url: Option<String>,
    /// Connect to an existing browser (http://host:port or ws://...) instead of launching one.
    #[cfg_attr(feature = "cli", arg(long, value_name = "URL"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp_endpoint: Option<String>,
    /// Drive the browser's existing tabs (its default context, shared with whoever else uses it)
    /// instead of a browser context of the session's own. Only with --cdp-endpoint. By default a
    /// session on a browser behind --cdp-endpoint gets its own context (`Target.createBrowserContext`):
    /// its own tabs, cookies and storage, so several sessions on one browser do not see or drive
    /// one another's tabs; `close` disposes that context and leaves the browser running. With this
    /// flag the first tab is the browser's first existing page, and `close` leaves its tabs open.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub attach_existing: bool,
    /// Get the browser from a provider's API instead of --cdp-endpoint: `hyperbrowser`
    /// (HYPERBROWSER_API_KEY; ACTIONBOOK_HYPERBROWSER_API_URL overrides its API's address) or one
    /// config.toml names as `[providers.<name>]` (create_url, method, headers with `${VAR}`,
    /// body, ws_pointer, id_pointer, stop_url with `{id}`, stop_method). `close` stops the
    /// provider's session. Keys are read from the environment, never printed or recorded.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "NAME", conflicts_with = "cdp_endpoint")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Trust the CA certificates of this PEM file (besides the built-in web roots) for a
    /// wss:// or https:// --cdp-endpoint (a private pool's own CA). Kept with the session.
    /// HTTPS_PROXY / HTTP_PROXY / NO_PROXY of this command's environment are honoured too
    /// (an HTTP CONNECT tunnel for ws:// and wss://), and kept likewise.
    #[cfg_attr(feature = "cli", arg(long, value_name = "PEM"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    /// Header sent when connecting to --cdp-endpoint (repeatable).
    #[cfg_attr(feature = "cli", arg(long = "header", value_name = "KEY:VALUE"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
    /// Semantic session id (`^[a-z][a-z0-9_-]{1,63}$`); attaches when it exists. `--session` is
    /// the same (the reference CLI's "get or create" spelling).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "SID", visible_alias = "session")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_session_id: Option<String>,
    /// Window size `WxH` of a launched browser (beyond the spec); a headless session's viewport
    /// is exactly this size (default 1280x720).
    #[cfg_attr(feature = "cli", arg(long, value_name = "WxH"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_size: Option<String>,
    /// How many finished requests each tab's network recorder keeps (beyond the spec; the
    /// reference CLI's default is 500); older ones are dropped and counted. 0 turns recording
    /// off: pages load without Chromium's Network domain (faster on pages with many requests),
    /// and `network requests|request|har` and `wait network-idle` are unavailable.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tracked_requests: Option<usize>,
    /// Start from the auth state in this file (written by `browser storage-state save`, or
    /// Playwright's storageState JSON; beyond the spec): its cookies and each origin's
    /// localStorage and sessionStorage are in the new session before its first tab loads
    /// --open-url. An encrypted file needs ACTIONBOOK_STATE_KEY. Only for a new session.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "FILE", visible_alias = "storage-state")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Give page-made text (snapshot files, text, html, value, attr, eval values, console logs)
    /// between two marker lines, `--- ACTIONBOOK_PAGE_CONTENT nonce=<hex> ---` and
    /// `--- END_ACTIONBOOK_PAGE_CONTENT nonce=<hex> ---`, so an agent can tell the page's words
    /// from the tool's (beyond the spec). The nonce is random per session, never shown to the page,
    /// and told in this command's answer (`content_boundary`). Only for a new session.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub content_boundaries: bool,
    /// Actions that must be confirmed, comma-separated (`click,fill,upload,eval`, or groups:
    /// `all`, `input`, `pointer`, `navigate`, `state`): such a command answers
    /// CONFIRMATION_REQUIRED with what it would do and a one-time token, and runs when repeated
    /// with `--confirm <token>` (beyond the spec; default ACTIONBOOK_CONFIRM_ACTIONS, else
    /// config.toml's browser.confirm_actions). Kept with the session; a later start may add to
    /// it, never take away. Example: `actionbook browser start --confirm-actions click,fill
    /// --deny-actions eval`, then `actionbook browser click @e3 --session s1 --tab t1 --confirm
    /// <token>` with the token its first answer gave.
    #[cfg_attr(feature = "cli", arg(long, value_name = "ACTIONS"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_actions: Option<String>,
    /// Actions refused outright (ACCESS_DENIED), as --confirm-actions names them (beyond the
    /// spec; default ACTIONBOOK_DENY_ACTIONS, else config.toml's browser.deny_actions).
    #[cfg_attr(feature = "cli", arg(long, value_name = "ACTIONS"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_actions: Option<String>,
    /// A secret of the session, `name=value` (repeatable), typed where `fill`, `type` or
    /// `select` say `<<name>>` and masked as `<<name>>` in every answer and file. Kept in the
    /// daemon's memory only: after a daemon restart give it again (`browser secret set`).
    #[cfg_attr(feature = "cli", arg(long = "secret", value_name = "NAME=VALUE"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<crate::secrets::SecretArg>,
    /// A file of `name=value` secret lines (blank lines and `#` comments skipped), as --secret.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secrets_file: Option<String>,
    /// The only hosts the session's pages may reach, comma-separated (repeatable): `a.com`
    /// (that host), `*.b.com` (its subdomains), IP literals (`127.0.0.1`, `[::1]`), each with
    /// an optional `:port`. Every other request is refused in the browser (navigations, frames,
    /// subresources, fetch/XHR, workers, popups; WebSockets and WebRTC too in a browser this
    /// command launches). Default from ACTIONBOOK_ALLOWED_DOMAINS, else config.toml's
    /// `browser.allowed_domains`. Only for a new session.
    #[cfg_attr(feature = "cli", arg(long = "allowed-domains", value_name = "HOSTS"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
}

/// `browser list-sessions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ListSessions {}

/// `browser status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Status {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser close`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Close {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// Also remove the last snapshot file of each tab (kept by default, so the path the last
    /// `snapshot` reported still reads); beyond the spec.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub purge: bool,
}

/// `browser restart`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Restart {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

fn session_info(slot: &BrowserSession) -> SessionInfo {
    let rec = slot.record();
    SessionInfo {
        session_id: rec.session_id.clone(),
        mode: rec.mode,
        status: slot.observed_status(),
        headless: rec.headless,
        tabs_count: Some(rec.tabs.len() as u64),
        cdp_endpoint: None,
    }
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
            // HTTP's rules; the value is not echoed (it may be an API key).
            if !model::valid_header_name(k) {
                return Err(CliError::InvalidArgument(format!(
                    "invalid header name '{k}': letters, digits and !#$%&'*+-.^_`|~ only"
                )));
            }
            if !model::valid_header_value(v) {
                return Err(CliError::InvalidArgument(format!(
                    "invalid value of header '{k}': it has a line break or NUL"
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
            mode: rec.mode,
            status: SessionStatus::Running,
            headless: rec.headless,
            tabs_count: None,
            // Cloud endpoints carry API keys: never printed as they are.
            cdp_endpoint: Some(cdp_protocol::redact_url(&rec.cdp_endpoint)),
        },
        tab,
        reused,
        content_boundary: rec.content_boundary.clone(),
        allowed_domains: rec.allowed_domains.clone(),
        confirm_actions: rec
            .action_policy
            .as_ref()
            .map(|p| ActionPolicy::names(&p.confirm))
            .unwrap_or_default(),
        deny_actions: rec
            .action_policy
            .as_ref()
            .map(|p| ActionPolicy::names(&p.deny))
            .unwrap_or_default(),
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

/// Opens (or adopts) the first tab of a fresh browser, settles the command's intent record once
/// the tab is recorded, and loads `open_url` in it. `command` names the fault-injection steps
/// (`<command>.tab_recorded`).
async fn first_tab(
    slot: &Arc<BrowserSession>,
    conn: &BrowserConn,
    state: Option<&StorageState>,
    mut open_url: Option<&str>,
    warnings: &mut Vec<String>,
    (env, command): (&ClientEnv, &str),
    deadline: &Deadline,
) -> Result<TabInfo> {
    let page_targets = targets::page_targets(conn, deadline).await?;
    let target = match page_targets.into_iter().next() {
        Some(t) => t,
        None => {
            let id = targets::create_target(conn, false, deadline).await?;
            // Off the marker URL it was created on.
            open_url = open_url.or(Some("about:blank"));
            PageTarget {
                target_id: id,
                url: "about:blank".into(),
                title: String::new(),
                opener_id: None,
            }
        }
    };
    // The state goes in before the tab is recorded or loads anything: its first page already
    // has the cookies and storage.
    if let Some(state) = state {
        let own_tab = slot.with_record(|r| r.launched);
        let notes =
            super::storage_state::apply_at_start(conn, &target.target_id, own_tab, state, deadline)
                .await?;
        warnings.extend(notes);
    }
    // The first window is w0 (an endpoint without the Browser domain leaves it unknown).
    let native_window = targets::window_of_target(conn, &target.target_id, deadline)
        .await
        .ok();
    let tab_id = slot
        .update(|r| {
            let id = r.alloc_tab_id();
            let window_id = native_window.map(|n| r.window_for_native(n));
            r.tabs.push(TabRecord {
                tab_id: id.clone(),
                target_id: target.target_id.clone(),
                url: target.url.clone(),
                title: target.title.clone(),
                window_id,
                cursor: None,
                dialog_policy: None,
                emulation: None,
            });
            id
        })
        .await?;
    fault::step(env.abort_at.as_deref(), &format!("{command}.tab_recorded"));
    // A working session with its tab: what is left (loading a URL) is an ordinary tab command.
    store::clear_intent(&slot.dir).await?;
    let mut info = TabInfo {
        tab_id: tab_id.clone(),
        url: target.url.clone(),
        title: target.title.clone(),
        native_tab_id: Some(target.target_id.clone().into()),
    };
    let (url, title) = load_in_tab(slot, conn, &tab_id, open_url, true, warnings, deadline).await?;
    info.url = url;
    info.title = title;
    Ok(info)
}

/// Loads `open_url` (if any) in a tab, under its queue, and returns the tab's URL and title. A
/// failed load is a warning: the session exists and is usable. `fresh`: the tab was just opened,
/// so its initial about:blank history entry is dropped.
async fn load_in_tab(
    slot: &Arc<BrowserSession>,
    conn: &BrowserConn,
    tab_id: &str,
    open_url: Option<&str>,
    fresh: bool,
    warnings: &mut Vec<String>,
    deadline: &Deadline,
) -> Result<(String, String)> {
    let slot_tab = slot.tab_slot(tab_id).ok_or_else(|| CliError::TabNotFound {
        session: slot.id.clone(),
        tab: tab_id.to_string(),
    })?;
    let mut state = tokio::time::timeout(deadline.remaining(), slot_tab.state.lock())
        .await
        .map_err(|_| deadline.timeout("browser start"))?;
    let page = attach::attach(slot, tab_id, &mut state, conn, deadline, true).await?;
    if let Some(url) = open_url {
        let downloads_before = slot.downloads.begun();
        match navigation::navigate(
            &page,
            url,
            deadline,
            "browser start",
            navigation::OnTimeout::Stop,
            navigation::LoadState::Load,
            &navigation::nothing_known,
        )
        .await
        {
            Ok(()) if fresh => navigation::forget_history(&page, deadline).await?,
            Ok(()) => {}
            Err(e) if navigation::is_aborted(&e) => {
                let e = super::navigation::as_download(slot, tab_id, downloads_before, e, deadline)
                    .await;
                warnings.push(format!("--open-url: {e}"));
            }
            Err(e @ (CliError::NavigationFailed { .. } | CliError::Timeout { .. })) => {
                warnings.push(format!("--open-url: {e}"));
            }
            Err(e) => return Err(e),
        }
        // The page changed under the tab's ref table and URL/title checks.
        state.info_trusted = false;
        state.forget_refs(&slot.dir, tab_id);
    }
    let (url, title, status) = eval::page_info_status(&page, deadline).await?;
    if open_url.is_some() {
        warnings.extend(
            navigation::http_error_warning(&url, status).map(|w| format!("--open-url: {w}")),
        );
    }
    slot.update(|r| {
        if let Some(t) = r.tabs.iter_mut().find(|t| t.tab_id == tab_id) {
            t.url.clone_from(&url);
            t.title.clone_from(&title);
        }
    })
    .await?;
    Ok((url, title))
}

impl Start {
    /// Whether the browser is someone else's (--cdp-endpoint or --provider), not launched here.
    fn remote(&self) -> bool {
        self.cdp_endpoint.is_some() || self.provider.is_some()
    }

    /// Checks what can be checked before anything is started.
    fn validate(&self) -> Result<Mode> {
        if self.cdp_endpoint.is_some() && self.provider.is_some() {
            return Err(CliError::InvalidArgument(
                "--provider hands out the browser's endpoint: give it or --cdp-endpoint, not both"
                    .into(),
            ));
        }
        if let Some(url) = &self.open_url {
            navigation::normalize_url(url)?; // refused before a browser is started
        }
        let mode = self.mode.unwrap_or(if self.remote() {
            Mode::Cloud
        } else {
            Mode::Local
        });
        if let Some(id) = &self.set_session_id
            && !model::valid_session_id(id)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid session id '{id}': must match ^[a-z][a-z0-9_-]{{1,63}}$"
            )));
        }
        if let Some(p) = &self.profile
            && !model::valid_profile_name(p)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid profile name '{p}': use letters, digits, '.', '_' or '-'"
            )));
        }
        self.explicit_policy()?;
        if mode == Mode::Extension {
            return Err(CliError::Unsupported(
                "extension mode is not supported yet; use --mode local, or --cdp-endpoint to attach to a running browser".into(),
            ));
        }
        if let Some(n) = self.max_tracked_requests
            && n > network::MAX_KEPT_REQUESTS
        {
            return Err(CliError::InvalidArgument(format!(
                "--max-tracked-requests takes 0 (recording off) to {}, not {n}",
                network::MAX_KEPT_REQUESTS
            )));
        }
        if let Some(ep) = &self.cdp_endpoint {
            let usable = url::Url::parse(ep).ok().is_some_and(|u| {
                matches!(u.scheme(), "ws" | "wss" | "http" | "https") && u.host().is_some()
            });
            if !usable {
                // Not echoed: an endpoint URL may carry an API key.
                return Err(CliError::InvalidArgument(
                    "--cdp-endpoint takes a ws://, wss://, http:// or https:// URL with a host \
                     (e.g. http://127.0.0.1:9222 or ws://127.0.0.1:9222/devtools/browser/<id>)"
                        .into(),
                ));
            }
        }
        if self.attach_existing && !self.remote() {
            return Err(CliError::InvalidArgument(
                "--attach-existing is for a browser behind --cdp-endpoint (a browser this command \
                 launches has no tabs of anyone else)"
                    .into(),
            ));
        }
        if mode == Mode::Cloud && !self.remote() {
            return Err(CliError::InvalidArgument(
                "--mode cloud needs --cdp-endpoint <ws:// or http:// URL> of the remote browser"
                    .into(),
            ));
        }
        Ok(mode)
    }

    /// The policy `--confirm-actions` / `--deny-actions` name (not the environment's or the
    /// config's, which are for new sessions).
    fn explicit_policy(&self) -> Result<ActionPolicy> {
        ActionPolicy::parse(
            self.confirm_actions.as_deref(),
            self.deny_actions.as_deref(),
        )
        .map_err(CliError::InvalidArgument)
    }

    /// The policy of a new session: each list from its flag, else the caller's environment,
    /// else config.toml.
    fn new_policy(
        &self,
        env: &ClientEnv,
        config: &super::manuals::BrowserDefaults,
    ) -> Result<Option<ActionPolicy>> {
        let confirm = self
            .confirm_actions
            .as_deref()
            .or(env.confirm_actions.as_deref())
            .or(config.confirm_actions.as_deref());
        let deny = self
            .deny_actions
            .as_deref()
            .or(env.deny_actions.as_deref())
            .or(config.deny_actions.as_deref());
        let policy = ActionPolicy::parse(confirm, deny).map_err(CliError::InvalidArgument)?;
        Ok((!policy.is_empty()).then_some(policy))
    }

    /// `--set-session-id` of a session that exists: attach to it.
    async fn reuse(
        &self,
        id: &str,
        slot: Arc<BrowserSession>,
        mut warnings: Vec<String>,
        deadline: &Deadline,
    ) -> Result<Done<StartData>> {
        if let Some(file) = &self.state {
            return Err(CliError::InvalidArgument(format!(
                "session '{id}' exists: --state {file} is for a new session; load it into this one \
                 with `actionbook browser storage-state load {file} --session {id}`"
            )));
        }
        // A policy given to a live session tightens it; nothing loosens one.
        let asked = self.explicit_policy()?;
        if !asked.is_empty() {
            let before = slot
                .with_record(|r| r.action_policy.clone())
                .unwrap_or_default();
            let after = before.tightened(&asked);
            if after != before {
                slot.update(|r| r.action_policy = Some(after.clone()))
                    .await?;
            }
            if after != asked {
                warnings.push(format!(
                    "session '{id}' keeps the stricter of its policy and this one (a policy is \
                     never loosened while the session lives: close it and start again for another)"
                ));
            }
        }
        let rec = slot.record();
        if let Some(p) = &self.profile
            && rec.profile.as_deref() != Some(p.as_str())
        {
            let bound = rec.profile.as_deref().unwrap_or("(its own)");
            return Err(CliError::InvalidArgument(format!(
                "session '{id}' is bound to profile '{bound}' but --profile '{p}' was passed; omit --profile to reuse the session"
            )));
        }
        if let Some(n) = self.max_tracked_requests
            && rec.max_tracked_requests.unwrap_or(network::KEPT_REQUESTS) != n
        {
            let kept = match rec.max_tracked_requests {
                Some(0) => "records no requests".to_string(),
                k => format!("keeps {}", k.unwrap_or(network::KEPT_REQUESTS)),
            };
            warnings.push(format!(
                "--max-tracked-requests is set when a session starts; session '{id}' {kept} (ignored)"
            ));
        }
        if !self.allowed_domains.is_empty() {
            let asked = crate::allowlist::Allowlist::parse(&self.allowed_domains)
                .map_err(CliError::InvalidArgument)?
                .rules();
            if asked != rec.allowed_domains {
                let has = match rec.allowed_domains.is_empty() {
                    true => "no allowed-domains list".to_string(),
                    false => format!("--allowed-domains {}", rec.allowed_domains.join(",")),
                };
                return Err(CliError::InvalidArgument(format!(
                    "session '{id}' exists with {has}: --allowed-domains is set when a session \
                     starts; close it or start another session id"
                )));
            }
        }
        if self.content_boundaries && rec.content_boundary.is_none() {
            warnings.push(format!(
                "--content-boundaries is set when a session starts; session '{id}' has none (ignored)"
            ));
        }
        let conn = slot.connect(deadline).await?;
        let first = rec
            .tabs
            .first()
            .cloned()
            .ok_or_else(|| CliError::internal("session has no tabs"))?;
        let mut tab = TabInfo::from(&first);
        if self.open_url.is_some() {
            let (url, title) = load_in_tab(
                &slot,
                &conn,
                &first.tab_id,
                self.open_url.as_deref(),
                false,
                &mut warnings,
                deadline,
            )
            .await?;
            tab.url = url;
            tab.title = title;
        } else if let Some(t) = targets::page_targets(&conn, deadline)
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
        Ok(done)
    }
}

impl GlobalCommand for Start {
    type Data = StartData;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<StartData>> {
        let (sessions, deadline) = (cx.sessions, cx.deadline);
        let mode = self.validate()?;
        let headers = parse_headers(&self.headers)?;
        // Read and checked before anything starts: a file that cannot be used starts nothing.
        let state = match &self.state {
            Some(file) => Some(super::storage_state::read_state_file(cx.env, file).await?),
            None => None,
        };
        let ca_certs = match &self.ca_file {
            Some(_) if !self.remote() => {
                return Err(CliError::InvalidArgument(
                    "--ca-file is for a wss:// or https:// --cdp-endpoint (or --provider)".into(),
                ));
            }
            Some(f) => endpoint::read_ca_file(&cx.env.resolve_path(Path::new(f))).await?,
            None => Vec::new(),
        };
        let mut warnings = Vec::new();
        if !headers.is_empty() && !self.remote() {
            warnings.push("--header is only used with --cdp-endpoint; ignored".to_string());
        }

        let _creating = tokio::time::timeout(deadline.remaining(), sessions.creating())
            .await
            .map_err(|_| deadline.timeout("browser start"))?;

        if let Some(id) = &self.set_session_id
            && let Some(slot) = sessions.get(id)
        {
            return self.reuse(id, slot, warnings, deadline).await;
        }
        if let Some(id) = &self.set_session_id
            && let Some(bad) = sessions.unreadable_record(id)
        {
            return Err(CliError::RecordUnreadable {
                session: id.clone(),
                path: bad.path,
                reason: bad.reason,
            });
        }

        // `--profile` of a running session, no other id asked for: attach to that session
        // ("create or attach"; the reference CLI reuses it too).
        if let (Some(name), None, false) = (&self.profile, &self.set_session_id, self.remote())
            && let Some(holder) = profile_holder(sessions, &sessions.home().profile_dir(name))
        {
            let id = holder.id.clone();
            return self.reuse(&id, holder, warnings, deadline).await;
        }

        let (session_id, auto_number) = match &self.set_session_id {
            Some(id) => (id.clone(), None),
            None => {
                let (id, n) = sessions.peek_session_id()?;
                (id, Some(n))
            }
        };
        // Flags, then the caller's environment, then config.toml (`setup` writes it).
        let config = super::manuals::browser_defaults(sessions.home()).await;
        let policy = self.new_policy(cx.env, &config)?;
        warnings.extend(config.warning);
        let allowed_domains = match (&self.allowed_domains, &cx.env.allowed_domains) {
            (given, _) if !given.is_empty() => given.clone(),
            (_, Some(env)) if !env.trim().is_empty() => vec![env.clone()],
            _ => config.allowed_domains.clone().into_iter().collect(),
        };
        let allowed_domains = match allowed_domains.is_empty() {
            true => Vec::new(),
            false => crate::allowlist::Allowlist::parse(&allowed_domains)
                .map_err(CliError::InvalidArgument)?
                .rules(),
        };
        if let Some(url) = &self.open_url {
            crate::session::guard::check_navigation(&allowed_domains, url, "--open-url")?;
        }
        if !allowed_domains.is_empty() && self.remote() {
            warnings.push(
                "--allowed-domains on a browser behind --cdp-endpoint: its requests are refused \
                 through CDP (request interception) while this daemon is connected, but no launch \
                 flag can be given to a browser someone else started, so its WebSockets, WebRTC, \
                 preconnects and DNS prefetches (connections and look-ups without a request) are \
                 not contained"
                    .to_string(),
            );
        }
        let headless = self
            .headless
            .or(cx.env.browser_headless)
            .or(config.headless)
            .unwrap_or(false);
        if let (Some(h), true) = (self.headless, self.remote()) {
            warnings.push(format!(
                "--headless {h} has no effect on the browser behind --cdp-endpoint: it runs as it \
                 was started"
            ));
        }
        let window_size = match &self.window_size {
            Some(w) if self.remote() => {
                return Err(CliError::InvalidArgument(format!(
                    "--window-size {w} is for a browser this command launches, not one behind --cdp-endpoint"
                )));
            }
            Some(w) => Some(launch::parse_window_size(w)?),
            None => headless.then_some(launch::DEFAULT_WINDOW_SIZE),
        };

        // The profile of a browser we launch: checked before anything starts.
        let profile = match self.remote() {
            true => None,
            false => Some(self.pick_profile(sessions, &session_id)?),
        };
        // Before the first side effect: what to undo if this process dies before the session has
        // its first tab.
        let session_dir = sessions.home().session_dir(&session_id);
        let intent = Intent::Start {
            profile_dir: profile.as_ref().map(|p| p.dir.clone()),
            auto_profile: profile.as_ref().is_some_and(|p| !p.named),
            browser: None,
        };
        store::ensure_private_dir(&session_dir)?;
        store::write_intent(&session_dir, &intent).await?;
        fault::step(cx.env.abort_at.as_deref(), "start.intent");

        let made = match &profile {
            None => {
                let reach = Reach {
                    headers,
                    ca_certs,
                    proxy: endpoint::proxy_of(&cx.env.remote),
                };
                self.connect_new(&session_id, mode, headless, reach, cx)
                    .await
            }
            Some(p) => {
                let executable = cx.env.browser_executable.clone().or(config.executable);
                let what = (session_id.as_str(), mode, headless);
                let sizes = (window_size, allowed_domains.as_slice());
                launch_new(p, what, executable, sizes, &session_dir, deadline).await
            }
        };
        let (mut record, conn, owned) = match made {
            Ok(m) => m,
            Err(e) => {
                undo_start(sessions.home(), &session_dir, &intent).await;
                return Err(e);
            }
        };
        fault::step(cx.env.abort_at.as_deref(), "start.launched");
        record.max_tracked_requests = self.max_tracked_requests;
        record.allowed_domains = allowed_domains;
        record.action_policy = policy;
        record.content_boundary = self.content_boundaries.then(|| {
            crate::boundary::ContentBoundary::fresh()
                .nonce()
                .to_string()
        });

        // What a failed start stops again at the provider.
        let provider_rec = record.clone();
        let committed = match auto_number {
            Some(n) => sessions.commit_session_id(n).await,
            None => Ok(()),
        };
        let recorded = match committed {
            Ok(()) => sessions.new_session(record).await,
            Err(e) => Err(e),
        };
        let slot = match recorded {
            Ok(slot) => slot,
            Err(e) => {
                if let Some(b) = owned {
                    let _ = tokio::time::timeout(deadline::BROWSER_CLOSE, b.close()).await;
                }
                let _ = stop_provider(sessions.home(), &provider_rec, cx.env).await;
                undo_start(sessions.home(), &session_dir, &intent).await;
                return Err(e);
            }
        };
        slot.set_generation(conn.generation);
        slot.set_conn(Some(conn.clone()));
        slot.set_owned(owned);
        sessions.insert(slot.clone());
        // Nothing loads before the guard of a session with a list is on.
        if let Err(e) = slot.guard.ready(conn.generation, deadline).await {
            let _ = teardown(sessions, &slot).await;
            let _ = stop_provider(sessions.home(), &provider_rec, cx.env).await;
            return Err(e);
        }
        fault::step(cx.env.abort_at.as_deref(), "start.recorded");
        let tab = match first_tab(
            &slot,
            &conn,
            state.as_ref().map(|r| &r.state),
            self.open_url.as_deref(),
            &mut warnings,
            (cx.env, "start"),
            deadline,
        )
        .await
        {
            Ok(t) => t,
            Err(e) => {
                let _ = teardown(sessions, &slot).await;
                let _ = stop_provider(sessions.home(), &provider_rec, cx.env).await;
                return Err(e);
            }
        };
        let rec = slot.record();
        let context = tab_context(&session_id, &tab);
        let mut done = Done::with_context(start_data(&rec, tab, false), context);
        done.warnings = warnings;
        Ok(done)
    }
}

/// The profile a new session launches its browser on.
#[derive(Debug)]
struct NewProfile {
    /// Its name (`--profile`, or `session-<sid>`).
    name: String,
    /// Whether the user named it (it is kept when the session closes).
    named: bool,
    /// Its directory.
    dir: std::path::PathBuf,
}

/// The running session whose browser uses the profile directory `dir`.
fn profile_holder(sessions: &Sessions, dir: &std::path::Path) -> Option<Arc<BrowserSession>> {
    sessions.all().into_iter().find(|s| {
        s.with_record(|r| r.profile_dir.as_deref() == Some(dir))
            && s.observed_status() == SessionStatus::Running
    })
}

impl Start {
    /// The profile of a new session `session_id`: `--profile` or one of its own, refused when a
    /// running session uses it.
    fn pick_profile(&self, sessions: &Sessions, session_id: &str) -> Result<NewProfile> {
        let (name, named) = match &self.profile {
            Some(p) => (p.clone(), true),
            None => (format!("session-{session_id}"), false),
        };
        let dir = if named {
            sessions.home().profile_dir(&name)
        } else {
            sessions.home().auto_profile_dir(session_id)
        };
        if let Some(holder) = profile_holder(sessions, &dir) {
            return Err(CliError::ProfileInUse {
                profile: name,
                session: holder.id.clone(),
            });
        }
        Ok(NewProfile { name, named, dir })
    }
}

/// Launches the browser of a new session on `profile`, and records who it is in the start's
/// intent (`session_dir`) before anything else can fail.
async fn launch_new(
    profile: &NewProfile,
    (session_id, mode, headless): (&str, Mode, bool),
    executable: Option<std::path::PathBuf>,
    (window_size, allowed_domains): (Option<(u32, u32)>, &[String]),
    session_dir: &Path,
    deadline: &Deadline,
) -> Result<(SessionRecord, BrowserConn, Option<Browser>)> {
    store::ensure_private_dir(&profile.dir)?;
    let launched = launch::launch(
        executable.clone(),
        headless,
        profile.dir.clone(),
        (window_size, allowed_domains),
        1,
        deadline.remaining(),
    )
    .await?;
    let intent = Intent::Start {
        profile_dir: Some(profile.dir.clone()),
        auto_profile: !profile.named,
        browser: launched.identity.clone(),
    };
    if let Err(e) = store::write_intent(session_dir, &intent).await {
        let _ = tokio::time::timeout(deadline::BROWSER_CLOSE, launched.browser.close()).await;
        return Err(e);
    }
    let record = SessionRecord {
        schema: store::RECORD_SCHEMA,
        session_id: session_id.to_string(),
        mode,
        profile: Some(profile.name.clone()),
        profile_named: profile.named,
        profile_dir: Some(profile.dir.clone()),
        headless,
        launched: true,
        browser_pid: launched.pid,
        browser_identity: launched.identity.clone(),
        cdp_endpoint: launched.ws_url.clone(),
        user_endpoint: None,
        headers: Vec::new(),
        executable: executable.map(|p| p.display().to_string()),
        status: SessionStatus::Running,
        tabs: Vec::new(),
        next_tab: 1,
        windows: Vec::new(),
        next_window: 0,
        window_size,
        max_tracked_requests: None,
        network_routes: Vec::new(),
        content_boundary: None,
        allowed_domains: Vec::new(),
        action_policy: None,
        browser_context_id: None,
        context_owned: false,
        provider: None,
        ca_certs: Vec::new(),
        proxy: None,
    };
    Ok((record, launched.conn, Some(launched.browser)))
}

/// Undoes a `browser start` that did not get its session (its intent `Intent::Start`): ends the
/// browser it launched (by identity, then every process naming the profile), removes the profile
/// when it was made for the session, then the session's directory.
async fn undo_start(home: &store::Home, session_dir: &Path, intent: &Intent) {
    let Intent::Start {
        profile_dir,
        auto_profile,
        browser,
    } = intent
    else {
        return;
    };
    end_launched(
        browser.as_ref(),
        profile_dir.as_deref(),
        deadline::PROCESS_EXIT,
    )
    .await;
    let own = profile_dir
        .clone()
        .filter(|d| *auto_profile && d.parent() == Some(home.auto_profiles_dir().as_path()));
    let dir = session_dir.to_path_buf();
    let _ = tokio::task::spawn_blocking(move || {
        remove_session_files(own.as_deref(), &dir, Keep::Nothing)
    })
    .await;
}

impl GlobalCommand for ListSessions {
    type Data = SessionListData;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<SessionListData>> {
        let sessions: Vec<SessionInfo> =
            cx.sessions.all().iter().map(|s| session_info(s)).collect();
        let mut done = Done::data(SessionListData {
            total_sessions: sessions.len() as u64,
            sessions,
        });
        // Records that do not decode are not sessions, but they are not forgotten either.
        for (id, bad) in cx.sessions.unreadable() {
            done.warnings.push(format!(
                "session '{id}' is unreadable: {}: {}",
                bad.path.display(),
                bad.reason
            ));
        }
        Ok(done)
    }
}

impl SessionCommand for Status {
    type Data = StatusData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<StatusData>> {
        // Probe the browser so a crash shows up as `crashed` (best effort).
        let _ = slot.connect(cx.deadline).await;
        let tabs = refresh_tabs(slot, cx.deadline).await;
        Ok(Done::data(StatusData {
            session: session_info(slot),
            tabs,
            // Every session can: `pdf` prints through Page.printToPDF and `upload` sets files
            // through DOM.setFileInputFiles (a remote browser's page gets their bytes instead).
            capabilities: Capabilities {
                snapshot: true,
                pdf: true,
                upload: true,
            },
        }))
    }
}

impl SessionCommand for Close {
    type Data = CloseData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    /// Closing a session that does not exist succeeds, with a warning: it is closed either way
    /// (as the reference CLI). An id no session can have is a mistake, not a closed session.
    fn when_missing(&self) -> Option<Done<CloseData>> {
        let sid = self.target.session.to_string();
        if !model::valid_session_id(&sid) {
            return None;
        }
        let mut done = Done::with_context(
            CloseData {
                session_id: sid.clone(),
                status: SessionStatus::Closed,
                closed_tabs: 0,
            },
            Context::session(&sid),
        );
        done.warnings
            .push("session not found — already closed".to_string());
        Some(done)
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CloseData>> {
        let deadline = cx.deadline;
        let _structure = tokio::time::timeout(deadline.remaining(), slot.structure.lock())
            .await
            .map_err(|_| deadline.timeout("browser close"))?;
        // A close cut off after its browser is gone is finished by the next engine.
        let intent = Intent::Close { purge: self.purge };
        // A session whose directory is gone (a removed home) is closed all the same.
        if slot.dir.exists() {
            store::write_intent(&slot.dir, &intent).await?;
        }
        let rec = slot.record();
        shutdown_browser(slot, &rec).await;
        let not_stopped = stop_provider(cx.sessions.home(), &rec, cx.env).await;
        fault::step(cx.env.abort_at.as_deref(), "close.browser_closed");
        let keep = match self.purge {
            true => Keep::Nothing,
            false => Keep::LastSnapshots,
        };
        let tabs = forget_session(cx.sessions, slot, &rec, keep).await;
        // A browser the session only connected to is left running: its own context (and tabs)
        // disposed, or the tabs it attached to (--attach-existing) left open.
        let closed_tabs = if rec.launched || rec.context_owned {
            tabs as u64
        } else {
            0
        };
        let mut done = Done::with_context(
            CloseData {
                session_id: slot.id.clone(),
                status: SessionStatus::Closed,
                closed_tabs,
            },
            Context::session(&slot.id),
        );
        if let Some(p) = &rec.provider {
            done.warnings.extend(not_stopped);
            if done.warnings.is_empty() {
                done.warnings.push(format!(
                    "the {} session {} is stopped",
                    p.name,
                    p.id.as_deref().unwrap_or("(no id)")
                ));
            }
        } else if !rec.launched && rec.context_owned {
            done.warnings.push(format!(
                "the browser was not launched by this session: it is left running; the \
                 session's browser context (its {tabs} tab(s), cookies and storage) is disposed"
            ));
        } else if !rec.launched {
            done.warnings.push(format!(
                "the browser was not launched by this session: it is left running, and the \
                 session's {tabs} tab(s) stay open in it"
            ));
        }
        Ok(done)
    }
}

impl SessionCommand for Restart {
    type Data = RestartData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<RestartData>> {
        let deadline = cx.deadline;
        let _structure = tokio::time::timeout(deadline.remaining(), slot.structure.lock())
            .await
            .map_err(|_| deadline.timeout("browser restart"))?;
        let tab = restart_browser(cx.sessions, slot, cx.env, deadline).await?;
        Ok(Done::with_context(
            RestartData {
                session: session_info(slot),
                reopened: true,
            },
            Context::tab(&slot.id, &tab.tab_id),
        ))
    }
}

/// Replaces the session's browser with a new one (or reconnects to the endpoint) and opens its
/// first tab, under an intent record: a restart cut off midway is finished by the next engine.
/// Callers hold the session's structure queue.
async fn restart_browser(
    sessions: &Sessions,
    slot: &Arc<BrowserSession>,
    env: &ClientEnv,
    deadline: &Deadline,
) -> Result<TabInfo> {
    let rec = slot.record();
    store::write_intent(
        &slot.dir,
        &Intent::Restart {
            from_endpoint: rec.cdp_endpoint.clone(),
        },
    )
    .await?;
    let result = restart_steps(sessions, slot, &rec, env, deadline).await;
    if result.is_err() {
        // Failed, not cut off: the session stays as the failure left it (crashed, restartable).
        let _ = store::clear_intent(&slot.dir).await;
    }
    result
}

async fn restart_steps(
    sessions: &Sessions,
    slot: &Arc<BrowserSession>,
    rec: &SessionRecord,
    env: &ClientEnv,
    deadline: &Deadline,
) -> Result<TabInfo> {
    shutdown_browser(slot, rec).await;
    fault::step(env.abort_at.as_deref(), "restart.old_closed");
    let generation = slot.next_generation();
    let (conn, pid, ws, owned) = if rec.launched {
        let profile = rec
            .profile
            .clone()
            .unwrap_or_else(|| format!("session-{}", rec.session_id));
        let dir = rec
            .profile_dir
            .clone()
            .unwrap_or_else(|| sessions.home().profile_dir(&profile));
        store::ensure_private_dir(&dir)?;
        let l = launch::launch(
            rec.executable.clone().map(Into::into),
            rec.headless,
            dir,
            (rec.window_size, &rec.allowed_domains),
            generation,
            deadline.remaining(),
        )
        .await?;
        (l.conn, (l.pid, l.identity), l.ws_url, Some(l.browser))
    } else {
        let endpoint = rec
            .user_endpoint
            .clone()
            .unwrap_or(rec.cdp_endpoint.clone());
        let (conn, ws) = connect_endpoint(
            &endpoint,
            endpoint::options(rec),
            deadline.remaining(),
            deadline,
            "browser restart",
        )
        .await?;
        // A context of its own again (the old one went with the close above), or the default.
        let context = match rec.context_owned {
            true => Some(TabContext::Own(own_context(&conn, deadline).await?)),
            false => context::default_context(&conn, deadline)
                .await?
                .map(TabContext::Default),
        };
        let conn = BrowserConn {
            conn,
            generation,
            context,
        };
        (conn, (None, None), ws, None)
    };
    fault::step(env.abort_at.as_deref(), "restart.launched");
    // Old refs and tabs belong to the old browser.
    for t in &rec.tabs {
        artifacts::remove_refs(&slot.dir, &t.tab_id);
    }
    slot.update(|r| {
        (r.browser_pid, r.browser_identity) = pid.clone();
        r.cdp_endpoint = ws;
        r.browser_context_id = conn.context.as_ref().map(|c| c.id().to_string());
        r.status = SessionStatus::Running;
        r.tabs.clear();
        r.next_tab = 1;
        // A new browser: its windows start again at w0, like its tabs at t1.
        r.windows.clear();
        r.next_window = 0;
    })
    .await?;
    slot.set_conn(Some(conn.clone()));
    slot.set_owned(owned);
    slot.guard.ready(conn.generation, deadline).await?;
    fault::step(env.abort_at.as_deref(), "restart.recorded");
    first_tab(
        slot,
        &conn,
        None,
        None,
        &mut Vec::new(),
        (env, "restart"),
        deadline,
    )
    .await
}

/// How long settling one interrupted command may take when an engine starts.
const RECOVER_MS: u64 = 30_000;

/// Settles what structural commands cut off by the death of an earlier engine left (their
/// `intent.json`), before this engine runs its first command: an interrupted `start` without a
/// first tab is undone (its browser ended, its own profile and files removed) and one with a tab
/// is kept; targets an interrupted `new-tab` opened but no tab records are closed; an interrupted
/// `restart` is done again, and an interrupted `close` finished.
/// A session whose record is unreadable (a newer build's, or damaged) is left alone, intent and
/// all: settling it could end or delete what this build does not understand.
pub(crate) async fn recover(sessions: &Sessions) {
    let dir = sessions.home().sessions_dir();
    let unreadable: Vec<String> = sessions
        .unreadable()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let pending = tokio::task::spawn_blocking(move || {
        let mut pending = Vec::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if unreadable.contains(&entry.file_name().to_string_lossy().into_owned()) {
                continue;
            }
            let dir = entry.path();
            match store::read_intent(&dir) {
                Ok(Some(intent)) => pending.push((dir, intent)),
                Ok(None) => {}
                // Unreadable (writes are atomic, so not a torn write: another build's, or
                // damaged): nothing to act on, and kept for whoever can read it.
                Err(e) => {
                    eprintln!(
                        "actionbook: ignoring {}: {e}",
                        store::intent_file(&dir).display()
                    );
                }
            }
        }
        pending
    })
    .await
    .unwrap_or_default();
    let settling = pending
        .iter()
        .map(|(dir, intent)| settle(sessions, dir, intent));
    futures::future::join_all(settling).await;
}

/// Settles one interrupted command (see [`recover`]).
async fn settle(sessions: &Sessions, dir: &Path, intent: &Intent) {
    let deadline = Deadline::after_ms(RECOVER_MS);
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let slot = sessions.get(&id);
    let _structure = match &slot {
        Some(s) => Some(s.structure.lock().await),
        None => None,
    };
    let has_tabs = slot
        .as_ref()
        .is_some_and(|s| s.with_record(|r| !r.tabs.is_empty()));
    let settled = match (intent, &slot) {
        (Intent::Start { .. }, Some(_)) if has_tabs => store::clear_intent(dir).await,
        (Intent::Start { .. }, slot) => {
            if let Some(s) = slot {
                sessions.remove(&s.id);
                // A browser we only connected to: close the tab the start may have opened.
                if !s.with_record(|r| r.launched)
                    && let Ok(conn) = s.connect(&deadline).await
                {
                    let rec = s.record();
                    let _ = targets::close_stray_targets(&conn, &rec, &deadline).await;
                    if let Some(id) = conn.own_context() {
                        let _ = context::dispose(&conn.conn, &id, &deadline).await;
                    }
                }
                s.set_conn(None);
            }
            undo_start(sessions.home(), dir, intent).await;
            Ok(())
        }
        (Intent::NewTab, Some(s)) => {
            // A browser that is gone took its targets along.
            if let Ok(conn) = s.connect(&deadline).await {
                let _ = targets::close_stray_targets(&conn, &s.record(), &deadline).await;
            }
            store::clear_intent(dir).await
        }
        (Intent::Restart { from_endpoint }, Some(s)) => {
            let done = s.with_record(|r| &r.cdp_endpoint != from_endpoint) && has_tabs;
            if !done {
                let _ = restart_browser(sessions, s, &ClientEnv::default(), &deadline).await;
            }
            store::clear_intent(dir).await
        }
        (Intent::Close { purge }, slot) => {
            let keep = if *purge {
                Keep::Nothing
            } else {
                Keep::LastSnapshots
            };
            match slot {
                Some(s) => {
                    let rec = s.record();
                    shutdown_browser(s, &rec).await;
                    forget_session(sessions, s, &rec, keep).await;
                }
                None => {
                    let dir = dir.to_path_buf();
                    let _ =
                        tokio::task::spawn_blocking(move || remove_session_files(None, &dir, keep))
                            .await;
                }
            }
            Ok(())
        }
        // No record: nothing owns what the command did (its browser's tabs went with it).
        (Intent::NewTab | Intent::Restart { .. }, None) => store::clear_intent(dir).await,
    };
    if let Err(e) = settled {
        eprintln!(
            "actionbook: settling {}: {e}",
            store::intent_file(dir).display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_sessions_policy_takes_each_list_from_its_flag_then_the_env_then_the_config() {
        use crate::policy_actions::Action;
        let config = super::super::manuals::BrowserDefaults {
            confirm_actions: Some("fill".into()),
            deny_actions: Some("eval".into()),
            ..Default::default()
        };
        let env = ClientEnv {
            confirm_actions: Some("click".into()),
            ..Default::default()
        };
        let start = Start::default();
        let p = start
            .new_policy(&env, &config)
            .ok()
            .flatten()
            .unwrap_or_default();
        assert_eq!(
            p.confirm.into_iter().collect::<Vec<_>>(),
            vec![Action::Click]
        );
        assert_eq!(p.deny.into_iter().collect::<Vec<_>>(), vec![Action::Eval]);
        let start = Start {
            deny_actions: Some("upload".into()),
            ..Start::default()
        };
        let p = start
            .new_policy(&env, &config)
            .ok()
            .flatten()
            .unwrap_or_default();
        assert_eq!(p.deny.into_iter().collect::<Vec<_>>(), vec![Action::Upload]);
        // None anywhere: no policy; a bad name anywhere: refused before anything starts.
        let none = Start::default().new_policy(&ClientEnv::default(), &Default::default());
        assert!(matches!(none, Ok(None)));
        let bad = ClientEnv {
            deny_actions: Some("evil".into()),
            ..Default::default()
        };
        let e = Start::default().new_policy(&bad, &Default::default());
        assert!(matches!(e, Err(CliError::InvalidArgument(m)) if m.contains("--deny-actions")));
        let flag = Start {
            confirm_actions: Some("nope".into()),
            ..Start::default()
        };
        assert!(flag.validate().is_err());
    }

    #[test]
    fn headers_parse() {
        let h = parse_headers(&["Authorization: Bearer x".to_string()]).unwrap_or_default();
        assert_eq!(
            h,
            vec![("Authorization".to_string(), "Bearer x".to_string())]
        );
        assert!(parse_headers(&["nocolon".to_string()]).is_err());
        assert!(parse_headers(&[":v".to_string()]).is_err());
        for bad in ["A: b\r\nHost: evil", "Bäd: b", "A B: c"] {
            assert!(parse_headers(&[bad.to_string()]).is_err(), "{bad:?}");
        }
    }
}
