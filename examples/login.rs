//! A login flow on the typed handle API (`actionbook::api`): fill two fields by locator, press
//! the button by its role and name, wait for the greeting, read the signed-in state back as a
//! Rust value. Serves its own page on 127.0.0.1 and runs the engine in this process.
//!
//! Run with `cargo run --example login`.

use actionbook::Home;
use actionbook::api::{ApiError, Browser, Session};
use cdp_protocol::testing::FixtureServer;
use std::error::Error;

const PAGE: &str = r#"<!doctype html><html><head><title>Sign in</title></head><body>
<form onsubmit="event.preventDefault(); signIn()">
  <label for="user">User</label><input id="user" autocomplete="off">
  <label for="pass">Password</label><input id="pass" type="password">
  <button type="submit">Sign in</button>
</form>
<p id="greeting" hidden></p>
<script>
  function signIn() {
    const user = document.getElementById('user').value;
    const ok = document.getElementById('pass').value === 'hunter2';
    const p = document.getElementById('greeting');
    p.textContent = ok ? 'Welcome, ' + user : 'Wrong password';
    p.hidden = false;
    window.account = ok ? [user, ['reader', 'writer']] : null;
  }
</script></body></html>"#;

async fn sign_in(session: &Session) -> Result<(), ApiError> {
    let tab = session.first_tab();
    tab.locator("#user").fill("grace").await?;
    tab.locator("#pass").fill("hunter2").await?;
    tab.locator(r#"role=button[name="Sign in"]"#)
        .click()
        .await?;
    tab.locator("#greeting")
        .wait_for(actionbook::api::ElementState::Visible)
        .await?;
    println!("greeting: {}", tab.locator("#greeting").text().await?);
    // eval into a Rust type: a JSON value that does not fit is an ApiError::Decode, not a panic.
    let (user, roles): (String, Vec<String>) = tab.eval_as("window.account").await?;
    println!("signed in as {user} with roles {roles:?}");
    // A missing element keeps the envelope's code (ELEMENT_NOT_FOUND), message and hint.
    let missing = tab
        .locator("#logout")
        .timeout(std::time::Duration::from_millis(300))
        .click()
        .await;
    if let Err(e) = missing {
        println!("as expected: {e} (code {:?})", e.code());
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let server = FixtureServer::start().await;
    server.route("/login.html", "text/html", PAGE);
    let home = tempfile::tempdir()?;
    let browser = Browser::in_process(Home::at(home.path().join("actionbook")))?;
    let session = browser.start_headless(&server.url("/login.html")).await?;
    let result = sign_in(&session).await;
    session.close().await?;
    Ok(result?)
}
