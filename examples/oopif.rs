//! An element inside a cross-site (out-of-process) iframe, through the typed handle API: found in
//! a snapshot and clicked by its ref, by a role selector, and by a frame path (`#pay >> #go`);
//! eval in the frame's own document. The page is served on 127.0.0.1 and the iframe on
//! localhost, another site (an OOPIF under site isolation, Chromium's default).
//!
//! Run with `cargo run --example oopif`.

use actionbook::Home;
use actionbook::api::{ApiError, Browser, Tab};
use cdp_protocol::testing::FixtureServer;
use std::error::Error;

async fn pay(tab: &Tab) -> Result<(), ApiError> {
    tab.wait_condition("document.querySelector('#pay').contentWindow !== null")
        .await?;
    let snap = tab.snapshot().await?;
    println!("{}", snap.text.trim_end());
    let Some(button) = snap.find("button", "Pay now") else {
        println!("no Pay now button in the snapshot");
        return Ok(());
    };
    // The ref names the element in its frame's process: pass it back.
    tab.click(button).await?;
    // A role selector searches every frame too; a frame path names the iframe first.
    tab.locator(r#"role=button[name="Paid 1"]"#).click().await?;
    tab.locator("#pay >> #go").click().await?;
    println!(
        "button now says: {}",
        tab.locator("#pay >> #go").text().await?
    );
    let origin = tab.eval_in_frame("#pay", "location.origin").await?;
    println!("the frame's origin: {origin}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let server = FixtureServer::start().await;
    server.route(
        "/shop.html",
        "text/html",
        format!(
            r#"<!doctype html><html><head><title>Shop</title></head><body>
<h1>Checkout</h1>
<iframe id="pay" title="Payment" src="{}" width="400" height="120"></iframe>
</body></html>"#,
            server.cross_site_url("/pay.html")
        ),
    );
    server.route(
        "/pay.html",
        "text/html",
        r#"<!doctype html><html><body><script>let n = 0;</script>
<button id="go" onclick="this.textContent = 'Paid ' + (++n)">Pay now</button></body></html>"#,
    );
    let home = tempfile::tempdir()?;
    let browser = Browser::in_process(Home::at(home.path().join("actionbook")))?;
    let session = browser.start_headless(&server.url("/shop.html")).await?;
    let result = pay(&session.first_tab()).await;
    session.close().await?;
    Ok(result?)
}
