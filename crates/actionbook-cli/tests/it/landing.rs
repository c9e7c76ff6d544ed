//! Clicks that are known to land: the regression of a click that answered `ok` while no mouse
//! event reached any document (an out-of-process iframe and a same-origin iframe nested two deep;
//! the target scrolled to where the OOPIF had been drawn), run under CPU load.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture, ref_of};

/// Burns `n` cores until dropped (the race showed on a loaded machine).
struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn new(n: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x: u64 = 1;
                    while !stop.load(Ordering::Relaxed) {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// The page of the bug: an OOPIF at the top, below the fold a same-origin iframe holding another
/// one with the button. Every document records the mouse events that reach it.
fn landing_site() -> Fixture {
    let f = Fixture::start();
    let remote = f.cross_site_url("/remote.html");
    f.html(
        "/landing.html",
        &format!(
            r#"<!doctype html><html><head><title>Landing</title><style>body {{ margin: 0 }}</style></head><body>
<script>
  window.log = []; window.remote = [];
  for (const t of ['mousedown', 'mouseup', 'click']) document.addEventListener(t, e => log.push(t + ':' + (e.target.id || e.target.localName)), true);
  addEventListener('message', e => remote.push(e.data));
</script>
<iframe id="oop" title="Remote frame" src="{remote}" style="display: block; width: 600px; height: 500px; border: 0"></iframe>
<div style="height: 1500px">spacer</div>
<iframe id="outer" title="Outer frame" src="/outer.html" style="display: block; width: 600px; height: 300px; border: 0"></iframe>
<div style="height: 1500px">spacer</div>
</body></html>"#
        ),
    );
    f.html(
        "/outer.html",
        r#"<!doctype html><html><head><title>Outer</title></head><body style="margin: 0">
<iframe id="inner" title="Inner frame" src="/inner.html" style="display: block; width: 500px; height: 200px; border: 0"></iframe>
</body></html>"#,
    );
    f.html(
        "/inner.html",
        r#"<!doctype html><html><head><title>Inner</title></head><body style="margin: 0">
<script>window.log = []; for (const t of ['mousedown', 'mouseup', 'click']) document.addEventListener(t, e => log.push(t + ':' + (e.target.id || e.target.localName)), true);</script>
<button id="deep" style="width: 200px; height: 50px" onclick="window.clicks = (window.clicks || 0) + 1">Deep button</button>
</body></html>"#,
    );
    f.html(
        "/remote.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body style="margin: 0">
<script>for (const t of ['mousedown', 'mouseup', 'click']) document.addEventListener(t, e => parent.postMessage(t + ':' + (e.target.id || e.target.localName), '*'), true);</script>
<button id="remote-btn" style="width: 200px; height: 50px">Remote button</button>
</body></html>"#,
    );
    f
}

fn eval(env: &Env, t: &[&str], code: &str) -> Value {
    let v = env.json(&[&["browser", "eval", code][..], t].concat());
    assert_eq!(v["ok"], true, "eval {code}: {v}");
    v["data"]["value"].clone()
}

const INNER: &str =
    "document.querySelector('#outer').contentDocument.querySelector('#inner').contentWindow";

#[test]
fn a_click_after_a_scroll_lands_on_the_nested_frame_not_the_oopif_drawn_there_before() {
    need_chromium!();
    let env = Env::new();
    let f = landing_site();
    let sid = env.start(&["--open-url", &f.url("/landing.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    // (The OOPIF's button is waited for by the first click itself.)
    let ready = format!(
        "(() => {{ try {{ return {INNER}.document.readyState === 'complete'; }} catch (e) {{ return false; }} }})()"
    );
    let until = Instant::now() + Duration::from_secs(15);
    while eval(&env, &t, &ready) != true && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _load = Load::new(2);
    let rounds = 8;
    for round in 1..=rounds {
        eval(
            &env,
            &t,
            "scrollTo(0, 0); remote.length = 0; log.length = 0; 1",
        );
        eval(&env, &t, &format!("{INNER}.log.length = 0; 1"));
        // The OOPIF's button (at the top, in view) by CSS.
        let v = env.json(&[&["browser", "click", "#remote-btn"][..], &t].concat());
        assert_eq!(v["ok"], true, "round {round}: {v}");
        let snap = env.json(&[&["browser", "snapshot"][..], &t].concat());
        let deep = ref_of(&snap, "button", "Deep button");
        // The nested frame's button by ref: scrolled into view, to where the OOPIF was drawn.
        let v = env.json(&[&["browser", "click", &deep][..], &t].concat());
        assert_eq!(v["ok"], true, "round {round}: {v}");
        let inner_log = eval(&env, &t, &format!("{INNER}.log.join(' ')"));
        assert_eq!(
            inner_log, "mousedown:deep mouseup:deep click:deep",
            "round {round}: the nested frame saw"
        );
        assert_eq!(
            eval(&env, &t, &format!("{INNER}.clicks")),
            round,
            "round {round}"
        );
        // The OOPIF got its own click and nothing of the second one.
        let until = Instant::now() + Duration::from_secs(5);
        let mut remote = eval(&env, &t, "remote.join(' ')");
        while remote != "mousedown:remote-btn mouseup:remote-btn click:remote-btn"
            && Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(50));
            remote = eval(&env, &t, "remote.join(' ')");
        }
        assert_eq!(
            remote, "mousedown:remote-btn mouseup:remote-btn click:remote-btn",
            "round {round}: the OOPIF saw"
        );
        assert_eq!(
            eval(&env, &t, "log.join(' ')"),
            "",
            "round {round}: the top document saw"
        );
    }
}
