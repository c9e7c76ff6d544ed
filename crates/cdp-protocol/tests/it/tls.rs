//! TLS endpoints (`wss://`, `https://`): a TLS-terminating proxy with a self-signed "localhost"
//! certificate made at test time, in front of the fake peer and of a real Chromium.

use crate::fake_peer::{FakePeer, echo_all};
use cdp_protocol::testing::{chromium_available, launch_test_browser};
use cdp_protocol::{CdpError, ConnectOptions, Connection, browser, connect, connect_with};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Bound on every connect attempt in these tests: a failure must come back, not hang.
const BOUND: Duration = Duration::from_secs(10);

/// A self-signed certificate for "localhost": (certificate DER, PKCS#8 key DER).
fn localhost_cert() -> (Vec<u8>, Vec<u8>) {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    (ck.cert.der().to_vec(), ck.signing_key.serialize_der())
}

/// A TLS acceptor on 127.0.0.1 that forwards each connection's bytes to a plain backend port,
/// records each request head it sees, and (if `version_body` is set) answers
/// `GET /json/version` itself with that body (`PORT` replaced by its own port).
struct TlsProxy {
    port: u16,
    heads: Arc<Mutex<Vec<String>>>,
}

impl TlsProxy {
    async fn start(
        cert: &(Vec<u8>, Vec<u8>),
        backend_port: u16,
        version_body: Option<&str>,
    ) -> TlsProxy {
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.1.clone()));
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(cert.0.clone())], key)
        .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let version_body = version_body.map(|b| b.replace("PORT", &port.to_string()));
        let heads: Arc<Mutex<Vec<String>>> = Arc::default();
        let heads2 = heads.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let heads = heads2.clone();
                let version_body = version_body.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match tls.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&buf).into_owned();
                    heads.lock().unwrap().push(head.clone());
                    if let Some(body) =
                        version_body.filter(|_| head.starts_with("GET /json/version "))
                    {
                        let answer = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        );
                        let _ = tls.write_all(answer.as_bytes()).await;
                        let _ = tls.shutdown().await;
                        return;
                    }
                    let Ok(mut backend) = TcpStream::connect(("127.0.0.1", backend_port)).await
                    else {
                        return;
                    };
                    if backend.write_all(&buf).await.is_err() {
                        return;
                    }
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut backend).await;
                });
            }
        });
        TlsProxy { port, heads }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

fn port_of(url: &str) -> u16 {
    url::Url::parse(url).unwrap().port().unwrap()
}

fn has_header(head: &str, name: &str, value: &str) -> bool {
    head.lines().any(|l| {
        l.split_once(':')
            .is_some_and(|(k, v)| k.trim().eq_ignore_ascii_case(name) && v.trim() == value)
    })
}

#[tokio::test]
async fn wss_call_round_trips_with_extra_header_and_extra_root() {
    let cert = localhost_cert();
    let mut peer = FakePeer::start(echo_all()).await;
    let proxy = TlsProxy::start(&cert, port_of(&peer.url), None).await;
    let url = format!("wss://localhost:{}/devtools/browser/fake", proxy.port);
    let options = ConnectOptions::default()
        .header("Authorization", "Bearer cloud-token")
        .add_root_certificate(cert.0.clone());
    let conn = tokio::time::timeout(BOUND, Connection::connect(&url, options))
        .await
        .expect("wss connect is bounded")
        .expect("wss connect");
    let r = conn
        .browser()
        .call("Test.echo", json!({"n": 7}))
        .await
        .expect("call over wss");
    assert_eq!(r["params"]["n"], json!(7));
    assert_eq!(peer.next_call().await["method"], json!("Test.echo"));
    let heads = proxy.heads();
    assert_eq!(heads.len(), 1, "{heads:?}");
    assert!(
        heads[0].starts_with("GET /devtools/browser/fake "),
        "{}",
        heads[0]
    );
    assert!(
        has_header(&heads[0], "authorization", "Bearer cloud-token"),
        "{}",
        heads[0]
    );
}

#[tokio::test]
async fn https_endpoint_resolves_json_version_then_connects_over_wss() {
    let cert = localhost_cert();
    let mut peer = FakePeer::start(echo_all()).await;
    let body = r#"{"Browser":"Fake/1.0","webSocketDebuggerUrl":"wss://localhost:PORT/devtools/browser/fake"}"#;
    let proxy = TlsProxy::start(&cert, port_of(&peer.url), Some(body)).await;
    let endpoint = format!("https://localhost:{}", proxy.port);
    let options = ConnectOptions::default()
        .header("X-Api-Key", "k1")
        .add_root_certificate(cert.0.clone());
    let (conn, ws_url) = tokio::time::timeout(BOUND, connect_with(&endpoint, options))
        .await
        .expect("https connect is bounded")
        .expect("https connect");
    assert_eq!(
        ws_url,
        format!("wss://localhost:{}/devtools/browser/fake", proxy.port)
    );
    let r = conn
        .browser()
        .call("Test.echo", json!({"n": 1}))
        .await
        .unwrap();
    assert_eq!(r["params"]["n"], json!(1));
    assert_eq!(peer.next_call().await["method"], json!("Test.echo"));
    let heads = proxy.heads();
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(heads[0].starts_with("GET /json/version "), "{}", heads[0]);
    assert!(
        heads[1].starts_with("GET /devtools/browser/fake "),
        "{}",
        heads[1]
    );
    for head in &heads {
        assert!(has_header(head, "x-api-key", "k1"), "{head}");
    }
}

#[tokio::test]
async fn https_endpoint_reporting_loopback_ws_url_is_reached_over_wss() {
    // A browser behind a TLS-terminating proxy reports its own plain loopback URL.
    let cert = localhost_cert();
    let mut peer = FakePeer::start(echo_all()).await;
    let body = r#"{"webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/browser/fake"}"#;
    let proxy = TlsProxy::start(&cert, port_of(&peer.url), Some(body)).await;
    let endpoint = format!("https://localhost:{}", proxy.port);
    let options = ConnectOptions::default().add_root_certificate(cert.0.clone());
    let (conn, ws_url) = tokio::time::timeout(BOUND, connect_with(&endpoint, options))
        .await
        .expect("bounded")
        .expect("https connect");
    assert_eq!(
        ws_url,
        format!("wss://localhost:{}/devtools/browser/fake", proxy.port)
    );
    conn.browser().call("Test.echo", json!({})).await.unwrap();
    peer.next_call().await;
}

fn assert_certificate_error(result: Result<impl std::fmt::Debug, CdpError>, problem: &str) {
    match result {
        Err(CdpError::Connect { reason, .. }) => {
            assert!(reason.contains("certificate"), "{reason}");
            assert!(reason.contains(problem), "{reason}");
        }
        other => panic!("expected a certificate error, got {other:?}"),
    }
}

#[tokio::test]
async fn untrusted_certificate_fails_clearly_and_promptly() {
    let cert = localhost_cert();
    let peer = FakePeer::start(echo_all()).await;
    let body = r#"{"webSocketDebuggerUrl":"wss://localhost:PORT/devtools/browser/fake"}"#;
    let proxy = TlsProxy::start(&cert, port_of(&peer.url), Some(body)).await;

    let url = format!("wss://localhost:{}/devtools/browser/fake", proxy.port);
    let r = tokio::time::timeout(BOUND, Connection::connect(&url, ConnectOptions::default()))
        .await
        .expect("an untrusted wss endpoint fails within the bound");
    assert_certificate_error(r, "UnknownIssuer");

    let endpoint = format!("https://localhost:{}", proxy.port);
    let r = tokio::time::timeout(BOUND, connect(&endpoint, &[]))
        .await
        .expect("an untrusted https endpoint fails within the bound");
    assert_certificate_error(r, "UnknownIssuer");
}

#[tokio::test]
async fn certificate_for_another_name_is_rejected() {
    // The certificate names "localhost"; reaching it as 127.0.0.1 must fail even when trusted.
    let cert = localhost_cert();
    let peer = FakePeer::start(echo_all()).await;
    let proxy = TlsProxy::start(&cert, port_of(&peer.url), None).await;
    let url = format!("wss://127.0.0.1:{}/devtools/browser/fake", proxy.port);
    let options = ConnectOptions::default().add_root_certificate(cert.0.clone());
    let r = tokio::time::timeout(BOUND, Connection::connect(&url, options))
        .await
        .expect("bounded");
    assert_certificate_error(r, "not valid for name");
}

#[tokio::test]
async fn garbage_extra_root_is_a_connect_error() {
    let options = ConnectOptions::default().add_root_certificate(b"not a certificate".to_vec());
    // Nothing needs to listen: the bad root is reported before or after TCP, never a panic.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let url = format!("wss://localhost:{port}/devtools/browser/x");
    let r = tokio::time::timeout(BOUND, Connection::connect(&url, options))
        .await
        .expect("bounded");
    match r {
        Err(CdpError::Connect { reason, .. }) => {
            assert!(reason.contains("root certificate"), "{reason}")
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
}

#[tokio::test]
async fn real_chromium_over_https_and_wss_through_tls_proxy() {
    assert!(chromium_available(), "Chromium is required for this test");
    let browser_proc = launch_test_browser().await;
    let cert = localhost_cert();
    let proxy = TlsProxy::start(&cert, port_of(browser_proc.ws_url()), None).await;
    let endpoint = format!("https://localhost:{}", proxy.port);
    let options = ConnectOptions::default().add_root_certificate(cert.0.clone());
    let result = tokio::time::timeout(BOUND, connect_with(&endpoint, options)).await;
    let outcome = match result {
        Ok(Ok((conn, ws_url))) => {
            let v = conn.browser().send(&browser::GetVersion).await;
            Ok((ws_url, v))
        }
        Ok(Err(e)) => Err(format!("{e}")),
        Err(_) => Err("connect timed out".to_owned()),
    };
    let _ = browser_proc.close().await;
    let (ws_url, version) = outcome.expect("connect to Chromium over TLS");
    assert!(
        ws_url.starts_with(&format!("wss://localhost:{}/devtools/browser/", proxy.port)),
        "{ws_url}"
    );
    let version = version.expect("Browser.getVersion over wss");
    assert!(!version.protocol_version.is_empty());
    let heads = proxy.heads();
    assert!(
        heads.iter().any(|h| h.starts_with("GET /json/version ")),
        "{heads:?}"
    );
}
