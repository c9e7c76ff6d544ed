//! HTTP proxies for browser endpoints: `ws://`/`http://` through `HTTP_PROXY`, `wss://`/`https://`
//! through `HTTPS_PROXY`, each as an HTTP `CONNECT` tunnel (so TLS to the browser stays end to
//! end), `NO_PROXY` hosts direct. The settings are given by the caller ([`ProxyConfig::from_vars`]
//! takes a lookup, not the process environment), so an engine serving several clients uses each
//! one's own.

use std::fmt;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Which proxy (if any) a connection to a browser endpoint goes through.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ProxyConfig {
    /// For `ws://` and `http://` endpoints (`HTTP_PROXY`).
    pub http: Option<String>,
    /// For `wss://` and `https://` endpoints (`HTTPS_PROXY`).
    pub https: Option<String>,
    /// Hosts reached directly (`NO_PROXY`: comma-separated names, `.suffix`es, IPs, `*`; an
    /// optional `:port` each).
    pub no_proxy: Option<String>,
}

/// Proxy URLs may carry credentials: only whether each is set is shown.
impl fmt::Debug for ProxyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProxyConfig")
            .field("http", &self.http.as_ref().map(|u| crate::redact_url(u)))
            .field("https", &self.https.as_ref().map(|u| crate::redact_url(u)))
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

impl ProxyConfig {
    /// From `HTTPS_PROXY`/`https_proxy`, `HTTP_PROXY`/`http_proxy`, `NO_PROXY`/`no_proxy` as
    /// `var` finds them (upper case first; empty is unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> ProxyConfig {
        let get = |upper: &str| {
            var(upper)
                .or_else(|| var(&upper.to_ascii_lowercase()))
                .filter(|v| !v.trim().is_empty())
        };
        ProxyConfig {
            http: get("HTTP_PROXY"),
            https: get("HTTPS_PROXY"),
            no_proxy: get("NO_PROXY"),
        }
    }

    /// Whether no proxy is set.
    pub fn is_empty(&self) -> bool {
        self.http.is_none() && self.https.is_none()
    }

    /// The proxy for a connection to `host:port` (`secure`: TLS to the browser), or None to
    /// connect directly.
    pub fn for_target(&self, host: &str, port: u16, secure: bool) -> Option<&str> {
        let proxy = match secure {
            true => self.https.as_deref(),
            false => self.http.as_deref(),
        }?;
        (!self.bypasses(host, port)).then_some(proxy)
    }

    /// Whether `NO_PROXY` names `host` (or `host:port`).
    fn bypasses(&self, host: &str, port: u16) -> bool {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let Some(list) = &self.no_proxy else {
            return false;
        };
        list.split(',').map(str::trim).any(|entry| {
            if entry == "*" {
                return true;
            }
            let (name, want_port) = split_port(entry);
            if want_port.is_some_and(|p| p != port) {
                return false;
            }
            let name = name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase();
            let bare = name.trim_start_matches("*.").trim_start_matches('.');
            !bare.is_empty() && (host == bare || host.ends_with(&format!(".{bare}")))
        })
    }
}

/// `name:port` split; an IPv6 literal without brackets is all name.
fn split_port(entry: &str) -> (&str, Option<u16>) {
    if entry.starts_with('[') {
        if let Some((name, rest)) = entry.split_once(']') {
            let port = rest.strip_prefix(':').and_then(|p| p.parse().ok());
            return (&entry[..name.len() + 1], port);
        }
        return (entry, None);
    }
    match entry.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, port.parse().ok()),
        _ => (entry, None),
    }
}

/// Opens a TCP connection to the proxy `proxy` (`http://[user:pass@]host:port`) and asks it for
/// a tunnel to `host:port` (`CONNECT`); returns the tunnel, ready for TLS or plain bytes.
/// Errors are readable reasons (the proxy's credentials never in them).
pub(crate) async fn tunnel(proxy: &str, host: &str, port: u16) -> Result<TcpStream, String> {
    let shown = crate::redact_url(proxy);
    let url = url::Url::parse(proxy).map_err(|e| format!("proxy {shown}: {e}"))?;
    if url.scheme() != "http" {
        return Err(format!(
            "proxy {shown}: only http:// proxies are supported (CONNECT)"
        ));
    }
    let proxy_host = url
        .host_str()
        .ok_or_else(|| format!("proxy {shown}: no host"))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let proxy_port = url.port_or_known_default().unwrap_or(80);
    let mut tcp = TcpStream::connect((proxy_host.as_str(), proxy_port))
        .await
        .map_err(|e| format!("proxy {shown}: {e}"))?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let authority = match host.contains(':') {
        true => format!("[{host}]:{port}"),
        false => format!("{host}:{port}"),
    };
    let mut request = format!(
        "CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\nProxy-Connection: keep-alive\r\n"
    );
    if !url.username().is_empty() {
        use base64::Engine as _;
        let user = percent_decode(url.username());
        let pass = percent_decode(url.password().unwrap_or_default());
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
        request.push_str(&format!("Proxy-Authorization: Basic {token}\r\n"));
    }
    request.push_str("\r\n");
    tcp.write_all(request.as_bytes())
        .await
        .map_err(|e| format!("proxy {shown}: {e}"))?;
    // The answer's head, read a byte at a time: what follows it is the tunnel's, not ours.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 * 1024 {
            return Err(format!("proxy {shown}: answer head too large"));
        }
        let mut b = [0u8; 1];
        let n = tcp
            .read(&mut b)
            .await
            .map_err(|e| format!("proxy {shown}: {e}"))?;
        if n == 0 {
            return Err(format!("proxy {shown}: closed before answering CONNECT"));
        }
        head.push(b[0]);
    }
    let status_line = String::from_utf8_lossy(&head);
    let status_line = status_line.lines().next().unwrap_or_default();
    let code = status_line.split_whitespace().nth(1).unwrap_or_default();
    if !code.starts_with('2') {
        return Err(format!(
            "proxy {shown} refused the tunnel to {authority}: {status_line}"
        ));
    }
    Ok(tcp)
}

/// `%XX` escapes of a URL's user info decoded (others kept as they are).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(no_proxy: &str) -> ProxyConfig {
        ProxyConfig {
            http: Some("http://p:3128".into()),
            https: Some("http://ps:3128".into()),
            no_proxy: Some(no_proxy.into()),
        }
    }

    #[test]
    fn the_scheme_picks_the_proxy_and_no_proxy_names_direct_hosts() {
        let c = cfg("localhost, .corp.test,10.0.0.7, pool.test:9222, [::1]");
        assert_eq!(
            c.for_target("browser.test", 9222, false),
            Some("http://p:3128")
        );
        assert_eq!(
            c.for_target("browser.test", 443, true),
            Some("http://ps:3128")
        );
        assert_eq!(c.for_target("localhost", 9222, false), None);
        assert_eq!(c.for_target("a.corp.test", 1, true), None);
        assert_eq!(c.for_target("corp.test", 1, true), None);
        assert_eq!(
            c.for_target("notcorp.test", 1, true),
            Some("http://ps:3128")
        );
        assert_eq!(c.for_target("10.0.0.7", 1, false), None);
        assert_eq!(c.for_target("pool.test", 9222, false), None);
        assert_eq!(
            c.for_target("pool.test", 9223, false),
            Some("http://p:3128")
        );
        assert_eq!(c.for_target("[::1]", 9222, false), None);
        assert_eq!(cfg("*").for_target("x.test", 1, true), None);
        let env = |k: &str| match k {
            "https_proxy" => Some("http://lower:1".to_string()),
            "HTTP_PROXY" => Some(String::new()),
            _ => None,
        };
        let c = ProxyConfig::from_vars(env);
        assert_eq!(c.https.as_deref(), Some("http://lower:1"));
        assert_eq!(c.http, None);
        assert!(!format!("{:?}", cfg("").clone()).is_empty());
        assert_eq!(percent_decode("a%40b%3"), "a@b%3");
    }
}
