//! Accessible names and values: name from content, labels and `aria-labelledby`, control
//! values, inner text.

use super::*;

impl<'a> AxCompute<'a> {
    // ----------------------------------------------------------------------------------- names

    /// The text a node contributes to its ancestor's name from content.
    pub(super) fn text_of(&mut self, i: u32, ctx: &mut NameCtx, out: &mut String) {
        let v = self.v;
        if ctx.visited.contains(&i) || ctx.depth > 64 {
            return;
        }
        let info = self.info[i as usize];
        let hidden = info.gone || info.invisible || info.disp == Disp::None;
        if hidden && !ctx.include_hidden && !(v.tag(i) == Tag::Option && self.inside_select(i)) {
            return;
        }
        if v.is_text(i) {
            if self.text_shown(i) || ctx.include_hidden {
                let t = match v.layout_of(i) {
                    Some(l) => v.layout_text(l),
                    None => v.node_value(i),
                };
                collapse_spaces(t, out);
            }
            return;
        }
        if !v.is_element(i) {
            return;
        }
        if v.pseudo(i).is_some() {
            if v.pseudo(i) == Some("marker") {
                return;
            }
            for l in v.layouts(i) {
                collapse_spaces(v.layout_text(l), out);
            }
            return;
        }
        if matches!(
            v.tag(i),
            Tag::Script | Tag::Style | Tag::Template | Tag::Head
        ) {
            return;
        }
        ctx.visited.push(i);
        ctx.depth += 1;
        let role = info.role;
        // An embedded control contributes its value (or is skipped when it is the one named).
        let done = if ctx.depth > 1
            && (Some(i) == ctx.labelled || self.embedded_control_text(i, role, out))
        {
            true
        } else if ctx.depth > 1
            && let Some(a) = v.attr(i, Attr::AriaLabel).filter(|a| !a.trim().is_empty())
        {
            out.push_str(a);
            true
        } else if ctx.depth > 1 && matches!(v.tag(i), Tag::Img) {
            let alt = v.attr(i, Attr::Alt).unwrap_or("");
            if !alt.trim().is_empty() {
                out.push_str(alt);
            } else if let Some(t) = v.attr(i, Attr::Title) {
                out.push_str(t);
            }
            true
        } else if ctx.depth > 1 && role.is("image") && v.tag(i) == Tag::Foreign {
            out.push_str(&self.svg_title(i));
            true
        } else {
            false
        };
        if !done {
            self.children_text(i, ctx, out);
        }
        ctx.depth -= 1;
        ctx.visited.pop();
    }

    /// Children's text with Chromium's spacing: a space between pieces when either side is a
    /// line-breaking box (unless white space is already there).
    pub(super) fn children_text(&mut self, i: u32, ctx: &mut NameCtx, out: &mut String) {
        let kids = self.ordered_children(i);
        let mut prev_breaks = false;
        // An item's name does not take in the items nested under it.
        let item = matches!(
            self.role_of(i).0,
            "treeitem" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "option"
        );
        for c in kids {
            if item
                && matches!(
                    self.role_of(c).0,
                    "group" | "tree" | "menu" | "list" | "listbox" | "treeitem"
                )
            {
                continue;
            }
            let mut piece = String::new();
            if self.v.tag(c) == Tag::Br {
                piece.push(' ');
            } else {
                self.text_of(c, ctx, &mut piece);
            }
            if piece.is_empty() {
                continue;
            }
            let breaks =
                self.v.is_element(c) && (self.disp(c).breaks_line() || self.v.tag(c) == Tag::Br);
            if (breaks || prev_breaks)
                && !out.is_empty()
                && !out.ends_with(' ')
                && !piece.starts_with(' ')
            {
                out.push(' ');
            }
            out.push_str(&piece);
            prev_breaks = breaks;
        }
    }

    pub(super) fn embedded_control_text(&mut self, i: u32, role: Role, out: &mut String) -> bool {
        let v = self.v;
        match role.0 {
            "textbox" | "searchbox" if matches!(v.tag(i), Tag::Input | Tag::Textarea) => {
                out.push_str(&self.native_value(i));
                true
            }
            "combobox" | "listbox" if v.tag(i) == Tag::Select => {
                if let Some(o) = self.selected_option(i) {
                    out.push_str(&self.option_text(o));
                }
                true
            }
            "spinbutton" | "slider" if v.tag(i) == Tag::Input => {
                out.push_str(&self.native_value(i));
                true
            }
            _ => false,
        }
    }

    pub(super) fn svg_title(&self, i: u32) -> String {
        let v = self.v;
        for c in v.children(i) {
            if v.tag(c) == Tag::Foreign && v.node_name(c) == "title" {
                let mut s = String::new();
                for t in v.children(c) {
                    if v.is_text(t) {
                        s.push_str(v.node_value(t));
                    }
                }
                return squeeze(&s);
            }
        }
        String::new()
    }

    pub(super) fn ordered_children(&self, i: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.ordered_children_into(i, &mut out);
        out
    }

    /// Children with pseudo elements in rendering order: marker, ::before, children, ::after.
    pub(super) fn ordered_children_into(&self, i: u32, out: &mut Vec<u32>) {
        let v = self.v;
        let mark = out.len();
        let mut after = 0usize;
        for c in v.children(i) {
            match v.pseudo(c) {
                Some("marker") => out.insert(mark, c),
                Some("before") | Some("first-letter") => out.push(c),
                Some(_) => after += 1,
                None => out.push(c),
            }
        }
        if after > 0 {
            out.extend(
                v.children(i)
                    .filter(|&c| matches!(v.pseudo(c), Some(p) if !matches!(p, "marker" | "before" | "first-letter"))),
            );
        }
    }

    /// Text alternative of an element referenced by aria-labelledby or a label.
    pub(super) fn referenced_text(&mut self, i: u32, labelled: Option<u32>) -> String {
        let v = self.v;
        if let Some(a) = v.attr(i, Attr::AriaLabel).filter(|a| !a.trim().is_empty()) {
            return a.to_string();
        }
        let hidden = {
            let n = self.info[i as usize];
            n.gone || n.invisible || n.disp == Disp::None
        };
        let mut ctx = NameCtx {
            visited: Vec::new(),
            depth: 0,
            include_hidden: hidden,
            labelled,
        };
        let mut out = String::new();
        self.text_of(i, &mut ctx, &mut out);
        out
    }

    /// The text of an element's contents as a name from content takes it (shown parts only,
    /// spaces squeezed).
    pub(super) fn contents_text(&mut self, i: u32) -> String {
        let mut ctx = NameCtx::shown();
        let mut s = String::new();
        self.text_of(i, &mut ctx, &mut s);
        squeeze(&s)
    }

    pub(super) fn labelledby(&mut self, i: u32) -> Option<String> {
        let ids = self.v.attr(i, Attr::AriaLabelledby)?;
        let mut parts = Vec::new();
        for id in ids.split(&HTML_SPACE[..]).filter(|s| !s.is_empty()) {
            if let Some(t) = self.by_id(id) {
                let text = if t == i {
                    // Self-reference: the element's own content.
                    let mut ctx = NameCtx::shown();
                    let mut s = String::new();
                    self.children_text(i, &mut ctx, &mut s);
                    s
                } else {
                    self.referenced_text(t, Some(i))
                };
                let text = squeeze(&text);
                if !text.is_empty() {
                    parts.push(text);
                }
            }
        }
        let joined = parts.join(" ");
        (!joined.trim().is_empty()).then_some(joined)
    }

    /// The accessible name of an included element.
    pub(super) fn name(&mut self, i: u32, role: Role) -> String {
        let v = self.v;
        if let Some(n) = self.labelledby(i) {
            return n;
        }
        if let Some(a) = v.attr(i, Attr::AriaLabel).filter(|a| !a.trim().is_empty()) {
            return a.to_string();
        }
        let tag = v.tag(i);
        // Native sources.
        let native = match tag {
            Tag::Input | Tag::Select | Tag::Textarea | Tag::Meter | Tag::Output | Tag::Progress => {
                self.control_name(i)
            }
            Tag::Button => None,
            Tag::Img => {
                let alt = v.attr(i, Attr::Alt).unwrap_or("");
                (!alt.is_empty()).then(|| alt.to_string())
            }
            Tag::Fieldset => v
                .children(i)
                .find(|&c| v.tag(c) == Tag::Legend)
                .map(|l| self.referenced_text(l, None))
                .filter(|s| !s.trim().is_empty()),
            Tag::Table => v
                .children(i)
                .find(|&c| v.tag(c) == Tag::Caption)
                .map(|c| self.referenced_text(c, None))
                .filter(|s| !s.trim().is_empty()),
            Tag::Foreign if role.is("image") || role.is("SvgRoot") => {
                let t = self.svg_title(i);
                (!t.is_empty()).then_some(t)
            }
            Tag::Option => {
                let t = self.option_text(i);
                (!t.is_empty()).then_some(t)
            }
            Tag::Optgroup => v.attr(i, Attr::Label).map(str::to_string),
            _ => None,
        };
        if let Some(n) = native {
            return squeeze(&n);
        }
        let row_in_grid = role.is("row") && {
            let mut t = self.table_ancestor(i);
            while t != NIL && self.role_of(t).is("rowgroup") {
                t = self.table_ancestor(t);
            }
            t != NIL && matches!(self.role_of(t).0, "grid" | "treegrid")
        };
        if (role.name_from_content() || row_in_grid) && tag != Tag::Input {
            let s = self.contents_text(i);
            if !s.is_empty() {
                return s;
            }
        }
        if tag == Tag::Input
            && let Some(n) = self.input_button_name(i)
        {
            return n;
        }
        if !role.title_prohibited()
            && let Some(t) = v.attr(i, Attr::Title).filter(|t| !t.trim().is_empty())
        {
            return squeeze(t);
        }
        if matches!(tag, Tag::Input | Tag::Textarea) {
            if let Some(p) = v
                .attr(i, Attr::Placeholder)
                .or_else(|| v.attr(i, Attr::AriaPlaceholder))
                .filter(|p| !p.trim().is_empty())
            {
                return squeeze(p);
            }
        } else if let Some(p) = v
            .attr(i, Attr::AriaPlaceholder)
            .filter(|p| !p.trim().is_empty())
        {
            return squeeze(p);
        }
        String::new()
    }

    /// Label text of a form control (`<label for>` and wrapping labels, in document order).
    pub(super) fn control_name(&mut self, i: u32) -> Option<String> {
        let labels = self.labels_of(i);
        let mut parts = Vec::new();
        for l in labels {
            let t = squeeze(&self.referenced_text(l, Some(i)));
            if !t.is_empty() {
                parts.push(t);
            }
        }
        let joined = parts.join(" ");
        (!joined.is_empty()).then_some(joined)
    }

    pub(super) fn input_button_name(&self, i: u32) -> Option<String> {
        let v = self.v;
        let value = v.attr(i, Attr::Value);
        match self.input_type(i) {
            "submit" => Some(value.map_or("Submit".to_string(), str::to_string)),
            "reset" => Some(value.map_or("Reset".to_string(), str::to_string)),
            "button" => value.map(str::to_string),
            "image" => v
                .attr(i, Attr::Alt)
                .or(value)
                .map(str::to_string)
                .or_else(|| Some("Submit".to_string())),
            _ => None,
        }
        .map(|s| squeeze(&s))
        .filter(|s| !s.is_empty())
    }

    pub(super) fn native_value(&self, i: u32) -> String {
        let v = self.v;
        let n = &v.doc.nodes;
        let s = if v.tag(i) == Tag::Textarea {
            n.text_value.get(i as usize)
        } else {
            n.input_value.get(i as usize)
        };
        v.strings.get(s.unwrap_or(-1)).to_string()
    }

    pub(super) fn selected_option(&self, sel: u32) -> Option<u32> {
        let v = self.v;
        let mut stack: Vec<u32> = v.children(sel).collect();
        stack.reverse();
        while let Some(c) = stack.pop() {
            match v.tag(c) {
                Tag::Option if v.doc.nodes.option_selected.has(c as usize) => return Some(c),
                Tag::Optgroup | Tag::Slot => {
                    let mark = stack.len();
                    stack.extend(v.children(c));
                    stack[mark..].reverse();
                }
                _ => {}
            }
        }
        None
    }

    pub(super) fn option_text(&self, o: u32) -> String {
        let v = self.v;
        if let Some(l) = v.attr(o, Attr::Label).filter(|l| !l.is_empty()) {
            return squeeze(l);
        }
        let mut s = String::new();
        let mut stack: Vec<u32> = v.children(o).collect();
        stack.reverse();
        while let Some(c) = stack.pop() {
            if v.is_text(c) {
                s.push_str(v.node_value(c));
            } else if v.is_element(c) && v.pseudo(c).is_none() {
                let mark = stack.len();
                stack.extend(v.children(c));
                stack[mark..].reverse();
            }
        }
        squeeze(&s)
    }

    pub(super) fn value(&mut self, i: u32, role: Role) -> Option<AxScalar> {
        let v = self.v;
        let tag = v.tag(i);
        let aria_value = || {
            v.attr(i, Attr::AriaValuenow)
                .and_then(|n| n.trim().parse::<f64>().ok())
                .map(AxScalar::Num)
                .or_else(|| {
                    v.attr(i, Attr::AriaValuetext)
                        .map(|t| AxScalar::Str(t.to_string()))
                })
        };
        match (tag, role.0) {
            (Tag::Input, "textbox" | "searchbox" | "combobox") => {
                let val = self.native_value(i);
                if self.input_type(i) == "password" {
                    return Some(AxScalar::Str("•".repeat(val.chars().count())));
                }
                Some(AxScalar::Str(val))
            }
            (Tag::Textarea, _) => Some(AxScalar::Str(self.native_value(i))),
            (Tag::Input, "spinbutton" | "slider") => {
                let val = self.native_value(i);
                Some(match val.trim().parse::<f64>() {
                    Ok(n) => AxScalar::Num(n),
                    Err(_) => AxScalar::Str(val),
                })
            }
            // Date and time fields: the value as the input holds it (`2026-12-24`, `13:45`).
            (Tag::Input, "ColorWell" | "Date" | "DateTime" | "InputTime") => {
                Some(AxScalar::Str(self.native_value(i)))
            }
            (Tag::Input, "button") if self.input_type(i) == "file" => {
                Some(AxScalar::Str("No file chosen".to_string()))
            }
            (Tag::Select, "combobox") => self
                .selected_option(i)
                .map(|o| AxScalar::Str(self.option_text(o))),
            (Tag::Progress, _) | (Tag::Meter, _) => v
                .attr(i, Attr::Value)
                .and_then(|n| n.trim().parse::<f64>().ok())
                .map(AxScalar::Num)
                .or_else(aria_value),
            (_, "slider" | "spinbutton" | "progressbar" | "meter" | "scrollbar") => aria_value(),
            // A combobox that is no text field (ARIA's select-only pattern) shows its choice in
            // its contents, and Chromium gives their text as its value when it is focusable (one
            // that is not is ARIA 1.1's container of a textbox: no value). Without it, a snapshot
            // with only the interactive nodes showed no choice at all.
            (_, "combobox")
                if !matches!(tag, Tag::Input | Tag::Select | Tag::Textarea)
                    && v.attr(i, Attr::Contenteditable)
                        .is_none_or(|c| c.eq_ignore_ascii_case("false"))
                    && self.focusable(i) =>
            {
                Some(self.contents_text(i))
                    .filter(|s| !s.is_empty())
                    .map(AxScalar::Str)
            }
            _ => {
                if v.attr(i, Attr::Contenteditable)
                    .is_some_and(|c| !c.eq_ignore_ascii_case("false"))
                {
                    Some(AxScalar::Str(self.inner_text(i)))
                } else {
                    None
                }
            }
        }
    }

    /// An approximation of `innerText` for editable regions: blocks on their own lines,
    /// paragraphs separated by a blank line.
    pub(super) fn inner_text(&mut self, i: u32) -> String {
        let mut out = String::new();
        let kids = self.ordered_children(i);
        for c in kids {
            if self.v.is_text(c) {
                let mut s = String::new();
                collapse_spaces(self.v.node_value(c), &mut s);
                out.push_str(&s);
            } else if self.v.is_element(c) {
                let inner = self.inner_text(c);
                match self.disp(c) {
                    Disp::Block | Disp::OtherBlock => {
                        let sep = if self.v.tag(c) == Tag::P {
                            "\n\n"
                        } else {
                            "\n"
                        };
                        if !out.is_empty() && !out.ends_with('\n') {
                            out.push_str(sep);
                        } else if !out.is_empty() && sep == "\n\n" && !out.ends_with("\n\n") {
                            out.push('\n');
                        }
                        out.push_str(inner.trim_matches(' '));
                    }
                    _ => out.push_str(&inner),
                }
            }
        }
        out.trim_matches(' ').to_string()
    }
}
