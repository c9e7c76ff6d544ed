//! `browser secret set|list` (ours, issue 40): a live session's secrets. Their values are in the
//! engine's memory only ([`crate::secrets`]), so after a daemon restart `secret set` gives them
//! again; `secret list` shows names, never values.

use std::sync::Arc;

use envelope::{Document, RenderText, TextBody};
use serde::{Deserialize, Serialize};

use super::{Cx, SessionCommand};
use crate::error::{CliError, Result};
use crate::model::SessionTarget;
use crate::reply::{Done, document};
use crate::secrets::SecretArg;
use crate::tab::BrowserSession;

/// `browser secret set NAME=VALUE...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SecretSet {
    /// `name=value` secrets to add or replace (written `<<name>>` by `fill`, `type`, `select`).
    #[cfg_attr(feature = "cli", arg(required = true, value_name = "NAME=VALUE"))]
    pub secrets: Vec<SecretArg>,
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// `browser secret list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SecretList {
    /// The session.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: SessionTarget,
}

/// The names of a session's secrets.
#[derive(Debug, Serialize)]
struct SecretNames {
    /// The names given (`secret set`), if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    set: Vec<String>,
    /// Every secret name the session's commands know (the session's and the caller's
    /// `ACTIONBOOK_SECRET_*`).
    names: Vec<String>,
}

impl RenderText for SecretNames {
    fn is_action(&self) -> bool {
        !self.set.is_empty()
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        if !self.set.is_empty() {
            body.line(format_args!("set: {}", self.set.join(", ")));
        }
        body.line(format_args!("secrets: {}", self.names.join(", ")));
    }
}

fn names(cx: &Cx<'_>) -> Vec<String> {
    cx.env.secrets.names().map(str::to_string).collect()
}

impl SessionCommand for SecretSet {
    type Data = Document;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    /// The values were taken out of the request before it ran (`secrets::prepare`, which keeps
    /// them once this answers ok); what is left here is their names.
    async fn run(self, cx: &Cx<'_>, _slot: &Arc<BrowserSession>) -> Result<Done<Document>> {
        if self.secrets.is_empty() {
            return Err(CliError::InvalidArgument(
                "browser secret set takes at least one name=value".into(),
            ));
        }
        let set = self.secrets.into_iter().map(|s| s.0).collect();
        Ok(Done::data(document(&SecretNames {
            set,
            names: names(cx),
        })?))
    }
}

impl SessionCommand for SecretList {
    type Data = Document;

    fn session_id(&self) -> &str {
        &self.target.session
    }

    async fn run(self, cx: &Cx<'_>, _slot: &Arc<BrowserSession>) -> Result<Done<Document>> {
        Ok(Done::data(document(&SecretNames {
            set: Vec::new(),
            names: names(cx),
        })?))
    }
}
