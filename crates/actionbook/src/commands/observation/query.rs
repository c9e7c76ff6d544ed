//! `browser query one|all|nth <n>|count <query>` (spec 10.7) with the cardinality rules of 5.5.

use envelope::{QueryData, QueryMatch};
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::query::{self, Match, Want};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// How many matches `query all` describes (the count is always the real one; more is reported
/// as `meta.truncated`).
pub(crate) const ALL_LIMIT: usize = 1000;

/// `browser query <mode> <query>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Query {
    /// `one` (exactly one match), `all`, `nth` (the n-th, 1-based) or `count`.
    #[cfg_attr(feature = "cli", arg(value_name = "MODE"))]
    pub mode: QueryMode,
    /// The query (CSS with `:visible`, `:hidden`, `:contains(text)`, `:has-text(text)`, `:has(...)`, `:enabled`,
    /// `:disabled`, `:checked`; or an XPath starting with `/`); for `nth`, the index first. It
    /// searches the top document and its open shadow roots, not inside iframes (a snapshot's refs
    /// reach those).
    #[cfg_attr(
        feature = "cli",
        arg(value_name = "QUERY", num_args = 1..=2, required = true)
    )]
    pub args: Vec<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// A mode of `browser query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum QueryMode {
    /// Exactly one match.
    One,
    /// Every match.
    All,
    /// The n-th match (1-based).
    Nth,
    /// The number of matches.
    Count,
}

fn item(m: Match) -> QueryMatch {
    QueryMatch {
        selector: m.selector,
        tag: m.tag,
        text: m.text,
        visible: m.visible,
        enabled: m.enabled,
    }
}

impl Query {
    /// `(query, n)` from the positional words.
    fn words(&self) -> Result<(String, Option<u64>)> {
        match (self.mode, self.args.as_slice()) {
            (QueryMode::Nth, [n, q]) => {
                let n: u64 = n.trim().parse().map_err(|_| {
                    CliError::InvalidArgument(format!(
                        "query nth takes a 1-based index before the query, not {n:?}"
                    ))
                })?;
                Ok((q.clone(), Some(n)))
            }
            (QueryMode::Nth, _) => Err(CliError::InvalidArgument(
                "query nth takes an index and a query: `query nth 2 .item`".into(),
            )),
            (_, [q]) => Ok((q.clone(), None)),
            _ => Err(CliError::InvalidArgument(
                "query one|all|count take exactly one query".into(),
            )),
        }
    }
}

impl TabCommand for Query {
    type Data = QueryData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<QueryData>> {
        let (q, n) = self.words()?;
        // Through frames (`iframe#pay >> .row`): the rest is a query of that frame's document,
        // and what it finds is named with the frame part before it.
        let page = cx.page.clone();
        let scope =
            crate::page::locate::frame_scope(&mut cx.state.frames, &page, &q, &cx.deadline).await?;
        let parsed = query::parse(scope.as_ref().map_or(q.as_str(), |s| s.rest.as_str()))?;
        let want = match (self.mode, n) {
            (QueryMode::One, _) => Want::One,
            (QueryMode::All, _) => Want::All { limit: ALL_LIMIT },
            (QueryMode::Count, _) => Want::Count,
            (QueryMode::Nth, n) => Want::Nth(n.unwrap_or(0)),
        };
        let mut found = match &scope {
            Some(s) => query::run(&s.session, Some(s.context), &parsed, want, &cx.deadline).await?,
            None => query::run(&cx.page, None, &parsed, want, &cx.deadline).await?,
        };
        if let Some(s) = &scope {
            for m in &mut found.items {
                m.selector = format!("{}{}", s.prefix, m.selector);
            }
            for sample in &mut found.samples {
                *sample = format!("{}{sample}", s.prefix);
            }
        }
        let count = found.count;
        let mut items = found.items.into_iter().map(item);
        let data = match self.mode {
            QueryMode::Count => QueryData::Count { query: q, count },
            QueryMode::All => {
                let items: Vec<QueryMatch> = items.collect();
                let truncated = (items.len() as u64) < count;
                let mut done = Done::data(QueryData::All {
                    query: q,
                    count,
                    items,
                });
                done.truncated = truncated;
                if truncated {
                    done.warnings
                        .push(format!("{count} matches; the first {ALL_LIMIT} are listed"));
                }
                return Ok(done);
            }
            QueryMode::One => match (count, items.next()) {
                (1, Some(item)) => QueryData::One {
                    query: q,
                    count,
                    item,
                },
                (0, _) => return Err(CliError::QueryNoMatch { query: q }),
                _ => {
                    return Err(CliError::MultipleMatches {
                        query: q,
                        count,
                        samples: found.samples,
                    });
                }
            },
            QueryMode::Nth => {
                let index = n.unwrap_or(0);
                match items.next() {
                    Some(item) if index >= 1 && index <= count => QueryData::Nth {
                        query: q,
                        index,
                        count,
                        item,
                    },
                    _ => {
                        return Err(CliError::IndexOutOfRange {
                            query: q,
                            index,
                            count,
                            samples: found.samples,
                        });
                    }
                }
            }
        };
        Ok(Done::data(data))
    }
}
