//! Clicks by ref on buttons inside iframes that are drawn transformed: scaled, rotated, inside a
//! scaled container, zoomed, and a transformed iframe inside a plain one; in the page's process
//! and out of process (served from the other site under `--site-per-process`). The press must
//! land on the button, once, in its own frame: the action point is where the button is on
//! screen, not where it would be had its frame only been shifted. The same holds for what reads
//! boxes: `box`, `inspect-point`, element captures and `screenshot --annotate` labels.

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, differs, on, png_pixels, ref_of, value, value_until};

/// A frame's document: a button away from the frame's corner and centre (a point mapped by the
/// frame's offset alone misses it), over a full-frame decoy that reports stray presses. Both
/// report to the top page as `<p>:<what>`.
fn frame_page(p: &str) -> String {
    frame_page_at(p, 230, 120)
}

/// [`frame_page`] with its 110 x 40 button at `left`, `top`.
fn frame_page_at(p: &str, left: u32, top: u32) -> String {
    format!(
        r#"<!doctype html><html><head><title>{p}</title><style>
body {{ margin: 0; }}
#decoy {{ position: absolute; inset: 0; background: #eee; }}
#b {{ position: absolute; left: {left}px; top: {top}px; width: 110px; height: 40px; }}
</style></head><body>
<div id="decoy" onmousedown="top.postMessage('{p}:stray', '*')"></div>
<button id="b" onclick="top.postMessage('{p}:click', '*')">{p} button</button>
<script>addEventListener('load', () => top.postMessage('{p}:ready', '*'));</script>
</body></html>"#
    )
}

/// A plain frame whose document holds the transformed frame `inner` (at `src`).
fn holder_page(p: &str, src: &str, style: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>{p}</title><style>
body {{ margin: 0; }}
iframe {{ position: absolute; left: 40px; top: 30px; width: 400px; height: 200px;
  border: 4px solid #444; padding: 6px; {style} }}
</style></head><body>
<iframe id="inner" title="{p} inner" src="{src}"></iframe>
</body></html>"#
    )
}

/// The top page: each frame (`name`, src, style of the iframe, style of a wrapping div) placed
/// absolutely; every message of a frame is logged in `window.log`.
fn top_page(frames: &[(&str, String, &str, &str)]) -> String {
    let mut body = String::new();
    for (name, src, style, wrap) in frames {
        body.push_str(&format!(
            r#"<div class="wrap" style="{wrap}"><iframe id="{name}" title="{name} frame" src="{src}" style="{style}"></iframe></div>"#
        ));
    }
    format!(
        r#"<!doctype html><html><head><title>Transformed frames</title><style>
body {{ margin: 0; }}
.wrap {{ position: absolute; }}
iframe {{ display: block; width: 400px; height: 200px; border: 3px solid #444; padding: 5px; }}
</style>
<script>window.log = []; addEventListener('message', (e) => log.push(String(e.data)));</script>
</head><body>{body}</body></html>"#
    )
}

/// Waits until every frame of `names` said it is ready, takes a snapshot, and clicks each
/// frame's button by ref: exactly one click, in that frame, and no stray press anywhere; then
/// at the centre of the button's `box`, which `inspect-point` must name.
fn click_each(env: &Env, t: &[&str], names: &[&str]) {
    let ready = format!(
        "{} .every((n) => log.includes(n + ':ready'))",
        serde_json::to_string(names).unwrap_or_default()
    );
    assert_eq!(
        value_until(env, t, &ready, &Value::Bool(true)),
        Value::Bool(true),
        "frames never loaded: {}",
        value(env, t, "log")
    );
    let snap = on(env, t, &["snapshot"]);
    assert_eq!(snap["ok"], true, "{snap}");
    for name in names {
        let r = ref_of(&snap, "button", &format!("{name} button"));
        value(env, t, "window.log = []; true");
        let v = on(env, t, &["click", &r]);
        assert_eq!(v["ok"], true, "click {name} ({r}): {v}");
        let want = json!([format!("{name}:click")]);
        let got = value_until(env, t, "log", &want);
        assert_eq!(got, want, "click in {name} ({r}): {v}");
        // Nothing more arrives late (a second press, a stray one).
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(value(env, t, "log"), want, "after the click in {name}");

        // The button's box (as drawn: the rectangle around it on screen) and a point at its
        // centre agree: what is there is the button, and a click at the point clicks it.
        let v = on(env, t, &["box", &r]);
        let b = &v["data"]["value"];
        let f = |k: &str| b[k].as_f64().unwrap_or(-1.0);
        let (x, y) = (f("x") + f("width") / 2.0, f("y") + f("height") / 2.0);
        assert!(
            x > 0.0 && y > 0.0 && x < 1280.0 && y < 720.0,
            "box of {name}: {v}"
        );
        // Drawn without a turn, the box is the button's 110 x 40 as scaled on screen.
        let scale = match *name {
            "scaled" | "inshrunk" | "inzoomed" => Some(0.5),
            "inscaled" => Some(0.6),
            "zoomed" => Some(0.75),
            _ => None,
        };
        if let Some(k) = scale {
            assert!(
                (f("width") - 110.0 * k).abs() < 1.0 && (f("height") - 40.0 * k).abs() < 1.0,
                "box of {name} (scaled by {k}): {v}"
            );
        }
        let at = format!("{},{}", x.round(), y.round());
        let v = on(env, t, &["inspect-point", &at]);
        assert_eq!(
            v["data"]["element"]["name"],
            format!("{name} button"),
            "inspect-point {at} in {name}: {v}"
        );
        value(env, t, "window.log = []; true");
        let v = on(env, t, &["click", &at]);
        assert_eq!(v["ok"], true, "click {at} in {name}: {v}");
        let got = value_until(env, t, "log", &want);
        assert_eq!(got, want, "click {at} in {name}: {v}");
    }
}

/// The transforms each test puts on its frames: (name, iframe style, wrapping div style).
const LAYOUT: &[(&str, &str, &str)] = &[
    ("scaled", "transform: scale(0.5)", "left: 0; top: 0"),
    (
        "rotated",
        "transform: rotate(15deg)",
        "left: 470px; top: 40px",
    ),
    (
        "inscaled",
        "",
        "left: 20px; top: 270px; transform: scale(0.6) translate(30px, 10px); transform-origin: 0 0",
    ),
    (
        "skewed",
        "transform: skewX(-12deg) scale(0.8, 0.7); transform-origin: 10% 90%",
        "left: 320px; top: 300px",
    ),
    ("zoomed", "zoom: 0.75", "left: 780px; top: 280px"),
];

/// A frame of the top page: its name, address, iframe style and wrapper position.
type Framed = (&'static str, String, &'static str, &'static str);

/// The frames of [`LAYOUT`], each page served here and addressed by `url` (same site or cross
/// site), with the names of the frames to click.
fn laid_out(f: &Fixture, url: impl Fn(&str) -> String) -> (Vec<Framed>, Vec<&'static str>) {
    let mut frames = Vec::new();
    let mut names = Vec::new();
    for (name, style, wrap) in LAYOUT {
        f.html(&format!("/xf/{name}.html"), &frame_page(name));
        frames.push((*name, url(&format!("/xf/{name}.html")), *style, *wrap));
        names.push(*name);
    }
    (frames, names)
}

/// Serves the top page holding `frames`, opens it and clicks every frame of `names` once.
fn open_and_click_each(env: &Env, f: &Fixture, frames: &[Framed], names: &[&str]) {
    f.html("/xf/top.html", &top_page(frames));
    let sid = env.start(&["--open-url", &f.url("/xf/top.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    click_each(env, &t, names);
}

#[test]
fn same_process_transformed_frames_take_one_click() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let (mut frames, mut names) = laid_out(&f, |p| f.url(p));
    // A rotated and scaled frame inside a plain one: its owner is not in the top document.
    f.html("/xf/deep.html", &frame_page("deep"));
    f.html(
        "/xf/holder.html",
        &holder_page(
            "holder",
            &f.url("/xf/deep.html"),
            "transform: rotate(-10deg) scale(0.7)",
        ),
    );
    frames.push((
        "holder",
        f.url("/xf/holder.html"),
        "width: 480px; height: 260px",
        "left: 0; top: 470px",
    ));
    names.push("deep");
    open_and_click_each(&env, &f, &frames, &names);
}

#[test]
fn out_of_process_transformed_frames_take_one_click() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let (mut frames, mut names) = laid_out(&f, |p| f.cross_site_url(p));
    // An out-of-process frame inside a transformed frame of the top page's process, and a
    // transformed out-of-process frame inside a plain one of that process.
    f.html("/xf/far.html", &frame_page("far"));
    f.html(
        "/xf/tilted.html",
        &holder_page("tilted", &f.cross_site_url("/xf/far.html"), ""),
    );
    frames.push((
        "tilted",
        f.url("/xf/tilted.html"),
        "width: 480px; height: 260px; transform: rotate(8deg) scale(0.8)",
        "left: 0; top: 470px",
    ));
    names.push("far");
    f.html("/xf/deep.html", &frame_page("deep"));
    f.html(
        "/xf/holder.html",
        &holder_page(
            "holder",
            &f.cross_site_url("/xf/deep.html"),
            "transform: rotate(-10deg) scale(0.7)",
        ),
    );
    frames.push((
        "holder",
        f.url("/xf/holder.html"),
        "width: 480px; height: 260px",
        "left: 540px; top: 470px",
    ));
    names.push("deep");
    open_and_click_each(&env, &f, &frames, &names);
}

/// Out-of-process frames drawn scaled, turned, skewed and zoomed, and two holding a frame of
/// their own process: shrunk by a transform and by `zoom`, the held frame placed far from the
/// holder's corner (a view of it placed by offsets alone, not shrunk with the holder, misses it
/// wholly). Each button's `box` is where it is drawn (a point at its centre hits it), a capture
/// of it is its box, and `--annotate` outlines it there.
#[test]
fn boxes_labels_and_captures_in_transformed_frames_follow_the_drawing() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    let (mut frames, mut names) = laid_out(&f, |p| f.cross_site_url(p));
    let held = "left: 200px; top: 100px; width: 240px; height: 120px";
    for (holder, inner, style, wrap) in [
        (
            "shrunk",
            "inshrunk",
            "width: 480px; height: 260px; transform: scale(0.5); transform-origin: 0 0",
            "left: 0; top: 470px",
        ),
        (
            "zoomholder",
            "inzoomed",
            "width: 480px; height: 260px; zoom: 0.5",
            "left: 540px; top: 470px",
        ),
    ] {
        let page = format!("/xf/{inner}.html");
        f.html(&page, &frame_page_at(inner, 24, 24));
        let src = f.cross_site_url(&format!("/xf/{holder}.html"));
        f.html(
            &format!("/xf/{holder}.html"),
            &holder_page(holder, &f.cross_site_url(&page), held),
        );
        frames.push((holder, src, style, wrap));
        names.push(inner);
    }
    f.html("/xf/top.html", &top_page(&frames));
    let sid = env.start(&["--open-url", &f.url("/xf/top.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // `box` and `inspect-point` at its centre agree for every button.
    click_each(&env, &t, &names);

    let snap = on(&env, &t, &["snapshot"]);
    assert_eq!(snap["ok"], true, "{snap}");
    let out = tempfile::tempdir().expect("tempdir");
    let shot = |file: &str, extra: &[&str]| {
        let path = out.path().join(file).display().to_string();
        let v = on(
            &env,
            &t,
            &[&["screenshot", path.as_str()][..], extra].concat(),
        );
        assert_eq!(v["ok"], true, "screenshot {file} {extra:?}: {v}");
        png_pixels(std::path::Path::new(&path))
    };
    let plain = shot("plain.png", &[]);
    let ann = shot("ann.png", &["--annotate"]);
    for name in &names {
        let r = ref_of(&snap, "button", &format!("{name} button"));
        let v = on(&env, &t, &["box", &r]);
        let b = &v["data"]["value"];
        let g = |k: &str| b[k].as_f64().unwrap_or(-1.0);
        let (x, y, w, h) = (g("x"), g("y"), g("width"), g("height"));
        // The label's outline is the box: drawn on each of its four sides.
        let at = |px: f64, py: f64| differs(&ann, &plain, px as u32 - 1, py as u32 - 1, 3, 3);
        for (side, px, py) in [
            ("left", x + 1.0, y + h / 2.0),
            ("right", x + w - 1.0, y + h / 2.0),
            ("top", x + w / 2.0, y + 1.0),
            ("bottom", x + w / 2.0, y + h - 1.0),
        ] {
            assert!(
                at(px, py),
                "no label outline on the {side} of {name} ({r}) at {px:.0},{py:.0}: {v}"
            );
        }
        // A capture of the button is its box.
        let cut = shot(&format!("{name}.png"), &["--selector", &r]);
        assert!(
            (f64::from(cut.0) - w).abs() <= 1.5 && (f64::from(cut.1) - h).abs() <= 1.5,
            "capture of {name} ({r}) is {} x {}: {v}",
            cut.0,
            cut.1
        );
    }
}
