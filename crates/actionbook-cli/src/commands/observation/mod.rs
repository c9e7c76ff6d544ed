//! Observation (spec 10): `browser snapshot`, `title`, `url` here; [`capture`] (`screenshot`,
//! `pdf`), [`query`], [`read`] (`viewport`, `html`, `text`, `value`, `attr`, `attrs`, `box`,
//! `styles`, `describe`, `state`, `inspect-point`) and [`logs`] (`logs console`, `logs errors`).

use a11y_snapshot::{SnapshotOptions, node_list, render_actionbook};
use envelope::{PageValueData as ValueData, SnapshotData, SnapshotNode, SnapshotStats};
use serde::{Deserialize, Serialize};

use super::navigation::tab_only;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::locate;
use crate::reply::Done;
use crate::store::{self, artifacts};
use crate::tab::{TabCommand, TabCx};

pub mod capture;
pub mod logs;
pub mod query;
pub mod read;

pub use capture::{ImageKind, Pdf, Screenshot};
pub use logs::{LogsConsole, LogsErrors};
pub use query::{Query, QueryMode};
pub use read::{
    Attr, Attrs, Describe, ElementBox, Html, InspectPoint, State, Styles, Text, TextKind, Value,
    Viewport,
};

/// `browser snapshot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Snapshot {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Include only interactive elements.
    #[cfg_attr(feature = "cli", arg(short = 'i', long))]
    #[serde(default)]
    pub interactive: bool,
    /// Include cursor-interactive custom elements (cursor:pointer, onclick, tabindex, ...): on
    /// unless `--cursor false`.
    #[cfg_attr(
        feature = "cli",
        arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<bool>,
    /// Remove empty structural nodes.
    #[cfg_attr(feature = "cli", arg(short = 'c', long))]
    #[serde(default)]
    pub compact: bool,
    /// Limit the tree depth.
    #[cfg_attr(feature = "cli", arg(short = 'd', long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
    /// Limit to the subtree of this element.
    #[cfg_attr(feature = "cli", arg(short = 's', long, value_name = "SELECTOR"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

tab_only! {
    /// `browser title`.
    Title;
    /// `browser url`.
    Url;
}

impl TabCommand for Snapshot {
    type Data = SnapshotData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<SnapshotData>> {
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let snap = tokio::time::timeout(
            deadline.remaining(),
            cx.state.frames.snapshot(&page, &deadline),
        )
        .await
        .map_err(|_| deadline.timeout(crate::page::frames::SNAPSHOT_TIMED_OUT))??;
        cx.save_refs()?;
        let subtree = match &self.selector {
            Some(sel) => {
                let found = locate::locate(&mut cx.state.frames, &page, sel, &deadline).await?;
                Some(found.encoded)
            }
            None => None,
        };
        let opts = SnapshotOptions {
            interactive_only: self.interactive,
            cursor: self.cursor.unwrap_or(true),
            compact: self.compact,
            max_depth: self.depth,
            subtree,
        };
        let text = render_actionbook(&snap, &opts);
        let path = artifacts::snapshot_file(&cx.session.dir, &cx.tab_id);
        store::write_atomic(&path, text.as_bytes()).map_err(|source| CliError::ArtifactWrite {
            path: path.display().to_string(),
            source,
        })?;
        artifacts::prune_snapshots(&cx.session.dir, &cx.tab_id, artifacts::snapshots_per_tab());
        let (nodes, stats) = node_list(&snap, &opts);
        let nodes = nodes
            .into_iter()
            .map(|n| SnapshotNode {
                ref_id: n.reference.to_string(),
                role: n.role,
                name: n.name,
                value: n.value,
            })
            .collect();
        Ok(Done::data(SnapshotData::new(
            path.display().to_string(),
            nodes,
            SnapshotStats {
                node_count: stats.node_count as u64,
                interactive_count: stats.interactive_count as u64,
            },
        )))
    }
}

impl TabCommand for Title {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = cx.page_info().await?;
        cx.url = Some(url);
        cx.title = Some(title.clone());
        Ok(Done::data(ValueData { value: title }))
    }
}

impl TabCommand for Url {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = cx.page_info().await?;
        cx.url = Some(url.clone());
        cx.title = Some(title);
        Ok(Done::data(ValueData { value: url }))
    }
}
