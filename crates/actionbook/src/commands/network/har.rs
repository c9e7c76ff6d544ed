//! HAR 1.2 (<http://www.softwareishard.com/blog/har-12-spec/>) from a recorder's capture: typed
//! structs, one entry per request, bodies per `--content`.

use std::collections::HashMap;

use base64::Engine as _;
use serde::Serialize;

use crate::deadline::{self, Deadline};
use crate::manuals::time::Timestamp;
use crate::tab::services::network::{self, HarCapture, HarContent, NetworkRecorder, RequestRecord};

/// The file.
#[derive(Debug, Serialize)]
pub(super) struct Har {
    pub log: Log,
}

#[derive(Debug, Serialize)]
pub(super) struct Log {
    version: &'static str,
    creator: Creator,
    pages: Vec<Page>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Serialize)]
struct Creator {
    name: &'static str,
    version: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    started_date_time: String,
    id: &'static str,
    title: String,
    page_timings: PageTimings,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PageTimings {
    on_content_load: i64,
    on_load: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Entry {
    pageref: &'static str,
    started_date_time: String,
    time: f64,
    request: HarRequest,
    response: HarResponse,
    cache: Cache,
    timings: Timings,
    #[serde(rename = "serverIPAddress", skip_serializing_if = "Option::is_none")]
    server_ip_address: Option<String>,
    #[serde(rename = "_resourceType")]
    resource_type: String,
    #[serde(rename = "_requestId")]
    request_id: String,
    #[serde(rename = "_failure", skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
    /// Why the recorder ended it (its document was replaced), or that it had not ended when the
    /// file was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
}

#[derive(Debug, Serialize)]
struct NameValue {
    name: String,
    value: String,
}

/// A HAR 1.2 cookie: from a `Cookie` request header (name and value) or a `Set-Cookie` response
/// header (with its attributes).
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Cookie {
    name: String,
    value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    /// ISO 8601.
    #[serde(skip_serializing_if = "Option::is_none")]
    expires: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    http_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    secure: Option<bool>,
}

impl Cookie {
    fn new(name: &str, value: &str) -> Cookie {
        Cookie {
            name: name.trim().to_string(),
            value: value.trim().to_string(),
            path: None,
            domain: None,
            expires: None,
            http_only: None,
            secure: None,
        }
    }
}

/// The cookies a `Cookie` request header sends (`a=1; b=2`).
fn request_cookies(r: &RequestRecord) -> Vec<Cookie> {
    let Some(h) = r.request_headers.get("cookie") else {
        return Vec::new();
    };
    h.split(';')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| Cookie::new(k, v))
        .filter(|c| !c.name.is_empty())
        .collect()
}

/// The cookies the response sets: one `Set-Cookie` a line (Chromium joins repeated headers with
/// line breaks), the attributes HAR has kept. `Max-Age` wins over `Expires`, as in browsers.
fn response_cookies(r: &RequestRecord) -> Vec<Cookie> {
    let Some(h) = r.response_headers.get("set-cookie") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in h.lines() {
        let mut parts = line.split(';');
        let Some((name, value)) = parts.next().and_then(|p| p.split_once('=')) else {
            continue;
        };
        let mut c = Cookie::new(name, value);
        if c.name.is_empty() {
            continue;
        }
        let mut max_age = None;
        for attr in parts {
            let (k, v) = attr.split_once('=').unwrap_or((attr, ""));
            let v = v.trim();
            match k.trim().to_ascii_lowercase().as_str() {
                "path" => c.path = Some(v.to_string()),
                "domain" => c.domain = Some(v.to_string()),
                "expires" => c.expires = http_date(v),
                "max-age" => max_age = v.parse::<i64>().ok(),
                "httponly" => c.http_only = Some(true),
                "secure" => c.secure = Some(true),
                _ => {}
            }
        }
        if let Some(secs) = max_age {
            let at = (r.wall_time * 1000.0) as i64 + secs.saturating_mul(1000);
            c.expires = Some(Timestamp::from_millis(at).to_string());
        }
        out.push(c);
    }
    out
}

/// An HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`, or with dashes `21-Oct-2026`) as ISO 8601.
fn http_date(s: &str) -> Option<String> {
    let rest = s.split_once(',').map_or(s, |(_, r)| r).replace('-', " ");
    let mut it = rest.split_whitespace();
    let day: u32 = it.next()?.parse().ok()?;
    let month = it.next()?.to_ascii_lowercase();
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = months.iter().position(|m| month.starts_with(m))? + 1;
    let mut year: u32 = it.next()?.parse().ok()?;
    if year < 100 {
        year += if year < 70 { 2000 } else { 1900 };
    }
    let time = it.next()?;
    let iso = format!("{year:04}-{month:02}-{day:02}T{time}Z");
    Timestamp::parse_rfc3339(&iso).map(|t| t.to_string())
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HarRequest {
    method: String,
    url: String,
    http_version: String,
    cookies: Vec<Cookie>,
    headers: Vec<NameValue>,
    query_string: Vec<NameValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post_data: Option<PostData>,
    headers_size: i64,
    body_size: i64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PostData {
    mime_type: String,
    text: String,
    /// Says so when `text` is base64 (a binary body; HAR 1.2 has no encoding field for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<&'static str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HarResponse {
    status: i64,
    status_text: String,
    http_version: String,
    cookies: Vec<Cookie>,
    headers: Vec<NameValue>,
    content: Content,
    #[serde(rename = "redirectURL")]
    redirect_url: String,
    headers_size: i64,
    body_size: i64,
    /// `disk` or `memory` when the response came from a cache (as Chrome DevTools writes it).
    #[serde(rename = "_fromCache", skip_serializing_if = "Option::is_none")]
    from_cache: Option<&'static str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Content {
    size: i64,
    mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct Cache {}

#[derive(Debug, Serialize)]
struct Timings {
    blocked: f64,
    dns: f64,
    connect: f64,
    send: f64,
    wait: f64,
    receive: f64,
    ssl: f64,
}

/// A body for the file: its text (base64 when `base64`) and size in bytes.
#[derive(Debug)]
pub(super) struct Body {
    text: String,
    base64: bool,
    size: usize,
}

/// The bodies of a capture, by request id, and how many were wanted but gone.
#[derive(Debug, Default)]
pub(super) struct Bodies {
    /// Response bodies.
    pub by_id: HashMap<String, Body>,
    /// Response bodies wanted but no longer in Chromium.
    pub missing: usize,
    /// Request bodies too large to come with Chromium's report (past 64 KiB), asked for.
    pub posts: HashMap<String, Body>,
    /// Such request bodies Chromium no longer had.
    pub missing_posts: usize,
}

/// The comment of a request body written base64.
const POST_BASE64: &str = "base64: the request body is binary";

/// Asks Chromium for the bodies `--content` wants (a few at a time, bounded by the deadline).
pub(super) async fn bodies(
    recorder: &NetworkRecorder,
    capture: &HarCapture,
    deadline: &Deadline,
) -> Bodies {
    let mut out = Bodies::default();
    // Written whatever `--content` says, as the bodies that came with Chromium's report are.
    let large_posts: Vec<&RequestRecord> = capture
        .entries
        .iter()
        .filter(|r| r.has_post_data && r.post_data.is_none())
        .collect();
    for (r, p) in ask_each(&large_posts, deadline, |r, t| recorder.post_data(r, t)).await {
        let Some(p) = p else {
            out.missing_posts += 1;
            continue;
        };
        let size = match p.base64_encoded {
            true => base64::engine::general_purpose::STANDARD
                .decode(&p.post_data)
                .map_or(0, |b| b.len()),
            false => p.post_data.len(),
        };
        let body = Body {
            text: p.post_data,
            base64: p.base64_encoded,
            size,
        };
        out.posts.insert(r.id.clone(), body);
    }
    if capture.content == HarContent::None {
        return out;
    }
    let wanted: Vec<&RequestRecord> = capture
        .entries
        .iter()
        .filter(|r| {
            r.finished.is_some()
                && r.failure.is_none()
                && r.status.is_some()
                && r.redirect_url.is_none()
        })
        .filter(|r| capture.content == HarContent::All || super::is_text(&r.mime_type))
        .collect();
    for (r, b) in ask_each(&wanted, deadline, |r, t| recorder.body(r, t)).await {
        let Some(b) = b else {
            out.missing += 1;
            continue;
        };
        let Some(bytes) = network::body_bytes(&b) else {
            out.missing += 1;
            continue;
        };
        let body = match String::from_utf8(bytes) {
            Ok(text) if super::is_text(&r.mime_type) || !b.base64_encoded => Body {
                size: text.len(),
                text,
                base64: false,
            },
            Ok(text) => Body {
                size: text.len(),
                text: base64::engine::general_purpose::STANDARD.encode(text),
                base64: true,
            },
            Err(e) => {
                let bytes = e.into_bytes();
                Body {
                    size: bytes.len(),
                    text: base64::engine::general_purpose::STANDARD.encode(&bytes),
                    base64: true,
                }
            }
        };
        out.by_id.insert(r.id.clone(), body);
    }
    out
}

/// Asks Chromium about each record, 16 at a time, while the deadline lasts (each call capped at
/// [`deadline::QUICK_CALL`]): the answer of each, `None` when it failed or was not asked in time.
async fn ask_each<'r, T, F, Fut>(
    records: &[&'r RequestRecord],
    deadline: &Deadline,
    ask: F,
) -> Vec<(&'r RequestRecord, Option<T>)>
where
    F: Fn(&'r RequestRecord, std::time::Duration) -> Fut,
    Fut: std::future::Future<Output = Result<T, cdp_protocol::CdpError>>,
{
    let mut out = Vec::with_capacity(records.len());
    for chunk in records.chunks(16) {
        if deadline.is_over() {
            out.extend(chunk.iter().map(|r| (*r, None)));
            continue;
        }
        let t = deadline.capped(deadline::QUICK_CALL);
        let got = futures::future::join_all(chunk.iter().map(|r| ask(r, t))).await;
        out.extend(chunk.iter().zip(got).map(|(r, a)| (*r, a.ok())));
    }
    out
}

fn iso(seconds: f64) -> String {
    Timestamp::from_millis((seconds * 1000.0).round() as i64).to_string()
}

fn name_values<'a>(h: impl Iterator<Item = (&'a String, &'a String)>) -> Vec<NameValue> {
    h.map(|(k, v)| NameValue {
        name: k.clone(),
        value: v.clone(),
    })
    .collect()
}

fn query_string(url: &str) -> Vec<NameValue> {
    url::Url::parse(url)
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| NameValue {
                    name: k.into_owned(),
                    value: v.into_owned(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn http_version(r: &RequestRecord) -> String {
    match r.protocol.as_deref() {
        Some("h2") => "HTTP/2".to_string(),
        Some("h3") => "HTTP/3".to_string(),
        Some(p) if !p.is_empty() => p.to_ascii_uppercase(),
        _ => "HTTP/1.1".to_string(),
    }
}

/// A phase's length from its start and end (ms), or -1 when it did not happen.
fn phase(start: f64, end: f64) -> f64 {
    if start >= 0.0 && end >= start {
        end - start
    } else {
        -1.0
    }
}

/// HAR timings from Chromium's: the phases before the headers from `ResourceTiming`, the
/// rest of the request's time as `receive`.
fn timings(r: &RequestRecord) -> Timings {
    let total = r.duration_ms().unwrap_or(0.0);
    let Some(t) = r.timing else {
        return Timings {
            blocked: -1.0,
            dns: -1.0,
            connect: -1.0,
            send: 0.0,
            wait: total,
            receive: 0.0,
            ssl: -1.0,
        };
    };
    let dns = phase(t.dns_start, t.dns_end);
    let connect = phase(t.connect_start, t.connect_end);
    let ssl = phase(t.ssl_start, t.ssl_end);
    let first = [t.dns_start, t.connect_start, t.send_start]
        .into_iter()
        .find(|v| *v >= 0.0)
        .unwrap_or(0.0);
    // requestTime is when the request started in the network stack: the gap from our start
    // counts as blocked.
    let queued = ((t.request_time - r.timestamp) * 1000.0).max(0.0);
    let send = (t.send_end - t.send_start).max(0.0);
    let wait = (t.receive_headers_end - t.send_end).max(0.0);
    let before = queued + t.receive_headers_end.max(0.0);
    Timings {
        blocked: queued + first,
        dns,
        connect,
        send,
        wait,
        receive: (total - before).max(0.0),
        ssl,
    }
}

/// Bytes of the response body on the wire, as Chrome DevTools' HAR export counts them
/// (`responseBodySize`): 0 from the cache or for a 304, what came after the headers when their
/// size is known, -1 otherwise.
fn body_size(r: &RequestRecord) -> i64 {
    if r.from_cache.is_some() || r.status == Some(304) {
        return 0;
    }
    match (r.encoded_data_length, r.header_bytes) {
        (Some(all), Some(headers)) => (all - headers).max(0.0) as i64,
        _ => -1,
    }
}

/// The entry's comment: why the recorder ended it, or that it had not ended.
fn comment(r: &RequestRecord) -> Option<String> {
    match (r.note, r.finished) {
        (Some(note), _) => Some(note.to_string()),
        (None, None) => Some(IN_FLIGHT.to_string()),
        (None, Some(_)) => None,
    }
}

/// The comment of an entry written while its request was in flight.
pub(super) const IN_FLIGHT: &str =
    "still in flight when the file was written: its response and timings are not complete";

fn entry(r: &RequestRecord, body: Option<&Body>, post: Option<&Body>) -> Entry {
    let timings = timings(r);
    // Summed from 0.0: an empty f64 sum is -0.0.
    let time = [
        timings.blocked,
        timings.dns,
        timings.connect,
        timings.send,
        timings.wait,
        timings.receive,
    ]
    .iter()
    .filter(|v| **v > 0.0)
    .fold(0.0, |sum, v| sum + v);
    let request_mime = r
        .request_headers
        .get("content-type")
        .cloned()
        .unwrap_or_default();
    // HAR 1.2: the length of the returned content, decoded (the body when it was fetched, else
    // what `Network.dataReceived` counted), as DevTools' `resourceSize`.
    let size = body.map_or_else(
        || i64::try_from(r.decoded_length).unwrap_or(i64::MAX),
        |b| b.size as i64,
    );
    Entry {
        pageref: "page_1",
        started_date_time: iso(r.wall_time),
        time,
        request: HarRequest {
            method: r.method.clone(),
            url: r.url.clone(),
            http_version: http_version(r),
            cookies: request_cookies(r),
            headers: name_values(r.request_headers.iter()),
            query_string: query_string(&r.url),
            post_data: match (&r.post_data, post) {
                (Some(text), _) => Some(PostData {
                    mime_type: request_mime,
                    text: text.clone(),
                    comment: None,
                }),
                (None, Some(p)) => Some(PostData {
                    mime_type: request_mime,
                    text: p.text.clone(),
                    comment: p.base64.then_some(POST_BASE64),
                }),
                (None, None) => None,
            },
            headers_size: -1,
            body_size: match (&r.post_data, post) {
                (Some(text), _) => text.len() as i64,
                (None, Some(p)) => p.size as i64,
                (None, None) => 0,
            },
        },
        response: HarResponse {
            status: r.status.unwrap_or(0),
            status_text: r.status_text.clone(),
            http_version: http_version(r),
            cookies: response_cookies(r),
            headers: name_values(r.response_headers.iter()),
            content: Content {
                size,
                mime_type: r.mime_type.clone(),
                text: body.map(|b| b.text.clone()),
                encoding: body.and_then(|b| b.base64.then_some("base64")),
            },
            redirect_url: r.redirect_url.clone().unwrap_or_default(),
            headers_size: r.header_bytes.map_or(-1, |h| h as i64),
            body_size: body_size(r),
            from_cache: r.from_cache.map(network::Cache::as_str),
        },
        cache: Cache {},
        timings,
        server_ip_address: r.remote_ip.clone(),
        resource_type: r.resource_type.clone(),
        request_id: r.id.clone(),
        failure: r.failure.clone(),
        comment: comment(r),
    }
}

impl Har {
    /// The file of a capture, entries by start.
    pub fn new(capture: &HarCapture, bodies: &Bodies) -> Har {
        let mut records: Vec<&RequestRecord> = capture.entries.iter().collect();
        records.sort_by_key(|r| r.seq);
        let title = records
            .iter()
            .find(|r| r.resource_type == "Document" && r.target_type == "page")
            .map(|r| r.url.clone())
            .unwrap_or_default();
        Har {
            log: Log {
                version: "1.2",
                creator: Creator {
                    name: "actionbook",
                    version: env!("CARGO_PKG_VERSION"),
                },
                pages: vec![Page {
                    started_date_time: iso(capture.began),
                    id: "page_1",
                    title,
                    page_timings: PageTimings {
                        on_content_load: -1,
                        on_load: -1,
                    },
                }],
                entries: records
                    .into_iter()
                    .map(|r| entry(r, bodies.by_id.get(&r.id), bodies.posts.get(&r.id)))
                    .collect(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_become_iso_8601() {
        assert_eq!(
            http_date("Wed, 21 Oct 2026 07:28:00 GMT").as_deref(),
            Some("2026-10-21T07:28:00.000Z")
        );
        assert_eq!(
            http_date("Wed, 21-Oct-26 07:28:00 GMT").as_deref(),
            Some("2026-10-21T07:28:00.000Z")
        );
        assert_eq!(http_date("soon"), None);
    }

    #[test]
    fn set_cookie_lines_become_har_cookies_with_their_attributes() {
        let mut r = RequestRecord {
            url: "http://h/".into(),
            status: Some(200),
            request_headers: [("cookie".to_string(), "a=1; b=x=y".to_string())].into(),
            response_headers: [(
                "set-cookie".to_string(),
                "s=1; Path=/; HttpOnly; Secure\nt=2; Max-Age=60; Domain=h\n=bad".to_string(),
            )]
            .into(),
            wall_time: 1_000.0,
            responded: true,
            ..RequestRecord::starting("r".into(), cdp_protocol::SessionId::new("s"))
        };
        let sent = request_cookies(&r);
        assert_eq!(sent, [Cookie::new("a", "1"), Cookie::new("b", "x=y")]);
        let set = response_cookies(&r);
        assert_eq!(set.len(), 2);
        assert_eq!(
            (set[0].path.as_deref(), set[0].http_only, set[0].secure),
            (Some("/"), Some(true), Some(true))
        );
        assert_eq!(set[1].domain.as_deref(), Some("h"));
        assert_eq!(set[1].expires.as_deref(), Some("1970-01-01T00:17:40.000Z"));
        r.response_headers.clear();
        assert!(response_cookies(&r).is_empty());
    }
}
