//! Finding the element a command acts on: `@eN`, an encoded id, a CSS selector or an XPath, in any
//! frame, to a [`Located`] node whose page handle is released when it is dropped.

use a11y_snapshot::{EncodedId, Known, ResolveOptions, Target};
use cdp_protocol::{Session, dom};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::frames::TabFrames;
use crate::page::quad::{self, BoxOf, PageGeometry};

/// A node found for an action. Dropping it releases its handle in the page.
#[derive(Debug)]
pub(crate) struct Located {
    /// The node's handle, in the session that owns its frame.
    pub handle: ObjectHandle,
    /// The node's frame.
    pub frame_id: String,
    /// Its encoded id (`<frameIndex>-<backendNodeId>`).
    pub encoded: EncodedId,
}

impl Located {
    /// The session owning the node's frame (send node commands here).
    pub fn session(&self) -> &Session {
        self.handle.session()
    }
}

/// Where a selector through frames (`iframe#pay >> .row`, or an XPath through an iframe) is
/// looked for: the frame's session and a context of its document; the part of the selector that
/// names the frame (`iframe#pay >> `) and the rest, a query of that document.
pub(crate) struct FrameScope {
    /// The session that owns the frame's document.
    pub session: Session,
    /// A context of the frame's document.
    pub context: cdp_protocol::ExecutionContextId,
    /// The selector's frame part, as written (prefixed to what is found there, so it is found
    /// again).
    pub prefix: String,
    /// The selector of the frame's document.
    pub rest: String,
}

/// The [`FrameScope`] of `selector`; `None` when it does not go through a frame.
pub(crate) async fn frame_scope(
    frames: &mut TabFrames,
    page: &Session,
    selector: &str,
    deadline: &Deadline,
) -> Result<Option<FrameScope>> {
    use a11y_snapshot::PageFrames as _;
    let whole = target(selector)?;
    if !matches!(whole, Target::InFrame { .. }) {
        return Ok(None);
    }
    let g = frames.graph(page, deadline).await?;
    let known = Known {
        refs: frames.refs.as_ref(),
        snapshot: None,
    };
    let opts = ResolveOptions {
        search_frames: true,
        timeout: deadline.capped(deadline::RESOLVE),
        require_every_frame: false,
    };
    let on = |e| CliError::on_selector(e, selector);
    let Some((frame, step)) = a11y_snapshot::resolve::innermost_frame(&g, &whole, known, &opts)
        .await
        .map_err(on)?
    else {
        return Ok(None);
    };
    let rest = match step {
        Target::Css(s) | Target::XPath(s) | Target::Finder { selector: s, .. } => s.clone(),
        other => other.to_string(),
    };
    let context = g
        .execution_context(&frame.frame_id, opts.timeout)
        .await
        .map_err(on)?;
    let written = selector.trim();
    Ok(Some(FrameScope {
        session: frame.session,
        context,
        prefix: written
            .strip_suffix(rest.as_str())
            .unwrap_or_default()
            .to_string(),
        rest,
    }))
}

/// What a selector points at: `@eN`, an encoded id, an XPath, CSS, or CSS with `query`'s
/// extensions (`:visible`, `:contains(...)`, ...), found by `query`'s engine.
pub(crate) fn target(selector: &str) -> Result<Target> {
    let target = Target::parse(selector).map_err(|e| CliError::on_selector(e, selector))?;
    Ok(with_finders(target))
}

/// `target` with each CSS part that uses `query`'s extensions (`:visible`, ...) as its finder,
/// the steps of a frame path (`iframe#pay >> button:has-text(Pay)`) included.
fn with_finders(target: Target) -> Target {
    match target {
        Target::Css(css) => match crate::page::query::parse(&css) {
            Ok(crate::page::query::Query::Extended(list)) => Target::Finder {
                expression: crate::page::query::first_match_expression(&list),
                selector: css,
            },
            _ => Target::Css(css),
        },
        Target::InFrame { host, inner } => Target::InFrame {
            host: Box::new(with_finders(*host)),
            inner: Box::new(with_finders(*inner)),
        },
        other => other,
    }
}

/// Resolves `selector` (`@eN`, an encoded id, a CSS selector or an XPath) to a live node in any
/// frame of the tab. A selector matching several elements resolves to the first, as the reference
/// CLI does, and is noted on `frames` for the answer's `meta.warnings`.
pub(crate) async fn locate(
    frames: &mut TabFrames,
    page: &Session,
    selector: &str,
    deadline: &Deadline,
) -> Result<Located> {
    match find(frames, page, &target(selector)?, selector, deadline, false).await? {
        Presence::Found(node) => Ok(node),
        // Not asked for every frame's answer: a search that found nothing is not found.
        Presence::Absent | Presence::Unanswered => Err(CliError::ElementNotFound {
            selector: selector.to_string(),
        }),
    }
}

/// Whether an element is in the page, as a wait for it to appear or to go needs to know.
#[derive(Debug)]
pub(crate) enum Presence {
    /// Found (the first match).
    Found(Located),
    /// In no frame: every frame answered.
    Absent,
    /// Not found, but a frame did not answer (slow, or between documents): no answer yet.
    Unanswered,
}

/// [`locate`] for a wait: a selector found nowhere is [`Presence::Absent`] only when every frame
/// answered, so an element in a frame that was slow to answer is never taken for gone.
pub(crate) async fn presence(
    frames: &mut TabFrames,
    page: &Session,
    selector: &str,
    deadline: &Deadline,
) -> Result<Presence> {
    find(frames, page, &target(selector)?, selector, deadline, true).await
}

/// [`presence`] of a target the caller built (a finder of its own), `label` naming it.
pub(crate) async fn presence_of(
    frames: &mut TabFrames,
    page: &Session,
    target: &Target,
    label: &str,
    deadline: &Deadline,
) -> Result<Presence> {
    find(frames, page, target, label, deadline, true).await
}

async fn find(
    frames: &mut TabFrames,
    page: &Session,
    target: &Target,
    selector: &str,
    deadline: &Deadline,
    require_every_frame: bool,
) -> Result<Presence> {
    let g = frames.graph(page, deadline).await?;
    let known = Known {
        refs: frames.refs.as_ref(),
        snapshot: None,
    };
    let opts = ResolveOptions {
        search_frames: true,
        timeout: deadline.capped(deadline::RESOLVE),
        require_every_frame,
    };
    let node = match a11y_snapshot::resolve(&g, target, known, &opts).await {
        Ok(n) => n,
        Err(a11y_snapshot::SnapshotError::RefNotFound { .. }) => {
            let number = match target {
                Target::Ref(r) => r.number(),
                _ => 0,
            };
            return Err(CliError::unknown_ref(
                frames.refs.as_ref(),
                number,
                selector,
            ));
        }
        Err(a11y_snapshot::SnapshotError::NotFound { .. }) => return Ok(Presence::Absent),
        Err(a11y_snapshot::SnapshotError::FrameUnanswered { .. }) => {
            return Ok(Presence::Unanswered);
        }
        Err(e) => return Err(CliError::on_selector(e, selector)),
    };
    frames.note_matches(selector, node.matches);
    Ok(Presence::Found(Located {
        encoded: node.encoded_id(),
        frame_id: node.frame_id,
        handle: ObjectHandle::new(node.session, node.object_id),
    }))
}

/// The document inside a frame element: the session owning it and its default execution context.
#[derive(Debug)]
pub(crate) struct ContentFrame {
    /// The session owning the frame's document (the page's, or the out-of-process iframe's).
    pub session: Session,
    /// The document's default-world execution context in that session.
    pub context: cdp_protocol::ExecutionContextId,
}

/// Resolves `selector` (normally the `@eN` ref of an `<iframe>`) to the document inside that frame
/// element, same-process or out-of-process. Anything but a frame element is `INVALID_ARGUMENT`.
pub(crate) async fn content_frame(
    frames: &mut TabFrames,
    page: &Session,
    selector: &str,
    deadline: &Deadline,
) -> Result<ContentFrame> {
    let node = locate(frames, page, selector, deadline).await?;
    let g = frames.graph(page, deadline).await?;
    let cap = deadline.capped(deadline::QUICK_CALL);
    let described = node
        .session()
        .send_timeout(
            &dom::DescribeNode {
                object_id: Some(node.handle.object_id().clone()),
                ..Default::default()
            },
            cap,
        )
        .await?
        .node;
    let not_a_frame = || {
        CliError::InvalidArgument(format!(
            "{selector} is a <{}> element, not an <iframe> or <frame>",
            described.local_name.to_lowercase()
        ))
    };
    let child = described
        .frame_id
        .clone()
        .filter(|c| g.frame(c).is_some())
        .ok_or_else(not_a_frame)?;
    let session = g.session_for(&child).ok_or_else(|| {
        CliError::FrameNotFound(format!(
            "the frame of {selector} has no live document (its renderer crashed)"
        ))
    })?;
    let context = g.execution_context_for(&child, cap).await?;
    Ok(ContentFrame { session, context })
}

/// The element a pointer at one point hits in a document (through open shadow roots; a frame
/// element is answered as such, the caller descends).
const ELEMENT_AT_JS: &str = "(function(x, y) { let e = document.elementFromPoint(x, y); \
  for (let i = 0; e && e.shadowRoot && i < 32; i++) { const inner = e.shadowRoot.elementFromPoint(x, y); \
    if (!inner || inner === e) break; e = inner; } \
  return e; })";

/// For a frame element: its content box in its document's viewport, `[left, top, width, height]`
/// (the size as laid out, before any transform).
const CONTENT_BOX_JS: &str = "function() { if (this.localName !== 'iframe' && this.localName !== 'frame') return null; \
  const r = this.getBoundingClientRect(); const cs = getComputedStyle(this); \
  const pl = parseFloat(cs.paddingLeft) || 0, pt = parseFloat(cs.paddingTop) || 0; \
  return [r.left + this.clientLeft + pl, r.top + this.clientTop + pt, \
    this.clientWidth - pl - (parseFloat(cs.paddingRight) || 0), this.clientHeight - pt - (parseFloat(cs.paddingBottom) || 0)]; }";

/// The element at page point `(x, y)` (CSS pixels of the top-level viewport), found from the top
/// document down through every frame on the way (out-of-process ones included), and the point in
/// that element's frame. A point on a frame element's border or padding is that element.
/// `ELEMENT_NOT_FOUND` when nothing is there.
pub(crate) async fn at_point(
    frames: &mut TabFrames,
    page: &Session,
    x: f64,
    y: f64,
    deadline: &Deadline,
) -> Result<(Located, (f64, f64))> {
    use cdp_protocol::runtime;
    let g = frames.graph(page, deadline).await?;
    let geo = PageGeometry::new(g.clone(), deadline);
    let given = format!("{x},{y}");
    let not_found = || CliError::ElementNotFound {
        selector: given.clone(),
    };
    let cap = deadline.capped(deadline::QUICK_CALL);
    let mut frame = g.main_frame().frame_id;
    let mut session = page.clone();
    let mut context = None;
    let (mut x, mut y) = (x, y);
    // The point in the viewport of the current session's root frame (where quads are).
    let mut root_point = (x, y);
    for _ in 0..64 {
        let r = session
            .send_timeout(
                &runtime::Evaluate {
                    expression: format!("{ELEMENT_AT_JS}({x}, {y})"),
                    context_id: context,
                    return_by_value: Some(false),
                    silent: Some(true),
                    ..Default::default()
                },
                cap,
            )
            .await?;
        let Some(object_id) = r.result.object_id.filter(|_| r.exception_details.is_none()) else {
            return Err(not_found());
        };
        let handle = ObjectHandle::new(session.clone(), object_id);
        let describe = dom::DescribeNode {
            object_id: Some(handle.object_id().clone()),
            ..Default::default()
        };
        let (described, origin) = tokio::join!(
            session.send_timeout(&describe, cap),
            handle.call(CONTENT_BOX_JS, Vec::new(), cap)
        );
        let node = described?.node;
        let size: Option<(f64, f64)> = origin
            .ok()
            .and_then(|r| r.result.value)
            .and_then(|v| serde_json::from_value::<(f64, f64, f64, f64)>(v).ok())
            .map(|(_, _, w, h)| (w, h));
        let index = g.index_for(&frame).map_or(0, |i| i.0);
        let child = node
            .frame_id
            .clone()
            .filter(|c| g.frame(c).is_some())
            .zip(size);
        // A frame element: the point in its frame's viewport, through its content quad as the
        // browser draws it (shifted, or scaled, rotated, skewed by a transform: an offset alone
        // would miss). Only a point inside the content box goes into the frame (its document sees
        // nothing under its border or padding).
        let inner = match child {
            Some((child, size)) => {
                // In a zoomed frame the browser answers the quad divided by the zoom.
                let zoom = geo.zoom(&frame).await?;
                quad::content_quad(&session, BoxOf::Handle(&handle), deadline)
                    .await?
                    .map(|q| quad::scaled(&q, zoom))
                    .and_then(|q| quad::unmap(&q, size, root_point))
                    .filter(|(lx, ly)| (0.0..size.0).contains(lx) && (0.0..size.1).contains(ly))
                    .map(|p| (child, p))
            }
            None => None,
        };
        let Some((child, (lx, ly))) = inner else {
            return Ok((
                Located {
                    handle,
                    frame_id: frame.into_inner(),
                    encoded: EncodedId::new(index, node.backend_node_id.get()),
                },
                (x, y),
            ));
        };
        let Some(child_session) = g.session_for(&child) else {
            return Err(not_found());
        };
        context = Some(
            g.execution_context_for(&child, deadline.capped(deadline::QUICK_CALL))
                .await?,
        );
        // Quads are in the viewport of their session's root frame: an out-of-process frame's
        // own, from here on.
        if g.frame(&child).is_some_and(|f| f.is_out_of_process) {
            root_point = (lx, ly);
        }
        session = child_session;
        frame = child;
        (x, y) = (lx, ly);
    }
    Err(not_found())
}

/// The deepest focused element of a document: through open shadow roots and same-origin frames;
/// an out-of-process (or cross-origin) frame shows as its frame element, and the caller descends.
/// `null` when nothing has focus (not even the body).
pub(crate) const DEEP_ACTIVE_JS: &str = "(() => { let a = document.activeElement; \
  for (let i = 0; i < 64 && a; i++) { \
    if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; } \
    let d = null; try { d = a.contentDocument; } catch (e) {} \
    if (d && d.activeElement) { a = d.activeElement; continue; } \
    break; } \
  return a; })()";

/// The element keyboard input goes to: the focused element, in whichever frame has focus (down
/// through out-of-process frames); the body when nothing is focused.
pub(crate) async fn focused(
    frames: &mut TabFrames,
    page: &Session,
    deadline: &Deadline,
) -> Result<Located> {
    use cdp_protocol::runtime;
    let g = frames.graph(page, deadline).await?;
    let cap = deadline.capped(deadline::QUICK_CALL);
    let mut frame = g.main_frame().frame_id;
    let mut session = page.clone();
    let mut context = None;
    for _ in 0..64 {
        let r = session
            .send_timeout(
                &runtime::Evaluate {
                    expression: format!(
                        "{DEEP_ACTIVE_JS} || document.body || document.documentElement"
                    ),
                    context_id: context,
                    return_by_value: Some(false),
                    silent: Some(true),
                    ..Default::default()
                },
                cap,
            )
            .await?;
        let Some(object_id) = r.result.object_id.filter(|_| r.exception_details.is_none()) else {
            return Err(CliError::internal("the page has no document to type into"));
        };
        let handle = ObjectHandle::new(session.clone(), object_id);
        let node = session
            .send_timeout(
                &dom::DescribeNode {
                    object_id: Some(handle.object_id().clone()),
                    ..Default::default()
                },
                cap,
            )
            .await?
            .node;
        let index = g.index_for(&frame).map_or(0, |i| i.0);
        let child = node
            .frame_id
            .clone()
            .filter(|c| g.frame(c).is_some())
            .and_then(|c| g.session_for(&c).map(|s| (c, s)));
        let Some((child, child_session)) = child else {
            return Ok(Located {
                handle,
                frame_id: frame.into_inner(),
                encoded: EncodedId::new(index, node.backend_node_id.get()),
            });
        };
        context = Some(g.execution_context_for(&child, cap).await?);
        session = child_session;
        frame = child;
    }
    Err(CliError::internal("frames nested more than 64 deep"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cdp_protocol::testing::{
        FixtureServer, chromium_available, launch_test_browser, open_blank_page,
    };
    use cdp_protocol::{page, runtime};
    use std::time::Duration;

    /// Whether the page still knows the remote object `id` (a released one is unknown).
    async fn alive(session: &Session, id: &cdp_protocol::RemoteObjectId) -> bool {
        session
            .send_timeout(
                &runtime::GetProperties {
                    object_id: id.clone(),
                    own_properties: Some(true),
                    accessor_properties_only: None,
                    generate_preview: None,
                },
                Duration::from_secs(5),
            )
            .await
            .is_ok()
    }

    /// The nodes an action resolves (in the top document and in a frame) are released once the
    /// action drops them: `Runtime.getProperties` on their old handles fails.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn resolved_nodes_are_released_after_the_action() {
        if !chromium_available() {
            eprintln!("skipped: no Chromium");
            return;
        }
        let server = FixtureServer::start().await;
        server.route(
            "/p.html",
            "text/html; charset=utf-8",
            "<button id=top>Top</button><iframe src=\"/f.html\"></iframe>",
        );
        server.route(
            "/f.html",
            "text/html; charset=utf-8",
            "<button id=inner>Inner</button>",
        );
        let browser = launch_test_browser().await;
        let (_, session) = open_blank_page(&browser).await.expect("a page");
        session.send(&page::Enable).await.expect("Page.enable");
        let mut loads = session.subscribe::<page::LoadEventFired>();
        session
            .send(&page::Navigate {
                url: server.url("/p.html"),
                ..Default::default()
            })
            .await
            .expect("navigate");
        tokio::time::timeout(Duration::from_secs(30), loads.recv())
            .await
            .expect("the page loads within 30 s");
        let deadline = Deadline::after_ms(30_000);
        let mut frames = TabFrames::default();
        for selector in ["#top", "#inner"] {
            let node = locate(&mut frames, &session, selector, &deadline)
                .await
                .expect("the node is found");
            let (owner, id) = (node.session().clone(), node.handle.object_id().clone());
            assert!(alive(&owner, &id).await, "{selector}: its handle works");
            drop(node);
            let mut released = false;
            for _ in 0..100 {
                if !alive(&owner, &id).await {
                    released = true;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert!(released, "{selector}: its handle was released");
        }
    }
}
