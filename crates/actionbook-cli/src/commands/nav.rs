//! `browser goto`, `back`, `forward`, `reload`.

use serde::{Deserialize, Serialize};

use crate::args::{self, TabTarget};
use crate::browser::{self, HistoryMove};
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::Result;
use crate::output::{TextBody, ok_lines};

/// `data` of the navigation commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NavData {
    /// `goto`, `back`, `forward` or `reload`.
    pub kind: String,
    /// The URL asked for (`goto` only; null otherwise).
    pub requested_url: Option<String>,
    /// URL before.
    pub from_url: String,
    /// URL after.
    pub to_url: String,
    /// Title after.
    pub title: String,
}

impl TextBody for NavData {
    fn text_body(&self, command: &str, out: &mut Vec<String>) {
        ok_lines(command, out, &[("title", self.title.clone())]);
    }
}

async fn finish(
    cx: &mut TabCx<'_>,
    kind: &str,
    requested: Option<String>,
    from_url: String,
) -> Result<Done<NavData>> {
    let (to_url, title) = browser::page_info(&cx.page, &cx.call).await?;
    cx.url = Some(to_url.clone());
    cx.title = Some(title.clone());
    Ok(Done::data(NavData {
        kind: kind.to_string(),
        requested_url: requested,
        from_url,
        to_url,
        title,
    }))
}

async fn history(cx: &mut TabCx<'_>, mv: HistoryMove, kind: &str) -> Result<Done<NavData>> {
    let (from_url, _) = browser::page_info(&cx.page, &cx.call).await?;
    let main_frame = cx
        .session
        .record()
        .tab(&cx.tab_id)
        .map(|t| t.target_id.clone())
        .unwrap_or_default();
    let what = format!("browser {kind}");
    let page = cx.page.clone();
    browser::history(&page, &main_frame, mv, &cx.call, &what).await?;
    cx.forget_refs();
    finish(cx, kind, None, from_url).await
}

impl TabCommand for args::Goto {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        let (from_url, _) = browser::page_info(&cx.page, &cx.call).await?;
        let page = cx.page.clone();
        browser::navigate(&page, &self.url, &cx.call, "browser goto").await?;
        cx.forget_refs();
        finish(cx, "goto", Some(self.url), from_url).await
    }
}

impl TabCommand for args::Back {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Back, "back").await
    }
}

impl TabCommand for args::Forward {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Forward, "forward").await
    }
}

impl TabCommand for args::Reload {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Reload, "reload").await
    }
}
