//! The console recorder: console messages, uncaught exceptions, unhandled rejections and failed
//! loads of a tab, from every frame (out-of-process iframes included), kept from the moment the
//! tab is attached.
//!
//! How: it subscribes to the connection before the attach, then enables Runtime and Log on the
//! page session, so messages of the first load (inline scripts) are there. Chromium keeps each
//! document's recent messages and replays them when Runtime/Log is enabled on a session: that
//! covers an out-of-process iframe attached later (by the frame graph), and a new daemon
//! re-attaching to a tab. Replays also happen when someone cycles Runtime (the frame graph does
//! once), so entries are de-duplicated by what they are (time stamp, kind, text).
//!
//! Bounded: each log keeps the latest [`CAPACITY`] entries (texts capped at [`TEXT_CAP`] bytes);
//! how many older ones were dropped is reported by the next read. Entries are numbered in arrival
//! order; [`ConsoleLog::read`] hands them out as `log-N` ids from a base the caller persists.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use cdp_protocol::{
    Connection, EventFilter, EventStream, RawEvent, Session, SessionId, TargetId, log, page,
    runtime, target,
};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::TabService;
use crate::deadline;

/// Entries kept per log (console, errors).
pub(crate) const CAPACITY: usize = 1000;
/// Bytes kept of one entry's text.
pub(crate) const TEXT_CAP: usize = 8 * 1024;
/// Keys remembered to recognise replays (more than Chromium keeps per document).
const SEEN_CAP: usize = 4096;

/// Which log an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// `console.*` calls.
    Console,
    /// Uncaught exceptions, unhandled rejections, failed loads.
    Errors,
}

/// One recorded entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// Arrival number (1, 2, ...) in this recorder.
    pub seq: u64,
    /// `log`, `info`, `warn`, `error`, `debug`.
    pub level: String,
    /// The message (cut at [`TEXT_CAP`] bytes).
    pub text: String,
    /// The whole message's length in bytes, when `text` is only its beginning.
    pub cut_from: Option<usize>,
    /// The script or resource URL.
    pub source: Option<String>,
    /// The frame it came from, when known.
    pub frame_id: Option<String>,
    /// That frame's URL, when known.
    pub frame_url: Option<String>,
    /// Milliseconds since the epoch (fractional, as Chromium stamps it).
    pub timestamp: f64,
    /// `(session, exceptionId)` of an exception (a later revocation removes it).
    exception: Option<(Option<SessionId>, i64)>,
}

#[derive(Debug, Default)]
struct Buffer {
    entries: VecDeque<Entry>,
    dropped: u64,
}

#[derive(Debug, Default)]
struct State {
    console: Buffer,
    errors: Buffer,
    next_seq: u64,
    seen: HashSet<String>,
    seen_order: VecDeque<String>,
    /// The page session and the iframe sessions attached under it.
    sessions: HashSet<Option<SessionId>>,
    contexts: HashMap<(Option<SessionId>, i64), String>,
    /// The main frame of each session (the page's, an iframe's own).
    session_frames: HashMap<Option<SessionId>, String>,
    frame_urls: HashMap<String, String>,
    lost: u64,
    lost_reported: u64,
    /// What could not be switched on (an `enable` the browser refused or never answered): the
    /// log is incomplete and every read says so.
    not_enabled: Vec<String>,
}

impl State {
    fn buffer(&mut self, kind: Kind) -> &mut Buffer {
        match kind {
            Kind::Console => &mut self.console,
            Kind::Errors => &mut self.errors,
        }
    }

    /// Whether this key was seen before (a replay); remembers it otherwise.
    fn replayed(&mut self, key: String) -> bool {
        if self.seen.contains(&key) {
            return true;
        }
        self.seen.insert(key.clone());
        self.seen_order.push_back(key);
        while self.seen_order.len() > SEEN_CAP {
            if let Some(old) = self.seen_order.pop_front() {
                self.seen.remove(&old);
            }
        }
        false
    }

    fn push(&mut self, kind: Kind, mut entry: Entry) {
        self.next_seq += 1;
        entry.seq = self.next_seq;
        let b = self.buffer(kind);
        b.entries.push_back(entry);
        while b.entries.len() > CAPACITY {
            b.entries.pop_front();
            b.dropped += 1;
        }
    }
}

/// A filter of [`ConsoleLog::read`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// Only these levels.
    pub levels: Option<Vec<String>>,
    /// Only entries whose source contains this.
    pub source: Option<String>,
    /// Only entries with a higher number than this.
    pub after: Option<u64>,
    /// Only the last n (after the other filters).
    pub tail: Option<usize>,
    /// Forget every entry of the log afterwards.
    pub clear: bool,
}

/// What a read gives.
#[derive(Debug, Clone, Default)]
pub(crate) struct Read {
    /// The entries, oldest first.
    pub entries: Vec<Entry>,
    /// Older entries dropped (for lack of room) since the last read of this log.
    pub dropped: u64,
    /// Events lost (the queue overflowed) since the last read.
    pub lost: u64,
    /// The highest number handed out so far.
    pub last_seq: u64,
    /// What the recorder could not switch on (the log misses what those would have recorded).
    pub not_enabled: Vec<String>,
    /// Entries a `--clear` removed that the read did not return (filtered out, or before its
    /// tail).
    pub cleared_unseen: usize,
}

type Flush = oneshot::Sender<()>;

/// The console recorder of one attached tab.
pub(crate) struct ConsoleLog {
    state: Arc<Mutex<State>>,
    events: Mutex<Option<EventStream>>,
    flush: mpsc::UnboundedSender<Flush>,
    flush_rx: Mutex<Option<mpsc::UnboundedReceiver<Flush>>>,
    /// The id base of this recorder's entries, fixed by the first read (see [`ConsoleLog::base`]).
    base: Mutex<Option<u64>>,
}

impl std::fmt::Debug for ConsoleLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleLog").finish_non_exhaustive()
    }
}

/// The events the recorder listens to.
const EVENTS: &[&str] = &[
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Runtime.exceptionRevoked",
    "Runtime.executionContextCreated",
    "Log.entryAdded",
    "Target.attachedToTarget",
    "Target.detachedFromTarget",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
];

fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl TabService for ConsoleLog {
    fn new(conn: &Connection, _target: &TargetId) -> ConsoleLog {
        let events = conn.events(EventFilter::methods(EVENTS).capacity(8192));
        let (flush, flush_rx) = mpsc::unbounded_channel();
        ConsoleLog {
            state: Arc::default(),
            events: Mutex::new(Some(events)),
            flush,
            flush_rx: Mutex::new(Some(flush_rx)),
            base: Mutex::new(None),
        }
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let mut events = self
            .events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let mut flushes = self
            .flush_rx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        let state = self.state.clone();
        lock(&state).sessions.insert(page.id().cloned());
        let page = page.clone();
        Some(Box::pin(async move {
            // Enabling replays what the document logged before we attached; the answers come
            // after those events, so nothing is read before they are recorded.
            let (rt, lg) = tokio::join!(
                page.send_timeout(&runtime::Enable, deadline::QUICK_CALL),
                page.send_timeout(&log::Enable, deadline::QUICK_CALL)
            );
            {
                let mut st = lock(&state);
                if let Err(e) = rt {
                    st.not_enabled
                        .push(format!("console messages and exceptions of the page ({e})"));
                }
                if let Err(e) = lg {
                    st.not_enabled.push(format!(
                        "failed loads and browser messages of the page ({e})"
                    ));
                }
            }
            if let Ok(tree) = page
                .send_timeout(&page::GetFrameTree, deadline::QUICK_CALL)
                .await
            {
                let mut st = lock(&state);
                st.session_frames.insert(
                    page.id().cloned(),
                    tree.frame_tree.frame.id.as_str().to_string(),
                );
                let mut stack = vec![tree.frame_tree];
                while let Some(t) = stack.pop() {
                    st.frame_urls
                        .entry(t.frame.id.as_str().to_string())
                        .or_insert(t.frame.url.clone());
                    stack.extend(t.child_frames.unwrap_or_default());
                }
            }
            let mut dropped = 0;
            loop {
                tokio::select! {
                    ev = events.recv() => {
                        let Some(ev) = ev else { break };
                        record(&state, &page, &ev);
                        if events.dropped() > dropped {
                            lock(&state).lost += events.dropped() - dropped;
                            dropped = events.dropped();
                        }
                    }
                    f = flushes.recv() => {
                        let Some(f) = f else { break };
                        // Everything queued so far is recorded before the reader goes on.
                        while let Some(ev) = events.try_recv() {
                            record(&state, &page, &ev);
                        }
                        let _ = f.send(());
                    }
                }
            }
        }))
    }
}

impl ConsoleLog {
    /// Waits until every event received so far is recorded (call after a round trip to each
    /// session, so what the page logged before it is in).
    pub async fn flush(&self) {
        let (tx, rx) = oneshot::channel();
        if self.flush.send(tx).is_ok() {
            let _ = tokio::time::timeout(deadline::QUICK_CALL, rx).await;
        }
    }

    /// The sessions the recorder listens to: the page's and its iframes'.
    pub fn sessions(&self) -> Vec<Option<SessionId>> {
        lock(&self.state).sessions.iter().cloned().collect()
    }

    /// The id base of this recorder: fixed by the first call (with what `load` gives: the highest
    /// id handed out before, persisted by the caller), so ids keep growing across recorders.
    pub fn base(&self, load: impl FnOnce() -> u64) -> u64 {
        *self
            .base
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(load)
    }

    /// Reads one log through `filter` (the number is `seq`; ids are the caller's), filling in
    /// frame URLs it learns from `url_of`.
    pub fn read(
        &self,
        kind: Kind,
        filter: &Filter,
        url_of: impl Fn(&str) -> Option<String>,
    ) -> Read {
        let mut st = lock(&self.state);
        let lost = st.lost - st.lost_reported;
        st.lost_reported = st.lost;
        let last_seq = st.next_seq;
        let b = st.buffer(kind);
        let dropped = std::mem::take(&mut b.dropped);
        for e in b.entries.iter_mut() {
            if e.frame_url.is_none()
                && let Some(f) = &e.frame_id
            {
                e.frame_url = url_of(f);
            }
        }
        let mut entries: Vec<Entry> = b
            .entries
            .iter()
            .filter(|e| filter.after.is_none_or(|a| e.seq > a))
            .filter(|e| filter.levels.as_ref().is_none_or(|l| l.contains(&e.level)))
            .filter(|e| {
                filter.source.as_ref().is_none_or(|s| {
                    e.source
                        .as_deref()
                        .is_some_and(|src| src.contains(s.as_str()))
                })
            })
            .cloned()
            .collect();
        if let Some(n) = filter.tail {
            let skip = entries.len().saturating_sub(n);
            entries.drain(..skip);
        }
        let mut cleared_unseen = 0;
        if filter.clear {
            cleared_unseen = b.entries.len().saturating_sub(entries.len());
            b.entries.clear();
        }
        Read {
            entries,
            dropped,
            lost,
            last_seq,
            not_enabled: st.not_enabled.clone(),
            cleared_unseen,
        }
    }

    /// Drops the entries logged at or before `ms` (a `--clear` of an earlier daemon: Chromium
    /// replays them to this one).
    pub fn forget_until(&self, kind: Kind, ms: f64) {
        let mut st = lock(&self.state);
        st.buffer(kind).entries.retain(|e| e.timestamp > ms);
    }
}

/// The text cut at [`TEXT_CAP`] bytes (on a character, `…` added), and its whole length when cut.
fn cap(mut s: String) -> (String, Option<usize>) {
    if s.len() <= TEXT_CAP {
        return (s, None);
    }
    let whole = s.len();
    let mut end = TEXT_CAP;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s.push('…');
    (s, Some(whole))
}

/// Records one event (the recorder's own sessions only).
fn record(state: &Arc<Mutex<State>>, page: &Session, ev: &RawEvent) {
    let mut st = lock(state);
    let sid = ev.session_id.clone();
    match ev.method.as_str() {
        "Target.attachedToTarget" => {
            if !st.sessions.contains(&sid) {
                return;
            }
            let Ok(a) = ev.decode::<target::AttachedToTarget>() else {
                return;
            };
            if a.target_info.r#type != "iframe" {
                return;
            }
            st.sessions.insert(Some(a.session_id.clone()));
            st.session_frames.insert(
                Some(a.session_id.clone()),
                a.target_info.target_id.as_str().to_string(),
            );
            if !a.target_info.url.is_empty() {
                st.frame_urls.insert(
                    a.target_info.target_id.as_str().to_string(),
                    a.target_info.url.clone(),
                );
            }
            // Failed loads of the iframe: Log replays them once enabled. Its Runtime is enabled
            // by the frame graph that attached it (enabling it here too would replay twice).
            let child = page.child(a.session_id);
            let state = Arc::clone(state);
            let url = a.target_info.url.clone();
            tokio::spawn(async move {
                if let Err(e) = child.send_timeout(&log::Enable, deadline::QUICK_CALL).await
                    && !e.is_closed()
                {
                    lock(&state)
                        .not_enabled
                        .push(format!("failed loads of the iframe {url} ({e})"));
                }
            });
        }
        "Target.detachedFromTarget" => {
            if let Ok(d) = ev.decode::<target::DetachedFromTarget>() {
                st.sessions.remove(&Some(d.session_id));
            }
        }
        _ if !st.sessions.contains(&sid) => {}
        "Runtime.executionContextCreated" => {
            if let Ok(c) = ev.decode::<runtime::ExecutionContextCreated>()
                && let Some(f) = c.context.frame_id()
            {
                st.contexts
                    .insert((sid, c.context.id.get()), f.as_str().to_string());
            }
        }
        "Page.frameNavigated" => {
            if let Ok(n) = ev.decode::<page::FrameNavigated>() {
                st.frame_urls
                    .insert(n.frame.id.as_str().to_string(), n.frame.url.clone());
            }
        }
        "Page.navigatedWithinDocument" => {
            if let Ok(n) = ev.decode::<page::NavigatedWithinDocument>() {
                st.frame_urls
                    .insert(n.frame_id.as_str().to_string(), n.url.clone());
            }
        }
        "Runtime.consoleAPICalled" => {
            let Ok(c) = ev.decode::<runtime::ConsoleApiCalled>() else {
                return;
            };
            let Some(level) = console_level(&c.r#type) else {
                return;
            };
            let (text, cut_from) = cap(format_args_text(&c.args));
            let key = format!("c|{}|{}|{}", c.timestamp.to_bits(), c.r#type, text);
            if st.replayed(key) {
                return;
            }
            let frame_id = st
                .contexts
                .get(&(sid, c.execution_context_id.get()))
                .cloned();
            let frame_url = frame_id
                .as_ref()
                .and_then(|f| st.frame_urls.get(f).cloned());
            let source = c
                .stack_trace
                .as_ref()
                .and_then(|s| s.call_frames.first())
                .map(|f| f.url.clone())
                .filter(|u| !u.is_empty());
            st.push(
                Kind::Console,
                Entry {
                    seq: 0,
                    level: level.to_string(),
                    text,
                    cut_from,
                    source,
                    frame_id,
                    frame_url,
                    timestamp: c.timestamp,
                    exception: None,
                },
            );
        }
        "Runtime.exceptionThrown" => {
            let Ok(x) = ev.decode::<runtime::ExceptionThrown>() else {
                return;
            };
            let d = &x.exception_details;
            let key = format!("x|{}|{}", x.timestamp.to_bits(), d.exception_id);
            if st.replayed(key) {
                return;
            }
            let frame_id = d
                .execution_context_id
                .and_then(|c| st.contexts.get(&(sid.clone(), c.get())).cloned());
            let frame_url = frame_id
                .as_ref()
                .and_then(|f| st.frame_urls.get(f).cloned());
            let source = d
                .url
                .clone()
                .filter(|u| !u.is_empty())
                .or_else(|| {
                    d.stack_trace
                        .as_ref()
                        .and_then(|s| s.call_frames.first())
                        .map(|f| f.url.clone())
                })
                .filter(|u| !u.is_empty());
            let (text, cut_from) = cap(exception_text(d));
            st.push(
                Kind::Errors,
                Entry {
                    seq: 0,
                    level: "error".into(),
                    text,
                    cut_from,
                    source,
                    frame_id,
                    frame_url,
                    timestamp: x.timestamp,
                    exception: Some((sid, d.exception_id)),
                },
            );
        }
        "Runtime.exceptionRevoked" => {
            if let Ok(r) = ev.decode::<runtime::ExceptionRevoked>() {
                let id = Some((sid, r.exception_id));
                st.errors.entries.retain(|e| e.exception != id);
            }
        }
        "Log.entryAdded" => {
            let Ok(l) = ev.decode::<log::EntryAdded>() else {
                return;
            };
            let e = l.entry;
            // Script errors come from Runtime; the Log domain adds failed loads, CSP and other
            // browser-side errors.
            if e.level != "error" || e.source == "javascript" {
                return;
            }
            let key = format!(
                "l|{}|{}|{}",
                e.timestamp.to_bits(),
                e.text,
                e.url.as_deref().unwrap_or("")
            );
            if st.replayed(key) {
                return;
            }
            // A session's own main frame: the page's, or the iframe's (its target id).
            let frame_id = st.session_frames.get(&sid).cloned();
            let frame_url = frame_id
                .as_ref()
                .and_then(|f| st.frame_urls.get(f).cloned());
            let (text, cut_from) = cap(e.text);
            st.push(
                Kind::Errors,
                Entry {
                    seq: 0,
                    level: "error".into(),
                    text,
                    cut_from,
                    source: e.url.filter(|u| !u.is_empty()),
                    frame_id,
                    frame_url,
                    timestamp: e.timestamp,
                    exception: None,
                },
            );
        }
        _ => {}
    }
}

/// The level of a console call (`None`: nothing to record, as `console.groupEnd`).
fn console_level(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "error" | "assert" => "error",
        "warning" => "warn",
        "info" => "info",
        "debug" => "debug",
        "endGroup" => return None,
        _ => "log",
    })
}

/// Text of an exception: `Uncaught Error: boom`, `Uncaught (in promise) TypeError: ...`.
fn exception_text(d: &runtime::ExceptionDetails) -> String {
    let thrown = d.exception.as_ref().map(|e| {
        e.description
            .as_deref()
            .map(|s| s.lines().next().unwrap_or_default().to_string())
            .unwrap_or_else(|| object_text(e))
    });
    match thrown {
        Some(t) if !t.is_empty() && !d.text.ends_with(&t) => {
            if d.text.is_empty() {
                t
            } else {
                format!("{} {t}", d.text)
            }
        }
        _ => d.text.clone(),
    }
}

/// One console argument as DevTools would print it (briefly).
fn object_text(o: &runtime::RemoteObject) -> String {
    if let Some(u) = &o.unserializable_value {
        return u.clone();
    }
    match (o.r#type.as_str(), o.subtype.as_deref()) {
        ("string", _) => o
            .value
            .as_ref()
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string(),
        ("undefined", _) => "undefined".into(),
        ("object", Some("null")) => "null".into(),
        ("object", Some("error")) | ("function", _) => o.description.clone().unwrap_or_default(),
        ("object", _) => match &o.preview {
            Some(p) => preview_text(p),
            None => o
                .value
                .as_ref()
                .map(|v| v.to_string())
                .or_else(|| o.description.clone())
                .unwrap_or_default(),
        },
        _ => o
            .value
            .as_ref()
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .or_else(|| o.description.clone())
            .unwrap_or_default(),
    }
}

fn preview_text(p: &runtime::ObjectPreview) -> String {
    let value = |v: &runtime::PropertyPreview| match (v.r#type.as_str(), &v.value) {
        ("string", Some(s)) => format!("{s:?}"),
        (_, Some(s)) => s.clone(),
        _ => v.r#type.clone(),
    };
    let more = if p.overflow { ", …" } else { "" };
    if p.subtype.as_deref() == Some("array") {
        let items: Vec<String> = p.properties.iter().map(value).collect();
        return format!("[{}{more}]", items.join(", "));
    }
    let items: Vec<String> = p
        .properties
        .iter()
        .map(|v| format!("{}: {}", v.name, value(v)))
        .collect();
    let body = format!("{{{}{more}}}", items.join(", "));
    match p.description.as_deref() {
        Some("Object") | None => body,
        Some(d) => format!("{d} {body}"),
    }
}

/// The text of a console call: a format string's `%s %d %i %f %o %O %c` filled from the
/// arguments after it, the rest joined with spaces.
fn format_args_text(args: &[runtime::RemoteObject]) -> String {
    let mut rest = args.iter();
    let mut out = String::new();
    if let Some(first) = args.first()
        && first.r#type == "string"
    {
        rest.next();
        let fmt = object_text(first);
        let mut chars = fmt.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some(spec @ ('s' | 'd' | 'i' | 'f' | 'o' | 'O' | 'c')) => {
                    chars.next();
                    let Some(arg) = rest.next() else {
                        out.push('%');
                        out.push(spec);
                        continue;
                    };
                    match spec {
                        'c' => {}
                        'd' | 'i' => {
                            let n = arg
                                .value
                                .as_ref()
                                .and_then(|v| v.as_f64())
                                .map(|f| format!("{}", f.trunc() as i64));
                            out.push_str(&n.unwrap_or_else(|| "NaN".into()));
                        }
                        _ => out.push_str(&object_text(arg)),
                    }
                }
                _ => out.push('%'),
            }
        }
    }
    for a in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&object_text(a));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: serde_json::Value) -> runtime::RemoteObject {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn console_text_like_devtools() {
        let args = vec![
            obj(json!({"type": "string", "value": "inline %s=%d%%"})),
            obj(json!({"type": "string", "value": "n"})),
            obj(json!({"type": "number", "value": 4.7, "description": "4.7"})),
            obj(
                json!({"type": "object", "className": "Object", "description": "Object",
                "preview": {"type": "object", "description": "Object", "overflow": false,
                  "properties": [{"name": "a", "type": "number", "value": "2"}, {"name": "b", "type": "string", "value": "x"}]}}),
            ),
            obj(
                json!({"type": "object", "subtype": "array", "description": "Array(2)",
                "preview": {"type": "object", "subtype": "array", "description": "Array(2)", "overflow": false,
                  "properties": [{"name": "0", "type": "number", "value": "1"}, {"name": "1", "type": "number", "value": "2"}]}}),
            ),
            obj(json!({"type": "undefined"})),
        ];
        assert_eq!(
            format_args_text(&args),
            "inline n=4% {a: 2, b: \"x\"} [1, 2] undefined"
        );
        assert_eq!(
            format_args_text(&[obj(
                json!({"type": "number", "value": 1, "description": "1"})
            )]),
            "1"
        );
    }

    #[test]
    fn exceptions_read_as_uncaught_errors() {
        let d: runtime::ExceptionDetails = serde_json::from_value(json!({
            "exceptionId": 1, "text": "Uncaught (in promise)", "lineNumber": 5, "columnNumber": 56,
            "exception": {"type": "object", "subtype": "error", "className": "Error", "description": "Error: rej\n    at x"}
        }))
        .unwrap_or_default();
        assert_eq!(exception_text(&d), "Uncaught (in promise) Error: rej");
        let d: runtime::ExceptionDetails = serde_json::from_value(json!({
            "exceptionId": 2, "text": "Uncaught", "exception": {"type": "string", "value": "plain"}
        }))
        .unwrap_or_default();
        assert_eq!(exception_text(&d), "Uncaught plain");
    }

    #[test]
    fn buffers_drop_the_oldest_and_replays_are_recognised() {
        let mut st = State::default();
        for i in 0..(CAPACITY + 5) {
            let key = format!("k{i}");
            assert!(!st.replayed(key.clone()));
            assert!(st.replayed(key));
            st.push(
                Kind::Console,
                Entry {
                    seq: 0,
                    level: "log".into(),
                    text: i.to_string(),
                    cut_from: None,
                    source: None,
                    frame_id: None,
                    frame_url: None,
                    timestamp: i as f64,
                    exception: None,
                },
            );
        }
        assert_eq!(st.console.entries.len(), CAPACITY);
        assert_eq!(st.console.dropped, 5);
        assert_eq!(
            st.console.entries.front().map(|e| e.text.as_str()),
            Some("5")
        );
        assert_eq!(st.next_seq, (CAPACITY + 5) as u64);
        assert!(st.errors.entries.is_empty());
    }
}
