//! Session lifecycle data: `browser start`, `list-sessions`, `status`, `close`, `restart`.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::text::{RenderText, TextBody};

/// How the session's browser is provided (`--mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BrowserMode {
    /// A browser launched locally (the default).
    #[default]
    Local,
    /// A browser reached through the Chrome extension bridge.
    Extension,
    /// A browser from a cloud provider.
    Cloud,
}

impl BrowserMode {
    /// The wire string (`local`, `extension`, `cloud`).
    pub const fn as_str(self) -> &'static str {
        match self {
            BrowserMode::Local => "local",
            BrowserMode::Extension => "extension",
            BrowserMode::Cloud => "cloud",
        }
    }
}

impl fmt::Display for BrowserMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A session's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SessionState {
    /// The browser is up and connected.
    #[default]
    Running,
    /// The connection to the browser was lost while its process may still be running.
    Disconnected,
    /// The browser process is gone (crashed or killed); `browser restart` brings it back.
    Crashed,
    /// The session was closed.
    Closed,
}

impl SessionState {
    /// The wire string (`running`, `disconnected`, `crashed`, `closed`).
    pub const fn as_str(self) -> &'static str {
        match self {
            SessionState::Running => "running",
            SessionState::Disconnected => "disconnected",
            SessionState::Crashed => "crashed",
            SessionState::Closed => "closed",
        }
    }
}

impl fmt::Display for SessionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A browser-native id (`native_tab_id`): the spec shows a number, Chromium's CDP
/// target ids are strings, so both are accepted and written back as they came.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NativeId {
    /// A numeric id (`391`).
    Number(u64),
    /// A string id (a CDP targetId such as `"74EE7793..."`).
    Text(String),
}

impl From<u64> for NativeId {
    fn from(n: u64) -> Self {
        NativeId::Number(n)
    }
}

impl From<String> for NativeId {
    fn from(s: String) -> Self {
        NativeId::Text(s)
    }
}

impl From<&str> for NativeId {
    fn from(s: &str) -> Self {
        NativeId::Text(s.to_owned())
    }
}

impl fmt::Display for NativeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeId::Number(n) => write!(f, "{n}"),
            NativeId::Text(s) => f.write_str(s),
        }
    }
}

/// A session as reported by `start`, `list-sessions`, `status` and `restart`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The session id.
    pub session_id: String,
    /// How the browser is provided.
    pub mode: BrowserMode,
    /// Current state.
    pub status: SessionState,
    /// Whether the browser runs headless.
    pub headless: bool,
    /// Number of open tabs (`list-sessions`, `status`, `restart`; omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tabs_count: Option<u64>,
    /// The browser's DevTools WebSocket URL (`start`; omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cdp_endpoint: Option<String>,
}

/// A tab as reported by `start`, `status`, `list-tabs` and `new-tab`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TabInfo {
    /// The short tab id (`t1`).
    pub tab_id: String,
    /// Current URL.
    pub url: String,
    /// Current title (empty while loading).
    pub title: String,
    /// The browser's own id for the tab, for debugging (omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_tab_id: Option<NativeId>,
}

/// `browser start` data.
///
/// ```text
/// ok browser start
/// mode: local
/// status: running
/// title: Google
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StartData {
    /// The created (or reused) session.
    pub session: SessionInfo,
    /// The session's initial tab.
    pub tab: TabInfo,
    /// Whether an existing session was reused rather than created.
    pub reused: bool,
    /// The nonce of the session's content boundary (`--content-boundaries`; beyond the spec,
    /// omitted when `None`): page text comes between marker lines naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_boundary: Option<String>,
    /// The session's `--allowed-domains` rules (beyond the spec, omitted when empty: every
    /// host).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    /// The actions the session asks a confirmation for (`--confirm-actions`; beyond the spec,
    /// omitted when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirm_actions: Vec<String>,
    /// The actions the session refuses (`--deny-actions`; beyond the spec, omitted when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny_actions: Vec<String>,
}

impl RenderText for StartData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("mode", self.session.mode);
        body.field("status", self.session.status);
        body.field("title", &self.tab.title);
        if let Some(nonce) = &self.content_boundary {
            body.field("content_boundary", nonce);
        }
        if !self.allowed_domains.is_empty() {
            body.field("allowed_domains", self.allowed_domains.join(","));
        }
        if !self.confirm_actions.is_empty() {
            body.field("confirm_actions", self.confirm_actions.join(","));
        }
        if !self.deny_actions.is_empty() {
            body.field("deny_actions", self.deny_actions.join(","));
        }
    }
}

/// `browser list-sessions` data.
///
/// ```text
/// 1 session
/// [research-google]
/// status: running
/// tabs: 2
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SessionListData {
    /// Number of sessions.
    pub total_sessions: u64,
    /// The sessions.
    pub sessions: Vec<SessionInfo>,
}

impl SessionListData {
    /// The list with `total_sessions` set from its length.
    pub fn new(sessions: Vec<SessionInfo>) -> Self {
        SessionListData {
            total_sessions: sessions.len() as u64,
            sessions,
        }
    }
}

impl RenderText for SessionListData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.total_sessions as usize, "session", "sessions");
        for s in &self.sessions {
            body.line(format_args!("[{}]", s.session_id));
            body.field("status", s.status);
            body.field("tabs", s.tabs_count.unwrap_or(0));
        }
    }
}

/// What a session can do (`browser status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Capabilities {
    /// Accessibility snapshots.
    pub snapshot: bool,
    /// PDF export.
    pub pdf: bool,
    /// File upload.
    pub upload: bool,
}

/// `browser status` data.
///
/// ```text
/// status: running
/// mode: local
/// tabs: 2
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StatusData {
    /// The session.
    pub session: SessionInfo,
    /// Its tabs.
    pub tabs: Vec<TabInfo>,
    /// What it supports.
    pub capabilities: Capabilities,
}

impl RenderText for StatusData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("status", self.session.status);
        body.field("mode", self.session.mode);
        let tabs = self.session.tabs_count.unwrap_or(self.tabs.len() as u64);
        body.field("tabs", tabs);
    }
}

/// `browser close` data.
///
/// ```text
/// ok browser close
/// closed_tabs: 2
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CloseData {
    /// The closed session.
    pub session_id: String,
    /// Its state now (`closed`).
    pub status: SessionState,
    /// How many tabs were closed with it.
    pub closed_tabs: u64,
}

impl RenderText for CloseData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("closed_tabs", self.closed_tabs);
    }
}

/// `browser restart` data. Its header is `[sid tid]` without a URL (spec 2.5 exception).
///
/// ```text
/// ok browser restart
/// status: running
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RestartData {
    /// The restarted session.
    pub session: SessionInfo,
    /// Whether its tabs were reopened.
    pub reopened: bool,
}

impl RenderText for RestartData {
    fn is_action(&self) -> bool {
        true
    }

    fn header_shows_url(&self) -> bool {
        false
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("status", self.session.status);
    }
}
