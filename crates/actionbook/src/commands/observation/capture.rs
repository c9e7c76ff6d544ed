//! `browser screenshot` and `browser pdf` (spec 10.2, 10.3): files written whole or not at all,
//! paths relative to the client's working directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cdp_protocol::FrameId;
use envelope::{Artifact, ArtifactData};
use futures::future::join_all;
use serde::{Deserialize, Serialize};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, TabTarget};
use crate::page::quad::{self, PageGeometry};
use crate::page::screenshot::{self, ImageFormat, Label, Overlay, Shot, ViewRect};
use crate::page::scroll::ScrollMemo;
use crate::page::{locate, read};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// `browser screenshot <path>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Screenshot {
    /// The image file to write (relative to the working directory of the caller).
    pub path: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
    /// Capture the whole page, not just the viewport.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub full: bool,
    /// Draw numbered labels `[N]` on interactive elements, N being ref `@eN` (a snapshot is taken
    /// first when the tab has no refs); removed from the page afterwards.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub annotate: bool,
    /// JPEG or WebP quality 0-100 (not png).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "0-100", value_parser = clap::value_parser!(u8).range(0..=100))
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100))]
    pub screenshot_quality: Option<u8>,
    /// Image format (default: from the file's extension, else png).
    #[cfg_attr(feature = "cli", arg(long, value_name = "png|jpeg|webp"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_format: Option<ImageKind>,
    /// Capture only this element's box (`@eN`, CSS or XPath; any frame); not with --full.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "SELECTOR", conflicts_with = "full")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ImageKind {
    /// PNG.
    Png,
    /// JPEG.
    #[cfg_attr(feature = "cli", value(alias = "jpg"))]
    Jpeg,
    /// WebP.
    Webp,
}

/// `browser pdf <path>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Pdf {
    /// The PDF file to write (relative to the working directory of the caller).
    pub path: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `path` made absolute against the caller's working directory, checked writable.
pub(crate) fn target_path(path: &str, env: &ClientEnv) -> Result<PathBuf> {
    if path.trim().is_empty() {
        return Err(CliError::InvalidArgument("the file path is empty".into()));
    }
    let p = Path::new(path);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        match &env.cwd {
            Some(cwd) => cwd.join(p),
            None => {
                return Err(CliError::InvalidArgument(format!(
                    "{path} is relative and the caller's working directory is unknown: give an absolute path"
                )));
            }
        }
    };
    screenshot::check_target(&abs)?;
    Ok(abs)
}

fn artifact(path: &Path, mime: &str, bytes: u64) -> ArtifactData {
    ArtifactData {
        artifact: Artifact {
            path: path.display().to_string(),
            mime_type: mime.to_string(),
            bytes,
        },
    }
}

/// The labels of the tab's interactive refs that are on screen (document coordinates when
/// `full`), taking a snapshot first when the tab has no refs.
async fn labels(cx: &mut TabCx<'_>, full: bool, deadline: &Deadline) -> Result<Vec<Label>> {
    cx.load_refs();
    let page = cx.page.clone();
    if cx.state.frames.refs.as_ref().is_none_or(|r| r.is_empty()) {
        tokio::time::timeout(
            deadline.remaining(),
            cx.state.frames.snapshot(&page, deadline),
        )
        .await
        .map_err(|_| deadline.timeout("the snapshot for --annotate"))??;
        cx.save_refs().await?;
    }
    let g = cx.state.frames.graph(&page, deadline).await?;
    let entries: Vec<_> = cx
        .state
        .frames
        .refs
        .as_ref()
        .map(|r| {
            r.entries()
                .iter()
                .filter(|e| e.interactive || a11y_snapshot::roles::is_interactive_role(&e.role))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let m = screenshot::metrics(&page, deadline).await?;
    // What the capture shows of the top document, in viewport coordinates.
    let top = match full {
        true => ViewRect {
            x: -m.scroll_x,
            y: -m.scroll_y,
            width: m.content_width,
            height: m.content_height,
        },
        false => ViewRect {
            x: 0.0,
            y: 0.0,
            width: m.viewport_width,
            height: m.viewport_height,
        },
    };
    // Each frame measured once for every label in it.
    let geo = PageGeometry::new(g, deadline);
    let views = frame_views(&geo, top).await;
    let boxes = join_all(entries.iter().map(|e| {
        let (geo, views) = (&geo, &views);
        async move {
            // A frame scrolled or clipped out of sight shows none of its elements.
            let view = views.get(e.frame_id.as_str()).copied().flatten()?;
            let session = geo
                .graph()
                .session_for(&FrameId::from(e.frame_id.as_str()))?;
            let b = read::border_box_of(
                geo,
                &session,
                &e.frame_id,
                Some(e.backend_node_id),
                None,
                "",
                deadline,
            )
            .await
            .ok()??;
            Some((e.reference.number(), b.within(&view)?))
        }
    }))
    .await;
    let mut out = Vec::new();
    for (n, b) in boxes.into_iter().flatten() {
        let (dx, dy) = if full {
            (m.scroll_x, m.scroll_y)
        } else {
            (0.0, 0.0)
        };
        out.push(Label {
            n,
            x: b.x + dx,
            y: b.y + dy,
            w: b.width,
            h: b.height,
        });
    }
    out.sort_by_key(|l| l.n);
    Ok(out)
}

/// Per frame (by id), the part of the top-level viewport it shows: `top` for the main frame,
/// and for a child what its parent shows of its `<iframe>`'s content box as drawn (borders and
/// padding are not the child's; the rectangle around it when turned); `None` for a frame that
/// shows nothing or whose `<iframe>` has no box.
async fn frame_views(geo: &PageGeometry, top: ViewRect) -> HashMap<String, Option<ViewRect>> {
    let frames = geo.graph().frames();
    let owners = join_all(frames.iter().map(|f| async move {
        f.parent_frame_id.as_ref()?;
        let q = geo.frame_quad(&f.frame_id).await.ok()??;
        quad::bounds(&q)
    }))
    .await;
    // Parents come before their children: each view is its parent's cut to its `<iframe>`.
    let mut views: HashMap<String, Option<ViewRect>> = HashMap::new();
    for (f, owner) in frames.iter().zip(owners) {
        let view = match &f.parent_frame_id {
            None => Some(top),
            Some(p) => views
                .get(p.as_str())
                .copied()
                .flatten()
                .zip(owner)
                .and_then(|(pv, o)| o.within(&pv)),
        };
        views.insert(f.frame_id.as_str().to_string(), view);
    }
    views
}

impl TabCommand for Screenshot {
    type Data = ArtifactData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ArtifactData>> {
        let path = target_path(&self.path, cx.env)?;
        let mut warnings = Vec::new();
        let format = match self.screenshot_format {
            Some(ImageKind::Png) => ImageFormat::Png,
            Some(ImageKind::Jpeg) => ImageFormat::Jpeg,
            Some(ImageKind::Webp) => ImageFormat::Webp,
            None => match ImageFormat::from_extension(&path) {
                Some(f) => f,
                None => {
                    if let Some(ext) = path.extension() {
                        warnings.push(format!(
                            "{:?} names no format written here (png, jpeg, webp): the file is PNG",
                            ext.to_string_lossy()
                        ));
                    }
                    ImageFormat::Png
                }
            },
        };
        // An explicit format wins over the name; the name then says otherwise, so say so.
        if self.screenshot_format.is_some()
            && let Some(named) = ImageFormat::from_extension(&path)
            && named != format
        {
            warnings.push(format!(
                "the file's name says {} but --screenshot-format wrote {}",
                named.mime(),
                format.mime()
            ));
        }
        // The CLI refuses the pair; MCP, batch and library callers reach here.
        if self.full && self.selector.is_some() {
            return Err(CliError::InvalidArgument(
                "--full captures the whole page and --selector one element: give one".into(),
            ));
        }
        // The CLI, MCP and batch check this before; a library caller reaches here unchecked.
        if let Some(q) = self.screenshot_quality
            && q > 100
        {
            return Err(CliError::InvalidArgument(format!(
                "--screenshot-quality {q} is not in 0-100"
            )));
        }
        if self.screenshot_quality.is_some() && !format.has_quality() {
            warnings
                .push("--screenshot-quality applies to jpeg and webp; ignored for png".to_string());
        }
        let deadline = cx.deadline.clone();
        let page = cx.page.clone();
        let mut scrolled = None;
        let clip: Option<ViewRect> = match &self.selector {
            Some(sel) => {
                cx.load_refs();
                let frames = &mut cx.state.frames;
                let node = locate::locate(frames, &page, sel, &deadline).await?;
                // Put back after the capture: an observation leaves the page as it was.
                let saved = ScrollMemo::save(&page, &node, &deadline).await;
                let _ = node
                    .session()
                    .send_timeout(
                        &cdp_protocol::dom::ScrollIntoViewIfNeeded {
                            object_id: Some(node.handle.object_id().clone()),
                            ..Default::default()
                        },
                        deadline.capped(deadline::QUICK_CALL),
                    )
                    .await;
                let g = frames.graph(&page, &deadline).await?;
                let geo = PageGeometry::new(g, &deadline);
                let b = read::border_box(&geo, &node, sel, &deadline).await?;
                scrolled = Some((node, saved));
                match b {
                    Some(b) if b.width >= 1.0 && b.height >= 1.0 => Some(b),
                    _ => {
                        return Err(CliError::ElementNotFound {
                            selector: format!("{sel} (it has no visible box)"),
                        });
                    }
                }
            }
            None => None,
        };
        let shot = Shot {
            format,
            quality: self.screenshot_quality,
            full_page: self.full && clip.is_none(),
            clip,
        };
        // A background tab's page is hidden and draws no frames: a capture of it waited for one
        // (every other time, until the timeout). Shown first, as a click shows it.
        crate::page::input::mouse::bring_to_front(&page, &deadline).await?;
        let overlay = if self.annotate {
            let labels = labels(cx, shot.full_page, &deadline).await?;
            Some(Overlay::draw(&page, &labels, !shot.full_page, &deadline).await?)
        } else {
            None
        };
        let written = screenshot::screenshot(&page, &shot, &path, &deadline).await;
        // The labels come out again whatever the capture did.
        if let Some(o) = overlay
            && let Err(e) = o.remove().await
        {
            warnings.push(format!("the annotation labels could not be removed: {e}"));
        }
        if let Some((node, saved)) = scrolled {
            warnings.extend(saved.put_back(&page, &node, &deadline).await);
        }
        let (bytes, cut) = written?;
        let mut done = Done::data(artifact(&path, format.mime(), bytes));
        if let Some(c) = cut {
            done.truncated = true;
            warnings.push(format!(
                "the page is {:.0} x {:.0} CSS pixels, more than one capture holds: its top left {:.0} x {:.0} were captured",
                c.asked.0, c.asked.1, c.taken.0, c.taken.1
            ));
        }
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Pdf {
    type Data = ArtifactData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ArtifactData>> {
        let path = target_path(&self.path, cx.env)?;
        let bytes = screenshot::pdf(&cx.page, &path, &cx.deadline).await?;
        Ok(Done::data(artifact(&path, "application/pdf", bytes)))
    }
}
