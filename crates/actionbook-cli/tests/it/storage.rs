//! `browser cookies *` (session level) and `browser local-storage | session-storage *` (tab level)
//! on real Chromium: round trips the page itself sees, delete across paths, refused cookies, the
//! isolation of two origins' storage, and pages without storage.

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, Fixture};

fn run_json(env: &Env, args: &[&str], t: &[&str]) -> Value {
    env.json(&[&["browser"][..], args, t].concat())
}

#[track_caller]
fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v}");
    &v["data"]
}

fn text(env: &Env, args: &[&str], t: &[&str]) -> String {
    let r = env.run(&[&["browser"][..], args, t].concat());
    assert_eq!(r.code, 0, "{r:?}");
    r.stdout
}

fn fixture() -> Fixture {
    let f = Fixture::start();
    f.html(
        "/s/index.html",
        "<!doctype html><html><head><title>Store</title></head><body>store</body></html>",
    );
    f
}

#[test]
fn cookies_round_trip_delete_across_paths_and_refusals() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/s/index.html")]);
    let s = ["--session", sid.as_str()];

    assert_eq!(
        text(&env, &["cookies", "list"], &s),
        format!("[{sid}]\n0 cookies\n")
    );
    assert_eq!(
        text(&env, &["cookies", "set", "foo", "secret-value-42"], &s),
        format!("[{sid}]\nok browser cookies set\n")
    );
    let v = run_json(&env, &["cookies", "set", "foo2", "baz"], &s);
    assert_eq!(v["command"], "browser cookies set");
    assert_eq!(v["context"], serde_json::json!({"session_id": sid}));
    assert_eq!(
        ok(&v),
        &serde_json::json!({"action": "set", "affected": 1, "domain": "127.0.0.1"})
    );
    // The page sees them: they are real cookies of its host.
    let v = run_json(
        &env,
        &["eval", "document.cookie"],
        &[&s[..], &["--tab", "t1"]].concat(),
    );
    let jar = ok(&v)["value"].as_str().unwrap_or("").to_string();
    assert!(
        jar.contains("foo=secret-value-42") && jar.contains("foo2=baz"),
        "{jar}"
    );

    let v = run_json(&env, &["cookies", "get", "foo"], &s);
    let item = &ok(&v)["item"];
    assert_eq!(item["value"], "secret-value-42");
    assert_eq!(item["domain"], "127.0.0.1");
    assert_eq!(item["path"], "/");
    assert_eq!(item["expires"], Value::Null);
    assert_eq!(item["http_only"], false);
    assert_eq!(
        text(&env, &["cookies", "get", "foo"], &s),
        format!("[{sid}]\nfoo=secret-value-42\ndomain: 127.0.0.1\npath: /\n")
    );
    let v = run_json(&env, &["cookies", "get", "nope"], &s);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("nope"),
        "{v}"
    );

    // Flags and an expiry (within Chromium's 400-day cap).
    let expires = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() + 30 * 86_400)
        .unwrap_or(0);
    let expires_arg = expires.to_string();
    let v = run_json(
        &env,
        &[
            "cookies",
            "set",
            "flags",
            "1",
            "--domain",
            "localhost",
            "--path",
            "/a",
            "--http-only",
            "--secure",
            "--same-site",
            "None",
            "--expires",
            &expires_arg,
        ],
        &s,
    );
    // Chromium keeps a cookie for the dotless `localhost` host-only.
    assert_eq!(ok(&v)["domain"], "localhost", "{v}");
    let v = run_json(&env, &["cookies", "list", "--domain", "localhost"], &s);
    let items = ok(&v)["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 1, "{v}");
    assert_eq!(items[0]["http_only"], true);
    assert_eq!(items[0]["secure"], true);
    assert_eq!(items[0]["same_site"], "None");
    assert_eq!(items[0]["expires"], expires);

    // delete removes the name on every path.
    for path in ["/a", "/b"] {
        ok(&run_json(
            &env,
            &[
                "cookies",
                "set",
                "dup",
                "x",
                "--domain",
                "localhost",
                "--path",
                path,
            ],
            &s,
        ));
    }
    let v = run_json(&env, &["cookies", "delete", "dup"], &s);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"action": "delete", "affected": 2})
    );
    let v = run_json(&env, &["cookies", "list"], &s);
    assert!(!v.to_string().contains("\"dup\""), "{v}");

    // Refused cookies are errors, never a silent ok.
    let v = run_json(
        &env,
        &["cookies", "set", "lax", "1", "--same-site", "None"],
        &s,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = run_json(&env, &["cookies", "set", "bad;name", "1"], &s);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    // What the browser would refuse as "Invalid cookie fields" is named before it is asked.
    for (name, value, says) in [
        ("ok", "x y;z", "a cookie value cannot hold ';'"),
        ("ok", "tab\there", "a cookie value cannot hold '\\t'"),
        ("a=b", "1", "a cookie name cannot hold '='"),
    ] {
        let v = run_json(&env, &["cookies", "set", name, value], &s);
        assert_eq!(
            (
                v["error"]["code"].as_str(),
                v["error"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(says))
            ),
            (Some("INVALID_ARGUMENT"), true),
            "{v}"
        );
    }
    let v = run_json(
        &env,
        &["cookies", "set", "old", "1", "--expires", "1000"],
        &s,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    // A domain that is no host name is refused before the browser stores it escaped (it kept
    // `bad%20domain` and answered that nothing was stored).
    let v = run_json(
        &env,
        &["cookies", "set", "sp", "1", "--domain", "bad domain"],
        &s,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        !run_json(&env, &["cookies", "list"], &s)
            .to_string()
            .contains("bad%20")
    );

    // A dotted public suffix cannot scope a cookie: Chromium stored one for the host alone,
    // without an error; refused, and that stray cookie removed.
    let v = run_json(
        &env,
        &["cookies", "set", "wide", "1", "--domain", ".com"],
        &s,
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("public suffix") && m.contains("--domain com")),
        "{v}"
    );
    assert!(
        !run_json(&env, &["cookies", "list"], &s)
            .to_string()
            .contains("\"wide\""),
        "the stray host-only cookie is still there"
    );
    // A dotted domain that can scope one is kept dotted, even beside the host's own cookie of
    // the same name and value.
    for domain in ["example.com", ".example.com"] {
        let v = run_json(
            &env,
            &["cookies", "set", "twin", "1", "--domain", domain],
            &s,
        );
        assert_eq!(ok(&v)["domain"], domain, "{v}");
    }
    ok(&run_json(&env, &["cookies", "delete", "twin"], &s));
    // A lifetime past Chromium's 400 days is shortened: said, not silent.
    let v = run_json(
        &env,
        &[
            "cookies",
            "set",
            "long",
            "1",
            "--domain",
            "localhost",
            "--expires",
            "4102444800",
        ],
        &s,
    );
    ok(&v);
    assert!(
        v["meta"]["warnings"].to_string().contains("400 days"),
        "{v}"
    );
    ok(&run_json(&env, &["cookies", "delete", "long"], &s));

    // clear --domain, then clear.
    let v = run_json(&env, &["cookies", "clear", "--domain", "localhost"], &s);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"action": "clear", "affected": 1, "domain": "localhost"})
    );
    let v = run_json(&env, &["cookies", "clear"], &s);
    assert_eq!(ok(&v)["affected"], 2, "{v}");
    assert_eq!(
        text(&env, &["cookies", "list"], &s),
        format!("[{sid}]\n0 cookies\n")
    );

    // Values are the agent's data, not the daemon's log.
    let log = std::fs::read_to_string(env.home.join("daemon.log")).unwrap_or_default();
    assert!(!log.contains("secret-value-42"), "{log}");
}

#[test]
fn web_storage_round_trips_per_origin_and_pages_without_storage() {
    need_chromium!();
    let f = fixture();
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/s/index.html")]);
    ok(&env.json(&[
        "browser",
        "new-tab",
        &f.cross_site_url("/s/index.html"),
        "--session",
        &sid,
    ]));
    ok(&env.json(&["browser", "new-tab", "about:blank", "--session", &sid]));
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    let t2 = ["--session", sid.as_str(), "--tab", "t2"];
    let t3 = ["--session", sid.as_str(), "--tab", "t3"];
    let url = f.url("/s/index.html");

    assert_eq!(
        text(&env, &["local-storage", "set", "theme", "dark"], &t1),
        format!("[{sid} t1] {url}\nok browser local-storage set\n")
    );
    let v = run_json(&env, &["local-storage", "set", "k2", "v2"], &t1);
    assert_eq!(v["command"], "browser local-storage set");
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "local", "action": "set", "affected": 1})
    );
    assert_eq!(
        text(&env, &["local-storage", "get", "theme"], &t1),
        format!("[{sid} t1] {url}\ntheme=dark\n")
    );
    let v = run_json(&env, &["local-storage", "get", "theme"], &t1);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "local", "item": {"key": "theme", "value": "dark"}})
    );
    let v = run_json(&env, &["local-storage", "get", "missing"], &t1);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "local", "item": null})
    );
    assert_eq!(
        v["meta"]["warnings"],
        serde_json::json!(["no key \"missing\" in the page's local-storage"]),
        "{v}"
    );
    let v = run_json(&env, &["eval", "localStorage.getItem('theme')"], &t1);
    assert_eq!(ok(&v)["value"], "dark");
    let listed = text(&env, &["local-storage", "list"], &t1);
    assert!(
        listed.starts_with(&format!("[{sid} t1] {url}\n2 keys\n")),
        "{listed}"
    );
    assert!(
        listed.contains("theme=dark\n") && listed.contains("k2=v2\n"),
        "{listed}"
    );

    // The other origin's storage is its own.
    let v = run_json(&env, &["local-storage", "list"], &t2);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "local", "items": []})
    );
    ok(&run_json(
        &env,
        &["local-storage", "set", "theme", "light"],
        &t2,
    ));
    let v = run_json(&env, &["local-storage", "get", "theme"], &t1);
    assert_eq!(ok(&v)["item"]["value"], "dark");

    // Session storage, delete, clear <key>, clear.
    ok(&run_json(&env, &["session-storage", "set", "s1", "a"], &t1));
    ok(&run_json(&env, &["session-storage", "set", "s2", "b"], &t1));
    let v = run_json(&env, &["session-storage", "list"], &t1);
    assert_eq!(ok(&v)["storage"], "session");
    assert_eq!(ok(&v)["items"].as_array().map(Vec::len), Some(2), "{v}");
    let v = run_json(&env, &["session-storage", "delete", "s1"], &t1);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "session", "action": "delete", "affected": 1})
    );
    let v = run_json(&env, &["session-storage", "delete", "s1"], &t1);
    assert_eq!(ok(&v)["affected"], 0);
    let v = run_json(&env, &["local-storage", "clear", "k2"], &t1);
    assert_eq!(
        ok(&v),
        &serde_json::json!({"storage": "local", "action": "clear", "affected": 1})
    );
    let v = run_json(&env, &["local-storage", "get", "theme"], &t1);
    assert_eq!(
        ok(&v)["item"]["value"],
        "dark",
        "clear <key> removes only that key"
    );
    let v = run_json(&env, &["session-storage", "clear"], &t1);
    assert_eq!(ok(&v)["affected"], 1);
    let v = run_json(&env, &["eval", "sessionStorage.length"], &t1);
    assert_eq!(ok(&v)["value"], 0);

    // about:blank has an opaque origin: no storage.
    let v = run_json(&env, &["local-storage", "list"], &t3);
    assert_eq!(v["error"]["code"], "UNSUPPORTED_OPERATION", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("localStorage"),
        "{v}"
    );
    let v = run_json(&env, &["session-storage", "set", "k", "v"], &t3);
    assert_eq!(v["error"]["code"], "UNSUPPORTED_OPERATION", "{v}");

    // A file:// page's origin reads as 'null', yet Chromium gives it storage.
    let page = env.home.join("local.html");
    std::fs::write(&page, "<title>Local</title><p>local</p>").expect("write page");
    let url = format!("file://{}", page.display());
    ok(&run_json(&env, &["goto", &url], &t3));
    ok(&run_json(
        &env,
        &["local-storage", "set", "k", "file-v"],
        &t3,
    ));
    let v = run_json(&env, &["eval", "localStorage.getItem('k')"], &t3);
    assert_eq!(ok(&v)["value"], "file-v");
    let v = run_json(&env, &["local-storage", "get", "k"], &t3);
    assert_eq!(ok(&v)["item"]["value"], "file-v", "{v}");
}

#[test]
fn web_storage_of_a_frame_by_ref_css_or_xpath_same_origin_and_out_of_process() {
    need_chromium!();
    let f = fixture();
    // The out-of-process frame stores a key of its own as it loads: reading it back through
    // `--frame` shows the command reached that frame's storage, not the top document's.
    f.html(
        "/s/inner.html",
        "<!doctype html><title>Inner</title><body>inner<script>\
         localStorage.setItem('preset', 'from-frame');</script></body>",
    );
    f.html(
        "/s/same.html",
        "<!doctype html><title>Same</title><body>same</body>",
    );
    f.html(
        "/s/framed.html",
        &format!(
            "<!doctype html><title>Framed</title><body><h1>framed</h1>\
             <iframe id=same title=same src=\"/s/same.html\"></iframe>\
             <iframe id=cross title=cross src=\"{}\"></iframe></body>",
            f.cross_site_url("/s/inner.html")
        ),
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/s/framed.html")]);
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    // The frame's script has run once its key is visible through the frame.
    let mut seen = Value::Null;
    for _ in 0..100 {
        seen = run_json(
            &env,
            &["local-storage", "get", "preset", "--frame", "#cross"],
            &t1,
        );
        if seen["data"]["item"]["value"] == "from-frame" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        ok(&seen),
        &serde_json::json!({"storage": "local", "item": {"key": "preset", "value": "from-frame"}})
    );
    // Not the top document's storage.
    let v = run_json(&env, &["local-storage", "get", "preset"], &t1);
    assert_eq!(ok(&v)["item"], Value::Null, "{v}");

    // By ref, from a snapshot: set, list and clear in the out-of-process frame.
    let snap = run_json(&env, &["snapshot"], &t1);
    let cross = crate::support::ref_of(&snap, "iframe", "cross");
    ok(&run_json(
        &env,
        &["local-storage", "set", "k", "oopif", "--frame", &cross],
        &t1,
    ));
    let v = run_json(&env, &["local-storage", "list", "--frame", &cross], &t1);
    let items = ok(&v)["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 2, "{v}");
    let v = run_json(&env, &["local-storage", "get", "k"], &t1);
    assert_eq!(ok(&v)["item"], Value::Null, "{v}");
    let v = run_json(&env, &["local-storage", "clear", "--frame", &cross], &t1);
    assert_eq!(ok(&v)["affected"], 2, "{v}");

    // A same-origin frame (by XPath) shares the top document's storage.
    ok(&run_json(
        &env,
        &[
            "session-storage",
            "set",
            "shared",
            "yes",
            "--frame",
            "//iframe[@id='same']",
        ],
        &t1,
    ));
    let v = run_json(&env, &["session-storage", "get", "shared"], &t1);
    assert_eq!(ok(&v)["item"]["value"], "yes", "{v}");

    // Not a frame element, and no such element.
    let v = run_json(&env, &["local-storage", "list", "--frame", "h1"], &t1);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("<h1>"),
        "{v}"
    );
    let v = run_json(&env, &["local-storage", "list", "--frame", "#nope"], &t1);
    assert_eq!(v["error"]["code"], "ELEMENT_NOT_FOUND", "{v}");
}
