//! `areas export` / `areas import`: areas as JSON, each in the `get` data format plus `title`,
//! `summary`, `recorded_at` and `recorded_from`.
//!
//! ```json
//! {"format": "actionbook-areas", "version": 1, "areas": [
//!   {"area_id": "google.com:/login:default", "title": "Google Login", "summary": "…",
//!    "url": "https://google.com/login", "description": "Login page",
//!    "elements": [{"element_id": "email", "type": "input", "description": "Email input",
//!                  "css": "#identifierId", "xpath": null, "allow_methods": ["fill", "type", "focus"]}],
//!    "recorded_at": "2026-11-29T20:19:29.123Z", "recorded_from": "https://google.com/login"}]}
//! ```
//!
//! Export then import gives the same areas back, field for field. Import also takes a bare array
//! of areas, one area, or a whole `get --json` / `areas export --json` envelope; in an area only
//! `area_id` and `url` are required (`title` defaults to the description or id, `summary` to the
//! element list, `recorded_at` to now, `recorded_from` to `url`).

use std::collections::HashSet;
use std::path::Path;

use envelope::AreaElement;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::area::{Area, summarize_elements};
use super::error::{ManualsError, Result};
use super::time::Timestamp;

/// The `format` member of an export.
pub const FORMAT: &str = "actionbook-areas";
/// The `version` member this build writes.
pub const FORMAT_VERSION: u32 = 1;

/// An export: `{"format": "actionbook-areas", "version": 1, "areas": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AreasDocument {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// The areas, by id.
    pub areas: Vec<Area>,
}

impl AreasDocument {
    /// A document of these areas.
    pub fn new(areas: Vec<Area>) -> AreasDocument {
        AreasDocument {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
            areas,
        }
    }

    /// Pretty JSON, ending in a newline (what `areas export` writes to a file).
    pub fn to_json_pretty(&self) -> String {
        // A struct of strings, vectors and integers always serialises.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// An area as an import file may write it: the `get` data, the rest optional.
#[derive(Deserialize)]
struct AreaInput {
    area_id: String,
    url: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    elements: Vec<AreaElement>,
    #[serde(default)]
    recorded_at: Option<Timestamp>,
    #[serde(default)]
    recorded_from: Option<String>,
}

impl AreaInput {
    fn into_area(self, now: Timestamp) -> Area {
        let title = self.title.unwrap_or_else(|| {
            if self.description.is_empty() {
                self.area_id.clone()
            } else {
                self.description.chars().take(80).collect()
            }
        });
        let summary = self
            .summary
            .unwrap_or_else(|| summarize_elements(&self.elements));
        Area {
            recorded_from: self.recorded_from.unwrap_or_else(|| self.url.clone()),
            area_id: self.area_id,
            title,
            summary,
            url: self.url,
            description: self.description,
            elements: self.elements,
            recorded_at: self.recorded_at.unwrap_or(now),
        }
    }
}

/// The areas in `text` (any of the accepted shapes); `source_name` names the file in errors.
pub fn parse_areas(text: &str, source_name: &str) -> Result<Vec<Area>> {
    let bad = |reason: String| ManualsError::BadImport {
        source_name: source_name.to_string(),
        reason,
    };
    let value: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    // An envelope (`get --json`, `areas export --json`): its data.
    let value = match value {
        Value::Object(mut m) if m.contains_key("ok") && m.contains_key("data") => {
            m.remove("data").unwrap_or(Value::Null)
        }
        v => v,
    };
    let list = match value {
        Value::Array(items) => items,
        Value::Object(mut m) if m.contains_key("areas") => {
            if let Some(f) = m.get("format").and_then(Value::as_str)
                && f != FORMAT
            {
                return Err(bad(format!("its format is '{f}', not '{FORMAT}'")));
            }
            if let Some(v) = m.get("version").and_then(Value::as_u64)
                && v > u64::from(FORMAT_VERSION)
            {
                return Err(bad(format!(
                    "it has format version {v}; this actionbook reads up to {FORMAT_VERSION}"
                )));
            }
            match m.remove("areas") {
                Some(Value::Array(items)) => items,
                _ => return Err(bad("'areas' is not an array".into())),
            }
        }
        Value::Object(m) if m.contains_key("area_id") => vec![Value::Object(m)],
        _ => {
            return Err(bad(
                "expected {\"areas\": [...]}, an array of areas or one area".into(),
            ));
        }
    };
    let now = Timestamp::now();
    let mut seen = HashSet::new();
    let mut areas = Vec::with_capacity(list.len());
    for (i, item) in list.into_iter().enumerate() {
        let input: AreaInput =
            serde_json::from_value(item).map_err(|e| bad(format!("area {}: {e}", i + 1)))?;
        let area = input.into_area(now);
        area.id().map_err(|e| bad(format!("area {}: {e}", i + 1)))?;
        if !seen.insert(area.area_id.clone()) {
            return Err(bad(format!("area {} appears twice", area.area_id)));
        }
        areas.push(area);
    }
    Ok(areas)
}

/// [`parse_areas`] of a file (`-` is not special here: the caller reads stdin itself).
pub fn read_areas_file(path: &Path) -> Result<Vec<Area>> {
    let text = std::fs::read_to_string(path).map_err(|source| ManualsError::ReadFile {
        path: path.to_path_buf(),
        source,
    })?;
    parse_areas(&text, &path.display().to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Generated areas with distinct ids, for round-trip properties here and in the store.
    pub(crate) fn arb_areas() -> impl Strategy<Value = Vec<Area>> {
        let text = "[ -~]{0,24}|[\\p{L}\\p{N} \"\\\\\\n]{0,12}";
        let element = (
            "[a-z][a-z0-9-]{0,10}",
            "input|button|link|select|checkbox",
            text,
            proptest::option::of("#[a-z]{1,8}|[a-z]+\\[name=\"[^\"]{0,6}\"\\]"),
            proptest::option::of("(/[a-z]{1,5}\\[[1-9]\\]){1,4}"),
            proptest::collection::vec("click|fill|type|focus|select|upload|hover", 0..4),
        )
            .prop_map(|(id, ty, d, css, xpath, m)| AreaElement {
                element_id: id,
                element_type: ty,
                description: d,
                css,
                xpath,
                allow_methods: m,
            });
        let area = (
            "[a-z]{1,8}\\.(com|org|dev)",
            "(/[a-z0-9._-]{0,6}){1,3}",
            "[a-z0-9_-]{1,8}",
            (text, text, text),
            proptest::collection::vec(element, 0..5),
            0i64..253_402_300_799_999,
        )
            .prop_map(
                |(host, path, name, (title, summary, description), elements, ms)| {
                    let url = format!("https://{host}{path}");
                    Area {
                        area_id: format!("{host}:{path}:{name}"),
                        title,
                        summary,
                        recorded_from: url.clone(),
                        url,
                        description,
                        elements,
                        recorded_at: Timestamp::from_millis(ms),
                    }
                },
            );
        proptest::collection::vec(area, 0..6).prop_map(|mut v| {
            let mut seen = HashSet::new();
            v.retain(|a| seen.insert(a.area_id.clone()));
            v
        })
    }

    proptest! {
        #[test]
        fn export_then_parse_is_identity(areas in arb_areas()) {
            let doc = AreasDocument::new(areas.clone());
            let back = parse_areas(&doc.to_json_pretty(), "x.json").unwrap();
            prop_assert_eq!(back, areas);
        }
    }

    #[test]
    fn accepts_get_data_and_envelopes() {
        let get = r##"{"area_id":"google.com:/login:default","url":"https://google.com/login",
            "description":"Login page","elements":[{"element_id":"email","type":"input",
            "description":"Email input","css":"#identifierId","xpath":null,
            "allow_methods":["fill","type","focus"]}]}"##;
        let one = parse_areas(get, "get.json").unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].title, "Login page");
        assert_eq!(one[0].summary, "Email input");
        assert_eq!(one[0].recorded_from, "https://google.com/login");
        let envelope = format!(r#"{{"ok":true,"command":"get","data":{get},"error":null}}"#);
        assert_eq!(
            parse_areas(&envelope, "e.json").unwrap()[0].elements,
            one[0].elements
        );
        let array = format!("[{get}]");
        assert_eq!(parse_areas(&array, "a.json").unwrap().len(), 1);
    }

    #[test]
    fn refuses_what_is_not_areas() {
        for (text, needle) in [
            ("nope", "not JSON"),
            ("{\"x\":1}", "expected"),
            ("{\"format\":\"other\",\"areas\":[]}", "format is 'other'"),
            (
                "{\"format\":\"actionbook-areas\",\"version\":9,\"areas\":[]}",
                "version 9",
            ),
            ("[{\"area_id\":\"bad\",\"url\":\"u\"}]", "area 1"),
            ("[{\"url\":\"u\"}]", "area 1"),
            (
                "[{\"area_id\":\"a.com:/:x\",\"url\":\"u\"},{\"area_id\":\"a.com:/:x\",\"url\":\"u\"}]",
                "twice",
            ),
        ] {
            let err = parse_areas(text, "in.json").unwrap_err();
            assert!(matches!(err, ManualsError::BadImport { .. }), "{text}");
            assert!(err.to_string().contains(needle), "{text}: {err}");
            assert!(err.to_string().contains("in.json"));
        }
    }
}
