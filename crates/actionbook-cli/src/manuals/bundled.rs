//! Manuals shipped with actionbook, loaded into every fresh store so that `search login` answers
//! on a fresh install: the demo page (`crates/actionbook-cli/demo/index.html`, as a `file:` URL of
//! the source tree this binary was built from) and the CLI test fixture's home page (served on
//! 127.0.0.1 at a port of the test's choosing, which area ids leave out).
//!
//! The areas are in `bundled.json` (the export format), with `{demo_url}` / `{demo_id}` standing
//! for the demo page's URL and id prefix. Raise [`BUNDLED_VERSION`] when the file changes: stores
//! holding an older set refresh their bundled areas on open.

use std::path::Path;

use super::area::Area;
use super::area::AreaId;
use super::error::{ManualsError, Result};
use super::transfer::parse_areas;

/// The version of `bundled.json`.
pub const BUNDLED_VERSION: i64 = 1;

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
    let demo = AreaId::for_page(&demo_url, None)?;
    let demo_id_prefix = format!("{}:{}", demo.host(), demo.path());
    // Substituted as JSON string contents, so a path with quotes or backslashes stays valid.
    let escape = |s: &str| {
        let quoted = serde_json::to_string(s).unwrap_or_default();
        quoted[1..quoted.len().saturating_sub(1)].to_string()
    };
    let text = BUNDLED_JSON
        .replace("{demo_url}", &escape(&demo_url))
        .replace("{demo_id}", &escape(&demo_id_prefix));
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
        assert!(
            login
                .url
                .ends_with("/crates/actionbook-cli/demo/index.html")
        );
        assert_eq!(
            login.area_id,
            AreaId::for_page(&login.url, Some("login"))
                .unwrap()
                .to_string()
        );
        for a in &areas {
            assert!(!a.elements.is_empty(), "{}", a.area_id);
            for e in &a.elements {
                assert!(e.css.is_some(), "{} {}", a.area_id, e.element_id);
                assert!(!e.allow_methods.is_empty());
            }
        }
    }
}
