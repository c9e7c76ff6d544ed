//! Read access to one captured document ([`DocView`]): flat-tree children, layout objects, tag and
//! attribute lookup by enum instead of string comparison, computed styles and rendered text.

use crate::snapshot_dom::{CapturedSnapshot, NONE, SnapDocument, Style};

/// "No node" in the index arrays.
pub(crate) const NIL: u32 = u32::MAX;

/// Tags this crate treats specially (everything else is [`Tag::Other`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub(crate) enum Tag {
    Other,
    A,
    Abbr,
    Address,
    Area,
    Article,
    Aside,
    Audio,
    B,
    Blockquote,
    Body,
    Br,
    Button,
    Canvas,
    Caption,
    Code,
    Col,
    Colgroup,
    Datalist,
    Dd,
    Del,
    Details,
    Dfn,
    Dialog,
    Div,
    Dl,
    Dt,
    Em,
    Embed,
    Fieldset,
    Figcaption,
    Figure,
    Footer,
    Form,
    Frame,
    H1,
    H2,
    H3,
    H4,
    H5,
    H6,
    Head,
    Header,
    Hgroup,
    Hr,
    Html,
    Iframe,
    Img,
    Input,
    Ins,
    Label,
    Legend,
    Li,
    Link,
    Main,
    Map,
    Mark,
    Menu,
    Meta,
    Meter,
    Nav,
    Noscript,
    Object,
    Ol,
    Optgroup,
    Option,
    Output,
    P,
    Picture,
    Pre,
    Progress,
    Q,
    Rp,
    Rt,
    Ruby,
    S,
    Script,
    Search,
    Section,
    Select,
    Slot,
    Small,
    Source,
    Span,
    Strong,
    Style,
    Sub,
    Summary,
    Sup,
    Table,
    Tbody,
    Td,
    Template,
    Textarea,
    Tfoot,
    Th,
    Thead,
    Time,
    Title,
    Tr,
    Track,
    U,
    Ul,
    Video,
    /// Any SVG / MathML / other-namespace element (nodeName not upper case).
    Foreign,
}

fn tag_of(node_name: &str) -> Tag {
    use Tag::*;
    if node_name.bytes().any(|b| b.is_ascii_lowercase()) {
        return Foreign;
    }
    match node_name {
        "A" => A,
        "ABBR" => Abbr,
        "ADDRESS" => Address,
        "AREA" => Area,
        "ARTICLE" => Article,
        "ASIDE" => Aside,
        "AUDIO" => Audio,
        "B" => B,
        "BLOCKQUOTE" => Blockquote,
        "BODY" => Body,
        "BR" => Br,
        "BUTTON" => Button,
        "CANVAS" => Canvas,
        "CAPTION" => Caption,
        "CODE" => Code,
        "COL" => Col,
        "COLGROUP" => Colgroup,
        "DATALIST" => Datalist,
        "DD" => Dd,
        "DEL" => Del,
        "DETAILS" => Details,
        "DFN" => Dfn,
        "DIALOG" => Dialog,
        "DIV" => Div,
        "DL" => Dl,
        "DT" => Dt,
        "EM" => Em,
        "EMBED" => Embed,
        "FIELDSET" => Fieldset,
        "FIGCAPTION" => Figcaption,
        "FIGURE" => Figure,
        "FOOTER" => Footer,
        "FORM" => Form,
        "FRAME" => Frame,
        "H1" => H1,
        "H2" => H2,
        "H3" => H3,
        "H4" => H4,
        "H5" => H5,
        "H6" => H6,
        "HEAD" => Head,
        "HEADER" => Header,
        "HGROUP" => Hgroup,
        "HR" => Hr,
        "HTML" => Html,
        "IFRAME" => Iframe,
        "IMG" => Img,
        "INPUT" => Input,
        "INS" => Ins,
        "LABEL" => Label,
        "LEGEND" => Legend,
        "LI" => Li,
        "LINK" => Link,
        "MAIN" => Main,
        "MAP" => Map,
        "MARK" => Mark,
        "MENU" => Menu,
        "META" => Meta,
        "METER" => Meter,
        "NAV" => Nav,
        "NOSCRIPT" => Noscript,
        "OBJECT" => Object,
        "OL" => Ol,
        "OPTGROUP" => Optgroup,
        "OPTION" => Option,
        "OUTPUT" => Output,
        "P" => P,
        "PICTURE" => Picture,
        "PRE" => Pre,
        "PROGRESS" => Progress,
        "Q" => Q,
        "RP" => Rp,
        "RT" => Rt,
        "RUBY" => Ruby,
        "S" => S,
        "SCRIPT" => Script,
        "SEARCH" => Search,
        "SECTION" => Section,
        "SELECT" => Select,
        "SLOT" => Slot,
        "SMALL" => Small,
        "SOURCE" => Source,
        "SPAN" => Span,
        "STRONG" => Strong,
        "STYLE" => Style,
        "SUB" => Sub,
        "SUMMARY" => Summary,
        "SUP" => Sup,
        "TABLE" => Table,
        "TBODY" => Tbody,
        "TD" => Td,
        "TEMPLATE" => Template,
        "TEXTAREA" => Textarea,
        "TFOOT" => Tfoot,
        "TH" => Th,
        "THEAD" => Thead,
        "TIME" => Time,
        "TITLE" => Title,
        "TR" => Tr,
        "TRACK" => Track,
        "U" => U,
        "UL" => Ul,
        "VIDEO" => Video,
        _ => Other,
    }
}

impl Tag {
    /// `<h1>`..`<h6>`: the heading level.
    pub(crate) fn heading_level(self) -> Option<u8> {
        Some(match self {
            Tag::H1 => 1,
            Tag::H2 => 2,
            Tag::H3 => 3,
            Tag::H4 => 4,
            Tag::H5 => 5,
            Tag::H6 => 6,
            _ => return None,
        })
    }
}

/// Attributes this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum Attr {
    Other,
    Alt,
    AriaChecked,
    AriaDisabled,
    AriaExpanded,
    AriaHidden,
    AriaLabel,
    AriaLabelledby,
    AriaLevel,
    AriaPressed,
    AriaRequired,
    AriaSelected,
    AriaValuenow,
    AriaValuetext,
    AriaPlaceholder,
    AriaOwns,
    AriaMultiselectable,
    AriaHaspopup,
    Checked,
    Contenteditable,
    Disabled,
    For,
    Hidden,
    Href,
    Id,
    Inert,
    Label,
    List,
    Multiple,
    Name,
    Onclick,
    Open,
    Placeholder,
    Popover,
    Required,
    Role,
    Rules,
    Scope,
    Selected,
    Summary,
    Tabindex,
    Title,
    Type,
    Value,
    Headers,
    Axis,
    Abbr,
    Size,
    Src,
    Usemap,
    Xmlns,
    /// Any other `aria-*` attribute.
    AriaOther,
}

fn attr_of(name: &str) -> Attr {
    use Attr::*;
    let lower;
    let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = name.to_ascii_lowercase();
        lower.as_str()
    } else {
        name
    };
    match name {
        "alt" => Alt,
        "aria-checked" => AriaChecked,
        "aria-disabled" => AriaDisabled,
        "aria-expanded" => AriaExpanded,
        "aria-hidden" => AriaHidden,
        "aria-label" => AriaLabel,
        "aria-labelledby" => AriaLabelledby,
        "aria-level" => AriaLevel,
        "aria-pressed" => AriaPressed,
        "aria-required" => AriaRequired,
        "aria-selected" => AriaSelected,
        "aria-valuenow" => AriaValuenow,
        "aria-valuetext" => AriaValuetext,
        "aria-placeholder" => AriaPlaceholder,
        "aria-owns" => AriaOwns,
        "aria-multiselectable" => AriaMultiselectable,
        "aria-haspopup" => AriaHaspopup,
        "checked" => Checked,
        "contenteditable" => Contenteditable,
        "disabled" => Disabled,
        "for" => For,
        "hidden" => Hidden,
        "href" => Href,
        "id" => Id,
        "inert" => Inert,
        "label" => Label,
        "list" => List,
        "popover" => Popover,
        "multiple" => Multiple,
        "name" => Name,
        "onclick" => Onclick,
        "open" => Open,
        "placeholder" => Placeholder,
        "required" => Required,
        "role" => Role,
        "rules" => Rules,
        "scope" => Scope,
        "selected" => Selected,
        "summary" => Summary,
        "tabindex" => Tabindex,
        "title" => Title,
        "type" => Type,
        "value" => Value,
        "headers" => Headers,
        "axis" => Axis,
        "abbr" => Abbr,
        "size" => Size,
        "src" => Src,
        "usemap" => Usemap,
        "xmlns" => Xmlns,
        n if n.starts_with("aria-") => AriaOther,
        _ => Other,
    }
}

/// Classification tables over one capture's string table.
#[derive(Debug)]
pub(crate) struct Strings<'a> {
    /// The capture.
    pub snap: &'a CapturedSnapshot,
    tags: Vec<Tag>,
    attrs: Vec<Attr>,
}

impl<'a> Strings<'a> {
    /// Classifies every string used as a node name or attribute name in any document.
    pub(crate) fn new(snap: &'a CapturedSnapshot) -> Strings<'a> {
        let n = snap.strings.len();
        let mut tags = vec![Tag::Other; n];
        let mut attrs = vec![Attr::Other; n];
        let mut seen_tag = vec![false; n];
        let mut seen_attr = vec![false; n];
        for d in &snap.documents {
            for &s in &d.nodes.node_name {
                if let Ok(i) = usize::try_from(s)
                    && i < n
                    && !std::mem::replace(&mut seen_tag[i], true)
                {
                    tags[i] = tag_of(&snap.strings[i]);
                }
            }
            for pair in d.nodes.attributes.values.chunks(2) {
                if let Ok(i) = usize::try_from(pair[0])
                    && i < n
                    && !std::mem::replace(&mut seen_attr[i], true)
                {
                    attrs[i] = attr_of(&snap.strings[i]);
                }
            }
        }
        Strings { snap, tags, attrs }
    }

    /// The string at `i`.
    pub(crate) fn get(&self, i: i32) -> &'a str {
        self.snap.str(i)
    }

    fn tag(&self, i: i32) -> Tag {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.tags.get(i))
            .copied()
            .unwrap_or(Tag::Other)
    }

    fn attr(&self, i: i32) -> Attr {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.attrs.get(i))
            .copied()
            .unwrap_or(Attr::Other)
    }
}

/// DOM node types as Chromium reports them.
pub(crate) mod node_type {
    /// Element.
    pub const ELEMENT: u8 = 1;
    /// Text.
    pub const TEXT: u8 = 3;
    /// CDATA section.
    pub const CDATA: u8 = 4;
    /// Comment.
    pub const COMMENT: u8 = 8;
    /// Document.
    pub const DOCUMENT: u8 = 9;
}

/// One captured document with flat-tree navigation.
#[derive(Debug)]
pub(crate) struct DocView<'a> {
    /// Strings and their classification.
    pub strings: &'a Strings<'a>,
    /// The document.
    pub doc: &'a SnapDocument,
    first_child: Vec<u32>,
    next_sibling: Vec<u32>,
    /// First layout object of each node ([`NIL`] when not rendered).
    layout: Vec<u32>,
    /// Tag of each node.
    tags: Vec<Tag>,
}

impl<'a> DocView<'a> {
    /// Indexes one document.
    pub(crate) fn new(strings: &'a Strings<'a>, doc: &'a SnapDocument) -> DocView<'a> {
        let n = doc.len();
        let mut first_child = vec![NIL; n];
        let mut next_sibling = vec![NIL; n];
        let mut last_child = vec![NIL; n];
        for i in 0..n {
            let p = doc.nodes.parent_index[i];
            if let Ok(p) = usize::try_from(p)
                && p < n
            {
                match last_child[p] {
                    NIL => first_child[p] = i as u32,
                    l => next_sibling[l as usize] = i as u32,
                }
                last_child[p] = i as u32;
            }
        }
        let mut layout = vec![NIL; n];
        for (l, &ni) in doc.layout.node_index.iter().enumerate().rev() {
            if let Ok(ni) = usize::try_from(ni)
                && ni < n
            {
                layout[ni] = l as u32;
            }
        }
        let tags = (0..n)
            .map(|i| {
                if doc.nodes.node_type.get(i) == Some(&node_type::ELEMENT) {
                    strings.tag(doc.nodes.node_name[i])
                } else {
                    Tag::Other
                }
            })
            .collect();
        let mut view = DocView {
            strings,
            doc,
            first_child,
            next_sibling,
            layout,
            tags,
        };
        view.unrender_skipped_content();
        view
    }

    /// Drops the layout of content the page does not show although it may have layout objects:
    /// what a closed `<details>` holds besides its summary, and what lies under
    /// `content-visibility: hidden` (`hidden=until-found` too). Chromium skips painting it, but
    /// a forced layout (`getBoundingClientRect`, `DOM.getBoxModel`) gives it boxes, which would
    /// make it look rendered; `checkVisibility()` says false for it and so does this.
    fn unrender_skipped_content(&mut self) {
        let n = self.layout.len();
        let mut skipped = vec![false; n];
        // Flat-tree pre-order: a parent comes before its children.
        for i in 0..n as u32 {
            let p = self.parent(i);
            if p == NIL {
                continue;
            }
            let hides = |v: &DocView<'_>, at: u32, child: u32| {
                (v.tag(at) == Tag::Details
                    && !v.has_attr(at, Attr::Open)
                    && !matches!(v.tag(child), Tag::Summary | Tag::Slot))
                    || v.style(at, Style::ContentVisibility) == "hidden"
            };
            // Content slotted into a closed details of a shadow tree sits under the details' slot.
            let via_slot = self.tag(p) == Tag::Slot && {
                let pp = self.parent(p);
                pp != NIL
                    && self.tag(pp) == Tag::Details
                    && !self.has_attr(pp, Attr::Open)
                    && self.tag(i) != Tag::Summary
            };
            if skipped[p as usize] || hides(self, p, i) || via_slot {
                skipped[i as usize] = true;
            }
        }
        for (l, s) in self.layout.iter_mut().zip(skipped) {
            if s {
                *l = NIL;
            }
        }
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.doc.len()
    }

    /// The flat-tree parent.
    pub(crate) fn parent(&self, i: u32) -> u32 {
        match self.doc.nodes.parent_index.get(i as usize) {
            Some(&p) if p >= 0 => p as u32,
            _ => NIL,
        }
    }

    /// The flat-tree children, in order (pseudo elements first, as captured).
    pub(crate) fn children(&self, i: u32) -> Children<'_> {
        Children {
            next: self.first_child.get(i as usize).copied().unwrap_or(NIL),
            siblings: &self.next_sibling,
        }
    }

    /// The node type.
    pub(crate) fn node_type(&self, i: u32) -> u8 {
        self.doc
            .nodes
            .node_type
            .get(i as usize)
            .copied()
            .unwrap_or(0)
    }

    /// True for elements.
    pub(crate) fn is_element(&self, i: u32) -> bool {
        self.node_type(i) == node_type::ELEMENT
    }

    /// True for text and CDATA nodes.
    pub(crate) fn is_text(&self, i: u32) -> bool {
        matches!(self.node_type(i), node_type::TEXT | node_type::CDATA)
    }

    /// The element's tag.
    pub(crate) fn tag(&self, i: u32) -> Tag {
        self.tags.get(i as usize).copied().unwrap_or(Tag::Other)
    }

    /// nodeName as captured.
    pub(crate) fn node_name(&self, i: u32) -> &'a str {
        self.strings.get(
            self.doc
                .nodes
                .node_name
                .get(i as usize)
                .copied()
                .unwrap_or(NONE),
        )
    }

    /// nodeValue (text of text nodes).
    pub(crate) fn node_value(&self, i: u32) -> &'a str {
        self.strings.get(
            self.doc
                .nodes
                .node_value
                .get(i as usize)
                .copied()
                .unwrap_or(NONE),
        )
    }

    /// backendNodeId.
    pub(crate) fn backend_id(&self, i: u32) -> i64 {
        self.doc
            .nodes
            .backend_node_id
            .get(i as usize)
            .copied()
            .unwrap_or(0)
    }

    /// The value of an attribute ("" when present without a value), or None.
    pub(crate) fn attr(&self, i: u32, a: Attr) -> Option<&'a str> {
        let pairs = self.doc.nodes.attributes.get(i as usize);
        pairs
            .chunks(2)
            .find(|p| self.strings.attr(p[0]) == a)
            .map(|p| self.strings.get(p.get(1).copied().unwrap_or(NONE)))
    }

    /// Whether the element has the attribute.
    pub(crate) fn has_attr(&self, i: u32, a: Attr) -> bool {
        self.attr(i, a).is_some()
    }

    /// Whether the element has any `aria-*` attribute.
    pub(crate) fn has_any_aria(&self, i: u32) -> bool {
        self.doc
            .nodes
            .attributes
            .get(i as usize)
            .chunks(2)
            .any(|p| {
                !matches!(
                    self.strings.attr(p[0]),
                    Attr::Other
                        | Attr::Alt
                        | Attr::Checked
                        | Attr::Contenteditable
                        | Attr::Disabled
                        | Attr::For
                        | Attr::Hidden
                        | Attr::Href
                        | Attr::Id
                        | Attr::Inert
                        | Attr::Label
                        | Attr::List
                        | Attr::Multiple
                        | Attr::Name
                        | Attr::Onclick
                        | Attr::Open
                        | Attr::Placeholder
                        | Attr::Required
                        | Attr::Role
                        | Attr::Rules
                        | Attr::Scope
                        | Attr::Selected
                        | Attr::Summary
                        | Attr::Tabindex
                        | Attr::Title
                        | Attr::Type
                        | Attr::Value
                        | Attr::Headers
                        | Attr::Axis
                        | Attr::Abbr
                        | Attr::Size
                        | Attr::Src
                        | Attr::Usemap
                        | Attr::Xmlns
                )
            })
    }

    /// The first layout object of a node, if rendered.
    pub(crate) fn layout_of(&self, i: u32) -> Option<usize> {
        match self.layout.get(i as usize) {
            Some(&l) if l != NIL => Some(l as usize),
            _ => None,
        }
    }

    /// Whether the node has a layout object.
    pub(crate) fn rendered(&self, i: u32) -> bool {
        self.layout_of(i).is_some()
    }

    /// A computed style of a rendered node ("" when not rendered or not captured).
    pub(crate) fn style(&self, i: u32, s: Style) -> &'a str {
        match self.layout_of(i) {
            Some(l) => self.strings.get(
                self.doc
                    .layout
                    .styles
                    .get(l)
                    .get(s as usize)
                    .copied()
                    .unwrap_or(NONE),
            ),
            None => "",
        }
    }

    /// Border box `[x, y, width, height]` of a layout object.
    pub(crate) fn bounds(&self, layout: usize) -> Option<[f32; 4]> {
        let b = self.doc.layout.bounds.get(layout);
        (b.len() == 4).then(|| [b[0], b[1], b[2], b[3]])
    }

    /// The pseudo element type (`before`, `after`, `marker`, ...), if the node is one.
    pub(crate) fn pseudo(&self, i: u32) -> Option<&'a str> {
        self.doc
            .nodes
            .pseudo_type
            .get(i as usize)
            .map(|s| self.strings.get(s))
    }

    /// The shadow tree type of a node inside a shadow tree (`open` / `closed`).
    pub(crate) fn shadow_type(&self, i: u32) -> Option<&'a str> {
        self.doc
            .nodes
            .shadow_root_type
            .get(i as usize)
            .map(|s| self.strings.get(s))
    }

    /// Layout objects of the node, in order (a pseudo element can have several).
    pub(crate) fn layouts(&self, i: u32) -> impl Iterator<Item = usize> + '_ {
        let start = self.layout_of(i);
        let idx = &self.doc.layout.node_index;
        start
            .into_iter()
            .flat_map(move |s| (s..idx.len()).take_while(move |&l| idx[l] == i as i32))
    }

    /// The text of a text layout object.
    pub(crate) fn layout_text(&self, layout: usize) -> &'a str {
        self.strings
            .get(self.doc.layout.text.get(layout).copied().unwrap_or(NONE))
    }
}

/// Iterator over flat-tree children.
#[derive(Debug)]
pub(crate) struct Children<'a> {
    next: u32,
    siblings: &'a [u32],
}

impl Iterator for Children<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.next == NIL {
            return None;
        }
        let c = self.next;
        self.next = self.siblings.get(c as usize).copied().unwrap_or(NIL);
        Some(c)
    }
}
