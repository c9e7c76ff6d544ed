//! Printing replies and usage errors: stdout or stderr, JSON or text, and the exit code.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use envelope::{CommandName, Envelope, ErrorCode};

use actionbook::error::CliError;
use actionbook::reply;

/// Exit code of usage errors.
const USAGE_EXIT: u8 = 2;

/// Best-effort normalised command name from raw argv (for usage errors).
pub(super) fn guess_command(argv: &[OsString]) -> String {
    let words: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.starts_with('-'))
        .collect();
    // The longest run of leading words that names a command (`browser wait element`).
    let known = (1..=words.len().min(4)).rev().find_map(|n| {
        let mut name = words[..n].to_vec();
        if name.len() >= 2 && name[0] == "browser" && name[1] == "open" {
            name[1] = "new-tab".to_string();
        }
        let name = name.join(" ");
        name.parse::<envelope::CommandName>().ok().map(|_| name)
    });
    if let Some(name) = known {
        return name;
    }
    match words.as_slice() {
        [b, sub, ..] if b == "browser" => {
            let sub = if sub == "open" {
                "new-tab"
            } else {
                sub.as_str()
            };
            format!("browser {sub}")
        }
        [first, ..] => first.clone(),
        [] => "actionbook".to_string(),
    }
}

pub(super) fn usage_error(argv: &[OsString], json: bool, e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = write_out(&e.render().to_string(), false);
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    if json {
        let rendered = e.render().to_string();
        let message = rendered
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ")
            .trim_start_matches("error: ")
            .to_string();
        let err = CliError::InvalidArgument(message);
        let guess = guess_command(argv);
        match guess.parse::<CommandName>() {
            Ok(name) => {
                let _ = print(&reply::failure(name, None, &err), None, true);
            }
            // An unknown subcommand: named as typed, never as another command.
            Err(_) => {
                let _ = write_out(&reply::unknown_command_json(&guess, &err), false);
            }
        }
    } else {
        // The spec's error line (`error <CODE>: message`), then clap's help on what was wrong
        // (the possible values, the usage line).
        let rendered = e.render().to_string();
        let text = match rendered.strip_prefix("error: ") {
            Some(rest) => format!("error {}: {rest}", ErrorCode::InvalidArgument.as_str()),
            None => rendered,
        };
        let _ = write_out(&text, true);
    }
    ExitCode::from(USAGE_EXIT)
}

/// Writes text; a closed pipe is not an error worth reporting.
pub(super) fn write_out(text: &str, to_stderr: bool) -> std::io::Result<()> {
    let text = if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    };
    let r = if to_stderr {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|_| out.flush())
    };
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Prints an envelope: JSON on stdout with `--json` (the daemon's text as is when given), else the
/// text format, on stdout for success and stderr for failure.
pub(super) fn print(env: &Envelope, json_text: Option<&str>, json: bool) -> ExitCode {
    let result = if json {
        match json_text {
            Some(t) => write_out(t, false),
            None => write_out(&env.to_json(), false),
        }
    } else {
        write_out(&env.to_text(), !env.ok())
    };
    if let Err(e) = result {
        let _ = write_out(&format!("actionbook: cannot write output: {e}"), true);
    }
    ExitCode::from(env.exit_code())
}
