//! `Storage` domain: browser-wide cookies and site data.

use crate::domains::network::{Cookie, CookieParam};
use crate::ids::BrowserContextId;
use crate::protocol::command;
use serde::{Deserialize, Serialize};

/// `Storage.getCookies`: every cookie of a browser context.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookies {
    /// Browser context; none = the default one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
}
/// Result of [`GetCookies`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookiesResponse {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<Cookie>,
}
command!(GetCookies, "Storage.getCookies", GetCookiesResponse);

/// `Storage.setCookies`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetCookies {
    /// Cookies to set.
    pub cookies: Vec<CookieParam>,
    /// Browser context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
}
command!(SetCookies, "Storage.setCookies");

/// `Storage.clearCookies`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearCookies {
    /// Browser context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
}
command!(ClearCookies, "Storage.clearCookies");

/// `Storage.clearDataForOrigin`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearDataForOrigin {
    /// Origin, e.g. `"http://127.0.0.1:8080"`.
    pub origin: String,
    /// Comma-separated types (`"all"`, `"cookies"`, `"local_storage"`, ...).
    pub storage_types: String,
}
command!(ClearDataForOrigin, "Storage.clearDataForOrigin");
