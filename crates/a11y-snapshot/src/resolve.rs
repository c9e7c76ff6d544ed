//! The way back from an id to a live node: `@eN`, an encoded id, a CSS selector or an XPath becomes
//! (frame, session, backendNodeId, remote object). A stale backendNodeId is re-found through its stored
//! XPath in the same frame and accepted only if role and name still match; otherwise the answer is
//! [`SnapshotError::Stale`], never a neighbour.

use std::fmt;
use std::time::Duration;

use cdp_protocol::{
    BackendNodeId, CdpError, Command, ErrorKind, RemoteObjectId, Session, dom, runtime,
};
use serde::{Deserialize, Serialize};

use crate::error::SnapshotError;
use crate::frames::{FrameHandle, PageFrames};
use crate::ids::{EncodedId, Ref};
use crate::raw::AxTree;
use crate::refs::RefTable;
use crate::role_selector::RoleSelector;
use crate::roles::{RoleKind, clean_text, map_role};
use crate::tree::Snapshot;
use crate::xpath;

#[cfg(test)]
mod tests;

/// What the user pointed at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `@eN`.
    Ref(Ref),
    /// `<frameIndex>-<backendNodeId>`.
    Encoded(EncodedId),
    /// A CSS selector.
    Css(String),
    /// An XPath (starts with `/`).
    XPath(String),
    /// Playwright's `role=button[name="..."]`, found in a fresh snapshot of every frame.
    Role(RoleSelector),
    /// A selector in a syntax of the caller's (CSS with jQuery-style extensions, say), found by a
    /// page expression that evaluates, in a frame's document, to its first match, `[first, count]`
    /// when several match, or `null`. [`Target::parse`] never gives one.
    Finder {
        /// The selector as the user wrote it.
        selector: String,
        /// The expression that finds it.
        expression: String,
    },
    /// An element in an iframe's document: `host` finds the `<iframe>`, `inner` is looked for
    /// in its frame alone (`iframe#login >> #user`, or an XPath through the frame: see
    /// [`crate::frame_path`]).
    InFrame {
        /// Finds the `<iframe>` element.
        host: Box<Target>,
        /// Found in the iframe's document (CSS, an XPath, a finder or another frame step).
        inner: Box<Target>,
    },
}

impl Target {
    /// Classifies a selector string: `@eN` is a ref, `1-42` an encoded id, an XPath as
    /// [`is_xpath`] says, `role=...` a [`RoleSelector`], anything else CSS.
    pub fn parse(s: &str) -> Result<Target, SnapshotError> {
        let t = s.trim();
        if let Some(parts) = crate::frame_path::split_css(t) {
            return Target::chain(t, &parts);
        }
        if is_xpath(t)
            && let Some((host, rest)) = crate::frame_path::split_xpath(t)
        {
            return Ok(Target::InFrame {
                host: Box::new(Target::XPath(host.to_string())),
                inner: Box::new(Target::parse(&rest)?),
            });
        }
        if t.starts_with('@') {
            return t.parse().map(Target::Ref);
        }
        if let Some(role) = RoleSelector::parse(t) {
            return role.map(Target::Role);
        }
        if is_xpath(t) {
            return Ok(Target::XPath(t.to_string()));
        }
        if let Ok(id) = t.parse::<EncodedId>() {
            return Ok(Target::Encoded(id));
        }
        if t.is_empty() {
            return Err(SnapshotError::InvalidSelector {
                selector: s.to_string(),
                reason: "empty selector".into(),
            });
        }
        Ok(Target::Css(t.to_string()))
    }
}

impl Target {
    /// `a >> b >> c` as nested [`Target::InFrame`]s; each part parsed on its own (a host may
    /// be any selector that finds an `<iframe>`; what is looked for in a frame is CSS or an
    /// XPath, a ref or role selector names an element of the whole page and cannot follow).
    fn chain(written: &str, parts: &[&str]) -> Result<Target, SnapshotError> {
        let bad = |reason: &str| SnapshotError::InvalidSelector {
            selector: written.to_string(),
            reason: reason.to_string(),
        };
        if parts.iter().any(|p| p.is_empty()) {
            return Err(bad(
                "`>>` needs a selector on each side (`iframe#pay >> #card`)",
            ));
        }
        let (last, hosts) = parts.split_last().ok_or_else(|| bad("empty selector"))?;
        let mut target = Target::parse(last)?;
        if !target.can_be_in_a_frame() {
            return Err(bad(
                "after `>>` comes a CSS selector or an XPath of the frame's document (a ref or a \
                 role selector already names an element of any frame: use it alone)",
            ));
        }
        for host in hosts.iter().rev() {
            target = Target::InFrame {
                host: Box::new(Target::parse(host)?),
                inner: Box::new(target),
            };
        }
        Ok(target)
    }

    /// Whether the target can be looked for in one frame's document.
    fn can_be_in_a_frame(&self) -> bool {
        matches!(
            self,
            Target::Css(_) | Target::XPath(_) | Target::Finder { .. } | Target::InFrame { .. }
        )
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Ref(r) => write!(f, "@{r}"),
            Target::Encoded(id) => write!(f, "{id}"),
            Target::Css(s) | Target::XPath(s) => f.write_str(s),
            Target::Role(r) => write!(f, "{r}"),
            Target::Finder { selector, .. } => f.write_str(selector),
            // An XPath through a frame reads as it was written.
            Target::InFrame { host, inner } => match (&**host, &**inner) {
                (Target::XPath(h), Target::XPath(_) | Target::InFrame { .. })
                    if inner.to_string().starts_with('/') =>
                {
                    write!(f, "{h}{inner}")
                }
                _ => write!(f, "{host} >> {inner}"),
            },
        }
    }
}

/// Whether a selector is an XPath: it starts with `/`, with `./` (from the document), or with a
/// parenthesized path (`(//input)[2]`, the usual way to take the n-th match). None of these can
/// begin a CSS selector, so nothing written as CSS is taken for one.
pub fn is_xpath(selector: &str) -> bool {
    let t = selector.trim_start();
    let t = t.trim_start_matches(|c: char| c == '(' || c.is_whitespace());
    t.starts_with('/') || t.starts_with("./")
}

/// How to resolve.
#[derive(Debug, Clone)]
pub struct ResolveOptions {
    /// Also search child frames for CSS / XPath when the main frame has no match.
    pub search_frames: bool,
    /// Deadline per CDP call.
    pub timeout: Duration,
    /// A selector found in no frame is [`SnapshotError::FrameUnanswered`], not `NotFound`, when a
    /// child frame did not answer (a timeout, a context being replaced): for a caller waiting for
    /// an element to be gone, which an unanswered frame cannot confirm.
    pub require_every_frame: bool,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            search_frames: false,
            timeout: Duration::from_secs(10),
            require_every_frame: false,
        }
    }
}

/// A live node.
#[derive(Debug, Clone)]
pub struct ResolvedNode {
    /// Frame id.
    pub frame_id: String,
    /// Frame ordinal.
    pub frame_index: u32,
    /// Session that owns the frame (send node commands here).
    pub session: Session,
    /// backendNodeId (the recovered one after a stale-node recovery).
    pub backend_node_id: i64,
    /// A handle to the node (release it with `Runtime.releaseObject` when done).
    pub object_id: RemoteObjectId,
    /// The stored backendNodeId was stale and the node was re-found by XPath.
    pub recovered: bool,
    /// How many elements the CSS selector or XPath matched (this node is the first); 1 for refs
    /// and encoded ids.
    pub matches: usize,
}

impl ResolvedNode {
    /// The node's encoded id.
    pub fn encoded_id(&self) -> EncodedId {
        EncodedId::new(self.frame_index, self.backend_node_id)
    }
}

/// Where resolution gets its knowledge of earlier snapshots.
#[derive(Debug, Clone, Copy, Default)]
pub struct Known<'a> {
    /// The tab's ref table (for `@eN`).
    pub refs: Option<&'a RefTable>,
    /// The last snapshot (for encoded ids: XPath, role and name).
    pub snapshot: Option<&'a Snapshot>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PartialAxLean {
    backend_node_id: i64,
    fetch_relatives: bool,
}

impl Command for PartialAxLean {
    const METHOD: &'static str = "Accessibility.getPartialAXTree";
    type Response = AxTree;
}

#[derive(Debug, Deserialize)]
struct ByValue {
    result: ByValueInner,
}

#[derive(Debug, Deserialize)]
struct ByValueInner {
    #[serde(default)]
    value: serde_json::Value,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CallByValue {
    function_declaration: &'static str,
    object_id: RemoteObjectId,
    return_by_value: bool,
    silent: bool,
}

impl Command for CallByValue {
    const METHOD: &'static str = "Runtime.callFunctionOn";
    type Response = ByValue;
}

/// Identity facts about a node remembered from a snapshot.
struct Expected<'r> {
    frame_id: String,
    frame_index: u32,
    backend_node_id: i64,
    xpath: String,
    role: String,
    name: String,
    /// The tab's refs: a replaced node is not recovered by position when other remembered nodes
    /// of its frame share its role and name (the row after a deleted one has the same "Delete"
    /// button at the old place). Counted only then, off the hot path.
    refs: Option<&'r RefTable>,
}

/// The refs of the other remembered nodes of a frame with this role and name (those of every
/// snapshot of the page, removed nodes included: the table keeps them until a navigation).
fn twins(refs: Option<&RefTable>, frame_id: &str, role: &str, name: &str, except: i64) -> Vec<Ref> {
    refs.map_or_else(Vec::new, |r| {
        r.entries()
            .iter()
            .filter(|o| {
                o.backend_node_id != except
                    && o.frame_id == frame_id
                    && o.role == role
                    && o.name == name
            })
            .map(|o| o.reference)
            .collect()
    })
}

/// Refs as `@e1, @e2`, the first `max` of them and how many more.
fn ref_list(refs: &[Ref], max: usize) -> String {
    let mut s = refs
        .iter()
        .take(max)
        .map(|r| format!("@{r}"))
        .collect::<Vec<_>>()
        .join(", ");
    if refs.len() > max {
        s.push_str(&format!(" and {} more", refs.len() - max));
    }
    s
}

/// Resolves a target to a live node.
pub async fn resolve<P: PageFrames>(
    frames: &P,
    target: &Target,
    known: Known<'_>,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    resolve_in(frames, target, known, opts, None).await
}

/// [`resolve`], in the one frame `scope` when given (the document of an iframe a
/// [`Target::InFrame`] stepped into).
fn resolve_in<'a, P: PageFrames>(
    frames: &'a P,
    target: &'a Target,
    known: Known<'a>,
    opts: &'a ResolveOptions,
    scope: Option<FrameHandle>,
) -> std::pin::Pin<Box<dyn Future<Output = Result<ResolvedNode, SnapshotError>> + Send + 'a>> {
    Box::pin(async move {
        match (target, scope) {
            (Target::InFrame { host, inner }, scope) => {
                let child = frame_of(frames, target, host, known, opts, scope).await?;
                resolve_in(frames, inner, known, opts, Some(child)).await
            }
            (Target::Css(sel), Some(f)) => {
                by_query_over(frames, vec![f], sel, Query::Css, opts).await
            }
            (Target::XPath(xp), Some(f)) => {
                by_query_over(frames, vec![f], xp, Query::XPath, opts).await
            }
            (
                Target::Finder {
                    selector,
                    expression,
                },
                Some(f),
            ) => by_query_over(frames, vec![f], selector, Query::Finder(expression), opts).await,
            (_, Some(_)) => Err(SnapshotError::InvalidSelector {
                selector: target.to_string(),
                reason: "only CSS or an XPath is looked for inside a frame".into(),
            }),
            (_, None) => resolve_whole_page(frames, target, known, opts).await,
        }
    })
}

/// The frame whose `<iframe>` element `host` finds (in `scope`, or any frame): what a
/// [`Target::InFrame`] steps into.
pub async fn frame_of<P: PageFrames>(
    frames: &P,
    target: &Target,
    host: &Target,
    known: Known<'_>,
    opts: &ResolveOptions,
    scope: Option<FrameHandle>,
) -> Result<FrameHandle, SnapshotError> {
    let iframe = resolve_in(frames, host, known, opts, scope).await?;
    let child = frames.frames().into_iter().find(|f| {
        f.parent_frame_id.as_deref() == Some(iframe.frame_id.as_str())
            && f.owner_backend_node_id == Some(iframe.backend_node_id)
    });
    let session = iframe.session.clone();
    let is_frame_element = match child {
        Some(_) => true,
        None => {
            let tag = session
                .send_timeout(
                    &dom::DescribeNode {
                        object_id: Some(iframe.object_id.clone()),
                        ..Default::default()
                    },
                    opts.timeout,
                )
                .await
                .map(|d| d.node.local_name.to_ascii_lowercase())
                .unwrap_or_default();
            matches!(tag.as_str(), "iframe" | "frame")
        }
    };
    release(&session, iframe.object_id).await;
    match child {
        Some(f) => Ok(f),
        None if is_frame_element => Err(SnapshotError::FrameNotFound {
            frame: format!("of {host} (its document is not loaded yet)"),
        }),
        None => Err(SnapshotError::InvalidSelector {
            selector: target.to_string(),
            reason: format!("{host} is not an <iframe>: `>>` steps into a frame's document"),
        }),
    }
}

/// The frame a chain of [`Target::InFrame`] steps ends in, and what is looked for there; `None`
/// for a target that goes through no frame.
pub async fn innermost_frame<'t, P: PageFrames>(
    frames: &P,
    target: &'t Target,
    known: Known<'_>,
    opts: &ResolveOptions,
) -> Result<Option<(FrameHandle, &'t Target)>, SnapshotError> {
    let (mut scope, mut step) = (None, target);
    while let Target::InFrame { host, inner } = step {
        scope = Some(frame_of(frames, step, host, known, opts, scope).await?);
        step = inner;
    }
    Ok(scope.map(|f| (f, step)))
}

async fn resolve_whole_page<P: PageFrames>(
    frames: &P,
    target: &Target,
    known: Known<'_>,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    match target {
        Target::Ref(r) => {
            let refs = known.refs.ok_or_else(|| SnapshotError::RefNotFound {
                reference: r.to_string(),
            })?;
            let e = refs.lookup(*r)?;
            let exp = Expected {
                frame_id: e.frame_id.clone(),
                frame_index: e.frame_index,
                backend_node_id: e.backend_node_id,
                xpath: e.xpath.clone(),
                role: e.role.clone(),
                name: e.name.clone(),
                refs: Some(refs),
            };
            by_identity(frames, &target.to_string(), exp, opts).await
        }
        Target::Encoded(id) => {
            let snap_facts = known.snapshot.and_then(|s| {
                let f = s.frame(id.frame_index)?;
                let node = s.node(*id);
                Some(Expected {
                    frame_id: f.frame_id.clone(),
                    frame_index: id.frame_index,
                    backend_node_id: id.backend_node_id,
                    xpath: s.xpath(*id).unwrap_or_default(),
                    role: node.map(|n| n.role.clone()).unwrap_or_default(),
                    name: node.map(|n| n.name.clone()).unwrap_or_default(),
                    refs: known.refs,
                })
            });
            let exp = match snap_facts {
                Some(e) => e,
                None => {
                    let f = frames
                        .frames()
                        .into_iter()
                        .find(|f| f.frame_index == id.frame_index)
                        .ok_or_else(|| SnapshotError::FrameNotFound {
                            frame: id.frame_index.to_string(),
                        })?;
                    Expected {
                        frame_id: f.frame_id,
                        frame_index: id.frame_index,
                        backend_node_id: id.backend_node_id,
                        xpath: String::new(),
                        role: String::new(),
                        name: String::new(),
                        refs: None,
                    }
                }
            };
            by_identity(frames, &target.to_string(), exp, opts).await
        }
        Target::Css(sel) => by_query(frames, sel, Query::Css, opts).await,
        Target::XPath(xp) => by_query(frames, xp, Query::XPath, opts).await,
        Target::Finder {
            selector,
            expression,
        } => by_query(frames, selector, Query::Finder(expression), opts).await,
        Target::Role(r) => by_role(frames, r, opts).await,
        Target::InFrame { .. } => resolve_in(frames, target, known, opts, None).await,
    }
}

/// The first node (in document order, every frame) of a fresh snapshot that has the role and
/// name; `matches` counts them all.
async fn by_role<P: PageFrames>(
    frames: &P,
    selector: &RoleSelector,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    let capture = crate::capture::CaptureOptions {
        timeout: opts.timeout,
        ..Default::default()
    };
    // A table of its own: the tab's refs are not handed out by a lookup.
    let mut refs = RefTable::new();
    let snap = crate::capture::take_snapshot(frames, &mut refs, &capture).await?;
    let found = selector.find(&snap);
    let label = selector.to_string();
    let Some(node) = found.first().and_then(|&i| snap.nodes.get(i as usize)) else {
        // A frame the capture could not take (its only warnings) may hold it.
        return Err(match snap.warnings.first() {
            Some(w) if opts.require_every_frame => SnapshotError::FrameUnanswered {
                frame: "?".into(),
                reason: w.clone(),
            },
            _ => SnapshotError::NotFound { selector: label },
        });
    };
    let frame = snap
        .frame(node.frame_index)
        .ok_or_else(|| SnapshotError::FrameNotFound {
            frame: node.frame_index.to_string(),
        })?;
    let exp = Expected {
        frame_id: frame.frame_id.clone(),
        frame_index: node.frame_index,
        backend_node_id: node.backend_node_id,
        xpath: snap.xpath(node.encoded_id()).unwrap_or_default(),
        role: node.role.clone(),
        name: node.name.clone(),
        refs: None,
    };
    let mut resolved = by_identity(frames, &label, exp, opts).await?;
    resolved.matches = found.len();
    Ok(resolved)
}

/// What a node that is not an element or text is, for [`SnapshotError::NotAnElement`]; `None` for
/// elements and text (which commands take: text reads, clicks at its box).
fn non_element(node_type: i64) -> Option<&'static str> {
    match node_type {
        1 | 3 | 4 => None,
        2 => Some("an attribute"),
        7 => Some("a processing instruction"),
        8 => Some("a comment"),
        9 => Some("the document"),
        10 => Some("the doctype"),
        11 => Some("a document fragment or shadow root"),
        _ => Some("no element"),
    }
}

/// The live, connected node `id` names in `session`, or `None` when it is gone. A node that is
/// no element (see [`non_element`]) is `NotAnElement` for `label`.
async fn resolve_backend(
    session: &Session,
    id: i64,
    label: &str,
    timeout: Duration,
) -> Result<Option<RemoteObjectId>, SnapshotError> {
    let cmd = dom::ResolveNode {
        backend_node_id: Some(BackendNodeId::new(id)),
        ..Default::default()
    };
    let object = match session.send_timeout(&cmd, timeout).await {
        Ok(r) => r.object,
        Err(e) if e.is_node_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(object_id) = object.object_id else {
        return Ok(None);
    };
    // A node removed from the document can still be resolvable while it is alive: that is stale
    // too. The same call says what kind of node it is (0: not connected).
    let node_type = session
        .send_timeout(
            &CallByValue {
                function_declaration: "function () { return this.isConnected === true ? this.nodeType : 0; }",
                object_id: object_id.clone(),
                return_by_value: true,
                silent: true,
            },
            timeout,
        )
        .await
        .ok()
        .and_then(|r| r.result.value.as_i64())
        .unwrap_or(0);
    if node_type == 0 {
        release(session, object_id).await;
        return Ok(None);
    }
    if let Some(node) = non_element(node_type) {
        release(session, object_id).await;
        return Err(SnapshotError::NotAnElement {
            target: label.to_string(),
            node,
        });
    }
    Ok(Some(object_id))
}

async fn release(session: &Session, object_id: RemoteObjectId) {
    let _ = session.send(&runtime::ReleaseObject { object_id }).await;
}

fn frame_by_id<P: PageFrames>(frames: &P, frame_id: &str) -> Option<FrameHandle> {
    frames.frames().into_iter().find(|f| f.frame_id == frame_id)
}

async fn by_identity<P: PageFrames>(
    frames: &P,
    label: &str,
    exp: Expected<'_>,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    let frame = frame_by_id(frames, &exp.frame_id).ok_or_else(|| SnapshotError::Stale {
        target: label.to_string(),
        reason: format!("its frame {} is gone", exp.frame_index),
    })?;
    if let Some(object_id) =
        resolve_backend(&frame.session, exp.backend_node_id, label, opts.timeout).await?
    {
        return Ok(ResolvedNode {
            frame_id: frame.frame_id,
            frame_index: frame.frame_index,
            session: frame.session,
            backend_node_id: exp.backend_node_id,
            object_id,
            recovered: false,
            matches: 1,
        });
    }
    if exp.xpath.is_empty() {
        return Err(SnapshotError::Stale {
            target: label.to_string(),
            reason: "the node is gone".into(),
        });
    }
    let found = eval_in_frame(frames, &frame, &exp.xpath, Query::XPath, opts).await?;
    let Some(Found {
        object_id, backend, ..
    }) = found
    else {
        return Err(SnapshotError::Stale {
            target: label.to_string(),
            reason: "nothing is left at its old position".into(),
        });
    };
    let twins = twins(
        exp.refs,
        &exp.frame_id,
        &exp.role,
        &exp.name,
        exp.backend_node_id,
    );
    if !twins.is_empty() {
        release(&frame.session, object_id).await;
        // The count is of refs handed out on this page (the table keeps those of earlier
        // snapshots and of removed nodes), not of what the last snapshot showed.
        return Err(SnapshotError::Stale {
            target: label.to_string(),
            reason: format!(
                "the page replaced it, and {} other refs given on this page were also {} {:?} \
                 ({}): which one is meant cannot be told from its old position",
                twins.len(),
                exp.role,
                exp.name,
                ref_list(&twins, 8)
            ),
        });
    }
    let same = same_element(&frame.session, backend, &object_id, &exp, opts.timeout).await;
    if !same {
        release(&frame.session, object_id).await;
        return Err(SnapshotError::Stale {
            target: label.to_string(),
            reason: format!(
                "the element now at its old position is not {} {:?}",
                exp.role, exp.name
            ),
        });
    }
    Ok(ResolvedNode {
        frame_id: frame.frame_id,
        frame_index: frame.frame_index,
        session: frame.session,
        backend_node_id: backend,
        object_id,
        recovered: true,
        matches: 1,
    })
}

/// Same role and accessible name as remembered (for nameless cursor-interactive nodes, whose name came
/// from their text, the text is compared instead).
async fn same_element(
    session: &Session,
    backend: i64,
    object_id: &RemoteObjectId,
    exp: &Expected<'_>,
    timeout: Duration,
) -> bool {
    if exp.role.is_empty() {
        return false; // nothing to compare with: refuse rather than guess
    }
    let Ok(tree) = session
        .send_timeout(
            &PartialAxLean {
                backend_node_id: backend,
                fetch_relatives: false,
            },
            timeout,
        )
        .await
    else {
        return false;
    };
    let Some(node) = tree
        .nodes
        .iter()
        .find(|n| n.backend_dom_node_id == Some(backend))
        .or(tree.nodes.first())
    else {
        return false;
    };
    let raw_role = node
        .role
        .as_ref()
        .map(|r| r.value.as_text().into_owned())
        .unwrap_or_default();
    let (mapped, kind) = map_role(&raw_role);
    let mut role = mapped.to_string();
    if kind == RoleKind::Structural || node.ignored {
        role = "generic".into();
    }
    if role != exp.role {
        return false;
    }
    let name = clean_text(
        node.name
            .as_ref()
            .map(|v| v.value.as_text().into_owned())
            .unwrap_or_default(),
    );
    if name == exp.name {
        return true;
    }
    if name.is_empty() {
        let text = session
            .send_timeout(
                &CallByValue {
                    function_declaration: "function () { return (this.textContent || '').slice(0, 400); }",
                    object_id: object_id.clone(),
                    return_by_value: true,
                    silent: true,
                },
                timeout,
            )
            .await
            .ok()
            .and_then(|r| r.result.value.as_str().map(|s| clean_text(s.to_string())))
            .unwrap_or_default();
        return !exp.name.is_empty() && text.starts_with(&exp.name);
    }
    false
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Query<'a> {
    Css,
    XPath,
    /// [`Target::Finder`]'s expression.
    Finder(&'a str),
}

async fn by_query<P: PageFrames>(
    frames: &P,
    sel: &str,
    q: Query<'_>,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    let all = frames.frames();
    let searched: Vec<FrameHandle> = if opts.search_frames {
        all
    } else {
        all.into_iter().take(1).collect()
    };
    by_query_over(frames, searched, sel, q, opts).await
}

/// The first match in the first of `searched` that has one.
async fn by_query_over<P: PageFrames>(
    frames: &P,
    searched: Vec<FrameHandle>,
    sel: &str,
    q: Query<'_>,
    opts: &ResolveOptions,
) -> Result<ResolvedNode, SnapshotError> {
    let mut unanswered = None;
    // One frame asked (the main one, or the frame a path stepped into): its error is the answer.
    let only = searched.len() == 1;
    for f in searched {
        match eval_in_frame(frames, &f, sel, q, opts).await {
            Ok(Some(found)) => {
                return Ok(ResolvedNode {
                    frame_id: f.frame_id,
                    frame_index: f.frame_index,
                    session: f.session,
                    backend_node_id: found.backend,
                    object_id: found.object_id,
                    recovered: false,
                    matches: found.matches,
                });
            }
            Ok(None) => {}
            Err(
                e @ (SnapshotError::InvalidSelector { .. } | SnapshotError::NotAnElement { .. }),
            ) => {
                return Err(e);
            }
            Err(e) if f.frame_index == 0 || only => return Err(e),
            // A child frame that went away holds nothing.
            Err(SnapshotError::FrameNotFound { .. }) => {}
            Err(SnapshotError::Cdp(c)) if c.is_closed() || c.kind() == ErrorKind::NoTarget => {}
            // One with no context yet, or slow to answer: nothing found there, unless the caller
            // needs every frame's answer.
            Err(e) => {
                if unanswered.is_none() {
                    unanswered = Some(SnapshotError::FrameUnanswered {
                        frame: f.frame_index.to_string(),
                        reason: e.to_string(),
                    });
                }
            }
        }
    }
    match unanswered {
        Some(e) if opts.require_every_frame => Err(e),
        _ => Err(SnapshotError::NotFound {
            selector: sel.to_string(),
        }),
    }
}

/// The first match of a CSS selector in a document: in its light DOM, else in its open shadow
/// roots (each root's own match before those of roots nested in it). Agents take selectors from
/// `query`, which looks into open shadow roots: a click on what it found must find it too.
/// Several matches (counted where the first was found: the light DOM, else all open shadow
/// roots) come as `[first, count]`, so one call also says the selector was ambiguous.
const CSS_FIRST_JS: &str = "(sel) => { const all = document.querySelectorAll(sel); \
  if (all.length) return all.length > 1 ? [all[0], all.length] : all[0]; \
  let first = null, count = 0; \
  const walk = (root) => { const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT); \
  for (let n = w.nextNode(); n; n = w.nextNode()) { const s = n.shadowRoot; if (!s) continue; \
  const m = s.querySelectorAll(sel); if (m.length) { first = first || m[0]; count += m.length; } \
  walk(s); } }; \
  walk(document); return count > 1 ? [first, count] : first; }";

/// The first node of a general XPath, or `[first, count]` when it selects several (as
/// [`CSS_FIRST_JS`]).
const XPATH_FIRST_JS: &str = "(xp) => { const r = document.evaluate(xp, document, null, \
  XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null); \
  return r.snapshotLength > 1 ? [r.snapshotItem(0), r.snapshotLength] : r.snapshotItem(0); }";

fn js_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The first match of a selector in one frame.
struct Found {
    object_id: RemoteObjectId,
    backend: i64,
    /// How many elements matched.
    matches: usize,
}

/// Finds the first match of a CSS selector or XPath in one frame's document, and how many there
/// are.
async fn eval_in_frame<P: PageFrames>(
    frames: &P,
    f: &FrameHandle,
    sel: &str,
    q: Query<'_>,
    opts: &ResolveOptions,
) -> Result<Option<Found>, SnapshotError> {
    let expression = match q {
        Query::Css => format!("({CSS_FIRST_JS})({})", js_string(sel)),
        Query::XPath if xpath::parse(sel).is_some() => {
            format!("({})({})", xpath::RESOLVE_JS, js_string(sel))
        }
        Query::XPath => format!("({XPATH_FIRST_JS})({})", js_string(sel)),
        Query::Finder(expression) => expression.to_string(),
    };
    let mut attempt = 0;
    let answer = loop {
        attempt += 1;
        let ctx = frames.execution_context(&f.frame_id, opts.timeout).await?;
        let eval = runtime::Evaluate {
            expression: expression.clone(),
            context_id: Some(ctx),
            silent: Some(true),
            // A selector that runs away (an extension over a huge page) is stopped in the page,
            // not left holding the tab's main thread after the call gave up on it.
            timeout: Some(opts.timeout.as_secs_f64() * 1000.0),
            ..Default::default()
        };
        match f.session.send_timeout(&eval, opts.timeout).await {
            Ok(r) => break r,
            // The context died with a navigation: fetch a fresh one once.
            Err(CdpError::Protocol { message, .. })
                if attempt == 1 && message.contains("context") =>
            {
                frames.forget_context(&f.frame_id);
            }
            Err(e) => return Err(e.into()),
        }
    };
    if let Some(ex) = answer.exception_details {
        let reason = ex.exception.and_then(|e| e.description).unwrap_or(ex.text);
        return Err(SnapshotError::InvalidSelector {
            selector: sel.to_string(),
            reason,
        });
    }
    let Some(object_id) = answer.result.object_id else {
        return Ok(None);
    };
    let (object_id, matches) = if answer.result.subtype.as_deref() == Some("array") {
        // Several matched: `[first, count]`, both read in one call.
        match first_of_several(&f.session, object_id, opts.timeout).await? {
            Some(pair) => pair,
            None => return Ok(None),
        }
    } else {
        (object_id, 1)
    };
    let described = f
        .session
        .send_timeout(
            &dom::DescribeNode {
                object_id: Some(object_id.clone()),
                ..Default::default()
            },
            opts.timeout,
        )
        .await?;
    if let Some(node) = non_element(described.node.node_type) {
        release(&f.session, object_id).await;
        return Err(SnapshotError::NotAnElement {
            target: sel.to_string(),
            node,
        });
    }
    Ok(Some(Found {
        object_id,
        backend: described.node.backend_node_id.get(),
        matches,
    }))
}

/// The first element and the count of a `[first, count]` answer (the array is released).
async fn first_of_several(
    session: &Session,
    array: RemoteObjectId,
    timeout: Duration,
) -> Result<Option<(RemoteObjectId, usize)>, SnapshotError> {
    let props = session
        .send_timeout(
            &runtime::GetProperties {
                object_id: array.clone(),
                own_properties: Some(true),
                accessor_properties_only: None,
                generate_preview: None,
            },
            timeout,
        )
        .await;
    release(session, array).await;
    let props = props?.result;
    let value = |name: &str| {
        props
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.value.as_ref())
    };
    let count = value("1")
        .and_then(|v| v.value.as_ref())
        .and_then(serde_json::Value::as_u64)
        .map_or(1, |n| n as usize);
    Ok(value("0")
        .and_then(|v| v.object_id.clone())
        .map(|id| (id, count)))
}
