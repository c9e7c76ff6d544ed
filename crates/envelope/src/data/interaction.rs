//! Interaction data: action commands (click/hover/focus/press/drag/mouse-move/scroll),
//! input commands (type/fill/select/upload) and eval.

use serde::{Deserialize, Serialize};

use super::Target;
use crate::text::{RenderText, TextBody};

/// Which action ran (`data.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionKind {
    /// `click`
    Click,
    /// `hover`
    Hover,
    /// `focus`
    Focus,
    /// `press`
    Press,
    /// `drag`
    Drag,
    /// `mouse-move`
    MouseMove,
    /// `scroll`
    Scroll,
}

/// What an action changed (`data.changed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Changed {
    /// The tab navigated (the envelope's `context.url` is the new URL).
    pub url_changed: bool,
    /// Focus moved.
    pub focus_changed: bool,
    /// Scrolling displaced something (`scroll` only; omitted when `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_changed: Option<bool>,
}

/// Action command data.
///
/// ```text
/// ok browser click
/// target: button[type=submit]
/// ```
///
/// Each present optional field adds a line, in this order: `target:`,
/// `destination:`, `keys:`, `direction:`, `pixels:`, `align:`, `container:`, `new_tab_id:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionData {
    /// Which action.
    pub action: ActionKind,
    /// The element or point acted on (omitted for chords and page scrolls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Where a drag ended (`drag` only; omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destination: Option<Target>,
    /// The key or chord pressed (`press` only; omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    /// `up`/`down`/`left`/`right`/`top`/`bottom`/`into-view` (`scroll` only; omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// Distance of a directional scroll (omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixels: Option<i64>,
    /// What changed.
    pub changed: Changed,
    /// Alignment of `scroll into-view` (`start`/`center`/`end`/`nearest`; omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<String>,
    /// The scroll container of `scroll --container` (omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The tab `click --new-tab` opened (omitted otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tab_id: Option<String>,
}

impl ActionData {
    /// Data for `action` on `target`, nothing changed; set the other fields as needed.
    pub fn new(action: ActionKind, target: impl Into<Option<Target>>) -> Self {
        ActionData {
            action,
            target: target.into(),
            destination: None,
            keys: None,
            direction: None,
            pixels: None,
            changed: Changed::default(),
            align: None,
            container: None,
            new_tab_id: None,
        }
    }
}

impl RenderText for ActionData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        if let Some(t) = &self.target {
            body.field("target", t);
        }
        if let Some(t) = &self.destination {
            body.field("destination", t);
        }
        if let Some(k) = &self.keys {
            body.field("keys", k);
        }
        if let Some(d) = &self.direction {
            body.field("direction", d);
        }
        if let Some(p) = self.pixels {
            body.field("pixels", p);
        }
        if let Some(a) = &self.align {
            body.field("align", a);
        }
        if let Some(c) = &self.container {
            body.field("container", c);
        }
        if let Some(t) = &self.new_tab_id {
            body.field("new_tab_id", t);
        }
    }
}

/// Which input command ran (`data.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// `type`
    Type,
    /// `fill`
    Fill,
    /// `select`
    Select,
    /// `upload`
    Upload,
}

/// A summary of what was entered (`data.value_summary`); the text itself is not echoed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ValueSummary {
    /// `type` / `fill`: `{ "text_length": 10 }`.
    Text {
        /// Length of the text entered, in characters.
        text_length: u64,
    },
    /// `select`: `{ "value": "...", "by_text": false }`.
    Select {
        /// The value (or display text) selected; several values of a `<select multiple>` are
        /// joined with `,` (and listed in `values`).
        value: String,
        /// Whether `value` matched display text rather than the value attribute.
        by_text: bool,
        /// Every value selected, when there were several (omitted for one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        values: Option<Vec<String>>,
    },
    /// `upload`: `{ "files": ["/abs/a.pdf"], "count": 1 }`.
    Files {
        /// Absolute paths uploaded.
        files: Vec<String>,
        /// Number of files.
        count: u64,
    },
}

/// Input command data.
///
/// ```text
/// ok browser fill
/// target: textarea[name=q]
/// text_length: 10
/// ```
///
/// `select` prints `value:` and `by_text:`; `upload` prints one `file:` line per file
/// and `count:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputData {
    /// Which input command.
    pub action: InputKind,
    /// The element (omitted when typing into whatever has focus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// What was entered.
    pub value_summary: ValueSummary,
}

impl RenderText for InputData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        if let Some(t) = &self.target {
            body.field("target", t);
        }
        match &self.value_summary {
            ValueSummary::Text { text_length } => body.field("text_length", text_length),
            ValueSummary::Select { value, by_text, .. } => {
                body.field("value", value);
                body.field("by_text", by_text);
            }
            ValueSummary::Files { files, count } => {
                for f in files {
                    body.field("file", f);
                }
                body.field("count", count);
            }
        }
    }
}

/// `browser eval` data, printed as the value: a string result as itself, anything
/// else as `preview`.
///
/// ```text
/// 42
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvalData {
    /// The result as JSON (`null` for `undefined`).
    pub value: serde_json::Value,
    /// Its JavaScript type (`number`, `string`, `object`, `undefined`, ...).
    #[serde(rename = "type")]
    pub value_type: String,
    /// A short printable form (`42`, `{"a":1}`).
    pub preview: String,
    /// `location.href` before the script ran (omitted when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_url: Option<String>,
    /// `location.origin` before the script ran (omitted when unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_origin: Option<String>,
    /// `document.readyState` before the script ran (omitted when unknown).
    #[serde(
        default,
        rename = "pre_readyState",
        skip_serializing_if = "Option::is_none"
    )]
    pub pre_ready_state: Option<String>,
}

impl RenderText for EvalData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        match &self.value {
            serde_json::Value::String(s) => body.line(s),
            _ => body.line(&self.preview),
        }
    }
}
