//! `setup`: write `$ACTIONBOOK_HOME/config.toml` from flags (`--non-interactive`) or from answers
//! to a few questions (interactive, when stdin is a terminal), and report what was written.
//!
//! The report ([`SetupReport`]) is the envelope's `data` for `setup --non-interactive`:
//!
//! ```json
//! {"config_path": "/home/u/.actionbook/config.toml", "created": true, "reset": false,
//!  "mode": "0600",
//!  "browser": {"executable_path": "/usr/bin/chromium", "source": "detected", "headless": false},
//!  "api": {"base_url": null, "api_key_set": true},
//!  "overridden_by_env": ["ACTIONBOOK_BROWSER_HEADLESS"]}
//! ```
//!
//! `browser.source` is `flag` (`--browser`), `detected` (found on `PATH` now), `config` (kept from
//! the file) or `none`; the API key itself is never echoed. `overridden_by_env` names the
//! variables that currently override what the file says.

use std::ffi::OsStr;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use envelope::{RenderText, TextBody};
use serde::Serialize;

use super::config::{
    CONFIG_VERSION, ConfigFile, ENV_API_KEY, ENV_API_URL, ENV_BROWSER, ENV_HEADLESS, config_path,
    parse_flag,
};
use super::error::{ManualsError, Result};
use super::remote::{DEFAULT_TIMEOUT, RemoteApi};

/// What to change. `None` keeps the current value; an empty string removes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetupOptions {
    /// `--browser`: an executable path, a program name on `PATH`, or `auto`.
    pub browser: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// The remote API URL (asked interactively; no flag in the spec).
    pub api_url: Option<String>,
    /// The headless default (asked interactively).
    pub headless: Option<bool>,
    /// `--reset`: start from an empty configuration instead of the current file.
    pub reset: bool,
}

/// How the browser executable was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BrowserSource {
    /// `--browser`.
    Flag,
    /// Found on `PATH` during setup.
    Detected,
    /// Kept from the existing file.
    Config,
    /// None configured or found.
    None,
}

/// `browser` of [`SetupReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrowserReport {
    /// The executable written to the file.
    pub executable_path: Option<String>,
    /// How it was chosen.
    pub source: BrowserSource,
    /// The headless default written (false when unset).
    pub headless: bool,
}

/// `api` of [`SetupReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApiReport {
    /// The remote API URL written.
    pub base_url: Option<String>,
    /// Whether an API key is stored.
    pub api_key_set: bool,
}

/// The `data` of `setup` (see the module docs).
///
/// ```text
/// config: /home/u/.actionbook/config.toml (created, mode 0600)
/// browser: /usr/bin/chromium (detected)
/// headless: false
/// api_url: none
/// api_key: set
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetupReport {
    /// The file written.
    pub config_path: String,
    /// Whether it did not exist before.
    pub created: bool,
    /// Whether `--reset` discarded the previous settings.
    pub reset: bool,
    /// Its permission bits, octal (`0600` when it holds a key).
    pub mode: String,
    /// The browser settings.
    pub browser: BrowserReport,
    /// The remote API settings.
    pub api: ApiReport,
    /// Environment variables that override the file right now.
    pub overridden_by_env: Vec<String>,
}

impl RenderText for SetupReport {
    fn is_action(&self) -> bool {
        true
    }
    fn render_body(&self, body: &mut TextBody<'_>) {
        let state = match (self.created, self.reset) {
            (true, _) => "created",
            (false, true) => "reset",
            (false, false) => "updated",
        };
        body.field(
            "config",
            format_args!("{} ({state}, mode {})", self.config_path, self.mode),
        );
        let source = match self.browser.source {
            BrowserSource::Flag => "from --browser",
            BrowserSource::Detected => "detected",
            BrowserSource::Config => "kept",
            BrowserSource::None => "none found",
        };
        body.field(
            "browser",
            format_args!(
                "{} ({source})",
                self.browser
                    .executable_path
                    .as_deref()
                    .unwrap_or("search PATH at start")
            ),
        );
        body.field("headless", self.browser.headless);
        body.field("api_url", self.api.base_url.as_deref().unwrap_or("none"));
        body.field(
            "api_key",
            if self.api.api_key_set {
                "set"
            } else {
                "not set"
            },
        );
        for v in &self.overridden_by_env {
            body.line(format_args!("note: {v} is set and overrides the file"));
        }
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// `name` in the directories of `path_var` (a `PATH` value).
pub fn find_on_path(name: &str, path_var: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// The first of chromium, chromium-browser, google-chrome, google-chrome-stable on `path_var`.
pub fn detect_browser(path_var: &OsStr) -> Option<PathBuf> {
    cdp_protocol::BROWSER_NAMES
        .iter()
        .find_map(|name| find_on_path(name, path_var))
}

/// The executable `--browser` names: a path (made absolute), a program on `PATH`, or `auto` /
/// `local` (detect); `None` from detection finding nothing.
pub fn resolve_browser(given: &str, path_var: &OsStr) -> Result<Option<PathBuf>> {
    let g = given.trim();
    match g.to_ascii_lowercase().as_str() {
        "auto" | "local" | "" => return Ok(detect_browser(path_var)),
        "cloud" | "extension" => {
            return Err(ManualsError::InvalidArgument {
                argument: "browser",
                value: given.to_string(),
                reason: "only a local browser can be configured here: pass its executable".into(),
            });
        }
        _ => {}
    }
    if g.contains(std::path::MAIN_SEPARATOR) || g.contains('/') {
        let p = PathBuf::from(g);
        let p = if p.is_absolute() {
            p
        } else {
            std::env::current_dir().map(|d| d.join(&p)).unwrap_or(p)
        };
        return if is_executable(&p) {
            Ok(Some(p))
        } else {
            Err(ManualsError::BrowserNotFound {
                given: given.to_string(),
            })
        };
    }
    find_on_path(g, path_var)
        .map(Some)
        .ok_or_else(|| ManualsError::BrowserNotFound {
            given: given.to_string(),
        })
}

/// `setup --non-interactive`: applies `options` to the config in `home` and writes it.
/// `env` is the environment lookup (for `overridden_by_env`), `path_var` the `PATH` to search.
pub fn setup_non_interactive(
    home: &Path,
    options: &SetupOptions,
    env: &dyn Fn(&str) -> Option<String>,
    path_var: &OsStr,
) -> Result<SetupReport> {
    let path = config_path(home);
    let existed = path.exists();
    let mut config = if options.reset {
        ConfigFile::default()
    } else {
        ConfigFile::load(&path)?
    };
    config.version = Some(CONFIG_VERSION);

    let source = match options.browser.as_deref() {
        Some(b) => {
            let found = resolve_browser(b, path_var)?;
            let auto = matches!(
                b.trim().to_ascii_lowercase().as_str(),
                "auto" | "local" | ""
            );
            config.browser.executable_path = found.map(|p| p.display().to_string());
            match (&config.browser.executable_path, auto) {
                (None, _) => BrowserSource::None,
                (Some(_), true) => BrowserSource::Detected,
                (Some(_), false) => BrowserSource::Flag,
            }
        }
        None if config.browser.executable_path.is_some() => BrowserSource::Config,
        None => match detect_browser(path_var) {
            Some(p) => {
                config.browser.executable_path = Some(p.display().to_string());
                BrowserSource::Detected
            }
            None => BrowserSource::None,
        },
    };
    if let Some(key) = &options.api_key {
        config.api.api_key = Some(key.trim().to_string()).filter(|k| !k.is_empty());
    }
    if let Some(url) = &options.api_url {
        let url = url.trim();
        config.api.base_url = if url.is_empty() {
            None
        } else {
            // Refuse what the remote client would refuse later.
            RemoteApi::new(url, None, DEFAULT_TIMEOUT)?;
            Some(url.to_string())
        };
    }
    if let Some(h) = options.headless {
        config.browser.headless = Some(h);
    }
    let mode = config.save(&path)?;
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    let overridden_by_env = [ENV_BROWSER, ENV_HEADLESS, ENV_API_URL, ENV_API_KEY]
        .into_iter()
        .filter(|v| set(v))
        .map(String::from)
        .collect();
    Ok(SetupReport {
        config_path: path.display().to_string(),
        created: !existed,
        reset: options.reset,
        mode: format!("{mode:04o}"),
        browser: BrowserReport {
            executable_path: config.browser.executable_path.clone(),
            source,
            headless: config.browser.headless.unwrap_or(false),
        },
        api: ApiReport {
            base_url: config.api.base_url.clone(),
            api_key_set: config.holds_secret(),
        },
        overridden_by_env,
    })
}

/// One question; an empty answer (or end of input) keeps `default`.
fn ask(terminal: &mut dyn Terminal, question: &str, default: &str) -> Result<Option<String>> {
    let io_err = |source| ManualsError::WriteFile {
        path: PathBuf::from("<terminal>"),
        source,
    };
    let output = terminal.output();
    if default.is_empty() {
        write!(output, "{question}: ").map_err(io_err)?;
    } else {
        write!(output, "{question} [{default}]: ").map_err(io_err)?;
    }
    output.flush().map_err(io_err)?;
    let mut line = String::new();
    let n = terminal
        .input()
        .read_line(&mut line)
        .map_err(|source| ManualsError::ReadFile {
            path: PathBuf::from("<terminal>"),
            source,
        })?;
    let answer = line.trim();
    Ok((n > 0 && !answer.is_empty()).then(|| answer.to_string()))
}

/// The terminal an interactive `setup` talks to.
pub trait Terminal {
    /// Where answers are read.
    fn input(&mut self) -> &mut dyn BufRead;
    /// Where questions are shown.
    fn output(&mut self) -> &mut dyn Write;
    /// Turns the echo of typed characters off (`false`, while the API key is typed) or back on.
    fn set_echo(&mut self, on: bool);
}

/// Interactive `setup`: asks for the browser, the headless default, the API URL and key (each
/// with the current or detected value as default), then writes the file like
/// [`setup_non_interactive`]. `-` clears the API URL or key. The key is typed with the
/// terminal's echo off.
pub fn setup_interactive(
    home: &Path,
    reset: bool,
    terminal: &mut dyn Terminal,
    env: &dyn Fn(&str) -> Option<String>,
    path_var: &OsStr,
) -> Result<SetupReport> {
    let current = if reset {
        ConfigFile::default()
    } else {
        ConfigFile::load(&config_path(home))?
    };
    let detected = detect_browser(path_var).map(|p| p.display().to_string());
    let browser_default = current
        .browser
        .executable_path
        .clone()
        .or(detected)
        .unwrap_or_default();
    let mut options = SetupOptions {
        reset,
        ..SetupOptions::default()
    };
    loop {
        let answer = ask(terminal, "Browser executable", &browser_default)?;
        let Some(b) = answer.or_else(|| Some(browser_default.clone()).filter(|d| !d.is_empty()))
        else {
            break;
        };
        match resolve_browser(&b, path_var) {
            Ok(_) => {
                options.browser = Some(b);
                break;
            }
            Err(e) => {
                let _ = writeln!(terminal.output(), "{e}");
            }
        }
    }
    let headless_default = if current.browser.headless.unwrap_or(false) {
        "y"
    } else {
        "n"
    };
    loop {
        match ask(terminal, "Headless by default (y/n)", headless_default)? {
            None => break,
            Some(a) => match parse_flag(&a) {
                Some(h) => {
                    options.headless = Some(h);
                    break;
                }
                None => {
                    let _ = writeln!(terminal.output(), "answer y or n");
                }
            },
        }
    }
    let url_default = current.api.base_url.clone().unwrap_or_default();
    if let Some(u) = ask(
        terminal,
        "Remote manuals API URL (- for none)",
        &url_default,
    )? {
        options.api_url = Some(if u == "-" { String::new() } else { u });
    }
    let key_default = if current.holds_secret() { "keep" } else { "" };
    terminal.set_echo(false);
    let key = ask(terminal, "API key (- for none)", key_default);
    terminal.set_echo(true);
    // The Enter that ended the hidden answer was not echoed either.
    let _ = writeln!(terminal.output());
    if let Some(k) = key? {
        options.api_key = Some(if k == "-" { String::new() } else { k });
    }
    setup_non_interactive(home, &options, env, path_var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// A folder holding an executable `chromium` (a shell script) and a non-executable file.
    fn fake_bin(dir: &Path) -> OsString {
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("chromium"), "#!/bin/sh\n").unwrap();
        std::fs::write(bin.join("not-exec"), "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(bin.join("chromium"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
        bin.into_os_string()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn non_interactive_detects_writes_and_reports() {
        let dir = tempfile::tempdir().unwrap();
        let path_var = fake_bin(dir.path());
        let home = dir.path().join("home");
        let r = setup_non_interactive(&home, &SetupOptions::default(), &no_env, &path_var).unwrap();
        assert!(r.created);
        assert_eq!(r.browser.source, BrowserSource::Detected);
        assert!(
            r.browser
                .executable_path
                .as_deref()
                .unwrap()
                .ends_with("/bin/chromium")
        );
        assert_eq!(r.mode, "0644");
        let written = ConfigFile::load(&config_path(&home)).unwrap();
        assert_eq!(written.browser.executable_path, r.browser.executable_path);
        assert_eq!(written.version, Some(CONFIG_VERSION));

        let with_key = SetupOptions {
            api_key: Some("sk-1".into()),
            ..SetupOptions::default()
        };
        let env = |k: &str| (k == ENV_HEADLESS).then(|| "1".to_string());
        let r = setup_non_interactive(&home, &with_key, &env, &path_var).unwrap();
        assert!(!r.created);
        assert_eq!(r.browser.source, BrowserSource::Config);
        assert!(r.api.api_key_set);
        assert_eq!(r.mode, "0600");
        assert_eq!(r.overridden_by_env, vec![ENV_HEADLESS]);
        let json = serde_json::to_value(&r).unwrap();
        assert!(!json.to_string().contains("sk-1"));
        let mut text = String::new();
        r.render_body(&mut TextBody::new(&mut text));
        assert!(
            text.contains("api_key: set\n") && !text.contains("sk-1"),
            "{text}"
        );

        let reset = SetupOptions {
            reset: true,
            browser: Some(format!("{}/chromium", path_var.to_string_lossy())),
            ..SetupOptions::default()
        };
        let r = setup_non_interactive(&home, &reset, &no_env, &path_var).unwrap();
        assert!(r.reset);
        assert_eq!(r.browser.source, BrowserSource::Flag);
        assert!(!r.api.api_key_set);
        assert_eq!(r.mode, "0644");
    }

    #[test]
    fn browser_values() {
        let dir = tempfile::tempdir().unwrap();
        let path_var = fake_bin(dir.path());
        assert!(resolve_browser("chromium", &path_var).unwrap().is_some());
        assert!(resolve_browser("auto", &path_var).unwrap().is_some());
        assert_eq!(resolve_browser("auto", OsStr::new("")).unwrap(), None);
        for bad in [
            "firefox",
            "/no/such/chrome",
            &format!("{}/not-exec", path_var.to_string_lossy()),
        ] {
            assert!(
                matches!(
                    resolve_browser(bad, &path_var),
                    Err(ManualsError::BrowserNotFound { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            resolve_browser("cloud", &path_var),
            Err(ManualsError::InvalidArgument { .. })
        ));
        let home = dir.path().join("h");
        let bad_url = SetupOptions {
            api_url: Some("ftp://x".into()),
            ..SetupOptions::default()
        };
        assert!(setup_non_interactive(&home, &bad_url, &no_env, &path_var).is_err());
        assert!(!config_path(&home).exists());
    }

    #[test]
    fn interactive_asks_and_keeps_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path_var = fake_bin(dir.path());
        let home = dir.path().join("home");
        // Enter (detected browser), a bad answer then "y", a URL, a key.
        let mut t = Script::new(b"\nmaybe\ny\nhttp://127.0.0.1:9\nsecret\n");
        let r = setup_interactive(&home, false, &mut t, &no_env, &path_var).unwrap();
        // Echo went off exactly around the key's question and came back on.
        assert_eq!(t.echo, vec![false, true]);
        let shown = String::from_utf8(t.out).unwrap();
        assert!(shown.ends_with("API key (- for none): \n"), "{shown}");
        assert!(shown.contains("Browser executable ["), "{shown}");
        assert!(shown.contains("answer y or n"), "{shown}");
        assert!(r.browser.headless);
        assert_eq!(r.api.base_url.as_deref(), Some("http://127.0.0.1:9"));
        assert!(r.api_key_set_and_private());
        // Everything kept on a second run where the user only presses enter (or input ends).
        let rerun = |input: &'static [u8]| {
            setup_interactive(&home, false, &mut Script::new(input), &no_env, &path_var).unwrap()
        };
        let r = rerun(b"\n\n");
        assert!(r.browser.headless && r.api.api_key_set);
        let r = rerun(b"\n\n-\n-\n");
        assert_eq!((r.api.base_url, r.api.api_key_set), (None, false));
    }

    /// A terminal whose user types `input`; records what was shown and the echo switches.
    struct Script {
        input: &'static [u8],
        out: Vec<u8>,
        echo: Vec<bool>,
    }

    impl Script {
        fn new(input: &'static [u8]) -> Script {
            Script {
                input,
                out: Vec::new(),
                echo: Vec::new(),
            }
        }
    }

    impl Terminal for Script {
        fn input(&mut self) -> &mut dyn BufRead {
            &mut self.input
        }
        fn output(&mut self) -> &mut dyn Write {
            &mut self.out
        }
        fn set_echo(&mut self, on: bool) {
            self.echo.push(on);
        }
    }

    impl SetupReport {
        fn api_key_set_and_private(&self) -> bool {
            self.api.api_key_set && self.mode == "0600"
        }
    }
}
