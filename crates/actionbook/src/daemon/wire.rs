//! The client <-> daemon wire format, versioned and tolerant.
//!
//! # Wire format
//! Each message is a frame: a 4-byte little-endian length, then that many bytes of JSON (at most
//! [`MAX_FRAME`]). The client sends one [`ClientFrame`] and reads one [`DaemonFrame`] per
//! connection.
//!
//! - [`ClientFrame`]: `{"v": PROTOCOL_VERSION, "build": "...", "text": bool, "request": Request}`,
//!   where the request is `{"command": {"command": "browser goto", "args": {...}}, "timeout_ms":
//!   N, "env": {...}}` (the typed [`Command`](crate::commands::Command) and its request type).
//! - [`ControlFrame`]: `{"v", "build", "control": "stop"}`, asked of the daemon itself; answered
//!   [`DaemonFrame::Restart`] as it starts draining.
//! - [`DaemonFrame::Reply`]: the envelope, as JSON or as text.
//! - [`DaemonFrame::Restart`]: this daemon is of another build or protocol than the client, or is
//!   draining for a restart: it accepts no new command, lets the ones in flight finish (at most
//!   `drain_ms` more), then exits; the client waits for that and retries against a new daemon.
//!
//! Tolerance: both sides ignore fields they do not know, and the daemon reads `v` and `build`
//! ([`FrameHeader`]) before the request, so a client of any other version gets `Restart` (never a
//! decoding error), and a request this build cannot decode is answered with an envelope naming
//! the command as sent ([`RequestName`]). A client of another build never makes the daemon drop
//! commands in flight.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::commands::RawCommand;
use crate::engine::Request;

/// Version of this wire format (2: typed requests, drain on restart).
pub const PROTOCOL_VERSION: u32 = 2;

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
    /// Send the command's progress lines ([`DaemonFrame::Progress`]) before its reply.
    #[serde(default)]
    pub progress: bool,
}

/// What a client of the daemon's own build may ask of the daemon itself, in place of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Stop: run no new command, let those in flight finish, exit (`actionbook daemon stop`). The
    /// sessions stay on disk and their browsers keep running for the next daemon.
    Stop,
}

/// A client frame carrying a [`Control`] instead of a request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ControlFrame {
    /// [`PROTOCOL_VERSION`].
    pub v: u32,
    /// The client's build id.
    pub build: String,
    /// What is asked.
    pub control: Control,
}

/// The part of a client frame read first, whatever version sent it.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FrameHeader {
    /// The sender's protocol version.
    #[serde(default)]
    pub v: Option<u64>,
    /// The sender's build id.
    #[serde(default)]
    pub build: Option<String>,
    /// Whether the reply should be text.
    #[serde(default)]
    pub text: bool,
    /// A [`ControlFrame`]'s ask.
    #[serde(default)]
    pub control: Option<Control>,
}

impl FrameHeader {
    /// Whether the frame comes from a client of this protocol version and build.
    pub fn is_same_build(&self, build: &str) -> bool {
        self.v == Some(u64::from(PROTOCOL_VERSION)) && self.build.as_deref() == Some(build)
    }
}

/// The command name of a client frame whose request did not decode.
#[derive(Debug, Clone, Deserialize)]
pub struct RequestName {
    /// The request's command.
    pub request: RequestCommand,
}

/// See [`RequestName`].
#[derive(Debug, Clone, Deserialize)]
pub struct RequestCommand {
    /// The command as sent.
    pub command: RawCommand,
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
    /// A line of the command's progress (an agent loop's step), before its reply; only to a
    /// client that asked for them.
    Progress {
        /// The line, without its newline.
        line: String,
    },
    /// The daemon is of another build (or protocol), or draining for a restart: it runs no new
    /// command and exits once the commands in flight are done. Wait and retry.
    Restart {
        /// The daemon's build id.
        build: String,
        /// At most how long the commands in flight may still take (ms).
        #[serde(default)]
        drain_ms: u64,
    },
}

impl DaemonFrame {
    /// The reply carrying `env`, rendered as the client asked.
    pub fn reply(env: &envelope::Envelope, text: bool) -> DaemonFrame {
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

/// The reply frame carrying `env` as the client asked, encoded; when it would exceed
/// [`MAX_FRAME`], the frame of a failure envelope saying so instead (same command and context), so
/// the client gets an answer rather than a dropped connection.
pub fn encode_reply(env: &envelope::Envelope, text: bool) -> std::io::Result<Vec<u8>> {
    let frame = DaemonFrame::reply(env, text);
    let body = serde_json::to_vec(&frame).map_err(std::io::Error::other)?;
    if body.len() <= MAX_FRAME {
        return encode(&frame);
    }
    let err = crate::error::CliError::ReplyTooLarge {
        bytes: body.len(),
        limit: MAX_FRAME,
    };
    let failure = crate::reply::failure(env.command(), env.context().cloned(), &err);
    encode(&DaemonFrame::reply(&failure, text))
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

pub(crate) fn decode<T: for<'de> Deserialize<'de>>(body: &[u8]) -> std::io::Result<T> {
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
    decode(&read_body_async(r).await?)
}

/// Reads one frame's body without decoding it (async).
pub async fn read_body_async(r: &mut (impl AsyncReadExt + Unpin)) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).await?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(too_big(len));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).await?;
    Ok(body)
}

/// This binary's build id: the package version plus the executable's size and mtime, so a rebuilt
/// binary never talks to a daemon of the previous build.
pub fn build_id() -> String {
    match std::env::current_exe() {
        Ok(exe) => build_id_of(&exe),
        Err(_) => format!("{}+unknown", env!("CARGO_PKG_VERSION")),
    }
}

/// The build id of the binary at `exe` (a benchmark speaking the wire to another binary's daemon).
pub fn build_id_of(exe: &std::path::Path) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let stamp = std::fs::metadata(exe)
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

    #[test]
    fn a_reply_over_the_frame_limit_becomes_a_failure_envelope() -> std::io::Result<()> {
        let huge = "\"".repeat(MAX_FRAME / 2 + 16); // escaped, twice as large in the frame
        let env = envelope::Envelope::failure(
            envelope::CommandName::BrowserEval,
            Some(envelope::Context::tab("s1", "t1")),
            envelope::ErrorInfo::new(envelope::ErrorCode::EvalFailed, huge),
        );
        for text in [false, true] {
            let bytes = encode_reply(&env, text)?;
            assert!(bytes.len() <= MAX_FRAME + 4);
            let frame: DaemonFrame = read_frame(&mut bytes.as_slice())?;
            let DaemonFrame::Reply {
                envelope,
                text: t,
                ok,
                ..
            } = frame
            else {
                panic!("not a reply");
            };
            assert!(!ok);
            let shown = t.unwrap_or(envelope);
            assert!(shown.contains("UNSUPPORTED_OPERATION"), "{shown}");
            assert!(shown.contains("larger than"), "{shown}");
            assert!(shown.contains("s1"), "the context is kept: {shown}");
        }
        Ok(())
    }
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
    fn any_other_version_reads_as_another_build() {
        let h: FrameHeader =
            decode(br#"{"v":1,"build":"x","request":{"command":"browser title"}}"#)
                .unwrap_or_default();
        assert!(!h.is_same_build("x"));
        let h: FrameHeader = decode(b"{}").unwrap_or_default();
        assert!(!h.is_same_build("x"));
        let h: FrameHeader = decode(br#"{"v":2,"build":"x","text":true}"#).unwrap_or_default();
        assert!(h.is_same_build("x") && h.text);
        // A version-1 daemon's restart answer (no drain_ms) still reads.
        let old: DaemonFrame =
            decode(br#"{"kind":"restart","build":"b"}"#).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(old, DaemonFrame::Restart { drain_ms: 0, .. }));
    }

    #[test]
    fn truncated_frame_is_an_error() {
        let bytes = encode(&serde_json::json!({"a": 1})).unwrap_or_default();
        let r: std::io::Result<serde_json::Value> = read_frame(&mut &bytes[..bytes.len() - 1]);
        assert!(r.is_err());
    }
}
