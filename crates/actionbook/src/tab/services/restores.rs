//! When a tab's page was last restored from the back/forward cache: the restored document is an
//! old one (its load and response times are those of its first load), so only the restore event
//! (`Page.frameNavigated` of the main frame, type `BackForwardCacheRestore`) says when it came
//! back. `wait navigation` takes a restore since the tab's previous command as the navigation it
//! waits for, as it takes a document that arrived since then.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use cdp_protocol::{Connection, Event as _, RawEvent, Session, TargetId, page};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use super::TabService;
use crate::deadline;

/// `Page.frameNavigated`'s type for a document restored from the back/forward cache.
const RESTORE: &str = "BackForwardCacheRestore";

/// Watches one tab's page for restores from the back/forward cache.
#[derive(Debug)]
pub(crate) struct RestoreWatch {
    last: Arc<Mutex<Option<Instant>>>,
    flush: mpsc::UnboundedSender<oneshot::Sender<()>>,
    flush_rx: Mutex<Option<mpsc::UnboundedReceiver<oneshot::Sender<()>>>>,
}

impl TabService for RestoreWatch {
    fn new(_conn: &Connection, _target: &TargetId) -> RestoreWatch {
        let (flush, flush_rx) = mpsc::unbounded_channel();
        RestoreWatch {
            last: Arc::default(),
            flush,
            flush_rx: Mutex::new(Some(flush_rx)),
        }
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let mut flushes = self
            .flush_rx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        // Subscribed now: no command has run on the page yet, so an earlier restore is no news.
        let mut events = page.events(&[page::FrameNavigated::METHOD]);
        let last = Arc::clone(&self.last);
        Some(Box::pin(async move {
            loop {
                tokio::select! {
                    ev = events.recv() => {
                        let Some(ev) = ev else { break };
                        note(&last, &ev);
                    }
                    f = flushes.recv() => {
                        let Some(f) = f else { break };
                        while let Some(ev) = events.try_recv() {
                            note(&last, &ev);
                        }
                        let _ = f.send(());
                    }
                }
            }
        }))
    }
}

/// Notes a restore of the main frame.
fn note(last: &Mutex<Option<Instant>>, ev: &RawEvent) {
    let restored = ev
        .decode::<page::FrameNavigated>()
        .is_ok_and(|n| n.frame.parent_id.is_none() && n.r#type.as_deref() == Some(RESTORE));
    if restored {
        *last.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    }
}

impl RestoreWatch {
    /// When the page was last restored (`None`: not since the tab was attached), once the
    /// events received so far are noted (call after a round trip to the page, so a restore it
    /// reported before that answer is in).
    pub async fn last_restore(&self) -> Option<Instant> {
        let (tx, rx) = oneshot::channel();
        if self.flush.send(tx).is_ok() {
            let _ = tokio::time::timeout(deadline::QUICK_CALL, rx).await;
        }
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }
}
