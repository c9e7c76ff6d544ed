//! The computed tree's output: each node's properties and the walk that emits the nodes.

use super::*;

impl<'a> AxCompute<'a> {
    pub(super) fn properties(&mut self, i: u32, role: Role) -> Vec<AxProperty> {
        let v = self.v;
        let tag = v.tag(i);
        let mut props = Vec::new();
        let tri = |s: &str| {
            let s = s.trim().to_ascii_lowercase();
            match s.as_str() {
                "true" => "true",
                "mixed" => "mixed",
                _ => "false",
            }
        };
        let mut push = |name: &'static str, value: AxScalar| {
            props.push(AxProperty {
                name,
                value: AxValue { value },
            });
        };
        if matches!(
            role.0,
            "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
        ) {
            let checked = if tag == Tag::Input {
                if self.indeterminate.contains(&v.backend_id(i)) && role.is("checkbox") {
                    "mixed"
                } else if v.doc.nodes.input_checked.has(i as usize) {
                    "true"
                } else {
                    "false"
                }
            } else {
                tri(v.attr(i, Attr::AriaChecked).unwrap_or("false"))
            };
            push("checked", AxScalar::Str(checked.to_string()));
        }
        if let Some(p) = v.attr(i, Attr::AriaPressed)
            && role.is("button")
        {
            let p = tri(p);
            if p != "false" {
                push("pressed", AxScalar::Str(p.to_string()));
            }
        }
        if tag == Tag::Option {
            push(
                "selected",
                AxScalar::Bool(
                    v.doc.nodes.option_selected.has(i as usize) && !self.info[i as usize].disabled,
                ),
            );
        } else if let Some(s) = v.attr(i, Attr::AriaSelected)
            && matches!(
                role.0,
                "option" | "tab" | "treeitem" | "gridcell" | "row" | "cell"
            )
        {
            push(
                "selected",
                AxScalar::Bool(s.trim().eq_ignore_ascii_case("true")),
            );
        }
        if role.is("DisclosureTriangle") {
            let p = v.parent(i);
            let det = if p != NIL && v.tag(p) == Tag::Slot {
                v.parent(p)
            } else {
                p
            };
            push(
                "expanded",
                AxScalar::Bool(det != NIL && v.has_attr(det, Attr::Open)),
            );
        } else if tag == Tag::Select && role.is("combobox") {
            push("expanded", AxScalar::Bool(false));
        } else if let Some(e) = v.attr(i, Attr::AriaExpanded) {
            match e.trim().to_ascii_lowercase().as_str() {
                "true" => push("expanded", AxScalar::Bool(true)),
                "false" => push("expanded", AxScalar::Bool(false)),
                _ => {}
            }
        }
        let operable = || {
            is_widget_role(role.0)
                || self.focusable(i)
                || self.clickable(i)
                || role.is("DisclosureTriangle")
        };
        if (self.info[i as usize].disabled || (self.info[i as usize].inert && operable()))
            && tag != Tag::Optgroup
        {
            push("disabled", AxScalar::Bool(true));
        }
        if role.is("link")
            && let Some(href) = v.attr(i, Attr::Href)
        {
            let url = match &self.base_url {
                Some(b) => b
                    .join(href.trim())
                    .map(|u| u.to_string())
                    .unwrap_or_else(|_| href.to_string()),
                None => href.to_string(),
            };
            push("url", AxScalar::Str(url));
        }
        props
    }

    /// The frame's AX tree, root (the document) first. `entry_of` maps capture nodes to their
    /// entries in the frame's DOM arena ([`NIL`] where unknown).
    pub(crate) fn tree(mut self, entry_of: &[u32]) -> ComputedTree {
        let v = self.v;
        let n = v.len();
        let mut out = ComputedTree::default();
        if n == 0 {
            return out;
        }
        // (node, AX parent)
        let mut stack: Vec<(u32, Option<u32>)> = vec![(0, None)];
        let mut kids: Vec<u32> = Vec::new();
        while let Some((i, parent)) = stack.pop() {
            let fate = self.info[i as usize].fate;
            let here = match fate {
                Fate::Skip => continue,
                Fate::Lift => parent,
                Fate::Ignored | Fate::Include => {
                    let entry = entry_of.get(i as usize).copied().unwrap_or(NIL);
                    Some(self.push_node(&mut out, i, fate, parent, entry))
                }
            };
            if self.leaf_children(i) {
                continue;
            }
            kids.clear();
            self.ordered_children_into(i, &mut kids);
            stack.extend(kids.iter().rev().map(|&c| (c, here)));
        }
        out.finish();
        out
    }

    /// Elements whose flat children never show (controls with user-agent content, frames).
    pub(super) fn leaf_children(&self, i: u32) -> bool {
        let v = self.v;
        matches!(
            v.tag(i),
            Tag::Input
                | Tag::Textarea
                | Tag::Iframe
                | Tag::Frame
                | Tag::Img
                | Tag::Video
                | Tag::Audio
                | Tag::Meter
                | Tag::Progress
        ) || (v.tag(i) == Tag::Foreign && self.info[i as usize].role.is("image"))
    }

    pub(super) fn push_node(
        &mut self,
        out: &mut ComputedTree,
        i: u32,
        fate: Fate,
        parent: Option<u32>,
        entry: u32,
    ) -> u32 {
        let v = self.v;
        let backend = v.backend_id(i);
        if fate == Fate::Ignored {
            return out.push(parent, "none", true, backend, entry, None, None, Vec::new());
        }
        let role = self.info[i as usize].role;
        if v.is_text(i) || v.pseudo(i).is_some() {
            let mut s = String::new();
            if v.pseudo(i).is_some() {
                for l in v.layouts(i) {
                    collapse_spaces(v.layout_text(l), &mut s);
                }
                return out.push(
                    parent,
                    "StaticText",
                    false,
                    0,
                    NIL,
                    Some(s),
                    None,
                    Vec::new(),
                );
            }
            let t = match v.layout_of(i) {
                Some(l) => v.layout_text(l),
                None => v.node_value(i),
            };
            collapse_spaces(t, &mut s);
            return out.push(
                parent,
                "StaticText",
                false,
                backend,
                entry,
                Some(s),
                None,
                Vec::new(),
            );
        }
        let name = if role.is("RootWebArea") {
            String::new()
        } else {
            self.name(i, role)
        };
        let value = self.value(i, role);
        let properties = self.properties(i, role);
        out.push(
            parent,
            role.0,
            false,
            backend,
            entry,
            Some(name),
            value,
            properties,
        )
    }
}
