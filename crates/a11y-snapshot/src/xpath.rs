//! This crate's XPath dialect: the standard child steps a snapshot emits, plus a `#shadow-root` step,
//! with a parser, an evaluator over decoded DOM trees (used by tests) and the in-page resolver.
//!
//! Steps: `div[2]` (HTML element by lower-case local name), `*[name()='svg'][1]` (element of another
//! namespace, by qualified name), `text()[1]`, `comment()[1]`, and `#shadow-root` (step into the open
//! shadow root of the current element). Paths are relative to a frame's document and start with `/`.

use crate::raw::DomNode;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// n-th HTML child element with this lower-case local name.
    Html(String, u32),
    /// n-th child element of another namespace with this qualified name.
    Foreign(String, u32),
    /// n-th text (or CDATA) child.
    Text(u32),
    /// n-th comment child.
    Comment(u32),
    /// The shadow root of the current element.
    ShadowRoot,
}

fn parse_index(s: &str) -> Option<u32> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let n: u32 = inner.parse().ok()?;
    (n > 0 && !inner.starts_with('0') && inner.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// Parses a path of this dialect; `None` when it uses anything else (then it is a general XPath for
/// `document.evaluate`).
pub fn parse(path: &str) -> Option<Vec<Step>> {
    let rest = path.strip_prefix('/')?;
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.split('/')
        .map(|s| {
            if s == "#shadow-root" {
                return Some(Step::ShadowRoot);
            }
            if let Some(i) = s.strip_prefix("text()") {
                return parse_index(i).map(Step::Text);
            }
            if let Some(i) = s.strip_prefix("comment()") {
                return parse_index(i).map(Step::Comment);
            }
            if let Some(r) = s.strip_prefix("*[name()='") {
                let (name, idx) = r.split_once("']")?;
                if name.is_empty() || name.contains('\'') {
                    return None;
                }
                return parse_index(idx).map(|n| Step::Foreign(name.to_string(), n));
            }
            let (name, _) = s.split_once('[')?;
            let ok = !name.is_empty()
                && name.bytes().all(|b| {
                    b.is_ascii_lowercase()
                        || b.is_ascii_digit()
                        || b == b'-'
                        || b == b'_'
                        || b == b'.'
                        || b >= 0x80
                });
            if !ok {
                return None;
            }
            parse_index(&s[name.len()..]).map(|n| Step::Html(name.to_string(), n))
        })
        .collect()
}

fn matches(step: &Step, n: &DomNode) -> bool {
    match step {
        Step::Text(_) => n.node_type == 3 || n.node_type == 4,
        Step::Comment(_) => n.node_type == 8,
        Step::Html(name, _) => {
            n.node_type == 1
                && n.node_name == n.node_name.to_ascii_uppercase()
                && n.local_name.eq_ignore_ascii_case(name)
        }
        Step::Foreign(name, _) => {
            n.node_type == 1
                && n.node_name != n.node_name.to_ascii_uppercase()
                && &n.node_name == name
        }
        Step::ShadowRoot => false,
    }
}

/// Evaluates a parsed path against a decoded document (same-frame only: it does not enter frame
/// documents). Returns the backendNodeId reached.
pub fn evaluate(document: &DomNode, steps: &[Step]) -> Option<i64> {
    let mut cur = document;
    for step in steps {
        cur = match step {
            Step::ShadowRoot => cur
                .shadow_roots
                .as_deref()?
                .iter()
                .find(|s| s.shadow_root_type.as_deref() != Some("user-agent"))?,
            Step::Html(_, n) | Step::Foreign(_, n) | Step::Text(n) | Step::Comment(n) => cur
                .children
                .as_deref()?
                .iter()
                .filter(|c| matches(step, c))
                .nth((*n as usize).checked_sub(1)?)?,
        };
    }
    Some(cur.backend_node_id)
}

/// In-page resolver for this dialect, for `Runtime.callFunctionOn` with the path as the only argument and
/// any object of the frame's main world as `this`. Returns the node or null (a closed shadow root is null).
pub const RESOLVE_JS: &str = r#"function (path) {
  if (typeof path !== 'string' || path[0] !== '/') return null;
  const steps = path === '/' ? [] : path.slice(1).split('/');
  let cur = document;
  for (const s of steps) {
    if (!cur) return null;
    if (s === '#shadow-root') { cur = cur.shadowRoot || null; continue; }
    let m, kind, name = null, n, foreign = false;
    if ((m = /^text\(\)\[(\d+)\]$/.exec(s))) { kind = 3; n = +m[1]; }
    else if ((m = /^comment\(\)\[(\d+)\]$/.exec(s))) { kind = 8; n = +m[1]; }
    else if ((m = /^\*\[name\(\)='([^']+)'\]\[(\d+)\]$/.exec(s))) { kind = 1; name = m[1]; n = +m[2]; foreign = true; }
    else if ((m = /^([^\[\]\/]+)\[(\d+)\]$/.exec(s))) { kind = 1; name = m[1]; n = +m[2]; }
    else return null;
    let count = 0, found = null;
    for (let c = cur.firstChild; c; c = c.nextSibling) {
      let ok;
      if (kind === 3) ok = c.nodeType === 3 || c.nodeType === 4;
      else if (kind === 8) ok = c.nodeType === 8;
      else if (c.nodeType !== 1) ok = false;
      else if (foreign) ok = c.nodeName === name && c.namespaceURI !== 'http://www.w3.org/1999/xhtml';
      else ok = c.namespaceURI === 'http://www.w3.org/1999/xhtml' && c.localName === name;
      if (ok && ++count === n) { found = c; break; }
    }
    cur = found;
  }
  return cur;
}"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{DomKind, split_document};
    use proptest::prelude::*;

    #[test]
    fn parses_own_dialect_only() {
        assert_eq!(
            parse("/html[1]/body[1]/my-el[2]/#shadow-root/*[name()='svg'][1]/text()[3]"),
            Some(vec![
                Step::Html("html".into(), 1),
                Step::Html("body".into(), 1),
                Step::Html("my-el".into(), 2),
                Step::ShadowRoot,
                Step::Foreign("svg".into(), 1),
                Step::Text(3),
            ])
        );
        for general in [
            "//div",
            "/html/body",
            "/html[1]//a[1]",
            "/div[0]",
            "/DIV[1]",
            "html[1]",
            "/a[@id='x']",
        ] {
            assert_eq!(parse(general), None, "{general}");
        }
    }

    #[derive(Debug, Clone)]
    enum Gen {
        El(&'static str, bool, Vec<Gen>, Option<Vec<Gen>>),
        Text,
        Comment,
    }

    fn gen_tree() -> impl Strategy<Value = Vec<Gen>> {
        let leaf = prop_oneof![
            Just(Gen::Text),
            Just(Gen::Comment),
            prop::sample::select(vec!["div", "span", "p", "a"]).prop_map(|t| Gen::El(
                t,
                false,
                vec![],
                None
            )),
            prop::sample::select(vec!["svg", "path", "math", "foreignObject"])
                .prop_map(|t| Gen::El(t, true, vec![], None)),
        ];
        let node = leaf.prop_recursive(5, 60, 5, |inner| {
            (
                prop::sample::select(vec!["div", "span", "svg", "g", "section", "my-el"]),
                prop::collection::vec(inner.clone(), 0..5),
                prop::option::weighted(0.25, prop::collection::vec(inner, 0..4)),
            )
                .prop_map(|(t, kids, shadow)| Gen::El(t, matches!(t, "svg" | "g"), kids, shadow))
        });
        prop::collection::vec(node, 0..6)
    }

    fn to_dom(g: &[Gen], next: &mut i64) -> Vec<DomNode> {
        g.iter()
            .map(|g| {
                *next += 1;
                let id = *next;
                match g {
                    Gen::Text => DomNode {
                        backend_node_id: id,
                        node_type: 3,
                        node_name: "#text".into(),
                        ..DomNode::default()
                    },
                    Gen::Comment => DomNode {
                        backend_node_id: id,
                        node_type: 8,
                        node_name: "#comment".into(),
                        ..DomNode::default()
                    },
                    Gen::El(tag, foreign, kids, shadow) => {
                        let node_name = if *foreign {
                            tag.to_string()
                        } else {
                            tag.to_ascii_uppercase()
                        };
                        let children = to_dom(kids, next);
                        let shadow_roots = shadow.as_ref().map(|s| {
                            *next += 1;
                            let sid = *next;
                            vec![DomNode {
                                backend_node_id: sid,
                                node_type: 11,
                                node_name: "#document-fragment".into(),
                                shadow_root_type: Some("open".into()),
                                children: Some(to_dom(s, next)),
                                ..DomNode::default()
                            }]
                        });
                        DomNode {
                            backend_node_id: id,
                            node_type: 1,
                            node_name,
                            local_name: tag.to_string(),
                            child_node_count: Some(children.len() as u32),
                            children: Some(children),
                            shadow_roots,
                            ..DomNode::default()
                        }
                    }
                }
            })
            .collect()
    }

    proptest! {
        #[test]
        fn every_xpath_resolves_back_to_its_node(body in gen_tree()) {
            let mut next = 10;
            let kids = to_dom(&body, &mut next);
            let body_el = DomNode { backend_node_id: 3, node_type: 1, node_name: "BODY".into(), local_name: "body".into(), children: Some(kids), ..DomNode::default() };
            let html = DomNode { backend_node_id: 2, node_type: 1, node_name: "HTML".into(), local_name: "html".into(), children: Some(vec![body_el]), ..DomNode::default() };
            let doc = DomNode { backend_node_id: 1, node_type: 9, node_name: "#document".into(), children: Some(vec![html]), ..DomNode::default() };
            let pieces = split_document(doc.clone());
            for (i, e) in pieces.root.entries.iter().enumerate() {
                if matches!(e.kind, DomKind::Document) {
                    continue;
                }
                let xp = pieces.root.xpath(i as u32);
                let steps = parse(&xp);
                prop_assert!(steps.is_some(), "unparsable {}", xp);
                let steps = steps.unwrap_or_default();
                prop_assert_eq!(evaluate(&doc, &steps), Some(e.backend_node_id), "{}", xp);
            }
        }
    }
}
