//! `areas record`: the engine's half of recording a page as an area ([`crate::manuals::record`] is
//! the pure half). Per interactive node of the tab's accessibility snapshot (iframes and OOPIFs
//! included): its attributes (`DOM.describeNode` in the session that owns its frame), then the
//! first CSS candidate that the resolver `browser click` uses finds as this very node (same frame,
//! same backendNodeId) and that matches exactly once across all frames; the snapshot's XPath is
//! kept under the same check. Elements without such a selector are reported, never stored.

use a11y_snapshot::{Known, PageFrames, ResolveOptions, Snapshot, Target};
use cdp_protocol::{BackendNodeId, Session, dom, runtime};
use envelope::Document;
use frame_graph::FrameGraph;
use serde::{Deserialize, Serialize};

use super::manuals::{document, with_manuals};
use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::manuals::record::{
    ElementFacts, ElementKind, PageFacts, RecordOptions, RecordedElement, build_area,
    css_candidates,
};
use crate::manuals::time::Timestamp;
use crate::model::TabTarget;
use crate::page::eval::ObjectHandle;
use crate::reply::Done;
use crate::store::Home;
use crate::tab::{TabCommand, TabCx};

/// `areas record`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AreasRecord {
    /// The session and tab whose current page is recorded.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// The area's name (the last part of its id; default `default`).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its title (default: the page title).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description (default: the title and what kinds of elements it has).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl TabCommand for AreasRecord {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let home = Home::of_session_dir(&cx.session.dir).ok_or_else(|| {
            CliError::internal("the session directory is not inside an actionbook home")
        })?;
        let (url, title) = cx.page_info().await?;
        cx.url = Some(url.clone());
        cx.title = Some(title.clone());
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let snap = tokio::time::timeout(
            deadline.remaining(),
            cx.state.frames.snapshot(&page, &deadline),
        )
        .await
        .map_err(|_| deadline.timeout("areas record"))??;
        cx.save_refs().await?;
        let graph = cx.state.frames.graph(&page, &deadline).await?;
        let elements = tokio::time::timeout(
            deadline.remaining(),
            verified_elements(&graph, &snap, &deadline),
        )
        .await
        .map_err(|_| deadline.timeout("areas record"))??;
        let recording = build_area(
            &PageFacts { url, title },
            &RecordOptions {
                name: self.name,
                title: self.title,
                description: self.description,
            },
            &elements,
            Timestamp::now(),
        )?;
        let answer = with_manuals(&home, cx.env, move |m| m.record(&recording)).await?;
        let mut done = Done::data(document(answer.data)?);
        done.warnings = answer.warnings;
        Ok(done)
    }
}

/// The snapshot's interactive elements with their verified selectors, in document order.
async fn verified_elements(
    graph: &FrameGraph,
    snap: &Snapshot,
    deadline: &Deadline,
) -> Result<Vec<RecordedElement>> {
    let frames = PageFrames::frames(graph);
    let timeout = deadline.capped(deadline::RESOLVE);
    let mut out = Vec::new();
    let mut frame_titles: Vec<(u32, String)> = Vec::new();
    let mut frame_paths: Vec<(u32, Option<FramePath>)> = Vec::new();
    for node in &snap.nodes {
        if !(node.interactive || node.cursor) || node.backend_node_id == 0 {
            continue;
        }
        let Some(frame) = snap.frame(node.frame_index) else {
            continue;
        };
        let Some(handle) = frames.iter().find(|f| f.frame_id == frame.frame_id) else {
            continue;
        };
        let Some((tag, attributes)) =
            describe(&handle.session, node.backend_node_id, timeout).await
        else {
            continue; // gone since the snapshot
        };
        let frame_title = if node.frame_index == 0 {
            None
        } else {
            Some(frame_title(graph, snap, node.frame_index, &mut frame_titles, timeout).await)
        };
        let facts = ElementFacts {
            role: node.role.clone(),
            name: node.name.clone(),
            tag: if node.tag.is_empty() {
                tag
            } else {
                node.tag.clone()
            },
            attributes,
            frame_title,
        };
        if ElementKind::of(&facts).is_none() {
            continue;
        }
        let id = node.encoded_id();
        let xpath = snap.xpath(id);
        // Inside an iframe, selectors go through it (`iframe#pay >> #card`, and the XPath on
        // through the iframe's): what `query` and `click` find from the top document.
        let path = match node.frame_index {
            0 => None,
            k => match frame_path(graph, snap, k, &mut frame_paths, timeout).await {
                Some(p) => Some(p),
                None => {
                    out.push(RecordedElement {
                        facts,
                        css: None,
                        xpath: None,
                    });
                    continue;
                }
            },
        };
        let css = first_verified(graph, &facts, xpath.as_deref(), path.as_ref(), id, timeout).await;
        let xpath = through(path.as_ref(), xpath);
        let xpath = match xpath {
            Some(x) if verified(graph, &x, id, timeout).await => Some(x),
            _ => None,
        };
        out.push(RecordedElement { facts, css, xpath });
    }
    Ok(out)
}

/// Tag name and attributes of a node, or `None` when it is gone.
async fn describe(
    session: &Session,
    backend_node_id: i64,
    timeout: std::time::Duration,
) -> Option<(String, Vec<(String, String)>)> {
    let described = session
        .send_timeout(
            &dom::DescribeNode {
                backend_node_id: Some(BackendNodeId::new(backend_node_id)),
                ..Default::default()
            },
            timeout,
        )
        .await
        .ok()?;
    let flat = described.node.attributes.unwrap_or_default();
    let attributes = flat
        .chunks(2)
        .filter_map(|p| match p {
            [k, v] => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect();
    Some((described.node.local_name.to_ascii_lowercase(), attributes))
}

/// The `title` of the `<iframe>` that holds frame `frame_index` (`""` when it has none), cached.
async fn frame_title(
    graph: &FrameGraph,
    snap: &Snapshot,
    frame_index: u32,
    cache: &mut Vec<(u32, String)>,
    timeout: std::time::Duration,
) -> String {
    if let Some((_, t)) = cache.iter().find(|(i, _)| *i == frame_index) {
        return t.clone();
    }
    let title = async {
        let frame = snap.frame(frame_index)?;
        let owner = frame.owner_backend_node_id?;
        let parent = frame.parent_frame_id.as_deref()?;
        let session = PageFrames::frames(graph)
            .into_iter()
            .find(|f| f.frame_id == parent)?
            .session;
        let (_, attrs) = describe(&session, owner, timeout).await?;
        attrs
            .into_iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("title"))
            .map(|(_, v)| v)
    }
    .await
    .unwrap_or_default();
    cache.push((frame_index, title.clone()));
    title
}

/// How the top document reaches a frame: the CSS of its `<iframe>` (through the iframes it is
/// in: `#outer >> #inner`) and the XPath down to that `<iframe>`, when both sides have one.
#[derive(Debug, Clone)]
struct FramePath {
    css: String,
    xpath: Option<String>,
}

/// The [`FramePath`] of frame `frame_index`, cached; `None` when its `<iframe>` has no selector
/// that finds it alone.
async fn frame_path(
    graph: &FrameGraph,
    snap: &Snapshot,
    frame_index: u32,
    cache: &mut Vec<(u32, Option<FramePath>)>,
    timeout: std::time::Duration,
) -> Option<FramePath> {
    if let Some((_, p)) = cache.iter().find(|(i, _)| *i == frame_index) {
        return p.clone();
    }
    let path = Box::pin(frame_path_uncached(
        graph,
        snap,
        frame_index,
        cache,
        timeout,
    ))
    .await;
    cache.push((frame_index, path.clone()));
    path
}

async fn frame_path_uncached(
    graph: &FrameGraph,
    snap: &Snapshot,
    frame_index: u32,
    cache: &mut Vec<(u32, Option<FramePath>)>,
    timeout: std::time::Duration,
) -> Option<FramePath> {
    let frame = snap.frame(frame_index)?;
    let owner = frame.owner_backend_node_id?;
    let parent_id = frame.parent_frame_id.clone()?;
    let parent = PageFrames::frames(graph)
        .into_iter()
        .find(|f| f.frame_id == parent_id)?;
    let (tag, attributes) = describe(&parent.session, owner, timeout).await?;
    let facts = ElementFacts {
        role: "Iframe".into(),
        tag,
        attributes,
        ..ElementFacts::default()
    };
    let owner_id = a11y_snapshot::EncodedId::new(parent.frame_index, owner);
    let outer = match parent.frame_index {
        0 => None,
        k => Some(frame_path(graph, snap, k, cache, timeout).await?),
    };
    let owner_xpath = snap.xpath(owner_id);
    let css = first_verified(
        graph,
        &facts,
        owner_xpath.as_deref(),
        outer.as_ref(),
        owner_id,
        timeout,
    )
    .await?;
    Some(FramePath {
        css,
        xpath: through(outer.as_ref(), owner_xpath),
    })
}

/// The first CSS candidate of `facts` (after `path`'s, through the frames it is in) that finds
/// the node `id` alone.
async fn first_verified(
    graph: &FrameGraph,
    facts: &ElementFacts,
    xpath: Option<&str>,
    path: Option<&FramePath>,
    id: a11y_snapshot::EncodedId,
    timeout: std::time::Duration,
) -> Option<String> {
    for candidate in css_candidates(facts, xpath) {
        let full = match path {
            Some(p) => format!("{} >> {candidate}", p.css),
            None => candidate,
        };
        if verified(graph, &full, id, timeout).await {
            return Some(full);
        }
    }
    None
}

/// `xpath` from the top document: after `path`'s XPath when it is in a frame (none when the
/// way to that frame has no XPath).
fn through(path: Option<&FramePath>, xpath: Option<String>) -> Option<String> {
    match (xpath, path) {
        (Some(x), None) => Some(x),
        (Some(x), Some(p)) => p.xpath.as_ref().map(|host| format!("{host}{x}")),
        (None, _) => None,
    }
}

/// [`matches_only`] of a selector as the commands parse it.
async fn verified(
    graph: &FrameGraph,
    selector: &str,
    id: a11y_snapshot::EncodedId,
    timeout: std::time::Duration,
) -> bool {
    match Target::parse(selector) {
        Ok(t) => matches_only(graph, &t, id, timeout).await,
        Err(_) => false,
    }
}

/// Whether `target` resolves, as `browser click` resolves it, to the node `id` and matches nothing
/// else in any frame (a selector through frames: nothing else in its frame).
async fn matches_only(
    graph: &FrameGraph,
    target: &Target,
    id: a11y_snapshot::EncodedId,
    timeout: std::time::Duration,
) -> bool {
    let opts = ResolveOptions {
        search_frames: true,
        timeout,
        require_every_frame: false,
    };
    let Ok(found) = a11y_snapshot::resolve(graph, target, Known::default(), &opts).await else {
        return false;
    };
    let same = found.encoded_id() == id;
    drop(ObjectHandle::new(found.session, found.object_id));
    same && count(graph, target, timeout).await == Some(1)
}

/// How many elements `target` (CSS or XPath) matches across every frame; `None` when a frame could
/// not be asked (then nothing is claimed).
async fn count(graph: &FrameGraph, target: &Target, timeout: std::time::Duration) -> Option<u64> {
    let (frames, leaf) = match target {
        Target::InFrame { .. } => {
            let opts = ResolveOptions {
                search_frames: true,
                timeout,
                require_every_frame: false,
            };
            let (frame, leaf) =
                a11y_snapshot::resolve::innermost_frame(graph, target, Known::default(), &opts)
                    .await
                    .ok()??;
            (vec![frame], leaf)
        }
        _ => (PageFrames::frames(graph), target),
    };
    let expression = match leaf {
        Target::Css(sel) => format!(
            "document.querySelectorAll({}).length",
            serde_json::to_string(sel).ok()?
        ),
        Target::XPath(xp) => format!(
            "document.evaluate({}, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength",
            serde_json::to_string(xp).ok()?
        ),
        _ => return None,
    };
    let mut total = 0;
    for f in frames {
        let ctx = graph.execution_context(&f.frame_id, timeout).await.ok()?;
        let r = f
            .session
            .send_timeout(
                &runtime::Evaluate {
                    expression: expression.clone(),
                    context_id: Some(ctx),
                    return_by_value: Some(true),
                    silent: Some(true),
                    ..Default::default()
                },
                timeout,
            )
            .await
            .ok()?;
        if r.exception_details.is_some() {
            return None;
        }
        total += r.result.value.and_then(|v| v.as_u64())?;
    }
    Some(total)
}
