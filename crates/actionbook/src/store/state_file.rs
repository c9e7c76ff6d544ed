//! Saved auth state files (`browser storage-state save|load`, `browser start --state`): the
//! format, read and written exactly as Playwright's `storageState` JSON so a file moves between
//! Playwright and us, and its encryption at rest.
//!
//! - The JSON is `{cookies: [{name, value, domain, path, expires, httpOnly, secure, sameSite}],
//!   origins: [{origin, localStorage: [{name, value}]}]}`, Playwright's field names and types
//!   (`expires` is seconds since the epoch, `-1` for a session cookie). Our extra, per origin,
//!   is `sessionStorage` (same shape as `localStorage`): Playwright ignores fields it does not
//!   know, and we ignore the ones we do not (its `indexedDB`). Also ours, at the top,
//!   `partitionedOrigins`: the storage of frames embedded in another site's pages, which the
//!   browser keeps apart per embedding site (`[{origin, topLevelSite, topLevelOrigin,
//!   localStorage, sessionStorage}]`).
//! - With a key ([`StateKey`], from `ACTIONBOOK_STATE_KEY`) the file is [`MAGIC`], a random
//!   96-bit nonce, then the JSON sealed with AES-256-GCM (the header is authenticated too). The
//!   header tells an encrypted file from a plain one, so a file without a key is never taken
//!   for broken JSON and a wrong key is never taken for a corrupted file silently: both are
//!   errors that say so.

use std::path::Path;

use aes_gcm::aead::{Aead, KeyInit, OsRng, Payload};
use aes_gcm::{AeadCore, Aes256Gcm, Nonce};
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

/// The environment variable that holds the key.
pub use crate::model::STATE_KEY_ENV;

/// The first bytes of an encrypted state file: ours, encrypted, and with what.
pub const MAGIC: &[u8] = b"ACTIONBOOK-STATE-AES256GCM-1\n";

/// The nonce length of AES-GCM.
const NONCE_LEN: usize = 12;
/// The tag length of AES-GCM.
const TAG_LEN: usize = 16;

/// A saved auth state: Playwright's `storageState`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StorageState {
    /// Every cookie of the browser context.
    #[serde(default)]
    pub cookies: Vec<StateCookie>,
    /// The web storage of each origin (as a page of its own: first-party).
    #[serde(default)]
    pub origins: Vec<StateOrigin>,
    /// The web storage of frames embedded in pages of another site, which the browser keeps
    /// apart for each site they are embedded in (ours; Playwright ignores it).
    #[serde(
        default,
        rename = "partitionedOrigins",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub partitioned_origins: Vec<PartitionedOrigin>,
}

/// The storage of an origin's frames embedded in pages of another site.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionedOrigin {
    /// The frames' origin.
    pub origin: String,
    /// The site of the pages embedding them (`scheme://registrable-domain`, or the host for an
    /// IP address or `localhost`): the browser's partition.
    pub top_level_site: String,
    /// An origin of that site whose page embedded them (visited to write the storage back).
    pub top_level_origin: String,
    /// Their local storage.
    #[serde(default)]
    pub local_storage: Vec<NameValue>,
    /// Their session storage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_storage: Vec<NameValue>,
}

/// One cookie, in Playwright's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateCookie {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
    /// Domain: with a leading dot for a domain cookie, without for a host-only one.
    pub domain: String,
    /// Path.
    #[serde(default = "root_path")]
    pub path: String,
    /// Expiry in seconds since the epoch; `-1` for a session cookie.
    #[serde(default = "session_expiry")]
    pub expires: f64,
    /// HttpOnly.
    #[serde(default)]
    pub http_only: bool,
    /// Secure.
    #[serde(default)]
    pub secure: bool,
    /// `Strict`, `Lax` or `None`.
    #[serde(default = "lax")]
    pub same_site: String,
}

fn root_path() -> String {
    "/".into()
}

fn session_expiry() -> f64 {
    -1.0
}

fn lax() -> String {
    "Lax".into()
}

/// One origin's storage.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateOrigin {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// Its local storage.
    #[serde(default)]
    pub local_storage: Vec<NameValue>,
    /// Its session storage (ours; Playwright ignores it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_storage: Vec<NameValue>,
}

/// A storage key and value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameValue {
    /// Key.
    pub name: String,
    /// Value.
    pub value: String,
}

/// An AES-256 key for state files.
#[derive(Clone)]
pub struct StateKey([u8; 32]);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// The key in `raw` (the variable's value): 64 hex characters, or the base64 (standard or
    /// URL-safe, padded or not) of 32 bytes. An error names the variable and the accepted
    /// forms, never the value.
    pub fn parse(raw: &str) -> Result<StateKey> {
        let raw = raw.trim();
        let bad = |why: String| CliError::StateKeyInvalid {
            variable: STATE_KEY_ENV,
            reason: why,
        };
        if raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut key = [0u8; 32];
            for (i, pair) in raw.as_bytes().chunks(2).enumerate() {
                let text = std::str::from_utf8(pair).map_err(|_| bad("not hex".into()))?;
                key[i] = u8::from_str_radix(text, 16).map_err(|_| bad("not hex".into()))?;
            }
            return Ok(StateKey(key));
        }
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let decoded = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
            .iter()
            .find_map(|e| e.decode(raw).ok());
        match decoded {
            Some(bytes) => {
                let len = bytes.len();
                let key: [u8; 32] = bytes.try_into().map_err(|_| {
                    bad(format!(
                        "it decodes as base64 to {len} bytes, and an AES-256 key is 32"
                    ))
                })?;
                Ok(StateKey(key))
            }
            None => Err(bad(format!(
                "it is {} characters that are neither 64 hex characters nor base64",
                raw.chars().count()
            ))),
        }
    }

    /// The key of the caller's environment value, if one is set.
    pub fn from_env(value: Option<&str>) -> Result<Option<StateKey>> {
        value
            .filter(|v| !v.trim().is_empty())
            .map(StateKey::parse)
            .transpose()
    }
}

/// The bytes of a state file: the pretty JSON, sealed when there is a key.
pub fn encode(state: &StorageState, key: Option<&StateKey>) -> Result<Vec<u8>> {
    let json = serde_json::to_vec_pretty(state)
        .map_err(|e| CliError::internal(format!("encoding the state: {e}")))?;
    let Some(key) = key else { return Ok(json) };
    let cipher = Aes256Gcm::new((&key.0).into());
    let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
    let sealed = cipher
        .encrypt(
            &nonce,
            Payload {
                msg: &json,
                aad: MAGIC,
            },
        )
        .map_err(|_| CliError::internal("AES-GCM refused to encrypt the state"))?;
    let mut out = Vec::with_capacity(MAGIC.len() + NONCE_LEN + sealed.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// Whether `bytes` are an encrypted state file of ours.
pub fn is_encrypted(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// The state in a file's bytes (`path` names it in errors): opened with `key` when encrypted.
pub fn decode(path: &Path, bytes: &[u8], key: Option<&StateKey>) -> Result<StorageState> {
    let json: std::borrow::Cow<'_, [u8]> = if is_encrypted(bytes) {
        let key = key.ok_or_else(|| CliError::StateFileNeedsKey {
            path: path.to_path_buf(),
        })?;
        let rest = &bytes[MAGIC.len()..];
        if rest.len() < NONCE_LEN + TAG_LEN {
            return Err(CliError::StateFileUnreadable {
                path: path.to_path_buf(),
                reason: "the encrypted file is cut short (no room for its nonce and tag)".into(),
            });
        }
        let (nonce, sealed) = rest.split_at(NONCE_LEN);
        let cipher = Aes256Gcm::new((&key.0).into());
        let opened = cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: MAGIC,
                },
            )
            .map_err(|_| CliError::StateFileUndecryptable {
                path: path.to_path_buf(),
            })?;
        opened.into()
    } else {
        bytes.into()
    };
    let state: StorageState =
        serde_json::from_slice(&json).map_err(|e| CliError::StateFileUnreadable {
            path: path.to_path_buf(),
            reason: if is_encrypted(bytes) {
                format!("it decrypts, but not to a storage state: {e}")
            } else {
                format!("not a storage-state JSON file ({e})")
            },
        })?;
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StateKey {
        StateKey::parse(&"ab".repeat(32)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn sample() -> StorageState {
        StorageState {
            cookies: vec![StateCookie {
                name: "sid".into(),
                value: "s3cret".into(),
                domain: "127.0.0.1".into(),
                path: "/".into(),
                expires: -1.0,
                http_only: true,
                secure: false,
                same_site: "Lax".into(),
            }],
            origins: vec![StateOrigin {
                origin: "http://127.0.0.1:8000".into(),
                local_storage: vec![NameValue {
                    name: "user".into(),
                    value: "ada".into(),
                }],
                session_storage: Vec::new(),
            }],
            partitioned_origins: Vec::new(),
        }
    }

    #[test]
    fn the_json_is_playwrights_shape() -> Result<()> {
        let bytes = encode(&sample(), None)?;
        let v: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| CliError::internal(e.to_string()))?;
        assert_eq!(
            v,
            serde_json::json!({
                "cookies": [{"name": "sid", "value": "s3cret", "domain": "127.0.0.1", "path": "/",
                    "expires": -1.0, "httpOnly": true, "secure": false, "sameSite": "Lax"}],
                "origins": [{"origin": "http://127.0.0.1:8000",
                    "localStorage": [{"name": "user", "value": "ada"}]}]
            })
        );
        // Playwright's own files (extra fields, ours missing) read.
        let pw = br#"{"cookies":[{"name":"a","value":"b","domain":".x.test","path":"/","expires":1893456000,"httpOnly":false,"secure":true,"sameSite":"None","partitionKey":"k"}],
            "origins":[{"origin":"https://x.test","localStorage":[],"indexedDB":[]}]}"#;
        let s = decode(Path::new("pw.json"), pw, None)?;
        assert_eq!(s.cookies[0].expires, 1_893_456_000.0);
        assert_eq!(s.origins[0].origin, "https://x.test");
        Ok(())
    }

    #[test]
    fn encrypted_files_round_trip_and_refuse_a_wrong_key_no_key_or_a_cut() -> Result<()> {
        let path = Path::new("s.state");
        let sealed = encode(&sample(), Some(&key()))?;
        assert!(is_encrypted(&sealed));
        assert!(!String::from_utf8_lossy(&sealed).contains("s3cret"));
        assert_eq!(decode(path, &sealed, Some(&key()))?, sample());
        // A fresh nonce per file.
        assert_ne!(encode(&sample(), Some(&key()))?, sealed);
        let other = StateKey::parse(&"cd".repeat(32))?;
        assert!(matches!(
            decode(path, &sealed, Some(&other)),
            Err(CliError::StateFileUndecryptable { .. })
        ));
        assert!(matches!(
            decode(path, &sealed, None),
            Err(CliError::StateFileNeedsKey { .. })
        ));
        for cut in [MAGIC.len() + 3, sealed.len() - 1] {
            let r = decode(path, &sealed[..cut], Some(&key()));
            assert!(
                matches!(
                    r,
                    Err(CliError::StateFileUnreadable { .. }
                        | CliError::StateFileUndecryptable { .. })
                ),
                "{r:?}"
            );
        }
        let mut flipped = sealed.clone();
        if let Some(b) = flipped.last_mut() {
            *b ^= 1;
        }
        assert!(decode(path, &flipped, Some(&key())).is_err());
        assert!(matches!(
            decode(path, b"{\"cookies\": [", None),
            Err(CliError::StateFileUnreadable { .. })
        ));
        Ok(())
    }

    #[test]
    fn keys_are_hex_or_base64_of_32_bytes_and_errors_never_show_them() {
        assert!(StateKey::parse(&"0F".repeat(32)).is_ok());
        let b64 = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        assert!(StateKey::parse(&b64).is_ok());
        assert!(StateKey::parse(b64.trim_end_matches('=')).is_ok());
        for bad in ["hunter2-not-a-key", &"ab".repeat(31), "QUJD"] {
            let e = StateKey::parse(bad).err().map(|e| e.to_string());
            let e = e.unwrap_or_default();
            assert!(e.contains(STATE_KEY_ENV), "{e}");
            assert!(!e.contains(bad), "{e}");
        }
        assert!(matches!(StateKey::from_env(Some("  ")), Ok(None)));
        assert_eq!(format!("{:?}", key()), "StateKey(..)");
    }
}
