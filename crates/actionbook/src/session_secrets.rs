//! A session's secrets at work in the engine: those of each live session in the engine's memory
//! ([`SessionSecrets`]), put into a request before it runs ([`prepare`]: a start's taken out of
//! it, `<<name>>`s of the text it types resolved) and masked out of its answer ([`finish`]). The
//! secrets themselves (parsing, names, masking) are [`crate::secrets`].

use std::collections::HashMap;
use std::sync::Mutex;

use envelope::{CommandName, Context, Envelope};

use crate::commands::{Command, Request};
use crate::error::CliError;
use crate::reply::failure;
use crate::secrets::{SecretArg, Secrets};

/// The secrets of each live session, in this engine's memory only.
#[derive(Debug, Default)]
pub(crate) struct SessionSecrets {
    by_session: Mutex<HashMap<String, Secrets>>,
}

impl SessionSecrets {
    /// The session's secrets (none when it has none, or the engine restarted).
    pub fn of(&self, session: &str) -> Secrets {
        self.by_session
            .lock()
            .map(|m| m.get(session).cloned().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Adds `secrets` to the session's (replacing those of the same names).
    pub fn add(&self, session: &str, secrets: &Secrets) {
        if let Ok(mut m) = self.by_session.lock() {
            let merged = m.get(session).cloned().unwrap_or_default().merged(secrets);
            m.insert(session.to_string(), merged);
        }
    }

    /// Forgets the session's secrets (it closed, or a new session took its id).
    pub fn forget(&self, session: &str) {
        if let Ok(mut m) = self.by_session.lock() {
            m.remove(session);
        }
    }
}

/// What [`prepare`] leaves for [`finish`]: the secrets the answer is masked with and those a
/// `browser start` brought.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    /// Every secret of the request (the session's, the caller's, a start's).
    pub all: Secrets,
    /// A `browser start`'s `--secret` / `--secrets-file` or a `browser secret set`'s, kept once
    /// it answered ok.
    started: Option<Secrets>,
}

/// The error for a `<<name>>` the session has no secret for.
fn unknown(name: &str, session: Option<&str>) -> CliError {
    let session = session.unwrap_or("the session");
    CliError::InvalidArgument(format!(
        "unknown secret <<{name}>>: {session} has no secret {name:?}, and it is never typed as \
         written. Secrets live in the daemon's memory only, so after a daemon restart they must \
         be given again: `actionbook browser secret set {name}=VALUE --session {session}` (or \
         ACTIONBOOK_SECRET_{} in the caller's environment)",
        name.to_ascii_uppercase().replace('-', "_")
    ))
}

/// Gets `request` ready to run: a start's secrets taken out of it (read from its file), every
/// `<<name>>` of the text it types put in, and the request's environment given the session's
/// secrets (so what a handler writes to disk is masked with them). An error is the answer.
// The error is the answer itself, returned once per request: not worth a box.
#[allow(clippy::result_large_err)]
pub(crate) async fn prepare(
    request: &mut Request,
    store: &SessionSecrets,
) -> std::result::Result<Prepared, Envelope> {
    let name = request.command.name();
    let session = request
        .command
        .addressed()
        .map(|c| c.session_id.clone())
        .or_else(|| match &request.command {
            Command::BrowserStart(s) => s.set_session_id.clone(),
            _ => None,
        });
    let fail = |e: CliError| failure(name, session.as_deref().map(Context::session), &e);
    let mut all = session
        .as_deref()
        .map(|s| store.of(s))
        .unwrap_or_default()
        .merged(&request.env.secrets);
    let mut started = None;
    if let Command::BrowserStart(start) = &mut request.command {
        let items: Vec<String> = std::mem::take(&mut start.secrets)
            .into_iter()
            .map(|s| s.0)
            .collect();
        let mut files = Vec::new();
        if let Some(file) = start.secrets_file.take() {
            let path = request.env.resolve_path(std::path::Path::new(&file));
            let text = tokio::fs::read_to_string(&path).await.map_err(|e| {
                fail(CliError::InvalidArgument(format!(
                    "--secrets-file {}: {e}",
                    path.display()
                )))
            })?;
            files.push(text);
        }
        let new = Secrets::parse(&items, &files)
            .map_err(|e| fail(CliError::InvalidArgument(format!("--secret: {e}"))))?;
        all = all.merged(&new);
        started = Some(new);
    }
    if let Command::BrowserSecretSet(set) = &mut request.command {
        let items: Vec<String> = set.secrets.iter().map(|s| s.0.clone()).collect();
        let new = Secrets::parse(&items, &[]).map_err(|e| fail(CliError::InvalidArgument(e)))?;
        // The handler sees the names only.
        set.secrets = new.names().map(|n| SecretArg(n.to_string())).collect();
        all = all.merged(&new);
        started = Some(new);
    }
    let sid = session.as_deref();
    let resolve = |t: &mut String| -> std::result::Result<(), Envelope> {
        *t = all.resolve(t).map_err(|u| fail(unknown(&u.0, sid)))?;
        Ok(())
    };
    // The commands that type text: the text they type. (`press` takes key names, `eval` code:
    // a secret is never handed to the page's scripts.)
    match &mut request.command {
        Command::BrowserFill(f) => resolve(&mut f.text)?,
        Command::BrowserType(t) => resolve(&mut t.text)?,
        Command::BrowserSelect(s) => s.values.iter_mut().try_for_each(resolve)?,
        Command::BrowserDialog(d) => d.text.iter_mut().try_for_each(resolve)?,
        _ => {}
    }
    request.env.secrets = all.clone();
    Ok(Prepared { all, started })
}

/// The answer with every secret masked; a started session keeps its secrets, a closed one
/// forgets them.
pub(crate) fn finish(envelope: Envelope, prepared: Prepared, store: &SessionSecrets) -> Envelope {
    if envelope.ok() {
        let session = envelope.context().map(|c| c.session_id.clone());
        match (envelope.command(), session) {
            (CommandName::BrowserStart | CommandName::BrowserSecretSet, Some(s)) => {
                if let Some(new) = &prepared.started {
                    store.add(&s, new);
                }
            }
            (CommandName::BrowserClose, Some(s)) => store.forget(&s),
            _ => {}
        }
    }
    prepared.all.mask_envelope(envelope)
}
