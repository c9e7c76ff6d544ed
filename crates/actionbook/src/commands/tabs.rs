//! Tab management (spec 8): `browser list-tabs`, `new-tab` / `open`, `close-tab`.

use std::sync::Arc;

use envelope::{CloseTabData, Context, NewTabData, TabInfo, TabListData};
use serde::{Deserialize, Serialize};

use super::{Cx, SessionCommand};
use crate::deadline::Deadline;
use crate::error::{CliError, FailedOpen, Result};
use crate::fault;
use crate::model::ClientEnv;
use crate::model::{self, SessionTarget, TabId, TabTarget, WindowId};
use crate::page::{eval, navigation};
use crate::reply::Done;
use crate::session::BrowserConn;
use crate::session::targets::{self, refresh_tabs};
use crate::store::{self, Intent, TabRecord, artifacts};
use crate::tab::{BrowserSession, attach};

/// `browser list-tabs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ListTabs {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser new-tab` / `browser open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct NewTab {
    /// One or more URLs, opened in order.
    #[cfg_attr(feature = "cli", arg(required = true, value_name = "URL"))]
    pub urls: Vec<String>,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// Open in a new window.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub new_window: bool,
    /// Open in this window (wN).
    #[cfg_attr(feature = "cli", arg(long, value_name = "WID"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowId>,
    /// Custom tab id, once per URL in order.
    #[cfg_attr(
        feature = "cli",
        arg(long = "tab", visible_alias = "set-tab-id", value_name = "TID")
    )]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tab_ids: Vec<TabId>,
}

/// `browser close-tab`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CloseTab {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

impl SessionCommand for ListTabs {
    type Data = TabListData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<TabListData>> {
        slot.connect(cx.deadline).await?;
        let tabs = refresh_tabs(slot, cx.deadline).await;
        Ok(Done::data(TabListData {
            total_tabs: tabs.len() as u64,
            tabs,
        }))
    }
}

impl NewTab {
    /// Checks the request before any tab is opened.
    fn validate(&self, slot: &BrowserSession) -> Result<()> {
        // Refused URLs are refused before any tab is opened.
        let rules = slot.with_record(|r| r.allowed_domains.clone());
        for url in &self.urls {
            navigation::normalize_url(url)?;
            crate::session::guard::check_navigation(&rules, url, "browser new-tab")?;
        }
        if !self.tab_ids.is_empty() && self.tab_ids.len() != self.urls.len() {
            return Err(CliError::InvalidArgument(format!(
                "--tab was given {} times for {} URLs; give it once per URL or not at all",
                self.tab_ids.len(),
                self.urls.len()
            )));
        }
        for (i, id) in self.tab_ids.iter().enumerate() {
            if self.tab_ids[..i].contains(id) {
                return Err(CliError::InvalidArgument(format!(
                    "tab id '{id}' is given twice"
                )));
            }
            if !model::valid_tab_id(id) {
                return Err(CliError::InvalidArgument(format!(
                    "invalid tab id '{id}': must match ^[a-z][a-z0-9_-]{{1,63}}$"
                )));
            }
            if slot.with_record(|r| r.tab(id).is_some()) {
                return Err(CliError::InvalidArgument(format!(
                    "tab id '{id}' is already used in session '{}'",
                    slot.id
                )));
            }
        }
        if self.new_window && self.window.is_some() {
            return Err(CliError::InvalidArgument(
                "--new-window and --window cannot be used together".into(),
            ));
        }
        if let Some(w) = &self.window
            && !model::valid_window_id(w)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid window id '{w}': expected wN (w0, w1, ...)"
            )));
        }
        Ok(())
    }
}

impl SessionCommand for NewTab {
    type Data = NewTabData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<NewTabData>> {
        let deadline = cx.deadline;
        self.validate(slot)?;
        let _structure = tokio::time::timeout(deadline.remaining(), slot.structure.lock())
            .await
            .map_err(|_| deadline.timeout("browser new-tab"))?;
        let conn = slot.connect(deadline).await?;
        targets::record_windows(slot, &conn, deadline).await?;
        // The window the tabs go to: --window, or the one the first --new-window tab opened.
        let mut into_window: Option<String> = None;
        if let Some(w) = &self.window {
            if slot.with_record(|r| r.window(w).is_none()) {
                return Err(CliError::InvalidArgument(format!(
                    "window '{w}' not found in session '{}'",
                    slot.id
                )));
            }
            into_window = Some(w.to_string());
        }
        // Targets this command creates are recorded as tabs, or closed by the next engine if this
        // one dies first.
        store::write_intent(&slot.dir, &Intent::NewTab).await?;
        let result = self
            .open_all(slot, &conn, into_window, cx.env, deadline)
            .await;
        if result.is_err() {
            // A target created but not recorded must not outlive the command.
            let _ = targets::close_stray_targets(&conn, &slot.record(), deadline).await;
        }
        store::clear_intent(&slot.dir).await?;
        let (opened, failed, warnings) = result?;
        if !failed.is_empty() {
            return Err(CliError::OpenFailed { opened, failed });
        }
        let last = opened
            .last()
            .cloned()
            .ok_or_else(|| CliError::internal("no tab opened"))?;
        let context = Context {
            session_id: slot.id.clone(),
            tab_id: Some(last.tab_id.clone()),
            window_id: slot.with_record(|r| r.context_window(&last.tab_id)),
            url: Some(last.url.clone()),
            title: Some(last.title.clone()),
        };
        let many = opened.len() > 1;
        let mut done = Done::with_context(
            NewTabData {
                tab: last,
                tabs: if many { opened } else { Vec::new() },
                created: true,
                new_window: self.new_window,
            },
            context,
        );
        done.warnings = warnings;
        Ok(done)
    }
}

impl NewTab {
    /// Opens every URL in a new tab (into `into_window` when set); the tabs that loaded, the
    /// ones that did not, and warnings (a page its server answered with an HTTP error).
    async fn open_all(
        &self,
        slot: &Arc<BrowserSession>,
        conn: &BrowserConn,
        mut into_window: Option<String>,
        env: &ClientEnv,
        deadline: &Deadline,
    ) -> Result<(Vec<TabInfo>, Vec<FailedOpen>, Vec<String>)> {
        let mut opened: Vec<TabInfo> = Vec::new();
        let mut failed: Vec<FailedOpen> = Vec::new();
        let mut warnings: Vec<String> = Vec::new();
        for (i, url) in self.urls.iter().enumerate() {
            let (target_id, window_id) = match &into_window {
                Some(w) => (
                    targets::open_in(slot, conn, w, deadline).await?,
                    Some(w.clone()),
                ),
                None => {
                    let target_id =
                        targets::create_target(conn, self.new_window && i == 0, deadline).await?;
                    fault::step(env.abort_at.as_deref(), "new_tab.target_created");
                    // One lookup per new tab; an endpoint without the Browser domain leaves it unknown.
                    let window_id =
                        match targets::window_of_target(conn, &target_id, deadline).await {
                            Ok(native) => Some(slot.update(|r| r.window_for_native(native)).await?),
                            Err(_) => None,
                        };
                    if self.new_window {
                        into_window.clone_from(&window_id);
                    }
                    (target_id, window_id)
                }
            };
            let tab_id = slot
                .update(|r| {
                    let id = match self.tab_ids.get(i) {
                        Some(id) => id.to_string(),
                        None => r.alloc_tab_id(),
                    };
                    r.tabs.push(TabRecord {
                        tab_id: id.clone(),
                        target_id: target_id.clone(),
                        url: "about:blank".into(),
                        title: String::new(),
                        window_id,
                        cursor: None,
                        dialog_policy: None,
                        emulation: None,
                    });
                    id
                })
                .await?;
            fault::step(env.abort_at.as_deref(), "new_tab.tab_recorded");
            let Some(tab_slot) = slot.tab_slot(&tab_id) else {
                continue;
            };
            let mut state = tokio::time::timeout(deadline.remaining(), tab_slot.state.lock())
                .await
                .map_err(|_| deadline.timeout("browser new-tab"))?;
            let downloads_before = slot.downloads.begun();
            let result = async {
                let page = attach::attach(slot, &tab_id, &mut state, conn, deadline, false).await?;
                let navigated = navigation::navigate(
                    &page,
                    url,
                    deadline,
                    "browser new-tab",
                    navigation::OnTimeout::KeepLoading,
                    navigation::LoadState::Load,
                    &navigation::nothing_known,
                )
                .await;
                if let Err(e) = navigated {
                    // A download (or a 204) leaves the page where it was: our marker page, which
                    // is nothing the caller should see.
                    if navigation::is_aborted(&e) {
                        navigation::show_blank(&page).await;
                    }
                    return Err(e);
                }
                navigation::forget_history(&page, deadline).await?;
                eval::page_info_status(&page, deadline).await
            }
            .await;
            drop(state);
            let result = match result {
                Err(e) if navigation::is_aborted(&e) => Err(super::navigation::as_download(
                    slot,
                    &tab_id,
                    downloads_before,
                    e,
                    deadline,
                )
                .await),
                r => r,
            };
            match result {
                Ok((u, t, status)) => {
                    if let Some(w) = navigation::http_error_warning(&u, status) {
                        warnings.push(format!("{tab_id}: {w}"));
                    }
                    slot.update(|r| {
                        if let Some(rec) = r.tabs.iter_mut().find(|x| x.tab_id == tab_id) {
                            rec.url = u.clone();
                            rec.title = t.clone();
                        }
                    })
                    .await?;
                    opened.push(TabInfo {
                        tab_id,
                        url: u,
                        title: t,
                        native_tab_id: Some(target_id.into()),
                    });
                }
                Err(e) => failed.push(FailedOpen {
                    url: url.clone(),
                    tab_id,
                    error: Box::new(e),
                }),
            }
        }
        Ok((opened, failed, warnings))
    }
}

impl SessionCommand for CloseTab {
    type Data = CloseTabData;

    fn session_id(&self) -> &str {
        // close-tab is tab-addressed, but only changes the session's tab list: it runs as a session
        // command (no attach to the tab it closes).
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CloseTabData>> {
        let deadline = cx.deadline;
        let tab = self.target.tab.to_string();
        let Some(rec) = slot.with_record(|r| r.tab(&tab).cloned()) else {
            return Err(CliError::TabNotFound {
                session: slot.id.clone(),
                tab,
            });
        };
        let _structure = tokio::time::timeout(deadline.remaining(), slot.structure.lock())
            .await
            .map_err(|_| deadline.timeout("browser close-tab"))?;
        let conn = slot.connect(deadline).await?;
        match targets::close_target(&conn, &rec.target_id, deadline).await {
            Ok(()) => {}
            // Already gone: closing is idempotent.
            Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { .. })) => {}
            Err(e) => return Err(e),
        }
        slot.update(|r| r.remove_tab(&tab)).await?;
        slot.drop_tab_slot(&tab);
        artifacts::remove_refs(&slot.dir, &tab);
        Ok(Done::with_context(
            CloseTabData {
                closed_tab_id: tab.clone(),
            },
            Context::tab(&slot.id, &tab),
        ))
    }
}
