//! The gate of a session's action policy ([`crate::policy_actions`]): every request of every front end
//! (CLI, batch, MCP, an agent's own commands) passes [`gate`] in `Engine::execute_for` before it
//! runs. An action the session denies is refused (`ACCESS_DENIED`); one it confirms answers
//! `CONFIRMATION_REQUIRED` with what it would do (the element as given and, read without acting,
//! its role and name; the value as written, secrets as `<<name>>`) and a one-time token; the same
//! request with `--confirm <token>` then runs once.
//!
//! Tokens ([`Confirmations`]) live in the engine's memory only: 128 random bits, bound to the
//! session and to the request's exact wire form (command, every argument, the tab; not its
//! timeout), good for one attempt within [`TOKEN_TTL`]. A daemon restart forgets them (the policy
//! itself is in the session's record and outlives it).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;
use envelope::{AddressingLevel, Data, Envelope};
use serde_json::{Value, json};

use crate::commands::observation::Describe;
use crate::commands::{Command, Cx, Request};
use crate::deadline::Deadline;
use crate::error::CliError;
use crate::model::{ClientEnv, TabTarget};
use crate::policy_actions::{Action, Verdict};
use crate::reply::failure;
use crate::tab::Sessions;

/// How long a token stays good.
pub(crate) const TOKEN_TTL: Duration = Duration::from_secs(300);
/// The most tokens a session holds at once (the oldest goes first): asking again and again
/// without confirming must not grow the daemon.
const MOST_PENDING: usize = 32;
/// The most time reading the element may take (it is a help, not the point).
const DESCRIBE_MS: u64 = 2_000;

/// A token given out and not yet used.
#[derive(Debug)]
struct Pending {
    session: String,
    /// The request's wire form when the token was given.
    request: String,
    issued: Instant,
}

/// The tokens given out, in this engine's memory only.
#[derive(Debug, Default)]
pub(crate) struct Confirmations {
    pending: Mutex<HashMap<String, Pending>>,
}

/// Why a `--confirm` token was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Never given out, already used, or given out before the daemon restarted.
    Unknown,
    /// Older than [`TOKEN_TTL`].
    Expired,
    /// Given out for another session.
    OtherSession,
    /// Given out for another command, or the same command with other arguments or tab.
    OtherRequest,
}

impl Refused {
    fn says(self) -> &'static str {
        match self {
            Refused::Unknown => {
                "it is unknown: already used, never given, or given before the daemon restarted"
            }
            Refused::Expired => "it expired",
            Refused::OtherSession => "it was given for another session",
            Refused::OtherRequest => {
                "it was given for another command (or other arguments or tab); it is spent"
            }
        }
    }
}

impl Confirmations {
    /// A fresh token for `request` of `session`.
    fn issue(&self, session: &str, request: String) -> String {
        let mut bytes = [0u8; 16];
        OsRng.fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        if let Ok(mut m) = self.pending.lock() {
            m.retain(|_, p| p.issued.elapsed() < TOKEN_TTL);
            let mut mine: Vec<(Instant, String)> = m
                .iter()
                .filter(|(_, p)| p.session == session)
                .map(|(t, p)| (p.issued, t.clone()))
                .collect();
            if mine.len() >= MOST_PENDING {
                mine.sort();
                for (_, t) in mine.iter().take(mine.len() + 1 - MOST_PENDING) {
                    m.remove(t);
                }
            }
            m.insert(
                token.clone(),
                Pending {
                    session: session.to_string(),
                    request,
                    issued: Instant::now(),
                },
            );
        }
        token
    }

    /// Takes `token` for `request` of `session`: spent whatever the outcome (one attempt).
    fn take(&self, token: &str, session: &str, request: &str) -> Result<(), Refused> {
        let taken = self.pending.lock().ok().and_then(|mut m| m.remove(token));
        let Some(p) = taken else {
            return Err(Refused::Unknown);
        };
        if p.issued.elapsed() >= TOKEN_TTL {
            Err(Refused::Expired)
        } else if p.session != session {
            Err(Refused::OtherSession)
        } else if p.request != request {
            Err(Refused::OtherRequest)
        } else {
            Ok(())
        }
    }

    /// Forgets the session's tokens (it closed).
    pub fn forget(&self, session: &str) {
        if let Ok(mut m) = self.pending.lock() {
            m.retain(|_, p| p.session != session);
        }
    }
}

/// What the gate says of a request.
#[derive(Debug)]
pub(crate) enum Gate {
    /// It runs; with a warning for its answer (a `--confirm` that was not needed).
    Run(Option<String>),
    /// It does not run: this is its answer (secrets not masked yet).
    Answer(Box<Envelope>),
}

/// The arguments naming what a command acts on, first found first.
const TARGET_KEYS: &[&str] = &["selector", "selectors", "element", "coordinates"];
/// The arguments naming what it puts there, first found first.
const VALUE_KEYS: &[&str] = &[
    "text",
    "values",
    "files",
    "code",
    "expression",
    "keys",
    "url",
    "urls",
    "destination",
    "value",
    "path",
];

/// Whether a selector is `x,y` coordinates (no element to read).
fn is_point(selector: &str) -> bool {
    selector
        .split_once(',')
        .is_some_and(|(x, y)| x.trim().parse::<f64>().is_ok() && y.trim().parse::<f64>().is_ok())
}

/// Passes `request` through the session's policy; takes its `--confirm` token out.
pub(crate) async fn gate(
    request: &mut Request,
    sessions: &Sessions,
    store: &Confirmations,
) -> Gate {
    let token = request.confirm.take();
    let name = request.command.name();
    let unneeded = |why: &str| {
        token
            .as_ref()
            .map(|_| format!("--confirm was not needed ({why}); the token was not used"))
    };
    let Some(action) = Action::of(name) else {
        return Gate::Run(unneeded("no policy covers this command"));
    };
    let Some(context) = request.command.addressed() else {
        return Gate::Run(unneeded("the command names no session"));
    };
    let session = context.session_id.clone();
    // A session this engine does not know fails on its own further on (SESSION_NOT_FOUND).
    let Some(slot) = sessions.get(&session) else {
        return Gate::Run(None);
    };
    let policy = slot
        .with_record(|r| r.action_policy.clone())
        .unwrap_or_default();
    match policy.verdict(action) {
        Verdict::Allow => Gate::Run(unneeded("the session's policy lets it run")),
        Verdict::Deny => {
            let e = CliError::ActionDenied {
                command: name,
                action: action.as_str().to_string(),
                session,
            };
            Gate::Answer(Box::new(failure(name, Some(context), &e)))
        }
        Verdict::Confirm => {
            let wire = match serde_json::to_string(&request.command) {
                Ok(w) => w,
                Err(e) => {
                    let e = CliError::internal(format!("the request does not serialise: {e}"));
                    return Gate::Answer(Box::new(failure(name, Some(context), &e)));
                }
            };
            let refused = match token {
                None => None,
                Some(t) => match store.take(&t, &session, &wire) {
                    Ok(()) => return Gate::Run(None),
                    Err(r) => Some(r),
                },
            };
            let token = store.issue(&session, wire);
            let mut details = what_would_run(&request.command);
            if let Some(element) = read_element(&request.command, sessions, &request.env).await {
                details["element"] = element;
            }
            details["action"] = json!(action.as_str());
            details["token"] = json!(token);
            details["expires_in_ms"] = json!(TOKEN_TTL.as_millis() as u64);
            if let Some(r) = refused {
                details["refused_token"] = json!(r.says());
            }
            let e = CliError::ConfirmationRequired {
                command: name,
                subject: subject(&details),
                action: action.as_str().to_string(),
                token,
                refused: refused.map(|r| r.says().to_string()),
                details: Box::new(details),
            };
            Gate::Answer(Box::new(failure(name, Some(context), &e)))
        }
    }
}

/// What the command acts on and puts there, for its message: `#inc (button "Add one")`,
/// `#pw (textbox "Password") = "<<pw>>"`.
fn subject(details: &Value) -> String {
    let short = |v: &Value| {
        let s = match v {
            Value::String(s) => format!("{s:?}"),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        // A long value (a script) is in details whole; the message keeps a line.
        match s.char_indices().nth(80) {
            Some((i, _)) => format!("{}…", &s[..i]),
            None => s,
        }
    };
    let mut out = match &details["target"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    if let Some(summary) = details["element"]["summary"].as_str() {
        out.push_str(&format!(" ({summary})"));
    }
    let value = short(&details["value"]);
    if !value.is_empty() {
        if !out.is_empty() {
            out.push_str(" = ");
        }
        out.push_str(&value);
    }
    out.trim().to_string()
}

/// The command, its target and value as given (`<<name>>` secrets as written), and its whole
/// wire form's arguments (with them a batch JSON line or a program can send exactly it again).
fn what_would_run(command: &Command) -> Value {
    let args = command.args_json().unwrap_or(Value::Null);
    let pick = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| args.get(*k).filter(|v| !v.is_null()).cloned())
            .unwrap_or(Value::Null)
    };
    json!({
        "command": command.name(),
        "target": pick(TARGET_KEYS),
        "value": pick(VALUE_KEYS),
        "arguments": args,
    })
}

/// The element a tab command's selector names, read as `describe` reads it (role, name, tag:
/// nothing is clicked, focused or scrolled); `None` when there is none to read, and the reason
/// when it cannot be read.
async fn read_element(command: &Command, sessions: &Sessions, env: &ClientEnv) -> Option<Value> {
    if command.name().level() != AddressingLevel::Tab {
        return None;
    }
    let args = command.args_json().ok()?;
    let selector = args.get("selector")?.as_str()?.to_string();
    if is_point(&selector) {
        return None;
    }
    let context = command.addressed()?;
    let target = TabTarget::new(context.session_id, context.tab_id?);
    let describe = Command::BrowserDescribe(Describe {
        selector,
        nearby: false,
        target,
    });
    let deadline = Deadline::new(Some(DESCRIBE_MS));
    let cx = Cx {
        sessions,
        deadline: &deadline,
        env,
    };
    let env = describe.dispatch(&cx).await;
    Some(match (env.data(), env.error()) {
        (Some(Data::Describe(d)), _) => json!({
            "summary": d.summary, "role": d.role, "name": d.name, "tag": d.tag,
        }),
        (_, Some(e)) => json!({ "unread": format!("{}: {}", e.code, e.message) }),
        _ => Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_names_commands_of_the_table() {
        for a in Action::ALL {
            for c in a.commands() {
                assert!(
                    crate::commands::CommandSpec::of(*c).is_some(),
                    "{a}: {c} is not in the table"
                );
            }
        }
    }

    #[test]
    fn a_token_is_one_attempt_at_exactly_its_request_of_its_session() {
        let store = Confirmations::default();
        let t = store.issue("s1", "req".into());
        assert_eq!(t.len(), 32);
        assert_eq!(store.take(&t, "s1", "req"), Ok(()));
        assert_eq!(store.take(&t, "s1", "req"), Err(Refused::Unknown));
        let t = store.issue("s1", "req".into());
        assert_eq!(store.take(&t, "s1", "other"), Err(Refused::OtherRequest));
        assert_eq!(store.take(&t, "s1", "req"), Err(Refused::Unknown));
        let t = store.issue("s1", "req".into());
        assert_eq!(store.take(&t, "s2", "req"), Err(Refused::OtherSession));
        let t = store.issue("s1", "req".into());
        store.forget("s1");
        assert_eq!(store.take(&t, "s1", "req"), Err(Refused::Unknown));
        assert_ne!(store.issue("s1", "a".into()), store.issue("s1", "a".into()));
    }

    #[test]
    fn a_session_holds_a_bounded_number_of_tokens() {
        let store = Confirmations::default();
        let first = store.issue("s1", "r".into());
        for _ in 0..MOST_PENDING {
            store.issue("s1", "r".into());
        }
        let other = store.issue("s2", "r".into());
        assert_eq!(store.take(&first, "s1", "r"), Err(Refused::Unknown));
        assert_eq!(store.take(&other, "s2", "r"), Ok(()));
        let n = store.pending.lock().map(|m| m.len()).unwrap_or_default();
        assert_eq!(n, MOST_PENDING);
    }

    #[test]
    fn what_would_run_names_target_value_and_arguments() {
        let fill: Command = serde_json::from_value(json!({
            "command": "browser fill",
            "args": {"selector": "#pw", "text": "<<pw>>", "session": "s1", "tab": "t1"}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let w = what_would_run(&fill);
        assert_eq!(w["command"], "browser fill");
        assert_eq!(w["target"], "#pw");
        assert_eq!(w["value"], "<<pw>>");
        assert_eq!(w["arguments"]["tab"], "t1");
        assert!(is_point("10, 20") && !is_point("#a,#b"));
    }
}
