//! Scraping a table with the typed handle API: the rows in one `eval` decoded as Rust values,
//! and the same cells one by one through a locator's `nth` and `count`. Serves its own page.
//!
//! Run with `cargo run --example scrape_table`.

use actionbook::Home;
use actionbook::api::{ApiError, Browser, Tab};
use cdp_protocol::testing::FixtureServer;
use std::error::Error;

const PAGE: &str = r#"<!doctype html><html><head><title>Elements</title></head><body>
<table id="elements">
  <thead><tr><th>Symbol</th><th>Name</th><th>Number</th></tr></thead>
  <tbody>
    <tr><td>H</td><td>Hydrogen</td><td>1</td></tr>
    <tr><td>He</td><td>Helium</td><td>2</td></tr>
    <tr><td>Li</td><td>Lithium</td><td>3</td></tr>
  </tbody>
</table></body></html>"#;

async fn scrape(tab: &Tab) -> Result<(), ApiError> {
    // Every row at once, typed: (symbol, name, number).
    let rows: Vec<(String, String, u32)> = tab
        .eval_as(
            "[...document.querySelectorAll('#elements tbody tr')].map(tr => { \
               const c = [...tr.cells].map(td => td.textContent.trim()); \
               return [c[0], c[1], Number(c[2])]; })",
        )
        .await?;
    for (symbol, name, number) in &rows {
        println!("{number:>3} {symbol:<3} {name}");
    }
    // The same column through a locator: count, then each match by index.
    let names = tab.locator("#elements tbody td:nth-child(2)");
    let n = names.count().await?;
    let mut read = Vec::new();
    for i in 0..n as usize {
        read.push(names.nth(i).text().await?);
    }
    println!("names by locator: {}", read.join(", "));
    assert_eq!(read.len(), rows.len());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let server = FixtureServer::start().await;
    server.route("/table.html", "text/html", PAGE);
    let home = tempfile::tempdir()?;
    let browser = Browser::in_process(Home::at(home.path().join("actionbook")))?;
    let session = browser.start_headless(&server.url("/table.html")).await?;
    let result = scrape(&session.first_tab()).await;
    session.close().await?;
    Ok(result?)
}
