//! `browser local-storage *` / `session-storage *` data.

use serde::{Deserialize, Serialize};

use super::ChangeAction;
use crate::text::{OneLine, RenderText, TextBody};

/// Which storage (`data.storage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageKind {
    /// `window.localStorage`
    Local,
    /// `window.sessionStorage`
    Session,
}

/// A stored key and value.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StorageItem {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// `... list` data.
///
/// ```text
/// 1 key
/// theme=dark
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageListData {
    /// Which storage.
    pub storage: StorageKind,
    /// Its entries.
    pub items: Vec<StorageItem>,
}

impl RenderText for StorageListData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.items.len(), "key", "keys");
        // One entry a line: a line break inside a key or value is shown as `\n`.
        for i in &self.items {
            body.line(format_args!("{}={}", OneLine(&i.key), OneLine(&i.value)));
        }
    }
}

/// `... get` data: `item` is `null` when the key is absent (then nothing is printed
/// after the header).
///
/// ```text
/// theme=dark
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageGetData {
    /// Which storage.
    pub storage: StorageKind,
    /// The entry.
    pub item: Option<StorageItem>,
}

impl RenderText for StorageGetData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        if let Some(i) = &self.item {
            body.line(format_args!("{}={}", i.key, i.value));
        }
    }
}

/// `... set` / `delete` / `clear` data, printed as just `ok <command>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageChangeData {
    /// Which storage.
    pub storage: StorageKind,
    /// What was done.
    pub action: ChangeAction,
    /// How many keys were affected.
    pub affected: u64,
}

impl RenderText for StorageChangeData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, _body: &mut TextBody<'_>) {}
}
