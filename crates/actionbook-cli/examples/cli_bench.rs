//! CLI latency against raw-CDP floors measured in the same run.
//!
//! ```sh
//! cargo build-cli && cargo build --release -p actionbook-cli --example cli_bench
//! target/release/examples/cli_bench            # or: ACTIONBOOK_BIN=/path/to/actionbook cli_bench
//! ```
//!
//! Reports medians of:
//! - `actionbook browser title` round trips (a whole CLI process each) vs one `Runtime.evaluate` on an
//!   open CDP connection;
//! - `actionbook browser click` round trips by ref, on that page and (with
//!   `ACTIONBOOK_BENCH_LARGE_PAGE=<url>`, e.g. large20k.html of `../shared/bench/gen_fixtures.py`) on a large one;
//! - cold start (nothing running: daemon start, Chromium launch, `--open-url` loaded and answered) vs
//!   launching Chromium, connecting and loading the same page directly.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use cdp_protocol::{Browser, LaunchOptions};
use common::{actionbook_bin, median, ms};
use serde_json::json;

const PAGE: &str = "<!doctype html><html><head><title>Bench</title></head><body><h1>Bench</h1><input aria-label=Name><button>Go</button></body></html>";

fn run(bin: &PathBuf, home: &std::path::Path, args: &[&str]) -> (Duration, String) {
    let t = Instant::now();
    let out = Command::new(bin)
        .args(args)
        .env("ACTIONBOOK_HOME", home)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", bin.display()));
    let took = t.elapsed();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `n` clicks by ref on the first button of the tab's current page (after one snapshot).
fn click_round_trips(bin: &PathBuf, home: &std::path::Path, n: usize) -> Vec<Duration> {
    let (_, snap) = run(
        bin,
        home,
        &[
            "browser",
            "snapshot",
            "--session",
            "s1",
            "--tab",
            "t1",
            "--json",
        ],
    );
    let snap: serde_json::Value = serde_json::from_str(&snap).expect("snapshot json");
    let button = snap["data"]["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["role"] == "button"))
        .and_then(|n| n["ref"].as_str())
        .map(|r| format!("@{r}"))
        .expect("a button ref");
    (0..n)
        .map(|_| {
            run(
                bin,
                home,
                &[
                    "browser",
                    "click",
                    &button,
                    "--session",
                    "s1",
                    "--tab",
                    "t1",
                ],
            )
            .0
        })
        .collect()
}

fn stop_daemon(home: &std::path::Path) {
    if let Ok(pid) = std::fs::read_to_string(home.join("daemon.pid")) {
        let _ = Command::new("kill").arg(pid.trim()).status();
        std::thread::sleep(Duration::from_millis(100));
    }
}

async fn floor_cold(url: &str) -> Duration {
    let t = Instant::now();
    let browser = Browser::launch(LaunchOptions::default().headless(true))
        .await
        .expect("launch chromium");
    let root = browser.connection().browser();
    let targets = root
        .call("Target.getTargets", json!({}))
        .await
        .expect("targets");
    let page_id = targets["targetInfos"]
        .as_array()
        .and_then(|a| a.iter().find(|t| t["type"] == "page"))
        .and_then(|t| t["targetId"].as_str())
        .expect("a page")
        .to_string();
    let page = root
        .attach_to_target(&cdp_protocol::TargetId::from(page_id.as_str()))
        .await
        .expect("attach");
    page.call("Page.enable", json!({})).await.expect("enable");
    let mut loaded = page.events(&["Page.loadEventFired"]);
    page.call("Page.navigate", json!({ "url": url }))
        .await
        .expect("navigate");
    let _ = tokio::time::timeout(Duration::from_secs(10), loaded.recv()).await;
    let took = t.elapsed();
    let _ = browser.close().await;
    took
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let bin = actionbook_bin();
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("bench.html");
    std::fs::write(&page, PAGE).expect("write page");
    let url = format!("file://{}", page.display());
    let rounds = 5;
    let title_rounds = 50;

    // Cold start.
    let mut cold = Vec::new();
    let mut floor = Vec::new();
    for i in 0..rounds {
        let home = dir.path().join(format!("home-cold-{i}"));
        let (t, _) = run(
            &bin,
            &home,
            &["browser", "start", "--headless", "--open-url", &url],
        );
        cold.push(t);
        run(&bin, &home, &["browser", "close", "--session", "s1"]);
        stop_daemon(&home);
        floor.push(floor_cold(&url).await);
    }

    // Title round trips on a warm session.
    let home = dir.path().join("home-warm");
    run(
        &bin,
        &home,
        &["browser", "start", "--headless", "--open-url", &url],
    );
    let mut title = Vec::new();
    for _ in 0..title_rounds {
        let (t, out) = run(
            &bin,
            &home,
            &["browser", "title", "--session", "s1", "--tab", "t1"],
        );
        assert!(out.contains("Bench"));
        title.push(t);
    }
    // Click round trips (a whole CLI process each) on the page's button, by ref.
    let click = click_round_trips(&bin, &home, title_rounds);
    // And on a large page (e.g. large20k.html of ../shared/bench/gen_fixtures.py), when given.
    let large = std::env::var("ACTIONBOOK_BENCH_LARGE_PAGE")
        .ok()
        .map(|large| {
            run(
                &bin,
                &home,
                &["browser", "goto", &large, "--session", "s1", "--tab", "t1"],
            );
            (large, click_round_trips(&bin, &home, 20))
        });
    run(&bin, &home, &["browser", "close", "--session", "s1"]);
    stop_daemon(&home);

    let browser = Browser::launch(LaunchOptions::default().headless(true))
        .await
        .expect("launch chromium");
    let root = browser.connection().browser();
    let created = root
        .call("Target.createTarget", json!({ "url": url }))
        .await
        .expect("create");
    let page = root
        .attach_to_target(&cdp_protocol::TargetId::from(
            created["targetId"].as_str().unwrap_or_default(),
        ))
        .await
        .expect("attach");
    let mut eval = Vec::new();
    for _ in 0..title_rounds {
        let t = Instant::now();
        page.call(
            "Runtime.evaluate",
            json!({ "expression": "document.title", "returnByValue": true }),
        )
        .await
        .expect("evaluate");
        eval.push(t.elapsed());
    }
    let _ = browser.close().await;

    let (title_m, eval_m, cold_m, floor_m) =
        (median(title), median(eval), median(cold), median(floor));
    println!("measurement                         median      floor       ratio");
    println!(
        "browser title round trip ({title_rounds:>2})       {:<11} {:<11} {:.1}x",
        ms(title_m),
        ms(eval_m),
        title_m.as_secs_f64() / eval_m.as_secs_f64().max(1e-9)
    );
    println!(
        "browser click round trip ({title_rounds:>2})       {:<11} (target <= 40 ms)",
        ms(median(click))
    );
    if let Some((page, click)) = large {
        println!(
            "browser click round trip, {page} ({:>2}) {:<11} (target <= 40 ms)",
            click.len(),
            ms(median(click))
        );
    }
    println!(
        "cold start --open-url ({rounds})           {:<11} {:<11} {:.2}x",
        ms(cold_m),
        ms(floor_m),
        cold_m.as_secs_f64() / floor_m.as_secs_f64().max(1e-9)
    );
}
