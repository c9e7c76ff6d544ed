//! Which nodes Chromium keeps in the tree: clickability, rendered text, a node's fate
//! (included, ignored, dropped) and the inclusion rules.

use super::*;

impl<'a> AxCompute<'a> {
    /// Clickable in Chromium's sense: a mouse listener or editability, not disabled.
    pub(super) fn clickable(&self, i: u32) -> bool {
        let v = self.v;
        !self.info.get(i as usize).is_some_and(|n| n.disabled)
            && (v.doc.nodes.is_clickable.has(i as usize)
                && matches!(
                    v.tag(i),
                    Tag::Div | Tag::Span | Tag::A | Tag::Other | Tag::Li | Tag::P | Tag::Img
                )
                || v.has_attr(i, Attr::Onclick)
                || v.attr(i, Attr::Contenteditable)
                    .is_some_and(|c| !c.eq_ignore_ascii_case("false")))
    }

    /// A label that only names a checkbox or radio (its text is the control's name).
    pub(super) fn redundant_label(&mut self, label: u32) -> bool {
        let Some(c) = self.label_control(label) else {
            return false;
        };
        if self.v.tag(c) != Tag::Input || !matches!(self.input_type(c), "checkbox" | "radio") {
            return false;
        }
        self.v
            .children(label)
            .all(|k| !self.v.is_element(k) || k == c)
    }

    /// Whether a block container holds inline content (text with fragments or inline boxes).
    pub(super) fn has_inline_children(&self, i: u32) -> bool {
        let mut any_inline = false;
        let mut stack: Vec<u32> = self.v.children(i).collect();
        while let Some(c) = stack.pop() {
            if self.v.pseudo(c) == Some("marker") {
                continue;
            }
            if self.v.is_text(c) {
                if self.text_rendered(c) {
                    any_inline = true;
                }
                continue;
            }
            if !self.v.is_element(c) {
                continue;
            }
            match self.disp(c) {
                Disp::None => {}
                Disp::Contents => stack.extend(self.v.children(c)),
                Disp::Inline | Disp::AtomicInline => any_inline = true,
                Disp::Block | Disp::OtherBlock => {
                    if !self.out_of_flow(c) {
                        return false;
                    }
                }
            }
        }
        any_inline
    }

    /// Floats and absolutely positioned boxes do not turn a block's inline content into blocks.
    pub(super) fn out_of_flow(&self, i: u32) -> bool {
        matches!(self.v.style(i, Style::Position), "absolute" | "fixed")
            || !matches!(self.v.style(i, Style::Float), "" | "none")
    }

    /// Rendered text, or (unrendered) text of canvas fallback content that is not only white space.
    pub(super) fn text_shown(&self, i: u32) -> bool {
        self.text_rendered(i)
            || (self.info[i as usize].fallback
                && !self
                    .v
                    .node_value(i)
                    .trim_matches(&HTML_SPACE[..])
                    .is_empty())
    }

    pub(super) fn text_rendered(&self, i: u32) -> bool {
        self.v
            .layout_of(i)
            .is_some_and(|l| self.fragments.get(l).is_some_and(|&f| f > 0))
    }

    pub(super) fn compute_fate(&mut self, i: u32, role: Role) -> Fate {
        let v = self.v;
        let info = self.info[i as usize];
        if v.node_type(i) == crate::doc_view::node_type::DOCUMENT {
            return Fate::Include;
        }
        let parent = v.parent(i);
        let pfate = if parent == NIL {
            Fate::Include
        } else {
            self.info[parent as usize].fate
        };
        if pfate == Fate::Skip && parent != NIL {
            return Fate::Skip;
        }
        if info.gone {
            return Fate::Skip;
        }
        if v.is_text(i) {
            if !self.text_shown(i) || info.invisible {
                return Fate::Skip;
            }
            // The text of a label that only names a checkbox or radio is that control's name.
            if parent != NIL && v.tag(parent) == Tag::Label && self.redundant_label(parent) {
                return Fate::Skip;
            }
            return Fate::Include;
        }
        if !v.is_element(i) {
            return Fate::Skip;
        }
        if let Some(p) = v.pseudo(i) {
            // List markers are dropped by the builder; quotes and generated text stay (as text).
            // A marker outside a list item (say `li[role=none]`) is plain text.
            let list_marker = p == "marker"
                && (v.tag(parent) != Tag::Li || self.info[parent as usize].role.is("listitem"));
            return if list_marker || !v.rendered(i) || info.invisible {
                Fate::Skip
            } else {
                Fate::Include
            };
        }
        let tag = v.tag(i);
        // Options of a select have no boxes of their own.
        let in_select = matches!(tag, Tag::Option | Tag::Optgroup) && self.inside_select(i);
        if info.disp == Disp::None && !in_select {
            return Fate::Skip;
        }
        if matches!(
            tag,
            Tag::Script
                | Tag::Style
                | Tag::Head
                | Tag::Title
                | Tag::Meta
                | Tag::Link
                | Tag::Template
        ) {
            return Fate::Skip;
        }
        if info.invisible {
            return Fate::Lift;
        }
        if in_select {
            return Fate::Include;
        }
        if tag == Tag::Html {
            return Fate::Ignored;
        }
        if role.is("none") {
            return if info.disp.is_box() {
                Fate::Ignored
            } else {
                Fate::Lift
            };
        }
        if tag == Tag::Foreign && self.in_svg(i) {
            // Inside an SVG image only titled or interactive shapes would show; none do here.
            let root = self.svg_root(i);
            if root == NIL || !self.role_of(root).is("SvgRoot") {
                return Fate::Skip;
            }
            // An SVG with links: the links are in the tree with their text; shapes and groups
            // give way to what they hold; titles and descriptions only name things.
            return match v.node_name(i) {
                "title" | "desc" | "metadata" | "defs" | "style" | "script" => Fate::Skip,
                _ if role.is("link") => Fate::Include,
                _ => Fate::Lift,
            };
        }
        let included = self.included(i, role);
        if included {
            Fate::Include
        } else if info.disp.is_box() {
            Fate::Ignored
        } else {
            Fate::Lift
        }
    }

    pub(super) fn inside_select(&self, i: u32) -> bool {
        let mut p = self.v.parent(i);
        while p != NIL {
            match self.v.tag(p) {
                Tag::Select => return self.v.rendered(p),
                Tag::Optgroup | Tag::Slot => p = self.v.parent(p),
                _ => return false,
            }
        }
        false
    }

    /// Chromium's inclusion rules for an element that is rendered and not hidden.
    pub(super) fn included(&mut self, i: u32, role: Role) -> bool {
        let v = self.v;
        let tag = v.tag(i);
        let disp = self.disp(i);
        if role.is_table_like() || role.is_row_like() || role.is_cell_like() || role.is("rowgroup")
        {
            return true;
        }
        if tag != Tag::Body && self.focusable(i) {
            return true;
        }
        if self.scrollable.get(i as usize).copied().unwrap_or(false) {
            return true;
        }
        if role.is("link") || self.clickable(i) {
            return true;
        }
        if role.is("heading") || matches!(tag, Tag::Header | Tag::Footer) {
            return true;
        }
        if matches!(
            tag,
            Tag::Button
                | Tag::Input
                | Tag::Select
                | Tag::Textarea
                | Tag::Fieldset
                | Tag::Output
                | Tag::Iframe
                | Tag::Img
                | Tag::Progress
                | Tag::Meter
        ) || is_widget_role(role.0)
        {
            if tag == Tag::Img {
                // alt="" marks a decorative image.
                return v.attr(i, Attr::Alt).is_none_or(|a| !a.is_empty())
                    || self.has_author_name(i);
            }
            return true;
        }
        if v.attr(i, Attr::Role).is_some_and(|r| {
            r.split(&HTML_SPACE[..])
                .any(|t| aria_role(&t.to_ascii_lowercase()).is_some())
        }) {
            return true;
        }
        if matches!(tag, Tag::Legend | Tag::Section | Tag::Aside) {
            return true;
        }
        if always_included(role.0) || role.is("image") || role.is("LineBreak") {
            return true;
        }
        if v.has_any_aria(i) || v.attr(i, Attr::Title).is_some_and(|t| !t.is_empty()) {
            return true;
        }
        if self.potential_link_target(i) {
            return true;
        }
        if tag == Tag::Label {
            return !self.redundant_label(i);
        }
        if disp == Disp::AtomicInline {
            return true;
        }
        if tag == Tag::Span {
            return false;
        }
        disp == Disp::Block && self.has_inline_children(i)
    }

    pub(super) fn potential_link_target(&self, i: u32) -> bool {
        let v = self.v;
        if v.shadow_type(i).is_some() || v.tag(i) == Tag::Foreign {
            return false;
        }
        if v.tag(i) == Tag::A && v.has_attr(i, Attr::Name) {
            return true;
        }
        v.attr(i, Attr::Id).is_some_and(|id| !id.is_empty())
            && !matches!(v.tag(i), Tag::Label | Tag::Optgroup)
    }
}
