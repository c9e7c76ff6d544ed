//! `browser network requests | request <id> | har start | har stop | route | unroute | routes`
//! (beyond the spec; the reference CLI 1.6 has the first four, routing is agent-browser's and
//! Playwright's): what the tab's network recorder (`NetworkRecorder`) kept, one request with its
//! body, a HAR 1.2 file of a stretch of time, and routes that abort, mock or amend requests of the
//! tab's page, its OOPIFs and its workers. Routes are kept in the session record, so they come back
//! when the daemon restarts; the request ring and a running HAR capture do not.

mod har;

use std::collections::BTreeMap;

use base64::Engine as _;
use envelope::{Document, RenderText, TextBody};
use serde::{Deserialize, Serialize};

use crate::commands::observation::capture::target_path;
use crate::deadline;
use crate::error::{CliError, Result};
use crate::model::{self, TabTarget};
use crate::reply::{Done, document};
use crate::store::{RouteAction, RouteRecord};
use crate::tab::services::network::{
    self, Cache, HarContent, NetworkRecorder, RecorderState, RequestRecord,
};
use crate::tab::{TabCommand, TabCx};

/// Bodies longer than this are cut (`meta.truncated`).
const BODY_LIMIT: usize = 1024 * 1024;

/// `browser network requests`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Requests {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Only URLs containing this, or matching `/regex/`.
    #[cfg_attr(feature = "cli", arg(long, value_name = "SUBSTRING|/REGEX/"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Only these resource types (comma-separated: document, stylesheet, image, media, font,
    /// script, xhr, fetch, websocket, other, ...).
    #[cfg_attr(feature = "cli", arg(long = "type", value_name = "TYPE[,TYPE...]"))]
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// Only this status: a code (`404`), a class (`4xx`, `5xx`), or `failed`.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N|4xx|5xx|failed"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Only this HTTP method.
    #[cfg_attr(feature = "cli", arg(long, value_name = "METHOD"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Forget the finished requests after listing them.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub clear: bool,
}

/// `browser network request <id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Request {
    /// The request id (`request_id` in `network requests`).
    #[cfg_attr(feature = "cli", arg(value_name = "ID"))]
    pub id: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser network har start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct HarStart {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Which response bodies the file gets: none, text (default) or all (binary as base64).
    #[cfg_attr(feature = "cli", arg(long, value_name = "none|text|all"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// No response bodies (the reference CLI's flag; `--content none`).
    #[cfg_attr(feature = "cli", arg(long, conflicts_with = "content"))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_bodies: bool,
    /// Keep only these CDP resource types, comma-separated, any case (document, stylesheet, image,
    /// media, font, script, texttrack, xhr, fetch, prefetch, eventsource, websocket, manifest,
    /// signedexchange, ping, cspviolationreport, preflight, fedcm, other); `all` (the default).
    #[cfg_attr(feature = "cli", arg(long, value_name = "TYPES"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_types: Option<String>,
    /// Keep at most this many requests (later ones are counted as dropped; default 20000).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<usize>,
}

/// `browser network har stop [path]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct HarStop {
    /// Where to write the HAR file (relative paths are the caller's working directory's);
    /// without it (or `--out`), `$ACTIONBOOK_HOME/har/har-<time>.har`.
    #[cfg_attr(feature = "cli", arg(value_name = "PATH"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The same as PATH (the reference CLI's flag).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "PATH", conflicts_with = "path")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser network route <pattern>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Route {
    /// URL pattern: `*` any characters, `?` one; without either (and without a scheme) it
    /// matches URLs containing it.
    #[cfg_attr(feature = "cli", arg(value_name = "URL-PATTERN"))]
    pub pattern: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Fail matching requests, with this reason (Failed, Aborted, TimedOut, AccessDenied,
    /// ConnectionClosed, ConnectionReset, ConnectionRefused, ConnectionAborted, ConnectionFailed,
    /// NameNotResolved, InternetDisconnected, AddressUnreachable, BlockedByClient,
    /// BlockedByResponse; default Failed).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "REASON", num_args = 0..=1, default_missing_value = "Failed")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<String>,
    /// Answer matching requests with --status, --body/--body-file and --header.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub fulfill: bool,
    /// Send matching requests on with the --header headers added.
    #[cfg_attr(feature = "cli", arg(long = "continue"))]
    #[serde(default, rename = "continue")]
    pub continue_: bool,
    /// The mock answer's status (with --fulfill; default 200).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The mock answer's body (with --fulfill).
    #[cfg_attr(feature = "cli", arg(long, value_name = "TEXT"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A file with the mock answer's body (with --fulfill).
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_file: Option<String>,
    /// A header `Name: value` (repeatable): of the answer with --fulfill, added to the request
    /// with --continue.
    #[cfg_attr(feature = "cli", arg(long = "header", value_name = "K:V"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<String>,
}

/// `browser network unroute [<pattern>]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Unroute {
    /// The pattern of the route to remove; every route of the tab when absent.
    #[cfg_attr(feature = "cli", arg(value_name = "URL-PATTERN"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser network routes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Routes {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// One request as `network requests` lists it (the reference's fields, sorted, plus ours),
/// borrowed from the recorder's record: a full ring is listed without copying it.
#[derive(Debug, Serialize)]
struct RequestItem<'a> {
    /// How long it took, in milliseconds (absent while in flight).
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    /// Chromium's error text when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'a str>,
    /// The cache that answered it (`disk`, `memory`): nothing went over the wire (no raw headers).
    #[serde(skip_serializing_if = "Option::is_none")]
    from_cache: Option<&'static str>,
    method: &'a str,
    /// Why it ended as it did when the recorder ended it (its document was replaced).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    mime_type: &'a str,
    /// Where this hop's redirect led (each hop of a redirect chain is a request of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    redirect_url: Option<&'a str>,
    request_headers: &'a BTreeMap<String, String>,
    request_id: &'a str,
    resource_type: &'a str,
    response_headers: &'a BTreeMap<String, String>,
    /// Bytes received on the wire (absent until finished).
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    status: Option<i64>,
    /// `page`, `iframe`, `worker`, `service_worker`: which target made it.
    target_type: &'a str,
    /// CDP monotonic time of its start, in milliseconds (as the reference).
    timestamp: u64,
    url: &'a str,
}

impl<'a> From<&'a RequestRecord> for RequestItem<'a> {
    fn from(r: &'a RequestRecord) -> RequestItem<'a> {
        RequestItem {
            duration_ms: r.duration_ms().map(|d| d.round() as u64),
            failure: r.failure.as_deref(),
            from_cache: r.from_cache.map(Cache::as_str),
            method: &r.method,
            note: r.note,
            mime_type: &r.mime_type,
            redirect_url: r.redirect_url.as_deref(),
            request_headers: &r.request_headers,
            request_id: &r.id,
            resource_type: &r.resource_type,
            response_headers: &r.response_headers,
            size: r.encoded_data_length.map(|s| s.max(0.0) as u64),
            status: r.status,
            target_type: &r.target_type,
            timestamp: (r.timestamp * 1000.0).max(0.0) as u64,
            url: &r.url,
        }
    }
}

/// The text row: `ID METHOD STATUS TYPE URL` (status: the code, the failure, or `-` in flight).
impl std::fmt::Display for RequestItem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.row(f, self.url)
    }
}

/// URLs longer than this many characters are cut in the list's rows (a `data:` URL of an image
/// is often kilobytes of base64): the row keeps [`LISTED_URL_KEPT`] and says how many it left.
const LISTED_URL_LIMIT: usize = 200;
/// The characters of a long URL a list row keeps.
const LISTED_URL_KEPT: usize = 120;

/// A row of `network requests`' text list: the URL cut past [`LISTED_URL_LIMIT`] characters,
/// with the count left out (the whole one is in `--json` and in `network request <id>`).
struct ListedRow<'r, 'a>(&'r RequestItem<'a>);

impl std::fmt::Display for ListedRow<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = self.0.url;
        match url.char_indices().nth(LISTED_URL_LIMIT) {
            None => self.0.row(f, url),
            Some(_) => {
                let (cut, _) = url
                    .char_indices()
                    .nth(LISTED_URL_KEPT)
                    .unwrap_or((url.len(), ' '));
                let left = url[cut..].chars().count();
                self.0
                    .row(f, format_args!("{}…[+{left} chars]", &url[..cut]))
            }
        }
    }
}

impl RequestItem<'_> {
    /// `ID METHOD STATUS TYPE <url>`.
    fn row(
        &self,
        f: &mut std::fmt::Formatter<'_>,
        url: impl std::fmt::Display,
    ) -> std::fmt::Result {
        let kind = if self.resource_type.is_empty() {
            "-"
        } else {
            self.resource_type
        };
        write!(f, "{} {} ", self.request_id, self.method)?;
        match (self.failure, self.status) {
            (Some(failure), _) => f.write_str(failure)?,
            (None, Some(s)) => write!(f, "{s}")?,
            (None, None) => f.write_str("-")?,
        }
        write!(f, " {kind} {url}")
    }
}

/// `network requests` data: `{filtered, requests, total}` as the reference.
#[derive(Debug, Serialize)]
struct RequestsData<'a> {
    filtered: usize,
    requests: Vec<RequestItem<'a>>,
    total: usize,
}

impl RenderText for RequestsData<'_> {
    fn render_body(&self, body: &mut TextBody<'_>) {
        if self.filtered == self.total {
            body.count(self.total, "request", "requests");
        } else {
            body.line(format_args!("{} of {} requests", self.filtered, self.total));
        }
        for r in &self.requests {
            body.line(ListedRow(r));
        }
    }
}

/// A response body as `network request <id>` gives it.
#[derive(Debug, Serialize)]
struct BodyData {
    /// `utf8` or `base64`.
    encoding: &'static str,
    /// The body (cut at [`BODY_LIMIT`] bytes).
    text: String,
    /// Its whole size in bytes.
    size: usize,
    /// Whether `text` is only its beginning.
    truncated: bool,
}

/// `network request <id>` data.
#[derive(Debug, Serialize)]
struct RequestData<'a> {
    #[serde(flatten)]
    item: RequestItem<'a>,
    /// The request body, when Chromium reported it.
    post_data: Option<String>,
    protocol: Option<String>,
    remote_ip: Option<String>,
    status_text: String,
    /// The response body; `null` when Chromium no longer has it (or there is none).
    response_body: Option<BodyData>,
}

impl RenderText for RequestData<'_> {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.item);
        body.field("mime_type", self.item.mime_type);
        if let Some(d) = self.item.duration_ms {
            body.field("duration_ms", d);
        }
        if let Some(to) = &self.item.redirect_url {
            body.field("redirect_url", to);
        }
        if let Some(cache) = self.item.from_cache {
            body.field(
                "from_cache",
                format_args!("{cache} (nothing went over the wire)"),
            );
        }
        if let Some(note) = self.item.note {
            body.field("note", note);
        }
        for (k, v) in self.item.request_headers {
            body.line(format_args!("> {k}: {v}"));
        }
        for (k, v) in self.item.response_headers {
            body.line(format_args!("< {k}: {v}"));
        }
        if let Some(p) = &self.post_data {
            body.field("post_data", format_args!("{} bytes", p.len()));
            for line in p.lines() {
                body.line(line);
            }
        }
        if let Some(b) = &self.response_body {
            if b.truncated {
                body.field(
                    "body",
                    format_args!(
                        "{} bytes ({}), cut: the first {} shown",
                        b.size,
                        b.encoding,
                        BODY_LIMIT.min(b.size)
                    ),
                );
            } else {
                body.field("body", format_args!("{} bytes ({})", b.size, b.encoding));
            }
            if b.encoding == "utf8" {
                for line in b.text.lines() {
                    body.line(line);
                }
            }
        }
    }
}

/// `har start` data.
#[derive(Debug, Serialize)]
struct HarStartData {
    recording: bool,
    content: HarContent,
    /// The resource types kept (`all`, or the list as given, lowercase).
    resource_types: String,
    /// The most requests the file keeps.
    max_entries: usize,
}

impl RenderText for HarStartData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field(
            "content",
            format_args!("{:?}", self.content)
                .to_string()
                .to_lowercase(),
        );
    }
}

/// `har stop` data.
#[derive(Debug, Serialize)]
struct HarStopData {
    path: String,
    entries: usize,
    /// `entries` by the reference CLI's name.
    count: usize,
    /// The most requests the file keeps (`--max-entries`).
    max_entries: usize,
    bytes: u64,
    /// Requests beyond the capture's bound, not in the file.
    dropped: u64,
}

impl RenderText for HarStopData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.path);
        body.field("entries", self.entries);
    }
}

/// A route as the route commands show it (a mock body only by its size).
#[derive(Debug, Serialize)]
struct RouteItem {
    pattern: String,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    body_bytes: Option<usize>,
    /// Header names only: their values may be credentials.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    headers: Vec<String>,
}

impl From<&RouteRecord> for RouteItem {
    fn from(r: &RouteRecord) -> RouteItem {
        let names = |h: &[(String, String)]| h.iter().map(|(k, _)| k.clone()).collect();
        match &r.action {
            RouteAction::Abort { reason } => RouteItem {
                pattern: r.pattern.clone(),
                action: "abort",
                reason: Some(reason.clone()),
                status: None,
                body_bytes: None,
                headers: Vec::new(),
            },
            RouteAction::Fulfill {
                status,
                headers,
                body_base64,
            } => RouteItem {
                pattern: r.pattern.clone(),
                action: "fulfill",
                reason: None,
                status: Some(*status),
                body_bytes: Some(base64_len(body_base64)),
                headers: names(headers),
            },
            RouteAction::Continue { headers } => RouteItem {
                pattern: r.pattern.clone(),
                action: "continue",
                reason: None,
                status: None,
                body_bytes: None,
                headers: names(headers),
            },
        }
    }
}

/// Bytes that standard base64 text stands for: three a group of four, less its `=` padding.
fn base64_len(b64: &str) -> usize {
    let padding = b64.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (b64.len() / 4 * 3).saturating_sub(padding)
}

impl RouteItem {
    fn row(&self) -> String {
        let detail = match (&self.reason, self.status) {
            (Some(r), _) => format!(" {r}"),
            (None, Some(s)) => format!(" {s}"),
            _ => String::new(),
        };
        format!("{} {}{detail}", self.pattern, self.action)
    }
}

/// `route`, `unroute` and `routes` data: the tab's routes after the command.
#[derive(Debug, Serialize)]
struct RoutesData {
    /// What `unroute` removed (absent for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<usize>,
    routes: Vec<RouteItem>,
    #[serde(skip)]
    action: bool,
}

impl RenderText for RoutesData {
    fn is_action(&self) -> bool {
        self.action
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        if let Some(n) = self.removed {
            body.field("removed", n);
        }
        body.count(self.routes.len(), "route", "routes");
        for r in &self.routes {
            body.line(r.row());
        }
    }
}

/// The tab's recorder, once it records (its own problems as warnings).
async fn recorder<'a>(cx: &'a TabCx<'_>) -> Result<&'a NetworkRecorder> {
    let recorder = router(cx).await?;
    match recorder.state() {
        RecorderState::Off => Err(recording_off()),
        _ => Ok(recorder),
    }
}

/// The tab's recorder once it started, recording or only routing (`--max-tracked-requests 0`).
async fn router<'a>(cx: &'a TabCx<'_>) -> Result<&'a NetworkRecorder> {
    let recorder = cx
        .state
        .services
        .get::<NetworkRecorder>()
        .ok_or_else(|| CliError::internal("the tab has no network recorder"))?;
    let _ = tokio::time::timeout(
        cx.deadline.remaining(),
        crate::tab::services::TabService::ready(recorder),
    )
    .await;
    match recorder.state() {
        RecorderState::Recording | RecorderState::Off => Ok(recorder),
        RecorderState::Starting => Err(cx.deadline.timeout("starting the network recorder")),
        RecorderState::Failed(why) => Err(CliError::Unsupported(format!(
            "the tab's requests cannot be recorded: {why}"
        ))),
    }
}

/// The error of a command that needs the requests, in a session that does not record them.
pub(crate) fn recording_off() -> CliError {
    CliError::Unsupported(
        "this session does not record requests: it was started with --max-tracked-requests 0 (start a session without it to record them)".to_string(),
    )
}

/// Warnings every network command carries: drops, lost events, what the recorder cannot see.
fn recorder_warnings(recorder: &NetworkRecorder) -> Vec<String> {
    let (dropped, lost) = recorder.losses();
    let mut out = Vec::new();
    if dropped > 0 {
        out.push(format!(
            "{dropped} older requests were dropped (the tab keeps the latest {}; see start --max-tracked-requests)",
            recorder.capacity()
        ));
    }
    if lost > 0 {
        out.push(format!(
            "{lost} network events were lost: the page made requests faster than they could be recorded"
        ));
    }
    out.extend(recorder.problems());
    out
}

/// Chromium's resource types (`Network.ResourceType`), what `--type` takes.
const RESOURCE_TYPES: &[&str] = &[
    "Document",
    "Stylesheet",
    "Image",
    "Media",
    "Font",
    "Script",
    "TextTrack",
    "XHR",
    "Fetch",
    "Prefetch",
    "EventSource",
    "WebSocket",
    "Manifest",
    "SignedExchange",
    "Ping",
    "CSPViolationReport",
    "Preflight",
    "FedCM",
    "Other",
];

/// What `network requests` keeps.
#[derive(Debug)]
struct Filter {
    url: Option<UrlFilter>,
    types: Option<Vec<String>>,
    status: Option<StatusFilter>,
    method: Option<String>,
}

#[derive(Debug)]
enum UrlFilter {
    Contains(String),
    Regex(regex::Regex),
}

#[derive(Debug, PartialEq)]
enum StatusFilter {
    Code(i64),
    Class(i64),
    Failed,
}

fn parse_status(s: &str) -> Result<StatusFilter> {
    let s = s.trim().to_ascii_lowercase();
    if s == "failed" {
        return Ok(StatusFilter::Failed);
    }
    if let Some(class) = s.strip_suffix("xx")
        && let Ok(c @ 1..=5) = class.parse::<i64>()
    {
        return Ok(StatusFilter::Class(c));
    }
    match s.parse::<i64>() {
        Ok(n @ 100..=599) => Ok(StatusFilter::Code(n)),
        _ => Err(CliError::InvalidArgument(format!(
            "--status takes a code (404), a class (4xx) or failed, not {s:?}"
        ))),
    }
}

impl Filter {
    fn parse(r: &Requests) -> Result<Filter> {
        let url = match r.filter.as_deref() {
            None | Some("") => None,
            Some(f) if f.len() >= 2 && f.starts_with('/') && f.ends_with('/') => {
                let re = regex::Regex::new(&f[1..f.len() - 1]).map_err(|e| {
                    CliError::InvalidArgument(format!(
                        "--filter {f}: not a regular expression: {e}"
                    ))
                })?;
                Some(UrlFilter::Regex(re))
            }
            Some(f) => Some(UrlFilter::Contains(f.to_string())),
        };
        let types = r.resource_type.as_deref().map(|t| {
            t.split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        });
        if types.as_ref().is_some_and(Vec::is_empty) {
            return Err(CliError::InvalidArgument("--type names no type".into()));
        }
        // A misspelt type would list nothing, as if there had been no such request.
        if let Some(bad) = types
            .iter()
            .flatten()
            .find(|t| !RESOURCE_TYPES.iter().any(|k| k.eq_ignore_ascii_case(t)))
        {
            return Err(CliError::InvalidArgument(format!(
                "--type {bad:?} is no resource type: one of {}",
                RESOURCE_TYPES.join(", ").to_ascii_lowercase()
            )));
        }
        Ok(Filter {
            url,
            types,
            status: r.status.as_deref().map(parse_status).transpose()?,
            method: r.method.as_ref().map(|m| m.trim().to_ascii_uppercase()),
        })
    }

    fn keeps(&self, r: &RequestRecord) -> bool {
        let url = match &self.url {
            None => true,
            Some(UrlFilter::Contains(s)) => r.url.contains(s.as_str()),
            Some(UrlFilter::Regex(re)) => re.is_match(&r.url),
        };
        let kind = self
            .types
            .as_ref()
            .is_none_or(|t| t.contains(&r.resource_type.to_ascii_lowercase()));
        let status = match &self.status {
            None => true,
            Some(StatusFilter::Failed) => r.failure.is_some(),
            Some(StatusFilter::Code(c)) => r.status == Some(*c),
            Some(StatusFilter::Class(c)) => r.status.is_some_and(|s| s / 100 == *c),
        };
        let method = self.method.as_ref().is_none_or(|m| *m == r.method);
        url && kind && status && method
    }
}

impl TabCommand for Requests {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let filter = Filter::parse(&self)?;
        let recorder = recorder(cx).await?;
        let all = recorder.requests();
        let warnings = recorder_warnings(recorder);
        if self.clear {
            recorder.clear();
        }
        let requests: Vec<RequestItem> = all
            .iter()
            .filter(|r| filter.keeps(r))
            .map(|r| RequestItem::from(&**r))
            .collect();
        let data = RequestsData {
            filtered: requests.len(),
            requests,
            total: all.len(),
        };
        let mut done = Done::data(document(&data)?);
        done.warnings = warnings;
        Ok(done)
    }
}

/// A body as [`BodyData`], cut at `limit` bytes.
fn body_data(bytes: &[u8], binary: bool, limit: usize) -> BodyData {
    let size = bytes.len();
    match std::str::from_utf8(bytes) {
        Ok(text) if !binary => {
            let mut cut = size.min(limit);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            BodyData {
                encoding: "utf8",
                text: text[..cut].to_string(),
                size,
                truncated: cut < size,
            }
        }
        _ => {
            let cut = size.min(limit);
            BodyData {
                encoding: "base64",
                text: base64::engine::general_purpose::STANDARD.encode(&bytes[..cut]),
                size,
                truncated: cut < size,
            }
        }
    }
}

impl TabCommand for Request {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let recorder = recorder(cx).await?;
        let id = self.id.trim();
        let r = recorder.request(id).ok_or_else(|| {
            CliError::InvalidArgument(format!(
                "the tab kept no request {id:?} (see `browser network requests`)"
            ))
        })?;
        let mut warnings = recorder_warnings(recorder);
        let mut truncated = false;
        let response_body = if r.finished.is_none() {
            warnings.push("the request is still in flight: no body yet".to_string());
            None
        } else if r.failure.is_some() || r.redirect_url.is_some() {
            // A redirect's body is not kept (the id's body is the last hop's).
            None
        } else {
            match recorder
                .body(&r, cx.deadline.capped(deadline::QUICK_CALL))
                .await
            {
                Ok(b) => match network::body_bytes(&b) {
                    Some(bytes) => {
                        let body = body_data(
                            &bytes,
                            b.base64_encoded && !is_text(&r.mime_type),
                            BODY_LIMIT,
                        );
                        truncated = body.truncated;
                        Some(body)
                    }
                    None => {
                        warnings.push("Chromium sent a body that is not valid base64".into());
                        None
                    }
                },
                Err(e) => {
                    warnings.push(format!("the response body is not available: {e}"));
                    None
                }
            }
        };
        // A body past the capture limit (64 KiB) did not come with the report: asked for now.
        let mut post_data = r.post_data.clone();
        if post_data.is_none() && r.has_post_data {
            match recorder
                .post_data(&r, cx.deadline.capped(deadline::QUICK_CALL))
                .await
            {
                Ok(p) if p.base64_encoded => {
                    warnings.push("the request body is binary: shown base64".to_string());
                    post_data = Some(p.post_data);
                }
                Ok(p) => post_data = Some(p.post_data),
                Err(e) => warnings.push(format!("the request body is not available: {e}")),
            }
        }
        // Cut as a response body is: a large upload would not fit the answer.
        if let Some(p) = post_data.as_mut()
            && p.len() > BODY_LIMIT
        {
            let mut end = BODY_LIMIT;
            while !p.is_char_boundary(end) {
                end -= 1;
            }
            warnings.push(format!(
                "the request body ({} bytes) is cut: the first {end} shown",
                p.len()
            ));
            p.truncate(end);
            truncated = true;
        }
        let data = RequestData {
            item: RequestItem::from(&r),
            post_data,
            protocol: r.protocol.clone(),
            remote_ip: r.remote_ip.clone(),
            status_text: r.status_text.clone(),
            response_body,
        };
        let mut done = Done::data(document(&data)?);
        done.warnings = warnings;
        done.truncated = truncated;
        Ok(done)
    }
}

/// Whether a MIME type is text (HAR `--content text` and `request <id>` print these as text).
pub(crate) fn is_text(mime: &str) -> bool {
    let m = mime.to_ascii_lowercase();
    m.starts_with("text/")
        || m.contains("json")
        || m.contains("javascript")
        || m.contains("ecmascript")
        || m.contains("xml")
        || m.contains("x-www-form-urlencoded")
        || m.contains("graphql")
}

/// `--resource-types`: `None` for all; an unknown name is refused (a typo must not record
/// nothing, or everything, without a word).
fn parse_resource_types(s: Option<&str>) -> Result<Option<Vec<String>>> {
    let Some(s) = s else { return Ok(None) };
    let mut types = Vec::new();
    for t in s.split(',').map(|t| t.trim().to_ascii_lowercase()) {
        if t.is_empty() {
            continue;
        }
        if t == "all" || t == "*" {
            return Ok(None);
        }
        if !RESOURCE_TYPES.iter().any(|k| k.eq_ignore_ascii_case(&t)) {
            return Err(CliError::InvalidArgument(format!(
                "--resource-types: unknown type {t:?} (all, {})",
                RESOURCE_TYPES.join(", ").to_ascii_lowercase()
            )));
        }
        if !types.contains(&t) {
            types.push(t);
        }
    }
    if types.is_empty() {
        return Err(CliError::InvalidArgument(
            "--resource-types is empty: name the types, or all".into(),
        ));
    }
    Ok(Some(types))
}

fn parse_content(s: Option<&str>) -> Result<HarContent> {
    match s.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("text") => Ok(HarContent::Text),
        Some("none") => Ok(HarContent::None),
        Some("all") => Ok(HarContent::All),
        Some(other) => Err(CliError::InvalidArgument(format!(
            "--content takes none, text or all, not {other:?}"
        ))),
    }
}

impl TabCommand for HarStart {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let content = if self.no_bodies {
            HarContent::None
        } else {
            parse_content(self.content.as_deref())?
        };
        let types = parse_resource_types(self.resource_types.as_deref())?;
        let max_entries = match self.max_entries {
            None => network::HAR_LIMIT,
            Some(0) => {
                return Err(CliError::InvalidArgument(
                    "--max-entries must be at least 1".into(),
                ));
            }
            Some(n) => n,
        };
        let recorder = recorder(cx).await?;
        let resource_types = types.as_ref().map_or("all".into(), |t| t.join(","));
        if !recorder.har_start(content, max_entries, types) {
            return Err(CliError::HarAlreadyRecording);
        }
        let mut done = Done::data(document(&HarStartData {
            recording: true,
            content,
            resource_types,
            max_entries,
        })?);
        done.warnings = recorder_warnings(recorder);
        Ok(done)
    }
}

impl TabCommand for HarStop {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let path = match self.path.as_deref().or(self.out.as_deref()) {
            Some(p) => target_path(p, cx.env)?,
            None => default_har_path(cx)?,
        };
        let recorder = recorder(cx).await?;
        if !recorder.har_running() {
            return Err(CliError::HarNotRecording);
        }
        // The capture ends only once its file is written: a path that fails (checked above, or
        // refused by the disk below) keeps the recording running.
        let Some(capture) = recorder.har_snapshot() else {
            return Err(CliError::HarNotRecording);
        };
        let mut warnings = recorder_warnings(recorder);
        let bodies = har::bodies(recorder, &capture, &cx.deadline).await;
        if bodies.missing > 0 {
            warnings.push(format!(
                "{} response bodies were no longer available in Chromium and are left out",
                bodies.missing
            ));
        }
        if bodies.missing_posts > 0 {
            warnings.push(format!(
                "{} request bodies past 64 KiB were no longer available in Chromium and are left out",
                bodies.missing_posts
            ));
        }
        let pending = capture
            .entries
            .iter()
            .filter(|r| r.finished.is_none())
            .count();
        if pending > 0 {
            let were = if pending == 1 {
                "request was"
            } else {
                "requests were"
            };
            warnings.push(format!(
                "{pending} {were} still in flight: their entries have no end (status 0 or no body, timings cut; comment: {:?})",
                har::IN_FLIGHT
            ));
        }
        if capture.dropped > 0 {
            // The reference CLI's prefix, so agents that look for it find it.
            warnings.push(format!(
                "HAR_TRUNCATED: {} requests beyond the first {} are not in the file \
                 (max_entries={}): raise --max-entries or stop sooner",
                capture.dropped, capture.limit, capture.limit
            ));
        }
        let file = har::Har::new(&capture, &bodies);
        // Bodies, URLs and headers masked for the session's secrets (every string of the file,
        // so form-encoded and JSON-escaped forms too).
        let json = serde_json::to_value(&file)
            .map(|v| cx.env.secrets.mask_json(&v))
            .and_then(|v| serde_json::to_vec_pretty(&v))
            .map_err(|e| CliError::internal(format!("encoding the HAR file: {e}")))?;
        let bytes = json.len() as u64;
        let shown = path.display().to_string();
        let target = path.clone();
        let written = tokio::task::spawn_blocking(move || {
            crate::store::write_file_whole(&target, |w| std::io::Write::write_all(w, &json))
        })
        .await
        .map_err(|e| CliError::internal(format!("writing the HAR file: {e}")))?;
        written.map_err(|source| CliError::ArtifactWrite {
            path: shown.clone(),
            source,
        })?;
        recorder.har_end();
        let entries = file.log.entries.len();
        let mut done = Done::data(document(&HarStopData {
            path: shown,
            entries,
            count: entries,
            max_entries: capture.limit,
            bytes,
            dropped: capture.dropped,
        })?);
        done.truncated = capture.dropped > 0;
        done.warnings = warnings;
        Ok(done)
    }
}

/// `$ACTIONBOOK_HOME/har/har-<ms since the epoch>.har`, its directory made: where `har stop`
/// without a path writes.
fn default_har_path(cx: &TabCx<'_>) -> Result<std::path::PathBuf> {
    let home = crate::store::Home::of_session_dir(&cx.session.dir).ok_or_else(|| {
        CliError::InvalidArgument(
            "this session has no home to write the HAR file in: give a path".into(),
        )
    })?;
    let dir = home.har_dir();
    std::fs::create_dir_all(&dir).map_err(|source| CliError::ArtifactWrite {
        path: dir.display().to_string(),
        source,
    })?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    Ok(dir.join(format!("har-{ms}.har")))
}

const REASONS: &[&str] = &[
    "Failed",
    "Aborted",
    "TimedOut",
    "AccessDenied",
    "ConnectionClosed",
    "ConnectionReset",
    "ConnectionRefused",
    "ConnectionAborted",
    "ConnectionFailed",
    "NameNotResolved",
    "InternetDisconnected",
    "AddressUnreachable",
    "BlockedByClient",
    "BlockedByResponse",
];

fn parse_header(h: &str) -> Result<(String, String)> {
    // HTTP's rules: Chromium refuses other headers when the route is applied, which would leave
    // the request hanging.
    match h.split_once(':') {
        Some((k, v)) if model::valid_header_name(k.trim()) && model::valid_header_value(v) => {
            Ok((k.trim().to_string(), v.trim().to_string()))
        }
        // The value is not echoed: it may be a credential.
        _ => Err(CliError::InvalidArgument(
            "--header takes `Name: value`: a name of letters, digits and !#$%&'*+-.^_`|~, a colon, \
             a value without line breaks"
                .into(),
        )),
    }
}

impl Route {
    /// The action the flags describe (exactly one of --abort, --fulfill, --continue).
    async fn action(&self, env: &crate::model::ClientEnv) -> Result<RouteAction> {
        let chosen = usize::from(self.abort.is_some())
            + usize::from(self.fulfill)
            + usize::from(self.continue_);
        if chosen != 1 {
            return Err(CliError::InvalidArgument(
                "give exactly one of --abort [reason], --fulfill or --continue".into(),
            ));
        }
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>>>()?;
        if !self.fulfill
            && (self.status.is_some() || self.body.is_some() || self.body_file.is_some())
        {
            return Err(CliError::InvalidArgument(
                "--status, --body and --body-file go with --fulfill".into(),
            ));
        }
        if let Some(reason) = &self.abort {
            if !headers.is_empty() {
                return Err(CliError::InvalidArgument(
                    "--header goes with --fulfill or --continue".into(),
                ));
            }
            let reason = REASONS
                .iter()
                .find(|r| r.eq_ignore_ascii_case(reason.trim()))
                .ok_or_else(|| {
                    CliError::InvalidArgument(format!(
                        "--abort takes one of {}, not {reason:?}",
                        REASONS.join(", ")
                    ))
                })?;
            return Ok(RouteAction::Abort {
                reason: (*reason).to_string(),
            });
        }
        if self.continue_ {
            return Ok(RouteAction::Continue { headers });
        }
        let status = self.status.unwrap_or(200);
        if !(100..=599).contains(&status) {
            return Err(CliError::InvalidArgument(format!(
                "--status takes 100 to 599, not {status}"
            )));
        }
        let body = match (&self.body, &self.body_file) {
            (Some(_), Some(_)) => {
                return Err(CliError::InvalidArgument(
                    "give --body or --body-file, not both".into(),
                ));
            }
            (Some(b), None) => b.clone().into_bytes(),
            (None, Some(f)) => {
                let path = env.resolve_path(std::path::Path::new(f));
                let shown = path.display().to_string();
                tokio::task::spawn_blocking(move || std::fs::read(&path))
                    .await
                    .map_err(|e| CliError::internal(format!("reading --body-file: {e}")))?
                    .map_err(|e| CliError::InvalidArgument(format!("--body-file {shown}: {e}")))?
            }
            (None, None) => Vec::new(),
        };
        Ok(RouteAction::Fulfill {
            status,
            headers,
            body_base64: base64::engine::general_purpose::STANDARD.encode(body),
        })
    }
}

/// Stores the tab's routes in the session record and applies them to the recorder.
async fn apply_routes(
    cx: &TabCx<'_>,
    recorder: &NetworkRecorder,
    routes: Vec<RouteRecord>,
) -> Result<Vec<String>> {
    let tab = cx.tab_id.clone();
    let kept = routes.clone();
    cx.session
        .update(|r| {
            r.network_routes.retain(|x| x.tab_id != tab);
            r.network_routes.extend(kept);
            r.prune_routes();
        })
        .await?;
    let mut warnings = recorder_warnings(recorder);
    if let Err(e) = recorder
        .set_routes(routes, cx.deadline.capped(deadline::QUICK_CALL))
        .await
    {
        warnings.push(e);
    }
    Ok(warnings)
}

impl TabCommand for Route {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let pattern = self.pattern.trim().to_string();
        if pattern.is_empty() {
            return Err(CliError::InvalidArgument("the URL pattern is empty".into()));
        }
        let action = self.action(cx.env).await?;
        let recorder = router(cx).await?;
        // A pattern routed again is replaced, in place.
        let mut routes = recorder.routes();
        let route = RouteRecord {
            tab_id: cx.tab_id.clone(),
            pattern: pattern.clone(),
            action,
        };
        match routes.iter_mut().find(|r| r.pattern == pattern) {
            Some(r) => *r = route,
            None => routes.push(route),
        }
        let warnings = apply_routes(cx, recorder, routes.clone()).await?;
        let mut done = Done::data(document(&RoutesData {
            removed: None,
            routes: routes.iter().map(RouteItem::from).collect(),
            action: true,
        })?);
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Unroute {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let recorder = router(cx).await?;
        let mut routes = recorder.routes();
        let before = routes.len();
        match self.pattern.as_deref().map(str::trim) {
            Some(p) => routes.retain(|r| r.pattern != p),
            None => routes.clear(),
        }
        let removed = before - routes.len();
        let mut warnings = apply_routes(cx, recorder, routes.clone()).await?;
        if removed == 0
            && let Some(p) = &self.pattern
        {
            warnings.push(format!("no route of this tab has the pattern {p:?}"));
        }
        let mut done = Done::data(document(&RoutesData {
            removed: Some(removed),
            routes: routes.iter().map(RouteItem::from).collect(),
            action: true,
        })?);
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Routes {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let recorder = router(cx).await?;
        let mut done = Done::data(document(&RoutesData {
            removed: None,
            routes: recorder.routes().iter().map(RouteItem::from).collect(),
            action: false,
        })?);
        done.warnings = recorder_warnings(recorder);
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_rows_cut_long_urls_and_say_how_much() {
        let none = BTreeMap::new();
        let item = |url| RequestItem {
            duration_ms: None,
            failure: None,
            from_cache: None,
            method: "GET",
            note: None,
            mime_type: "image/png",
            redirect_url: None,
            request_headers: &none,
            request_id: "7.1",
            resource_type: "Image",
            response_headers: &none,
            size: None,
            status: Some(200),
            target_type: "page",
            timestamp: 0,
            url,
        };
        let short = format!("http://h/{}", "a".repeat(LISTED_URL_LIMIT - 9));
        assert_eq!(
            ListedRow(&item(&short)).to_string(),
            format!("7.1 GET 200 Image {short}")
        );
        // Past the limit, in characters (not bytes): a multibyte URL is cut on a character.
        let long = format!("data:image/png;base64,{}", "é".repeat(500));
        let row = ListedRow(&item(&long)).to_string();
        let kept: String = long.chars().take(LISTED_URL_KEPT).collect();
        let left = long.chars().count() - LISTED_URL_KEPT;
        assert_eq!(row, format!("7.1 GET 200 Image {kept}…[+{left} chars]"));
        // The detail view keeps it whole.
        assert!(item(&long).to_string().ends_with(&long));
    }

    #[test]
    fn status_filters_parse() {
        assert_eq!(parse_status("404").unwrap(), StatusFilter::Code(404));
        assert_eq!(parse_status("4xx").unwrap(), StatusFilter::Class(4));
        assert_eq!(parse_status("5XX").unwrap(), StatusFilter::Class(5));
        assert_eq!(parse_status("failed").unwrap(), StatusFilter::Failed);
        assert!(parse_status("6xx").is_err());
        assert!(parse_status("42").is_err());
        assert!(parse_status("").is_err());
    }

    #[test]
    fn headers_parse_without_echoing_the_value() {
        assert_eq!(
            parse_header("X-Token: abc:def").unwrap(),
            ("X-Token".to_string(), "abc:def".to_string())
        );
        let e = parse_header("no colon secret").unwrap_err();
        assert!(!e.to_string().contains("secret"));
        // What Chromium would refuse when the route applies (the request then hung) is refused
        // when the route is added, without echoing the value.
        for bad in [
            "A: b\r\nC: d",
            "A: b\nsecret",
            "Bäd: b",
            "A B: c",
            ": c",
            "A\0: b",
        ] {
            let e = parse_header(bad).unwrap_err();
            assert!(!e.to_string().contains("secret"), "{bad:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn an_accepted_header_is_a_valid_http_header(h in "[\\x00-\\xff]{0,12}:?[\\x00-\\xff]{0,12}") {
            if let Ok((k, v)) = parse_header(&h) {
                proptest::prop_assert!(!k.is_empty());
                proptest::prop_assert!(k.chars().all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)));
                proptest::prop_assert!(!v.contains(['\r', '\n', '\0']));
            }
        }
    }

    proptest::proptest! {
        /// A mock body's size is its bytes, whatever base64 padding it got (`{"mock":true}`, 13
        /// bytes, was reported as 15).
        #[test]
        fn a_mock_bodys_size_is_its_byte_count(body in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&body);
            proptest::prop_assert_eq!(base64_len(&b64), body.len());
        }
    }

    #[test]
    fn a_mock_json_body_is_13_bytes() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(r#"{"mock":true}"#);
        assert_eq!(base64_len(&b64), 13);
    }

    #[test]
    fn bodies_are_cut_on_char_boundaries_and_binary_goes_base64() {
        let b = body_data("héllo".as_bytes(), false, 2);
        assert_eq!(
            (b.encoding, b.text.as_str(), b.truncated),
            ("utf8", "h", true)
        );
        let b = body_data(&[0xff, 0x00, 0x01], false, 10);
        assert_eq!((b.encoding, b.text.as_str(), b.size), ("base64", "/wAB", 3));
        let b = body_data(b"abc", true, 10);
        assert_eq!((b.encoding, b.truncated), ("base64", false));
    }

    proptest::proptest! {
        #[test]
        fn a_cut_body_is_a_prefix_of_the_whole(s in "\\PC{0,40}", limit in 0usize..50) {
            let b = body_data(s.as_bytes(), false, limit);
            proptest::prop_assert!(s.starts_with(&b.text));
            proptest::prop_assert!(b.text.len() <= limit);
            proptest::prop_assert_eq!(b.truncated, b.text.len() < s.len());
        }
    }
}
