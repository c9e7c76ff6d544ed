//! `browser goto`, `back`, `forward`, `reload`.

use crate::args::{self, TabTarget};
use crate::browser::{self, HistoryMove};
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::{CliError, Result};
use envelope::{NavigationData as NavData, NavigationKind};

async fn finish(
    cx: &mut TabCx<'_>,
    kind: NavigationKind,
    requested: Option<String>,
    from_url: String,
) -> Result<Done<NavData>> {
    let (to_url, title) = browser::page_info(&cx.page, &cx.call).await?;
    cx.url = Some(to_url.clone());
    cx.title = Some(title.clone());
    Ok(Done::data(NavData {
        kind,
        requested_url: requested,
        from_url,
        to_url,
        title,
    }))
}

async fn history(
    cx: &mut TabCx<'_>,
    mv: HistoryMove,
    kind: NavigationKind,
) -> Result<Done<NavData>> {
    let from_url = cx.url_before_loading().await?;
    let main_frame = cx
        .session
        .record()
        .tab(&cx.tab_id)
        .map(|t| t.target_id.clone())
        .unwrap_or_default();
    let what = format!(
        "browser {}",
        serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    );
    let page = cx.page.clone();
    if !browser::history(&page, &main_frame, mv, &cx.call, &what).await? {
        let which = if mv == HistoryMove::Back {
            "previous"
        } else {
            "next"
        };
        return Err(CliError::NavigationFailed {
            url: from_url,
            reason: format!("no {which} page in history"),
        });
    }
    cx.forget_refs();
    finish(cx, kind, None, from_url).await
}

impl TabCommand for args::Goto {
    type Data = NavData;
    const LOADS_PAGE: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        let from_url = cx.url_before_loading().await?;
        let page = cx.page.clone();
        browser::navigate(&page, &self.url, &cx.call, "browser goto").await?;
        cx.forget_refs();
        finish(cx, NavigationKind::Goto, Some(self.url), from_url).await
    }
}

impl TabCommand for args::Back {
    type Data = NavData;
    const LOADS_PAGE: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Back, NavigationKind::Back).await
    }
}

impl TabCommand for args::Forward {
    type Data = NavData;
    const LOADS_PAGE: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Forward, NavigationKind::Forward).await
    }
}

impl TabCommand for args::Reload {
    type Data = NavData;
    const LOADS_PAGE: bool = true;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Reload, NavigationKind::Reload).await
    }
}
