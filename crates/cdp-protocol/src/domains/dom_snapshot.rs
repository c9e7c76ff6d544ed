//! `DOMSnapshot` domain: a flat, index-based capture of every document with layout.
//!
//! Strings are interned: most fields are indexes into [`CaptureSnapshotResponse::strings`]
//! (-1 for none). Every field defaults when absent.

use crate::ids::BackendNodeId;
use crate::protocol::command;
use serde::{Deserialize, Serialize};

/// Index into the shared string table (-1 = none).
pub type StringIndex = i64;

/// `DOMSnapshot.captureSnapshot`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaptureSnapshot {
    /// Computed style properties to include per layout node.
    pub computed_styles: Vec<String>,
    /// Include paint orders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_paint_order: Option<bool>,
    /// Include offset, scroll and client rects.
    #[serde(
        rename = "includeDOMRects",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub include_dom_rects: Option<bool>,
    /// Include blended background colors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_blended_background_colors: Option<bool>,
    /// Include text color opacities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_text_color_opacities: Option<bool>,
}

/// Sparse string data: `value[i]` belongs to node `index[i]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RareStringData {
    /// Node indexes.
    pub index: Vec<i64>,
    /// String indexes.
    pub value: Vec<StringIndex>,
}

/// Sparse booleans: the nodes listed are true.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RareBooleanData {
    /// Node indexes that are true.
    pub index: Vec<i64>,
}

/// Sparse integers: `value[i]` belongs to node `index[i]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RareIntegerData {
    /// Node indexes.
    pub index: Vec<i64>,
    /// Values.
    pub value: Vec<i64>,
}

/// Every DOM node of one document, as parallel arrays.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeTreeSnapshot {
    /// Parent node index (-1 for the root).
    pub parent_index: Vec<i64>,
    /// DOM nodeType.
    pub node_type: Vec<i64>,
    /// Shadow root type of shadow roots.
    pub shadow_root_type: RareStringData,
    /// nodeName.
    pub node_name: Vec<StringIndex>,
    /// nodeValue.
    pub node_value: Vec<StringIndex>,
    /// Backend ids.
    pub backend_node_id: Vec<BackendNodeId>,
    /// Attributes per node, flat `[name, value, ...]` string indexes.
    pub attributes: Vec<Vec<StringIndex>>,
    /// Text area / input text values.
    pub text_value: RareStringData,
    /// Input values.
    pub input_value: RareStringData,
    /// Checked inputs.
    pub input_checked: RareBooleanData,
    /// Selected options.
    pub option_selected: RareBooleanData,
    /// Document index of a frame owner's content document.
    pub content_document_index: RareIntegerData,
    /// Pseudo element types.
    pub pseudo_type: RareStringData,
    /// Pseudo element identifiers.
    pub pseudo_identifier: RareStringData,
    /// Nodes with a click listener or that are otherwise clickable.
    pub is_clickable: RareBooleanData,
    /// Current `src` of images.
    #[serde(rename = "currentSourceURL")]
    pub current_source_url: RareStringData,
    /// Origin URL of frame owners.
    #[serde(rename = "originURL")]
    pub origin_url: RareStringData,
}

/// Layout objects of one document, as parallel arrays.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LayoutTreeSnapshot {
    /// DOM node index of each layout object.
    pub node_index: Vec<i64>,
    /// Computed style values (string indexes), in the order requested.
    pub styles: Vec<Vec<StringIndex>>,
    /// Border box `[x, y, width, height]`.
    pub bounds: Vec<Vec<f64>>,
    /// Text of text layout objects.
    pub text: Vec<StringIndex>,
    /// Layout objects that are stacking contexts.
    pub stacking_contexts: RareBooleanData,
    /// Paint order, when requested.
    pub paint_orders: Vec<i64>,
    /// Offset rects, when requested.
    pub offset_rects: Vec<Vec<f64>>,
    /// Scroll rects, when requested.
    pub scroll_rects: Vec<Vec<f64>>,
    /// Client rects, when requested.
    pub client_rects: Vec<Vec<f64>>,
    /// Blended background colors, when requested.
    pub blended_background_colors: Vec<StringIndex>,
    /// Text color opacities, when requested.
    pub text_color_opacities: Vec<f64>,
}

/// Inline text boxes of one document.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TextBoxSnapshot {
    /// Layout object index of each box.
    pub layout_index: Vec<i64>,
    /// `[x, y, width, height]`.
    pub bounds: Vec<Vec<f64>>,
    /// Start offset in the text.
    pub start: Vec<i64>,
    /// Length.
    pub length: Vec<i64>,
}

/// One document (main or frame).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DocumentSnapshot {
    /// Document URL.
    #[serde(rename = "documentURL")]
    pub document_url: StringIndex,
    /// Title.
    pub title: StringIndex,
    /// Base URL.
    #[serde(rename = "baseURL")]
    pub base_url: StringIndex,
    /// Content language.
    pub content_language: StringIndex,
    /// Encoding.
    pub encoding_name: StringIndex,
    /// Doctype public id.
    pub public_id: StringIndex,
    /// Doctype system id.
    pub system_id: StringIndex,
    /// Frame id.
    pub frame_id: StringIndex,
    /// DOM nodes.
    pub nodes: NodeTreeSnapshot,
    /// Layout objects.
    pub layout: LayoutTreeSnapshot,
    /// Inline text boxes.
    pub text_boxes: TextBoxSnapshot,
    /// Horizontal scroll offset.
    pub scroll_offset_x: Option<f64>,
    /// Vertical scroll offset.
    pub scroll_offset_y: Option<f64>,
    /// Content width.
    pub content_width: Option<f64>,
    /// Content height.
    pub content_height: Option<f64>,
}

/// Result of [`CaptureSnapshot`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CaptureSnapshotResponse {
    /// Documents, the main document first.
    pub documents: Vec<DocumentSnapshot>,
    /// The shared string table.
    pub strings: Vec<String>,
}

impl CaptureSnapshotResponse {
    /// The string at `index`, if in range (negative indexes mean none).
    pub fn string(&self, index: StringIndex) -> Option<&str> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(String::as_str)
    }
}

command!(
    CaptureSnapshot,
    "DOMSnapshot.captureSnapshot",
    CaptureSnapshotResponse
);
