//! Content boundaries (`browser start --content-boundaries`): the text a page made (snapshot,
//! text, html, value, attr, eval values, console logs) is given between two marker lines that
//! carry the session's nonce, so an agent can tell the page's words from ours. The nonce is made
//! at `start` from the OS's random source, kept in the session's record and told in `start`'s
//! answer; it is never put into a page, so a page cannot write a closing marker that matches.

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;

/// The first word of the opening marker line.
pub const BEGIN: &str = "ACTIONBOOK_PAGE_CONTENT";
/// The first word of the closing marker line.
pub const END: &str = "END_ACTIONBOOK_PAGE_CONTENT";

/// A session's content boundary: its nonce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentBoundary {
    nonce: String,
}

impl ContentBoundary {
    /// A boundary with a fresh nonce (128 random bits, as 32 hex digits).
    pub fn fresh() -> ContentBoundary {
        let mut bytes = [0u8; 16];
        OsRng.fill_bytes(&mut bytes);
        let nonce = bytes.iter().map(|b| format!("{b:02x}")).collect();
        ContentBoundary { nonce }
    }

    /// The boundary of a session whose record holds `nonce`.
    pub fn with_nonce(nonce: impl Into<String>) -> ContentBoundary {
        ContentBoundary {
            nonce: nonce.into(),
        }
    }

    /// The nonce.
    pub fn nonce(&self) -> &str {
        &self.nonce
    }

    /// `text` between the two marker lines.
    pub fn wrap(&self, text: &str) -> String {
        let nonce = &self.nonce;
        let mut out = String::with_capacity(text.len() + 2 * (BEGIN.len() + nonce.len() + 20));
        out.push_str(&format!("--- {BEGIN} nonce={nonce} ---\n"));
        out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("--- {END} nonce={nonce} ---"));
        out
    }

    /// `json`'s strings wrapped, at any depth (an eval's value).
    pub fn wrap_strings(&self, json: &mut serde_json::Value) {
        match json {
            serde_json::Value::String(s) => *s = self.wrap(s),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.wrap_strings(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.wrap_strings(v)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_text_sits_between_markers_naming_the_nonce() {
        let b = ContentBoundary::with_nonce("abc");
        assert_eq!(
            b.wrap("hello\nworld"),
            "--- ACTIONBOOK_PAGE_CONTENT nonce=abc ---\nhello\nworld\n--- END_ACTIONBOOK_PAGE_CONTENT nonce=abc ---"
        );
        assert_eq!(
            b.wrap("x\n"),
            "--- ACTIONBOOK_PAGE_CONTENT nonce=abc ---\nx\n--- END_ACTIONBOOK_PAGE_CONTENT nonce=abc ---"
        );
    }

    #[test]
    fn fresh_nonces_are_long_and_differ() {
        let (a, b) = (ContentBoundary::fresh(), ContentBoundary::fresh());
        assert_eq!(a.nonce().len(), 32);
        assert!(a.nonce().chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn strings_inside_json_are_wrapped_and_other_values_kept() {
        let b = ContentBoundary::with_nonce("n");
        let mut v = serde_json::json!({"a": ["x", 1, true], "b": null});
        b.wrap_strings(&mut v);
        assert_eq!(v["a"][0], b.wrap("x"));
        assert_eq!(v["a"][1], 1);
        assert_eq!(v["b"], serde_json::Value::Null);
    }
}
