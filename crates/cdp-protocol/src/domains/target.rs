//! `Target` domain: discovering, creating and attaching to targets (flattened sessions).

use crate::ids::{BrowserContextId, FrameId, SessionId, TargetId};
use crate::protocol::{command, event};
use serde::{Deserialize, Serialize};

/// What a target is: page, iframe, worker...
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfo {
    /// The target.
    pub target_id: TargetId,
    /// `"page"`, `"iframe"`, `"worker"`, `"service_worker"`, `"browser"`, ...
    pub r#type: String,
    /// Document title.
    #[serde(default)]
    pub title: String,
    /// Current URL.
    #[serde(default)]
    pub url: String,
    /// Whether some client is attached.
    #[serde(default)]
    pub attached: bool,
    /// The target that opened this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener_id: Option<TargetId>,
    /// Whether the opener can reach this target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub can_access_opener: Option<bool>,
    /// The frame that opened this target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener_frame_id: Option<FrameId>,
    /// The parent frame of an iframe target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_frame_id: Option<FrameId>,
    /// The browser context the target lives in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
    /// Extra subtype (e.g. `"prerender"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
}

/// A filter entry for auto-attach / discovery: `{type?, exclude?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilterEntry {
    /// Exclude (true) or include (false) matching targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<bool>,
    /// Target type to match; none matches every type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
}

/// `Target.setAutoAttach`: attach to related targets (iframes, workers) automatically.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAutoAttach {
    /// Attach to new related targets.
    pub auto_attach: bool,
    /// Pause new targets until `Runtime.runIfWaitingForDebugger`.
    pub wait_for_debugger_on_start: bool,
    /// Use flattened sessions (always true for this crate's transport).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flatten: Option<bool>,
    /// Which target types to attach to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Vec<FilterEntry>>,
}
command!(SetAutoAttach, "Target.setAutoAttach");

/// `Target.attachToTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTarget {
    /// The target to attach to.
    pub target_id: TargetId,
    /// Use a flattened session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flatten: Option<bool>,
}
/// Result of [`AttachToTarget`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachToTargetResponse {
    /// The new session.
    pub session_id: SessionId,
}
command!(
    AttachToTarget,
    "Target.attachToTarget",
    AttachToTargetResponse
);

/// `Target.detachFromTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachFromTarget {
    /// The session to detach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    /// Deprecated alternative to `session_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<TargetId>,
}
command!(DetachFromTarget, "Target.detachFromTarget");

/// `Target.createTarget`: open a new page.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTarget {
    /// Initial URL (`"about:blank"` for an empty page).
    pub url: String,
    /// Width in DIP (headless only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<i64>,
    /// Height in DIP (headless only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<i64>,
    /// Browser context to create the page in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<BrowserContextId>,
    /// Open in a new window rather than a tab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_window: Option<bool>,
    /// Open in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
}
/// Result of [`CreateTarget`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTargetResponse {
    /// The new target.
    pub target_id: TargetId,
}
command!(CreateTarget, "Target.createTarget", CreateTargetResponse);

/// `Target.closeTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTarget {
    /// The target to close.
    pub target_id: TargetId,
}
/// Result of [`CloseTarget`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloseTargetResponse {
    /// Always true on current Chromium (deprecated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
}
command!(CloseTarget, "Target.closeTarget", CloseTargetResponse);

/// `Target.getTargets`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargets {
    /// Only targets matching this filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Vec<FilterEntry>>,
}
/// Result of [`GetTargets`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetsResponse {
    /// Every target.
    pub target_infos: Vec<TargetInfo>,
}
command!(GetTargets, "Target.getTargets", GetTargetsResponse);

/// `Target.getTargetInfo`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetInfo {
    /// The target; none means the session's own target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<TargetId>,
}
/// Result of [`GetTargetInfo`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTargetInfoResponse {
    /// The target's info.
    pub target_info: TargetInfo,
}
command!(GetTargetInfo, "Target.getTargetInfo", GetTargetInfoResponse);

/// `Target.activateTarget`: bring a page to front.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivateTarget {
    /// The target.
    pub target_id: TargetId,
}
command!(ActivateTarget, "Target.activateTarget");

/// `Target.setDiscoverTargets`: emit targetCreated/Destroyed/InfoChanged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDiscoverTargets {
    /// Turn discovery on or off.
    pub discover: bool,
    /// Which targets to report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Vec<FilterEntry>>,
}
command!(SetDiscoverTargets, "Target.setDiscoverTargets");

/// `Target.createBrowserContext`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBrowserContext {
    /// Dispose the context when the debugging session disconnects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispose_on_detach: Option<bool>,
}
/// Result of [`CreateBrowserContext`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateBrowserContextResponse {
    /// The new context.
    pub browser_context_id: BrowserContextId,
}
command!(
    CreateBrowserContext,
    "Target.createBrowserContext",
    CreateBrowserContextResponse
);

/// `Target.disposeBrowserContext`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DisposeBrowserContext {
    /// The context to dispose.
    pub browser_context_id: BrowserContextId,
}
command!(DisposeBrowserContext, "Target.disposeBrowserContext");

/// `Target.getBrowserContexts`: the contexts made with [`CreateBrowserContext`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBrowserContexts {}
/// Result of [`GetBrowserContexts`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBrowserContextsResponse {
    /// The contexts made with [`CreateBrowserContext`] (not the default one).
    #[serde(default)]
    pub browser_context_ids: Vec<BrowserContextId>,
    /// The default context (Chromium 135 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_browser_context_id: Option<BrowserContextId>,
}
command!(
    GetBrowserContexts,
    "Target.getBrowserContexts",
    GetBrowserContextsResponse
);

/// Event `Target.attachedToTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachedToTarget {
    /// The new flattened session.
    pub session_id: SessionId,
    /// The target attached to.
    pub target_info: TargetInfo,
    /// True when the target is paused until `Runtime.runIfWaitingForDebugger`.
    #[serde(default)]
    pub waiting_for_debugger: bool,
}
event!(AttachedToTarget, "Target.attachedToTarget");

/// Event `Target.detachedFromTarget`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetachedFromTarget {
    /// The session that detached.
    pub session_id: SessionId,
    /// Its target (deprecated field, still sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<TargetId>,
}
event!(DetachedFromTarget, "Target.detachedFromTarget");

/// Event `Target.targetCreated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCreated {
    /// The new target.
    pub target_info: TargetInfo,
}
event!(TargetCreated, "Target.targetCreated");

/// Event `Target.targetDestroyed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetDestroyed {
    /// The destroyed target.
    pub target_id: TargetId,
}
event!(TargetDestroyed, "Target.targetDestroyed");

/// Event `Target.targetInfoChanged`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetInfoChanged {
    /// The updated info.
    pub target_info: TargetInfo,
}
event!(TargetInfoChanged, "Target.targetInfoChanged");

/// Event `Target.targetCrashed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetCrashed {
    /// The crashed target.
    pub target_id: TargetId,
    /// Termination status.
    #[serde(default)]
    pub status: String,
    /// Termination error code.
    #[serde(default)]
    pub error_code: i64,
}
event!(TargetCrashed, "Target.targetCrashed");
