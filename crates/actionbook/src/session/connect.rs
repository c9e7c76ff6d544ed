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

/// The first pause between reconnect attempts; it doubles up to [`BACKOFF_MAX`].
const BACKOFF_FIRST: std::time::Duration = std::time::Duration::from_millis(100);
/// The longest pause between reconnect attempts (a link back is noticed within it).
const BACKOFF_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// Why a reconnect attempt failed, as far as the next step cares.
enum Failed {
    /// May come back (a cut link, a reset, a timeout): try again while the deadline allows.
    Transient(CliError),
    /// Nothing listens at the endpoint's address: the browser is gone (answer at once).
    Refused,
}

/// Re-connects to a recorded browser, trying again with backoff (100 ms doubling to 1 s) within
/// the command's deadline while the failure may be transient: a link that dropped and comes
/// back within `--timeout` costs the command the wait, not an error. A connection refused at
/// the endpoint's address (no proxy between) means no browser listens there: that answers at
/// once. The error of the last attempt names the endpoint.
async fn reconnect(
    rec: &SessionRecord,
    generation: u64,
    deadline: &Deadline,
) -> std::result::Result<BrowserConn, Failed> {
    let mut pause = BACKOFF_FIRST;
    loop {
        let attempt = connect_endpoint(
            &rec.cdp_endpoint,
            super::endpoint::options(rec),
            deadline::RECONNECT,
            deadline,
            "connecting to the browser",
        )
        .await;
        let e = match attempt {
            Ok((conn, _ws)) => {
                let context = super::context::TabContext::of(rec);
                return Ok(BrowserConn {
                    conn,
                    generation,
                    context,
                });
            }
            Err(e) => e,
        };
        if rec.proxy.is_none() && refused(&rec.cdp_endpoint, deadline).await {
            return Err(Failed::Refused);
        }
        // A launched browser whose process is gone will not come back either.
        let gone = rec.launched && rec.knows_browser() && !browser_running(rec);
        if gone || deadline.remaining() <= pause {
            return Err(Failed::Transient(e));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(BACKOFF_MAX);
    }
}

/// Whether a plain TCP connect to the endpoint's host and port is refused (RST: the host is up
/// and nothing listens there). Only a refusal counts: a timeout or reset is what a cut link looks
/// like. Not asked of a session reached through a proxy (the record's: the proxy answers for the
/// host), which the caller checks.
async fn refused(endpoint: &str, deadline: &Deadline) -> bool {
    let Ok(url) = url::Url::parse(endpoint) else {
        return false;
    };
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return false;
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let probe = tokio::net::TcpStream::connect((host, port));
    matches!(
        tokio::time::timeout(deadline.capped(deadline::PROBE), probe).await,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused
    )
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
            Err(failed) => {
                let gone = rec.launched && rec.knows_browser() && !browser_running(&rec);
                if gone {
                    let _ = self.update(|r| r.status = SessionStatus::Crashed).await;
                    return Err(CliError::BrowserGone {
                        session: self.id.clone(),
                        detail: format!("process {} is gone", rec.browser_pid.unwrap_or_default()),
                    });
                }
                match failed {
                    // Not marked crashed: a browser started there again is found by the next
                    // command.
                    Failed::Refused => Err(CliError::BrowserGone {
                        session: self.id.clone(),
                        detail: format!(
                            "nothing listens at its endpoint {}: connection refused",
                            cdp_protocol::redact_url(&rec.cdp_endpoint)
                        ),
                    }),
                    Failed::Transient(e) => Err(e),
                }
            }
        }
    }
}
