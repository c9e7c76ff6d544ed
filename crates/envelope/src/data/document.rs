//! Data whose JSON shape belongs to its producer (`manual`, `areas …`, `setup`): the spec leaves
//! these open, so the producer (the engine's manuals library) serialises its own typed value and
//! renders its text once; the envelope carries both.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::text::{RenderText, TextBody};

/// A producer-shaped `data` value: its JSON (member order kept) and its text body.
///
/// Made with [`Document::new`] from any typed value that serialises and renders itself. Read back
/// from JSON it has no text of its own and renders as its JSON. Two documents are
/// equal when their JSON is (the text is derived from the same value).
#[derive(Debug, Clone)]
pub struct Document {
    json: Box<RawValue>,
    text: Option<String>,
    action: bool,
}

impl Document {
    /// The document of `value`: its JSON and its text body.
    pub fn new<T: Serialize + RenderText + ?Sized>(
        value: &T,
    ) -> Result<Document, serde_json::Error> {
        let json = serde_json::value::to_raw_value(value)?;
        let mut text = String::new();
        value.render_body(&mut TextBody::new(&mut text));
        Ok(Document {
            json,
            text: Some(text),
            action: value.is_action(),
        })
    }

    /// The JSON text.
    pub fn json(&self) -> &str {
        self.json.get()
    }

    /// The JSON as a value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(self.json.get()).unwrap_or(serde_json::Value::Null)
    }
}

impl PartialEq for Document {
    fn eq(&self, other: &Document) -> bool {
        self.json.get() == other.json.get()
    }
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Document {
            json: Box::<RawValue>::deserialize(d)?,
            text: None,
            action: false,
        })
    }
}

impl RenderText for Document {
    fn is_action(&self) -> bool {
        self.action
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        match &self.text {
            // The producer's lines already end with newlines.
            Some(text) => {
                for line in text.lines() {
                    body.line(line);
                }
            }
            None => body.line(self.json.get()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Report {
        z: u32,
        a: &'static str,
    }

    impl RenderText for Report {
        fn is_action(&self) -> bool {
            true
        }
        fn render_body(&self, body: &mut TextBody<'_>) {
            body.field("a", self.a);
            body.line("");
            body.field("z", self.z);
        }
    }

    #[test]
    fn keeps_member_order_and_text_and_reads_back_as_json() {
        let d = Document::new(&Report { z: 1, a: "x" }).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.json(), r#"{"z":1,"a":"x"}"#);
        let mut out = String::new();
        d.render_body(&mut TextBody::new(&mut out));
        assert_eq!(out, "a: x\n\nz: 1\n");
        assert!(d.is_action());
        let back: Document = serde_json::from_str(d.json()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, d);
        let mut out = String::new();
        back.render_body(&mut TextBody::new(&mut out));
        assert_eq!(out, "{\"z\":1,\"a\":\"x\"}\n");
    }
}
