//! `Fetch` domain: intercepting, fulfilling and failing requests.

use crate::domains::network::Request;
use crate::ids::{FrameId, RequestId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

/// Which requests to intercept.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPattern {
    /// Wildcard URL pattern (`*` and `?`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_pattern: Option<String>,
    /// Resource type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    /// `"Request"` or `"Response"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_stage: Option<String>,
}

/// `Fetch.enable`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Enable {
    /// Patterns; none = every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<Vec<RequestPattern>>,
    /// Also pause on auth challenges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle_auth_requests: Option<bool>,
}
command!(Enable, "Fetch.enable");

unit_command!(
    /// `Fetch.disable`.
    Disable,
    "Fetch.disable"
);

/// A header.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeaderEntry {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
}

/// `Fetch.continueRequest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueRequest {
    /// The paused request.
    pub request_id: RequestId,
    /// New URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// New method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// New body (base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    /// New headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<HeaderEntry>>,
}
command!(ContinueRequest, "Fetch.continueRequest");

/// `Fetch.fulfillRequest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FulfillRequest {
    /// The paused request.
    pub request_id: RequestId,
    /// HTTP status.
    pub response_code: i64,
    /// Headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Vec<HeaderEntry>>,
    /// Body (base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Status text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_phrase: Option<String>,
}
command!(FulfillRequest, "Fetch.fulfillRequest");

/// `Fetch.failRequest`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailRequest {
    /// The paused request.
    pub request_id: RequestId,
    /// `"Failed"`, `"Aborted"`, `"BlockedByClient"`, ...
    pub error_reason: String,
}
command!(FailRequest, "Fetch.failRequest");

/// Answer to an auth challenge.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthChallengeResponse {
    /// `"Default"`, `"CancelAuth"` or `"ProvideCredentials"`.
    pub response: String,
    /// User name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// Password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// `Fetch.continueWithAuth`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContinueWithAuth {
    /// The paused request.
    pub request_id: RequestId,
    /// The answer.
    pub auth_challenge_response: AuthChallengeResponse,
}
command!(ContinueWithAuth, "Fetch.continueWithAuth");

/// Event `Fetch.requestPaused`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestPaused {
    /// The paused request's id (for continue/fulfill/fail).
    pub request_id: RequestId,
    /// The request.
    pub request: Request,
    /// Frame.
    #[serde(default)]
    pub frame_id: FrameId,
    /// Resource type.
    #[serde(default)]
    pub resource_type: String,
    /// Response status, when paused at the response stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_status_code: Option<i64>,
    /// Response headers, at the response stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Vec<HeaderEntry>>,
    /// The Network domain's id for the same request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_id: Option<RequestId>,
}
event!(RequestPaused, "Fetch.requestPaused");

/// Event `Fetch.authRequired`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthRequired {
    /// The paused request's id.
    pub request_id: RequestId,
    /// The request.
    pub request: Request,
    /// Frame.
    #[serde(default)]
    pub frame_id: FrameId,
    /// Resource type.
    #[serde(default)]
    pub resource_type: String,
    /// The challenge (`{source?, origin, scheme, realm}`).
    #[serde(default)]
    pub auth_challenge: serde_json::Value,
}
event!(AuthRequired, "Fetch.authRequired");
