//! `browser snapshot`, `click`, `fill`: built on frame-graph and a11y-snapshot.

use crate::args::{self, TabTarget};
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::{CliError, Result};

use envelope::{ActionData, InputData, SnapshotData};

impl TabCommand for args::Snapshot {
    type Data = SnapshotData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, _cx: &mut TabCx<'_>) -> Result<Done<SnapshotData>> {
        Err(CliError::Unsupported(
            "browser snapshot is not available in this build yet".into(),
        ))
    }
}

impl TabCommand for args::Click {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, _cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        Err(CliError::Unsupported(
            "browser click is not available in this build yet".into(),
        ))
    }
}

impl TabCommand for args::Fill {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, _cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        Err(CliError::Unsupported(
            "browser fill is not available in this build yet".into(),
        ))
    }
}
