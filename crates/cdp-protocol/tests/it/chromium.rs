//! Real headless Chromium: launch, calls, sessions, navigation, close, connect, launch errors.

use cdp_protocol::process::{Mismatch, ProcessIdentity, ProcessStatus, Signal};
use cdp_protocol::testing::{
    FixtureServer, chromium_available, launch_test_browser, open_blank_page,
};
use cdp_protocol::{Browser, CdpError, LaunchOptions, browser, connect, page, runtime, target};
use std::path::Path;
use std::time::{Duration, Instant};

/// Live (non-zombie) processes whose command line mentions `needle`.
fn live_processes_mentioning(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if !String::from_utf8_lossy(&cmdline).contains(needle) {
            continue;
        }
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .and_then(|(_, r)| r.split_whitespace().next().map(str::to_owned))
            });
        if matches!(state.as_deref(), Some(st) if st != "Z" && st != "X") {
            out.push(pid);
        }
    }
    out
}

/// Waits (bounded) until no live process mentions `needle`.
async fn assert_all_gone(needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = live_processes_mentioning(needle);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes still running for {needle}: {left:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn pid_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().next().map(|st| st != "Z"))
        })
        .unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn launch_navigate_evaluate_close_leaves_no_process() {
    assert!(chromium_available(), "Chromium is required for this test");
    let server = FixtureServer::start().await;
    server.route(
        "/index.html",
        "text/html",
        "<!doctype html><title>Fixture Title</title><p id=p>hello</p>",
    );
    let b = launch_test_browser().await;
    let pid = b.pid().expect("pid");
    let profile = b.user_data_dir().to_path_buf();
    let profile_str = profile.display().to_string();
    assert!(pid_alive(pid));

    let root = b.connection().browser();
    let version = root.send(&browser::GetVersion).await.unwrap();
    assert!(
        version.product.contains("Chrom"),
        "product: {}",
        version.product
    );
    assert!(!version.protocol_version.is_empty());

    let (_, tab) = open_blank_page(&b).await.unwrap();
    assert!(tab.id().is_some());

    let mut loads = tab.subscribe::<page::LoadEventFired>();
    tab.send(&page::Enable).await.unwrap();
    let nav = tab
        .send(&page::Navigate {
            url: server.url("/index.html"),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(nav.error_text, None);
    tokio::time::timeout(Duration::from_secs(10), loads.recv())
        .await
        .expect("load event within 10 s")
        .expect("stream open")
        .expect("decodes");

    let title = tab
        .send(&runtime::Evaluate {
            expression: "document.title".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(title.result.value, Some(serde_json::json!("Fixture Title")));
    assert!(title.exception_details.is_none());

    let thrown = tab
        .send(&runtime::Evaluate {
            expression: "throw new Error('boom')".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let details = thrown.exception_details.expect("exception details");
    assert!(details.message().contains("boom"), "{}", details.message());

    let frames = tab.send(&page::GetFrameTree).await.unwrap();
    assert_eq!(frames.frame_tree.frame.url, server.url("/index.html"));

    b.close().await.unwrap();
    assert!(b.connection().is_closed());
    assert!(!pid_alive(pid), "browser pid {pid} still alive");
    assert_all_gone(&profile_str).await;
    assert!(!profile.exists(), "temporary profile removed");
    // Calls after close fail at once.
    let r = tab.send(&page::Enable).await;
    assert!(matches!(r, Err(CdpError::ConnectionClosed)), "{r:?}");
    // Closing twice is harmless.
    b.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_target_fails_its_sessions_calls_with_session_closed() {
    let b = launch_test_browser().await;
    let root = b.connection().browser();
    let (target_id, tab) = open_blank_page(&b).await.unwrap();
    let mut detached = root.subscribe::<target::DetachedFromTarget>();
    root.send(&target::CloseTarget {
        target_id: target_id.clone(),
    })
    .await
    .unwrap();
    let ev = tokio::time::timeout(Duration::from_secs(10), detached.recv())
        .await
        .expect("detached event")
        .unwrap()
        .unwrap();
    assert_eq!(Some(&ev.session_id), tab.id());
    let r = tab.send(&page::Enable).await;
    assert!(matches!(r, Err(CdpError::SessionClosed { .. })), "{r:?}");
    b.close().await.unwrap();
}

/// Waits (bounded) until the process is gone and reaped: no zombie of ours is left.
pub async fn assert_reaped(identity: &ProcessIdentity) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let status = identity.status();
        if status == ProcessStatus::NotOurs(Mismatch::NoProcess) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "process {} is still {status:?}",
            identity.pid
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_browser_kills_and_reaps_it() {
    let b = launch_test_browser().await;
    let identity = b.identity().expect("identity").clone();
    assert_eq!(identity.status(), ProcessStatus::Running);
    assert_eq!(identity.user_data_dir.as_deref(), Some(b.user_data_dir()));
    let profile = b.user_data_dir().display().to_string();
    drop(b);
    assert_reaped(&identity).await;
    assert_all_gone(&profile).await;
}

/// Set in the child run of [`a_browser_dropped_by_a_panic_is_ended_before_the_process_exits`].
const PANIC_CHILD: &str = "CDP_TEST_PANIC_WITH_A_BROWSER";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_dropped_by_a_panic_is_ended_before_the_process_exits() {
    if std::env::var_os(PANIC_CHILD).is_some() {
        // The child: a test that fails while it holds a browser; its process exits right after.
        let b = launch_test_browser().await;
        println!("profile={}", b.user_data_dir().display());
        panic!("a failing test holding a browser");
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(exe)
            .args([
                "--exact",
                "chromium::a_browser_dropped_by_a_panic_is_ended_before_the_process_exits",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(PANIC_CHILD, "1")
            .output()
    })
    .await
    .expect("join")
    .expect("run the child test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "the child test should fail: {stdout}"
    );
    let profile = stdout
        .lines()
        .find_map(|l| l.split_once("profile=").map(|(_, p)| p.trim()))
        .unwrap_or_else(|| panic!("the child launched no browser: {stdout}"))
        .to_string();
    // Already gone when the child's process is: nothing of it may be left to wait for.
    let left = live_processes_mentioning(&profile);
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    let _ = std::fs::remove_dir_all(&profile);
    assert!(
        left.is_empty(),
        "the failed test left its browser: {left:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_via_http_endpoint_of_a_launched_browser() {
    let b = launch_test_browser().await;
    let port = url::Url::parse(b.ws_url()).unwrap().port().unwrap();
    let (conn, ws) = connect(&format!("http://127.0.0.1:{port}"), &[])
        .await
        .unwrap();
    assert_eq!(ws, b.ws_url());
    let v = conn.browser().send(&browser::GetVersion).await.unwrap();
    assert!(!v.product.is_empty());
    // And straight to the ws:// URL, with an extra header.
    let (conn2, _) = connect(b.ws_url(), &[("X-Test".into(), "1".into())])
        .await
        .unwrap();
    let targets = conn2
        .browser()
        .send(&target::GetTargets::default())
        .await
        .unwrap();
    assert!(targets.target_infos.iter().any(|t| t.r#type == "page"));
    conn.close().await;
    conn2.close().await;
    b.close().await.unwrap();
}

#[tokio::test]
async fn connect_errors_are_clear() {
    let err = connect("http://127.0.0.1:1", &[]).await.unwrap_err();
    assert!(matches!(err, CdpError::Connect { .. }), "{err:?}");
    assert!(err.to_string().contains("127.0.0.1:1"), "{err}");
    let err = connect("ftp://x", &[]).await.unwrap_err();
    assert!(matches!(err, CdpError::Connect { .. }), "{err:?}");
}

#[tokio::test]
async fn a_bad_executable_path_gives_a_clear_error() {
    let path = "/nonexistent/definitely-not-chromium";
    let err = Browser::launch(LaunchOptions::default().executable(path))
        .await
        .unwrap_err();
    assert!(matches!(err, CdpError::Launch { .. }), "{err:?}");
    assert!(err.to_string().contains(path), "{err}");
}

#[tokio::test]
async fn a_browser_that_exits_early_reports_status_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fake-chromium");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'first line' >&2\necho 'fatal: cannot open display' >&2\nexit 3\n",
    )
    .unwrap();
    make_executable(&script);
    let profile = dir.path().join("profile");
    let err = Browser::launch(
        LaunchOptions::default()
            .executable(&script)
            .user_data_dir(&profile),
    )
    .await
    .unwrap_err();
    match &err {
        CdpError::BrowserExited {
            path,
            status,
            stderr_tail,
        } => {
            assert_eq!(path, &script.display().to_string());
            assert!(status.contains('3'), "{status}");
            assert!(
                stderr_tail.contains("fatal: cannot open display"),
                "{stderr_tail}"
            );
        }
        other => panic!("expected BrowserExited, got {other:?}"),
    }
    assert!(err.to_string().contains("fatal: cannot open display"));
}

#[tokio::test]
async fn a_browser_that_never_becomes_ready_times_out_and_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("slow-chromium");
    std::fs::write(&script, "#!/bin/sh\necho 'starting' >&2\nexec sleep 30\n").unwrap();
    make_executable(&script);
    let started = Instant::now();
    let err = Browser::launch(
        LaunchOptions::default()
            .executable(&script)
            .user_data_dir(dir.path().join("profile"))
            .startup_timeout(Duration::from_millis(500)),
    )
    .await
    .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(err, CdpError::LaunchTimeout { .. }), "{err:?}");
    assert!(err.to_string().contains("starting"), "{err}");
    assert_all_gone(&script.display().to_string()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn detached_browser_survives_detach_and_can_be_reconnected() {
    let dir = tempfile::tempdir().unwrap();
    let b = Browser::launch(
        LaunchOptions::default()
            .user_data_dir(dir.path().join("profile"))
            .detached(true),
    )
    .await
    .unwrap();
    let d = b.detach();
    let pid = d.pid.unwrap();
    assert!(pid_alive(pid));
    let identity = d.identity.clone().expect("identity");
    assert_eq!(identity.pid, pid);
    assert_eq!(identity.status(), ProcessStatus::Running);
    // It serialises (the CLI records it) and still checks out after a round trip.
    let back: ProcessIdentity =
        serde_json::from_str(&serde_json::to_string(&identity).unwrap()).unwrap();
    assert_eq!(back.status(), ProcessStatus::Running);
    let (conn, _) = connect(&d.ws_url, &[]).await.unwrap();
    conn.browser().send(&browser::GetVersion).await.unwrap();
    // Clean up: Browser.close ends it; the process is not our child any more to reap, so wait
    // for it to disappear (it is reaped by its parent or shows as a zombie of ours).
    let _ = conn.browser().send(&browser::Close).await;
    assert_all_gone(&d.user_data_dir.display().to_string()).await;
    // It is still our child: waiting through the identity reaps it, leaving no zombie.
    assert!(identity.wait_exit(Duration::from_secs(10)).await);
    assert_reaped(&identity).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_crashes_is_reaped_without_a_close() {
    let b = launch_test_browser().await;
    let identity = b.identity().expect("identity").clone();
    identity.signal(Signal::Kill).expect("SIGKILL");
    // Not closed, not dropped: the launcher reaps it by itself, so no zombie lingers.
    assert_reaped(&identity).await;
    assert!(b.identity().is_some());
    b.close().await.unwrap();
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(path).unwrap().permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(path, perm).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_cut_short_by_a_timeout_still_kills_on_drop() {
    let b = launch_test_browser().await;
    let identity = b.identity().expect("identity").clone();
    let profile = b.user_data_dir().display().to_string();
    let _ = tokio::time::timeout(Duration::from_millis(1), b.close()).await;
    drop(b);
    assert_reaped(&identity).await;
    assert_all_gone(&profile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_browser_dies_pending_calls_fail_at_once() {
    let b = launch_test_browser().await;
    let (_, tab) = open_blank_page(&b).await.unwrap();
    // A call that never completes on its own.
    let pending = {
        let tab = tab.clone();
        tokio::spawn(async move {
            tab.send_timeout(
                &runtime::Evaluate {
                    expression: "new Promise(() => {})".into(),
                    await_promise: Some(true),
                    ..Default::default()
                },
                Duration::from_secs(60),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pid = b.pid().unwrap();
    let identity = b.identity().expect("identity").clone();
    let profile = b.user_data_dir().display().to_string();
    identity
        .signal(Signal::Kill)
        .expect("SIGKILL through the identity");
    let started = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .expect("the pending call fails at once, not after its 60 s deadline")
        .unwrap();
    assert!(matches!(r, Err(CdpError::ConnectionClosed)), "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    tokio::time::timeout(Duration::from_secs(5), b.connection().closed())
        .await
        .expect("connection reports closed");
    // Closing a dead browser still reaps it and succeeds.
    b.close().await.unwrap();
    assert!(!pid_alive(pid));
    assert_eq!(
        identity.status(),
        ProcessStatus::NotOurs(Mismatch::NoProcess)
    );
    // Its orphaned helpers exit too.
    assert_all_gone(&profile).await;
}
