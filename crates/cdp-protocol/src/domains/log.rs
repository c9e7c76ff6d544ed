//! `Log` domain: browser log entries (network errors, interventions, violations).

use crate::protocol::{event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Log.enable`.
    Enable,
    "Log.enable"
);
unit_command!(
    /// `Log.disable`.
    Disable,
    "Log.disable"
);
unit_command!(
    /// `Log.clear`.
    Clear,
    "Log.clear"
);

/// A log entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEntry {
    /// `"javascript"`, `"network"`, `"security"`, ...
    #[serde(default)]
    pub source: String,
    /// `"verbose"`, `"info"`, `"warning"`, `"error"`.
    #[serde(default)]
    pub level: String,
    /// The message.
    #[serde(default)]
    pub text: String,
    /// Time in milliseconds since epoch.
    #[serde(default)]
    pub timestamp: f64,
    /// URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Line number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_number: Option<i64>,
}

/// Event `Log.entryAdded`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryAdded {
    /// The entry.
    pub entry: LogEntry,
}
event!(EntryAdded, "Log.entryAdded");
