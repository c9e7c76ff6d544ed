//! `DOMSnapshot.captureSnapshot` decoded into flat arrays: one [`SnapDocument`] per frame document
//! of a session (same-process child frames included), nodes in flat-tree pre-order (open and closed
//! shadow trees in place, slotted nodes under their slots, user-agent shadow trees left out), with
//! layout presence, the computed styles asked for ([`STYLES`]) and the rendered text pieces.
//!
//! Decoding goes straight from the response text into `Vec<i32>`s: per-node attribute lists and
//! style lists are flattened into one array plus offsets, so a 100,000-element page costs a few
//! allocations instead of hundreds of thousands. Strings stay in the shared table
//! ([`CapturedSnapshot::strings`]) and are referred to by index.

use std::fmt;

use cdp_protocol::Command;
use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::raw::LossyString;

/// The computed styles requested, in this order ([`Style`] indexes them).
pub(crate) const STYLES: [&str; 9] = [
    "display",
    "visibility",
    "cursor",
    "overflow-x",
    "overflow-y",
    "position",
    "float",
    "content-visibility",
    "overlay",
];

/// Index of a style in [`STYLES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    Display = 0,
    Visibility = 1,
    Cursor = 2,
    OverflowX = 3,
    OverflowY = 4,
    Position = 5,
    Float = 6,
    /// `hidden` skips the element's content: it may keep (stale or forced) layout but is not shown.
    ContentVisibility = 7,
    /// `auto` on an element in the top layer (a modal dialog, an open popover).
    Overlay = 8,
}

/// `DOMSnapshot.captureSnapshot`, decoded into [`CapturedSnapshot`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CaptureSnapshotLean {
    computed_styles: Vec<&'static str>,
}

impl CaptureSnapshotLean {
    /// The capture this crate asks for: [`STYLES`], no rects, no paint order.
    pub(crate) fn new() -> Self {
        CaptureSnapshotLean {
            computed_styles: STYLES.to_vec(),
        }
    }
}

impl Command for CaptureSnapshotLean {
    const METHOD: &'static str = "DOMSnapshot.captureSnapshot";
    type Response = CapturedSnapshot;
}

/// String index meaning "none".
pub(crate) const NONE: i32 = -1;

/// Every document of one session's capture and the shared string table.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CapturedSnapshot {
    /// Documents: the session's root frame first, then its same-process descendants.
    #[serde(default)]
    pub documents: Vec<SnapDocument>,
    /// Strings referred to by index.
    #[serde(default, deserialize_with = "lossy_strings")]
    pub strings: Vec<Box<str>>,
}

impl CapturedSnapshot {
    /// The string at `i` ("" for none or out of range).
    pub(crate) fn str(&self, i: i32) -> &str {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map_or("", |s| s)
    }
}

/// One document.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapDocument {
    /// Document URL (string index).
    #[serde(rename = "documentURL")]
    pub document_url: i32,
    /// Base URL for resolving links (string index).
    #[serde(rename = "baseURL")]
    pub base_url: i32,
    /// The frame's id (string index).
    pub frame_id: i32,
    /// The nodes.
    pub nodes: SnapNodes,
    /// Layout objects.
    pub layout: SnapLayout,
    /// Rendered text fragments.
    pub text_boxes: SnapTextBoxes,
    /// Horizontal scroll offset of the document (CSS px).
    pub scroll_offset_x: f64,
    /// Vertical scroll offset of the document (CSS px).
    pub scroll_offset_y: f64,
}

/// Sparse string data: `value[k]` belongs to node `index[k]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RareStrings {
    /// Node indexes, ascending.
    pub index: Vec<i32>,
    /// String indexes.
    pub value: Vec<i32>,
}

impl RareStrings {
    /// The value for node `i`.
    pub(crate) fn get(&self, i: usize) -> Option<i32> {
        let k = self.index.binary_search(&(i as i32)).ok()?;
        self.value.get(k).copied()
    }
}

/// Sparse booleans: the nodes listed are true.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RareBools {
    /// Node indexes, ascending.
    pub index: Vec<i32>,
}

impl RareBools {
    /// Whether node `i` is listed.
    pub(crate) fn has(&self, i: usize) -> bool {
        self.index.binary_search(&(i as i32)).is_ok()
    }
}

/// Sparse integers.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RareInts {
    /// Node indexes, ascending.
    pub index: Vec<i32>,
    /// Values.
    pub value: Vec<i32>,
}

impl RareInts {
    /// The value for node `i`.
    pub(crate) fn get(&self, i: usize) -> Option<i32> {
        let k = self.index.binary_search(&(i as i32)).ok()?;
        self.value.get(k).copied()
    }
}

/// Per-node arrays.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapNodes {
    /// Parent node index (-1 for the document).
    pub parent_index: Vec<i32>,
    /// DOM nodeType.
    pub node_type: Vec<u8>,
    /// For nodes inside a shadow tree: its type (`open`, `closed`).
    pub shadow_root_type: RareStrings,
    /// nodeName (upper case for HTML elements).
    pub node_name: Vec<i32>,
    /// nodeValue of text, comment and fragment nodes.
    pub node_value: Vec<i32>,
    /// backendNodeId.
    pub backend_node_id: Vec<i64>,
    /// Attributes, flattened: node `i` has pairs `attrs.values[attrs.start[i]..attrs.start[i+1]]`.
    pub attributes: Flat<i32>,
    /// `<textarea>` values.
    pub text_value: RareStrings,
    /// `<input>` values.
    pub input_value: RareStrings,
    /// Checked checkboxes and radios.
    pub input_checked: RareBools,
    /// Selected options.
    pub option_selected: RareBools,
    /// Frame owners: index of their content document in [`CapturedSnapshot::documents`].
    pub content_document_index: RareInts,
    /// Pseudo elements (`before`, `after`, `marker`, `first-letter`).
    pub pseudo_type: RareStrings,
    /// Nodes that respond to clicks (listeners, links, controls, editable).
    pub is_clickable: RareBools,
    /// `currentSrc` of images.
    #[serde(rename = "currentSourceURL")]
    pub current_source_url: RareStrings,
}

/// Per-layout-object arrays.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapLayout {
    /// The node each layout object belongs to (a node can have several: pseudo element content).
    pub node_index: Vec<i32>,
    /// Computed styles of [`STYLES`], flattened like attributes.
    pub styles: Flat<i32>,
    /// Border boxes `[x, y, width, height]`, four values per layout object.
    pub bounds: Flat<f32>,
    /// Text of text layout objects (text-transform applied).
    pub text: Vec<i32>,
}

/// Rendered text fragments (what is left of a text node after white space collapsing).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct SnapTextBoxes {
    /// The layout object of each fragment.
    pub layout_index: Vec<i32>,
    /// Bounds are not needed.
    #[serde(skip_deserializing)]
    pub bounds: (),
    /// Start offset of the fragment in the node's text.
    pub start: Vec<i32>,
    /// Length in UTF-16 units.
    pub length: Vec<i32>,
}

/// A list of lists, flattened: list `i` is `values[start[i]..start[i + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Flat<T> {
    /// Start offsets, one more than there are lists.
    pub start: Vec<u32>,
    /// All values.
    pub values: Vec<T>,
}

impl<T> Default for Flat<T> {
    fn default() -> Self {
        Flat {
            start: vec![0],
            values: Vec::new(),
        }
    }
}

impl<T> Flat<T> {
    /// List `i` (empty when out of range).
    pub(crate) fn get(&self, i: usize) -> &[T] {
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => self.values.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

struct FlatVisitor<T>(std::marker::PhantomData<T>);

struct Inner<'a, T>(&'a mut Vec<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Inner<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct V<'a, T>(&'a mut Vec<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<'_, T> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                while let Some(v) = seq.next_element::<T>()? {
                    self.0.push(v);
                }
                Ok(())
            }
        }
        d.deserialize_seq(V(self.0))
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for FlatVisitor<T> {
    type Value = Flat<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of lists")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Flat<T>, A::Error> {
        let mut out = Flat::default();
        if let Some(n) = seq.size_hint() {
            out.start.reserve(n);
        }
        while seq.next_element_seed(Inner(&mut out.values))?.is_some() {
            out.start.push(out.values.len() as u32);
        }
        Ok(out)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Flat<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(FlatVisitor(std::marker::PhantomData))
    }
}

fn lossy_strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Box<str>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<Box<str>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of strings")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(s) = seq.next_element::<LossyString>()? {
                out.push(s.0.into_boxed_str());
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

impl SnapDocument {
    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.nodes.parent_index.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_flattened_lists_and_rare_data() {
        let json = r##"{"documents":[{"documentURL":0,"title":-1,"baseURL":0,"frameId":1,
            "nodes":{"parentIndex":[-1,0,1],"nodeType":[9,1,3],"shadowRootType":{"index":[],"value":[]},
              "nodeName":[2,3,4],"nodeValue":[-1,-1,5],"backendNodeId":[1,2,3],
              "attributes":[[],[6,7,8,-1],[]],"textValue":{"index":[],"value":[]},
              "inputValue":{"index":[1],"value":[5]},"inputChecked":{"index":[1]},
              "optionSelected":{"index":[]},"contentDocumentIndex":{"index":[],"value":[]},
              "pseudoType":{"index":[],"value":[]},"pseudoIdentifier":{"index":[],"value":[]},
              "isClickable":{"index":[1]},"currentSourceURL":{"index":[],"value":[]},
              "originURL":{"index":[],"value":[]}},
            "layout":{"nodeIndex":[0,1,2],"styles":[[9,9,9,9,9],[9,9,9,9,9],[]],
              "bounds":[[0,0,800,600],[8,8,100,20],[8,8,30,20]],"text":[-1,-1,5],
              "stackingContexts":{"index":[0]}},
            "textBoxes":{"layoutIndex":[2],"bounds":[[8,8,30,20]],"start":[0],"length":[2]},
            "scrollOffsetX":0,"scrollOffsetY":0,"contentWidth":800,"contentHeight":600}],
          "strings":["http://x/","F","#document","INPUT","#text","hi \ud800","id","a","hidden","block"]}"##;
        let snap: CapturedSnapshot = serde_json::from_str(json).unwrap_or_default();
        assert_eq!(snap.documents.len(), 1);
        let d = &snap.documents[0];
        assert_eq!(d.len(), 3);
        assert_eq!(d.nodes.attributes.get(1), &[6, 7, 8, -1]);
        assert_eq!(d.nodes.attributes.get(0), &[] as &[i32]);
        assert_eq!(d.nodes.input_value.get(1), Some(5));
        assert!(d.nodes.input_checked.has(1) && !d.nodes.input_checked.has(2));
        assert!(d.nodes.is_clickable.has(1));
        assert_eq!(d.layout.styles.get(1).len(), 5);
        assert_eq!(d.layout.styles.get(2).len(), 0);
        assert_eq!(d.layout.bounds.get(1), &[8.0, 8.0, 100.0, 20.0]);
        assert_eq!(d.text_boxes.length, vec![2]);
        assert_eq!(snap.str(d.frame_id), "F");
        assert!(snap.str(5).starts_with("hi "), "lone surrogates decode");
        assert_eq!(snap.str(-1), "");
    }
}
