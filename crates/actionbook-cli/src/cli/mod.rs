//! The `actionbook` binary's side: parse ([`args`]), lower into a typed request (`lower`), send
//! it to the daemon (or answer locally), print and exit (`print`).

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;
use envelope::CommandName;

use crate::cli::args::{Cli, TopCommand};
use crate::cli::help::help_text;
use actionbook::daemon::{client, server};
use actionbook::reply;
use actionbook::store::Home;

pub mod args;
pub mod batch;
pub mod daemon;
pub mod help;
pub(crate) mod lower;
pub use lower::request_from_args;
mod print;
mod setup;

use print::{print, usage_error, write_out};

/// Runs the CLI with the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    run(argv)
}

/// `actionbook doctor`, here (the daemon is one of the things it looks at): its checks, exit 1
/// when one fails.
fn doctor(json: bool) -> ExitCode {
    let started = std::time::Instant::now();
    let home = Home::from_env();
    let data = actionbook::doctor::run(home.as_ref().map_err(|e| e.to_string()));
    let env = match envelope::Document::new(&data) {
        Ok(doc) => reply::success(CommandName::Doctor, None, doc, vec![]),
        Err(e) => reply::failure(
            CommandName::Doctor,
            None,
            &actionbook::error::CliError::internal(e.to_string()),
        ),
    };
    let code = print(
        &env.with_duration_ms(started.elapsed().as_millis() as u64),
        None,
        json,
    );
    match data.healthy {
        true => code,
        false => ExitCode::FAILURE,
    }
}

/// Runs the CLI with explicit arguments (`argv[0]` included).
pub fn run(argv: Vec<OsString>) -> ExitCode {
    // The agent layer's commands join the table before anything reads it (parser, daemon, MCP).
    actionbook_agent::register();
    let json = argv.iter().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&argv, json, e),
    };
    if cli.version {
        let env = reply::success(
            CommandName::Version,
            None,
            env!("CARGO_PKG_VERSION"),
            vec![],
        );
        return print(&env, None, cli.global.json);
    }
    let command = match cli.command {
        None | Some(TopCommand::Help) => {
            let env = reply::success(CommandName::Help, None, help_text(), vec![]);
            return print(&env, None, cli.global.json);
        }
        Some(TopCommand::Daemon(args)) => return daemon::run(&args, cli.global.json),
        Some(TopCommand::Doctor) => return doctor(cli.global.json),
        Some(TopCommand::Serve) => {
            return match Home::from_env() {
                Ok(home) => server::run(home),
                Err(e) => {
                    eprintln!("actionbook daemon: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        Some(TopCommand::Table(actionbook::commands::Command::Setup(s))) => {
            return match Home::from_env() {
                Ok(home) => setup::run(s, &home, cli.global.json),
                Err(e) => print(
                    &reply::failure(CommandName::Setup, None, &e),
                    None,
                    cli.global.json,
                ),
            };
        }
        Some(TopCommand::Mcp(options)) => {
            return match Home::from_env() {
                Ok(home) => actionbook::mcp::run(home, &options, cli.global.timeout),
                Err(e) => {
                    eprintln!("actionbook mcp: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        Some(TopCommand::Batch(args)) => {
            return match Home::from_env() {
                Ok(home) => batch::run(&home, &args, &cli.global),
                Err(e) => print(
                    &reply::failure(CommandName::Help, None, &e),
                    None,
                    cli.global.json,
                ),
            };
        }
        Some(TopCommand::Table(command)) => command,
    };
    let name = command.name();
    let json = cli.global.json;
    let context = command.addressed();
    let sent = client::Unanswered::of(&command);
    let request = match lower::lower(command, &cli.global) {
        Ok(r) => r,
        Err(e) => return print(&reply::failure(name, context, &e), None, json),
    };
    // The daemon renders the reply as this client prints it: the client never parses it.
    // Progress lines (an agent loop's steps) go to stderr as they come, in text mode.
    let progress = |line: &str| eprintln!("{line}");
    let progress: Option<&dyn Fn(&str)> = (!json).then_some(&progress);
    let hang_up = client::HangUp::default();
    let sent_to =
        |home: Home| client::send_with_progress(&home, request, !json, &hang_up, progress);
    match Home::from_env().and_then(sent_to) {
        Ok(reply) => {
            if let Err(e) = write_out(&reply.body, !json && !reply.ok) {
                let _ = write_out(&format!("actionbook: cannot write output: {e}"), true);
            }
            ExitCode::from(reply.exit_code)
        }
        Err(e) => print(&sent.envelope(&e), None, json),
    }
}

#[cfg(test)]
mod tests {
    use super::print::guess_command;
    use super::*;
    use actionbook::commands::{COMMANDS, subcommand_name};

    fn argv(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn guesses_command_names() {
        assert_eq!(
            guess_command(&argv(&["ab", "browser", "goto", "x", "--json"])),
            "browser goto"
        );
        assert_eq!(
            guess_command(&argv(&["ab", "browser", "open", "x"])),
            "browser new-tab"
        );
        assert_eq!(
            guess_command(&argv(&["ab", "browser", "nope"])),
            "browser nope"
        );
        assert_eq!(
            guess_command(&argv(&["ab", "browser", "wait", "element", "#x", "--json"])),
            "browser wait element"
        );
        assert_eq!(
            guess_command(&argv(&["ab", "browser", "wait", "nope"])),
            "browser wait"
        );
    }

    /// Splits an example command line as a shell would (quotes, no escapes needed here).
    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word: Option<String> = None;
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.get_or_insert_with(String::new).push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    word.get_or_insert_with(String::new);
                }
                (None, ' ') => words.extend(word.take()),
                (None, c) => word.get_or_insert_with(String::new).push(c),
            }
        }
        words.extend(word);
        words
    }

    #[test]
    fn every_command_parses_with_its_example() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let cmd = Cli::command();
        for spec in COMMANDS {
            assert_eq!(spec.subcommand(), subcommand_name(spec.name));
            let mut node = Some(&cmd);
            for word in spec.words() {
                node = node.and_then(|n| n.find_subcommand(word));
            }
            assert!(node.is_some(), "{} is not a subcommand", spec.name);
            let words = shell_words(spec.example);
            match Cli::try_parse_from(&words) {
                Ok(Cli {
                    command: Some(TopCommand::Table(c)),
                    ..
                }) => assert_eq!(c.name(), spec.name, "{}", spec.example),
                other => panic!("{}: {other:?}", spec.example),
            }
        }
    }

    #[test]
    fn nested_paths_and_top_level_names_resolve_to_their_rows() {
        let mut m = clap::Command::new("t");
        for name in [
            CommandName::BrowserGoto,
            CommandName::BrowserWaitElement,
            CommandName::BrowserWaitNavigation,
            CommandName::Search,
        ] {
            m = actionbook::commands::cli_tree_insert_for_test(m, name);
        }
        let wait = m
            .find_subcommand("browser")
            .and_then(|b| b.find_subcommand("wait"));
        assert_eq!(wait.map(|w| w.get_subcommands().count()), Some(2));
        assert!(m.find_subcommand("search").is_some());
        let mut parsed = m
            .clone()
            .try_get_matches_from(["t", "browser", "wait", "element"])
            .unwrap_or_default();
        let taken = actionbook::commands::cli_tree_take_for_test(&mut parsed).map(|(n, _)| n);
        assert_eq!(taken.ok(), Some(CommandName::BrowserWaitElement));
        let mut parsed = m.try_get_matches_from(["t", "search"]).unwrap_or_default();
        let taken = actionbook::commands::cli_tree_take_for_test(&mut parsed).map(|(n, _)| n);
        assert_eq!(taken.ok(), Some(CommandName::Search));
    }

    #[test]
    fn missing_tab_is_a_usage_error() {
        let r = Cli::try_parse_from(argv(&[
            "ab",
            "browser",
            "title",
            "--session",
            "s1",
            "--json",
        ]));
        assert!(r.is_err());
        let r = Cli::try_parse_from(argv(&[
            "ab",
            "browser",
            "open",
            "http://x",
            "--session",
            "s1",
        ]));
        assert!(matches!(
            r.map(|c| c.command),
            Ok(Some(TopCommand::Table(
                actionbook::commands::Command::BrowserNewTab(_)
            )))
        ));
    }

    proptest::proptest! {
        #[test]
        fn any_goto_and_eval_request_roundtrips(url in "\\PC{0,60}", code in "\\PC{0,60}", t in proptest::option::of(0u64..1_000_000)) {
            for argv in [
                vec!["ab", "browser", "goto", url.as_str(), "--session", "s1", "--tab", "t1"],
                vec!["ab", "browser", "eval", code.as_str(), "--session", "s1", "--tab", "t1"],
            ] {
                // Values starting with '-' are flags to clap; skip those.
                let Ok(Cli { command: Some(TopCommand::Table(command)), .. }) =
                    Cli::try_parse_from(argv.iter().map(OsString::from).collect::<Vec<_>>())
                else {
                    continue;
                };
                let Ok(mut req) = lower::lower(command, &args::GlobalArgs::default()) else {
                    continue;
                };
                req.timeout_ms = t;
                let s = serde_json::to_string(&req).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                let back: actionbook::engine::Request = serde_json::from_str(&s).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                proptest::prop_assert_eq!(serde_json::to_string(&back).ok(), Some(s));
            }
        }
    }

    #[test]
    fn requests_roundtrip_through_json() {
        let cli = Cli::try_parse_from(argv(&[
            "ab",
            "browser",
            "fill",
            "@e2",
            "hi",
            "--session",
            "s1",
            "--tab",
            "t1",
        ]));
        let Ok(Cli {
            command: Some(TopCommand::Table(command)),
            ..
        }) = cli
        else {
            panic!("parse failed");
        };
        let req = lower::lower(
            command,
            &args::GlobalArgs {
                json: false,
                timeout: Some(5),
                confirm: None,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let s = serde_json::to_string(&req).unwrap_or_default();
        let back: actionbook::engine::Request =
            serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"));
        assert_eq!(back.command.name(), CommandName::BrowserFill);
        assert_eq!(back.timeout_ms, Some(5));
        assert_eq!(back, req);
    }
}
