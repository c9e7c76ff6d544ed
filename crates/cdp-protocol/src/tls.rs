//! TCP or TLS streams to a browser endpoint (`wss://`, `https://` for remote/cloud browsers).
//!
//! rustls with the `ring` provider, installed explicitly in every `ClientConfig` (never a
//! process-global default). Trusted roots: the webpki-roots set plus any DER certificates the
//! caller adds ([`crate::ConnectOptions::add_root_certificate`]); there is no "accept any
//! certificate" mode. Plain `ws://`/`http://` connect over bare TCP as before.

use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// A connected byte stream: bare TCP, or TLS over TCP.
#[derive(Debug)]
pub(crate) enum Stream {
    /// `ws://` and `http://`.
    Plain(TcpStream),
    /// `wss://` and `https://` (boxed: the TLS state is large).
    Tls(Box<TlsStream<TcpStream>>),
}

/// Opens TCP to `host:port` (no brackets around IPv6) and, when `tls_roots` is given, performs
/// a TLS handshake trusting webpki-roots plus those extra DER roots. Errors are readable reasons.
pub(crate) async fn connect(
    host: &str,
    port: u16,
    tls_roots: Option<&[Vec<u8>]>,
    proxy: &crate::ProxyConfig,
) -> Result<Stream, String> {
    let tcp = match proxy.for_target(host, port, tls_roots.is_some()) {
        Some(via) => crate::proxy::tunnel(via, host, port).await?,
        None => TcpStream::connect((host, port))
            .await
            .map_err(|e| e.to_string())?,
    };
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let Some(extra_roots) = tls_roots else {
        return Ok(Stream::Plain(tcp));
    };
    let config = client_config(extra_roots)?;
    let name = ServerName::try_from(host.to_owned())
        .map_err(|e| format!("{host:?} is not a valid TLS server name: {e}"))?;
    let tls = TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| describe_handshake_error(host, port, &e))?;
    Ok(Stream::Tls(Box::new(tls)))
}

/// The certificates (DER) of a PEM text (`-----BEGIN CERTIFICATE-----` blocks), for
/// [`crate::ConnectOptions::add_root_certificate`]; none in it is an error.
pub fn pem_certificates(pem: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    use rustls::pki_types::pem::PemObject;
    let certs = CertificateDer::pem_slice_iter(pem)
        .map(|c| c.map(|c| c.to_vec()).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if certs.is_empty() {
        return Err("no PEM certificate (-----BEGIN CERTIFICATE-----) in it".into());
    }
    Ok(certs)
}

/// A client config with the ring provider, safe default protocol versions, webpki-roots and
/// `extra_roots`.
fn client_config(extra_roots: &[Vec<u8>]) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for (i, der) in extra_roots.iter().enumerate() {
        roots
            .add(CertificateDer::from(der.clone()))
            .map_err(|e| format!("extra root certificate #{i} is not usable: {e}"))?;
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup failed: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The rustls error (which names the certificate problem) plus a hint for an unknown issuer.
fn describe_handshake_error(host: &str, port: u16, e: &io::Error) -> String {
    let unknown_issuer = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        .is_some_and(|r| {
            matches!(
                r,
                rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)
            )
        });
    if unknown_issuer {
        format!(
            "TLS handshake with {host}:{port} failed: {e} (the server's certificate is not \
             trusted; for a private or self-signed endpoint add its root with \
             ConnectOptions::add_root_certificate)"
        )
    } else {
        format!("TLS handshake with {host}:{port} failed: {e}")
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
