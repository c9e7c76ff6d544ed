//! The adapter: a plain tokio-tungstenite socket as a [`cdp_protocol::Transport`], so that
//! frame-graph and a11y-snapshot run on it without cdp-protocol's own connection. Any other
//! CDP client does the same: send each call under the id [`Replies`] gives, hand every
//! received message to [`Replies::resolve`], and what it gives back to [`EventHub::dispatch`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cdp_protocol::{CdpError, EventFilter, EventHub, EventStream, Replies, Request, Transport};
use futures::future::BoxFuture;
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{self, Message};

/// One WebSocket to a browser (`webSocketDebuggerUrl`), read and written by two small tasks.
pub struct Tungstenite {
    url: String,
    out: mpsc::UnboundedSender<String>,
    replies: Arc<Replies>,
    hub: Arc<EventHub>,
    closed: Arc<AtomicBool>,
}

impl Tungstenite {
    /// Connects; the socket closes once every handle is dropped.
    pub async fn connect(url: &str) -> Result<Tungstenite, tungstenite::Error> {
        let (ws, _) = tokio_tungstenite::connect_async(url).await?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut queued) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = queued.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let (replies, hub) = (Arc::new(Replies::new()), Arc::new(EventHub::new()));
        let closed = Arc::new(AtomicBool::new(false));
        let (r, h, c) = (replies.clone(), hub.clone(), closed.clone());
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                if let Message::Text(text) = msg
                    && let Some(event) = r.resolve(text.as_str().to_owned())
                {
                    h.dispatch(&event);
                }
            }
            c.store(true, Ordering::Release);
            r.fail_all();
            h.close();
        });
        let url = url.to_owned();
        Ok(Tungstenite {
            url,
            out,
            replies,
            hub,
            closed,
        })
    }
}

impl Transport for Tungstenite {
    fn call<'a>(&'a self, request: Request<'a>) -> BoxFuture<'a, Result<String, CdpError>> {
        let reply = self.replies.register();
        let sent = self.out.send(request.to_message(reply.id()));
        Box::pin(async move {
            sent.map_err(|_| CdpError::ConnectionClosed)?;
            reply.wait().await
        })
    }

    fn events(&self, filter: EventFilter) -> EventStream {
        self.hub.subscribe(filter)
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    fn url(&self) -> &str {
        &self.url
    }
}
