//! `browser query`'s matching: CSS with jQuery-style extensions (`:visible`, `:hidden`,
//! `:contains(text)`, Playwright's `:has-text(text)`, `:has(...)` and `:not(...)` around them) and XPath, in the main frame's document and its open
//! shadow roots, in document order; each match described with a selector that finds exactly it
//! again (a CSS path checked for uniqueness, or this crate's XPath dialect inside shadow roots).
//!
//! The query string is parsed here ([`parse`]): plain CSS goes to the browser untouched (its own
//! parser judges it); a selector with extensions becomes a plan of native compounds and filters that
//! the in-page engine ([`QUERY_JS`]) runs. The in-page helpers ([`HELPERS_JS`]) are shared with the
//! read commands (visibility, enabled, unique selectors).

use cdp_protocol::{Session, runtime};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// A parsed query string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Query {
    /// Plain CSS: the browser's `querySelectorAll`.
    Native(String),
    /// CSS with extensions: a list of complex selectors.
    Extended(Vec<Complex>),
    /// An XPath (as [`a11y_snapshot::is_xpath`] tells).
    XPath(String),
}

/// How a compound relates to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Combinator {
    /// ` ` (descendant).
    #[serde(rename = " ")]
    Descendant,
    /// `>`.
    #[serde(rename = ">")]
    Child,
    /// `+`.
    #[serde(rename = "+")]
    Adjacent,
    /// `~`.
    #[serde(rename = "~")]
    Sibling,
}

/// A filter the browser's CSS does not have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Filter {
    /// Rendered with a size and not `visibility: hidden`.
    Visible,
    /// Not [`Filter::Visible`].
    Hidden,
    /// `textContent` contains this text (case-sensitive, as jQuery).
    Contains(String),
    /// `textContent` contains this text, case and runs of whitespace aside (Playwright's
    /// `:has-text()`, which agents write from habit).
    #[serde(rename = "has_text")]
    HasText(String),
    /// Has a match of these relative selectors (used when they hold extensions themselves).
    Has(Vec<Complex>),
    /// Matches none of these selectors (used when they hold extensions themselves).
    Not(Vec<Complex>),
}

/// One compound selector: its native part (`*` when empty) and its extension filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Compound {
    /// The combinator before it (the first compound's is the descendant one, or the relative
    /// combinator inside `:has`).
    pub comb: Combinator,
    /// The native CSS of the compound.
    pub sel: String,
    /// Extension filters.
    pub filters: Vec<Filter>,
}

/// A complex selector: compounds joined by combinators.
pub(crate) type Complex = Vec<Compound>;

const EXTENSIONS: &[&str] = &["visible", "hidden", "contains", "has-text", "has"];

/// Parses a query string. XPath when [`a11y_snapshot::is_xpath`] says so; else CSS, whose extensions are taken out
/// into filters (an extension inside a pseudo-class's argument other than `:has` and `:not`, like
/// `:is(:visible)`, is refused). The native parts are not validated here: the browser's parser does that.
pub(crate) fn parse(query: &str) -> Result<Query> {
    let q = query.trim();
    if q.is_empty() {
        return Err(CliError::InvalidArgument("the query is empty".into()));
    }
    if a11y_snapshot::is_xpath(q) {
        return Ok(Query::XPath(q.to_string()));
    }
    if a11y_snapshot::role_selector::RoleSelector::parse(q).is_some() {
        return Err(CliError::InvalidArgument(format!(
            "{q:?}: `query` takes CSS or an XPath; role=... selectors work in the commands that act \
             on one element (click, fill, wait element, ...), and `snapshot` lists roles and names"
        )));
    }
    if !mentions_extension(q) {
        return Ok(Query::Native(q.to_string()));
    }
    let list = parse_list(q, false)?;
    if list.iter().flatten().all(|c| c.filters.is_empty()) {
        return Ok(Query::Native(q.to_string()));
    }
    Ok(Query::Extended(list))
}

/// Whether the text may use an extension (a cheap pre-check; the parser decides).
fn mentions_extension(q: &str) -> bool {
    EXTENSIONS.iter().any(|e| q.contains(&format!(":{e}")))
}

fn bad(query: &str, why: impl std::fmt::Display) -> CliError {
    CliError::InvalidArgument(format!("invalid query {query:?}: {why}"))
}

/// Splits `s` at top-level commas (outside brackets, parentheses, quotes and escapes).
fn split_top(s: &str, sep: char) -> Result<Vec<&str>> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match (quote, c) {
            (_, '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => {
                depth -= 1;
                if depth < 0 {
                    return Err(bad(s, format!("unbalanced {c:?}")));
                }
            }
            (None, c) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if quote.is_some() {
        return Err(bad(s, "unterminated string"));
    }
    if depth != 0 {
        return Err(bad(s, "unbalanced brackets"));
    }
    out.push(&s[start..]);
    Ok(out)
}

/// Parses a selector list; `relative`: each may start with a combinator (inside `:has`).
fn parse_list(s: &str, relative: bool) -> Result<Vec<Complex>> {
    split_top(s, ',')?
        .into_iter()
        .map(|part| {
            let part = part.trim();
            if part.is_empty() {
                return Err(bad(s, "empty selector in the list"));
            }
            parse_complex(part, relative)
        })
        .collect()
}

/// The index just past the `(...)` starting at `open` (which holds `(`), honouring quotes,
/// nesting and escapes.
fn close_paren(s: &str, open: usize) -> Result<usize> {
    let bytes = s.as_bytes();
    let (mut depth, mut quote, mut i) = (0i32, None::<u8>, open);
    while i < bytes.len() {
        let b = bytes[i];
        match (quote, b) {
            (_, b'\\') => i += 1,
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'(') => depth += 1,
            (None, b')') => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(bad(s, "unbalanced parentheses"))
}

/// The text of a `:contains(...)` argument: unquoted, or a quoted string with escapes.
fn contains_text(arg: &str) -> String {
    let a = arg.trim();
    let quoted = a.len() >= 2
        && ((a.starts_with('"') && a.ends_with('"')) || (a.starts_with('\'') && a.ends_with('\'')));
    if !quoted {
        return a.to_string();
    }
    let inner = &a[1..a.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii()
}

fn parse_complex(s: &str, relative: bool) -> Result<Complex> {
    let mut out: Complex = Vec::new();
    let mut comb = Combinator::Descendant;
    let mut native = String::new();
    let mut filters = Vec::new();
    let mut pending_comb = false;
    let bytes = s.as_bytes();
    let mut i = 0;
    let flush = |out: &mut Complex,
                 native: &mut String,
                 filters: &mut Vec<Filter>,
                 comb: Combinator|
     -> bool {
        if native.is_empty() && filters.is_empty() {
            return false;
        }
        let sel = if native.is_empty() {
            "*".to_string()
        } else {
            std::mem::take(native)
        };
        out.push(Compound {
            comb,
            sel,
            filters: std::mem::take(filters),
        });
        true
    };
    while i < bytes.len() {
        let c = s[i..].chars().next().unwrap_or(' ');
        match c {
            '\\' => {
                let len = s[i + 1..].chars().next().map_or(0, char::len_utf8);
                native.push_str(&s[i..i + 1 + len]);
                i += 1 + len;
            }
            '"' | '\'' | '[' => {
                // Attribute selectors and strings are native text, copied whole.
                let end = if c == '[' {
                    let mut j = i;
                    let mut quote = None;
                    loop {
                        j += 1;
                        match (quote, bytes.get(j).copied()) {
                            (_, None) => return Err(bad(s, "unterminated [")),
                            (_, Some(b'\\')) => j += 1,
                            (Some(q), Some(b)) if b == q => quote = None,
                            (Some(_), _) => {}
                            (None, Some(b @ (b'"' | b'\''))) => quote = Some(b),
                            (None, Some(b']')) => break j + 1,
                            _ => {}
                        }
                    }
                } else {
                    let mut j = i + 1;
                    loop {
                        match bytes.get(j).copied() {
                            None => return Err(bad(s, "unterminated string")),
                            Some(b'\\') => j += 2,
                            Some(b) if b == c as u8 => break j + 1,
                            _ => j += 1,
                        }
                    }
                };
                native.push_str(&s[i..end.min(s.len())]);
                i = end;
            }
            ' ' | '\t' | '\n' | '\r' | '\x0c' | '>' | '+' | '~' => {
                // A combinator (whitespace around an explicit one is part of it).
                let mut j = i;
                let mut explicit = None;
                while let Some(ch) = s[j..].chars().next() {
                    match ch {
                        ' ' | '\t' | '\n' | '\r' | '\x0c' => j += 1,
                        '>' | '+' | '~' if explicit.is_none() => {
                            explicit = Some(ch);
                            j += 1;
                        }
                        _ => break,
                    }
                }
                let this = match explicit {
                    Some('>') => Combinator::Child,
                    Some('+') => Combinator::Adjacent,
                    Some('~') => Combinator::Sibling,
                    _ => Combinator::Descendant,
                };
                let had = flush(&mut out, &mut native, &mut filters, comb);
                if !had {
                    if !out.is_empty() || pending_comb {
                        return Err(bad(s, "two combinators in a row"));
                    }
                    if explicit.is_some() {
                        if !relative {
                            return Err(bad(s, "a selector cannot start with a combinator"));
                        }
                        pending_comb = true;
                        comb = this;
                    }
                } else {
                    comb = this;
                }
                if j >= s.len() && explicit.is_some() {
                    return Err(bad(s, "a selector cannot end with a combinator"));
                }
                i = j;
            }
            ':' => {
                if s[i..].starts_with("::") {
                    native.push_str("::");
                    i += 2;
                    continue;
                }
                let name_end = s[i + 1..]
                    .char_indices()
                    .find(|(_, ch)| !is_ident_char(*ch))
                    .map_or(s.len(), |(k, _)| i + 1 + k);
                let name = s[i + 1..name_end].to_ascii_lowercase();
                let has_args = s[name_end..].starts_with('(');
                let end = if has_args {
                    close_paren(s, name_end)?
                } else {
                    name_end
                };
                let arg = if has_args {
                    &s[name_end + 1..end - 1]
                } else {
                    ""
                };
                match (name.as_str(), has_args) {
                    ("visible", false) => filters.push(Filter::Visible),
                    ("hidden", false) => filters.push(Filter::Hidden),
                    ("contains", true) => filters.push(Filter::Contains(contains_text(arg))),
                    ("has-text", true) => filters.push(Filter::HasText(contains_text(arg))),
                    ("has", true) if mentions_extension(arg) => {
                        filters.push(Filter::Has(parse_list(arg, true)?));
                    }
                    ("not", true) if mentions_extension(arg) => {
                        filters.push(Filter::Not(parse_list(arg, false)?));
                    }
                    ("visible" | "hidden", true) | ("contains" | "has-text", false) => {
                        return Err(bad(
                            s,
                            format!(
                                ":{name} takes {}",
                                if name != "visible" && name != "hidden" {
                                    "a text in parentheses"
                                } else {
                                    "no argument"
                                }
                            ),
                        ));
                    }
                    _ => {
                        if has_args && mentions_extension(arg) {
                            return Err(bad(
                                s,
                                format!(
                                    ":visible, :hidden, :contains and :has-text are supported inside :has(...) and :not(...) only, not :{name}(...)"
                                ),
                            ));
                        }
                        native.push_str(&s[i..end]);
                    }
                }
                i = end;
            }
            _ => {
                native.push(c);
                i += c.len_utf8();
            }
        }
    }
    if !flush(&mut out, &mut native, &mut filters, comb) {
        return Err(bad(s, "a selector cannot end with a combinator"));
    }
    Ok(out)
}

/// In-page helpers as an expression that evaluates to an object: `isVisible(el)`,
/// `isEnabled(el)`, `fold(text)` (case and runs of whitespace aside), `preview(el)` (its text, whitespace collapsed, at most 300 characters) and
/// `selectorOf(el)` (a selector that matches exactly `el` in the main document, or an XPath of
/// this crate's dialect for an element inside shadow roots).
pub(crate) const HELPERS_JS: &str = r#"(() => {
  const isVisible = (el) => {
    if (!el || !el.isConnected) return false;
    // Content Chromium skips (a closed <details>, content-visibility: hidden, canvas fallback)
    // can still be given a box by a forced layout: it is not shown all the same.
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.visibility !== 'collapse';
  };
  const isEnabled = (el) => {
    try { if (el.matches(':disabled')) return false; } catch (e) {}
    return el.getAttribute('aria-disabled') !== 'true';
  };
  // Text as Playwright's text matching compares it: case and runs of whitespace aside.
  const fold = (t) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  const preview = (el) => {
    const t = (typeof el.innerText === 'string' ? el.innerText : el.textContent) || '';
    const c = t.replace(/\s+/g, ' ').trim();
    return c.length > 300 ? c.slice(0, 299) + '\u2026' : c;
  };
  const HTML = 'http://www.w3.org/1999/xhtml';
  const xpathOf = (el) => {
    const steps = [];
    let n = el;
    while (n && n.nodeType === 1) {
      const html = n.namespaceURI === HTML;
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) {
        if (html ? (s.namespaceURI === HTML && s.localName === n.localName) : (s.namespaceURI !== HTML && s.nodeName === n.nodeName)) i++;
      }
      steps.unshift(html ? n.localName + '[' + i + ']' : "*[name()='" + n.nodeName + "'][" + i + ']');
      const p = n.parentNode;
      if (p && p.nodeType === 11 && p.host) { steps.unshift('#shadow-root'); n = p.host; }
      else n = p;
    }
    return '/' + steps.join('/');
  };
  const only = (sel, el) => {
    try { const m = document.querySelectorAll(sel); return m.length === 1 && m[0] === el; }
    catch (e) { return false; }
  };
  const ident = (s) => /^-?[_a-zA-Z][-_a-zA-Z0-9]*$/.test(s);
  const stepOf = (el) => {
    let step = CSS.escape(el.localName);
    const cls = [...el.classList].find(ident);
    if (cls) step += '.' + CSS.escape(cls);
    const p = el.parentElement;
    if (p) {
      let n = 0, i = 0;
      for (const c of p.children) {
        if (c.localName === el.localName && c.namespaceURI === el.namespaceURI) { n++; if (c === el) i = n; }
      }
      if (n > 1) step += ':nth-of-type(' + i + ')';
    }
    return step;
  };
  const selectorOf = (el) => {
    if (el.getRootNode() !== document) return xpathOf(el);
    if (el.id) { const s = '#' + CSS.escape(el.id); if (only(s, el)) return s; }
    for (const a of ['data-testid', 'data-test', 'data-qa', 'name', 'aria-label']) {
      const v = el.getAttribute(a);
      if (v) { const s = CSS.escape(el.localName) + '[' + a + '="' + CSS.escape(v) + '"]'; if (only(s, el)) return s; }
    }
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (n !== el && n.id && only('#' + CSS.escape(n.id), n)) parts.unshift('#' + CSS.escape(n.id));
      else parts.unshift(stepOf(n));
      const s = parts.join(' > ');
      if (only(s, el)) return s;
    }
    return xpathOf(el);
  };
  return { isVisible, isEnabled, fold, preview, selectorOf, xpathOf };
})()"#;

/// The in-page engine: `(plan, want)` → `{count, items, samples}`. `plan` is `{native}`,
/// `{list}` (complex selectors of compounds and filters) or `{xpath, dialect}`; `want` is
/// `{mode, index, limit}`.
const QUERY_JS: &str = r#"function (plan, want, H, RESOLVE) {
  const related = (el, comb, set) => {
    switch (comb) {
      case '>': return set.has(el.parentElement);
      case '+': return set.has(el.previousElementSibling);
      case '~': for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (set.has(s)) return true; return false;
      default: for (let p = el.parentElement; p; p = p.parentElement) if (set.has(p)) return true; return false;
    }
  };
  const test = (f, el, root) => {
    if (f === 'visible') return H.isVisible(el);
    if (f === 'hidden') return !H.isVisible(el);
    if (f.contains !== undefined) return (el.textContent || '').includes(f.contains);
    if (f.has_text !== undefined) return H.fold(el.textContent || '').includes(H.fold(f.has_text));
    if (f.has !== undefined) return f.has.some(cx => complexIn(cx, root, new Set([el])).length > 0);
    if (f.not !== undefined) {
      // The excluded set, computed once per filter and root.
      let byRoot = excluded.get(f);
      if (!byRoot) { byRoot = new Map(); excluded.set(f, byRoot); }
      let set = byRoot.get(root);
      if (!set) { set = new Set(); for (const cx of f.not) for (const e of complexIn(cx, root, null)) set.add(e); byRoot.set(root, set); }
      return !set.has(el);
    }
    return false;
  };
  const excluded = new Map();
  const complexIn = (cx, root, scope) => {
    let cur = null;
    for (let i = 0; i < cx.length; i++) {
      const c = cx[i];
      let els = [...root.querySelectorAll(c.sel)];
      if (c.filters.length) els = els.filter(el => c.filters.every(f => test(f, el, root)));
      const prev = i === 0 ? scope : new Set(cur);
      if (prev) els = els.filter(el => related(el, c.comb, prev));
      cur = els;
    }
    return cur || [];
  };
  const matchesIn = (root) => {
    if (plan.native !== undefined) return root.querySelectorAll(plan.native);
    const out = new Set();
    for (const cx of plan.list) for (const el of complexIn(cx, root, null)) out.add(el);
    return out;
  };
  let found = [];
  if (plan.xpath !== undefined) {
    if (plan.dialect) { const n = RESOLVE(plan.xpath); if (n && n.nodeType === 1) found.push(n); }
    else {
      const r = document.evaluate(plan.xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      for (let i = 0; i < r.snapshotLength; i++) { const n = r.snapshotItem(i); if (n.nodeType === 1) found.push(n); }
    }
  } else {
    // Document order across the document and its open shadow roots (a shadow tree's matches
    // come right after its host).
    const collect = (root) => {
      const m = matchesIn(root);
      const set = m instanceof Set ? m : new Set(m);
      const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let n = w.nextNode(); n; n = w.nextNode()) {
        if (set.has(n)) found.push(n);
        if (n.shadowRoot) collect(n.shadowRoot);
      }
    };
    collect(document);
  }
  const count = found.length;
  // The elements themselves, for a command that acts on the first (first_match_expression).
  if (want.mode === 'first') return count > 1 ? [found[0], count] : (found[0] || null);
  const describe = (el) => ({ selector: H.selectorOf(el), tag: el.localName, text: H.preview(el), visible: H.isVisible(el), enabled: H.isEnabled(el) });
  let items = [];
  if (want.mode === 'all') items = found.slice(0, want.limit).map(describe);
  else if (want.mode === 'one' && count === 1) items = [describe(found[0])];
  else if (want.mode === 'nth' && want.index >= 1 && want.index <= count) items = [describe(found[want.index - 1])];
  const samples = (want.mode === 'one' || want.mode === 'nth') && items.length === 0
    ? found.slice(0, 5).map(el => H.selectorOf(el)) : [];
  return { count, items, samples };
}"#;

/// A page expression finding what an extended selector matches in the document it runs in: the
/// first element in document order, `[first, count]` when several match, or `null` (what
/// [`a11y_snapshot::Target::Finder`] takes). So the commands that act on an element take the
/// selectors `query` takes.
pub(crate) fn first_match_expression(list: &[Complex]) -> String {
    format!(
        "({QUERY_JS})({}, {{\"mode\": \"first\"}}, {HELPERS_JS}, {})",
        json!({ "list": list }),
        a11y_snapshot::xpath::RESOLVE_JS
    )
}

/// The native CSS inside an extended selector (its compounds', those in `:has` and `:not`
/// included), for a syntax check before anything runs.
pub(crate) fn native_parts(list: &[Complex]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<&Complex> = list.iter().collect();
    while let Some(cx) = stack.pop() {
        for c in cx {
            out.push(c.sel.clone());
            for f in &c.filters {
                if let Filter::Has(l) | Filter::Not(l) = f {
                    stack.extend(l.iter());
                }
            }
        }
    }
    out
}

/// What a query asks the page for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// Only the count.
    Count,
    /// Every match (at most `limit` described).
    All {
        /// How many to describe.
        limit: usize,
    },
    /// Exactly one match.
    One,
    /// The `n`-th match, 1-based.
    Nth(u64),
}

/// One match as the page describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub(crate) struct Match {
    /// A selector that finds exactly this element.
    pub selector: String,
    /// Tag name.
    pub tag: String,
    /// Its text, collapsed and capped.
    pub text: String,
    /// Rendered and not hidden.
    pub visible: bool,
    /// Not disabled.
    pub enabled: bool,
}

/// What the page answered.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Found {
    /// Number of matches.
    pub count: u64,
    /// The described matches (see [`Want`]).
    pub items: Vec<Match>,
    /// Selectors of the first matches, when the one asked for was not there.
    pub samples: Vec<String>,
}

/// Runs `query` in the main frame of `page`, or in the context `context` of its session (a
/// frame's document).
pub(crate) async fn run(
    page: &Session,
    context: Option<cdp_protocol::ExecutionContextId>,
    query: &Query,
    want: Want,
    deadline: &Deadline,
) -> Result<Found> {
    let plan = match query {
        Query::Native(css) => json!({ "native": css }),
        Query::Extended(list) => json!({ "list": list }),
        Query::XPath(xp) => json!({
            "xpath": xp,
            "dialect": a11y_snapshot::xpath::parse(xp).is_some(),
        }),
    };
    let want = match want {
        Want::Count => json!({"mode": "count"}),
        Want::All { limit } => json!({"mode": "all", "limit": limit}),
        Want::One => json!({"mode": "one"}),
        Want::Nth(n) => json!({"mode": "nth", "index": n}),
    };
    let expression = format!(
        "({QUERY_JS})({plan}, {want}, {HELPERS_JS}, {})",
        a11y_snapshot::xpath::RESOLVE_JS
    );
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression,
                context_id: context,
                return_by_value: Some(true),
                silent: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::SLOW_CALL),
        )
        .await
        .map_err(|e| match e.kind() {
            cdp_protocol::ErrorKind::Timeout => deadline.timeout("browser query"),
            _ => e.into(),
        })?;
    if let Some(ex) = &r.exception_details {
        // The browser's selector or XPath parser refused it: its message says why.
        let msg = ex.message().lines().next().unwrap_or("invalid query");
        let written = match query {
            Query::Native(q) | Query::XPath(q) => q.as_str(),
            Query::Extended(_) => "",
        };
        return Err(crate::error::invalid_selector(written, msg));
    }
    let value = r.result.value.unwrap_or(Value::Null);
    serde_json::from_value(value.clone())
        .map_err(|e| CliError::internal(format!("the page answered {value} for the query: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ext(q: &str) -> Vec<Complex> {
        match parse(q) {
            Ok(Query::Extended(l)) => l,
            other => panic!("{q}: {other:?}"),
        }
    }

    #[test]
    fn plain_css_and_xpath_pass_through() {
        for q in [
            ".item",
            "#a > b",
            ".c > .a > input[name=b]",
            "div:has(> .x)",
            "input:checked",
            "button:enabled, button:disabled",
            "a[title=':visible']",
            "[data-x=\"a,b\"]",
        ] {
            assert_eq!(parse(q).ok(), Some(Query::Native(q.into())), "{q}");
        }
        assert_eq!(
            parse(" //div[@class='item'] ").ok(),
            Some(Query::XPath("//div[@class='item']".into()))
        );
        assert!(parse("  ").is_err());
    }

    #[test]
    fn extensions_become_filters() {
        let l = ext(".item:contains(Item B)");
        assert_eq!(l.len(), 1);
        assert_eq!(l[0][0].sel, ".item");
        assert_eq!(l[0][0].filters, vec![Filter::Contains("Item B".into())]);
        let l = ext(r#"ul > li:visible:contains("a \"b\"") span"#);
        assert_eq!(
            l[0].iter()
                .map(|c| (c.comb, c.sel.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (Combinator::Descendant, "ul"),
                (Combinator::Child, "li"),
                (Combinator::Descendant, "span")
            ]
        );
        assert_eq!(
            l[0][1].filters,
            vec![Filter::Visible, Filter::Contains("a \"b\"".into())]
        );
        let l = ext(":visible");
        assert_eq!(l[0][0].sel, "*");
        let l = ext("div:has(> span:contains(x)), p:hidden");
        assert_eq!(l.len(), 2);
        match &l[0][0].filters[0] {
            Filter::Has(inner) => {
                assert_eq!(inner[0][0].comb, Combinator::Child);
                assert_eq!(inner[0][0].sel, "span");
            }
            f => panic!("{f:?}"),
        }
        assert_eq!(l[1][0].filters, vec![Filter::Hidden]);
        let l = ext(".item:not(:contains(B), .x:hidden)");
        match &l[0][0].filters[0] {
            Filter::Not(inner) => {
                assert_eq!(inner.len(), 2);
                assert_eq!(inner[0][0].filters, vec![Filter::Contains("B".into())]);
                assert_eq!(inner[1][0].sel, ".x");
            }
            f => panic!("{f:?}"),
        }
        let l = ext("button:has-text(  Save  Draft )");
        assert_eq!(l[0][0].filters, vec![Filter::HasText("Save  Draft".into())]);
        assert_eq!(l[0][0].sel, "button");
        // `:has(` is a prefix of `:has-text(`: each is read as itself.
        let l = ext("li:has(a:has-text('Next'))");
        match &l[0][0].filters[0] {
            Filter::Has(inner) => {
                assert_eq!(inner[0][0].filters, vec![Filter::HasText("Next".into())])
            }
            f => panic!("{f:?}"),
        }
        // A native pseudo-class with arguments stays native next to a filter.
        let l = ext("li:nth-child(2n+1):visible");
        assert_eq!(l[0][0].sel, "li:nth-child(2n+1)");
    }

    #[test]
    fn bad_queries_are_refused_with_a_reason() {
        for q in [
            "div:is(:visible)",
            "div:not(:visible",
            ".a:contains(x",
            "> .a:visible",
            ".a:visible >",
            ".a:visible > > b",
            ":contains",
            "a:has-text",
            ":visible(1)",
            "[x=':visible'",
        ] {
            let e = parse(q).expect_err(q);
            assert_eq!(e.code(), envelope::ErrorCode::InvalidArgument, "{q}");
        }
    }

    fn simple() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,6}",
            "\\.[a-z]{1,5}",
            "#[a-z]{1,5}",
            "\\[[a-z]{1,4}=\"[a-z ,>]{0,4}\"\\]",
            Just(":first-child".to_string()),
        ]
    }

    fn compound() -> impl Strategy<Value = (String, Vec<Filter>)> {
        (
            proptest::collection::vec(simple(), 1..3),
            proptest::collection::vec(
                prop_oneof![
                    Just(Filter::Visible),
                    Just(Filter::Hidden),
                    "[a-zA-Z0-9 ]{1,8}".prop_map(|t| Filter::Contains(t.trim().to_string())),
                    "[a-zA-Z0-9 ]{1,8}".prop_map(|t| Filter::HasText(t.trim().to_string())),
                ],
                0..3,
            ),
        )
            .prop_map(|(parts, filters)| (parts.concat(), filters))
    }

    fn render(f: &Filter) -> String {
        match f {
            Filter::Visible => ":visible".into(),
            Filter::Hidden => ":hidden".into(),
            Filter::Contains(t) => format!(":contains(\"{t}\")"),
            Filter::HasText(t) => format!(":has-text(\"{t}\")"),
            Filter::Has(_) | Filter::Not(_) => String::new(),
        }
    }

    proptest! {
        /// A query written from compounds and combinators parses back into them.
        #[test]
        fn parses_what_it_is_given(
            first in compound(),
            rest in proptest::collection::vec((prop_oneof![Just(" "), Just(" > "), Just(" + "), Just(" ~ "), Just(">")], compound()), 0..3),
        ) {
            let mut q = first.0.clone() + &first.1.iter().map(render).collect::<String>();
            for (c, (sel, filters)) in &rest {
                q.push_str(c);
                q.push_str(sel);
                q.push_str(&filters.iter().map(render).collect::<String>());
            }
            let any_filter = !first.1.is_empty() || rest.iter().any(|(_, (_, f))| !f.is_empty());
            match parse(&q) {
                Ok(Query::Native(n)) => prop_assert!(!any_filter, "{q} -> {n}"),
                Ok(Query::Extended(list)) => {
                    prop_assert!(any_filter, "{q}");
                    prop_assert_eq!(list.len(), 1);
                    let cx = &list[0];
                    prop_assert_eq!(cx.len(), rest.len() + 1, "{}", q);
                    prop_assert_eq!(&cx[0].sel, &first.0);
                    prop_assert_eq!(&cx[0].filters, &first.1);
                    for (k, (c, (sel, filters))) in rest.iter().enumerate() {
                        let want = match c.trim() { ">" => Combinator::Child, "+" => Combinator::Adjacent, "~" => Combinator::Sibling, _ => Combinator::Descendant };
                        prop_assert_eq!(cx[k + 1].comb, want);
                        prop_assert_eq!(&cx[k + 1].sel, sel);
                        prop_assert_eq!(&cx[k + 1].filters, filters);
                    }
                }
                other => prop_assert!(false, "{q}: {other:?}"),
            }
        }
    }
}
