//! Test-only fault injection: a test names a step of a structural command in
//! `ACTIONBOOK_TEST_ABORT_AT` (carried by the request's `ClientEnv::abort_at`), and the engine's process
//! aborts there, as a daemon killed at that instant would. Tests then check what the next engine
//! makes of it. `hold:<step>` instead holds a command at that step until the test releases it
//! ([`hold`]). Compiled in debug and `test-support` builds only; a release build ignores it.

/// The environment variable naming the step to abort at.
#[doc(hidden)]
pub const ABORT_AT_ENV: &str = "ACTIONBOOK_TEST_ABORT_AT";

/// The step this process's environment asks to abort at.
pub(crate) fn requested() -> Option<String> {
    if cfg!(any(debug_assertions, feature = "test-support")) {
        std::env::var(ABORT_AT_ENV).ok().filter(|s| !s.is_empty())
    } else {
        None
    }
}

/// Aborts the process when the request asked for this step (`abort_at`, from
/// `ClientEnv::abort_at`): no unwinding, no destructors, like `kill -9`.
pub(crate) fn step(abort_at: Option<&str>, name: &str) {
    #[cfg(any(debug_assertions, feature = "test-support"))]
    if abort_at == Some(name) {
        eprintln!("actionbook: aborting at step {name} ({ABORT_AT_ENV})");
        std::process::abort();
    }
    #[cfg(not(any(debug_assertions, feature = "test-support")))]
    let _ = (abort_at, name);
}

/// How long a held command waits for its release at most.
#[cfg(any(debug_assertions, feature = "test-support"))]
const HOLD_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Holds the command at this step when the request asked for `hold:<name>`: writes
/// `<dir>/held-<name>`, then waits (bounded) until the test creates `<dir>/release-<name>`. A
/// test runs a structural command (`restart`, `close-tab`) while another is in flight at a known
/// point this way, without sleeps. A no-op in release builds.
pub(crate) async fn hold(abort_at: Option<&str>, name: &str, dir: &std::path::Path) {
    #[cfg(any(debug_assertions, feature = "test-support"))]
    if abort_at.and_then(|a| a.strip_prefix("hold:")) == Some(name) {
        let _ = std::fs::write(dir.join(format!("held-{name}")), b"");
        let release = dir.join(format!("release-{name}"));
        let until = tokio::time::Instant::now() + HOLD_LIMIT;
        while !release.exists() && tokio::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    #[cfg(not(any(debug_assertions, feature = "test-support")))]
    let _ = (abort_at, name, dir);
}

/// The environment variable naming CDP calls to fail (comma-separated names, e.g.
/// `child-network-enable`): a test makes a call fail that real Chromium rarely fails on demand.
#[doc(hidden)]
pub const FAIL_ENV: &str = "ACTIONBOOK_TEST_FAIL";

/// Whether this process's environment asks to fail the call `name` (debug and `test-support`
/// builds only; always false in a release build).
pub(crate) fn fails(name: &str) -> bool {
    if cfg!(any(debug_assertions, feature = "test-support")) {
        std::env::var(FAIL_ENV).is_ok_and(|v| v.split(',').any(|n| n.trim() == name))
    } else {
        false
    }
}
