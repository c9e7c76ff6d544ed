//! The texts some errors are built from: failed opens, navigation hints, selector and inert
//! details, pending lists.

use super::*;

/// One URL of `new-tab` that did not load.
#[derive(Debug)]
pub struct FailedOpen {
    /// The URL as given.
    pub url: String,
    /// The tab opened for it (showing the error page).
    pub tab_id: String,
    /// Why it did not load.
    pub error: Box<CliError>,
}

/// What to do about a navigation's net error, for the ones an agent meets and cannot decode.
pub(super) fn navigation_hint(reason: &str) -> Option<&'static str> {
    let reason = reason.strip_prefix("net::").unwrap_or(reason);
    Some(match reason {
        "ERR_INVALID_AUTH_CREDENTIALS" => {
            "the server asks for a user name and password (HTTP authentication): give them in the URL, https://user:password@host/path"
        }
        "ERR_NAME_NOT_RESOLVED" => "no such host: check the host name's spelling",
        "ERR_CONNECTION_REFUSED" => {
            "nothing accepts connections at that host and port: is the server running?"
        }
        "ERR_CONNECTION_TIMED_OUT" | "ERR_TIMED_OUT" => {
            "the server did not answer: check the address, or retry later"
        }
        "ERR_INTERNET_DISCONNECTED" | "ERR_NETWORK_CHANGED" => {
            "this machine is not connected: retry once it is"
        }
        "ERR_TOO_MANY_REDIRECTS" => "the site redirects in a loop (often a missing cookie)",
        "ERR_ABORTED" => {
            "the server sent nothing to show (a 204) or something the browser does not show as a page"
        }
        "ERR_SSL_PROTOCOL_ERROR" => {
            "the server does not speak TLS as the browser expects (an http:// server asked for https://?)"
        }
        r if r.starts_with("ERR_CERT_") => {
            "the site's certificate or TLS setup is not trusted (self-signed, expired, for another name): the browser refuses it as a user's would"
        }
        r if r.starts_with("ERR_BLOCKED") => "the browser or a policy blocked this URL",
        _ => return None,
    })
}

/// INVALID_ARGUMENT for a selector the browser's parser refused with `msg`, naming what to write
/// instead when it is written for Playwright's engines.
pub(crate) fn invalid_selector(selector: &str, msg: &str) -> CliError {
    let mut msg = msg.to_string();
    if playwright_like(selector) {
        msg.push_str(
            " (Playwright's selector engines such as text= and :text() are not ours: use CSS \
             with :has-text(text), :contains(text) or :visible, role=button[name=\"...\"], an \
             XPath, a frame path iframe#f >> #inner, or a snapshot ref @eN)",
        );
    }
    CliError::InvalidArgument(msg)
}

/// Whether a selector is written for Playwright's engines (`text=Save`, `role=button`,
/// `css=…`, `div >> nth=0`), which agents that know Playwright try.
pub(super) fn playwright_like(selector: &str) -> bool {
    let s = selector.trim_start();
    // Each step of a frame path (`iframe#f >> nth=0`) may be one of Playwright's engines.
    let steps = a11y_snapshot::frame_path::split_css(s).unwrap_or_else(|| vec![s]);
    [":text(", ":text-is(", ":text-matches(", ":nth-match("]
        .iter()
        .any(|p| s.contains(p))
        || steps.iter().any(|step| {
            [
                "text=",
                "css=",
                "xpath=",
                "id=",
                "data-testid=",
                "internal:",
                "nth=",
            ]
            .iter()
            .any(|p| step.starts_with(p))
        })
}

/// Why an inert element is out of reach, in words: behind the modal dialog `by`, or inside `by`,
/// which has the `inert` attribute.
pub(crate) fn inert_detail(modal: bool, by: &str) -> String {
    match modal {
        true => format!(
            "is behind the modal dialog {by} (the page outside an open modal dialog is inert)"
        ),
        false => format!("is inert (inside {by}, which has the inert attribute)"),
    }
}

/// `: still loading <url>, <url> (and N more)` for [`CliError::LoadUnfinished`]; empty when none
/// are known.
pub(super) fn pending_list(pending: &[String]) -> String {
    const SHOWN: usize = 3;
    if pending.is_empty() {
        return String::new();
    }
    let mut s = format!(
        ": still loading {}",
        pending
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if pending.len() > SHOWN {
        s.push_str(&format!(" (and {} more)", pending.len() - SHOWN));
    }
    s
}

pub(super) fn open_failed_message(failed: &[FailedOpen], opened: &[envelope::TabInfo]) -> String {
    let reasons = failed
        .iter()
        .map(|f| format!("{} (tab {}): {}", f.url, f.tab_id, f.error))
        .collect::<Vec<_>>()
        .join("; ");
    let total = failed.len() + opened.len();
    let opened = match opened.len() {
        0 => String::new(),
        _ => format!(
            "; opened: {}",
            opened
                .iter()
                .map(|t| t.tab_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "{} of {total} URLs did not load: {reasons}{opened}",
        failed.len()
    )
}

pub(super) fn batch_open_message(failures: &[(usize, FailedOpen)], total: usize) -> String {
    let reasons = failures
        .iter()
        .map(|(i, f)| format!("index {i} ({}, tab {}): {}", f.url, f.tab_id, f.error))
        .collect::<Vec<_>>()
        .join("; ");
    format!("{} of {total} URLs did not load: {reasons}", failures.len())
}
