//! The typed handle API (`actionbook::api`) on a real Chromium: a login flow by locators, typed
//! eval, snapshot refs passed back, an element of an out-of-process iframe by locator and by ref,
//! `nth`, errors that keep their envelope code, a dropped future that leaves the tab usable (the
//! command still runs to its end), and the daemon backend sharing a session with the CLI.

use std::time::Duration;

use actionbook::api::{ApiError, Browser, ElementState, Start};
use actionbook::{ClientEnv, Home};
use envelope::ErrorCode;

use crate::need_chromium;
use crate::support::{Env, Fixture, site};

const LOGIN: &str = r#"<!doctype html><html><head><title>Login</title></head><body>
<form onsubmit="event.preventDefault(); login()">
  <label for="user">User</label><input id="user">
  <label for="pass">Password</label><input id="pass" type="password">
  <button type="submit">Sign in</button>
</form>
<p id="who"></p>
<table id="t"><tr><td class="c">a</td><td class="c">b</td><td class="c">c</td></tr></table>
<script>
  window.clicks = 0;
  function login() {
    const u = document.getElementById('user').value, p = document.getElementById('pass').value;
    document.getElementById('who').textContent = p === 'secret' ? 'Welcome ' + u : 'Denied';
    window.session = {user: u, ok: p === 'secret', roles: ['admin', 'dev']};
  }
</script>
</body></html>"#;

/// A runtime for one test's async body.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Handles over an engine in this process on the test's home, launching its Chromium wrapper.
fn in_process(env: &Env) -> Browser {
    let browser = Browser::in_process(Home::at(&env.home)).expect("engine");
    browser.with_env(ClientEnv {
        browser_executable: Some(env.wrapper().to_path_buf()),
        browser_headless: Some(true),
        ..ClientEnv::default()
    })
}

fn start(url: &str) -> Start {
    Start {
        headless: Some(true),
        open_url: Some(url.to_string()),
        ..Start::default()
    }
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct LoggedIn {
    user: String,
    ok: bool,
    roles: Vec<String>,
}

#[test]
fn login_flow_by_locators_with_typed_eval_and_typed_errors() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    f.html("/login.html", LOGIN);
    runtime().block_on(async {
        let browser = in_process(&env);
        let session = browser
            .start(start(&f.url("/login.html")))
            .await
            .expect("start");
        let tab = session.first_tab();
        assert_eq!(tab.title().await.expect("title"), "Login");
        tab.locator("#user").fill("grace").await.expect("fill user");
        tab.locator("#pass")
            .fill("secret")
            .await
            .expect("fill pass");
        tab.locator(r#"role=button[name="Sign in"]"#)
            .click()
            .await
            .expect("click by role");
        assert_eq!(
            tab.locator("#who").text().await.expect("text"),
            "Welcome grace"
        );
        // eval into a Rust type, and a type the value does not fit.
        let s: LoggedIn = tab.eval_as("window.session").await.expect("eval_as");
        assert_eq!(
            s,
            LoggedIn {
                user: "grace".into(),
                ok: true,
                roles: vec!["admin".into(), "dev".into()],
            }
        );
        let wrong = tab.eval_as::<u32>("window.session").await;
        assert!(matches!(wrong, Err(ApiError::Decode { .. })), "{wrong:?}");
        // nth over `query nth`, and count.
        let cells = tab.locator("td.c");
        assert_eq!(cells.count().await.expect("count"), 3);
        assert_eq!(cells.nth(1).text().await.expect("nth text"), "b");
        assert_eq!(cells.first().text().await.expect("first"), "a");
        let past = cells.nth(5).text().await;
        assert_eq!(
            past.as_ref().err().and_then(ApiError::code),
            Some(ErrorCode::IndexOutOfRange),
            "{past:?}"
        );
        // A missing element: the envelope's code, message and retryable kept.
        let err = tab
            .locator("#no-such-element")
            .timeout(Duration::from_millis(500))
            .click()
            .await
            .expect_err("nothing to click");
        assert_eq!(err.code(), Some(ErrorCode::ElementNotFound), "{err}");
        match &err {
            ApiError::Command {
                message, command, ..
            } => {
                assert!(message.contains("#no-such-element"), "{message}");
                assert_eq!(command.as_str(), "browser click");
            }
            other => panic!("not a command error: {other:?}"),
        }
        // The state of an element, a wait, and storage.
        let state = tab.locator("#user").state().await.expect("state");
        assert!(state.visible && state.editable, "{state:?}");
        tab.locator("#who")
            .wait_for(ElementState::Visible)
            .await
            .expect("wait visible");
        tab.local_storage().set("k", "v1").await.expect("set");
        assert_eq!(
            tab.local_storage().get("k").await.expect("get"),
            Some("v1".to_string())
        );
        let shot = tab.screenshot().await.expect("screenshot");
        assert!(shot.starts_with(b"\x89PNG"), "{} bytes", shot.len());
        session.close().await.expect("close");
        // A closed session keeps its code too.
        let gone = tab.title().await.expect_err("closed");
        assert_eq!(gone.code(), Some(ErrorCode::SessionNotFound), "{gone}");
    });
}

#[test]
fn snapshot_refs_go_back_to_clicks_and_reach_an_out_of_process_iframe() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    f.html(
        "/host.html",
        &format!(
            r#"<!doctype html><html><head><title>Host</title></head><body>
<button onclick="document.title = 'top clicked'">Top button</button>
<iframe id="remote" title="Remote" src="{}" width="400" height="200"></iframe>
</body></html>"#,
            f.cross_site_url("/remote.html")
        ),
    );
    f.html(
        "/remote.html",
        r#"<!doctype html><html><head><title>Remote</title></head><body>
<script>window.n = 0;</script>
<button id="rb" onclick="this.textContent = 'Remote ' + (++n)">Remote press</button>
</body></html>"#,
    );
    runtime().block_on(async {
        let browser = in_process(&env);
        let session = browser
            .start(start(&f.url("/host.html")))
            .await
            .expect("start");
        let tab = session.first_tab();
        tab.wait_condition("document.querySelector('iframe').contentWindow !== null")
            .await
            .expect("iframe");
        let snap = tab.snapshot().await.expect("snapshot");
        assert!(snap.text.contains("Top button"), "{}", snap.text);
        let top = snap.find("button", "Top button").expect("top button node");
        tab.click(top).await.expect("click by ref");
        assert_eq!(tab.title().await.expect("title"), "top clicked");
        // The remote frame's button: its ref from the snapshot, passed back.
        let remote = snap
            .find("button", "Remote press")
            .unwrap_or_else(|| panic!("no remote button in the snapshot: {:?}", snap.nodes));
        tab.locator(&remote.r#ref)
            .click()
            .await
            .expect("click remote by ref");
        let in_frame = |code: &'static str| tab.eval_in_frame("#remote", code);
        assert_eq!(
            in_frame("document.getElementById('rb').textContent")
                .await
                .expect("eval"),
            serde_json::json!("Remote 1")
        );
        // By locator: a role selector and a frame path find it in its process too.
        tab.locator(r#"role=button[name="Remote 1"]"#)
            .click()
            .await
            .expect("click remote by role");
        tab.locator("#remote >> #rb")
            .click()
            .await
            .expect("click by frame path");
        assert_eq!(
            tab.locator("#remote >> #rb").text().await.expect("text"),
            "Remote 3"
        );
        let origin: String = tab
            .locator(&remote.r#ref)
            .eval_as("location.origin")
            .await
            .expect("eval on element");
        assert_eq!(origin, f.cross_site_url("/").trim_end_matches('/'));
        session.close().await.expect("close");
    });
}

#[test]
fn a_dropped_call_still_runs_to_its_end_and_the_tab_stays_usable() {
    need_chromium!();
    let env = Env::new();
    let f = Fixture::start();
    // The button appears when another tab says so (a BroadcastChannel): a click waiting for it
    // cannot finish before the test arms it, whatever the machine's load.
    f.html(
        "/late.html",
        r#"<!doctype html><html><head><title>Late</title></head><body>
<script>
  window.clicks = 0;
  new BroadcastChannel('arm').onmessage = () => {
    const b = document.createElement('button');
    b.id = 'late'; b.textContent = 'Late'; b.onclick = () => window.clicks++;
    document.body.appendChild(b);
  };
</script></body></html>"#,
    );
    f.html("/other.html", "<!doctype html><title>Other</title>");
    runtime().block_on(async {
        let browser = in_process(&env);
        let session = browser
            .start(start(&f.url("/late.html")))
            .await
            .expect("start");
        let tab = session.first_tab();
        let other = session
            .new_tab(&f.url("/other.html"))
            .await
            .expect("new tab");
        let late = tab.locator("#late").timeout(Duration::from_secs(20));
        let click = late.click();
        let dropped = tokio::time::timeout(Duration::from_millis(300), click).await;
        assert!(
            dropped.is_err(),
            "the click finished before the button existed: {dropped:?}"
        );
        // Arm from the other tab (its own queue), then the first tab's next calls.
        other
            .eval("new BroadcastChannel('arm').postMessage(1); 1")
            .await
            .expect("arm");
        // The dropped click went on to click the button once it appeared, and the tab answers.
        tab.wait_condition("window.clicks === 1")
            .await
            .expect("the dropped click ran to its end");
        assert_eq!(tab.title().await.expect("title"), "Late");
        tab.locator("#late").click().await.expect("a later click");
        assert_eq!(
            tab.eval_as::<u32>("window.clicks").await.expect("clicks"),
            2
        );
        session.close().await.expect("close");
    });
}

#[test]
fn the_daemon_backend_shares_a_session_with_the_cli() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    // No daemon yet: a clear error, and none is started behind the caller's back.
    let rt = runtime();
    let browser = Browser::daemon(Home::at(&env.home));
    let err = rt
        .block_on(browser.sessions())
        .expect_err("no daemon serves the home");
    assert!(err.to_string().contains("no daemon serves"), "{err}");
    assert!(env.live_daemon_pid().is_none(), "a daemon was started");
    // The CLI starts a session (and the daemon); the API attaches to it.
    let sid = env.start(&["--open-url", &f.url("/index.html")]);
    rt.block_on(async {
        let session = browser.attach(sid.as_str()).await.expect("attach");
        let tab = session.first_tab();
        assert_eq!(tab.title().await.expect("title"), "Fixture Home");
        tab.locator("#name").fill("from rust").await.expect("fill");
        tab.locator("#submit").click().await.expect("click");
        let missing = browser
            .attach("no-such-session")
            .await
            .expect_err("missing");
        assert_eq!(
            missing.code(),
            Some(ErrorCode::SessionNotFound),
            "{missing}"
        );
    });
    // What the API did, the CLI sees.
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "clicked", "{v}");
    let v = env.json(&[
        "browser",
        "value",
        "#name",
        "--session",
        &sid,
        "--tab",
        "t1",
    ]);
    assert_eq!(v["data"]["value"], "from rust", "{v}");
}

#[test]
fn the_daemon_backend_starts_the_given_binary_when_none_serves() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let daemon =
        actionbook::api::Daemon::start_with(Home::at(&env.home), env!("CARGO_BIN_EXE_actionbook"));
    let browser = Browser::over(daemon).with_env(ClientEnv {
        browser_executable: Some(env.wrapper().to_path_buf()),
        ..ClientEnv::default()
    });
    let rt = runtime();
    let sid = rt.block_on(async {
        assert!(browser.sessions().await.expect("sessions").is_empty());
        let session = browser
            .start(start(&f.url("/index.html")))
            .await
            .expect("start");
        session.id().to_string()
    });
    assert!(env.live_daemon_pid().is_some(), "no daemon serves the home");
    // The CLI sees the session the program started through its daemon.
    let v = env.json(&["browser", "title", "--session", &sid, "--tab", "t1"]);
    assert_eq!(v["data"]["value"], "Fixture Home", "{v}");
}
