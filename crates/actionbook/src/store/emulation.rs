//! What `browser emulate` set on a tab, kept in its record so that every attach (a daemon
//! restart, `browser restart`) sets it again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A tab's emulation overrides; a field left `None` is the session's default.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Emulation {
    /// The device whose metrics and user agent are in effect (Playwright's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Viewport and scale the device set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<DeviceMetrics>,
    /// User agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// `[latitude, longitude, accuracy]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<[f64; 3]>,
    /// IANA timezone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// BCP 47 locale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// Offline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<bool>,
    /// `prefers-color-scheme`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<String>,
    /// `prefers-reduced-motion`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduced_motion: Option<String>,
    /// CSS media type (`print` or `screen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<String>,
    /// Extra HTTP headers sent with every request of the tab.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

impl Emulation {
    /// Nothing is overridden.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A device's viewport (CSS pixels), scale and input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceMetrics {
    /// Viewport width.
    pub width: u32,
    /// Viewport height.
    pub height: u32,
    /// devicePixelRatio.
    pub device_scale_factor: f64,
    /// A mobile viewport (meta viewport, overlay scrollbars).
    pub is_mobile: bool,
    /// Touch events.
    pub has_touch: bool,
}
