//! The catalogue against a real store and a remote API played by a local HTTP server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use envelope::AreaElement;

use super::*;
use crate::manual::ManualData;
use crate::store::StoreOptions;
use crate::store_tests::area;

/// A canned answer: status, content type, body, delay before answering.
#[derive(Clone)]
struct Canned {
    status: u16,
    content_type: &'static str,
    body: String,
    delay: Duration,
}

fn json(body: &str) -> Canned {
    Canned {
        status: 200,
        content_type: "application/json",
        body: body.to_string(),
        delay: Duration::ZERO,
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    target: String,
    api_key: Option<String>,
}

/// An HTTP/1.1 server on 127.0.0.1 answering by path prefix; stops when dropped.
struct ApiServer {
    port: u16,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<Seen>>>,
    thread: Option<JoinHandle<()>>,
}

impl ApiServer {
    fn start(routes: Vec<(&'static str, Canned)>) -> ApiServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (stop2, seen2) = (stop.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let routes = routes.clone();
                let seen = seen2.clone();
                std::thread::spawn(move || answer(conn, &routes, &seen));
            }
        });
        ApiServer {
            port,
            stop,
            seen,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn answer(conn: TcpStream, routes: &[(&'static str, Canned)], seen: &Mutex<Vec<Seen>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(conn);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let target = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut api_key = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("x-api-key")
        {
            api_key = Some(v.trim().to_string());
        }
    }
    seen.lock().unwrap().push(Seen {
        target: target.clone(),
        api_key,
    });
    let canned = routes
        .iter()
        .find(|(prefix, _)| target.starts_with(prefix))
        .map(|(_, c)| c.clone())
        .unwrap_or(Canned {
            status: 404,
            content_type: "application/json",
            body: "{\"success\":false,\"error\":{\"code\":\"NOT_FOUND\",\"message\":\"nothing here\"}}".into(),
            delay: Duration::ZERO,
        });
    std::thread::sleep(canned.delay);
    let mut conn = reader.into_inner();
    let head = format!(
        "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        canned.status,
        canned.content_type,
        canned.body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(canned.body.as_bytes());
    let _ = conn.flush();
    let mut rest = [0u8; 64];
    let _ = conn.read(&mut rest);
}

fn el(id: &str, d: &str) -> AreaElement {
    AreaElement {
        element_id: id.into(),
        element_type: "input".into(),
        description: d.into(),
        css: Some(format!("#{id}")),
        xpath: None,
        allow_methods: vec!["fill".into()],
    }
}

fn local_manuals(dir: &tempfile::TempDir, remote: Option<RemoteApi>) -> Manuals {
    let mut store = Store::open_with(
        &dir.path().join("manuals.db"),
        &StoreOptions {
            bundled: false,
            ..StoreOptions::default()
        },
    )
    .unwrap();
    store
        .upsert_all(
            &[
                area(
                    "google.com:/login:default",
                    "Google Login",
                    "Login form",
                    vec![el("email", "Email input")],
                ),
                area(
                    "github.com:/login:default",
                    "GitHub login",
                    "Sign in to GitHub",
                    vec![],
                ),
            ],
            Origin::Recorded,
        )
        .unwrap();
    Manuals::new(store, remote)
}

fn api(server: &ApiServer) -> RemoteApi {
    RemoteApi::new(
        &server.url(),
        Some("key-123".into()),
        Duration::from_millis(800),
    )
    .unwrap()
}

const REMOTE_SEARCH: &str = r#"{"success":true,"data":{"query":"login","total":3,"items":[
  {"area_id":"google.com:/login:default","title":"","summary":"","score":0.4,"url":""},
  {"area_id":"remote.dev:/login:default","title":"Remote login","summary":"From the API","score":1.0,"url":"https://remote.dev/login"},
  {"area_id":"other.dev:/x:default","title":"Other","summary":"","score":0.3,"url":"https://other.dev/x"}]}}"#;

#[test]
fn search_merges_local_and_remote() {
    let server = ApiServer::start(vec![("/api/search_actions", json(REMOTE_SEARCH))]);
    let dir = tempfile::tempdir().unwrap();
    let m = local_manuals(&dir, Some(api(&server)));
    let answer = m.search(&SearchQuery::new("login")).unwrap();
    assert!(answer.warnings.is_empty(), "{:?}", answer.warnings);
    let ids: Vec<&str> = answer
        .data
        .items
        .iter()
        .map(|i| i.area_id.as_str())
        .collect();
    // Local best (1.0) before the remote's equal 1.0; the duplicate appears once, with its
    // local fields and the higher score.
    assert_eq!(ids[0], "google.com:/login:default");
    assert_eq!(ids[1], "remote.dev:/login:default");
    assert_eq!(
        ids.iter()
            .filter(|i| **i == "google.com:/login:default")
            .count(),
        1
    );
    assert_eq!(answer.data.items[0].title, "Google Login");
    assert_eq!(answer.data.items[0].score, 1.0);
    assert_eq!(ids.len(), 4);
    let p = answer.pagination.unwrap();
    assert_eq!(
        (p.page, p.page_size, p.total, p.has_more),
        (1, 10, 4, false)
    );
    let seen = server.seen();
    assert_eq!(seen[0].api_key.as_deref(), Some("key-123"));
    assert!(
        seen[0]
            .target
            .starts_with("/api/search_actions?query=login&page=1&page_size=10"),
        "{}",
        seen[0].target
    );

    // Page 2 of size 2 is the merged list's third and fourth hits.
    let mut q = SearchQuery::new("login");
    q.page = 2;
    q.page_size = 2;
    let p2 = m.search(&q).unwrap();
    assert_eq!(p2.data.items.len(), 2);
    assert_eq!(p2.pagination.unwrap().total, 4);
    assert!(
        !p2.data
            .items
            .iter()
            .any(|i| ids[..2].contains(&i.area_id.as_str()))
    );
}

#[test]
fn a_down_or_slow_or_failing_remote_gives_local_results_and_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // Down: a port where connections are refused. It stays the local end of a connected socket
    // for the whole test, so no server (of this test or another) can be given it.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let held = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let down = held.local_addr().unwrap().port();
    let slow = ApiServer::start(vec![(
        "/api/",
        Canned {
            delay: Duration::from_millis(1_500),
            ..json(REMOTE_SEARCH)
        },
    )]);
    let failing = ApiServer::start(vec![(
        "/api/",
        Canned {
            status: 500,
            ..json("{\"success\":false,\"error\":{\"message\":\"database on fire\"}}")
        },
    )]);
    let garbage = ApiServer::start(vec![("/api/", json("{\"neither\": \"items\"}"))]);
    for (base, needle) in [
        (format!("http://127.0.0.1:{down}"), ""),
        (slow.url(), "imeout"),
        (failing.url(), "HTTP 500: database on fire"),
        (garbage.url(), "items"),
    ] {
        let remote = RemoteApi::new(&base, None, Duration::from_millis(500)).unwrap();
        let m = local_manuals(&dir, Some(remote));
        let answer = m.search(&SearchQuery::new("google login")).unwrap();
        assert_eq!(
            answer.data.items[0].area_id, "google.com:/login:default",
            "{base}"
        );
        assert_eq!(answer.pagination.unwrap().total, 2);
        assert_eq!(answer.warnings.len(), 1, "{base}");
        let w = &answer.warnings[0];
        assert!(
            w.contains(&base) && w.contains(needle) && w.contains("local results only"),
            "{w}"
        );
        let got = m.get("google.com:/login:default").unwrap();
        assert_eq!(got.data.elements.len(), 1);
        assert_eq!(got.warnings.len(), 1);
    }
}

#[test]
fn get_merges_elements_and_falls_back_to_the_remote() {
    let server = ApiServer::start(vec![
        (
            "/api/get_action_by_area_id?area_id=google.com%3A%2Flogin%3Adefault",
            json(
                r##"{"success":true,"data":{"area_id":"google.com:/login:default","url":"https://google.com/login","description":"","elements":[
                {"element_id":"email","type":"input","description":"remote email","css":"#other","xpath":null,"allow_methods":["fill"]},
                {"element_id":"password","type":"input","description":"Password input","css":"#pw","xpath":null,"allow_methods":["fill"]}]}}"##,
            ),
        ),
        (
            "/api/get_action_by_area_id?area_id=remote.dev",
            Canned {
                content_type: "text/plain",
                ..json(
                    "URL: https://remote.dev/login\nElement: user\nCSS: #user\nMethods: fill, type\n",
                )
            },
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let m = local_manuals(&dir, Some(api(&server)));
    let merged = m.get("google.com:/login:default").unwrap();
    let els: Vec<(&str, Option<&str>)> = merged
        .data
        .elements
        .iter()
        .map(|e| (e.element_id.as_str(), e.css.as_deref()))
        .collect();
    assert_eq!(
        els,
        vec![("email", Some("#email")), ("password", Some("#pw"))]
    );
    assert_eq!(merged.data.description, "Google Login page");
    let remote_only = m.get("remote.dev:/login:default").unwrap();
    assert_eq!(remote_only.data.url, "https://remote.dev/login");
    assert_eq!(
        remote_only.data.elements[0].allow_methods,
        vec!["fill", "type"]
    );
    assert!(matches!(
        m.get("nowhere.dev:/:default"),
        Err(ManualsError::AreaNotFound { area_id }) if area_id == "nowhere.dev:/:default"
    ));
}

#[test]
fn manual_prefers_the_remote_and_adds_local_groups() {
    let server = ApiServer::start(vec![(
        "/api/manual?site=github.com",
        json(
            r#"{"success":true,"data":{"name":"github.com","description":"GitHub REST API","authentication":null,
            "groups":[{"name":"issues","base_url":"https://api.github.com","actions":[{"name":"list_GET","method":"GET","path":"/issues","summary":"List issues"}]}]}}"#,
        ),
    )]);
    let dir = tempfile::tempdir().unwrap();
    let m = local_manuals(&dir, Some(api(&server)));
    let site = |s: &str| ManualRequest {
        site: s.into(),
        group: None,
        action: None,
    };
    let ManualData::Site(gh) = m.manual(&site("github.com")).unwrap().data else {
        panic!("level 1");
    };
    let groups: Vec<&str> = gh.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, vec!["issues", "/login:default"]);
    // The remote does not know google.com (404): the local manual answers, without a warning.
    let g = m.manual(&site("google.com")).unwrap();
    assert!(g.warnings.is_empty());
    assert!(matches!(g.data, ManualData::Site(ref s) if s.groups[0].actions[0].name == "email"));
    assert!(matches!(
        m.manual(&site("nowhere.dev")),
        Err(ManualsError::SiteNotFound { .. })
    ));
}

#[test]
fn record_import_export_list_delete() {
    use crate::record::{ElementFacts, PageFacts, RecordOptions, RecordedElement, build_area};
    let dir = tempfile::tempdir().unwrap();
    let mut m = local_manuals(&dir, None);
    let page = PageFacts {
        url: "https://shop.example/login".into(),
        title: "Shop sign in".into(),
    };
    let facts = ElementFacts {
        role: "textbox".into(),
        name: "Email".into(),
        tag: "input".into(),
        attributes: vec![("name".into(), "email".into())],
        frame_title: None,
    };
    let elements = vec![
        RecordedElement {
            facts: facts.clone(),
            css: Some("input[name=\"email\"]".into()),
            xpath: None,
        },
        RecordedElement {
            facts: ElementFacts {
                role: "button".into(),
                name: "Ghost".into(),
                tag: "button".into(),
                ..ElementFacts::default()
            },
            css: None,
            xpath: None,
        },
    ];
    let rec = build_area(
        &page,
        &RecordOptions::default(),
        &elements,
        crate::time::Timestamp::now(),
    )
    .unwrap();
    let first = m.record(&rec).unwrap();
    assert_eq!(first.data.action, Upsert::Created);
    assert_eq!(
        first.warnings,
        vec!["Ghost button not recorded: no selector matched exactly this element"]
    );
    assert_eq!(m.record(&rec).unwrap().data.action, Upsert::Updated);
    assert_eq!(m.list(Some("shop.example")).unwrap().data.areas.len(), 1);
    let hit = m.search(&SearchQuery::new("shop sign")).unwrap();
    assert_eq!(hit.data.items[0].area_id, "shop.example:/login:default");

    let exported = m.export(&[]).unwrap().data;
    assert_eq!(exported.areas.len(), 3);
    let file = dir.path().join("areas.json");
    std::fs::write(&file, exported.to_json_pretty()).unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let mut fresh = Manuals::new(
        Store::open_with(
            &dir2.path().join("m.db"),
            &StoreOptions {
                bundled: false,
                ..StoreOptions::default()
            },
        )
        .unwrap(),
        None,
    );
    let imported = fresh.import_file(&file).unwrap().data;
    assert_eq!((imported.created, imported.updated), (3, 0));
    assert_eq!(fresh.export(&[]).unwrap().data, exported);
    assert_eq!(fresh.import_file(&file).unwrap().data.updated, 3);
    fresh.delete("shop.example:/login:default").unwrap();
    assert!(matches!(
        fresh.export(&["shop.example:/login:default".into()]),
        Err(ManualsError::AreaNotFound { .. })
    ));
    assert!(matches!(
        fresh.import_file(&dir2.path().join("missing.json")),
        Err(ManualsError::ReadFile { .. })
    ));
}
