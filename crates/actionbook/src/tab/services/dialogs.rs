//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`) answered as they open.
//!
//! Why: a page showing a dialog is blocked until someone answers it; no command could run on the
//! tab again. So the tab answers at once, as a cautious user would unless told otherwise: `alert`
//! is accepted (there is nothing else to do with it), and of the dialogs that ask something,
//! `beforeunload` is accepted (the navigation a command asked for goes ahead) and `confirm` and
//! `prompt` are dismissed (nothing is agreed to on the agent's behalf). `browser dialog` changes
//! the answer to the ones that ask, for the next one or every one ([`DialogPolicy`]). Each answer
//! is reported as a warning of the next command's envelope.

use std::sync::{Arc, Mutex};

use cdp_protocol::{Connection, Session, TargetId, page};
use futures::future::BoxFuture;

use super::TabService;
use crate::deadline;
use crate::store::DialogPolicy;

/// The tab's answer to dialogs that ask, shared by the tab's state (which `browser dialog` sets)
/// and the answerer of each attach.
pub(crate) type PolicyCell = Arc<Mutex<Option<DialogPolicy>>>;

/// Answers the dialogs of a tab's page and keeps what it did until a command reports it.
#[derive(Debug, Default)]
pub(crate) struct DialogAnswerer {
    log: Arc<Mutex<Vec<String>>>,
    policy: Mutex<PolicyCell>,
}

impl TabService for DialogAnswerer {
    fn new(_conn: &Connection, _target: &TargetId) -> DialogAnswerer {
        DialogAnswerer::default()
    }

    fn start(&self, page: &Session) -> Option<BoxFuture<'static, ()>> {
        let mut events = page.subscribe::<page::JavascriptDialogOpening>();
        let log = self.log.clone();
        let policy = lock(&self.policy).clone();
        let page = page.clone();
        Some(Box::pin(async move {
            while let Some(ev) = events.recv().await {
                let Ok(dialog) = ev else { continue };
                let kind = match dialog.r#type.as_str() {
                    "" => "alert",
                    k => k,
                };
                let answer = answer(kind, &dialog, &policy);
                // Logged before answering: the command that made the page show it cannot finish
                // before the answer, so it finds the entry when it ends.
                push(&log, answer.said);
                let answered = page
                    .send_timeout(
                        &page::HandleJavaScriptDialog {
                            accept: answer.accept,
                            prompt_text: answer.prompt_text,
                        },
                        deadline::QUICK_CALL,
                    )
                    .await;
                if let Err(e) = answered {
                    let message = &dialog.message;
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
    /// Answers as the tab's `policy` says (set before the service starts).
    pub fn configure(&self, policy: PolicyCell) {
        *lock(&self.policy) = policy;
    }

    /// Takes the answers not yet reported.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.log))
    }
}

/// How one dialog is answered, and the warning saying so.
struct Answer {
    accept: bool,
    prompt_text: Option<String>,
    said: String,
}

/// The answer to a dialog of `kind`: an alert is accepted; one that asks as the tab's policy says
/// (a one-time policy is used up), else by the cautious default.
fn answer(kind: &str, dialog: &page::JavascriptDialogOpening, policy: &PolicyCell) -> Answer {
    let message = &dialog.message;
    let chosen = if kind == "alert" {
        None
    } else {
        let mut p = lock(policy);
        let chosen = p.clone();
        if chosen.as_ref().is_some_and(|c| c.once) {
            *p = None;
        }
        chosen
    };
    match chosen {
        Some(p) if p.accept => {
            let prompt_text = (kind == "prompt").then(|| {
                p.prompt_text
                    .clone()
                    .or_else(|| dialog.default_prompt.clone())
                    .unwrap_or_default()
            });
            let with = match &prompt_text {
                Some(t) => format!(" with {t:?}"),
                None => String::new(),
            };
            Answer {
                accept: true,
                prompt_text,
                said: format!("{kind} dialog {message:?} accepted{with}, as `browser dialog` said"),
            }
        }
        Some(_) => Answer {
            accept: false,
            prompt_text: None,
            said: format!("{kind} dialog {message:?} dismissed, as `browser dialog` said"),
        },
        None => {
            let accept = matches!(kind, "alert" | "beforeunload");
            let said = if accept {
                format!("{kind} dialog {message:?} accepted")
            } else {
                format!(
                    "{kind} dialog {message:?} dismissed (`browser dialog accept` before the command \
                     answers the next one with OK)"
                )
            };
            Answer {
                accept,
                prompt_text: None,
                said,
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn push(log: &Mutex<Vec<String>>, line: String) {
    lock(log).push(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opening(kind: &str, default_prompt: Option<&str>) -> page::JavascriptDialogOpening {
        page::JavascriptDialogOpening {
            message: "sure?".into(),
            r#type: kind.into(),
            default_prompt: default_prompt.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn a_one_time_answer_is_used_by_the_next_dialog_that_asks() {
        let cell: PolicyCell = Arc::default();
        *lock(&cell) = Some(DialogPolicy {
            accept: true,
            prompt_text: None,
            once: true,
        });
        // An alert asks nothing: it leaves the answer for the dialog that does.
        let a = answer("alert", &opening("alert", None), &cell);
        assert!(a.accept);
        assert!(lock(&cell).is_some());
        let a = answer("prompt", &opening("prompt", Some("def")), &cell);
        assert!(a.accept);
        assert_eq!(a.prompt_text.as_deref(), Some("def"));
        assert_eq!(
            a.said,
            "prompt dialog \"sure?\" accepted with \"def\", as `browser dialog` said"
        );
        assert!(lock(&cell).is_none());
        let a = answer("confirm", &opening("confirm", None), &cell);
        assert!(!a.accept);
        assert!(
            a.said.contains("dismissed (`browser dialog accept`"),
            "{}",
            a.said
        );
        // beforeunload: the navigation goes ahead unless told.
        assert!(answer("beforeunload", &opening("beforeunload", None), &cell).accept);
    }

    #[test]
    fn an_answer_for_every_dialog_stays() {
        let cell: PolicyCell = Arc::default();
        *lock(&cell) = Some(DialogPolicy {
            accept: false,
            prompt_text: None,
            once: false,
        });
        for _ in 0..2 {
            let a = answer("beforeunload", &opening("beforeunload", None), &cell);
            assert!(!a.accept);
            assert_eq!(
                a.said,
                "beforeunload dialog \"sure?\" dismissed, as `browser dialog` said"
            );
        }
        *lock(&cell) = Some(DialogPolicy {
            accept: true,
            prompt_text: Some("Ada".into()),
            once: false,
        });
        let a = answer("confirm", &opening("confirm", None), &cell);
        assert!(a.accept);
        assert_eq!(a.prompt_text, None);
        assert_eq!(
            answer("prompt", &opening("prompt", Some("x")), &cell).prompt_text,
            Some("Ada".into())
        );
    }
}
