//! The rules of `browser start --allowed-domains` (parsing and matching; pure, no browser).
//!
//! A list is comma-separated rules, each one of:
//! - `example.com`: that host exactly (not its subdomains);
//! - `*.example.com`: every subdomain of it, at any depth (not `example.com` itself: list both);
//! - an IP literal, `127.0.0.1` or `[::1]` (a bare `::1` too);
//! - any of those with `:port`: only that port (without one, any port).
//!
//! Hosts are compared as a browser resolves them: lower case, IDNA to punycode (`bücher.de` is
//! `xn--bcher-kva.de`), a trailing dot dropped, and URLs parsed by the WHATWG rules (`url`), so
//! `http://allowed.com@evil.com/` is evil.com, `http://0x7f.1/` is 127.0.0.1 and
//! `http://[0:0::1]/` is `[::1]`. Only `http`, `https`, `ws` and `wss` URLs reach the network by
//! host; `data:`, `blob:`, `about:` and `javascript:` URLs make no request of their own and pass
//! (a `blob:` URL is the page's own memory; what a `javascript:` URL does is checked as it
//! happens). Every other scheme (`file:`, `ftp:`, `chrome:`, ...) is refused: the list names
//! where the session may go.

use std::fmt;
use std::net::IpAddr;

/// One rule of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Host {
    /// This host exactly (ASCII, lower case, no trailing dot).
    Exact(String),
    /// Subdomains of this one (`*.` cut off).
    Subdomains(String),
    /// An IP address.
    Ip(IpAddr),
}

/// A rule: a host pattern and, maybe, a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    host: Host,
    port: Option<u16>,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Host::Exact(h) => write!(f, "{h}")?,
            Host::Subdomains(h) => write!(f, "*.{h}")?,
            Host::Ip(IpAddr::V4(a)) => write!(f, "{a}")?,
            Host::Ip(IpAddr::V6(a)) => write!(f, "[{a}]")?,
        }
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        Ok(())
    }
}

/// The session's allowed domains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowlist {
    rules: Vec<Rule>,
}

/// What the list says of a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It may load (a host of the list, or a URL that makes no request).
    Allowed,
    /// It may not; `host` is what was refused (`host:port` when the port mattered, or the
    /// scheme for one that is never allowed).
    Denied {
        /// The refused host (or `scheme:`).
        host: String,
    },
}

impl Rule {
    /// Parses one rule (see the module docs); `Err` says what is wrong with it.
    pub fn parse(raw: &str) -> Result<Rule, String> {
        let s = raw.trim();
        if s.is_empty() {
            return Err("an empty rule".into());
        }
        if s.contains("://") || s.contains(['/', '?', '#', '@']) {
            return Err(format!(
                "'{s}' is not a host: give hosts (a.com, *.b.com, 127.0.0.1:8080), not URLs"
            ));
        }
        let (host, port) = split_port(s)?;
        if let Some(sub) = host.strip_prefix("*.") {
            if sub.contains('*') {
                return Err(format!("'{s}': only a leading '*.' is a wildcard"));
            }
            let h = domain(sub).map_err(|e| format!("'{s}': {e}"))?;
            if h.parse::<IpAddr>().is_ok() || h.contains(':') {
                return Err(format!("'{s}': an IP address has no subdomains"));
            }
            return Ok(Rule {
                host: Host::Subdomains(h),
                port,
            });
        }
        if host.contains('*') {
            return Err(format!(
                "'{s}': '*' only as a leading '*.' (*.example.com); allowing every host is no list"
            ));
        }
        let host = match url::Host::parse(host) {
            _ if host.starts_with('[') && !host.ends_with(']') => {
                return Err(format!("'{s}': an IPv6 address is written [::1]"));
            }
            Ok(url::Host::Ipv4(a)) => Host::Ip(IpAddr::V4(a)),
            Ok(url::Host::Ipv6(a)) => Host::Ip(IpAddr::V6(a)),
            Ok(url::Host::Domain(_)) | Err(_) => match host.parse::<std::net::Ipv6Addr>() {
                Ok(a) => Host::Ip(IpAddr::V6(a)),
                Err(_) => Host::Exact(domain(host).map_err(|e| format!("'{s}': {e}"))?),
            },
        };
        // A dotted name that the URL parser reads as an address (`0x7f.1`) is that address.
        let host = match host {
            Host::Exact(h) => match url::Host::parse(&h) {
                Ok(url::Host::Ipv4(a)) => Host::Ip(IpAddr::V4(a)),
                _ => Host::Exact(h),
            },
            other => other,
        };
        Ok(Rule { host, port })
    }

    fn allows(&self, host: &Host, port: Option<u16>) -> bool {
        if self.port.is_some() && self.port != port {
            return false;
        }
        match (&self.host, host) {
            (Host::Exact(r), Host::Exact(h)) => r == h,
            (Host::Subdomains(r), Host::Exact(h)) => {
                h.len() > r.len() + 1 && h.ends_with(r.as_str()) && {
                    let cut = h.len() - r.len() - 1;
                    h.as_bytes()[cut] == b'.'
                }
            }
            (Host::Ip(r), Host::Ip(h)) => r == h,
            _ => false,
        }
    }
}

/// `host[:port]` apart; `[v6]:port` and a bare IPv6 address (no port) too.
fn split_port(s: &str) -> Result<(&str, Option<u16>), String> {
    let port_of = |p: &str| -> Result<Option<u16>, String> {
        match p.parse::<u16>() {
            Ok(0) | Err(_) => Err(format!("'{s}': the port must be 1 to 65535")),
            Ok(n) => Ok(Some(n)),
        }
    };
    if let Some(rest) = s.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((_, "")) => Ok((s, None)),
            Some((a, p)) => match p.strip_prefix(':') {
                Some(p) => Ok((&s[..a.len() + 2], port_of(p)?)),
                None => Err(format!("'{s}': expected [address]:port")),
            },
            None => Err(format!("'{s}': an IPv6 address is written [::1]")),
        };
    }
    match s.matches(':').count() {
        0 => Ok((s, None)),
        1 => {
            let (h, p) = s.split_once(':').unwrap_or((s, ""));
            Ok((h, port_of(p)?))
        }
        // A bare IPv6 address: no port possible.
        _ => Ok((s, None)),
    }
}

/// A domain name as the browser compares it: IDNA to ASCII, lower case, no trailing dot.
fn domain(name: &str) -> Result<String, String> {
    let name = name.strip_suffix('.').unwrap_or(name);
    if name.is_empty() || name.starts_with('.') || name.contains("..") {
        return Err("not a host name".into());
    }
    match url::Host::parse(name) {
        Ok(url::Host::Domain(d)) => Ok(d),
        Ok(url::Host::Ipv4(a)) => Ok(a.to_string()),
        Ok(url::Host::Ipv6(a)) => Ok(format!("[{a}]")),
        Err(e) => Err(format!("not a host name ({e})")),
    }
}

/// The host of a parsed URL as rules see it.
fn url_host(u: &url::Url) -> Option<Host> {
    Some(match u.host()? {
        url::Host::Domain(d) => Host::Exact(d.strip_suffix('.').unwrap_or(d).to_ascii_lowercase()),
        url::Host::Ipv4(a) => Host::Ip(IpAddr::V4(a)),
        url::Host::Ipv6(a) => Host::Ip(IpAddr::V6(a)),
    })
}

impl Allowlist {
    /// Parses a comma-separated list (`a.com,*.b.com,127.0.0.1:8080`); several lists (repeated
    /// flags) join. `Err` names the bad rule.
    pub fn parse<S: AsRef<str>>(lists: &[S]) -> Result<Allowlist, String> {
        let mut rules: Vec<Rule> = Vec::new();
        for list in lists {
            for raw in list.as_ref().split(',') {
                if raw.trim().is_empty() {
                    continue;
                }
                let rule = Rule::parse(raw)?;
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
        }
        if rules.is_empty() {
            return Err(
                "--allowed-domains needs at least one host (a.com,*.b.com,127.0.0.1:8080)".into(),
            );
        }
        Ok(Allowlist { rules })
    }

    /// The rules, as written back (canonical: lower case, punycode, `[v6]`).
    pub fn rules(&self) -> Vec<String> {
        self.rules.iter().map(Rule::to_string).collect()
    }

    /// The rules as one comma-separated line (for messages).
    pub fn describe(&self) -> String {
        self.rules().join(",")
    }

    /// What the list says of `url` (one that does not parse is refused).
    pub fn check(&self, url: &str) -> Verdict {
        let Ok(u) = url::Url::parse(url) else {
            return Verdict::Denied {
                host: url.chars().take(80).collect(),
            };
        };
        match u.scheme() {
            "http" | "https" | "ws" | "wss" => {}
            "data" | "blob" | "about" | "javascript" => return Verdict::Allowed,
            other => {
                return Verdict::Denied {
                    host: format!("{other}:"),
                };
            }
        }
        let Some(host) = url_host(&u) else {
            return Verdict::Denied {
                host: format!("{}:", u.scheme()),
            };
        };
        let port = u.port_or_known_default();
        if self.rules.iter().any(|r| r.allows(&host, port)) {
            return Verdict::Allowed;
        }
        let name = match &host {
            Host::Exact(h) | Host::Subdomains(h) => h.clone(),
            Host::Ip(IpAddr::V4(a)) => a.to_string(),
            Host::Ip(IpAddr::V6(a)) => format!("[{a}]"),
        };
        // The port is part of what was refused when a rule names the host on another one.
        let same_host = self
            .rules
            .iter()
            .any(|r| r.allows(&host, r.port) && r.port.is_some());
        Verdict::Denied {
            host: match (same_host, u.port_or_known_default()) {
                (true, Some(p)) => format!("{name}:{p}"),
                _ => name,
            },
        }
    }

    /// Whether `url` may load.
    pub fn allows(&self, url: &str) -> bool {
        self.check(url) == Verdict::Allowed
    }

    /// Chromium's `--proxy-bypass-list` for the list: every rule (loopback included, which
    /// Chromium otherwise never proxies: `<-loopback>`). With a proxy that answers nothing, a
    /// connection to any other host fails in the network stack, WebSockets and WebRTC's TCP
    /// included, which the Fetch domain does not see.
    pub fn proxy_bypass_list(&self) -> String {
        let mut out = vec!["<-loopback>".to_string()];
        out.extend(self.rules());
        out.join(",")
    }

    /// Chromium's `--host-resolver-rules` for the list: every host not in it resolves to
    /// nothing. Chromium 156 applies the rules to IP literals too (measured: `MAP * ~NOTFOUND`
    /// alone makes `http://127.0.0.1/` fail), so the list's addresses are excluded as well; the
    /// rules know no ports (the proxy's bypass list and `Fetch` do).
    pub fn host_resolver_rules(&self) -> String {
        let mut out = vec!["MAP * ~NOTFOUND".to_string()];
        for r in &self.rules {
            let host = match &r.host {
                Host::Exact(h) => h.clone(),
                Host::Subdomains(h) => format!("*.{h}"),
                Host::Ip(IpAddr::V4(a)) => a.to_string(),
                Host::Ip(IpAddr::V6(a)) => format!("[{a}]"),
            };
            let line = format!("EXCLUDE {host}");
            if !out.contains(&line) {
                out.push(line);
            }
        }
        out.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn list(s: &str) -> Allowlist {
        match Allowlist::parse(&[s]) {
            Ok(l) => l,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    #[test]
    fn rules_parse_to_their_canonical_form() {
        let l = list(
            " Example.COM , *.b.com.,127.0.0.1:8080,[::1],::1, bücher.de,0x7f.1:9,[0:0::2]:80",
        );
        assert_eq!(
            l.rules(),
            vec![
                "example.com",
                "*.b.com",
                "127.0.0.1:8080",
                "[::1]",
                "xn--bcher-kva.de",
                "127.0.0.1:9",
                "[::2]:80"
            ]
        );
    }

    #[test]
    fn bad_rules_are_refused_with_what_is_wrong() {
        for bad in [
            "",
            " , ",
            "*",
            "*.*.a.com",
            "a.*.com",
            "http://a.com",
            "a.com/x",
            "user@a.com",
            "a.com:0",
            "a.com:99999",
            "a.com:x",
            "*.127.0.0.1",
            "[::1",
            "[::1]x",
            "a..com",
            ".a.com",
            "a b.com",
        ] {
            assert!(Allowlist::parse(&[bad]).is_err(), "{bad:?} was taken");
        }
    }

    #[test]
    fn hosts_match_exactly_and_wildcards_take_subdomains_only() {
        let l = list("a.com,*.b.com");
        for ok in [
            "https://a.com/",
            "http://A.COM./x",
            "https://x.b.com/",
            "https://y.x.b.com:444/",
            "wss://x.b.com/s",
        ] {
            assert!(l.allows(ok), "{ok}");
        }
        for no in [
            "https://www.a.com/",
            "https://b.com/",
            "https://evilb.com/",
            "https://b.com.evil.com/",
            "https://a.com.evil.com/",
            "http://a.com@evil.com/",
            "http://evil.com/?a.com",
            "http://evil.com/#@a.com",
            "http://evil.com\\@a.com/",
        ] {
            assert!(!l.allows(no), "{no}");
        }
    }

    #[test]
    fn userinfo_tricks_name_the_real_host() {
        let l = list("allowed.com");
        assert_eq!(
            l.check("http://allowed.com@evil.com/"),
            Verdict::Denied {
                host: "evil.com".into()
            }
        );
        assert!(l.allows("http://evil.com@allowed.com/"));
    }

    #[test]
    fn ports_and_ip_literals() {
        let l = list("127.0.0.1:8080,[::1],localhost");
        assert!(l.allows("http://127.0.0.1:8080/"));
        assert!(l.allows("http://2130706433:8080/"), "the decimal form");
        assert!(l.allows("http://0x7f.0.0.1:8080/"));
        assert!(!l.allows("http://127.0.0.1:8081/"));
        assert!(!l.allows("http://127.0.0.1/"));
        assert!(!l.allows("http://127.0.0.2:8080/"));
        assert!(l.allows("http://[::1]:9/"));
        assert!(l.allows("http://[0:0:0::1]/"));
        assert!(l.allows("ws://localhost:1234/"));
        assert_eq!(
            l.check("http://127.0.0.1:9/"),
            Verdict::Denied {
                host: "127.0.0.1:9".into()
            }
        );
        let https = list("a.com:443");
        assert!(https.allows("https://a.com/"));
        assert!(!https.allows("http://a.com/"));
    }

    #[test]
    fn urls_without_a_request_pass_and_other_schemes_do_not() {
        let l = list("a.com");
        for ok in [
            "about:blank",
            "data:text/html,hi",
            "blob:https://evil.com/6a1c",
            "javascript:void(0)",
        ] {
            assert!(l.allows(ok), "{ok}");
        }
        for no in [
            "file:///etc/passwd",
            "ftp://a.com/",
            "chrome://settings",
            "nonsense",
        ] {
            assert!(!l.allows(no), "{no}");
        }
    }

    #[test]
    fn punycode_and_case_are_one_host() {
        let l = list("BÜCHER.de");
        assert!(l.allows("https://xn--bcher-kva.de/"));
        assert!(l.allows("https://bücher.DE/"));
        assert!(!l.allows("https://bucher.de/"));
    }

    #[test]
    fn chromium_flags_name_every_rule() {
        let l = list("a.com,*.b.com,127.0.0.1:8080");
        assert_eq!(
            l.proxy_bypass_list(),
            "<-loopback>,a.com,*.b.com,127.0.0.1:8080"
        );
        assert_eq!(
            l.host_resolver_rules(),
            "MAP * ~NOTFOUND, EXCLUDE a.com, EXCLUDE *.b.com, EXCLUDE 127.0.0.1"
        );
    }

    proptest! {
        #[test]
        fn a_listed_host_is_allowed_and_a_lookalike_is_not(
            label in "[a-z][a-z0-9]{0,10}",
            tld in "(com|org|net|io)",
            sub in "[a-z][a-z0-9]{0,6}",
            evil in "[a-z][a-z0-9]{0,8}",
            port in 1u16..,
        ) {
            let host = format!("{label}.{tld}");
            let l = list(&format!("{host},*.{host}"));
            let upper = host.to_uppercase();
            let u = format!("https://{host}/");
            prop_assert!(l.allows(&u), "{}", u);
            let u = format!("http://{upper}.:{port}/p");
            prop_assert!(l.allows(&u), "{}", u);
            let u = format!("https://{sub}.{host}/");
            prop_assert!(l.allows(&u), "{}", u);
            // `.evil`, no generated TLD: `e.com.e.com` is a subdomain of `e.com`, no lookalike.
            let u = format!("https://{host}.{evil}.evil/");
            prop_assert!(!l.allows(&u), "{}", u);
            let u = format!("https://{evil}{host}/");
            prop_assert!(!l.allows(&u), "{}", u);
            let u = format!("http://{host}@{evil}.evil/");
            prop_assert!(!l.allows(&u), "{}", u);
            let u = format!("http://{host}:{port}@{evil}.evil/");
            prop_assert!(!l.allows(&u), "{}", u);
        }

        #[test]
        fn parse_never_panics_and_what_it_takes_parses_back(s in "\\PC{0,40}") {
            if let Ok(l) = Allowlist::parse(&[s.as_str()]) {
                let again = Allowlist::parse(&l.rules());
                prop_assert_eq!(again, Ok(l));
            }
        }

        #[test]
        fn check_never_panics(url in "\\PC{0,60}") {
            let _ = list("a.com,*.b.com,127.0.0.1:80,[::1]").check(&url);
        }
    }
}
