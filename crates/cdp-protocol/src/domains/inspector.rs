//! `Inspector` domain: target-level notices sent to every session of a target, no enable needed
//! for what happens while attached; [`Enable`] also announces a crash that happened before.

use crate::protocol::{event, unit_command};
use serde::{Deserialize, Serialize};

unit_command!(
    /// `Inspector.enable`: answered by the browser process; on a target whose renderer is gone
    /// already, `Inspector.targetCrashed` comes before the answer.
    Enable,
    "Inspector.enable"
);

/// `Inspector.targetCrashed`: the target's renderer process is gone.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TargetCrashed {}
event!(TargetCrashed, "Inspector.targetCrashed");

/// `Inspector.targetReloadedAfterCrash`: the crashed target was loaded again.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TargetReloadedAfterCrash {}
event!(
    TargetReloadedAfterCrash,
    "Inspector.targetReloadedAfterCrash"
);

/// `Inspector.detached`: the inspector was detached from the target.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Detached {
    /// Why (e.g. `"Render process gone."`).
    #[serde(default)]
    pub reason: String,
}
event!(Detached, "Inspector.detached");
