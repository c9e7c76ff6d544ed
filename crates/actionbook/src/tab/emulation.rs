//! Sets a tab's [`Emulation`] on its page session: on `browser emulate` and again on every
//! attach (the overrides live as long as the CDP session that set them).

use std::sync::OnceLock;

use cdp_protocol::{CdpError, Session, browser, emulation, network};
use serde::Deserialize;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::store::emulation::{DeviceMetrics, Emulation};

/// Playwright's device descriptors (a subset of its `deviceDescriptorsSource.json`, Apache-2.0).
const DEVICES_JSON: &str = include_str!("devices.json");

/// One device descriptor.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Device {
    /// Viewport in CSS pixels.
    pub viewport: Size,
    /// devicePixelRatio.
    pub device_scale_factor: f64,
    /// User agent.
    pub user_agent: String,
    /// A mobile viewport.
    pub is_mobile: bool,
    /// Touch events.
    pub has_touch: bool,
}

/// Width and height.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct Size {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// The bundled devices, by name, sorted.
pub(crate) fn devices() -> &'static [(String, Device)] {
    static DEVICES: OnceLock<Vec<(String, Device)>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        // Bundled at build time and checked by a unit test: it cannot fail at run time.
        let map: std::collections::BTreeMap<String, Device> =
            serde_json::from_str(DEVICES_JSON).unwrap_or_default();
        map.into_iter().collect()
    })
}

/// The device named `name` (case-insensitive), or INVALID_ARGUMENT with the closest names.
pub(crate) fn device(name: &str) -> Result<(&'static str, &'static Device)> {
    let all = devices();
    if let Some((n, d)) = all
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
    {
        return Ok((n.as_str(), d));
    }
    let wanted = name.trim().to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = all
        .iter()
        .map(|(n, _)| (edit_distance(&wanted, &n.to_ascii_lowercase()), n.as_str()))
        .collect();
    scored.sort();
    let closest: Vec<&str> = scored.iter().take(5).map(|(_, n)| *n).collect();
    Err(CliError::InvalidArgument(format!(
        "unknown device {name:?}; closest: {} (all: browser emulate device --list)",
        closest.join(", ")
    )))
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The metrics a device sets.
pub(crate) fn metrics_of(d: &Device) -> DeviceMetrics {
    DeviceMetrics {
        width: d.viewport.width,
        height: d.viewport.height,
        device_scale_factor: d.device_scale_factor,
        is_mobile: d.is_mobile,
        has_touch: d.has_touch,
    }
}

/// Sets every override of `e` on the tab's `page`, and clears those `e` leaves out (back to the
/// session's defaults: `base_viewport` is the session's own viewport, if it sets one).
/// `conn` is the browser connection (permissions are granted there, in the session's context).
pub(crate) async fn apply(
    page: &Session,
    conn: &crate::session::BrowserConn,
    e: &Emulation,
    base_viewport: Option<(u32, u32)>,
    deadline: &Deadline,
) -> Result<()> {
    let t = deadline.capped(deadline::QUICK_CALL);
    match &e.metrics {
        Some(m) => {
            page.send_timeout(
                &emulation::SetDeviceMetricsOverride {
                    width: i64::from(m.width),
                    height: i64::from(m.height),
                    device_scale_factor: m.device_scale_factor,
                    mobile: m.is_mobile,
                    screen_width: Some(i64::from(m.width)),
                    screen_height: Some(i64::from(m.height)),
                },
                t,
            )
            .await?;
        }
        None => match base_viewport {
            Some(size) => crate::session::launch::fit_viewport(page, size, deadline).await?,
            None => {
                page.send_timeout(&emulation::ClearDeviceMetricsOverride, t)
                    .await?;
            }
        },
    }
    let touch = e.metrics.as_ref().is_some_and(|m| m.has_touch);
    page.send_timeout(
        &emulation::SetTouchEmulationEnabled {
            enabled: touch,
            max_touch_points: touch.then_some(5),
        },
        t,
    )
    .await?;
    // An empty user agent is no override; Accept-Language (navigator.language) goes with it.
    page.send_timeout(
        &emulation::SetUserAgentOverride {
            user_agent: e.user_agent.clone().unwrap_or_default(),
            accept_language: e.locale.clone(),
            platform: None,
        },
        t,
    )
    .await?;
    match e.geolocation {
        Some([lat, lon, acc]) => {
            conn.browser()
                .send_timeout(
                    &browser::GrantPermissions {
                        permissions: vec!["geolocation".into()],
                        origin: None,
                        browser_context_id: conn.own_context(),
                    },
                    t,
                )
                .await?;
            page.send_timeout(
                &emulation::SetGeolocationOverride {
                    latitude: Some(lat),
                    longitude: Some(lon),
                    accuracy: Some(acc),
                },
                t,
            )
            .await?;
        }
        None => {
            page.send_timeout(&emulation::ClearGeolocationOverride, t)
                .await?;
        }
    }
    let tz = e.timezone.clone().unwrap_or_default();
    page.send_timeout(
        &emulation::SetTimezoneOverride {
            timezone_id: tz.clone(),
        },
        t,
    )
    .await
    .map_err(|err| rejected(err, "timezone", &tz))?;
    page.send_timeout(
        &emulation::SetLocaleOverride {
            locale: e.locale.clone(),
        },
        t,
    )
    .await
    .map_err(|err| rejected(err, "locale", e.locale.as_deref().unwrap_or("")))?;
    let feature = |name: &str, value: &Option<String>| emulation::MediaFeature {
        name: name.into(),
        value: value.clone().unwrap_or_default(),
    };
    page.send_timeout(
        &emulation::SetEmulatedMedia {
            media: Some(e.media.clone().unwrap_or_default()),
            features: Some(vec![
                feature("prefers-color-scheme", &e.color_scheme),
                feature("prefers-reduced-motion", &e.reduced_motion),
            ]),
        },
        t,
    )
    .await?;
    let offline = e.offline.unwrap_or(false);
    if offline || !e.headers.is_empty() {
        // Both take effect only with the Network domain on in the session.
        page.send_timeout(&network::Enable::default(), t).await?;
    }
    page.send_timeout(
        &network::EmulateNetworkConditions {
            offline,
            latency: 0.0,
            download_throughput: -1.0,
            upload_throughput: -1.0,
        },
        t,
    )
    .await?;
    page.send_timeout(
        &network::SetExtraHttpHeaders {
            headers: e
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect(),
        },
        t,
    )
    .await?;
    Ok(())
}

/// A value the browser refused (a CDP protocol error) is the caller's: INVALID_ARGUMENT.
fn rejected(err: CdpError, what: &str, value: &str) -> CliError {
    match err {
        CdpError::Protocol { message, .. } => {
            CliError::InvalidArgument(format!("invalid {what} {value:?}: {message}"))
        }
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_devices_parse() {
        let all = devices();
        assert!(all.len() >= 30, "{}", all.len());
        let (name, d) = device("iphone 13").expect("iPhone 13");
        assert_eq!(name, "iPhone 13");
        assert_eq!(d.device_scale_factor, 3.0);
        assert!(d.is_mobile && d.has_touch);
    }

    #[test]
    fn unknown_device_names_the_closest() {
        let err = device("iPhone 13 Prox").unwrap_err().to_string();
        assert!(err.contains("iPhone 13 Pro"), "{err}");
    }
}
