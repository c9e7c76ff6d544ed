//! What the network commands answer: request and route items, and the text each reply renders.

use super::*;

#[derive(Debug, Serialize)]
pub(super) struct RequestItem<'a> {
    /// How long it took, in milliseconds (absent while in flight).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) duration_ms: Option<u64>,
    /// Chromium's error text when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) failure: Option<&'a str>,
    /// The cache that answered it (`disk`, `memory`): nothing went over the wire (no raw headers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) from_cache: Option<&'static str>,
    pub(super) method: &'a str,
    /// Why it ended as it did when the recorder ended it (its document was replaced).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) note: Option<&'a str>,
    pub(super) mime_type: &'a str,
    /// Where this hop's redirect led (each hop of a redirect chain is a request of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) redirect_url: Option<&'a str>,
    pub(super) request_headers: &'a BTreeMap<String, String>,
    pub(super) request_id: &'a str,
    pub(super) resource_type: &'a str,
    pub(super) response_headers: &'a BTreeMap<String, String>,
    /// Bytes received on the wire (absent until finished).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) size: Option<u64>,
    pub(super) status: Option<i64>,
    /// `page`, `iframe`, `worker`, `service_worker`: which target made it.
    pub(super) target_type: &'a str,
    /// CDP monotonic time of its start, in milliseconds (as the reference).
    pub(super) timestamp: u64,
    pub(super) url: &'a str,
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
pub(super) const LISTED_URL_LIMIT: usize = 200;
/// The characters of a long URL a list row keeps.
pub(super) const LISTED_URL_KEPT: usize = 120;

/// A row of `network requests`' text list: the URL cut past [`LISTED_URL_LIMIT`] characters,
/// with the count left out (the whole one is in `--json` and in `network request <id>`).
pub(super) struct ListedRow<'r, 'a>(pub(super) &'r RequestItem<'a>);

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
    pub(super) fn row(
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
pub(super) struct RequestsData<'a> {
    pub(super) filtered: usize,
    pub(super) requests: Vec<RequestItem<'a>>,
    pub(super) total: usize,
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
pub(super) struct BodyData {
    /// `utf8` or `base64`.
    pub(super) encoding: &'static str,
    /// The body (cut at [`BODY_LIMIT`] bytes).
    pub(super) text: String,
    /// Its whole size in bytes.
    pub(super) size: usize,
    /// Whether `text` is only its beginning.
    pub(super) truncated: bool,
}

/// `network request <id>` data.
#[derive(Debug, Serialize)]
pub(super) struct RequestData<'a> {
    #[serde(flatten)]
    pub(super) item: RequestItem<'a>,
    /// The request body, when Chromium reported it.
    pub(super) post_data: Option<String>,
    pub(super) protocol: Option<String>,
    pub(super) remote_ip: Option<String>,
    pub(super) status_text: String,
    /// The response body; `null` when Chromium no longer has it (or there is none).
    pub(super) response_body: Option<BodyData>,
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
pub(super) struct HarStartData {
    pub(super) recording: bool,
    pub(super) content: HarContent,
    /// The resource types kept (`all`, or the list as given, lowercase).
    pub(super) resource_types: String,
    /// The most requests the file keeps.
    pub(super) max_entries: usize,
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
pub(super) struct HarStopData {
    pub(super) path: String,
    pub(super) entries: usize,
    /// `entries` by the reference CLI's name.
    pub(super) count: usize,
    /// The most requests the file keeps (`--max-entries`).
    pub(super) max_entries: usize,
    pub(super) bytes: u64,
    /// Requests beyond the capture's bound, not in the file.
    pub(super) dropped: u64,
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
pub(super) struct RouteItem {
    pub(super) pattern: String,
    pub(super) action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) body_bytes: Option<usize>,
    /// Header names only: their values may be credentials.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) headers: Vec<String>,
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
pub(super) fn base64_len(b64: &str) -> usize {
    let padding = b64.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (b64.len() / 4 * 3).saturating_sub(padding)
}

impl RouteItem {
    pub(super) fn row(&self) -> String {
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
pub(super) struct RoutesData {
    /// What `unroute` removed (absent for the others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) removed: Option<usize>,
    pub(super) routes: Vec<RouteItem>,
    #[serde(skip)]
    pub(super) action: bool,
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
