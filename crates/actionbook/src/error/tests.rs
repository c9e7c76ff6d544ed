//! Unit tests of the error codes, hints and conversions.

use super::*;

/// The frame graph's "page detached" (its session ended under a command) is a session end
/// the tab pipeline checks for a closed tab, as a closed CDP session is; not a bug.
#[test]
fn a_detached_page_is_a_session_end_not_an_internal_error() {
    let e: CliError = FrameGraphError::Detached.into();
    assert!(e.is_session_end());
    assert_eq!(e.code(), ErrorCode::CdpConnectionFailed);
    let closed = CliError::Cdp(CdpError::ConnectionClosed);
    assert!(closed.is_session_end());
    assert!(!CliError::Internal("x".into()).is_session_end());
}

/// The net errors an agent cannot decode get a hint; the rest none.
#[test]
fn navigation_errors_say_what_to_do() {
    let hint = |reason: &str| {
        CliError::NavigationFailed {
            url: "https://x/".into(),
            reason: reason.into(),
        }
        .hint()
    };
    assert!(
        hint("net::ERR_INVALID_AUTH_CREDENTIALS").is_some_and(|h| h.contains("user:password@"))
    );
    assert!(hint("net::ERR_CERT_AUTHORITY_INVALID").is_some_and(|h| h.contains("certificate")));
    assert!(hint("net::ERR_CERT_DATE_INVALID").is_some_and(|h| h.contains("certificate")));
    assert!(hint("net::ERR_NAME_NOT_RESOLVED").is_some_and(|h| h.contains("no such host")));
    assert!(hint("net::ERR_SSL_PROTOCOL_ERROR").is_some_and(|h| h.contains("http://")));
    assert_eq!(hint("net::ERR_FAILED"), None);
    assert_eq!(hint("no previous page in history"), None);
}

/// Input that went to another element is not said to have done nothing: the other element
/// (a cover's click handler) may have acted.
#[test]
fn input_that_went_elsewhere_does_not_claim_nothing_happened() {
    let e = CliError::NotDelivered {
        action: "browser click".into(),
        selector: "#under".into(),
        reason: "covered",
        by: Some("div#cover".into()),
        detail: "is covered by div#cover".into(),
    };
    let m = e.to_string();
    assert!(
        m.contains("covered by div#cover") && m.contains("may have acted"),
        "{m}"
    );
    assert!(!m.contains("nothing"), "{m}");
    assert!(!e.not_performed());
    assert!(!e.retryable());
}

/// Keys no document saw are named as keys (there is no selector), and not said to have done
/// nothing.
#[test]
fn keys_not_delivered_name_the_keys() {
    let e = CliError::KeysNotDelivered {
        action: "browser press".into(),
        keys: "Control+A".into(),
        detail: "were not seen by the focused element's document".into(),
    };
    assert_eq!(e.code(), ErrorCode::InternalError);
    assert_eq!(
        e.details(),
        Some(serde_json::json!({ "keys": "Control+A", "reason": "input missed" }))
    );
    let m = e.to_string();
    assert!(m.contains("the keys Control+A did not reach"), "{m}");
    assert!(!e.not_performed());
}

/// The frame graph's bounded waits that ran out are timeouts (retryable), not bugs.
#[test]
fn the_frame_graphs_timeouts_are_timeouts() {
    let e: CliError = FrameGraphError::Timeout {
        what: "frame graph sync".into(),
        after: std::time::Duration::from_millis(1500),
    }
    .into();
    assert_eq!(e.code(), ErrorCode::Timeout);
    assert!(e.retryable());
    assert_eq!(e.to_string(), "frame graph sync timed out after 1500ms");
    let e: CliError = FrameGraphError::NoExecutionContext {
        frame: cdp_protocol::FrameId::new("F1"),
        after: std::time::Duration::from_secs(2),
    }
    .into();
    assert_eq!(e.code(), ErrorCode::Timeout);
}

/// A selector written for Playwright's engines is refused with what to write instead.
#[test]
fn playwright_selectors_are_told_what_to_use() {
    let refused = |sel: &str| {
        CliError::on_selector(
            SnapshotError::InvalidSelector {
                selector: sel.into(),
                reason: "SyntaxError: not valid\n    at stack".into(),
            },
            sel,
        )
        .to_string()
    };
    for sel in [
        "text=Save",
        "div >> nth=0",
        "css=.a",
        "button:text(\"Go\")",
        "p:text-is('x')",
    ] {
        let m = refused(sel);
        assert!(m.contains("use CSS with :has-text(text)"), "{sel}: {m}");
        assert!(!m.contains("at stack"), "{m}");
    }
    assert!(!refused("div[").contains("Playwright"));
    assert!(!refused("a[href='x=1']").contains("Playwright"));
}

/// Out of time with the page usable: the hint names `--wait-until` as goto's own option only
/// when goto ran out (reload, back, start have no such option).
#[test]
fn an_unfinished_load_hints_what_the_command_can_do() {
    let unfinished = |what: &str| CliError::LoadUnfinished {
        what: what.into(),
        ms: 100,
        pending: vec!["http://a/x.png".into()],
    };
    let goto = unfinished("browser goto");
    assert_eq!(goto.code(), ErrorCode::Timeout);
    assert!(goto.to_string().contains("still loading http://a/x.png"));
    assert!(
        goto.hint()
            .is_some_and(|h| h.starts_with("the page can be used as it is; goto --wait-until"))
    );
    let reload = unfinished("browser reload");
    let h = reload.hint().unwrap_or_default();
    assert!(h.contains("use goto --wait-until domcontentloaded"), "{h}");
    assert_ne!(Some(h), goto.hint());
}
