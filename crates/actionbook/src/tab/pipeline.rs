//! The stages every tab command goes through, in order:
//!
//! 1. [`find`]: the session and the tab (a tab the page opened itself is adopted first);
//! 2. [`queue`]: the tab's queue (tab commands run one at a time per tab);
//! 3. [`enter`]: connect, attach, take crash news into account, load a page that did not answer;
//! 4. [`run_watched`]: the command itself, ended at once if the page crashes meanwhile;
//! 5. [`settle`]: what the outcome means for the tab (trust in its URL/title, crashed, detached);
//! 6. [`finish`]: the context (URL and title after the command, window) and warnings; a failure's
//!    context is the page as it is then ([`page_now`]).
//!
//! Hooks that later commands need (auto-wait, allowed domains, tracing) go between these.

use std::sync::Arc;

use envelope::{CommandName, Context, Envelope};

use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, CommandTraits, TabTarget};
use crate::reply::{Done, failure_of, success};
use crate::session::targets::{self, refresh_tabs};
use crate::tab::services::{crash, dialogs::DialogAnswerer};
use crate::tab::{BrowserSession, Sessions, TabCommand, TabCx, TabSlot, TabState, attach};

/// Runs a tab command through every stage and answers with its envelope.
pub(crate) async fn run_tab<C: TabCommand>(
    sessions: &Sessions,
    name: CommandName,
    traits: CommandTraits,
    cmd: C,
    deadline: &Deadline,
    env: &ClientEnv,
) -> Envelope {
    let target = cmd.target().clone();
    if traits.needs_timeout && !deadline.was_given() {
        let e = CliError::TimeoutRequired { command: name };
        return failure_of(
            name,
            traits,
            Some(Context::tab(&target.session, &target.tab)),
            &e,
        );
    }
    let (slot, tab_slot) = match find(sessions, &target, deadline).await {
        Ok(found) => found,
        Err((context, e)) => return failure_of(name, traits, context, &e),
    };
    // A failure carries the page as it is now when the command got as far as running.
    let result = async {
        let mut state = queue(&tab_slot, deadline, name)
            .await
            .map_err(|e| (e, None, Vec::new(), false))?;
        let tab = (target.tab.as_str(), tab_slot.clone());
        let mut cx = enter(&slot, tab, &mut state, deadline, env, traits)
            .await
            .map_err(|e| (e, None, Vec::new(), false))?;
        // Notes of a command that failed before its answer are not this one's.
        cx.state.frames.take_match_warnings();
        let started = std::time::Instant::now();
        let done = run_watched(cmd, &mut cx).await;
        match settle(&mut cx, traits, done) {
            Ok(mut done) => match allowlist_told(&mut cx, started) {
                // The tab's navigation was refused: that is the answer, with all it has to tell.
                (Some(denial), refused) => {
                    let mut told = std::mem::take(&mut done.warnings);
                    told.extend(self::told(&mut cx));
                    told.extend(refused);
                    let (now, _) = page_now(&mut cx, &denial).await;
                    Err((denial, now, told, true))
                }
                (None, refused) => {
                    done.warnings.extend(refused);
                    finish::<C>(name, &mut cx, done)
                        .await
                        .map_err(|e| (e, None, Vec::new(), true))
                }
            },
            Err(e) => {
                let mut told = told(&mut cx);
                let (denial, refused) = allowlist_told(&mut cx, started);
                told.extend(refused);
                // A navigation the allowlist refused is why it failed (a redirect of `goto`).
                let e = denial.unwrap_or(e);
                let (now, silent) = page_now(&mut cx, &e).await;
                // Out of time on a page that does not answer while the browser does: say so.
                let e = match timed_out(e, deadline, name) {
                    e if silent && e.code() == envelope::ErrorCode::Timeout => {
                        CliError::PageBusy { cause: Box::new(e) }
                    }
                    e => e,
                };
                Err((e, now, told, true))
            }
        }
    }
    .await;
    let (e, now, told, ran) = match result {
        Ok(envelope) => return envelope,
        Err(failed) => failed,
    };
    let e = match e {
        e if e.is_session_end() => match slot.crashed_error() {
            Some(gone) => gone,
            // Gone while the command ran on it: said so, not as a tab that never was (a key
            // chord such as Control+W closes a tab as in a browser; a page may close itself).
            None if tab_gone(&slot, &target).await => match ran {
                true => CliError::TabClosedUnder {
                    session: target.session.to_string(),
                    tab: target.tab.to_string(),
                    command: name.as_str().to_string(),
                },
                false => CliError::TabNotFound {
                    session: target.session.to_string(),
                    tab: target.tab.to_string(),
                },
            },
            None => e,
        },
        other => timed_out(other, deadline, name),
    };
    let mut envelope = failure_of(name, traits, Some(failed_context(&slot, &target, now)), &e);
    envelope.meta.warnings = told;
    envelope
}

/// A browser call cut off by the command's own deadline is the command timing out.
fn timed_out(e: CliError, deadline: &Deadline, name: CommandName) -> CliError {
    match e {
        CliError::Cdp(cdp_protocol::CdpError::Timeout { .. }) if deadline.is_over() => {
            deadline.timeout(name.as_str())
        }
        other => other,
    }
}

/// How long a failed command may look at its page for the context: the page (or the browser,
/// for a page that does not answer) is asked once, and a slow answer is not waited for.
const FAILED_LOOK: std::time::Duration = std::time::Duration::from_millis(500);

/// The page's URL and title (the title `None` when only the browser's URL is known) after a
/// command failed with `e`, when the tab is still there: the page may have moved on since the
/// tab's record was written (a navigation during a wait that then ran out of time). The page is
/// asked, and the browser at once beside it for a page that does not answer; `None` when the tab
/// is gone, crashed or replaced, or neither answered within [`FAILED_LOOK`]. Never changes the
/// failure. Also whether the page itself was silent while the browser answered (its main thread
/// busy).
async fn page_now(cx: &mut TabCx<'_>, e: &CliError) -> (Option<(String, Option<String>)>, bool) {
    if e.is_session_end() || cx.state.crashed || cx.state.attached.is_none() || !cx.is_current() {
        return (None, false);
    }
    let read = crate::page::eval::read::<(String, String)>(
        &cx.page,
        "[location.href, document.title]",
        FAILED_LOOK,
        "the URL and title",
    );
    let browser = cx.conn.browser();
    let target_id = cx.state.target_id.clone().unwrap_or_default();
    let get_info = cdp_protocol::target::GetTargetInfo {
        target_id: Some(cdp_protocol::TargetId::from(target_id.as_str())),
    };
    let asked = browser.send_timeout(&get_info, FAILED_LOOK);
    // Each call is capped at FAILED_LOOK; the bound around both is a little longer, so a page
    // that does not answer is seen to time out (with the same bound, the outer one ran out first
    // and a silent page was taken for no answer at all).
    let both = FAILED_LOOK + std::time::Duration::from_millis(200);
    let Ok((read, asked)) = tokio::time::timeout(both, async { tokio::join!(read, asked) }).await
    else {
        return (None, false);
    };
    let silent = matches!(&read, Err(CliError::Cdp(e)) if e.kind() == cdp_protocol::ErrorKind::Timeout)
        && asked.is_ok();
    let seen = match (read, asked) {
        (Ok((url, title)), _) => {
            // Kept, as after a command that succeeded.
            remember_page(cx, &url, &title).await;
            Some((url, Some(title)))
        }
        // The browser's title may be the URL shown in place of none: only its URL is used.
        (Err(_), Ok(info)) if !info.target_info.url.is_empty() => {
            Some((info.target_info.url, None))
        }
        _ => None,
    };
    (seen, silent)
}

/// Whether the tab's page is gone (closed by `close-tab` or by itself while a command ran on
/// it): no longer in the session's record, or no longer among the browser's pages.
async fn tab_gone(slot: &BrowserSession, target: &TabTarget) -> bool {
    let Some(target_id) = slot.with_record(|r| r.tab(&target.tab).map(|t| t.target_id.clone()))
    else {
        return true;
    };
    let Some(conn) = slot.conn() else {
        return false;
    };
    let look = Deadline::after_ms(2000);
    match targets::page_targets(&conn, &look).await {
        Ok(pages) => !pages.iter().any(|p| p.target_id == target_id),
        Err(_) => false,
    }
}

/// The context of a tab command that failed (spec 3.1: an error names the page it happened on):
/// the page's URL and title as seen just now (`now`, see [`page_now`]), else the tab's last
/// known URL; and its window when the session has several.
fn failed_context(
    slot: &BrowserSession,
    target: &TabTarget,
    now: Option<(String, Option<String>)>,
) -> Context {
    let mut context = Context::tab(&target.session, &target.tab);
    slot.with_record(|r| {
        if let Some(tab) = r.tab(&target.tab)
            && !tab.url.is_empty()
        {
            context.url = Some(tab.url.clone());
        }
        context.window_id = r.context_window(&target.tab);
    });
    if let Some((url, title)) = now {
        context.url = Some(url).filter(|u| !u.is_empty()).or(context.url);
        context.title = title.filter(|t| !t.is_empty());
    }
    context
}

/// Stage 1: the session and the tab's slot; on failure, the context located so far.
async fn find(
    sessions: &Sessions,
    target: &TabTarget,
    deadline: &Deadline,
) -> std::result::Result<(Arc<BrowserSession>, Arc<TabSlot>), (Option<Context>, CliError)> {
    let Some(slot) = sessions.get(&target.session) else {
        return Err((None, sessions.missing(&target.session)));
    };
    // A tab the page opened itself (a popup) is recorded when first looked for.
    if slot.tab_slot(&target.tab).is_none() && slot.conn().is_some() {
        refresh_tabs(&slot, deadline).await;
    }
    match slot.tab_slot(&target.tab) {
        Some(tab) => Ok((slot, tab)),
        None => Err((
            Some(Context::session(&target.session)),
            CliError::TabNotFound {
                session: target.session.to_string(),
                tab: target.tab.to_string(),
            },
        )),
    }
}

/// Stage 2: the tab's queue, bounded by the deadline.
async fn queue<'a>(
    tab: &'a TabSlot,
    deadline: &Deadline,
    name: CommandName,
) -> Result<tokio::sync::MutexGuard<'a, TabState>> {
    tokio::time::timeout(deadline.remaining(), tab.state.lock())
        .await
        .map_err(|_| deadline.timeout(name.as_str()))
}

/// Stage 3: a connected, attached tab ready for the command. A crashed page refuses every command
/// but those that load a page; a page that did not answer when attached is loaded again first.
async fn enter<'a>(
    slot: &Arc<BrowserSession>,
    (tab_id, tab_slot): (&str, Arc<TabSlot>),
    state: &'a mut TabState,
    deadline: &Deadline,
    env: &'a ClientEnv,
    traits: CommandTraits,
) -> Result<TabCx<'a>> {
    let conn = slot.connect(deadline).await?;
    let page = attach::attach(slot, tab_id, state, &conn, deadline, traits.loads_page).await?;
    note_crashes(state);
    if state.crashed && !traits.loads_page {
        return Err(CliError::PageCrashed {
            session: slot.id.clone(),
            tab: tab_id.to_string(),
        });
    }
    if !state.page_enabled {
        // A page still silent (its renderer busy since before the attach) cannot be loaded
        // again from this session: the reload is lost, and Chromium then answers "Not attached
        // to an active page" to everything. Said as what it is.
        attach::revive(&page, state, deadline)
            .await
            .map_err(|e| match e {
                CliError::Cdp(c)
                    if matches!(
                        c.kind(),
                        cdp_protocol::ErrorKind::Timeout | cdp_protocol::ErrorKind::NoActivePage
                    ) =>
                {
                    CliError::PageUnresponsive {
                        session: slot.id.clone(),
                        tab: tab_id.to_string(),
                    }
                }
                e => e,
            })?;
    }
    state.notes.clear();
    if traits.loads_page
        && !state.crashed
        && crate::page::navigation::unstick(&page, deadline).await
    {
        state.notes.push(
            "the page was not responding (a script kept its main thread busy for over a second, \
             an endless loop?): that script was stopped so the page could be loaded"
                .into(),
        );
    }
    Ok(TabCx {
        session: slot.clone(),
        tab_id: tab_id.to_string(),
        tab_slot,
        state,
        conn,
        page,
        deadline: deadline.clone(),
        env,
        url: None,
        title: None,
    })
}

/// Applies the crash verdicts seen since the last command (without waiting).
fn note_crashes(state: &mut TabState) {
    let latest = state
        .services
        .get::<crash::CrashWatch>()
        .map(|w| *w.receiver().borrow());
    if let Some(v) = latest
        && v.seq > state.crash_seen
    {
        state.crashed = v.crashed;
        state.crash_seen = v.seq;
    }
}

/// Stage 4: the command; a crash while it runs ends it at once, instead of at its timeout.
async fn run_watched<C: TabCommand>(cmd: C, cx: &mut TabCx<'_>) -> Result<Done<C::Data>> {
    let mut verdicts = cx
        .state
        .services
        .get::<crash::CrashWatch>()
        .map(crash::CrashWatch::receiver);
    let (session, tab) = (cx.session.id.clone(), cx.tab_id.clone());
    let mut reloaded = false;
    let mut seen = None;
    let done = {
        let run = cmd.run(cx);
        tokio::pin!(run);
        loop {
            tokio::select! {
                done = &mut run => break done,
                v = crash::next_verdict(&mut verdicts) => {
                    seen = Some(v.seq);
                    if v.crashed {
                        break Err(CliError::PageCrashed { session, tab });
                    }
                    reloaded = true;
                }
            }
        }
    };
    if let Some(seq) = seen {
        cx.state.crash_seen = cx.state.crash_seen.max(seq);
    }
    if reloaded {
        cx.state.crashed = false;
    }
    done
}

/// Stage 5: what the outcome means for the tab.
fn settle<D>(cx: &mut TabCx<'_>, traits: CommandTraits, done: Result<Done<D>>) -> Result<Done<D>> {
    cx.state.last_done = Some(std::time::Instant::now());
    if let Err(CliError::PageCrashed { .. }) = &done {
        cx.state.crashed = true;
    }
    if !traits.read_only || done.is_err() {
        cx.state.info_trusted = false;
    }
    if let Err(e) = &done
        && e.is_session_end()
    {
        // The tab's session went away: re-attach on the next command.
        cx.state.detach();
        if let Some(gone) = cx.session.crashed_error() {
            return Err(gone);
        }
    }
    done
}

/// The context after a command that set none: the page's URL and title (kept in the tab's
/// record). A page gone right after the command ran (a script's `window.close()`, a `close-tab`
/// meanwhile) leaves the command's answer standing, with a warning and the page's last known URL
/// and title (none when never read).
async fn context_after(cx: &mut TabCx<'_>, warnings: &mut Vec<String>) -> Result<Context> {
    let mut context = Context::tab(&cx.session.id, &cx.tab_id);
    let (url, title) = match (cx.url.take(), cx.title.take()) {
        (Some(u), Some(t)) => (u, t),
        _ => match cx.page_info().await {
            Ok(info) => info,
            Err(e) if e.is_session_end() => {
                warnings.push(format!("tab {} closed after the command ran", cx.tab_id));
                let (url, title) = cx
                    .session
                    .with_record(|r| r.tab(&cx.tab_id).map(|t| (t.url.clone(), t.title.clone())))
                    .unwrap_or_default();
                context.url = Some(url).filter(|u| !u.is_empty());
                context.title = Some(title).filter(|t| !t.is_empty());
                return Ok(context);
            }
            Err(e) => return Err(e),
        },
    };
    remember_page(cx, &url, &title).await;
    context.url = Some(url);
    context.title = Some(title);
    Ok(context)
}

/// Stage 6: the envelope, with the context after the command and the warnings it collected.
async fn finish<C: TabCommand>(
    name: CommandName,
    cx: &mut TabCx<'_>,
    mut done: Done<C::Data>,
) -> Result<Envelope> {
    if let Some(nonce) = cx.session.with_record(|r| r.content_boundary.clone()) {
        C::bound(
            &mut done.data,
            &crate::boundary::ContentBoundary::with_nonce(nonce),
        );
    }
    done.warnings.extend(told(cx));
    let mut context = match done.context.take() {
        Some(c) => c,
        None => context_after(cx, &mut done.warnings).await?,
    };
    if context.window_id.is_none() {
        context.window_id = cx.session.with_record(|r| r.context_window(&cx.tab_id));
    }
    let mut env = success(name, Some(context), done.data, done.warnings);
    env.meta.pagination = done.pagination;
    env.meta.truncated = done.truncated;
    Ok(env)
}

/// What the tab has to tell with the command's answer, whether it succeeded or failed: the
/// dialogs answered, the downloads begun, the selectors that matched several elements, and what
/// the pipeline did on the way (a busy page's script stopped). Told once.
fn told(cx: &mut TabCx<'_>) -> Vec<String> {
    let mut told = Vec::new();
    if let Some(dialogs) = cx.state.services.get::<DialogAnswerer>() {
        told.extend(dialogs.take());
    }
    let begun = cx.downloads().take_untold(&cx.tab_id);
    told.extend(begun.iter().map(download_notice));
    told.extend(cx.state.frames.take_match_warnings());
    told.append(&mut cx.state.notes);
    told
}

/// What the allowlist guard refused since the last answer (see
/// [`crate::session::guard::told`]).
fn allowlist_told(
    cx: &mut TabCx<'_>,
    started: std::time::Instant,
) -> (Option<CliError>, Vec<String>) {
    let rules = cx.session.with_record(|r| r.allowed_domains.clone());
    let target = cx.state.target_id.as_deref();
    crate::session::guard::told(&cx.session.guard, &rules, target, started)
}

/// What a command's answer says of a download the tab began.
fn download_notice(d: &crate::session::downloads::Download) -> String {
    use crate::session::downloads::DownloadState;
    match (d.state, &d.path) {
        (DownloadState::Completed, Some(path)) => format!(
            "download {} saved: {path} ({} bytes, from {})",
            d.id, d.received_bytes, d.url
        ),
        (DownloadState::Canceled, _) => {
            format!(
                "download {} of {:?} from {} was canceled",
                d.id, d.file_name, d.url
            )
        }
        _ => format!(
            "download {} began: {:?} from {} (`browser wait download` waits for its file)",
            d.id, d.file_name, d.url
        ),
    }
}

/// Records the page's URL and title on the tab (written only when they changed). A tab replaced
/// meanwhile (restart, close-tab) keeps its own.
async fn remember_page(cx: &TabCx<'_>, url: &str, title: &str) {
    let _ = cx
        .update_tab_if(|t| {
            let changed = t.url != url || t.title != title;
            if changed {
                t.url = url.to_string();
                t.title = title.to_string();
            }
            changed
        })
        .await;
}
