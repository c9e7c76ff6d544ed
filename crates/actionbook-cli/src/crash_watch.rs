//! Whether a tab's page crashed, from Chromium's `Inspector.targetCrashed` and
//! `Inspector.targetReloadedAfterCrash` (sent to every session of the target, no enable needed).

use futures::FutureExt as _;

use crate::cdp::{Connection, EventFilter, EventStream, RawEvent, Session, SessionId};

const CRASHED: &str = "Inspector.targetCrashed";
const RELOADED: &str = "Inspector.targetReloadedAfterCrash";

/// The crash events of one tab's session.
#[derive(Debug)]
pub(crate) struct CrashWatch {
    events: EventStream,
    session: Option<SessionId>,
}

impl CrashWatch {
    /// Subscribes on the whole connection, before attaching: a page that had already crashed
    /// announces it right after the attach, possibly before the attach call has answered.
    pub fn subscribe(conn: &Connection) -> CrashWatch {
        CrashWatch {
            events: conn.events(EventFilter::methods(&[CRASHED, RELOADED])),
            session: None,
        }
    }

    /// Keeps only the events of this session from now on.
    pub fn bind(&mut self, session: &Session) {
        self.session = session.id().cloned();
    }

    fn verdict(&self, ev: &RawEvent) -> Option<bool> {
        (self.session.is_some() && ev.session_id == self.session).then(|| ev.method == CRASHED)
    }

    /// Waits for the page to crash (`true`) or to be loaded again after a crash (`false`).
    /// Never resolves once the connection is gone.
    pub async fn next(&mut self) -> bool {
        loop {
            match self.events.recv().await {
                Some(ev) => {
                    if let Some(crashed) = self.verdict(&ev) {
                        return crashed;
                    }
                }
                None => return std::future::pending().await,
            }
        }
    }

    /// The latest verdict among the events already received, without waiting.
    pub fn drain(&mut self) -> Option<bool> {
        let mut latest = None;
        while let Some(Some(ev)) = self.events.recv().now_or_never() {
            latest = self.verdict(&ev).or(latest);
        }
        latest
    }
}

/// [`CrashWatch::next`] of an optional watch (never resolves without one).
pub(crate) async fn next_of(watch: &mut Option<CrashWatch>) -> bool {
    match watch {
        Some(w) => w.next().await,
        None => std::future::pending().await,
    }
}
