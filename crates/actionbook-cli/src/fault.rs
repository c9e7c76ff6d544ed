//! Test-only fault injection: a test names a step of a structural command in
//! `ACTIONBOOK_TEST_ABORT_AT` (carried by the request's `ClientEnv::abort_at`), and the engine's process
//! aborts there, as a daemon killed at that instant would. Tests then check what the next engine
//! makes of it. Compiled in debug and `test-support` builds only; a release build ignores it.

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
