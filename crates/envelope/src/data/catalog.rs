//! Non-browser data: `search` and `get` (the actionbook action catalogue).

use serde::{Deserialize, Serialize};

use crate::num;
use crate::text::{RenderText, TextBody};

/// One search hit.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchItem {
    /// Area id (`google.com:/login:default`).
    pub area_id: String,
    /// Title.
    pub title: String,
    /// One-line summary.
    pub summary: String,
    /// Relevance, 0 to 1.
    #[serde(serialize_with = "num::compact")]
    pub score: f64,
    /// Page URL.
    pub url: String,
}

/// `search` data (paging is in `meta.pagination`).
///
/// ```text
/// 1 result
/// 1. google.com:/login:default
///    Google Login
///    score: 0.98
///    https://google.com/login
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SearchData {
    /// The query.
    pub query: String,
    /// Hits on this page.
    pub items: Vec<SearchItem>,
}

impl RenderText for SearchData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.items.len(), "result", "results");
        for (i, item) in self.items.iter().enumerate() {
            body.line(format_args!("{}. {}", i + 1, item.area_id));
            body.line(format_args!("   {}", item.title));
            body.line(format_args!("   score: {}", num::fmt(item.score)));
            body.line(format_args!("   {}", item.url));
        }
    }
}

/// An element of an area (`get`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AreaElement {
    /// Element id within the area (`email`).
    pub element_id: String,
    /// Element type (`input`, `button`, ...).
    #[serde(rename = "type")]
    pub element_type: String,
    /// What it is.
    pub description: String,
    /// CSS selector, if known (`null` otherwise).
    pub css: Option<String>,
    /// XPath, if known (`null` otherwise).
    pub xpath: Option<String>,
    /// Methods that work on it (`fill`, `click`, ...).
    pub allow_methods: Vec<String>,
}

/// `get` data.
///
/// ```text
/// google.com:/login:default
/// https://google.com/login
///
/// Login page
///
/// [email] input
/// description: Email input
/// css: #identifierId
/// methods: fill, type, focus
/// ```
///
/// Each element is a block after a blank line; `css:` / `xpath:` lines appear when known.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AreaData {
    /// Area id.
    pub area_id: String,
    /// Page URL.
    pub url: String,
    /// What the area is.
    pub description: String,
    /// Its elements.
    pub elements: Vec<AreaElement>,
}

impl RenderText for AreaData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(&self.area_id);
        body.line(&self.url);
        body.line("");
        body.line(&self.description);
        for e in &self.elements {
            body.line("");
            body.line(format_args!("[{}] {}", e.element_id, e.element_type));
            body.field("description", &e.description);
            if let Some(css) = &e.css {
                body.field("css", css);
            }
            if let Some(xpath) = &e.xpath {
                body.field("xpath", xpath);
            }
            body.field("methods", e.allow_methods.join(", "));
        }
    }
}
