//! How a session's remote endpoint is reached: its handshake headers, the extra trusted roots of
//! `--ca-file`, and the proxies of the starting command's environment (`HTTPS_PROXY`,
//! `HTTP_PROXY`, `NO_PROXY`), all kept in the record so a new daemon reconnects the same way.

use base64::Engine as _;
use cdp_protocol::{ConnectOptions, ProxyConfig};

use crate::error::{CliError, Result};
use crate::model::EnvVars;
use crate::store::{ProxyRecord, SessionRecord};

/// The connect options of a recorded session.
pub(crate) fn options(rec: &SessionRecord) -> ConnectOptions {
    let mut o = ConnectOptions::default().headers(rec.headers.clone());
    for c in &rec.ca_certs {
        // Written by us from a parsed PEM; one that does not decode is skipped (the TLS
        // handshake then names the unknown issuer).
        if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(c) {
            o = o.add_root_certificate(der);
        }
    }
    if let Some(p) = &rec.proxy {
        o.proxy = ProxyConfig {
            http: p.http.clone(),
            https: p.https.clone(),
            no_proxy: p.no_proxy.clone(),
        };
    }
    o
}

/// The proxy settings of the caller's environment, as a record keeps them (None: no proxy).
pub(crate) fn proxy_of(env: &EnvVars) -> Option<ProxyRecord> {
    let c = ProxyConfig::from_vars(|k| env.get(k).map(str::to_string));
    if c.is_empty() {
        return None;
    }
    Some(ProxyRecord {
        http: c.http,
        https: c.https,
        no_proxy: c.no_proxy,
    })
}

/// The certificates of `--ca-file` (PEM), base64 of DER as the record keeps them.
pub(crate) async fn read_ca_file(path: &std::path::Path) -> Result<Vec<String>> {
    let shown = path.display().to_string();
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| CliError::InvalidArgument(format!("--ca-file {shown}: {e}")))?;
    let certs = cdp_protocol::pem_certificates(&bytes)
        .map_err(|e| CliError::InvalidArgument(format!("--ca-file {shown}: {e}")))?;
    Ok(certs
        .iter()
        .map(|d| base64::engine::general_purpose::STANDARD.encode(d))
        .collect())
}
