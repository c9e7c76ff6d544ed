//! `Emulation` domain: viewport, user agent, geolocation, media, timezone.

use crate::protocol::{command, unit_command};
use serde::{Deserialize, Serialize};

/// `Emulation.setDeviceMetricsOverride`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetDeviceMetricsOverride {
    /// Viewport width (0 = no override).
    pub width: i64,
    /// Viewport height (0 = no override).
    pub height: i64,
    /// Device scale factor (0 = no override).
    pub device_scale_factor: f64,
    /// Emulate a mobile device.
    pub mobile: bool,
    /// Screen width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_width: Option<i64>,
    /// Screen height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_height: Option<i64>,
}
command!(
    SetDeviceMetricsOverride,
    "Emulation.setDeviceMetricsOverride"
);

unit_command!(
    /// `Emulation.clearDeviceMetricsOverride`.
    ClearDeviceMetricsOverride,
    "Emulation.clearDeviceMetricsOverride"
);

/// `Emulation.setUserAgentOverride`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetUserAgentOverride {
    /// User agent.
    pub user_agent: String,
    /// Accept-Language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept_language: Option<String>,
    /// navigator.platform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
}
command!(SetUserAgentOverride, "Emulation.setUserAgentOverride");

/// `Emulation.setGeolocationOverride` (all none = position unavailable).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetGeolocationOverride {
    /// Latitude.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latitude: Option<f64>,
    /// Longitude.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longitude: Option<f64>,
    /// Accuracy in meters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}
command!(SetGeolocationOverride, "Emulation.setGeolocationOverride");

unit_command!(
    /// `Emulation.clearGeolocationOverride`.
    ClearGeolocationOverride,
    "Emulation.clearGeolocationOverride"
);

/// `Emulation.setTimezoneOverride`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTimezoneOverride {
    /// IANA timezone id; empty = no override.
    pub timezone_id: String,
}
command!(SetTimezoneOverride, "Emulation.setTimezoneOverride");

/// A CSS media feature override.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaFeature {
    /// Feature name, e.g. `"prefers-color-scheme"`.
    pub name: String,
    /// Value, e.g. `"dark"`.
    pub value: String,
}

/// `Emulation.setEmulatedMedia`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetEmulatedMedia {
    /// Media type (`"screen"`, `"print"`, `""`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<String>,
    /// Feature overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<MediaFeature>>,
}
command!(SetEmulatedMedia, "Emulation.setEmulatedMedia");

/// `Emulation.setTouchEmulationEnabled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetTouchEmulationEnabled {
    /// On or off.
    pub enabled: bool,
    /// Maximum touch points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_touch_points: Option<i64>,
}
command!(
    SetTouchEmulationEnabled,
    "Emulation.setTouchEmulationEnabled"
);

/// `Emulation.setFocusEmulationEnabled`: keep the page focused while headless.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFocusEmulationEnabled {
    /// On or off.
    pub enabled: bool,
}
command!(
    SetFocusEmulationEnabled,
    "Emulation.setFocusEmulationEnabled"
);

/// `Emulation.setScriptExecutionDisabled`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetScriptExecutionDisabled {
    /// True disables scripts.
    pub value: bool,
}
command!(
    SetScriptExecutionDisabled,
    "Emulation.setScriptExecutionDisabled"
);

/// `Emulation.setLocaleOverride` (no locale = no override).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLocaleOverride {
    /// ICU locale, e.g. `"de-DE"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
}
command!(SetLocaleOverride, "Emulation.setLocaleOverride");
