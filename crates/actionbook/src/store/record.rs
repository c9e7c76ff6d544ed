//! The durable records: one per session (with its tabs and windows), and the global counters.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::{Mode, SessionStatus};

/// One tab's durable facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabRecord {
    /// `tN`.
    pub tab_id: String,
    /// The CDP target id (`native_tab_id`).
    pub target_id: String,
    /// Last known URL.
    #[serde(default)]
    pub url: String,
    /// Last known title.
    #[serde(default)]
    pub title: String,
    /// The window (`wN`) the tab is in, recorded when the tab was created or adopted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_id: Option<String>,
    /// Where the mouse pointer was last moved in this tab (`[x, y]`, CSS pixels of the viewport).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<[f64; 2]>,
    /// How the tab answers every dialog that asks, when `browser dialog --always` said (a
    /// one-time answer is not kept here: it is for the moment it was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog_policy: Option<DialogPolicy>,
    /// What `browser emulate` set on the tab (set again on every attach).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<super::emulation::Emulation>,
}

/// How a tab answers the JavaScript dialogs that ask something (`confirm`, `prompt`,
/// `beforeunload`), as `browser dialog` said; without one, confirm and prompt are dismissed and
/// leaving a page is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DialogPolicy {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// What an accepted `prompt` answers (its default text when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
    /// For the next such dialog only, then the default again.
    #[serde(default)]
    pub once: bool,
}

/// One browser window of a session: our `wN` and Chromium's `windowId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRecord {
    /// `wN`.
    pub window_id: String,
    /// Chromium's window id (`Browser.getWindowForTarget`).
    pub native_window_id: i64,
}

/// Proxy settings of a remote session ([`SessionRecord::proxy`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProxyRecord {
    /// For `ws://`/`http://`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<String>,
    /// For `wss://`/`https://`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub https: Option<String>,
    /// Hosts reached directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_proxy: Option<String>,
}

/// What a session record keeps of a provider's session: enough to stop it, no key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSession {
    /// The provider's name.
    pub name: String,
    /// The id its API gave the session (none when its answer has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The layout of `session.json` this build writes. Raise it when a change would make an older
/// build misread a record (a field whose absence means something else, a changed meaning); a
/// record of a higher schema is kept and reported, never used or overwritten.
pub const RECORD_SCHEMA: u32 = 1;

/// The schema of records written before the field existed.
fn schema_before_versions() -> u32 {
    1
}

/// Just the schema of a record, read before the rest (a newer build's record may not decode).
#[derive(Debug, Deserialize)]
struct RecordSchema {
    #[serde(default = "schema_before_versions")]
    schema: u32,
}

/// Reads a session's record: `Ok(None)` when there is none; an error when it does not decode or
/// a newer build wrote it (its schema above [`RECORD_SCHEMA`]: its fields may mean what this
/// build cannot know, so it is not used even when it decodes).
pub fn read_session_record(path: &Path) -> Result<Option<SessionRecord>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if let Ok(RecordSchema { schema }) = serde_json::from_slice(&bytes)
        && schema > RECORD_SCHEMA
    {
        return Err(CliError::RecordFromNewerBuild {
            schema,
            readable: RECORD_SCHEMA,
        });
    }
    let mut record: SessionRecord = serde_json::from_slice(&bytes)
        .map_err(|e| CliError::internal(format!("corrupt state file {}: {e}", path.display())))?;
    // Older layouts need no change yet; the next write is in this build's.
    record.schema = RECORD_SCHEMA;
    Ok(Some(record))
}

/// One session's durable facts (`sessions/<sid>/session.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The layout of the record ([`RECORD_SCHEMA`] when this build wrote it).
    #[serde(default = "schema_before_versions")]
    pub schema: u32,
    /// The session id.
    pub session_id: String,
    /// Browser mode.
    pub mode: Mode,
    /// Profile name (local mode).
    #[serde(default)]
    pub profile: Option<String>,
    /// Whether the profile was named by the user (kept on close) or made for this session.
    #[serde(default)]
    pub profile_named: bool,
    /// The browser's user-data directory (local mode).
    #[serde(default)]
    pub profile_dir: Option<PathBuf>,
    /// Headless or not.
    pub headless: bool,
    /// Whether we launched the browser (close kills it) or only connected to it (close detaches).
    pub launched: bool,
    /// The browser's pid, when we launched it.
    #[serde(default)]
    pub browser_pid: Option<u32>,
    /// Who the browser process is (pid, start time, boot id, profile), when we launched it: checked
    /// before it is called running and before any signal, since its pid may be reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_identity: Option<cdp_protocol::ProcessIdentity>,
    /// The browser-level WebSocket URL.
    pub cdp_endpoint: String,
    /// The endpoint as the user gave it (`--cdp-endpoint`), for reconnects.
    #[serde(default)]
    pub user_endpoint: Option<String>,
    /// Headers for `--cdp-endpoint`.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// The executable used to launch (for restart).
    #[serde(default)]
    pub executable: Option<String>,
    /// Lifecycle state.
    pub status: SessionStatus,
    /// Tabs in creation order.
    #[serde(default)]
    pub tabs: Vec<TabRecord>,
    /// The next tab number (t1, t2 ... never reused).
    pub next_tab: u64,
    /// Windows seen so far, in order (w0, w1 ...).
    #[serde(default)]
    pub windows: Vec<WindowRecord>,
    /// The next window number (w0, w1 ... never reused).
    #[serde(default)]
    pub next_window: u64,
    /// The viewport a launched headless browser's tabs get, and the window size it was launched
    /// with (`start --window-size`; 1280x720 for headless sessions by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_size: Option<(u32, u32)>,
    /// How many finished requests each tab's network recorder keeps (`start
    /// --max-tracked-requests`; 500 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tracked_requests: Option<usize>,
    /// The network routes of the session's tabs (`browser network route`), in the order added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_routes: Vec<RouteRecord>,
    /// The nonce of the session's content boundary (`start --content-boundaries`): page text is
    /// given between marker lines naming it ([`crate::boundary`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_boundary: Option<String>,
    /// The hosts the session's pages may reach (`start --allowed-domains`, canonical rules;
    /// empty: no list, every host). Enforced by the browser-level `Fetch` guard on every
    /// connection ([`crate::allowlist`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    /// The session's action policy (`start --confirm-actions`, `--deny-actions`): kept here so a
    /// restarted daemon polices as the one that started it ([`crate::policy_actions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_policy: Option<crate::policy_actions::ActionPolicy>,
    /// The browser context the session's tabs live in, on a browser behind `--cdp-endpoint`
    /// (kept so a new daemon lists and opens tabs in the same one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
    /// Whether the session made that context (`close` disposes it) rather than attached to the
    /// browser's default one (`--attach-existing`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub context_owned: bool,
    /// The provider session behind the browser (`browser start --provider`), stopped on close.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderSession>,
    /// Extra trusted roots of a `wss://`/`https://` endpoint (`--ca-file`), base64 of DER.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ca_certs: Vec<String>,
    /// The proxy settings the endpoint is reached with (the starting command's `HTTPS_PROXY`,
    /// `HTTP_PROXY`, `NO_PROXY`), kept so a new daemon reconnects the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxyRecord>,
}

/// One network route of a tab: requests whose URL matches `pattern` are aborted, fulfilled with
/// a mock answer or continued with extra headers (`browser network route`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteRecord {
    /// The tab (`tN`).
    pub tab_id: String,
    /// The URL pattern (`*` any characters, `?` one).
    pub pattern: String,
    /// What happens to a matching request.
    pub action: RouteAction,
}

/// What a route does to a request it matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RouteAction {
    /// Fail it with this `Network.ErrorReason` (`Failed`, `Aborted`, `ConnectionRefused`, ...).
    Abort {
        /// The reason.
        reason: String,
    },
    /// Answer it without the network.
    Fulfill {
        /// HTTP status.
        status: u16,
        /// Response headers.
        #[serde(default)]
        headers: Vec<(String, String)>,
        /// The body, base64.
        #[serde(default)]
        body_base64: String,
    },
    /// Send it on, with these headers added or replaced.
    Continue {
        /// Extra headers.
        #[serde(default)]
        headers: Vec<(String, String)>,
    },
}

impl SessionRecord {
    /// Whether the record says which browser process we launched (a pid or an identity).
    pub fn knows_browser(&self) -> bool {
        self.browser_pid.is_some() || self.browser_identity.is_some()
    }

    /// The tab whose page is this target.
    pub fn tab_of_target(&self, target_id: &str) -> Option<&TabRecord> {
        self.tabs.iter().find(|t| t.target_id == target_id)
    }

    /// The tab with this id.
    pub fn tab(&self, tab_id: &str) -> Option<&TabRecord> {
        self.tabs.iter().find(|t| t.tab_id == tab_id)
    }

    /// The tab with this id, to change.
    pub fn tab_mut(&mut self, tab_id: &str) -> Option<&mut TabRecord> {
        self.tabs.iter_mut().find(|t| t.tab_id == tab_id)
    }

    /// Forgets a tab, and the network routes it had.
    pub fn remove_tab(&mut self, tab_id: &str) {
        self.tabs.retain(|t| t.tab_id != tab_id);
        self.prune_routes();
    }

    /// Drops the network routes of tabs the record no longer has (a tab that closed itself and
    /// was forgotten when the tabs were listed).
    pub fn prune_routes(&mut self) {
        let tabs = &self.tabs;
        self.network_routes
            .retain(|r| tabs.iter().any(|t| t.tab_id == r.tab_id));
    }

    /// The `wN` of a Chromium window, allocating the next one the first time it is seen.
    pub fn window_for_native(&mut self, native_window_id: i64) -> String {
        if let Some(w) = self
            .windows
            .iter()
            .find(|w| w.native_window_id == native_window_id)
        {
            return w.window_id.clone();
        }
        let id = format!("w{}", self.next_window);
        self.next_window += 1;
        self.windows.push(WindowRecord {
            window_id: id.clone(),
            native_window_id,
        });
        id
    }

    /// The window with this `wN` id.
    pub fn window(&self, window_id: &str) -> Option<&WindowRecord> {
        self.windows.iter().find(|w| w.window_id == window_id)
    }

    /// How many distinct windows the open tabs are in.
    pub fn open_windows(&self) -> usize {
        let mut ids: Vec<&str> = self
            .tabs
            .iter()
            .filter_map(|t| t.window_id.as_deref())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// The tab's `wN` when the session has more than one window open (`context.window_id`).
    pub fn context_window(&self, tab_id: &str) -> Option<String> {
        if self.open_windows() < 2 {
            return None;
        }
        self.tab(tab_id)?.window_id.clone()
    }

    /// Allocates the next `tN` id.
    pub fn alloc_tab_id(&mut self) -> String {
        loop {
            let id = format!("t{}", self.next_tab.max(1));
            self.next_tab = self.next_tab.max(1) + 1;
            if self.tab(&id).is_none() {
                return id;
            }
        }
    }
}

/// Global counters (`counters.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Counters {
    /// The next auto session number.
    pub next_session: u64,
}

impl From<&TabRecord> for envelope::TabInfo {
    fn from(t: &TabRecord) -> envelope::TabInfo {
        envelope::TabInfo {
            tab_id: t.tab_id.clone(),
            url: t.url.clone(),
            title: t.title.clone(),
            native_tab_id: Some(t.target_id.clone().into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_ids_never_reused() {
        let mut r = SessionRecord {
            schema: RECORD_SCHEMA,
            session_id: "s1".into(),
            mode: Mode::Local,
            profile: None,
            profile_named: false,
            profile_dir: None,
            headless: true,
            launched: true,
            browser_pid: None,
            browser_identity: None,
            cdp_endpoint: String::new(),
            user_endpoint: None,
            headers: vec![],
            executable: None,
            status: SessionStatus::Running,
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
            tabs: vec![],
            next_tab: 1,
            windows: vec![],
            next_window: 0,
            window_size: None,
        };
        let a = r.alloc_tab_id();
        let b = r.alloc_tab_id();
        assert_eq!((a.as_str(), b.as_str()), ("t1", "t2"));
        r.tabs.push(TabRecord {
            tab_id: "t3".into(),
            target_id: "x".into(),
            url: String::new(),
            title: String::new(),
            window_id: None,
            cursor: None,
            dialog_policy: None,
            emulation: None,
        });
        assert_eq!(r.alloc_tab_id(), "t4");
        assert_eq!(r.window_for_native(100), "w0");
        assert_eq!(r.window_for_native(200), "w1");
        assert_eq!(r.window_for_native(100), "w0");
        r.windows.clear();
        assert_eq!(
            r.window_for_native(300),
            "w2",
            "window ids are never reused"
        );
        assert_eq!(r.context_window("t3"), None);
    }

    #[test]
    fn records_of_older_layouts_load_and_newer_ones_are_refused() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("session.json");
        assert!(read_session_record(&path)?.is_none());
        let mut old = serde_json::json!({
            "session_id": "s1", "mode": "local", "headless": true, "launched": true,
            "cdp_endpoint": "ws://x", "status": "running", "next_tab": 1,
        });
        std::fs::write(&path, old.to_string())?;
        let rec = read_session_record(&path)?.ok_or_else(|| CliError::internal("no record"))?;
        assert_eq!(rec.schema, RECORD_SCHEMA);
        old["schema"] = (RECORD_SCHEMA + 1).into();
        std::fs::write(&path, old.to_string())?;
        assert!(matches!(
            read_session_record(&path),
            Err(CliError::RecordFromNewerBuild { schema, .. }) if schema == RECORD_SCHEMA + 1
        ));
        // A newer build's record that does not even decode here is still named as newer.
        std::fs::write(&path, r#"{"schema": 7, "session_id": 5}"#)?;
        assert!(matches!(
            read_session_record(&path),
            Err(CliError::RecordFromNewerBuild { schema: 7, .. })
        ));
        std::fs::write(&path, b"{garbage")?;
        assert!(matches!(
            read_session_record(&path),
            Err(CliError::Internal(_))
        ));
        Ok(())
    }

    #[test]
    fn context_window_only_with_several_open_windows() {
        let tab = |id: &str, w: &str| TabRecord {
            tab_id: id.into(),
            target_id: id.into(),
            url: String::new(),
            title: String::new(),
            window_id: Some(w.into()),
            cursor: None,
            dialog_policy: None,
            emulation: None,
        };
        let mut r: SessionRecord = serde_json::from_value(serde_json::json!({
            "session_id": "s1", "mode": "local", "headless": true, "launched": true,
            "cdp_endpoint": "ws://x", "status": "running", "next_tab": 3,
            "tabs": [{"tab_id": "t1", "target_id": "A"}],
        }))
        .unwrap_or_else(|e| panic!("an old record must load: {e}"));
        assert_eq!((r.windows.len(), r.next_window), (0, 0));
        assert_eq!(r.tabs[0].window_id, None);
        r.tabs = vec![tab("t1", "w0"), tab("t2", "w0")];
        assert_eq!(r.context_window("t2"), None);
        r.tabs.push(tab("t3", "w1"));
        assert_eq!(r.context_window("t2").as_deref(), Some("w0"));
        assert_eq!(r.context_window("t3").as_deref(), Some("w1"));
    }
}
