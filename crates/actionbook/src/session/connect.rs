//! (Re)connecting to a session's browser, and what a failed connection means: a browser we
//! launched whose process is gone has crashed; anything else may come back.

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::model::SessionStatus;
use crate::session::process::browser_running;
use crate::session::{BrowserConn, SessionSlot};
use crate::store::SessionRecord;

/// Connects to a CDP endpoint (`ws(s)://` or `http(s)://host:port`) with `options` (headers, CA,
/// proxy: [`super::endpoint::options`]), bounded by `cap` and the deadline. Returns the
/// connection and the browser's WebSocket URL.
pub(crate) async fn connect_endpoint(
    endpoint: &str,
    options: cdp_protocol::ConnectOptions,
    cap: std::time::Duration,
    deadline: &Deadline,
    what: &str,
) -> Result<(cdp_protocol::Connection, String)> {
    let fut = cdp_protocol::connect_with(endpoint, options);
    Ok(tokio::time::timeout(deadline.capped(cap), fut)
        .await
        .map_err(|_| deadline.timeout(what))??)
}

/// Re-connects to a recorded browser.
async fn reconnect(
    rec: &SessionRecord,
    generation: u64,
    deadline: &Deadline,
) -> Result<BrowserConn> {
    let (conn, _ws) = connect_endpoint(
        &rec.cdp_endpoint,
        super::endpoint::options(rec),
        deadline::RECONNECT,
        deadline,
        "connecting to the browser",
    )
    .await?;
    let context = super::context::TabContext::of(rec);
    Ok(BrowserConn {
        conn,
        generation,
        context,
    })
}

impl<T: Default> SessionSlot<T> {
    /// Status as observed now (without connecting).
    pub fn observed_status(&self) -> SessionStatus {
        let rec = self.record();
        if rec.status != SessionStatus::Running {
            return rec.status;
        }
        if self.conn().is_some() {
            return SessionStatus::Running;
        }
        if rec.launched && (rec.knows_browser() && !browser_running(&rec) || self.had_conn()) {
            return SessionStatus::Crashed;
        }
        SessionStatus::Running
    }

    /// When the browser we launched is dead: marks the session crashed and returns the error to
    /// report.
    pub fn crashed_error(&self) -> Option<CliError> {
        let rec = self.record();
        let pid = rec
            .browser_pid
            .filter(|_| rec.launched && rec.knows_browser())?;
        if browser_running(&rec) {
            return None;
        }
        self.set_conn(None);
        self.update_soon(|r| {
            r.status = SessionStatus::Crashed;
            true
        });
        Some(CliError::BrowserGone {
            session: self.id.clone(),
            detail: format!("process {pid} is gone"),
        })
    }

    /// A connection to the session's browser, re-attaching (new daemon, dropped socket) when
    /// needed.
    pub async fn connect(&self, deadline: &Deadline) -> Result<BrowserConn> {
        if let Some(c) = self.conn() {
            self.guard.ready(c.generation, deadline).await?;
            return Ok(c);
        }
        let _guard = tokio::time::timeout(deadline.remaining(), self.connecting.lock())
            .await
            .map_err(|_| deadline.timeout("connecting to the browser"))?;
        if let Some(c) = self.conn() {
            self.guard.ready(c.generation, deadline).await?;
            return Ok(c);
        }
        let rec = self.record();
        if rec.status == SessionStatus::Crashed {
            return Err(CliError::BrowserGone {
                session: self.id.clone(),
                detail: "it exited or crashed".into(),
            });
        }
        match reconnect(&rec, self.next_generation(), deadline).await {
            Ok(conn) => {
                self.set_conn(Some(conn.clone()));
                // No command runs on an unguarded connection of a session with a list.
                self.guard.ready(conn.generation, deadline).await?;
                Ok(conn)
            }
            Err(e) => {
                let gone = rec.launched && rec.knows_browser() && !browser_running(&rec);
                if gone {
                    let _ = self.update(|r| r.status = SessionStatus::Crashed).await;
                    Err(CliError::BrowserGone {
                        session: self.id.clone(),
                        detail: format!("process {} is gone", rec.browser_pid.unwrap_or_default()),
                    })
                } else {
                    Err(e)
                }
            }
        }
    }
}
