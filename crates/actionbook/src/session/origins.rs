//! The web origins a session's pages showed: every document a frame of its tabs committed
//! (out-of-process frames included), as the engine's own sessions hear of them:
//! `Page.frameNavigated` (frames of a page's process), `Runtime.executionContextCreated` (a new
//! document's context, in out-of-process frames too, whose sessions have no Page events), and
//! `Target.attachedToTarget` (a frame or page attached, with its URL), and, for out-of-process
//! frames, the browser's own reports of them (`Target.setDiscoverTargets`: `targetCreated` /
//! `targetInfoChanged` of iframe targets, with each one's URL; no other session's frame events
//! reach this connection). A saved storage state reads the local storage of each, also of those
//! no tab shows any more. On a browser behind `--cdp-endpoint` the frames of pages that are not
//! the session's are seen too.
//!
//! Kept in memory, per session: after a daemon restart the origins shown before it are known
//! again only from the frames that still show them.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use cdp_protocol::{Connection, Event as _, EventFilter, page, runtime, target};
use futures::StreamExt as _;

use super::lock;

/// At most this many origins are kept (a crawl through many sites keeps the first ones).
const MAX_ORIGINS: usize = 2_000;

/// The origins seen, shared with the watcher of each connection.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origins {
    inner: Arc<Mutex<Seen>>,
}

#[derive(Debug, Default)]
struct Seen {
    /// The connection generation watched last.
    watched: u64,
    origins: BTreeSet<String>,
}

/// The origin of a frame's document when it has web storage: `http(s)` only (opaque and
/// `about:` documents have none to keep).
pub(crate) fn storage_origin(security_origin: &str) -> Option<String> {
    let u = url::Url::parse(security_origin).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    Some(u.origin().ascii_serialization())
}

impl Origins {
    /// Notes an origin.
    pub fn note(&self, security_origin: &str) {
        let Some(origin) = storage_origin(security_origin) else {
            return;
        };
        let mut seen = lock(&self.inner);
        if seen.origins.len() < MAX_ORIGINS {
            seen.origins.insert(origin);
        }
    }

    /// Every origin seen so far.
    pub fn all(&self) -> Vec<String> {
        lock(&self.inner).origins.iter().cloned().collect()
    }

    /// Follows the frames' navigations on `conn` (once per connection generation) until it
    /// closes.
    pub fn watch(&self, conn: &Connection, generation: u64) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        {
            let mut seen = lock(&self.inner);
            if generation <= seen.watched {
                return;
            }
            seen.watched = generation;
        }
        // Every session of the connection: the tabs' page sessions and their frames' sessions.
        let mut events = conn.events(EventFilter::methods(&[
            page::FrameNavigated::METHOD,
            runtime::ExecutionContextCreated::METHOD,
            target::AttachedToTarget::METHOD,
            target::TargetCreated::METHOD,
            target::TargetInfoChanged::METHOD,
        ]));
        let me = self.clone();
        let root = conn.browser();
        rt.spawn(async move {
            // Subscribed first, so no report of a frame is missed. A browser that refuses has
            // its frames seen through the other events only. No filter: Chromium applies a
            // discovery filter to this session's `Target.getTargets` too, and the engine lists
            // its pages with it (the default one reports every target but the browser's).
            let _ = root
                .send_timeout(
                    &target::SetDiscoverTargets {
                        discover: true,
                        filter: None,
                    },
                    std::time::Duration::from_secs(5),
                )
                .await;
            // Not kept: a handle held by this task would keep the connection open for ever (the
            // task ends when the connection closes).
            drop(root);
            while let Some(ev) = events.next().await {
                let origin = match ev.method.as_str() {
                    page::FrameNavigated::METHOD => ev
                        .decode::<page::FrameNavigated>()
                        .ok()
                        .and_then(|n| n.frame.security_origin),
                    runtime::ExecutionContextCreated::METHOD => ev
                        .decode::<runtime::ExecutionContextCreated>()
                        .ok()
                        .map(|c| c.context.origin),
                    target::AttachedToTarget::METHOD => ev
                        .decode::<target::AttachedToTarget>()
                        .ok()
                        .map(|a| a.target_info)
                        .filter(|t| matches!(t.r#type.as_str(), "page" | "iframe"))
                        .map(|t| t.url),
                    target::TargetCreated::METHOD => ev
                        .decode::<target::TargetCreated>()
                        .ok()
                        .map(|c| c.target_info)
                        .filter(|t| t.r#type == "iframe")
                        .map(|t| t.url),
                    _ => ev
                        .decode::<target::TargetInfoChanged>()
                        .ok()
                        .map(|c| c.target_info)
                        .filter(|t| t.r#type == "iframe")
                        .map(|t| t.url),
                };
                if let Some(origin) = origin {
                    me.note(&origin);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_origins_with_web_storage_are_kept() {
        let o = Origins::default();
        for seen in [
            "http://127.0.0.1:8080",
            "http://localhost:9/",
            "null",
            "about:blank",
            "chrome://newtab",
            "https://Example.COM",
            "http://127.0.0.1:8080",
        ] {
            o.note(seen);
        }
        assert_eq!(
            o.all(),
            vec![
                "http://127.0.0.1:8080",
                "http://localhost:9",
                "https://example.com"
            ]
        );
    }
}
