//! `browser eval`: page script, as an agent needs it (see `eval::run_user_script`).

use std::path::PathBuf;

use envelope::EvalData;
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::{eval, locate};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// `browser eval <code>` (or `--file <path>`, or `-` for the code on stdin).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Eval {
    /// JavaScript: an expression or statements, the value of the last one is the result; `await`
    /// works at the top level; each call has its own scope. `-` reads the code from stdin (may
    /// start with `-`: `eval -1`).
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true, default_value = ""))]
    pub code: String,
    /// Read the code from this file (read by the CLI, relative to its working directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH"))]
    pub file: Option<PathBuf>,
    /// Run it in the document of this `<iframe>` (CSS, XPath or `@eN`, in any frame;
    /// out-of-process ones too) instead of the page's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "IFRAME"))]
    pub frame: Option<String>,
    /// Give the code this element as `el` (`@eN`, CSS, `role=...` or XPath; any frame), run in
    /// the element's own document: `eval 'el.getBoundingClientRect().top' --element @e5`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "SELECTOR", conflicts_with = "frame")
    )]
    pub element: Option<String>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

impl Eval {
    /// Evaluates `code` (given inline).
    pub fn new(code: impl Into<String>, target: TabTarget) -> Eval {
        Eval {
            code: code.into(),
            file: None,
            frame: None,
            element: None,
            target,
        }
    }

    /// The request with its code read where the CLI reads it: `--file` (relative to `cwd`), or
    /// stdin for `-`. Runs in the client, never in the daemon.
    pub fn read_code(mut self, cwd: Option<&std::path::Path>) -> Result<Eval> {
        if let Some(file) = self.file.take() {
            if !self.code.is_empty() {
                return Err(CliError::InvalidArgument(
                    "eval takes the code or --file, not both".into(),
                ));
            }
            let path = match cwd {
                Some(cwd) if file.is_relative() => cwd.join(&file),
                _ => file,
            };
            self.code = std::fs::read_to_string(&path).map_err(|e| {
                CliError::InvalidArgument(format!("cannot read --file {}: {e}", path.display()))
            })?;
        } else if self.code == "-" {
            // A terminal on stdin means nobody is piping code in: reading would wait for a
            // person to type and press Ctrl-D, which a script or agent never does (a hang).
            if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
                return Err(CliError::InvalidArgument(
                    "eval - reads the code from stdin, and stdin is a terminal: pipe the code in \
                     (echo '1 + 1' | actionbook browser eval - ...), or give it as the argument \
                     or with --file <path>"
                        .into(),
                ));
            }
            let mut code = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut code).map_err(|e| {
                CliError::InvalidArgument(format!("cannot read the code from stdin: {e}"))
            })?;
            self.code = code;
        }
        if self.code.trim().is_empty() {
            return Err(CliError::InvalidArgument(
                "eval needs code: eval '<js>', eval --file <path>, or eval - (code on stdin)"
                    .into(),
            ));
        }
        Ok(self)
    }
}

impl TabCommand for Eval {
    type Data = EvalData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Every string of the value (a page can put its words in any of them), and the preview the
    /// text form prints for a value that is not a string.
    fn bound(data: &mut EvalData, boundary: &crate::boundary::ContentBoundary) {
        boundary.wrap_strings(&mut data.value);
        data.preview = boundary.wrap(&data.preview);
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<EvalData>> {
        if self.file.is_some() {
            return Err(CliError::InvalidArgument(
                "eval --file is read by the CLI: send the code itself".into(),
            ));
        }
        if self.code.trim().is_empty() {
            return Err(CliError::InvalidArgument("eval needs code".into()));
        }
        let (v, pre, page_cut) = match (&self.frame, &self.element) {
            (Some(_), Some(_)) => {
                return Err(CliError::InvalidArgument(
                    "eval takes --frame or --element, not both (the element's document is where \
                     the code runs)"
                        .into(),
                ));
            }
            (None, None) => eval::run_user_script(&cx.page, &self.code, &cx.deadline).await?,
            (Some(frame), None) => {
                let (session, context) = frame_document(cx, frame).await?;
                eval::run_user_script_in(&session, context, &self.code, &cx.deadline).await?
            }
            (None, Some(selector)) => {
                let (node, graph) = located(cx, selector).await?;
                let frame = cdp_protocol::FrameId::from(node.frame_id.as_str());
                let probe = cx.deadline.capped(crate::deadline::PROBE);
                let context = graph.execution_context_for(&frame, probe).await?;
                eval::run_user_script_on(&node.handle, context, &self.code, &cx.deadline).await?
            }
        };
        // A huge value is cut (and said so), not sent whole: it would outgrow the reply frame.
        let (v, truncated, warnings) = eval::reportable(v, page_cut);
        let mut done = Done::data(EvalData {
            value: v.value,
            value_type: v.kind,
            preview: v.preview,
            pre_url: pre.as_ref().map(|p| p.url.clone()),
            pre_origin: pre.as_ref().map(|p| p.origin.clone()),
            pre_ready_state: pre.map(|p| p.ready_state),
        });
        done.truncated = truncated;
        done.warnings = warnings;
        Ok(done)
    }
}

/// The element `selector` names (any frame), with the tab's frame graph.
async fn located(
    cx: &mut TabCx<'_>,
    selector: &str,
) -> Result<(locate::Located, frame_graph::FrameGraph)> {
    cx.load_refs();
    let page = cx.page.clone();
    let deadline = cx.deadline.clone();
    let node = locate::locate(&mut cx.state.frames, &page, selector, &deadline).await?;
    let graph = cx.state.frames.graph(&page, &deadline).await?;
    Ok((node, graph))
}

/// The session and execution context of the document the `<iframe>` named by `selector` shows.
async fn frame_document(
    cx: &mut TabCx<'_>,
    selector: &str,
) -> Result<(cdp_protocol::Session, cdp_protocol::ExecutionContextId)> {
    let deadline = cx.deadline.clone();
    let (node, graph) = located(cx, selector).await?;
    let parent = cdp_protocol::FrameId::from(node.frame_id.as_str());
    let owner = cdp_protocol::BackendNodeId::from(node.encoded.backend_node_id);
    let frame = graph.frame_by_owner(&parent, owner).ok_or_else(|| {
        CliError::InvalidArgument(format!(
            "--frame {selector} is not an <iframe> (or <frame>) showing a document: name the frame element"
        ))
    })?;
    let session = graph.session_for(&frame.frame_id).ok_or_else(|| {
        CliError::FrameNotFound(format!(
            "the frame of {selector} has no live document (its renderer crashed)"
        ))
    })?;
    let context = graph
        .execution_context_for(&frame.frame_id, deadline.capped(crate::deadline::PROBE))
        .await?;
    Ok((session, context))
}
