//! The stored unit: an [`Area`] (one page, or one named part of a page, with its elements) and
//! its id, [`AreaId`] = `<host>:<path>:<name>`.
//!
//! The host is lower-case and has no port: a site's manuals stay the same whichever port a dev
//! server or a test fixture happens to use (the `url` keeps the real address). `file:` pages use
//! the host `file` and their absolute path.

use std::fmt;
use std::str::FromStr;

use envelope::{AreaData, AreaElement, SearchItem};
use serde::{Deserialize, Serialize};

use super::error::{ManualsError, Result};
use super::time::Timestamp;

/// The name of a page's area when the recorder gives none.
pub const DEFAULT_AREA_NAME: &str = "default";

/// An area id: `<host>:<path>:<name>`, e.g. `google.com:/login:default`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AreaId {
    host: String,
    path: String,
    name: String,
}

impl AreaId {
    /// The id of the area `name` (default [`DEFAULT_AREA_NAME`]) of the page at `url`.
    pub fn for_page(url: &str, name: Option<&str>) -> Result<AreaId> {
        let name = name.unwrap_or(DEFAULT_AREA_NAME);
        check_name(name)?;
        let (host, path) = host_and_path(url)?;
        Ok(AreaId {
            host,
            path,
            name: name.to_string(),
        })
    }

    /// The host part (lower-case, no port; `file` for local files).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The path part (starts with `/`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The name part.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Everything after `<host>:`, i.e. `<path>:<name>` (the group name `manual` uses).
    pub fn tail(&self) -> String {
        format!("{}:{}", self.path, self.name)
    }
}

impl fmt::Display for AreaId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.host, self.path, self.name)
    }
}

impl FromStr for AreaId {
    type Err = ManualsError;

    /// Splits at the first `:` (after a bracketed IPv6 host) and the last `:`; the middle is the
    /// path, which may itself contain `:`.
    fn from_str(s: &str) -> Result<AreaId> {
        let bad = |reason| ManualsError::InvalidAreaId {
            area_id: s.to_string(),
            reason,
        };
        if s.chars().any(char::is_whitespace) {
            return Err(bad("it contains white space"));
        }
        let host_end = if s.starts_with('[') {
            s.find("]:").map(|i| i + 1)
        } else {
            s.find(':')
        }
        .ok_or_else(|| bad("expected <host>:<path>:<name>"))?;
        let (host, rest) = (&s[..host_end], &s[host_end + 1..]);
        let (path, name) = rest
            .rsplit_once(':')
            .ok_or_else(|| bad("expected <host>:<path>:<name>"))?;
        if host.is_empty() {
            return Err(bad("the host is empty"));
        }
        if !path.starts_with('/') {
            return Err(bad("the path must start with '/'"));
        }
        check_name(name)
            .map_err(|_| bad("the name must be 1-64 letters, digits, '.', '_' or '-'"))?;
        Ok(AreaId {
            host: host.to_ascii_lowercase(),
            path: path.to_string(),
            name: name.to_string(),
        })
    }
}

fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ManualsError::InvalidArgument {
            argument: "name",
            value: name.to_string(),
            reason: "an area name is 1-64 letters, digits, '.', '_' or '-'".into(),
        })
    }
}

/// The area-id host and path of a page URL.
pub(crate) fn host_and_path(page_url: &str) -> Result<(String, String)> {
    let unrecordable = |reason| ManualsError::UnrecordablePage {
        url: page_url.to_string(),
        reason,
    };
    let url = url::Url::parse(page_url).map_err(|_| unrecordable("it is not a URL"))?;
    let host = match url.scheme() {
        "file" => "file".to_string(),
        "http" | "https" => url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| unrecordable("it has no host"))?
            .trim_end_matches('.')
            .to_ascii_lowercase(),
        _ => return Err(unrecordable("only http, https and file pages have areas")),
    };
    let path = if url.path().is_empty() {
        "/".to_string()
    } else {
        url.path().to_string()
    };
    Ok((host, path))
}

/// A site as the user typed it (`Google.com`, `https://google.com/x`, `google.com:443`) reduced
/// to the form area ids use (`google.com`).
pub fn normalize_site(input: &str) -> String {
    let s = input.trim();
    let s = s.split_once("://").map_or(s, |(_, rest)| rest);
    let s = s.split(['/', '?', '#']).next().unwrap_or("");
    let s = s.rsplit_once('@').map_or(s, |(_, host)| host);
    let s = if s.starts_with('[') {
        s.split_inclusive(']').next().unwrap_or(s)
    } else {
        match s.rsplit_once(':') {
            Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => s,
        }
    };
    s.trim_end_matches('.').to_ascii_lowercase()
}

/// A stored area: the `get` data plus the title and summary `search` shows, and when and from
/// which page it was recorded. Serialised (in `areas export`) as the `get` data with these extra
/// members, in this order: `area_id`, `title`, `summary`, `url`, `description`, `elements`,
/// `recorded_at`, `recorded_from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Area {
    /// `<host>:<path>:<name>`.
    pub area_id: String,
    /// Short title (the page title by default).
    pub title: String,
    /// One-line summary.
    pub summary: String,
    /// The page URL.
    pub url: String,
    /// What the area is.
    pub description: String,
    /// Its elements, in page order.
    pub elements: Vec<AreaElement>,
    /// When it was recorded (or imported, when the file had no time).
    pub recorded_at: Timestamp,
    /// The URL of the page it was recorded from (can differ from `url` after redirects).
    pub recorded_from: String,
}

impl Area {
    /// The parsed id.
    pub fn id(&self) -> Result<AreaId> {
        self.area_id.parse()
    }

    /// The `get` data.
    pub fn to_data(&self) -> AreaData {
        AreaData {
            area_id: self.area_id.clone(),
            url: self.url.clone(),
            description: self.description.clone(),
            elements: self.elements.clone(),
        }
    }

    /// The `search` item with this score.
    pub fn to_search_item(&self, score: f64) -> SearchItem {
        SearchItem {
            area_id: self.area_id.clone(),
            title: self.title.clone(),
            summary: self.summary.clone(),
            score,
            url: self.url.clone(),
        }
    }

    /// The text the full-text index gets for the elements: ids, types and descriptions (selectors
    /// and method names would match almost every area).
    pub(crate) fn elements_text(&self) -> String {
        let mut out = String::new();
        for e in &self.elements {
            for part in [&e.element_id, &e.element_type, &e.description] {
                out.push_str(part);
                out.push(' ');
            }
            out.push('\n');
        }
        out
    }
}

/// A summary made from the element descriptions: `Username input, Password input, Sign in button`
/// (at most six, then `and N more`).
pub fn summarize_elements(elements: &[AreaElement]) -> String {
    const SHOWN: usize = 6;
    if elements.is_empty() {
        return "No interactive elements".into();
    }
    let mut s = elements
        .iter()
        .take(SHOWN)
        .map(|e| e.description.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if elements.len() > SHOWN {
        s.push_str(&format!(" and {} more", elements.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ids_of_pages() {
        let id = AreaId::for_page("https://Google.com:8443/login?x=1#f", None).unwrap();
        assert_eq!(id.to_string(), "google.com:/login:default");
        let id = AreaId::for_page("http://127.0.0.1:4567/", Some("form")).unwrap();
        assert_eq!(id.to_string(), "127.0.0.1:/:form");
        let id = AreaId::for_page("file:///srv/demo/index.html", None).unwrap();
        assert_eq!(id.to_string(), "file:/srv/demo/index.html:default");
        let id = AreaId::for_page("http://[::1]:8080/a", None).unwrap();
        assert_eq!(id.to_string(), "[::1]:/a:default");
        for bad in ["about:blank", "data:text/html,x", "not a url"] {
            assert!(matches!(
                AreaId::for_page(bad, None),
                Err(ManualsError::UnrecordablePage { .. })
            ));
        }
        assert!(matches!(
            AreaId::for_page("https://a.com/", Some("has space")),
            Err(ManualsError::InvalidArgument { .. })
        ));
    }

    #[test]
    fn parses_ids() {
        let id: AreaId = "google.com:/login:default".parse().unwrap();
        assert_eq!(
            (id.host(), id.path(), id.name()),
            ("google.com", "/login", "default")
        );
        let id: AreaId = "[::1]:/a:b:main".parse().unwrap();
        assert_eq!((id.host(), id.path(), id.name()), ("[::1]", "/a:b", "main"));
        assert_eq!(id.tail(), "/a:b:main");
        for bad in [
            "",
            "google.com",
            "google.com:/login",
            ":/x:y",
            "g.com:login:x",
            "g.com:/x:",
            "a b:/c:d",
        ] {
            assert!(
                matches!(
                    bad.parse::<AreaId>(),
                    Err(ManualsError::InvalidAreaId { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn normalizes_sites() {
        for (given, want) in [
            ("Google.com", "google.com"),
            ("https://google.com/login", "google.com"),
            ("google.com:443", "google.com"),
            ("user@Example.org.", "example.org"),
            ("[::1]:80", "[::1]"),
            ("  file ", "file"),
        ] {
            assert_eq!(normalize_site(given), want, "{given}");
        }
    }

    proptest! {
        #[test]
        fn ids_round_trip(
            host in "[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?(\\.[a-z]{2,6}){0,2}",
            path in "(/[a-zA-Z0-9._~%:-]{0,8}){1,4}",
            name in "[A-Za-z0-9._-]{1,20}",
        ) {
            let text = format!("{host}:{path}:{name}");
            let id: AreaId = text.parse().unwrap();
            prop_assert_eq!(id.to_string(), text);
            prop_assert_eq!(id.name(), name.as_str());
        }
    }
}
