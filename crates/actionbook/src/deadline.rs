//! The deadline of one command ([`Deadline`], from `--timeout`), and the named caps that bound the
//! single steps inside it.
//!
//! Every wait in the engine is bounded: by what is left of the command's deadline, and for one CDP
//! round trip also by a cap (a call that has not answered within its cap will not answer; waiting
//! the whole `--timeout` on it only delays the error). Steps that clean up after a failure (stop a
//! load, terminate a script, release a handle) have their own small budget, since the command's may
//! already be spent.

use std::time::{Duration, Instant};

use crate::error::CliError;

/// Default timeout of a command when `--timeout` is not given.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// The longest `--timeout` (2^31 - 1 ms, about 24.8 days): the longest delay a page's timer
/// takes; a longer one fires at once there (fill and type then failed after the text landed).
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;

/// One quick CDP round trip (target lists, window lookups, `Page.enable`, small evaluations).
pub(crate) const QUICK_CALL: Duration = Duration::from_secs(5);
/// A CDP call that makes the browser create or attach something (new targets, attach, reload,
/// history moves).
pub(crate) const SLOW_CALL: Duration = Duration::from_secs(10);
/// A best-effort probe whose answer is only compared (focus, the current document): short.
pub(crate) const PROBE: Duration = Duration::from_secs(2);
/// Reconnecting to a recorded browser endpoint.
pub(crate) const RECONNECT: Duration = Duration::from_secs(5);
/// Resolving a selector in every frame.
pub(crate) const RESOLVE: Duration = Duration::from_secs(10);
/// Reading `(location.href, document.title)`: at least this long even when the command's time is
/// nearly spent (the reply needs it).
pub(crate) const PAGE_INFO_MIN: Duration = Duration::from_secs(2);
/// Clean-up after a failed or timed-out step (`Page.stopLoading`, releasing handles).
pub(crate) const CLEANUP: Duration = Duration::from_secs(2);
/// `Runtime.terminateExecution` after an evaluation timed out.
pub(crate) const TERMINATE: Duration = Duration::from_secs(5);
/// Typing text (`Input.insertText`): at least this long, whatever is left of the deadline.
pub(crate) const INSERT_TEXT_MIN: Duration = Duration::from_secs(1);
/// How long a page opened by `window.open` may take to show up among the targets.
pub(crate) const POPUP_APPEARS: Duration = Duration::from_secs(5);
/// Closing a browser we launched (`Browser.close`, then waiting for the process).
pub(crate) const BROWSER_CLOSE: Duration = Duration::from_secs(10);
/// `Browser.close` over CDP to a browser an earlier daemon launched.
pub(crate) const BROWSER_CLOSE_CALL: Duration = Duration::from_secs(3);
/// Re-connecting to that browser first (ms, as a deadline of its own).
pub(crate) const BROWSER_CLOSE_CONNECT_MS: u64 = 2_000;
/// How long a closed browser's process gets to exit before it is killed, and then to be gone.
pub(crate) const PROCESS_EXIT: Duration = Duration::from_secs(3);

/// `d` as the delay of a page's timer: whole milliseconds, at most [`MAX_TIMEOUT_MS`] (a longer
/// delay fires at once there).
pub(crate) fn page_timer_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis())
        .unwrap_or(u64::MAX)
        .min(MAX_TIMEOUT_MS)
}

/// When one command must be done by: its `--timeout` and the instant that gives.
#[derive(Debug, Clone)]
pub struct Deadline {
    timeout_ms: u64,
    at: Instant,
    /// Whether the caller gave the timeout (the spec requires one for waits).
    given: bool,
}

impl Deadline {
    /// The deadline of a command with this `--timeout` (default [`DEFAULT_TIMEOUT_MS`], at
    /// most [`MAX_TIMEOUT_MS`]: the CLI refuses more, a library caller's is shortened to it).
    pub fn new(timeout_ms: Option<u64>) -> Deadline {
        let given = timeout_ms.is_some();
        let timeout_ms = timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_TIMEOUT_MS);
        Deadline {
            timeout_ms,
            at: Instant::now() + Duration::from_millis(timeout_ms),
            given,
        }
    }

    /// A deadline `ms` from now, for bounded internal work.
    pub fn after_ms(ms: u64) -> Deadline {
        Deadline::new(Some(ms))
    }

    /// Whether the timeout came from the caller (`--timeout`) rather than the default.
    pub fn was_given(&self) -> bool {
        self.given
    }

    /// The timeout this deadline was made from, in milliseconds.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms
    }

    /// The instant it runs out.
    pub fn at(&self) -> Instant {
        self.at
    }

    /// Time left (at least 1 ms, so a call made at the very end still fails by timing out).
    pub fn remaining(&self) -> Duration {
        self.at
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    }

    /// Time left, but at most `cap` (one step of the command).
    pub fn capped(&self, cap: Duration) -> Duration {
        self.remaining().min(cap)
    }

    /// This deadline, or `least` from now when that is later (same timeout reported): for the
    /// one look a wait always completes, even at `--timeout 0`.
    pub fn at_least(&self, least: Duration) -> Deadline {
        Deadline {
            at: self.at.max(Instant::now() + least),
            ..self.clone()
        }
    }

    /// Whether the deadline has passed.
    pub fn is_over(&self) -> bool {
        Instant::now() >= self.at
    }

    /// The TIMEOUT error for `what`.
    pub fn timeout(&self, what: &str) -> CliError {
        CliError::Timeout {
            what: what.to_string(),
            ms: self.timeout_ms,
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn page_timers_stay_within_what_a_page_takes() {
        assert_eq!(page_timer_ms(Duration::from_millis(1500)), 1500);
        assert_eq!(page_timer_ms(Duration::from_secs(u64::MAX)), MAX_TIMEOUT_MS);
        assert_eq!(Deadline::new(Some(u64::MAX)).timeout_ms(), MAX_TIMEOUT_MS);
    }

    use super::*;

    #[test]
    fn remaining_is_capped_and_never_zero() {
        let d = Deadline::after_ms(60_000);
        assert!(d.capped(QUICK_CALL) <= QUICK_CALL);
        assert!(d.remaining() > QUICK_CALL);
        let spent = Deadline {
            timeout_ms: 1,
            at: Instant::now(),
            given: true,
        };
        assert_eq!(spent.remaining(), Duration::from_millis(1));
        assert!(spent.is_over());
        assert_eq!(Deadline::new(Some(0)).timeout_ms(), 0);
        assert!(Deadline::new(Some(0)).is_over());
        assert!(
            !Deadline::new(Some(0))
                .at_least(Duration::from_secs(60))
                .is_over()
        );
        assert_eq!(Deadline::new(None).timeout_ms(), DEFAULT_TIMEOUT_MS);
        assert!(!Deadline::new(None).was_given() && Deadline::new(Some(5)).was_given());
    }
}
