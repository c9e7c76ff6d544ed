//! `Accessibility` domain: the accessibility (AX) tree.

use crate::ids::{BackendNodeId, FrameId, NodeId, RemoteObjectId};
use crate::protocol::{command, event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Accessibility.enable`.
    Enable,
    "Accessibility.enable"
);
unit_command!(
    /// `Accessibility.disable`.
    Disable,
    "Accessibility.disable"
);

/// A node referenced by an AX value (e.g. `labelledby`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxRelatedNode {
    /// The DOM node.
    #[serde(rename = "backendDOMNodeId")]
    pub backend_dom_node_id: BackendNodeId,
    /// The IDRef value that referenced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idref: Option<String>,
    /// Text alternative of the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Where a computed name or description came from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxValueSource {
    /// `"attribute"`, `"implicit"`, `"style"`, `"contents"`, `"placeholder"`, `"relatedElement"`.
    #[serde(default)]
    pub r#type: String,
    /// The value from this source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<AxValue>,
    /// The attribute, for attribute sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<String>,
    /// Whether a higher-priority source superseded this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<bool>,
    /// Whether the value is invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<bool>,
}

/// A typed AX value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxValue {
    /// `"boolean"`, `"tristate"`, `"string"`, `"role"`, `"internalRole"`, `"idref"`, `"nodeList"`, ...
    pub r#type: String,
    /// The value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// Related nodes (idref and node list values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_nodes: Option<Vec<AxRelatedNode>>,
    /// The sources considered (names and descriptions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<AxValueSource>>,
}

impl AxValue {
    /// The value as a string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        self.value.as_ref().and_then(|v| v.as_str())
    }
}

/// A named AX property (`focusable`, `checked`, `level`, ...).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxProperty {
    /// Property name.
    pub name: String,
    /// Its value.
    pub value: AxValue,
}

/// One node of the accessibility tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// AX node id (a string, unique within one tree response).
    pub node_id: String,
    /// Whether the node is ignored for accessibility.
    #[serde(default)]
    pub ignored: bool,
    /// Why it is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignored_reasons: Option<Vec<AxProperty>>,
    /// ARIA / computed role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<AxValue>,
    /// Chromium's internal role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chrome_role: Option<AxValue>,
    /// Accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<AxValue>,
    /// Accessible description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<AxValue>,
    /// Value (inputs, sliders...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<AxValue>,
    /// Other properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Vec<AxProperty>>,
    /// Parent AX node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Child AX nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_ids: Option<Vec<String>>,
    /// The DOM node behind this AX node.
    #[serde(
        rename = "backendDOMNodeId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub backend_dom_node_id: Option<BackendNodeId>,
    /// The frame of the document this node belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}

/// `Accessibility.getFullAXTree`: one frame's tree (call once per frame; OOPIFs on their own session).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTree {
    /// Maximum depth; none = the whole tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// The frame; none = the session's main frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}
/// Result of [`GetFullAxTree`], [`GetPartialAxTree`] and [`QueryAxTree`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetFullAxTreeResponse {
    /// The nodes.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}
command!(
    GetFullAxTree,
    "Accessibility.getFullAXTree",
    GetFullAxTreeResponse
);

/// Result of [`GetPartialAxTree`].
pub type GetPartialAxTreeResponse = GetFullAxTreeResponse;
/// Result of [`QueryAxTree`].
pub type QueryAxTreeResponse = GetFullAxTreeResponse;

/// `Accessibility.getPartialAXTree`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPartialAxTree {
    /// Agent-local DOM id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend DOM id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// Also fetch ancestors, siblings and children.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch_relatives: Option<bool>,
}
command!(
    GetPartialAxTree,
    "Accessibility.getPartialAXTree",
    GetFullAxTreeResponse
);

/// `Accessibility.queryAXTree`: find nodes by accessible name and/or role under a root.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryAxTree {
    /// Agent-local DOM id of the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<NodeId>,
    /// Backend DOM id of the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_node_id: Option<BackendNodeId>,
    /// JavaScript handle of the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_id: Option<RemoteObjectId>,
    /// Accessible name to match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accessible_name: Option<String>,
    /// Role to match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}
command!(
    QueryAxTree,
    "Accessibility.queryAXTree",
    GetFullAxTreeResponse
);

/// `Accessibility.getChildAXNodes`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetChildAxNodes {
    /// The AX node.
    pub id: String,
    /// Its frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<FrameId>,
}
command!(
    GetChildAxNodes,
    "Accessibility.getChildAXNodes",
    GetFullAxTreeResponse
);

/// Event `Accessibility.loadComplete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadComplete {
    /// The root of the new tree.
    pub root: AxNode,
}
event!(LoadComplete, "Accessibility.loadComplete");

/// Event `Accessibility.nodesUpdated`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodesUpdated {
    /// Updated nodes.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}
event!(NodesUpdated, "Accessibility.nodesUpdated");
