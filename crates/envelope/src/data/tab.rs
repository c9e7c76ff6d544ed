//! Tab management data: `browser list-tabs`, `new-tab`, `close-tab`.

use serde::{Deserialize, Serialize};

use super::TabInfo;
use crate::text::{RenderText, TextBody};

/// `browser list-tabs` data.
///
/// ```text
/// 1 tab
/// [t1] Google
/// https://google.com
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TabListData {
    /// Number of tabs.
    pub total_tabs: u64,
    /// The tabs.
    pub tabs: Vec<TabInfo>,
}

impl TabListData {
    /// The list with `total_tabs` set from its length.
    pub fn new(tabs: Vec<TabInfo>) -> Self {
        TabListData {
            total_tabs: tabs.len() as u64,
            tabs,
        }
    }
}

impl RenderText for TabListData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.total_tabs as usize, "tab", "tabs");
        for t in &self.tabs {
            body.line(format_args!("[{}] {}", t.tab_id, t.title));
            body.line(&t.url);
        }
    }
}

/// `browser new-tab` data.
///
/// ```text
/// ok browser new-tab
/// title: Example Domain
/// ```
///
/// When several URLs were opened, `tabs` lists them all in order (`tab` is the last)
/// and each adds a `[tN] <url>` line.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NewTabData {
    /// The opened tab (the last one when several URLs were given).
    pub tab: TabInfo,
    /// Whether a tab was created (rather than reused).
    pub created: bool,
    /// Whether it opened in a new window.
    pub new_window: bool,
    /// Every tab opened, when more than one URL was given (omitted when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<TabInfo>,
}

impl RenderText for NewTabData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("title", &self.tab.title);
        for t in &self.tabs {
            body.line(format_args!("[{}] {}", t.tab_id, t.url));
        }
    }
}

/// `browser close-tab` data. Its header is `[sid tid]` without a URL (spec 2.5 exception).
///
/// ```text
/// ok browser close-tab
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CloseTabData {
    /// The id of the closed tab.
    pub closed_tab_id: String,
}

impl RenderText for CloseTabData {
    fn is_action(&self) -> bool {
        true
    }

    fn header_shows_url(&self) -> bool {
        false
    }

    fn render_body(&self, _body: &mut TextBody<'_>) {}
}
