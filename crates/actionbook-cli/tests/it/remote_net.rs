//! The network between us and a remote browser: HTTP CONNECT proxies from the starting command's
//! environment (and NO_PROXY), and a wss:// / https:// endpoint signed by a private CA
//! (`--ca-file`); both kept with the session, so a new daemon reconnects the same way.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::need_chromium;
use crate::remote::{RemoteBrowser, record};
use crate::support::{Env, on, site};

/// A CONNECT proxy on 127.0.0.1 that counts the tunnels it opened.
struct ConnectProxy {
    port: u16,
    tunnels: Arc<AtomicUsize>,
}

impl ConnectProxy {
    fn start() -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let tunnels = Arc::new(AtomicUsize::new(0));
        let count = tunnels.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let count = count.clone();
                std::thread::spawn(move || tunnel(client, &count));
            }
        });
        ConnectProxy { port, tunnels }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn tunnels(&self) -> usize {
        self.tunnels.load(Ordering::SeqCst)
    }
}

/// Serves one CONNECT: reads the head, opens the target, answers 200, copies both ways.
fn tunnel(mut client: TcpStream, count: &AtomicUsize) {
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match client.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut words = head.split_whitespace();
    let (Some("CONNECT"), Some(target)) = (words.next(), words.next()) else {
        let _ = client.write_all(b"HTTP/1.1 405 Only CONNECT\r\n\r\n");
        return;
    };
    let Ok(server) = TcpStream::connect(target) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n");
        return;
    };
    count.fetch_add(1, Ordering::SeqCst);
    if client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .is_err()
    {
        return;
    }
    let (Ok(mut c2), Ok(mut s2)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let mut server = server;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut s2, &mut c2);
        let _ = c2.shutdown(std::net::Shutdown::Both);
    });
    let _ = std::io::copy(&mut client, &mut server);
    let _ = server.shutdown(std::net::Shutdown::Both);
}

/// Runs `browser <args> --json` with extra environment variables.
fn run_with(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> Value {
    let mut all = vec!["browser"];
    all.extend_from_slice(args);
    all.push("--json");
    let mut c = env.command(&all);
    for k in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
    ] {
        c.env_remove(k);
    }
    for (k, v) in vars {
        c.env(k, v);
    }
    let out = c.output().expect("run");
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

#[test]
fn cdp_endpoints_are_reached_through_the_callers_proxy_and_no_proxy_bypasses_it() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let rb = RemoteBrowser::launch(&env, "px", "about:blank");
    let proxy = ConnectProxy::start();
    let via = [("HTTP_PROXY", proxy.url())];
    let vars: Vec<(&str, &str)> = via.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let v = run_with(
        &env,
        &vars,
        &[
            "start",
            "--cdp-endpoint",
            &rb.endpoint(),
            "--set-session-id",
            "viaproxy",
            "--open-url",
            &f.url("/index.html"),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    // /json/version and the WebSocket, each through a tunnel.
    let after_start = proxy.tunnels();
    assert!(after_start >= 2, "{after_start} tunnels");
    assert_eq!(
        record(&env, "viaproxy")["proxy"]["http"],
        proxy.url(),
        "kept with the session"
    );
    let t = ["--session", "viaproxy", "--tab", "t1"];
    assert_eq!(on(&env, &t, &["title"])["data"]["value"], "Fixture Home");
    // A new daemon reconnects through the same proxy.
    env.kill_daemon();
    assert_eq!(on(&env, &t, &["title"])["data"]["value"], "Fixture Home");
    assert!(proxy.tunnels() > after_start);
    // NO_PROXY: direct.
    let before = proxy.tunnels();
    let vars = [
        ("HTTP_PROXY", proxy.url()),
        ("NO_PROXY", "localhost,127.0.0.1".into()),
    ];
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let v = run_with(
        &env,
        &vars,
        &[
            "start",
            "--cdp-endpoint",
            &rb.endpoint(),
            "--set-session-id",
            "direct",
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        proxy.tunnels(),
        before,
        "NO_PROXY host went through the proxy"
    );
    // A proxy that is not there: the start fails naming it, and no session is left.
    let gone = [("HTTP_PROXY", "http://127.0.0.1:1")];
    let v = run_with(&env, &gone, &["start", "--cdp-endpoint", &rb.endpoint()]);
    assert_eq!(v["error"]["code"], "CDP_CONNECTION_FAILED", "{v}");
    assert!(v["error"]["message"].to_string().contains("proxy"), "{v}");
}

/// A TLS front on 127.0.0.1 for a plain backend port, with a certificate for "localhost".
struct TlsFront {
    port: u16,
    _rt: tokio::runtime::Runtime,
}

impl TlsFront {
    fn start(cert_der: Vec<u8>, key_der: Vec<u8>, backend: u16) -> TlsFront {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key_der));
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(cert_der)], key)
        .expect("cert");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        rt.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let Ok(mut plain) =
                        tokio::net::TcpStream::connect(("127.0.0.1", backend)).await
                    else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
        TlsFront { port, _rt: rt }
    }
}

/// A certificate's PEM text.
fn pem_of(der: &[u8]) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect();
    format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        lines.join("\n")
    )
}

#[test]
fn a_wss_endpoint_signed_by_a_private_ca_is_trusted_with_ca_file() {
    need_chromium!();
    let env = Env::new();
    let f = site();
    let rb = RemoteBrowser::launch(&env, "tls", "about:blank");
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).expect("cert");
    let pem = env.home.with_file_name("pool-ca.pem");
    std::fs::write(&pem, pem_of(ck.cert.der())).expect("pem");
    let front = TlsFront::start(
        ck.cert.der().to_vec(),
        ck.signing_key.serialize_der(),
        rb.port,
    );
    let endpoint = format!("https://localhost:{}", front.port);
    // Not trusted without it: said so.
    let v = run_with(&env, &[], &["start", "--cdp-endpoint", &endpoint]);
    assert_eq!(v["error"]["code"], "CDP_CONNECTION_FAILED", "{v}");
    assert!(
        v["error"]["message"]
            .to_string()
            .to_lowercase()
            .contains("certificate")
            || v["error"]["message"].to_string().contains("issuer"),
        "{v}"
    );
    let pem_arg = pem.display().to_string();
    let v = run_with(
        &env,
        &[],
        &[
            "start",
            "--cdp-endpoint",
            &endpoint,
            "--ca-file",
            &pem_arg,
            "--set-session-id",
            "tls",
            "--open-url",
            &f.url("/index.html"),
        ],
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["data"]["session"]["cdp_endpoint"]
            .as_str()
            .is_some_and(|e| e.starts_with("wss://localhost:")),
        "{v}"
    );
    let t = ["--session", "tls", "--tab", "t1"];
    assert_eq!(on(&env, &t, &["title"])["data"]["value"], "Fixture Home");
    // The CA is kept with the session: a new daemon reconnects over TLS too.
    env.kill_daemon();
    assert_eq!(on(&env, &t, &["title"])["data"]["value"], "Fixture Home");
    // A file that is no PEM is the caller's mistake.
    let v = run_with(
        &env,
        &[],
        &[
            "start",
            "--cdp-endpoint",
            &endpoint,
            "--ca-file",
            "/etc/hostname",
        ],
    );
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
    let v = run_with(&env, &[], &["start", "--ca-file", &pem_arg]);
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENT", "{v}");
}
