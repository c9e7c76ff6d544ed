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

mod render;
mod routes;
#[cfg(test)]
mod tests;
use render::*;

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
