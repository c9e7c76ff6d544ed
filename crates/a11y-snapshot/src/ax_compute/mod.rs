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

mod emit;
mod inclusion;
mod names;
mod role_rules;

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
