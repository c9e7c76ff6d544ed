//! `browser emulate` on real Chromium: a device (iPhone 13: DPR 3, a mobile viewport, touch)
//! keeps clicks, screenshots, boxes and snapshot refs right; timezone, locale, color scheme,
//! reduced motion, media, offline, geolocation and extra headers reach the page (the headers the
//! server); bad values are INVALID_ARGUMENT naming them; the emulation outlives a daemon
//! kill -9 and `reset` is the session's own viewport again.

use std::io::{Read as _, Write as _};
use std::path::Path;

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, assert_failure, on, png_pixels, ref_of, value};

/// Reports what the page sees of the emulation.
const REPORT: &str = r#"JSON.stringify({
  ua: navigator.userAgent, dpr: devicePixelRatio, width: innerWidth,
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  reduce: matchMedia('(prefers-reduced-motion: reduce)').matches,
  print: matchMedia('print').matches,
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
  lang: navigator.language, online: navigator.onLine,
  touch: navigator.maxTouchPoints })"#;

fn report(env: &Env, t: &[&str]) -> Value {
    let v = value(env, t, REPORT);
    serde_json::from_str(v.as_str().unwrap_or("null")).unwrap_or(Value::Null)
}

fn fixture() -> Fixture {
    let f = Fixture::start();
    f.html(
        "/emu.html",
        r#"<!doctype html><title>Emu</title><meta name="viewport" content="width=device-width">
<style>body { margin: 0 } #btn { position: absolute; left: 40px; top: 300px; width: 120px; height: 40px }</style>
<button id="btn" onclick="this.dataset.hits = (+(this.dataset.hits || 0) + 1)">Tap me</button>"#,
    );
    f
}

/// `browser emulate device "iPhone 13"` keeps every coordinate right, lasts through a daemon
/// kill -9, and `reset` is the session's viewport again.
#[test]
fn device_keeps_coordinates_right_and_outlives_the_daemon() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/emu.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let before = report(&env, &t);
    assert_eq!(before["dpr"], 1, "{before}");
    let base_width = before["width"].clone();

    let v = on(&env, &t, &["emulate", "device", "iphone 13"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["emulation"]["device"], "iPhone 13", "{v}");
    let r = report(&env, &t);
    assert_eq!(r["dpr"], 3, "{r}");
    assert_eq!(r["width"], 390, "{r}");
    assert!(r["ua"].as_str().unwrap_or("").contains("iPhone"), "{r}");
    assert!(r["touch"].as_i64().unwrap_or(0) > 0, "{r}");

    // A click lands on the button (its handler runs), by selector and by a snapshot's ref.
    let v = on(&env, &t, &["click", "#btn"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "btn.dataset.hits"), "1");
    let snap = on(&env, &t, &["snapshot"]);
    let r_btn = ref_of(&snap, "button", "Tap me");
    let v = on(&env, &t, &["click", &r_btn]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "btn.dataset.hits"), "2");
    // The box is in CSS pixels; the screenshot in device pixels.
    let b = on(&env, &t, &["box", "#btn"]);
    assert_eq!(b["data"]["value"]["width"], 120, "{b}");
    assert_eq!(b["data"]["value"]["x"], 40, "{b}");
    let out = tempfile::tempdir().expect("tempdir");
    let png = out.path().join("m.png").display().to_string();
    assert_eq!(on(&env, &t, &["screenshot", &png])["ok"], true);
    let (w, _, _) = png_pixels(Path::new(&png));
    assert_eq!(w, 390 * 3);

    // Kept with the tab: the next command after a kill -9 of the daemon still sees it.
    on(&env, &t, &["emulate", "timezone", "Asia/Tokyo"]);
    env.kill_daemon();
    let r = report(&env, &t);
    assert_eq!(
        (r["dpr"].clone(), r["tz"].clone()),
        (json!(3), json!("Asia/Tokyo")),
        "{r}"
    );
    let v = on(&env, &t, &["emulate", "show"]);
    assert_eq!(v["data"]["emulation"]["device"], "iPhone 13", "{v}");
    let v = on(&env, &t, &["click", "#btn"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(value(&env, &t, "btn.dataset.hits"), "3");

    // Reset: the session's own viewport and defaults.
    let v = on(&env, &t, &["emulate", "reset"]);
    assert_eq!(v["data"]["emulation"], json!({}), "{v}");
    let r = report(&env, &t);
    assert_eq!(r["dpr"], 1, "{r}");
    assert_eq!(r["width"], base_width, "{r}");
    assert_ne!(r["tz"], "Asia/Tokyo", "{r}");
    assert!(!r["ua"].as_str().unwrap_or("").contains("iPhone"), "{r}");

    let v = on(&env, &t, &["emulate", "device", "iPhone 13 Prox"]);
    assert_failure(&v, "INVALID_ARGUMENT", "iPhone 13 Pro");
    let v = on(&env, &t, &["emulate", "device", "--list"]);
    let names = v["data"]["devices"].as_array().cloned().unwrap_or_default();
    assert!(
        names.len() >= 30 && names.contains(&json!("Pixel 7")),
        "{v}"
    );
}

/// A tiny server of its own that answers one page with the X-Test header it was sent.
fn header_echo() -> (String, std::thread::JoinHandle<String>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://127.0.0.1:{}/h",
        l.local_addr().expect("addr").port()
    );
    let h = std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else {
            return String::new();
        };
        let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(10)));
        let mut buf = [0u8; 8192];
        let n = s.read(&mut buf).unwrap_or(0);
        let req = String::from_utf8_lossy(&buf[..n]).to_string();
        let got = req
            .lines()
            .find_map(|l| {
                l.strip_prefix("x-test: ")
                    .or_else(|| l.strip_prefix("X-Test: "))
            })
            .unwrap_or("none")
            .to_string();
        let body = format!("<title>{got}</title>");
        let _ = write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        got
    });
    (url, h)
}

/// Timezone, locale, color scheme, reduced motion, media, offline, geolocation, user agent and
/// headers reach the page; bad values are INVALID_ARGUMENT naming them.
#[test]
fn overrides_reach_the_page_and_bad_values_are_refused() {
    need_chromium!();
    let env = Env::new();
    let f = fixture();
    let sid = env.start(&["--open-url", &f.url("/emu.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    for args in [
        &["timezone", "Europe/Berlin"][..],
        &["locale", "de-DE"],
        &["color-scheme", "dark"],
        &["reduced-motion", "reduce"],
        &["media", "print"],
        &["user-agent", "AgentSmith/1.0"],
        &["geolocation", "52.52,13.40,10"],
    ] {
        let v = on(&env, &t, &[&["emulate"][..], args].concat());
        assert_eq!(v["ok"], true, "{args:?}: {v}");
    }
    let r = report(&env, &t);
    assert_eq!(r["tz"], "Europe/Berlin", "{r}");
    assert_eq!(r["lang"], "de-DE", "{r}");
    assert_eq!(
        (r["dark"].clone(), r["reduce"].clone(), r["print"].clone()),
        (json!(true), json!(true), json!(true)),
        "{r}"
    );
    assert_eq!(r["ua"], "AgentSmith/1.0", "{r}");
    let pos = value(
        &env,
        &t,
        "new Promise(r => navigator.geolocation.getCurrentPosition(p => r(p.coords.latitude + ',' + p.coords.longitude), e => r('error ' + e.message)))",
    );
    assert_eq!(pos, "52.52,13.4");
    let v = on(&env, &t, &["emulate"]);
    assert_eq!(v["data"]["emulation"]["timezone"], "Europe/Berlin", "{v}");
    assert_eq!(v["data"]["emulation"]["color_scheme"], "dark", "{v}");

    on(&env, &t, &["emulate", "offline", "on"]);
    assert_eq!(report(&env, &t)["online"], false);
    on(&env, &t, &["emulate", "offline", "off"]);
    assert_eq!(report(&env, &t)["online"], true);

    let (url, server) = header_echo();
    on(&env, &t, &["emulate", "headers", "X-Test:hello"]);
    let v = on(&env, &t, &["goto", &url]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(server.join().unwrap_or_default(), "hello");

    for (args, part) in [
        (&["color-scheme", "purple"][..], "purple"),
        (&["geolocation", "91,0"], "91,0"),
        (&["offline", "maybe"], "maybe"),
        (&["headers", "nocolon"], "nocolon"),
        (&["warp", "9"], "warp"),
        (&["timezone", "Mars/Olympus"], "Mars/Olympus"),
    ] {
        let v = on(&env, &t, &[&["emulate"][..], args].concat());
        assert_failure(&v, "INVALID_ARGUMENT", part);
    }
    // A refused value left what was in effect.
    assert_eq!(report(&env, &t)["tz"], "Europe/Berlin");
}
