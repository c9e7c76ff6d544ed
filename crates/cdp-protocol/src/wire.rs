//! The byte stream under the WebSocket, cut at frame boundaries.
//!
//! tungstenite reads a frame into one buffer that it reserves for the whole frame and then keeps
//! (and reuses) for the life of the connection: one 20 MiB accessibility tree and the connection
//! holds 20-40 MiB for good. [`FrameBoundary`] hands tungstenite no byte past the end of the frame
//! being read, so right after a message tungstenite has nothing buffered and the socket task can
//! rebuild the `WebSocketStream` around the same stream, dropping that buffer (see
//! `connection::run_socket`). It only limits how much each read returns; it never drops, adds or
//! reorders a byte, so if its bookkeeping were ever wrong, only the rebuild is skipped.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

/// The end of the HTTP response to the opening handshake.
const END_OF_HEADERS: &[u8] = b"\r\n\r\n";

#[derive(Debug)]
enum State {
    /// The HTTP handshake response: reads stop at its end so that tungstenite's handshake reads
    /// nothing past it; `matched` bytes of `\r\n\r\n` seen.
    Handshake { matched: usize },
    /// A frame header: `have` of its bytes seen so far.
    Header { bytes: [u8; 14], have: usize },
    /// A frame payload: `left` bytes to go.
    Payload { left: u64 },
}

/// A stream wrapper that never lets one read cross a WebSocket frame boundary.
#[derive(Debug)]
pub(crate) struct FrameBoundary<S> {
    inner: S,
    state: State,
    /// Payload length and FIN bit of the last frame whose header was read.
    last_frame: Option<(u64, bool)>,
}

impl<S> FrameBoundary<S> {
    /// Wraps `inner` before the opening handshake.
    pub(crate) fn new(inner: S) -> Self {
        FrameBoundary {
            inner,
            state: State::Handshake { matched: 0 },
            last_frame: None,
        }
    }

    /// Whether every byte read so far belongs to complete frames and the last of them was a
    /// final frame of `len` payload bytes: then a reader that just returned a `len`-byte message
    /// has nothing left buffered.
    pub(crate) fn at_end_of_message(&self, len: usize) -> bool {
        matches!(self.state, State::Header { have: 0, .. })
            && self.last_frame == Some((len as u64, true))
    }

    /// How many of the `available` bytes this read may return (at least 1 if any).
    fn allowed(state: &State, available: &[u8]) -> usize {
        match state {
            State::Handshake { matched } => {
                let mut m = *matched;
                for (i, &b) in available.iter().enumerate() {
                    m = next_match(m, b);
                    if m == END_OF_HEADERS.len() {
                        return i + 1;
                    }
                }
                available.len()
            }
            State::Header { bytes, have } => header_len(&bytes[..*have]) - have,
            State::Payload { left } => usize::try_from(*left).unwrap_or(usize::MAX),
        }
    }

    /// Advances the bookkeeping over `data`, which `allowed` bounded.
    fn consumed(&mut self, data: &[u8]) {
        match &mut self.state {
            State::Handshake { matched } => {
                for &b in data {
                    *matched = next_match(*matched, b);
                    if *matched == END_OF_HEADERS.len() {
                        self.state = State::Header {
                            bytes: [0; 14],
                            have: 0,
                        };
                        return;
                    }
                }
            }
            State::Header { bytes, have } => {
                bytes[*have..*have + data.len()].copy_from_slice(data);
                *have += data.len();
                let header = &bytes[..*have];
                if *have == header_len(header) {
                    let (len, fin) = payload_len(header);
                    self.last_frame = Some((len, fin));
                    self.state = if len == 0 {
                        State::Header {
                            bytes: [0; 14],
                            have: 0,
                        }
                    } else {
                        State::Payload { left: len }
                    };
                }
            }
            State::Payload { left } => {
                *left = left.saturating_sub(data.len() as u64);
                if *left == 0 {
                    self.state = State::Header {
                        bytes: [0; 14],
                        have: 0,
                    };
                }
            }
        }
    }
}

/// How much of `\r\n\r\n` has been seen after `b`, given `matched` before it.
fn next_match(matched: usize, b: u8) -> usize {
    if b == END_OF_HEADERS[matched] {
        matched + 1
    } else if b == END_OF_HEADERS[0] {
        1
    } else {
        0
    }
}

/// The length of a frame header given its first bytes (2 until the second byte is known).
fn header_len(seen: &[u8]) -> usize {
    let Some(&second) = seen.get(1) else {
        return 2;
    };
    let ext = match second & 0x7f {
        126 => 2,
        127 => 8,
        _ => 0,
    };
    let mask = if second & 0x80 != 0 { 4 } else { 0 };
    2 + ext + mask
}

/// Payload length and FIN bit of a complete frame header.
fn payload_len(header: &[u8]) -> (u64, bool) {
    let fin = header.first().is_some_and(|b| b & 0x80 != 0);
    let short = header.get(1).map_or(0, |b| b & 0x7f);
    let len = match short {
        126 => header
            .get(2..4)
            .map_or(0, |b| u64::from(u16::from_be_bytes([b[0], b[1]]))),
        127 => header.get(2..10).map_or(0, |b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_be_bytes(a)
        }),
        n => u64::from(n),
    };
    (len, fin)
}

impl<S: AsyncBufRead + Unpin> AsyncRead for FrameBoundary<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let available = ready!(Pin::new(&mut this.inner).poll_fill_buf(cx))?;
        let n = Self::allowed(&this.state, available)
            .min(available.len())
            .min(buf.remaining());
        let start = buf.filled().len();
        buf.put_slice(&available[..n]);
        this.consumed(&buf.filled()[start..]);
        Pin::new(&mut this.inner).consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for FrameBoundary<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn frame(fin: bool, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![if fin { 0x81 } else { 0x01 }];
        match payload.len() {
            n if n < 126 => f.push(n as u8),
            n if n <= 0xffff => {
                f.push(126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                f.push(127);
                f.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(payload);
        f
    }

    #[tokio::test]
    async fn reads_stop_at_handshake_end_and_frame_boundaries() {
        let big = vec![b'x'; 70_000];
        let mut wire = b"HTTP/1.1 101 Switching\r\nA: b\r\n\r\n".to_vec();
        let frames = [
            frame(true, b"hello"),
            frame(true, &[b'y'; 300]),
            frame(false, b"ab"),
            frame(true, b"cd"),
            frame(true, &big),
            frame(true, b""),
        ];
        for f in &frames {
            wire.extend_from_slice(f);
        }
        let mut s = FrameBoundary::new(tokio::io::BufReader::new(&wire[..]));
        let mut head = Vec::new();
        let mut b = [0u8; 1024];
        while !head.ends_with(b"\r\n\r\n") {
            let n = s.read(&mut b).await.expect("read");
            head.extend_from_slice(&b[..n]);
        }
        assert_eq!(
            head, b"HTTP/1.1 101 Switching\r\nA: b\r\n\r\n",
            "no byte past the handshake"
        );
        let mut chunk = vec![0u8; 200_000];
        for (f, want) in frames.iter().zip([5usize, 300, 2, 2, 70_000, 0]) {
            // Read the whole frame with reads as large as allowed; none may cross its end.
            let mut got = 0;
            while got < f.len() {
                let n = s.read(&mut chunk).await.expect("read");
                assert!(n > 0 && got + n <= f.len(), "read crossed a frame boundary");
                got += n;
            }
            assert!(s.at_end_of_message(want) == (f[0] & 0x80 != 0));
        }
        assert_eq!(s.read(&mut chunk).await.expect("eof"), 0);
    }
}
