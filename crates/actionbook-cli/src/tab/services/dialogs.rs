//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) answered as they open.
//!
//! Why: a page showing a dialog is blocked until someone answers it; no command could run on the
//! tab again. The spec has no dialog commands, so the tab answers as a cautious user would:
//! `alert` and `beforeunload` are accepted (there is nothing else to do with them), `confirm` and
//! `prompt` dismissed (nothing is agreed to on the agent's behalf). Each answer is reported as a
//! warning of the next command's envelope.

use std::sync::{Arc, Mutex};

use cdp_protocol::{Connection, Session, TargetId, page};
use futures::future::BoxFuture;

use super::TabService;
use crate::deadline;

/// Answers the dialogs of a tab's page and keeps what it did until a command reports it.
#[derive(Debug, Default)]
pub(crate) struct DialogAnswerer {
    log: Arc<Mutex<Vec<String>>>,
}

impl TabService for DialogAnswerer {
    fn new(_conn: &Connection, _target: &TargetId) -> DialogAnswerer {
        DialogAnswerer::default()
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let mut events = page.subscribe::<page::JavascriptDialogOpening>();
        let log = self.log.clone();
        let page = page.clone();
        Some(Box::pin(async move {
            while let Some(ev) = events.recv().await {
                let Ok(dialog) = ev else { continue };
                let kind = match dialog.r#type.as_str() {
                    "" => "alert",
                    k => k,
                };
                let accept = matches!(kind, "alert" | "beforeunload");
                let message = &dialog.message;
                let what = if accept { "accepted" } else { "dismissed" };
                // Logged before answering: the command that made the page show it cannot finish
                // before the answer, so it finds the entry when it ends.
                push(&log, format!("{kind} dialog {message:?} {what}"));
                let answer = page
                    .send_timeout(
                        &page::HandleJavaScriptDialog {
                            accept,
                            prompt_text: None,
                        },
                        deadline::QUICK_CALL,
                    )
                    .await;
                if let Err(e) = answer {
                    push(
                        &log,
                        format!("{kind} dialog {message:?} could not be answered: {e}"),
                    );
                }
            }
        }))
    }
}

impl DialogAnswerer {
    /// Takes the answers not yet reported.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn push(log: &Mutex<Vec<String>>, line: String) {
    log.lock().unwrap_or_else(|e| e.into_inner()).push(line);
}
