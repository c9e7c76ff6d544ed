//! Saved auth state on real Chromium: `browser storage-state save|load` and `browser start
//! --state`. A login page sets an httpOnly cookie and writes localStorage and sessionStorage, and
//! embeds an out-of-process frame (`localhost`) that writes its own localStorage; the state saved
//! there starts a new session (a new profile) logged in, with the frame's storage back. Files are
//! Playwright's `storageState` shape both ways, encrypted with ACTIONBOOK_STATE_KEY, and the
//! ways a file cannot be used are clear errors.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, Run, assert_failure, on};

const KEY_HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

fn fixture() -> Fixture {
    let f = Fixture::start();
    let widget = f.cross_site_url("/widget.html");
    let reader = f.cross_site_url("/reader.html");
    f.route_with(
        "/login.html",
        "200 OK",
        &[
            ("Set-Cookie", "sid=s3cret-42; HttpOnly; Path=/"),
            ("Set-Cookie", "theme=dark; Path=/"),
        ],
        "text/html; charset=utf-8",
        &format!(
            r#"<!doctype html><html><head><title>Login</title></head><body>
<script>localStorage.setItem('user', 'ada'); sessionStorage.setItem('draft', 'd1');</script>
<iframe id="w" src="{widget}"></iframe></body></html>"#
        ),
    );
    f.html(
        "/widget.html",
        r#"<!doctype html><title>Widget</title><script>localStorage.setItem('widget', 'w-' + location.host);</script>"#,
    );
    f.html(
        "/reader.html",
        r#"<!doctype html><title>Reader</title><p>reads nothing by itself</p>"#,
    );
    f.html(
        "/app.html",
        &format!(
            r#"<!doctype html><html><head><title>App</title></head><body>
<script>const u = localStorage.getItem('user'); document.title = u ? 'Welcome ' + u : 'Please log in';</script>
<iframe id="w" src="{reader}"></iframe></body></html>"#
        ),
    );
    f.html(
        "/plain.html",
        r#"<!doctype html><title>Plain</title><input id="box" aria-label="Box">"#,
    );
    f
}

/// Runs `browser <args>` with `--json`, with ACTIONBOOK_STATE_KEY set to `key` (or removed).
fn with_key(env: &Env, key: Option<&str>, args: &[&str]) -> Value {
    let mut c = env.command(&[&["browser"][..], args, &["--json"]].concat());
    match key {
        Some(k) => c.env("ACTIONBOOK_STATE_KEY", k),
        None => c.env_remove("ACTIONBOOK_STATE_KEY"),
    };
    let out = c.output().expect("run actionbook");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
    .json()
}

#[track_caller]
fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v}");
    &v["data"]
}

/// Logs in: a session on the login page, once its frame wrote its storage. Returns the session.
fn logged_in(env: &Env, f: &Fixture) -> String {
    let sid = env.start(&["--open-url", &f.url("/login.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let expected = format!("w-{}", host_of(&f.cross_site_url("/")));
    crate::support::eventually("the widget wrote its storage", || {
        let v = on(
            env,
            &t,
            &["local-storage", "get", "widget", "--frame", "#w"],
        );
        v["data"]["item"]["value"] == expected.as_str()
    });
    sid
}

fn host_of(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

fn origin_of(url: &str) -> String {
    format!("http://{}", host_of(url))
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0)
}

fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}

/// The origin entry of `origin` in a saved state.
fn origin_entry<'a>(state: &'a Value, origin: &str) -> &'a Value {
    state["origins"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["origin"] == origin)
        .unwrap_or_else(|| panic!("no origin {origin} in {state}"))
}

/// Asserts every field of Playwright's `storageState` is there with its type.
#[track_caller]
fn assert_playwright_shape(state: &Value) {
    assert!(
        state["cookies"].is_array() && state["origins"].is_array(),
        "{state}"
    );
    // Besides Playwright's two, only our extra (Playwright ignores it).
    for key in state.as_object().into_iter().flatten().map(|(k, _)| k) {
        assert!(
            ["cookies", "origins", "partitionedOrigins"].contains(&key.as_str()),
            "{key} in {state}"
        );
    }
    for c in state["cookies"].as_array().into_iter().flatten() {
        for field in ["name", "value", "domain", "path", "sameSite"] {
            assert!(c[field].is_string(), "{field} of {c}");
        }
        assert!(c["expires"].is_number(), "{c}");
        assert!(
            c["httpOnly"].is_boolean() && c["secure"].is_boolean(),
            "{c}"
        );
        assert!(
            ["Strict", "Lax", "None"].contains(&c["sameSite"].as_str().unwrap_or("")),
            "{c}"
        );
    }
    for o in state["origins"].as_array().into_iter().flatten() {
        assert!(o["origin"].is_string(), "{o}");
        for kv in o["localStorage"].as_array().expect("localStorage list") {
            assert!(kv["name"].is_string() && kv["value"].is_string(), "{kv}");
            assert_eq!(kv.as_object().map(|m| m.len()), Some(2), "{kv}");
        }
    }
}

#[test]
fn a_saved_state_starts_a_new_session_logged_in_with_its_frames_storage() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = logged_in(&env, &f);
    let file = env.home.with_file_name("auth.json");
    let path = file.display().to_string();
    let main = origin_of(&f.url("/"));
    let widget = origin_of(&f.cross_site_url("/"));

    let v = with_key(
        &env,
        None,
        &["storage-state", "save", &path, "--session", &sid],
    );
    let d = ok(&v);
    assert_eq!(v["command"], "browser storage-state save");
    assert_eq!(d["encrypted"], false);
    assert_eq!(d["not_kept"], json!(["indexedDB"]), "{v}");
    assert_eq!(v["meta"]["warnings"], json!([]), "{v}");
    assert_eq!(mode_of(&file), 0o600);

    let state = read_json(&file);
    assert_playwright_shape(&state);
    let sid_cookie = state["cookies"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == "sid")
        .unwrap_or_else(|| panic!("no sid cookie in {state}"));
    assert_eq!(sid_cookie["value"], "s3cret-42");
    assert_eq!(sid_cookie["httpOnly"], true);
    assert_eq!(sid_cookie["domain"], "127.0.0.1");
    assert_eq!(sid_cookie["expires"], -1.0);
    let m = origin_entry(&state, &main);
    assert_eq!(m["localStorage"], json!([{"name": "user", "value": "ada"}]));
    assert_eq!(
        m["sessionStorage"],
        json!([{"name": "draft", "value": "d1"}])
    );
    // The out-of-process frame's storage is the one the browser keeps for it embedded in the
    // login site (a page of its own has another, empty): kept apart, with where it was embedded.
    let w = state["partitionedOrigins"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["origin"] == widget.as_str())
        .unwrap_or_else(|| panic!("no partitioned {widget} in {state}"));
    assert_eq!(
        w["localStorage"],
        json!([{"name": "widget", "value": format!("w-{}", host_of(&widget))}])
    );
    assert_eq!(w["topLevelSite"], "http://127.0.0.1", "{w}");
    assert_eq!(w["topLevelOrigin"], main.as_str(), "{w}");
    assert!(
        !state["origins"].to_string().contains(&widget),
        "the frame's storage is not a page's of its own: {state}"
    );

    // The session shows the login origin no more: a save still has its localStorage (an origin
    // it showed), read without asking the site.
    ok(&on(
        &env,
        &["--session", &sid, "--tab", "t1"],
        &["goto", "about:blank"],
    ));
    let later = env.home.with_file_name("later.json");
    let v = with_key(
        &env,
        None,
        &[
            "storage-state",
            "save",
            &later.display().to_string(),
            "--session",
            &sid,
        ],
    );
    ok(&v);
    let again = read_json(&later);
    assert_eq!(
        origin_entry(&again, &main)["localStorage"],
        m["localStorage"]
    );
    // The scratch tab is gone.
    let tabs = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(ok(&tabs)["total_tabs"], 1, "{tabs}");
    ok(&env.json(&["browser", "close", "--session", &sid]));

    // A new session (its own new profile) from the file: logged in from its first page.
    let v = with_key(
        &env,
        None,
        &[
            "start",
            "--headless",
            "--state",
            &path,
            "--open-url",
            &f.url("/app.html"),
        ],
    );
    let sid2 = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(v["ok"], true, "{v}");
    assert_ne!(sid2, sid);
    let t = ["--session", sid2.as_str(), "--tab", "t1"];
    assert_eq!(v["data"]["tab"]["title"], "Welcome ada", "{v}");
    let c = on(&env, &["--session", &sid2], &["cookies", "get", "sid"]);
    assert_eq!(ok(&c)["item"]["value"], "s3cret-42");
    assert_eq!(ok(&c)["item"]["http_only"], true);
    // The httpOnly cookie went with the page's request (the site sees the login).
    let reqs = on(&env, &t, &["network", "requests"]);
    let doc = ok(&reqs)["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with("/app.html")))
        .cloned()
        .unwrap_or_else(|| panic!("no /app.html request in {reqs}"));
    let cookie_header = doc["request_headers"]["cookie"]
        .as_str()
        .unwrap_or_default();
    assert!(cookie_header.contains("sid=s3cret-42"), "{doc}");
    // The out-of-process frame's storage is back, and the tab's sessionStorage.
    let v = on(
        &env,
        &t,
        &["local-storage", "get", "widget", "--frame", "#w"],
    );
    assert_eq!(ok(&v)["item"]["value"], format!("w-{}", host_of(&widget)));
    let v = on(&env, &t, &["session-storage", "get", "draft"]);
    assert_eq!(ok(&v)["item"]["value"], "d1", "{v}");
    // The visits that wrote the storage are not in the tab's history.
    let back = on(&env, &t, &["eval", "history.length"]);
    assert_eq!(ok(&back)["value"], 1, "{back}");
}

#[test]
fn a_playwright_file_written_by_hand_loads_into_a_running_session() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let main = origin_of(&f.url("/"));
    let widget = origin_of(&f.cross_site_url("/"));
    let in_an_hour = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() + 3600)
        .unwrap_or(0);
    // As Playwright writes it (with a field of a newer Playwright we do not know).
    let file = env.home.with_file_name("pw.json");
    let pw = json!({
        "cookies": [
            {"name": "pw", "value": "from-playwright", "domain": "127.0.0.1", "path": "/",
             "expires": in_an_hour, "httpOnly": true, "secure": false, "sameSite": "Lax"},
            {"name": "old", "value": "x", "domain": "127.0.0.1", "path": "/",
             "expires": 1000, "httpOnly": false, "secure": false, "sameSite": "Lax"},
            {"name": "dom", "value": "y", "domain": ".example.test", "path": "/",
             "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Strict"}
        ],
        "origins": [
            {"origin": main, "localStorage": [{"name": "pwkey", "value": "pwval"}],
             "sessionStorage": [{"name": "tabkey", "value": "tabval"}], "indexedDB": []},
            {"origin": widget, "localStorage": [],
             "sessionStorage": [{"name": "lost", "value": "1"}]}
        ],
        // Ours: the storage of the widget frame embedded in the main site's pages.
        "partitionedOrigins": [
            {"origin": widget, "topLevelSite": "http://127.0.0.1", "topLevelOrigin": main,
             "localStorage": [{"name": "widget", "value": "from-the-file"}]}
        ]
    });
    std::fs::write(&file, pw.to_string()).expect("write the file");
    let sid = env.start(&["--open-url", &f.url("/plain.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = with_key(
        &env,
        Some(KEY_HEX),
        &[
            "storage-state",
            "load",
            &file.display().to_string(),
            "--session",
            &sid,
        ],
    );
    let d = ok(&v);
    assert_eq!(v["command"], "browser storage-state load");
    assert_eq!(d["encrypted"], false);
    assert_eq!(d["cookies"], 2, "{v}");
    assert_eq!(d["cookies_expired"], 1, "{v}");
    assert_eq!(d["local_storage_origins"], 2, "{v}");
    assert_eq!(d["session_storage_restored"], json!([main]), "{v}");
    assert_eq!(d["session_storage_skipped"], json!([widget]), "{v}");
    assert!(
        v["meta"]["warnings"].to_string().contains("sessionStorage"),
        "{v}"
    );

    // The open page sees the localStorage at once (it is the origin's), and its tab's
    // sessionStorage.
    let v = on(&env, &t, &["local-storage", "get", "pwkey"]);
    assert_eq!(ok(&v)["item"]["value"], "pwval");
    let v = on(&env, &t, &["session-storage", "get", "tabkey"]);
    assert_eq!(ok(&v)["item"]["value"], "tabval");
    let v = on(&env, &["--session", &sid], &["cookies", "list"]);
    let items = ok(&v)["items"].as_array().cloned().unwrap_or_default();
    let pw_cookie = items.iter().find(|c| c["name"] == "pw").cloned();
    let pw_cookie = pw_cookie.unwrap_or_else(|| panic!("no pw cookie in {v}"));
    assert_eq!(pw_cookie["http_only"], true);
    assert_eq!(
        pw_cookie["domain"], "127.0.0.1",
        "host-only stays host-only"
    );
    assert_eq!(pw_cookie["expires"], in_an_hour);
    let dom = items.iter().find(|c| c["name"] == "dom").cloned();
    assert_eq!(
        dom.map(|c| c["domain"].clone()),
        Some(json!(".example.test")),
        "{v}"
    );
    assert!(!items.iter().any(|c| c["name"] == "old"), "{v}");
    // The scratch tab that wrote the storage is gone; the page was not reloaded.
    let tabs = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(ok(&tabs)["total_tabs"], 1, "{tabs}");

    // The frame embedded in the main site's page finds the storage it had there.
    ok(&on(&env, &t, &["goto", &f.url("/app.html")]));
    let v = on(
        &env,
        &t,
        &["local-storage", "get", "widget", "--frame", "#w"],
    );
    assert_eq!(ok(&v)["item"]["value"], "from-the-file", "{v}");
    ok(&on(&env, &t, &["goto", &f.url("/plain.html")]));

    // `browser state <selector>` is still an element's state.
    let v = on(&env, &t, &["state", "#box"]);
    assert_eq!(v["command"], "browser state", "{v}");
    ok(&v);

    // And a save of this session is Playwright's shape again, with what was loaded.
    let out = env.home.with_file_name("back.json");
    ok(&with_key(
        &env,
        None,
        &[
            "storage-state",
            "save",
            &out.display().to_string(),
            "--session",
            &sid,
        ],
    ));
    let state = read_json(&out);
    assert_playwright_shape(&state);
    assert_eq!(
        origin_entry(&state, &main)["localStorage"],
        json!([{"name": "pwkey", "value": "pwval"}])
    );
}

#[test]
fn encrypted_state_round_trips_and_unusable_files_and_keys_are_clear_errors() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = logged_in(&env, &f);
    let file = env.home.with_file_name("auth.state");
    let path = file.display().to_string();

    let v = with_key(
        &env,
        Some(KEY_HEX),
        &["storage-state", "save", &path, "--session", &sid],
    );
    assert_eq!(ok(&v)["encrypted"], true, "{v}");
    assert_eq!(mode_of(&file), 0o600);
    let bytes = std::fs::read(&file).unwrap_or_default();
    assert!(bytes.starts_with(b"ACTIONBOOK-STATE-AES256GCM-1\n"));
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("s3cret") && !text.contains("ada"), "{text}");

    // A bad key: INVALID_ARGUMENT naming the variable, never showing the value.
    let bad_key = "not-a-real-key-value";
    let v = with_key(
        &env,
        Some(bad_key),
        &["storage-state", "save", &path, "--session", &sid],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "ACTIONBOOK_STATE_KEY");
    assert!(!v.to_string().contains(bad_key), "{v}");
    // The file was left as it was.
    assert_eq!(std::fs::read(&file).unwrap_or_default(), bytes);

    // No key, another key, a cut file.
    let v = with_key(
        &env,
        None,
        &["storage-state", "load", &path, "--session", &sid],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "encrypted");
    let other = "ff".repeat(32);
    let v = with_key(
        &env,
        Some(&other),
        &["storage-state", "load", &path, "--session", &sid],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "does not decrypt");
    let cut = env.home.with_file_name("cut.state");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    let v = with_key(
        &env,
        Some(KEY_HEX),
        &[
            "storage-state",
            "load",
            &cut.display().to_string(),
            "--session",
            &sid,
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "does not decrypt");
    let short = env.home.with_file_name("short.state");
    std::fs::write(&short, &bytes[..40]).expect("write");
    let v = with_key(
        &env,
        Some(KEY_HEX),
        &[
            "storage-state",
            "load",
            &short.display().to_string(),
            "--session",
            &sid,
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "cut short");
    let broken = env.home.with_file_name("broken.json");
    std::fs::write(&broken, br#"{"cookies": [{"name": "a""#).expect("write");
    let v = with_key(
        &env,
        None,
        &[
            "storage-state",
            "load",
            &broken.display().to_string(),
            "--session",
            &sid,
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "not a storage-state JSON file");
    let v = with_key(
        &env,
        None,
        &[
            "storage-state",
            "load",
            "/nonexistent/x.json",
            "--session",
            &sid,
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "/nonexistent/x.json");
    ok(&env.json(&["browser", "close", "--session", &sid]));

    // start --state with a file it cannot open starts nothing.
    let v = with_key(&env, None, &["start", "--headless", "--state", &path]);
    assert_failure(&v, "INVALID_ARGUMENT", "encrypted");
    let sessions = env.json(&["browser", "list-sessions"]);
    assert_eq!(ok(&sessions)["total_sessions"], 0, "{sessions}");

    // With the key (base64 of the same 32 bytes this time), logged in.
    let b64 = {
        use base64::Engine as _;
        let raw: Vec<u8> = (0..32)
            .map(|i| u8::from_str_radix(&KEY_HEX[i * 2..i * 2 + 2], 16).unwrap_or(0))
            .collect();
        base64::engine::general_purpose::STANDARD.encode(raw)
    };
    let v = with_key(
        &env,
        Some(&b64),
        &[
            "start",
            "--headless",
            "--storage-state",
            &path,
            "--open-url",
            &f.url("/app.html"),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["data"]["tab"]["title"], "Welcome ada", "{v}");
    let sid2 = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let c = on(&env, &["--session", &sid2], &["cookies", "get", "sid"]);
    assert_eq!(ok(&c)["item"]["value"], "s3cret-42");
    // --state is for a new session.
    let v = with_key(
        &env,
        Some(KEY_HEX),
        &[
            "start",
            "--headless",
            "--set-session-id",
            &sid2,
            "--state",
            &path,
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "storage-state load");
}

#[test]
fn start_state_behind_a_cdp_endpoint_leaves_the_page_there_alone() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let main = origin_of(&f.url("/"));
    let (_owner, endpoint, _target) =
        crate::support::start_with_endpoint(&env, &f.url("/plain.html"));
    let file = env.home.with_file_name("state.json");
    let state = json!({
        "cookies": [{"name": "k", "value": "v", "domain": "127.0.0.1", "path": "/",
            "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
        "origins": [{"origin": main, "localStorage": [{"name": "lk", "value": "lv"}],
            "sessionStorage": [{"name": "sk", "value": "sv"}]}]
    });
    std::fs::write(&file, state.to_string()).expect("write the file");
    let v = with_key(
        &env,
        None,
        &[
            "start",
            "--cdp-endpoint",
            &endpoint,
            // The page that is there, in the browser's default context.
            "--attach-existing",
            "--state",
            &file.display().to_string(),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    // The page that was there is still there (not navigated to write the storage).
    assert_eq!(v["data"]["tab"]["url"], f.url("/plain.html"), "{v}");
    assert!(
        v["meta"]["warnings"].to_string().contains("sessionStorage"),
        "{v}"
    );
    let sid = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let v = on(&env, &t, &["local-storage", "get", "lk"]);
    assert_eq!(ok(&v)["item"]["value"], "lv", "{v}");
    let v = on(&env, &["--session", &sid], &["cookies", "get", "k"]);
    assert_eq!(ok(&v)["item"]["http_only"], true, "{v}");
    let tabs = env.json(&["browser", "list-tabs", "--session", &sid]);
    assert_eq!(ok(&tabs)["total_tabs"], 1, "{tabs}");
}
