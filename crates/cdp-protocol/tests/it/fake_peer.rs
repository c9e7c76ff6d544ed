//! A fake CDP peer: a tokio-tungstenite server that hands every call to a handler.

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// What the test can make the peer do.
pub enum PeerCmd {
    /// Send this text frame.
    Send(String),
    /// Send these raw frames (opcode, fin, payload): fragmented messages.
    Frames(Vec<(u8, bool, Vec<u8>)>),
    /// Drop the socket without a close handshake.
    Drop,
}

/// A running fake peer (one connection).
pub struct FakePeer {
    pub url: String,
    pub out: mpsc::UnboundedSender<PeerCmd>,
    pub calls: mpsc::UnboundedReceiver<Value>,
}

impl FakePeer {
    /// Starts a peer; `handler` gets each call and returns the frames to send back at once.
    pub async fn start<H>(mut handler: H) -> FakePeer
    where
        H: FnMut(&Value) -> Vec<String> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (out, mut out_rx) = mpsc::unbounded_channel::<PeerCmd>();
        let (calls_tx, calls) = mpsc::unbounded_channel::<Value>();
        tokio::spawn(async move {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else {
                return;
            };
            loop {
                tokio::select! {
                    cmd = out_rx.recv() => match cmd {
                        Some(PeerCmd::Send(text)) => {
                            if ws.send(Message::Text(text.into())).await.is_err() { return; }
                        }
                        Some(PeerCmd::Frames(frames)) => {
                            use tokio_tungstenite::tungstenite::protocol::frame::{Frame, coding::{Data, OpCode}};
                            for (opcode, fin, payload) in frames {
                                let op = match opcode { 0 => Data::Continue, 1 => Data::Text, _ => Data::Binary };
                                let frame = Frame::message(payload, OpCode::Data(op), fin);
                                if ws.feed(Message::Frame(frame)).await.is_err() { return; }
                            }
                            if ws.flush().await.is_err() { return; }
                        }
                        Some(PeerCmd::Drop) | None => return,
                    },
                    msg = ws.next() => match msg {
                        Some(Ok(Message::Text(t))) => {
                            let Ok(v) = serde_json::from_str::<Value>(t.as_str()) else { continue };
                            let replies = handler(&v);
                            let _ = calls_tx.send(v);
                            for r in replies {
                                if ws.feed(Message::Text(r.into())).await.is_err() { return; }
                            }
                            if ws.flush().await.is_err() { return; }
                        }
                        Some(Ok(_)) => {}
                        _ => return,
                    },
                }
            }
        });
        FakePeer {
            url: format!("ws://127.0.0.1:{port}/devtools/browser/fake"),
            out,
            calls,
        }
    }

    /// Sends a raw frame.
    pub fn send(&self, text: impl Into<String>) {
        let _ = self.out.send(PeerCmd::Send(text.into()));
    }

    /// Sends an event.
    pub fn event(&self, method: &str, session: Option<&str>, params: Value) {
        let mut v = json!({"method": method, "params": params});
        if let Some(s) = session {
            v["sessionId"] = json!(s);
        }
        self.send(v.to_string());
    }

    /// Sends raw frames.
    pub fn frames(&self, frames: Vec<(u8, bool, Vec<u8>)>) {
        let _ = self.out.send(PeerCmd::Frames(frames));
    }

    /// Drops the socket.
    pub fn drop_socket(&self) {
        let _ = self.out.send(PeerCmd::Drop);
    }

    /// Waits for the next call the peer received.
    pub async fn next_call(&mut self) -> Value {
        tokio::time::timeout(std::time::Duration::from_secs(5), self.calls.recv())
            .await
            .expect("peer saw no call within 5 s")
            .expect("peer gone")
    }
}

/// A reply echoing the call's params (and sessionId) as the result.
pub fn echo(call: &Value) -> String {
    let mut v = json!({"id": call["id"], "result": {"params": call["params"], "method": call["method"], "session": call.get("sessionId")}});
    if let Some(s) = call.get("sessionId") {
        v["sessionId"] = s.clone();
    }
    v.to_string()
}

/// A handler that echoes every call.
pub fn echo_all() -> impl FnMut(&Value) -> Vec<String> + Send + 'static {
    |call| vec![echo(call)]
}
