//! The `help` text (also `data` of `help --json`), from the command table.

use envelope::AddressingLevel;

use crate::commands::{COMMANDS, CommandSpec};

/// The `help` text.
pub fn help_text() -> String {
    let mut s = String::from(
        "Actionbook — browser automation for AI agents\n\n\
         Every command is stateless: pass --session and --tab explicitly.\n\n\
         Usage: actionbook <command> [options]\n\n\
         actionbook browser <subcommand>\n\n",
    );
    let browser = |c: &&CommandSpec| c.level != AddressingLevel::NonBrowser;
    let width = COMMANDS
        .iter()
        .filter(browser)
        .map(|c| c.subcommand().len())
        .max()
        .unwrap_or(0);
    for c in COMMANDS.iter().filter(browser) {
        let sub = c.subcommand();
        s.push_str(&format!("{sub:<width$}  {}\n", c.about));
    }
    s.push_str("\nOther commands:\n");
    for c in COMMANDS.iter().filter(|c| !browser(c)) {
        s.push_str(&format!("  {:<9}  {}\n", c.subcommand(), c.about));
    }
    s.push_str(
        "  help       Show this help\n  --version  Show the version\n\n\
         Global flags:\n  --json          Output the JSON envelope\n  --timeout <ms>  Command timeout in milliseconds\n\n\
         Quick start:\n  actionbook browser start --headless --open-url https://example.com\n  \
         actionbook browser snapshot --session s1 --tab t1\n  \
         actionbook browser fill @e3 \"San Francisco\" --session s1 --tab t1\n  \
         actionbook browser click @e7 --session s1 --tab t1\n\n\
         Run actionbook browser <subcommand> --help for its options and an example.",
    );
    s
}
