//! `$ACTIONBOOK_HOME/config.toml`: what `setup` writes and every command reads.
//!
//! ```toml
//! version = 1
//!
//! [browser]
//! executable_path = "/usr/bin/chromium"   # the browser `browser start` launches
//! headless = true                         # the default of `browser start --headless`
//!
//! [api]
//! base_url = "https://api.example.com"    # optional remote manuals API
//! api_key = "…"                           # sent as X-API-Key; the file is then mode 0600
//! timeout_ms = 2500                       # per request
//! ```
//!
//! Precedence, per setting: the environment variable, then the file, then the default.
//!
//! | setting | variable | default |
//! |---|---|---|
//! | `browser.executable_path` | `ACTIONBOOK_BROWSER_EXECUTABLE_PATH` | search `PATH` for chromium, chromium-browser, google-chrome, google-chrome-stable |
//! | `browser.headless` | `ACTIONBOOK_BROWSER_HEADLESS` (`true`/`false`/`1`/`0`/`yes`/`no`) | `false` |
//! | `api.base_url` | `ACTIONBOOK_API_URL` | none: no remote API |
//! | `api.api_key` | `ACTIONBOOK_API_KEY` | none |
//! | `api.timeout_ms` | `ACTIONBOOK_API_TIMEOUT_MS` | 2500 |
//!
//! An empty variable counts as unset. Keys this build does not know (the reference CLI's `mode`,
//! `profile_name` …) are kept when the file is rewritten.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::{ManualsError, Result};
use super::remote::{DEFAULT_TIMEOUT, RemoteApi};

/// The file name under `$ACTIONBOOK_HOME`.
pub const CONFIG_FILE: &str = "config.toml";
/// The `version` this build writes.
pub const CONFIG_VERSION: i64 = 1;

/// Environment variable: browser executable.
pub const ENV_BROWSER: &str = "ACTIONBOOK_BROWSER_EXECUTABLE_PATH";
/// Environment variable: headless default.
pub const ENV_HEADLESS: &str = "ACTIONBOOK_BROWSER_HEADLESS";
/// Environment variable: remote API base URL.
pub const ENV_API_URL: &str = "ACTIONBOOK_API_URL";
/// Environment variable: remote API key.
pub const ENV_API_KEY: &str = "ACTIONBOOK_API_KEY";
/// Environment variable: remote API timeout in milliseconds.
pub const ENV_API_TIMEOUT: &str = "ACTIONBOOK_API_TIMEOUT_MS";

/// `[browser]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BrowserSection {
    /// Browser executable.
    #[serde(default, alias = "executable", skip_serializing_if = "Option::is_none")]
    pub executable_path: Option<String>,
    /// Headless by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headless: Option<bool>,
    /// The default of `browser start --allowed-domains` (`"a.com,*.b.com"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<String>,
    /// The default of `browser start --confirm-actions` (`"click,fill"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_actions: Option<String>,
    /// The default of `browser start --deny-actions` (`"eval"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_actions: Option<String>,
    /// Keys this build does not use, kept as they were.
    #[serde(flatten)]
    pub other: toml::Table,
}

/// `[api]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApiSection {
    /// Remote manuals API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Request timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Keys this build does not use, kept as they were.
    #[serde(flatten)]
    pub other: toml::Table,
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigFile {
    /// Format version.
    #[serde(default)]
    pub version: Option<i64>,
    /// `[browser]`.
    #[serde(default)]
    pub browser: BrowserSection,
    /// `[api]`.
    #[serde(default)]
    pub api: ApiSection,
    /// Top-level keys this build does not use, kept as they were.
    #[serde(flatten)]
    pub other: toml::Table,
}

impl Default for ConfigFile {
    fn default() -> Self {
        ConfigFile {
            version: Some(CONFIG_VERSION),
            browser: BrowserSection::default(),
            api: ApiSection::default(),
            other: toml::Table::new(),
        }
    }
}

/// `$ACTIONBOOK_HOME/config.toml`.
pub fn config_path(home: &Path) -> PathBuf {
    home.join(CONFIG_FILE)
}

impl ConfigFile {
    /// Reads the file; a missing file is the default configuration.
    pub fn load(path: &Path) -> Result<ConfigFile> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ConfigFile::default()),
            Err(source) => {
                return Err(ManualsError::ReadFile {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        toml::from_str(&text).map_err(|e| ManualsError::BadConfig {
            path: path.to_path_buf(),
            reason: e.message().to_string(),
        })
    }

    /// Whether the file holds a secret (then it is written with mode 0600).
    pub fn holds_secret(&self) -> bool {
        self.api.api_key.as_deref().is_some_and(|k| !k.is_empty())
    }

    /// Writes the file atomically (a temporary file renamed over it), creating the folder;
    /// mode 0600 when it holds an API key, else 0644. Returns the mode.
    pub fn save(&self, path: &Path) -> Result<u32> {
        let write_err = |source| ManualsError::WriteFile {
            path: path.to_path_buf(),
            source,
        };
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(write_err)?;
        let text = toml::to_string_pretty(self).map_err(|e| {
            write_err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                e.to_string(),
            ))
        })?;
        let mode = if self.holds_secret() { 0o600 } else { 0o644 };
        crate::files::write_durable(path, text.as_bytes(), mode).map_err(write_err)?;
        Ok(mode)
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// An environment variable.
    Env,
    /// `config.toml`.
    File,
    /// Built in.
    Default,
}

/// A value and its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

/// The effective configuration: the file overridden by the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Browser executable (`None`: search `PATH` at launch).
    pub browser_executable: Option<Setting<String>>,
    /// Headless default.
    pub headless: Setting<bool>,
    /// Remote API base URL (`None`: no remote).
    pub api_url: Option<Setting<String>>,
    /// Remote API key.
    pub api_key: Option<Setting<String>>,
    /// Remote request timeout.
    pub api_timeout: Duration,
    /// Environment values that were ignored (not a boolean, not a number), for `meta.warnings`.
    pub warnings: Vec<String>,
}

/// `true`/`false`, `1`/`0`, `yes`/`no`, `y`/`n`, `on`/`off` (any case).
pub fn parse_flag(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "on" => Some(true),
        "0" | "false" | "no" | "n" | "off" => Some(false),
        _ => None,
    }
}

impl Settings {
    /// Resolves `file` against the environment `env` (a lookup, so tests need not touch the
    /// process environment; use [`process_env`] for the real one).
    pub fn resolve(file: &ConfigFile, env: &dyn Fn(&str) -> Option<String>) -> Settings {
        let var = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let text = |name: &str, from_file: Option<&String>| -> Option<Setting<String>> {
            var(name)
                .map(|value| Setting {
                    value,
                    source: Source::Env,
                })
                .or_else(|| {
                    from_file
                        .map(|v| v.trim())
                        .filter(|v| !v.is_empty())
                        .map(|v| Setting {
                            value: v.to_string(),
                            source: Source::File,
                        })
                })
        };
        let mut warnings = Vec::new();
        let env_headless = var(ENV_HEADLESS).and_then(|v| {
            let flag = parse_flag(&v);
            if flag.is_none() {
                warnings.push(format!("{ENV_HEADLESS}={v} is not true/false; ignored"));
            }
            flag
        });
        let headless = match (env_headless, file.browser.headless) {
            (Some(value), _) => Setting {
                value,
                source: Source::Env,
            },
            (None, Some(value)) => Setting {
                value,
                source: Source::File,
            },
            (None, None) => Setting {
                value: false,
                source: Source::Default,
            },
        };
        let env_timeout = var(ENV_API_TIMEOUT).and_then(|v| {
            let ms = v.parse::<u64>().ok().filter(|ms| *ms > 0);
            if ms.is_none() {
                warnings.push(format!(
                    "{ENV_API_TIMEOUT}={v} is not a number of milliseconds; ignored"
                ));
            }
            ms
        });
        let api_timeout = env_timeout
            .or(file.api.timeout_ms.filter(|ms| *ms > 0))
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
        Settings {
            browser_executable: text(ENV_BROWSER, file.browser.executable_path.as_ref()),
            headless,
            api_url: text(ENV_API_URL, file.api.base_url.as_ref()),
            api_key: text(ENV_API_KEY, file.api.api_key.as_ref()),
            api_timeout,
            warnings,
        }
    }

    /// Loads `$ACTIONBOOK_HOME/config.toml` and resolves it against the process environment.
    pub fn load(home: &Path) -> Result<Settings> {
        let file = ConfigFile::load(&config_path(home))?;
        Ok(Settings::resolve(&file, &process_env))
    }

    /// The remote API client, when an API URL is configured.
    pub fn remote(&self) -> Result<Option<RemoteApi>> {
        self.api_url
            .as_ref()
            .map(|url| {
                RemoteApi::new(
                    &url.value,
                    self.api_key.as_ref().map(|k| k.value.clone()),
                    self.api_timeout,
                )
            })
            .transpose()
    }
}

/// The process environment, for [`Settings::resolve`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn environment_overrides_the_file() {
        let mut file = ConfigFile::default();
        file.browser.executable_path = Some("/opt/chrome".into());
        file.browser.headless = Some(true);
        file.api.base_url = Some("https://file.example".into());
        let s = Settings::resolve(&file, &env_of(&[]));
        assert_eq!(
            s.browser_executable,
            Some(Setting {
                value: "/opt/chrome".into(),
                source: Source::File
            })
        );
        assert_eq!(
            s.headless,
            Setting {
                value: true,
                source: Source::File
            }
        );
        assert_eq!(s.api_key, None);
        assert_eq!(s.api_timeout, DEFAULT_TIMEOUT);
        let s = Settings::resolve(
            &file,
            &env_of(&[
                (ENV_BROWSER, "/usr/bin/chromium"),
                (ENV_HEADLESS, "0"),
                (ENV_API_URL, " "),
                (ENV_API_KEY, "k"),
                (ENV_API_TIMEOUT, "300"),
            ]),
        );
        assert_eq!(
            s.browser_executable.unwrap(),
            Setting {
                value: "/usr/bin/chromium".into(),
                source: Source::Env
            }
        );
        assert_eq!(
            s.headless,
            Setting {
                value: false,
                source: Source::Env
            }
        );
        // An empty variable is unset: the file's URL stays.
        assert_eq!(s.api_url.unwrap().source, Source::File);
        assert_eq!(s.api_key.unwrap().value, "k");
        assert_eq!(s.api_timeout, Duration::from_millis(300));
        let s = Settings::resolve(
            &ConfigFile::default(),
            &env_of(&[(ENV_HEADLESS, "maybe"), (ENV_API_TIMEOUT, "soon")]),
        );
        assert_eq!(
            s.headless,
            Setting {
                value: false,
                source: Source::Default
            }
        );
        assert_eq!(s.warnings.len(), 2);
        assert!(s.remote().unwrap().is_none());
    }

    #[test]
    fn save_load_keeps_unknown_keys_and_protects_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home").join(CONFIG_FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "[browser]\nmode = \"local\"\nheadless = false\nprofile_name = \"actionbook\"\n[extra]\nx = 1\n").unwrap();
        let mut c = ConfigFile::load(&path).unwrap();
        assert_eq!(c.version, None);
        assert_eq!(c.browser.headless, Some(false));
        c.version = Some(CONFIG_VERSION);
        c.browser.executable_path = Some("/usr/bin/chromium".into());
        assert_eq!(c.save(&path).unwrap(), 0o644);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("mode = \"local\"") && text.contains("[extra]"),
            "{text}"
        );
        assert_eq!(ConfigFile::load(&path).unwrap(), c);
        c.api.api_key = Some("secret".into());
        assert_eq!(c.save(&path).unwrap(), 0o600);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        assert_eq!(
            ConfigFile::load(&path).unwrap().api.api_key.as_deref(),
            Some("secret")
        );
        // No temporary file is left behind.
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }

    #[test]
    fn missing_and_broken_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        assert_eq!(ConfigFile::load(&path).unwrap(), ConfigFile::default());
        std::fs::write(&path, "[browser\nheadless = maybe").unwrap();
        let err = ConfigFile::load(&path).unwrap_err();
        assert!(matches!(err, ManualsError::BadConfig { .. }));
        assert!(err.to_string().contains(&path.display().to_string()));
        std::fs::write(&path, "[browser]\nheadless = \"yes\"\n").unwrap();
        assert!(matches!(
            ConfigFile::load(&path),
            Err(ManualsError::BadConfig { .. })
        ));
    }
}
