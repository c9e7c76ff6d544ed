//! Editing form fields: what kind of field an element is, focus, selection and the caret, setting a
//! value the way a user's input would, clearing it, committing it (`change`), choosing options of a
//! `<select>`, and checking a file input. `fill`, `type`, `focus`, `select` and `upload` are built
//! from these.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use cdp_protocol::dom;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::locate::Located;

/// What `fill` may do with an element: run on the element in its own frame. Only fields that take
/// typed text qualify; everything else is refused with what it is and what to use instead.
const FILL_KIND_JS: &str = r#"function() {
  const html = this.namespaceURI === 'http://www.w3.org/1999/xhtml';
  const tag = String(this.localName || this.nodeName || '').toLowerCase();
  const refuse = (what, hint) => ({ kind: 'refuse', what, hint });
  const usable = (what) => this.disabled ? refuse(what, 'it is disabled')
    : this.readOnly ? refuse(what, 'it is read-only') : null;
  if (html && tag === 'input') {
    const type = String(this.type || 'text').toLowerCase();
    const what = '<input type=' + type + '>';
    if (type === 'checkbox' || type === 'radio') return refuse(what, 'fill sets text; use click for checkboxes and radio buttons');
    if (['button', 'submit', 'reset', 'image'].includes(type)) return refuse(what, 'fill sets text; use click for buttons');
    if (type === 'file') return refuse(what, 'fill sets text; use upload for file inputs');
    if (type === 'hidden') return refuse(what, 'a user cannot fill a hidden input (eval can set it)');
    const bad = usable(what);
    if (bad) return bad;
    // Date and time pickers, sliders and color wells take no typed text in Chromium: their value
    // is set directly (as Playwright's fill does).
    if (['date', 'datetime-local', 'month', 'time', 'week', 'range', 'color'].includes(type)) return { kind: 'value', what };
    return { kind: 'text', what };
  }
  if (html && tag === 'textarea') return usable('<textarea>') || { kind: 'text', what: '<textarea>' };
  if (html && tag === 'select') return refuse('<select>', 'fill sets text; use select to choose an option');
  if (this.isContentEditable) return { kind: 'editable', what: '<' + tag + ' contenteditable>' };
  return refuse('<' + tag + '>', 'fill sets text in inputs, textareas and contenteditable elements only');
}"#;

/// Focuses the element and selects its content so inserted text replaces it.
const PREPARE_FILL_JS: &str = r#"function() {
  this.focus({ preventScroll: false });
  if (typeof this.select === 'function' && 'value' in this) { this.select(); return; }
  const r = this.ownerDocument.createRange(); r.selectNodeContents(this);
  const s = this.ownerDocument.defaultView.getSelection(); s.removeAllRanges(); s.addRange(r);
}"#;

/// True when this element holds keyboard focus: it is its root's active element (for text inside a
/// contenteditable, its editing host is), every shadow host up to its document is active in its own
/// root, and so is every same-origin `<iframe>` up to the top (an out-of-process parent cannot be
/// read from inside; `document.hasFocus()` is no help either, a headless page never has window
/// focus). Input.insertText types into whatever has focus, so anything else would put the text into
/// another element.
const FOCUSED_DEEP_JS: &str = r#"function() {
  let n = this;
  if (this.isContentEditable) {
    while (n.parentElement && n.parentElement.isContentEditable) n = n.parentElement;
  }
  for (let depth = 0; depth < 128; depth++) {
    const root = n.getRootNode();
    if (!root || root.activeElement !== n) return false;
    if (root.host) { n = root.host; continue; }
    let owner = null;
    try { owner = root.defaultView && root.defaultView.frameElement; } catch (e) { owner = null; }
    if (!owner) return true;
    n = owner;
  }
  return false;
}"#;

/// Sets a value through the element's native setter (so framework value trackers see a change) and
/// fires input and change; returns the value the element kept after sanitising.
const SET_VALUE_JS: &str = r#"function(v) {
  const proto = Object.getPrototypeOf(this);
  const d = Object.getOwnPropertyDescriptor(proto, 'value')
    || Object.getOwnPropertyDescriptor(this.ownerDocument.defaultView.HTMLInputElement.prototype, 'value');
  if (d && d.set) d.set.call(this, v); else this.value = v;
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return this.value;
}"#;

/// Whether an `<input>` of this element's type keeps `v` as its value: its type alone decides (the
/// value sanitization of number, date and time inputs empties what it rejects), so a detached
/// input of that type tells without touching the element, whose value a rejected fill would
/// otherwise have emptied.
const KEEPS_VALUE_JS: &str = r#"function(v) {
  const probe = this.ownerDocument.createElement('input');
  probe.type = this.type;
  probe.value = v;
  return probe.value !== '';
}"#;

/// Empties a focused, selected field the way a user's Delete would (input events included); falls
/// back to the native setter when the editing command did nothing. Fires `change` once. Answers
/// false for a field empty already: nothing done, no event (a user's Delete fires none either).
const CLEAR_JS: &str = r#"function() {
  const doc = this.ownerDocument;
  const text = () => ('value' in this && !this.isContentEditable) ? this.value : this.textContent;
  if (text() === '') return false;
  if (typeof doc.execCommand === 'function') doc.execCommand('delete', false);
  if (text() === '') { this.dispatchEvent(new Event('change', { bubbles: true })); return true; }
  if ('value' in this && !this.isContentEditable) {
    const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(this), 'value');
    if (d && d.set) d.set.call(this, ''); else this.value = '';
  } else {
    this.textContent = '';
  }
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
}"#;

/// Runs a function on the node and decodes its by-value result; a gone node is STALE_ELEMENT, a
/// throw is an internal error naming the selector.
async fn call_on<T: DeserializeOwned>(
    node: &Located,
    selector: &str,
    function: &str,
    args: Vec<Value>,
    deadline: &Deadline,
) -> Result<T> {
    let r = node
        .handle
        .call(function, args, deadline.capped(deadline::QUICK_CALL))
        .await
        .map_err(|e| CliError::on_node(e, selector))?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "editing {selector} failed in the page: {}",
            ex.message().lines().next().unwrap_or_default()
        )));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for {selector}: {e}")))
}

/// What an element is as a text field ([`FILL_KIND_JS`]).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FieldKind {
    /// `text`, `editable`, `value` (set directly: date and time pickers, ranges, colors) or
    /// `refuse`.
    pub kind: String,
    /// What it is, for messages (`<input type=checkbox>`).
    #[serde(default)]
    pub what: String,
    /// Why it is refused and what to use instead.
    #[serde(default)]
    pub hint: Option<String>,
}

/// What kind of text field the node is.
pub(crate) async fn field_kind(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<FieldKind> {
    call_on(node, selector, FILL_KIND_JS, Vec::new(), deadline).await
}

/// Sets the value through the element's native setter and fires input and change; returns the
/// value the element kept after sanitising.
pub(crate) async fn set_value(
    node: &Located,
    selector: &str,
    text: &str,
    deadline: &Deadline,
) -> Result<Option<String>> {
    call_on(
        node,
        selector,
        SET_VALUE_JS,
        vec![Value::String(text.to_string())],
        deadline,
    )
    .await
}

/// Whether the `<input>` would keep `text` as its value ([`KEEPS_VALUE_JS`]), asked before it is
/// changed.
pub(crate) async fn keeps_value(
    node: &Located,
    selector: &str,
    text: &str,
    deadline: &Deadline,
) -> Result<bool> {
    call_on(
        node,
        selector,
        KEEPS_VALUE_JS,
        vec![Value::String(text.to_string())],
        deadline,
    )
    .await
}

/// A text field's value as typing meets it: its length in characters and in UTF-16 units (which
/// `maxlength` counts), the selection typed text replaces, its `maxlength`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Room {
    /// The value's length in characters (code points).
    pub points: usize,
    /// The value's length in UTF-16 units.
    pub units: usize,
    /// The selected part's length in characters.
    #[serde(default)]
    pub sel_points: usize,
    /// The selected part's length in UTF-16 units.
    #[serde(default)]
    pub sel_units: usize,
    /// Its `maxlength`.
    pub max: Option<usize>,
    /// A `<textarea>` (a newline typed is text; in an `<input>` it is a key that types nothing).
    #[serde(default)]
    pub multiline: bool,
    /// A checksum of the value (none past 64K UTF-16 units): a value of the same length may
    /// still have changed (an input mask fills its placeholders).
    #[serde(default)]
    pub sum: Option<u32>,
}

impl Room {
    /// The field as a fill meets it: its whole value selected and replaced, as an empty one.
    pub fn emptied(self) -> Room {
        Room {
            points: 0,
            units: 0,
            sel_points: 0,
            sel_units: 0,
            ..self
        }
    }
}

/// Typed text a field's `maxlength` cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    /// The field's `maxlength`.
    pub max: usize,
    /// How many of the characters typed it kept.
    pub kept: usize,
    /// How many were typed into it.
    pub given: usize,
}

impl Cut {
    /// The warning an answer carries (ok: a browser cuts typed text at `maxlength` too).
    pub fn warning(&self, selector: &str) -> String {
        let s = if self.given == 1 { "" } else { "s" };
        format!(
            "{selector} has maxlength {}: of the {} character{s} typed into it, it kept {} (a \
             browser cuts typed text at maxlength)",
            self.max, self.given, self.kept
        )
    }
}

/// Whether the field's `maxlength` cut `typed` (the text that reached it, typed at the selection
/// of `before`), from the field's [`Room`] before and after; `None` when all of it is there (or
/// the field is not a text value).
pub(crate) fn cut_at_maxlength(
    before: Option<Room>,
    after: Option<Room>,
    typed: &str,
) -> Option<Cut> {
    let (before, after) = (before?, after?);
    let max = after.max?;
    // In an <input>, a newline is the Enter key: it types nothing.
    let text = typed
        .chars()
        .filter(|c| before.multiline || !matches!(c, '\n' | '\r'));
    let (given, given_units) = text.fold((0, 0), |(n, u), c| (n + 1, u + c.len_utf16()));
    let kept_units = before.units.saturating_sub(before.sel_units);
    let expected = kept_units + given_units;
    if expected <= max || after.units >= expected {
        return None;
    }
    let kept = after
        .points
        .saturating_sub(before.points.saturating_sub(before.sel_points));
    Some(Cut {
        max,
        kept: kept.min(given),
        given,
    })
}

/// Whether a field took none of `typed` (typed at the caret of `before`, nothing selected): its
/// value is what it was (same length and checksum). An `<input type=number>` given letters, or a
/// page that stops the keys, leaves it so. Not asked when a newline was typed (Enter may submit
/// and empty the field), nor of a value too long to checksum.
pub(crate) fn took_nothing(before: Option<Room>, after: Option<Room>, typed: &str) -> bool {
    let (Some(before), Some(after)) = (before, after) else {
        return false;
    };
    !typed.is_empty()
        && !typed.contains(['\n', '\r'])
        && before.sel_units == 0
        && after.units == before.units
        && after.points == before.points
        && before.sum.is_some()
        && after.sum == before.sum
}

/// Focuses the element (its frame and OOPIF too) and selects its content, so inserted text
/// replaces it; then checks keyboard focus really is on it ([`FOCUSED_DEEP_JS`]).
pub(crate) async fn focus_and_select(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<bool> {
    if let Err(e) = node
        .session()
        .send_timeout(
            &dom::Focus {
                object_id: Some(node.handle.object_id().clone()),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await
        && e.is_gone()
    {
        return Err(CliError::on_node(e, selector));
    }
    call_on::<Value>(node, selector, PREPARE_FILL_JS, Vec::new(), deadline).await?;
    let focused: Option<bool> =
        call_on(node, selector, FOCUSED_DEEP_JS, Vec::new(), deadline).await?;
    Ok(focused == Some(true))
}

/// Empties a focused, selected field as a user's Delete would (see [`CLEAR_JS`]); false when it
/// was empty already.
pub(crate) async fn clear(node: &Located, selector: &str, deadline: &Deadline) -> Result<bool> {
    call_on::<bool>(node, selector, CLEAR_JS, Vec::new(), deadline).await
}

/// Page code: `room(el)`, what a field's value is as typing meets it ([`Room`]); `null` for an
/// element without a text value (contenteditable).
macro_rules! room_js {
    () => {
        r#"const room = (el) => {
  if (el.isContentEditable || !('value' in el) || typeof el.value !== 'string') return null;
  const v = el.value;
  let a = 0, b = 0;
  try { a = el.selectionStart || 0; b = el.selectionEnd || 0; } catch (e) { /* type=email, number */ }
  const sel = v.slice(Math.min(a, b), Math.max(a, b));
  const max = typeof el.maxLength === 'number' && el.maxLength >= 0 ? el.maxLength : null;
  // A checksum of the value (FNV-1a; fields up to 64K units): whether it changed at all.
  let sum = null;
  if (v.length <= 65536) { sum = 0x811c9dc5; for (let i = 0; i < v.length; i++) { sum ^= v.charCodeAt(i); sum = Math.imul(sum, 0x01000193) >>> 0; } }
  return { points: [...v].length, units: v.length, sel_points: [...sel].length, sel_units: sel.length,
    max, multiline: String(el.localName).toLowerCase() === 'textarea', sum };
};
"#
    };
}

/// Focuses the element unless it already has focus; when it did not, puts the caret at the end of
/// its text (so typing appends). Answers whether it had focus already, and its [`Room`] then.
const PREPARE_TYPING_JS: &str = concat!(
    "function() {\n",
    room_js!(),
    r#"  const root = this.getRootNode();
  if (root && root.activeElement === this) return { had: true, room: room(this) };
  this.focus({ preventScroll: false });
  if (typeof this.setSelectionRange === 'function' && typeof this.value === 'string') {
    try { const n = this.value.length; this.setSelectionRange(n, n); } catch (e) {
      // type=email, number have no selection API: their text selected, then the document's
      // selection collapsed to its end puts the caret there (focus alone leaves it first).
      try { this.select(); const s = this.ownerDocument.getSelection(); if (s) s.collapseToEnd(); } catch (e2) { /* stays */ }
    }
  } else if (this.isContentEditable) {
    const r = this.ownerDocument.createRange(); r.selectNodeContents(this); r.collapse(false);
    const s = this.ownerDocument.defaultView.getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  return { had: false, room: room(this) };
}"#
);

/// The field's [`Room`] now.
const ROOM_JS: &str = concat!("function() {\n", room_js!(), "  return room(this);\n}");

/// Fires `change` as a user leaving the field would (after text was inserted), and answers what
/// the field holds then ([`Committed`]).
const COMMIT_JS: &str = concat!(
    "function() {\n",
    room_js!(),
    r#"  this.dispatchEvent(new Event('change', { bubbles: true }));
  const r = room(this);
  return { room: r, value: r && this.value.length <= 4096 ? this.value : null };
}"#
);

/// What a text field holds once a fill committed its text.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Committed {
    /// Its [`Room`] (`None` for an element without a text value).
    #[serde(default)]
    pub room: Option<Room>,
    /// Its value, when it has one of at most 4096 UTF-16 units.
    #[serde(default)]
    pub value: Option<String>,
}

/// Chooses the options of a `<select>` whose value (or trimmed display text) is one of the given:
/// every one must match (else nothing changes and the options are listed); a single `<select>`
/// takes one. Fires `input` and `change` once when the selection changed. With `clicked`, `this`
/// is an `<option>` (a click on it): that option of its `<select>` is chosen, the values unused.
const SELECT_JS: &str = r#"function(values, byText, clicked) {
  const tag = (e) => String(e.localName).toLowerCase();
  const option = clicked && tag(this) === 'option' ? this : null;
  const sel = option ? option.closest('select') : this;
  if (!sel || tag(sel) !== 'select' || (option && !Array.from(sel.options).includes(option))) {
    return { error: 'notselect', what: option ? '<option> outside a <select>' : '<' + tag(this) + '>' };
  }
  if (sel.disabled) return { error: 'disabled' };
  // No user can reach an inert element (under [inert], or outside an open modal dialog).
  let modal = null;
  try { modal = sel.ownerDocument.querySelector('dialog:modal'); } catch (e) { modal = null; }
  if (sel.closest('[inert]') || (modal && !modal.contains(sel))) return { error: 'inert' };
  const opts = Array.from(sel.options);
  const label = (o) => String(o.label || o.text || '').replace(/\s+/g, ' ').trim();
  // Disabled itself or by its <optgroup>: no user can choose it.
  const off = (o) => o.disabled || o.matches(':disabled');
  const list = opts.map((o) => ({ value: o.value, text: label(o), disabled: off(o) }));
  if (option && off(option)) return { error: 'optiondisabled', missing: option.value, options: list };
  if (values.length > 1 && !sel.multiple) return { error: 'single', options: list };
  const picked = option ? [option] : [];
  for (const v of option ? [] : values) {
    const want = byText ? String(v).replace(/\s+/g, ' ').trim() : String(v);
    const o = opts.find((o) => (byText ? label(o) === want : o.value === want) && !picked.includes(o));
    if (!o) return { error: 'nomatch', missing: v, options: list };
    if (off(o)) return { error: 'optiondisabled', missing: v, options: list };
    picked.push(o);
  }
  const before = opts.map((o) => o.selected).join();
  if (sel.multiple) { for (const o of opts) o.selected = picked.includes(o); }
  else { picked[0].selected = true; }
  if (opts.map((o) => o.selected).join() !== before) {
    sel.dispatchEvent(new Event('input', { bubbles: true }));
    sel.dispatchEvent(new Event('change', { bubbles: true }));
  }
  // A clicked option may be unselected again by the page's own handlers: said, not hidden.
  return { selected: opts.filter((o) => o.selected).map((o) => o.value), held: option ? option.selected : undefined };
}"#;

/// What an element is as a file input: `{ok, multiple}` or why not.
const FILE_INPUT_JS: &str = r#"function() {
  const tag = String(this.localName || '').toLowerCase();
  if (tag !== 'input' || String(this.type).toLowerCase() !== 'file') {
    return { error: 'notfile', what: tag === 'input' ? '<input type=' + String(this.type).toLowerCase() + '>' : '<' + tag + '>' };
  }
  if (this.disabled) return { error: 'disabled' };
  return { ok: true, multiple: !!this.multiple };
}"#;

/// The names of the files a file input holds.
const FILE_NAMES_JS: &str =
    "function() { return Array.from(this.files || []).map((f) => f.name); }";

/// Gives a file input files made in the page from their bytes (a browser on another machine
/// cannot open our paths): each a `File` with its name and type, set through a `DataTransfer`,
/// then `input` and `change` as a user's choice fires them. Answers the names it holds.
const FILES_FROM_BYTES_JS: &str = r#"function(files) {
  const dt = new DataTransfer();
  for (const f of files) {
    const bin = atob(f.b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type, lastModified: f.mtime }));
  }
  this.files = dt.files;
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return Array.from(this.files || []).map((f) => f.name);
}"#;

/// One file sent to the page by its bytes ([`set_files_from_bytes`]).
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct FileBytes {
    /// Its name (no directory).
    pub name: String,
    /// Its MIME type (by extension; `application/octet-stream` when unknown).
    pub r#type: String,
    /// Modification time, ms since the epoch.
    pub mtime: f64,
    /// Its bytes, base64.
    pub b64: String,
}

/// Sets the files of a file input from their bytes ([`FILES_FROM_BYTES_JS`]); for a browser
/// that cannot read our files. Answers the file names it holds afterwards.
pub(crate) async fn set_files_from_bytes(
    node: &Located,
    selector: &str,
    files: &[FileBytes],
    deadline: &Deadline,
) -> Result<Vec<String>> {
    let arg = serde_json::to_value(files)
        .map_err(|e| CliError::internal(format!("encoding the files: {e}")))?;
    let r = node
        .handle
        .call(
            FILES_FROM_BYTES_JS,
            vec![arg],
            deadline.capped(deadline::SLOW_CALL),
        )
        .await
        .map_err(|e| CliError::on_node(e, selector))?;
    if let Some(ex) = &r.exception_details {
        return Err(CliError::Internal(format!(
            "giving {selector} its files failed in the page: {}",
            ex.message().lines().next().unwrap_or_default()
        )));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::Internal(format!("the page answered {value} for {selector}: {e}")))
}

/// Focuses the element (its frame and OOPIF too) and checks keyboard focus really is on it.
pub(crate) async fn focus(node: &Located, selector: &str, deadline: &Deadline) -> Result<bool> {
    dom_focus(node, selector, deadline).await?;
    let focused: Option<bool> =
        call_on(node, selector, FOCUSED_DEEP_JS, Vec::new(), deadline).await?;
    Ok(focused == Some(true))
}

async fn dom_focus(node: &Located, selector: &str, deadline: &Deadline) -> Result<()> {
    if let Err(e) = node
        .session()
        .send_timeout(
            &dom::Focus {
                object_id: Some(node.handle.object_id().clone()),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await
        && e.is_gone()
    {
        return Err(CliError::on_node(e, selector));
    }
    Ok(())
}

/// What [`PREPARE_TYPING_JS`] answers.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
struct Prepared {
    had: bool,
    room: Option<Room>,
}

/// Gets the element ready for typing: focused (the caret at the end of its text when it did not
/// have focus; kept where it is when it did), then checks keyboard focus really is on it.
/// `Ok(None)` when focus is not on it; else its [`Room`] before typing (`None` without a text
/// value).
pub(crate) async fn prepare_typing(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Option<Option<Room>>> {
    let prepared: Option<Prepared> =
        call_on(node, selector, PREPARE_TYPING_JS, Vec::new(), deadline).await?;
    let prepared = prepared.unwrap_or_default();
    if !prepared.had {
        dom_focus(node, selector, deadline).await?;
    }
    let focused: Option<bool> =
        call_on(node, selector, FOCUSED_DEEP_JS, Vec::new(), deadline).await?;
    Ok((focused == Some(true)).then_some(prepared.room))
}

/// The field's [`Room`] now (`None` for an element without a text value).
pub(crate) async fn room(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Option<Room>> {
    call_on(node, selector, ROOM_JS, Vec::new(), deadline).await
}

/// Fires `change` on the element (the text a fill inserted is committed); what it holds then.
pub(crate) async fn commit(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Committed> {
    let committed: Option<Committed> =
        call_on(node, selector, COMMIT_JS, Vec::new(), deadline).await?;
    Ok(committed.unwrap_or_default())
}

/// One option of a `<select>`.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub(crate) struct SelectOption {
    /// Its value.
    pub value: String,
    /// Its display text.
    pub text: String,
    /// Whether it is disabled.
    #[serde(default)]
    pub disabled: bool,
}

/// What [`select_options`] did.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct SelectOutcome {
    /// Why nothing was selected: `notselect`, `disabled`, `inert`, `single`, `nomatch`,
    /// `optiondisabled`.
    #[serde(default)]
    pub error: Option<String>,
    /// What the element is (for `notselect`).
    #[serde(default)]
    pub what: Option<String>,
    /// The value that matched no option.
    #[serde(default)]
    pub missing: Option<String>,
    /// The element's options (for the errors).
    #[serde(default)]
    pub options: Vec<SelectOption>,
    /// The values selected afterwards.
    #[serde(default)]
    pub selected: Vec<String>,
    /// An option chosen by [`choose_option`] is selected afterwards (the page's handlers may
    /// have undone it).
    #[serde(default)]
    pub held: Option<bool>,
}

/// Chooses the options matching `values` (by value, or by display text) of a `<select>`.
pub(crate) async fn select_options(
    node: &Located,
    selector: &str,
    values: &[String],
    by_text: bool,
    deadline: &Deadline,
) -> Result<SelectOutcome> {
    call_on(
        node,
        selector,
        SELECT_JS,
        vec![
            Value::Array(values.iter().cloned().map(Value::String).collect()),
            Value::Bool(by_text),
            Value::Bool(false),
        ],
        deadline,
    )
    .await
}

/// Chooses the `<option>` `node` in its `<select>` (a click on an option of a closed drop-down),
/// as [`select_options`] chooses one by value.
pub(crate) async fn choose_option(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<SelectOutcome> {
    let no_values = Value::Array(Vec::new());
    let args = vec![no_values, Value::Bool(false), Value::Bool(true)];
    call_on(node, selector, SELECT_JS, args, deadline).await
}

/// What [`file_input`] found.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FileInput {
    /// Why it takes no files: `notfile`, `disabled`.
    #[serde(default)]
    pub error: Option<String>,
    /// What it is (for `notfile`).
    #[serde(default)]
    pub what: Option<String>,
    /// It takes several files.
    #[serde(default)]
    pub multiple: bool,
}

/// Whether the element is a file input, and whether it takes several files.
pub(crate) async fn file_input(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<FileInput> {
    call_on(node, selector, FILE_INPUT_JS, Vec::new(), deadline).await
}

/// Sets the files of a file input (`DOM.setFileInputFiles`, in the session of its frame: an
/// out-of-process iframe's too); the page sees `input` and `change`. Answers the file names it
/// holds afterwards.
pub(crate) async fn set_files(
    node: &Located,
    selector: &str,
    files: &[String],
    deadline: &Deadline,
) -> Result<Vec<String>> {
    node.session()
        .send_timeout(
            &dom::SetFileInputFiles {
                files: files.to_vec(),
                object_id: Some(node.handle.object_id().clone()),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await
        .map_err(|e| CliError::on_node(e, selector))?;
    call_on(node, selector, FILE_NAMES_JS, Vec::new(), deadline).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(points: usize, units: usize, max: Option<usize>) -> Room {
        Room {
            points,
            units,
            max,
            ..Room::default()
        }
    }

    #[test]
    fn a_cut_is_what_maxlength_kept_of_the_text_typed() {
        // Empty field, maxlength 5, ten typed: five kept.
        let cut = cut_at_maxlength(
            Some(room(0, 0, Some(5))),
            Some(room(5, 5, Some(5))),
            "abcdefghij",
        );
        assert_eq!(
            cut,
            Some(Cut {
                max: 5,
                kept: 5,
                given: 10
            })
        );
        // Appended to "ab": three of ten kept.
        let cut = cut_at_maxlength(
            Some(room(2, 2, Some(5))),
            Some(room(5, 5, Some(5))),
            "cdefghijkl",
        );
        assert_eq!(cut.map(|c| (c.kept, c.given)), Some((3, 10)));
        // A fill replaces the whole value.
        let cut = cut_at_maxlength(
            Some(room(4, 4, Some(5)).emptied()),
            Some(room(5, 5, Some(5))),
            "abcdefg",
        );
        assert_eq!(cut.map(|c| (c.kept, c.given)), Some((5, 7)));
        // Everything fits, or no maxlength, or no text value: no cut.
        assert_eq!(
            cut_at_maxlength(
                Some(room(0, 0, Some(5))),
                Some(room(5, 5, Some(5))),
                "abcde"
            ),
            None
        );
        assert_eq!(
            cut_at_maxlength(Some(room(0, 0, None)), Some(room(3, 3, None)), "abcdefg"),
            None
        );
        assert_eq!(cut_at_maxlength(None, None, "abcdefg"), None);
        // maxlength counts UTF-16 units: two emoji are four units.
        let cut = cut_at_maxlength(Some(room(0, 0, Some(3))), Some(room(1, 2, Some(3))), "😀😀");
        assert_eq!(cut.map(|c| (c.kept, c.given)), Some((1, 2)));
        // A newline in an <input> types nothing; in a <textarea> it is text.
        assert_eq!(
            cut_at_maxlength(
                Some(room(0, 0, Some(3))),
                Some(room(3, 3, Some(3))),
                "abc\n"
            ),
            None
        );
        let area = Room {
            multiline: true,
            ..room(0, 0, Some(3))
        };
        let cut = cut_at_maxlength(Some(area), Some(room(3, 3, Some(3))), "abc\n");
        assert_eq!(cut.map(|c| (c.kept, c.given)), Some((3, 4)));
    }

    #[test]
    fn a_field_took_nothing_only_when_its_value_is_what_it_was() {
        let summed = |points, sum| Room {
            sum: Some(sum),
            ..room(points, points, None)
        };
        // Letters into a number input: the same value.
        assert!(took_nothing(Some(summed(1, 7)), Some(summed(1, 7)), "abc"));
        // An input mask fills its placeholders: the same length, another value.
        assert!(!took_nothing(
            Some(summed(14, 7)),
            Some(summed(14, 9)),
            "555"
        ));
        // Typed in: longer.
        assert!(!took_nothing(Some(summed(1, 7)), Some(summed(2, 8)), "1"));
        // Enter may submit and empty the field; nothing typed; no checksum (a huge value).
        assert!(!took_nothing(
            Some(summed(0, 1)),
            Some(summed(0, 1)),
            "hi\n"
        ));
        assert!(!took_nothing(Some(summed(1, 7)), Some(summed(1, 7)), ""));
        assert!(!took_nothing(
            Some(room(1, 1, None)),
            Some(room(1, 1, None)),
            "a"
        ));
        // Typed over a selection of the same length.
        let selected = Room {
            sel_points: 1,
            sel_units: 1,
            ..summed(1, 7)
        };
        assert!(!took_nothing(Some(selected), Some(summed(1, 7)), "x"));
    }
}
