//! `browser emulate <what> <value>` (beyond the spec; Playwright's context options): a device
//! (viewport, scale, user agent, touch), geolocation, timezone, locale, offline, color scheme,
//! reduced motion, user agent, extra HTTP headers and the media type, per tab.
//!
//! Kept in the tab's record and set again on every attach (`crate::tab::attach`), so the
//! emulation outlives a daemon restart and `browser restart`. `emulate reset` is the session's
//! defaults again (its own viewport included).

use envelope::{Document, RenderText, TextBody};
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::reply::{Done, document};
use crate::store::emulation::Emulation;
use crate::tab::emulation::{self as emu, devices};
use crate::tab::{TabCommand, TabCx};

/// `browser emulate [<what> <value>...]`.
///
/// WHAT is one of: device "<name>" (--list: the names), geolocation <lat>,<lon>,accuracy
/// (grants the permission too), timezone <IANA>, locale <bcp47>, offline on|off, color-scheme
/// light|dark|no-preference, reduced-motion reduce|no-preference, user-agent "<ua>", headers
/// K:V..., media print|screen, reset (the session's defaults), show (or nothing: what is in
/// effect). Kept with the tab: set again after a daemon restart and `browser restart`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Emulate {
    /// What to emulate (device, geolocation, timezone, locale, offline, color-scheme,
    /// reduced-motion, user-agent, headers, media, reset, show).
    #[cfg_attr(feature = "cli", arg(value_name = "WHAT"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what: Option<String>,
    /// Its value (headers: one K:V each).
    #[cfg_attr(feature = "cli", arg(value_name = "VALUE"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// With `device`: list the device names.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub list: bool,
    /// The tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser emulate` data: what is in effect now.
#[derive(Debug, Serialize)]
struct EmulateData {
    /// What the command changed (`show` for none).
    changed: String,
    /// The tab's overrides in effect.
    emulation: Emulation,
}

impl RenderText for EmulateData {
    fn is_action(&self) -> bool {
        self.changed != "show"
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        let e = &self.emulation;
        if e.is_empty() {
            body.line(format_args!("emulation: none (the session's defaults)"));
            return;
        }
        if let Some(d) = &e.device {
            body.line(format_args!("device: {d}"));
        }
        if let Some(m) = &e.metrics {
            body.line(format_args!(
                "viewport: {}x{} @{}x mobile={} touch={}",
                m.width, m.height, m.device_scale_factor, m.is_mobile, m.has_touch
            ));
        }
        let line = |body: &mut TextBody<'_>, k: &str, v: &Option<String>| {
            if let Some(v) = v {
                body.line(format_args!("{k}: {v}"));
            }
        };
        line(body, "user-agent", &e.user_agent);
        if let Some([lat, lon, acc]) = e.geolocation {
            body.line(format_args!("geolocation: {lat},{lon} (accuracy {acc} m)"));
        }
        line(body, "timezone", &e.timezone);
        line(body, "locale", &e.locale);
        if let Some(o) = e.offline {
            body.line(format_args!("offline: {}", if o { "on" } else { "off" }));
        }
        line(body, "color-scheme", &e.color_scheme);
        line(body, "reduced-motion", &e.reduced_motion);
        line(body, "media", &e.media);
        for (k, v) in &e.headers {
            body.line(format_args!("header: {k}: {v}"));
        }
    }
}

/// `browser emulate device --list` data.
#[derive(Debug, Serialize)]
struct DeviceList {
    /// The device names.
    devices: Vec<&'static str>,
}

impl RenderText for DeviceList {
    fn render_body(&self, body: &mut TextBody<'_>) {
        for d in &self.devices {
            body.line(format_args!("{d}"));
        }
    }
}

/// The one value WHAT takes.
fn one<'a>(what: &str, values: &'a [String]) -> Result<&'a str> {
    match values {
        [v] if !v.trim().is_empty() => Ok(v.trim()),
        _ => Err(CliError::InvalidArgument(format!(
            "browser emulate {what} takes one value, got {}: see browser emulate --help",
            values.len()
        ))),
    }
}

/// `value` if it is one of `allowed`, else INVALID_ARGUMENT naming it.
fn choice(what: &str, value: &str, allowed: &[&str]) -> Result<String> {
    allowed
        .iter()
        .find(|a| a.eq_ignore_ascii_case(value))
        .map(|a| (*a).to_string())
        .ok_or_else(|| {
            CliError::InvalidArgument(format!(
                "invalid {what} {value:?}: expected one of {}",
                allowed.join(", ")
            ))
        })
}

/// `lat,lon[,accuracy]`.
fn geolocation(value: &str) -> Result<[f64; 3]> {
    let bad = || {
        CliError::InvalidArgument(format!(
            "invalid geolocation {value:?}: expected <lat>,<lon>[,accuracy], e.g. 52.52,13.40 \
             (latitude -90..90, longitude -180..180, accuracy >= 0 meters)"
        ))
    };
    let parts: Vec<f64> = value
        .split(',')
        .map(|p| p.trim().parse::<f64>().map_err(|_| bad()))
        .collect::<Result<_>>()?;
    let (lat, lon, acc) = match parts[..] {
        [lat, lon] => (lat, lon, 0.0),
        [lat, lon, acc] => (lat, lon, acc),
        _ => return Err(bad()),
    };
    if !(-90.0..=90.0).contains(&lat)
        || !(-180.0..=180.0).contains(&lon)
        || acc.is_nan()
        || acc < 0.0
    {
        return Err(bad());
    }
    Ok([lat, lon, acc])
}

/// Refuses a time zone the page's `Intl` does not know: Chromium takes any name for its override
/// (`Mars/Olympus` included) and falls back to UTC, which would answer `ok` for nothing done.
async fn known_timezone(cx: &TabCx<'_>, zone: &str) -> Result<()> {
    let probe = format!(
        "(() => {{ try {{ new Intl.DateTimeFormat('en-US', {{ timeZone: {} }}); return true; }} \
         catch (e) {{ return false; }} }})()",
        serde_json::Value::String(zone.to_string())
    );
    let limit = cx.deadline.capped(crate::deadline::PROBE);
    let known: bool = crate::page::eval::read(&cx.page, &probe, limit, "the time zone").await?;
    match known {
        true => Ok(()),
        false => Err(CliError::InvalidArgument(format!(
            "unknown time zone {zone:?}: give an IANA name such as Europe/Paris or America/New_York"
        ))),
    }
}

/// Sets in `e` what WHAT says; `false` when WHAT changes nothing (`show`).
fn change(e: &mut Emulation, what: &str, values: &[String]) -> Result<bool> {
    match what {
        "show" => return Ok(false),
        "reset" => *e = Emulation::default(),
        "device" => {
            let (name, d) = emu::device(one(what, values)?)?;
            e.device = Some(name.to_string());
            e.metrics = Some(emu::metrics_of(d));
            e.user_agent = Some(d.user_agent.clone());
        }
        "geolocation" => e.geolocation = Some(geolocation(one(what, values)?)?),
        "timezone" => e.timezone = Some(one(what, values)?.to_string()),
        "locale" => {
            let v = one(what, values)?;
            let ok = v.split('-').all(|p| {
                (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric())
            });
            if !ok {
                return Err(CliError::InvalidArgument(format!(
                    "invalid locale {v:?}: expected a BCP 47 tag, e.g. de-DE"
                )));
            }
            e.locale = Some(v.to_string());
        }
        "offline" => e.offline = Some(choice(what, one(what, values)?, &["on", "off"])? == "on"),
        "color-scheme" => {
            e.color_scheme = Some(choice(
                what,
                one(what, values)?,
                &["light", "dark", "no-preference"],
            )?)
        }
        "reduced-motion" => {
            e.reduced_motion = Some(choice(
                what,
                one(what, values)?,
                &["reduce", "no-preference"],
            )?)
        }
        "media" => e.media = Some(choice(what, one(what, values)?, &["print", "screen"])?),
        "user-agent" => e.user_agent = Some(one(what, values)?.to_string()),
        "headers" => {
            if values.is_empty() {
                return Err(CliError::InvalidArgument(
                    "browser emulate headers takes K:V pairs, e.g. X-Test:1".into(),
                ));
            }
            let mut headers = std::collections::BTreeMap::new();
            for kv in values {
                let (k, v) = kv
                    .split_once(':')
                    .filter(|(k, _)| {
                        !k.trim().is_empty()
                            && k.trim().bytes().all(|b| b.is_ascii_graphic() && b != b':')
                    })
                    .ok_or_else(|| {
                        CliError::InvalidArgument(format!(
                            "invalid header {kv:?}: expected Name:value, e.g. X-Test:1"
                        ))
                    })?;
                headers.insert(k.trim().to_string(), v.trim().to_string());
            }
            e.headers = headers;
        }
        other => {
            return Err(CliError::InvalidArgument(format!(
                "unknown emulation {other:?}: expected device, geolocation, timezone, locale, \
                 offline, color-scheme, reduced-motion, user-agent, headers, media, reset or show"
            )));
        }
    }
    Ok(true)
}

impl TabCommand for Emulate {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let what = self.what.as_deref().unwrap_or("show").to_ascii_lowercase();
        if self.list {
            if what != "device" || !self.values.is_empty() {
                return Err(CliError::InvalidArgument(
                    "--list goes with device alone: browser emulate device --list".into(),
                ));
            }
            let names = devices().iter().map(|(n, _)| n.as_str()).collect();
            return Ok(Done::data(document(&DeviceList { devices: names })?));
        }
        let tab = cx.tab_id.clone();
        let mut e = cx
            .session
            .with_record(|r| r.tab(&tab).and_then(|t| t.emulation.clone()))
            .unwrap_or_default();
        if what == "show" && !self.values.is_empty() {
            return Err(CliError::InvalidArgument(
                "browser emulate show takes no value".into(),
            ));
        }
        if change(&mut e, &what, &self.values)? {
            if what == "timezone" {
                known_timezone(cx, e.timezone.as_deref().unwrap_or_default()).await?;
            }
            let base = cx.session.with_record(|r| {
                (r.launched && r.headless)
                    .then_some(r.window_size)
                    .flatten()
            });
            let applied = emu::apply(&cx.page, &cx.conn, &e, base, &cx.deadline).await;
            if let Err(err) = applied {
                // Back to what was in effect, so the tab and its record agree.
                let kept = cx
                    .session
                    .with_record(|r| r.tab(&tab).and_then(|t| t.emulation.clone()))
                    .unwrap_or_default();
                let _ = emu::apply(&cx.page, &cx.conn, &kept, base, &cx.deadline).await;
                return Err(err);
            }
            let kept = (!e.is_empty()).then(|| e.clone());
            cx.session
                .update(|r| {
                    if let Some(t) = r.tab_mut(&tab) {
                        t.emulation = kept;
                    }
                })
                .await?;
        }
        Ok(Done::data(document(&EmulateData {
            changed: what,
            emulation: e,
        })?))
    }
}
