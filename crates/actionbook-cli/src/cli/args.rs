//! The clap tree: the top-level flags and commands. The `browser` subcommands are the command
//! table's [`Command`] (each request type derives `clap::Args`), so this file never changes when a
//! command is added.

use clap::{Args, Parser, Subcommand};

use actionbook::commands::Command;

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
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// Output the JSON envelope instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Timeout in milliseconds (0 to 2147483647; 0 gives the command no time: a wait checks once).
    #[arg(
        long,
        global = true,
        value_name = "MS",
        value_parser = clap::value_parser!(u64).range(0..=actionbook::deadline::MAX_TIMEOUT_MS)
    )]
    pub timeout: Option<u64>,
    /// Run a command the session's --confirm-actions holds back: the token of its
    /// CONFIRMATION_REQUIRED answer (details.token), for exactly that command, once
    /// (`actionbook browser click @e3 --session s1 --tab t1 --confirm 3f9c…`).
    #[arg(long, global = true, value_name = "TOKEN")]
    pub confirm: Option<String>,
}

/// Top-level commands.
// One per process, parsed once: its size is of no account (and clap's derive cannot box a
// flattened subcommand).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum TopCommand {
    /// Every command of the table: `browser ...` and the non-browser ones, at the paths their
    /// names spell.
    #[command(flatten)]
    Table(Command),
    /// Run an MCP server over stdio: one tool per command (see `actionbook mcp --help`).
    #[command(
        after_help = "Example (an MCP client's server entry):\n  {\"command\": \"actionbook\", \"args\": [\"mcp\"]}"
    )]
    Mcp(actionbook::mcp::McpOptions),
    /// Run commands from a file or stdin, one per line (CLI words or JSON), in order.
    #[command(
        after_help = "Example:\n  printf 'browser title --session s1 --tab t1\\n' | actionbook batch --json"
    )]
    Batch(crate::cli::batch::BatchArgs),
    /// Show the help text.
    #[command(after_help = "Example:\n  actionbook help --json")]
    Help,
    /// The daemon that serves this home: status, stop, restart (sessions outlive it).
    Daemon(crate::cli::daemon::DaemonArgs),
    /// Check the installation: browser, a headless launch, home, daemon, config, manuals API,
    /// disk, stale sessions; each `ok`, `warn` or `fail` with the fix. Exits 1 when one fails.
    #[command(after_help = "Example:\n  actionbook doctor --json")]
    Doctor,
    /// Run the daemon in the foreground (started on demand by the CLI).
    #[command(name = "__daemon", hide = true)]
    Serve,
}
