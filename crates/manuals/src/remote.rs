//! The optional remote manuals API (`ACTIONBOOK_API_URL`, or `api.base_url` in the config): a
//! short-timeout HTTP client (the tree's one, reqwest with rustls; `HTTPS_PROXY`/`NO_PROXY`
//! honoured) whose calls block their thread: the engine runs them under `spawn_blocking` like
//! the store.
//!
//! Endpoints (the reference CLI's, header `X-API-Key` when a key is configured):
//! - `GET {base}/api/search_actions?query=&domain=&url=&page=&page_size=` → search hits;
//! - `GET {base}/api/get_action_by_area_id?area_id=` → one area;
//! - `GET {base}/api/manual?site=&group=&action=` → one `manual` level.
//!
//! Bodies may be wrapped as the API does (`{"success": true, "data": …}`) or as an actionbook
//! envelope (`{"ok": true, "data": …, "meta": {"pagination": …}}`). Search and get answer JSON in
//! this crate's data shapes (`{"query", "items": [{area_id, title, summary, score, url}]}`, the
//! `get` data); the hosted API's `text/plain` answers (`Area ID: …` / `Element: …` / `CSS: …`
//! lines) are read leniently too. A hit without a score gets one from its rank (1, 0.95, 0.9 …).
//! A 404 means "not there", any other failure is a [`RemoteFailure`] the caller turns into a
//! warning.

use std::time::Duration;

use envelope::{AreaData, AreaElement, SearchItem};
use serde::Deserialize;
use serde_json::Value;

use super::error::{ManualsError, Result};
use super::manual::{ActionManual, GroupManual, ManualData, ManualRequest, SiteManual};
use super::store::SearchQuery;

/// How long one request may take, connection included, unless configured otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(2_500);

/// Largest body read (a search page or one area is far smaller).
const MAX_BODY: u64 = 4 * 1024 * 1024;

/// A request to the remote API that did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFailure {
    /// The endpoint (without query).
    pub url: String,
    /// What went wrong.
    pub reason: String,
}

impl RemoteFailure {
    /// The line for `meta.warnings`.
    pub fn warning(&self) -> String {
        format!(
            "the actionbook API at {} did not answer ({}); local results only",
            self.url, self.reason
        )
    }
}

/// One page of remote search hits.
#[derive(Debug, Clone, PartialEq)]
pub struct RemotePage {
    /// Hits, best first.
    pub items: Vec<SearchItem>,
    /// Hits across all pages, as the API reports it (else the number of items).
    pub total: u64,
}

/// A client for the remote manuals API.
#[derive(Debug, Clone)]
pub struct RemoteApi {
    base_url: String,
    api_key: Option<String>,
    client: reqwest::Client,
}

impl RemoteApi {
    /// A client for `base_url` (http or https); `timeout` bounds each request end to end.
    pub fn new(base_url: &str, api_key: Option<String>, timeout: Duration) -> Result<RemoteApi> {
        let trimmed = base_url.trim().trim_end_matches('/');
        let ok = url::Url::parse(trimmed)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        if !ok {
            return Err(ManualsError::InvalidArgument {
                argument: "api url",
                value: base_url.to_string(),
                reason: "expected an http:// or https:// URL".into(),
            });
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::limited(3))
            .user_agent(concat!("actionbook/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ManualsError::Remote {
                url: trimmed.to_string(),
                reason: format!("the HTTP client could not be set up: {e}"),
            })?;
        Ok(RemoteApi {
            base_url: trimmed.to_string(),
            api_key: api_key.filter(|k| !k.trim().is_empty()),
            client,
        })
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `GET {base}{path}?query`: `Ok(None)` on 404, the content type and body on 2xx.
    fn fetch(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> std::result::Result<Option<(String, String)>, RemoteFailure> {
        let url = format!("{}{path}", self.base_url);
        let fail = |reason: String| RemoteFailure {
            url: url.clone(),
            reason,
        };
        let mut req = self
            .client
            .get(&url)
            .header("Accept", "application/json, text/plain;q=0.5")
            .query(query);
        if let Some(key) = &self.api_key {
            req = req.header("X-API-Key", key);
        }
        let answer = block_on(async {
            let mut resp = req.send().await.map_err(|e| fail(describe(&e)))?;
            let status = resp.status().as_u16();
            let content_type = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let mut bytes = Vec::new();
            while let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| fail(format!("reading the answer: {}", describe(&e))))?
            {
                if (bytes.len() + chunk.len()) as u64 > MAX_BODY {
                    return Err(fail(format!(
                        "reading the answer: larger than {MAX_BODY} bytes"
                    )));
                }
                bytes.extend_from_slice(&chunk);
            }
            let body = String::from_utf8(bytes)
                .map_err(|_| fail("reading the answer: not UTF-8".to_string()))?;
            Ok((status, content_type, body))
        });
        let (status, content_type, body) = answer.map_err(&fail)??;
        match status {
            200..=299 => Ok(Some((content_type, body))),
            404 => Ok(None),
            _ => {
                let message = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|v| {
                        v.pointer("/error/message")
                            .or_else(|| v.get("message"))
                            .and_then(Value::as_str)
                            .map(String::from)
                    })
                    .unwrap_or_default();
                Err(fail(if message.is_empty() {
                    format!("HTTP {status}")
                } else {
                    format!("HTTP {status}: {message}")
                }))
            }
        }
    }

    /// Page `q.page` of `q.page_size` hits for `q`'s words and filters.
    pub fn search(&self, q: &SearchQuery) -> std::result::Result<RemotePage, RemoteFailure> {
        let mut query = vec![("query", q.text.clone())];
        if let Some(d) = &q.domain {
            query.push(("domain", d.clone()));
        }
        if let Some(u) = &q.url {
            query.push(("url", u.clone()));
        }
        query.push(("page", q.page.to_string()));
        query.push(("page_size", q.page_size.to_string()));
        let url = format!("{}/api/search_actions", self.base_url);
        match self.fetch("/api/search_actions", &query)? {
            None => Ok(RemotePage {
                items: Vec::new(),
                total: 0,
            }),
            Some((ct, body)) => {
                parse_search(&ct, &body).map_err(|reason| RemoteFailure { url, reason })
            }
        }
    }

    /// The area with this id, `None` when the API does not have it.
    pub fn get(&self, area_id: &str) -> std::result::Result<Option<AreaData>, RemoteFailure> {
        let url = format!("{}/api/get_action_by_area_id", self.base_url);
        match self.fetch(
            "/api/get_action_by_area_id",
            &[("area_id", area_id.to_string())],
        )? {
            None => Ok(None),
            Some((ct, body)) => parse_area(area_id, &ct, &body)
                .map(Some)
                .map_err(|reason| RemoteFailure { url, reason }),
        }
    }

    /// One `manual` level, `None` when the API does not know it.
    pub fn manual(
        &self,
        req: &ManualRequest,
    ) -> std::result::Result<Option<ManualData>, RemoteFailure> {
        let mut query = vec![("site", req.site.clone())];
        if let Some(g) = &req.group {
            query.push(("group", g.clone()));
            if let Some(a) = &req.action {
                query.push(("action", a.clone()));
            }
        }
        let url = format!("{}/api/manual", self.base_url);
        let fail = |reason: String| RemoteFailure {
            url: url.clone(),
            reason,
        };
        let Some((_, body)) = self.fetch("/api/manual", &query)? else {
            return Ok(None);
        };
        let data =
            unwrap_data(serde_json::from_str(&body).map_err(|e| fail(format!("not JSON: {e}")))?);
        let parsed = match (&req.group, &req.action) {
            (None, _) => serde_json::from_value::<SiteManual>(data).map(ManualData::Site),
            (Some(_), None) => serde_json::from_value::<GroupManual>(data).map(|mut g| {
                if g.site.is_empty() {
                    g.site = req.site.clone();
                }
                ManualData::Group(g)
            }),
            (Some(_), Some(_)) => {
                serde_json::from_value::<ActionManual>(data).map(ManualData::Action)
            }
        };
        parsed
            .map(Some)
            .map_err(|e| fail(format!("unexpected answer: {e}")))
    }
}

/// Runs `future` to its end on this thread: a blocking call, as the store's (the engine calls
/// it under `spawn_blocking`, whose threads may block on the runtime; without a runtime, as in a
/// plain program, on one of its own).
fn block_on<F: std::future::Future>(future: F) -> std::result::Result<F::Output, String> {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => Ok(runtime.block_on(future)),
        Err(_) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(|runtime| runtime.block_on(future))
            // No runtime can be made (out of threads or descriptors): nothing was sent.
            .map_err(|e| format!("no runtime to send it on: {e}")),
    }
}

/// What went wrong with a request, its causes included (reqwest's own line is terse).
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timeout: no answer within the time allowed".to_string();
    }
    let mut s = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        s.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    s
}

/// `{"success": …, "data": X}` / `{"ok": …, "data": X}` → X; anything else as it is.
fn unwrap_data(v: Value) -> Value {
    match v {
        Value::Object(mut m)
            if m.contains_key("data") && (m.contains_key("success") || m.contains_key("ok")) =>
        {
            m.remove("data").unwrap_or(Value::Null)
        }
        v => v,
    }
}

fn looks_like_json(content_type: &str, body: &str) -> bool {
    content_type.contains("json") || matches!(body.trim_start().chars().next(), Some('{' | '['))
}

/// A remote score in [0, 1] (a percentage is scaled down), or one from the hit's rank.
fn normalize_score(score: Option<f64>, rank: usize) -> f64 {
    let s = match score.filter(|s| s.is_finite() && *s >= 0.0) {
        Some(s) if s > 1.0 && s <= 100.0 => s / 100.0,
        Some(s) => s.min(1.0),
        None => (1.0 - 0.05 * rank as f64).max(0.05),
    };
    (s * 100.0).round() / 100.0
}

#[derive(Deserialize)]
struct RemoteItem {
    area_id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    summary: String,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    url: String,
}

fn parse_search(content_type: &str, body: &str) -> std::result::Result<RemotePage, String> {
    if !looks_like_json(content_type, body) {
        return Ok(parse_search_text(body));
    }
    let root: Value = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    let envelope_total = root
        .pointer("/meta/pagination/total")
        .and_then(Value::as_u64);
    let data = unwrap_data(root);
    let (items, total) = match data {
        Value::Array(items) => (items, None),
        Value::Object(mut m) => {
            let total = m.get("total").and_then(Value::as_u64).or_else(|| {
                m.get("pagination")
                    .and_then(|p| p.get("total"))
                    .and_then(Value::as_u64)
            });
            match m.remove("items").or_else(|| m.remove("results")) {
                Some(Value::Array(items)) => (items, total),
                _ => return Err("the answer has no 'items' list".into()),
            }
        }
        _ => return Err("the answer is neither a list nor an object".into()),
    };
    let mut out = Vec::with_capacity(items.len());
    for (rank, item) in items.into_iter().enumerate() {
        let it: RemoteItem =
            serde_json::from_value(item).map_err(|e| format!("hit {}: {e}", rank + 1))?;
        out.push(SearchItem {
            area_id: it.area_id,
            title: it.title,
            summary: it.summary,
            score: normalize_score(it.score, rank),
            url: it.url,
        });
    }
    let total = envelope_total.or(total).unwrap_or(out.len() as u64);
    Ok(RemotePage { items: out, total })
}

/// `Key: value` of a text line, the key lower-cased without spaces, `_`, `-`, `*` or bullets.
fn key_value(line: &str) -> Option<(String, &str)> {
    let line = line.trim().trim_start_matches(['-', '*', '#', ' ']);
    let (k, v) = line.split_once(':')?;
    let key: String = k
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if key.is_empty() || key.len() > 24 {
        return None;
    }
    Some((key, v.trim().trim_matches('*').trim()))
}

fn parse_search_text(body: &str) -> RemotePage {
    let mut items: Vec<(SearchItem, Option<f64>)> = Vec::new();
    for line in body.lines() {
        let Some((key, value)) = key_value(line) else {
            continue;
        };
        if key == "areaid" {
            items.push((
                SearchItem {
                    area_id: value.to_string(),
                    ..SearchItem::default()
                },
                None,
            ));
            continue;
        }
        let Some((item, score)) = items.last_mut() else {
            continue;
        };
        match key.as_str() {
            "title" | "name" => item.title = value.to_string(),
            "summary" => item.summary = value.to_string(),
            "description" if item.summary.is_empty() => item.summary = value.to_string(),
            "url" | "pageurl" => item.url = value.to_string(),
            "score" | "healthscore" | "relevance" => {
                *score = value.trim_end_matches('%').parse().ok()
            }
            _ => {}
        }
    }
    let items: Vec<SearchItem> = items
        .into_iter()
        .enumerate()
        .map(|(rank, (mut item, score))| {
            item.score = normalize_score(score, rank);
            item
        })
        .collect();
    RemotePage {
        total: items.len() as u64,
        items,
    }
}

#[derive(Deserialize)]
struct RemoteElement {
    element_id: String,
    #[serde(rename = "type", default)]
    element_type: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    css: Option<String>,
    #[serde(default)]
    xpath: Option<String>,
    #[serde(default)]
    allow_methods: Vec<String>,
}

#[derive(Deserialize)]
struct RemoteArea {
    #[serde(default)]
    area_id: Option<String>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    description: String,
    // Required: an object without elements is not an area.
    elements: Vec<RemoteElement>,
}

fn parse_area(
    area_id: &str,
    content_type: &str,
    body: &str,
) -> std::result::Result<AreaData, String> {
    if !looks_like_json(content_type, body) {
        return Ok(parse_area_text(area_id, body));
    }
    let root: Value = serde_json::from_str(body).map_err(|e| format!("not JSON: {e}"))?;
    let a: RemoteArea =
        serde_json::from_value(unwrap_data(root)).map_err(|e| format!("unexpected answer: {e}"))?;
    Ok(AreaData {
        area_id: a.area_id.unwrap_or_else(|| area_id.to_string()),
        url: a.url,
        description: a.description,
        elements: a
            .elements
            .into_iter()
            .map(|e| AreaElement {
                element_id: e.element_id,
                element_type: e.element_type,
                description: e.description,
                css: e.css,
                xpath: e.xpath,
                allow_methods: e.allow_methods,
            })
            .collect(),
    })
}

/// The hosted API's text manual: `URL:` / `Description:` lines, then per element `Element:`,
/// `Type:`, `Description:`, `CSS:`, `XPath:`, `Methods:`. Without any of these the whole text
/// becomes the description.
fn parse_area_text(area_id: &str, body: &str) -> AreaData {
    let mut data = AreaData {
        area_id: area_id.to_string(),
        ..AreaData::default()
    };
    for line in body.lines() {
        let Some((key, value)) = key_value(line) else {
            continue;
        };
        if matches!(key.as_str(), "element" | "elementid") {
            data.elements.push(AreaElement {
                element_id: value.to_string(),
                ..AreaElement::default()
            });
            continue;
        }
        match (data.elements.last_mut(), key.as_str()) {
            (None, "url" | "pageurl") => data.url = value.to_string(),
            (None, "description") => data.description = value.to_string(),
            (Some(e), "type") => e.element_type = value.to_string(),
            (Some(e), "description") => e.description = value.to_string(),
            (Some(e), "css" | "cssselector") => e.css = Some(value.to_string()),
            (Some(e), "xpath") => e.xpath = Some(value.to_string()),
            (Some(e), "methods" | "allowmethods" | "allowedmethods") => {
                e.allow_methods = value
                    .split([',', ' ', '/'])
                    .filter(|m| !m.is_empty())
                    .map(String::from)
                    .collect();
            }
            _ => {}
        }
    }
    if data.elements.is_empty() && data.url.is_empty() && data.description.is_empty() {
        data.description = body.trim().to_string();
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_answers_in_every_accepted_shape() {
        let plain = r#"{"query":"x","items":[{"area_id":"a.com:/:default","title":"A","summary":"s","score":0.9,"url":"https://a.com/"}]}"#;
        let wrapped = format!(r#"{{"success":true,"data":{plain}}}"#);
        let envelope = format!(
            r#"{{"ok":true,"command":"search","data":{plain},"error":null,"meta":{{"pagination":{{"page":1,"page_size":10,"total":42,"has_more":true}}}}}}"#
        );
        for (body, total) in [(plain.to_string(), 1), (wrapped, 1), (envelope, 42)] {
            let page = parse_search("application/json", &body).unwrap();
            assert_eq!(page.total, total);
            assert_eq!(page.items[0].area_id, "a.com:/:default");
            assert_eq!(page.items[0].score, 0.9);
        }
        let pct = parse_search(
            "",
            r#"[{"area_id":"a.com:/:x","score":87},{"area_id":"b.com:/:x"}]"#,
        )
        .unwrap();
        assert_eq!(pct.items[0].score, 0.87);
        assert_eq!(pct.items[1].score, 0.95);
        assert!(parse_search("application/json", "{\"nothing\":1}").is_err());
    }

    #[test]
    fn search_text_answers() {
        let page = parse_search(
            "text/plain",
            "Found 2 areas\n\nArea ID: github.com:/login:default\nTitle: Sign in\nDescription: Login form\nURL: https://github.com/login\n\n- **Area ID**: github.com:/search:default\n- Health Score: 80%\n",
        )
        .unwrap();
        assert_eq!(page.total, 2);
        assert_eq!(page.items[0].title, "Sign in");
        assert_eq!(page.items[0].summary, "Login form");
        assert_eq!(page.items[0].url, "https://github.com/login");
        assert_eq!(page.items[0].score, 1.0);
        assert_eq!(page.items[1].area_id, "github.com:/search:default");
        assert_eq!(page.items[1].score, 0.8);
    }

    #[test]
    fn area_answers() {
        let json = r##"{"success":true,"data":{"area_id":"g.com:/login:default","url":"https://g.com/login","description":"Login","elements":[{"element_id":"email","type":"input","description":"Email","css":"#e","allow_methods":["fill"]}]}}"##;
        let a = parse_area("g.com:/login:default", "application/json", json).unwrap();
        assert_eq!(a.elements[0].css.as_deref(), Some("#e"));
        assert_eq!(a.elements[0].xpath, None);
        let text = "Site: github.com\nPage: /login\nURL: https://github.com/login\nElement: username-field\nDescription: Username\nSelectors:\n  - CSS: #login_field\n  - XPath: //input[@name='login']\nMethods: fill, type\n";
        let a = parse_area("github.com:/login:default", "text/plain", text).unwrap();
        assert_eq!(a.url, "https://github.com/login");
        assert_eq!(a.elements.len(), 1);
        assert_eq!(a.elements[0].css.as_deref(), Some("#login_field"));
        assert_eq!(
            a.elements[0].xpath.as_deref(),
            Some("//input[@name='login']")
        );
        assert_eq!(a.elements[0].allow_methods, vec!["fill", "type"]);
        let free = parse_area("x.com:/:d", "text/plain", "Just some prose.\n").unwrap();
        assert_eq!(free.description, "Just some prose.");
    }

    #[test]
    fn refuses_bad_base_urls() {
        assert!(RemoteApi::new("ftp://x", None, DEFAULT_TIMEOUT).is_err());
        assert!(RemoteApi::new("not a url", None, DEFAULT_TIMEOUT).is_err());
        let api =
            RemoteApi::new("http://127.0.0.1:9/api/", Some(" ".into()), DEFAULT_TIMEOUT).unwrap();
        assert_eq!(api.base_url(), "http://127.0.0.1:9/api");
        assert_eq!(api.api_key, None);
    }
}
