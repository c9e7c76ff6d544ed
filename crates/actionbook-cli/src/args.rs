//! The argument surface: clap types only.
//!
//! Every command is one struct that is both its clap definition and the request sent to the daemon
//! (it derives `Serialize`/`Deserialize`), so adding a command is this struct plus one handler in
//! [`crate::commands`], plus one line in the `browser_commands!` list there.

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};

/// `actionbook`: drive a real Chromium from the shell.
#[derive(Debug, Parser)]
#[command(
    name = "actionbook",
    about = "Browser automation for AI agents: every command names its --session and --tab explicitly",
    disable_help_subcommand = true,
    disable_version_flag = true,
    after_help = "Examples:\n  actionbook browser start --headless --open-url https://example.com\n  actionbook browser snapshot --session s1 --tab t1\n  actionbook browser click @e3 --session s1 --tab t1"
)]
pub struct Cli {
    /// Options that every command accepts.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Print the version and exit.
    #[arg(short = 'V', long = "version")]
    pub version: bool,
    /// The command to run.
    #[command(subcommand)]
    pub command: Option<TopCommand>,
}

/// Flags accepted by every command, before or after the subcommand.
#[derive(Debug, Clone, Default, Args, Serialize, Deserialize)]
pub struct GlobalArgs {
    /// Output the JSON envelope instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Timeout in milliseconds.
    #[arg(long, global = true, value_name = "MS")]
    pub timeout: Option<u64>,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum TopCommand {
    /// Control browser sessions, tabs and pages.
    Browser {
        /// The browser subcommand.
        #[command(subcommand)]
        command: crate::commands::BrowserCommand,
    },
    /// Show the help text.
    #[command(after_help = "Example:\n  actionbook help --json")]
    Help,
    /// Run the daemon in the foreground (started on demand by the CLI).
    #[command(name = "__daemon", hide = true)]
    Daemon,
}

/// `--session <SID>` for session-level commands.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct SessionTarget {
    /// Session id.
    #[arg(long, value_name = "SID")]
    pub session: String,
}

/// `--session <SID> --tab <TID>` for tab-level commands.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct TabTarget {
    /// Session id.
    #[arg(long, value_name = "SID")]
    pub session: String,
    /// Tab id.
    #[arg(long, value_name = "TID")]
    pub tab: String,
}

/// Browser mode for `browser start`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Launch a local Chromium.
    #[default]
    Local,
    /// Relay through the Chrome extension.
    Extension,
    /// A remote browser reached through `--cdp-endpoint`.
    Cloud,
}

impl Mode {
    /// The mode's name as it appears in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Extension => "extension",
            Mode::Cloud => "cloud",
        }
    }
}

/// `browser start`: create (or attach to) a session.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Start {
    /// Browser mode.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// Run the browser headless: `--headless`, `--headless true|false` (default from
    /// ACTIONBOOK_BROWSER_HEADLESS, else false).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub headless: Option<bool>,
    /// Profile name (a persistent user-data directory under $ACTIONBOOK_HOME/profiles).
    #[arg(long)]
    pub profile: Option<String>,
    /// Load this URL in the first tab before answering.
    #[arg(long, value_name = "URL")]
    pub open_url: Option<String>,
    /// Connect to an existing browser (http://host:port or ws://...) instead of launching one.
    #[arg(long, value_name = "URL")]
    pub cdp_endpoint: Option<String>,
    /// Header sent when connecting to --cdp-endpoint (repeatable).
    #[arg(long = "header", value_name = "KEY:VALUE")]
    pub headers: Vec<String>,
    /// Semantic session id (`^[a-z][a-z0-9_-]{1,63}$`); attaches when it exists.
    #[arg(long, value_name = "SID")]
    pub set_session_id: Option<String>,
    /// The value of ACTIONBOOK_BROWSER_HEADLESS seen by the client (filled in by the CLI).
    #[arg(skip)]
    pub env_headless: Option<bool>,
    /// The value of ACTIONBOOK_BROWSER_EXECUTABLE_PATH seen by the client (filled in by the CLI).
    #[arg(skip)]
    pub env_executable: Option<String>,
}

/// `browser list-sessions`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct ListSessions {}

/// `browser status`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Status {
    /// The session.
    #[command(flatten)]
    pub target: SessionTarget,
}

/// `browser close`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Close {
    /// The session.
    #[command(flatten)]
    pub target: SessionTarget,
}

/// `browser restart`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Restart {
    /// The session.
    #[command(flatten)]
    pub target: SessionTarget,
}

/// `browser list-tabs`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct ListTabs {
    /// The session.
    #[command(flatten)]
    pub target: SessionTarget,
}

/// `browser new-tab` / `browser open`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct NewTab {
    /// One or more URLs, opened in order.
    #[arg(required = true, value_name = "URL")]
    pub urls: Vec<String>,
    /// The session.
    #[command(flatten)]
    pub target: SessionTarget,
    /// Open in a new window.
    #[arg(long)]
    pub new_window: bool,
    /// Open in this window (wN).
    #[arg(long, value_name = "WID")]
    pub window: Option<String>,
    /// Custom tab id, once per URL in order.
    #[arg(long = "tab", visible_alias = "set-tab-id", value_name = "TID")]
    pub tab_ids: Vec<String>,
}

/// `browser goto <url>`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Goto {
    /// Target URL.
    pub url: String,
    /// The session and tab.
    #[command(flatten)]
    pub target: TabTarget,
}

/// `browser snapshot`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Snapshot {
    /// The session and tab.
    #[command(flatten)]
    pub target: TabTarget,
    /// Include only interactive elements.
    #[arg(short = 'i', long)]
    pub interactive: bool,
    /// Include cursor-interactive custom elements (cursor:pointer, onclick, tabindex, ...): on
    /// unless `--cursor false`.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub cursor: Option<bool>,
    /// Remove empty structural nodes.
    #[arg(short = 'c', long)]
    pub compact: bool,
    /// Limit the tree depth.
    #[arg(short = 'd', long, value_name = "N")]
    pub depth: Option<usize>,
    /// Limit to the subtree of this element.
    #[arg(short = 's', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
}

/// `browser click <selector>`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Click {
    /// `@eN`, a CSS selector, an XPath (starting with `/`), or `x,y` viewport coordinates.
    pub selector: String,
    /// The session and tab.
    #[command(flatten)]
    pub target: TabTarget,
}

/// `browser fill <selector> <text>`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Fill {
    /// `@eN`, a CSS selector or an XPath (starting with `/`).
    pub selector: String,
    /// The text that replaces the field's value (may start with `-`: `fill '#n' -5`).
    #[arg(allow_hyphen_values = true)]
    pub text: String,
    /// The session and tab.
    #[command(flatten)]
    pub target: TabTarget,
}

/// `browser eval <code>`.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct Eval {
    /// A JavaScript expression; a promise is awaited (may start with `-`: `eval -1`).
    #[arg(allow_hyphen_values = true)]
    pub code: String,
    /// The session and tab.
    #[command(flatten)]
    pub target: TabTarget,
}

/// Defines commands whose only arguments are `--session` and `--tab`.
macro_rules! tab_only {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Args, Serialize, Deserialize)]
        pub struct $name {
            /// The session and tab.
            #[command(flatten)]
            pub target: TabTarget,
        }
    )*};
}

tab_only! {
    /// `browser back`.
    Back;
    /// `browser forward`.
    Forward;
    /// `browser reload`.
    Reload;
    /// `browser title`.
    Title;
    /// `browser url`.
    Url;
    /// `browser close-tab`.
    CloseTab;
}
