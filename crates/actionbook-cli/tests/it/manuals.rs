//! Action manuals through the real binary and daemon: `areas record` on a live page (OOPIF
//! included), `search` / `get` / `areas …` over the SQLite store, the remote API played by a local
//! HTTP server, a corrupt store, `setup` and `browser start` reading its config.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{Env, Fixture, Run, site};

/// Runs a prepared command.
fn run(mut c: Command) -> Run {
    let out = c.output().expect("run actionbook");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Evaluates `code` until it answers `want` (frames load asynchronously); the last answer.
fn eval_until(env: &Env, t: &[&str], code: &str, want: &Value) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let v = env.json(&[&["browser", "eval", code][..], t].concat());
        if &v["data"]["value"] == want || Instant::now() > until {
            return v["data"]["value"].clone();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_fresh_install_finds_the_bundled_demo_by_a_path_free_id() {
    let env = Env::new();
    let s = env.json(&["search", "login"]);
    assert_eq!(s["ok"], true, "{s}");
    let ids: Vec<&str> = s["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["area_id"].as_str())
        .collect();
    assert!(ids.contains(&"actionbook-demo:/index.html:login"), "{s}");
    assert!(
        ids.iter()
            .all(|id| !id.contains(env!("CARGO_MANIFEST_DIR"))),
        "{s}"
    );
    let g = env.json(&["get", "actionbook-demo:/index.html:login"]);
    assert_eq!(g["ok"], true, "{g}");
    assert!(
        g["data"]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("file://") && u.ends_with("/demo/index.html")),
        "{g}"
    );
    assert!(
        !g["data"]["elements"].as_array().is_none_or(Vec::is_empty),
        "{g}"
    );
    let m = env.json(&["manual", "actionbook-demo"]);
    assert_eq!(m["ok"], true, "{m}");
}

#[test]
fn record_then_search_and_get_selectors_that_match_once_in_every_frame() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let sid = env.start(&["--open-url", &f.url("/frames.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let same = "document.querySelector('#same').contentDocument";
    let ready = format!("!!{same}.querySelector('#oop') && {same}.readyState === 'complete'");
    assert_eq!(eval_until(&env, &t, &ready, &json!(true)), json!(true));
    // The page's frames are loaded; wait (bounded) until the engine sees into every one of them,
    // the out-of-process one included, rather than for a fixed time.
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let snap = env.json(&[&["browser", "snapshot", "--interactive"][..], &t].concat());
        let names = snap["data"]["nodes"].to_string();
        if [
            "Remote button",
            "Remote input",
            "Nested input",
            "Same button",
        ]
        .iter()
        .all(|n| names.contains(n))
        {
            break;
        }
        assert!(Instant::now() < until, "frames never all seen: {snap}");
        std::thread::sleep(Duration::from_millis(100));
    }

    let rec = env.json(&[&["areas", "record", "--name", "frames"][..], &t].concat());
    assert_eq!(rec["ok"], true, "{rec}");
    assert_eq!(rec["command"], "areas record");
    assert_eq!(rec["context"]["session_id"], sid.as_str());
    assert_eq!(rec["data"]["action"], "created");
    let id = rec["data"]["area_id"]
        .as_str()
        .expect("area id")
        .to_string();
    assert_eq!(id, "127.0.0.1:/frames.html:frames");

    // Found by a word of its title and by its domain; another domain filters it out.
    let s = env.json(&["search", "Frames"]);
    assert!(s.get("context").is_none(), "{s}");
    let ids: Vec<&str> = s["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["area_id"].as_str())
        .collect();
    assert_eq!(ids.first(), Some(&id.as_str()), "{s}");
    let s = env.json(&["search", "input", "-d", "127.0.0.1"]);
    assert!(s["data"]["items"].to_string().contains(&id), "{s}");
    let s = env.json(&["search", "input", "-d", "elsewhere.org"]);
    assert_eq!(s["data"]["items"], json!([]), "{s}");
    assert_eq!(s["meta"]["pagination"]["total"], 0, "{s}");

    let got = env.json(&["get", &id]);
    assert_eq!(got["ok"], true, "{got}");
    assert!(got.get("context").is_none());
    let elements = got["data"]["elements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let by_desc = |d: &str| -> Value {
        elements
            .iter()
            .find(|e| e["description"].as_str().is_some_and(|x| x.starts_with(d)))
            .cloned()
            .unwrap_or_else(|| panic!("no element {d:?} in {got}"))
    };
    for d in [
        "Top input",
        "Same button",
        "Nested input",
        "Remote button",
        "Remote input",
    ] {
        let e = by_desc(d);
        assert!(e["css"].is_string(), "{d}: {e}");
    }
    // Every selector `get` gives, CSS and XPath, the OOPIF's too, is found exactly once by
    // `query count` from the top document: inside an iframe it goes through it (`... >> ...`,
    // and the XPath on through the iframe's).
    let mut through = 0;
    for e in &elements {
        let in_frame = e["description"]
            .as_str()
            .is_some_and(|d| d.contains("(in frame") || d.contains("(in a frame)"));
        for key in ["css", "xpath"] {
            let Some(sel) = e[key].as_str() else {
                continue;
            };
            let n = env.json(&[&["browser", "query", "count", sel][..], &t].concat());
            assert_eq!(n["data"]["count"], 1, "{key} {sel}: {n}");
        }
        if in_frame {
            assert!(e["css"].as_str().is_some_and(|c| c.contains(" >> ")), "{e}");
            through += 1;
        }
    }
    assert!(through >= 4, "{got}");
    // The nested frame's input is reached through both iframes.
    let nested = by_desc("Nested input");
    assert_eq!(
        nested["css"].as_str().map(|c| c.matches(" >> ").count()),
        Some(2),
        "{nested}"
    );
    assert!(
        nested["xpath"]
            .as_str()
            .is_some_and(|x| x.matches("/html").count() == 3),
        "{nested}"
    );
    // A query through a frame names what it finds so it is found again; a host that is not an
    // iframe is a clear error, not a silent zero.
    let all = env.json(&[&["browser", "query", "all", "#same >> button"][..], &t].concat());
    assert_eq!(all["data"]["count"], 1, "{all}");
    let found = all["data"]["items"][0]["selector"].as_str().unwrap_or("");
    assert!(found.starts_with("#same >> "), "{all}");
    let again = env.json(&[&["browser", "query", "count", found][..], &t].concat());
    assert_eq!(again["data"]["count"], 1, "{again}");
    let bad = env.json(&[&["browser", "query", "count", "#top >> input"][..], &t].concat());
    assert_eq!(bad["ok"], false, "{bad}");
    assert_eq!(bad["error"]["code"], "INVALID_ARGUMENT", "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not an <iframe>")),
        "{bad}"
    );
    let clicked = env.json(
        &[
            &["browser", "click", "/html/body/iframe/html/body/button"][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(clicked["ok"], true, "{clicked}");
    assert_eq!(
        eval_until(&env, &t, &format!("{same}.defaultView.clicked"), &json!(1)),
        json!(1)
    );

    // The OOPIF's input, by its stored selector, is the one that receives the text.
    let remote = by_desc("Remote input");
    let css = remote["css"].as_str().unwrap_or_default();
    assert_eq!(
        remote["allow_methods"],
        json!(["fill", "type", "focus"]),
        "{remote}"
    );
    let filled = env.json(&[&["browser", "fill", css, "via-manual"][..], &t].concat());
    assert_eq!(filled["ok"], true, "{filled}");
    assert_eq!(
        eval_until(
            &env,
            &t,
            "window.lastMessage || ''",
            &json!("remote-input:via-manual")
        ),
        json!("remote-input:via-manual")
    );
    let clicked = env.json(
        &[
            &[
                "browser",
                "click",
                by_desc("Same button")["css"].as_str().unwrap_or(""),
            ][..],
            &t,
        ]
        .concat(),
    );
    assert_eq!(clicked["ok"], true, "{clicked}");
    assert_eq!(
        eval_until(&env, &t, &format!("{same}.defaultView.clicked"), &json!(2)),
        json!(2)
    );

    // Text form of get, exactly as spec 6.2 lays it out.
    let text = env.run(&["get", &id]).ok().stdout;
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(id.as_str()));
    assert_eq!(lines.next(), Some(f.url("/frames.html").as_str()));
    assert_eq!(lines.next(), Some(""));
    assert!(text.contains("\nmethods: fill, type, focus\n"), "{text}");

    // Recording the page again updates its area.
    let again = env.json(&[&["areas", "record", "--name", "frames"][..], &t].concat());
    assert_eq!(again["data"]["action"], "updated", "{again}");
    let list = env.json(&["areas", "list", "-d", "127.0.0.1"]);
    let n = list["data"]["areas"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["area_id"] == id.as_str())
        .count();
    assert_eq!(n, 1, "{list}");

    // A blank page cannot be recorded.
    env.json(&[&["browser", "goto", "about:blank"][..], &t].concat());
    let blank = env.json(&[&["areas", "record"][..], &t].concat());
    assert_eq!(blank["ok"], false, "{blank}");
    assert_eq!(blank["data"], Value::Null);
}

/// Writes an export document of `n` areas on `example.test` and returns its path.
fn areas_file(env: &Env, n: usize) -> std::path::PathBuf {
    let areas: Vec<Value> = (1..=n)
        .map(|i| {
            json!({
                "area_id": format!("example.test:/p{i}:default"),
                "title": format!("Checkout step {i}"),
                "summary": "checkout form",
                "url": format!("https://example.test/p{i}"),
                "description": format!("Checkout page {i}"),
                "elements": [{
                    "element_id": "pay", "type": "button", "description": "Pay button",
                    "css": format!("#pay-{i}"), "xpath": null, "allow_methods": ["click"]
                }],
                "recorded_at": "2026-12-01T00:00:00.000Z",
                "recorded_from": format!("https://example.test/p{i}")
            })
        })
        .collect();
    let doc = json!({"format": "actionbook-areas", "version": 1, "areas": areas});
    let path = env.home.with_file_name(format!("areas-{n}.json"));
    std::fs::write(&path, doc.to_string()).expect("write areas");
    path
}

#[test]
fn import_export_and_pagination_boundaries() {
    let env = Env::new();
    let file = areas_file(&env, 3);
    let imp = env.json(&["areas", "import", &file.display().to_string()]);
    assert_eq!(imp["ok"], true, "{imp}");
    assert_eq!(imp["data"]["created"], 3, "{imp}");
    assert!(imp.get("context").is_none());

    let page = |p: &str, s: &str| {
        env.json(&["search", "checkout", "-d", "example.test", "-p", p, "-s", s])
    };
    let first = page("1", "1");
    assert_eq!(first["data"]["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        first["meta"]["pagination"],
        json!({"page": 1, "page_size": 1, "total": 3, "has_more": true})
    );
    let last = page("3", "1");
    assert_eq!(last["data"]["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(last["meta"]["pagination"]["has_more"], false, "{last}");
    let past = page("4", "1");
    assert_eq!(past["ok"], true);
    assert_eq!(past["data"]["items"], json!([]));
    assert_eq!(past["meta"]["pagination"]["total"], 3);
    let all = page("1", "10");
    let ids: Vec<&str> = all["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["area_id"].as_str())
        .collect();
    assert_eq!(ids.len(), 3, "{all}");
    // Every page of size 1 together is the full list, in the same order.
    let paged: Vec<String> = (1..=3)
        .map(|p| page(&p.to_string(), "1")["data"]["items"][0]["area_id"].to_string())
        .collect();
    let ids_json: Vec<String> = ids.iter().map(|i| format!("\"{i}\"")).collect();
    assert_eq!(paged, ids_json);
    let bad = page("0", "1");
    assert_eq!(bad["error"]["code"], "INVALID_ARGUMENT", "{bad}");

    // Text: the spec's count line and numbered items.
    let text = env
        .run(&["search", "checkout", "-d", "example.test", "-s", "1"])
        .ok()
        .stdout;
    assert!(text.starts_with("1 result\n1. example.test:/p"), "{text}");

    // Export then import into a fresh home gives the same areas back.
    let exp = env
        .run(&[
            "areas",
            "export",
            "example.test:/p2:default",
            "example.test:/p1:default",
        ])
        .ok();
    let doc: Value = serde_json::from_str(&exp.stdout).expect("export is JSON");
    assert_eq!(doc["areas"].as_array().map(Vec::len), Some(2), "{doc}");
    let other = Env::new();
    let path = other.home.with_file_name("export.json");
    std::fs::write(&path, &exp.stdout).expect("write export");
    other.json(&["areas", "import", &path.display().to_string()]);
    let back = other
        .run(&[
            "areas",
            "export",
            "example.test:/p2:default",
            "example.test:/p1:default",
        ])
        .ok();
    assert_eq!(back.stdout, exp.stdout);

    let del = env.json(&["areas", "delete", "example.test:/p1:default"]);
    assert_eq!(del["ok"], true, "{del}");
    let gone = env.json(&["get", "example.test:/p1:default"]);
    assert_eq!(gone["error"]["code"], "ELEMENT_NOT_FOUND", "{gone}");
    assert_eq!(
        gone["error"]["details"]["area_id"],
        "example.test:/p1:default"
    );
    assert!(
        gone["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("search"))
    );
    let again = env.json(&["areas", "delete", "example.test:/p1:default"]);
    assert_eq!(again["error"]["code"], "ELEMENT_NOT_FOUND", "{again}");
}

#[test]
fn remote_api_is_merged_and_when_down_a_warning_keeps_the_local_answer() {
    let env = Env::new();
    let api = Fixture::start();
    api.route(
        "/api/search_actions",
        "application/json",
        &json!({"success": true, "data": {"items": [
            {"area_id": "remote.test:/login:default", "title": "Remote login", "summary": "from the API", "score": 0.5, "url": "https://remote.test/login"}
        ], "total": 1}})
        .to_string(),
        Duration::ZERO,
    );
    api.route(
        "/api/get_action_by_area_id",
        "application/json",
        &json!({"success": true, "data": {"area_id": "remote.test:/login:default", "url": "https://remote.test/login", "description": "Remote login page", "elements": [
            {"element_id": "user", "type": "input", "description": "User input", "css": "#user", "xpath": null, "allow_methods": ["fill"]}
        ]}})
        .to_string(),
        Duration::ZERO,
    );
    let base = api.url("");
    let base = base.trim_end_matches('/').to_string();
    let with_api = |args: &[&str], base: &str| {
        let mut c = env.command(args);
        c.env("ACTIONBOOK_API_URL", base)
            .env("ACTIONBOOK_API_TIMEOUT_MS", "1500");
        run(c).json()
    };
    let s = with_api(&["search", "login", "--json"], &base);
    assert_eq!(s["ok"], true, "{s}");
    let ids: Vec<&str> = s["data"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["area_id"].as_str())
        .collect();
    assert!(ids.contains(&"remote.test:/login:default"), "{s}");
    // The bundled demo login (local) is there too, and ranks first (its score is higher).
    assert!(ids.len() >= 2, "{s}");
    assert!(!ids[0].starts_with("remote.test"), "{s}");
    assert_eq!(s["meta"]["warnings"], json!([]), "{s}");
    let g = with_api(&["get", "remote.test:/login:default", "--json"], &base);
    assert_eq!(g["data"]["elements"][0]["css"], "#user", "{g}");

    // The same API, down: local results and one warning, never a bare failure.
    drop(api);
    let s = with_api(&["search", "login", "--json"], &base);
    assert_eq!(s["ok"], true, "{s}");
    assert!(
        !s["data"]["items"].to_string().contains("remote.test"),
        "{s}"
    );
    assert!(
        !s["data"]["items"].as_array().is_none_or(Vec::is_empty),
        "{s}"
    );
    let warnings = s["meta"]["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(warnings.len(), 1, "{s}");
    let mut c = env.command(&["search", "login"]);
    c.env("ACTIONBOOK_API_URL", &base);
    let text = run(c).ok().stdout;
    assert!(text.contains("\nwarning: "), "{text}");
}

#[test]
fn a_corrupt_store_is_a_clear_error_and_browser_commands_keep_working() {
    let env = Env::new();
    std::fs::create_dir_all(&env.home).expect("home");
    let db = env.home.join("manuals.db");
    std::fs::write(
        &db,
        b"this is not a database, just some bytes that are long enough.....",
    )
    .expect("write");
    let s = env.json(&["search", "login"]);
    assert_eq!(s["ok"], false, "{s}");
    assert_eq!(s["error"]["code"], "INTERNAL_ERROR", "{s}");
    let message = s["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&db.display().to_string()), "{s}");
    assert!(
        s["error"]["hint"].as_str().is_some_and(|h| !h.is_empty()),
        "{s}"
    );
    let text = env.run(&["get", "a.test:/x:default"]);
    assert_eq!(text.code, 1);
    assert!(
        text.stderr.starts_with("error INTERNAL_ERROR: "),
        "{text:?}"
    );
    let list = env.json(&["browser", "list-sessions"]);
    assert_eq!(list["ok"], true, "{list}");
    // Moved aside as the hint says, the store is rebuilt on the next use.
    std::fs::rename(&db, env.home.join("manuals.db.bad")).expect("move aside");
    let s = env.json(&["search", "login"]);
    assert_eq!(s["ok"], true, "{s}");
}

#[test]
fn setup_writes_the_config_that_browser_start_then_uses() {
    need_chromium!();
    let env = Env::new();
    let dir = env.home.with_file_name("setup-bin");
    std::fs::create_dir_all(&dir).expect("dir");
    let marker = dir.join("launched");
    let wrapper = dir.join("my-chromium");
    crate::support::write_script(
        &wrapper,
        &format!(
            "#!/bin/sh\ntouch {}\nexec /usr/bin/chromium --headless=new --no-sandbox --disable-gpu --disable-quic --disable-background-networking --disable-component-update --disable-sync \"$@\"\n",
            marker.display()
        ),
    );
    let w = wrapper.display().to_string();
    let mut c = env.command(&[
        "setup",
        "--non-interactive",
        "--browser",
        &w,
        "--api-key",
        "sk-test",
        "--json",
    ]);
    c.env_remove("ACTIONBOOK_BROWSER_EXECUTABLE_PATH");
    let r = run(c).json();
    assert_eq!(r["ok"], true, "{r}");
    assert!(r.get("context").is_none());
    assert_eq!(r["data"]["browser"]["executable_path"], w.as_str(), "{r}");
    assert_eq!(r["data"]["mode"], "0600", "{r}");
    assert!(!r.to_string().contains("sk-test"));
    let config = std::fs::read_to_string(env.home.join("config.toml")).expect("config");
    assert!(config.contains(&w), "{config}");
    use std::os::unix::fs::PermissionsExt as _;
    let mode =
        std::fs::metadata(env.home.join("config.toml")).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode.ok(), Some(0o600));

    let mut c = env.command(&["browser", "start", "--headless", "--json"]);
    c.env_remove("ACTIONBOOK_BROWSER_EXECUTABLE_PATH");
    let started = run(c).json();
    assert_eq!(started["ok"], true, "{started}");
    assert!(
        marker.exists(),
        "browser start did not launch the configured browser"
    );

    // --target conflicts with --browser, as the spec says.
    let bad = env.run(&["setup", "--target", "claude", "--browser", "x", "--json"]);
    assert_eq!(bad.code, 2, "{bad:?}");
}

#[test]
fn setup_target_claude_writes_a_guide_naming_every_command() {
    let env = Env::new();
    let user_home = env.home.with_file_name("user");
    std::fs::create_dir_all(&user_home).expect("home");
    let guide = |env: &Env| {
        let mut c = env.command(&["setup", "--target", "claude", "--json"]);
        c.env("HOME", &user_home);
        run(c).json()
    };
    let r = guide(&env);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["data"]["replaced"], false, "{r}");
    let path = user_home.join(".claude/skills/actionbook/SKILL.md");
    assert_eq!(r["data"]["path"], path.display().to_string().as_str());
    let text = std::fs::read_to_string(&path).expect("guide");
    assert!(text.starts_with("---\nname: actionbook\n"), "{text}");
    actionbook_agent::register();
    for c in actionbook::commands::extension::all_commands() {
        assert!(
            text.contains(&format!("actionbook {}", c.name)),
            "{} missing from the guide",
            c.name
        );
    }
    // The MCP entry for Claude Code starts this very binary's `mcp` server.
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_actionbook")).expect("binary");
    let config: serde_json::Value =
        serde_json::from_str(r["data"]["mcp"]["config"].as_str().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}: {r}"));
    let server = &config["mcpServers"]["actionbook"];
    assert_eq!(server["command"], exe.display().to_string().as_str(), "{r}");
    assert_eq!(server["args"], serde_json::json!(["mcp"]), "{r}");
    assert!(
        r["data"]["mcp"]["place"]
            .as_str()
            .is_some_and(|p| p.contains(".mcp.json"))
    );
    assert_eq!(guide(&env)["data"]["replaced"], true);
    // In text, the entry follows the guide line, in the agent's own format (Codex: TOML).
    let mut c = env.command(&["setup", "--target", "codex"]);
    c.env("HOME", &user_home);
    let out = run(c);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("\nmcp: add to ~/.codex/config.toml:\n[mcp_servers.actionbook]\n"),
        "{out:?}"
    );
    let unknown = env.json(&["setup", "--target", "emacs"]);
    assert_eq!(unknown["error"]["code"], "INVALID_ARGUMENT", "{unknown}");
}
