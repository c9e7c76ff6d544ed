//! `Browser` domain: version, windows, close, downloads.

use crate::ids::{BrowserContextId, FrameId, TargetId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Browser.getVersion`.
    GetVersion,
    "Browser.getVersion",
    GetVersionResponse
);
/// Result of [`GetVersion`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetVersionResponse {
    /// Protocol version, e.g. `"1.3"`.
    #[serde(default)]
    pub protocol_version: String,
    /// Product, e.g. `"HeadlessChrome/130.0.0.0"`.
    #[serde(default)]
    pub product: String,
    /// Revision.
    #[serde(default)]
    pub revision: String,
    /// User agent.
    #[serde(default)]
    pub user_agent: String,
    /// V8 version.
    #[serde(default)]
    pub js_version: String,
}

unit_command!(
    /// `Browser.close`: close the browser gracefully.
    Close,
    "Browser.close"
);

/// Window position and size.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Bounds {
    /// Left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<i64>,
    /// Top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top: Option<i64>,
    /// Width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<i64>,
    /// Height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<i64>,
    /// `"normal"`, `"minimized"`, `"maximized"`, `"fullscreen"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_state: Option<String>,
}

/// `Browser.getWindowForTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetWindowForTarget {
    /// The target; none = the session's target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<TargetId>,
}
/// Result of [`GetWindowForTarget`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetWindowForTargetResponse {
    /// Window id.
    pub window_id: i64,
    /// Its bounds.
    #[serde(default)]
    pub bounds: Bounds,
}
command!(
    GetWindowForTarget,
    "Browser.getWindowForTarget",
    GetWindowForTargetResponse
);

/// `Browser.setWindowBounds`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetWindowBounds {
    /// Window id.
    pub window_id: i64,
    /// New bounds.
    pub bounds: Bounds,
}
command!(SetWindowBounds, "Browser.setWindowBounds");

/// `Browser.setDownloadBehavior`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDownloadBehavior {
    /// `"deny"`, `"allow"`, `"allowAndName"` or `"default"`.
    pub behavior: String,
    /// Browser context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
    /// Download directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_path: Option<String>,
    /// Emit download events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_enabled: Option<bool>,
}
command!(SetDownloadBehavior, "Browser.setDownloadBehavior");

/// Event `Browser.downloadWillBegin` (with `eventsEnabled`): a download is about to start.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadWillBegin {
    /// The frame that caused it (an OOPIF's is its target id).
    pub frame_id: FrameId,
    /// The download's id; its file name under `allowAndName`.
    pub guid: String,
    /// The URL being downloaded.
    pub url: String,
    /// The file name the browser suggests (`Content-Disposition`, `download` attribute, URL).
    #[serde(default)]
    pub suggested_filename: String,
}
event!(DownloadWillBegin, "Browser.downloadWillBegin");

/// Event `Browser.downloadProgress` (with `eventsEnabled`): the last one has state
/// `completed` or `canceled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    /// The download's id.
    pub guid: String,
    /// Bytes expected (0 when unknown).
    #[serde(default)]
    pub total_bytes: f64,
    /// Bytes received.
    #[serde(default)]
    pub received_bytes: f64,
    /// `inProgress`, `completed` or `canceled`.
    #[serde(default)]
    pub state: String,
    /// Where the file is, once completed (Chromium 12x+; not always set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
}
event!(DownloadProgress, "Browser.downloadProgress");

/// `Browser.grantPermissions`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantPermissions {
    /// Permission names, e.g. `"geolocation"`.
    pub permissions: Vec<String>,
    /// The origin they are granted to (all origins when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// The browser context (the default one when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
}
command!(GrantPermissions, "Browser.grantPermissions");
