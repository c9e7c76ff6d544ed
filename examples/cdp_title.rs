//! The bottom layer alone (cdp-protocol): launch Chromium, open a bundled page served on 127.0.0.1, print its
//! title, close the browser cleanly.
//!
//! Run with `cargo run --release --example cdp_title`.

use cdp_protocol::{Browser, LaunchOptions, page, runtime, target};
use std::error::Error;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const PAGE: &str = include_str!("pages/demo.html");

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let url = serve_page().await?;
    let browser = Browser::launch(LaunchOptions::default()).await?;
    let result = open_and_print_title(&browser, &url).await;
    // Close even when the page part failed, then report the first error.
    let closed = browser.close().await;
    result?;
    closed?;
    Ok(())
}

async fn open_and_print_title(browser: &Browser, url: &str) -> Result<(), Box<dyn Error>> {
    let root = browser.connection().browser();
    let version = root.send(&cdp_protocol::browser::GetVersion).await?;
    println!("browser: {}", version.product);

    let created = root
        .send(&target::CreateTarget {
            url: "about:blank".into(),
            ..Default::default()
        })
        .await?;
    let tab = root.attach_to_target(&created.target_id).await?;
    // Subscribe before enabling the domain so the load event cannot be missed.
    let mut loads = tab.subscribe::<page::LoadEventFired>();
    tab.send(&page::Enable).await?;
    let nav = tab
        .send(&page::Navigate {
            url: url.to_owned(),
            ..Default::default()
        })
        .await?;
    if let Some(err) = nav.error_text {
        return Err(format!("navigation to {url} failed: {err}").into());
    }
    tokio::time::timeout(Duration::from_secs(10), loads.recv())
        .await
        .map_err(|_| "page did not finish loading within 10 s")?;

    let title = tab
        .send(&runtime::Evaluate {
            expression: "document.title".into(),
            return_by_value: Some(true),
            ..Default::default()
        })
        .await?;
    let title = title
        .result
        .value
        .as_ref()
        .and_then(|v| v.as_str())
        .unwrap_or("(no title)")
        .to_owned();
    println!("opened: {url}");
    println!("title: {title}");
    Ok(())
}

/// Serves the bundled page on 127.0.0.1 (any path) and returns its URL.
async fn serve_page() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                // One read is enough for a browser's GET; the page is the same for every path.
                let read =
                    tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await;
                if !matches!(read, Ok(Ok(n)) if n > 0) {
                    return;
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    Ok(format!("http://127.0.0.1:{port}/demo.html"))
}
