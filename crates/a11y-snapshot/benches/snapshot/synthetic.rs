//! A synthetic page shaped like `../shared/bench/gen_fixtures.py`'s large pages, emitted as the two CDP
//! answers a snapshot consumes (`DOM.getDocument` and `Accessibility.getFullAXTree` JSON), with the
//! field layout Chromium uses (name sources and properties included, so decoding cost is realistic).

use std::fmt::Write;

/// The recorded answers of one page.
#[derive(Debug)]
pub struct Recorded {
    /// `DOM.getDocument{depth:-1,pierce:true}` result JSON.
    pub dom_json: String,
    /// `Accessibility.getFullAXTree` result JSON.
    pub ax_json: String,
    /// Elements in the page.
    pub elements: usize,
}

struct Gen {
    next: i64,
    ax: String,
    ax_count: usize,
    elements: usize,
}

struct El {
    tag: &'static str,
    role: &'static str,
    name: String,
    attrs: Vec<(&'static str, String)>,
    kids: Vec<Item>,
}

enum Item {
    El(El),
    Text(String),
}

fn el(tag: &'static str, role: &'static str, name: &str, kids: Vec<Item>) -> Item {
    Item::El(El {
        tag,
        role,
        name: name.to_string(),
        attrs: Vec::new(),
        kids,
    })
}

fn with_attr(mut i: Item, k: &'static str, v: &str) -> Item {
    if let Item::El(e) = &mut i {
        e.attrs.push((k, v.to_string()));
    }
    i
}

fn t(s: &str) -> Item {
    Item::Text(s.to_string())
}

const WORDS: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

fn w(seed: &mut u64, n: usize) -> String {
    let mut out = Vec::new();
    for _ in 0..n {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push(WORDS[(*seed >> 33) as usize % WORDS.len()]);
    }
    out.join(" ")
}

fn block(k: usize, seed: &mut u64) -> Item {
    let mut kids = vec![el(
        "h2",
        "heading",
        &format!("Section {k}"),
        vec![t(&format!("Section {k}"))],
    )];
    let links: Vec<Item> = (0..8)
        .map(|j| {
            let name = format!("{} {j}", w(seed, 2));
            with_attr(
                el("a", "link", &name, vec![t(&name)]),
                "href",
                &format!("/p/{k}/{j}"),
            )
        })
        .collect();
    kids.push(el("nav", "navigation", &format!("Section {k} nav"), links));
    let lis: Vec<Item> = (0..4)
        .map(|i| {
            let name = w(seed, 3);
            let inner: Vec<Item> = (0..3)
                .map(|j| {
                    el(
                        "li",
                        "listitem",
                        "",
                        vec![el(
                            "span",
                            "generic",
                            "",
                            vec![t(&format!("{} {k}.{i}.{j}", w(seed, 2)))],
                        )],
                    )
                })
                .collect();
            el(
                "li",
                "listitem",
                "",
                vec![
                    with_attr(
                        el("a", "link", &name, vec![t(&name)]),
                        "href",
                        &format!("/l/{k}/{i}"),
                    ),
                    el("ul", "list", "", inner),
                ],
            )
        })
        .collect();
    kids.push(el("ul", "list", "", lis));
    let head = el(
        "thead",
        "rowgroup",
        "",
        vec![el(
            "tr",
            "row",
            "Name Value Action",
            ["Name", "Value", "Action"]
                .iter()
                .map(|h| el("th", "columnheader", h, vec![t(h)]))
                .collect(),
        )],
    );
    let rows: Vec<Item> = (0..5)
        .map(|r| {
            let a = w(seed, 2);
            let b = format!("{}", (*seed >> 40) % 99999);
            let label = format!("Edit {k}-{r}");
            el(
                "tr",
                "row",
                &format!("{a} {b} {label}"),
                vec![
                    el("td", "cell", &a, vec![t(&a)]),
                    el("td", "cell", &b, vec![t(&b)]),
                    el(
                        "td",
                        "cell",
                        &label,
                        vec![el("button", "button", &label, vec![t(&label)])],
                    ),
                ],
            )
        })
        .collect();
    kids.push(el(
        "table",
        "table",
        &format!("Table {k}"),
        vec![head, el("tbody", "rowgroup", "", rows)],
    ));
    let val = w(seed, 2);
    kids.push(el(
        "form",
        "form",
        "",
        vec![
            el("label", "LabelText", "", vec![t(&format!("Field {k}"))]),
            with_attr(
                el("input", "textbox", &format!("Field {k}"), vec![]),
                "value",
                &val,
            ),
            el("label", "LabelText", "", vec![t(&format!("Email {k}"))]),
            el("input", "textbox", &format!("Email {k}"), vec![]),
            el(
                "label",
                "LabelText",
                "",
                vec![
                    el("input", "checkbox", &format!("Opt {k}"), vec![]),
                    t(&format!(" Opt {k}")),
                ],
            ),
            el(
                "select",
                "combobox",
                &format!("Choice {k}"),
                vec![el(
                    "",
                    "MenuListPopup",
                    "",
                    ["one", "two", "three"]
                        .iter()
                        .map(|o| el("option", "option", o, vec![t(o)]))
                        .collect(),
                )],
            ),
            el(
                "button",
                "button",
                &format!("Save {k}"),
                vec![t(&format!("Save {k}"))],
            ),
        ],
    ));
    kids.push(el(
        "div",
        "tablist",
        &format!("Tabs {k}"),
        (0..3)
            .map(|i| {
                with_attr(
                    el(
                        "div",
                        "tab",
                        &format!("Tab {k}.{i}"),
                        vec![t(&format!("Tab {k}.{i}"))],
                    ),
                    "tabindex",
                    "0",
                )
            })
            .collect(),
    ));
    kids.push(el(
        "div",
        "tabpanel",
        "",
        vec![el("p", "paragraph", "", vec![t(&w(seed, 8))])],
    ));
    kids.push(el(
        "div",
        "menu",
        &format!("Menu {k}"),
        vec![
            with_attr(
                el(
                    "div",
                    "menuitem",
                    &format!("Open {k}"),
                    vec![t(&format!("Open {k}"))],
                ),
                "tabindex",
                "-1",
            ),
            with_attr(
                el(
                    "div",
                    "menuitem",
                    &format!("Close {k}"),
                    vec![t(&format!("Close {k}"))],
                ),
                "tabindex",
                "-1",
            ),
        ],
    ));
    kids.push(with_attr(
        el(
            "div",
            "generic",
            "",
            vec![t(&format!("Card {k} {}", w(seed, 2)))],
        ),
        "onclick",
        "void 0",
    ));
    el("section", "region", &format!("Section {k}"), kids)
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Gen {
    /// Writes the DOM node (to `dom`) and its AX node(s) (to `self.ax`); returns the AX id.
    fn emit(&mut self, item: &Item, dom: &mut String, parent_ax: i64) -> i64 {
        self.next += 1;
        let id = self.next;
        match item {
            Item::Text(s) => {
                let _ = write!(
                    dom,
                    r##"{{"nodeId":{id},"parentId":0,"backendNodeId":{id},"nodeType":3,"nodeName":"#text","localName":"","nodeValue":"##
                );
                json_str(dom, s);
                dom.push('}');
                self.next += 1;
                let itb = self.next;
                self.ax_node(id, parent_ax, "StaticText", s, &[itb], id, false);
                self.ax_node(itb, id, "InlineTextBox", s, &[], 0, false);
                id
            }
            Item::El(e) => {
                self.elements += 1;
                let upper = e.tag.to_ascii_uppercase();
                let _ = write!(
                    dom,
                    r#"{{"nodeId":{id},"parentId":0,"backendNodeId":{id},"nodeType":1,"nodeName":"{upper}","localName":"{}","nodeValue":"","childNodeCount":{},"children":["#,
                    e.tag,
                    e.kids.len()
                );
                let mut kid_ids = Vec::new();
                // Children first into a scratch AX buffer position: ids are assigned in pre-order.
                let mut first = true;
                let mut child_dom = String::new();
                for k in &e.kids {
                    if !first {
                        child_dom.push(',');
                    }
                    first = false;
                    kid_ids.push(self.emit(k, &mut child_dom, id));
                }
                dom.push_str(&child_dom);
                dom.push_str(r#"],"attributes":["class","c""#);
                for (k, v) in &e.attrs {
                    let _ = write!(dom, r#","{k}","#);
                    json_str(dom, v);
                }
                dom.push_str("]}");
                let ignored =
                    matches!(e.tag, "thead" | "tbody" | "span" | "label") && e.role != "LabelText";
                self.ax_node(id, parent_ax, e.role, &e.name, &kid_ids, id, ignored);
                id
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn ax_node(
        &mut self,
        id: i64,
        parent: i64,
        role: &str,
        name: &str,
        kids: &[i64],
        backend: i64,
        ignored: bool,
    ) {
        if self.ax_count > 0 {
            self.ax.push(',');
        }
        self.ax_count += 1;
        let _ = write!(
            self.ax,
            r#"{{"nodeId":"{id}","ignored":{ignored},"role":{{"type":"role","value":"{role}"}},"chromeRole":{{"type":"internalRole","value":0}},"name":{{"type":"computedString","value":"#
        );
        json_str(&mut self.ax, name);
        self.ax.push_str(r#","sources":[{"type":"relatedElement","attribute":"aria-labelledby"},{"type":"attribute","attribute":"aria-label"},{"type":"contents","value":{"type":"computedString","value":"x"}}]}"#);
        self.ax.push_str(r#","properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}]"#);
        if parent != 0 {
            let _ = write!(self.ax, r#","parentId":"{parent}""#);
        }
        self.ax.push_str(r#","childIds":["#);
        for (i, k) in kids.iter().enumerate() {
            if i > 0 {
                self.ax.push(',');
            }
            let _ = write!(self.ax, r#""{k}""#);
        }
        self.ax.push(']');
        if backend != 0 {
            let _ = write!(self.ax, r#","backendDOMNodeId":{backend}"#);
        }
        self.ax.push_str(r#","frameId":"MAINFRAME"}"#);
    }
}

/// Builds the recorded answers of a page with about `target` elements.
pub fn page(target: usize) -> Recorded {
    let mut seed = target as u64;
    let blocks = (target.saturating_sub(20) / 101).max(1);
    let mut main_kids = vec![el(
        "h1",
        "heading",
        "Large fixture",
        vec![t("Large fixture")],
    )];
    for k in 0..blocks {
        main_kids.push(block(k, &mut seed));
    }
    let body = el(
        "body",
        "generic",
        "",
        vec![el("main", "main", "", main_kids)],
    );
    let html = el("html", "generic", "", vec![body]);
    let mut g = Gen {
        next: 1,
        ax: String::from(r#"{"nodes":["#),
        ax_count: 0,
        elements: 0,
    };
    g.ax_node(1, 0, "RootWebArea", "Large", &[2], 1, false);
    let mut dom = String::from(
        r##"{"root":{"nodeId":1,"backendNodeId":1,"nodeType":9,"nodeName":"#document","localName":"","nodeValue":"","childNodeCount":1,"children":["##,
    );
    g.emit(&html, &mut dom, 1);
    dom.push_str(r#"],"documentURL":"http://127.0.0.1/large.html","baseURL":"http://127.0.0.1/large.html","xmlVersion":""}}"#);
    g.ax.push_str("]}");
    Recorded {
        dom_json: dom,
        ax_json: g.ax,
        elements: g.elements,
    }
}
