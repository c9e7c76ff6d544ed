//! The accessibility tree of one frame document, computed from its DOM capture instead of asked
//! from Chromium (`Accessibility.getFullAXTree` is most of a snapshot's cost on large pages).
//!
//! It reproduces what Chromium 156 reports where the snapshot's tree builder looks: which nodes are
//! in the tree, ignored or left out; their roles (Chromium's role strings); accessible names
//! (aria-labelledby, aria-label, labels, content, alt, title, placeholder, with Chromium's spacing);
//! values; and the states the snapshot prints. The rules follow HTML-AAM and accname as Chromium
//! implements them; where Chromium has heuristics of its own (which generic containers it keeps,
//! data versus layout tables, redundant labels) the rules were read off its output and are pinned
//! by the golden and differential tests. Not modelled: `aria-owns` re-parenting, CSS `content` alt
//! text, `<area>` image maps, media controls.

use std::collections::{HashMap, HashSet};

use crate::ax_input::ComputedTree;
use crate::doc_view::{Attr, DocView, NIL, Tag};
use crate::raw::{AxProperty, AxScalar, AxValue};
use crate::snapshot_dom::Style;

/// How an element's box takes part in layout (from its computed `display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Disp {
    /// Not rendered (`display: none`, or outside the rendered tree).
    None,
    /// `display: contents` (no box, children rendered).
    Contents,
    /// An inline box (`display: inline`, `ruby`, ...).
    Inline,
    /// An atomic inline: `inline-block`, `inline-flex`, `inline-grid`, `inline-table`.
    AtomicInline,
    /// A block container (`block`, `flow-root`, `list-item`, table cells and captions).
    Block,
    /// A block-level box that is no block container for inline content (`flex`, `grid`, tables,
    /// table rows and sections).
    OtherBlock,
}

impl Disp {
    fn of(display: &str) -> Disp {
        match display {
            "" => Disp::None,
            "none" => Disp::None,
            "contents" => Disp::Contents,
            "inline" | "ruby" | "ruby-text" | "math" => Disp::Inline,
            "inline-block" | "inline-flex" | "inline-grid" | "inline-table"
            | "inline flow-root" | "inline-flow-root" | "inline math" | "-webkit-inline-box" => {
                Disp::AtomicInline
            }
            "block" | "flow-root" | "list-item" | "table-cell" | "table-caption" | "block math"
            | "-webkit-box" | "block flow-root" => Disp::Block,
            _ => Disp::OtherBlock,
        }
    }

    /// Starts a new line in text (a "line breaking object" for name spacing).
    fn breaks_line(self) -> bool {
        matches!(self, Disp::Block | Disp::OtherBlock | Disp::AtomicInline)
    }

    fn is_box(self) -> bool {
        matches!(self, Disp::AtomicInline | Disp::Block | Disp::OtherBlock)
    }
}

/// What an element or text node becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Neither the node nor anything below it is in the tree.
    Skip,
    /// The node is not in the tree; its children take its place.
    Lift,
    /// In the tree but ignored (role `none`; the builder looks through it).
    Ignored,
    /// In the tree with a role.
    Include,
}

/// Per-node facts computed in one pre-order pass (parents before children).
#[derive(Debug, Clone, Copy)]
struct Info {
    disp: Disp,
    /// Hidden by `visibility: hidden|collapse` (the node itself).
    invisible: bool,
    /// Inside (or is) an `aria-hidden="true"` or `inert` subtree, or not rendered at all.
    gone: bool,
    /// Disabled (native or `aria-disabled`).
    disabled: bool,
    /// Fallback content of a rendered `<canvas>`: never laid out, yet Chromium keeps it in the
    /// tree (focusable controls there are what assistive technology operates).
    fallback: bool,
    /// Outside the topmost open modal dialog: inert, no user can operate it while the dialog is up.
    inert: bool,
    role: Role,
    fate: Fate,
}

/// A role: Chromium's role string plus what this module needs to know about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Role(&'static str);

impl Role {
    const NONE: Role = Role("none");
    const TEXT: Role = Role("StaticText");

    fn is(self, s: &str) -> bool {
        self.0 == s
    }

    /// Roles whose name comes from their content.
    fn name_from_content(self) -> bool {
        matches!(
            self.0,
            "button"
                | "cell"
                | "checkbox"
                | "columnheader"
                | "gridcell"
                | "heading"
                | "link"
                | "menuitem"
                | "menuitemcheckbox"
                | "menuitemradio"
                | "option"
                | "radio"
                | "rowheader"
                | "switch"
                | "tab"
                | "tooltip"
                | "treeitem"
                | "DisclosureTriangle"
                | "LayoutTableCell"
                | "term"
                | "comboboxmenubutton"
                | "PopUpButton"
                | "ToggleButton"
        )
    }

    /// Roles that never take `title` as their name.
    fn title_prohibited(self) -> bool {
        matches!(
            self.0,
            "generic"
                | "none"
                | "paragraph"
                | "LabelText"
                | "Legend"
                | "StaticText"
                | "listitem"
                | "list"
                | "figure"
                | "caption"
                | "Figcaption"
                | "definition"
                | "rowgroup"
                | "row"
                | "LayoutTableRow"
                | "group"
                | "details"
        )
    }

    fn is_table_like(self) -> bool {
        matches!(self.0, "table" | "grid" | "treegrid" | "LayoutTable")
    }

    fn is_row_like(self) -> bool {
        matches!(self.0, "row" | "LayoutTableRow")
    }

    fn is_cell_like(self) -> bool {
        matches!(
            self.0,
            "cell" | "gridcell" | "columnheader" | "rowheader" | "LayoutTableCell"
        )
    }
}

/// ARIA role tokens Chromium knows, as the role string it reports.
fn aria_role(token: &str) -> Option<&'static str> {
    Some(match token {
        "alert" => "alert",
        "alertdialog" => "alertdialog",
        "application" => "application",
        "article" => "article",
        "banner" => "banner",
        "blockquote" => "blockquote",
        "button" => "button",
        "caption" => "caption",
        "cell" => "cell",
        "checkbox" => "checkbox",
        "code" => "code",
        "columnheader" => "columnheader",
        "combobox" => "combobox",
        "comment" => "comment",
        "complementary" => "complementary",
        "contentinfo" => "contentinfo",
        "definition" => "definition",
        "deletion" => "deletion",
        "dialog" => "dialog",
        "directory" => "list",
        "document" => "document",
        "emphasis" => "emphasis",
        "feed" => "feed",
        "figure" => "figure",
        "form" => "form",
        "generic" => "generic",
        "grid" => "grid",
        "gridcell" => "gridcell",
        "group" => "group",
        "heading" => "heading",
        "img" | "image" => "image",
        "insertion" => "insertion",
        "link" => "link",
        "list" => "list",
        "listbox" => "listbox",
        "listitem" => "listitem",
        "log" => "log",
        "main" => "main",
        "mark" => "mark",
        "marquee" => "marquee",
        "math" => "math",
        "menu" => "menu",
        "menubar" => "menubar",
        "menuitem" => "menuitem",
        "menuitemcheckbox" => "menuitemcheckbox",
        "menuitemradio" => "menuitemradio",
        "meter" => "meter",
        "navigation" => "navigation",
        "none" | "presentation" => "none",
        "note" => "note",
        "option" => "option",
        "paragraph" => "paragraph",
        "progressbar" => "progressbar",
        "radio" => "radio",
        "radiogroup" => "radiogroup",
        "region" => "region",
        "row" => "row",
        "rowgroup" => "rowgroup",
        "rowheader" => "rowheader",
        "scrollbar" => "scrollbar",
        "search" => "search",
        "searchbox" => "searchbox",
        "sectionfooter" => "sectionfooter",
        "sectionheader" => "sectionheader",
        "separator" => "separator",
        "slider" => "slider",
        "spinbutton" => "spinbutton",
        "status" => "status",
        "strong" => "strong",
        "subscript" => "subscript",
        "suggestion" => "suggestion",
        "superscript" => "superscript",
        "switch" => "switch",
        "tab" => "tab",
        "table" => "table",
        "tablist" => "tablist",
        "tabpanel" => "tabpanel",
        "term" => "term",
        "textbox" => "textbox",
        "time" => "time",
        "timer" => "timer",
        "toolbar" => "toolbar",
        "tooltip" => "tooltip",
        "tree" => "tree",
        "treegrid" => "treegrid",
        "treeitem" => "treeitem",
        "graphics-document" => "graphics-document",
        "graphics-object" => "graphics-object",
        "graphics-symbol" => "graphics-symbol",
        _ => return None,
    })
}

/// Roles users operate (their subtree is still walked; they are always in the tree).
fn is_widget_role(r: &str) -> bool {
    matches!(
        r,
        "button"
            | "checkbox"
            | "combobox"
            | "gridcell"
            | "link"
            | "listbox"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "progressbar"
            | "radio"
            | "scrollbar"
            | "searchbox"
            | "slider"
            | "spinbutton"
            | "switch"
            | "tab"
            | "tabpanel"
            | "textbox"
            | "treeitem"
    )
}

/// Roles Chromium always keeps in the tree.
fn always_included(r: &str) -> bool {
    matches!(
        r,
        "Abbr"
            | "application"
            | "article"
            | "Audio"
            | "banner"
            | "blockquote"
            | "code"
            | "complementary"
            | "contentinfo"
            | "deletion"
            | "insertion"
            | "DescriptionList"
            | "definition"
            | "term"
            | "group"
            | "dialog"
            | "emphasis"
            | "figure"
            | "Figcaption"
            | "sectionfooter"
            | "sectionheader"
            | "form"
            | "list"
            | "listitem"
            | "main"
            | "mark"
            | "math"
            | "meter"
            | "navigation"
            | "progressbar"
            | "region"
            | "search"
            | "separator"
            | "strong"
            | "subscript"
            | "superscript"
            | "time"
            | "Video"
            | "caption"
            | "Legend"
            | "status"
            | "Canvas"
    )
}

/// Replaced elements (their content is not laid out as text).
fn replaced(v: &DocView<'_>, i: u32) -> bool {
    match v.tag(i) {
        Tag::Img
        | Tag::Input
        | Tag::Button
        | Tag::Select
        | Tag::Textarea
        | Tag::Canvas
        | Tag::Video
        | Tag::Audio
        | Tag::Iframe
        | Tag::Frame
        | Tag::Embed
        | Tag::Object => true,
        Tag::Foreign => v.node_name(i) == "svg",
        _ => false,
    }
}

const HTML_SPACE: [char; 5] = [' ', '\t', '\n', '\r', '\u{c}'];

fn is_html_space(c: char) -> bool {
    HTML_SPACE.contains(&c)
}

/// Collapses runs of HTML white space into one space (leading and trailing kept as one space).
fn collapse_spaces(s: &str, out: &mut String) {
    let mut space = false;
    for c in s.chars() {
        if is_html_space(c) {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    if space {
        out.push(' ');
    }
}

/// Collapses and trims.
fn squeeze(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    collapse_spaces(s, &mut out);
    out.trim_matches(' ').to_string()
}

/// What differs between the Chromium versions the computed tree follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// A `<form>` without an author name is a `form` (156 does this); else it is a `generic`
    /// (148 does this; the change lies between them).
    pub unnamed_form_is_form: bool,
}

impl Dialect {
    /// The dialect of a Chromium major version (the newest when unknown).
    pub(crate) fn of_chromium(major: Option<u32>) -> Dialect {
        Dialect {
            unnamed_form_is_form: major.is_none_or(|m| m >= FORM_ALWAYS_SINCE),
        }
    }
}

/// The first Chromium major taken to give every `<form>` the `form` role (148 did not, 156
/// does; the versions between are not seen here).
const FORM_ALWAYS_SINCE: u32 = 149;

/// Computes the AX tree of one document.
pub(crate) struct AxCompute<'a> {
    v: &'a DocView<'a>,
    dialect: Dialect,
    base_url: Option<url::Url>,
    info: Vec<Info>,
    /// Number of rendered text fragments per layout object.
    fragments: Vec<u16>,
    ids: Option<HashMap<&'a str, u32>>,
    labels_for: Option<HashMap<&'a str, Vec<u32>>>,
    /// Scroll containers that can scroll (Chromium keeps them in the tree).
    scrollable: Vec<bool>,
    /// Backend ids of the checkboxes a script made indeterminate (`checked: mixed`).
    indeterminate: &'a HashSet<i64>,
}

impl<'a> AxCompute<'a> {
    /// Prepares the computation for one document.
    pub(crate) fn new(
        v: &'a DocView<'a>,
        base_url: &str,
        dialect: Dialect,
        indeterminate: &'a HashSet<i64>,
    ) -> AxCompute<'a> {
        let mut fragments = vec![0u16; v.doc.layout.node_index.len()];
        for &l in &v.doc.text_boxes.layout_index {
            if let Some(f) = usize::try_from(l).ok().and_then(|l| fragments.get_mut(l)) {
                *f = f.saturating_add(1);
            }
        }
        let mut me = AxCompute {
            v,
            dialect,
            base_url: url::Url::parse(base_url).ok(),
            info: Vec::new(),
            fragments,
            ids: None,
            labels_for: None,
            scrollable: crate::dom::scroll_containers(v),
            indeterminate,
        };
        me.classify();
        me
    }

    fn id_map(&mut self) -> &HashMap<&'a str, u32> {
        if self.ids.is_none() {
            let mut m = HashMap::new();
            for i in 0..self.v.len() as u32 {
                if let Some(id) = self.v.attr(i, Attr::Id)
                    && !id.is_empty()
                {
                    m.entry(id).or_insert(i);
                }
            }
            self.ids = Some(m);
        }
        self.ids.get_or_insert_with(HashMap::new)
    }

    fn by_id(&mut self, id: &str) -> Option<u32> {
        self.id_map().get(id).copied()
    }

    fn labels_of(&mut self, control: u32) -> Vec<u32> {
        if self.labels_for.is_none() {
            let mut m: HashMap<&'a str, Vec<u32>> = HashMap::new();
            for i in 0..self.v.len() as u32 {
                if self.v.tag(i) == Tag::Label
                    && let Some(f) = self.v.attr(i, Attr::For)
                {
                    m.entry(f).or_default().push(i);
                }
            }
            self.labels_for = Some(m);
        }
        let mut out = Vec::new();
        if let Some(id) = self.v.attr(control, Attr::Id)
            && !id.is_empty()
            && let Some(ls) = self.labels_for.as_ref().and_then(|m| m.get(id))
        {
            out.extend(ls.iter().copied());
        }
        // A wrapping label without `for` labels its first labelable descendant.
        let mut p = self.v.parent(control);
        while p != NIL {
            if self.v.tag(p) == Tag::Label {
                if !self.v.has_attr(p, Attr::For) && self.first_labelable(p) == Some(control) {
                    out.push(p);
                }
                break;
            }
            p = self.v.parent(p);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn is_labelable(&self, i: u32) -> bool {
        match self.v.tag(i) {
            Tag::Input => self.input_type(i) != "hidden",
            Tag::Select
            | Tag::Textarea
            | Tag::Button
            | Tag::Meter
            | Tag::Output
            | Tag::Progress => true,
            _ => false,
        }
    }

    fn first_labelable(&self, label: u32) -> Option<u32> {
        let mut stack: Vec<u32> = self.v.children(label).collect();
        stack.reverse();
        while let Some(c) = stack.pop() {
            if self.is_labelable(c) {
                return Some(c);
            }
            let mark = stack.len();
            stack.extend(self.v.children(c));
            stack[mark..].reverse();
        }
        None
    }

    /// The control a label labels.
    fn label_control(&mut self, label: u32) -> Option<u32> {
        match self.v.attr(label, Attr::For) {
            Some(f) => self.by_id(f).filter(|&c| self.is_labelable(c)),
            None => self.first_labelable(label),
        }
    }

    fn input_type(&self, i: u32) -> &'a str {
        match self.v.attr(i, Attr::Type) {
            Some(t) => {
                let t = t.trim();
                // Unknown types are text fields.
                match t.to_ascii_lowercase().as_str() {
                    "button" => "button",
                    "checkbox" => "checkbox",
                    "color" => "color",
                    "date" => "date",
                    "datetime-local" => "datetime-local",
                    "email" => "email",
                    "file" => "file",
                    "hidden" => "hidden",
                    "image" => "image",
                    "month" => "month",
                    "number" => "number",
                    "password" => "password",
                    "radio" => "radio",
                    "range" => "range",
                    "reset" => "reset",
                    "search" => "search",
                    "submit" => "submit",
                    "tel" => "tel",
                    "time" => "time",
                    "url" => "url",
                    "week" => "week",
                    _ => "text",
                }
            }
            None => "text",
        }
    }

    fn disp(&self, i: u32) -> Disp {
        self.info.get(i as usize).map_or(Disp::None, |n| n.disp)
    }

    /// One pre-order pass: display, visibility, hidden subtrees, disabled, role, fate.
    fn classify(&mut self) {
        let v = self.v;
        let n = v.len();
        let mut info: Vec<Info> = Vec::with_capacity(n);
        // Whether any flat descendant is rendered (for display: contents), bottom-up.
        let mut rendered_below = vec![false; n];
        for i in (0..n as u32).rev() {
            let p = v.parent(i);
            if p != NIL && (v.rendered(i) || rendered_below[i as usize]) {
                rendered_below[p as usize] = true;
            }
        }
        let modal = self.topmost_modal();
        for i in 0..n as u32 {
            let parent = v.parent(i);
            let pinfo = (parent != NIL).then(|| info[parent as usize]);
            let mut gone = pinfo.is_some_and(|p| p.gone);
            let fallback = pinfo.is_some_and(|p| p.fallback)
                || (parent != NIL && v.tag(parent) == Tag::Canvas && v.rendered(parent));
            // The modal dialog and what it holds are not inert; everything else is.
            let inert = modal.is_some_and(|m| i != m && pinfo.is_none_or(|p| p.inert));
            let disp = if fallback {
                // No layout and no styles here: controls count as boxes, the rest as inline.
                if v.is_element(i) && !replaced(v, i) {
                    Disp::Inline
                } else if v.is_element(i) {
                    Disp::AtomicInline
                } else {
                    Disp::Inline
                }
            } else if v.is_element(i) {
                if v.rendered(i) {
                    match Disp::of(v.style(i, Style::Display)) {
                        // Replaced elements are boxes even when `display: inline`.
                        Disp::Inline if replaced(v, i) => Disp::AtomicInline,
                        d => d,
                    }
                } else if rendered_below[i as usize] {
                    Disp::Contents
                } else {
                    Disp::None
                }
            } else if v.rendered(i) {
                Disp::Inline
            } else {
                Disp::None
            };
            if v.is_element(i)
                && (v
                    .attr(i, Attr::AriaHidden)
                    .is_some_and(|h| h.trim().eq_ignore_ascii_case("true"))
                    || v.has_attr(i, Attr::Inert)
                    // Canvas fallback has no computed style to read; `hidden` at least is seen.
                    || (fallback && v.has_attr(i, Attr::Hidden)))
            {
                gone = true;
            }
            let invisible =
                v.rendered(i) && matches!(v.style(i, Style::Visibility), "hidden" | "collapse");
            let disabled = self.compute_disabled(i, pinfo.map(|p| p.disabled), &info);
            info.push(Info {
                disp,
                invisible,
                gone,
                disabled,
                fallback,
                inert,
                role: Role::NONE,
                fate: Fate::Skip,
            });
        }
        self.info = info;
        for i in 0..n as u32 {
            let role = self.compute_role(i);
            self.info[i as usize].role = role;
            let fate = self.compute_fate(i, role);
            self.info[i as usize].fate = fate;
        }
    }

    /// The open modal dialog on top, if any: an open `<dialog>` in the top layer (`overlay: auto`,
    /// which a dialog only gets from `showModal()` or as an open popover, and a popover is no
    /// `open` dialog). Of several, the last in document order (a dialog opened from inside
    /// another comes after it).
    fn topmost_modal(&self) -> Option<u32> {
        let v = self.v;
        (0..v.len() as u32).rev().find(|&i| {
            v.tag(i) == Tag::Dialog
                && v.has_attr(i, Attr::Open)
                && v.style(i, Style::Overlay) == "auto"
        })
    }

    fn compute_disabled(&self, i: u32, parent: Option<bool>, info: &[Info]) -> bool {
        let v = self.v;
        let inherited = parent.unwrap_or(false);
        if !v.is_element(i) {
            return inherited;
        }
        if v.attr(i, Attr::AriaDisabled)
            .is_some_and(|d| d.trim().eq_ignore_ascii_case("true"))
        {
            return true;
        }
        let form_control = matches!(
            v.tag(i),
            Tag::Button | Tag::Input | Tag::Select | Tag::Textarea | Tag::Option | Tag::Optgroup
        );
        if form_control && (inherited || v.has_attr(i, Attr::Disabled)) {
            return true;
        }
        if form_control {
            // A disabled fieldset disables its controls, except inside its first legend.
            let mut child = i;
            let mut p = v.parent(i);
            while p != NIL {
                if v.tag(p) == Tag::Fieldset && v.has_attr(p, Attr::Disabled) {
                    let first_legend = v.children(p).find(|&c| v.tag(c) == Tag::Legend);
                    if first_legend != Some(child) {
                        return true;
                    }
                }
                if matches!(v.tag(p), Tag::Select | Tag::Optgroup)
                    && v.tag(i) == Tag::Option
                    && info.get(p as usize).is_some_and(|n| n.disabled)
                {
                    return true;
                }
                child = p;
                p = v.parent(p);
            }
            return false;
        }
        // aria-disabled reaches descendants.
        inherited
    }

    fn role_of(&self, i: u32) -> Role {
        self.info.get(i as usize).map_or(Role::NONE, |n| n.role)
    }

    /// Nearest ancestor that is not neutral inside a table (generic, group, rowgroup).
    fn table_ancestor(&self, i: u32) -> u32 {
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

    fn compute_role(&mut self, i: u32) -> Role {
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
    fn presentation_conflict(&self, i: u32) -> bool {
        self.focusable(i) || self.v.has_any_aria(i)
    }

    fn has_author_name(&mut self, i: u32) -> bool {
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

    fn focusable(&self, i: u32) -> bool {
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

    fn is_details_summary(&self, i: u32) -> bool {
        let mut p = self.v.parent(i);
        if p != NIL && self.v.tag(p) == Tag::Slot {
            p = self.v.parent(p);
        }
        p != NIL
            && self.v.tag(p) == Tag::Details
            && self.v.children(p).find(|&c| self.v.tag(c) == Tag::Summary) == Some(i)
    }

    fn native_role(&mut self, i: u32) -> Role {
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
    fn svg_href(&self, i: u32) -> bool {
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
    fn svg_has_link(&self, svg: u32) -> bool {
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
    fn svg_root(&self, i: u32) -> u32 {
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

    fn in_svg(&self, i: u32) -> bool {
        let mut p = self.v.parent(i);
        while p != NIL {
            if self.v.tag(p) == Tag::Foreign && self.v.node_name(p) == "svg" {
                return true;
            }
            p = self.v.parent(p);
        }
        false
    }

    fn select_size(&self, i: u32) -> i64 {
        self.v
            .attr(i, Attr::Size)
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Inside article, aside, main, nav or section (landmarks become generic there).
    fn inside_sectioning(&self, i: u32, main_counts: bool) -> bool {
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

    fn header_role(&self, i: u32) -> &'static str {
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
    fn is_data_table(&self, t: u32) -> bool {
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

    /// Clickable in Chromium's sense: a mouse listener or editability, not disabled.
    fn clickable(&self, i: u32) -> bool {
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
    fn redundant_label(&mut self, label: u32) -> bool {
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
    fn has_inline_children(&self, i: u32) -> bool {
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
    fn out_of_flow(&self, i: u32) -> bool {
        matches!(self.v.style(i, Style::Position), "absolute" | "fixed")
            || !matches!(self.v.style(i, Style::Float), "" | "none")
    }

    /// Rendered text, or (unrendered) text of canvas fallback content that is not only white space.
    fn text_shown(&self, i: u32) -> bool {
        self.text_rendered(i)
            || (self.info[i as usize].fallback
                && !self
                    .v
                    .node_value(i)
                    .trim_matches(&HTML_SPACE[..])
                    .is_empty())
    }

    fn text_rendered(&self, i: u32) -> bool {
        self.v
            .layout_of(i)
            .is_some_and(|l| self.fragments.get(l).is_some_and(|&f| f > 0))
    }

    fn compute_fate(&mut self, i: u32, role: Role) -> Fate {
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

    fn inside_select(&self, i: u32) -> bool {
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
    fn included(&mut self, i: u32, role: Role) -> bool {
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

    fn potential_link_target(&self, i: u32) -> bool {
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

    // ----------------------------------------------------------------------------------- names

    /// The text a node contributes to its ancestor's name from content.
    fn text_of(&mut self, i: u32, ctx: &mut NameCtx, out: &mut String) {
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
    fn children_text(&mut self, i: u32, ctx: &mut NameCtx, out: &mut String) {
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

    fn embedded_control_text(&mut self, i: u32, role: Role, out: &mut String) -> bool {
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

    fn svg_title(&self, i: u32) -> String {
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

    fn ordered_children(&self, i: u32) -> Vec<u32> {
        let mut out = Vec::new();
        self.ordered_children_into(i, &mut out);
        out
    }

    /// Children with pseudo elements in rendering order: marker, ::before, children, ::after.
    fn ordered_children_into(&self, i: u32, out: &mut Vec<u32>) {
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
    fn referenced_text(&mut self, i: u32, labelled: Option<u32>) -> String {
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
    fn contents_text(&mut self, i: u32) -> String {
        let mut ctx = NameCtx::shown();
        let mut s = String::new();
        self.text_of(i, &mut ctx, &mut s);
        squeeze(&s)
    }

    fn labelledby(&mut self, i: u32) -> Option<String> {
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
    fn name(&mut self, i: u32, role: Role) -> String {
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
    fn control_name(&mut self, i: u32) -> Option<String> {
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

    fn input_button_name(&self, i: u32) -> Option<String> {
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

    fn native_value(&self, i: u32) -> String {
        let v = self.v;
        let n = &v.doc.nodes;
        let s = if v.tag(i) == Tag::Textarea {
            n.text_value.get(i as usize)
        } else {
            n.input_value.get(i as usize)
        };
        v.strings.get(s.unwrap_or(-1)).to_string()
    }

    fn selected_option(&self, sel: u32) -> Option<u32> {
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

    fn option_text(&self, o: u32) -> String {
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

    fn value(&mut self, i: u32, role: Role) -> Option<AxScalar> {
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
    fn inner_text(&mut self, i: u32) -> String {
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

    fn properties(&mut self, i: u32, role: Role) -> Vec<AxProperty> {
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
    fn leaf_children(&self, i: u32) -> bool {
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

    fn push_node(
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

/// State of one name-from-content walk.
struct NameCtx {
    visited: Vec<u32>,
    depth: u32,
    include_hidden: bool,
    /// The control being named (skipped when met inside its own label).
    labelled: Option<u32>,
}

impl NameCtx {
    /// A walk from the top, of shown parts only, naming no control.
    fn shown() -> NameCtx {
        NameCtx {
            visited: Vec::new(),
            depth: 0,
            include_hidden: false,
            labelled: None,
        }
    }
}

/// The AX tree of one captured document; `entry_of` maps its nodes to DOM arena entries.
pub(crate) fn frame_tree(
    v: &DocView<'_>,
    base_url: &str,
    entry_of: &[u32],
    dialect: Dialect,
    indeterminate: &HashSet<i64>,
) -> ComputedTree {
    AxCompute::new(v, base_url, dialect, indeterminate).tree(entry_of)
}
