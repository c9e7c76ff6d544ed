//! Navigation (spec 9): `browser goto`, `back`, `forward`, `reload`.

use envelope::{NavigationData as NavData, NavigationKind};
use serde::{Deserialize, Serialize};

use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::eval;
use crate::page::navigation::{self, HistoryMove};
use crate::reply::Done;
use crate::tab::BrowserSession;
use crate::tab::services::network::{NetworkRecorder, RecorderState};
use crate::tab::services::restores::RestoreWatch;
use crate::tab::{TabCommand, TabCx};

/// `browser goto <url>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Goto {
    /// Target URL; a path (`/docs`, as a snapshot prints a same-origin link) loads from the
    /// page's origin.
    pub url: String,
    /// How far to wait: load (default: the page and its resources), domcontentloaded (the
    /// document parsed; images, frames and late scripts may still load) or commit (the new
    /// document arrived).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_enum, value_name = "load|domcontentloaded|commit")
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_until: Option<WaitUntil>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// Defines tab commands whose only arguments are `--session` and `--tab`.
macro_rules! tab_only {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $name {
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }
    )*};
}
pub(crate) use tab_only;

tab_only! {
    /// `browser back`.
    Back;
    /// `browser forward`.
    Forward;
    /// `browser reload`.
    Reload;
}

/// How far `goto` waits for the page to load (`--wait-until`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    /// The page and its resources: the load event.
    #[default]
    Load,
    /// The document parsed: DOMContentLoaded.
    Domcontentloaded,
    /// The new document arrived.
    Commit,
}

impl From<WaitUntil> for navigation::LoadState {
    fn from(w: WaitUntil) -> Self {
        match w {
            WaitUntil::Load => navigation::LoadState::Load,
            WaitUntil::Domcontentloaded => navigation::LoadState::DomContentLoaded,
            WaitUntil::Commit => navigation::LoadState::Commit,
        }
    }
}

/// The URLs of the tab's requests still in flight, as its network recorder knows them (none when
/// it does not record).
fn still_loading<'a>(cx: &'a TabCx<'_>) -> impl Fn() -> Vec<String> + Send + Sync + 'a {
    let recorder = cx.state.services.get::<NetworkRecorder>();
    move || {
        recorder
            .filter(|r| r.state() == RecorderState::Recording)
            .map(|r| r.in_flight().iter().map(|q| q.url.clone()).collect())
            .unwrap_or_default()
    }
}

/// How long a navigation that ended with ERR_ABORTED waits to hear of the download it may have
/// become (the browser tells of it on another session, about when it answers the navigation).
const DOWNLOAD_NOTICE: std::time::Duration = std::time::Duration::from_millis(500);

/// A navigation of `tab` that failed with ERR_ABORTED: [`CliError::NavigationIsDownload`] when a
/// download of the tab began since `downloads_before`, else `failed` as it is.
pub(crate) async fn as_download(
    session: &BrowserSession,
    tab: &str,
    downloads_before: u64,
    failed: CliError,
    deadline: &Deadline,
) -> CliError {
    let CliError::NavigationFailed { url, .. } = &failed else {
        return failed;
    };
    let grace = deadline.capped(DOWNLOAD_NOTICE);
    match session
        .downloads
        .first_since(tab, downloads_before, grace)
        .await
    {
        Some(d) => CliError::NavigationIsDownload {
            url: url.clone(),
            id: d.id,
            file_name: d.file_name,
        },
        None => failed,
    }
}

async fn finish(
    cx: &mut TabCx<'_>,
    kind: NavigationKind,
    requested: Option<String>,
    from_url: String,
) -> Result<Done<NavData>> {
    let (to_url, title, status) = eval::page_info_status(&cx.page, &cx.deadline).await?;
    cx.url = Some(to_url.clone());
    cx.title = Some(title.clone());
    let warning = navigation::http_error_warning(&to_url, status);
    let mut done = Done::data(NavData {
        kind,
        requested_url: requested,
        from_url,
        to_url,
        title,
    });
    done.warnings.extend(warning);
    Ok(done)
}

async fn history(
    cx: &mut TabCx<'_>,
    mv: HistoryMove,
    kind: NavigationKind,
    what: &str,
) -> Result<Done<NavData>> {
    let from_url = cx.url_before_loading().await?;
    let main_frame = cx.main_frame();
    let page = cx.page.clone();
    let loading = still_loading(cx);
    let moved = navigation::history(&page, &main_frame, mv, &cx.deadline, what, &loading).await;
    drop(loading);
    if !moved? {
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
    // A restore from the back/forward cache is noted before the command ends, so `wait
    // navigation` next does not take it for a later one.
    if let Some(w) = cx.state.services.get::<RestoreWatch>() {
        w.last_restore().await;
    }
    cx.forget_refs();
    finish(cx, kind, None, from_url).await
}

impl TabCommand for Goto {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        let from_url = cx.url_before_loading().await?;
        let url = navigation::resolve_goto(&self.url, &from_url)?;
        let rules = cx.session.with_record(|r| r.allowed_domains.clone());
        crate::session::guard::check_navigation(&rules, &url, "browser goto")?;
        let page = cx.page.clone();
        let downloads_before = cx.session.downloads.begun();
        let loading = still_loading(cx);
        let navigated = navigation::navigate(
            &page,
            &url,
            &cx.deadline,
            "browser goto",
            navigation::OnTimeout::Stop,
            self.wait_until.unwrap_or_default().into(),
            &loading,
        )
        .await;
        drop(loading);
        if let Err(e) = navigated {
            return Err(match e {
                e if navigation::is_aborted(&e) => {
                    as_download(&cx.session, &cx.tab_id, downloads_before, e, &cx.deadline).await
                }
                e => e,
            });
        }
        cx.forget_refs();
        let done = finish(cx, NavigationKind::Goto, Some(self.url), from_url).await?;
        crate::fault::hold(cx.env.abort_at.as_deref(), "goto.loaded", &cx.session.dir).await;
        Ok(done)
    }
}

impl TabCommand for Back {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(cx, HistoryMove::Back, NavigationKind::Back, "browser back").await
    }
}

impl TabCommand for Forward {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(
            cx,
            HistoryMove::Forward,
            NavigationKind::Forward,
            "browser forward",
        )
        .await
    }
}

impl TabCommand for Reload {
    type Data = NavData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<NavData>> {
        history(
            cx,
            HistoryMove::Reload,
            NavigationKind::Reload,
            "browser reload",
        )
        .await
    }
}
