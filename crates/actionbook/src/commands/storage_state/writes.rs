//! Where each write of a state goes (a live frame or a visit), and applying a state when a
//! session starts (`browser start --state`).

use super::*;

/// Where a write of storage goes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place<'a> {
    /// A page of the origin itself.
    Own(&'a str),
    /// A frame of `origin` embedded in a page of `top` (the storage kept for that site).
    Embedded { top: &'a str, origin: &'a str },
}

/// One origin's storage to write.
#[derive(Debug, Clone, Copy)]
pub(super) struct Write<'a> {
    pub(super) place: Place<'a>,
    pub(super) local: &'a [NameValue],
    pub(super) session: &'a [NameValue],
}

impl<'a> Write<'a> {
    pub(super) fn origin(&self) -> &'a str {
        match self.place {
            Place::Own(o) | Place::Embedded { origin: o, .. } => o,
        }
    }
}

/// The writes of `state`: its localStorage, and with `with_session` its sessionStorage, of
/// every origin that has any.
pub(super) fn writes_of(state: &StorageState, with_session: bool) -> Vec<Write<'_>> {
    pub(super) fn kept(keep: bool, items: &[NameValue]) -> &[NameValue] {
        if keep { items } else { &[] }
    }
    let own = state.origins.iter().map(|o| Write {
        place: Place::Own(&o.origin),
        local: &o.local_storage,
        session: kept(with_session, &o.session_storage),
    });
    let embedded = state.partitioned_origins.iter().map(|p| Write {
        place: Place::Embedded {
            top: &p.top_level_origin,
            origin: &p.origin,
        },
        local: &p.local_storage,
        session: kept(with_session, &p.session_storage),
    });
    own.chain(embedded)
        .filter(|w| !w.local.is_empty() || !w.session.is_empty())
        .collect()
}

/// Writes each of `writes` through `visitor`, then finishes it (also on failure). Returns how
/// many origins' localStorage was written.
pub(super) async fn write_by_visits(
    visitor: Visitor,
    writes: &[Write<'_>],
    deadline: &Deadline,
) -> Result<usize> {
    let mut written = 0;
    let mut result = Ok(());
    for w in writes {
        let local = (!w.local.is_empty()).then_some(w.local);
        let session = (!w.session.is_empty()).then_some(w.session);
        let answer = match w.place {
            Place::Own(origin) => visitor.at(origin, local, session, deadline).await,
            Place::Embedded { top, origin } => {
                visitor
                    .at_embedded(top, origin, local, session, deadline)
                    .await
            }
        };
        match answer {
            Ok(a) if a.error.is_none() => written += usize::from(local.is_some()),
            Ok(a) => {
                result = Err(CliError::Unsupported(format!(
                    "the storage of {} could not be written: {}",
                    w.origin(),
                    a.error.unwrap_or_default()
                )));
                break;
            }
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    let finished = visitor.finish(deadline).await;
    result?;
    finished?;
    Ok(written)
}

/// Starts a new session from a state: its cookies, then each origin's localStorage and
/// sessionStorage. In a browser the session launched they are written in its first tab
/// (`target_id`, before it is recorded as a tab or loads anything), which is left on
/// `about:blank` with no history. The first tab of a browser behind `--cdp-endpoint` is a page
/// that was there before, not ours to navigate: localStorage is written in a scratch tab, and
/// the sessionStorage that had no tab to go to is returned as warnings.
pub(crate) async fn apply_at_start(
    conn: &BrowserConn,
    target_id: &str,
    own_tab: bool,
    state: &StorageState,
    deadline: &Deadline,
) -> Result<Vec<String>> {
    set_cookies(
        &conn.browser(),
        conn.own_context(),
        &state.cookies,
        deadline,
    )
    .await?;
    let writes = writes_of(state, own_tab);
    let mut warnings = Vec::new();
    if !own_tab {
        let lost: Vec<&str> = writes_of(state, true)
            .iter()
            .filter(|w| !w.session.is_empty())
            .map(|w| w.origin())
            .collect();
        if !lost.is_empty() {
            warnings.push(format!(
                "--state: the sessionStorage of {} was not written (it belongs to a tab, and the \
                 first tab of a browser behind --cdp-endpoint is not ours to navigate)",
                lost.join(", ")
            ));
        }
    }
    if writes.is_empty() {
        return Ok(warnings);
    }
    let visitor = match own_tab {
        true => Visitor::on(conn, target_id, false, deadline).await?,
        false => Visitor::scratch(conn, deadline).await?,
    };
    write_by_visits(visitor, &writes, deadline).await?;
    Ok(warnings)
}
