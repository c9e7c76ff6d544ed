//! The client <-> daemon wire format.
//!
//! # Wire format
//! Each message is a frame: a 4-byte little-endian length, then that many bytes of JSON (at most
//! [`MAX_FRAME`]). The client sends one [`ClientFrame`] and reads one [`DaemonFrame`] per connection.
//! Both carry [`PROTOCOL_VERSION`] and the sender's build id; a daemon of another build answers
//! [`DaemonFrame::Restart`] and exits, and the client starts a fresh daemon.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::engine::Request;

/// Version of this wire format.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest frame accepted (64 MiB).
pub const MAX_FRAME: usize = 64 << 20;

/// What the client sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClientFrame {
    /// [`PROTOCOL_VERSION`].
    pub v: u32,
    /// The client's build id.
    pub build: String,
    /// The command.
    pub request: Request,
    /// Answer with the text rendering instead of the JSON envelope: the client then prints the
    /// reply as it is and never parses it (a 20k-element snapshot's node list is megabytes).
    #[serde(default)]
    pub text: bool,
}

/// What the daemon answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DaemonFrame {
    /// The command's envelope.
    Reply {
        /// The envelope as JSON text (`Envelope::to_json`), printed as is with `--json`; empty
        /// when `text` is given.
        envelope: String,
        /// The text rendering (`Envelope::to_text`), when the client asked for it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Whether the command succeeded (text goes to stdout, else to stderr).
        ok: bool,
        /// The process exit status.
        exit_code: u8,
    },
    /// The daemon is of another build (or protocol) and is exiting; start a new one and retry.
    Restart {
        /// The daemon's build id.
        build: String,
    },
}

impl DaemonFrame {
    /// The reply carrying `env`, rendered as the client asked.
    pub fn reply(env: &crate::output::Envelope, text: bool) -> DaemonFrame {
        let (envelope, text) = match text {
            true => (String::new(), Some(env.to_text())),
            false => (env.to_json(), None),
        };
        DaemonFrame::Reply {
            envelope,
            text,
            ok: env.ok(),
            exit_code: env.exit_code(),
        }
    }
}

fn too_big(len: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("frame of {len} bytes exceeds the {MAX_FRAME} byte limit"),
    )
}

/// Encodes a value as one frame.
pub fn encode<T: Serialize>(value: &T) -> std::io::Result<Vec<u8>> {
    let body = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    if body.len() > MAX_FRAME {
        return Err(too_big(body.len()));
    }
    let len = u32::try_from(body.len()).map_err(|_| too_big(body.len()))?;
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&body);
    Ok(out)
}

fn decode<T: for<'de> Deserialize<'de>>(body: &[u8]) -> std::io::Result<T> {
    serde_json::from_slice(body)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Writes one frame (blocking).
pub fn write_frame<T: Serialize>(w: &mut impl Write, value: &T) -> std::io::Result<()> {
    w.write_all(&encode(value)?)?;
    w.flush()
}

/// Reads one frame (blocking).
pub fn read_frame<T: for<'de> Deserialize<'de>>(r: &mut impl Read) -> std::io::Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(too_big(len));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    decode(&body)
}

/// Writes one frame (async).
pub async fn write_frame_async<T: Serialize>(
    w: &mut (impl AsyncWriteExt + Unpin),
    value: &T,
) -> std::io::Result<()> {
    w.write_all(&encode(value)?).await?;
    w.flush().await
}

/// Reads one frame (async).
pub async fn read_frame_async<T: for<'de> Deserialize<'de>>(
    r: &mut (impl AsyncReadExt + Unpin),
) -> std::io::Result<T> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).await?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(too_big(len));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).await?;
    decode(&body)
}

/// This binary's build id: the package version plus the executable's size and mtime, so a rebuilt
/// binary never talks to a daemon of the previous build.
pub fn build_id() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let stamp = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{}-{}", m.len(), mtime)
        })
        .unwrap_or_else(|_| "unknown".to_string());
    format!("{version}+{stamp}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn frame_roundtrip(s in ".{0,200}", n in any::<u64>()) {
            let v = serde_json::json!({"s": s, "n": n});
            let bytes = encode(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back: serde_json::Value = read_frame(&mut &bytes[..]).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(back, v);
        }
    }

    #[test]
    fn oversized_length_is_rejected() {
        let mut bytes = ((MAX_FRAME as u32) + 1).to_le_bytes().to_vec();
        bytes.extend_from_slice(b"{}");
        let r: std::io::Result<serde_json::Value> = read_frame(&mut &bytes[..]);
        assert!(r.is_err());
    }

    #[test]
    fn truncated_frame_is_an_error() {
        let bytes = encode(&serde_json::json!({"a": 1})).unwrap_or_default();
        let r: std::io::Result<serde_json::Value> = read_frame(&mut &bytes[..bytes.len() - 1]);
        assert!(r.is_err());
    }
}
