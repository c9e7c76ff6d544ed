//! `Browser` domain: version, windows, close, downloads.

use crate::ids::{BrowserContextId, TargetId};
use crate::protocol::{command, unit_command};
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
