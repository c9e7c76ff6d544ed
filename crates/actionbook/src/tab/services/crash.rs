//! Whether a tab's page crashed, from Chromium's `Inspector.targetCrashed` and
//! `Inspector.targetReloadedAfterCrash` (sent to every session of the target, no enable needed).

use std::sync::{Arc, Mutex};

use cdp_protocol::{
    Connection, Event as _, EventFilter, EventStream, Session, TargetId, inspector,
};
use futures::future::BoxFuture;
use tokio::sync::watch;

use super::TabService;

/// The latest crash event of the tab's session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// How many crash events were seen (0: none yet).
    pub seq: u64,
    /// The latest one says the page crashed (else: it was loaded again after a crash).
    pub crashed: bool,
}

/// Watches one tab's page for crashes; read the latest verdict with [`CrashWatch::receiver`].
#[derive(Debug)]
pub(crate) struct CrashWatch {
    /// Subscribed before the attach: a page that had already crashed announces it right after the
    /// attach, possibly before the attach call has answered.
    events: Mutex<Option<EventStream>>,
    verdict: Arc<watch::Sender<Verdict>>,
}

impl TabService for CrashWatch {
    fn new(conn: &Connection, _target: &TargetId) -> CrashWatch {
        CrashWatch {
            events: Mutex::new(Some(conn.events(EventFilter::methods(&[
                inspector::TargetCrashed::METHOD,
                inspector::TargetReloadedAfterCrash::METHOD,
            ])))),
            verdict: Arc::new(watch::channel(Verdict::default()).0),
        }
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let mut events = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        let session = page.id().cloned()?;
        let verdict = self.verdict.clone();
        Some(Box::pin(async move {
            while let Some(ev) = events.recv().await {
                if ev.session_id.as_ref() != Some(&session) {
                    continue;
                }
                let crashed = ev.method == inspector::TargetCrashed::METHOD;
                verdict.send_modify(|v| {
                    v.seq += 1;
                    v.crashed = crashed;
                });
            }
        }))
    }
}

impl CrashWatch {
    /// A receiver of verdicts; the current one counts as seen.
    pub fn receiver(&self) -> watch::Receiver<Verdict> {
        self.verdict.subscribe()
    }
}

/// Waits for the next verdict; never resolves once the watch is gone (its tab was detached).
pub(crate) async fn next_verdict(rx: &mut Option<watch::Receiver<Verdict>>) -> Verdict {
    match rx {
        Some(rx) => match rx.changed().await {
            Ok(()) => *rx.borrow_and_update(),
            Err(_) => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}
