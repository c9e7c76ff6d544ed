//! `browser downloads` and `browser wait download` (beyond the spec; agent-browser and Playwright
//! have downloads): what the tab's pages downloaded, and waiting for a download's file.
//!
//! The session's browser saves downloads into `<home>/downloads/<session>/`, each under the name
//! it suggested, never replacing another (`session::downloads`); any command whose answer comes
//! after a download of its tab began says so in a warning, with the download's id.

use std::path::{Path, PathBuf};
use std::time::Instant;

use envelope::{Document, RenderText, TextBody};
use serde::{Deserialize, Serialize};

use super::navigation::tab_only;
use crate::commands::observation::capture::target_path;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::reply::{Done, document};
use crate::session::downloads::{Download, DownloadState};
use crate::tab::{TabCommand, TabCx};

tab_only! {
    /// `browser downloads`.
    ListDownloads;
}

/// `browser wait download [<id>]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct WaitDownload {
    /// The download to wait for (`d1`, as `browser downloads` and the warnings name them);
    /// without it, the tab's first download no earlier wait returned, or the next to begin.
    #[cfg_attr(feature = "cli", arg(value_name = "ID"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Move the file here once complete (relative paths are the caller's working directory's;
    /// an existing file is replaced).
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save_as: Option<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser downloads` data.
#[derive(Debug, Serialize)]
struct DownloadsData {
    downloads: Vec<Download>,
    total: usize,
}

/// One row: `d1  completed  8000 B  report.csv  /home/.../report.csv`.
struct Row<'a>(&'a Download);

impl std::fmt::Display for Row<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.0;
        let size = match (d.state, d.total_bytes) {
            (DownloadState::InProgress, Some(total)) => format!("{}/{total} B", d.received_bytes),
            _ => format!("{} B", d.received_bytes),
        };
        write!(
            f,
            "{}  {}  {size}  {:?}",
            d.id,
            d.state.as_str(),
            d.file_name
        )?;
        match &d.path {
            Some(p) => write!(f, "  {p}")?,
            None => write!(f, "  {}", d.url)?,
        }
        if let Some(note) = &d.note {
            write!(f, "  ({note})")?;
        }
        Ok(())
    }
}

impl RenderText for DownloadsData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.total, "download", "downloads");
        for d in &self.downloads {
            body.line(Row(d));
        }
    }
}

/// `browser wait download` data.
#[derive(Debug, Serialize)]
struct WaitDownloadData {
    download: Download,
    elapsed_ms: u64,
}

impl RenderText for WaitDownloadData {
    fn is_action(&self) -> bool {
        true
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        let d = &self.download;
        body.line(format_args!("id: {}", d.id));
        if let Some(p) = &d.path {
            body.line(format_args!("file: {p}"));
        }
        body.line(format_args!("bytes: {}", d.received_bytes));
        body.line(format_args!("url: {}", d.url));
        body.line(format_args!("elapsed_ms: {}", self.elapsed_ms));
    }
}

/// Problems of the session's download log, as warnings.
fn health_warnings(cx: &TabCx<'_>) -> Vec<String> {
    let (forgotten, problem) = cx.session.downloads.health();
    let mut warnings = Vec::new();
    if forgotten > 0 {
        warnings.push(format!(
            "{forgotten} older downloads are no longer listed (the last {} are kept; their files stay)",
            crate::session::downloads::KEPT
        ));
    }
    if let Some(p) = problem {
        warnings.push(format!(
            "downloads are saved where the browser saves them by default: {p}"
        ));
    }
    warnings
}

impl TabCommand for ListDownloads {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// The tab's downloads (and any no tab is known to have caused), oldest first.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        let downloads = cx.downloads().of_tab(&cx.tab_id);
        let mut done = Done::data(document(&DownloadsData {
            total: downloads.len(),
            downloads,
        })?);
        done.warnings = health_warnings(cx);
        Ok(done)
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl TabCommand for WaitDownload {
    type Data = Document;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Until the download is complete (with `--save-as`, moved there). A download that was
    /// canceled is `DOWNLOAD_FAILED`; none in time is `TIMEOUT` with what it saw.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<Document>> {
        const WHAT: &str = "browser wait download";
        let started = Instant::now();
        let save_as = self
            .save_as
            .as_deref()
            .map(|p| target_path(p, cx.env))
            .transpose()?;
        let id = self.id.as_deref().map(str::trim);
        if let Some(id) = id {
            match cx.session.downloads.knows_id(id) {
                None => {
                    return Err(CliError::InvalidArgument(format!(
                        "{id:?} is not a download id: they are d1, d2, ... (`browser downloads` lists them)"
                    )));
                }
                Some(false) => {
                    return Err(CliError::InvalidArgument(format!(
                        "no download {id} began yet (`browser downloads` lists them)"
                    )));
                }
                Some(true) => {}
            }
        }
        let mut changes = cx.session.downloads.changes();
        let download = loop {
            changes.borrow_and_update();
            let seen = cx.downloads().next_unwaited(&cx.tab_id, id);
            match seen {
                Some(d) if d.state == DownloadState::Completed => break d,
                Some(d) if d.state == DownloadState::Canceled => {
                    cx.session.downloads.set_waited(&d.id, None);
                    keep_waited(cx).await;
                    return Err(CliError::DownloadFailed {
                        id: d.id,
                        url: d.url,
                        received_bytes: d.received_bytes,
                    });
                }
                None if id.is_some() => {
                    return Err(CliError::InvalidArgument(format!(
                        "download {} is not one of this tab's (`browser downloads` lists them), or is no longer listed",
                        id.unwrap_or_default()
                    )));
                }
                seen => {
                    if tokio::time::timeout(cx.deadline.remaining(), changes.changed())
                        .await
                        .is_err()
                    {
                        let observed = match &seen {
                            Some(d) => serde_json::json!({
                                "id": d.id,
                                "state": d.state,
                                "received_bytes": d.received_bytes,
                                "total_bytes": d.total_bytes,
                            }),
                            None => serde_json::json!({ "began": false }),
                        };
                        return Err(CliError::WaitTimedOut {
                            what: WHAT.into(),
                            ms: cx.deadline.timeout_ms(),
                            elapsed_ms: elapsed_ms(started),
                            observed,
                        });
                    }
                }
            }
        };
        let mut download = download;
        let moved = match (&save_as, &download.path) {
            (Some(to), Some(from)) => Some(move_file(Path::new(from), to).await?),
            (Some(_), None) => {
                return Err(CliError::Unsupported(format!(
                    "download {} completed but the browser did not say where its file is (a browser this session connected to): it cannot be moved",
                    download.id
                )));
            }
            _ => None,
        };
        cx.session
            .downloads
            .set_waited(&download.id, moved.as_deref());
        keep_waited(cx).await;
        if let Some(p) = moved {
            download.path = Some(p.display().to_string());
        }
        let mut done = Done::data(document(&WaitDownloadData {
            download,
            elapsed_ms: elapsed_ms(started),
        })?);
        done.warnings = health_warnings(cx);
        Ok(done)
    }
}

/// Keeps on disk that a download was returned (a daemon restarted just after does not return it
/// again); a slow disk does not hold the answer past a moment.
async fn keep_waited(cx: &TabCx<'_>) {
    let _ =
        tokio::time::timeout(crate::deadline::QUICK_CALL, cx.session.downloads.keep_now()).await;
}

/// Moves a downloaded file to `to` (replacing a file there), across file systems too.
async fn move_file(from: &Path, to: &Path) -> Result<PathBuf> {
    let (src, dst) = (from.to_path_buf(), to.to_path_buf());
    let moved = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        match std::fs::rename(&src, &dst) {
            Ok(()) => Ok(()),
            // Another file system: copy, then remove the original.
            Err(e) if e.raw_os_error() == Some(18) => {
                std::fs::copy(&src, &dst)?;
                std::fs::remove_file(&src)
            }
            Err(e) => Err(e),
        }
    })
    .await
    .map_err(|e| CliError::internal(format!("moving the download: {e}")))?;
    moved.map_err(|source| CliError::ArtifactWrite {
        path: to.display().to_string(),
        source,
    })?;
    Ok(to.to_path_buf())
}
