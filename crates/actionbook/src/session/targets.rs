//! The browser's page targets (tabs) and windows, and the session's view of them: tabs recorded
//! with their window, pages our tabs opened adopted as tabs.

use std::sync::Arc;
use std::time::Duration;

use cdp_protocol::{TargetId, browser, runtime, target};
use envelope::TabInfo;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::session::{BrowserConn, SessionSlot};
use crate::store::{self, SessionRecord, TabRecord};

/// One page target of the browser.
#[derive(Debug, Clone)]
pub(crate) struct PageTarget {
    /// The target id.
    pub target_id: String,
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The page that opened this one (`window.open`, a `target=_blank` link), if any.
    pub opener_id: Option<String>,
}

/// The browser's page targets (tabs) in the connection's browser context (every one when it has
/// none), in the browser's order: a session on a shared remote browser sees only its own.
pub(crate) async fn page_targets(
    conn: &BrowserConn,
    deadline: &Deadline,
) -> Result<Vec<PageTarget>> {
    let r = conn
        .browser()
        .send_timeout(
            &target::GetTargets::default(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(r.target_infos
        .into_iter()
        .filter(|t| t.r#type == "page" && in_context(conn, t))
        .map(|t| PageTarget {
            target_id: t.target_id.into_inner(),
            title: own_title(&t.url, t.title),
            url: t.url,
            opener_id: t.opener_id.map(TargetId::into_inner),
        })
        .collect())
}

/// Whether a target belongs to the connection's browser context (any, when it has none).
pub(crate) fn in_context(conn: &BrowserConn, t: &target::TargetInfo) -> bool {
    match &conn.context {
        None => true,
        Some(c) => t.browser_context_id.as_ref() == Some(c.id()),
    }
}

/// The page's own title from the browser's: for a page without one Chromium shows its URL
/// (without `http://` or `https://`), which is no title (`browser title` answers "" there).
fn own_title(url: &str, title: String) -> String {
    let bare = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or(url);
    if title == url || title == bare {
        String::new()
    } else {
        title
    }
}

/// A unique `about:blank#actionbook-...` URL: what a target a structural command opens loads
/// first, so a target an interrupted command left behind is known by it
/// ([`store::MARKER_URL_PREFIX`]).
pub(crate) fn marker_url() -> String {
    static NONCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{}{}-{nanos}-{}",
        store::MARKER_URL_PREFIX,
        std::process::id(),
        NONCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

/// Creates a new page target on a [`marker_url`] (in a new window when asked); the caller records
/// it as a tab and navigates it away from the marker.
pub(crate) async fn create_target(
    conn: &BrowserConn,
    new_window: bool,
    deadline: &Deadline,
) -> Result<String> {
    send_create(
        conn,
        target::CreateTarget {
            url: marker_url(),
            // Not `Some(false)`: that asks for the existing window, and once the last tab closed
            // there is none ("Failed to open new tab - no browser is open": the session could
            // open no tab again). Left out, Chromium uses the window there is, or opens one.
            new_window: new_window.then_some(true),
            browser_context_id: conn.own_context(),
            ..Default::default()
        },
        deadline,
    )
    .await
}

/// Sends `Target.createTarget` on the browser session and returns the new target's id.
async fn send_create(
    conn: &BrowserConn,
    create: target::CreateTarget,
    deadline: &Deadline,
) -> Result<String> {
    let r = conn
        .browser()
        .send_timeout(&create, deadline.capped(deadline::SLOW_CALL))
        .await?;
    Ok(r.target_id.into_inner())
}

/// Closes the page targets an interrupted structural command left: those still on a
/// [`marker_url`] that no tab of `rec` records. Returns how many it closed.
pub(crate) async fn close_stray_targets(
    conn: &BrowserConn,
    rec: &SessionRecord,
    deadline: &Deadline,
) -> Result<usize> {
    let stray: Vec<String> = page_targets(conn, deadline)
        .await?
        .into_iter()
        .filter(|p| {
            p.url.starts_with(store::MARKER_URL_PREFIX) && rec.tab_of_target(&p.target_id).is_none()
        })
        .map(|p| p.target_id)
        .collect();
    for id in &stray {
        match close_target(conn, id, deadline).await {
            Ok(()) | Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { .. })) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(stray.len())
}

/// Opens `url` in a new background tab of the browser (it loads there on its own) and returns the
/// new target's id.
pub(crate) async fn open_page(
    conn: &BrowserConn,
    url: &str,
    deadline: &Deadline,
) -> Result<String> {
    send_create(
        conn,
        target::CreateTarget {
            url: url.to_string(),
            background: Some(true),
            browser_context_id: conn.own_context(),
            ..Default::default()
        },
        deadline,
    )
    .await
}

/// Closes a page target and waits (bounded) until the browser no longer lists it:
/// `Target.closeTarget` answers before the target is gone, and a target list read in between
/// would still show it (and the page that opened it would adopt it again as a new tab).
pub(crate) async fn close_target(
    conn: &BrowserConn,
    target_id: &str,
    deadline: &Deadline,
) -> Result<()> {
    conn.browser()
        .send_timeout(
            &target::CloseTarget {
                target_id: TargetId::from(target_id),
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    let until = tokio::time::Instant::now() + deadline.capped(deadline::QUICK_CALL);
    while tokio::time::Instant::now() < until {
        let listed = page_targets(conn, deadline).await?;
        if !listed.iter().any(|t| t.target_id == target_id) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

/// Chromium's window id of a target (`Browser.getWindowForTarget`).
pub(crate) async fn window_of_target(
    conn: &BrowserConn,
    target_id: &str,
    deadline: &Deadline,
) -> Result<i64> {
    let r = conn
        .browser()
        .send_timeout(
            &browser::GetWindowForTarget {
                target_id: Some(TargetId::from(target_id)),
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(r.window_id)
}

/// Opens a blank tab in the window of `opener` (a page target) and returns its target id.
///
/// `Target.createTarget` always opens in the most recently created window, so the tab is opened
/// from the page itself: `window.open(<unique about:blank URL>, '_blank', 'noopener')` with a user
/// gesture opens a tab in the opener's window. The new target is found by its unique URL; when it
/// did not land in `native_window` it is closed and UNSUPPORTED_OPERATION reported.
async fn open_in_window(
    conn: &BrowserConn,
    opener: &str,
    native_window: i64,
    window_id: &str,
    deadline: &Deadline,
) -> Result<String> {
    let marker = marker_url();
    let page = match tokio::time::timeout(
        deadline.capped(deadline::SLOW_CALL),
        conn.browser().attach_to_target(&TargetId::from(opener)),
    )
    .await
    {
        Err(_) => return Err(deadline.timeout("attaching to a tab of the window")),
        Ok(r) => r?,
    };
    let opened = page
        .send_timeout(
            &runtime::Evaluate {
                expression: format!(
                    "void window.open({}, '_blank', 'noopener')",
                    serde_json::Value::String(marker.clone())
                ),
                user_gesture: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    let _ = page.detach().await;
    let opened = opened?;
    if let Some(ex) = &opened.exception_details {
        let what = ex
            .exception
            .as_ref()
            .and_then(|e| e.description.as_deref())
            .or(Some(ex.text.as_str()).filter(|t| !t.is_empty()))
            .unwrap_or("exception");
        return Err(CliError::Unsupported(format!(
            "cannot open a tab in window {window_id}: window.open failed in its page ({what})"
        )));
    }
    // The new target shows up in Target.getTargets with its URL; poll (bounded).
    let until = tokio::time::Instant::now() + deadline.capped(deadline::POPUP_APPEARS);
    let target_id = loop {
        if let Some(t) = page_targets(conn, deadline)
            .await?
            .into_iter()
            .find(|t| t.url == marker)
        {
            break t.target_id;
        }
        if tokio::time::Instant::now() >= until {
            if deadline.is_over() {
                return Err(deadline.timeout("opening a tab in the window"));
            }
            return Err(CliError::Unsupported(format!(
                "cannot open a tab in window {window_id}: the page did not open one (popup blocked?)"
            )));
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
    };
    match window_of_target(conn, &target_id, deadline).await {
        Ok(w) if w == native_window => Ok(target_id),
        other => {
            let _ = close_target(conn, &target_id, deadline).await;
            match other {
                Err(e) => Err(e),
                Ok(_) => Err(CliError::Unsupported(format!(
                    "cannot open a tab in window {window_id}: the browser opened it in another window"
                ))),
            }
        }
    }
}

/// Opens a blank tab in window `window_id` (from one of its open tabs) and returns its target id.
pub(crate) async fn open_in<T: Default>(
    slot: &Arc<SessionSlot<T>>,
    conn: &BrowserConn,
    window_id: &str,
    deadline: &Deadline,
) -> Result<String> {
    // Forget tabs the browser no longer has, so the opener is a live page.
    refresh_tabs(slot, deadline).await;
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
    open_in_window(conn, &opener.target_id, native, window_id, deadline).await
}

/// Records the window of every tab that has none yet (records written before window ids existed).
pub(crate) async fn record_windows<T: Default>(
    slot: &Arc<SessionSlot<T>>,
    conn: &BrowserConn,
    deadline: &Deadline,
) -> Result<()> {
    let missing: Vec<String> = slot.with_record(|r| {
        r.tabs
            .iter()
            .filter(|t| t.window_id.is_none())
            .map(|t| t.target_id.clone())
            .collect()
    });
    for target_id in missing {
        // A tab that is gone (or an endpoint without the Browser domain) stays without a window.
        let Ok(native) = window_of_target(conn, &target_id, deadline).await else {
            continue;
        };
        slot.update(|r| {
            let w = r.window_for_native(native);
            if let Some(t) = r.tabs.iter_mut().find(|t| t.target_id == target_id) {
                t.window_id = Some(w);
            }
        })
        .await?;
    }
    Ok(())
}

/// Records as new tabs the pages our tabs opened (`window.open`, `target=_blank` links; and those
/// in `opened_by`, `(page, opener page)`, which the browser gives no opener: a link opened in a
/// new tab by a middle click), and the pages those opened, in the browser's order; each in its
/// opener's window.
fn adopt_popups(r: &mut SessionRecord, targets: &[PageTarget], opened_by: &[(String, String)]) {
    loop {
        let popup = targets.iter().find_map(|p| {
            let opener_id = p.opener_id.as_ref().or_else(|| {
                opened_by
                    .iter()
                    .find(|(page, _)| *page == p.target_id)
                    .map(|(_, opener)| opener)
            });
            let opener = r.tabs.iter().find(|t| Some(&t.target_id) == opener_id)?;
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
            cursor: None,
            dialog_policy: None,
            emulation: None,
        });
    }
}

/// Refreshes the tabs' url/title from the browser (best effort), forgets tabs the browser no
/// longer has, records the pages our tabs opened as new tabs, and returns them.
pub(crate) async fn refresh_tabs<T: Default>(
    slot: &Arc<SessionSlot<T>>,
    deadline: &Deadline,
) -> Vec<TabInfo> {
    refresh_tabs_with(slot, deadline, &[]).await
}

/// [`refresh_tabs`], also recording the pages of `opened_by` (`(page, opener page)`) as tabs.
pub(crate) async fn refresh_tabs_with<T: Default>(
    slot: &Arc<SessionSlot<T>>,
    deadline: &Deadline,
    opened_by: &[(String, String)],
) -> Vec<TabInfo> {
    if let Some(conn) = slot.conn()
        && let Ok(targets) = page_targets(&conn, deadline).await
    {
        let _ = slot
            .update(|r| {
                r.tabs
                    .retain(|t| targets.iter().any(|p| p.target_id == t.target_id));
                // A tab that closed itself takes its network routes with it.
                r.prune_routes();
                for t in &mut r.tabs {
                    if let Some(p) = targets.iter().find(|p| p.target_id == t.target_id) {
                        t.url = p.url.clone();
                        t.title = p.title.clone();
                    }
                }
                adopt_popups(r, &targets, opened_by);
            })
            .await;
    }
    slot.with_record(|r| r.tabs.iter().map(TabInfo::from).collect())
}

#[cfg(test)]
mod tests {
    use super::own_title;

    #[test]
    fn a_title_that_is_the_url_shown_in_its_place_is_none() {
        let t = |u: &str, t: &str| own_title(u, t.to_string());
        assert_eq!(t("http://127.0.0.1:8/a.html", "127.0.0.1:8/a.html"), "");
        assert_eq!(t("https://x.test/", "x.test/"), "");
        assert_eq!(t("about:blank", "about:blank"), "");
        assert_eq!(t("file:///tmp/a.html", "file:///tmp/a.html"), "");
        assert_eq!(t("http://x.test/", "Home"), "Home");
    }
}
