//! Process identity, identity-checked signals, the profile scan and reaping, with real
//! processes.

use cdp_protocol::CdpError;
use cdp_protocol::process::{
    self, Mismatch, OwnedChild, ProcessIdentity, ProcessStatus, Signal, Termination,
};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

fn spawn_sleep() -> Child {
    Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("spawn sleep")
}

/// A `sleep` whose argv carries `--user-data-dir=<dir>` (as its argv[0]).
fn spawn_profile_sleep(dir: &Path) -> Child {
    Command::new("sleep")
        .arg0(format!("--user-data-dir={}", dir.display()))
        .arg("60")
        .spawn()
        .expect("spawn sleep")
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
    let pa = spawn_profile_sleep(&a);
    let pb = spawn_profile_sleep(&b);
    let found = process::profile_processes_blocking(&a);
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
    // Killed and, being our child, reaped.
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
