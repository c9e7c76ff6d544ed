//! Small pure helpers of the recorder: response and header merging, wall time, error kinds,
//! route URL patterns, response bodies.

use super::*;

pub(super) fn respond(r: &mut RequestRecord, resp: network::Response) {
    // A memory-cache answer was announced before its response (`requestServedFromCache`).
    if resp.from_disk_cache == Some(true) {
        r.from_cache = Some(Cache::Disk);
    }
    // What came on the wire when the response (its headers) came: over HTTP/1.x, the headers
    // alone (status line included). HTTP/2 and 3 compress them, so their size is not known.
    let http1 = resp
        .protocol
        .as_deref()
        .is_some_and(|p| p.starts_with("http/1"));
    r.header_bytes = resp
        .encoded_data_length
        .filter(|_| http1 && r.from_cache.is_none());
    r.status = Some(resp.status);
    r.status_text = resp.status_text;
    r.mime_type = resp.mime_type;
    // The raw ones (ExtraInfo) are merged over these once matched.
    r.response_headers = headers(&resp.headers);
    r.protocol = resp.protocol;
    r.remote_ip = resp.remote_ip_address;
    r.timing = resp.timing;
    r.responded = true;
}

/// Merges raw headers (an ExtraInfo event) into a hop's request or response headers: they are
/// what went over the wire (`cookie`, `set-cookie` included), so they win.
pub(super) fn merge_raw(r: &mut RequestRecord, response: bool, raw: &RawHeaders) {
    let into = if response {
        &mut r.response_headers
    } else {
        &mut r.request_headers
    };
    for (k, v) in raw {
        into.insert(k.clone(), v.clone());
    }
}

/// CDP's header object as lower-case names to values.
pub(super) fn headers(h: &serde_json::Map<String, serde_json::Value>) -> BTreeMap<String, String> {
    h.iter()
        .map(|(k, v)| {
            let v = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.to_ascii_lowercase(), v)
        })
        .collect()
}

pub(super) fn entries(h: &[(String, String)]) -> Vec<fetch::HeaderEntry> {
    h.iter()
        .map(|(name, value)| fetch::HeaderEntry {
            name: name.clone(),
            value: value.clone(),
        })
        .collect()
}

/// The request's headers with `extra` added, replacing same-named ones.
pub(super) fn merge_headers(
    original: &serde_json::Map<String, serde_json::Value>,
    extra: &[(String, String)],
) -> Vec<fetch::HeaderEntry> {
    let mut out: Vec<fetch::HeaderEntry> = original
        .iter()
        .filter(|(k, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)))
        .map(|(k, v)| fetch::HeaderEntry {
            name: k.clone(),
            value: v.as_str().map_or_else(|| v.to_string(), str::to_string),
        })
        .collect();
    out.extend(entries(extra));
    out
}

pub(super) fn wall_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The session or its target went away (a child that ended meanwhile): nothing lost.
pub(super) fn went_away(e: &CdpError) -> bool {
    e.is_closed() || e.kind() == ErrorKind::NoTarget
}

/// The target has no such method (a worker without the Target or Fetch domain).
pub(super) fn not_supported(e: &CdpError) -> bool {
    matches!(e, CdpError::Protocol { code: -32601, .. })
}

/// A route's pattern as a whole-URL wildcard: one without `*`, `?` or a scheme matches URLs that
/// contain it.
pub(crate) fn cdp_pattern(pattern: &str) -> String {
    if pattern.contains(['*', '?']) || pattern.contains("://") {
        pattern.to_string()
    } else {
        format!("*{pattern}*")
    }
}

/// Whether `url` matches the route pattern (`*` any run of characters, `?` one, `\` escapes; the
/// whole URL, as `Fetch` matches it).
pub(crate) fn url_matches(pattern: &str, url: &str) -> bool {
    let p: Vec<char> = cdp_pattern(pattern).chars().collect();
    let s: Vec<char> = url.chars().collect();
    // Classic wildcard match with one backtrack point for the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                c if c != '\\' && c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Decodes a body Chromium gave (base64 or text) to bytes.
pub(crate) fn body_bytes(b: &network::GetResponseBodyResponse) -> Option<Vec<u8>> {
    if b.base64_encoded {
        base64::engine::general_purpose::STANDARD
            .decode(b.body.as_bytes())
            .ok()
    } else {
        Some(b.body.clone().into_bytes())
    }
}
