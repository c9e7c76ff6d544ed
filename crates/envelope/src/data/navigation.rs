//! Navigation data: `browser goto`, `back`, `forward`, `reload`.

use serde::{Deserialize, Serialize};

use crate::text::{RenderText, TextBody};

/// Which navigation happened (`data.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NavigationKind {
    /// `goto`
    #[default]
    Goto,
    /// `back`
    Back,
    /// `forward`
    Forward,
    /// `reload`
    Reload,
}

/// `browser goto` / `back` / `forward` / `reload` data.
///
/// ```text
/// ok browser goto
/// title: actionbook - Google Search
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NavigationData {
    /// Which navigation.
    pub kind: NavigationKind,
    /// The URL asked for (`goto`); `null` for back / forward / reload.
    pub requested_url: Option<String>,
    /// The URL before.
    pub from_url: String,
    /// The URL after (also the envelope's `context.url`).
    pub to_url: String,
    /// The page title after.
    pub title: String,
}

impl RenderText for NavigationData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("title", &self.title);
    }
}
