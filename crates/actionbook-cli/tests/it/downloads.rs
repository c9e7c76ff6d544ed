//! Downloads: saved in the session's folder under their own names (never replacing one another),
//! told of by the command that began them, waited for, moved, and attributed to the tab whose page
//! or frame (an out-of-process one too) began them.

use std::io::{Read, Write};
use std::path::Path;

use serde_json::Value;

use crate::need_chromium;
use crate::support::{Env, assert_failure, eventually, on, site, text};

const CSV: &str = "a,b\n1,2\n";

/// A server on its own port that sends an attachment's headers and part of its body, then closes:
/// the browser interrupts the download. It serves one request until `stop` is set (then `join`
/// returns at once, whatever the browser did).
struct CutShort {
    url: String,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl CutShort {
    fn start() -> CutShort {
        use std::sync::atomic::{AtomicBool, Ordering};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let _ = listener.set_nonblocking(true);
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let accepted = loop {
                match listener.accept() {
                    Ok((s, _)) => break Some(s),
                    Err(_) if !stopped.load(Ordering::SeqCst) => {
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    Err(_) => break None,
                }
            };
            let Some(mut s) = accepted else { return };
            let _ = s.set_nonblocking(false);
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\
                  Content-Disposition: attachment; filename=\"cut.bin\"\r\n\
                  Content-Length: 100000\r\nConnection: close\r\n\r\n",
            );
            let _ = s.write_all(&[7u8; 1000]);
            let _ = s.flush();
            std::thread::sleep(std::time::Duration::from_millis(300));
        });
        CutShort {
            url: format!("http://127.0.0.1:{port}/cut.bin"),
            stop,
            thread,
        }
    }

    fn stop(self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = self.thread.join();
    }
}

fn path_of(v: &Value) -> String {
    assert_eq!(v["ok"], true, "{v}");
    v["data"]["download"]["path"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn warned(v: &Value, part: &str) -> bool {
    v["meta"]["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w.as_str().is_some_and(|w| w.contains(part)))
}

#[test]
fn downloads_are_saved_named_told_of_and_waited_for() {
    need_chromium!();
    let f = site();
    let attachment = [("Content-Disposition", "attachment; filename=\"report.csv\"")];
    f.route_with("/report.csv", "200 OK", &attachment, "text/csv", CSV);
    let cut = CutShort::start();
    let cut_url = cut.url.clone();
    f.html(
        "/dlframe.html",
        r#"<title>Remote</title><a id="oop-dl" href="/report.csv">remote report</a>"#,
    );
    let remote = f.cross_site_url("/dlframe.html");
    f.html(
        "/dl.html",
        &format!(
            r#"<title>Downloads</title>
<a id="csv" href="/report.csv">report</a>
<a id="data" href="data:text/plain,hello" download="hello.txt">hello</a>
<button id="later" onclick="setTimeout(() => {{ const a = document.createElement('a');
  a.href = window.URL.createObjectURL(new Blob(['later'])); a.download = 'later.txt'; a.click(); }}, 800)">later</button>
<a id="cut" href="{cut_url}">cut</a>
<iframe src="{remote}"></iframe>"#
        ),
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/dl.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let folder = env.home.join("downloads").join(&sid);
    let wait = |extra: &[&str]| {
        on(
            &env,
            &t,
            &[&["wait", "download", "--timeout", "10000"][..], extra].concat(),
        )
    };

    // A click on an attachment link: told of (begun or saved), waited for, in the session's
    // folder under its own name.
    let v = on(&env, &t, &["click", "#csv"]);
    assert_eq!(v["ok"], true, "{v}");
    let v = if warned(&v, "download d1") {
        v
    } else {
        on(&env, &t, &["title"])
    };
    assert!(warned(&v, "download d1"), "no notice of d1: {v}");
    let v = wait(&[]);
    assert_eq!(v["data"]["download"]["id"], "d1", "{v}");
    assert_eq!(v["data"]["download"]["state"], "completed", "{v}");
    assert_eq!(v["data"]["download"]["tab"], "t1", "{v}");
    let first = path_of(&v);
    assert_eq!(Path::new(&first), folder.join("report.csv"), "{v}");
    assert_eq!(std::fs::read_to_string(&first).ok().as_deref(), Some(CSV));

    // The same name again: a second file, the first kept.
    assert_eq!(on(&env, &t, &["click", "#csv"])["ok"], true);
    let second = path_of(&wait(&[]));
    assert_eq!(Path::new(&second), folder.join("report (1).csv"));
    assert_eq!(std::fs::read_to_string(&first).ok().as_deref(), Some(CSV));
    assert_eq!(std::fs::read_to_string(&second).ok().as_deref(), Some(CSV));

    // A `download` attribute link, then moved where the caller wants it.
    assert_eq!(on(&env, &t, &["click", "#data"])["ok"], true);
    let elsewhere = env.home.join("saved-hello.txt");
    let v = wait(&["--save-as", &elsewhere.display().to_string()]);
    assert_eq!(Path::new(&path_of(&v)), elsewhere, "{v}");
    assert_eq!(
        std::fs::read_to_string(&elsewhere).ok().as_deref(),
        Some("hello")
    );
    assert!(
        !folder.join("hello.txt").exists(),
        "the file was copied, not moved"
    );

    // goto of a URL served as an attachment: no page, said so, not retryable; the tab stays.
    let v = on(&env, &t, &["goto", &f.url("/report.csv")]);
    assert_failure(
        &v,
        "NAVIGATION_FAILED",
        "is a download, not a page: download d4",
    );
    assert_eq!(v["error"]["retryable"], false, "{v}");
    assert_eq!(on(&env, &t, &["url"])["data"]["value"], f.url("/dl.html"));
    assert_eq!(
        path_of(&wait(&["d4"])),
        folder.join("report (2).csv").display().to_string()
    );

    // A download that begins after the wait started is waited for.
    assert_eq!(on(&env, &t, &["click", "#later"])["ok"], true);
    let v = wait(&[]);
    assert_eq!(v["data"]["download"]["id"], "d5", "{v}");
    assert_eq!(
        std::fs::read_to_string(path_of(&v)).ok().as_deref(),
        Some("later")
    );

    // One begun by an out-of-process iframe is the tab's too.
    assert_eq!(on(&env, &t, &["click", "#oop-dl"])["ok"], true);
    let v = wait(&[]);
    assert_eq!(v["data"]["download"]["id"], "d6", "{v}");
    assert_eq!(v["data"]["download"]["tab"], "t1", "{v}");
    assert_eq!(Path::new(&path_of(&v)), folder.join("report (3).csv"));

    // One the server cuts short fails the wait with its own code.
    assert_eq!(on(&env, &t, &["click", "#cut"])["ok"], true);
    let v = wait(&[]);
    assert_failure(&v, "DOWNLOAD_FAILED", "download d7 of");
    assert_eq!(v["error"]["details"]["id"], "d7", "{v}");
    cut.stop();

    // Nothing left to wait for: a timeout saying none began; bad ids are refused.
    let v = on(&env, &t, &["wait", "download", "--timeout", "400"]);
    assert_failure(&v, "TIMEOUT", "browser wait download");
    assert_eq!(
        v["error"]["details"]["observed_value"]["began"], false,
        "{v}"
    );
    assert_failure(
        &wait(&["d99"]),
        "INVALID_ARGUMENT",
        "no download d99 began yet",
    );
    assert_failure(&wait(&["x"]), "INVALID_ARGUMENT", "not a download id");

    // new-tab of an attachment URL: said so too, and its tab shows a blank page (not the page
    // a new tab is opened on first, which only the engine should see).
    let v = env.json(&[
        "browser",
        "new-tab",
        &f.url("/report.csv"),
        "--session",
        &sid,
    ]);
    assert_failure(
        &v,
        "NAVIGATION_FAILED",
        "is a download, not a page: download d8",
    );
    let v = on(&env, &["--session", sid.as_str(), "--tab", "t2"], &["url"]);
    assert_eq!(v["data"]["value"], "about:blank", "{v}");

    // The list: every one of the tab, in order, with what became of it.
    let v = on(&env, &t, &["downloads"]);
    let listed: Vec<(String, String)> = v["data"]["downloads"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["id"].as_str().unwrap_or_default().to_string(),
                d["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = (1..=7)
        .map(|n| {
            let state = if n == 7 { "canceled" } else { "completed" };
            (format!("d{n}"), state.to_string())
        })
        .collect();
    assert_eq!(listed, want, "{v}");
    // start --open-url of one: a warning saying so, in the new session's own folder.
    let v = env.json(&[
        "browser",
        "start",
        "--headless",
        "--open-url",
        &f.url("/report.csv"),
    ]);
    assert!(warned(&v, "is a download, not a page: download d1"), "{v}");
    let other = v["context"]["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let v = on(
        &env,
        &["--session", other.as_str(), "--tab", "t1"],
        &["wait", "download", "--timeout", "10000"],
    );
    let expected = env.home.join("downloads").join(&other).join("report.csv");
    assert_eq!(Path::new(&path_of(&v)), expected, "{v}");

    let text = text(&env, &t, &["downloads"]).ok().stdout;
    assert!(text.contains("7 downloads"), "{text}");
    assert!(
        text.contains(&format!(
            "d1  completed  {} B  \"report.csv\"  {first}",
            CSV.len()
        )),
        "{text}"
    );
}

/// A server on its own port that sends an attachment slowly: `chunks` pieces of 1000 bytes, one
/// every `gap`, for every request it takes until dropped.
struct Trickle {
    url: String,
}

impl Trickle {
    fn start(chunks: usize, gap: std::time::Duration) -> Trickle {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(mut s) = s else { return };
                std::thread::spawn(move || {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf);
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\
                         Content-Disposition: attachment; filename=\"slow.bin\"\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n",
                        chunks * 1000
                    );
                    let _ = s.write_all(head.as_bytes());
                    for _ in 0..chunks {
                        if s.write_all(&[5u8; 1000]).and_then(|()| s.flush()).is_err() {
                            return;
                        }
                        std::thread::sleep(gap);
                    }
                });
            }
        });
        Trickle {
            url: format!("http://127.0.0.1:{port}/slow.bin"),
        }
    }
}

#[test]
fn the_download_log_outlives_the_daemon() {
    need_chromium!();
    let f = site();
    let attachment = [("Content-Disposition", "attachment; filename=\"report.csv\"")];
    f.route_with("/report.csv", "200 OK", &attachment, "text/csv", CSV);
    let slow = Trickle::start(20, std::time::Duration::from_millis(150));
    f.html(
        "/dl.html",
        &format!(
            r#"<title>Downloads</title><a id="csv" href="/report.csv">report</a>
<a id="slow" href="{}">slow</a>"#,
            slow.url
        ),
    );
    let env = Env::new();
    let sid = env.start(&["--open-url", &f.url("/dl.html")]);
    let t = ["--session", sid.as_str(), "--tab", "t1"];
    let folder = env.home.join("downloads").join(&sid);
    let wait = |extra: &[&str]| {
        on(
            &env,
            &t,
            &[&["wait", "download", "--timeout", "15000"][..], extra].concat(),
        )
    };
    assert_eq!(on(&env, &t, &["click", "#csv"])["ok"], true);
    let first = path_of(&wait(&[]));

    // A new daemon lists what the old one saw, and a download that ran across the restart is
    // followed to its end.
    assert_eq!(on(&env, &t, &["click", "#slow"])["ok"], true);
    // The log is written just after each change: the daemon is killed once it holds the new one.
    let log = env.home.join("sessions").join(&sid).join("downloads.json");
    eventually("d2 in the kept log", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains(r#""id":"d2""#))
    });
    env.kill_daemon();
    let v = on(&env, &t, &["downloads"]);
    let ids: Vec<&str> = v["data"]["downloads"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["id"].as_str())
        .collect();
    assert_eq!(ids, ["d1", "d2"], "{v}");
    assert_eq!(v["data"]["downloads"][0]["path"], first.as_str(), "{v}");
    let v = wait(&["d2"]);
    assert_eq!(v["data"]["download"]["state"], "completed", "{v}");
    let slow_file = path_of(&v);
    assert_eq!(Path::new(&slow_file), folder.join("slow.bin"), "{v}");
    assert_eq!(
        std::fs::metadata(&slow_file).map(|m| m.len()).ok(),
        Some(20_000)
    );

    // What was waited for is not waited for again; a new download takes the next id.
    env.kill_daemon();
    let v = on(&env, &t, &["wait", "download", "--timeout", "300"]);
    assert_failure(&v, "TIMEOUT", "browser wait download");
    assert_eq!(on(&env, &t, &["click", "#csv"])["ok"], true);
    let v = wait(&[]);
    assert_eq!(v["data"]["download"]["id"], "d3", "{v}");
    assert_eq!(Path::new(&path_of(&v)), folder.join("report (1).csv"));
}
