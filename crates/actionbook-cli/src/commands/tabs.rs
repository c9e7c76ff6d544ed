//! `browser list-tabs`, `new-tab` / `open`, `close-tab`.

use std::sync::Arc;

use crate::args;
use crate::browser::{self, Live};
use crate::engine::{Call, Done, Engine, SessionCommand, SessionSlot};
use crate::error::{CliError, FailedOpen, Result};
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
        // Refused URLs are refused before any tab is opened.
        for url in &self.urls {
            browser::normalize_url(url)?;
        }
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
        if self.new_window && self.window.is_some() {
            return Err(CliError::InvalidArgument(
                "--new-window and --window cannot be used together".into(),
            ));
        }
        if let Some(w) = &self.window
            && !state::valid_window_id(w)
        {
            return Err(CliError::InvalidArgument(format!(
                "invalid window id '{w}': expected wN (w0, w1, ...)"
            )));
        }
        let _ops = tokio::time::timeout(call.remaining(), slot.ops.lock())
            .await
            .map_err(|_| call.timeout("browser new-tab"))?;
        let live = slot.connect(call).await?;
        record_windows(slot, &live, call).await?;
        // The window the tabs go to: --window, or the one the first --new-window tab opened.
        let mut into_window: Option<String> = None;
        if let Some(w) = &self.window {
            if slot.record().window(w).is_none() {
                return Err(CliError::InvalidArgument(format!(
                    "window '{w}' not found in session '{}'",
                    slot.id
                )));
            }
            into_window = Some(w.clone());
        }
        let mut opened: Vec<TabInfo> = Vec::new();
        let mut failed: Vec<FailedOpen> = Vec::new();
        for (i, url) in self.urls.iter().enumerate() {
            let (target_id, window_id) = match &into_window {
                Some(w) => (open_in(slot, &live, w, call).await?, Some(w.clone())),
                None => {
                    let target_id =
                        browser::create_target(&live, self.new_window && i == 0, call).await?;
                    // One lookup per new tab; an endpoint without the Browser domain leaves it unknown.
                    let window_id = match browser::window_of_target(&live, &target_id, call).await {
                        Ok(native) => Some(slot.update(|r| r.window_for_native(native))?),
                        Err(_) => None,
                    };
                    if self.new_window {
                        into_window.clone_from(&window_id);
                    }
                    (target_id, window_id)
                }
            };
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
                    window_id,
                });
                id
            })?;
            let Some(tab_slot) = slot.tab_slot(&tab_id) else {
                continue;
            };
            let mut state = tokio::time::timeout(call.remaining(), tab_slot.state.lock())
                .await
                .map_err(|_| call.timeout("browser new-tab"))?;
            let result = async {
                let page =
                    browser::tab_session(slot, &tab_id, &mut state, &live, call, false).await?;
                browser::navigate(&page, url, call, "browser new-tab").await?;
                browser::forget_history(&page, call).await?;
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
                Err(e) => failed.push(FailedOpen {
                    url: url.clone(),
                    tab_id,
                    error: Box::new(e),
                }),
            }
        }
        if !failed.is_empty() {
            return Err(CliError::OpenFailed { opened, failed });
        }
        let last = opened
            .last()
            .cloned()
            .ok_or_else(|| CliError::internal("no tab opened"))?;
        let cx = Context {
            session_id: slot.id.clone(),
            tab_id: Some(last.tab_id.clone()),
            window_id: slot.record().context_window(&last.tab_id),
            url: Some(last.url.clone()),
            title: Some(last.title.clone()),
        };
        let many = opened.len() > 1;
        Ok(Done::with_context(
            NewTabData {
                tab: last,
                tabs: if many { opened } else { Vec::new() },
                created: true,
                new_window: self.new_window,
            },
            cx,
        ))
    }
}

/// Records the window of every tab that has none yet (records written before window ids existed).
async fn record_windows(slot: &Arc<SessionSlot>, live: &Live, call: &Call) -> Result<()> {
    let missing: Vec<String> = slot
        .record()
        .tabs
        .iter()
        .filter(|t| t.window_id.is_none())
        .map(|t| t.target_id.clone())
        .collect();
    for target_id in missing {
        // A tab that is gone (or an endpoint without the Browser domain) stays without a window.
        let Ok(native) = browser::window_of_target(live, &target_id, call).await else {
            continue;
        };
        slot.update(|r| {
            let w = r.window_for_native(native);
            if let Some(t) = r.tabs.iter_mut().find(|t| t.target_id == target_id) {
                t.window_id = Some(w);
            }
        })?;
    }
    Ok(())
}

/// Opens a blank tab in window `window_id` (from one of its open tabs) and returns its target id.
async fn open_in(
    slot: &Arc<SessionSlot>,
    live: &Live,
    window_id: &str,
    call: &Call,
) -> Result<String> {
    // Forget tabs the browser no longer has, so the opener is a live page.
    refresh_tabs(slot, call).await;
    let rec = slot.record();
    let native = rec
        .window(window_id)
        .map(|w| w.native_window_id)
        .ok_or_else(|| {
            CliError::InvalidArgument(format!(
                "window '{window_id}' not found in session '{}'",
                slot.id
            ))
        })?;
    let opener = rec
        .tabs
        .iter()
        .find(|t| t.window_id.as_deref() == Some(window_id))
        .ok_or_else(|| {
            CliError::InvalidArgument(format!(
                "window '{window_id}' of session '{}' has no open tabs (it was closed)",
                slot.id
            ))
        })?;
    browser::open_in_window(live, &opener.target_id, native, window_id, call).await
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
