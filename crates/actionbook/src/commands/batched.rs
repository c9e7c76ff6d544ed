//! The reference CLI's batch commands (not in the spec), built on the single ones:
//! `browser batch-new-tab` / `batch-open` runs `new-tab` over every URL, `browser batch-snapshot`
//! runs `snapshot` on each tab through the tab pipeline (the tabs in parallel, each in its own
//! queue), `browser batch-click` runs `click` on each selector in order inside one tab command.

use std::sync::Arc;

use envelope::{
    BatchClickData, BatchClickResult, BatchNewTabData, BatchSnapshotData, BatchSnapshotResult,
    CommandName, Context, Data,
};
use serde::{Deserialize, Serialize};

use super::interaction::Click;
use super::observation::{Snapshot, SnapshotFilters};
use super::tabs::NewTab;
use super::{CommandSpec, Cx, SessionCommand};
use crate::error::{CliError, FailedOpen, Result};
use crate::model::{SessionTarget, TabId, TabTarget};
use crate::reply::Done;
use crate::tab::pipeline::run_tab;
use crate::tab::{BrowserSession, TabCommand, TabCx};

/// `browser batch-new-tab` / `browser batch-open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BatchNewTab {
    /// URLs to open, one new tab each, in order.
    #[cfg_attr(
        feature = "cli",
        arg(long, required = true, num_args = 1.., value_name = "URL")
    )]
    pub urls: Vec<String>,
    /// Ids for the new tabs, one per URL in order (default: the next free `tN`).
    #[cfg_attr(feature = "cli", arg(long, num_args = 1.., value_name = "TID"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tabs: Vec<TabId>,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

impl SessionCommand for BatchNewTab {
    type Data = BatchNewTabData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<BatchNewTabData>> {
        if self.urls.is_empty() {
            return Err(CliError::InvalidArgument(
                "batch-new-tab requires at least 1 URL".into(),
            ));
        }
        if !self.tabs.is_empty() && self.tabs.len() != self.urls.len() {
            return Err(CliError::InvalidArgument(format!(
                "--tabs length ({}) must match --urls length ({})",
                self.tabs.len(),
                self.urls.len()
            )));
        }
        let urls = self.urls.clone();
        let open = NewTab {
            urls: self.urls,
            target: self.target,
            new_window: false,
            window: None,
            tab_ids: self.tabs,
        };
        match open.run(cx, slot).await {
            Ok(done) => {
                let tabs = if done.data.tabs.is_empty() {
                    vec![done.data.tab]
                } else {
                    done.data.tabs
                };
                Ok(Done::with_context(
                    BatchNewTabData::new(tabs),
                    Context::session(&slot.id),
                ))
            }
            Err(CliError::OpenFailed { opened, failed }) => Err(CliError::BatchOpenFailed {
                opened,
                failures: indexed(&urls, failed),
                total: urls.len(),
            }),
            Err(e) => Err(e),
        }
    }
}

/// Each failed URL with its position in `urls` (failures come in the order of the URLs, so a
/// URL given twice is matched to the right occurrence).
fn indexed(urls: &[String], failed: Vec<FailedOpen>) -> Vec<(usize, FailedOpen)> {
    let mut next = 0;
    failed
        .into_iter()
        .map(|f| {
            let i = urls[next.min(urls.len())..]
                .iter()
                .position(|u| *u == f.url)
                .map_or(next, |p| next + p);
            next = i + 1;
            (i, f)
        })
        .collect()
}

/// `browser batch-snapshot --tabs t1 t2 ...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BatchSnapshot {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
    /// The tabs to capture, in order.
    #[cfg_attr(
        feature = "cli",
        arg(long, required = true, num_args = 1.., value_name = "TID")
    )]
    pub tabs: Vec<TabId>,
    /// What each tab's tree includes.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub filters: SnapshotFilters,
}

impl BatchSnapshot {
    /// The `browser snapshot` request for one of the tabs.
    fn for_tab(&self, tab: &TabId) -> Snapshot {
        Snapshot {
            filters: self.filters.clone(),
            ..Snapshot::of(TabTarget::new(self.target.session.clone(), tab.clone()))
        }
    }
}

impl SessionCommand for BatchSnapshot {
    type Data = BatchSnapshotData;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, slot: &Arc<BrowserSession>) -> Result<Done<BatchSnapshotData>> {
        if self.tabs.is_empty() {
            return Err(CliError::InvalidArgument(
                "batch-snapshot requires at least 1 tab (--tabs t1 t2 ...)".into(),
            ));
        }
        let name = CommandName::BrowserSnapshot;
        let traits = CommandSpec::of(name)
            .map(|s| s.traits)
            .ok_or_else(|| CliError::internal("browser snapshot is not in the command table"))?;
        // Each tab through its own queue: the tabs are captured at the same time.
        let envelopes = futures::future::join_all(self.tabs.iter().map(|tab| {
            run_tab(
                cx.sessions,
                name,
                traits,
                self.for_tab(tab),
                cx.deadline,
                cx.env,
            )
        }))
        .await;
        let mut results = Vec::with_capacity(envelopes.len());
        let mut warnings = Vec::new();
        for (tab, env) in self.tabs.iter().zip(envelopes) {
            warnings.extend(env.meta.warnings.iter().map(|w| format!("{tab}: {w}")));
            if env.meta.truncated {
                warnings.push(format!("{tab}: the snapshot was truncated"));
            }
            let result = match (env.data(), env.error()) {
                (Some(Data::Snapshot(snapshot)), _) => {
                    let ctx = env.context();
                    BatchSnapshotResult::ok(
                        tab.to_string(),
                        snapshot.clone(),
                        ctx.and_then(|c| c.url.clone()).unwrap_or_default(),
                        ctx.and_then(|c| c.title.clone()).unwrap_or_default(),
                    )
                }
                (_, Some(error)) => {
                    BatchSnapshotResult::error(tab.to_string(), error.code.as_str(), &error.message)
                }
                _ => BatchSnapshotResult::error(
                    tab.to_string(),
                    envelope::ErrorCode::InternalError.as_str(),
                    "the snapshot returned no data",
                ),
            };
            results.push(result);
        }
        let mut done =
            Done::with_context(BatchSnapshotData::new(results), Context::session(&slot.id));
        done.warnings = warnings;
        Ok(done)
    }
}

/// `browser batch-click <selector> <selector>...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct BatchClick {
    /// `@eN` refs, CSS selectors or XPaths to click, in order (2 or more); each click is checked
    /// and confirmed as `browser click` does, and the first failure stops the batch.
    #[cfg_attr(
        feature = "cli",
        arg(required = true, num_args = 2.., value_name = "SELECTOR")
    )]
    #[schemars(length(min = 2))]
    pub selectors: Vec<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// Syntax errors of CSS selectors and XPaths, by the page's own parsers (`null` for a valid one).
const SYNTAX_JS: &str = "(items) => items.map(([kind, s]) => { try { \
  if (kind === 'css') document.createDocumentFragment().querySelector(s); \
  else document.createExpression(s); return null; } catch (e) { return String(e.message || e); } })";

/// Checks every selector of a batch before the first click: a malformed one stopped the batch
/// only after the clicks before it were made (INVALID_ARGUMENT, nothing clicked). XPaths in the
/// dialect of our own resolver are left to it.
async fn check_syntax(cx: &mut TabCx<'_>, selectors: &[String]) -> Result<()> {
    let invalid = |i: usize, selector: &str, reason: &str| {
        CliError::InvalidArgument(format!(
            "selector {} of {} ({selector:?}) is not valid: {reason}; nothing was clicked",
            i + 1,
            selectors.len()
        ))
    };
    let mut asked = Vec::new();
    for (i, selector) in selectors.iter().enumerate() {
        match crate::page::locate::target(selector) {
            Ok(a11y_snapshot::Target::Css(css)) => asked.push((i, "css", css)),
            Ok(a11y_snapshot::Target::Finder { selector: css, .. }) => {
                if let Ok(crate::page::query::Query::Extended(list)) =
                    crate::page::query::parse(&css)
                {
                    for part in crate::page::query::native_parts(&list) {
                        asked.push((i, "css", part));
                    }
                }
            }
            Ok(a11y_snapshot::Target::XPath(x)) if a11y_snapshot::xpath::parse(&x).is_none() => {
                asked.push((i, "xpath", x))
            }
            Ok(_) => {}
            Err(e) => return Err(invalid(i, selector, &e.to_string())),
        }
    }
    if asked.is_empty() {
        return Ok(());
    }
    let items: Vec<(&str, &str)> = asked.iter().map(|(_, k, s)| (*k, s.as_str())).collect();
    let expression = format!(
        "({SYNTAX_JS})({})",
        serde_json::to_string(&items).map_err(|e| CliError::internal(e.to_string()))?
    );
    let timeout = cx.deadline.capped(crate::deadline::QUICK_CALL);
    let errors: Vec<Option<String>> =
        crate::page::eval::read(&cx.page, &expression, timeout, "the selectors' syntax").await?;
    for ((i, _, _), error) in asked.iter().zip(errors) {
        if let Some(reason) = error {
            return Err(invalid(*i, &selectors[*i], &reason));
        }
    }
    Ok(())
}

impl TabCommand for BatchClick {
    type Data = BatchClickData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<BatchClickData>> {
        if self.selectors.len() < 2 {
            return Err(CliError::InvalidArgument(
                "batch-click requires at least 2 selectors (use `browser click` for one)".into(),
            ));
        }
        check_syntax(cx, &self.selectors).await?;
        let total = self.selectors.len();
        let mut results = Vec::with_capacity(total);
        let mut warnings = Vec::new();
        for (index, selector) in self.selectors.into_iter().enumerate() {
            let click = Click::new(selector.clone(), self.target.clone());
            let outcome = click.run(cx).await;
            // A click may change the page: what was read of it before is no longer trusted.
            cx.state.info_trusted = false;
            match outcome {
                Ok(done) => warnings.extend(done.warnings),
                Err(cause) => {
                    return Err(CliError::BatchClickFailed {
                        index,
                        selector,
                        total,
                        cause: Box::new(cause),
                    });
                }
            }
            results.push(BatchClickResult {
                index: index as u64,
                selector,
            });
        }
        let mut done = Done::data(BatchClickData::new(results));
        done.warnings = warnings;
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(url: &str) -> FailedOpen {
        FailedOpen {
            url: url.into(),
            tab_id: "t9".into(),
            error: Box::new(CliError::internal("x")),
        }
    }

    #[test]
    fn failed_urls_get_their_own_positions_even_when_repeated() {
        let urls: Vec<String> = ["a", "b", "a", "c"].map(String::from).to_vec();
        let got: Vec<usize> = indexed(&urls, vec![failed("a"), failed("a"), failed("c")])
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(got, vec![0, 2, 3]);
    }

    #[test]
    fn a_failed_click_says_where_to_resume() {
        let e = CliError::BatchClickFailed {
            index: 1,
            selector: "#b".into(),
            total: 3,
            cause: Box::new(CliError::ElementNotFound {
                selector: "#b".into(),
            }),
        };
        let info = e.to_info();
        assert_eq!(info.code.as_str(), "BATCH_CLICK_ERROR");
        assert_eq!(
            info.hint.as_deref(),
            Some("completed 1/3, retry from index 1")
        );
        let d = info.details.unwrap_or_default();
        assert_eq!(d["completed"], 1);
        assert_eq!(d["failed_index"], 1);
        assert_eq!(d["failed_selector"], "#b");
        assert_eq!(d["cause"]["code"], "ELEMENT_NOT_FOUND");
        assert!(
            info.message
                .starts_with("click failed at index 1 (selector: #b): "),
            "{}",
            info.message
        );
    }
}
