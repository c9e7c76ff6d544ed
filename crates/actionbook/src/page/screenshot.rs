//! Images and PDFs of a page, written to the user's file as a whole or not at all: the capture's
//! base64 is read in place from the CDP message and decoded straight into the file, so the daemon
//! never holds a second copy of the image. Also the numbered overlay of `screenshot --annotate`.

use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD;
use cdp_protocol::{RawResponse, Session, page};
use serde::{Deserialize, Serialize};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::store;

/// An image format of `screenshot --screenshot-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ImageFormat {
    /// PNG (the default).
    #[default]
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

impl ImageFormat {
    /// The format from a file name's extension, when it names one.
    pub fn from_extension(path: &Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageFormat::Png),
            "jpg" | "jpeg" => Some(ImageFormat::Jpeg),
            "webp" => Some(ImageFormat::Webp),
            _ => None,
        }
    }

    /// Its MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Webp => "image/webp",
        }
    }

    fn cdp(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Webp => "webp",
        }
    }

    /// Whether `--screenshot-quality` applies.
    pub fn has_quality(self) -> bool {
        self != ImageFormat::Png
    }
}

/// A rectangle in CSS pixels of the top-level viewport.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct ViewRect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl ViewRect {
    /// The part of `self` inside `other`; `None` when less than a pixel of it is.
    pub fn within(&self, other: &ViewRect) -> Option<ViewRect> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let width = (self.x + self.width).min(other.x + other.width) - x;
        let height = (self.y + self.height).min(other.y + other.height) - y;
        (width >= 1.0 && height >= 1.0).then_some(ViewRect {
            x,
            y,
            width,
            height,
        })
    }
}

/// What to capture.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shot {
    /// The format.
    pub format: ImageFormat,
    /// JPEG quality 0..=100.
    pub quality: Option<u8>,
    /// The whole page rather than the viewport.
    pub full_page: bool,
    /// Only this region (viewport coordinates).
    pub clip: Option<ViewRect>,
}

/// Fails early, naming the file, when `path` cannot be written: its directory is missing or not a
/// directory, or the path is a directory itself.
pub(crate) fn check_target(path: &Path) -> Result<()> {
    let fail = |why: &str| CliError::ArtifactWrite {
        path: path.display().to_string(),
        source: std::io::Error::other(why.to_string()),
    };
    if !path.is_absolute() {
        return Err(CliError::InvalidArgument(format!(
            "{} is not an absolute path",
            path.display()
        )));
    }
    if path.file_name().is_none() {
        return Err(fail("the path names no file"));
    }
    if path.is_dir() {
        return Err(fail("it is a directory"));
    }
    crate::files::refuse_special(path).map_err(|e| fail(&e.to_string()))?;
    match path.parent().map(std::fs::metadata) {
        Some(Ok(m)) if m.is_dir() => Ok(()),
        Some(Ok(_)) => Err(fail("its parent is not a directory")),
        _ => Err(fail("its directory does not exist")),
    }
}

/// The page's scroll offset and content size, in CSS pixels.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PageMetrics {
    /// Horizontal scroll offset of the document.
    pub scroll_x: f64,
    /// Vertical scroll offset.
    pub scroll_y: f64,
    /// Width of the whole content.
    pub content_width: f64,
    /// Height of the whole content.
    pub content_height: f64,
    /// Viewport width.
    pub viewport_width: f64,
    /// Viewport height.
    pub viewport_height: f64,
}

/// Reads [`PageMetrics`].
pub(crate) async fn metrics(page: &Session, deadline: &Deadline) -> Result<PageMetrics> {
    let m = page
        .send_timeout(
            &page::GetLayoutMetrics,
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    let vv = m.css_visual_viewport.unwrap_or_default();
    let cs = m.css_content_size.unwrap_or_default();
    Ok(PageMetrics {
        scroll_x: vv.page_x,
        scroll_y: vv.page_y,
        content_width: cs.width.max(vv.client_width),
        content_height: cs.height.max(vv.client_height),
        viewport_width: vv.client_width,
        viewport_height: vv.client_height,
    })
}

/// Widest or tallest capture, in CSS pixels: a page 1.95 million pixels wide kept the renderer
/// busy past the timeout, then took the browser down (a 1265 x 28356 page takes 2.5 s).
const MAX_SIDE: f64 = 32_000.0;

/// Most pixels of one capture (about 200 MB of RGBA in the renderer).
const MAX_AREA: f64 = 50_000_000.0;

/// A capture cut to the bounds: the size asked for and the size taken (CSS pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cut {
    /// Width and height of what was asked for.
    pub asked: (f64, f64),
    /// Width and height captured (from its top left corner).
    pub taken: (f64, f64),
}

/// Shrinks `clip` to [`MAX_SIDE`] per side and [`MAX_AREA`] in all, keeping its top left corner
/// and as much of its width as the area allows; `None` when it fits.
fn bound(clip: &mut page::Viewport) -> Option<Cut> {
    let asked = (clip.width, clip.height);
    let width = clip.width.min(MAX_SIDE);
    let height = clip.height.min(MAX_SIDE).min((MAX_AREA / width).floor());
    if (width, height) == asked {
        return None;
    }
    clip.width = width;
    clip.height = height;
    Some(Cut {
        asked,
        taken: (width, height),
    })
}

/// The capture call for `shot` (the clip in document coordinates), and how it was cut.
async fn capture_params(
    page: &Session,
    shot: &Shot,
    deadline: &Deadline,
) -> Result<(page::CaptureScreenshot, Option<Cut>)> {
    let mut params = page::CaptureScreenshot {
        format: Some(shot.format.cdp().to_string()),
        quality: match shot.format.has_quality() {
            true => shot.quality.map(i64::from),
            false => None,
        },
        ..Default::default()
    };
    if shot.full_page || shot.clip.is_some() {
        let m = metrics(page, deadline).await?;
        let clip = match shot.clip {
            // The region, moved from the viewport into the document.
            Some(r) => page::Viewport {
                x: r.x + m.scroll_x,
                y: r.y + m.scroll_y,
                width: r.width,
                height: r.height,
                scale: 1.0,
            },
            None => page::Viewport {
                x: 0.0,
                y: 0.0,
                width: m.content_width,
                height: m.content_height,
                scale: 1.0,
            },
        };
        if clip.width < 1.0 || clip.height < 1.0 {
            return Err(CliError::InvalidArgument(
                "the region to capture is empty (the element has no size)".into(),
            ));
        }
        let mut clip = clip;
        let cut = bound(&mut clip);
        // Only what lies outside the viewport needs Chromium to draw beyond it: that drawing
        // sometimes left an out-of-process iframe white (an element in it captured blank right
        // after its frame scrolled), while a capture of what is on screen shows every frame.
        let on_screen = shot.clip.is_some_and(|r| {
            r.x >= 0.0
                && r.y >= 0.0
                && r.x + r.width <= m.viewport_width
                && r.y + r.height <= m.viewport_height
        });
        params.capture_beyond_viewport = Some(!on_screen);
        params.clip = Some(clip);
        return Ok((params, cut));
    }
    Ok((params, None))
}

/// Captures the page as `shot` says and writes the image to `path`; returns its size in bytes
/// and how the capture was cut to the bounds, if it was.
pub(crate) async fn screenshot(
    page: &Session,
    shot: &Shot,
    path: &Path,
    deadline: &Deadline,
) -> Result<(u64, Option<Cut>)> {
    let (params, cut) = capture_params(page, shot, deadline).await?;
    let raw = page
        .send_raw_timeout(&params, deadline.remaining())
        .await
        .map_err(|e| timeout_as(e, deadline, "browser screenshot"))?;
    Ok((write_base64(raw, path.to_path_buf()).await?, cut))
}

/// Prints the page to PDF (backgrounds included) and writes it to `path`; returns its size.
pub(crate) async fn pdf(page: &Session, path: &Path, deadline: &Deadline) -> Result<u64> {
    let params = page::PrintToPdf {
        print_background: Some(true),
        ..Default::default()
    };
    let raw = page
        .send_raw_timeout(&params, deadline.remaining())
        .await
        .map_err(|e| match e {
            // Headful Chromium cannot print (only headless can).
            cdp_protocol::CdpError::Protocol { message, .. }
                if message.contains("PrintToPDF is not implemented") =>
            {
                CliError::Unsupported(
                    "this browser cannot print to PDF (Chromium prints only when headless)".into(),
                )
            }
            e => timeout_as(e, deadline, "browser pdf"),
        })?;
    write_base64(raw, path.to_path_buf()).await
}

fn timeout_as(e: cdp_protocol::CdpError, deadline: &Deadline, what: &str) -> CliError {
    match e.kind() {
        cdp_protocol::ErrorKind::Timeout => deadline.timeout(what),
        _ => e.into(),
    }
}

#[derive(Deserialize)]
struct Base64Data<'a> {
    #[serde(borrow)]
    data: &'a str,
}

/// Decodes the response's base64 `data` into `path` (off the async workers), whole or not at all.
async fn write_base64(raw: RawResponse, path: PathBuf) -> Result<u64> {
    // Validate before touching the disk: a decode error is the browser's, not the file's.
    raw.result::<Base64Data<'_>>()?;
    let shown = path.display().to_string();
    let written = tokio::task::spawn_blocking(move || {
        let data = raw.result::<Base64Data<'_>>().map(|d| d.data).unwrap_or("");
        store::write_file_whole(&path, |w| {
            let mut reader = base64::read::DecoderReader::new(data.as_bytes(), &STANDARD);
            std::io::copy(&mut reader, w).map(|_| ())
        })
    })
    .await
    .map_err(|e| CliError::internal(format!("writing the file: {e}")))?;
    written.map_err(|source| CliError::ArtifactWrite {
        path: shown,
        source,
    })
}

/// One numbered label of `screenshot --annotate`: ref number and the element's box (viewport
/// coordinates; document coordinates for a full-page capture).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Label {
    /// The ref number (`[N]` for `@eN`).
    pub n: u32,
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// Draws the labels: one host element in the top document (its contents in a closed shadow root,
/// so the page's styles and scripts do not reach them), above everything, not hit-testable.
const OVERLAY_JS: &str = r#"function (labels, fixed) {
  const host = document.createElement('div');
  host.setAttribute('data-actionbook-annotations', '');
  host.style.cssText = 'all:initial;position:' + (fixed ? 'fixed' : 'absolute') +
    ';left:0;top:0;width:0;height:0;overflow:visible;z-index:2147483647;pointer-events:none;';
  const root = host.attachShadow({ mode: 'closed' });
  const colors = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];
  for (const l of labels) {
    const c = colors[l.n % colors.length];
    const box = document.createElement('div');
    box.style.cssText = 'position:absolute;box-sizing:border-box;left:' + l.x + 'px;top:' + l.y +
      'px;width:' + l.w + 'px;height:' + l.h + 'px;border:2px solid ' + c + ';';
    const tag = document.createElement('div');
    tag.textContent = '[' + l.n + ']';
    const inside = l.y < 16;
    tag.style.cssText = 'position:absolute;left:' + l.x + 'px;top:' + (inside ? l.y : l.y - 15) +
      'px;height:15px;padding:0 3px;background:' + c + ';color:#fff;font:bold 12px/15px monospace;' +
      'white-space:nowrap;';
    root.appendChild(box);
    root.appendChild(tag);
  }
  (document.documentElement || document).appendChild(host);
  return host;
}"#;

/// The overlay in the page; [`Overlay::remove`] takes it out again.
#[derive(Debug)]
pub(crate) struct Overlay {
    host: ObjectHandle,
}

impl Overlay {
    /// Draws `labels` in the top document (`fixed`: viewport coordinates, else document ones) and
    /// waits for a frame that shows them.
    pub async fn draw(
        page: &Session,
        labels: &[Label],
        fixed: bool,
        deadline: &Deadline,
    ) -> Result<Overlay> {
        let labels = serde_json::to_value(labels)
            .map_err(|e| CliError::internal(format!("encoding labels: {e}")))?;
        let expression = format!("({OVERLAY_JS})({labels}, {fixed})");
        let r = page
            .send_timeout(
                &cdp_protocol::runtime::Evaluate {
                    expression,
                    return_by_value: Some(false),
                    silent: Some(true),
                    ..Default::default()
                },
                deadline.capped(deadline::QUICK_CALL),
            )
            .await?;
        if let Some(ex) = &r.exception_details {
            return Err(CliError::internal(format!(
                "drawing the labels failed in the page: {}",
                ex.message().lines().next().unwrap_or_default()
            )));
        }
        let host = r
            .result
            .object_id
            .ok_or_else(|| CliError::internal("drawing the labels gave no element"))?;
        // A frame that includes the overlay before the capture asks for the next one.
        let _ = page
            .send_timeout(
                &cdp_protocol::runtime::Evaluate {
                    // Native whatever the page made of `Promise` (zone.js).
                    expression: "(async () => new Promise(r => requestAnimationFrame(() => r(0))))()"
                        .into(),
                    await_promise: Some(true),
                    return_by_value: Some(true),
                    silent: Some(true),
                    ..Default::default()
                },
                deadline.capped(deadline::PROBE),
            )
            .await;
        Ok(Overlay {
            host: ObjectHandle::new(page.clone(), host),
        })
    }

    /// Takes the overlay out of the page.
    pub async fn remove(self) -> Result<()> {
        let r = self
            .host
            .call(
                "function () { this.remove(); }",
                Vec::new(),
                deadline::QUICK_CALL,
            )
            .await?;
        match r.exception_details {
            None => Ok(()),
            Some(ex) => Err(CliError::internal(format!(
                "removing the labels failed in the page: {}",
                ex.message().lines().next().unwrap_or_default()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(width: f64, height: f64) -> page::Viewport {
        page::Viewport {
            x: 0.0,
            y: 0.0,
            width,
            height,
            scale: 1.0,
        }
    }

    #[test]
    fn captures_are_bounded_per_side_and_in_all() {
        let mut c = clip(1280.0, 28_356.0);
        assert_eq!(bound(&mut c), None);
        let mut c = clip(1_954_696.0, 720.0);
        let cut = bound(&mut c).expect("cut");
        assert_eq!(cut.taken, (MAX_SIDE, 720.0));
        let mut c = clip(20_000.0, 20_000.0);
        let cut = bound(&mut c).expect("cut");
        assert_eq!(cut.taken, (20_000.0, 2_500.0));
        assert!(c.width * c.height <= MAX_AREA);
    }
}
