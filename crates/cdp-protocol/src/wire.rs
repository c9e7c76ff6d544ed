//! The byte stream under the WebSocket: cut at frame boundaries, with oversized messages
//! skipped unread.
//!
//! Two jobs, both done on the frame headers before tungstenite sees a byte:
//!
//! - **Read buffers.** tungstenite reads a frame into one buffer that it reserves for the whole
//!   frame and then keeps (and reuses) for the life of the connection: one 20 MiB accessibility
//!   tree and the connection holds 20-40 MiB for good. [`FrameBoundary`] hands tungstenite no
//!   byte past the end of the frame being read, so right after a message tungstenite has nothing
//!   buffered and the socket task can rebuild the `WebSocketStream` around the same stream,
//!   dropping that buffer (see `connection::run_socket`).
//! - **Oversized messages.** A message whose frames add up to more than the limit is never
//!   buffered: its payload is read and dropped as it arrives, keeping only its first and last
//!   bytes (where Chromium writes `id`/`method` and `sessionId`), and tungstenite is handed a
//!   small replacement that ends the message instead (an empty text frame, or, when earlier
//!   fragments were already passed on, a final continuation frame completing any cut UTF-8
//!   character). The skipped message is queued as an [`Oversized`] for the socket task, which
//!   fails the call it answers or counts the event as lost. tungstenite's own limit, a little
//!   above ours, is only a backstop: the connection never dies of one large message.
//!
//! Apart from oversized messages it never drops, adds or reorders a byte.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

/// The end of the HTTP response to the opening handshake.
const END_OF_HEADERS: &[u8] = b"\r\n\r\n";
/// How many leading and trailing payload bytes of a skipped message are kept.
const KEEP: usize = 256;
/// Skipped bytes after which a read yields to the runtime (a fast peer must not pin a worker).
const SKIP_BUDGET: u64 = 4 << 20;
/// How far above our limit tungstenite's backstop limit lies (a replacement frame's bytes).
pub(crate) const BACKSTOP_SLACK: usize = 64;

/// A message that was over the limit and skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Oversized {
    /// Its payload size in bytes (all frames).
    pub size: u64,
    /// Its first payload bytes (at most 256).
    pub head: Vec<u8>,
    /// Its last payload bytes (at most 256).
    pub tail: Vec<u8>,
}

#[derive(Debug)]
enum State {
    /// The HTTP handshake response: reads stop at its end so that tungstenite's handshake reads
    /// nothing past it; `matched` bytes of `\r\n\r\n` seen.
    Handshake { matched: usize },
    /// A frame header being collected (not yet passed on): `have` of its bytes.
    Header { bytes: [u8; 14], have: usize },
    /// Bytes we pass on ourselves (a collected header or a replacement frame), then `then`
    /// payload bytes from the stream.
    Emit {
        bytes: [u8; 14],
        len: usize,
        pos: usize,
        then: u64,
    },
    /// A frame payload being passed on: `left` bytes to go.
    Payload { left: u64 },
    /// A frame payload of an oversized message being dropped: `left` bytes to go.
    Skip { left: u64, fin: bool },
}

impl State {
    fn header() -> State {
        State::Header {
            bytes: [0; 14],
            have: 0,
        }
    }
}

/// The data message being read.
#[derive(Debug, Default)]
struct Current {
    /// Payload bytes so far, over all its frames.
    size: u64,
    /// A text message (a cut one must stay valid UTF-8).
    text: bool,
    /// Its first frame was not final: a later frame may cross the limit after bytes were passed.
    fragmented: bool,
    /// Some of its bytes were passed on.
    passed: bool,
    /// Over the limit: the rest is dropped.
    skipping: bool,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// The last (up to 3) payload bytes passed on, to complete a cut UTF-8 character.
    utf8_tail: Vec<u8>,
}

impl Current {
    fn keep_head(&mut self, data: &[u8]) {
        let room = KEEP.saturating_sub(self.head.len());
        self.head.extend_from_slice(&data[..room.min(data.len())]);
    }

    fn keep_tail(&mut self, data: &[u8]) {
        if data.len() >= KEEP {
            self.tail.clear();
            self.tail.extend_from_slice(&data[data.len() - KEEP..]);
        } else {
            self.tail.extend_from_slice(data);
            let excess = self.tail.len().saturating_sub(KEEP);
            self.tail.drain(..excess);
        }
    }

    fn on_passed(&mut self, data: &[u8]) {
        if self.fragmented {
            self.keep_head(data);
            if self.text {
                self.utf8_tail
                    .extend_from_slice(&data[data.len().saturating_sub(3)..]);
                let excess = self.utf8_tail.len().saturating_sub(3);
                self.utf8_tail.drain(..excess);
            }
        }
    }
}

/// The bytes that complete a UTF-8 character cut after `tail` (the last bytes passed on), so
/// that a cut text message still decodes.
fn utf8_completion(tail: &[u8]) -> Vec<u8> {
    for back in 1..=tail.len() {
        let b = tail[tail.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        if back >= need {
            return Vec::new();
        }
        // The second byte of a few lead bytes has a narrower valid range.
        let second = match b {
            0xE0 => 0xA0,
            0xF0 => 0x90,
            _ => 0x80,
        };
        let mut out = vec![0x80; need - back];
        if back == 1 {
            out[0] = second;
        }
        return out;
    }
    Vec::new()
}

/// A stream wrapper that never lets one read cross a WebSocket frame boundary and skips
/// messages over `limit` bytes.
#[derive(Debug)]
pub(crate) struct FrameBoundary<S> {
    inner: S,
    state: State,
    /// Payload length and FIN bit of the last frame passed on.
    last_frame: Option<(u64, bool)>,
    limit: u64,
    current: Current,
    oversized: VecDeque<Oversized>,
    /// Bytes read from `inner` so far (the heartbeat's sign of life while a large message is
    /// still arriving: no whole message is heard until its last byte).
    consumed: u64,
}

impl<S> FrameBoundary<S> {
    /// Wraps `inner` before the opening handshake; messages over `limit` bytes are skipped.
    pub(crate) fn new(inner: S, limit: usize) -> Self {
        FrameBoundary {
            inner,
            state: State::Handshake { matched: 0 },
            last_frame: None,
            limit: u64::try_from(limit).unwrap_or(u64::MAX),
            current: Current::default(),
            oversized: VecDeque::new(),
            consumed: 0,
        }
    }

    /// Bytes read from the stream so far.
    pub(crate) fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Whether every byte read so far belongs to complete frames and the last of them was a
    /// final frame of `len` payload bytes: then a reader that just returned a `len`-byte message
    /// has nothing left buffered.
    pub(crate) fn at_end_of_message(&self, len: usize) -> bool {
        matches!(self.state, State::Header { have: 0, .. })
            && self.last_frame == Some((len as u64, true))
    }

    /// The oversized message whose replacement tungstenite returned last, if it was one.
    pub(crate) fn take_oversized(&mut self) -> Option<Oversized> {
        self.oversized.pop_front()
    }

    /// A complete frame header was collected: pass it on, or start skipping.
    fn begin_frame(&mut self, bytes: [u8; 14], len: usize) {
        let header = &bytes[..len];
        let fin = bytes[0] & 0x80 != 0;
        let opcode = bytes[0] & 0x0f;
        let (payload, _) = payload_len(header);
        if opcode & 0x08 == 0 {
            if opcode != 0 {
                self.current = Current {
                    size: payload,
                    text: opcode == 1,
                    fragmented: !fin,
                    ..Current::default()
                };
            } else {
                self.current.size = self.current.size.saturating_add(payload);
            }
            if self.current.size > self.limit {
                self.current.skipping = true;
            }
            if self.current.skipping {
                self.state = State::Skip { left: payload, fin };
                if payload == 0 {
                    self.end_skipped_frame(fin);
                }
                return;
            }
            self.current.passed = true;
        }
        self.last_frame = Some((payload, fin));
        self.state = State::Emit {
            bytes,
            len,
            pos: 0,
            then: payload,
        };
    }

    /// The payload of a skipped frame is gone; after the final one, hand tungstenite the
    /// replacement that ends the message.
    fn end_skipped_frame(&mut self, fin: bool) {
        if !fin {
            self.state = State::header();
            return;
        }
        let current = std::mem::take(&mut self.current);
        let mut bytes = [0u8; 14];
        let len = if current.passed {
            // Final continuation frame completing what tungstenite already holds.
            let completion = if current.text {
                utf8_completion(&current.utf8_tail)
            } else {
                Vec::new()
            };
            bytes[0] = 0x80;
            bytes[1] = completion.len() as u8;
            bytes[2..2 + completion.len()].copy_from_slice(&completion);
            2 + completion.len()
        } else {
            // An empty text message in its place.
            bytes[0] = 0x81;
            2
        };
        self.last_frame = Some(((len - 2) as u64, true));
        self.oversized.push_back(Oversized {
            size: current.size,
            head: current.head,
            tail: current.tail,
        });
        self.state = State::Emit {
            bytes,
            len,
            pos: 0,
            then: 0,
        };
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
        let start = buf.filled().len();
        let mut skipped = 0u64;
        loop {
            if buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            if let State::Emit {
                bytes,
                len,
                pos,
                then,
            } = &mut this.state
            {
                let n = (*len - *pos).min(buf.remaining());
                buf.put_slice(&bytes[*pos..*pos + n]);
                *pos += n;
                if *pos < *len {
                    return Poll::Ready(Ok(()));
                }
                if *then == 0 {
                    // A frame (maybe a whole message) ends here: return it alone, so that an
                    // `Oversized` is only ever queued in a read that starts with its replacement.
                    this.state = State::header();
                    return Poll::Ready(Ok(()));
                }
                this.state = State::Payload { left: *then };
                continue;
            }
            let available = match Pin::new(&mut this.inner).poll_fill_buf(cx) {
                Poll::Ready(Ok(a)) => a,
                // Bytes already placed in `buf` are returned first; the error or wait repeats.
                _ if buf.filled().len() > start => return Poll::Ready(Ok(())),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            if available.is_empty() {
                return Poll::Ready(Ok(())); // end of stream
            }
            match &mut this.state {
                State::Handshake { matched } => {
                    let mut n = available.len().min(buf.remaining());
                    let mut m = *matched;
                    let mut done = false;
                    for (i, &b) in available[..n].iter().enumerate() {
                        m = next_match(m, b);
                        if m == END_OF_HEADERS.len() {
                            n = i + 1;
                            done = true;
                            break;
                        }
                    }
                    buf.put_slice(&available[..n]);
                    Pin::new(&mut this.inner).consume(n);
                    this.consumed += n as u64;
                    this.state = if done {
                        State::header()
                    } else {
                        State::Handshake { matched: m }
                    };
                    return Poll::Ready(Ok(()));
                }
                State::Header { bytes, have } => {
                    let need = header_len(&bytes[..*have]) - *have;
                    let n = need.min(available.len());
                    bytes[*have..*have + n].copy_from_slice(&available[..n]);
                    *have += n;
                    Pin::new(&mut this.inner).consume(n);
                    this.consumed += n as u64;
                    let (bytes, have) = (*bytes, *have);
                    if have == header_len(&bytes[..have]) {
                        this.begin_frame(bytes, have);
                    }
                }
                State::Payload { left } => {
                    let n = usize::try_from(*left)
                        .unwrap_or(usize::MAX)
                        .min(available.len())
                        .min(buf.remaining());
                    buf.put_slice(&available[..n]);
                    this.current.on_passed(&available[..n]);
                    Pin::new(&mut this.inner).consume(n);
                    this.consumed += n as u64;
                    *left -= n as u64;
                    if *left == 0 {
                        this.state = State::header();
                    }
                    return Poll::Ready(Ok(()));
                }
                State::Skip { left, fin } => {
                    let n = usize::try_from(*left)
                        .unwrap_or(usize::MAX)
                        .min(available.len());
                    let data = &available[..n];
                    if !this.current.passed {
                        this.current.keep_head(data);
                    }
                    this.current.keep_tail(data);
                    Pin::new(&mut this.inner).consume(n);
                    this.consumed += n as u64;
                    *left -= n as u64;
                    skipped += n as u64;
                    if *left == 0 {
                        let fin = *fin;
                        this.end_skipped_frame(fin);
                    }
                    if skipped >= SKIP_BUDGET {
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                }
                State::Emit { .. } => {}
            }
        }
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
        let mut s = FrameBoundary::new(tokio::io::BufReader::new(&wire[..]), usize::MAX);
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
        assert_eq!(s.take_oversized(), None);
    }

    fn text_frame(opcode: u8, fin: bool, payload: &[u8]) -> Vec<u8> {
        let mut f = frame(fin, payload);
        f[0] = (f[0] & 0xf0) | opcode;
        f
    }

    /// Everything the wrapper passes on after the handshake, and the skipped messages.
    async fn run(limit: usize, frames: &[Vec<u8>], chunk: usize) -> (Vec<u8>, Vec<Oversized>) {
        let mut wire = b"HTTP/1.1 101 Switching\r\n\r\n".to_vec();
        for f in frames {
            wire.extend_from_slice(f);
        }
        let reader = tokio::io::BufReader::with_capacity(chunk, &wire[..]);
        let mut s = FrameBoundary::new(reader, limit);
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.expect("read");
        let head = b"HTTP/1.1 101 Switching\r\n\r\n".len();
        let mut skipped = Vec::new();
        while let Some(o) = s.take_oversized() {
            skipped.push(o);
        }
        (out.split_off(head), skipped)
    }

    #[tokio::test]
    async fn an_oversized_message_is_replaced_by_an_empty_one() {
        let big = format!(
            "{{\"id\":7,\"result\":{{\"data\":\"{}\"}}}}",
            "x".repeat(100_000)
        );
        let small = br#"{"id":8,"result":{}}"#;
        for chunk in [7, 4096, 1 << 20] {
            let frames = [
                frame(true, small),
                frame(true, big.as_bytes()),
                frame(true, small),
            ];
            let (out, skipped) = run(1000, &frames, chunk).await;
            let mut want = frame(true, small);
            want.extend_from_slice(&[0x81, 0x00]);
            want.extend_from_slice(&frame(true, small));
            assert_eq!(out, want, "chunk {chunk}");
            assert_eq!(skipped.len(), 1);
            assert_eq!(skipped[0].size, big.len() as u64);
            assert!(skipped[0].head.starts_with(br#"{"id":7,"result""#));
            assert!(skipped[0].tail.ends_with(b"xx\"}}"));
            assert_eq!(skipped[0].head.len(), KEEP);
        }
    }

    #[tokio::test]
    async fn a_fragmented_message_crossing_the_limit_is_ended_as_valid_utf8() {
        // The first fragment ends inside the three-byte character '€' (E2 82 AC).
        let mut first = br#"{"method":"A.b","params":{"s":""#.to_vec();
        first.extend_from_slice(&[0xE2, 0x82]);
        let last = br#"","sessionId":"S1"}"#;
        let frames = [
            text_frame(1, false, &first),
            text_frame(0, false, &vec![b'y'; 5000]),
            vec![0x89, 0x00], // a ping passes through
            text_frame(0, true, last),
            frame(true, b"{}"),
        ];
        let (out, skipped) = run(1000, &frames, 64).await;
        let mut want = text_frame(1, false, &first);
        want.extend_from_slice(&[0x89, 0x00, 0x80, 0x01, 0x80]); // E2 82 80 = U+2080
        want.extend_from_slice(&frame(true, b"{}"));
        assert_eq!(out, want);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].size, (first.len() + 5000 + last.len()) as u64);
        assert!(skipped[0].head.starts_with(br#"{"method":"A.b""#));
        assert!(skipped[0].tail.ends_with(br#""sessionId":"S1"}"#));
    }

    #[test]
    fn utf8_completions_make_any_cut_valid() {
        for text in [
            "a€b",
            "x\u{10348}y",
            "\u{800}",
            "\u{D7FF}",
            "\u{E000}",
            "\u{100000}",
            "é",
        ] {
            let bytes = text.as_bytes();
            for cut in 0..=bytes.len() {
                let mut prefix = bytes[..cut].to_vec();
                let tail = prefix[cut.saturating_sub(3)..].to_vec();
                prefix.extend(utf8_completion(&tail));
                assert!(
                    std::str::from_utf8(&prefix).is_ok(),
                    "{text:?} cut at {cut}"
                );
            }
        }
    }
}
