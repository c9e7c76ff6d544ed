//! Manuals shipped with actionbook, loaded into every fresh store so that `search login` answers
//! on a fresh install: the demo page (`crates/manuals/demo/index.html`, as a `file:` URL of
//! the source tree this binary was built from) and the CLI test fixture's home page (served on
//! 127.0.0.1 at a port of the test's choosing, which area ids leave out).
//!
//! The areas are in `bundled.json` (the export format), with `{demo_url}` / `{demo_id}` standing
//! for the demo page's URL and id prefix. The id prefix is [`DEMO_ID_PREFIX`], the same for every
//! checkout and install (only the URL says where the file is), so a scripted `get` of a demo area
//! works anywhere. Raise [`BUNDLED_VERSION`] when the file changes: stores holding an older set
//! refresh their bundled areas on open (and drop bundled areas the new set no longer has).

use std::path::Path;

use super::area::Area;
use super::error::{ManualsError, Result};
use super::transfer::parse_areas;

/// The version of `bundled.json` (2: the demo ids no longer hold the checkout's path).
pub const BUNDLED_VERSION: i64 = 2;

/// `<host>:<path>` of the demo page's areas: a fixed site name, not the file's location.
pub const DEMO_ID_PREFIX: &str = "actionbook-demo:/index.html";

const BUNDLED_JSON: &str = include_str!("bundled.json");

/// The demo page's `file:` URL in the source tree this binary was built from.
pub fn demo_page_url() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("demo")
        .join("index.html");
    url::Url::from_file_path(&path)
        .map(String::from)
        .unwrap_or_else(|()| format!("file://{}", path.display()))
}

/// The bundled areas, with the demo page's URL filled in.
pub fn areas() -> Result<Vec<Area>> {
    let demo_url = demo_page_url();
    // Substituted as JSON string contents, so a path with quotes or backslashes stays valid.
    let escape = |s: &str| {
        let quoted = serde_json::to_string(s).unwrap_or_default();
        quoted[1..quoted.len().saturating_sub(1)].to_string()
    };
    let text = BUNDLED_JSON
        .replace("{demo_url}", &escape(&demo_url))
        .replace("{demo_id}", DEMO_ID_PREFIX);
    parse_areas(&text, "bundled.json").map_err(|e| match e {
        ManualsError::BadImport { reason, .. } => ManualsError::BadImport {
            source_name: "the bundled manuals".into(),
            reason,
        },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::super::area::AreaId;
    use super::*;

    #[test]
    fn bundled_areas_parse_and_name_the_demo_page() {
        let areas = areas().unwrap();
        assert!(areas.len() >= 3);
        let login = areas
            .iter()
            .find(|a| a.area_id.ends_with(":login"))
            .unwrap();
        assert!(login.url.starts_with("file://"));
        assert!(login.url.ends_with("/crates/manuals/demo/index.html"));
        // The id is the same wherever the checkout is.
        assert_eq!(login.area_id, "actionbook-demo:/index.html:login");
        let id: AreaId = login.area_id.parse().unwrap();
        assert_eq!((id.host(), id.path()), ("actionbook-demo", "/index.html"));
        for a in &areas {
            assert!(
                !a.area_id.contains(env!("CARGO_MANIFEST_DIR")),
                "{}",
                a.area_id
            );
        }
        for a in &areas {
            assert!(!a.elements.is_empty(), "{}", a.area_id);
            for e in &a.elements {
                assert!(e.css.is_some(), "{} {}", a.area_id, e.element_id);
                assert!(!e.allow_methods.is_empty());
            }
        }
    }

    /// The fixture site's home page, read from the CLI tests' own definition so the bundled area
    /// cannot drift from it unnoticed.
    fn fixture_home_html() -> String {
        let support = include_str!("../../actionbook-cli/tests/it/support.rs");
        let start = support.find("\"/index.html\",\n        r#\"").expect(
            "tests/it/support.rs no longer defines /index.html as before: update bundled.json",
        ) + "\"/index.html\",\n        r#\"".len();
        let end = support[start..]
            .find("\"#")
            .expect("end of the /index.html page")
            + start;
        support[start..end].to_string()
    }

    /// Every bundled CSS selector and XPath matches exactly one element of its page (frames
    /// included), and both name the same element.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bundled_selectors_match_exactly_one_element() {
        use cdp_protocol::testing::{
            FixtureServer, chromium_available, launch_test_browser, open_blank_page,
        };
        use cdp_protocol::{page, runtime};
        use std::time::Duration;
        if !chromium_available() {
            eprintln!("skipped: no Chromium");
            return;
        }
        let server = FixtureServer::start().await;
        let html = "text/html; charset=utf-8";
        server.route("/demo.html", html, include_str!("../demo/index.html"));
        server.route("/index.html", html, fixture_home_html());
        let browser = launch_test_browser().await;
        let (_, session) = open_blank_page(&browser).await.unwrap();
        session.send(&page::Enable).await.unwrap();
        let mut checked = 0;
        for area in areas().unwrap() {
            let path = if area.url.starts_with("file:") {
                "/demo.html"
            } else {
                "/index.html"
            };
            let mut loads = session.subscribe::<page::LoadEventFired>();
            session
                .send(&page::Navigate {
                    url: server.url(path),
                    ..Default::default()
                })
                .await
                .unwrap();
            tokio::time::timeout(Duration::from_secs(20), loads.recv())
                .await
                .expect("page load within 20 s");
            for e in &area.elements {
                let css = serde_json::to_string(e.css.as_deref().unwrap()).unwrap();
                let xpath = serde_json::to_string(&e.xpath).unwrap();
                let expression = format!(
                    "(() => {{
                        const docs = [document, ...Array.from(document.querySelectorAll('iframe'))
                            .map(f => {{ try {{ return f.contentDocument; }} catch (_) {{ return null; }} }})
                            .filter(Boolean)];
                        const css = {css}, xpath = {xpath};
                        const byCss = [], byXpath = [];
                        for (const d of docs) {{
                            byCss.push(...d.querySelectorAll(css));
                            if (xpath) {{
                                const r = d.evaluate(xpath, d, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
                                for (let i = 0; i < r.snapshotLength; i++) byXpath.push(r.snapshotItem(i));
                            }}
                        }}
                        return [byCss.length, xpath ? byXpath.length : 1, !xpath || byCss[0] === byXpath[0]];
                    }})()"
                );
                let r = session
                    .send(&runtime::Evaluate {
                        expression,
                        return_by_value: Some(true),
                        ..Default::default()
                    })
                    .await
                    .unwrap();
                assert!(
                    r.exception_details.is_none(),
                    "{} {}: {:?}",
                    area.area_id,
                    e.element_id,
                    r.exception_details
                );
                assert_eq!(
                    r.result.value,
                    Some(serde_json::json!([1, 1, true])),
                    "{} {}: css {:?} xpath {:?}",
                    area.area_id,
                    e.element_id,
                    e.css,
                    e.xpath
                );
                checked += 1;
            }
        }
        assert!(checked >= 10);
        let _ = browser.close().await;
    }
}
