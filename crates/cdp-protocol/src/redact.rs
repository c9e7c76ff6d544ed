//! Endpoint URLs without their secrets: cloud browsers put API keys in the userinfo or the
//! query of their WebSocket URL, and none of it may reach an error message or a log.

/// Words that make a query or fragment parameter secret when its name (percent-decoded,
/// case-insensitive) contains one: `token`, `apiKey`, `api_key`, `key`, `auth`,
/// `access_token`, `secret`, `password`, `signature`, `X-Amz-Credential`, ...
const SECRET_WORDS: &[&str] = &[
    "token",
    "key",
    "auth",
    "secret",
    "pass",
    "pwd",
    "sig",
    "credential",
    "session",
    "jwt",
    "cookie",
];

/// What replaces a secret.
const REDACTED: &str = "***";

/// `url` with its userinfo (`user:password@`) and the values of token-like query and fragment
/// parameters replaced by `***`; everything else byte for byte as given (also for strings that
/// are not URLs at all).
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (before_fragment, None),
    };
    let mut out = redact_userinfo(base);
    if let Some(q) = query {
        out.push('?');
        out.push_str(&redact_params(q));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&redact_params(f));
    }
    out
}

/// `scheme://user:pass@host/path` -> `scheme://***@host/path` (also without a scheme).
fn redact_userinfo(base: &str) -> String {
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let rest = &base[authority_start..];
    let authority_len = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_len].rfind('@') {
        Some(at) => format!("{}{REDACTED}{}", &base[..authority_start], &rest[at..]),
        None => base.to_owned(),
    }
}

/// `a=1&token=x` -> `a=1&token=***`.
fn redact_params(params: &str) -> String {
    params
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_secret_name(name) => {
                format!("{name}={REDACTED}")
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn is_secret_name(name: &str) -> bool {
    let decoded = percent_decode_lossy(name).to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| decoded.contains(w))
}

/// `%XX` sequences decoded, `+` as space; invalid sequences kept as they are.
fn percent_decode_lossy(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn credentials_and_token_parameters_are_redacted() {
        assert_eq!(
            redact_url("wss://user:hunter2@cloud.example/ws?apiKey=abc&x=1#access_token=t"),
            "wss://***@cloud.example/ws?apiKey=***&x=1#access_token=***"
        );
        assert_eq!(
            redact_url("ws://h:1/devtools/browser/x?TOKEN=a&Api%5Fkey=b&key=c&auth=d"),
            "ws://h:1/devtools/browser/x?TOKEN=***&Api%5Fkey=***&key=***&auth=***"
        );
        assert_eq!(redact_url("u:p@host:9222"), "***@host:9222");
    }

    #[test]
    fn urls_without_secrets_are_unchanged() {
        for u in [
            "ws://127.0.0.1:9222/devtools/browser/abc-def",
            "http://localhost:9222",
            "https://example.com/a?b=c&d=e#frag",
            "wss://x/?token=",
            "not a url at all %zz",
            "",
        ] {
            assert_eq!(redact_url(u), u);
        }
    }
}
