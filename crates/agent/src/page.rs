//! The tab as the model reads it: the engine's snapshot text (the outline with `[ref=eN]`, every
//! frame, OOPIFs included), never raw HTML; and running the engine's commands for the agent.

use actionbook::commands::extension::ExtensionCall;
use actionbook::commands::observation::Snapshot;
use actionbook::{Command, Request, TabTarget};
use envelope::{Context, Data, Envelope, ErrorCode, ErrorInfo, SnapshotNode};

use crate::error::{AgentError, Result};

/// The least a command is given of what is left of the agent's deadline.
const LEAST_MS: u64 = 1;

/// Runs one of the engine's commands within what is left of the call's deadline; a failure is
/// the command's own error.
pub async fn run(call: &ExtensionCall<'_>, command: impl Into<Command>) -> Result<Envelope> {
    let left = call.deadline.remaining().as_millis() as u64;
    if left == 0 {
        return Err(AgentError::Timeout {
            what: "agent command",
            timeout_ms: call.deadline.timeout_ms(),
        });
    }
    let request = Request::new(command)
        .with_timeout_ms(left.max(LEAST_MS))
        .with_env(call.env.clone());
    let env = call.runner.run(request).await;
    match env.error() {
        Some(e) => Err(AgentError::Engine(e.clone())),
        None => Ok(env),
    }
}

/// One snapshot of the tab, as sent to the model.
#[derive(Debug, Clone)]
pub struct PageView {
    /// The snapshot text (full, or the changed lines of a diff).
    pub text: String,
    /// The ref'd nodes of that snapshot (every ref of a full snapshot).
    pub nodes: Vec<SnapshotNode>,
    /// The tab's context at the snapshot (URL, title).
    pub context: Option<Context>,
    /// Whether `text` is a diff against an earlier revision.
    pub is_diff: bool,
}

impl PageView {
    /// The node of `reference` (`e12` or `@e12`).
    pub fn node(&self, reference: &str) -> Option<&SnapshotNode> {
        let r = reference.trim().trim_start_matches('@');
        self.nodes.iter().find(|n| n.ref_id == r)
    }

    /// The page's URL, as far as the context says.
    pub fn url(&self) -> Option<&str> {
        self.context.as_ref().and_then(|c| c.url.as_deref())
    }
}

/// Takes a snapshot of the tab; with `diff`, only what changed since the tab's last one (the
/// engine answers the full snapshot after a navigation, and says so).
pub async fn look(call: &ExtensionCall<'_>, target: &TabTarget, diff: bool) -> Result<PageView> {
    let mut snapshot = Snapshot::of(target.clone());
    snapshot.diff = diff;
    let env = run(call, snapshot).await?;
    let Some(Data::Snapshot(data)) = env.data() else {
        return Err(AgentError::Engine(ErrorInfo::new(
            ErrorCode::InternalError,
            "the snapshot answered no snapshot data",
        )));
    };
    let text = tokio::fs::read_to_string(&data.path)
        .await
        .map_err(|source| AgentError::File {
            path: data.path.clone(),
            source,
        })?;
    let is_diff = data
        .diff
        .as_ref()
        .is_some_and(|d| d.base_revision.is_some());
    Ok(PageView {
        text: for_the_model(&text),
        nodes: data.nodes.clone(),
        context: env.context().cloned(),
        is_diff,
    })
}

/// The last full view of each tab, for `--dom-cache` (process-wide: the daemon serves every
/// caller; a few dozen tabs at most are kept, the oldest go first).
static LAST_VIEWS: std::sync::Mutex<Vec<(TabTarget, PageView)>> = std::sync::Mutex::new(Vec::new());
/// Tabs whose last view is kept.
const KEPT_VIEWS: usize = 32;

fn last_views() -> std::sync::MutexGuard<'static, Vec<(TabTarget, PageView)>> {
    LAST_VIEWS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Keeps `view` as the tab's last full view.
pub fn remember(target: &TabTarget, view: &PageView) {
    if view.is_diff {
        return;
    }
    let mut views = last_views();
    views.retain(|(t, _)| t != target);
    views.push((target.clone(), view.clone()));
    if views.len() > KEPT_VIEWS {
        views.remove(0);
    }
}

/// A full snapshot of the tab, or with `reuse` (`--dom-cache`) the tab's last one when the tab
/// is still at its URL (one cheap `browser url`, no capture): whether it was reused. Refs stay
/// the engine's, so an element gone since is the action's clear error, never another element.
pub async fn look_or_reuse(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
    reuse: bool,
) -> Result<(PageView, bool)> {
    if reuse {
        let kept = last_views()
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, v)| v.clone());
        if let Some(view) = kept
            && view.url() == Some(url(call, target).await?.0.as_str())
        {
            return Ok((view, true));
        }
    }
    let view = look(call, target, false).await?;
    remember(target, &view);
    Ok((view, false))
}

/// The tab's URL (one cheap `browser url`, no capture), with the tab's context.
pub async fn url(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
) -> Result<(String, Option<Context>)> {
    let url = actionbook::commands::observation::Url {
        target: target.clone(),
    };
    let env = run(call, url).await?;
    match env.data() {
        Some(Data::PageValue(now)) => Ok((now.value.clone(), env.context().cloned())),
        _ => Err(AgentError::Engine(ErrorInfo::new(
            ErrorCode::InternalError,
            "browser url answered no URL",
        ))),
    }
}

/// The tab's viewport with numbered labels on its interactive elements (`[N]` is ref `eN`), as
/// JPEG for the model (`--visual`); written under the home, one file a tab, replaced each time.
pub async fn annotated_screenshot(
    call: &ExtensionCall<'_>,
    target: &TabTarget,
) -> Result<crate::model::Image> {
    use base64::Engine as _;
    let path = call.home.root().join("agent-shots").join(format!(
        "{}-{}.jpg",
        target.session.as_str(),
        target.tab.as_str()
    ));
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|source| AgentError::File {
                path: dir.display().to_string(),
                source,
            })?;
    }
    let shot = actionbook::commands::observation::Screenshot {
        path: path.display().to_string(),
        target: target.clone(),
        full: false,
        annotate: true,
        screenshot_quality: Some(70),
        screenshot_format: None,
        selector: None,
    };
    run(call, shot).await?;
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|source| AgentError::File {
            path: path.display().to_string(),
            source,
        })?;
    Ok(crate::model::Image {
        media_type: "image/jpeg".into(),
        base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// The snapshot text as the model gets it: without the links' `/url:` lines (a model acts on
/// names; they were a fifth of a 5k-element page's text). Every element line and ref stays.
fn for_the_model(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let is_url = line.find("- /url:").is_some_and(|i| {
            line[..i]
                .chars()
                .all(|c| matches!(c, ' ' | '+' | '~' | '-'))
        });
        if !is_url {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::for_the_model;

    #[test]
    fn url_lines_go_and_element_lines_stay() {
        let text = "- link \"Home\" [ref=e1]:\n  - /url: /home\n+   - /url: /new\n- paragraph: a - /url: b\n";
        assert_eq!(
            for_the_model(text),
            "- link \"Home\" [ref=e1]:\n- paragraph: a - /url: b\n"
        );
    }
}
