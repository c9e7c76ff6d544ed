//! `browser title`, `url`, `eval`, `snapshot`, `click`, `fill`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args::{self, TabTarget};
use crate::browser;
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::Result;
use crate::output::{TextBody, ok_lines};

/// `data` of `browser title` / `browser url`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ValueData {
    /// The value.
    pub value: String,
}

impl TextBody for ValueData {
    fn text_body(&self, _command: &str, out: &mut Vec<String>) {
        out.push(self.value.clone());
    }
}

/// `data` of `browser eval`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalData {
    /// The JSON value of the result.
    pub value: Value,
    /// The JavaScript type (`number`, `string`, `object`, `undefined` ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// The value as text (what text mode prints).
    pub preview: String,
}

impl TextBody for EvalData {
    fn text_body(&self, _command: &str, out: &mut Vec<String>) {
        out.push(self.preview.clone());
    }
}

/// `data.target` of action commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionTarget {
    /// The selector as given.
    pub selector: String,
}

/// `data.changed` of action commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Changed {
    /// Whether the URL changed.
    pub url_changed: bool,
    /// Whether the focus moved.
    pub focus_changed: bool,
}

/// `data.value_summary` of input commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ValueSummary {
    /// Characters inserted.
    pub text_length: usize,
}

/// `data` of `browser click` / `browser fill`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionData {
    /// `click` or `fill`.
    pub action: String,
    /// The target.
    pub target: ActionTarget,
    /// What changed (click).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<Changed>,
    /// What went in (fill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_summary: Option<ValueSummary>,
    /// URL after the action.
    pub post_url: String,
    /// Title after the action.
    pub post_title: String,
}

impl TextBody for ActionData {
    fn text_body(&self, command: &str, out: &mut Vec<String>) {
        let mut fields = vec![("target", self.target.selector.clone())];
        if let Some(v) = &self.value_summary {
            fields.push(("text_length", v.text_length.to_string()));
        }
        ok_lines(command, out, &fields);
    }
}

/// One ref'd node of a snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotNode {
    /// `eN`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Role.
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Value.
    pub value: String,
}

/// `data.stats` of a snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotStats {
    /// Ref'd nodes.
    pub node_count: usize,
    /// Interactive ones among them.
    pub interactive_count: usize,
}

/// `data` of `browser snapshot`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotData {
    /// Always `snapshot`.
    pub format: String,
    /// The file holding the snapshot text.
    pub path: String,
    /// The ref'd nodes.
    pub nodes: Vec<SnapshotNode>,
    /// Counts.
    pub stats: SnapshotStats,
}

impl TextBody for SnapshotData {
    fn text_body(&self, _command: &str, out: &mut Vec<String>) {
        out.push(
            "Refs are stable across snapshots — if the DOM node stays the same, the ref stays the same."
                .to_string(),
        );
        out.push(format!("output saved to {}", self.path));
    }
}

impl TabCommand for args::Title {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = browser::page_info(&cx.page, &cx.call).await?;
        cx.url = Some(url);
        cx.title = Some(title.clone());
        Ok(Done::data(ValueData { value: title }))
    }
}

impl TabCommand for args::Url {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = browser::page_info(&cx.page, &cx.call).await?;
        cx.url = Some(url.clone());
        cx.title = Some(title);
        Ok(Done::data(ValueData { value: url }))
    }
}

impl TabCommand for args::Eval {
    type Data = EvalData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<EvalData>> {
        let v = browser::evaluate(&cx.page, &self.code, &cx.call, "browser eval").await?;
        Ok(Done::data(EvalData {
            value: v.value,
            kind: v.kind,
            preview: v.preview,
        }))
    }
}
