//! Process identity, identity-checked signals, the profile scan and reaping, with real
//! processes; and launches that are dropped, cancelled or out of budget, with fake browsers (a
//! shell script) and a real Chromium.

use crate::chromium::assert_reaped;
use crate::fake_peer::{FakePeer, echo_all};
use cdp_protocol::process::{
    self, Mismatch, OwnedChild, ProcessIdentity, ProcessStatus, Signal, Termination,
};
use cdp_protocol::testing::test_launch_options;
use cdp_protocol::{Browser, CdpError, LaunchOptions};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

fn spawn_sleep() -> Child {
    exec_done(
        Command::new("sleep")
            .arg("60")
            .spawn()
            .expect("spawn sleep"),
    )
}

/// A `sleep` whose argv carries `--user-data-dir=<dir>` (as its argv[0]).
fn spawn_profile_sleep(dir: &Path) -> Child {
    exec_done(
        Command::new("sleep")
            .arg0(format!("--user-data-dir={}", dir.display()))
            .arg("60")
            .spawn()
            .expect("spawn sleep"),
    )
}

/// The child once its exec is complete. `spawn` returns as soon as the kernel has begun the
/// exec, and until the new program's arguments are set up its `/proc/<pid>/cmdline` reads empty
/// (which the identity checks rightly take as "exiting, still ours"): a test that forges a
/// profile must look at the child's real command line. Bounded.
fn exec_done(child: Child) -> Child {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        let args = std::fs::read(format!("/proc/{}/cmdline", child.id())).unwrap_or_default();
        if args.split(|b| *b == 0).any(|a| a == b"60") {
            return child;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("the child {} never finished its exec", child.id());
}

fn end(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn identity_of_a_spawned_sleep() {
    let child = spawn_sleep();
    let id = ProcessIdentity::capture(child.id()).expect("identity");
    assert_eq!(id.pid, child.id());
    assert!(id.start_time > 0);
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_eq!(id.boot_id, boot.trim());
    assert_eq!(id.user_data_dir, None);
    assert_eq!(id.status(), ProcessStatus::Running);
    // A round trip through JSON (a session record) keeps it checkable.
    let json = serde_json::to_string(&id).unwrap();
    let back: ProcessIdentity = serde_json::from_str(&json).unwrap();
    assert_eq!(back, id);
    assert!(back.is_running());

    // Exited but not reaped: a zombie is not running.
    let mut child = child;
    child.kill().unwrap();
    let deadline = Instant::now() + T;
    while id.status() == ProcessStatus::Running {
        assert!(Instant::now() < deadline, "sleep did not die");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(id.status(), ProcessStatus::Zombie);
    child.wait().unwrap();
    assert_eq!(id.status(), ProcessStatus::NotOurs(Mismatch::NoProcess));
    assert_eq!(ProcessIdentity::capture(child.id()), None);
}

#[test]
fn a_forged_identity_is_not_ours_and_is_never_signalled() {
    let mut child = spawn_sleep();
    let real = ProcessIdentity::capture(child.id()).expect("identity");
    let reused = ProcessIdentity {
        start_time: real.start_time + 1,
        ..real.clone()
    };
    let rebooted = ProcessIdentity {
        boot_id: "00000000-0000-0000-0000-000000000000".into(),
        ..real.clone()
    };
    let other_profile = real.clone().with_user_data_dir("/nonexistent/profile");
    for (forged, mismatch) in [
        (&reused, Mismatch::PidReused),
        (&rebooted, Mismatch::OtherBoot),
        (&other_profile, Mismatch::OtherProfile),
    ] {
        assert_eq!(forged.status(), ProcessStatus::NotOurs(mismatch));
        match forged.signal(Signal::Kill) {
            Err(CdpError::NotOurProcess { pid, mismatch: m }) => {
                assert_eq!((pid, m), (child.id(), mismatch));
            }
            other => panic!("a forged identity was signalled: {other:?}"),
        }
        assert_eq!(
            forged.terminate_blocking(Duration::from_millis(10)),
            Termination::NotOurs(mismatch)
        );
        assert!(!forged.reap_if_child());
    }
    // The real process never got a signal.
    std::thread::sleep(Duration::from_millis(100));
    assert!(matches!(child.try_wait(), Ok(None)), "the sleep was hurt");
    assert_eq!(real.status(), ProcessStatus::Running);
    end(child);
}

#[test]
fn an_owned_child_is_killed_through_its_pidfd_and_reaped() {
    let mut child = OwnedChild::new(spawn_sleep());
    let id = child.identity().cloned().expect("identity");
    assert_eq!(id.pid, child.id());
    assert!(child.is_running());
    // The sleep honours SIGTERM: ended without reaching SIGKILL.
    assert!(child.terminate_blocking(T));
    let status = child.try_wait().expect("exited").expect("status known");
    assert!(!status.success());
    assert_eq!(id.status(), ProcessStatus::NotOurs(Mismatch::NoProcess));
    // Signalling a reaped child does nothing (its pid may belong to someone else by now).
    child.signal(Signal::Kill).expect("no-op");
}

#[test]
fn killing_our_own_child_by_identity_reaps_it() {
    // No handle kept (as for a detached browser): the identity alone ends and reaps it.
    let child = spawn_sleep();
    let id = ProcessIdentity::capture(child.id()).expect("identity");
    drop(child);
    assert_eq!(id.terminate_blocking(T), Termination::Terminated);
    assert_eq!(id.status(), ProcessStatus::NotOurs(Mismatch::NoProcess));
    assert_eq!(
        id.terminate_blocking(T),
        Termination::NotOurs(Mismatch::NoProcess)
    );
}

#[test]
fn the_profile_scan_finds_and_kills_only_that_profile() {
    let dirs = tempfile::tempdir().unwrap();
    let (a, b) = (dirs.path().join("a"), dirs.path().join("b"));
    let mut pa = spawn_profile_sleep(&a);
    let pb = spawn_profile_sleep(&b);
    // A child just spawned may not have exec'd yet (its command line names no profile): bounded.
    let until = std::time::Instant::now() + Duration::from_secs(10);
    let mut found = process::profile_processes_blocking(&a);
    while found.is_empty() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
        found = process::profile_processes_blocking(&a);
    }
    assert_eq!(
        found.iter().map(|p| p.pid).collect::<Vec<_>>(),
        vec![pa.id()]
    );
    assert_eq!(found[0].user_data_dir.as_deref(), Some(a.as_path()));
    assert_eq!(found[0].status(), ProcessStatus::Running);
    // A prefix of the directory is another profile.
    assert!(process::profile_processes_blocking(dirs.path()).is_empty());

    assert_eq!(
        process::kill_profile_processes_blocking(&a, Duration::ZERO),
        1
    );
    // Killed; the test holds the child, so the test reaps it.
    let _ = pa.wait();
    assert_eq!(
        found[0].status(),
        ProcessStatus::NotOurs(Mismatch::NoProcess)
    );
    assert!(process::profile_processes_blocking(&a).is_empty());
    let idb = ProcessIdentity::capture(pb.id()).unwrap();
    assert_eq!(
        idb.status(),
        ProcessStatus::Running,
        "the other profile survives"
    );
    drop(pa);
    end(pb);
}

#[tokio::test]
async fn the_async_twins_run_off_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let child = spawn_profile_sleep(dir.path());
    let found = process::profile_processes(dir.path()).await;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].pid, child.id());
    assert_eq!(
        found[0].terminate(Duration::from_secs(5)).await,
        Termination::Terminated
    );
    assert!(found[0].wait_exit(Duration::ZERO).await);
    assert_eq!(
        process::kill_profile_processes(dir.path(), Duration::ZERO).await,
        0
    );
    drop(child);
}

/// A fake browser: a shell script that ignores SIGTERM (as a hung Chromium might), keeps its
/// arguments (so its `--user-data-dir` is visible) and blocks without children; with `port`, it
/// announces a DevTools endpoint on it.
fn fake_browser(dir: &Path, port: Option<u16>) -> PathBuf {
    let announce = match port {
        Some(p) => {
            format!("printf '{p}\\n/devtools/browser/fake\\n' > \"$dir/DevToolsActivePort\"")
        }
        None => String::new(),
    };
    let script = dir.join("fake-browser");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntrap '' TERM\nfor a in \"$@\"; do case \"$a\" in --user-data-dir=*) dir=\"${{a#--user-data-dir=}}\";; esac; done\n\
             mkfifo \"$dir/hold\"\n{announce}\n# Blocks in open(2) for good: no child process to leak.\nread x < \"$dir/hold\"\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn port_of(url: &str) -> u16 {
    url::Url::parse(url).unwrap().port().unwrap()
}

#[tokio::test]
async fn dropping_a_browser_never_waits_for_it() {
    let peer = FakePeer::start(echo_all()).await;
    let dir = tempfile::tempdir().unwrap();
    let exe = fake_browser(dir.path(), Some(port_of(&peer.url)));
    let b = Browser::launch(
        LaunchOptions::default()
            .executable(&exe)
            .user_data_dir(dir.path().join("profile"))
            .startup_timeout(T),
    )
    .await
    .expect("the fake browser launches");
    let identity = b.identity().cloned().expect("identity");
    assert_eq!(identity.status(), ProcessStatus::Running);
    drop(b);
    // It ignores SIGTERM: had the drop waited for it to end, it would be gone by now.
    assert_eq!(identity.status(), ProcessStatus::Running);
    // Killed after the grace period, and reaped, on a thread of its own.
    assert_reaped(&identity).await;
}

/// Polls `launch` until a process of `profile` shows up, then returns the browser's identity.
async fn started(
    launch: &mut std::pin::Pin<Box<impl std::future::Future<Output = Result<Browser, CdpError>>>>,
    profile: &Path,
) -> ProcessIdentity {
    let deadline = Instant::now() + T;
    loop {
        tokio::select! {
            r = launch.as_mut() => panic!("the launch ended: {:?}", r.map(|b| b.pid())),
            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        // The browser itself started first (its helpers are its children).
        if let Some(p) = process::profile_processes(profile)
            .await
            .into_iter()
            .min_by_key(|p| (p.start_time, p.pid))
        {
            return p;
        }
        assert!(Instant::now() < deadline, "the browser never started");
    }
}

#[tokio::test]
async fn a_cancelled_launch_ends_the_browser_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let exe = fake_browser(dir.path(), None); // never ready
    let mut launch = Box::pin(Browser::launch(
        LaunchOptions::default()
            .executable(&exe)
            .user_data_dir(&profile)
            .startup_timeout(Duration::from_secs(120)),
    ));
    let identity = started(&mut launch, &profile).await;
    drop(launch);
    assert_eq!(
        identity.status(),
        ProcessStatus::Running,
        "dropping the launch waited for the browser"
    );
    assert_reaped(&identity).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_real_launch_leaves_no_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let mut launch = Box::pin(Browser::launch(
        test_launch_options().user_data_dir(&profile),
    ));
    let identity = started(&mut launch, &profile).await;
    drop(launch);
    assert_reaped(&identity).await;
    let deadline = Instant::now() + T;
    while !process::profile_processes(&profile).await.is_empty() {
        assert!(Instant::now() < deadline, "Chromium helpers left running");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A TCP listener that accepts connections and never says a word.
async fn silent_listener() -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    (port, task)
}

#[tokio::test]
async fn the_launch_budget_covers_the_connect() {
    let (port, silent) = silent_listener().await;
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let exe = fake_browser(dir.path(), Some(port)); // an endpoint that never handshakes
    let started = Instant::now();
    let err = Browser::launch(
        LaunchOptions::default()
            .executable(&exe)
            .user_data_dir(&profile)
            .startup_timeout(Duration::from_millis(1500)),
    )
    .await
    .unwrap_err();
    // The connection's own 30 s handshake deadline does not apply: the launch's budget does.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    match &err {
        CdpError::LaunchTimeout { path, after, .. } => {
            assert_eq!(path, &exe.display().to_string());
            assert_eq!(*after, Duration::from_millis(1500));
        }
        other => panic!("expected LaunchTimeout, got {other:?}"),
    }
    let deadline = Instant::now() + T;
    while !process::profile_processes(&profile).await.is_empty() {
        assert!(Instant::now() < deadline, "the fake browser was not killed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    silent.abort();
}

#[tokio::test]
async fn connect_honours_its_budget() {
    let (port, silent) = silent_listener().await;
    for endpoint in [
        format!("http://127.0.0.1:{port}"),
        format!("ws://127.0.0.1:{port}/devtools/browser/x"),
    ] {
        let started = Instant::now();
        let err = cdp_protocol::connect_with(
            &endpoint,
            cdp_protocol::ConnectOptions::default().connect_timeout(Duration::from_millis(500)),
        )
        .await
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5), "{endpoint}");
        match err {
            CdpError::ConnectTimeout { url, after } => {
                assert_eq!(url, endpoint);
                assert_eq!(after, Duration::from_millis(500));
            }
            other => panic!("{endpoint}: expected ConnectTimeout, got {other:?}"),
        }
    }
    silent.abort();
}

#[tokio::test]
async fn connect_errors_never_print_credentials() {
    let refused = "http://alice:hunter2@127.0.0.1:1/?token=tok123&apiKey=key456&page=2";
    let err = cdp_protocol::connect(refused, &[]).await.unwrap_err();
    let (shown, debug) = (err.to_string(), format!("{err:?}"));
    for secret in ["hunter2", "alice", "tok123", "key456"] {
        assert!(
            !shown.contains(secret) && !debug.contains(secret),
            "{shown} / {debug}"
        );
    }
    assert!(
        shown.contains("127.0.0.1:1") && shown.contains("page=2"),
        "{shown}"
    );

    let (port, silent) = silent_listener().await;
    let slow = format!("ws://bob:pw-secret@127.0.0.1:{port}/x?access_token=zzz999");
    let err = cdp_protocol::connect_with(
        &slow,
        cdp_protocol::ConnectOptions::default().connect_timeout(Duration::from_millis(200)),
    )
    .await
    .unwrap_err();
    let (shown, debug) = (err.to_string(), format!("{err:?}"));
    for secret in ["pw-secret", "zzz999"] {
        assert!(
            !shown.contains(secret) && !debug.contains(secret),
            "{shown} / {debug}"
        );
    }
    silent.abort();

    // Nor do the Debug forms of a connection or its options.
    let peer = FakePeer::start(echo_all()).await;
    let url = format!("{}?token=SECRET-T", peer.url);
    let options =
        cdp_protocol::ConnectOptions::default().header("Authorization", "Bearer SECRET-H");
    assert!(!format!("{options:?}").contains("SECRET-H"));
    let conn = cdp_protocol::Connection::connect(&url, options)
        .await
        .unwrap();
    assert!(!format!("{conn:?}").contains("SECRET-T"), "{conn:?}");
    assert_eq!(conn.url(), url, "the caller still gets its URL back");
}

/// Pids of live processes whose command line is exactly `sleep <arg>`.
fn sleeps_with(arg: &str) -> Vec<u32> {
    let want = format!("sleep\0{arg}\0");
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want.as_bytes())
                && ProcessIdentity::capture(*pid).is_some_and(|p| p.is_running())
        })
        .collect()
}

/// A wrapper script (a fake browser that never opens DevTools) that double-forks `sleep <arg>`
/// (no longer its descendant, not naming any profile) and stays up; `arg` is unique to the test.
fn double_forking_wrapper(dir: &Path) -> (PathBuf, String) {
    let arg = format!("3{}.{}", std::process::id(), dir.to_string_lossy().len());
    let script = dir.join("wrapper");
    std::fs::write(
        &script,
        format!("#!/bin/sh\n(sleep {arg} &)\nexec sleep 600\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, arg)
}

/// Waits (bounded) until no `sleep <arg>` is left; kills any that are, and fails.
async fn assert_no_sleep_left(arg: &str) {
    let deadline = Instant::now() + T;
    loop {
        let left = sleeps_with(arg);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            for pid in &left {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
            panic!("the wrapper's double-forked child {left:?} outlived it");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A launch abandoned at its timeout ends the browser's whole process group: a wrapper that
/// double-forks a child leaves nothing.
#[tokio::test]
async fn an_abandoned_launch_ends_the_wrapper_s_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let (script, arg) = double_forking_wrapper(dir.path());
    let err = Browser::launch(
        LaunchOptions::default()
            .executable(&script)
            .user_data_dir(dir.path().join("profile"))
            .startup_timeout(Duration::from_millis(1500)),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, CdpError::LaunchTimeout { .. }), "{err:?}");
    assert_no_sleep_left(&arg).await;
}

/// Ending a recorded group leader by identity (a browser an earlier daemon launched) ends its
/// group; a process that leads no group of its own is signalled alone.
#[tokio::test]
async fn terminating_a_group_leader_by_identity_ends_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let (script, arg) = double_forking_wrapper(dir.path());
    let mut leader = Command::new(&script).process_group(0).spawn().unwrap();
    let deadline = Instant::now() + T;
    while sleeps_with(&arg).is_empty() {
        assert!(Instant::now() < deadline, "the wrapper never forked");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let id = ProcessIdentity::capture(leader.id()).expect("identity");
    assert!(id.terminate(T).await.is_gone());
    assert_no_sleep_left(&arg).await;
    let _ = leader.wait();
}

/// A child whose main thread ends before its other threads shows as a zombie that cannot be
/// reaped yet (the kernel holds a thread-group leader back until every thread is gone), as a
/// browser being closed does under load: waiting for it still reaps it, leaving no zombie.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_exiting_before_its_threads_is_reaped_once_they_end() {
    let script = "import ctypes, threading, time\n\
                  threading.Thread(target=time.sleep, args=(1.5,)).start()\n\
                  ctypes.CDLL(None).pthread_exit(None)\n";
    let child = Command::new("python3")
        .args(["-c", script])
        .spawn()
        .expect("spawn python3");
    let pid = child.id();
    let identity = ProcessIdentity::capture(pid).expect("identity");
    // The leader is a zombie while the other thread sleeps.
    let until = Instant::now() + T;
    while identity.status() != ProcessStatus::Zombie {
        assert!(Instant::now() < until, "the main thread never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(identity.wait_exit(T).await, "it exits");
    assert_reaped(&identity).await;
    // Never waited on: the reap above was the only one (dropping a `Child` does not wait).
    drop(child);
}
