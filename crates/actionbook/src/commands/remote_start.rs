//! `browser start` on a browser someone else runs (`--cdp-endpoint`, `--provider`): connecting
//! to it in a browser context of the session's own, and the provider's session (split from
//! `lifecycle.rs`, which is over a thousand lines).

use cdp_protocol::Browser;

use super::Cx;
use super::lifecycle::Start;
use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, Mode, SessionStatus};
use crate::session::BrowserConn;
use crate::session::connect::connect_endpoint;
use crate::session::context::{self, TabContext};
use crate::session::{endpoint, provider};
use crate::store::{self, ProviderSession, SessionRecord};

/// How a new remote session reaches its endpoint (kept in its record).
#[derive(Debug)]
pub(super) struct Reach {
    /// `--header`s.
    pub headers: Vec<(String, String)>,
    /// `--ca-file`'s certificates (base64 of DER).
    pub ca_certs: Vec<String>,
    /// The caller's proxies.
    pub proxy: Option<store::ProxyRecord>,
}

impl Start {
    /// Connects to `--cdp-endpoint`, or to the browser `--provider` hands out (its session
    /// stopped again when the connection fails), for a new session.
    pub(super) async fn connect_new(
        &self,
        session_id: &str,
        mode: Mode,
        headless: bool,
        reach: Reach,
        cx: &Cx<'_>,
    ) -> Result<(SessionRecord, BrowserConn, Option<Browser>)> {
        let what = (session_id, mode, headless);
        let Some(name) = &self.provider else {
            let endpoint = self.cdp_endpoint.clone().unwrap_or_default();
            let to = (endpoint.as_str(), "connecting to --cdp-endpoint");
            return self.connect_to(to, what, reach, cx.deadline).await;
        };
        let home = cx.sessions.home();
        let spec = provider::spec(home, name).await?;
        let made = provider::create(name, &spec, &cx.env.remote, cx.deadline).await?;
        let session = ProviderSession {
            name: name.clone(),
            id: made.id,
        };
        let to = (made.ws_url.as_str(), "connecting to the provider's browser");
        match self.connect_to(to, what, reach, cx.deadline).await {
            Ok((mut record, conn, owned)) => {
                // The WebSocket URL is the endpoint (kept as cdp_endpoint, to reconnect).
                record.user_endpoint = None;
                record.provider = Some(session);
                Ok((record, conn, owned))
            }
            Err(e) => {
                let _ = provider::stop(home, &session, &cx.env.remote).await;
                Err(e)
            }
        }
    }

    /// Connects to `endpoint` for a new session (`what` names the step in a timeout).
    async fn connect_to(
        &self,
        (endpoint, what): (&str, &str),
        (session_id, mode, headless): (&str, Mode, bool),
        reach: Reach,
        deadline: &Deadline,
    ) -> Result<(SessionRecord, BrowserConn, Option<Browser>)> {
        let mut record = SessionRecord {
            schema: store::RECORD_SCHEMA,
            session_id: session_id.to_string(),
            mode,
            profile: None,
            profile_named: false,
            profile_dir: None,
            headless,
            launched: false,
            browser_pid: None,
            browser_identity: None,
            cdp_endpoint: String::new(),
            user_endpoint: Some(endpoint.to_string()),
            headers: reach.headers,
            executable: None,
            status: SessionStatus::Running,
            tabs: Vec::new(),
            next_tab: 1,
            windows: Vec::new(),
            next_window: 0,
            window_size: None,
            max_tracked_requests: None,
            network_routes: Vec::new(),
            content_boundary: None,
            allowed_domains: Vec::new(),
            action_policy: None,
            browser_context_id: None,
            context_owned: false,
            provider: None,
            ca_certs: reach.ca_certs,
            proxy: reach.proxy,
        };
        let (conn, ws) = connect_endpoint(
            endpoint,
            endpoint::options(&record),
            // The whole --timeout: a remote browser may be slow to answer.
            deadline.remaining(),
            deadline,
            what,
        )
        .await?;
        let context = match self.attach_existing {
            true => context::default_context(&conn, deadline)
                .await?
                .map(TabContext::Default),
            false => Some(TabContext::Own(own_context(&conn, deadline).await?)),
        };
        record.cdp_endpoint = ws;
        record.browser_context_id = context.as_ref().map(|c| c.id().to_string());
        record.context_owned = matches!(context, Some(TabContext::Own(_)));
        let conn = BrowserConn {
            conn,
            generation: 1,
            context,
        };
        Ok((record, conn, None))
    }
}

/// A browser context of the session's own on a browser behind `--cdp-endpoint`; an endpoint that
/// cannot make one (a proxy that passes only some of CDP) is told of `--attach-existing`.
pub(super) async fn own_context(
    conn: &cdp_protocol::Connection,
    deadline: &Deadline,
) -> Result<cdp_protocol::BrowserContextId> {
    match context::create(conn, deadline).await {
        Err(CliError::Cdp(cdp_protocol::CdpError::Protocol { message, .. })) => {
            Err(CliError::Unsupported(format!(
                "the browser behind --cdp-endpoint cannot make a browser context of the session's \
                 own (Target.createBrowserContext: {message}); pass --attach-existing to drive \
                 its existing tabs instead"
            )))
        }
        other => other,
    }
}

/// Stops the provider session behind `rec` (`--provider`), if any: a warning when it could not
/// be (the session is closed on our side all the same).
pub(super) async fn stop_provider(
    home: &store::Home,
    rec: &SessionRecord,
    env: &ClientEnv,
) -> Option<String> {
    let p = rec.provider.as_ref()?;
    let e = provider::stop(home, p, &env.remote).await.err()?;
    Some(format!(
        "the {} session {} was not stopped: {e}; it ends at the provider's own timeout",
        p.name,
        p.id.as_deref().unwrap_or("(no id)")
    ))
}
