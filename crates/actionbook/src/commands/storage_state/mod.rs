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

mod cookies;
mod file;
mod frames;
mod storage_js;
#[cfg(test)]
mod tests;
mod visitor;
mod writes;
use cookies::*;
pub(crate) use file::read_state_file;
use frames::*;
use storage_js::*;
use visitor::*;
pub(crate) use writes::apply_at_start;
use writes::*;

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
                &storage::GetCookies {
                    browser_context_id: conn.own_context(),
                },
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
        let (cookies, cookies_expired) = set_cookies(
            &conn.browser(),
            conn.own_context(),
            &read.state.cookies,
            deadline,
        )
        .await?;

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
