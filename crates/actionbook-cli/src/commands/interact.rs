//! `browser snapshot`, `click`, `fill`: across every frame, with refs persisted per tab.

use std::time::Duration;

use a11y_snapshot::{RefTable, SnapshotOptions, node_list, render_actionbook};
use envelope::{
    ActionData, ActionKind, Changed, InputData, InputKind, SnapshotData, SnapshotNode,
    SnapshotStats, Target, ValueSummary,
};
use serde_json::json;

use crate::args::{self, TabTarget};
use crate::browser;
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::{CliError, Result};
use crate::page_frames;
use crate::state;

fn refs_path(cx: &TabCx<'_>) -> std::path::PathBuf {
    cx.session.dir.join(format!("refs-{}.json", cx.tab_id))
}

/// Loads the tab's ref table and frame map from disk the first time (a new daemon re-attaching).
fn load(cx: &mut TabCx<'_>) {
    if cx.state.extra.frames.refs.is_some() {
        return;
    }
    let refs = std::fs::read(refs_path(cx))
        .ok()
        .and_then(|b| RefTable::from_json(&b).ok())
        .unwrap_or_default();
    cx.state.extra.frames.refs = Some(refs);
}

fn save(cx: &TabCx<'_>) -> Result<()> {
    if let Some(refs) = &cx.state.extra.frames.refs {
        state::write_atomic(&refs_path(cx), &refs.to_json())?;
    }
    Ok(())
}

fn main_frame(cx: &TabCx<'_>) -> String {
    cx.session
        .record()
        .tab(&cx.tab_id)
        .map(|t| t.target_id.clone())
        .unwrap_or_default()
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

impl TabCommand for args::Snapshot {
    type Data = SnapshotData;
    const READ_ONLY: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<SnapshotData>> {
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let snap = tokio::time::timeout(
            call.remaining(),
            page_frames::snapshot(&mut cx.state.extra.frames, &page, &call),
        )
        .await
        .map_err(|_| call.timeout("browser snapshot"))??;
        save(cx)?;
        let subtree = match &self.selector {
            Some(sel) => {
                let found =
                    page_frames::resolve(&mut cx.state.extra.frames, &page, sel, &call).await?;
                Some(found.encoded)
            }
            None => None,
        };
        let opts = SnapshotOptions {
            interactive_only: self.interactive,
            cursor: self.cursor.unwrap_or(true),
            compact: self.compact,
            max_depth: self.depth,
            subtree,
        };
        let text = render_actionbook(&snap, &opts);
        let path = cx.session.dir.join(format!("snapshot_{}.yaml", now_ms()));
        state::write_atomic(&path, text.as_bytes()).map_err(|source| CliError::ArtifactWrite {
            path: path.display().to_string(),
            source,
        })?;
        let (nodes, stats) = node_list(&snap, &opts);
        let nodes = nodes
            .into_iter()
            .map(|n| SnapshotNode {
                ref_id: n.reference.to_string(),
                role: n.role,
                name: n.name,
                value: n.value,
            })
            .collect();
        Ok(Done::data(SnapshotData::new(
            path.display().to_string(),
            nodes,
            SnapshotStats {
                node_count: stats.node_count as u64,
                interactive_count: stats.interactive_count as u64,
            },
        )))
    }
}

const NAV_START: &[&str] = &[
    "Page.frameRequestedNavigation",
    "Page.frameStartedLoading",
    "Page.frameNavigated",
    "Page.navigatedWithinDocument",
];

/// The deepest focused element of the top-level document: through open shadow roots and same-origin
/// iframes (an out-of-process iframe shows as its `<iframe>` element).
const DEEP_ACTIVE_JS: &str = "(() => { let a = document.activeElement; \
  for (let i = 0; i < 64 && a; i++) { \
    if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; } \
    let d = null; try { d = a.contentDocument; } catch (e) {} \
    if (d && d.activeElement) { a = d.activeElement; continue; } \
    break; } \
  return a; })()";

/// What a click aims at: an element, or a point of the viewport.
enum ClickAt {
    Element,
    Point(f64, f64),
}

/// Parses `x,y` viewport coordinates (CSS pixels; spaces and decimals allowed). `None` when the text
/// does not look like coordinates at all (then it is a selector: no CSS selector or XPath starts
/// with a digit or sign and holds only digits and one comma).
pub(crate) fn parse_coordinates(text: &str) -> Option<Result<(f64, f64)>> {
    let (x, y) = text.split_once(',')?;
    let (x, y) = (x.trim(), y.trim());
    let numeric = |s: &str| {
        !s.is_empty()
            && s.chars().any(|c| c.is_ascii_digit())
            && s.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+'))
    };
    if !numeric(x) || !numeric(y) {
        return None;
    }
    let bad = || {
        CliError::InvalidArgument(format!(
            "invalid coordinates {text:?}: expected x,y in viewport CSS pixels, e.g. 120,45.5"
        ))
    };
    let (Ok(px), Ok(py)) = (x.parse::<f64>(), y.parse::<f64>()) else {
        return Some(Err(bad()));
    };
    if !px.is_finite() || !py.is_finite() {
        return Some(Err(bad()));
    }
    if px < 0.0 || py < 0.0 {
        return Some(Err(CliError::InvalidArgument(format!(
            "coordinates {text:?} are outside the viewport: x and y must not be negative"
        ))));
    }
    Some(Ok((px, py)))
}

/// The main frame's current document (its loader id): it changes exactly when a new document loads.
async fn main_document(page: &crate::cdp::Session, call: &crate::engine::Call) -> Option<String> {
    page.call_timeout(
        "Page.getFrameTree",
        json!({}),
        call.remaining().min(Duration::from_secs(2)),
    )
    .await
    .ok()
    .and_then(|v| {
        v["frameTree"]["frame"]["loaderId"]
            .as_str()
            .map(str::to_string)
    })
}

/// A handle on the focused element before the click (None: nothing to compare with).
async fn focused_before(page: &crate::cdp::Session) -> Option<String> {
    page.call_timeout(
        "Runtime.evaluate",
        json!({ "expression": DEEP_ACTIVE_JS, "returnByValue": false, "silent": true }),
        Duration::from_secs(2),
    )
    .await
    .ok()
    .and_then(|v| v["result"]["objectId"].as_str().map(str::to_string))
}

/// Whether nothing is focused in the page (focus on the body, or nowhere); false if unknown.
async fn focus_idle(page: &crate::cdp::Session) -> bool {
    page.call_timeout(
        "Runtime.evaluate",
        json!({
            "expression": format!("(() => {{ const a = {DEEP_ACTIVE_JS}; return !a || a === document.body; }})()"),
            "returnByValue": true,
            "silent": true,
        }),
        Duration::from_secs(2),
    )
    .await
    .ok()
    .and_then(|v| v["result"]["value"].as_bool())
    .unwrap_or(false)
}

/// Whether focus is now on another element than `before` (compared by identity in the page).
async fn focus_moved(page: &crate::cdp::Session, before: Option<&str>) -> bool {
    let r = match before {
        Some(object_id) => {
            let same = page
                .call_timeout(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": object_id,
                        "functionDeclaration": format!("function() {{ return {DEEP_ACTIVE_JS} === this; }}"),
                        "returnByValue": true,
                        "silent": true,
                    }),
                    Duration::from_secs(2),
                )
                .await;
            // Nobody waits for the release: it only frees the handle.
            let releasing = page.clone();
            let object_id = object_id.to_string();
            tokio::spawn(async move {
                let _ = releasing
                    .call_timeout(
                        "Runtime.releaseObject",
                        json!({ "objectId": object_id }),
                        Duration::from_secs(1),
                    )
                    .await;
            });
            same
        }
        None => {
            page.call_timeout(
                "Runtime.evaluate",
                json!({ "expression": format!("{DEEP_ACTIVE_JS} === null"), "returnByValue": true, "silent": true }),
                Duration::from_secs(2),
            )
            .await
        }
    };
    // An unanswerable comparison (the old object's context died) means the document changed.
    !matches!(
        r.ok().and_then(|v| v["result"]["value"].as_bool()),
        Some(true)
    )
}

/// The viewport's size in CSS pixels.
async fn viewport(page: &crate::cdp::Session, call: &crate::engine::Call) -> Result<(f64, f64)> {
    let v = page
        .call_timeout(
            "Runtime.evaluate",
            json!({ "expression": "[window.innerWidth, window.innerHeight]", "returnByValue": true }),
            call.remaining().min(Duration::from_secs(5)),
        )
        .await?;
    let size = &v["result"]["value"];
    match (size[0].as_f64(), size[1].as_f64()) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(CliError::Internal(format!(
            "the page did not report its viewport size: {v}"
        ))),
    }
}

impl TabCommand for args::Click {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let at = match parse_coordinates(&self.selector) {
            Some(p) => {
                let (x, y) = p?;
                ClickAt::Point(x, y)
            }
            None => ClickAt::Element,
        };
        let (before, _) = cx.page_info().await?;
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let main = main_frame(cx);
        let (x, y, target) = match at {
            ClickAt::Point(x, y) => {
                let (w, h) = viewport(&page, &call).await?;
                if x >= w || y >= h {
                    return Err(CliError::InvalidArgument(format!(
                        "coordinates {} are outside the viewport ({w}x{h} CSS pixels)",
                        self.selector.trim()
                    )));
                }
                (x, y, Target::coordinates(self.selector.trim()))
            }
            ClickAt::Element => {
                let tf = &mut cx.state.extra.frames;
                let found = page_frames::resolve(tf, &page, &self.selector, &call).await?;
                let (x, y) =
                    page_frames::click_point(tf, &page, &found, &self.selector, &call).await?;
                (x, y, Target::selector(self.selector))
            }
        };
        // Independent reads go out together: each is a round trip to the renderer.
        let (document, focus, idle_before) = tokio::join!(
            main_document(&page, &call),
            focused_before(&page),
            focus_idle(&page)
        );
        let mut events = page.events(NAV_START);
        page_frames::mouse_click(&page, x, y, &call).await?;
        // A click that navigates: wait for the new page (bounded by --timeout). The renderer
        // reports a navigation the click starts itself (link, form, a handler setting location)
        // on the page's DevTools pipe before it answers anything sent there after the click, so
        // one round trip is a barrier for those. A short window after it catches most that a
        // handler starts from a timer of its own; later ones are seen by the next command. The
        // reads of the page after the click run meanwhile and are kept when nothing navigated.
        let _ = page
            .call_timeout(
                "Runtime.evaluate",
                json!({ "expression": "0", "returnByValue": true, "silent": true }),
                call.remaining().min(Duration::from_secs(2)),
            )
            .await;
        let quiet = tokio::time::Instant::now() + Duration::from_millis(5);
        let watch = async {
            while let Ok(Some(ev)) = tokio::time::timeout_at(quiet, events.recv()).await {
                let p: serde_json::Value =
                    serde_json::from_str(ev.params.get()).unwrap_or_default();
                let frame = p["frameId"]
                    .as_str()
                    .or_else(|| p["frame"]["id"].as_str())
                    .unwrap_or_default();
                if frame == main {
                    return true;
                }
            }
            false
        };
        let reads = async {
            tokio::join!(
                main_document(&page, &call),
                focus_moved(&page, focus.as_deref()),
                browser::page_info(&page, &call)
            )
        };
        let (navigating, (mut document_now, moved, mut info)) = tokio::join!(watch, reads);
        if navigating {
            let mut load_events = page.events(&["Page.loadEventFired"]);
            let _ = tokio::time::timeout(call.remaining(), async {
                // Let the commit happen, then wait for the load.
                tokio::time::sleep(Duration::from_millis(20)).await;
                browser::wait_loaded(&page, &mut load_events, &call, "browser click").await
            })
            .await;
            // What was read meanwhile may be of the old page.
            // (Focus as read right after the click stands; a new document counts as moved.)
            (document_now, info) = tokio::join!(
                main_document(&page, &call),
                browser::page_info(&page, &call)
            );
        }
        // A new main-frame document invalidates every ref of the old one: drop them (numbering goes
        // on, so an old ref is reported stale rather than naming a node of the new page).
        let new_document = match (&document, document_now) {
            (Some(a), Some(b)) => *a != b,
            _ => false,
        };
        if new_document {
            cx.state.extra.frames.drop_refs_keep_numbering();
            save(cx)?;
        }
        // Across documents: focus changed unless nothing was focused on either page (as the
        // reference CLI reports a plain link click).
        let focus_changed = match new_document {
            true => !(idle_before && focus_idle(&page).await),
            false => moved,
        };
        let (after, title) = info?;
        cx.url = Some(after.clone());
        cx.title = Some(title);
        Ok(Done::data(ActionData {
            action: ActionKind::Click,
            target: Some(target),
            destination: None,
            keys: None,
            direction: None,
            pixels: None,
            changed: Changed {
                url_changed: after != before,
                focus_changed,
                scroll_changed: None,
            },
        }))
    }
}

impl TabCommand for args::Fill {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        load(cx);
        let page = cx.page.clone();
        let call = cx.call.clone();
        let found =
            page_frames::resolve(&mut cx.state.extra.frames, &page, &self.selector, &call).await?;
        page_frames::fill(&page, &found, &self.selector, &self.text, &call).await?;
        Ok(Done::data(InputData {
            action: InputKind::Fill,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Text {
                text_length: self.text.chars().count() as u64,
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_coordinates;
    use proptest::prelude::*;

    #[test]
    fn coordinates_forms() {
        assert_eq!(
            parse_coordinates("10,10").map(|r| r.ok()),
            Some(Some((10.0, 10.0)))
        );
        assert_eq!(
            parse_coordinates(" 1.5 , 20 ").map(|r| r.ok()),
            Some(Some((1.5, 20.0)))
        );
        assert!(matches!(parse_coordinates("-1,5"), Some(Err(_))));
        assert!(matches!(parse_coordinates("1..2,5"), Some(Err(_))));
        // Selectors, not coordinates.
        for sel in [
            "#a,#b", "button", "a, b", "@e5", "//a[1]", "1,b", ",", "x,y",
        ] {
            assert!(parse_coordinates(sel).is_none(), "{sel}");
        }
    }

    proptest! {
        #[test]
        fn any_non_negative_pair_round_trips(x in 0.0f64..10000.0, y in 0.0f64..10000.0) {
            let text = format!("{x},{y}");
            prop_assert_eq!(parse_coordinates(&text).map(|r| r.ok()), Some(Some((x, y))));
        }

        #[test]
        fn never_panics(s in ".{0,20}") {
            let _ = parse_coordinates(&s);
        }
    }
}
