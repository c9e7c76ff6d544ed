// Over 1,000 lines on purpose: the one error enum with each variant's envelope code and hint, read
// as one table (the texts errors are built from are in error/messages.rs, the tests in error/tests.rs).
//! The crate's error type: the one place where errors become envelope error codes, and where the
//! errors of the lower crates (cdp-protocol, frame-graph, a11y-snapshot) convert into it.

use a11y_snapshot::{RefTable, SnapshotError};
use cdp_protocol::CdpError;
use envelope::{ErrorCode, ErrorInfo};
use frame_graph::FrameGraphError;
use serde_json::Value;

mod messages;
pub use messages::FailedOpen;
use messages::*;
pub(crate) use messages::{inert_detail, invalid_selector};

#[cfg(test)]
mod tests;

/// Everything a command can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A bad argument value (bad id, bad URL, unknown mode ...).
    #[error("{0}")]
    InvalidArgument(String),
    /// The command is in its session's `--confirm-actions`: it did not run; the same command
    /// with `--confirm <token>` runs it once.
    #[error("{}", confirmation_message(command, subject, action, token, refused.as_deref()))]
    ConfirmationRequired {
        /// The command.
        command: envelope::CommandName,
        /// What it acts on and puts there, as a person reads it (`#inc (button "Add one")`).
        subject: String,
        /// The policy's action that covers it (`click`).
        action: String,
        /// The one-time token that runs exactly this command.
        token: String,
        /// Why a `--confirm` token given with it was not taken (used, expired, another command).
        refused: Option<String>,
        /// What would run (`details`: command, target, element, value, token, expiry).
        details: Box<Value>,
    },
    /// The command is in its session's `--deny-actions`: it did not run and never will there.
    #[error(
        "{command} is refused: session {session}'s policy denies {action} (--deny-actions); nothing ran"
    )]
    ActionDenied {
        /// The command.
        command: envelope::CommandName,
        /// The policy's action that covers it.
        action: String,
        /// The session.
        session: String,
    },
    /// `network har stop` with no HAR recording running in the tab.
    #[error("no HAR recording runs in this tab: start one with `browser network har start`")]
    HarNotRecording,
    /// `network har start` while one runs in the tab.
    #[error("a HAR recording already runs in this tab: `browser network har stop` ends it")]
    HarAlreadyRecording,
    /// A wait given no `--timeout` (the spec makes it required).
    #[error(
        "{command} needs --timeout <ms>: how long to wait before giving up (e.g. --timeout 10000)"
    )]
    TimeoutRequired {
        /// The command.
        command: envelope::CommandName,
    },
    /// No session with this id.
    #[error("session '{0}' not found")]
    SessionNotFound(String),
    /// The session's record is on disk but does not decode: nothing can be done with it.
    #[error("session '{session}' cannot be used: its record does not decode ({}: {reason})", path.display())]
    SessionUnreadable {
        /// The session id (its folder's name).
        session: String,
        /// The record file.
        path: std::path::PathBuf,
        /// Why it does not decode.
        reason: String,
    },
    /// No tab with this id in the session.
    #[error("tab '{tab}' not found")]
    TabNotFound {
        /// The session searched.
        session: String,
        /// The tab asked for.
        tab: String,
    },
    /// The tab closed while a command ran on it.
    #[error(
        "tab '{tab}' closed while {command} ran on it (by another command, by the page itself, \
         or by the input as in a browser: Control+W, Alt+F4)"
    )]
    TabClosedUnder {
        /// The session.
        session: String,
        /// The tab that closed.
        tab: String,
        /// The command that ran.
        command: String,
    },
    /// A selector matched nothing.
    #[error("element not found: {selector}")]
    ElementNotFound {
        /// The selector as given.
        selector: String,
    },
    /// `query one` matched nothing: its details say the query and the count, as a
    /// `MULTIPLE_MATCHES` failure's do.
    #[error("Query mode 'one' requires exactly 1 match, found 0: {query}")]
    QueryNoMatch {
        /// The query.
        query: String,
    },
    /// `query one` matched more than one element.
    #[error("Query mode 'one' requires exactly 1 match, found {count}")]
    MultipleMatches {
        /// The query.
        query: String,
        /// How many matched.
        count: u64,
        /// Selectors of the first matches.
        samples: Vec<String>,
    },
    /// `query nth` asked for a match that is not there.
    #[error("index {index} out of range (found {count} matches; nth is 1-based)")]
    IndexOutOfRange {
        /// The query.
        query: String,
        /// The index asked for.
        index: u64,
        /// How many matched.
        count: u64,
        /// Selectors of the first matches.
        samples: Vec<String>,
    },
    /// A `<select>` has no option with a value (or text) asked for: nothing was selected.
    #[error("{message}")]
    OptionNotFound {
        /// The `<select>` as given.
        selector: String,
        /// The value that matched nothing.
        value: String,
        /// What was wrong, with the options listed.
        message: String,
        /// The options: (value, display text).
        options: Vec<(String, String)>,
    },
    /// No cookie of this name (ELEMENT_NOT_FOUND: one thing asked for by name is not there).
    #[error("cookie '{name}' not found")]
    CookieNotFound {
        /// The name asked for.
        name: String,
    },
    /// The node went away and something else sits in its place.
    #[error("{0}")]
    Stale(String),
    /// A frame could not be found.
    #[error("frame not found: {0}")]
    FrameNotFound(String),
    /// The operation did not finish in time.
    #[error("{what} timed out after {ms}ms")]
    Timeout {
        /// What timed out (e.g. `browser goto`).
        what: String,
        /// The timeout in milliseconds.
        ms: u64,
    },
    /// A navigation committed and its document was parsed, but its resources (an image, a
    /// script, a frame) were still loading when time ran out.
    #[error(
        "{what} timed out after {ms}ms: the page's document is parsed and usable, but it had not finished loading{}",
        pending_list(pending)
    )]
    LoadUnfinished {
        /// What timed out (e.g. `browser goto`).
        what: String,
        /// The timeout in milliseconds.
        ms: u64,
        /// URLs still loading, when known (the tab's network recorder).
        pending: Vec<String>,
    },
    /// An element never became actionable within the command's timeout: the check that did not
    /// pass and what was seen (`details.reason`, `details.by`).
    #[error("{action} timed out after {ms}ms: {selector} {detail}")]
    NotActionable {
        /// The command (`browser click`).
        action: String,
        /// The selector as given.
        selector: String,
        /// The check: `covered`, `disabled`, `not visible`, `moving`, `outside viewport`, ...
        reason: &'static str,
        /// The element in the way (`tag#id.class 'text'`), when one is known.
        by: Option<String>,
        /// The reason in words (`is covered by div#overlay 'Loading'`).
        detail: String,
        /// The timeout in milliseconds.
        ms: u64,
    },
    /// Input was sent to an element (a press once) and its document saw it arrive elsewhere, or
    /// not at all: the command is not reported done, nor retryable (what got the input instead
    /// may have acted on it; the same command would send it again).
    #[error(
        "{action}: the input did not reach {selector}: it {detail}; not reported done (what got the input instead may have acted on it)"
    )]
    NotDelivered {
        /// The command.
        action: String,
        /// The selector as given.
        selector: String,
        /// `covered` or `input missed`.
        reason: &'static str,
        /// What got the input instead, when known.
        by: Option<String>,
        /// The reason in words.
        detail: String,
    },
    /// `--force` skips the actionability checks, but the element renders no box (`display:
    /// none`, not rendered, no size): there is no point to act at, now or after a wait the user
    /// asked to skip. Nothing was done.
    #[error(
        "{action} --force: {selector} renders no box (display: none, not rendered, or no size), so there is no point to act at even with --force; nothing was done"
    )]
    NoBox {
        /// The command (`browser click`).
        action: String,
        /// The selector as given.
        selector: String,
    },
    /// The element is fallback content of a `<canvas>`: Chromium's accessibility tree has it
    /// (a snapshot lists it) and it takes keyboard focus, but it is never laid out, so no pointer
    /// can reach it. Nothing was done.
    #[error(
        "{action}: {selector} is fallback content of a <canvas>: the canvas is drawn in its place, so it has no box to point at; nothing was done"
    )]
    CanvasFallback {
        /// The command (`browser click`).
        action: String,
        /// The selector as given.
        selector: String,
    },
    /// The element is an `<option>` of a closed drop-down `<select>`: the browser draws the list
    /// only while it is open, so the option has no box a pointer reaches (`click` chooses it
    /// through its select instead). Nothing was done.
    #[error(
        "{action}: {selector} is an <option> of a closed <select>: the browser draws the list only while it is open, so the option has no box to point at; nothing was done"
    )]
    ClosedOption {
        /// The command (`browser hover`).
        action: String,
        /// The selector as given.
        selector: String,
    },
    /// The element is inert: outside the open modal dialog (`by` names it) or under an element
    /// with the `inert` attribute. No pointer reaches it, and it stays so until the page
    /// changes it (a modal dialog does not close by itself): refused at the first look, not
    /// waited for. Nothing was done.
    #[error(
        "{action}: {selector} {}, so no pointer reaches it; nothing was done",
        inert_detail(*modal, by)
    )]
    Inert {
        /// The command (`browser click`).
        action: String,
        /// The selector as given.
        selector: String,
        /// Outside an open modal dialog (else under an `inert` element).
        modal: bool,
        /// The modal dialog (`dialog#confirm 'Delete the file?'`), or the element with the
        /// `inert` attribute.
        by: String,
    },
    /// `--force` skips the actionability checks, but no part of the element comes into the
    /// viewport even after scrolling it into view (placed off-screen, moved out of a container
    /// that clips it): there is no point of it to act at. Nothing was pressed.
    #[error(
        "{action} --force: {selector} is outside the viewport even after scrolling it into view (placed off-screen, or clipped away by a container), so there is no point of it to act at even with --force; nothing was done"
    )]
    OffScreen {
        /// The command (`browser click`).
        action: String,
        /// The selector as given.
        selector: String,
    },
    /// Keys were sent to the focused element and its document did not see them arrive: the
    /// command is not reported done. (Keys are not a selector: `details.keys` names them.)
    #[error(
        "{action}: the keys {keys} did not reach the focused element: they {detail}; not reported done (what got them instead may have acted on them)"
    )]
    KeysNotDelivered {
        /// The command.
        action: String,
        /// The key or chord as given (`Enter`, `Control+A`).
        keys: String,
        /// The reason in words.
        detail: String,
    },
    /// A wait's condition did not hold in time: how long it waited and what it saw last.
    #[error("{what} timed out after {ms}ms")]
    WaitTimedOut {
        /// The wait (e.g. `browser wait element`).
        what: String,
        /// The timeout in milliseconds.
        ms: u64,
        /// How long it waited.
        elapsed_ms: u64,
        /// What it observed last (`details.observed_value`).
        observed: Value,
    },
    /// A navigation failed (Chromium's net error in `reason`).
    #[error("navigation to {url} failed: {reason}")]
    NavigationFailed {
        /// The URL asked for.
        url: String,
        /// Chromium's error text, e.g. `net::ERR_CONNECTION_REFUSED`.
        reason: String,
    },
    /// Page script threw.
    #[error("{message}")]
    EvalFailed {
        /// The JavaScript error message.
        message: String,
        /// Structured details (error type, stack).
        details: Option<Value>,
    },
    /// A file could not be written.
    #[error("cannot write {path}: {source}")]
    ArtifactWrite {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not supported (yet) in this mode.
    #[error("{0}")]
    Unsupported(String),
    /// A navigation to a host outside the session's `--allowed-domains`: refused in the browser.
    #[error(
        "{what} {url} was refused: host {host} is not in the session's --allowed-domains ({rules})"
    )]
    HostNotAllowed {
        /// What was refused (`goto`, `navigation to`, `redirect to` ...).
        what: String,
        /// The URL refused.
        url: String,
        /// Its host (`host:port` when the port mattered).
        host: String,
        /// The session's rules, comma-separated.
        rules: String,
    },
    /// The session has `--allowed-domains` but its browser cannot be guarded: nothing runs.
    #[error("the session's --allowed-domains cannot be enforced, so nothing was run: {detail}")]
    AllowlistUnenforced {
        /// Why.
        detail: String,
    },
    /// A profile already belongs to a running session.
    #[error("profile '{profile}' is already in use by session '{session}'")]
    ProfileInUse {
        /// The profile name.
        profile: String,
        /// The session holding it.
        session: String,
    },
    /// The session's browser is not running any more.
    #[error(
        "the browser of session '{session}' is not running ({detail}); run `actionbook browser restart --session {session}` to relaunch it"
    )]
    BrowserGone {
        /// The session.
        session: String,
        /// What was observed.
        detail: String,
    },
    /// The page of a tab crashed (its renderer process is gone); the tab itself is still there.
    #[error(
        "the page in tab '{tab}' of session '{session}' crashed (its renderer process is gone); `actionbook browser reload --session {session} --tab {tab}` or `browser goto` loads it again"
    )]
    PageCrashed {
        /// The session.
        session: String,
        /// The tab.
        tab: String,
    },
    /// The page of a tab did not answer when attached: its renderer crashed or a script blocks it.
    #[error(
        "the page in tab '{tab}' of session '{session}' does not answer: a script keeps it busy, since before this daemon attached to it (Chromium cannot stop a script from a connection made while it runs); close the tab (`actionbook browser close-tab --session {session} --tab {tab}`) and open its URL in a new one"
    )]
    PageUnresponsive {
        /// The session.
        session: String,
        /// The tab.
        tab: String,
    },
    /// A command ran out of time while its page did not answer at all, though the browser did:
    /// the page's main thread is busy (a script that does not end).
    #[error(
        "{cause}: the page is not responding (a script keeps its main thread busy: an endless loop?)"
    )]
    PageBusy {
        /// What ran out of time.
        cause: Box<CliError>,
    },
    /// `new-tab` with URLs that did not load: their tabs stay open (on the error page) and are
    /// reported, with the tabs that did load.
    #[error("{}", open_failed_message(failed, opened))]
    OpenFailed {
        /// The tabs whose URL loaded.
        opened: Vec<envelope::TabInfo>,
        /// The URLs that did not, each with its tab and error.
        failed: Vec<FailedOpen>,
    },
    /// A click of `browser batch-click` failed; the clicks before it were done.
    #[error("click failed at index {index} (selector: {selector}): {cause}")]
    BatchClickFailed {
        /// The failed click's position (0-based).
        index: usize,
        /// Its selector as given.
        selector: String,
        /// How many clicks were asked for.
        total: usize,
        /// Why it failed.
        cause: Box<CliError>,
    },
    /// Some URLs of `browser batch-new-tab` did not load; the others did.
    #[error("{}", batch_open_message(failures, *total))]
    BatchOpenFailed {
        /// The tabs whose URL loaded.
        opened: Vec<envelope::TabInfo>,
        /// The URLs that did not, each with its position in the request (0-based).
        failures: Vec<(usize, FailedOpen)>,
        /// How many URLs were asked for.
        total: usize,
    },
    /// A navigation's URL turned out to be a download: the tab stayed on its page.
    #[error(
        "{url} is a download, not a page: download {id} of {file_name:?} began and the tab stayed on its page (`browser wait download` waits for its file)"
    )]
    NavigationIsDownload {
        /// The URL asked for.
        url: String,
        /// The download's id (`d1`).
        id: String,
        /// The name the browser suggested.
        file_name: String,
    },
    /// The download waited for was canceled or interrupted.
    #[error("download {id} of {url} was canceled or interrupted after {received_bytes} bytes")]
    DownloadFailed {
        /// The download's id (`d1`).
        id: String,
        /// What was downloaded.
        url: String,
        /// How far it got.
        received_bytes: u64,
    },
    /// No browser executable could be found or started.
    #[error(
        "{detail}; set ACTIONBOOK_BROWSER_EXECUTABLE_PATH to a Chromium binary or install one (Debian/Ubuntu: apt-get install -y chromium)"
    )]
    BrowserNotFound {
        /// What was tried.
        detail: String,
    },
    /// Talking to the browser failed.
    #[error("cdp: {0}")]
    Cdp(#[from] CdpError),
    /// The page's CDP session ended while the command was working on it (its tab closed, its
    /// browser exited); the tab pipeline turns this into TAB_NOT_FOUND when the tab is gone.
    #[error("the page was detached while the command ran")]
    PageDetached,
    /// The daemon could not be reached, refused the request or could not read it: it was never
    /// handed the command (see [`CliError::DaemonLost`] for one that was).
    #[error("daemon: {0}")]
    Daemon(String),
    /// The daemon went away (or stopped answering) after it was given the command: the command
    /// may have run, in part or whole.
    #[error("daemon: {detail}; the command may have run in part")]
    DaemonLost {
        /// What the client saw.
        detail: String,
    },
    /// A command's reply is larger than the daemon's socket carries in one frame.
    #[error(
        "the reply ({bytes} bytes) is larger than the {limit} bytes the daemon's socket carries; ask for less (a smaller value, a narrower selector)"
    )]
    ReplyTooLarge {
        /// The encoded reply's size.
        bytes: usize,
        /// The frame limit.
        limit: usize,
    },
    /// A snapshot would print more lines than the snapshot line limit allows.
    #[error(
        "the snapshot has {lines} lines, over the limit of {limit} lines a snapshot prints (ACTIONBOOK_SNAPSHOT_MAX_LINES)"
    )]
    SnapshotTooLarge {
        /// Lines the snapshot would print.
        lines: usize,
        /// The limit.
        limit: usize,
    },
    /// Local I/O failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// Another engine (a daemon, or a program embedding one) holds this home's lock.
    #[error("{} is in use by another actionbook engine{}", home.display(), holder.map(|p| format!(" (process {p})")).unwrap_or_default())]
    HomeInUse {
        /// The home directory.
        home: std::path::PathBuf,
        /// The pid recorded by the holder, if readable.
        holder: Option<u32>,
    },
    /// `session.json` of this session id is on disk but does not decode: it is kept, and the
    /// id is not reused until someone looks at it.
    #[error("session '{session}' has a record that cannot be read ({}: {reason}); nothing was started", path.display())]
    RecordUnreadable {
        /// The session id (its folder's name).
        session: String,
        /// The record file.
        path: std::path::PathBuf,
        /// Why it does not decode.
        reason: String,
    },
    /// `session.json` was written by a newer build (its schema is above this build's): not used,
    /// kept as it is.
    #[error(
        "written by a newer actionbook (record schema {schema}; this build reads up to {readable})"
    )]
    RecordFromNewerBuild {
        /// The schema it carries.
        schema: u32,
        /// The highest schema this build reads.
        readable: u32,
    },
    /// The state-file key variable is set to something that is not a key (its value is never
    /// shown).
    #[error(
        "{variable} is not a usable key: {reason}; give 64 hex characters or the base64 of 32 \
         bytes (e.g. `openssl rand -hex 32`), or unset it"
    )]
    StateKeyInvalid {
        /// The variable (`ACTIONBOOK_STATE_KEY`).
        variable: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A storage-state file that cannot be read: missing, not JSON of that shape, cut short.
    #[error("cannot load storage state from {}: {reason}", path.display())]
    StateFileUnreadable {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        reason: String,
    },
    /// An encrypted storage-state file, and no key to open it.
    #[error(
        "{} is an encrypted storage-state file: set ACTIONBOOK_STATE_KEY to the key it was saved with", path.display()
    )]
    StateFileNeedsKey {
        /// The file.
        path: std::path::PathBuf,
    },
    /// An encrypted storage-state file that the key does not open: another key, or the file
    /// was changed or damaged.
    #[error(
        "{} does not decrypt with ACTIONBOOK_STATE_KEY: it was saved with another key, or it was changed or damaged", path.display()
    )]
    StateFileUndecryptable {
        /// The file.
        path: std::path::PathBuf,
    },
    /// A bug or an unexpected browser answer.
    #[error("{0}")]
    Internal(String),
    /// A browser provider's API (`browser start --provider`) did not hand out a browser.
    #[error("provider {provider}: {reason}")]
    Provider {
        /// The provider's name.
        provider: String,
        /// What went wrong (never a key: header values and bodies are not echoed).
        reason: String,
        /// Whether the API refused the credentials (401/403): the caller's to fix, not retryable.
        refused: bool,
    },
    /// The action manuals (store, remote, config, setup) failed; they map their own errors.
    #[error("{0}")]
    Manuals(#[from] crate::manuals::ManualsError),
}

impl CliError {
    /// The envelope error code. The single place that maps errors to codes.
    pub fn code(&self) -> ErrorCode {
        match self {
            // As fill, type and focus refuse an element that is not rendered: the action cannot
            // be done on it as it is (no wait was asked for, or none would help). An inert
            // element too, as `select` refuses one: TIMEOUT (a covered element's code) would
            // say a wait ran out, which it did not.
            CliError::InvalidArgument(_)
            | CliError::TimeoutRequired { .. }
            | CliError::StateKeyInvalid { .. }
            | CliError::StateFileUnreadable { .. }
            | CliError::StateFileNeedsKey { .. }
            | CliError::StateFileUndecryptable { .. }
            | CliError::NoBox { .. }
            | CliError::CanvasFallback { .. }
            | CliError::ClosedOption { .. }
            | CliError::Inert { .. }
            | CliError::OffScreen { .. } => ErrorCode::InvalidArgument,
            CliError::ConfirmationRequired { .. } => ErrorCode::ConfirmationRequired,
            CliError::ActionDenied { .. } => ErrorCode::AccessDenied,
            CliError::SessionNotFound(_) | CliError::SessionUnreadable { .. } => {
                ErrorCode::SessionNotFound
            }
            CliError::TabNotFound { .. } | CliError::TabClosedUnder { .. } => {
                ErrorCode::TabNotFound
            }
            CliError::ElementNotFound { .. }
            | CliError::QueryNoMatch { .. }
            | CliError::OptionNotFound { .. }
            | CliError::CookieNotFound { .. } => ErrorCode::ElementNotFound,
            CliError::FrameNotFound(_) => ErrorCode::FrameNotFound,
            CliError::HarNotRecording => ErrorCode::HarNotRecording,
            CliError::HarAlreadyRecording => ErrorCode::HarAlreadyRecording,
            CliError::MultipleMatches { .. } => ErrorCode::MultipleMatches,
            CliError::IndexOutOfRange { .. } => ErrorCode::IndexOutOfRange,
            CliError::Stale(_) => ErrorCode::StaleElement,
            CliError::Timeout { .. }
            | CliError::LoadUnfinished { .. }
            | CliError::NotActionable { .. }
            | CliError::WaitTimedOut { .. } => ErrorCode::Timeout,
            CliError::NotDelivered { .. } | CliError::KeysNotDelivered { .. } => {
                ErrorCode::InternalError
            }
            CliError::NavigationFailed { .. } | CliError::NavigationIsDownload { .. } => {
                ErrorCode::NavigationFailed
            }
            // A script that ran out of its time is TIMEOUT, as every operation that ran out of
            // time is (agents key their retry on it); its kind stays in the details.
            CliError::EvalFailed {
                details: Some(d), ..
            } if d["kind"] == "timeout" => ErrorCode::Timeout,
            CliError::EvalFailed { .. } => ErrorCode::EvalFailed,
            CliError::ArtifactWrite { .. } => ErrorCode::ArtifactWriteFailed,
            CliError::Unsupported(_)
            | CliError::ReplyTooLarge { .. }
            | CliError::SnapshotTooLarge { .. } => ErrorCode::UnsupportedOperation,
            // The home, like a profile, is in use by someone else: the caller must use another one
            // or go through its holder (the spec has no closer code; INTERNAL_ERROR would say "a
            // bug").
            CliError::ProfileInUse { .. }
            | CliError::HomeInUse { .. }
            | CliError::RecordUnreadable { .. }
            | CliError::RecordFromNewerBuild { .. } => ErrorCode::SessionAlreadyExists,
            // A key the provider refuses is the caller's input to fix (the spec's closest code);
            // any other failure is the remote browser not being reached.
            CliError::Provider { refused: true, .. } => ErrorCode::InvalidArgument,
            CliError::Provider { .. } => ErrorCode::CdpConnectionFailed,
            CliError::BrowserGone { .. }
            | CliError::PageCrashed { .. }
            | CliError::PageDetached => ErrorCode::CdpConnectionFailed,
            CliError::PageUnresponsive { .. } => ErrorCode::Timeout,
            CliError::PageBusy { cause } => cause.code(),
            CliError::OpenFailed { failed, .. } => failed
                .first()
                .map_or(ErrorCode::NavigationFailed, |f| f.error.code()),
            CliError::BatchClickFailed { .. } => ErrorCode::BatchClickError,
            CliError::BatchOpenFailed { .. } => ErrorCode::BatchOpenError,
            CliError::DownloadFailed { .. } => ErrorCode::DownloadFailed,
            CliError::BrowserNotFound { .. } => ErrorCode::BrowserNotFound,
            CliError::HostNotAllowed { .. } | CliError::AllowlistUnenforced { .. } => {
                ErrorCode::AccessDenied
            }
            CliError::Cdp(e) => match e {
                CdpError::Timeout { .. } | CdpError::LaunchTimeout { .. } => ErrorCode::Timeout,
                CdpError::BrowserNotFound { .. } => ErrorCode::BrowserNotFound,
                CdpError::ConnectionClosed
                | CdpError::SessionClosed { .. }
                | CdpError::Connect { .. } => ErrorCode::CdpConnectionFailed,
                _ => ErrorCode::InternalError,
            },
            CliError::Daemon(_)
            | CliError::DaemonLost { .. }
            | CliError::Io(_)
            | CliError::Internal(_) => ErrorCode::InternalError,
            CliError::Manuals(e) => e.code(),
        }
    }

    /// Whether retrying the same command may succeed.
    pub fn retryable(&self) -> bool {
        // A script that ran out of time may finish with more.
        if let CliError::EvalFailed {
            details: Some(d), ..
        } = self
            && d["kind"] == "timeout"
        {
            return true;
        }
        // A batch may succeed on a retry when the step that failed may.
        if let CliError::BatchClickFailed { cause, .. } | CliError::PageBusy { cause } = self {
            return cause.retryable();
        }
        // Not input that was sent and went elsewhere (`NotDelivered`, `KeysNotDelivered`): what
        // got it may have acted, and the same command would send it again.
        matches!(
            self,
            CliError::Timeout { .. }
                | CliError::LoadUnfinished { .. }
                | CliError::NotActionable { .. }
                | CliError::WaitTimedOut { .. }
                | CliError::PageUnresponsive { .. }
                | CliError::Cdp(_)
                | CliError::Daemon(_)
                | CliError::DaemonLost { .. }
                | CliError::Provider { refused: false, .. }
        )
    }

    /// Whether the command surely did nothing: it failed before any input or change reached the
    /// page or the browser (the element never became actionable, no connection was made, the
    /// daemon was never given it).
    pub fn not_performed(&self) -> bool {
        if let CliError::PageBusy { cause } = self {
            return cause.not_performed();
        }
        matches!(
            self,
            CliError::NotActionable { .. }
                | CliError::ConfirmationRequired { .. }
                | CliError::ActionDenied { .. }
                | CliError::NoBox { .. }
                | CliError::CanvasFallback { .. }
                | CliError::ClosedOption { .. }
                | CliError::Inert { .. }
                | CliError::OffScreen { .. }
                | CliError::Cdp(CdpError::Connect { .. })
                | CliError::Daemon(_)
        )
    }

    /// Structured details for the envelope's `error.details`.
    pub fn details(&self) -> Option<Value> {
        match self {
            CliError::PageBusy { cause } => cause.details(),
            CliError::ConfirmationRequired { details, .. } => Some((**details).clone()),
            CliError::ActionDenied {
                command, action, ..
            } => Some(serde_json::json!({ "command": command, "action": action })),
            CliError::ElementNotFound { selector } => {
                Some(serde_json::json!({ "selector": selector }))
            }
            CliError::HostNotAllowed {
                url, host, rules, ..
            } => Some(serde_json::json!({
                "url": url,
                "host": host,
                "allowed_domains": rules.split(',').collect::<Vec<_>>(),
            })),
            CliError::QueryNoMatch { query } => Some(serde_json::json!({
                "selector": query, "query": query, "count": 0,
            })),
            CliError::LoadUnfinished { ms, pending, .. } => Some(serde_json::json!({
                "timeout_ms": ms, "ready_state": "interactive", "pending": pending,
            })),
            CliError::MultipleMatches {
                query,
                count,
                samples,
            } => Some(serde_json::json!({
                "query": query, "count": count, "sample_selectors": samples,
            })),
            CliError::IndexOutOfRange {
                query,
                index,
                count,
                samples,
            } => Some(serde_json::json!({
                "query": query, "index": index, "count": count, "sample_selectors": samples,
            })),
            CliError::NavigationFailed { url, reason } => {
                Some(serde_json::json!({ "url": url, "reason": reason }))
            }
            CliError::StateFileUnreadable { path, .. }
            | CliError::StateFileNeedsKey { path }
            | CliError::StateFileUndecryptable { path } => {
                Some(serde_json::json!({ "path": path.display().to_string() }))
            }
            CliError::StateKeyInvalid { variable, .. } => {
                Some(serde_json::json!({ "variable": variable }))
            }
            CliError::SnapshotTooLarge { lines, limit } => {
                Some(serde_json::json!({ "lines": lines, "limit": limit }))
            }
            CliError::OptionNotFound {
                selector,
                value,
                options,
                ..
            } => Some(serde_json::json!({
                "selector": selector,
                "value": value,
                "options": options.iter().map(|(v, t)| serde_json::json!({ "value": v, "text": t })).collect::<Vec<_>>(),
            })),
            CliError::NotActionable {
                selector,
                reason,
                by,
                ..
            }
            | CliError::NotDelivered {
                selector,
                reason,
                by,
                ..
            } => {
                let mut d = serde_json::json!({ "selector": selector, "reason": reason });
                if let Some(by) = by {
                    d["by"] = serde_json::Value::String(by.clone());
                }
                Some(d)
            }
            CliError::NoBox { selector, .. } => {
                Some(serde_json::json!({ "selector": selector, "reason": "not visible" }))
            }
            CliError::CanvasFallback { selector, .. } => {
                Some(serde_json::json!({ "selector": selector, "reason": "canvas fallback" }))
            }
            CliError::ClosedOption { selector, .. } => Some(
                serde_json::json!({ "selector": selector, "reason": "option of a closed select" }),
            ),
            CliError::Inert {
                selector,
                modal,
                by,
                ..
            } => Some(serde_json::json!({
                "selector": selector,
                "reason": if *modal { "behind modal dialog" } else { "inert" },
                "by": by
            })),
            CliError::OffScreen { selector, .. } => {
                Some(serde_json::json!({ "selector": selector, "reason": "outside viewport" }))
            }
            CliError::KeysNotDelivered { keys, .. } => {
                Some(serde_json::json!({ "keys": keys, "reason": "input missed" }))
            }
            CliError::CookieNotFound { name } => Some(serde_json::json!({ "name": name })),
            CliError::EvalFailed { details, .. } => details.clone(),
            CliError::WaitTimedOut {
                ms,
                elapsed_ms,
                observed,
                ..
            } => Some(serde_json::json!({
                "timeout_ms": ms,
                "elapsed_ms": elapsed_ms,
                "observed_value": observed,
            })),
            CliError::TabNotFound { session, tab }
            | CliError::TabClosedUnder { session, tab, .. } => {
                Some(serde_json::json!({ "session_id": session, "tab_id": tab }))
            }
            CliError::ArtifactWrite { path, .. } => Some(serde_json::json!({ "path": path })),
            CliError::NavigationIsDownload { url, id, file_name } => Some(serde_json::json!({
                "url": url, "reason": "net::ERR_ABORTED", "download": { "id": id, "file_name": file_name },
            })),
            CliError::DownloadFailed {
                id,
                url,
                received_bytes,
            } => Some(serde_json::json!({
                "id": id, "url": url, "received_bytes": received_bytes,
            })),
            CliError::BatchClickFailed {
                index,
                selector,
                cause,
                ..
            } => Some(serde_json::json!({
                "completed": index,
                "failed_index": index,
                "failed_selector": selector,
                "cause": { "code": cause.code(), "message": cause.to_string() },
            })),
            CliError::BatchOpenFailed {
                opened, failures, ..
            } => Some(serde_json::json!({
                "completed": opened.len(),
                "failed_index": failures.first().map(|(i, _)| *i),
                "failed_url": failures.first().map(|(_, f)| &f.url),
                "tabs": opened,
                "failures": failures.iter().map(|(i, f)| serde_json::json!({
                    "index": i,
                    "url": f.url,
                    "tab_id": f.tab_id,
                    "code": f.error.code(),
                    "message": f.error.to_string(),
                })).collect::<Vec<_>>(),
            })),
            CliError::OpenFailed { opened, failed } => Some(serde_json::json!({
                "opened_tabs": opened,
                "failed_urls": failed.iter().map(|f| serde_json::json!({
                    "url": f.url,
                    "tab_id": f.tab_id,
                    "code": f.error.code(),
                    "message": f.error.to_string(),
                })).collect::<Vec<_>>(),
            })),
            _ => None,
        }
    }

    /// A hint for the user, when there is a useful one.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            CliError::TimeoutRequired { .. } => Some(
                "the spec makes --timeout required for waits; --timeout 30000 waits as the reference CLI's default did",
            ),
            CliError::PageBusy { .. } => Some(
                "`browser reload` or `browser goto` stops the page's script and loads a page again",
            ),
            CliError::SessionNotFound(_) => {
                Some("run `actionbook browser list-sessions` to see available sessions")
            }
            CliError::Provider { refused: true, .. } => Some(
                "check the provider's API key: HYPERBROWSER_API_KEY for --provider hyperbrowser, or the variables that config.toml's [providers.<name>] headers name, in the environment of the command that runs `browser start`",
            ),
            CliError::Provider { .. } => Some(
                "the provider's API did not hand out a browser: retry, or check its status and ACTIONBOOK_HYPERBROWSER_API_URL / config.toml's create_url",
            ),
            CliError::HostNotAllowed { .. } => Some(
                "the session may only reach the hosts of its --allowed-domains (details.allowed_domains): go to a page of one of them, or start a session whose list has this host; the session stays usable",
            ),
            CliError::AllowlistUnenforced { .. } => Some(
                "close the session and start it again (a browser that refuses request interception cannot take --allowed-domains)",
            ),
            CliError::Timeout { .. } | CliError::WaitTimedOut { .. } => {
                Some("increase --timeout or retry the command")
            }
            // Only goto has `--wait-until`; the others can only be told the page is usable.
            CliError::LoadUnfinished { what, .. } if what == "browser goto" => Some(
                "the page can be used as it is; goto --wait-until domcontentloaded does not wait for its resources",
            ),
            CliError::LoadUnfinished { .. } => Some(
                "the page can be used as it is; to open a page without waiting for its resources, use goto --wait-until domcontentloaded",
            ),
            CliError::NavigationFailed { reason, .. } => navigation_hint(reason),
            CliError::NotActionable {
                reason: "covered", ..
            } => Some(
                "close or wait out what covers it (a dialog, a banner), or pass --force to act anyway",
            ),
            CliError::NotActionable { .. } => {
                Some("check the element's state with `browser snapshot`, or increase --timeout")
            }
            CliError::CanvasFallback { .. } => Some(
                "act as a keyboard user does: `browser focus <selector>`, then `browser press Enter` (or Space)",
            ),
            CliError::ClosedOption { .. } => Some(
                "`browser click` on the option chooses it, as `browser select <select> <value>` does",
            ),
            CliError::Inert { modal: true, .. } => Some(
                "close the dialog first (`browser press Escape`, or click its close button); elements inside it take clicks",
            ),
            CliError::Inert { .. } => Some(
                "the page made it inert and lifts that itself (when its drawer, menu or busy state ends): act on what the page offers now",
            ),
            CliError::NoBox { .. } => Some(
                "show it first (open its menu or section), or act on the element the user sees; without --force the command waits for it to show",
            ),
            CliError::OffScreen { .. } => Some(
                "bring it into view first (open its menu, slide in its panel), or act on the element the user sees; without --force the command waits for it to come into view",
            ),
            // Refs are numbered per document: after a navigation the old ones are gone.
            CliError::ElementNotFound { selector } if selector.starts_with('@') => {
                Some("refs come from the latest `browser snapshot` of this page; run it again")
            }
            CliError::Stale(_) => Some("run `browser snapshot` again for fresh refs"),
            CliError::MultipleMatches { .. } => Some("use 'query all' or narrow your selector"),
            CliError::IndexOutOfRange { .. } => {
                Some("use 'query count' to check the number of matches first")
            }
            CliError::SnapshotTooLarge { .. } => Some(
                "narrow it: --interactive, --depth N or --selector SEL (a subtree), or cut it into pages with --max-bytes N",
            ),
            CliError::HomeInUse { .. } => Some(
                "send commands through the `actionbook` CLI (its daemon owns this home), or use another ACTIONBOOK_HOME",
            ),
            CliError::SessionUnreadable { .. } => Some(
                "look at the file: once it decodes again (repaired, or moved back) the session answers; a browser it names still runs until closed by hand",
            ),
            CliError::ConfirmationRequired { .. } => Some(
                "nothing ran: ask whoever decides, then run the same command again with --confirm <details.token> (MCP: the tool's `confirm` argument; batch: --confirm on the line, or \"confirm\" in its JSON) before details.expires_in_ms pass; a token is good for one attempt at exactly this command",
            ),
            CliError::ActionDenied { .. } => Some(
                "a session's policy is never loosened while it lives: if the action is meant, close the session and start one without it in --deny-actions",
            ),
            CliError::RecordUnreadable { .. } => Some(
                "look at the file, then move it aside or delete the session's folder; or pick another --set-session-id",
            ),
            // A drop mid-command: the request may have reached the browser or not.
            CliError::Cdp(CdpError::ConnectionClosed) => Some(
                "the link to the browser dropped while the command ran: it may or may not have taken effect, so check the page before repeating it; while the browser is still there, the next command reconnects to the same tabs and refs",
            ),
            CliError::Cdp(CdpError::Connect { .. } | CdpError::ConnectTimeout { .. }) => Some(
                "the browser's endpoint did not answer within --timeout (nothing was done); retry, or give a longer --timeout to wait longer for the link to come back",
            ),
            _ => None,
        }
    }

    /// The envelope's `error` object (`retryable` as for any command: [`CliError::retryable`]).
    pub fn to_info(&self) -> ErrorInfo {
        self.info_with_retryable(self.retryable())
    }

    /// The envelope's `error` object with this `retryable` flag.
    pub(crate) fn info_with_retryable(&self, retryable: bool) -> ErrorInfo {
        if let CliError::Manuals(e) = self {
            return e.to_error_info();
        }
        let mut info = ErrorInfo::new(self.code(), self.to_string()).with_retryable(retryable);
        if let Some(d) = self.details() {
            info = info.with_details(d);
        }
        if let Some(h) = self.hint() {
            info = info.with_hint(h);
        }
        // Batch hints say where to resume, which only the error knows.
        match self {
            CliError::BatchClickFailed { index, total, .. } => {
                info = info.with_hint(format!(
                    "completed {index}/{total}, retry from index {index}"
                ));
            }
            CliError::BatchOpenFailed {
                opened,
                failures,
                total,
            } => {
                info = info.with_hint(format!(
                    "opened {}/{total}; the failed URLs' tabs are open: retry them with `browser goto` (indexes {})",
                    opened.len(),
                    failures
                        .iter()
                        .map(|(i, _)| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            // The way to the browser that holds the profile: its session.
            CliError::ProfileInUse { session, .. } => {
                info = info.with_hint(format!(
                    "use that session (`--session {session}`), free the profile with \
                     `browser close --session {session}`, or start with a different --profile"
                ));
            }
            _ => {}
        }
        info
    }

    /// Shorthand for an internal error.
    pub fn internal(msg: impl Into<String>) -> Self {
        CliError::Internal(msg.into())
    }
}

/// The message of [`CliError::ConfirmationRequired`]: what needs confirming, and how.
fn confirmation_message(
    command: &envelope::CommandName,
    subject: &str,
    action: &str,
    token: &str,
    refused: Option<&str>,
) -> String {
    let why = refused.map_or(String::new(), |r| {
        format!(" (the --confirm token was not taken: {r})")
    });
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!(" {subject}")
    };
    format!(
        "{command}{subject} needs a confirmation: the session's policy asks one for {action} \
         (--confirm-actions); nothing ran{why}. To run it, repeat it with --confirm {token}"
    )
}

impl From<FrameGraphError> for CliError {
    fn from(e: FrameGraphError) -> CliError {
        match e {
            FrameGraphError::Cdp(c) => CliError::Cdp(c),
            FrameGraphError::FrameNotFound { .. } => CliError::FrameNotFound(e.to_string()),
            FrameGraphError::Detached => CliError::PageDetached,
            // A page too busy to answer in time (a script holding its main thread, a frame
            // still loading): worth a retry, not a bug.
            FrameGraphError::Timeout { what, after } => CliError::Timeout {
                what,
                ms: u64::try_from(after.as_millis()).unwrap_or(u64::MAX),
            },
            FrameGraphError::NoExecutionContext { frame, after } => CliError::Timeout {
                what: format!("waiting for a script context in frame {frame}"),
                ms: u64::try_from(after.as_millis()).unwrap_or(u64::MAX),
            },
            other => CliError::Internal(other.to_string()),
        }
    }
}

impl From<SnapshotError> for CliError {
    fn from(e: SnapshotError) -> CliError {
        CliError::on_selector(e, "")
    }
}

impl CliError {
    /// Whether the page's CDP session (or the whole connection) ended under the command: the
    /// tab may have been closed meanwhile.
    pub(crate) fn is_session_end(&self) -> bool {
        match self {
            CliError::Cdp(e) => e.is_closed(),
            CliError::PageDetached => true,
            _ => false,
        }
    }

    /// A snapshot-layer error met while working on `selector` (what the user gave).
    pub(crate) fn on_selector(e: SnapshotError, selector: &str) -> CliError {
        match e {
            SnapshotError::RefNotFound { .. }
            | SnapshotError::NotFound { .. }
            | SnapshotError::UnknownEncodedId { .. } => CliError::ElementNotFound {
                selector: selector.to_string(),
            },
            SnapshotError::Stale { reason, .. } => CliError::Stale(format!(
                "{selector} is stale ({reason}): the page changed since the snapshot that gave it; \
                 run `browser snapshot` again"
            )),
            SnapshotError::InvalidSelector { .. }
            | SnapshotError::NotAnElement { .. }
            | SnapshotError::InvalidRef { .. }
            | SnapshotError::InvalidEncodedId { .. }
            | SnapshotError::InvalidXPath { .. } => {
                // Browser messages carry a JS stack; the first line says it all.
                let msg = e.to_string();
                invalid_selector(selector, msg.lines().next().unwrap_or_default())
            }
            // Unanswered comes only to callers that asked every frame (`locate::presence`), which
            // take it as no answer; anyone else would be told which frame.
            SnapshotError::FrameNotFound { .. } | SnapshotError::FrameUnanswered { .. } => {
                CliError::FrameNotFound(e.to_string())
            }
            SnapshotError::Cdp(c) => CliError::on_node(c, selector),
            SnapshotError::FrameGraph(FrameGraphError::Cdp(c)) => CliError::on_node(c, selector),
            SnapshotError::FrameGraph(g) => g.into(),
            other => CliError::Internal(other.to_string()),
        }
    }

    /// A CDP error met while acting on the node `selector` names: a gone node
    /// ([`cdp_protocol::ErrorKind::is_gone`]) is STALE_ELEMENT with what to do, anything else stays a
    /// CDP error.
    pub(crate) fn on_node(e: CdpError, selector: &str) -> CliError {
        if e.is_gone() {
            CliError::Stale(format!(
                "{selector} is no longer in the page: it is from an earlier page or was removed since it \
                 was found; run `browser snapshot` again"
            ))
        } else {
            CliError::Cdp(e)
        }
    }

    /// The error for a ref the table does not know. Numbers below the table's counter were handed
    /// out for an earlier page and dropped when it navigated away: that is stale, not a typo.
    pub(crate) fn unknown_ref(refs: Option<&RefTable>, number: u32, selector: &str) -> CliError {
        match refs {
            Some(t) if number < t.earlier_below() => CliError::Stale(format!(
                "ref {selector} is from an earlier page: the page navigated since that snapshot; \
                 run `browser snapshot` again"
            )),
            _ => CliError::ElementNotFound {
                selector: selector.to_string(),
            },
        }
    }
}

/// The crate's result type.
pub type Result<T, E = CliError> = std::result::Result<T, E>;
