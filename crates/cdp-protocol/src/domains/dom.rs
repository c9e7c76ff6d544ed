//! `DOM` domain: the document tree, node lookup, geometry, focus and files.

use crate::domains::runtime::RemoteObject;
use crate::ids::{BackendNodeId, ExecutionContextId, FrameId, NodeId, RemoteObjectId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `DOM.enable`.
    Enable,
    "DOM.enable"
);
unit_command!(
    /// `DOM.disable`.
    Disable,
    "DOM.disable"
);

/// Four points `[x1, y1, x2, y2, x3, y3, x4, y4]`, clockwise from top-left.
pub type Quad = Vec<f64>;

/// A DOM node as sent by `DOM.getDocument` / `DOM.describeNode`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Agent-local id (0 from `describeNode` when the node was not pushed).
    #[serde(default)]
    pub node_id: NodeId,
    /// Parent's agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<NodeId>,
    /// Stable id within the renderer process.
    pub backend_node_id: BackendNodeId,
    /// DOM nodeType (1 element, 3 text, 9 document, 11 fragment, ...).
    pub node_type: i64,
    /// DOM nodeName (upper case for HTML elements).
    #[serde(default)]
    pub node_name: String,
    /// DOM localName.
    #[serde(default)]
    pub local_name: String,
    /// DOM nodeValue (text of text nodes).
    #[serde(default)]
    pub node_value: String,
    /// Number of children.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_node_count: Option<i64>,
    /// Children, when requested by depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<Node>>,
    /// Attributes, flat: `[name1, value1, name2, value2, ...]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Vec<String>>,
    /// Document URL (document and frame owner nodes).
    #[serde(
        rename = "documentURL",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub document_url: Option<String>,
    /// Base URL (document nodes).
    #[serde(rename = "baseURL", default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Doctype public id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_id: Option<String>,
    /// Doctype system id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_id: Option<String>,
    /// XML version (XML documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml_version: Option<String>,
    /// Attribute name (attribute nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Attribute value (attribute nodes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Pseudo element type (`"before"`, `"after"`, `"marker"`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudo_type: Option<String>,
    /// Shadow root type (`"open"`, `"closed"`, `"user-agent"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow_root_type: Option<String>,
    /// For frame owner elements (`<iframe>`): the frame they own (also for OOPIFs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// For same-process frame owners: the child document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_document: Option<Box<Node>>,
    /// Shadow roots hosted by this element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow_roots: Option<Vec<Node>>,
    /// Content of a `<template>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_content: Option<Box<Node>>,
    /// Pseudo elements of this element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudo_elements: Option<Vec<Node>>,
    /// Whether the node is SVG.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_svg: Option<bool>,
    /// Whether the node is scrollable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_scrollable: Option<bool>,
}

impl Node {
    /// The value of attribute `name`, if present.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.as_ref().and_then(|attrs| {
            attrs
                .chunks(2)
                .find(|pair| pair.first().map(String::as_str) == Some(name))
                .and_then(|pair| pair.get(1))
                .map(String::as_str)
        })
    }
}

/// `DOM.getDocument`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDocument {
    /// Depth to return; -1 = the whole tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// Traverse iframes and shadow roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pierce: Option<bool>,
}
/// Result of [`GetDocument`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDocumentResponse {
    /// The document node.
    pub root: Node,
}
command!(GetDocument, "DOM.getDocument", GetDocumentResponse);

/// `DOM.describeNode`: one of node_id, backend_node_id or object_id.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNode {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// Depth of children to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// Traverse iframes and shadow roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pierce: Option<bool>,
}
/// Result of [`DescribeNode`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeNodeResponse {
    /// The node.
    pub node: Node,
}
command!(DescribeNode, "DOM.describeNode", DescribeNodeResponse);

/// `DOM.resolveNode`: get a JavaScript handle for a node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNode {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// Group for the handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_group: Option<String>,
    /// Context to create the handle in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_context_id: Option<ExecutionContextId>,
}
/// Result of [`ResolveNode`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolveNodeResponse {
    /// The handle.
    pub object: RemoteObject,
}
command!(ResolveNode, "DOM.resolveNode", ResolveNodeResponse);

/// `DOM.requestNode`: agent-local id for a JavaScript handle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestNode {
    /// The handle.
    pub object_id: RemoteObjectId,
}
/// Result of [`RequestNode`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestNodeResponse {
    /// The node.
    pub node_id: NodeId,
}
command!(RequestNode, "DOM.requestNode", RequestNodeResponse);

/// `DOM.getFrameOwner`: the `<iframe>` element of a frame (ask the parent frame's session).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwner {
    /// The frame.
    pub frame_id: FrameId,
}
/// Result of [`GetFrameOwner`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFrameOwnerResponse {
    /// The owner element.
    pub backend_node_id: BackendNodeId,
    /// Its agent-local id, when pushed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
}
command!(GetFrameOwner, "DOM.getFrameOwner", GetFrameOwnerResponse);

/// `DOM.getBoxModel`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBoxModel {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}
/// CSS box model of an element, each box a [`Quad`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoxModel {
    /// Content box.
    pub content: Quad,
    /// Padding box.
    pub padding: Quad,
    /// Border box.
    pub border: Quad,
    /// Margin box.
    pub margin: Quad,
    /// Width.
    pub width: i64,
    /// Height.
    pub height: i64,
}
/// Result of [`GetBoxModel`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetBoxModelResponse {
    /// The box model.
    pub model: BoxModel,
}
command!(GetBoxModel, "DOM.getBoxModel", GetBoxModelResponse);

/// `DOM.getContentQuads`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetContentQuads {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}
/// Result of [`GetContentQuads`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetContentQuadsResponse {
    /// One quad per line box / fragment.
    pub quads: Vec<Quad>,
}
command!(
    GetContentQuads,
    "DOM.getContentQuads",
    GetContentQuadsResponse
);

/// A rectangle relative to a node's border box.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

/// `DOM.scrollIntoViewIfNeeded`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollIntoViewIfNeeded {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// Area to bring into view; default the whole border box.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rect: Option<Rect>,
}
command!(ScrollIntoViewIfNeeded, "DOM.scrollIntoViewIfNeeded");

/// `DOM.focus`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Focus {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}
command!(Focus, "DOM.focus");

/// `DOM.querySelector`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelector {
    /// Node to query under (agent-local id).
    pub node_id: NodeId,
    /// CSS selector.
    pub selector: String,
}
/// Result of [`QuerySelector`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelectorResponse {
    /// The match (0 when none).
    pub node_id: NodeId,
}
command!(QuerySelector, "DOM.querySelector", QuerySelectorResponse);

/// `DOM.querySelectorAll`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelectorAll {
    /// Node to query under (agent-local id).
    pub node_id: NodeId,
    /// CSS selector.
    pub selector: String,
}
/// Result of [`QuerySelectorAll`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuerySelectorAllResponse {
    /// The matches.
    pub node_ids: Vec<NodeId>,
}
command!(
    QuerySelectorAll,
    "DOM.querySelectorAll",
    QuerySelectorAllResponse
);

/// `DOM.performSearch`: plain text, CSS selector or XPath search.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PerformSearch {
    /// The query.
    pub query: String,
    /// Also search user-agent shadow DOM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_user_agent_shadow_dom: Option<bool>,
}
/// Result of [`PerformSearch`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PerformSearchResponse {
    /// Search handle.
    pub search_id: String,
    /// Number of results.
    pub result_count: i64,
}
command!(PerformSearch, "DOM.performSearch", PerformSearchResponse);

/// `DOM.getSearchResults`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSearchResults {
    /// Search handle.
    pub search_id: String,
    /// First result index.
    pub from_index: i64,
    /// One past the last result index.
    pub to_index: i64,
}
/// Result of [`GetSearchResults`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSearchResultsResponse {
    /// The matches.
    pub node_ids: Vec<NodeId>,
}
command!(
    GetSearchResults,
    "DOM.getSearchResults",
    GetSearchResultsResponse
);

/// `DOM.discardSearchResults`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscardSearchResults {
    /// Search handle.
    pub search_id: String,
}
command!(DiscardSearchResults, "DOM.discardSearchResults");

/// `DOM.setFileInputFiles`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFileInputFiles {
    /// Absolute file paths.
    pub files: Vec<String>,
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}
command!(SetFileInputFiles, "DOM.setFileInputFiles");

/// `DOM.getNodeForLocation`: hit test.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocation {
    /// X in CSS pixels relative to the main frame viewport.
    pub x: i64,
    /// Y in CSS pixels.
    pub y: i64,
    /// Include user-agent shadow DOM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_user_agent_shadow_dom: Option<bool>,
    /// Ignore `pointer-events: none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_pointer_events_none: Option<bool>,
}
/// Result of [`GetNodeForLocation`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetNodeForLocationResponse {
    /// The hit node.
    pub backend_node_id: BackendNodeId,
    /// Its frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
    /// Its agent-local id, when pushed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
}
command!(
    GetNodeForLocation,
    "DOM.getNodeForLocation",
    GetNodeForLocationResponse
);

/// `DOM.getOuterHTML`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetOuterHtml {
    /// Agent-local id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
}
/// Result of [`GetOuterHtml`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetOuterHtmlResponse {
    /// The markup.
    #[serde(rename = "outerHTML")]
    pub outer_html: String,
}
command!(GetOuterHtml, "DOM.getOuterHTML", GetOuterHtmlResponse);

/// `DOM.getAttributes`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetAttributes {
    /// Agent-local id.
    pub node_id: NodeId,
}
/// Result of [`GetAttributes`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetAttributesResponse {
    /// Flat `[name, value, ...]`.
    pub attributes: Vec<String>,
}
command!(GetAttributes, "DOM.getAttributes", GetAttributesResponse);

/// `DOM.pushNodesByBackendIdsToFrontend`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNodesByBackendIdsToFrontend {
    /// Backend ids.
    pub backend_node_ids: Vec<BackendNodeId>,
}
/// Result of [`PushNodesByBackendIdsToFrontend`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNodesByBackendIdsToFrontendResponse {
    /// Agent-local ids (0 for nodes that could not be pushed).
    pub node_ids: Vec<NodeId>,
}
command!(
    PushNodesByBackendIdsToFrontend,
    "DOM.pushNodesByBackendIdsToFrontend",
    PushNodesByBackendIdsToFrontendResponse
);

/// `DOM.setAttributeValue`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetAttributeValue {
    /// Agent-local id.
    pub node_id: NodeId,
    /// Attribute name.
    pub name: String,
    /// Attribute value.
    pub value: String,
}
command!(SetAttributeValue, "DOM.setAttributeValue");

/// Event `DOM.documentUpdated`: every agent-local node id is now invalid.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DocumentUpdated {}
event!(DocumentUpdated, "DOM.documentUpdated");

/// Event `DOM.setChildNodes`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetChildNodes {
    /// Parent.
    pub parent_id: NodeId,
    /// Its children.
    #[serde(default)]
    pub nodes: Vec<Node>,
}
event!(SetChildNodes, "DOM.setChildNodes");

/// Event `DOM.attributeModified`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttributeModified {
    /// The node.
    pub node_id: NodeId,
    /// Attribute name.
    pub name: String,
    /// New value.
    #[serde(default)]
    pub value: String,
}
event!(AttributeModified, "DOM.attributeModified");

/// Event `DOM.childNodeInserted`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildNodeInserted {
    /// Parent.
    pub parent_node_id: NodeId,
    /// Previous sibling (0 when first).
    #[serde(default)]
    pub previous_node_id: NodeId,
    /// The inserted node.
    pub node: Node,
}
event!(ChildNodeInserted, "DOM.childNodeInserted");

/// Event `DOM.childNodeRemoved`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildNodeRemoved {
    /// Parent.
    pub parent_node_id: NodeId,
    /// The removed node.
    pub node_id: NodeId,
}
event!(ChildNodeRemoved, "DOM.childNodeRemoved");
