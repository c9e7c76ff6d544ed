//! Lean decode types for the two CDP answers a snapshot is built from (`DOM.getDocument` and
//! `Accessibility.getFullAXTree`).
//!
//! They keep only what the snapshot needs and are decoded straight from the response text: unknown fields
//! (name sources, pseudo elements, template contents, node values, most attributes) are skipped without
//! being materialised. Page-controlled strings are decoded leniently: a lone UTF-16 surrogate (which
//! Chromium can emit as `\ud800`) becomes U+FFFD instead of failing the whole response.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A string that decodes from any JSON string, lone surrogates included (they become U+FFFD).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LossyString(pub String);

struct LossyVisitor;

impl<'de> Visitor<'de> for LossyVisitor {
    type Value = LossyString;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<LossyString, E> {
        Ok(LossyString(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<LossyString, E> {
        Ok(LossyString(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<LossyString, E> {
        Ok(LossyString(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<LossyString, E> {
        Ok(LossyString(match String::from_utf8(v) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LossyString, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(LossyString::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<LossyString, E> {
        Ok(LossyString::default())
    }
}

impl<'de> Deserialize<'de> for LossyString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // serde_json hands strings to deserialize_bytes unvalidated (WTF-8), so lone surrogates survive.
        d.deserialize_bytes(LossyVisitor)
    }
}

/// The scalar payload of an `AXValue`.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum AxScalar {
    /// Absent, null, or a structured value this crate does not use.
    #[default]
    None,
    /// A string (names, tristates, URLs, uncommon roles).
    Str(String),
    /// A common role name, interned while decoding (no allocation per node).
    Role(&'static str),
    /// A boolean.
    Bool(bool),
    /// A number.
    Num(f64),
}

impl AxScalar {
    /// The value as text ("" for none).
    pub fn as_text(&self) -> Cow<'_, str> {
        match self {
            AxScalar::None => Cow::Borrowed(""),
            AxScalar::Str(s) => Cow::Borrowed(s),
            AxScalar::Role(r) => Cow::Borrowed(r),
            AxScalar::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
            AxScalar::Num(n) => Cow::Owned(if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{}", *n as i64)
            } else {
                n.to_string()
            }),
        }
    }

    /// True for `true` or the string "true" (CDP tristates and booleanOrUndefined).
    pub fn is_true(&self) -> bool {
        matches!(self, AxScalar::Bool(true)) || matches!(self, AxScalar::Str(s) if s == "true")
    }

    /// Consumes the value, returning its text.
    pub fn into_text(self) -> String {
        match self {
            AxScalar::Str(s) => s,
            other => other.as_text().into_owned(),
        }
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = AxScalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AX value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<AxScalar, E> {
        Ok(AxScalar::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxScalar, E> {
        Ok(AxScalar::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AxScalar, E> {
        Ok(AxScalar::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<AxScalar, E> {
        Ok(AxScalar::Num(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxScalar, E> {
        Ok(AxScalar::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<AxScalar, E> {
        Ok(AxScalar::Str(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<AxScalar, E> {
        Ok(AxScalar::None)
    }
    fn visit_none<E: de::Error>(self) -> Result<AxScalar, E> {
        Ok(AxScalar::None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxScalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(AxScalar::None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxScalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(AxScalar::None)
    }
}

/// A CDP `AXValue`, reduced to its scalar value (sources and related nodes are skipped).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AxValue {
    /// The value.
    pub value: AxScalar,
}

struct AxValueVisitor;

impl<'de> Visitor<'de> for AxValueVisitor {
    type Value = AxValue;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AXValue object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxValue, A::Error> {
        let mut ty = ValueType::Other;
        let mut value = AxScalar::None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => ty = map.next_value::<ValueType>()?,
                // Chromium writes `type` before `value`; page text then goes through the lenient path.
                Key::Value if ty == ValueType::Role => value = map.next_value::<RoleSeed>()?.0,
                Key::Value if ty == ValueType::Text => {
                    value = AxScalar::Str(map.next_value::<LossyString>()?.0)
                }
                Key::Value => value = map.next_value::<ScalarSeed>()?.0,
                Key::Name | Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(AxValue { value })
    }
    fn visit_unit<E: de::Error>(self) -> Result<AxValue, E> {
        Ok(AxValue::default())
    }
}

/// Field names of an AXValue, matched without allocating.
enum Key {
    Type,
    Value,
    Name,
    Other,
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "type" => Key::Type,
            "value" => Key::Value,
            "name" => Key::Name,
            _ => Key::Other,
        })
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_identifier(KeyVisitor)
    }
}

/// What an AXValue's `value` holds, from its `type`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueType {
    Role,
    Text,
    Other,
}

struct ValueTypeVisitor;

impl<'de> Visitor<'de> for ValueTypeVisitor {
    type Value = ValueType;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AXValue type")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<ValueType, E> {
        Ok(match v {
            "role" | "internalRole" => ValueType::Role,
            "string" | "computedString" | "token" | "tristate" => ValueType::Text,
            _ => ValueType::Other,
        })
    }
}

impl<'de> Deserialize<'de> for ValueType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(ValueTypeVisitor)
    }
}

/// Role names seen on every page, kept as static strings.
const COMMON_ROLES: &[&str] = &[
    "StaticText",
    "InlineTextBox",
    "generic",
    "none",
    "paragraph",
    "link",
    "button",
    "listitem",
    "list",
    "cell",
    "row",
    "rowgroup",
    "columnheader",
    "rowheader",
    "table",
    "heading",
    "textbox",
    "checkbox",
    "radio",
    "combobox",
    "option",
    "MenuListPopup",
    "MenuListOption",
    "LabelText",
    "navigation",
    "main",
    "banner",
    "contentinfo",
    "region",
    "form",
    "img",
    "image",
    "tab",
    "tablist",
    "tabpanel",
    "menu",
    "menuitem",
    "RootWebArea",
    "Iframe",
    "LineBreak",
    "ListMarker",
    "group",
    "article",
    "complementary",
    "search",
    "dialog",
    "strong",
    "emphasis",
    "code",
    "Section",
    "SectionWithoutName",
    "GenericContainer",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "separator",
    "figure",
    "listbox",
    "tree",
    "treeitem",
    "grid",
    "gridcell",
    "toolbar",
    "status",
    "alert",
    "presentation",
    "Pre",
    "time",
    "blockquote",
    "Canvas",
    "svg",
];

fn intern_role(b: &[u8]) -> Option<&'static str> {
    COMMON_ROLES.iter().copied().find(|r| r.as_bytes() == b)
}

struct RoleVisitor;

impl<'de> Visitor<'de> for RoleVisitor {
    type Value = AxScalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a role name")
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<AxScalar, E> {
        Ok(match intern_role(v) {
            Some(r) => AxScalar::Role(r),
            None => AxScalar::Str(String::from_utf8_lossy(v).into_owned()),
        })
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxScalar, E> {
        self.visit_bytes(v.as_bytes())
    }
    fn visit_unit<E: de::Error>(self) -> Result<AxScalar, E> {
        Ok(AxScalar::None)
    }
}

struct RoleSeed(AxScalar);

impl<'de> Deserialize<'de> for RoleSeed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(RoleVisitor).map(RoleSeed)
    }
}

struct ScalarSeed(AxScalar);

impl<'de> Deserialize<'de> for ScalarSeed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor).map(ScalarSeed)
    }
}

impl<'de> Deserialize<'de> for AxValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AxValueVisitor)
    }
}

/// An AX node id. Chromium's ids are decimal strings; they are kept as numbers (no allocation per node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AxNodeId(pub i64);

struct AxIdVisitor;

impl<'de> Visitor<'de> for AxIdVisitor {
    type Value = AxNodeId;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an AX node id")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<AxNodeId, E> {
        Ok(AxNodeId(
            v.parse::<i64>().unwrap_or_else(|_| fnv(v.as_bytes())),
        ))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxNodeId, E> {
        Ok(AxNodeId(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AxNodeId, E> {
        Ok(AxNodeId(v as i64))
    }
}

/// Non-numeric ids (never seen in practice) still get a stable, probably-unique key.
fn fnv(bytes: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (h >> 1) as i64 | (1 << 62)
}

impl<'de> Deserialize<'de> for AxNodeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AxIdVisitor)
    }
}

/// One `AXProperty` (only the names in [`WANTED_PROPERTIES`] are decoded).
#[derive(Debug, Clone)]
pub struct AxProperty {
    /// Property name (`checked`, `disabled`, `url`, ...).
    pub name: &'static str,
    /// Its value.
    pub value: AxValue,
}

/// Property names the snapshot reads.
pub const WANTED_PROPERTIES: &[&str] = &[
    "checked", "pressed", "selected", "expanded", "disabled", "focused", "required", "url",
];

struct PropName(Option<&'static str>);

impl<'de> Deserialize<'de> for PropName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PropName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a property name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PropName, E> {
                Ok(PropName(
                    WANTED_PROPERTIES.iter().copied().find(|w| *w == v),
                ))
            }
        }
        d.deserialize_str(V)
    }
}

/// One property, kept only when its name is wanted.
struct MaybeProperty(Option<AxProperty>);

impl<'de> Deserialize<'de> for MaybeProperty {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeProperty;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AXProperty")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MaybeProperty, A::Error> {
                let mut name: Option<&'static str> = None;
                let mut value = AxValue::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Name => name = map.next_value::<PropName>()?.0,
                        // "name" comes first on the wire, so unwanted values are skipped unread.
                        Key::Value if name.is_some() => value = map.next_value::<AxValue>()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(MaybeProperty(name.map(|n| AxProperty { name: n, value })))
            }
        }
        d.deserialize_map(V)
    }
}

fn wanted_properties<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<AxProperty>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<AxProperty>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of AXProperty")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<AxProperty>, A::Error> {
            let mut out = Vec::new();
            while let Some(p) = seq.next_element::<MaybeProperty>()? {
                out.extend(p.0);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V)
}

/// One node of `Accessibility.getFullAXTree`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AxNode {
    /// The AX node id.
    pub node_id: AxNodeId,
    /// Chromium decided the node is not exposed.
    #[serde(default)]
    pub ignored: bool,
    /// Role (Chromium's role string: ARIA roles plus internal ones like `StaticText`).
    #[serde(default)]
    pub role: Option<AxValue>,
    /// Accessible name.
    #[serde(default)]
    pub name: Option<AxValue>,
    /// Value (text fields, selects, sliders).
    #[serde(default)]
    pub value: Option<AxValue>,
    /// The properties this crate reads (states and `url`); the others are skipped while decoding.
    #[serde(default, deserialize_with = "wanted_properties")]
    pub properties: Vec<AxProperty>,
    /// Parent AX node.
    #[serde(default)]
    pub parent_id: Option<AxNodeId>,
    /// Children in order.
    #[serde(default)]
    pub child_ids: Vec<AxNodeId>,
    /// The DOM node behind this AX node.
    #[serde(default, rename = "backendDOMNodeId")]
    pub backend_dom_node_id: Option<i64>,
}

/// The answer of `Accessibility.getFullAXTree`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AxTree {
    /// Every node, parents before children.
    #[serde(default)]
    pub nodes: Vec<AxNode>,
}

/// The few attributes the snapshot looks at; every other attribute is skipped during decoding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomAttrs {
    /// Has an `onclick` attribute.
    pub onclick: bool,
    /// Value of `tabindex`, when it parses.
    pub tabindex: Option<i32>,
    /// `contenteditable` is present and not "false".
    pub contenteditable: bool,
    /// The `href` attribute, as written.
    pub href: Option<Box<str>>,
}

struct AttrsVisitor;

impl<'de> Visitor<'de> for AttrsVisitor {
    type Value = DomAttrs;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a flat [name, value, ...] attribute list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DomAttrs, A::Error> {
        let mut out = DomAttrs::default();
        while let Some(name) = seq.next_element::<LossyString>()? {
            let name = name.0;
            let lower = name.to_ascii_lowercase();
            match lower.as_str() {
                "onclick" => {
                    out.onclick = true;
                    seq.next_element::<IgnoredAny>()?;
                }
                "tabindex" => {
                    let v = seq.next_element::<LossyString>()?.unwrap_or_default();
                    out.tabindex = v.0.trim().parse().ok();
                }
                "contenteditable" => {
                    let v = seq.next_element::<LossyString>()?.unwrap_or_default();
                    out.contenteditable = !v.0.eq_ignore_ascii_case("false");
                }
                "href" => {
                    out.href = seq
                        .next_element::<LossyString>()?
                        .map(|v| v.0.into_boxed_str())
                }
                _ => {
                    seq.next_element::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for DomAttrs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(AttrsVisitor)
    }
}

/// One node of `DOM.getDocument` / `DOM.describeNode`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomNode {
    /// backendNodeId (stable for the node's lifetime, scoped to its renderer process).
    pub backend_node_id: i64,
    /// DOM nodeType (1 element, 3 text, 8 comment, 9 document, 10 doctype, 11 fragment/shadow root).
    pub node_type: u32,
    /// nodeName (upper case for HTML elements).
    #[serde(default)]
    pub node_name: String,
    /// localName.
    #[serde(default)]
    pub local_name: String,
    /// Number of children the node has (may exceed `children.len()` when depth-limited).
    #[serde(default)]
    pub child_node_count: Option<u32>,
    /// Children fetched.
    #[serde(default)]
    pub children: Option<Vec<DomNode>>,
    /// Attributes of interest.
    #[serde(default)]
    pub attributes: DomAttrs,
    /// For `<iframe>`/`<frame>` owners: the child frame's id (set for OOPIFs too).
    #[serde(default)]
    pub frame_id: Option<String>,
    /// Same-process frame document.
    #[serde(default)]
    pub content_document: Option<Box<DomNode>>,
    /// Shadow roots hosted by this element.
    #[serde(default)]
    pub shadow_roots: Option<Vec<DomNode>>,
    /// `open`, `closed` or `user-agent` for shadow roots.
    #[serde(default)]
    pub shadow_root_type: Option<String>,
    /// Chromium says the node is a scroll container that can scroll.
    #[serde(default)]
    pub is_scrollable: Option<bool>,
}

/// The answer of `DOM.getDocument`.
#[derive(Debug, Clone, Deserialize)]
pub struct DomDocument {
    /// The document node.
    pub root: DomNode,
}

/// The answer of `DOM.describeNode`.
#[derive(Debug, Clone, Deserialize)]
pub struct DescribedNode {
    /// The node, with children to the requested depth.
    pub node: DomNode,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_do_not_fail_the_tree() {
        let json = r#"{"nodes":[{"nodeId":"7","ignored":false,"role":{"type":"role","value":"button"},
            "name":{"type":"computedString","value":"Go \ud800 \u00a0now","sources":[{"type":"contents"}]},
            "properties":[{"name":"disabled","value":{"type":"boolean","value":true}},
                          {"name":"level","value":{"type":"integer","value":2}},
                          {"name":"labelledby","value":{"type":"nodeList","relatedNodes":[]}}],
            "childIds":["8"],"backendDOMNodeId":42,"frameId":"F"}]}"#;
        let tree: AxTree = serde_json::from_str(json).unwrap_or_default();
        assert_eq!(tree.nodes.len(), 1);
        let n = &tree.nodes[0];
        assert_eq!(n.node_id, AxNodeId(7));
        assert_eq!(n.child_ids, vec![AxNodeId(8)]);
        let name = n
            .name
            .as_ref()
            .map(|v| v.value.as_text().into_owned())
            .unwrap_or_default();
        assert!(
            name.starts_with("Go ") && name.contains('\u{fffd}'),
            "{name:?}"
        );
        // Only the properties the snapshot reads are kept; the role is interned.
        assert_eq!(n.properties.len(), 1);
        assert_eq!(n.properties[0].name, "disabled");
        assert!(n.properties[0].value.value.is_true());
        assert_eq!(
            n.role.as_ref().map(|r| r.value.clone()),
            Some(AxScalar::Role("button"))
        );
    }

    #[test]
    fn dom_attributes_keep_only_what_matters() {
        let json = r##"{"root":{"nodeId":1,"backendNodeId":1,"nodeType":9,"nodeName":"#document","localName":"",
            "nodeValue":"","childNodeCount":1,"children":[{"nodeId":2,"backendNodeId":5,"nodeType":1,
            "nodeName":"DIV","localName":"div","nodeValue":"","attributes":["class","a \udc00 b","onClick","x()",
            "tabindex"," 0","contenteditable","","href","/p"],"isScrollable":true}]}}"##;
        let doc: Result<DomDocument, _> = serde_json::from_str(json);
        let doc = doc.map_err(|e| e.to_string());
        assert!(doc.is_ok(), "{doc:?}");
        if let Ok(doc) = doc {
            let div = &doc.root.children.as_deref().unwrap_or_default()[0];
            assert_eq!(
                div.attributes,
                DomAttrs {
                    onclick: true,
                    tabindex: Some(0),
                    contenteditable: true,
                    href: Some("/p".into())
                }
            );
            assert_eq!(div.is_scrollable, Some(true));
        }
    }
}
