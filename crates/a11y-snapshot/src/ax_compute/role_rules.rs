//! Roles: the explicit (ARIA) role if valid, else the native role of the element, as Chromium
//! maps it (SVG links, table headers, data tables, sectioning).

use super::*;

impl<'a> AxCompute<'a> {
    pub(super) fn role_of(&self, i: u32) -> Role {
        self.info.get(i as usize).map_or(Role::NONE, |n| n.role)
    }

    /// Nearest ancestor that is not neutral inside a table (generic, group, rowgroup).
    pub(super) fn table_ancestor(&self, i: u32) -> u32 {
        let mut p = self.v.parent(i);
        while p != NIL {
            let r = self.role_of(p);
            if !(r.is("generic") || r.is("group") || r.is("rowgroup") || r.is("none")) {
                return p;
            }
            p = self.v.parent(p);
        }
        NIL
    }

    pub(super) fn compute_role(&mut self, i: u32) -> Role {
        let v = self.v;
        if v.is_text(i) {
            return Role::TEXT;
        }
        if !v.is_element(i) {
            return if v.node_type(i) == crate::doc_view::node_type::DOCUMENT {
                Role("RootWebArea")
            } else {
                Role::NONE
            };
        }
        if let Some(roles) = v.attr(i, Attr::Role) {
            for token in roles.split(&HTML_SPACE[..]).filter(|t| !t.is_empty()) {
                let t = token.to_ascii_lowercase();
                if let Some(r) = aria_role(&t) {
                    // A role that needs a name falls back without one.
                    if (r == "region" || r == "form") && !self.has_author_name(i) {
                        return self.native_role(i);
                    }
                    if r == "none" && self.presentation_conflict(i) {
                        return self.native_role(i);
                    }
                    return Role(r);
                }
            }
        }
        let native = self.native_role(i);
        if native.is("generic")
            && self.disp(i) == Disp::Block
            && self.v.style(i, Style::Display) == "list-item"
        {
            return Role("listitem");
        }
        // A popover (shown: a hidden one is not in the tree) is a group, as Chromium has it.
        if native.is("generic") && self.v.has_attr(i, Attr::Popover) {
            return Role("group");
        }
        native
    }

    /// Focusable or globally ARIA-labelled elements keep their role despite role=none.
    pub(super) fn presentation_conflict(&self, i: u32) -> bool {
        self.focusable(i) || self.v.has_any_aria(i)
    }

    pub(super) fn has_author_name(&mut self, i: u32) -> bool {
        let v = self.v;
        if v.attr(i, Attr::AriaLabel)
            .is_some_and(|s| !s.trim().is_empty())
            || v.attr(i, Attr::Title).is_some_and(|s| !s.trim().is_empty())
        {
            return true;
        }
        let Some(ids) = v.attr(i, Attr::AriaLabelledby) else {
            return false;
        };
        ids.split(&HTML_SPACE[..])
            .filter(|s| !s.is_empty())
            .any(|id| self.by_id(id).is_some())
    }

    pub(super) fn focusable(&self, i: u32) -> bool {
        let v = self.v;
        if !v.is_element(i) || self.info.get(i as usize).is_some_and(|n| n.disabled) {
            return v.has_attr(i, Attr::Tabindex);
        }
        if v.has_attr(i, Attr::Tabindex) {
            return true;
        }
        match v.tag(i) {
            Tag::A => v.has_attr(i, Attr::Href),
            Tag::Button | Tag::Select | Tag::Textarea | Tag::Iframe => true,
            Tag::Input => self.input_type(i) != "hidden",
            Tag::Summary => self.is_details_summary(i),
            _ => v
                .attr(i, Attr::Contenteditable)
                .is_some_and(|c| !c.eq_ignore_ascii_case("false")),
        }
    }

    pub(super) fn is_details_summary(&self, i: u32) -> bool {
        let mut p = self.v.parent(i);
        if p != NIL && self.v.tag(p) == Tag::Slot {
            p = self.v.parent(p);
        }
        p != NIL
            && self.v.tag(p) == Tag::Details
            && self.v.children(p).find(|&c| self.v.tag(c) == Tag::Summary) == Some(i)
    }

    pub(super) fn native_role(&mut self, i: u32) -> Role {
        let v = self.v;
        let tag = v.tag(i);
        if tag.heading_level().is_some() {
            return Role("heading");
        }
        Role(match tag {
            Tag::A if v.has_attr(i, Attr::Href) || self.clickable(i) => "link",
            Tag::A => "generic",
            Tag::Img => "image",
            Tag::Button => "button",
            Tag::Details => "group",
            Tag::Summary if self.is_details_summary(i) => "DisclosureTriangle",
            Tag::Summary => "generic",
            Tag::Table => {
                if self.is_data_table(i) {
                    "table"
                } else {
                    "LayoutTable"
                }
            }
            Tag::Tr => {
                let t = self.table_ancestor(i);
                let t = if t != NIL && self.role_of(t).is("rowgroup") {
                    self.table_ancestor(t)
                } else {
                    t
                };
                match self.role_of(t).0 {
                    "LayoutTable" => "LayoutTableRow",
                    r if Role(r).is_table_like() => "row",
                    _ => "generic",
                }
            }
            Tag::Td | Tag::Th => {
                let row = self.table_ancestor(i);
                if row == NIL || !self.role_of(row).is_row_like() {
                    "generic"
                } else if self.role_of(row).is("LayoutTableRow") {
                    "LayoutTableCell"
                } else if tag == Tag::Th {
                    self.header_role(i)
                } else {
                    "cell"
                }
            }
            Tag::Thead | Tag::Tfoot => {
                let t = self.table_ancestor(i);
                match self.role_of(t).0 {
                    "table" | "grid" | "treegrid" => "rowgroup",
                    _ => "generic",
                }
            }
            Tag::Tbody => "generic",
            Tag::Input => match self.input_type(i) {
                "button" | "reset" | "submit" | "image" | "file" => "button",
                "checkbox" => "checkbox",
                "radio" => "radio",
                "date" => "Date",
                "datetime-local" | "month" | "week" => "DateTime",
                "time" => "InputTime",
                "number" => "spinbutton",
                "range" => "slider",
                "color" => "ColorWell",
                "search" if !v.has_attr(i, Attr::List) => "searchbox",
                _ if v.has_attr(i, Attr::List) => "combobox",
                _ => "textbox",
            },
            Tag::Select => {
                if v.has_attr(i, Attr::Multiple) || self.select_size(i) > 1 {
                    "listbox"
                } else {
                    "combobox"
                }
            }
            Tag::Option => "option",
            Tag::Optgroup => "group",
            Tag::Textarea => "textbox",
            Tag::Ul | Tag::Ol | Tag::Menu => "list",
            Tag::Li => "listitem",
            Tag::Meter => "meter",
            Tag::Progress => "progressbar",
            Tag::Output => "status",
            Tag::P => "paragraph",
            Tag::Label => "LabelText",
            Tag::Legend => "Legend",
            Tag::Ruby => "Ruby",
            Tag::Dl => "DescriptionList",
            Tag::Audio => "Audio",
            Tag::Video => "Video",
            Tag::Dd => "definition",
            Tag::Dfn | Tag::Dt => "term",
            Tag::Rp | Tag::Rt => "RubyAnnotation",
            Tag::Form if self.dialect.unnamed_form_is_form || self.has_author_name(i) => "form",
            Tag::Form => "generic",
            Tag::Abbr => "Abbr",
            Tag::Article => "article",
            Tag::Code => "code",
            Tag::Em => "emphasis",
            Tag::Strong => "strong",
            Tag::Search => "search",
            Tag::Del | Tag::S => "deletion",
            Tag::Ins => "insertion",
            Tag::Sub => "subscript",
            Tag::Sup => "superscript",
            Tag::Main => "main",
            Tag::Mark => "mark",
            Tag::Nav => "navigation",
            Tag::Aside => {
                if self.inside_sectioning(i, false) {
                    "generic"
                } else {
                    "complementary"
                }
            }
            Tag::Section if self.has_author_name(i) => "region",
            Tag::Section => "generic",
            Tag::Address | Tag::Hgroup | Tag::Fieldset => "group",
            Tag::Dialog => "dialog",
            Tag::Iframe | Tag::Frame => "Iframe",
            Tag::Header => {
                if self.inside_sectioning(i, true) {
                    "sectionheader"
                } else {
                    "banner"
                }
            }
            Tag::Footer => {
                if self.inside_sectioning(i, true) {
                    "sectionfooter"
                } else {
                    "contentinfo"
                }
            }
            Tag::Blockquote => "blockquote",
            Tag::Caption => "caption",
            Tag::Figcaption => "Figcaption",
            Tag::Figure => "figure",
            Tag::Time => "time",
            Tag::Hr => "separator",
            Tag::Canvas => "Canvas",
            Tag::Embed => "EmbeddedObject",
            Tag::Object => "PluginObject",
            Tag::Br => "LineBreak",
            Tag::Html => "none",
            Tag::Foreign => {
                // An SVG root is an image; other foreign elements are generic.
                let name = v.node_name(i);
                if name == "svg" && !self.in_svg(i) {
                    // Chromium keeps the content of an SVG with links in it (they are focusable
                    // and clickable); one without is an image.
                    if self.svg_has_link(i) {
                        "SvgRoot"
                    } else {
                        "image"
                    }
                } else if name == "a" && self.svg_href(i) && self.in_svg(i) {
                    "link"
                } else if name == "math" {
                    "math"
                } else {
                    "generic"
                }
            }
            _ => "generic",
        })
    }

    /// An SVG `<a>` with a target (`href`, or the older `xlink:href`).
    pub(super) fn svg_href(&self, i: u32) -> bool {
        let v = self.v;
        v.tag(i) == Tag::Foreign
            && v.node_name(i) == "a"
            && (v.has_attr(i, Attr::Href)
                || v.doc.nodes.attributes.get(i as usize).chunks(2).any(|p| {
                    p.first()
                        .is_some_and(|&k| v.strings.get(k).eq_ignore_ascii_case("xlink:href"))
                }))
    }

    /// Whether an SVG root holds a link.
    pub(super) fn svg_has_link(&self, svg: u32) -> bool {
        let mut stack: Vec<u32> = self.v.children(svg).collect();
        while let Some(c) = stack.pop() {
            if self.svg_href(c) {
                return true;
            }
            stack.extend(self.v.children(c));
        }
        false
    }

    /// The outermost `<svg>` around a node.
    pub(super) fn svg_root(&self, i: u32) -> u32 {
        let mut root = NIL;
        let mut p = self.v.parent(i);
        while p != NIL {
            if self.v.tag(p) == Tag::Foreign && self.v.node_name(p) == "svg" {
                root = p;
            }
            p = self.v.parent(p);
        }
        root
    }

    pub(super) fn in_svg(&self, i: u32) -> bool {
        let mut p = self.v.parent(i);
        while p != NIL {
            if self.v.tag(p) == Tag::Foreign && self.v.node_name(p) == "svg" {
                return true;
            }
            p = self.v.parent(p);
        }
        false
    }

    pub(super) fn select_size(&self, i: u32) -> i64 {
        self.v
            .attr(i, Attr::Size)
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Inside article, aside, main, nav or section (landmarks become generic there).
    pub(super) fn inside_sectioning(&self, i: u32, main_counts: bool) -> bool {
        let mut p = self.v.parent(i);
        while p != NIL {
            match self.v.tag(p) {
                Tag::Article | Tag::Aside | Tag::Nav | Tag::Section => return true,
                Tag::Main if main_counts => return true,
                _ => {}
            }
            if let Some(r) = self.v.attr(p, Attr::Role) {
                let r = r.trim().to_ascii_lowercase();
                if matches!(
                    r.as_str(),
                    "article" | "complementary" | "navigation" | "region"
                ) || (main_counts && r == "main")
                {
                    return true;
                }
            }
            p = self.v.parent(p);
        }
        false
    }

    pub(super) fn header_role(&self, i: u32) -> &'static str {
        let v = self.v;
        if let Some(scope) = v.attr(i, Attr::Scope) {
            let s = scope.trim().to_ascii_lowercase();
            if s == "row" || s == "rowgroup" {
                return "rowheader";
            }
            if s == "col" || s == "colgroup" {
                return "columnheader";
            }
        }
        // Siblings decide: alone or between headers is a column header; next to a non-empty data
        // cell a row header.
        let p = v.parent(i);
        let sibs: Vec<u32> = if p == NIL {
            Vec::new()
        } else {
            v.children(p).filter(|&c| v.is_element(c)).collect()
        };
        let at = sibs.iter().position(|&c| c == i);
        let prev = at
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| sibs.get(k))
            .copied();
        let next = at.and_then(|k| sibs.get(k + 1)).copied();
        let is_th = |c: Option<u32>| c.is_some_and(|c| v.tag(c) == Tag::Th);
        let non_empty_td = |c: Option<u32>| {
            c.is_some_and(|c| v.tag(c) == Tag::Td && v.children(c).next().is_some())
        };
        if prev.is_none() && next.is_none() {
            return "columnheader";
        }
        if is_th(next) && is_th(prev) {
            return "columnheader";
        }
        if non_empty_td(next) || non_empty_td(prev) {
            return "rowheader";
        }
        if p == NIL || v.tag(p) != Tag::Tr {
            return "columnheader";
        }
        let first = sibs.first().copied();
        let last = sibs.last().copied();
        if non_empty_td(first) || non_empty_td(last) {
            return "rowheader";
        }
        let second = sibs.get(1).copied();
        let second_last = sibs.len().checked_sub(2).and_then(|k| sibs.get(k)).copied();
        if non_empty_td(second) || non_empty_td(second_last) {
            return "rowheader";
        }
        "columnheader"
    }

    /// Chromium's data-table heuristic, without the border/colour checks (tables that only
    /// those would make data tables count as layout tables).
    pub(super) fn is_data_table(&self, t: u32) -> bool {
        let v = self.v;
        if !v.rendered(t) || v.has_attr(t, Attr::Role) {
            return true;
        }
        if v.attr(t, Attr::Summary).is_some_and(|s| !s.is_empty())
            || v.attr(t, Attr::Rules).is_some_and(|s| !s.is_empty())
        {
            return true;
        }
        let mut rows: Vec<u32> = Vec::new();
        for c in v.children(t) {
            match v.tag(c) {
                Tag::Caption | Tag::Thead | Tag::Tfoot | Tag::Colgroup | Tag::Col => return true,
                Tag::Tr => rows.push(c),
                Tag::Tbody => rows.extend(v.children(c).filter(|&r| v.tag(r) == Tag::Tr)),
                _ => {}
            }
        }
        if rows.len() >= 20 {
            return true;
        }
        if rows.is_empty() {
            return false;
        }
        let mut cells = 0usize;
        for &r in &rows {
            for c in v.children(r) {
                match v.tag(c) {
                    Tag::Th => return true,
                    Tag::Td => {
                        if [Attr::Headers, Attr::Abbr, Attr::Axis, Attr::Scope]
                            .iter()
                            .any(|&a| v.attr(c, a).is_some_and(|s| !s.is_empty()))
                        {
                            return true;
                        }
                        cells += 1;
                    }
                    _ => {}
                }
            }
        }
        if cells <= 1 {
            return false;
        }
        // The `border` attribute draws cell borders: at least half of the cells have them.
        v.doc.nodes.attributes.get(t as usize).chunks(2).any(|p| {
            v.strings.get(p[0]).eq_ignore_ascii_case("border") && {
                let val = v.strings.get(p.get(1).copied().unwrap_or(-1)).trim();
                val.is_empty() || val.parse::<f64>().map(|b| b > 0.0).unwrap_or(true)
            }
        })
    }
}
