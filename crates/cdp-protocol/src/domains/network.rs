//! `Network` domain: requests, responses, cookies, headers, cache.

use crate::ids::{FrameId, LoaderId, RequestId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

/// `Network.enable`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Enable {
    /// Total buffer size for response bodies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_buffer_size: Option<i64>,
    /// Per-resource buffer size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_resource_buffer_size: Option<i64>,
    /// Longest post data to keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_post_data_size: Option<i64>,
}
command!(Enable, "Network.enable");

unit_command!(
    /// `Network.disable`.
    Disable,
    "Network.disable"
);
unit_command!(
    /// `Network.clearBrowserCookies`.
    ClearBrowserCookies,
    "Network.clearBrowserCookies"
);
unit_command!(
    /// `Network.clearBrowserCache`.
    ClearBrowserCache,
    "Network.clearBrowserCache"
);

/// `Network.setExtraHTTPHeaders`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetExtraHttpHeaders {
    /// Header name to value.
    pub headers: serde_json::Map<String, serde_json::Value>,
}
command!(SetExtraHttpHeaders, "Network.setExtraHTTPHeaders");

/// `Network.setCacheDisabled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetCacheDisabled {
    /// True disables the cache.
    pub cache_disabled: bool,
}
command!(SetCacheDisabled, "Network.setCacheDisabled");

/// A browser cookie.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    /// Name.
    pub name: String,
    /// Value.
    #[serde(default)]
    pub value: String,
    /// Domain.
    #[serde(default)]
    pub domain: String,
    /// Path.
    #[serde(default)]
    pub path: String,
    /// Expiry in seconds since epoch (-1 for session cookies).
    #[serde(default)]
    pub expires: f64,
    /// Size in bytes.
    #[serde(default)]
    pub size: i64,
    /// HttpOnly.
    #[serde(default)]
    pub http_only: bool,
    /// Secure.
    #[serde(default)]
    pub secure: bool,
    /// Session cookie.
    #[serde(default)]
    pub session: bool,
    /// `"Strict"`, `"Lax"` or `"None"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
}

/// A cookie to set.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CookieParam {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
    /// URL the cookie applies to (sets domain/path/secure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Secure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<bool>,
    /// HttpOnly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_only: Option<bool>,
    /// SameSite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<String>,
    /// Expiry in seconds since epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
}

/// `Network.getCookies`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookies {
    /// URLs to get cookies for; none = the current page's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urls: Option<Vec<String>>,
}
/// Result of [`GetCookies`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetCookiesResponse {
    /// The cookies.
    #[serde(default)]
    pub cookies: Vec<Cookie>,
}
command!(GetCookies, "Network.getCookies", GetCookiesResponse);

/// `Network.setCookies`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetCookies {
    /// Cookies to set.
    pub cookies: Vec<CookieParam>,
}
command!(SetCookies, "Network.setCookies");

/// `Network.deleteCookies`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteCookies {
    /// Name.
    pub name: String,
    /// URL scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Domain scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Path scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}
command!(DeleteCookies, "Network.deleteCookies");

/// `Network.getResponseBody`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBody {
    /// The request.
    pub request_id: RequestId,
}
/// Result of [`GetResponseBody`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetResponseBodyResponse {
    /// The body (base64 when `base64_encoded`).
    pub body: String,
    /// Whether the body is base64.
    #[serde(default)]
    pub base64_encoded: bool,
}
command!(
    GetResponseBody,
    "Network.getResponseBody",
    GetResponseBodyResponse
);

/// `Network.getRequestPostData`: the body of a request, also one too large to come with
/// `requestWillBeSent` (past `maxPostDataSize`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetRequestPostData {
    /// The request.
    pub request_id: RequestId,
}
/// Result of [`GetRequestPostData`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetRequestPostDataResponse {
    /// The body.
    pub post_data: String,
    /// Whether the body is base64.
    #[serde(default)]
    pub base64_encoded: bool,
}
command!(
    GetRequestPostData,
    "Network.getRequestPostData",
    GetRequestPostDataResponse
);

/// `Network.emulateNetworkConditions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmulateNetworkConditions {
    /// Offline.
    pub offline: bool,
    /// Added latency in ms.
    pub latency: f64,
    /// Download bytes/s (-1 = unlimited).
    pub download_throughput: f64,
    /// Upload bytes/s (-1 = unlimited).
    pub upload_throughput: f64,
}
command!(EmulateNetworkConditions, "Network.emulateNetworkConditions");

/// An HTTP request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// URL.
    pub url: String,
    /// Method.
    #[serde(default)]
    pub method: String,
    /// Headers (name to value).
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    /// Body, when small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    /// Whether there is a body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_post_data: Option<bool>,
}

/// An HTTP response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// URL.
    pub url: String,
    /// Status code.
    #[serde(default)]
    pub status: i64,
    /// Status text.
    #[serde(default)]
    pub status_text: String,
    /// Headers (name to value).
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    /// MIME type.
    #[serde(default)]
    pub mime_type: String,
    /// Remote IP.
    #[serde(
        rename = "remoteIPAddress",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub remote_ip_address: Option<String>,
    /// Remote port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_port: Option<i64>,
    /// Served from disk cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_disk_cache: Option<bool>,
    /// Protocol (`"http/1.1"`, `"h2"`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Bytes received so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoded_data_length: Option<f64>,
    /// Timing of the request (absent for cached and data: responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<ResourceTiming>,
}

/// `Network.ResourceTiming`: when each phase of a request ran, in milliseconds relative to
/// `request_time` (seconds, monotonic); -1 for a phase that did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTiming {
    /// Baseline, in seconds (monotonic).
    pub request_time: f64,
    /// DNS lookup start.
    #[serde(default)]
    pub dns_start: f64,
    /// DNS lookup end.
    #[serde(default)]
    pub dns_end: f64,
    /// Connecting start.
    #[serde(default)]
    pub connect_start: f64,
    /// Connecting end.
    #[serde(default)]
    pub connect_end: f64,
    /// TLS handshake start.
    #[serde(default)]
    pub ssl_start: f64,
    /// TLS handshake end.
    #[serde(default)]
    pub ssl_end: f64,
    /// Sending the request started.
    #[serde(default)]
    pub send_start: f64,
    /// Sending the request ended.
    #[serde(default)]
    pub send_end: f64,
    /// The response headers were received.
    #[serde(default)]
    pub receive_headers_end: f64,
}

/// Event `Network.requestWillBeSent`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSent {
    /// Request id.
    pub request_id: RequestId,
    /// Loader.
    #[serde(default)]
    pub loader_id: LoaderId,
    /// URL of the document that made the request.
    #[serde(rename = "documentURL", default)]
    pub document_url: String,
    /// The request.
    pub request: Request,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Wall time in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<f64>,
    /// Resource type (`"Document"`, `"XHR"`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    /// Frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// Set for redirects: the response that redirected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_response: Option<Response>,
    /// With `redirect_response`: whether the hop that was redirected has (or had) its two
    /// ExtraInfo events.
    #[serde(default)]
    pub redirect_has_extra_info: bool,
}
event!(RequestWillBeSent, "Network.requestWillBeSent");

/// Event `Network.responseReceived`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceived {
    /// Request id.
    pub request_id: RequestId,
    /// Loader.
    #[serde(default)]
    pub loader_id: LoaderId,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Resource type.
    #[serde(default)]
    pub r#type: String,
    /// The response.
    pub response: Response,
    /// Whether this hop has (or had) its two ExtraInfo events (`requestWillBeSentExtraInfo`,
    /// `responseReceivedExtraInfo`); false for one that never touched the network stack (memory
    /// cache, `data:`, a service worker's answer).
    #[serde(default)]
    pub has_extra_info: bool,
    /// Frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}
event!(ResponseReceived, "Network.responseReceived");

/// Event `Network.requestServedFromCache`: the request was answered from the renderer's memory
/// cache (sent between its `requestWillBeSent` and its `responseReceived`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestServedFromCache {
    /// Request id.
    pub request_id: RequestId,
}
event!(RequestServedFromCache, "Network.requestServedFromCache");

/// Event `Network.loadingFinished`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFinished {
    /// Request id.
    pub request_id: RequestId,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Total bytes received.
    #[serde(default)]
    pub encoded_data_length: f64,
}
event!(LoadingFinished, "Network.loadingFinished");

/// Event `Network.loadingFailed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadingFailed {
    /// Request id.
    pub request_id: RequestId,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Resource type.
    #[serde(default)]
    pub r#type: String,
    /// Error text (e.g. `"net::ERR_FAILED"`).
    #[serde(default)]
    pub error_text: String,
    /// Canceled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canceled: Option<bool>,
    /// Why it was blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_reason: Option<String>,
}
event!(LoadingFailed, "Network.loadingFailed");

/// Event `Network.dataReceived`: a chunk of a response body arrived.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataReceived {
    /// Request id.
    pub request_id: RequestId,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
    /// Decoded bytes received.
    #[serde(default)]
    pub data_length: i64,
    /// Bytes received on the wire.
    #[serde(default)]
    pub encoded_data_length: i64,
}
event!(DataReceived, "Network.dataReceived");

/// Event `Network.requestWillBeSentExtraInfo`: the headers as sent on the wire (cookies included,
/// which `requestWillBeSent` leaves out). One per hop that went to the network stack, in hop
/// order; it may come before or after the hop's `requestWillBeSent`, and a hop whose response says
/// `has_extra_info: false` has none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestWillBeSentExtraInfo {
    /// Request id (the one of `requestWillBeSent`).
    pub request_id: RequestId,
    /// The raw request headers.
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
}
event!(
    RequestWillBeSentExtraInfo,
    "Network.requestWillBeSentExtraInfo"
);

/// Event `Network.responseReceivedExtraInfo`: the response headers as received (`set-cookie`
/// included, which `responseReceived` may leave out). One per hop with `has_extra_info` (or
/// `redirect_has_extra_info`) that got a response, in hop order, before or after its
/// `responseReceived`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseReceivedExtraInfo {
    /// Request id.
    pub request_id: RequestId,
    /// The raw response headers.
    #[serde(default)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    /// The HTTP status code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<i64>,
}
event!(
    ResponseReceivedExtraInfo,
    "Network.responseReceivedExtraInfo"
);
