//! The pure half of `areas record`: from the interactive elements the engine found on a page to
//! an [`Area`] with descriptions, element kinds, methods and stable element ids.
//!
//! The engine's half (browser work) is, per tab:
//! 1. take the accessibility snapshot (iframes and OOPIFs included) and, for each interactive
//!    node, fill an [`ElementFacts`] (role, name, tag, attributes, frame) and keep its XPath;
//! 2. ask [`css_candidates`] for selectors to try and keep the first one that the resolver
//!    `browser click` uses (main frame first, then child frames) resolves to this very node (same
//!    frame, same backendNodeId) and that `browser query count` counts once; keep the snapshot's
//!    XPath only if it passes the same check (a frame-relative XPath such as
//!    `/html[1]/body[1]/input[1]` can also match in the main frame, and is then dropped);
//! 3. call [`build_area`] with the verified selectors and store the result
//!    ([`super::store::Store::upsert`] with [`super::store::Origin::Recorded`]).

use envelope::AreaElement;
use serde::Serialize;

use super::area::{Area, AreaId, summarize_elements};
use super::error::Result;
use super::time::Timestamp;

/// What the engine knows about one interactive element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElementFacts {
    /// Accessibility role as the snapshot reports it (`textbox`, `button`, `link`, `Iframe` …).
    pub role: String,
    /// Accessible name (may be empty).
    pub name: String,
    /// Lower-case tag name (`input`, `a`, `button`, `select`, `div` …).
    pub tag: String,
    /// DOM attributes (name, value), as `DOM.describeNode` lists them.
    pub attributes: Vec<(String, String)>,
    /// The title of the iframe the element is in (`Some("")` for an untitled one); `None` in the
    /// top document.
    pub frame_title: Option<String>,
}

impl ElementFacts {
    /// The value of attribute `name` (ASCII case-insensitive), if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn input_type(&self) -> String {
        self.attr("type")
            .unwrap_or("text")
            .trim()
            .to_ascii_lowercase()
    }
}

/// What an element is, for its `type` and `allow_methods`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementKind {
    /// A text input, text area, search box, number field or editable region.
    TextField,
    /// A multi-line `<textarea>`.
    TextArea,
    /// A native `<select>`.
    Select,
    /// An input with a suggestion list (`role=combobox` on a text field).
    ComboBox,
    /// A checkbox or switch.
    Checkbox,
    /// A radio button.
    Radio,
    /// `<input type=file>`.
    File,
    /// A button (including submit inputs).
    Button,
    /// A link.
    Link,
    /// A range slider.
    Slider,
    /// Something else that takes clicks (tab, menu item, option, a `cursor: pointer` element).
    Clickable,
}

impl ElementKind {
    /// Classifies an element; `None` for what is not acted on (iframes, hidden inputs).
    pub fn of(f: &ElementFacts) -> Option<ElementKind> {
        use ElementKind as K;
        let role = f.role.to_ascii_lowercase();
        match f.tag.as_str() {
            "select" => return Some(K::Select),
            "textarea" => return Some(K::TextArea),
            "input" => {
                return match f.input_type().as_str() {
                    "hidden" => None,
                    "checkbox" => Some(K::Checkbox),
                    "radio" => Some(K::Radio),
                    "file" => Some(K::File),
                    "submit" | "button" | "reset" | "image" => Some(K::Button),
                    "range" => Some(K::Slider),
                    "color" => Some(K::Clickable),
                    _ if role == "combobox" => Some(K::ComboBox),
                    _ => Some(K::TextField),
                };
            }
            "button" => return Some(K::Button),
            "a" if f.attr("href").is_some() => return Some(K::Link),
            "iframe" | "frame" => return None,
            _ => {}
        }
        if f.attr("contenteditable")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false"))
        {
            return Some(K::TextField);
        }
        Some(match role.as_str() {
            "iframe" => return None,
            "textbox" | "searchbox" | "spinbutton" => K::TextField,
            "combobox" => K::ComboBox,
            "checkbox" | "switch" | "menuitemcheckbox" => K::Checkbox,
            "radio" | "menuitemradio" => K::Radio,
            "button" => K::Button,
            "link" => K::Link,
            "slider" => K::Slider,
            _ => K::Clickable,
        })
    }

    /// The `type` written in `get` data.
    pub fn type_name(self) -> &'static str {
        match self {
            ElementKind::TextField => "input",
            ElementKind::TextArea => "textarea",
            ElementKind::Select => "select",
            ElementKind::ComboBox => "combobox",
            ElementKind::Checkbox => "checkbox",
            ElementKind::Radio => "radio",
            ElementKind::File => "file",
            ElementKind::Button => "button",
            ElementKind::Link => "link",
            ElementKind::Slider => "slider",
            ElementKind::Clickable => "clickable",
        }
    }

    /// The `browser` commands that take this element as their selector.
    pub fn methods(self) -> &'static [&'static str] {
        match self {
            ElementKind::TextField | ElementKind::TextArea => &["fill", "type", "focus"],
            ElementKind::ComboBox => &["fill", "type", "focus", "click"],
            ElementKind::Select => &["select", "focus"],
            ElementKind::Checkbox | ElementKind::Radio => &["click", "focus"],
            ElementKind::File => &["upload"],
            ElementKind::Button | ElementKind::Link | ElementKind::Clickable => {
                &["click", "hover", "focus"]
            }
            ElementKind::Slider => &["click", "drag", "focus"],
        }
    }

    /// The word a description ends with (`Email input`, `Sign in button`).
    fn noun(self) -> &'static str {
        match self {
            ElementKind::TextField => "input",
            ElementKind::TextArea => "text area",
            ElementKind::Select => "select",
            ElementKind::ComboBox => "combo box",
            ElementKind::Checkbox => "checkbox",
            ElementKind::Radio => "radio button",
            ElementKind::File => "file input",
            ElementKind::Button => "button",
            ElementKind::Link => "link",
            ElementKind::Slider => "slider",
            ElementKind::Clickable => "element",
        }
    }
}

/// The description of an element: its name and kind (`Email input`), and its frame when it is
/// in one (`Pay button (in frame "Checkout")`).
pub fn describe(f: &ElementFacts, kind: ElementKind) -> String {
    let name = f.name.split_whitespace().collect::<Vec<_>>().join(" ");
    let noun = match kind {
        ElementKind::Clickable if !f.role.is_empty() && f.role != "generic" => {
            f.role.to_lowercase()
        }
        _ => kind.noun().to_string(),
    };
    let mut s = if name.is_empty() {
        format!("Unnamed {noun}")
    } else if name.to_lowercase().ends_with(&noun) {
        name
    } else {
        format!("{name} {noun}")
    };
    match f.frame_title.as_deref() {
        Some("") => s.push_str(" (in a frame)"),
        Some(title) => s.push_str(&format!(" (in frame \"{title}\")")),
        None => {}
    }
    s
}

/// Lower-case words of `s` joined by `-` (`identifierId` → `identifier-id`, `Sign in` →
/// `sign-in`), at most 40 characters.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !out.ends_with('-') {
                out.push('-');
            }
            out.extend(c.to_lowercase());
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
            prev_lower = false;
        }
    }
    let mut out: String = out.trim_end_matches('-').chars().take(40).collect();
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Whether an id or name reads like a word rather than generated noise (`:r1:`, `input-83741`).
fn is_meaningful(value: &str) -> bool {
    let s = slug(value);
    let first_is_letter = s.chars().next().is_some_and(char::is_alphabetic);
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let mut run = 0;
    let mut longest_run = 0;
    for c in s.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        longest_run = longest_run.max(run);
    }
    first_is_letter && digits * 10 <= s.chars().count() * 3 && longest_run < 4
}

/// A CSS string literal (in double quotes) with `value` escaped.
fn css_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\{:x} ", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn is_css_identifier(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let mut chars = body.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The structural CSS path equal to an XPath of child steps (`/html[1]/body[1]/form[2]/input[1]`
/// → `html > body > form:nth-of-type(2) > input:nth-of-type(1)`); `None` for any other XPath
/// (shadow-root steps, non-HTML elements, predicates).
pub fn css_from_xpath(xpath: &str) -> Option<String> {
    let rest = xpath.strip_prefix('/')?;
    let mut parts = Vec::new();
    for step in rest.split('/') {
        let (name, index) = step.strip_suffix(']')?.split_once('[')?;
        let n: u32 = index.parse().ok().filter(|n| *n > 0)?;
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        {
            return None;
        }
        parts.push(if matches!(name, "html" | "body" | "head") && n == 1 {
            name.to_string()
        } else {
            format!("{name}:nth-of-type({n})")
        });
    }
    (!parts.is_empty()).then(|| parts.join(" > "))
}

/// Selectors to try for an element, most robust first: a meaningful `#id`, test ids, `name`,
/// `aria-label`, `placeholder`, `href`, `type`, any `#id`, then the structural path of its XPath.
/// The engine keeps the first that matches exactly this element in its frame.
pub fn css_candidates(f: &ElementFacts, xpath: Option<&str>) -> Vec<String> {
    let tag = if f.tag.is_empty() {
        "*"
    } else {
        f.tag.as_str()
    };
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    let id = f.attr("id").filter(|v| !v.is_empty());
    if let Some(id) = id.filter(|v| is_css_identifier(v) && is_meaningful(v)) {
        push(format!("#{id}"));
    }
    for test_attr in [
        "data-testid",
        "data-test-id",
        "data-test",
        "data-qa",
        "data-cy",
    ] {
        if let Some(v) = f.attr(test_attr).filter(|v| !v.is_empty()) {
            push(format!("[{test_attr}={}]", css_string(v)));
        }
    }
    if let Some(name) = f.attr("name").filter(|v| !v.is_empty()) {
        let mut s = format!("{tag}[name={}]", css_string(name));
        if f.input_type() == "radio"
            && let Some(value) = f.attr("value")
        {
            s.push_str(&format!("[value={}]", css_string(value)));
        }
        push(s);
    }
    for attr in ["aria-label", "placeholder", "title", "alt"] {
        if let Some(v) = f.attr(attr).filter(|v| !v.trim().is_empty()) {
            push(format!("{tag}[{attr}={}]", css_string(v)));
        }
    }
    if tag == "a"
        && let Some(href) = f.attr("href").filter(|v| !v.is_empty())
    {
        push(format!("a[href={}]", css_string(href)));
    }
    if let Some(ty) = f.attr("type").filter(|v| !v.is_empty()) {
        push(format!(
            "{tag}[type={}]",
            css_string(&ty.to_ascii_lowercase())
        ));
    }
    if let Some(id) = id {
        push(if is_css_identifier(id) {
            format!("#{id}")
        } else {
            format!("[id={}]", css_string(id))
        });
    }
    if let Some(path) = xpath.and_then(css_from_xpath) {
        push(path);
    }
    out
}

/// One element with the selectors the engine verified (each matches exactly this element today;
/// `None` when no candidate did).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedElement {
    /// What the engine saw.
    pub facts: ElementFacts,
    /// The verified CSS selector.
    pub css: Option<String>,
    /// The verified XPath.
    pub xpath: Option<String>,
}

/// The page being recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageFacts {
    /// Its URL now.
    pub url: String,
    /// Its title now.
    pub title: String,
}

/// What the user passed to `areas record` (`--name`, `--title`, `--description`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordOptions {
    /// The area name (default `default`).
    pub name: Option<String>,
    /// The title (default: the page title).
    pub title: Option<String>,
    /// The description (default: the title and element counts).
    pub description: Option<String>,
}

/// An element left out of the area, and why (for `meta.warnings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedElement {
    /// Its description.
    pub description: String,
    /// Why it was skipped.
    pub reason: &'static str,
}

/// The area made from a page, and what did not make it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// The area to store.
    pub area: Area,
    /// Elements without a verified selector.
    pub skipped: Vec<SkippedElement>,
}

/// Element id candidates, most telling first; radios prefer their label (they share a `name`).
fn id_candidates(f: &ElementFacts, kind: ElementKind) -> Vec<String> {
    let by_name = f.attr("name").filter(|v| is_meaningful(v)).map(slug);
    let by_id = f.attr("id").filter(|v| is_meaningful(v)).map(slug);
    let by_label = Some(slug(&f.name)).filter(|s| !s.is_empty());
    let by_test = f.attr("data-testid").map(slug).filter(|s| !s.is_empty());
    let order = if kind == ElementKind::Radio {
        [by_id, by_label, by_name, by_test]
    } else {
        [by_name, by_id, by_label, by_test]
    };
    order.into_iter().flatten().collect()
}

/// Builds the area of a page from its verified elements: ids unique within the area (a taken id
/// gets `-2`, `-3` …), kinds, descriptions and methods as in [`ElementKind`]. Elements with no
/// verified selector are skipped and reported.
pub fn build_area(
    page: &PageFacts,
    options: &RecordOptions,
    elements: &[RecordedElement],
    now: Timestamp,
) -> Result<Recording> {
    let id = AreaId::for_page(&page.url, options.name.as_deref())?;
    let mut used: Vec<String> = Vec::new();
    let mut out: Vec<AreaElement> = Vec::new();
    let mut skipped = Vec::new();
    for e in elements {
        let Some(kind) = ElementKind::of(&e.facts) else {
            continue;
        };
        let description = describe(&e.facts, kind);
        if e.css.is_none() && e.xpath.is_none() {
            skipped.push(SkippedElement {
                description,
                reason: "no selector matched exactly this element",
            });
            continue;
        }
        let candidates = id_candidates(&e.facts, kind);
        let base = candidates
            .iter()
            .find(|c| !used.contains(c))
            .or(candidates.first())
            .cloned()
            .unwrap_or_else(|| kind.type_name().to_string());
        let mut element_id = base.clone();
        let mut n = 2;
        while used.contains(&element_id) {
            element_id = format!("{base}-{n}");
            n += 1;
        }
        used.push(element_id.clone());
        out.push(AreaElement {
            element_id,
            element_type: kind.type_name().into(),
            description,
            css: e.css.clone(),
            xpath: e.xpath.clone(),
            allow_methods: kind.methods().iter().map(|m| (*m).to_string()).collect(),
        });
    }
    let title = options
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| Some(page.title.trim().to_string()).filter(|t| !t.is_empty()))
        .unwrap_or_else(|| format!("{}{}", id.host(), id.path()));
    let description = options
        .description
        .clone()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("{title}: {}", count_kinds(&out)));
    let area = Area {
        area_id: id.to_string(),
        title,
        summary: summarize_elements(&out),
        url: page.url.clone(),
        description,
        elements: out,
        recorded_at: now,
        recorded_from: page.url.clone(),
    };
    Ok(Recording { area, skipped })
}

/// `2 inputs, 1 checkbox, 1 button` (in order of first appearance).
fn count_kinds(elements: &[AreaElement]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for e in elements {
        match counts.iter_mut().find(|(t, _)| *t == e.element_type) {
            Some((_, n)) => *n += 1,
            None => counts.push((&e.element_type, 1)),
        }
    }
    if counts.is_empty() {
        return "no interactive elements".into();
    }
    counts
        .iter()
        .map(|(t, n)| {
            let plural = if *n == 1 {
                (*t).to_string()
            } else if t.ends_with('x') {
                format!("{t}es")
            } else {
                format!("{t}s")
            };
            format!("{n} {plural}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(role: &str, name: &str, tag: &str, attrs: &[(&str, &str)]) -> ElementFacts {
        ElementFacts {
            role: role.into(),
            name: name.into(),
            tag: tag.into(),
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            frame_title: None,
        }
    }

    #[test]
    fn kinds_and_methods_fit_the_element() {
        let cases: &[(ElementFacts, Option<ElementKind>, &[&str])] = &[
            (
                facts("textbox", "Email", "input", &[("type", "email")]),
                Some(ElementKind::TextField),
                &["fill", "type", "focus"],
            ),
            (
                facts("textbox", "Bio", "textarea", &[]),
                Some(ElementKind::TextArea),
                &["fill", "type", "focus"],
            ),
            (
                facts("combobox", "Color", "select", &[]),
                Some(ElementKind::Select),
                &["select", "focus"],
            ),
            (
                facts("combobox", "City", "input", &[]),
                Some(ElementKind::ComboBox),
                &["fill", "type", "focus", "click"],
            ),
            (
                facts("checkbox", "I agree", "input", &[("type", "checkbox")]),
                Some(ElementKind::Checkbox),
                &["click", "focus"],
            ),
            (
                facts("radio", "Red", "input", &[("type", "Radio")]),
                Some(ElementKind::Radio),
                &["click", "focus"],
            ),
            (
                facts("button", "Choose file", "input", &[("type", "file")]),
                Some(ElementKind::File),
                &["upload"],
            ),
            (
                facts("button", "Go", "input", &[("type", "submit")]),
                Some(ElementKind::Button),
                &["click", "hover", "focus"],
            ),
            (
                facts("button", "Save", "button", &[]),
                Some(ElementKind::Button),
                &["click", "hover", "focus"],
            ),
            (
                facts("link", "Home", "a", &[("href", "/")]),
                Some(ElementKind::Link),
                &["click", "hover", "focus"],
            ),
            (
                facts("slider", "Volume", "input", &[("type", "range")]),
                Some(ElementKind::Slider),
                &["click", "drag", "focus"],
            ),
            (
                facts("tab", "Settings", "div", &[]),
                Some(ElementKind::Clickable),
                &["click", "hover", "focus"],
            ),
            (
                facts("generic", "", "div", &[("contenteditable", "true")]),
                Some(ElementKind::TextField),
                &["fill", "type", "focus"],
            ),
            (
                facts("switch", "Dark mode", "div", &[]),
                Some(ElementKind::Checkbox),
                &["click", "focus"],
            ),
            (facts("Iframe", "Inner", "iframe", &[]), None, &[]),
            (facts("", "", "input", &[("type", "hidden")]), None, &[]),
        ];
        for (f, kind, methods) in cases {
            assert_eq!(ElementKind::of(f), *kind, "{f:?}");
            if let Some(k) = kind {
                assert_eq!(k.methods(), *methods, "{f:?}");
            }
        }
    }

    #[test]
    fn descriptions_name_the_element_and_its_frame() {
        let mut f = facts("button", "Inner button", "button", &[]);
        assert_eq!(describe(&f, ElementKind::Button), "Inner button");
        f.frame_title = Some("Inner frame".into());
        assert_eq!(
            describe(&f, ElementKind::Button),
            "Inner button (in frame \"Inner frame\")"
        );
        let f = facts("textbox", "  Email\n address ", "input", &[]);
        assert_eq!(describe(&f, ElementKind::TextField), "Email address input");
        let f = facts("tab", "", "div", &[]);
        assert_eq!(describe(&f, ElementKind::Clickable), "Unnamed tab");
    }

    #[test]
    fn slugs_and_meaningful_ids() {
        assert_eq!(slug("identifierId"), "identifier-id");
        assert_eq!(slug("Sign in!"), "sign-in");
        assert_eq!(slug("  --x__y--  "), "x-y");
        let long = slug(&"ab ".repeat(30));
        assert!(long.len() <= 40 && !long.ends_with('-'), "{long}");
        assert!(is_meaningful("email"));
        assert!(is_meaningful("address2"));
        assert!(!is_meaningful(":r1:"));
        assert!(!is_meaningful("input-83741"));
        assert!(!is_meaningful("a1b2c3d4"));
    }

    #[test]
    fn css_candidates_prefer_stable_attributes() {
        let f = facts(
            "textbox",
            "Email",
            "input",
            &[
                ("id", "identifierId"),
                ("name", "identifier"),
                ("type", "email"),
                ("aria-label", "Email or \"phone\""),
            ],
        );
        assert_eq!(
            css_candidates(&f, Some("/html[1]/body[1]/form[1]/input[1]")),
            vec![
                "#identifierId",
                "input[name=\"identifier\"]",
                "input[aria-label=\"Email or \\\"phone\\\"\"]",
                "input[type=\"email\"]",
                "html > body > form:nth-of-type(1) > input:nth-of-type(1)",
            ]
        );
        let generated = facts(
            "button",
            "Go",
            "button",
            &[("id", ":r7:"), ("data-testid", "go")],
        );
        assert_eq!(
            css_candidates(&generated, None),
            vec!["[data-testid=\"go\"]", "[id=\":r7:\"]"]
        );
        let radio = facts(
            "radio",
            "Red",
            "input",
            &[("type", "radio"), ("name", "color"), ("value", "red")],
        );
        assert_eq!(
            css_candidates(&radio, None)[0],
            "input[name=\"color\"][value=\"red\"]"
        );
    }

    #[test]
    fn xpath_to_css() {
        assert_eq!(
            css_from_xpath("/html[1]/body[1]/div[3]/a[2]").as_deref(),
            Some("html > body > div:nth-of-type(3) > a:nth-of-type(2)")
        );
        assert_eq!(
            css_from_xpath("/html[1]/body[1]/div[1]/#shadow-root/input[1]"),
            None
        );
        assert_eq!(css_from_xpath("//input[@name='q']"), None);
        assert_eq!(css_from_xpath("/html[1]/body[1]/*[name()='svg'][1]"), None);
        assert_eq!(css_from_xpath("/html[0]"), None);
    }

    #[test]
    fn build_area_gives_unique_stable_ids_and_skips_unselectable() {
        let page = PageFacts {
            url: "https://shop.example/checkout?step=2".into(),
            title: "Checkout".into(),
        };
        let el = |f: ElementFacts, css: Option<&str>| RecordedElement {
            facts: f,
            css: css.map(String::from),
            xpath: None,
        };
        let elements = vec![
            el(
                facts("textbox", "Email", "input", &[("name", "email")]),
                Some("input[name=\"email\"]"),
            ),
            el(
                facts(
                    "radio",
                    "Card",
                    "input",
                    &[("type", "radio"), ("name", "pay")],
                ),
                Some("#card"),
            ),
            el(
                facts(
                    "radio",
                    "Cash",
                    "input",
                    &[("type", "radio"), ("name", "pay")],
                ),
                Some("#cash"),
            ),
            el(facts("button", "Pay", "button", &[]), Some("#pay")),
            el(facts("button", "Pay", "button", &[]), Some("#pay2")),
            el(facts("Iframe", "Ads", "iframe", &[]), Some("iframe")),
            el(facts("link", "Help", "a", &[("href", "/help")]), None),
        ];
        let now = Timestamp::from_millis(5);
        let r = build_area(&page, &RecordOptions::default(), &elements, now).unwrap();
        let ids: Vec<&str> = r
            .area
            .elements
            .iter()
            .map(|e| e.element_id.as_str())
            .collect();
        assert_eq!(ids, vec!["email", "card", "cash", "pay", "pay-2"]);
        assert_eq!(r.area.area_id, "shop.example:/checkout:default");
        assert_eq!(r.area.title, "Checkout");
        assert_eq!(r.area.description, "Checkout: 1 input, 2 radios, 2 buttons");
        assert_eq!(
            r.area.summary,
            "Email input, Card radio button, Cash radio button, Pay button, Pay button"
        );
        assert_eq!(r.area.recorded_at, now);
        assert_eq!(
            r.skipped,
            vec![SkippedElement {
                description: "Help link".into(),
                reason: "no selector matched exactly this element"
            }]
        );
        // The same page recorded again gives the same ids.
        let again = build_area(&page, &RecordOptions::default(), &elements, now).unwrap();
        assert_eq!(again, r);
        let named = build_area(
            &page,
            &RecordOptions {
                name: Some("pay".into()),
                title: Some("Pay".into()),
                description: Some("Payment".into()),
            },
            &elements,
            now,
        )
        .unwrap();
        assert_eq!(
            (
                named.area.area_id.as_str(),
                named.area.title.as_str(),
                named.area.description.as_str()
            ),
            ("shop.example:/checkout:pay", "Pay", "Payment")
        );
    }
}
