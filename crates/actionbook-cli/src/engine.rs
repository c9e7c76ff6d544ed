//! The engine: sessions, tabs and the command dispatch. Usable in-process (`Engine::execute`) or
//! served by the daemon.
//!
//! Concurrency: the session table and each session's durable record sit behind short std locks that
//! are never held across `.await`. Work that must not interleave is queued on async FIFO queues:
//! one per tab (every tab-level command), one per session for structural changes (new/close tab,
//! restart, close), one per session for (re)connecting, and one for creating sessions.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::args::TabTarget;
use crate::browser::{self, Live};
use crate::commands::BrowserCommand;
use crate::error::{CliError, Result};
use crate::output::{self, Context, Data, Envelope};
use crate::state::{self, Home, SessionRecord, SessionStatus};

/// Default timeout of a command when `--timeout` is not given.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// One command sent to the engine.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The command and its arguments.
    pub command: BrowserCommand,
    /// `--timeout` in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

impl Request {
    /// Parses the words after `actionbook` (`["browser", "goto", URL, "--session", "s1", ...]`)
    /// into a request, exactly as the binary does; `--timeout` is honoured, `--json` ignored.
    /// For programs that drive the [`Engine`] in-process.
    pub fn from_args<I, S>(args: I) -> std::result::Result<Request, CliError>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString>,
    {
        use clap::Parser as _;
        let argv = std::iter::once(std::ffi::OsString::from("actionbook"))
            .chain(args.into_iter().map(Into::into));
        let cli = crate::args::Cli::try_parse_from(argv).map_err(|e| {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            CliError::InvalidArgument(first.trim_start_matches("error: ").to_string())
        })?;
        match cli.command {
            Some(crate::args::TopCommand::Browser { command }) => Ok(Request {
                command,
                timeout_ms: cli.global.timeout,
            }),
            _ => Err(CliError::InvalidArgument(
                "expected a `browser ...` command".to_string(),
            )),
        }
    }
}

/// What a handler returns: its data plus optional context override and warnings.
#[derive(Debug)]
pub(crate) struct Done<D> {
    pub data: D,
    pub context: Option<Context>,
    pub warnings: Vec<String>,
}

impl<D> Done<D> {
    /// Data only.
    pub fn data(data: D) -> Self {
        Done {
            data,
            context: None,
            warnings: Vec::new(),
        }
    }

    /// Data with an explicit context.
    pub fn with_context(data: D, context: Context) -> Self {
        Done {
            data,
            context: Some(context),
            warnings: Vec::new(),
        }
    }
}

/// Per-call information (deadline).
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub timeout_ms: u64,
    pub deadline: Instant,
}

impl Call {
    fn new(timeout_ms: Option<u64>) -> Call {
        let timeout_ms = timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS).max(1);
        Call {
            timeout_ms,
            deadline: Instant::now() + Duration::from_millis(timeout_ms),
        }
    }

    /// A call with its own timeout (for internal bounded work).
    pub fn with_timeout(ms: u64) -> Call {
        Call::new(Some(ms))
    }

    /// Time left before the deadline (at least 1 ms).
    pub fn remaining(&self) -> Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    }

    /// The TIMEOUT error for `what`.
    pub fn timeout(&self, what: &str) -> CliError {
        CliError::Timeout {
            what: what.to_string(),
            ms: self.timeout_ms,
        }
    }
}

/// A command that needs no session (`browser start`, `browser list-sessions`, `browser close`).
pub(crate) trait GlobalCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// Runs the command.
    async fn run(self, engine: &Engine, call: &Call) -> Result<Done<Self::Data>>;
}

/// A command addressed to a session.
pub(crate) trait SessionCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// The session addressed.
    fn session_id(&self) -> &str;
    /// Runs the command.
    async fn run(
        self,
        engine: &Engine,
        session: &Arc<SessionSlot>,
        call: &Call,
    ) -> Result<Done<Self::Data>>;
}

/// A command addressed to a tab; tab commands run one at a time per tab.
pub(crate) trait TabCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// Whether the command only reads the page (so the tab's URL/title stay trusted after it).
    const READ_ONLY: bool = false;
    /// Whether the command loads a page (so it may run on a tab whose page crashed).
    const LOADS_PAGE: bool = false;
    /// The tab addressed.
    fn target(&self) -> &TabTarget;
    /// Runs the command.
    async fn run(self, tab: &mut TabCx<'_>) -> Result<Done<Self::Data>>;
}

/// What a tab command works with.
pub(crate) struct TabCx<'a> {
    #[allow(dead_code)] // used by later commands (screenshots, artifacts)
    pub engine: &'a Engine,
    pub session: Arc<SessionSlot>,
    pub tab_id: String,
    pub state: &'a mut TabState,
    #[allow(dead_code)] // used by later commands (new-tab on click)
    pub live: Live,
    pub page: crate::cdp::Session,
    pub call: Call,
    /// Page URL/title after the command, when the handler already knows them.
    pub url: Option<String>,
    /// See `url`.
    pub title: Option<String>,
}

impl TabCx<'_> {
    /// `(location.href, document.title)` of the page. Answered from the browser's announced target
    /// info (no round trip to the page) when it was seen to agree with the page since the last
    /// command that could change it; else read from the page, and compared to decide that.
    /// Commands call this only before they change the page; afterwards `browser::page_info`.
    pub async fn page_info(&mut self) -> Result<(String, String)> {
        let browser = self.live.browser();
        let target_id = self.state.target_id.clone().unwrap_or_default();
        let announced = crate::page_info::announced(&browser, &target_id, &self.call);
        if self.state.info_trusted
            && let Some(seen) = announced.await
        {
            return Ok(seen);
        }
        let announced = crate::page_info::announced(&browser, &target_id, &self.call);
        let (read, seen) = tokio::join!(browser::page_info(&self.page, &self.call), announced);
        let read = read?;
        self.state.info_trusted = seen.as_ref() == Some(&read);
        Ok(read)
    }

    /// The URL a navigation starts from: the page's, or the last one recorded when the page crashed
    /// (its renderer cannot answer).
    pub async fn url_before_loading(&mut self) -> Result<String> {
        if self.state.crashed {
            return Ok(self
                .session
                .record()
                .tab(&self.tab_id)
                .map(|t| t.url.clone())
                .unwrap_or_default());
        }
        Ok(self.page_info().await?.0)
    }

    /// Drops the tab's ref table (the document changed).
    pub fn forget_refs(&mut self) {
        self.state.forget_refs(&self.session.dir, &self.tab_id);
    }
}

impl std::fmt::Debug for TabCx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TabCx")
            .field("session", &self.session.id)
            .field("tab", &self.tab_id)
            .finish()
    }
}

/// Per-tab state kept by the engine (guarded by the tab's queue).
#[derive(Debug, Default)]
pub(crate) struct TabState {
    /// The attached flat session and the connection generation it belongs to.
    pub attached: Option<(u64, crate::cdp::Session)>,
    /// Ref table etc., owned by the snapshot layer.
    pub extra: crate::browser::TabExtra,
    /// The tab's target id, known once attached.
    pub target_id: Option<String>,
    /// Whether the browser's announced URL/title of this tab were seen to agree with the page
    /// since the last command that could change the page (see `page_info`).
    pub info_trusted: bool,
    /// Crash events of the attached session.
    pub crash_watch: Option<crate::crash_watch::CrashWatch>,
    /// Whether the tab's page crashed and has not been loaded again since.
    pub crashed: bool,
    /// Answers given to the page's JavaScript dialogs, not yet reported.
    pub dialogs: Option<crate::dialogs::DialogLog>,
    /// Whether `Page.enable` answered on the attached session (not when it was attached to a page
    /// that had already crashed).
    pub page_enabled: bool,
}

impl TabState {
    /// Drops the tab's ref table, in memory and on disk (the document changed).
    pub fn forget_refs(&mut self, session_dir: &std::path::Path, tab_id: &str) {
        self.extra.frames.refs = Some(a11y_snapshot::RefTable::new());
        let _ = std::fs::remove_file(session_dir.join(format!("refs-{tab_id}.json")));
    }

    /// Applies the crash events received so far (without waiting).
    fn note_crashes(&mut self) {
        if let Some(crashed) = self.crash_watch.as_mut().and_then(|w| w.drain()) {
            self.crashed = crashed;
        }
    }
}

/// One tab's queue.
#[derive(Debug, Default)]
pub(crate) struct TabSlot {
    pub state: tokio::sync::Mutex<TabState>,
}

/// One session.
#[derive(Debug)]
pub(crate) struct SessionSlot {
    pub id: String,
    pub record: Mutex<SessionRecord>,
    pub live: Mutex<Option<Live>>,
    pub tabs: Mutex<BTreeMap<String, Arc<TabSlot>>>,
    /// Structural changes (new-tab, close-tab, restart, close).
    pub ops: tokio::sync::Mutex<()>,
    /// (Re)connecting to the browser.
    pub connecting: tokio::sync::Mutex<()>,
    /// Files of this session.
    pub dir: PathBuf,
    /// The browser process we launched in this daemon (closing it also reaps it).
    pub owned: Mutex<Option<crate::cdp::Browser>>,
    /// Connection generations handed out so far.
    pub generations: std::sync::atomic::AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these short locks leaves plain data behind; keep going.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SessionSlot {
    fn new(record: SessionRecord, dir: PathBuf) -> SessionSlot {
        SessionSlot {
            id: record.session_id.clone(),
            record: Mutex::new(record),
            live: Mutex::new(None),
            tabs: Mutex::new(BTreeMap::new()),
            ops: tokio::sync::Mutex::new(()),
            connecting: tokio::sync::Mutex::new(()),
            dir,
            owned: Mutex::new(None),
            generations: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A new connection generation.
    pub fn next_generation(&self) -> u64 {
        self.generations
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1
    }

    /// Keeps the launched browser (replacing and detaching any previous one).
    pub fn set_owned(&self, browser: Option<crate::cdp::Browser>) {
        let old = std::mem::replace(&mut *lock(&self.owned), browser);
        if let Some(b) = old {
            let _ = b.detach();
        }
    }

    /// Takes the launched browser, if this daemon launched it.
    pub fn take_owned(&self) -> Option<crate::cdp::Browser> {
        lock(&self.owned).take()
    }

    /// A copy of the durable record.
    pub fn record(&self) -> SessionRecord {
        lock(&self.record).clone()
    }

    /// Changes the record and writes it to disk atomically (under the record lock, so writes never
    /// reorder).
    pub fn update<R>(&self, f: impl FnOnce(&mut SessionRecord) -> R) -> Result<R> {
        let mut rec = lock(&self.record);
        let r = f(&mut rec);
        state::write_json(&self.dir.join("session.json"), &*rec)?;
        Ok(r)
    }

    /// Like [`SessionSlot::update`], but writes only when `f` reports a change.
    pub fn update_if(&self, f: impl FnOnce(&mut SessionRecord) -> bool) -> Result<()> {
        let mut rec = lock(&self.record);
        if f(&mut rec) {
            state::write_json(&self.dir.join("session.json"), &*rec)?;
        }
        Ok(())
    }

    /// The tab's queue, if the tab exists.
    pub fn tab_slot(&self, tab_id: &str) -> Option<Arc<TabSlot>> {
        lock(&self.record).tab(tab_id)?;
        let mut tabs = lock(&self.tabs);
        Some(tabs.entry(tab_id.to_string()).or_default().clone())
    }

    /// Forgets a tab's queue.
    pub fn drop_tab_slot(&self, tab_id: &str) {
        lock(&self.tabs).remove(tab_id);
    }

    /// Forgets every tab's queue.
    pub fn drop_all_tab_slots(&self) {
        lock(&self.tabs).clear();
    }

    /// The current live connection, if any and still open.
    pub fn live(&self) -> Option<Live> {
        lock(&self.live).clone().filter(|l| !l.is_closed())
    }

    /// Replaces the live connection.
    pub fn set_live(&self, live: Option<Live>) {
        *lock(&self.live) = live;
    }

    /// Status as observed now (without connecting).
    pub fn observed_status(&self) -> SessionStatus {
        let rec = self.record();
        if rec.status != SessionStatus::Running {
            return rec.status;
        }
        if self.live().is_some() {
            return SessionStatus::Running;
        }
        let had_live = lock(&self.live).is_some();
        match rec.browser_pid {
            Some(pid) if rec.launched && !browser::pid_alive(pid) => SessionStatus::Crashed,
            _ if had_live && rec.launched => SessionStatus::Crashed,
            _ => SessionStatus::Running,
        }
    }

    /// When the browser we launched is dead: marks the session crashed and returns the error to report.
    pub fn crashed_error(&self) -> Option<CliError> {
        let rec = self.record();
        let pid = rec.browser_pid.filter(|_| rec.launched)?;
        if browser::pid_alive(pid) {
            return None;
        }
        self.set_live(None);
        let _ = self.update(|r| r.status = SessionStatus::Crashed);
        Some(CliError::BrowserGone {
            session: self.id.clone(),
            detail: format!("process {pid} is gone"),
        })
    }

    /// A connection to the session's browser, re-attaching (new daemon, dropped socket) when needed.
    pub async fn connect(&self, call: &Call) -> Result<Live> {
        if let Some(l) = self.live() {
            return Ok(l);
        }
        let _guard = tokio::time::timeout(call.remaining(), self.connecting.lock())
            .await
            .map_err(|_| call.timeout("connecting to the browser"))?;
        if let Some(l) = self.live() {
            return Ok(l);
        }
        let rec = self.record();
        if rec.status == SessionStatus::Crashed {
            return Err(CliError::BrowserGone {
                session: self.id.clone(),
                detail: "it exited or crashed".into(),
            });
        }
        match browser::reconnect(&rec, self.next_generation(), call).await {
            Ok(live) => {
                self.set_live(Some(live.clone()));
                Ok(live)
            }
            Err(e) => {
                let gone = match rec.browser_pid {
                    Some(pid) if rec.launched => !browser::pid_alive(pid),
                    _ => false,
                };
                if gone {
                    let _ = self.update(|r| r.status = SessionStatus::Crashed);
                    Err(CliError::BrowserGone {
                        session: self.id.clone(),
                        detail: format!("process {} is gone", rec.browser_pid.unwrap_or_default()),
                    })
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// Configuration of an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// `$ACTIONBOOK_HOME`.
    pub home: Home,
}

/// The engine: every session and tab, every command. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    home: Home,
    sessions: Mutex<BTreeMap<String, Arc<SessionSlot>>>,
    /// Creating sessions (id allocation, profile checks).
    creating: tokio::sync::Mutex<()>,
}

impl Engine {
    /// An engine over `config.home`, loading the sessions recorded there (re-attaching lazily).
    pub fn new(config: EngineConfig) -> Result<Engine> {
        config.home.ensure()?;
        state::ensure_private_dir(&config.home.sessions_dir())?;
        let engine = Engine {
            inner: Arc::new(Inner {
                home: config.home,
                sessions: Mutex::new(BTreeMap::new()),
                creating: tokio::sync::Mutex::new(()),
            }),
        };
        engine.load_sessions()?;
        Ok(engine)
    }

    fn load_sessions(&self) -> Result<()> {
        let dir = self.inner.home.sessions_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        for entry in entries.flatten() {
            let path = entry.path().join("session.json");
            match state::read_json::<SessionRecord>(&path) {
                Ok(Some(rec)) => {
                    let slot = SessionSlot::new(rec, entry.path());
                    lock(&self.inner.sessions).insert(slot.id.clone(), Arc::new(slot));
                }
                Ok(None) => {}
                Err(e) => eprintln!("actionbook: skipping {}: {e}", path.display()),
            }
        }
        Ok(())
    }

    /// The home directory.
    pub fn home(&self) -> &Home {
        &self.inner.home
    }

    /// Runs one command and returns its envelope (never panics on bad input; errors become envelopes).
    pub async fn execute(&self, request: Request) -> Envelope {
        let started = Instant::now();
        let call = Call::new(request.timeout_ms);
        let env = request.command.dispatch(self, &call).await;
        env.with_duration_ms(started.elapsed().as_millis() as u64)
    }

    pub(crate) fn session(&self, id: &str) -> Option<Arc<SessionSlot>> {
        lock(&self.inner.sessions).get(id).cloned()
    }

    pub(crate) fn sessions(&self) -> Vec<Arc<SessionSlot>> {
        lock(&self.inner.sessions).values().cloned().collect()
    }

    pub(crate) fn insert_session(&self, slot: Arc<SessionSlot>) {
        lock(&self.inner.sessions).insert(slot.id.clone(), slot);
    }

    pub(crate) fn remove_session(&self, id: &str) -> Option<Arc<SessionSlot>> {
        lock(&self.inner.sessions).remove(id)
    }

    pub(crate) fn new_session_slot(&self, record: SessionRecord) -> Result<Arc<SessionSlot>> {
        let dir = self.inner.home.session_dir(&record.session_id);
        state::ensure_private_dir(&dir)?;
        let slot = Arc::new(SessionSlot::new(record, dir));
        slot.update(|_| ())?;
        Ok(slot)
    }

    pub(crate) async fn creating(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.inner.creating.lock().await
    }

    /// The next auto session id (`sN` from the global counter persisted on disk), without using it
    /// up; [`Engine::commit_session_id`] does that once the session exists. Callers hold `creating`.
    pub(crate) fn peek_session_id(&self) -> Result<(String, u64)> {
        let path = self.inner.home.file("counters.json");
        let c: state::Counters = state::read_json(&path)?.unwrap_or_default();
        let mut n = c.next_session.max(1);
        loop {
            let id = format!("s{n}");
            if self.session(&id).is_none() && !self.inner.home.session_dir(&id).exists() {
                return Ok((id, n));
            }
            n += 1;
        }
    }

    /// Uses up auto session number `n`.
    pub(crate) fn commit_session_id(&self, n: u64) -> Result<()> {
        let path = self.inner.home.file("counters.json");
        state::write_json(
            &path,
            &state::Counters {
                next_session: n + 1,
            },
        )
    }

    pub(crate) async fn run_global<C: GlobalCommand>(
        &self,
        name: &str,
        cmd: C,
        call: &Call,
    ) -> Envelope {
        match cmd.run(self, call).await {
            Ok(done) => output::success(name, done.context, done.data, done.warnings),
            Err(e) => output::failure(name, None, &e),
        }
    }

    pub(crate) async fn run_session<C: SessionCommand>(
        &self,
        name: &str,
        cmd: C,
        call: &Call,
    ) -> Envelope {
        let sid = cmd.session_id().to_string();
        let Some(slot) = self.session(&sid) else {
            return output::failure(
                name,
                Some(Context::session(&sid)),
                &CliError::SessionNotFound(sid),
            );
        };
        match cmd.run(self, &slot, call).await {
            Ok(done) => {
                let cx = done.context.unwrap_or_else(|| Context::session(&sid));
                output::success(name, Some(cx), done.data, done.warnings)
            }
            Err(e) => output::failure(name, Some(Context::session(&sid)), &e),
        }
    }

    pub(crate) async fn run_tab<C: TabCommand>(&self, name: &str, cmd: C, call: &Call) -> Envelope {
        let TabTarget { session, tab } = cmd.target().clone();
        let Some(slot) = self.session(&session) else {
            return output::failure(name, None, &CliError::SessionNotFound(session));
        };
        let err_cx = Context::tab(&session, &tab);
        // A tab the page opened itself (a popup) is recorded when first looked for.
        if slot.tab_slot(&tab).is_none() && slot.live().is_some() {
            crate::commands::refresh_tabs(&slot, call).await;
        }
        let Some(tab_slot) = slot.tab_slot(&tab) else {
            return output::failure(
                name,
                Some(Context::session(&session)),
                &CliError::TabNotFound { session, tab },
            );
        };
        let mut guard = match tokio::time::timeout(call.remaining(), tab_slot.state.lock()).await {
            Ok(g) => g,
            Err(_) => return output::failure(name, Some(err_cx), &call.timeout(name)),
        };
        let result = async {
            let live = slot.connect(call).await?;
            let page =
                browser::tab_session(&slot, &tab, &mut guard, &live, call, C::LOADS_PAGE).await?;
            let mut cx = TabCx {
                engine: self,
                session: slot.clone(),
                tab_id: tab.clone(),
                state: &mut guard,
                live,
                page,
                call: call.clone(),
                url: None,
                title: None,
            };
            cx.state.note_crashes();
            if cx.state.crashed && !C::LOADS_PAGE {
                return Err(CliError::PageCrashed {
                    session: session.clone(),
                    tab: tab.clone(),
                });
            }
            if !cx.state.page_enabled {
                browser::revive(&cx.page, cx.state, call).await?;
            }
            // A crash while the command runs ends it at once, instead of at its timeout.
            let mut crash_watch = cx.state.crash_watch.take();
            let mut reloaded = false;
            let done = {
                let run = cmd.run(&mut cx);
                tokio::pin!(run);
                loop {
                    tokio::select! {
                        done = &mut run => break done,
                        crashed = crate::crash_watch::next_of(&mut crash_watch) => {
                            if crashed {
                                break Err(CliError::PageCrashed {
                                    session: session.clone(),
                                    tab: tab.clone(),
                                });
                            }
                            reloaded = true;
                        }
                    }
                }
            };
            cx.state.crash_watch = crash_watch;
            if reloaded {
                cx.state.crashed = false;
            }
            if let Err(CliError::PageCrashed { .. }) = &done {
                cx.state.crashed = true;
            }
            if !C::READ_ONLY || done.is_err() {
                cx.state.info_trusted = false;
            }
            if let Err(CliError::Cdp(e)) = &done
                && e.is_closed()
            {
                // The tab's session went away: re-attach on the next command.
                cx.state.attached = None;
                if let Some(gone) = slot.crashed_error() {
                    return Err(gone);
                }
            }
            let mut done = done?;
            done.warnings
                .extend(crate::dialogs::take(&cx.state.dialogs));
            let mut context = match done.context {
                Some(c) => c,
                None => {
                    let (url, title) = match (cx.url.take(), cx.title.take()) {
                        (Some(u), Some(t)) => (u, t),
                        _ => cx.page_info().await?,
                    };
                    let _ = slot.update_if(|r| match r.tabs.iter_mut().find(|t| t.tab_id == tab) {
                        Some(t) if t.url != url || t.title != title => {
                            t.url = url.clone();
                            t.title = title.clone();
                            true
                        }
                        _ => false,
                    });
                    Context {
                        session_id: session.clone(),
                        tab_id: Some(tab.clone()),
                        window_id: None,
                        url: Some(url),
                        title: Some(title),
                    }
                }
            };
            if context.window_id.is_none() {
                context.window_id = lock(&slot.record).context_window(&tab);
            }
            Ok::<_, CliError>(output::success(
                name,
                Some(context),
                done.data,
                done.warnings,
            ))
        }
        .await;
        drop(guard);
        let result = match result {
            Err(CliError::Cdp(e)) if e.is_closed() => {
                Err(slot.crashed_error().unwrap_or(CliError::Cdp(e)))
            }
            other => other,
        };
        result.unwrap_or_else(|e| output::failure(name, Some(err_cx), &e))
    }

    /// Forgets every live connection without closing any browser (daemon shutdown).
    pub fn detach_all(&self) {
        for s in self.sessions() {
            if let Some(b) = s.take_owned() {
                let _ = b.detach();
            }
            s.set_live(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args;

    #[tokio::test]
    async fn engine_runs_in_process_without_a_daemon() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let engine = Engine::new(EngineConfig {
            home: Home::at(dir.path().join("home")),
        })?;
        let env = engine
            .execute(Request {
                command: BrowserCommand::ListSessions(args::ListSessions {}),
                timeout_ms: None,
            })
            .await;
        assert!(env.ok());
        assert!(env.to_text().starts_with("0 sessions"));
        let env = engine
            .execute(Request {
                command: BrowserCommand::Title(args::Title {
                    target: args::TabTarget {
                        session: "nope".into(),
                        tab: "t1".into(),
                    },
                }),
                timeout_ms: Some(1000),
            })
            .await;
        assert!(!env.ok());
        assert_eq!(
            env.error().map(|e| e.code),
            Some(envelope::ErrorCode::SessionNotFound)
        );
        Ok(())
    }
}
