//! Snapshot diffs in a loop with the typed handle API: act, then ask only what changed since the
//! previous snapshot (added, removed and changed lines, the new nodes' refs), until the page
//! settles. Uses the bundled demo page.
//!
//! Run with `cargo run --example snapshot_diff`.

use actionbook::Home;
use actionbook::api::{ApiError, Browser, Tab};
use std::error::Error;

async fn watch(tab: &Tab) -> Result<(), ApiError> {
    let first = tab.snapshot().await?;
    println!("{} ref'd nodes to start with", first.nodes.len());
    for name in ["Ada", "Grace", "Barbara"] {
        tab.locator("#name").fill(name).await?;
        tab.locator("//button[text()='Greet']").click().await?;
        let diff = tab.snapshot_diff().await?;
        match &diff.diff {
            Some(d) => println!(
                "after greeting {name}: revision {:?}, +{} -{} ~{}",
                diff.revision, d.added, d.removed, d.changed
            ),
            None => println!("after greeting {name}: a full snapshot"),
        }
        println!("{}", diff.text.trim_end());
    }
    // Nothing done: nothing changed.
    let idle = tab.snapshot_diff().await?;
    println!("unchanged when idle: {}", idle.unchanged());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let page = format!(
        "file://{}/crates/manuals/demo/index.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let home = tempfile::tempdir()?;
    let browser = Browser::in_process(Home::at(home.path().join("actionbook")))?;
    let session = browser.start_headless(&page).await?;
    let result = watch(&session.first_tab()).await;
    session.close().await?;
    Ok(result?)
}
