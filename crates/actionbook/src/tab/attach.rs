//! A tab's flat page session: attached on first use and after the browser connection changed,
//! with `Page.enable` and the tab's services; and loading a page again that did not answer.

use std::sync::Arc;

use cdp_protocol::{ErrorKind, Session, TargetId, inspector, page};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::navigation;
use crate::session::BrowserConn;
use crate::tab::services::{Pending, crash, dialogs, network};
use crate::tab::{BrowserSession, TabState};

/// The attached flat session of a tab, attaching (enabling Page, starting the services) when
/// needed. `loads_page`: the command loads a page, so a page that does not answer `Page.enable`
/// (crashed before we attached, or blocked) is no error; it is loaded again by [`revive`].
pub(crate) async fn attach(
    slot: &Arc<BrowserSession>,
    tab_id: &str,
    state: &mut TabState,
    conn: &BrowserConn,
    deadline: &Deadline,
    loads_page: bool,
) -> Result<Session> {
    if let Some((generation, s)) = &state.attached
        && *generation == conn.generation
    {
        return Ok(s.clone());
    }
    let target_id = slot
        .with_record(|r| r.tab(tab_id).map(|t| t.target_id.clone()))
        .ok_or_else(|| CliError::TabNotFound {
            session: slot.id.clone(),
            tab: tab_id.to_string(),
        })?;
    let tid = TargetId::from(target_id.as_str());
    // No command of this daemon ended on the tab yet (a first use, a daemon restart): a document
    // that arrives from now on is one no command has seen (`wait navigation` takes it as the
    // navigation waited for; one begun before a restart commits while we attach).
    if state.last_done.is_none() {
        state.last_done = Some(std::time::Instant::now());
    }
    let pending = Pending::prepare(&conn.conn, &tid);
    if let Some(recorder) = pending.get::<network::NetworkRecorder>() {
        let (capacity, routes) = slot.with_record(|r| {
            (
                r.max_tracked_requests.unwrap_or(network::KEPT_REQUESTS),
                r.network_routes
                    .iter()
                    .filter(|route| route.tab_id == tab_id)
                    .cloned()
                    .collect(),
            )
        });
        recorder.configure(capacity, routes, Some(slot.guard.clone()));
    }
    if let Some(answerer) = pending.get::<dialogs::DialogAnswerer>() {
        if !state.dialog_policy_loaded {
            let kept = slot.with_record(|r| r.tab(tab_id).and_then(|t| t.dialog_policy.clone()));
            *state
                .dialog_policy
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = kept;
            state.dialog_policy_loaded = true;
        }
        answerer.configure(state.dialog_policy.clone());
    }
    let root = conn.browser();
    let attaching = root.attach_to_target(&tid);
    let session = match tokio::time::timeout(deadline.capped(deadline::SLOW_CALL), attaching).await
    {
        Err(_) => return Err(deadline.timeout("attaching to the tab")),
        Ok(Ok(s)) => s,
        Ok(Err(e)) if e.kind() == ErrorKind::NoTarget => {
            // The page closed itself (window.close, crash): forget the tab.
            let _ = slot.update(|r| r.remove_tab(tab_id)).await;
            return Err(CliError::TabNotFound {
                session: slot.id.clone(),
                tab: tab_id.to_string(),
            });
        }
        Ok(Err(e)) => return Err(e.into()),
    };
    let services = pending.start(&session);
    let mut verdicts = services
        .get::<crash::CrashWatch>()
        .map(crash::CrashWatch::receiver);
    let answer = enable_page(&session, &root, &tid, &mut verdicts, deadline, loads_page).await;
    let (crashed, page_enabled) = match answer {
        Ok(PageAnswer::Enabled) => (false, true),
        Ok(PageAnswer::Crashed) => (true, false),
        Ok(PageAnswer::Silent) if loads_page => (false, false),
        Ok(PageAnswer::Silent) | Err(_) => {
            drop(services);
            let _ = session.detach().await;
            return Err(match answer {
                Err(e) => e,
                Ok(_) => CliError::PageUnresponsive {
                    session: slot.id.clone(),
                    tab: tab_id.to_string(),
                },
            });
        }
    };
    // A launched headless session's viewport is exactly its window size.
    let viewport = slot.with_record(|r| {
        (r.launched && r.headless)
            .then_some(r.window_size)
            .flatten()
    });
    if let Some(size) = viewport
        && page_enabled
    {
        crate::session::launch::fit_viewport(&session, size, deadline).await?;
    }
    // `browser emulate` overrides last as long as the session that set them: set them again.
    let emulated = slot.with_record(|r| r.tab(tab_id).and_then(|t| t.emulation.clone()));
    if let Some(e) = emulated
        && page_enabled
    {
        super::emulation::apply(&session, conn, &e, viewport, deadline).await?;
    }
    // The services set up meanwhile (the network recorder attaches its own session); the command
    // starts once they see the page, so its first requests are recorded. A service that is slow
    // to get ready does not fail the command: it reports that itself when asked.
    // A crashed page answers them nothing (the command fails on the crash at once).
    if !crashed {
        let _ = tokio::time::timeout(deadline.capped(deadline::QUICK_CALL), services.ready()).await;
    }
    state.attached = Some((conn.generation, session.clone()));
    state.services = services;
    state.crash_seen = 0;
    state.target_id = Some(target_id);
    state.info_trusted = false;
    state.crashed = crashed;
    state.page_enabled = page_enabled;
    Ok(session)
}

/// How a tab's page took `Page.enable` on a new session.
enum PageAnswer {
    /// It answered.
    Enabled,
    /// Its renderer is gone.
    Crashed,
    /// No answer in time (a script blocks it).
    Silent,
}

/// `Page.enable` on a tab's new session.
///
/// A crash that happened while no daemon watched (killed, restarting) is announced to a new
/// session only on `Inspector.enable` (answered by the browser; the crash watch sees the notice):
/// sent first, so such a page is known crashed at once. A page that does not answer within 5 s is
/// silent. Unless the command loads a page anyway, a navigation on its way (begun before a daemon
/// restart) is told apart: it holds a new session's messages until it commits, which is waited
/// for up to the command's deadline.
async fn enable_page(
    session: &Session,
    root: &Session,
    target: &TargetId,
    verdicts: &mut Option<tokio::sync::watch::Receiver<crash::Verdict>>,
    deadline: &Deadline,
    loads_page: bool,
) -> Result<PageAnswer> {
    let _ = session
        .send_timeout(&inspector::Enable, deadline.capped(deadline::QUICK_CALL))
        .await;
    let mut patient = false;
    loop {
        let limit = match patient {
            true => deadline.remaining(),
            false => deadline.capped(deadline::QUICK_CALL),
        };
        let enable = session.send_timeout(&page::Enable, limit);
        let crashed_now = async {
            loop {
                if crash::next_verdict(verdicts).await.crashed {
                    return;
                }
            }
        };
        let e = tokio::select! {
            r = enable => match r {
                Ok(_) => return Ok(PageAnswer::Enabled),
                Err(e) => e,
            },
            () = crashed_now => return Ok(PageAnswer::Crashed),
        };
        if e.kind() != ErrorKind::Timeout {
            return Err(e.into());
        }
        if patient {
            return Err(deadline.timeout("waiting for the tab's navigation to commit"));
        }
        let pending = !loads_page
            && !deadline.is_over()
            && navigation::commit_pending(root, session, target, deadline).await;
        if !pending {
            return Ok(PageAnswer::Silent);
        }
        patient = true;
    }
}

/// Loads a page that did not answer `Page.enable` when attached (crashed before, or blocked)
/// again; afterwards a navigation command runs on it as usual.
pub(crate) async fn revive(
    page: &Session,
    state: &mut TabState,
    deadline: &Deadline,
) -> Result<()> {
    navigation::reload_and_enable(page, deadline).await?;
    state.page_enabled = true;
    state.crashed = false;
    Ok(())
}
