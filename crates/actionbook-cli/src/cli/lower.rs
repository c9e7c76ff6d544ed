//! Lowering: from what clap parsed to the typed [`Request`] the engine runs. Client-side facts are
//! filled in here, explicitly: the caller's environment and working directory ([`ClientEnv`]).

use std::ffi::OsString;

use clap::Parser as _;

use crate::cli::args::{Cli, GlobalArgs, TopCommand};
use actionbook::commands::Command;
use actionbook::engine::Request;
use actionbook::error::CliError;
use actionbook::model::ClientEnv;

/// The request of a parsed `browser` command, with this process's environment. What only the
/// client can do happens here: `eval --file` and `eval -` are read, upload paths are made absolute
/// (against this process's working directory) and checked to be readable files.
pub(crate) fn lower(command: Command, global: &GlobalArgs) -> Result<Request, CliError> {
    let env = ClientEnv::from_process();
    let command = match command {
        Command::BrowserEval(e) => Command::BrowserEval(e.read_code(env.cwd.as_deref())?),
        Command::BrowserUpload(mut u) => {
            u.files = actionbook::commands::interaction::form::resolve_files(&env, &u.files)?;
            Command::BrowserUpload(u)
        }
        other => other,
    };
    Ok(Request {
        command,
        timeout_ms: global.timeout,
        env,
        confirm: global.confirm.clone(),
    })
}

/// Parses the words after `actionbook` (`["browser", "goto", URL, "--session", "s1", ...]`) into
/// a request, exactly as the binary does (its lowering included: the environment is this
/// process's); `--timeout` is honoured, `--json` ignored. For CLI parity in programs that drive
/// the [`Engine`](actionbook::Engine) in-process; typed requests ([`Request::new`]) need no
/// parsing.
pub fn request_from_args<I, S>(args: I) -> Result<Request, CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    actionbook_agent::register();
    request_from_words(args)
}

/// Parses the words after `actionbook` into a request.
fn request_from_words<I, S>(args: I) -> Result<Request, CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let (command, global) = parse_words(args)?;
    lower(command, &global)
}

/// Parses the words after `actionbook` into a command of the table and its global flags, not
/// lowered yet (`batch` checks a line before anything is read for it).
pub(crate) fn parse_words<I, S>(args: I) -> Result<(Command, GlobalArgs), CliError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let argv =
        std::iter::once(OsString::from("actionbook")).chain(args.into_iter().map(Into::into));
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or_default();
        CliError::InvalidArgument(first.trim_start_matches("error: ").to_string())
    })?;
    match cli.command {
        Some(TopCommand::Table(command)) => Ok((command, cli.global)),
        _ => Err(CliError::InvalidArgument(
            "expected a command of the table (`browser ...`, ...), not help or the daemon"
                .to_string(),
        )),
    }
}
