//! `--trace <dir>`: each step of `ai` (and a `perform`) written as `step-N.json` for debugging:
//! the messages the step sent, the model's answer, what ran and how it ended. Variables' values
//! are masked in every string; keys are never in a message.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::actions::Outcome;
use crate::error::{AgentError, Result};
use crate::model::Message;
use crate::variables::Variables;

/// One step as written.
#[derive(Debug, Serialize)]
pub struct TraceStep<'a> {
    /// 1-based.
    pub step: u32,
    /// The command (`browser ai`).
    pub command: &'a str,
    /// The messages this step added to the conversation: its page, the model's answers (a
    /// repair round included), the tool results.
    pub messages: &'a [Message],
    /// What ran.
    pub actions: &'a [Outcome],
    /// The error that ended it, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where a command's trace goes.
#[derive(Debug, Clone)]
pub struct Trace {
    dir: PathBuf,
}

impl Trace {
    /// A trace into `dir` (created when missing).
    pub async fn open(dir: &Path) -> Result<Trace> {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|source| AgentError::File {
                path: dir.display().to_string(),
                source,
            })?;
        Ok(Trace {
            dir: dir.to_path_buf(),
        })
    }

    /// Writes `step` (masked by `vars`) as `step-N.json`.
    pub async fn write(&self, step: &TraceStep<'_>, vars: &Variables) -> Result<()> {
        let path = self.dir.join(format!("step-{}.json", step.step));
        let fail = |source: std::io::Error| AgentError::File {
            path: path.display().to_string(),
            source,
        };
        let json = serde_json::to_value(step).map_err(|e| fail(e.into()))?;
        let masked: Value = vars.mask_json(&json);
        let bytes = serde_json::to_vec_pretty(&masked).map_err(|e| fail(e.into()))?;
        tokio::fs::write(&path, bytes).await.map_err(fail)
    }
}
