//! Browser contexts of sessions on a browser behind `--cdp-endpoint`: each session gets its own
//! (`Target.createBrowserContext`: its own tabs, cookies and storage), as Playwright's
//! `newContext` over `connectOverCDP` does, so several sessions on one remote browser do not
//! drive one another's tabs. `--attach-existing` takes the browser's default context instead (its
//! existing tabs).

use cdp_protocol::{BrowserContextId, Connection, target};

use crate::deadline::{self, Deadline};
use crate::error::Result;
use crate::store::SessionRecord;

/// The browser context a session's tabs live in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TabContext {
    /// One the session made: new tabs open in it, cookies, permissions and downloads are set
    /// in it.
    Own(BrowserContextId),
    /// The browser's default one (`--attach-existing`): only used to tell its targets from
    /// other sessions' (Chromium takes no default context's id where a context may be named).
    Default(BrowserContextId),
}

impl TabContext {
    /// The context a session's record names.
    pub(crate) fn of(rec: &SessionRecord) -> Option<TabContext> {
        let id = BrowserContextId::from(rec.browser_context_id.as_deref()?);
        Some(match rec.context_owned {
            true => TabContext::Own(id),
            false => TabContext::Default(id),
        })
    }

    /// Its id.
    pub(crate) fn id(&self) -> &BrowserContextId {
        match self {
            TabContext::Own(id) | TabContext::Default(id) => id,
        }
    }
}

/// How long `close` may take to reach a remote browser and dispose the session's context.
pub(crate) const DISPOSE_MS: u64 = 5_000;

/// Makes a new browser context for a session. It outlives the connection (`disposeOnDetach`
/// false): a new daemon finds the session's tabs in it; `close` disposes it.
pub(crate) async fn create(conn: &Connection, deadline: &Deadline) -> Result<BrowserContextId> {
    let r = conn
        .browser()
        .send_timeout(
            &target::CreateBrowserContext {
                dispose_on_detach: Some(false),
            },
            deadline.capped(deadline::SLOW_CALL),
        )
        .await?;
    Ok(r.browser_context_id)
}

/// Disposes a session's own context (closing its tabs); the browser goes on.
pub(crate) async fn dispose(
    conn: &Connection,
    id: &BrowserContextId,
    deadline: &Deadline,
) -> Result<()> {
    conn.browser()
        .send_timeout(
            &target::DisposeBrowserContext {
                browser_context_id: id.clone(),
            },
            deadline.capped(deadline::SLOW_CALL),
        )
        .await?;
    Ok(())
}

/// The browser's default context (where its existing tabs are), for `--attach-existing`. Chromium
/// 135 and later name it; before, it is the context of a page target that no made context holds.
/// None when neither tells (no page in it): the session then sees every page target.
pub(crate) async fn default_context(
    conn: &Connection,
    deadline: &Deadline,
) -> Result<Option<BrowserContextId>> {
    let made = conn
        .browser()
        .send_timeout(
            &target::GetBrowserContexts {},
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    if let Some(id) = made.default_browser_context_id {
        return Ok(Some(id));
    }
    let targets = conn
        .browser()
        .send_timeout(
            &target::GetTargets::default(),
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(targets
        .target_infos
        .into_iter()
        .filter(|t| t.r#type == "page")
        .filter_map(|t| t.browser_context_id)
        .find(|c| !made.browser_context_ids.contains(c)))
}
