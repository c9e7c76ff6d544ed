//! `browser list-tabs`, `new-tab` / `open`, `close-tab`.

use std::sync::Arc;

use crate::args;
use crate::browser;
use crate::engine::{Call, Done, Engine, SessionCommand, SessionSlot};
use crate::error::{CliError, Result};
use crate::output::Context;
use crate::state::{self, TabRecord};
use envelope::{CloseTabData, NewTabData, TabInfo, TabListData};

use super::lifecycle::refresh_tabs;

/// A tab as reported, from the durable record.
pub(crate) fn tab_info(t: &TabRecord) -> TabInfo {
    TabInfo {
        tab_id: t.tab_id.clone(),
        url: t.url.clone(),
        title: t.title.clone(),
        native_tab_id: Some(t.target_id.clone().into()),
    }
}

impl SessionCommand for args::ListTabs {
    type Data = TabListData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(
        self,
        _engine: &Engine,
        slot: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<TabListData>> {
        slot.connect(call).await?;
        let tabs = refresh_tabs(slot, call).await;
        Ok(Done::data(TabListData {
            total_tabs: tabs.len() as u64,
            tabs,
        }))
    }
}

impl SessionCommand for args::NewTab {
    type Data = NewTabData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(
        self,
        _engine: &Engine,
        slot: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<NewTabData>> {
        if !self.tab_ids.is_empty() && self.tab_ids.len() != self.urls.len() {
            return Err(CliError::InvalidArgument(format!(
                "--tab was given {} times for {} URLs; give it once per URL or not at all",
                self.tab_ids.len(),
                self.urls.len()
            )));
        }
        for id in &self.tab_ids {
            if !state::valid_tab_id(id) {
                return Err(CliError::InvalidArgument(format!(
                    "invalid tab id '{id}': must match ^[a-z][a-z0-9_-]{{1,63}}$"
                )));
            }
            if slot.record().tab(id).is_some() {
                return Err(CliError::InvalidArgument(format!(
                    "tab id '{id}' is already used in session '{}'",
                    slot.id
                )));
            }
        }
        let mut warnings = Vec::new();
        if self.window.is_some() {
            warnings
                .push("--window is not supported yet; opened in the default window".to_string());
        }
        let _ops = tokio::time::timeout(call.remaining(), slot.ops.lock())
            .await
            .map_err(|_| call.timeout("browser new-tab"))?;
        let live = slot.connect(call).await?;
        let mut opened: Vec<TabInfo> = Vec::new();
        let mut failed: Vec<(String, String)> = Vec::new();
        for (i, url) in self.urls.iter().enumerate() {
            let target_id = browser::create_target(&live, self.new_window, call).await?;
            let tab_id = slot.update(|r| {
                let id = match self.tab_ids.get(i) {
                    Some(id) => id.clone(),
                    None => r.alloc_tab_id(),
                };
                r.tabs.push(TabRecord {
                    tab_id: id.clone(),
                    target_id: target_id.clone(),
                    url: "about:blank".into(),
                    title: String::new(),
                });
                id
            })?;
            let Some(tab_slot) = slot.tab_slot(&tab_id) else {
                continue;
            };
            let mut state = tab_slot.state.lock().await;
            let result = async {
                let page = browser::tab_session(slot, &tab_id, &mut state, &live, call).await?;
                browser::navigate(&page, url, call, "browser new-tab").await?;
                browser::page_info(&page, call).await
            }
            .await;
            drop(state);
            match result {
                Ok((u, t)) => {
                    slot.update(|r| {
                        if let Some(rec) = r.tabs.iter_mut().find(|x| x.tab_id == tab_id) {
                            rec.url = u.clone();
                            rec.title = t.clone();
                        }
                    })?;
                    opened.push(TabInfo {
                        tab_id,
                        url: u,
                        title: t,
                        native_tab_id: Some(target_id.into()),
                    });
                }
                Err(e) => {
                    if self.urls.len() == 1 {
                        return Err(e);
                    }
                    failed.push((url.clone(), e.to_string()));
                }
            }
        }
        if !failed.is_empty() {
            return Err(CliError::NavigationFailed {
                url: failed
                    .iter()
                    .map(|(u, _)| u.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                reason: format!(
                    "{}; opened: {}",
                    failed
                        .iter()
                        .map(|(_, e)| e.as_str())
                        .collect::<Vec<_>>()
                        .join("; "),
                    opened
                        .iter()
                        .map(|t| t.tab_id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let last = opened
            .last()
            .cloned()
            .ok_or_else(|| CliError::internal("no tab opened"))?;
        let cx = Context {
            session_id: slot.id.clone(),
            tab_id: Some(last.tab_id.clone()),
            window_id: None,
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
            cx,
        );
        done.warnings = warnings;
        Ok(done)
    }
}

impl SessionCommand for args::CloseTab {
    type Data = CloseTabData;

    fn session_id(&self) -> &str {
        // close-tab is tab-addressed, but changes the session's tab list; it runs as a session command.
        &self.target.session
    }

    async fn run(
        self,
        _engine: &Engine,
        slot: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<CloseTabData>> {
        let tab = self.target.tab.clone();
        let Some(rec) = slot.record().tab(&tab).cloned() else {
            return Err(CliError::TabNotFound {
                session: slot.id.clone(),
                tab,
            });
        };
        let _ops = tokio::time::timeout(call.remaining(), slot.ops.lock())
            .await
            .map_err(|_| call.timeout("browser close-tab"))?;
        let live = slot.connect(call).await?;
        match browser::close_target(&live, &rec.target_id, call).await {
            Ok(()) => {}
            // Already gone: closing is idempotent.
            Err(CliError::Cdp(crate::cdp::CdpError::Protocol { .. })) => {}
            Err(e) => return Err(e),
        }
        slot.update(|r| r.tabs.retain(|t| t.tab_id != tab))?;
        slot.drop_tab_slot(&tab);
        let _ = std::fs::remove_file(slot.dir.join(format!("refs-{tab}.json")));
        Ok(Done::with_context(
            CloseTabData {
                closed_tab_id: tab.clone(),
            },
            Context::tab(&slot.id, &tab),
        ))
    }
}
