//! `Page` domain: navigation, frame tree, lifecycle, screenshots.

use crate::ids::{ExecutionContextId, FrameId, LoaderId};
use crate::protocol::{command, event, string_enum, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Page.enable`.
    Enable,
    "Page.enable"
);
unit_command!(
    /// `Page.disable`.
    Disable,
    "Page.disable"
);
unit_command!(
    /// `Page.bringToFront`.
    BringToFront,
    "Page.bringToFront"
);
unit_command!(
    /// `Page.stopLoading`.
    StopLoading,
    "Page.stopLoading"
);
unit_command!(
    /// `Page.close`.
    Close,
    "Page.close"
);
unit_command!(
    /// `Page.resetNavigationHistory`: drops every history entry but the current one.
    ResetNavigationHistory,
    "Page.resetNavigationHistory"
);

/// A frame as reported by the frame tree and `Page.frameNavigated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The frame.
    pub id: FrameId,
    /// Its parent (none for a main frame and, in its own session, for an OOPIF root... see notes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<FrameId>,
    /// The current document load.
    #[serde(default)]
    pub loader_id: LoaderId,
    /// The frame's `name` attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Document URL without the fragment.
    #[serde(default)]
    pub url: String,
    /// The fragment, with `#`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_fragment: Option<String>,
    /// The registrable domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain_and_registry: Option<String>,
    /// Security origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_origin: Option<String>,
    /// MIME type of the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Set when the navigation is not yet committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable_url: Option<String>,
}

/// A frame and its children.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameTree {
    /// This frame.
    pub frame: Frame,
    /// Its child frames (in-process only; OOPIFs live in their own sessions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_frames: Option<Vec<FrameTree>>,
}

/// `Page.navigate`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Navigate {
    /// Where to go.
    pub url: String,
    /// Referrer URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referrer: Option<String>,
    /// Transition type (`"typed"`, `"link"`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transition_type: Option<String>,
    /// Frame to navigate; none = the main frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}
/// Result of [`Navigate`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateResponse {
    /// The navigated frame.
    pub frame_id: FrameId,
    /// The new loader; none for same-document navigations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loader_id: Option<LoaderId>,
    /// Set when the navigation failed (e.g. `"net::ERR_CONNECTION_REFUSED"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_text: Option<String>,
}
command!(Navigate, "Page.navigate", NavigateResponse);

/// `Page.reload`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reload {
    /// Bypass the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_cache: Option<bool>,
    /// Script injected into every frame of the reloaded page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script_to_evaluate_on_load: Option<String>,
}
command!(Reload, "Page.reload");

unit_command!(
    /// `Page.getFrameTree`.
    GetFrameTree,
    "Page.getFrameTree",
    GetFrameTreeResponse
);
/// Result of [`GetFrameTree`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameTreeResponse {
    /// The root frame and its in-process descendants.
    pub frame_tree: FrameTree,
}

/// One entry of the session history.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigationEntry {
    /// Entry id, for [`NavigateToHistoryEntry`].
    pub id: i64,
    /// URL.
    #[serde(default)]
    pub url: String,
    /// URL the user typed.
    #[serde(default)]
    pub user_typed_url: String,
    /// Title.
    #[serde(default)]
    pub title: String,
    /// Transition type.
    #[serde(default)]
    pub transition_type: String,
}

unit_command!(
    /// `Page.getNavigationHistory`.
    GetNavigationHistory,
    "Page.getNavigationHistory",
    GetNavigationHistoryResponse
);
/// Result of [`GetNavigationHistory`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNavigationHistoryResponse {
    /// Index of the current entry.
    pub current_index: i64,
    /// Every entry.
    pub entries: Vec<NavigationEntry>,
}

/// `Page.navigateToHistoryEntry`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigateToHistoryEntry {
    /// The entry id.
    pub entry_id: i64,
}
command!(NavigateToHistoryEntry, "Page.navigateToHistoryEntry");

/// `Page.setLifecycleEventsEnabled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLifecycleEventsEnabled {
    /// On or off.
    pub enabled: bool,
}
command!(SetLifecycleEventsEnabled, "Page.setLifecycleEventsEnabled");

/// A page area in CSS pixels, with a scale.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Scale factor.
    pub scale: f64,
}

/// `Page.captureScreenshot`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshot {
    /// `"png"` (default), `"jpeg"` or `"webp"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Compression quality 0..100 (jpeg/webp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<i64>,
    /// Only this area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<Viewport>,
    /// Capture from the surface rather than the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_surface: Option<bool>,
    /// Capture beyond the viewport (full page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_beyond_viewport: Option<bool>,
    /// Faster, larger encoding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimize_for_speed: Option<bool>,
}
/// Result of [`CaptureScreenshot`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureScreenshotResponse {
    /// Base64-encoded image.
    pub data: String,
}
command!(
    CaptureScreenshot,
    "Page.captureScreenshot",
    CaptureScreenshotResponse
);

/// `Page.printToPDF`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintToPdf {
    /// Landscape orientation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landscape: Option<bool>,
    /// Print header and footer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_header_footer: Option<bool>,
    /// Print background graphics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub print_background: Option<bool>,
    /// Scale of the rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Paper width in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper_width: Option<f64>,
    /// Paper height in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper_height: Option<f64>,
    /// Top margin in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_top: Option<f64>,
    /// Bottom margin in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_bottom: Option<f64>,
    /// Left margin in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_left: Option<f64>,
    /// Right margin in inches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_right: Option<f64>,
    /// Page ranges, e.g. `"1-5, 8"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_ranges: Option<String>,
    /// Prefer the page's CSS page size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefer_css_page_size: Option<bool>,
}
/// Result of [`PrintToPdf`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintToPdfResponse {
    /// Base64-encoded PDF.
    pub data: String,
}
command!(PrintToPdf, "Page.printToPDF", PrintToPdfResponse);

/// `Page.addScriptToEvaluateOnNewDocument`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddScriptToEvaluateOnNewDocument {
    /// The script.
    pub source: String,
    /// Run in an isolated world of this name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_name: Option<String>,
    /// Also run in existing documents right away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_immediately: Option<bool>,
}
/// Result of [`AddScriptToEvaluateOnNewDocument`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddScriptToEvaluateOnNewDocumentResponse {
    /// Id for [`RemoveScriptToEvaluateOnNewDocument`].
    pub identifier: String,
}
command!(
    AddScriptToEvaluateOnNewDocument,
    "Page.addScriptToEvaluateOnNewDocument",
    AddScriptToEvaluateOnNewDocumentResponse
);

/// `Page.removeScriptToEvaluateOnNewDocument`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoveScriptToEvaluateOnNewDocument {
    /// The id returned when the script was added.
    pub identifier: String,
}
command!(
    RemoveScriptToEvaluateOnNewDocument,
    "Page.removeScriptToEvaluateOnNewDocument"
);

/// `Page.createIsolatedWorld`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorld {
    /// The frame to create the world in.
    pub frame_id: FrameId,
    /// World name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_name: Option<String>,
    /// Grant universal access (the CDP field name is misspelled on the wire).
    #[serde(
        default,
        rename = "grantUniveralAccess",
        skip_serializing_if = "Option::is_none"
    )]
    pub grant_universal_access: Option<bool>,
}
/// Result of [`CreateIsolatedWorld`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateIsolatedWorldResponse {
    /// The new context.
    pub execution_context_id: ExecutionContextId,
}
command!(
    CreateIsolatedWorld,
    "Page.createIsolatedWorld",
    CreateIsolatedWorldResponse
);

/// `Page.handleJavaScriptDialog`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleJavaScriptDialog {
    /// Accept or dismiss.
    pub accept: bool,
    /// Text for a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}
command!(HandleJavaScriptDialog, "Page.handleJavaScriptDialog");

/// Layout viewport in CSS pixels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutViewport {
    /// Horizontal scroll offset.
    pub page_x: f64,
    /// Vertical scroll offset.
    pub page_y: f64,
    /// Width excluding scrollbars.
    pub client_width: f64,
    /// Height excluding scrollbars.
    pub client_height: f64,
}

/// Visual viewport in CSS pixels.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VisualViewport {
    /// Offset from the layout viewport.
    pub offset_x: f64,
    /// Offset from the layout viewport.
    pub offset_y: f64,
    /// Horizontal scroll offset of the document.
    pub page_x: f64,
    /// Vertical scroll offset of the document.
    pub page_y: f64,
    /// Width.
    pub client_width: f64,
    /// Height.
    pub client_height: f64,
    /// Pinch-zoom scale.
    pub scale: f64,
    /// Page zoom.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoom: Option<f64>,
}

/// A rectangle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

unit_command!(
    /// `Page.getLayoutMetrics`.
    GetLayoutMetrics,
    "Page.getLayoutMetrics",
    GetLayoutMetricsResponse
);
/// Result of [`GetLayoutMetrics`] (CSS pixel variants).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetLayoutMetricsResponse {
    /// Layout viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_layout_viewport: Option<LayoutViewport>,
    /// Visual viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_visual_viewport: Option<VisualViewport>,
    /// Size of the whole content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_content_size: Option<Rect>,
}

/// Event `Page.frameAttached`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameAttached {
    /// The new frame.
    pub frame_id: FrameId,
    /// Its parent.
    pub parent_frame_id: FrameId,
}
event!(FrameAttached, "Page.frameAttached");

/// Event `Page.frameNavigated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameNavigated {
    /// The frame after navigation.
    pub frame: Frame,
    /// `"Navigation"` or `"BackForwardCacheRestore"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
}
event!(FrameNavigated, "Page.frameNavigated");

string_enum!(
    /// Why a frame detached.
    FrameDetachedReason {
        /// The frame was removed from the DOM.
        Remove = "remove",
        /// The frame moved to another process (its new session takes over).
        Swap = "swap",
    }
);

/// Event `Page.frameDetached`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameDetached {
    /// The frame.
    pub frame_id: FrameId,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<FrameDetachedReason>,
}
event!(FrameDetached, "Page.frameDetached");

/// Event `Page.navigatedWithinDocument`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NavigatedWithinDocument {
    /// The frame.
    pub frame_id: FrameId,
    /// The new URL.
    pub url: String,
    /// `"fragment"`, `"historyApi"` or `"other"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation_type: Option<String>,
}
event!(NavigatedWithinDocument, "Page.navigatedWithinDocument");

/// Event `Page.loadEventFired`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadEventFired {
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
}
event!(LoadEventFired, "Page.loadEventFired");

/// Event `Page.domContentEventFired`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomContentEventFired {
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
}
event!(DomContentEventFired, "Page.domContentEventFired");

/// Event `Page.lifecycleEvent`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LifecycleEvent {
    /// The frame.
    pub frame_id: FrameId,
    /// The document load.
    pub loader_id: LoaderId,
    /// `"init"`, `"DOMContentLoaded"`, `"load"`, `"networkIdle"`, ...
    pub name: String,
    /// Monotonic time in seconds.
    #[serde(default)]
    pub timestamp: f64,
}
event!(LifecycleEvent, "Page.lifecycleEvent");

/// Event `Page.frameRequestedNavigation`: a frame is about to navigate (link, form, script).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameRequestedNavigation {
    /// The frame.
    pub frame_id: FrameId,
    /// Why (`"anchorClick"`, `"formSubmissionGet"`, `"scriptInitiated"`, ...).
    #[serde(default)]
    pub reason: String,
    /// The destination.
    #[serde(default)]
    pub url: String,
    /// `"currentTab"`, `"newTab"`, ...
    #[serde(default)]
    pub disposition: String,
}
event!(FrameRequestedNavigation, "Page.frameRequestedNavigation");

/// Event `Page.frameStartedLoading`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStartedLoading {
    /// The frame.
    pub frame_id: FrameId,
}
event!(FrameStartedLoading, "Page.frameStartedLoading");

/// Event `Page.frameStoppedLoading`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameStoppedLoading {
    /// The frame.
    pub frame_id: FrameId,
}
event!(FrameStoppedLoading, "Page.frameStoppedLoading");

/// Event `Page.windowOpen`: the page asked for a new window (`window.open`, a `target=_blank`
/// link, a form); also sent for a popup the browser then blocks (no target follows).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowOpen {
    /// The URL asked for.
    #[serde(default)]
    pub url: String,
    /// The window name (`_blank`, ...).
    #[serde(default)]
    pub window_name: String,
    /// Whether a user gesture opened it (a popup without one is usually blocked).
    #[serde(default)]
    pub user_gesture: bool,
}
event!(WindowOpen, "Page.windowOpen");

/// Event `Page.javascriptDialogOpening`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogOpening {
    /// URL of the frame that opened the dialog.
    #[serde(default)]
    pub url: String,
    /// The dialog's message.
    #[serde(default)]
    pub message: String,
    /// `"alert"`, `"confirm"`, `"prompt"` or `"beforeunload"`.
    #[serde(default)]
    pub r#type: String,
    /// Whether the browser handles it itself.
    #[serde(default)]
    pub has_browser_handler: bool,
    /// Default text of a prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}
event!(JavascriptDialogOpening, "Page.javascriptDialogOpening");

/// Event `Page.javascriptDialogClosed`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JavascriptDialogClosed {
    /// Accepted or dismissed.
    #[serde(default)]
    pub result: bool,
    /// Text entered into a prompt.
    #[serde(default)]
    pub user_input: String,
}
event!(JavascriptDialogClosed, "Page.javascriptDialogClosed");
