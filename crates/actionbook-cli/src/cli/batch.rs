//! `actionbook batch`: many commands, one per line, through the daemon in order. A line is CLI
//! words (`browser click @e3 --session s1 --tab t1`, a leading `actionbook` optional) or a JSON
//! object (`{"command": "browser click", "args": {...}}`, the wire form of a command); blank lines
//! and `#` comments are skipped. Each command answers one envelope (a JSON line with `--json`, a
//! text block otherwise, all on stdout in order); a line that does not parse is an
//! `INVALID_ARGUMENT` envelope and the rest still run, unless `--bail`. Exit code: the first
//! failure's, else 0. Lines are read as they come, so a producer may pipe them one at a time.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use envelope::{CommandName, ErrorCode};
use serde::Deserialize;

use super::args::GlobalArgs;
use super::lower::{lower, parse_words};
use super::print::{guess_command, write_out};
use actionbook::commands::{Command, CommandSpec};
use actionbook::daemon::client;
use actionbook::engine::Request;
use actionbook::error::CliError;
use actionbook::mcp::tools;
use actionbook::model::ClientEnv;
use actionbook::reply;
use actionbook::store::Home;

/// `actionbook batch` arguments.
#[derive(Debug, Clone, Args)]
pub struct BatchArgs {
    /// Read the commands from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "source")]
    pub file: Option<PathBuf>,
    /// `-` (standard input, the default) or a file.
    #[arg(value_name = "FILE|-")]
    pub source: Option<PathBuf>,
    /// Stop at the first command that fails.
    #[arg(long)]
    pub bail: bool,
}

/// A JSON line: the command's wire form, with an optional timeout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonLine {
    command: String,
    #[serde(default)]
    args: Option<serde_json::Value>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    /// The `--confirm` token of a command the session's policy holds back.
    #[serde(default)]
    confirm: Option<String>,
}

/// A line that could not become a request: the envelope to print (JSON and text).
struct Rejected {
    json: String,
    text: String,
    exit_code: u8,
}

impl Rejected {
    fn new(name: &str, err: &CliError) -> Rejected {
        match name.parse::<CommandName>() {
            Ok(name) => {
                let env = reply::failure(name, None, err);
                Rejected {
                    json: env.to_json(),
                    text: env.to_text(),
                    exit_code: env.exit_code(),
                }
            }
            Err(_) => Rejected {
                json: reply::unknown_command_json(name, err),
                text: format!("error {}: {err}", err.code().as_str()),
                exit_code: err.code().exit_code(),
            },
        }
    }
}

/// Runs the batch; the exit code of the first failure, or 0.
pub fn run(home: &Home, args: &BatchArgs, global: &GlobalArgs) -> ExitCode {
    let source = args.file.as_ref().or(args.source.as_ref());
    let input: Box<dyn BufRead> = match source {
        None => Box::new(std::io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                let err = CliError::InvalidArgument(format!("cannot read {}: {e}", p.display()));
                let rejected = Rejected::new("batch", &err);
                let out = if global.json {
                    rejected.json
                } else {
                    rejected.text
                };
                let _ = write_out(&out, !global.json);
                return ExitCode::from(rejected.exit_code);
            }
        },
    };
    let env = ClientEnv::from_process();
    let mut first_failure: Option<u8> = None;
    let mut printed = false;
    for (n, line) in input.split(b'\n').enumerate() {
        let line = match line {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                let _ = write_out(&format!("actionbook batch: cannot read input: {e}"), true);
                first_failure.get_or_insert(1);
                break;
            }
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut held_back = false;
        let (body, ok, exit_code) = match parse_line(line, global, &env) {
            Ok(request) => {
                let sent = client::Unanswered::of(&request.command);
                match client::send(home, request, !global.json) {
                    Ok(reply) => {
                        held_back = reply.code.is_some_and(|c| {
                            matches!(c, ErrorCode::ConfirmationRequired | ErrorCode::AccessDenied)
                        });
                        (reply.body, reply.ok, reply.exit_code)
                    }
                    Err(e) => {
                        let env = sent.envelope(&e);
                        let body = if global.json {
                            env.to_json()
                        } else {
                            env.to_text()
                        };
                        (body, false, env.exit_code())
                    }
                }
            }
            Err((name, err)) => {
                let err = CliError::InvalidArgument(format!("line {}: {err}", n + 1));
                let r = Rejected::new(&name, &err);
                (
                    if global.json { r.json } else { r.text },
                    false,
                    r.exit_code,
                )
            }
        };
        let body = body.trim_end();
        let out = if !global.json && printed {
            format!("\n{body}")
        } else {
            body.to_string()
        };
        if write_out(&out, false).is_err() {
            // The output is lost and the rest is not run: never exit 0 for that.
            first_failure.get_or_insert(1);
            break;
        }
        printed = true;
        if !ok {
            first_failure.get_or_insert(exit_code.max(1));
            // A command the session's policy held back ends the batch, --bail or not: what
            // follows may count on it having run.
            if args.bail || held_back {
                break;
            }
        }
    }
    ExitCode::from(first_failure.unwrap_or(0))
}

/// The request of one line, or the command it seems to name and why it is not one. Both forms
/// are lowered as a CLI call is (`eval --file` read, upload paths checked) once the line is known
/// to need nothing of stdin: that is where the batch's own lines come from, or, with a file, the
/// caller's, which a line must not take.
fn parse_line(
    line: &str,
    global: &GlobalArgs,
    env: &ClientEnv,
) -> Result<Request, (String, String)> {
    let (command, timeout_ms, confirm) = if line.starts_with('{') {
        let parsed: JsonLine = serde_json::from_str(line)
            .map_err(|e| ("batch".to_string(), format!("not a command object: {e}")))?;
        let name: CommandName = parsed.command.parse().map_err(|_| {
            (
                parsed.command.clone(),
                format!("unknown command {:?}", parsed.command),
            )
        })?;
        let args = parsed
            .args
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        // The same check as an MCP call's: the request's deserialisation alone ignores unknown
        // names (its flattened session and tab rule out serde's `deny_unknown_fields`).
        if let (Some(spec), serde_json::Value::Object(map)) = (CommandSpec::of(name), &args) {
            tools::check_arguments(&tools::input_schema(spec), map)
                .map_err(|e| (name.as_str().to_string(), e))?;
        }
        let command = Command::from_json(name, args)
            .map_err(|e| (name.as_str().to_string(), e.to_string()))?;
        (command, parsed.timeout_ms, parsed.confirm)
    } else {
        let mut words = split_words(line).map_err(|e| ("batch".to_string(), e))?;
        if words.first().is_some_and(|w| w == "actionbook") {
            words.remove(0);
        }
        let (command, own) = parse_words(&words).map_err(|e| {
            let argv: Vec<std::ffi::OsString> = std::iter::once("actionbook".into())
                .chain(words.iter().map(Into::into))
                .collect();
            (guess_command(&argv), e.to_string())
        })?;
        (command, own.timeout, own.confirm)
    };
    let name = command.name().as_str().to_string();
    if tools::code_from_stdin(&command) {
        return Err((
            name,
            "eval's code from stdin (`-`) is not available inside a batch: put the code on the \
             line (quoted), or use the JSON form"
                .to_string(),
        ));
    }
    let mut request = lower(command, global).map_err(|e| (name, e.to_string()))?;
    request.timeout_ms = timeout_ms.or(global.timeout);
    // A token is for one command: the batch's own `--confirm` is not handed to every line.
    request.confirm = confirm;
    request.env = env.clone();
    Ok(request)
}

/// Splits a line into words as a POSIX shell would for plain words: whitespace separates,
/// `'...'` is literal, `"..."` keeps spaces (with `\"`, `\\` escapes), `\x` outside quotes is `x`.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unterminated ' quote".to_string()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("unterminated \" quote".to_string()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("unterminated \" quote".to_string()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a trailing \\ escapes nothing".to_string()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_a_shell_would() {
        assert_eq!(
            split_words(r#"browser fill @e2 "Alice \"A\" Smith" --session s1 it\'s 'a  b'"#),
            Ok(vec![
                "browser".to_string(),
                "fill".into(),
                "@e2".into(),
                "Alice \"A\" Smith".into(),
                "--session".into(),
                "s1".into(),
                "it's".into(),
                "a  b".into()
            ])
        );
        assert_eq!(
            split_words(r#"eval '' x"#),
            Ok(vec!["eval".into(), "".into(), "x".into()])
        );
        assert!(split_words("eval 'open").is_err());
        assert!(split_words("eval \"open").is_err());
        assert!(split_words("eval x\\").is_err());
    }

    #[test]
    fn lines_parse_in_both_forms_and_bad_ones_name_their_command() {
        let g = GlobalArgs {
            json: true,
            timeout: Some(700),
            confirm: Some("batch-wide".into()),
        };
        let env = ClientEnv::default();
        let words = parse_line("actionbook browser title --session s1 --tab t1", &g, &env);
        let json = parse_line(
            r#"{"command": "browser title", "args": {"session": "s1", "tab": "t1"}}"#,
            &g,
            &env,
        );
        let (Ok(words), Ok(json)) = (words, json) else {
            panic!("did not parse")
        };
        assert_eq!(words.command, json.command);
        assert_eq!((words.timeout_ms, json.timeout_ms), (Some(700), Some(700)));
        // A token is one line's: the batch's own --confirm is not every line's.
        assert_eq!((&words.confirm, &json.confirm), (&None, &None));
        let own = parse_line(
            "browser click '#b' --session s1 --tab t1 --confirm abc",
            &g,
            &env,
        );
        assert_eq!(own.map(|r| r.confirm).ok(), Some(Some("abc".into())));
        let own = parse_line(
            r##"{"command": "browser click", "args": {"selector": "#b", "session": "s1", "tab": "t1"}, "confirm": "abc"}"##,
            &g,
            &env,
        );
        assert_eq!(own.map(|r| r.confirm).ok(), Some(Some("abc".into())));
        let own = parse_line("browser url --session s1 --tab t1 --timeout 5", &g, &env);
        assert_eq!(own.map(|r| r.timeout_ms).ok(), Some(Some(5)));
        let name = |l: &str| parse_line(l, &g, &env).err().map(|(n, _)| n);
        assert_eq!(
            name("browser title --session s1").as_deref(),
            Some("browser title")
        );
        assert_eq!(
            name(r#"{"command": "browser title", "args": {}}"#).as_deref(),
            Some("browser title")
        );
        assert_eq!(
            name(r#"{"command": "browser fly"}"#).as_deref(),
            Some("browser fly")
        );
        assert_eq!(name(r#"{"command": "#).as_deref(), Some("batch"));
        assert_eq!(name("browser fill 'x").as_deref(), Some("batch"));
        assert_eq!(name("mcp").as_deref(), Some("mcp"));
    }
}
