//! `browser snapshot` (spec 10.1) and what goes beyond it for agents that pay per byte: diffs
//! against the tab's earlier snapshots (`--diff`, `--since`), new-node marks (`--mark-new`), a
//! byte budget with continuation pages (`--max-bytes`, `--max-tokens`, `--page`), and the
//! viewport and open-dialog scopes (`--viewport`, `--modal`). Without those flags the answer is
//! exactly the spec's. Every snapshot becomes a revision of the tab (`crate::tab::revisions`).

use std::borrow::Cow;

use a11y_snapshot::{
    Outline, Paging, SnapshotOptions, diff_with, node_list, outline::NO_ROW, paginate, render_delta,
};
use envelope::{Pagination, SnapshotData, SnapshotDiff, SnapshotNode, SnapshotStats};
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::locate;
use crate::reply::Done;
use crate::store::{self, artifacts};
use crate::tab::revisions::{DocumentKey, Lens, Revision, Scope};
use crate::tab::{TabCommand, TabCx};

/// What a snapshot's tree includes (`browser snapshot` and `batch-snapshot` share them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SnapshotFilters {
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
    /// Limit to the subtree of this element (in each tab).
    #[cfg_attr(feature = "cli", arg(short = 's', long, value_name = "SELECTOR"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// `browser snapshot`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Snapshot {
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// What the tree includes.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub filters: SnapshotFilters,
    /// Only what changed since the tab's previous snapshot: lines marked `+` (added), `-`
    /// (removed), `~` (changed) under their unmarked ancestors.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub diff: bool,
    /// Diff against this earlier revision (implies `--diff`; the tab keeps the last 8).
    #[cfg_attr(feature = "cli", arg(long, value_name = "REVISION"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Mark ` [new]` the lines that were not in the tab's previous snapshot.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mark_new: bool,
    /// Cut the snapshot into pages of at most N bytes: the open dialog first, then what is in the
    /// viewport, then the rest in document order; `--page 2` fetches the next one.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<usize>,
    /// Like `--max-bytes`, counting a token as 4 bytes.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// Page N (from 1) of the tab's last snapshot cut to a budget, served without a new capture.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Only nodes whose box intersects the viewport (in any frame), with their ancestors.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub viewport: bool,
    /// Only the topmost open dialog's subtree (the whole tree, with a warning, when none is open).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub modal: bool,
}

impl Snapshot {
    /// A plain `browser snapshot` of `target` (set the other fields with struct update syntax).
    pub fn of(target: TabTarget) -> Snapshot {
        Snapshot {
            target,
            filters: SnapshotFilters::default(),
            diff: false,
            since: None,
            mark_new: false,
            max_bytes: None,
            max_tokens: None,
            page: None,
            viewport: false,
            modal: false,
        }
    }

    /// The byte budget asked for, checked.
    fn budget(&self) -> Result<Option<usize>> {
        match (self.max_bytes, self.max_tokens) {
            (Some(_), Some(_)) => Err(CliError::InvalidArgument(
                "--max-bytes and --max-tokens both set a budget: give one".into(),
            )),
            (Some(0), _) | (_, Some(0)) => Err(CliError::InvalidArgument(
                "the snapshot budget must be at least 1".into(),
            )),
            (Some(b), None) => Ok(Some(b)),
            (None, Some(t)) => Ok(Some(t.saturating_mul(4))),
            (None, None) => Ok(None),
        }
    }

    fn scope(&self) -> Result<Option<Scope>> {
        match (self.viewport, self.modal) {
            (true, true) => Err(CliError::InvalidArgument(
                "--viewport and --modal are two scopes: give one".into(),
            )),
            (true, false) => Ok(Some(Scope::Viewport)),
            (false, true) => Ok(Some(Scope::Modal)),
            (false, false) => Ok(None),
        }
    }

    fn is_diff(&self) -> bool {
        self.diff || self.since.is_some()
    }

    /// Any flag beyond the spec's (the answer then carries `data.revision`).
    fn extended(&self) -> bool {
        self.is_diff()
            || self.mark_new
            || self.max_bytes.is_some()
            || self.max_tokens.is_some()
            || self.page.is_some()
            || self.viewport
            || self.modal
    }

    fn lens(&self) -> Lens {
        let f = &self.filters;
        Lens {
            interactive: f.interactive,
            cursor: f.cursor.unwrap_or(true),
            compact: f.compact,
            depth: f.depth,
            selector: f.selector.clone(),
        }
    }

    fn check(&self) -> Result<()> {
        let budget = self.budget()?;
        self.scope()?;
        if self.page == Some(0) {
            return Err(CliError::InvalidArgument("--page counts from 1".into()));
        }
        if self.page.is_some() && (self.is_diff() || self.mark_new) {
            return Err(CliError::InvalidArgument(
                "--page continues a snapshot cut to a budget; it does not combine with --diff, --since or --mark-new".into(),
            ));
        }
        if budget.is_some() && (self.is_diff() || self.mark_new) {
            return Err(CliError::InvalidArgument(
                "--max-bytes/--max-tokens cut a full snapshot into pages; they do not combine with --diff, --since or --mark-new".into(),
            ));
        }
        if self.page.is_some() && self.lens() != Lens::default_with_cursor() {
            return Err(CliError::InvalidArgument(
                "--page serves the kept snapshot as it was taken: --interactive, --cursor, --compact, --depth and --selector belong to the snapshot that was cut, not to --page".into(),
            ));
        }
        Ok(())
    }
}

impl Lens {
    /// The lens of a plain `browser snapshot`.
    fn default_with_cursor() -> Lens {
        Lens {
            cursor: true,
            ..Lens::default()
        }
    }
}

/// `outline` narrowed to `scope`; a `--modal` without an open dialog is the whole outline, with a
/// warning.
fn scoped<'o>(
    outline: &'o Outline,
    scope: Option<Scope>,
    warnings: &mut Vec<String>,
) -> (Scope, Cow<'o, Outline>) {
    match scope {
        Some(Scope::Modal) => match outline.modal_scope() {
            Some(o) => (Scope::Modal, Cow::Owned(o)),
            None => {
                warnings.push("no dialog is open: --modal shows the whole tree".into());
                (Scope::All, Cow::Borrowed(outline))
            }
        },
        Some(s) => (s, rescoped(outline, s)),
        None => (Scope::All, Cow::Borrowed(outline)),
    }
}

/// The same scope applied to an outline (an earlier revision's, for a diff).
fn rescoped(outline: &Outline, scope: Scope) -> Cow<'_, Outline> {
    match scope {
        Scope::All => Cow::Borrowed(outline),
        Scope::Viewport => Cow::Owned(outline.viewport_scope()),
        Scope::Modal => Cow::Owned(outline.modal_scope().unwrap_or_default()),
    }
}

/// What a revision keeps of a scoped outline: nothing when it is the revision's own.
fn owned(o: Cow<'_, Outline>) -> Option<Outline> {
    match o {
        Cow::Borrowed(_) => None,
        Cow::Owned(o) => Some(o),
    }
}

fn summaries_of(o: &Outline, keep: impl Fn(u32) -> bool) -> (Vec<SnapshotNode>, SnapshotStats) {
    let mut interactive = 0;
    let nodes: Vec<SnapshotNode> = o
        .summaries()
        .iter()
        .filter(|(r, _)| *r != NO_ROW && keep(*r))
        .map(|(r, s)| {
            if o.rows()[*r as usize].interactive {
                interactive += 1;
            }
            SnapshotNode {
                ref_id: s.reference.to_string(),
                role: s.role.clone(),
                name: s.name.clone(),
                value: s.value.clone(),
            }
        })
        .collect();
    let stats = SnapshotStats {
        node_count: nodes.len() as u64,
        interactive_count: interactive,
    };
    (nodes, stats)
}

/// The answer for page `page` (1-based) of a cut revision; a page over the budget (a row that
/// does not fit one, kept whole rather than cut) is said in `warnings`.
fn page_answer(
    revision: u64,
    outline: &Outline,
    paging: &Paging,
    page: usize,
    warnings: &mut Vec<String>,
) -> Result<(String, Vec<SnapshotNode>, SnapshotStats, Pagination, u64)> {
    let pages = paging.pages();
    if page > pages {
        return Err(CliError::InvalidArgument(format!(
            "revision {revision} has {pages} page(s); --page {page} is past the last"
        )));
    }
    let p = page - 1;
    let text = paging.render(outline, p);
    if text.len() > paging.budget() {
        warnings.push(format!(
            "page {page} is {} bytes, over the budget of {}: a row longer than a page is kept whole on a page of its own",
            text.len(),
            paging.budget()
        ));
    }
    let (nodes, stats) = summaries_of(outline, |r| paging.owns(p, r));
    let owned = (0..outline.len() as u32)
        .filter(|&r| paging.owns(p, r))
        .count();
    let pagination = Pagination {
        page: page as u64,
        page_size: owned as u64,
        total: outline.len() as u64,
        has_more: page < pages,
    };
    Ok((text, nodes, stats, pagination, pages as u64))
}

impl Snapshot {
    /// `--page N`: a page of the tab's newest revision, from memory.
    async fn serve_page(self, cx: &mut TabCx<'_>, page: usize) -> Result<Done<SnapshotData>> {
        let budget = self.budget()?;
        let scope = self.scope()?;
        let mut warnings = Vec::new();
        let Some(latest) = cx.state.snapshots.latest_mut() else {
            return Err(CliError::InvalidArgument(
                "this tab has no snapshot to page through: take one with --max-bytes N (or --max-tokens N) first".into(),
            ));
        };
        let number = latest.number;
        let last = latest.paged().map(|(s, _, p)| (s, p.budget()));
        let recut = match last {
            None => true,
            Some((s, b)) => budget.is_some_and(|x| x != b) || scope.is_some_and(|x| x != s),
        };
        if recut {
            let Some(b) = budget.or(last.map(|(_, b)| b)) else {
                return Err(CliError::InvalidArgument(format!(
                    "revision {number} was not cut into pages: give --max-bytes N (or --max-tokens N) with --page"
                )));
            };
            let (sc, o) = scoped(
                &latest.outline,
                scope.or(last.map(|(s, _)| s)),
                &mut warnings,
            );
            let p = paginate(&o, b);
            latest.paging = Some((sc, owned(o), p));
        }
        let Some((_, outline, paging)) = latest.paged() else {
            return Err(CliError::InvalidArgument(format!(
                "revision {number} was not cut into pages"
            )));
        };
        let (text, nodes, stats, pagination, pages) =
            page_answer(number, outline, paging, page, &mut warnings)?;
        let mut data = write_answer(cx, &text, nodes, stats).await?;
        data.revision = Some(number);
        data.pages = Some(pages);
        let mut done = Done::data(data);
        done.truncated = pages > 1;
        done.pagination = Some(pagination);
        done.warnings = warnings;
        Ok(done)
    }
}

/// Most lines a snapshot prints whole, unless `ACTIONBOOK_SNAPSHOT_MAX_LINES` says otherwise: twice
/// what a 100,000-element page prints (a 300,000-element page prints about 300,000, 11 MB of text
/// and as much again of `data.nodes`, more than an agent can read; its `--interactive` 128,000).
/// A larger answer is refused before it is rendered, naming the ways to narrow it; a diff or a
/// `--max-bytes` cut is never refused.
pub(crate) const MAX_LINES: usize = 200_000;

/// The snapshot line limit in force ([`MAX_LINES`] or the environment's, at least 1).
fn max_lines() -> usize {
    std::env::var("ACTIONBOOK_SNAPSHOT_MAX_LINES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(MAX_LINES, |n| n.max(1))
}

/// Refuses an answer of `lines` lines over the limit.
fn check_lines(lines: usize) -> Result<()> {
    let limit = max_lines();
    if lines > limit {
        return Err(CliError::SnapshotTooLarge { lines, limit });
    }
    Ok(())
}

/// Writes the snapshot file; the data around it.
async fn write_answer(
    cx: &TabCx<'_>,
    text: &str,
    nodes: Vec<SnapshotNode>,
    stats: SnapshotStats,
) -> Result<SnapshotData> {
    let path = artifacts::snapshot_file(&cx.session.dir, &cx.tab_id);
    // The file is the answer's text: masked for the session's secrets as the answer is, then
    // between the session's content boundary.
    let text = cx.env.secrets.mask(text);
    let bytes = match cx.session.with_record(|r| r.content_boundary.clone()) {
        Some(nonce) => crate::boundary::ContentBoundary::with_nonce(nonce)
            .wrap(&text)
            .into_bytes(),
        None => text.into_bytes(),
    };
    // An fsync and a directory scan: off the async workers.
    let file = path.clone();
    let (dir, tab) = (cx.session.dir.clone(), cx.tab_id.clone());
    store::off_worker(move || {
        store::write_atomic(&file, &bytes)?;
        artifacts::prune_snapshots(&dir, &tab, artifacts::snapshots_per_tab());
        Ok(())
    })
    .await?
    .map_err(|source| CliError::ArtifactWrite {
        path: path.display().to_string(),
        source,
    })?;
    Ok(SnapshotData::new(path.display().to_string(), nodes, stats))
}

/// Which document the tab shows now.
async fn document_key(cx: &mut TabCx<'_>) -> Result<DocumentKey> {
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let g = cx.state.frames.graph(&page, &deadline).await?;
    Ok(DocumentKey {
        session: cx
            .state
            .attached
            .as_ref()
            .map(|(conn, s)| (*conn, s.id().map(|i| i.to_string()).unwrap_or_default()))
            .unwrap_or_default(),
        generation: g.generation(),
        main_frame: g.main_frame().frame_id.to_string(),
    })
}

/// The revision a diff or a mark compares with: `--since N`, else the newest; `None` when the
/// tab has none of the same document.
fn base<'r>(
    cx: &'r TabCx<'_>,
    since: Option<u64>,
    document: &DocumentKey,
) -> Result<Option<&'r Revision>> {
    let revisions = &cx.state.snapshots;
    let found = match since {
        Some(n) => match revisions.get(n) {
            Ok(r) => r,
            Err(e) => {
                let kept = match (e.oldest, e.newest) {
                    (Some(o), Some(n)) if o == n => format!("only revision {o} is kept"),
                    (Some(o), Some(n)) => format!("revisions {o} to {n} are kept"),
                    _ => "the tab has no snapshot yet".to_string(),
                };
                return Err(CliError::InvalidArgument(format!(
                    "revision {n} is not kept for this tab ({kept}; the oldest available is {})",
                    e.oldest
                        .map_or_else(|| "none".to_string(), |o| o.to_string())
                )));
            }
        },
        None => match revisions.latest() {
            Some(r) => r,
            None => return Ok(None),
        },
    };
    Ok((found.document == *document).then_some(found))
}

impl TabCommand for Snapshot {
    type Data = SnapshotData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<SnapshotData>> {
        self.check()?;
        if let Some(page) = self.page {
            return self.serve_page(cx, page).await;
        }
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let snap = tokio::time::timeout(
            deadline.remaining(),
            cx.state.frames.snapshot(&page, &deadline),
        )
        .await
        .map_err(|_| deadline.timeout(crate::page::frames::SNAPSHOT_TIMED_OUT))??;
        crate::fault::hold(
            cx.env.abort_at.as_deref(),
            "snapshot.captured",
            &cx.session.dir,
        )
        .await;
        cx.save_refs().await?;
        let f = &self.filters;
        let subtree = match &f.selector {
            Some(sel) => {
                let found = locate::locate(&mut cx.state.frames, &page, sel, &deadline).await?;
                Some(found.encoded)
            }
            None => None,
        };
        let opts = SnapshotOptions {
            interactive_only: f.interactive,
            cursor: f.cursor.unwrap_or(true),
            compact: f.compact,
            max_depth: f.depth,
            subtree,
        };
        let outline = Outline::build(&snap, &opts);
        let document = document_key(cx).await?;
        let lens = self.lens();
        let number = cx.state.snapshots.next_number();
        let mut warnings = Vec::new();
        if !self.extended() {
            // The spec's answer, unchanged.
            check_lines(outline.len())?;
            let text = outline.render();
            let (nodes, stats) = node_list(&snap, &opts);
            drop(snap);
            let nodes = nodes
                .into_iter()
                .map(|n| SnapshotNode {
                    ref_id: n.reference.to_string(),
                    role: n.role,
                    name: n.name,
                    value: n.value,
                })
                .collect();
            let data = write_answer(
                cx,
                &text,
                nodes,
                SnapshotStats {
                    node_count: stats.node_count as u64,
                    interactive_count: stats.interactive_count as u64,
                },
            )
            .await?;
            cx.state.snapshots.push(document, lens, outline, None);
            return Ok(Done::data(data));
        }
        drop(snap);
        if self.viewport && outline.rows().iter().all(|r| !r.in_view) && !outline.is_empty() {
            warnings.push("the viewport could not be measured or shows no node".into());
        }
        let (scope, view) = scoped(&outline, self.scope()?, &mut warnings);
        let budget = self.budget()?;
        // A diff prints what changed and a cut prints pages: only a whole view can be too long.
        if !self.is_diff() && budget.is_none() {
            check_lines(view.len())?;
        }
        let base = if self.is_diff() || self.mark_new {
            base(cx, self.since, &document)?
        } else {
            None
        };
        let same_lens = base.is_none_or(|b| b.lens == lens);
        if let Some(b) = base
            && !same_lens
        {
            warnings.push(format!(
                "revision {} was taken with other filters (--interactive/--compact/--depth/--selector): lines they hide or show differ",
                b.number
            ));
        }
        let mut done_pagination = None;
        let mut truncated = false;
        let (text, nodes, stats, diff_info, new_count, pages, paging) = if self.is_diff() {
            match base {
                Some(b) => {
                    let old = rescoped(&b.outline, scope);
                    // Across filters, rows sit under other ancestors: only their own lines count.
                    let d = diff_with(&old, &view, same_lens);
                    let text = render_delta(&d, &old, &view, b.number);
                    let touched: std::collections::HashSet<u32> = d.touched_new_rows().collect();
                    let (nodes, stats) = summaries_of(&view, |r| touched.contains(&r));
                    let info = SnapshotDiff {
                        base_revision: Some(b.number),
                        full: false,
                        added: d.added as u64,
                        removed: d.removed as u64,
                        changed: d.changed as u64,
                    };
                    (text, nodes, stats, Some(info), None, None, None)
                }
                None => {
                    let (nodes, stats) = summaries_of(&view, |_| true);
                    let info = SnapshotDiff {
                        base_revision: None,
                        full: true,
                        added: view.len() as u64,
                        removed: 0,
                        changed: 0,
                    };
                    (view.render(), nodes, stats, Some(info), None, None, None)
                }
            }
        } else if self.mark_new {
            let marks = match base {
                Some(b) => view.new_since(&rescoped(&b.outline, scope)),
                None => {
                    warnings
                        .push("no earlier snapshot of this document: nothing is marked new".into());
                    Vec::new()
                }
            };
            let count = marks.iter().filter(|&&m| m).count() as u64;
            let (nodes, stats) = summaries_of(&view, |_| true);
            (
                view.render_marked(&marks),
                nodes,
                stats,
                None,
                Some(count),
                None,
                None,
            )
        } else if let Some(b) = budget {
            let p = paginate(&view, b);
            let (text, nodes, stats, pagination, pages) =
                page_answer(number, &view, &p, 1, &mut warnings)?;
            truncated = pages > 1;
            done_pagination = Some(pagination);
            (text, nodes, stats, None, None, Some(pages), Some(p))
        } else {
            let (nodes, stats) = summaries_of(&view, |_| true);
            (view.render(), nodes, stats, None, None, None, None)
        };
        let mut data = write_answer(cx, &text, nodes, stats).await?;
        let paging = paging.map(|p| (scope, owned(view), p));
        let number = cx.state.snapshots.push(document, lens, outline, paging);
        data.revision = Some(number);
        data.diff = diff_info;
        data.new_count = new_count;
        data.pages = pages;
        let mut done = Done::data(data);
        done.warnings = warnings;
        done.pagination = done_pagination;
        done.truncated = truncated;
        Ok(done)
    }
}
