//! Cookies (spec 13, session level): `browser cookies list | get | set | delete | clear`, on the
//! session's browser (every tab shares its cookie jar), through the browser-wide `Storage` domain.
//!
//! - `set` without `--domain` sets a host-only cookie for the host of the session's active tab
//!   (the first tab showing an `http(s)` page); the response names the domain the browser stored.
//!   A cookie the browser refuses (or silently drops: it is read back) is `INVALID_ARGUMENT` with
//!   the reason.
//! - `get` of a cookie that does not exist is `ELEMENT_NOT_FOUND` naming the cookie: the caller asked
//!   for one thing by name and it is not there, as for an element.
//! - `delete` removes the cookie of that name on every domain and path (`affected` counts them;
//!   a cookie the browser keeps anyway is an `UNSUPPORTED_OPERATION` naming it, never an ok);
//!   a cookie is removed by setting it again, expired, on its own domain and path.
//! - Cookie values are the command's data; they are never logged.

use std::sync::Arc;

use cdp_protocol::{network, storage};
use envelope::{ChangeAction, Cookie, CookieChangeData, CookieGetData, CookieListData};
use serde::{Deserialize, Serialize};

use super::{Cx, SessionCommand};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::SessionTarget;
use crate::reply::Done;
use crate::session::BrowserConn;
use crate::session::targets::refresh_tabs;
use crate::tab::BrowserSession;

/// `SameSite` of a cookie to set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "cli", value(rename_all = "PascalCase"))]
pub enum SameSite {
    /// Only same-site requests.
    Strict,
    /// Same-site requests and top-level navigations.
    Lax,
    /// Every request (needs `--secure`).
    None,
}

impl SameSite {
    fn as_str(self) -> &'static str {
        match self {
            SameSite::Strict => "Strict",
            SameSite::Lax => "Lax",
            SameSite::None => "None",
        }
    }
}

/// `browser cookies list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CookiesList {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// Only cookies of this domain (and its subdomains).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
}

/// `browser cookies get <name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CookiesGet {
    /// The cookie's name.
    pub name: String,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser cookies set <name> <value>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CookiesSet {
    /// The cookie's name.
    pub name: String,
    /// Its value (may start with `-`).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub value: String,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// Domain (a domain cookie); default: host-only for the active tab's host.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Path (default `/`).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Secure flag.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub secure: bool,
    /// HttpOnly flag.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub http_only: bool,
    /// SameSite policy: Strict, Lax or None.
    #[cfg_attr(feature = "cli", arg(long, value_enum, ignore_case = true))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
    /// Expiry as a Unix timestamp in seconds (default: a session cookie).
    #[cfg_attr(feature = "cli", arg(long, allow_hyphen_values = true))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
}

/// `browser cookies delete <name>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CookiesDelete {
    /// The cookie's name (every domain and path).
    pub name: String,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser cookies clear`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct CookiesClear {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// Only cookies of this domain (and its subdomains).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
}

/// Every cookie of the session's browser (its context's, on a shared one).
async fn all_cookies(root: &BrowserConn, deadline: &Deadline) -> Result<Vec<network::Cookie>> {
    Ok(root
        .browser()
        .send_timeout(
            &storage::GetCookies {
                browser_context_id: root.own_context(),
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?
        .cookies)
}

/// Whether a cookie's domain is `domain` or under it (leading dots ignored).
fn in_domain(cookie_domain: &str, domain: &str) -> bool {
    let c = cookie_domain.trim_start_matches('.').to_ascii_lowercase();
    let d = domain.trim_start_matches('.').to_ascii_lowercase();
    c == d || c.ends_with(&format!(".{d}"))
}

fn to_item(c: &network::Cookie) -> Cookie {
    Cookie {
        name: c.name.clone(),
        value: c.value.clone(),
        domain: c.domain.clone(),
        path: c.path.clone(),
        http_only: c.http_only,
        secure: c.secure,
        same_site: c.same_site.clone().unwrap_or_default(),
        expires: (!c.session && c.expires >= 0.0).then_some(c.expires),
    }
}

/// Removes one cookie: set again on its own domain and path, already expired. A host-only
/// cookie (no leading dot) is addressed by URL, or a domain cookie would be made instead.
async fn remove(root: &BrowserConn, c: &network::Cookie, deadline: &Deadline) -> Result<()> {
    let host_only = !c.domain.starts_with('.');
    let scheme = if c.secure { "https" } else { "http" };
    let param = network::CookieParam {
        name: c.name.clone(),
        value: String::new(),
        url: host_only.then(|| format!("{scheme}://{}{}", c.domain, c.path)),
        domain: (!host_only).then(|| c.domain.clone()),
        path: Some(c.path.clone()),
        secure: Some(c.secure),
        http_only: Some(c.http_only),
        same_site: c.same_site.clone(),
        expires: Some(1.0),
    };
    root.browser()
        .send_timeout(
            &storage::SetCookies {
                cookies: vec![param],
                browser_context_id: root.own_context(),
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(())
}

/// Removes `doomed` and returns how many are gone afterwards (read back).
async fn remove_all(
    root: &BrowserConn,
    doomed: &[network::Cookie],
    deadline: &Deadline,
) -> Result<u64> {
    for c in doomed {
        remove(root, c, deadline).await?;
    }
    let left = all_cookies(root, deadline).await?;
    let kept: Vec<&network::Cookie> = doomed
        .iter()
        .filter(|d| {
            left.iter()
                .any(|c| c.name == d.name && c.domain == d.domain && c.path == d.path)
        })
        .collect();
    if !kept.is_empty() {
        return Err(kept_cookies(&kept, doomed.len()));
    }
    Ok(doomed.len() as u64)
}

/// The error for cookies the browser still has after being told to remove them (never an ok
/// with a smaller count).
fn kept_cookies(kept: &[&network::Cookie], asked: usize) -> CliError {
    let which: Vec<String> = kept
        .iter()
        .take(10)
        .map(|c| format!("{} (domain {}, path {})", c.name, c.domain, c.path))
        .collect();
    CliError::Unsupported(format!(
        "the browser kept {} of the {asked} cookies it was told to remove: {}",
        kept.len(),
        which.join(", ")
    ))
}

/// The host of the session's active tab: the first tab showing an `http(s)` page.
async fn active_host(slot: &Arc<BrowserSession>, deadline: &Deadline) -> Option<(String, String)> {
    let tabs = refresh_tabs(slot, deadline).await;
    tabs.iter().find_map(|t| {
        let u = url::Url::parse(&t.url).ok()?;
        matches!(u.scheme(), "http" | "https")
            .then(|| {
                u.host_str()
                    .map(|h| (u.scheme().to_string(), h.to_string()))
            })
            .flatten()
    })
}

impl SessionCommand for CookiesList {
    type Data = CookieListData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CookieListData>> {
        let root = slot.connect(cx.deadline).await?;
        let items = all_cookies(&root, cx.deadline)
            .await?
            .iter()
            .filter(|c| {
                self.domain
                    .as_deref()
                    .is_none_or(|d| in_domain(&c.domain, d))
            })
            .map(to_item)
            .collect();
        Ok(Done::data(CookieListData { items }))
    }
}

impl SessionCommand for CookiesGet {
    type Data = CookieGetData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CookieGetData>> {
        let root = slot.connect(cx.deadline).await?;
        let cookies = all_cookies(&root, cx.deadline).await?;
        let found = cookies
            .iter()
            .find(|c| c.name == self.name)
            .ok_or_else(|| CliError::CookieNotFound {
                name: self.name.clone(),
            })?;
        Ok(Done::data(CookieGetData {
            item: Some(to_item(found)),
        }))
    }
}

/// A cookie's `--domain`: a host name or an IP address, with an optional leading dot. The browser
/// takes anything and stores what it escaped (`bad%20domain` for `bad domain`).
fn check_domain(domain: &str) -> Result<()> {
    let host = domain.strip_prefix('.').unwrap_or(domain);
    let valid = !host.is_empty()
        && !host.ends_with('.')
        && url::Host::parse(host).is_ok_and(|h| match h {
            url::Host::Domain(d) => d == host.to_ascii_lowercase() || !host.is_ascii(),
            _ => true,
        });
    match valid {
        true => Ok(()),
        false => Err(CliError::InvalidArgument(format!(
            "--domain {domain:?} is not a host name (example.com, .example.com, 127.0.0.1)"
        ))),
    }
}

/// What keeps `text` out of a cookie's name (`name`) or value: the characters a browser refuses
/// there (a `;` ends the pair, `=` ends a name, control characters, tab included), or `None`.
fn cookie_text_problem(text: &str, name: bool) -> Option<String> {
    let bad = text
        .chars()
        .find(|&c| c == ';' || (name && c == '=') || c.is_control())?;
    Some(format!(
        "a cookie {} cannot hold {bad:?} (encode it, e.g. percent-encoding: %{:02X})",
        if name { "name" } else { "value" },
        u32::from(bad)
    ))
}

impl CookiesSet {
    fn validate(&self) -> Result<()> {
        if self.name.is_empty() && self.value.is_empty() {
            return Err(CliError::InvalidArgument(
                "a cookie needs a name or a value".into(),
            ));
        }
        if let Some(problem) = cookie_text_problem(&self.name, true)
            .or_else(|| cookie_text_problem(&self.value, false))
        {
            return Err(CliError::InvalidArgument(problem));
        }
        if self.same_site == Some(SameSite::None) && !self.secure {
            return Err(CliError::InvalidArgument(
                "the browser refuses SameSite=None without Secure: add --secure".into(),
            ));
        }
        if let Some(d) = &self.domain {
            check_domain(d)?;
        }
        if let Some(e) = self.expires
            && !e.is_finite()
        {
            return Err(CliError::InvalidArgument(format!(
                "--expires {e} is not a Unix timestamp"
            )));
        }
        Ok(())
    }
}

impl SessionCommand for CookiesSet {
    type Data = CookieChangeData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CookieChangeData>> {
        self.validate()?;
        let root = slot.connect(cx.deadline).await?;
        let path = self.path.clone().unwrap_or_else(|| "/".to_string());
        let mut url_host = None;
        let (url, domain) = match &self.domain {
            Some(d) => (None, Some(d.clone())),
            None => {
                let (scheme, host) = active_host(slot, cx.deadline).await.ok_or_else(|| {
                    CliError::InvalidArgument(
                        "no tab of the session shows a web page to take the cookie's domain from; \
                         give --domain"
                            .into(),
                    )
                })?;
                let url = format!("{scheme}://{host}{path}");
                url_host = Some(host);
                (Some(url), None)
            }
        };
        let param = network::CookieParam {
            name: self.name.clone(),
            value: self.value.clone(),
            url,
            domain,
            path: Some(path.clone()),
            secure: Some(self.secure),
            http_only: Some(self.http_only),
            same_site: self.same_site.map(|s| s.as_str().to_string()),
            expires: self.expires,
        };
        let set = root
            .browser()
            .send_timeout(
                &storage::SetCookies {
                    cookies: vec![param],
                    browser_context_id: root.own_context(),
                },
                cx.deadline.capped(deadline::QUICK_CALL),
            )
            .await;
        if let Err(cdp_protocol::CdpError::Protocol { message, .. }) = &set {
            return Err(CliError::InvalidArgument(format!(
                "the browser refused cookie {:?}: {message}",
                self.name
            )));
        }
        set?;
        // Read back: a cookie the browser drops without an error (an expiry in the past, a domain
        // it will not store) must not answer ok.
        let stored = all_cookies(&root, cx.deadline).await?;
        let wanted = self.domain.as_deref();
        let candidates = stored.iter().filter(|c| {
            c.name == self.name
                && c.path == path
                && c.value == self.value
                && wanted.is_none_or(|d| in_domain(&c.domain, d) || in_domain(d, &c.domain))
        });
        // Another cookie of the same name and value may live on a parent or child domain: the
        // one on the domain asked for (or the tab's host) is the one just set.
        let exact = |c: &&&network::Cookie| {
            let stored = c.domain.trim_start_matches('.');
            match (wanted, &url_host) {
                // A dotted domain is a cookie of its subdomains too: the host's own is another.
                (Some(d), _) if d.starts_with('.') => c.domain.eq_ignore_ascii_case(d),
                (Some(d), _) => stored.eq_ignore_ascii_case(d),
                (None, Some(h)) => stored.eq_ignore_ascii_case(h),
                (None, None) => false,
            }
        };
        let candidates: Vec<_> = candidates.collect();
        let kept = candidates
            .iter()
            .find(exact)
            .or_else(|| candidates.first())
            .copied();
        let Some(kept) = kept else {
            return Err(CliError::InvalidArgument(format!(
                "the browser did not store cookie {:?} (an expiry in the past, or a domain or \
                 flags it refuses)",
                self.name
            )));
        };
        // `.domain` asks for a cookie of every host under it; on a public suffix (`.com`,
        // `.co.uk`, `.localhost`) Chromium stores one for that host alone instead, without an error.
        if let Some(d) = wanted
            && d.starts_with('.')
            && !kept.domain.starts_with('.')
        {
            let stray = (*kept).clone();
            remove_all(&root, &[stray], cx.deadline).await?;
            let host = d.trim_start_matches('.');
            return Err(CliError::InvalidArgument(format!(
                "the browser will not set a cookie for every host under {d:?} (a public suffix): \
                 it stored one for host {host:?} alone, now removed; give --domain {host} for that"
            )));
        }
        let mut done = Done::data(CookieChangeData {
            action: ChangeAction::Set,
            affected: 1,
            domain: Some(kept.domain.clone()),
        });
        // Chromium shortens a lifetime past 400 days without a word.
        if let Some(asked) = self.expires
            && kept.expires > 0.0
            && kept.expires < asked - 1.0
        {
            done.warnings.push(format!(
                "the browser keeps cookies at most 400 days: {:?} expires at {:.0}, not {asked:.0}",
                self.name, kept.expires
            ));
        }
        Ok(done)
    }
}

impl SessionCommand for CookiesDelete {
    type Data = CookieChangeData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CookieChangeData>> {
        let root = slot.connect(cx.deadline).await?;
        let doomed: Vec<network::Cookie> = all_cookies(&root, cx.deadline)
            .await?
            .into_iter()
            .filter(|c| c.name == self.name)
            .collect();
        let affected = remove_all(&root, &doomed, cx.deadline).await?;
        Ok(Done::data(CookieChangeData {
            action: ChangeAction::Delete,
            affected,
            domain: None,
        }))
    }
}

impl SessionCommand for CookiesClear {
    type Data = CookieChangeData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<CookieChangeData>> {
        let root = slot.connect(cx.deadline).await?;
        let all = all_cookies(&root, cx.deadline).await?;
        let affected = match &self.domain {
            Some(d) => {
                let doomed: Vec<network::Cookie> = all
                    .into_iter()
                    .filter(|c| in_domain(&c.domain, d))
                    .collect();
                remove_all(&root, &doomed, cx.deadline).await?
            }
            None => {
                root.browser()
                    .send_timeout(
                        &storage::ClearCookies {
                            browser_context_id: root.own_context(),
                        },
                        cx.deadline.capped(deadline::QUICK_CALL),
                    )
                    .await?;
                let left = all_cookies(&root, cx.deadline).await?;
                if !left.is_empty() {
                    return Err(kept_cookies(&left.iter().collect::<Vec<_>>(), all.len()));
                }
                all.len() as u64
            }
        };
        Ok(Done::data(CookieChangeData {
            action: ChangeAction::Clear,
            affected,
            domain: self.domain,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_domain, cookie_text_problem, in_domain};

    #[test]
    fn cookie_names_and_values_refuse_what_a_browser_refuses() {
        for ok in ["abc", "a b", "é", "a=b", ""] {
            assert_eq!(cookie_text_problem(ok, false), None, "{ok:?}");
        }
        assert_eq!(cookie_text_problem("session_id", true), None);
        for (bad, name) in [
            ("x y;z", false),
            ("a\nb", false),
            ("a\u{7f}", false),
            ("x\ty", false),
            ("a=b", true),
            ("a;", true),
        ] {
            assert!(cookie_text_problem(bad, name).is_some(), "{bad:?}");
        }
        assert_eq!(
            cookie_text_problem("x;y", false).as_deref(),
            Some("a cookie value cannot hold ';' (encode it, e.g. percent-encoding: %3B)")
        );
    }

    #[test]
    fn a_domain_is_a_host_name_or_an_address() {
        for ok in [
            "example.com",
            ".example.com",
            "Sub.Example.COM",
            "localhost",
            "127.0.0.1",
            "bücher.de",
            "a-b.example",
        ] {
            assert!(check_domain(ok).is_ok(), "{ok}");
        }
        for bad in [
            "bad domain",
            "",
            ".",
            "example.com.",
            "a%20b.com",
            "a/b",
            "exa mple",
        ] {
            assert!(check_domain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn domains_match_themselves_and_their_subdomains() {
        assert!(in_domain(".example.com", "example.com"));
        assert!(in_domain("example.com", ".example.com"));
        assert!(in_domain("a.example.com", "example.com"));
        assert!(in_domain("A.Example.com", "example.COM"));
        assert!(!in_domain("badexample.com", "example.com"));
        assert!(!in_domain("example.com", "a.example.com"));
        assert!(in_domain("127.0.0.1", "127.0.0.1"));
    }
}
