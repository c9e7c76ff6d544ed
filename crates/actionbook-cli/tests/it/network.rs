// Over 1,000 lines on purpose: the network commands' end-to-end tests beside the fixture and
// helpers they share; each test is an independent scenario.
//! `browser network requests | request | har start|stop | route | unroute | routes` on real
//! Chromium: requests of every frame (an image, fetches that succeed, 404 and find no server, an
//! OOPIF's own fetch), the filters, one request with its JSON body, a HAR file checked against the
//! HAR 1.2 schema, routes that abort and mock (in the page and inside an OOPIF) and survive a daemon
//! restart, credentials kept out of the daemon log, and the request ring's bound.

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::need_chromium;
use crate::support::{
    Env, Fixture, RefusedPort, Run, assert_failure, on, text, value, value_until,
};

/// A 1x1 GIF (binary: its body comes back base64).
const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

/// The site, and the port its page's "refused" fetch goes to (refused while it lives).
fn fixture() -> (Fixture, RefusedPort) {
    let f = Fixture::start();
    let refused_port = RefusedPort::new();
    let refused = refused_port.url("/refused");
    let frame = f.cross_site_url("/n/frame.html");
    f.html(
        "/n/index.html",
        &format!(
            r#"<!doctype html><html><head><title>Network</title></head><body>
<img id="img" src="/n/pixel.gif">
<div id="api">pending</div><div id="missing">pending</div><div id="refused">pending</div>
<div id="frame">pending</div>
<iframe id="oop" src="{frame}" width="300" height="100"></iframe>
<script>
  window.addEventListener('message', e => {{ document.getElementById('frame').textContent = e.data; }});
  fetch('/n/api.json').then(r => r.json()).then(d => {{ document.getElementById('api').textContent = 'name:' + d.name; }})
    .catch(e => {{ document.getElementById('api').textContent = 'error:' + e.message; }});
  fetch('/n/missing.json').then(r => r.text().then(() => {{ document.getElementById('missing').textContent = 'status:' + r.status; }}));
  fetch('{refused}').then(() => {{}}, () => {{ document.getElementById('refused').textContent = 'refused'; }});
</script>
</body></html>"#
        ),
    );
    f.bytes("/n/pixel.gif", "image/gif", GIF);
    // Served, so that the browser's favicon fetch (made or not) is no 404 of its own.
    f.bytes("/favicon.ico", "image/gif", GIF);
    f.route(
        "/n/api.json",
        "application/json",
        r#"{"name":"real","items":[1,2,3]}"#,
        Duration::ZERO,
    );
    f.html(
        "/n/frame.html",
        r#"<!doctype html><html><head><title>Frame</title></head><body>frame
<script>
  fetch('/n/frame-data.json').then(r => r.json()).then(d => parent.postMessage('frame:' + d.name, '*'))
    .catch(e => parent.postMessage('frame-error:' + e.message, '*'));
</script>
</body></html>"#,
    );
    f.route(
        "/n/frame-data.json",
        "application/json",
        r#"{"name":"frame-real"}"#,
        Duration::ZERO,
    );
    (f, refused_port)
}

fn ok(v: &Value) -> &Value {
    assert_eq!(v["ok"], true, "{v}");
    &v["data"]
}

/// Waits for the page to be done with its requests.
fn settle(env: &Env, t: &[&str]) {
    let v = on(env, t, &["wait", "network-idle", "--timeout", "15000"]);
    ok(&v);
}

/// A new home whose one session's tab (t1) opens `url` (blank for `None`), `more` added to
/// `start`; the session id. [`tab`] gives the tab's `--session S --tab t1`.
fn open(url: Option<&str>, more: &[&str]) -> (Env, String) {
    let env = Env::new();
    let mut args = more.to_vec();
    if let Some(url) = url {
        args.extend(["--open-url", url]);
    }
    let sid = env.start(&args);
    (env, sid)
}

/// `--session <sid> --tab t1`.
fn tab(sid: &str) -> [&str; 4] {
    ["--session", sid, "--tab", "t1"]
}

/// Waits for the index page to be done: its OOPIF reported its fetch, and the network is idle.
fn index_loaded(env: &Env, t: &[&str]) {
    value_until(
        env,
        t,
        "document.getElementById('frame').textContent",
        &json!("frame:frame-real"),
    );
    settle(env, t);
}

fn requests(env: &Env, t: &[&str], extra: &[&str]) -> Value {
    let v = on(env, t, &[&["network", "requests"][..], extra].concat());
    ok(&v).clone()
}

fn find<'a>(data: &'a Value, url_end: &str) -> &'a Value {
    data["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with(url_end)))
        .unwrap_or_else(|| panic!("no request to {url_end} in {data}"))
}

/// `network request` of a request listed by `network requests` (`item`): its envelope.
fn request_of(env: &Env, t: &[&str], item: &Value) -> Value {
    on(env, t, &["network", "request", request_id(item)])
}

/// The same as text.
fn request_text(env: &Env, t: &[&str], item: &Value) -> Run {
    text(env, t, &["network", "request", request_id(item)])
}

fn request_id(item: &Value) -> &str {
    item["request_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no request_id in {item}"))
}

fn urls(data: &Value) -> Vec<String> {
    data["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["url"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn requests_of_every_frame_are_listed_filtered_and_shown_one_by_one() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let t = tab(&sid);
    index_loaded(&env, &t);

    let all = requests(&env, &t, &[]);
    assert_eq!(all["total"], all["filtered"], "{all}");
    let doc = find(&all, "/n/index.html");
    assert_eq!(doc["resource_type"], "Document");
    assert_eq!(doc["status"], 200);
    assert_eq!(doc["method"], "GET");
    assert!(doc["request_headers"]["user-agent"].is_string(), "{doc}");
    let img = find(&all, "/n/pixel.gif");
    assert_eq!(img["resource_type"], "Image");
    assert_eq!(img["mime_type"], "image/gif");
    let api = find(&all, "/n/api.json");
    assert_eq!(api["resource_type"], "Fetch");
    assert_eq!(api["status"], 200);
    assert_eq!(api["response_headers"]["content-type"], "application/json");
    assert!(api["timestamp"].as_u64().unwrap_or(0) > 0, "{api}");
    let missing = find(&all, "/n/missing.json");
    assert_eq!(missing["status"], 404);
    let refused = find(&all, "/refused");
    assert_eq!(refused["status"], Value::Null, "{refused}");
    assert!(
        refused["failure"]
            .as_str()
            .unwrap_or("")
            .contains("ERR_CONNECTION_REFUSED"),
        "{refused}"
    );
    // The OOPIF's own fetch, reported on its session.
    let frame_data = find(&all, "/n/frame-data.json");
    assert_eq!(frame_data["target_type"], "iframe", "{frame_data}");
    assert_eq!(frame_data["status"], 200);

    // Filters.
    let images = requests(&env, &t, &["--type", "image"]);
    assert_eq!(urls(&images), vec![f.url("/n/pixel.gif")], "{images}");
    assert_eq!(images["total"], all["total"]);
    let fetches = requests(&env, &t, &["--type", "Fetch,xhr", "--status", "2xx"]);
    let mut got = urls(&fetches);
    got.sort();
    let mut want = vec![f.cross_site_url("/n/frame-data.json"), f.url("/n/api.json")];
    want.sort();
    assert_eq!(got, want, "{fetches}");
    let not_found = requests(&env, &t, &["--status", "404"]);
    assert_eq!(urls(&not_found), vec![f.url("/n/missing.json")]);
    let failed = requests(&env, &t, &["--status", "failed"]);
    assert_eq!(urls(&failed).len(), 1, "{failed}");
    assert!(urls(&failed)[0].ends_with("/refused"), "{failed}");
    let re = requests(&env, &t, &["--filter", r"/data\.json$/"]);
    assert_eq!(urls(&re), vec![f.cross_site_url("/n/frame-data.json")]);
    let sub = requests(&env, &t, &["--filter", "pixel"]);
    assert_eq!(sub["filtered"], 1);
    let posts = requests(&env, &t, &["--method", "post"]);
    assert_eq!(posts["filtered"], 0);
    let v = on(&env, &t, &["network", "requests", "--filter", "/(/"]);
    assert_failure(&v, "INVALID_ARGUMENT", "regular expression");
    let v = on(&env, &t, &["network", "requests", "--status", "7xx"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--status");

    // One request, its JSON body as text; the image's as base64.
    let id = api["request_id"].as_str().expect("request id");
    let v = on(&env, &t, &["network", "request", id]);
    let one = ok(&v);
    assert_eq!(one["request_id"], id);
    assert_eq!(one["response_body"]["encoding"], "utf8", "{v}");
    let body: Value = serde_json::from_str(one["response_body"]["text"].as_str().unwrap_or(""))
        .expect("the body is the JSON served");
    assert_eq!(body, json!({"name": "real", "items": [1, 2, 3]}));
    assert_eq!(v["meta"]["truncated"], false);
    let v = request_of(&env, &t, img);
    assert_eq!(ok(&v)["response_body"]["encoding"], "base64", "{v}");
    assert_eq!(ok(&v)["response_body"]["size"], GIF.len());
    let v = on(&env, &t, &["network", "request", "no-such-id"]);
    assert_failure(&v, "INVALID_ARGUMENT", "no-such-id");

    // The text table: a count, then one row per request.
    let run = text(&env, &t, &["network", "requests", "--status", "404"]);
    assert_eq!(run.code, 0, "{run:?}");
    let row = format!(
        "{} GET 404 Fetch {}",
        missing["request_id"].as_str().unwrap_or(""),
        f.url("/n/missing.json")
    );
    assert!(
        run.stdout
            .contains(&format!("\n1 of {} requests\n{row}\n", all["total"])),
        "{run:?}"
    );

    // --clear: listed once more, then gone.
    let cleared = requests(&env, &t, &["--clear"]);
    assert_eq!(cleared["total"], all["total"]);
    let after = requests(&env, &t, &[]);
    assert_eq!(after["total"], 0, "{after}");
}

/// A JSON-schema subset (type, required, properties, items, minimum, pattern): enough for the HAR
/// 1.2 schema below. Written here rather than taken as a dependency: the schema needs a few
/// keywords, and no JSON-schema crate is among the project's chosen packages.
fn validate(schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(t) = schema["type"].as_str() {
        let fits = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "number" => v.is_number(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            _ => false,
        };
        if !fits {
            errors.push(format!("{at}: not {t}: {v}"));
            return;
        }
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_f64(), v.as_f64())
        && n < min
    {
        errors.push(format!("{at}: {n} < {min}"));
    }
    if let (Some(p), Some(s)) = (schema["pattern"].as_str(), v.as_str())
        && !regex::Regex::new(p).expect("schema pattern").is_match(s)
    {
        errors.push(format!("{at}: {s:?} does not match {p}"));
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        let key = r.as_str().unwrap_or("");
        if v.get(key).is_none() {
            errors.push(format!("{at}: missing {key}"));
        }
    }
    if let Some(props) = schema["properties"].as_object() {
        for (k, s) in props {
            if let Some(child) = v.get(k) {
                validate(s, child, &format!("{at}.{k}"), errors);
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, child) in arr.iter().enumerate() {
            validate(items, child, &format!("{at}[{i}]"), errors);
        }
    }
}

/// The HAR 1.2 schema (after the spec and the community `har-schema`), required members and types.
fn har_schema() -> Value {
    let nv = json!({"type": "object", "required": ["name", "value"],
        "properties": {"name": {"type": "string"}, "value": {"type": "string"}}});
    let list = json!({"type": "array", "items": nv});
    let date = json!({"type": "string",
        "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"});
    let timing = json!({"type": "number", "minimum": -1});
    let request = json!({"type": "object",
        "required": ["method", "url", "httpVersion", "cookies", "headers", "queryString",
            "headersSize", "bodySize"],
        "properties": {"method": {"type": "string"}, "url": {"type": "string"},
            "httpVersion": {"type": "string"}, "cookies": list, "headers": list,
            "queryString": list, "headersSize": {"type": "integer"},
            "bodySize": {"type": "integer"},
            "postData": {"type": "object", "required": ["mimeType"],
                "properties": {"mimeType": {"type": "string"}, "text": {"type": "string"}}}}});
    let content = json!({"type": "object", "required": ["size", "mimeType"],
        "properties": {"size": {"type": "integer"}, "mimeType": {"type": "string"},
            "text": {"type": "string"}, "encoding": {"type": "string"}}});
    let response = json!({"type": "object",
        "required": ["status", "statusText", "httpVersion", "cookies", "headers", "content",
            "redirectURL", "headersSize", "bodySize"],
        "properties": {"status": {"type": "integer"}, "statusText": {"type": "string"},
            "httpVersion": {"type": "string"}, "cookies": list, "headers": list,
            "content": content, "redirectURL": {"type": "string"},
            "headersSize": {"type": "integer"}, "bodySize": {"type": "integer"}}});
    let timings = json!({"type": "object", "required": ["send", "wait", "receive"],
        "properties": {"blocked": timing, "dns": timing, "connect": timing, "send": timing,
            "wait": timing, "receive": timing, "ssl": timing}});
    let entry = json!({"type": "object",
        "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
        "properties": {"pageref": {"type": "string"}, "startedDateTime": date,
            "time": {"type": "number", "minimum": 0}, "serverIPAddress": {"type": "string"},
            "request": request, "response": response, "cache": {"type": "object"},
            "timings": timings}});
    let page = json!({"type": "object", "required": ["startedDateTime", "id", "title", "pageTimings"],
        "properties": {"startedDateTime": date, "id": {"type": "string"},
            "title": {"type": "string"},
            "pageTimings": {"type": "object",
                "properties": {"onContentLoad": timing, "onLoad": timing}}}});
    let creator = json!({"type": "object", "required": ["name", "version"],
        "properties": {"name": {"type": "string"}, "version": {"type": "string"}}});
    json!({"type": "object", "required": ["log"],
        "properties": {"log": {"type": "object", "required": ["version", "creator", "entries"],
            "properties": {"version": {"type": "string"}, "creator": creator,
                "pages": {"type": "array", "items": page},
                "entries": {"type": "array", "items": entry}}}}})
}

#[test]
fn har_records_what_happened_between_start_and_stop_as_valid_har() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let t = tab(&sid);
    settle(&env, &t);

    let v = on(&env, &t, &["network", "har", "start", "--content", "text"]);
    assert_eq!(ok(&v)["recording"], true, "{v}");
    let v = on(&env, &t, &["network", "har", "start"]);
    assert_failure(&v, "HAR_ALREADY_RECORDING", "already");
    ok(&on(&env, &t, &["reload"]));
    index_loaded(&env, &t);

    // An unwritable path fails as screenshots do, and the recording goes on.
    let v = on(
        &env,
        &t,
        &["network", "har", "stop", "/nonexistent-dir/trace.har"],
    );
    assert_failure(&v, "ARTIFACT_WRITE_FAILED", "/nonexistent-dir/trace.har");
    // So does one the disk refuses only when written (no file can be made in /proc).
    let v = on(&env, &t, &["network", "har", "stop", "/proc/trace.har"]);
    assert_failure(&v, "ARTIFACT_WRITE_FAILED", "/proc/trace.har");

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("trace.har");
    let path_s = path.display().to_string();
    let v = on(&env, &t, &["network", "har", "stop", &path_s]);
    assert_eq!(ok(&v)["path"], path_s.as_str(), "{v}");
    let har: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the HAR file")).expect("HAR is JSON");
    let mut errors = Vec::new();
    validate(&har_schema(), &har, "$", &mut errors);
    assert!(errors.is_empty(), "not HAR 1.2: {errors:#?}");
    assert_eq!(har["log"]["version"], "1.2");
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(ok(&v)["entries"], entries.len());
    let urls: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["request"]["url"].as_str())
        .collect();
    // The reload's requests: document, image, three fetches and the OOPIF's document and fetch.
    for want in [
        "/n/index.html",
        "/n/pixel.gif",
        "/n/api.json",
        "/n/missing.json",
        "/refused",
        "/n/frame.html",
        "/n/frame-data.json",
    ] {
        assert!(
            urls.iter().any(|u| u.ends_with(want)),
            "no {want} in {urls:?}"
        );
    }
    let api = entries
        .iter()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/n/api.json"))
        })
        .expect("api entry");
    assert_eq!(
        api["response"]["content"]["text"], r#"{"name":"real","items":[1,2,3]}"#,
        "{api}"
    );
    // --content text: no body for the image.
    let gif = entries
        .iter()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("/n/pixel.gif"))
        })
        .expect("gif entry");
    assert!(gif["response"]["content"].get("text").is_none(), "{gif}");
    let v = on(&env, &t, &["network", "har", "stop", &path_s]);
    assert_failure(&v, "HAR_NOT_RECORDING", "no HAR recording");
}

/// The reference CLI's HAR flags: `--resource-types` keeps only those types, `--max-entries`
/// bounds the file (dropped ones counted, `HAR_TRUNCATED:` warned, `meta.truncated`),
/// `--no-bodies` writes no body, `stop --out` is the path, and `stop` without one writes under
/// `$ACTIONBOOK_HOME/har/`.
#[test]
fn har_takes_the_reference_flags_and_a_default_path() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let t = tab(&sid);
    index_loaded(&env, &t);

    // Only fetches, bodies off; the reload's document, image and frame are not kept.
    let v = on(
        &env,
        &t,
        &[
            "network",
            "har",
            "start",
            "--resource-types",
            "fetch",
            "--no-bodies",
        ],
    );
    assert_eq!(
        (
            ok(&v)["resource_types"].as_str(),
            ok(&v)["content"].as_str()
        ),
        (Some("fetch"), Some("none")),
        "{v}"
    );
    ok(&on(&env, &t, &["reload"]));
    index_loaded(&env, &t);
    let v = on(&env, &t, &["network", "har", "stop"]);
    let path = ok(&v)["path"].as_str().unwrap_or_default().to_string();
    assert!(
        path.starts_with(&env.home.join("har").display().to_string()) && path.ends_with(".har"),
        "{v}"
    );
    let har: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the HAR file")).expect("HAR is JSON");
    let entries = har["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let urls: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["request"]["url"].as_str())
        .collect();
    assert!(urls.iter().any(|u| u.ends_with("/n/api.json")), "{urls:?}");
    assert!(
        !urls
            .iter()
            .any(|u| u.ends_with("/n/index.html") || u.ends_with("/n/pixel.gif")),
        "{urls:?}"
    );
    assert!(
        entries
            .iter()
            .all(|e| e["response"]["content"].get("text").is_none()),
        "{entries:?}"
    );
    assert_eq!(ok(&v)["count"], entries.len(), "{v}");
    assert_eq!(v["meta"]["truncated"], false, "{v}");

    // A cap of 2 over the whole reload: the rest dropped, and said so.
    let v = on(&env, &t, &["network", "har", "start", "--max-entries", "2"]);
    assert_eq!(ok(&v)["max_entries"], 2, "{v}");
    ok(&on(&env, &t, &["reload"]));
    index_loaded(&env, &t);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("capped.har").display().to_string();
    let v = on(&env, &t, &["network", "har", "stop", "--out", &out]);
    assert_eq!(
        (ok(&v)["path"].as_str(), ok(&v)["count"].as_u64()),
        (Some(out.as_str()), Some(2)),
        "{v}"
    );
    assert!(ok(&v)["dropped"].as_u64().is_some_and(|d| d >= 3), "{v}");
    assert_eq!(v["meta"]["truncated"], true, "{v}");
    assert!(
        v["meta"]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.starts_with("HAR_TRUNCATED:") && w.contains("max_entries=2")),
        "{v}"
    );

    // Bad values are usage errors before anything records.
    let v = on(
        &env,
        &t,
        &["network", "har", "start", "--resource-types", "xrh"],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "xrh");
    let v = on(&env, &t, &["network", "har", "start", "--max-entries", "0"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--max-entries");
    let v = on(&env, &t, &["network", "har", "stop"]);
    assert_failure(&v, "HAR_NOT_RECORDING", "no HAR recording");
}

/// The text of an element of the top document, once it is no longer `pending`.
fn shown(env: &Env, t: &[&str], id: &str) -> String {
    // Generous: 600 fetches through a debug daemon on a loaded 2-core machine took over 10 s.
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let v = on(
            env,
            t,
            &[
                "eval",
                &format!("document.getElementById('{id}').textContent"),
            ],
        );
        let s = v["data"]["value"].as_str().unwrap_or("pending").to_string();
        if s != "pending" || Instant::now() > until {
            return s;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn routes_abort_and_mock_requests_of_the_page_and_its_oopif_and_persist() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let t = tab(&sid);
    assert_eq!(shown(&env, &t, "api"), "name:real");

    // Abort: the page's fetch fails and the page takes its error path.
    let v = on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/api.json",
            "--abort",
            "connectionrefused",
        ],
    );
    assert_eq!(ok(&v)["routes"][0]["reason"], "ConnectionRefused", "{v}");
    ok(&on(&env, &t, &["reload"]));
    assert!(
        shown(&env, &t, "api").starts_with("error:"),
        "the fetch was not aborted"
    );
    settle(&env, &t);
    let failed = requests(&env, &t, &["--filter", "/n/api.json", "--status", "failed"]);
    assert!(failed["filtered"].as_u64().unwrap_or(0) >= 1, "{failed}");

    // Fulfill replaces the answer (the same pattern routed again replaces the route); a route
    // inside the OOPIF mocks the frame's own fetch.
    let mock = r#"{"name":"mocked"}"#;
    let v = on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/api.json",
            "--fulfill",
            "--status",
            "200",
            "--body",
            mock,
            "--header",
            "Content-Type: application/json",
        ],
    );
    // Its size in bytes (17), not base64's length without the padding (18).
    let mocked = &ok(&v)["routes"][0];
    assert_eq!(mocked["body_bytes"], mock.len(), "{v}");
    let dir = tempfile::tempdir().expect("tempdir");
    let body_file = dir.path().join("frame.json");
    std::fs::write(&body_file, r#"{"name":"frame-mocked"}"#).expect("body file");
    ok(&on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/frame-data.json",
            "--fulfill",
            "--body-file",
            &body_file.display().to_string(),
        ],
    ));
    // A continue route with a credential: applied, never in the daemon log.
    ok(&on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/pixel.gif",
            "--continue",
            "--header",
            "Authorization: Bearer SECRET-TOKEN-4711",
        ],
    ));
    let v = on(&env, &t, &["network", "routes"]);
    let routes = ok(&v)["routes"].as_array().cloned().unwrap_or_default();
    assert_eq!(routes.len(), 3, "{v}");
    assert_eq!(routes[0]["action"], "fulfill");
    assert_eq!(routes[2]["headers"], json!(["Authorization"]));
    assert!(!v.to_string().contains("SECRET-TOKEN-4711"), "{v}");
    ok(&on(&env, &t, &["reload"]));
    assert_eq!(shown(&env, &t, "api"), "name:mocked");
    assert_eq!(shown(&env, &t, "frame"), "frame:frame-mocked");
    settle(&env, &t);
    let img = requests(&env, &t, &["--filter", "pixel.gif"]);
    let last = img["requests"]
        .as_array()
        .and_then(|a| a.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        last["request_headers"]["authorization"], "Bearer SECRET-TOKEN-4711",
        "the continue route added the header: {img}"
    );

    // Routes live with the session: a new daemon applies them again.
    env.kill_daemon();
    let v = on(&env, &t, &["network", "routes"]);
    assert_eq!(ok(&v)["routes"].as_array().map(Vec::len), Some(3), "{v}");
    ok(&on(&env, &t, &["reload"]));
    assert_eq!(shown(&env, &t, "api"), "name:mocked");

    // Unroute one, then all.
    let v = on(&env, &t, &["network", "unroute", "*/n/frame-data.json"]);
    assert_eq!(ok(&v)["removed"], 1);
    let v = on(&env, &t, &["network", "unroute"]);
    assert_eq!(ok(&v)["removed"], 2);
    assert_eq!(ok(&v)["routes"], json!([]));
    ok(&on(&env, &t, &["reload"]));
    assert_eq!(shown(&env, &t, "api"), "name:real");

    // Bad routes are refused.
    let v = on(&env, &t, &["network", "route", "*/x", "--abort", "nope"]);
    assert_failure(&v, "INVALID_ARGUMENT", "--abort takes");
    let v = on(&env, &t, &["network", "route", "*/x"]);
    assert_failure(&v, "INVALID_ARGUMENT", "exactly one");
    let v = on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/x",
            "--continue",
            "--header",
            "bad header SECRET-9",
        ],
    );
    assert_failure(&v, "INVALID_ARGUMENT", "--header");
    assert!(!v.to_string().contains("SECRET-9"), "{v}");

    let log = std::fs::read_to_string(env.home.join("daemon.log")).unwrap_or_default();
    assert!(
        !log.contains("SECRET-TOKEN-4711"),
        "the daemon log has the credential: {log}"
    );
}

#[test]
fn the_ring_keeps_the_latest_requests_and_counts_the_dropped_ones() {
    need_chromium!();
    let (f, _refused) = fixture();
    f.html(
        "/n/many.html",
        r#"<!doctype html><html><head><title>Many</title></head><body><div id="done">pending</div>
<script>
  (async () => {
    for (let i = 0; i < 600; i += 50) {
      await Promise.all(Array.from({length: 50}, (_, j) => fetch('/n/item?i=' + (i + j)).then(r => r.text())));
    }
    document.getElementById('done').textContent = 'done';
  })();
</script></body></html>"#,
    );
    f.route("/n/item", "text/plain", "item", Duration::ZERO);
    let (env, sid) = open(Some(&f.url("/n/many.html")), &[]);
    let t = tab(&sid);
    assert_eq!(shown(&env, &t, "done"), "done");
    settle(&env, &t);
    let v = on(&env, &t, &["network", "requests", "--filter", "/n/item"]);
    let data = ok(&v);
    assert_eq!(data["total"], 500, "the default ring: {}", data["total"]);
    let got = urls(data);
    assert!(
        got.iter().any(|u| u.ends_with("?i=599")),
        "the latest is kept"
    );
    assert!(
        !got.iter().any(|u| u.ends_with("?i=0")),
        "the oldest is dropped"
    );
    let warnings = v["meta"]["warnings"].to_string();
    assert!(warnings.contains("older requests were dropped"), "{v}");

    // A smaller ring from `start`.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--max-tracked-requests",
        "100001",
    ]);
    assert_failure(&v, "INVALID_ARGUMENT", "--max-tracked-requests");
    let small = env.start(&[
        "--max-tracked-requests",
        "50",
        "--open-url",
        &f.url("/n/many.html"),
    ]);
    let t = tab(&small);
    assert_eq!(shown(&env, &t, "done"), "done");
    settle(&env, &t);
    let v = on(&env, &t, &["network", "requests"]);
    assert_eq!(ok(&v)["total"], 50, "{}", ok(&v)["total"]);
}

#[test]
fn a_session_that_records_no_requests_says_so_and_still_routes() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(
        Some(&f.url("/n/index.html")),
        &["--max-tracked-requests", "0"],
    );
    let t = tab(&sid);
    assert_eq!(shown(&env, &t, "api"), "name:real");
    for cmd in [
        &["network", "requests"][..],
        &["network", "request", "1.1"],
        &["network", "har", "start"],
        &["wait", "network-idle", "--timeout", "2000"],
    ] {
        let v = on(&env, &t, cmd);
        assert_failure(&v, "UNSUPPORTED_OPERATION", "--max-tracked-requests 0");
    }
    // Routes do not need the recording: an abort in the page, a mock inside the OOPIF.
    ok(&on(
        &env,
        &t,
        &["network", "route", "*/n/api.json", "--abort", "failed"],
    ));
    ok(&on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/frame-data.json",
            "--fulfill",
            "--body",
            r#"{"name":"frame-mocked"}"#,
        ],
    ));
    ok(&on(&env, &t, &["reload"]));
    assert!(
        shown(&env, &t, "api").starts_with("error:"),
        "the fetch was not aborted"
    );
    assert_eq!(shown(&env, &t, "frame"), "frame:frame-mocked");
    let v = on(&env, &t, &["network", "routes"]);
    assert_eq!(ok(&v)["routes"].as_array().map(Vec::len), Some(2), "{v}");

    // Attaching to the session with another ring size says it is not taken.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--set-session-id",
        &sid,
        "--max-tracked-requests",
        "50",
    ]);
    ok(&v);
    let warnings = v["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("--max-tracked-requests") && warnings.contains("records no requests"),
        "{v}"
    );
    // A value out of range is refused there too, not ignored.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--set-session-id",
        &sid,
        "--max-tracked-requests",
        "100001",
    ]);
    assert_failure(&v, "INVALID_ARGUMENT", "--max-tracked-requests");
    let v = on(&env, &t, &["network", "requests"]);
    assert_failure(&v, "UNSUPPORTED_OPERATION", "--max-tracked-requests 0");
}

/// A login that answers with a redirect and a cookie, and a page whose fetch sends the cookie back.
fn login_fixture(f: &Fixture) {
    f.route_with(
        "/n/login",
        "302 Found",
        &[
            ("Location", "/n/home.html"),
            ("Set-Cookie", "sid=COOKIE-SECRET-93; Path=/"),
        ],
        "text/plain",
        "",
    );
    f.html(
        "/n/home.html",
        r#"<!doctype html><html><head><title>Home</title></head><body><div id="api">pending</div>
<script>
  fetch('/n/api.json').then(r => r.json()).then(d => { document.getElementById('api').textContent = 'name:' + d.name; });
</script></body></html>"#,
    );
}

#[test]
fn redirects_are_entries_of_their_own_and_raw_cookie_headers_are_shown() {
    need_chromium!();
    let (f, _refused) = fixture();
    login_fixture(&f);
    let (env, sid) = open(None, &[]);
    let t = tab(&sid);
    ok(&on(
        &env,
        &t,
        &["network", "har", "start", "--content", "none"],
    ));
    ok(&on(&env, &t, &["goto", &f.url("/n/login")]));
    assert_eq!(shown(&env, &t, "api"), "name:real");
    settle(&env, &t);

    // Each hop its own entry: the login's 302 (with where it led), then the page.
    let all = requests(&env, &t, &[]);
    let hop = find(&all, "/n/login");
    assert_eq!(hop["status"], 302, "{hop}");
    assert_eq!(hop["redirect_url"], f.url("/n/home.html"), "{hop}");
    assert_eq!(hop["resource_type"], "Document", "{hop}");
    // The Set-Cookie header Chromium keeps out of responseReceived, from the ExtraInfo event.
    assert!(
        hop["response_headers"]["set-cookie"]
            .as_str()
            .is_some_and(|c| c.contains("sid=COOKIE-SECRET-93")),
        "{hop}"
    );
    let home = find(&all, "/n/home.html");
    assert_eq!(home["status"], 200, "{home}");
    assert!(home.get("redirect_url").is_none(), "{home}");
    assert_ne!(hop["request_id"], home["request_id"]);
    let v = request_of(&env, &t, hop);
    assert_eq!(ok(&v)["status"], 302, "{v}");
    assert_eq!(
        ok(&v)["response_body"],
        Value::Null,
        "a redirect has no body: {v}"
    );
    // The Cookie header the fetch sent (also only in the ExtraInfo event).
    let api = find(&all, "/n/api.json");
    let v = request_of(&env, &t, api);
    assert_eq!(
        ok(&v)["request_headers"]["cookie"],
        "sid=COOKIE-SECRET-93",
        "{v}"
    );
    let run = request_text(&env, &t, api);
    assert!(
        run.stdout.contains("> cookie: sid=COOKIE-SECRET-93"),
        "{run:?}"
    );

    // The HAR file: the redirect an entry with its status and redirectURL, then the page.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("login.har");
    let path_s = path.display().to_string();
    ok(&on(&env, &t, &["network", "har", "stop", &path_s]));
    let har: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the HAR file")).expect("HAR is JSON");
    let mut errors = Vec::new();
    validate(&har_schema(), &har, "$", &mut errors);
    assert!(errors.is_empty(), "not HAR 1.2: {errors:#?}");
    let entries = har["log"]["entries"].as_array().expect("entries");
    let at = |end: &str| {
        entries
            .iter()
            .position(|e| {
                e["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(end))
            })
            .unwrap_or_else(|| panic!("no {end} entry in {har}"))
    };
    let (login, page) = (at("/n/login"), at("/n/home.html"));
    assert!(login < page, "the hops in order: {har}");
    assert_eq!(entries[login]["response"]["status"], 302);
    assert_eq!(
        entries[login]["response"]["redirectURL"],
        f.url("/n/home.html")
    );
    assert_eq!(entries[page]["response"]["status"], 200);
    assert_eq!(entries[page]["response"]["redirectURL"], "");
    // Cookies as HAR 1.2 cookie objects, from the raw Set-Cookie and Cookie headers.
    assert_eq!(
        entries[login]["response"]["cookies"],
        json!([{"name": "sid", "value": "COOKIE-SECRET-93", "path": "/"}]),
        "{}",
        entries[login]
    );
    let api = at("/n/api.json");
    assert_eq!(
        entries[api]["request"]["cookies"],
        json!([{"name": "sid", "value": "COOKIE-SECRET-93"}]),
        "{}",
        entries[api]
    );

    let log = std::fs::read_to_string(env.home.join("daemon.log")).unwrap_or_default();
    assert!(
        !log.contains("COOKIE-SECRET-93"),
        "the daemon log has the cookie: {log}"
    );
}

/// The hops of one request id, first to last, by their `request_id` (`<id>:<hop>`, then `<id>`).
fn chain<'a>(data: &'a Value, last_url_end: &str) -> Vec<&'a Value> {
    let last = find(data, last_url_end);
    let id = last["request_id"].as_str().unwrap_or("").to_string();
    let mut hops: Vec<&Value> = data["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| {
            r["request_id"]
                .as_str()
                .is_some_and(|h| h.split(':').next() == Some(id.as_str()))
        })
        .collect();
    let hop_no = |r: &Value| {
        r["request_id"]
            .as_str()
            .and_then(|h| h.split_once(':'))
            .and_then(|(_, n)| n.parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    };
    hops.sort_by_key(|r| hop_no(r));
    hops
}

#[test]
fn raw_headers_go_to_the_hop_chromium_reports_them_for_across_a_redirect_chain() {
    need_chromium!();
    let (f, _refused) = fixture();
    // a (302, sets a=1) -> b (answered by a route with a 302: never on the network, so Chromium
    // reports no raw headers for it) -> c (302, sets c=3) -> the page.
    f.route_with(
        "/n/hop-a",
        "302 Found",
        &[("Location", "/n/hop-b"), ("Set-Cookie", "a=1; Path=/")],
        "text/plain",
        "",
    );
    f.route_with(
        "/n/hop-c",
        "302 Found",
        &[
            ("Location", "/n/hop-end.html"),
            ("Set-Cookie", "c=3; Path=/"),
        ],
        "text/plain",
        "",
    );
    f.html(
        "/n/hop-end.html",
        "<!doctype html><html><head><title>End</title></head><body>end</body></html>",
    );
    let (env, sid) = open(None, &[]);
    let t = tab(&sid);
    let location = format!("Location: {}", f.url("/n/hop-c"));
    ok(&on(
        &env,
        &t,
        &[
            "network",
            "route",
            "*/n/hop-b",
            "--fulfill",
            "--status",
            "302",
            "--header",
            &location,
        ],
    ));
    ok(&on(&env, &t, &["goto", &f.url("/n/hop-a")]));
    settle(&env, &t);

    let all = requests(&env, &t, &[]);
    let hops = chain(&all, "/n/hop-end.html");
    let got: Vec<(&str, &Value)> = hops
        .iter()
        .map(|h| (h["url"].as_str().unwrap_or(""), &h["status"]))
        .collect();
    let want = [
        f.url("/n/hop-a"),
        f.url("/n/hop-b"),
        f.url("/n/hop-c"),
        f.url("/n/hop-end.html"),
    ];
    assert_eq!(
        got.iter().map(|(u, _)| u.to_string()).collect::<Vec<_>>(),
        want,
        "{all}"
    );
    assert_eq!(
        got.iter().map(|(_, s)| (*s).clone()).collect::<Vec<_>>(),
        [json!(302), json!(302), json!(302), json!(200)],
        "{all}"
    );
    let set_cookie = |h: &Value| {
        h["response_headers"]["set-cookie"]
            .as_str()
            .map(str::to_string)
    };
    let cookie = |h: &Value| h["request_headers"]["cookie"].as_str().map(str::to_string);
    // Each hop its own raw headers, by the flags Chromium gives: the first hop's, none for the
    // routed hop. Chromium 156 reports none for the hops after a routed one either (the rest of
    // the chain runs through the interception), so theirs are shown only if some come, and then
    // never another hop's.
    assert_eq!(
        set_cookie(hops[0]).as_deref(),
        Some("a=1; Path=/"),
        "{}",
        hops[0]
    );
    assert_eq!(cookie(hops[0]), None, "{}", hops[0]);
    assert_eq!(set_cookie(hops[1]), None, "{}", hops[1]);
    assert_eq!(cookie(hops[1]), None, "{}", hops[1]);
    let c = set_cookie(hops[2]);
    assert!(
        c.is_none() || c.as_deref() == Some("c=3; Path=/"),
        "{}",
        hops[2]
    );
    assert!(cookie(hops[2]).is_none_or(|c| c == "a=1"), "{}", hops[2]);
    assert_eq!(set_cookie(hops[3]), None, "{}", hops[3]);
    assert!(
        cookie(hops[3]).is_none_or(|c| c == "a=1; c=3"),
        "{}",
        hops[3]
    );
}

/// The session record's routes, by tab.
fn recorded_routes(env: &Env, sid: &str) -> Vec<String> {
    let path = env.home.join("sessions").join(sid).join("session.json");
    let record: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("session record")).expect("JSON");
    record["network_routes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["tab_id"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn routes_of_a_closed_tab_leave_the_session_record() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let s = ["--session", sid.as_str()];
    let v = env.json(&[&["browser", "new-tab", &f.url("/n/index.html")][..], &s].concat());
    assert_eq!(v["context"]["tab_id"], "t2", "{v}");
    for tab in ["t1", "t2"] {
        let t = ["--session", sid.as_str(), "--tab", tab];
        ok(&on(
            &env,
            &t,
            &["network", "route", "*/n/api.json", "--abort"],
        ));
    }
    assert_eq!(recorded_routes(&env, &sid), ["t1", "t2"]);
    let v = env.json(&[&["browser", "close-tab"][..], &s, &["--tab", "t2"]].concat());
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(recorded_routes(&env, &sid), ["t1"]);

    // A tab that closed itself: the session forgets it, and its routes go with the next change
    // of routes.
    let v = env.json(&[&["browser", "new-tab", &f.url("/n/index.html")][..], &s].concat());
    assert_eq!(v["context"]["tab_id"], "t3", "{v}");
    let t3 = ["--session", sid.as_str(), "--tab", "t3"];
    ok(&on(
        &env,
        &t3,
        &["network", "route", "*/n/api.json", "--abort"],
    ));
    assert_eq!(recorded_routes(&env, &sid), ["t1", "t3"]);
    let _ = on(&env, &t3, &["eval", "window.close()"]);
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let v = env.json(&[&["browser", "list-tabs"][..], &s].concat());
        if !v.to_string().contains("\"t3\"") {
            break;
        }
        assert!(Instant::now() < until, "t3 did not close: {v}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let t1 = ["--session", sid.as_str(), "--tab", "t1"];
    ok(&on(
        &env,
        &t1,
        &["network", "route", "*/n/missing.json", "--abort"],
    ));
    assert_eq!(recorded_routes(&env, &sid), ["t1", "t1"]);
}

#[test]
fn a_child_target_the_recorder_cannot_watch_is_a_warning() {
    need_chromium!();
    let (f, _refused) = fixture();
    let env = Env::new();
    // The daemon this starts inherits the test hook: every child's Network.enable fails.
    let out = env
        .command(&[
            "browser",
            "start",
            "--headless",
            "--open-url",
            &f.url("/n/index.html"),
            "--json",
        ])
        .env("ACTIONBOOK_TEST_FAIL", "child-network-enable")
        .output()
        .expect("run actionbook");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["ok"], true, "{v}");
    let sid = v["context"]["session_id"].as_str().expect("session id");
    let t = tab(sid);
    // The OOPIF still runs (it was resumed), and the page's own requests are recorded.
    value_until(
        &env,
        &t,
        "document.getElementById('frame').textContent",
        &json!("frame:frame-real"),
    );
    let v = on(&env, &t, &["network", "requests"]);
    let data = ok(&v);
    find(data, "/n/index.html");
    let warnings = v["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("cannot watch a iframe")
            && warnings.contains("the network domain failed"),
        "{v}"
    );
}

/// Reads a HAR file written by `har stop` and checks it against the HAR 1.2 schema.
fn read_har(path: &std::path::Path) -> Value {
    let har: Value =
        serde_json::from_slice(&std::fs::read(path).expect("the HAR file")).expect("HAR is JSON");
    let mut errors = Vec::new();
    validate(&har_schema(), &har, "$", &mut errors);
    assert!(errors.is_empty(), "not HAR 1.2: {errors:#?}");
    har
}

/// The HAR entry whose URL ends so.
fn har_entry<'a>(har: &'a Value, url_end: &str) -> &'a Value {
    har["log"]["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| {
            e["request"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with(url_end))
        })
        .unwrap_or_else(|| panic!("no {url_end} entry in {har}"))
}

/// Waits until a request to `url_end` is listed (in flight or not).
fn listed(env: &Env, t: &[&str], url_end: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let all = requests(env, t, &[]);
        let hit = all["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["url"].as_str().is_some_and(|u| u.ends_with(url_end)))
            .cloned();
        match hit {
            Some(r) => return r,
            None if Instant::now() > until => panic!("no request to {url_end}: {all}"),
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

#[test]
fn requests_cancelled_by_a_navigation_end_and_the_network_goes_idle() {
    need_chromium!();
    let f = Fixture::start();
    // Answered long after the test is done: only the navigation ends them.
    f.route(
        "/c/slow.json",
        "application/json",
        r#"{"slow":true}"#,
        Duration::from_secs(60),
    );
    f.route(
        "/c/slow2.json",
        "application/json",
        r#"{"slow":2}"#,
        Duration::from_secs(60),
    );
    f.html(
        "/c/start.html",
        "<!doctype html><title>Start</title><script>fetch('/c/slow.json').catch(() => {});</script>",
    );
    f.html(
        "/c/reloaded.html",
        "<!doctype html><title>Reloaded</title><script>if (!sessionStorage.fetched) { sessionStorage.fetched = 1; fetch('/c/slow2.json').catch(() => {}); }</script>",
    );
    f.html("/c/next.html", "<!doctype html><title>Next</title>next");
    f.bytes("/favicon.ico", "image/gif", GIF);
    let (env, sid) = open(Some(&f.url("/c/start.html")), &[]);
    let t = tab(&sid);
    ok(&on(
        &env,
        &t,
        &["network", "har", "start", "--content", "none"],
    ));
    let slow = listed(&env, &t, "/c/slow.json");
    assert_eq!(slow["status"], Value::Null, "in flight: {slow}");

    // A goto to another page of the site replaces the document that made it.
    ok(&on(&env, &t, &["goto", &f.url("/c/next.html")]));
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert_eq!(ok(&v)["observed_value"]["pending"], 0, "{v}");
    let slow = find(&requests(&env, &t, &[]), "/c/slow.json").clone();
    assert_eq!(slow["failure"], "net::ERR_ABORTED", "{slow}");
    assert!(
        slow["note"]
            .as_str()
            .is_some_and(|n| n.contains("document that made it was replaced")),
        "{slow}"
    );
    assert!(slow["duration_ms"].is_u64(), "{slow}");
    // (The browser's favicon fetch, when the goto came before its answer, is cancelled too.)
    let failed = requests(&env, &t, &["--status", "failed"]);
    let failed_urls: Vec<String> = urls(&failed)
        .into_iter()
        .filter(|u| !u.ends_with("/favicon.ico"))
        .collect();
    assert_eq!(failed_urls, vec![f.url("/c/slow.json")], "{failed}");
    let run = request_text(&env, &t, &slow);
    assert!(run.stdout.contains("net::ERR_ABORTED"), "{run:?}");
    assert!(run.stdout.contains("note: the document"), "{run:?}");

    // A reload replaces it too; --clear then leaves nothing behind.
    ok(&on(&env, &t, &["goto", &f.url("/c/reloaded.html")]));
    listed(&env, &t, "/c/slow2.json");
    ok(&on(&env, &t, &["reload"]));
    let v = on(&env, &t, &["wait", "network-idle", "--timeout", "10000"]);
    assert_eq!(ok(&v)["observed_value"]["pending"], 0, "{v}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cancel.har");
    let path_s = path.display().to_string();
    ok(&on(&env, &t, &["network", "har", "stop", &path_s]));
    requests(&env, &t, &["--clear"]);
    let after = requests(&env, &t, &[]);
    assert_eq!(after["total"], 0, "{after}");

    // In the HAR file (started after the first page's fetch): failed, with the note, and a time
    // of its own (not an empty -0.0).
    let har = read_har(&path);
    {
        let e = har_entry(&har, "/c/slow2.json");
        assert_eq!(e["_failure"], "net::ERR_ABORTED", "{e}");
        assert!(
            e["comment"]
                .as_str()
                .is_some_and(|c| c.contains("was replaced")),
            "{e}"
        );
        let time = e["time"].as_f64().unwrap_or(-1.0);
        assert!(time >= 0.0 && time.is_sign_positive(), "{e}");
    }
}

/// The response header bytes the fixture server sends for a 200 of this type and length.
fn fixture_header_bytes(content_type: &str, len: usize) -> i64 {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    )
    .len() as i64
}

#[test]
fn har_sizes_are_the_bodys_decoded_and_wire_bytes_apart_from_the_headers() {
    need_chromium!();
    let (f, _refused) = fixture();
    let (env, sid) = open(Some(&f.url("/n/index.html")), &[]);
    let t = tab(&sid);
    index_loaded(&env, &t);
    let json_body = r#"{"name":"real","items":[1,2,3]}"#;
    let dir = tempfile::tempdir().expect("tempdir");
    for content in ["none", "text"] {
        ok(&on(
            &env,
            &t,
            &["network", "har", "start", "--content", content],
        ));
        ok(&on(&env, &t, &["reload"]));
        index_loaded(&env, &t);
        let path = dir.path().join(format!("{content}.har"));
        ok(&on(
            &env,
            &t,
            &["network", "har", "stop", &path.display().to_string()],
        ));
        let har = read_har(&path);
        for (end, ct, len) in [
            ("/n/api.json", "application/json", json_body.len()),
            ("/n/pixel.gif", "image/gif", GIF.len()),
        ] {
            let e = har_entry(&har, end);
            let response = &e["response"];
            // HAR 1.2: content.size is the body's length, bodySize its bytes on the wire (no
            // compression here: the same), headersSize the header bytes.
            assert_eq!(response["content"]["size"], len, "--content {content}: {e}");
            assert_eq!(response["bodySize"], len, "--content {content}: {e}");
            assert_eq!(
                response["headersSize"],
                fixture_header_bytes(ct, len),
                "--content {content}: {e}"
            );
            assert!(e.get("comment").is_none(), "{e}");
        }
        let api = har_entry(&har, "/n/api.json");
        if content == "text" {
            assert_eq!(api["response"]["content"]["text"], json_body, "{api}");
        } else {
            assert!(api["response"]["content"].get("text").is_none(), "{api}");
        }
        // A request that failed before any response has no body and no headers.
        let refused = har_entry(&har, "/refused");
        assert_eq!(refused["response"]["content"]["size"], 0, "{refused}");
        assert_eq!(refused["response"]["bodySize"], -1, "{refused}");
        assert_eq!(refused["response"]["headersSize"], -1, "{refused}");
    }
}

/// A site whose 301 may be cached (the fixture server forbids caching): `/r/page.html`, and
/// `/r/1` 302 -> `/r/2` 301 (cacheable) -> `/r/end.json`; `/r/a.html` and `/r/b.html` load the
/// same cacheable `/r/m.css`. Served on a thread for the rest of
/// the test process (the port stays bound).
fn caching_site() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut buf = [0u8; 4096];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let text = String::from_utf8_lossy(&head);
            let path = text.split_whitespace().nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap_or("/");
            let (status, extra, ct, body) = match path {
                "/r/1" => ("302 Found", "Location: /r/2\r\n", "text/plain", ""),
                "/r/2" => (
                    "301 Moved Permanently",
                    "Location: /r/end.json\r\nCache-Control: max-age=600\r\n",
                    "text/plain",
                    "",
                ),
                "/r/end.json" => ("200 OK", "", "application/json", r#"{"end":true}"#),
                "/r/page.html" => (
                    "200 OK",
                    "",
                    "text/html",
                    "<!doctype html><title>R</title>r",
                ),
                "/r/a.html" | "/r/b.html" => (
                    "200 OK",
                    "",
                    "text/html",
                    "<!doctype html><title>M</title><link rel=stylesheet href=\"/r/m.css\">",
                ),
                "/r/m.css" => (
                    "200 OK",
                    "Cache-Control: max-age=600\r\n",
                    "text/css",
                    "b{}",
                ),
                _ => ("404 Not Found", "", "text/plain", ""),
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\n{extra}Content-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    base
}

#[test]
fn a_redirect_hop_from_the_cache_says_so_and_fresh_hops_keep_their_raw_headers() {
    need_chromium!();
    let base = caching_site();
    let (env, sid) = open(Some(&format!("{base}/r/page.html")), &[]);
    let t = tab(&sid);
    ok(&on(
        &env,
        &t,
        &["network", "har", "start", "--content", "none"],
    ));
    for q in ["a", "b"] {
        let got = value(&env, &t, &format!("fetch('/r/1?{q}').then(r => r.text())"));
        assert_eq!(got, r#"{"end":true}"#);
    }
    settle(&env, &t);
    let all = requests(&env, &t, &["--filter", "/r/"]);
    let hops_of = |q: &str| {
        let first = find(&all, &format!("/r/1?{q}"));
        let id = first["request_id"].as_str().unwrap_or("").to_string();
        let cdp = id.split(':').next().unwrap_or("").to_string();
        let hops: Vec<Value> = all["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| {
                r["request_id"]
                    .as_str()
                    .is_some_and(|h| h.split(':').next() == Some(cdp.as_str()))
            })
            .cloned()
            .collect();
        hops
    };
    // The first chain went over the wire: every hop has the raw request headers (host is only
    // there), none from the cache.
    let fresh = hops_of("a");
    assert_eq!(fresh.len(), 3, "{all}");
    for h in &fresh {
        assert!(h["request_headers"]["host"].is_string(), "{h}");
        assert!(h.get("from_cache").is_none(), "{h}");
    }
    // The second: the 301 came from the disk cache, so it has no raw headers and says why.
    let again = hops_of("b");
    assert_eq!(again.len(), 3, "{all}");
    let middle = again
        .iter()
        .find(|h| h["url"].as_str().is_some_and(|u| u.ends_with("/r/2")))
        .unwrap_or_else(|| panic!("no /r/2 hop in {all}"));
    assert_eq!(middle["status"], 301, "{middle}");
    assert_eq!(middle["from_cache"], "disk", "{middle}");
    let run = request_text(&env, &t, middle);
    assert!(run.stdout.contains("from_cache: disk"), "{run:?}");
    // A resource the next document of the same site reuses comes from the renderer's memory
    // cache (Chromium says so only in `requestServedFromCache`).
    for page in ["a", "b"] {
        ok(&on(&env, &t, &["goto", &format!("{base}/r/{page}.html")]));
    }
    settle(&env, &t);
    let css = requests(&env, &t, &["--filter", "/r/m.css"]);
    let loads: Vec<&Value> = css["requests"].as_array().into_iter().flatten().collect();
    assert_eq!(loads.len(), 2, "{css}");
    assert!(loads[0].get("from_cache").is_none(), "{css}");
    assert_eq!(loads[1]["from_cache"], "memory", "{css}");
    assert_eq!(loads[1]["status"], 200, "{css}");
    let run = request_text(&env, &t, loads[1]);
    assert!(run.stdout.contains("from_cache: memory"), "{run:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cache.har");
    ok(&on(
        &env,
        &t,
        &["network", "har", "stop", &path.display().to_string()],
    ));
    let har = read_har(&path);
    // One entry from each cache: the 301 from the disk, the stylesheet from memory.
    for (cache, url_end) in [("disk", "/r/2"), ("memory", "/r/m.css")] {
        let cached: Vec<&Value> = har["log"]["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["response"]["_fromCache"] == cache)
            .collect();
        assert_eq!(cached.len(), 1, "{cache}: {har}");
        assert!(
            cached[0]["request"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with(url_end)),
            "{cache}: {har}"
        );
        assert_eq!(cached[0]["response"]["bodySize"], 0, "{cache}: {har}");
    }
}

#[test]
fn listing_order_type_check_post_data_cut_bodies_and_har_of_requests_in_flight() {
    need_chromium!();
    let f = Fixture::start();
    // The slow one starts first and ends last.
    f.route(
        "/o/slow.json",
        "application/json",
        r#"{"slow":1}"#,
        Duration::from_millis(700),
    );
    f.route(
        "/o/fast.json",
        "application/json",
        r#"{"fast":1}"#,
        Duration::ZERO,
    );
    let big = "x".repeat(1024 * 1024 + 100);
    f.route("/o/big.txt", "text/plain", &big, Duration::ZERO);
    f.route("/o/upload.json", "application/json", "{}", Duration::ZERO);
    f.route(
        "/o/hang.json",
        "application/json",
        "{}",
        Duration::from_secs(60),
    );
    f.html(
        "/o/page.html",
        r#"<!doctype html><title>Order</title><div id="done">pending</div><script>
  const slow = fetch('/o/slow.json').then(r => r.text());
  const fast = fetch('/o/fast.json', {method: 'POST', body: 'a=1&b=2'}).then(r => r.text());
  const big = fetch('/o/big.txt').then(r => r.text());
  const upload = fetch('/o/upload.json', {method: 'POST', body: 'y'.repeat(1024 * 1024 + 100)}).then(r => r.text());
  Promise.all([slow, fast, big, upload]).then(() => { document.getElementById('done').textContent = 'done'; });
</script>"#,
    );
    f.bytes("/favicon.ico", "image/gif", GIF);
    let (env, sid) = open(Some(&f.url("/o/page.html")), &[]);
    let t = tab(&sid);
    assert_eq!(shown(&env, &t, "done"), "done");
    settle(&env, &t);

    // Listed in the order they started, not the order they ended.
    let all = requests(&env, &t, &["--filter", "/o/"]);
    let order = urls(&all);
    let at = |end: &str| {
        order
            .iter()
            .position(|u| u.ends_with(end))
            .unwrap_or_else(|| panic!("no {end} in {order:?}"))
    };
    assert!(at("/o/slow.json") < at("/o/fast.json"), "{order:?}");

    // An unknown type is refused, naming the ones there are.
    let v = on(&env, &t, &["network", "requests", "--type", "bogus"]);
    assert_failure(&v, "INVALID_ARGUMENT", "fetch");
    let v = on(&env, &t, &["network", "requests", "--type", "image,bogus"]);
    assert_failure(&v, "INVALID_ARGUMENT", "\"bogus\"");
    ok(&on(
        &env,
        &t,
        &["network", "requests", "--type", "XHR,websocket"],
    ));

    // The text of one request: its post data, and a body cut at 1 MiB says so.
    let fast = find(&all, "/o/fast.json");
    let run = request_text(&env, &t, fast);
    assert!(
        run.stdout.contains("post_data: 7 bytes\na=1&b=2\n"),
        "{run:?}"
    );
    // A body past the 64 KiB that comes with the report is asked for when shown, and one past
    // 1 MiB is cut there, as a response body is.
    let upload = find(&all, "/o/upload.json");
    let v = request_of(&env, &t, upload);
    let short = v.to_string().chars().take(600).collect::<String>();
    assert_eq!(
        v["data"]["post_data"].as_str().map(str::len),
        Some(1024 * 1024),
        "{short}"
    );
    assert_eq!(v["meta"]["truncated"], true, "{short}");
    assert!(
        v["meta"]["warnings"]
            .to_string()
            .contains("request body (1048676 bytes) is cut"),
        "{}",
        v["meta"]["warnings"]
    );
    let big_req = find(&all, "/o/big.txt");
    let run = request_text(&env, &t, big_req);
    assert!(
        run.stdout.contains(&format!(
            "body: {} bytes (utf8), cut: the first 1048576 shown",
            big.len()
        )),
        "{}",
        &run.stdout[..run.stdout.len().min(600)]
    );
    let v = request_of(&env, &t, big_req);
    assert_eq!(v["meta"]["truncated"], true);

    // A HAR file written while a request is in flight says so, in the warnings and the entry.
    ok(&on(
        &env,
        &t,
        &["network", "har", "start", "--content", "none"],
    ));
    // Request bodies past the 64 KiB that come with Chromium's report are asked for, whatever
    // `--content` says (as the smaller ones are written): text as text, binary as base64.
    value(
        &env,
        &t,
        "Promise.all([fetch('/o/upload.json?text', {method: 'POST', body: 'z'.repeat(100 * 1024)}).then(r => r.text()), \
         fetch('/o/upload.json?binary', {method: 'POST', body: new Uint8Array(70 * 1024).fill(255)}).then(r => r.text())]).then(() => 1)",
    );
    settle(&env, &t);
    value(&env, &t, "fetch('/o/hang.json'); 1");
    listed(&env, &t, "/o/hang.json");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("pending.har");
    let v = on(
        &env,
        &t,
        &["network", "har", "stop", &path.display().to_string()],
    );
    ok(&v);
    let warned = v["meta"]["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| {
            w.as_str()
                .is_some_and(|w| w.starts_with("1 request was still in flight"))
        });
    assert!(warned, "{v}");
    let har = read_har(&path);
    let text = &har_entry(&har, "/o/upload.json?text")["request"];
    assert_eq!(
        text["postData"]["text"].as_str().map(str::len),
        Some(100 * 1024),
        "{}",
        text["postData"]["mimeType"]
    );
    assert_eq!(text["bodySize"], 100 * 1024);
    assert!(text["postData"].get("comment").is_none());
    let binary = &har_entry(&har, "/o/upload.json?binary")["request"];
    let decoded = binary["postData"]["text"]
        .as_str()
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    assert_eq!(decoded, Some(vec![255u8; 70 * 1024]));
    assert_eq!(binary["bodySize"], 70 * 1024);
    assert!(
        binary["postData"]["comment"]
            .as_str()
            .is_some_and(|c| c.contains("base64")),
        "{}",
        binary["postData"]["comment"]
    );
    let e = har_entry(&har, "/o/hang.json");
    assert!(
        e["comment"]
            .as_str()
            .is_some_and(|c| c.contains("still in flight")),
        "{e}"
    );
}
