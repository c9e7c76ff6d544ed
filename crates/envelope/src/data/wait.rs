//! `browser wait *` data.

use serde::{Deserialize, Serialize};

use crate::text::{RenderText, TextBody};

/// What was waited for (`data.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaitKind {
    /// `element`
    Element,
    /// `navigation`
    Navigation,
    /// `network-idle`
    NetworkIdle,
    /// `condition`
    Condition,
    /// `text` (`browser wait text`, not in the spec)
    Text,
    /// `url` (`browser wait url`, not in the spec)
    Url,
}

/// `browser wait element` / `navigation` / `network-idle` / `condition` data.
///
/// ```text
/// ok browser wait element
/// elapsed_ms: 182
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitData {
    /// What was waited for.
    pub kind: WaitKind,
    /// Whether the condition held (a wait that times out fails with `TIMEOUT` instead).
    pub satisfied: bool,
    /// How long the wait took.
    pub elapsed_ms: u64,
    /// What was observed: `{"selector": ...}` for element, the condition's value, ...
    pub observed_value: serde_json::Value,
}

impl RenderText for WaitData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("elapsed_ms", self.elapsed_ms);
    }
}
