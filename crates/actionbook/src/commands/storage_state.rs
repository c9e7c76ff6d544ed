//! Saved auth state (ours, after Playwright's `storageState`): `browser storage-state save
//! <file>`, `browser storage-state load <file>` (session level), and `browser start --state
//! <file>` (a new session starting from one). The file format and its encryption are
//! [`crate::store::state_file`].
//!
//! - The name: `browser state <selector>` (spec 10.10) is an element's state; the auth state is
//!   "storage state", Playwright's term, so neither can be taken for the other.
//! - Saved: every cookie of the browser (`Storage.getCookies`: httpOnly ones too); the
//!   localStorage and sessionStorage of every frame the session's tabs show now, out-of-process
//!   frames included (each read in an isolated world of the frame, so the page's scripts are not
//!   involved); and the localStorage of the origins the session's frames showed before
//!   (`crate::session::origins`) that no tab shows now, read in a scratch tab (below).
//!   IndexedDB is not kept (`data.not_kept`).
//! - Loaded: cookies with `Storage.setCookies` (read back; an expired one is skipped and counted);
//!   localStorage in a scratch tab that visits each origin with every request answered by the
//!   engine with a blank page (`Fetch`), so the real site is never asked and none of its scripts
//!   run: localStorage is shared by every tab of an origin, so the tabs see it at once. This is
//!   Playwright's way too; `Page.addScriptToEvaluateOnNewDocument` would instead write the value
//!   again on every later document of the origin, undoing what the site changes or removes.
//!   sessionStorage belongs to one tab: `load` writes it in every tab's frames of its origin and
//!   names the origins no tab shows (`data.session_storage_skipped`); `start --state` writes it
//!   in the new session's first tab, the same way as localStorage, before that tab loads
//!   `--open-url`.
//! - A state is added to what the session has (as Playwright's `addCookies`): cookies of the same
//!   name, domain and path and keys of the same name are replaced, others stay.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use cdp_protocol::{ErrorKind, FrameId, Session, TargetId, fetch, network, page, runtime, storage};
use envelope::{Document, RenderText, TextBody};
use futures::StreamExt as _;
use serde::{Deserialize, Serialize};

use super::{Cx, SessionCommand};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, SessionTarget};
use crate::reply::{Done, document};
use crate::session::BrowserConn;
use crate::session::origins::storage_origin;
use crate::session::targets;
use crate::store::state_file::{
    self, NameValue, PartitionedOrigin, StateCookie, StateKey, StateOrigin, StorageState,
};
use crate::store::{self, off_worker};
use crate::tab::BrowserSession;

/// What a saved state does not keep, said in every answer.
const NOT_KEPT: &[&str] = &["indexedDB"];

/// The page every request of a scratch visit is answered with.
const BLANK_PAGE: &str = "<!doctype html><title></title>";

/// At most this many targets (tabs and their out-of-process frames) are read.
const MAX_TARGETS: usize = 256;

/// `browser storage-state save <file>`.
///
/// Writes the session's auth state to FILE as Playwright's storageState JSON: every cookie
/// (httpOnly too), and the localStorage (and, our extra field, sessionStorage) of every origin
/// the session's frames showed, out-of-process frames included. IndexedDB is not kept. With
/// ACTIONBOOK_STATE_KEY set (64 hex characters or the base64 of 32 bytes) the file is encrypted
/// with AES-256-GCM. The file is written atomically with mode 0600.
///
/// Named after Playwright's term so that it cannot be taken for `browser state <selector>`, an
/// element's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct StorageStateSave {
    /// The file to write (relative paths are the caller's); replaced if it exists.
    #[cfg_attr(feature = "cli", arg(value_name = "FILE"))]
    pub path: String,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser storage-state load <file>`.
///
/// Adds the auth state in FILE (ours, or Playwright's storageState JSON) to the running
/// session: its cookies, and each origin's localStorage, written in a scratch tab whose requests
/// the engine answers itself (the site is never asked). sessionStorage belongs to a tab: it is
/// written in the tabs that show its origin, and the origins no tab shows are named in
/// `session_storage_skipped`. An encrypted file needs ACTIONBOOK_STATE_KEY. IndexedDB is not
/// kept.
///
/// Named after Playwright's term so that it cannot be taken for `browser state <selector>`, an
/// element's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct StorageStateLoad {
    /// The file to read (relative paths are the caller's).
    #[cfg_attr(feature = "cli", arg(value_name = "FILE"))]
    pub path: String,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser storage-state save` data.
#[derive(Debug, Serialize)]
struct SaveData {
    /// The file written.
    path: String,
    /// Whether it is encrypted.
    encrypted: bool,
    /// Cookies saved.
    cookies: usize,
    /// Origins saved (with any storage), as pages of their own.
    origins: usize,
    /// Origins saved as frames embedded in another site's pages (the storage the browser keeps
    /// for them there).
    partitioned_origins: usize,
    /// localStorage keys saved, over every origin.
    local_storage_keys: usize,
    /// sessionStorage keys saved, over every origin.
    session_storage_keys: usize,
    /// What a state does not keep.
    not_kept: &'static [&'static str],
}

impl RenderText for SaveData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(format_args!("path: {}", self.path));
        body.line(format_args!("encrypted: {}", self.encrypted));
        body.line(format_args!(
            "cookies: {}, origins: {} (+{} embedded in another site; localStorage keys: {}, sessionStorage keys: {})",
            self.cookies,
            self.origins,
            self.partitioned_origins,
            self.local_storage_keys,
            self.session_storage_keys
        ));
        body.line(format_args!("not kept: {}", self.not_kept.join(", ")));
    }
}

/// `browser storage-state load` data.
#[derive(Debug, Serialize)]
struct LoadData {
    /// The file read.
    path: String,
    /// Whether it was encrypted.
    encrypted: bool,
    /// Cookies set.
    cookies: usize,
    /// Cookies of the file already expired (not set).
    cookies_expired: usize,
    /// Origins whose localStorage was written.
    local_storage_origins: usize,
    /// Origins whose sessionStorage was written in the tabs showing them.
    session_storage_restored: Vec<String>,
    /// Origins with sessionStorage in the file that no tab shows (not written).
    session_storage_skipped: Vec<String>,
    /// What a state does not keep.
    not_kept: &'static [&'static str],
}

impl RenderText for LoadData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(format_args!("path: {}", self.path));
        body.line(format_args!(
            "cookies: {} ({} expired, skipped)",
            self.cookies, self.cookies_expired
        ));
        body.line(format_args!(
            "localStorage origins: {}",
            self.local_storage_origins
        ));
        if !self.session_storage_restored.is_empty() {
            body.line(format_args!(
                "sessionStorage restored: {}",
                self.session_storage_restored.join(", ")
            ));
        }
        if !self.session_storage_skipped.is_empty() {
            body.line(format_args!(
                "sessionStorage skipped (no tab shows the origin): {}",
                self.session_storage_skipped.join(", ")
            ));
        }
        body.line(format_args!("not kept: {}", self.not_kept.join(", ")));
    }
}

/// A state file read: the state, whether it was encrypted, and its absolute path.
#[derive(Debug)]
pub(crate) struct StateRead {
    /// The state.
    pub state: StorageState,
    /// Whether the file was encrypted.
    pub encrypted: bool,
    /// The file.
    pub path: PathBuf,
}

/// Reads and checks the state file `path` (the caller's) with the caller's key, before anything
/// is changed.
pub(crate) async fn read_state_file(env: &ClientEnv, path: &str) -> Result<StateRead> {
    if path.trim().is_empty() {
        return Err(CliError::InvalidArgument(
            "the storage-state file path is empty".into(),
        ));
    }
    let key = StateKey::from_env(env.state_key.as_deref())?;
    let path = env.resolve_path(Path::new(path));
    let file = path.clone();
    let bytes = off_worker(move || std::fs::read(&file))
        .await?
        .map_err(|e| CliError::StateFileUnreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
    let encrypted = state_file::is_encrypted(&bytes);
    let state = state_file::decode(&path, &bytes, key.as_ref())?;
    check_cookies(&path, &state.cookies)?;
    check_origins(&path, &state.origins)?;
    Ok(StateRead {
        state,
        encrypted,
        path,
    })
}

/// Refuses a file whose cookies the browser would refuse, before any is set.
fn check_cookies(path: &Path, cookies: &[StateCookie]) -> Result<()> {
    let problems: Vec<String> = cookies
        .iter()
        .filter_map(|c| {
            let why = if c.domain.trim_start_matches('.').is_empty() {
                "it has no domain"
            } else if !matches!(c.same_site.as_str(), "Strict" | "Lax" | "None") {
                "sameSite is not Strict, Lax or None"
            } else if c.same_site == "None" && !c.secure {
                "sameSite None needs secure"
            } else if !c.expires.is_finite() {
                "expires is not a number of seconds"
            } else if c.name.contains([';', '=']) || c.value.contains(';') {
                "its name or value has ';' or its name '='"
            } else {
                return None;
            };
            Some(format!("cookie {:?} of {}: {why}", c.name, c.domain))
        })
        .take(10)
        .collect();
    match problems.is_empty() {
        true => Ok(()),
        false => Err(CliError::StateFileUnreadable {
            path: path.to_path_buf(),
            reason: problems.join("; "),
        }),
    }
}

/// Refuses origins that are not `http(s)://host[:port]`.
fn check_origins(path: &Path, origins: &[StateOrigin]) -> Result<()> {
    match origins
        .iter()
        .find(|o| storage_origin(&o.origin).as_deref() != Some(o.origin.as_str()))
    {
        None => Ok(()),
        Some(bad) => Err(CliError::StateFileUnreadable {
            path: path.to_path_buf(),
            reason: format!(
                "origin {:?} is not an http(s) origin (scheme://host[:port], no path)",
                bad.origin
            ),
        }),
    }
}

/// The seconds since the epoch now.
fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or_default()
}

/// A cookie of the browser in the file's shape.
fn to_state_cookie(c: &network::Cookie) -> StateCookie {
    StateCookie {
        name: c.name.clone(),
        value: c.value.clone(),
        domain: c.domain.clone(),
        path: c.path.clone(),
        expires: if c.session || c.expires < 0.0 {
            -1.0
        } else {
            c.expires
        },
        http_only: c.http_only,
        secure: c.secure,
        // Chromium's default when the site gave none.
        same_site: c.same_site.clone().unwrap_or_else(|| "Lax".into()),
    }
}

/// A cookie of the file as the browser takes it: a host-only cookie (no leading dot) by URL, or
/// setting it by domain would make a domain cookie of it.
fn to_param(c: &StateCookie) -> network::CookieParam {
    let host_only = !c.domain.starts_with('.');
    let scheme = if c.secure { "https" } else { "http" };
    network::CookieParam {
        name: c.name.clone(),
        value: c.value.clone(),
        url: host_only.then(|| format!("{scheme}://{}{}", c.domain, c.path)),
        domain: (!host_only).then(|| c.domain.clone()),
        path: Some(c.path.clone()),
        secure: Some(c.secure),
        http_only: Some(c.http_only),
        same_site: Some(c.same_site.clone()),
        expires: (c.expires >= 0.0).then_some(c.expires),
    }
}

/// Sets the file's cookies that have not expired and reads them back: `(set, expired)`.
async fn set_cookies(
    root: &Session,
    cookies: &[StateCookie],
    deadline: &Deadline,
) -> Result<(usize, usize)> {
    let now = now_secs();
    let (live, expired): (Vec<&StateCookie>, Vec<&StateCookie>) = cookies
        .iter()
        .partition(|c| c.expires < 0.0 || c.expires > now);
    if live.is_empty() {
        return Ok((0, expired.len()));
    }
    let set = root
        .send_timeout(
            &storage::SetCookies {
                cookies: live.iter().map(|c| to_param(c)).collect(),
                browser_context_id: None,
            },
            deadline.capped(deadline::SLOW_CALL),
        )
        .await;
    if let Err(cdp_protocol::CdpError::Protocol { message, .. }) = &set {
        return Err(CliError::InvalidArgument(format!(
            "the browser refused the state's cookies: {message}"
        )));
    }
    set?;
    // Read back: a cookie the browser drops without an error must not answer ok.
    let stored = root
        .send_timeout(
            &storage::GetCookies::default(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?
        .cookies;
    let missing: Vec<String> = live
        .iter()
        .filter(|c| {
            !stored.iter().any(|s| {
                s.name == c.name
                    && s.path == c.path
                    && s.domain.trim_start_matches('.') == c.domain.trim_start_matches('.')
            })
        })
        .take(10)
        .map(|c| format!("{} (domain {}, path {})", c.name, c.domain, c.path))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::InvalidArgument(format!(
            "the browser did not keep these cookies of the state: {}",
            missing.join(", ")
        )));
    }
    Ok((live.len(), expired.len()))
}

/// The storage operation run in a frame: with `local` and `session` both null it reads both
/// storages; otherwise it writes the pairs given. `origin` (unless null) is the document's
/// origin it expects: another one answers `{wrong}` (a visit not yet committed).
const STORAGE_STATE_JS: &str = r#"(function (origin, local, session) {
  if (origin !== null && self.origin !== origin) return { wrong: String(self.origin) };
  const read = (s) => { const items = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); const v = s.getItem(k); if (k !== null && v !== null) items.push([k, v]); } return items; };
  const out = { origin: String(self.origin), local: [], session: [] };
  try {
    if (local === null && session === null) { out.local = read(self.localStorage); out.session = read(self.sessionStorage); }
    if (local !== null) for (const [k, v] of local) self.localStorage.setItem(k, v);
    if (session !== null) for (const [k, v] of session) self.sessionStorage.setItem(k, v);
  } catch (e) { return { error: String(e && e.message || e) }; }
  return out;
})"#;

/// What [`STORAGE_STATE_JS`] answers.
#[derive(Debug, Default, Deserialize)]
struct StorageAnswer {
    #[serde(default)]
    wrong: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    local: Vec<(String, String)>,
    #[serde(default)]
    session: Vec<(String, String)>,
}

fn pairs(items: &[NameValue]) -> Vec<(&str, &str)> {
    items
        .iter()
        .map(|i| (i.name.as_str(), i.value.as_str()))
        .collect()
}

fn name_values(items: Vec<(String, String)>) -> Vec<NameValue> {
    items
        .into_iter()
        .map(|(name, value)| NameValue { name, value })
        .collect()
}

/// The expression running [`STORAGE_STATE_JS`] with these arguments.
fn storage_expression(
    origin: Option<&str>,
    local: Option<&[NameValue]>,
    session: Option<&[NameValue]>,
) -> String {
    let args = serde_json::json!([origin, local.map(pairs), session.map(pairs)]);
    let args = args
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    format!("{STORAGE_STATE_JS}({args})")
}

/// Runs the storage operation in `context` of `session` (`None`: the main frame's document).
async fn run_storage(
    session: &Session,
    context: Option<cdp_protocol::ExecutionContextId>,
    expression: &str,
    deadline: &Deadline,
) -> Result<StorageAnswer> {
    let r = session
        .send_timeout(
            &runtime::Evaluate {
                expression: expression.to_string(),
                context_id: context,
                return_by_value: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "the storage script failed in the page: {}",
            ex.message()
        )));
    }
    let value = r.result.value.unwrap_or(serde_json::Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for its storage: {e}")))
}

/// One frame of the session's tabs that shows an origin with web storage.
#[derive(Debug, Clone)]
struct LiveFrame {
    /// The session the frame lives in (its tab's, or its out-of-process frame's).
    session: Session,
    /// The frame.
    frame_id: FrameId,
    /// Its document's origin.
    origin: String,
    /// The tab's page target (sessionStorage is per tab).
    tab: String,
    /// When the frame is embedded in a page of another site: that page's site and origin (the
    /// browser keeps such a frame's storage apart, per embedding site).
    partition: Option<Partition>,
}

/// The page a third-party frame is embedded in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Partition {
    /// Its site (the partition).
    site: String,
    /// Its origin.
    top_origin: String,
}

/// The site of a document of `origin`: `scheme://` and its registrable domain (Chromium's
/// `domainAndRegistry`; the host itself for an IP address or `localhost`).
fn site_of(origin: &str, domain_and_registry: Option<&str>) -> Option<String> {
    let u = url::Url::parse(origin).ok()?;
    let host = match domain_and_registry.filter(|d| !d.is_empty()) {
        Some(d) => d.to_string(),
        None => u.host_str()?.to_string(),
    };
    Some(format!("{}://{host}", u.scheme()))
}

/// The frames of the session's tabs, found through sessions of our own (detached by
/// [`Probe::detach`]): each tab's page target, then the out-of-process frames whose parent
/// frame is one already found.
#[derive(Debug, Default)]
struct Probe {
    sessions: Vec<Session>,
    frames: Vec<LiveFrame>,
    /// Targets that could not be read (a hung or crashed page), as warnings.
    problems: Vec<String>,
}

impl Probe {
    async fn detach(self) {
        for s in self.sessions.iter().rev() {
            let _ = tokio::time::timeout(Duration::from_secs(2), s.detach()).await;
        }
    }
}

/// A tab's top-level document: its origin and site.
type TopLevel = (String, String);

/// Finds every frame of the tabs `tabs` (their page target ids).
async fn probe_frames(conn: &BrowserConn, tabs: &[String], deadline: &Deadline) -> Result<Probe> {
    let root = conn.browser();
    let infos = root
        .send_timeout(
            &cdp_protocol::target::GetTargets::default(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?
        .target_infos;
    // (target, its tab, the tab's top-level (origin, site) once known)
    let mut queue: VecDeque<(String, String, Option<TopLevel>)> = tabs
        .iter()
        .filter(|t| infos.iter().any(|i| i.target_id.as_str() == t.as_str()))
        .map(|t| (t.clone(), t.clone(), None))
        .collect();
    let mut visited: HashSet<String> = HashSet::new();
    let mut known_frames: HashSet<String> = HashSet::new();
    // By frame id: a frame listed by its parent's session too is read in its own session (the
    // out-of-process frame's, found later).
    let mut frames: BTreeMap<String, LiveFrame> = BTreeMap::new();
    let mut probe = Probe::default();
    while let Some((target, tab, mut top)) = queue.pop_front() {
        if !visited.insert(target.clone()) || visited.len() > MAX_TARGETS {
            continue;
        }
        let tid = TargetId::from(target.as_str());
        let attaching = root.attach_to_target(&tid);
        let session =
            match tokio::time::timeout(deadline.capped(deadline::SLOW_CALL), attaching).await {
                Err(_) => return Err(deadline.timeout("attaching to the session's frames")),
                // Gone meanwhile: nothing of it to read.
                Ok(Err(e)) if e.kind() == ErrorKind::NoTarget => continue,
                Ok(Err(e)) => return Err(e.into()),
                Ok(Ok(s)) => s,
            };
        probe.sessions.push(session.clone());
        let tree = match session
            .send_timeout(&page::GetFrameTree, deadline.capped(deadline::QUICK_CALL))
            .await
        {
            Ok(t) => t.frame_tree,
            Err(e) => {
                probe
                    .problems
                    .push(format!("a frame of the session did not answer ({e})"));
                continue;
            }
        };
        let is_page = target == tab;
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            let id = node.frame.id.as_str().to_string();
            known_frames.insert(id.clone());
            let origin = node
                .frame
                .security_origin
                .as_deref()
                .and_then(storage_origin);
            let site = origin
                .as_deref()
                .and_then(|o| site_of(o, node.frame.domain_and_registry.as_deref()));
            // The tab's main frame (the root of its page target's tree) is the top level.
            if is_page && node.frame.parent_id.is_none() {
                top = origin.clone().zip(site.clone());
            }
            if let (Some(origin), Some(site)) = (origin, site) {
                let partition = top.as_ref().filter(|(_, top_site)| *top_site != site).map(
                    |(top_origin, top_site)| Partition {
                        site: top_site.clone(),
                        top_origin: top_origin.clone(),
                    },
                );
                frames.insert(
                    id,
                    LiveFrame {
                        session: session.clone(),
                        frame_id: node.frame.id.clone(),
                        origin,
                        tab: tab.clone(),
                        partition,
                    },
                );
            }
            stack.extend(node.child_frames.unwrap_or_default());
        }
        for i in &infos {
            let child_of_ours = i
                .parent_frame_id
                .as_ref()
                .is_some_and(|p| known_frames.contains(p.as_str()));
            if i.r#type == "iframe" && child_of_ours && !visited.contains(i.target_id.as_str()) {
                queue.push_back((i.target_id.as_str().to_string(), tab.clone(), top.clone()));
            }
        }
    }
    probe.frames = frames.into_values().collect();
    Ok(probe)
}

/// Runs the storage operation in `frame` (in an isolated world of it: the page's own scripts
/// and globals play no part).
async fn in_frame(
    frame: &LiveFrame,
    expression: &str,
    deadline: &Deadline,
) -> Result<StorageAnswer> {
    let world = frame
        .session
        .send_timeout(
            &page::CreateIsolatedWorld {
                frame_id: frame.frame_id.clone(),
                world_name: Some("actionbook-storage-state".into()),
                grant_universal_access: None,
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    run_storage(
        &frame.session,
        Some(world.execution_context_id),
        expression,
        deadline,
    )
    .await
}

/// A page of ours whose every request the engine answers with a blank page: visiting an origin
/// there gives a document of that origin without asking the site.
struct Visitor {
    conn: BrowserConn,
    session: Session,
    target_id: String,
    /// A tab the command opened for this (closed after), or the new session's first tab.
    scratch: bool,
    answering: tokio::task::AbortHandle,
    /// What the visited page itself is answered with while set (a page embedding a frame):
    /// every other request gets the blank page.
    embed: Arc<std::sync::Mutex<Option<String>>>,
}

impl Drop for Visitor {
    /// The answering task holds the connection open: it never outlives its visitor, also when a
    /// command is cut off before [`Visitor::finish`].
    fn drop(&mut self) {
        self.answering.abort();
    }
}

impl Visitor {
    /// A visitor on a new background tab of the session's browser.
    async fn scratch(conn: &BrowserConn, deadline: &Deadline) -> Result<Visitor> {
        let target_id = targets::open_page(conn, &targets::marker_url(), deadline).await?;
        match Visitor::on(conn, &target_id, true, deadline).await {
            Ok(v) => Ok(v),
            Err(e) => {
                let _ = targets::close_target(conn, &target_id, deadline).await;
                Err(e)
            }
        }
    }

    /// A visitor on the page target `target_id`.
    async fn on(
        conn: &BrowserConn,
        target_id: &str,
        scratch: bool,
        deadline: &Deadline,
    ) -> Result<Visitor> {
        let (root, tid) = (conn.browser(), TargetId::from(target_id));
        let attaching = root.attach_to_target(&tid);
        let session = tokio::time::timeout(deadline.capped(deadline::SLOW_CALL), attaching)
            .await
            .map_err(|_| deadline.timeout("attaching to a tab to write the storage"))??;
        // Subscribed before interception starts: no paused request is missed.
        let mut paused = session.subscribe::<fetch::RequestPaused>();
        let enabled = session
            .send_timeout(
                &fetch::Enable {
                    patterns: Some(vec![fetch::RequestPattern {
                        url_pattern: Some("*".into()),
                        resource_type: None,
                        request_stage: Some("Request".into()),
                    }]),
                    handle_auth_requests: None,
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await;
        if let Err(e) = enabled {
            let _ = session.detach().await;
            return Err(e.into());
        }
        let answerer = session.clone();
        let embed: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
        let embedding = embed.clone();
        let main_frame = target_id.to_string();
        let blank = base64::engine::general_purpose::STANDARD.encode(BLANK_PAGE);
        let answering = tokio::spawn(async move {
            while let Some(ev) = paused.next().await {
                let Ok(p) = ev else { continue };
                // The page target's id is its main frame's.
                let page_itself =
                    p.resource_type == "Document" && p.frame_id.as_str() == main_frame;
                let html = page_itself
                    .then(|| crate::session::lock(&embedding).clone())
                    .flatten();
                let body = match html {
                    Some(h) => base64::engine::general_purpose::STANDARD.encode(h),
                    None => blank.clone(),
                };
                let _ = answerer
                    .send_timeout(
                        &fetch::FulfillRequest {
                            request_id: p.request_id,
                            response_code: 200,
                            response_headers: Some(vec![
                                fetch::HeaderEntry {
                                    name: "Content-Type".into(),
                                    value: "text/html; charset=utf-8".into(),
                                },
                                fetch::HeaderEntry {
                                    name: "Cache-Control".into(),
                                    value: "no-store".into(),
                                },
                            ]),
                            body: Some(body),
                            response_phrase: None,
                        },
                        deadline::QUICK_CALL,
                    )
                    .await;
            }
        })
        .abort_handle();
        Ok(Visitor {
            conn: conn.clone(),
            session,
            target_id: target_id.to_string(),
            scratch,
            answering,
            embed,
        })
    }

    /// Visits `top_origin` with a page that embeds a frame of `origin`, and runs the storage
    /// operation in that frame: the storage `origin` has when embedded in that site's pages.
    async fn at_embedded(
        &self,
        top_origin: &str,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        let src = serde_json::Value::String(format!("{origin}/")).to_string();
        *crate::session::lock(&self.embed) = Some(format!(
            "<!doctype html><title></title><iframe src={src}></iframe>"
        ));
        let answer = self
            .in_embedded(top_origin, origin, local, session, deadline)
            .await;
        *crate::session::lock(&self.embed) = None;
        answer
    }

    async fn in_embedded(
        &self,
        top_origin: &str,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        // Loads the embedding page (its own storage untouched: nothing to write there).
        self.at(top_origin, None, None, deadline).await?;
        let expression = storage_expression(Some(origin), local, session);
        let root = self.conn.browser();
        let until = tokio::time::Instant::now() + deadline.capped(deadline::SLOW_CALL);
        loop {
            // An out-of-process frame (site isolation): its own target, child of the page.
            let infos = root
                .send_timeout(
                    &cdp_protocol::target::GetTargets::default(),
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await?
                .target_infos;
            let child = infos.iter().find(|i| {
                i.r#type == "iframe"
                    && i.parent_frame_id.as_ref().map(|f| f.as_str())
                        == Some(self.target_id.as_str())
                    && i.url.starts_with(origin)
            });
            let answer = if let Some(child) = child {
                let tid = child.target_id.clone();
                let attaching = root.attach_to_target(&tid);
                match tokio::time::timeout(deadline.capped(deadline::QUICK_CALL), attaching).await {
                    Ok(Ok(frame)) => {
                        let a = run_storage(&frame, None, &expression, deadline).await;
                        let _ = frame.detach().await;
                        a.ok()
                    }
                    _ => None,
                }
            } else {
                // The frame in the page's own process.
                let tree = self
                    .session
                    .send_timeout(&page::GetFrameTree, deadline.capped(deadline::QUICK_CALL))
                    .await?
                    .frame_tree;
                let inner = tree.child_frames.unwrap_or_default().into_iter().find(|c| {
                    c.frame
                        .security_origin
                        .as_deref()
                        .and_then(storage_origin)
                        .as_deref()
                        == Some(origin)
                });
                match inner {
                    Some(c) => {
                        let frame = LiveFrame {
                            session: self.session.clone(),
                            frame_id: c.frame.id,
                            origin: origin.to_string(),
                            tab: self.target_id.clone(),
                            partition: None,
                        };
                        in_frame(&frame, &expression, deadline).await.ok()
                    }
                    None => None,
                }
            };
            match answer {
                Some(a) if a.wrong.is_none() => return Ok(a),
                _ if tokio::time::Instant::now() >= until => {
                    if deadline.is_over() {
                        return Err(deadline.timeout("writing the storage of a state"));
                    }
                    return Err(CliError::Internal(format!(
                        "the frame of {origin} embedded in a page of {top_origin} did not load \
                         to reach its storage"
                    )));
                }
                _ => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }

    /// Visits `origin` and runs the storage operation there once its document is the origin's.
    async fn at(
        &self,
        origin: &str,
        local: Option<&[NameValue]>,
        session: Option<&[NameValue]>,
        deadline: &Deadline,
    ) -> Result<StorageAnswer> {
        let nav = self
            .session
            .send_timeout(
                &page::Navigate {
                    url: format!("{origin}/"),
                    ..Default::default()
                },
                deadline.capped(deadline::SLOW_CALL),
            )
            .await?;
        if let Some(e) = nav.error_text {
            return Err(CliError::NavigationFailed {
                url: origin.to_string(),
                reason: e,
            });
        }
        let expression = storage_expression(Some(origin), local, session);
        // The answer to Page.navigate may come before the new document takes scripts: asked
        // again (bounded) until the document is the origin's.
        let until = tokio::time::Instant::now() + deadline.capped(deadline::SLOW_CALL);
        loop {
            let last = match run_storage(&self.session, None, &expression, deadline).await {
                Ok(a) if a.wrong.is_none() => return Ok(a),
                Ok(a) => format!("the page is still {}", a.wrong.unwrap_or_default()),
                // The old document went away under the call.
                Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { message, .. })) => message,
                Err(e) => return Err(e),
            };
            if tokio::time::Instant::now() >= until {
                if deadline.is_over() {
                    return Err(deadline.timeout("writing the storage of a state"));
                }
                return Err(CliError::Internal(format!(
                    "a visit to {origin} to reach its storage did not take: {last}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Stops answering; a scratch tab is closed, a session's own tab is left on `about:blank`
    /// without the visits in its history.
    async fn finish(self, deadline: &Deadline) -> Result<()> {
        self.answering.abort();
        let _ = self
            .session
            .send_timeout(&fetch::Disable, deadline.capped(deadline::QUICK_CALL))
            .await;
        if self.scratch {
            let _ = self.session.detach().await;
            targets::close_target(&self.conn, &self.target_id, deadline).await
        } else {
            let back = self
                .session
                .send_timeout(
                    &page::Navigate {
                        url: "about:blank".into(),
                        ..Default::default()
                    },
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await;
            let forgot = match back {
                Ok(_) => self.forget_visits(deadline).await,
                Err(e) => Err(e.into()),
            };
            let _ = self.session.detach().await;
            forgot
        }
    }

    /// Drops the visits from the tab's history once it is back on `about:blank`: until that
    /// document commits, the browser refuses (`Not attached to an active page`), so it is asked
    /// again (bounded).
    async fn forget_visits(&self, deadline: &Deadline) -> Result<()> {
        let until = tokio::time::Instant::now() + deadline.capped(deadline::QUICK_CALL);
        loop {
            let href: Option<String> = crate::page::eval::read(
                &self.session,
                "location.href",
                deadline.capped(deadline::QUICK_CALL),
                "the tab's URL",
            )
            .await
            .ok();
            let forgot = match href.as_deref() {
                Some("about:blank") => {
                    crate::page::navigation::forget_history(&self.session, deadline).await
                }
                _ => Err(CliError::Internal(format!(
                    "the tab did not go back to about:blank (it shows {})",
                    href.as_deref().unwrap_or("nothing readable")
                ))),
            };
            match forgot {
                Ok(()) => return Ok(()),
                Err(e) if tokio::time::Instant::now() >= until => return Err(e),
                Err(_) => tokio::time::sleep(Duration::from_millis(25)).await,
            }
        }
    }
}

/// Where a write of storage goes.
#[derive(Debug, Clone, Copy)]
enum Place<'a> {
    /// A page of the origin itself.
    Own(&'a str),
    /// A frame of `origin` embedded in a page of `top` (the storage kept for that site).
    Embedded { top: &'a str, origin: &'a str },
}

/// One origin's storage to write.
#[derive(Debug, Clone, Copy)]
struct Write<'a> {
    place: Place<'a>,
    local: &'a [NameValue],
    session: &'a [NameValue],
}

impl<'a> Write<'a> {
    fn origin(&self) -> &'a str {
        match self.place {
            Place::Own(o) | Place::Embedded { origin: o, .. } => o,
        }
    }
}

/// The writes of `state`: its localStorage, and with `with_session` its sessionStorage, of
/// every origin that has any.
fn writes_of(state: &StorageState, with_session: bool) -> Vec<Write<'_>> {
    fn kept(keep: bool, items: &[NameValue]) -> &[NameValue] {
        if keep { items } else { &[] }
    }
    let own = state.origins.iter().map(|o| Write {
        place: Place::Own(&o.origin),
        local: &o.local_storage,
        session: kept(with_session, &o.session_storage),
    });
    let embedded = state.partitioned_origins.iter().map(|p| Write {
        place: Place::Embedded {
            top: &p.top_level_origin,
            origin: &p.origin,
        },
        local: &p.local_storage,
        session: kept(with_session, &p.session_storage),
    });
    own.chain(embedded)
        .filter(|w| !w.local.is_empty() || !w.session.is_empty())
        .collect()
}

/// Writes each of `writes` through `visitor`, then finishes it (also on failure). Returns how
/// many origins' localStorage was written.
async fn write_by_visits(
    visitor: Visitor,
    writes: &[Write<'_>],
    deadline: &Deadline,
) -> Result<usize> {
    let mut written = 0;
    let mut result = Ok(());
    for w in writes {
        let local = (!w.local.is_empty()).then_some(w.local);
        let session = (!w.session.is_empty()).then_some(w.session);
        let answer = match w.place {
            Place::Own(origin) => visitor.at(origin, local, session, deadline).await,
            Place::Embedded { top, origin } => {
                visitor
                    .at_embedded(top, origin, local, session, deadline)
                    .await
            }
        };
        match answer {
            Ok(a) if a.error.is_none() => written += usize::from(local.is_some()),
            Ok(a) => {
                result = Err(CliError::Unsupported(format!(
                    "the storage of {} could not be written: {}",
                    w.origin(),
                    a.error.unwrap_or_default()
                )));
                break;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let finished = visitor.finish(deadline).await;
    result?;
    finished?;
    Ok(written)
}

/// Starts a new session from a state: its cookies, then each origin's localStorage and
/// sessionStorage. In a browser the session launched they are written in its first tab
/// (`target_id`, before it is recorded as a tab or loads anything), which is left on
/// `about:blank` with no history. The first tab of a browser behind `--cdp-endpoint` is a page
/// that was there before, not ours to navigate: localStorage is written in a scratch tab, and
/// the sessionStorage that had no tab to go to is returned as warnings.
pub(crate) async fn apply_at_start(
    conn: &BrowserConn,
    target_id: &str,
    own_tab: bool,
    state: &StorageState,
    deadline: &Deadline,
) -> Result<Vec<String>> {
    set_cookies(&conn.browser(), &state.cookies, deadline).await?;
    let writes = writes_of(state, own_tab);
    let mut warnings = Vec::new();
    if !own_tab {
        let lost: Vec<&str> = writes_of(state, true)
            .iter()
            .filter(|w| !w.session.is_empty())
            .map(|w| w.origin())
            .collect();
        if !lost.is_empty() {
            warnings.push(format!(
                "--state: the sessionStorage of {} was not written (it belongs to a tab, and the \
                 first tab of a browser behind --cdp-endpoint is not ours to navigate)",
                lost.join(", ")
            ));
        }
    }
    if writes.is_empty() {
        return Ok(warnings);
    }
    let visitor = match own_tab {
        true => Visitor::on(conn, target_id, false, deadline).await?,
        false => Visitor::scratch(conn, deadline).await?,
    };
    write_by_visits(visitor, &writes, deadline).await?;
    Ok(warnings)
}

/// One origin's storage as a save collects it.
#[derive(Debug)]
struct Kept {
    /// Its localStorage, once read.
    local: Option<Vec<NameValue>>,
    /// Its sessionStorage, over the tabs.
    session: Vec<NameValue>,
    /// The page embedding it, for a partitioned origin.
    top_origin: Option<String>,
}

/// The page targets of the session's tabs.
fn tab_targets(slot: &BrowserSession) -> Vec<String> {
    slot.with_record(|r| r.tabs.iter().map(|t| t.target_id.clone()).collect())
}

impl SessionCommand for StorageStateSave {
    type Data = Document;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<Document>> {
        if self.path.trim().is_empty() {
            return Err(CliError::InvalidArgument(
                "the storage-state file path is empty".into(),
            ));
        }
        // The key is checked before anything is read.
        let key = StateKey::from_env(cx.env.state_key.as_deref())?;
        let path = cx.env.resolve_path(Path::new(&self.path));
        let deadline = cx.deadline;
        let conn = slot.connect(deadline).await?;
        let root = conn.browser();
        let cookies: Vec<StateCookie> = root
            .send_timeout(
                &storage::GetCookies::default(),
                deadline.capped(deadline::QUICK_CALL),
            )
            .await?
            .cookies
            .iter()
            .map(to_state_cookie)
            .collect();

        // (origin, partition site) -> its storage
        let mut by_origin: BTreeMap<(String, Option<String>), Kept> = BTreeMap::new();
        let probe = probe_frames(&conn, &tab_targets(slot), deadline).await?;
        let mut warnings = probe.problems.clone();
        let read = storage_expression(None, None, None);
        let mut failed = None;
        for frame in &probe.frames {
            let answer = match in_frame(frame, &read, deadline).await {
                Ok(a) => a,
                // A frame that navigated or went away since it was listed.
                Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { message, .. })) => {
                    warnings.push(format!(
                        "a frame of {} was not read: {message}",
                        frame.origin
                    ));
                    continue;
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            if let Some(e) = answer.error {
                warnings.push(format!("the storage of {} was not read: {e}", frame.origin));
                continue;
            }
            let key = (
                frame.origin.clone(),
                frame.partition.as_ref().map(|p| p.site.clone()),
            );
            let entry = by_origin.entry(key).or_insert_with(|| Kept {
                local: None,
                session: Vec::new(),
                top_origin: frame.partition.as_ref().map(|p| p.top_origin.clone()),
            });
            if entry.local.is_none() {
                entry.local = Some(name_values(answer.local));
            }
            // sessionStorage is per tab: the keys of every tab, the first tab's value kept.
            for (name, value) in answer.session {
                if !entry.session.iter().any(|nv| nv.name == name) {
                    entry.session.push(NameValue { name, value });
                }
            }
        }
        probe.detach().await;
        if let Some(e) = failed {
            return Err(e);
        }

        // Origins the session showed that no frame shows now: their localStorage, read by a
        // visit in a scratch tab.
        let gone: Vec<String> = slot
            .origins
            .all()
            .into_iter()
            .filter(|o| !by_origin.contains_key(&(o.clone(), None)))
            .collect();
        if !gone.is_empty() {
            let visitor = Visitor::scratch(&conn, deadline).await?;
            let mut result = Ok(());
            for origin in &gone {
                match visitor.at(origin, None, None, deadline).await {
                    Ok(a) if a.error.is_none() => {
                        by_origin.insert(
                            (origin.clone(), None),
                            Kept {
                                local: Some(name_values(a.local)),
                                session: Vec::new(),
                                top_origin: None,
                            },
                        );
                    }
                    Ok(a) => warnings.push(format!(
                        "the storage of {origin} was not read: {}",
                        a.error.unwrap_or_default()
                    )),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            let finished = visitor.finish(deadline).await;
            result?;
            finished?;
        }

        let mut origins = Vec::new();
        let mut partitioned_origins = Vec::new();
        for ((origin, site), kept) in by_origin {
            let local_storage = kept.local.unwrap_or_default();
            if local_storage.is_empty() && kept.session.is_empty() {
                continue;
            }
            match (site, kept.top_origin) {
                (Some(top_level_site), Some(top_level_origin)) => {
                    partitioned_origins.push(PartitionedOrigin {
                        origin,
                        top_level_site,
                        top_level_origin,
                        local_storage,
                        session_storage: kept.session,
                    })
                }
                _ => origins.push(StateOrigin {
                    origin,
                    local_storage,
                    session_storage: kept.session,
                }),
            }
        }
        let state = StorageState {
            cookies,
            origins,
            partitioned_origins,
        };
        let data = SaveData {
            path: path.display().to_string(),
            encrypted: key.is_some(),
            cookies: state.cookies.len(),
            origins: state.origins.len(),
            partitioned_origins: state.partitioned_origins.len(),
            local_storage_keys: state
                .origins
                .iter()
                .map(|o| o.local_storage.len())
                .sum::<usize>()
                + state
                    .partitioned_origins
                    .iter()
                    .map(|o| o.local_storage.len())
                    .sum::<usize>(),
            session_storage_keys: state
                .origins
                .iter()
                .map(|o| o.session_storage.len())
                .sum::<usize>()
                + state
                    .partitioned_origins
                    .iter()
                    .map(|o| o.session_storage.len())
                    .sum::<usize>(),
            not_kept: NOT_KEPT,
        };
        let bytes = state_file::encode(&state, key.as_ref())?;
        let file = path.clone();
        off_worker(move || store::write_atomic(&file, &bytes))
            .await?
            .map_err(|source| CliError::ArtifactWrite {
                path: path.display().to_string(),
                source,
            })?;
        let mut done = Done::data(document(&data)?);
        done.warnings = warnings;
        Ok(done)
    }
}

impl SessionCommand for StorageStateLoad {
    type Data = Document;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<Document>> {
        let read = read_state_file(cx.env, &self.path).await?;
        let deadline = cx.deadline;
        let conn = slot.connect(deadline).await?;
        let (cookies, cookies_expired) =
            set_cookies(&conn.browser(), &read.state.cookies, deadline).await?;

        // localStorage: shared by every tab of its origin (and embedding site), written in a
        // scratch tab.
        let local = writes_of(&read.state, false);
        let local_storage_origins = match local.is_empty() {
            true => 0,
            false => {
                let visitor = Visitor::scratch(&conn, deadline).await?;
                write_by_visits(visitor, &local, deadline).await?
            }
        };

        // sessionStorage: a tab's own, written in the tabs whose frames show the origin (in the
        // same partition).
        let sessions: Vec<(String, Option<String>, &[NameValue])> = read
            .state
            .origins
            .iter()
            .map(|o| (o.origin.clone(), None, o.session_storage.as_slice()))
            .chain(read.state.partitioned_origins.iter().map(|p| {
                (
                    p.origin.clone(),
                    Some(p.top_level_site.clone()),
                    p.session_storage.as_slice(),
                )
            }))
            .filter(|(_, _, items)| !items.is_empty())
            .collect();
        let mut restored = Vec::new();
        let mut skipped = Vec::new();
        if !sessions.is_empty() {
            let probe = probe_frames(&conn, &tab_targets(slot), deadline).await?;
            let mut failed = None;
            'origins: for (origin, site, items) in &sessions {
                let expression = storage_expression(None, None, Some(items));
                let mut tabs_done: HashSet<&str> = HashSet::new();
                let frames = probe.frames.iter().filter(|f| {
                    &f.origin == origin && f.partition.as_ref().map(|p| &p.site) == site.as_ref()
                });
                for frame in frames {
                    // Frames of one origin in one tab share their sessionStorage.
                    if !tabs_done.insert(frame.tab.as_str()) {
                        continue;
                    }
                    match in_frame(frame, &expression, deadline).await {
                        Ok(a) if a.error.is_none() => {}
                        Ok(a) => {
                            failed = Some(CliError::Unsupported(format!(
                                "the sessionStorage of {origin} could not be written: {}",
                                a.error.unwrap_or_default()
                            )));
                            break 'origins;
                        }
                        Err(e) => {
                            failed = Some(e);
                            break 'origins;
                        }
                    }
                }
                let label = match site {
                    Some(site) => format!("{origin} (in {site})"),
                    None => origin.clone(),
                };
                match tabs_done.is_empty() {
                    true => skipped.push(label),
                    false => restored.push(label),
                }
            }
            probe.detach().await;
            if let Some(e) = failed {
                return Err(e);
            }
        }
        let mut warnings = Vec::new();
        if !skipped.is_empty() {
            warnings.push(format!(
                "sessionStorage belongs to a tab: not written for {} (no tab of the session shows it; open it and load again)",
                skipped.join(", ")
            ));
        }
        let data = LoadData {
            path: read.path.display().to_string(),
            encrypted: read.encrypted,
            cookies,
            cookies_expired,
            local_storage_origins,
            session_storage_restored: restored,
            session_storage_skipped: skipped,
            not_kept: NOT_KEPT,
        };
        let mut done = Done::data(document(&data)?);
        done.warnings = warnings;
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(domain: &str, same_site: &str, secure: bool) -> StateCookie {
        StateCookie {
            name: "a".into(),
            value: "b".into(),
            domain: domain.into(),
            path: "/".into(),
            expires: -1.0,
            http_only: false,
            secure,
            same_site: same_site.into(),
        }
    }

    #[test]
    fn host_only_cookies_are_set_by_url_and_domain_cookies_by_domain() {
        let p = to_param(&cookie("127.0.0.1", "Lax", false));
        assert_eq!(p.url.as_deref(), Some("http://127.0.0.1/"));
        assert_eq!(p.domain, None);
        assert_eq!(p.expires, None);
        let p = to_param(&cookie(".x.test", "None", true));
        assert_eq!(p.url, None);
        assert_eq!(p.domain.as_deref(), Some(".x.test"));
    }

    #[test]
    fn cookies_and_origins_the_browser_would_refuse_are_refused_first() {
        let path = Path::new("s.json");
        assert!(check_cookies(path, &[cookie("x.test", "Lax", false)]).is_ok());
        for bad in [
            cookie("", "Lax", false),
            cookie("x.test", "lax-ish", false),
            cookie("x.test", "None", false),
        ] {
            assert!(check_cookies(path, &[bad]).is_err());
        }
        let origin = |o: &str| StateOrigin {
            origin: o.into(),
            ..Default::default()
        };
        assert!(check_origins(path, &[origin("http://127.0.0.1:8080")]).is_ok());
        for bad in ["http://x.test/path", "file:///tmp", "x.test", "null"] {
            assert!(check_origins(path, &[origin(bad)]).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_storage_expression_passes_its_arguments_as_json() {
        let items = [NameValue {
            name: "k\"".into(),
            value: "v\n".into(),
        }];
        let e = storage_expression(Some("http://a.test"), Some(&items), None);
        assert!(
            e.ends_with(r#"("http://a.test", [["k\"","v\n"]], null)"#),
            "{e}"
        );
    }
}
