//! Actions of a Rust program embedding the engine: a [`CustomAction`] registered with
//! [`add_action`] is offered to the model beside the built-in ones (as a tool with its own
//! input schema) by `perform` and every step of `ai`, and runs when the model picks it.

use std::sync::{Arc, PoisonError, RwLock};

use actionbook::TabTarget;
use actionbook::commands::extension::{CommandRunner, ExtensionCall};
use serde_json::Value;

use crate::actions::{ACTION_TOOLS, ENDS};
use crate::model::ToolSpec;

/// What a custom action gets when it runs: the engine's commands, the tab, the deadline.
pub struct ActionCx<'a> {
    /// Runs the engine's commands (on this tab or any other).
    pub runner: &'a dyn CommandRunner,
    /// The tab the agent works on.
    pub target: &'a TabTarget,
    /// What is left of the command's `--timeout`.
    pub deadline: &'a actionbook::Deadline,
}

impl std::fmt::Debug for ActionCx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionCx")
            .field("target", self.target)
            .finish_non_exhaustive()
    }
}

/// An action the embedding program offers the model.
#[async_trait::async_trait]
pub trait CustomAction: Send + Sync + std::fmt::Debug {
    /// The tool's name (`[a-z_]+`, not one of ours: `click`, `done`, ...).
    fn name(&self) -> &str;
    /// What it does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of its input (an object schema).
    fn input_schema(&self) -> Value;
    /// Runs it on `input` (as the model gave it; variables as `<<name>>`): what it did, told
    /// back to the model, or why it failed (also told; the step ends there).
    async fn run(&self, input: Value, cx: ActionCx<'_>) -> Result<String, String>;
}

/// The registered actions (process-wide, as the engine's command registry).
static ACTIONS: RwLock<Vec<Arc<dyn CustomAction>>> = RwLock::new(Vec::new());

/// Registers `action`; `false` (and nothing registered) when its name is one of ours, is not
/// `[a-z][a-z0-9_]*`, or is taken.
pub fn add_action(action: Arc<dyn CustomAction>) -> bool {
    let name = action.name().to_string();
    let well_formed = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !well_formed || ACTION_TOOLS.contains(&name.as_str()) || ENDS.contains(&name.as_str()) {
        return false;
    }
    let mut list = ACTIONS.write().unwrap_or_else(PoisonError::into_inner);
    if list.iter().any(|a| a.name() == name) {
        return false;
    }
    list.push(action);
    true
}

/// The action named `name`.
pub fn action(name: &str) -> Option<Arc<dyn CustomAction>> {
    ACTIONS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .find(|a| a.name() == name)
        .cloned()
}

/// The registered actions as tools.
pub fn tools() -> Vec<ToolSpec> {
    ACTIONS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .map(|a| ToolSpec {
            name: a.name().to_string(),
            description: a.description().to_string(),
            input_schema: a.input_schema(),
        })
        .collect()
}

/// Runs the custom action `name` for the call.
pub async fn run(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    name: &str,
    input: Value,
) -> Result<String, String> {
    let Some(action) = action(name) else {
        return Err(format!("there is no action {name:?}"));
    };
    let cx = ActionCx {
        runner: call.runner,
        target,
        deadline: call.deadline,
    };
    action.run(input, cx).await
}
