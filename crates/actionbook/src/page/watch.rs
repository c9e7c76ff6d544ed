//! Watching a page for a condition: waking when its document changes (event-driven, with a short
//! poll as the floor for what a main-frame observer cannot see) and an element's visibility.

use std::time::Duration;

use cdp_protocol::{Session, runtime};

/// The longest a watcher sleeps between two checks: changes in iframes, style changes made
/// without touching the DOM, and timers are noticed within this.
pub(crate) const POLL: Duration = Duration::from_millis(30);

/// Resolves on the first mutation of the main frame's document (or after `ms` in the page, so no
/// observer outlives its watcher for long).
/// In an async function, which returns a native promise whatever the page made of `Promise`
/// (zone.js on Angular pages replaces it with one the browser would not await).
const MUTATION_JS: &str = "(async () => new Promise(r => { \
  const o = new MutationObserver(() => { o.disconnect(); r(true); }); \
  o.observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); \
  setTimeout(() => { o.disconnect(); r(false); }, MS); }))()";

/// Returns when the main frame's document changes, or after `at_most` (whichever is first; a
/// page that cannot be observed, e.g. while it navigates, just sleeps).
pub(crate) async fn next_change(page: &Session, at_most: Duration) {
    let ms = crate::deadline::page_timer_ms(at_most.saturating_add(Duration::from_millis(50)));
    let evaluate = runtime::Evaluate {
        expression: MUTATION_JS.replace("MS", &ms.to_string()),
        await_promise: Some(true),
        return_by_value: Some(true),
        silent: Some(true),
        ..Default::default()
    };
    let observe = page.send_timeout(&evaluate, at_most);
    let _ = tokio::time::timeout(at_most, async {
        if observe.await.is_err() {
            // Not observable now: do not spin, sleep the rest.
            std::future::pending::<()>().await;
        }
    })
    .await;
}

/// Whether an element is visible (`this` is the element): rendered (`checkVisibility`, which
/// sees `display: none` ancestors and `content-visibility`), not `visibility: hidden`, and with
/// a non-empty box.
pub(crate) const VISIBLE_FN: &str = "function() { \
  if (!this.isConnected) return false; \
  if (typeof this.checkVisibility === 'function' && !this.checkVisibility({visibilityProperty: true})) return false; \
  const r = this.getBoundingClientRect(); return r.width > 0 && r.height > 0; }";
