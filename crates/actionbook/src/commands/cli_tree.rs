//! The clap side of the command table: each row becomes a subcommand at the path its name spells
//! (`browser wait element` is `browser` > `wait` > `element`; `search` is top level), with the
//! group commands made on the way; and back from parsed matches to the row.

use envelope::CommandName;

/// One line of help for the group commands (`browser`, `browser wait`, ...).
fn group_about(path: &str) -> &'static str {
    match path {
        "browser" => "Control browser sessions, tabs and pages",
        "browser wait" => {
            "Wait for an element, a navigation, network idle, a condition or a download"
        }
        "browser cookies" => "Read and change the session's cookies",
        "browser local-storage" => "Read and change the page's localStorage",
        "browser session-storage" => "Read and change the page's sessionStorage",
        "browser storage-state" => {
            "Save or load the session's auth state (cookies, localStorage, sessionStorage) as Playwright's storageState file"
        }
        "browser logs" => "Read the tab's console messages and errors",
        "browser network" => "Inspect, record and route the tab's network requests",
        "ai-cache" => "List and clear the agent layer's cached actions (perform's replays)",
        "areas" => "Record, import, export, list and delete the stored areas (action manuals)",
        _ => "Subcommands",
    }
}

/// What the help of a wait says of `--timeout` (the spec makes it required; the reference CLI
/// 1.6 defaults to 30 s: the spec is the contract here).
pub(super) const TIMEOUT_REQUIRED: &str = "--timeout <ms> is required: how long to wait is the caller's to say (the reference CLI's default was 30000)";

/// Adds the row `name` (its request's arguments from `augment`) at its path under `parent`.
pub(super) fn insert(
    parent: clap::Command,
    name: CommandName,
    about: &'static str,
    example: &'static str,
    alias: Option<&'static str>,
    augment: impl FnOnce(clap::Command) -> clap::Command,
) -> clap::Command {
    let words: Vec<&'static str> = name.as_str().split(' ').collect();
    let Some((leaf_word, groups)) = words.split_last() else {
        return parent;
    };
    let needs_timeout = super::CommandSpec::of(name).is_some_and(|s| s.traits.needs_timeout);
    let after = match needs_timeout {
        true => format!("{TIMEOUT_REQUIRED}\n\nExample:\n  {example}"),
        false => format!("Example:\n  {example}"),
    };
    let mut leaf = augment(clap::Command::new(*leaf_word))
        .about(about)
        .after_help(after);
    if let Some(alias) = alias {
        leaf = leaf.visible_alias(alias);
    }
    insert_at(parent, groups, String::new(), leaf)
}

fn insert_at(
    parent: clap::Command,
    groups: &[&'static str],
    prefix: String,
    leaf: clap::Command,
) -> clap::Command {
    let Some((group, rest)) = groups.split_first() else {
        return parent.subcommand(leaf);
    };
    let path = if prefix.is_empty() {
        group.to_string()
    } else {
        format!("{prefix} {group}")
    };
    let parent = if parent.find_subcommand(group).is_some() {
        parent
    } else {
        parent.subcommand(
            clap::Command::new(*group)
                .about(group_about(&path))
                .subcommand_required(true)
                .arg_required_else_help(true),
        )
    };
    parent.mut_subcommand(*group, |g| insert_at(g, rest, path, leaf))
}

/// The row whose path the parsed subcommands spell, and the matches of its leaf (taken out of
/// `m`).
pub(super) fn take_command(
    m: &mut clap::ArgMatches,
) -> Result<(CommandName, clap::ArgMatches), clap::Error> {
    let mut words: Vec<String> = Vec::new();
    let mut matches = std::mem::take(m);
    while let Some((word, sub)) = matches.remove_subcommand() {
        words.push(word);
        matches = sub;
    }
    let name = words.join(" ");
    match name.parse::<CommandName>() {
        Ok(n) => Ok((n, matches)),
        Err(_) => Err(not_a_command(&name)),
    }
}

/// The clap error for a path that names no command.
pub(super) fn not_a_command(name: &str) -> clap::Error {
    clap::Error::raw(
        clap::error::ErrorKind::InvalidSubcommand,
        format!("'{name}' is not a command\n"),
    )
}
