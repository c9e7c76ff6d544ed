//! `redact_url`: no credential or token-like parameter survives; URLs without secrets are
//! unchanged byte for byte.

use cdp_protocol::redact_url;
use proptest::prelude::*;

/// Parameter names that must be treated as secret, in any case.
const SECRET_NAMES: &[&str] = &[
    "token",
    "apiKey",
    "api_key",
    "api-key",
    "key",
    "auth",
    "access_token",
    "secret",
    "client_secret",
    "password",
    "signature",
    "X-Amz-Credential",
    "sessionToken",
];

/// Every secret value carries this marker, and nothing else generated here contains `Q`.
const MARK: &str = "QQ";

fn secret_value() -> impl Strategy<Value = String> {
    "[a-z0-9._~-]{0,16}".prop_map(|s| format!("{MARK}{s}"))
}

/// A secret name in random case, maybe with one character percent-encoded.
fn secret_name() -> impl Strategy<Value = String> {
    (
        prop::sample::select(SECRET_NAMES),
        prop::collection::vec(any::<bool>(), 20),
        any::<Option<prop::sample::Index>>(),
    )
        .prop_map(|(name, upper, encode)| {
            let mut out = String::new();
            let encode_at = encode.map(|i| i.index(name.len()));
            for (i, c) in name.chars().enumerate() {
                let c = if upper[i % upper.len()] {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                if Some(i) == encode_at {
                    out.push_str(&format!("%{:02X}", c as u32));
                } else {
                    out.push(c);
                }
            }
            out
        })
}

/// Names that are not secret (none contains a secret word).
fn plain_name() -> impl Strategy<Value = String> {
    prop::sample::select(&["page", "q", "lang", "headless", "x", "width", "ua", "v"][..])
        .prop_map(str::to_owned)
}

fn plain_value() -> impl Strategy<Value = String> {
    "[a-pr-z0-9._~%-]{0,12}"
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("127.0.0.1".to_owned()),
        Just("[::1]".to_owned()),
        "[a-pr-z]{1,10}(\\.[a-pr-z]{2,5}){0,2}",
    ]
}

fn base() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["ws", "wss", "http", "https"][..]),
        host(),
        proptest::option::of(1u16..),
        "(/[a-pr-z0-9._-]{0,10}){0,3}",
    )
        .prop_map(|(scheme, host, port, path)| {
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            format!("{scheme}://{host}{port}{path}")
        })
}

fn plain_params() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        (plain_name(), plain_value()).prop_map(|(k, v)| format!("{k}={v}")),
        0..5,
    )
}

proptest! {
    #[test]
    fn no_secret_survives(
        base in base(),
        user in proptest::option::of((secret_value(), proptest::option::of(secret_value()))),
        plain in plain_params(),
        secrets in prop::collection::vec((secret_name(), secret_value()), 1..4),
        fragment_secret in proptest::option::of((secret_name(), secret_value())),
        order in any::<prop::sample::Index>(),
    ) {
        let mut url = base.clone();
        if let Some((u, p)) = &user {
            let (scheme, rest) = url.split_once("://").unwrap();
            let info = match p { Some(p) => format!("{u}:{p}"), None => u.clone() };
            url = format!("{scheme}://{info}@{rest}");
        }
        let mut params = plain.clone();
        for (k, v) in &secrets {
            let at = order.index(params.len() + 1);
            params.insert(at, format!("{k}={v}"));
        }
        url.push('?');
        url.push_str(&params.join("&"));
        if let Some((k, v)) = &fragment_secret {
            url.push_str(&format!("#{k}={v}"));
        }
        let out = redact_url(&url);
        prop_assert!(!out.contains(MARK), "{url} -> {out}");
        // What is not secret stays.
        for p in &plain {
            prop_assert!(out.contains(p.as_str()), "{url} -> {out}");
        }
    }

    #[test]
    fn urls_without_secrets_are_unchanged(
        base in base(),
        plain in plain_params(),
        fragment in proptest::option::of("[a-pr-z0-9]{0,8}"),
    ) {
        let mut url = base;
        if !plain.is_empty() {
            url.push('?');
            url.push_str(&plain.join("&"));
        }
        if let Some(f) = fragment {
            url.push('#');
            url.push_str(&f);
        }
        prop_assert_eq!(redact_url(&url), url);
    }

    #[test]
    fn any_input_is_handled(s in any::<String>()) {
        let out = redact_url(&s);
        // Never longer than the input plus a few markers, never a panic.
        prop_assert!(out.len() <= s.len() + 3 * (s.matches('=').count() + 1));
    }
}
