//! Unit tests of storage-state conversion and checks.

use super::file::{check_cookies, check_origins};
use super::*;

fn cookie(domain: &str, same_site: &str, secure: bool) -> StateCookie {
    StateCookie {
        name: "a".into(),
        value: "b".into(),
        domain: domain.into(),
        path: "/".into(),
        expires: -1.0,
        http_only: false,
        secure,
        same_site: same_site.into(),
    }
}

#[test]
fn host_only_cookies_are_set_by_url_and_domain_cookies_by_domain() {
    let p = to_param(&cookie("127.0.0.1", "Lax", false));
    assert_eq!(p.url.as_deref(), Some("http://127.0.0.1/"));
    assert_eq!(p.domain, None);
    assert_eq!(p.expires, None);
    let p = to_param(&cookie(".x.test", "None", true));
    assert_eq!(p.url, None);
    assert_eq!(p.domain.as_deref(), Some(".x.test"));
}

#[test]
fn cookies_and_origins_the_browser_would_refuse_are_refused_first() {
    let path = Path::new("s.json");
    assert!(check_cookies(path, &[cookie("x.test", "Lax", false)]).is_ok());
    for bad in [
        cookie("", "Lax", false),
        cookie("x.test", "lax-ish", false),
        cookie("x.test", "None", false),
    ] {
        assert!(check_cookies(path, &[bad]).is_err());
    }
    let origin = |o: &str| StateOrigin {
        origin: o.into(),
        ..Default::default()
    };
    assert!(check_origins(path, &[origin("http://127.0.0.1:8080")]).is_ok());
    for bad in ["http://x.test/path", "file:///tmp", "x.test", "null"] {
        assert!(check_origins(path, &[origin(bad)]).is_err(), "{bad}");
    }
}

#[test]
fn the_storage_expression_passes_its_arguments_as_json() {
    let items = [NameValue {
        name: "k\"".into(),
        value: "v\n".into(),
    }];
    let e = storage_expression(Some("http://a.test"), Some(&items), None);
    assert!(
        e.ends_with(r#"("http://a.test", [["k\"","v\n"]], null)"#),
        "{e}"
    );
}
