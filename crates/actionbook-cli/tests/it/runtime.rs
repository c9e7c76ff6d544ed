//! Nothing blocks the runtime (issue 11, item 6): closing two sessions at once (browser exits,
//! deleting profiles of 20,000 files, record syncs) leaves commands on a third answering. How long
//! they take meanwhile is printed, not asserted (no timing assertions in tests: under load the
//! noise reaches what a stall looked like, p99 0.45-2.8 s with the deletions on async workers).

use std::time::{Duration, Instant};

use crate::need_chromium;
use crate::support::{Env, on, site};

/// The `q` quantile of sorted samples.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

#[test]
fn two_closes_do_not_stall_a_title_loop() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let index = f.url("/index.html");
    let a = env.start(&["--open-url", &index]);
    let b = env.start(&["--open-url", &index]);
    let c = env.start(&["--open-url", &index]);
    // Sizeable profiles, so deleting one on an async worker would stall the loop visibly (a
    // fresh profile goes in tens of milliseconds).
    for sid in [&a, &b] {
        let bulk = env.home.join("auto-profiles").join(sid).join("bulk");
        for d in 0..40 {
            let sub = bulk.join(d.to_string());
            std::fs::create_dir_all(&sub).expect("bulk dir");
            for i in 0..500 {
                std::fs::write(sub.join(i.to_string()), b"x").expect("bulk file");
            }
        }
    }
    let t = ["--session", c.as_str(), "--tab", "t1"];
    let title = |env: &Env| {
        let at = Instant::now();
        let v = on(env, &t, &["title"]);
        assert_eq!(v["ok"], true, "{v}");
        at.elapsed()
    };
    // Warm up (daemon connection, the tab's session), then a baseline.
    for _ in 0..5 {
        title(&env);
    }
    let mut quiet: Vec<Duration> = (0..30).map(|_| title(&env)).collect();

    let mut during = Vec::new();
    let closes = std::thread::scope(|s| {
        let closing: Vec<_> = [&a, &b]
            .into_iter()
            .map(|sid| {
                let env = &env;
                s.spawn(move || {
                    let at = Instant::now();
                    let v = env.json(&["browser", "close", "--session", sid]);
                    (v, at.elapsed())
                })
            })
            .collect();
        while !closing.iter().all(|h| h.is_finished()) {
            during.push(title(&env));
        }
        // A few more while the last files go.
        for _ in 0..5 {
            during.push(title(&env));
        }
        closing
            .into_iter()
            .map(|h| h.join().expect("close thread"))
            .collect::<Vec<_>>()
    });
    for (v, _) in &closes {
        assert_eq!(v["ok"], true, "close: {v}");
    }
    for sid in [&a, &b] {
        assert!(
            !env.home.join("auto-profiles").join(sid).exists(),
            "{sid}'s profile was not removed"
        );
    }

    quiet.sort();
    let mut all = during.clone();
    all.extend_from_slice(&quiet);
    all.sort();
    during.sort();
    let median = quantile(&all, 0.5);
    let p99 = quantile(&all, 0.99);
    let worst_during = during.last().copied().unwrap_or_default();
    eprintln!(
        "title loop: {} calls ({} during the closes); quiet median {:?}, overall median {:?}, \
         p99 {:?}, worst during closes {:?}; closes took {:?}",
        all.len(),
        during.len(),
        quantile(&quiet, 0.5),
        median,
        p99,
        worst_during,
        closes.iter().map(|(_, d)| *d).collect::<Vec<_>>(),
    );
    // What stalls the runtime cannot be told from a loaded machine by time alone (a p99 bound
    // of 12x the median failed under two busy loops: 417 ms at a 22 ms median), and tests make
    // no timing assertions: the figures above are printed for a reader (with the deletions and
    // syncs on the async workers they were 15-30x the median, stalls of 0.4-2.8 s); what is
    // asserted above is that every title during the closes answered ok, both closes did and
    // both profiles are gone.
}
