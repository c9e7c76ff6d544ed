//! `browser cookies *` data.

use serde::{Deserialize, Serialize};

use super::ChangeAction;
use crate::num;
use crate::text::{RenderText, TextBody};

/// A cookie.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Cookie {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
    /// Domain (`.google.com`).
    pub domain: String,
    /// Path.
    pub path: String,
    /// HttpOnly flag.
    pub http_only: bool,
    /// Secure flag.
    pub secure: bool,
    /// `Strict`, `Lax`, `None`, or empty when unset.
    pub same_site: String,
    /// Expiry as a Unix timestamp in seconds; `null` for a session cookie.
    #[serde(serialize_with = "num::compact_opt")]
    pub expires: Option<f64>,
}

/// `browser cookies list` data.
///
/// ```text
/// 1 cookie
/// SID .google.com /
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CookieListData {
    /// The cookies.
    pub items: Vec<Cookie>,
}

impl RenderText for CookieListData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.items.len(), "cookie", "cookies");
        for c in &self.items {
            body.line(format_args!("{} {} {}", c.name, c.domain, c.path));
        }
    }
}

/// `browser cookies get` data: `{ "item": {...} }`, `item` `null` when there is no such cookie.
///
/// ```text
/// SID=xxx
/// domain: .google.com
/// path: /
/// ```
/// (nothing after the header when `item` is `null`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CookieGetData {
    /// The cookie.
    pub item: Option<Cookie>,
}

impl RenderText for CookieGetData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        if let Some(c) = &self.item {
            body.line(format_args!("{}={}", c.name, c.value));
            body.field("domain", &c.domain);
            body.field("path", &c.path);
        }
    }
}

/// `browser cookies set` / `delete` / `clear` data, printed as just `ok <command>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CookieChangeData {
    /// What was done.
    pub action: ChangeAction,
    /// How many cookies were affected.
    pub affected: u64,
    /// The domain it applied to (omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
}

impl RenderText for CookieChangeData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, _body: &mut TextBody<'_>) {}
}
