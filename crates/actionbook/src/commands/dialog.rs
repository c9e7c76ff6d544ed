//! `browser dialog accept|dismiss|default` (beyond the spec; agent-browser and Playwright MCP can
//! answer dialogs): how the tab answers the JavaScript dialogs that ask something.
//!
//! A dialog blocks its page until answered, so the tab answers each as it opens
//! (`tab::services::dialogs`): by default `confirm` and `prompt` are dismissed and leaving a page
//! is allowed. An agent that means to agree says so before the command that opens the dialog:
//! `browser dialog accept` answers the next one with OK (`--text` for a prompt), `--always` every
//! one (kept with the session, restarts of the daemon included) until `browser dialog default`.

use envelope::{Document, RenderText, TextBody};
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::reply::{Done, document};
use crate::store::DialogPolicy;
use crate::tab::{TabCommand, TabCx};

/// `browser dialog <accept|dismiss|default>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Dialog {
    /// `accept` (OK), `dismiss` (Cancel), or `default` (confirm and prompt dismissed, leaving a
    /// page allowed). Alerts are always accepted: they ask nothing.
    #[cfg_attr(feature = "cli", arg(value_enum))]
    pub answer: DialogAnswer,
    /// What an accepted prompt answers (its default text without it).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "TEXT", allow_hyphen_values = true)
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Answer every dialog that asks so, not only the next one (kept until `browser dialog
    /// default`).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub always: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// How `browser dialog` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum DialogAnswer {
    /// OK: confirm is true, prompt gives its text, the page may be left.
    Accept,
    /// Cancel: confirm is false, prompt gives null, the page stays.
    Dismiss,
    /// Back to the default: confirm and prompt dismissed, leaving a page allowed.
    Default,
}

/// `browser dialog` data.
#[derive(Debug, Serialize)]
struct DialogData {
    /// `accept`, `dismiss` or `default`.
    answer: DialogAnswer,
    /// A prompt's answer, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// `next` (the next dialog that asks) or `every`.
    applies_to: &'static str,
}

impl RenderText for DialogData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        let answer = match self.answer {
            DialogAnswer::Accept => "accept",
            DialogAnswer::Dismiss => "dismiss",
            DialogAnswer::Default => "default",
        };
        body.line(format_args!("answer: {answer}"));
        if let Some(t) = &self.text {
            body.line(format_args!("text: {t:?}"));
        }
        body.line(format_args!("applies_to: {}", self.applies_to));
    }
}

impl TabCommand for Dialog {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Sets the tab's answer (in the tab's state, read by its dialog answerer; an answer for
    /// every dialog also in the session record).
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let policy = match self.answer {
            DialogAnswer::Default => {
                if self.always || self.text.is_some() {
                    return Err(CliError::InvalidArgument(
                        "browser dialog default takes neither --always nor --text: it is the \
                         default for every dialog"
                            .into(),
                    ));
                }
                None
            }
            DialogAnswer::Dismiss if self.text.is_some() => {
                return Err(CliError::InvalidArgument(
                    "--text is what an accepted prompt answers: use it with accept".into(),
                ));
            }
            answer => Some(DialogPolicy {
                accept: answer == DialogAnswer::Accept,
                prompt_text: self.text.clone(),
                once: !self.always,
            }),
        };
        let kept = policy.clone().filter(|p| !p.once);
        let tab = cx.tab_id.clone();
        cx.session
            .update(|r| {
                if let Some(t) = r.tab_mut(&tab) {
                    t.dialog_policy = kept;
                }
            })
            .await?;
        *cx.state
            .dialog_policy
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = policy;
        cx.state.dialog_policy_loaded = true;
        Ok(Done::data(document(&DialogData {
            answer: self.answer,
            text: self.text,
            applies_to: match (self.answer, self.always) {
                (DialogAnswer::Default, _) | (_, true) => "every",
                _ => "next",
            },
        })?))
    }
}
