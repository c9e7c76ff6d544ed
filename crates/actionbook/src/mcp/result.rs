//! A command's envelope as an MCP tool result: `structuredContent` is the JSON envelope as the
//! engine wrote it, `content` its text rendering; a failed command is a result with `isError`,
//! never a JSON-RPC error. Data that points at a file an agent needs to see is inlined from the
//! data's kind, not per command: a snapshot's text, an image artifact as an image block.

use base64::Engine as _;
use envelope::{Data, Envelope};
use serde::Serialize;
use serde_json::value::RawValue;

/// Largest image inlined as a content block (a full-page screenshot can be huge; the file stays).
const MAX_INLINE_IMAGE: u64 = 8 << 20;

/// One content block.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub(crate) enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// Base64 of the bytes.
        data: String,
        /// `image/png`, ...
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// A `tools/call` result.
#[derive(Debug, Serialize)]
pub(crate) struct ToolResult {
    /// What the model reads.
    pub content: Vec<Content>,
    /// The envelope.
    #[serde(rename = "structuredContent")]
    pub structured: Box<RawValue>,
    /// Whether the command failed.
    #[serde(rename = "isError")]
    pub is_error: bool,
}

/// The result of an envelope whose JSON is `json`.
pub(crate) fn tool_result(envelope: &Envelope, json: String) -> ToolResult {
    let structured = RawValue::from_string(json).unwrap_or_else(|_| raw(&envelope.to_json()));
    let mut text = envelope.to_text();
    let mut content = Vec::new();
    match envelope.data() {
        Some(Data::Snapshot(s)) => match std::fs::read_to_string(&s.path) {
            Ok(tree) => {
                text.push_str("\n\n");
                text.push_str(&tree);
            }
            Err(e) => text.push_str(&format!("\n\n(cannot read {}: {e})", s.path)),
        },
        Some(Data::Artifact(a)) if a.artifact.mime_type.starts_with("image/") => {
            if a.artifact.bytes <= MAX_INLINE_IMAGE
                && let Ok(bytes) = std::fs::read(&a.artifact.path)
            {
                content.push(Content::Image {
                    data: base64::engine::general_purpose::STANDARD.encode(bytes),
                    mime_type: a.artifact.mime_type.clone(),
                });
            }
        }
        _ => {}
    }
    content.insert(0, Content::Text { text });
    ToolResult {
        content,
        structured,
        is_error: !envelope.ok(),
    }
}

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_string())
        .unwrap_or_else(|_| RawValue::from_string("{}".to_string()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use envelope::{
        Artifact, ArtifactData, CommandName, Context, ErrorCode, ErrorInfo, SnapshotData,
        SnapshotStats,
    };
    use serde_json::Value;

    use super::*;

    fn to_value(r: &ToolResult) -> Value {
        serde_json::to_value(r).unwrap_or_default()
    }

    #[test]
    fn snapshots_inline_their_tree_and_images_become_image_blocks() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let tree = dir.path().join("snap.txt");
        std::fs::write(&tree, "- button \"Go\" [ref=e1]\n")?;
        let snap = Envelope::success(
            CommandName::BrowserSnapshot,
            Some(Context::tab("s1", "t1")),
            SnapshotData::new(tree.display().to_string(), vec![], SnapshotStats::default()),
        );
        let r = to_value(&tool_result(&snap, snap.to_json()));
        let text = r["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.starts_with("[s1 t1]") && text.ends_with("[ref=e1]\n"),
            "{text}"
        );
        assert_eq!(r["structuredContent"]["command"], "browser snapshot");
        assert_eq!(r["isError"], false);

        let png = dir.path().join("shot.png");
        std::fs::write(&png, b"\x89PNG fake")?;
        let shot = Envelope::success(
            CommandName::BrowserScreenshot,
            Some(Context::tab("s1", "t1")),
            ArtifactData {
                artifact: Artifact {
                    path: png.display().to_string(),
                    mime_type: "image/png".into(),
                    bytes: 9,
                },
            },
        );
        let r = to_value(&tool_result(&shot, shot.to_json()));
        assert_eq!(r["content"][1]["type"], "image", "{r}");
        assert_eq!(r["content"][1]["mimeType"], "image/png");
        assert_eq!(r["content"][1]["data"], "iVBORyBmYWtl");
        Ok(())
    }

    #[test]
    fn failures_are_error_results_carrying_the_envelope() {
        let env = Envelope::failure(
            CommandName::BrowserClick,
            None,
            ErrorInfo::new(ErrorCode::ElementNotFound, "element not found: #x"),
        );
        let r = to_value(&tool_result(&env, env.to_json()));
        assert_eq!(r["isError"], true);
        assert_eq!(r["structuredContent"]["error"]["code"], "ELEMENT_NOT_FOUND");
        assert_eq!(r["content"].as_array().map(Vec::len), Some(1));
        // JSON that is not JSON (never from the engine) falls back to the envelope's own.
        let r = to_value(&tool_result(&env, "{oops".into()));
        assert_eq!(r["structuredContent"]["ok"], false);
    }
}
