//! `browser query` data, one shape per mode.

use serde::{Deserialize, Serialize};

use crate::text::{RenderText, TextBody};

/// An element matched by `browser query`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct QueryMatch {
    /// A selector that finds exactly this element (`.item:nth-of-type(1)`).
    pub selector: String,
    /// Tag name, lower case.
    pub tag: String,
    /// Its text.
    pub text: String,
    /// Rendered and not hidden.
    pub visible: bool,
    /// Not disabled.
    pub enabled: bool,
}

/// `browser query` data; `mode` is the tag on the wire (`"one"`, `"all"`, `"nth"`, `"count"`).
///
/// ```text
/// 1 match                  3 matches                  match 2/3                  3
/// selector: <selector>     1. <selector>              selector: <selector>
/// text: <text>                <text>                 text: <text>
/// ```
/// (one, all, nth and count, left to right).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum QueryData {
    /// Exactly one match.
    One {
        /// The query string.
        query: String,
        /// Always 1.
        count: u64,
        /// The match.
        item: QueryMatch,
    },
    /// Every match (possibly none).
    All {
        /// The query string.
        query: String,
        /// Number of matches.
        count: u64,
        /// The matches.
        items: Vec<QueryMatch>,
    },
    /// The `index`-th match (1-based).
    Nth {
        /// The query string.
        query: String,
        /// 1-based index asked for.
        index: u64,
        /// Number of matches.
        count: u64,
        /// The match.
        item: QueryMatch,
    },
    /// Only the number of matches.
    Count {
        /// The query string.
        query: String,
        /// Number of matches.
        count: u64,
    },
}

impl RenderText for QueryData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        match self {
            QueryData::One { count, item, .. } => {
                body.count(*count as usize, "match", "matches");
                body.field("selector", &item.selector);
                body.field("text", &item.text);
            }
            QueryData::All { count, items, .. } => {
                body.count(*count as usize, "match", "matches");
                for (i, item) in items.iter().enumerate() {
                    body.line(format_args!("{}. {}", i + 1, item.selector));
                    body.line(format_args!("   {}", item.text));
                }
            }
            QueryData::Nth {
                index, count, item, ..
            } => {
                body.line(format_args!("match {index}/{count}"));
                body.field("selector", &item.selector);
                body.field("text", &item.text);
            }
            QueryData::Count { count, .. } => body.line(count),
        }
    }
}
