//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) answered as they open.
//!
//! Why: a page showing a dialog is blocked until someone answers it; no command could run on the
//! tab again. The spec has no dialog commands, so the tab answers as a cautious user would:
//! `alert` and `beforeunload` are accepted (there is nothing else to do with them), `confirm` and
//! `prompt` dismissed (nothing is agreed to on the agent's behalf). Each answer is reported as a
//! warning of the next command's envelope.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cdp::Session;

/// What the tab's dialogs were answered with, not yet reported.
pub(crate) type DialogLog = Arc<Mutex<Vec<String>>>;

/// Starts answering the dialogs of a page session; ends once the log is dropped (the tab was
/// re-attached or closed) or the connection closes.
pub(crate) fn answer_dialogs(page: &Session) -> DialogLog {
    let log = DialogLog::default();
    let weak: Weak<Mutex<Vec<String>>> = Arc::downgrade(&log);
    let mut events = page.events(&["Page.javascriptDialogOpening"]);
    let page = page.clone();
    tokio::spawn(async move {
        while let Some(ev) = events.recv().await {
            let Some(log) = weak.upgrade() else { return };
            let p: Value = serde_json::from_str(ev.params.get()).unwrap_or_default();
            let kind = p["type"].as_str().unwrap_or("alert").to_string();
            let accept = matches!(kind.as_str(), "alert" | "beforeunload");
            let message = p["message"].as_str().unwrap_or_default();
            let what = if accept { "accepted" } else { "dismissed" };
            // Logged before answering: the command that made the page show it cannot finish
            // before the answer, so it finds the entry when it ends.
            push(&log, format!("{kind} dialog {message:?} {what}"));
            let answer = page
                .call_timeout(
                    "Page.handleJavaScriptDialog",
                    json!({ "accept": accept }),
                    Duration::from_secs(5),
                )
                .await;
            if let Err(e) = answer {
                push(
                    &log,
                    format!("{kind} dialog {message:?} could not be answered: {e}"),
                );
            }
        }
    });
    log
}

fn push(log: &DialogLog, line: String) {
    log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
}

/// Takes the answers not yet reported.
pub(crate) fn take(log: &Option<DialogLog>) -> Vec<String> {
    match log {
        Some(l) => std::mem::take(&mut *l.lock().unwrap_or_else(|e| e.into_inner())),
        None => Vec::new(),
    }
}
