//! Reading an element found by [`locate`](crate::page::locate): its HTML, text (raw or the main
//! article, readability-style), value, attributes, computed styles, box in top-level viewport
//! coordinates, interactive state (focus followed through every frame, out-of-process ones
//! included) and its accessibility facts (role, name, neighbours) for `describe`.

use cdp_protocol::{BackendNodeId, FrameId, Session, accessibility, dom};
use frame_graph::FrameGraph;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::locate::Located;
use crate::page::quad::PageGeometry;
use crate::page::query::HELPERS_JS;
use crate::page::screenshot::ViewRect;

/// Runs `function` (with `this` the element) and decodes its by-value result. A gone node is
/// STALE_ELEMENT; a throw an internal error naming what was read.
pub(crate) async fn call<T: DeserializeOwned>(
    handle: &ObjectHandle,
    selector: &str,
    function: &str,
    args: Vec<Value>,
    deadline: &Deadline,
) -> Result<T> {
    let r = handle
        .call(function, args, deadline.capped(deadline::QUICK_CALL))
        .await
        .map_err(|e| CliError::on_node(e, selector))?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "reading {selector} failed in the page: {}",
            ex.message().lines().next().unwrap_or_default()
        )));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone()).map_err(|e| {
        CliError::Internal(format!(
            "reading {selector}: the page answered {value}: {e}"
        ))
    })
}

/// A function of the element with the shared helpers in scope as `H`.
fn with_helpers(body: &str) -> String {
    format!(
        "function (...args) {{ const H = {HELPERS_JS}; return (function {body}).apply(this, args); }}"
    )
}

/// `outerHTML`.
pub(crate) async fn outer_html(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<String> {
    call(
        &node.handle,
        selector,
        "function () { return this.outerHTML !== undefined ? this.outerHTML : (this.textContent || ''); }",
        Vec::new(),
        deadline,
    )
    .await
}

/// How `browser text` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum TextMode {
    /// The rendered text (`innerText`).
    #[default]
    Raw,
    /// The main article's text: headings, paragraphs, lists, quotes and code, without navigation,
    /// asides, footers, forms, ads or comment sections.
    Readability,
}

/// The readability extractor: the article (an `<article>`, `main`/`[role=main]`, else the block
/// with the most paragraph text) and its text blocks, noise subtrees skipped.
const READABILITY_JS: &str = r#"function () {
  const root = this;
  const NOISE = /(^|[\s_-])(nav|navbar|menu|footer|sidebar|side-bar|comments?|share|sharing|social|related|promo|promoted|sponsor(ed)?|ads?|advert(isement)?s?|banner|cookie|newsletter|subscribe|breadcrumbs?|pagination|widget|popup|modal)($|[\s_-])/i;
  const SKIP = new Set(['nav', 'aside', 'footer', 'script', 'style', 'noscript', 'template', 'form', 'button', 'iframe', 'svg', 'dialog', 'select', 'textarea', 'input', 'menu', 'canvas', 'video', 'audio']);
  const ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'menu', 'menubar', 'alert']);
  const noise = (el) => SKIP.has(el.localName) || ROLES.has(el.getAttribute('role') || '') || el.hidden ||
    el.getAttribute('aria-hidden') === 'true' ||
    NOISE.test((el.id || '') + ' ' + (typeof el.className === 'string' ? el.className : '')) ||
    (el !== root && getComputedStyle(el).display === 'none');
  const pick = () => {
    if (['article', 'main'].includes(root.localName) || root.getAttribute('role') === 'main') return root;
    const articles = [...root.querySelectorAll('article')].filter(a => !a.parentElement || !a.parentElement.closest('article'));
    if (articles.length === 1) return articles[0];
    const main = root.querySelector('main, [role=main]');
    if (main) return main;
    const scores = new Map();
    for (const p of root.querySelectorAll('p, pre, blockquote')) {
      let bad = false;
      for (let a = p; a && a !== root; a = a.parentElement) if (noise(a)) { bad = true; break; }
      if (bad) continue;
      const t = (p.innerText || '').trim();
      if (t.length < 20) continue;
      const s = 1 + t.split(',').length + Math.min(t.length / 100, 3);
      const up = p.parentElement;
      if (up) scores.set(up, (scores.get(up) || 0) + s);
      if (up && up.parentElement) scores.set(up.parentElement, (scores.get(up.parentElement) || 0) + s / 2);
    }
    let best = null, top = 0;
    for (const [el, s] of scores) if (s > top) { best = el; top = s; }
    return best || root;
  };
  const article = pick();
  const BLOCK = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'pre', 'blockquote', 'figcaption', 'dt', 'dd', 'td', 'th', 'caption']);
  const out = [];
  const walk = (el) => {
    for (const c of el.children) {
      if (noise(c)) continue;
      if (BLOCK.has(c.localName)) {
        const t = (c.innerText || '').replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
        if (t) out.push(t);
      } else walk(c);
    }
  };
  walk(article);
  if (!out.length) return (article.innerText || '').trim();
  return out.join('\n\n');
}"#;

/// The rendered text (`innerText`) and whether the page shows the element: `innerText` of an
/// element that is not displayed is the text it holds, and of one `visibility: hidden` only what
/// its visible descendants show, so the caller says which it was.
const RAW_TEXT_JS: &str = r#"function () {
  const text = typeof this.innerText === 'string' ? this.innerText : (this.textContent || '');
  let shown = 'yes';
  if (this.nodeType === 1 && typeof this.checkVisibility === 'function') {
    if (!this.checkVisibility()) shown = 'none';
    else if (getComputedStyle(this).visibility !== 'visible') shown = 'hidden';
  }
  return { text, shown, held: shown === 'yes' ? 0 : (this.textContent || '').trim().length };
}"#;

/// What [`RAW_TEXT_JS`] reads.
#[derive(Deserialize)]
struct RawText {
    text: String,
    shown: String,
    held: usize,
}

/// The element's text, and a warning when the page does not show the element (its text then is
/// not what a user sees).
pub(crate) async fn text(
    node: &Located,
    selector: &str,
    mode: TextMode,
    deadline: &Deadline,
) -> Result<(String, Option<String>)> {
    if mode == TextMode::Readability {
        let text = call(&node.handle, selector, READABILITY_JS, Vec::new(), deadline).await?;
        return Ok((text, None));
    }
    let r: RawText = call(&node.handle, selector, RAW_TEXT_JS, Vec::new(), deadline).await?;
    let warning = match r.shown.as_str() {
        "none" => Some(format!(
            "{selector} is not displayed (display: none on it or an ancestor): this is the text it \
             holds, which the page does not show"
        )),
        "hidden" if r.text.trim().is_empty() && r.held > 0 => Some(format!(
            "{selector} is hidden (visibility: hidden): the {} characters of text it holds are not \
             shown, so none is given",
            r.held
        )),
        _ => None,
    };
    Ok((r.text, warning))
}

#[derive(Deserialize)]
struct ValueRead {
    ok: bool,
    #[serde(default)]
    value: String,
    #[serde(default)]
    what: String,
    /// Every selected option's value, for a `<select multiple>` with more than one selected.
    #[serde(default)]
    selected: Vec<String>,
}

/// A form field's value.
#[derive(Debug, PartialEq)]
pub(crate) struct FieldValue {
    /// What the DOM's `value` says (a multiple select: its first selected option).
    pub value: String,
    /// Every selected option's value when a `<select multiple>` has more than one selected: the
    /// DOM's `value` names only the first.
    pub selected: Vec<String>,
}

/// The value of a form field (input, textarea, select, contenteditable); anything else is
/// INVALID_ARGUMENT saying what it is.
pub(crate) async fn value(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<FieldValue> {
    let r: ValueRead = call(
        &node.handle,
        selector,
        r#"function () {
  const tag = String(this.localName || '').toLowerCase();
  if (tag === 'select' && this.multiple) {
    const selected = [...this.selectedOptions].map(o => String(o.value));
    return { ok: true, value: String(this.value), selected: selected.length > 1 ? selected : [] };
  }
  if (['input', 'textarea', 'select', 'option', 'button', 'output', 'meter', 'progress', 'li', 'data', 'param'].includes(tag) && 'value' in this)
    return { ok: true, value: String(this.value) };
  if (this.isContentEditable) return { ok: true, value: this.innerText };
  return { ok: false, what: '<' + tag + '>' };
}"#,
        Vec::new(),
        deadline,
    )
    .await?;
    if r.ok {
        Ok(FieldValue {
            value: r.value,
            selected: r.selected,
        })
    } else {
        Err(CliError::InvalidArgument(format!(
            "{selector} is a {} element, which has no value (`browser text` reads its text)",
            r.what
        )))
    }
}

/// One attribute; `None` when the element does not have it.
pub(crate) async fn attribute(
    node: &Located,
    selector: &str,
    name: &str,
    deadline: &Deadline,
) -> Result<Option<String>> {
    call(
        &node.handle,
        selector,
        "function (n) { return this.getAttribute(n); }",
        vec![Value::String(name.to_string())],
        deadline,
    )
    .await
}

/// Every attribute, in document order.
pub(crate) async fn attributes(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Vec<(String, String)>> {
    call(
        &node.handle,
        selector,
        "function () { return this.attributes ? [...this.attributes].map(a => [a.name, a.value]) : []; }",
        Vec::new(),
        deadline,
    )
    .await
}

/// What `styles` reads without names.
pub(crate) const DEFAULT_STYLES: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "position",
    "z-index",
    "width",
    "height",
    "margin",
    "padding",
    "border",
    "box-sizing",
    "overflow",
    "color",
    "background-color",
    "font-family",
    "font-size",
    "font-weight",
    "line-height",
    "text-align",
    "cursor",
    "pointer-events",
];

#[derive(Deserialize)]
struct StylesRead {
    #[serde(default)]
    unknown: Vec<String>,
    #[serde(default)]
    values: Vec<(String, String)>,
}

/// Computed styles of `names` (in that order); an unknown property name is INVALID_ARGUMENT.
pub(crate) async fn styles(
    node: &Located,
    selector: &str,
    names: &[String],
    deadline: &Deadline,
) -> Result<Vec<(String, String)>> {
    let names: Vec<Value> = names.iter().map(|n| Value::String(n.clone())).collect();
    let r: StylesRead = call(
        &node.handle,
        selector,
        r#"function (names) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const cs = getComputedStyle(el);
  const probe = document.createElement('div').style;
  const unknown = names.filter(n => !n.startsWith('--') && !(n in probe) && !CSS.supports(n, 'initial'));
  return { unknown, values: names.map(n => [n, cs.getPropertyValue(n)]) };
}"#,
        vec![Value::Array(names)],
        deadline,
    )
    .await?;
    if !r.unknown.is_empty() {
        return Err(CliError::InvalidArgument(format!(
            "unknown CSS propert{} {}",
            if r.unknown.len() == 1 { "y" } else { "ies" },
            r.unknown.join(", ")
        )));
    }
    Ok(r.values)
}

/// The border box of a node of `frame`'s session, in top-level viewport coordinates: its border
/// quad as the browser draws it, carried through every frame above it (zoomed, transformed and
/// out-of-process ones included, [`PageGeometry::to_page_rect`]), and the smallest rectangle
/// around that (for a turned box, the rectangle around it on screen). `None` when it has no
/// layout (`display: none`, detached).
pub(crate) async fn border_box_of(
    geo: &PageGeometry,
    session: &Session,
    frame: &str,
    backend: Option<i64>,
    object: Option<&cdp_protocol::RemoteObjectId>,
    selector: &str,
    deadline: &Deadline,
) -> Result<Option<ViewRect>> {
    let r = session
        .send_timeout(
            &dom::GetBoxModel {
                backend_node_id: backend.map(BackendNodeId::new),
                object_id: object.cloned(),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    let model = match r {
        Ok(r) => r.model,
        Err(e) if e.is_gone() => return Err(CliError::on_node(e, selector)),
        // "Could not compute box model": no layout object.
        Err(cdp_protocol::CdpError::Protocol { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    geo.to_page_rect(&FrameId::from(frame), &model.border).await
}

/// Whether Chromium shows the element at all (`checkVisibility()`; true for nodes that are no
/// elements).
const SHOWN_JS: &str =
    "function() { return typeof this.checkVisibility !== 'function' || this.checkVisibility(); }";

/// The located node's border box (see [`border_box_of`]); none for an element the page does not
/// show: what a closed `<details>` holds (or `content-visibility: hidden` skips) gets a box from
/// a forced layout, where nothing is drawn and a click lands on something else.
pub(crate) async fn border_box(
    geo: &PageGeometry,
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Option<ViewRect>> {
    let (shown, b) = tokio::join!(
        call::<bool>(&node.handle, selector, SHOWN_JS, Vec::new(), deadline),
        border_box_of(
            geo,
            node.session(),
            &node.frame_id,
            None,
            Some(node.handle.object_id()),
            selector,
            deadline,
        )
    );
    if !shown? {
        return Ok(None);
    }
    b
}

/// An element's interactive state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub(crate) struct State {
    /// Rendered with a size and not hidden.
    pub visible: bool,
    /// Not disabled.
    pub enabled: bool,
    /// Checked (checkbox, radio, `aria-checked`/`aria-pressed`).
    pub checked: bool,
    /// Whether it can be checked at all.
    #[serde(default)]
    pub checkable: bool,
    /// In the mixed state: a checkbox a script made indeterminate, `aria-checked="mixed"`.
    #[serde(default)]
    pub mixed: bool,
    /// Selected (option, `aria-selected`).
    pub selected: bool,
    /// Whether it can be selected at all.
    #[serde(default)]
    pub selectable: bool,
    /// Takes typed text.
    pub editable: bool,
    /// Has keyboard focus (through every frame).
    pub focused: bool,
}

const STATE_JS: &str = r#"() {
  const el = this, tag = String(el.localName || '').toLowerCase(), type = String(el.type || '').toLowerCase();
  const box = tag === 'input' && (type === 'checkbox' || type === 'radio');
  const ariaChecked = el.getAttribute('aria-checked'), ariaPressed = el.getAttribute('aria-pressed');
  const checkable = box || ariaChecked !== null || ariaPressed !== null;
  const checked = box ? el.checked : (ariaChecked === 'true' || ariaChecked === 'mixed' || ariaPressed === 'true');
  const mixed = box ? (type === 'checkbox' && el.indeterminate) : (ariaChecked === 'mixed' || ariaPressed === 'mixed');
  const selectable = tag === 'option' || el.getAttribute('aria-selected') !== null;
  const selected = tag === 'option' ? el.selected : el.getAttribute('aria-selected') === 'true';
  const noText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'color', 'range', 'hidden'];
  const editable = el.isContentEditable || ((tag === 'textarea' || (tag === 'input' && !noText.includes(type))) && !el.disabled && !el.readOnly);
  return { visible: H.isVisible(el), enabled: H.isEnabled(el), checked, checkable, mixed, selected, selectable, editable, focused: false };
}"#;

/// Whether this element is its root's active element, and so is every shadow host and
/// same-origin `<iframe>` up: `{focused, hops, cross}` where `cross` says the walk stopped at a
/// frame whose parent cannot be read from inside (out-of-process or cross-origin), `hops` frames up.
const FOCUS_JS: &str = r#"function () {
  let n = this, hops = 0;
  if (n.isContentEditable) while (n.parentElement && n.parentElement.isContentEditable) n = n.parentElement;
  for (let i = 0; i < 256; i++) {
    const root = n.getRootNode();
    if (!root || root.activeElement !== n) return { focused: false, hops, cross: false };
    if (root.host) { n = root.host; continue; }
    const win = root.defaultView;
    let owner = null;
    try { owner = win && win.frameElement; } catch (e) { owner = null; }
    if (owner) { n = owner; hops++; continue; }
    return { focused: true, hops, cross: !!win && win !== win.top };
  }
  return { focused: false, hops, cross: false };
}"#;

#[derive(Deserialize)]
struct FocusRead {
    focused: bool,
    hops: usize,
    cross: bool,
}

/// Whether keyboard focus is on the element: in its own document, and up through every frame to
/// the top (an out-of-process parent is asked in its own process).
async fn focused(
    g: &FrameGraph,
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<bool> {
    let mut r: FocusRead = call(&node.handle, selector, FOCUS_JS, Vec::new(), deadline).await?;
    let mut frame = FrameId::from(node.frame_id.as_str());
    for _ in 0..32 {
        if !r.focused || !r.cross {
            return Ok(r.focused);
        }
        // Up to the frame the walk stopped in, then to its owner <iframe> in the parent.
        for _ in 0..r.hops {
            match g.frame(&frame).and_then(|f| f.parent_frame_id) {
                Some(p) => frame = p,
                None => return Ok(r.focused),
            }
        }
        let Some(info) = g.frame(&frame) else {
            return Ok(false);
        };
        let Some(parent) = info.parent_frame_id.clone() else {
            return Ok(r.focused);
        };
        let Some(session) = g.session_for(&parent) else {
            return Ok(false);
        };
        let owner = match info.owner_backend_node_id {
            Some(o) => o,
            None => match session
                .send_timeout(
                    &dom::GetFrameOwner {
                        frame_id: frame.clone(),
                    },
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await
            {
                Ok(o) => o.backend_node_id,
                Err(_) => return Ok(false),
            },
        };
        let Ok(resolved) = session
            .send_timeout(
                &dom::ResolveNode {
                    backend_node_id: Some(owner),
                    ..Default::default()
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await
        else {
            return Ok(false);
        };
        let Some(id) = resolved.object.object_id else {
            return Ok(false);
        };
        let handle = ObjectHandle::new(session, id);
        r = call(&handle, selector, FOCUS_JS, Vec::new(), deadline).await?;
        frame = parent;
    }
    Ok(false)
}

/// The element's state ([`State`]).
pub(crate) async fn state(
    g: &FrameGraph,
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<State> {
    let f = with_helpers(STATE_JS);
    let (s, f) = tokio::join!(
        call::<State>(&node.handle, selector, &f, Vec::new(), deadline),
        focused(g, node, selector, deadline)
    );
    let mut s = s?;
    s.focused = f?;
    // Inert content (behind a modal dialog, under [inert]) takes no input, whatever its own
    // attributes say. The DOM cannot tell modal inertness; Chromium's accessibility tree can.
    if s.enabled && inert(node, deadline).await {
        s.enabled = false;
    }
    Ok(s)
}

/// Why Chromium's accessibility tree leaves out an inert node.
const INERT_REASONS: [&str; 3] = ["activeModalDialog", "inertElement", "inertSubtree"];

/// Whether the accessibility tree says the node is inert (false when it cannot be asked).
async fn inert(node: &Located, deadline: &Deadline) -> bool {
    let asked = node
        .session()
        .send_timeout(
            &accessibility::GetPartialAxTree {
                object_id: Some(node.handle.object_id().clone()),
                fetch_relatives: Some(false),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await;
    let Ok(tree) = asked else {
        return false;
    };
    let own = |n: &&accessibility::AxNode| {
        n.backend_dom_node_id.map(|b| b.get()) == Some(node.encoded.backend_node_id)
    };
    let me = tree.nodes.iter().find(own).or(tree.nodes.first());
    me.is_some_and(|n| {
        n.ignored_reasons
            .iter()
            .flatten()
            .any(|r| INERT_REASONS.contains(&r.name.as_str()))
    })
}

/// DOM facts `describe` adds to the accessibility ones.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct DomFacts {
    /// Tag name, lower case.
    pub tag: String,
    /// Key attributes, in a fixed order.
    pub attributes: Vec<(String, String)>,
    /// Placeholder, value or text: a name when the accessible one is empty.
    pub fallback_name: String,
}

const FACTS_JS: &str = r#"() {
  const el = this, tag = String(el.localName || '').toLowerCase();
  const attributes = [];
  for (const a of ['type', 'href', 'name', 'placeholder', 'alt', 'title', 'role']) {
    const v = el.getAttribute && el.getAttribute(a);
    if (v !== null && v !== undefined && v !== '') attributes.push([a, v.length > 200 ? v.slice(0, 199) + '\u2026' : v]);
  }
  const ph = el.getAttribute && el.getAttribute('placeholder');
  const val = ('value' in el && typeof el.value === 'string' && !['checkbox', 'radio'].includes(el.type)) ? el.value : '';
  const text = H.preview(el);
  const fallback_name = ph || val || (text.length > 80 ? text.slice(0, 79) + '\u2026' : text);
  return { tag, attributes, fallback_name };
}"#;

/// The element's [`DomFacts`].
pub(crate) async fn dom_facts(
    handle: &ObjectHandle,
    selector: &str,
    deadline: &Deadline,
) -> Result<DomFacts> {
    call(
        handle,
        selector,
        &with_helpers(FACTS_JS),
        Vec::new(),
        deadline,
    )
    .await
}

/// A selector that finds exactly this element again (CSS in the main document, this crate's XPath
/// dialect inside shadow roots).
pub(crate) async fn selector_of(handle: &ObjectHandle, deadline: &Deadline) -> Result<String> {
    call(
        handle,
        "the element",
        &with_helpers("() { return H.selectorOf(this); }"),
        Vec::new(),
        deadline,
    )
    .await
}

/// One accessibility node as `describe` and `inspect-point` report it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AxFacts {
    /// The printed role (`button`, `text`, `generic` ...).
    pub role: String,
    /// Accessible name (cleaned).
    pub name: String,
    /// Ignored by the accessibility tree.
    pub ignored: bool,
    /// The DOM node behind it.
    pub backend: Option<i64>,
    /// AX ids of its children.
    pub children: Vec<String>,
    /// AX id of its parent.
    pub parent: Option<String>,
    /// Its AX id.
    pub id: String,
    /// Checked / selected / disabled, when the tree says.
    pub checked: Option<bool>,
    /// See `checked`.
    pub selected: Option<bool>,
    /// The node is a document (Chromium's `RootWebArea`, printed as `generic`), not an element.
    pub document: bool,
}

fn ax_facts(n: &accessibility::AxNode) -> AxFacts {
    let raw_role = n
        .role
        .as_ref()
        .and_then(|r| r.value.as_ref())
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let (role, kind) = a11y_snapshot::roles::map_role(&raw_role);
    let name = n
        .name
        .as_ref()
        .and_then(|v| v.value.as_ref())
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default();
    let prop = |want: &str| {
        n.properties.as_ref().and_then(|ps| {
            ps.iter()
                .find(|p| p.name == want)
                .and_then(|p| p.value.value.as_ref())
                .map(|v| *v == Value::Bool(true) || *v == "true" || *v == "mixed")
        })
    };
    AxFacts {
        role: if role.is_empty() || role == "none" {
            "generic".to_string()
        } else {
            role.to_string()
        },
        name: a11y_snapshot::roles::clean_text(name),
        // List bullets and inline text boxes repeat what their element says: as good as absent.
        ignored: n.ignored || kind == a11y_snapshot::roles::RoleKind::DropSubtree,
        backend: n.backend_dom_node_id.map(|b| b.get()),
        children: n.child_ids.clone().unwrap_or_default(),
        parent: n.parent_id.clone(),
        id: n.node_id.clone(),
        checked: prop("checked"),
        selected: prop("selected"),
        document: raw_role == "RootWebArea",
    }
}

/// The accessibility node of a DOM node and, with `relatives`, its ancestors and children.
pub(crate) async fn ax_tree(
    session: &Session,
    backend: i64,
    relatives: bool,
    deadline: &Deadline,
) -> Result<Vec<AxFacts>> {
    let r = session
        .send_timeout(
            &accessibility::GetPartialAxTree {
                backend_node_id: Some(BackendNodeId::new(backend)),
                fetch_relatives: Some(relatives),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    Ok(r.nodes.iter().map(ax_facts).collect())
}

/// The role and name of one DOM node (`generic` and empty when the tree has none).
pub(crate) async fn role_and_name(
    session: &Session,
    backend: i64,
    deadline: &Deadline,
) -> (String, String) {
    match ax_tree(session, backend, false, deadline).await {
        Ok(nodes) => nodes
            .iter()
            .find(|n| n.backend == Some(backend))
            .or(nodes.first())
            .map(|n| (n.role.clone(), n.name.clone()))
            .unwrap_or_else(|| ("generic".into(), String::new())),
        Err(_) => ("generic".into(), String::new()),
    }
}
