//! Reading frame owners and document order: cheaply, per frame document, with
//! `DOM.querySelectorAll` for frame owner elements (document order) and `DOM.describeNode` on
//! each (`owner_query`); or out of the whole `DOM.getDocument{depth:-1, pierce:true}` tree, which
//! also sees owners inside shadow roots but costs as much as the page is large.
//!
//! The `<iframe>` element itself carries `frameId`, for same-process frames and OOPIFs alike
//! (NOTES F1/F2); a same-process frame's content document hangs below it, an OOPIF's does not.

use cdp_protocol::{BackendNodeId, CdpError, Command, FrameId, NodeId, Session};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::time::Duration;

/// Elements that can own a frame.
const FRAME_OWNERS: &str = "iframe,frame,object,embed,fencedframe";

/// `DOM.getDocument{depth:0}`: the document node alone (its agent-local id).
#[derive(Debug, Clone, Serialize)]
struct GetRootNode {
    depth: i64,
}

impl Command for GetRootNode {
    const METHOD: &'static str = "DOM.getDocument";
    type Response = RootNode;
}

#[derive(Debug, Clone, Deserialize)]
struct RootNode {
    root: NodeRef,
}

/// A node reduced to what the owner query reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeRef {
    #[serde(default)]
    node_id: Option<NodeId>,
    #[serde(default)]
    backend_node_id: Option<BackendNodeId>,
    #[serde(default)]
    node_type: i64,
    #[serde(default)]
    frame_id: Option<FrameId>,
    #[serde(default)]
    content_document: Option<Box<NodeRef>>,
}

/// `DOM.querySelectorAll` (matches in document order; shadow trees are not searched).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct QueryOwners {
    node_id: NodeId,
    selector: &'static str,
}

impl Command for QueryOwners {
    const METHOD: &'static str = "DOM.querySelectorAll";
    type Response = Matches;
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Matches {
    #[serde(default)]
    node_ids: Vec<NodeId>,
}

/// `DOM.describeNode{nodeId, depth:0}`: an owner's frameId and content document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct DescribeOwner {
    node_id: NodeId,
    depth: i64,
}

impl Command for DescribeOwner {
    const METHOD: &'static str = "DOM.describeNode";
    type Response = Described;
}

#[derive(Debug, Clone, Deserialize)]
struct Described {
    node: NodeRef,
}

/// The frame owners of one session's documents, found with `DOM.querySelectorAll` per document
/// (the session's root document, then every same-process frame document inside it) and one
/// `DOM.describeNode` per owner: a few small calls however large the page. Owners inside shadow
/// trees are not found (check the result against the frames expected and fall back to the
/// whole-document walk).
pub(crate) async fn owner_query(
    session: &Session,
    root_frame: &FrameId,
    timeout: Duration,
) -> Result<DomFrames, CdpError> {
    let root = session
        .send_timeout(&GetRootNode { depth: 0 }, timeout)
        .await?
        .root;
    let mut out = DomFrames::default();
    let mut documents: Vec<(NodeId, FrameId)> = match root.node_id {
        Some(id) => vec![(id, root_frame.clone())],
        None => Vec::new(),
    };
    let mut guard = 0usize;
    while let Some((document, frame)) = documents.pop() {
        guard += 1;
        if guard > 10_000 {
            break;
        }
        let found = session
            .send_timeout(
                &QueryOwners {
                    node_id: document,
                    selector: FRAME_OWNERS,
                },
                timeout,
            )
            .await?
            .node_ids;
        let described = futures::future::join_all(found.into_iter().map(|node_id| async move {
            session
                .send_timeout(&DescribeOwner { node_id, depth: 0 }, timeout)
                .await
        }))
        .await;
        for d in described {
            // An owner removed meanwhile is simply not there any more.
            let Ok(d) = d else { continue };
            let node = d.node;
            let (Some(child), Some(backend)) = (node.frame_id, node.backend_node_id) else {
                continue;
            };
            if node.node_type != 1 || child == frame {
                continue;
            }
            out.owners.push((child.clone(), backend));
            out.children
                .entry(frame.clone())
                .or_default()
                .push(child.clone());
            if let Some(id) = node.content_document.and_then(|c| c.node_id) {
                documents.push((id, child));
            }
        }
    }
    Ok(out)
}

/// `DOM.getDocument{depth:-1, pierce:true}` decoded into [`DomNode`]s: only what frame owners and
/// document order need, so a large page's attribute and text strings are skipped, not copied.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GetFrameDocument {
    depth: i64,
    pierce: bool,
}

impl GetFrameDocument {
    /// The whole document, piercing iframes and shadow roots.
    pub(crate) fn whole() -> Self {
        GetFrameDocument {
            depth: -1,
            pierce: true,
        }
    }
}

impl Command for GetFrameDocument {
    const METHOD: &'static str = "DOM.getDocument";
    type Response = FrameDocument;
}

/// Result of [`GetFrameDocument`].
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FrameDocument {
    /// The document node.
    pub(crate) root: DomNode,
}

/// A DOM node reduced to the fields [`DomFrames::collect`] reads; every other field of
/// `DOM.Node` is skipped while parsing.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DomNode {
    backend_node_id: BackendNodeId,
    #[serde(default)]
    node_type: i64,
    #[serde(default)]
    frame_id: Option<FrameId>,
    #[serde(default)]
    children: Option<Vec<DomNode>>,
    #[serde(default)]
    content_document: Option<Box<DomNode>>,
    #[serde(default)]
    shadow_roots: Option<Vec<DomNode>>,
}

/// What one session's document says about the frames in it.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DomFrames {
    /// `(frame, owner element)` for every frame owner element found.
    pub owners: Vec<(FrameId, BackendNodeId)>,
    /// For each frame whose document was walked: its child frames in document order.
    pub children: HashMap<FrameId, Vec<FrameId>>,
}

impl DomFrames {
    /// Adds another session's findings.
    pub(crate) fn merge(&mut self, other: DomFrames) {
        self.owners.extend(other.owners);
        for (k, v) in other.children {
            self.children.entry(k).or_default().extend(v);
        }
    }

    /// Whether an owner of `frame` was found.
    pub(crate) fn has_owner(&self, frame: &FrameId) -> bool {
        self.owners.iter().any(|(f, _)| f == frame)
    }

    /// Walks `root` (the document of `root_frame`) depth-first in document order.
    pub(crate) fn collect(&mut self, root_frame: &FrameId, root: &DomNode) {
        // (node, frame whose document the node is in)
        let mut stack: Vec<(&DomNode, FrameId)> = vec![(root, root_frame.clone())];
        while let Some((node, frame)) = stack.pop() {
            let mut inner_frame = frame.clone();
            // The document element carries its own frame's id; only owner elements name a child.
            if let Some(child) = node
                .frame_id
                .as_ref()
                .filter(|f| node.node_type == 1 && **f != frame)
            {
                self.owners.push((child.clone(), node.backend_node_id));
                self.children
                    .entry(frame.clone())
                    .or_default()
                    .push(child.clone());
                inner_frame = child.clone();
            }
            // Push in reverse so that the stack pops in document order: shadow roots render
            // before light children, then light children, then the content document.
            if let Some(doc) = node.content_document.as_deref() {
                stack.push((doc, inner_frame));
            }
            if let Some(children) = node.children.as_ref() {
                for c in children.iter().rev() {
                    stack.push((c, frame.clone()));
                }
            }
            if let Some(shadow) = node.shadow_roots.as_ref() {
                for c in shadow.iter().rev() {
                    stack.push((c, frame.clone()));
                }
            }
        }
    }

    /// Every frame reachable from `main`, depth-first in document order (`main` excluded).
    pub fn document_order(&self, main: &FrameId) -> Vec<FrameId> {
        let mut out = Vec::new();
        let mut stack: Vec<FrameId> = self
            .children
            .get(main)
            .map(|c| c.iter().rev().cloned().collect())
            .unwrap_or_default();
        let mut guard = 0usize;
        while let Some(f) = stack.pop() {
            guard += 1;
            if guard > 100_000 {
                break;
            }
            if let Some(kids) = self.children.get(&f) {
                for k in kids.iter().rev() {
                    stack.push(k.clone());
                }
            }
            out.push(f);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(json: serde_json::Value) -> DomNode {
        serde_json::from_value(json).expect("valid node")
    }

    #[test]
    fn owners_and_order_follow_the_document() {
        let root = node(serde_json::json!({
            "nodeId": 1, "backendNodeId": 1, "nodeType": 9, "nodeName": "#document",
            "children": [{
                "nodeId": 2, "backendNodeId": 2, "nodeType": 1, "nodeName": "HTML", "frameId": "M",
                "children": [
                    {"nodeId": 3, "backendNodeId": 10, "nodeType": 1, "nodeName": "IFRAME", "frameId": "A",
                     "contentDocument": {"nodeId": 4, "backendNodeId": 11, "nodeType": 9, "nodeName": "#document",
                        "children": [{"nodeId": 5, "backendNodeId": 12, "nodeType": 1, "nodeName": "IFRAME", "frameId": "A1"}]}},
                    {"nodeId": 6, "backendNodeId": 20, "nodeType": 1, "nodeName": "DIV",
                     "shadowRoots": [{"nodeId": 7, "backendNodeId": 21, "nodeType": 11, "nodeName": "#document-fragment",
                        "children": [{"nodeId": 8, "backendNodeId": 22, "nodeType": 1, "nodeName": "IFRAME", "frameId": "S"}]}]},
                    {"nodeId": 9, "backendNodeId": 30, "nodeType": 1, "nodeName": "IFRAME", "frameId": "B"}
                ]
            }]
        }));
        let mut d = DomFrames::default();
        let main = FrameId::from("M");
        d.collect(&main, &root);
        let order: Vec<String> = d
            .document_order(&main)
            .into_iter()
            .map(|f| f.as_str().to_owned())
            .collect();
        assert_eq!(order, vec!["A", "A1", "S", "B"]);
        assert!(d.owners.contains(&(FrameId::from("A1"), BackendNodeId(12))));
        assert!(d.owners.contains(&(FrameId::from("B"), BackendNodeId(30))));
        assert_eq!(d.children.get(&FrameId::from("A")).map(Vec::len), Some(1));
    }
}
