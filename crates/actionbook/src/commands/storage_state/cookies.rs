//! Cookies between the browser and the file's shape: read, convert, set and read back.

use super::*;

/// The seconds since the epoch now.
pub(super) fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or_default()
}

/// A cookie of the browser in the file's shape.
pub(super) fn to_state_cookie(c: &network::Cookie) -> StateCookie {
    StateCookie {
        name: c.name.clone(),
        value: c.value.clone(),
        domain: c.domain.clone(),
        path: c.path.clone(),
        expires: if c.session || c.expires < 0.0 {
            -1.0
        } else {
            c.expires
        },
        http_only: c.http_only,
        secure: c.secure,
        // Chromium's default when the site gave none.
        same_site: c.same_site.clone().unwrap_or_else(|| "Lax".into()),
    }
}

/// A cookie of the file as the browser takes it: a host-only cookie (no leading dot) by URL, or
/// setting it by domain would make a domain cookie of it.
pub(super) fn to_param(c: &StateCookie) -> network::CookieParam {
    let host_only = !c.domain.starts_with('.');
    let scheme = if c.secure { "https" } else { "http" };
    network::CookieParam {
        name: c.name.clone(),
        value: c.value.clone(),
        url: host_only.then(|| format!("{scheme}://{}{}", c.domain, c.path)),
        domain: (!host_only).then(|| c.domain.clone()),
        path: Some(c.path.clone()),
        secure: Some(c.secure),
        http_only: Some(c.http_only),
        same_site: Some(c.same_site.clone()),
        expires: (c.expires >= 0.0).then_some(c.expires),
    }
}

/// Sets the file's cookies that have not expired and reads them back: `(set, expired)`, in the
/// session's own browser context (`None`: the browser's default one).
pub(super) async fn set_cookies(
    root: &Session,
    context: Option<cdp_protocol::BrowserContextId>,
    cookies: &[StateCookie],
    deadline: &Deadline,
) -> Result<(usize, usize)> {
    let now = now_secs();
    let (live, expired): (Vec<&StateCookie>, Vec<&StateCookie>) = cookies
        .iter()
        .partition(|c| c.expires < 0.0 || c.expires > now);
    if live.is_empty() {
        return Ok((0, expired.len()));
    }
    let set = root
        .send_timeout(
            &storage::SetCookies {
                cookies: live.iter().map(|c| to_param(c)).collect(),
                browser_context_id: context.clone(),
            },
            deadline.capped(deadline::SLOW_CALL),
        )
        .await;
    if let Err(cdp_protocol::CdpError::Protocol { message, .. }) = &set {
        return Err(CliError::InvalidArgument(format!(
            "the browser refused the state's cookies: {message}"
        )));
    }
    set?;
    // Read back: a cookie the browser drops without an error must not answer ok.
    let stored = root
        .send_timeout(
            &storage::GetCookies {
                browser_context_id: context,
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?
        .cookies;
    let missing: Vec<String> = live
        .iter()
        .filter(|c| {
            !stored.iter().any(|s| {
                s.name == c.name
                    && s.path == c.path
                    && s.domain.trim_start_matches('.') == c.domain.trim_start_matches('.')
            })
        })
        .take(10)
        .map(|c| format!("{} (domain {}, path {})", c.name, c.domain, c.path))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::InvalidArgument(format!(
            "the browser did not keep these cookies of the state: {}",
            missing.join(", ")
        )));
    }
    Ok((live.len(), expired.len()))
}
