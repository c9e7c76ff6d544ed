//! The `help` text (also `data` of `help --json`), from the command table.

use actionbook::commands::CommandSpec;
use actionbook::commands::extension::all_commands;

/// The `help` text.
pub fn help_text() -> String {
    let mut s = String::from(
        "Actionbook — browser automation for AI agents\n\n\
         Every command is stateless: pass --session and --tab explicitly.\n\n\
         Usage: actionbook <command> [options]\n\n\
         actionbook browser <subcommand>\n\n",
    );
    let commands = all_commands();
    let browser = |c: &&&CommandSpec| c.name.as_str().starts_with("browser ");
    let width = commands
        .iter()
        .filter(browser)
        .map(|c| c.subcommand().len())
        .max()
        .unwrap_or(0);
    for c in commands.iter().filter(browser) {
        let sub = c.subcommand();
        s.push_str(&format!("{sub:<width$}  {}\n", c.about));
    }
    s.push_str("\nOther commands:\n");
    let others: Vec<(&str, &str)> = commands
        .iter()
        .filter(|c| !browser(c))
        .map(|c| (c.subcommand(), c.about))
        .chain([
            ("mcp", "Run an MCP server over stdio (one tool per command)"),
            ("batch", "Run commands from a file or stdin, one per line"),
            (
                "daemon status|stop|restart",
                "The daemon serving this home (sessions outlive it)",
            ),
            ("help", "Show this help"),
            ("--version", "Show the version"),
        ])
        .collect();
    let width = others.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, about) in others {
        s.push_str(&format!("  {name:<width$}  {about}\n"));
    }
    s.push_str(
        "
\
         Global flags:\n  --json          Output the JSON envelope\n  --timeout <ms>  Command timeout in milliseconds\n\n\
         Quick start:\n  actionbook browser start --headless --open-url https://example.com\n  \
         actionbook browser snapshot --session s1 --tab t1\n  \
         actionbook browser fill @e3 \"San Francisco\" --session s1 --tab t1\n  \
         actionbook browser click @e7 --session s1 --tab t1\n\n\
         Run actionbook browser <subcommand> --help for its options and an example.",
    );
    s
}
