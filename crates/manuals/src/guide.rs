//! `setup --target <agent>`: a usage guide for a coding agent, generated from the binary's own
//! command table (so it never drifts from the version that wrote it), written where that agent
//! looks for skills. Rerunning replaces the file.
//!
//! | target | file (under the user's home) | why there |
//! |---|---|---|
//! | `claude` | `~/.claude/skills/actionbook/SKILL.md` | Claude Code's personal skills folder |
//! | `codex` | `~/.agents/skills/actionbook/SKILL.md` | Codex's user-scope skills folder (`$HOME/.agents/skills`) |
//! | `cursor` | `~/.cursor/skills/actionbook/SKILL.md` | Cursor's user-level skills folder |
//! | `stdout` | none: the guide is the answer | for any other agent or a project file |
//!
//! All three read the open Agent Skills format: a folder with a `SKILL.md` that starts with YAML
//! front matter (`name`, `description`), followed by Markdown instructions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use envelope::{AddressingLevel, ErrorCode, RenderText, TextBody};
use serde::Serialize;

use super::error::{ManualsError, Result};
use super::mcp_config::McpSnippet;

/// The skill's folder name.
pub const SKILL_NAME: &str = "actionbook";

/// Which agent the guide is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GuideTarget {
    /// Claude Code.
    Claude,
    /// OpenAI Codex.
    Codex,
    /// Cursor.
    Cursor,
    /// Print the guide instead of writing it.
    Stdout,
}

impl GuideTarget {
    /// Every target, in `--help` order.
    pub const ALL: &'static [GuideTarget] = &[
        GuideTarget::Claude,
        GuideTarget::Codex,
        GuideTarget::Cursor,
        GuideTarget::Stdout,
    ];

    /// The `--target` value.
    pub fn as_str(self) -> &'static str {
        match self {
            GuideTarget::Claude => "claude",
            GuideTarget::Codex => "codex",
            GuideTarget::Cursor => "cursor",
            GuideTarget::Stdout => "stdout",
        }
    }

    /// Where the guide goes under `home` (the user's home folder); `None` for `stdout`.
    pub fn path(self, home: &Path) -> Option<PathBuf> {
        let base = match self {
            GuideTarget::Claude => home.join(".claude").join("skills"),
            GuideTarget::Codex => home.join(".agents").join("skills"),
            GuideTarget::Cursor => home.join(".cursor").join("skills"),
            GuideTarget::Stdout => return None,
        };
        Some(base.join(SKILL_NAME).join("SKILL.md"))
    }
}

impl FromStr for GuideTarget {
    type Err = ManualsError;

    fn from_str(s: &str) -> Result<GuideTarget> {
        match s.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" => Ok(GuideTarget::Claude),
            "codex" => Ok(GuideTarget::Codex),
            "cursor" => Ok(GuideTarget::Cursor),
            "stdout" | "-" => Ok(GuideTarget::Stdout),
            _ => Err(ManualsError::InvalidArgument {
                argument: "target",
                value: s.to_string(),
                reason: "expected claude, codex, cursor or stdout".into(),
            }),
        }
    }
}

/// One command of the binary, as the command table describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// Normalised name (`browser click`).
    pub name: String,
    /// One line.
    pub summary: String,
    /// A complete example invocation.
    pub example: String,
    /// How it is addressed.
    pub level: AddressingLevel,
}

/// What to do about each error code (the guide's error table).
pub fn error_advice(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidArgument => {
            "Fix the arguments; `actionbook <command> --help` shows the usage."
        }
        ErrorCode::SessionNotFound => {
            "List sessions with `browser list-sessions`, or start one with `browser start`."
        }
        ErrorCode::TabNotFound => {
            "List the session's tabs with `browser list-tabs --session <SID>`."
        }
        ErrorCode::FrameNotFound => "The iframe went away or reloaded: take a new snapshot.",
        ErrorCode::ElementNotFound => {
            "Take a new snapshot and use a current ref, or fix the selector (for `get`: find ids with `search`)."
        }
        ErrorCode::MultipleMatches => {
            "Make the selector specific, or pick one with `browser query nth <n>`."
        }
        ErrorCode::IndexOutOfRange => "Check `browser query count` first; `nth` counts from 1.",
        ErrorCode::Timeout => {
            "Wait for the condition first (`browser wait …`) or retry with a larger `--timeout`."
        }
        ErrorCode::NavigationFailed => "Check the URL and that the site is reachable, then retry.",
        ErrorCode::EvalFailed => "Fix the JavaScript; the message carries the exception.",
        ErrorCode::ArtifactWriteFailed => "Choose an output path in a writable folder.",
        ErrorCode::UnsupportedOperation => "Not available in this mode; use another command.",
        ErrorCode::InternalError => "Retry once; if it persists, the message says what broke.",
        ErrorCode::SessionAlreadyExists => {
            "Reuse it with `--session <SID>`, or choose another id or `--profile`."
        }
        ErrorCode::BrowserNotFound => {
            "Install Chromium, or point at one: `actionbook setup --non-interactive --browser /path/to/chromium`."
        }
        ErrorCode::CdpConnectionFailed => {
            "The browser went away: `browser restart --session <SID>` or start a new session."
        }
        ErrorCode::StaleElement => {
            "The page changed under the ref: take a new snapshot and retry with the new ref."
        }
        ErrorCode::ApiError => {
            "The remote manuals API failed; local manuals still answer, retry later."
        }
        ErrorCode::BatchClickError => {
            "`details.completed` clicks were done: fix the one at `details.failed_index` and run the rest."
        }
        ErrorCode::BatchOpenError => {
            "`details.failures` lists the URLs that did not load; their tabs are open on the error page: navigate them again."
        }
        ErrorCode::DownloadFailed => {
            "The server, the page or the network ended the download: do again what began it (`browser downloads` lists them)."
        }
        ErrorCode::HarNotRecording => "Start a recording with `browser network har start` first.",
        ErrorCode::HarAlreadyRecording => {
            "One records already: `browser network har stop` writes it, then start again."
        }
        ErrorCode::AccessDenied => {
            "The session's rules refuse it (`--allowed-domains`, `--deny-actions`): start a session with other rules if it is meant."
        }
        ErrorCode::ConfirmationRequired => {
            "Nothing ran: ask whoever decides, then repeat the command with `--confirm <token>` from `details.token`."
        }
        _ => "Read the message and hint; retry if `retryable` is true.",
    }
}

fn level_title(level: AddressingLevel) -> &'static str {
    match level {
        AddressingLevel::NonBrowser => "Outside the browser",
        AddressingLevel::Global => "Browser, no session needed",
        AddressingLevel::Session => "Session commands (`--session <SID>`)",
        AddressingLevel::Tab => "Tab commands (`--session <SID> --tab <TID>`)",
    }
}

/// Text fit for a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The guide (a `SKILL.md`), for the actionbook `version` with these commands.
pub fn render_guide(version: &str, target: GuideTarget, commands: &[CommandInfo]) -> String {
    let has = |name: &str| commands.iter().any(|c| c.name == name);
    let mut s = String::new();
    // Front matter: the description is what the agent matches tasks against.
    let _ = writeln!(s, "---");
    let _ = writeln!(s, "name: {SKILL_NAME}");
    let _ = writeln!(
        s,
        "description: Drive a real Chromium browser from the shell with the actionbook CLI {version}: start a session, snapshot a page, act on element refs (click, fill, select, upload), wait for pages, read text and values, find recorded action manuals. Use for any task that needs a web page: browsing, forms, logins, scraping, UI checks."
    );
    let _ = writeln!(s, "---");
    let _ = writeln!(s);
    let _ = writeln!(s, "# actionbook {version}");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "<!-- Written by `actionbook setup --target {}` from the commands of actionbook {version}; rerun it after an upgrade. Edits here are replaced. -->",
        target.as_str()
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "actionbook drives real Chromium sessions through a background daemon that it starts itself. Every command is stateless: pass `--session <SID>` and `--tab <TID>` explicitly; sessions and tabs run in parallel. Text output is for reading; add `--json` for the envelope `{{ok, command, context, data, error, meta}}` (pagination in `meta.pagination`, warnings in `meta.warnings`)."
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "## Workflow: snapshot, ref, act");
    let _ = writeln!(s);
    let steps = [
        (
            "browser start",
            "`actionbook browser start --headless --set-session-id work` starts session `work` with tab `t1`.",
        ),
        (
            "browser goto",
            "`actionbook browser goto https://example.com --session work --tab t1` loads a page.",
        ),
        (
            "browser snapshot",
            "`actionbook browser snapshot --session work --tab t1` prints the page's accessibility tree; every interactive element has a ref such as `[ref=e5]`, inside iframes too.",
        ),
        (
            "browser click",
            "Act on refs: `actionbook browser click @e5 --session work --tab t1`, `actionbook browser fill @e3 \"text\" --session work --tab t1`.",
        ),
        (
            "browser wait navigation",
            "After a click that loads a page: `actionbook browser wait navigation --session work --tab t1 --timeout 10000`, then snapshot again. Refs of elements that did not change stay the same.",
        ),
        (
            "browser close",
            "`actionbook browser close --session work` closes the browser when done.",
        ),
    ];
    let mut n = 0;
    for (needs, text) in steps {
        if has(needs) {
            n += 1;
            let _ = writeln!(s, "{n}. {text}");
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "A selector is a ref from the latest snapshot (`@e5`), a CSS selector (`#email`; `:has-text(Save)`, `:contains(Save)` and `:visible` too), a role and name (`role=button[name=\"Sign in\"]`) or an XPath (starting with `/`). Prefer refs; re-snapshot when a ref is reported missing or stale."
    );
    let waits: Vec<&CommandInfo> = commands
        .iter()
        .filter(|c| c.name.starts_with("browser wait"))
        .collect();
    if !waits.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "## Waiting");
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "Actions wait for their element to be actionable. Wait explicitly for what a page does afterwards; every wait takes `--timeout <ms>` and fails with `TIMEOUT` rather than hanging."
        );
        let _ = writeln!(s);
        for w in waits {
            let _ = writeln!(s, "- `{}`: {} (`{}`)", w.name, w.summary, w.example);
        }
    }
    if has("search") && has("get") {
        let _ = writeln!(s);
        let _ = writeln!(s, "## Action manuals");
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "Known pages have manuals: `actionbook search <words>` (e.g. `actionbook search login -d example.com`) lists areas with their ids; `actionbook get <area_id>` gives each element's CSS / XPath and the methods that work on it. Use those selectors directly instead of a snapshot when they match the page."
        );
        if has("areas record") {
            let _ = writeln!(
                s,
                "Record a page you will come back to with `actionbook areas record --session <SID> --tab <TID>`; recording it again updates it."
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "## Commands");
    for level in [
        AddressingLevel::NonBrowser,
        AddressingLevel::Global,
        AddressingLevel::Session,
        AddressingLevel::Tab,
    ] {
        let group: Vec<&CommandInfo> = commands.iter().filter(|c| c.level == level).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "### {}", level_title(level));
        let _ = writeln!(s);
        let _ = writeln!(s, "| command | what it does | example |");
        let _ = writeln!(s, "|---|---|---|");
        for c in group {
            let _ = writeln!(
                s,
                "| `{}` | {} | `{}` |",
                cell(&c.name),
                cell(&c.summary),
                cell(&c.example)
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "## Errors and what to do");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "A failure prints `error <CODE>: <message>` (and often `hint: …`); with `--json`, `ok` is false and `error` has `code`, `message`, `retryable`, `details`. The exit status is 1 (2 for usage errors)."
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| code | what to do |");
    let _ = writeln!(s, "|---|---|");
    for code in ErrorCode::ALL {
        let _ = writeln!(s, "| `{}` | {} |", code.as_str(), error_advice(*code));
    }
    s
}

/// What `setup --target` did: the envelope's `data`.
///
/// ```text
/// guide: /home/u/.claude/skills/actionbook/SKILL.md (written, 58 commands)
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuideReport {
    /// The target.
    pub target: GuideTarget,
    /// The file written (`null` for `stdout`).
    pub path: Option<String>,
    /// Whether an earlier guide was replaced.
    pub replaced: bool,
    /// Commands in the guide.
    pub commands: usize,
    /// The guide itself (`stdout` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The MCP server entry for the agent's client (`actionbook mcp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpSnippet>,
}

impl RenderText for GuideReport {
    fn is_action(&self) -> bool {
        self.content.is_none()
    }
    fn render_body(&self, body: &mut TextBody<'_>) {
        match (&self.content, &self.path) {
            (Some(content), _) => {
                for line in content.lines() {
                    body.line(line);
                }
            }
            (None, Some(path)) => body.field(
                "guide",
                format_args!(
                    "{path} ({}, {} commands)",
                    if self.replaced { "replaced" } else { "written" },
                    self.commands
                ),
            ),
            (None, None) => {}
        }
        let Some(mcp) = &self.mcp else {
            return;
        };
        if self.content.is_some() {
            // The guide is Markdown on stdout: the entry is one more section of it.
            let lang = if self.target == GuideTarget::Codex {
                "toml"
            } else {
                "json"
            };
            body.line("");
            body.line("## MCP server");
            body.line("");
            body.line(format_args!("Add to {}:", mcp.place));
            body.line("");
            body.line(format_args!("```{lang}"));
            body.line(mcp.config.trim_end());
            body.line("```");
        } else {
            body.field("mcp", format_args!("add to {}:", mcp.place));
            body.line(mcp.config.trim_end());
        }
    }
}

/// Writes (or, for `stdout`, returns) the guide for `target` under the user's `home`.
pub fn install_guide(
    target: GuideTarget,
    home: &Path,
    version: &str,
    commands: &[CommandInfo],
) -> Result<GuideReport> {
    let text = render_guide(version, target, commands);
    let Some(path) = target.path(home) else {
        return Ok(GuideReport {
            target,
            path: None,
            replaced: false,
            commands: commands.len(),
            content: Some(text),
            mcp: None,
        });
    };
    let replaced = path.exists();
    let write_err = |source| ManualsError::WriteFile {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write_err)?;
    }
    crate::files::write_durable(&path, text.as_bytes(), 0o644).map_err(write_err)?;
    Ok(GuideReport {
        target,
        path: Some(path.display().to_string()),
        replaced,
        commands: commands.len(),
        content: None,
        mcp: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<CommandInfo> {
        let c = |name: &str, level| CommandInfo {
            name: name.into(),
            summary: format!("does {name}"),
            example: format!("actionbook {name} | x"),
            level,
        };
        vec![
            c("search", AddressingLevel::NonBrowser),
            c("get", AddressingLevel::NonBrowser),
            c("browser start", AddressingLevel::Global),
            c("browser close", AddressingLevel::Session),
            c("browser goto", AddressingLevel::Tab),
            c("browser snapshot", AddressingLevel::Tab),
            c("browser click", AddressingLevel::Tab),
            c("browser wait navigation", AddressingLevel::Tab),
            c("browser wait element", AddressingLevel::Tab),
        ]
    }

    #[test]
    fn the_guide_names_every_command_and_error_code() {
        let commands = table();
        let g = render_guide("9.9.9", GuideTarget::Claude, &commands);
        assert!(g.starts_with("---\nname: actionbook\ndescription: "), "{g}");
        assert!(g.contains("# actionbook 9.9.9"));
        for c in &commands {
            assert!(g.contains(&format!("| `{}` |", c.name)), "{}", c.name);
        }
        for code in ErrorCode::ALL {
            assert!(g.contains(&format!("| `{}` |", code.as_str())));
            assert!(
                !error_advice(*code).starts_with("Read the message"),
                "{code:?} has no advice"
            );
        }
        assert!(
            g.contains("| `actionbook search \\| x` |"),
            "pipes are escaped"
        );
        assert!(g.contains("## Waiting") && g.contains("`browser wait element`"));
        assert!(g.contains("1. `actionbook browser start"));
        // Without wait commands or manuals, those sections are left out.
        let bare = render_guide("1", GuideTarget::Codex, &commands[2..4]);
        assert!(!bare.contains("## Waiting") && !bare.contains("## Action manuals"));
    }

    #[test]
    fn installs_where_each_agent_reads_and_replaces_on_rerun() {
        let home = tempfile::tempdir().unwrap();
        for target in [GuideTarget::Claude, GuideTarget::Codex, GuideTarget::Cursor] {
            let r = install_guide(target, home.path(), "1.0.0", &table()).unwrap();
            let path = PathBuf::from(r.path.clone().unwrap());
            assert!(path.starts_with(home.path()));
            assert!(path.ends_with("skills/actionbook/SKILL.md"));
            assert!(!r.replaced);
            assert_eq!(r.commands, table().len());
            let again = install_guide(target, home.path(), "1.0.1", &table()[..3]).unwrap();
            assert!(again.replaced);
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.contains("# actionbook 1.0.1") && !text.contains("1.0.0"));
            assert!(!text.contains("browser goto"));
            assert_eq!(
                std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
                1
            );
        }
        assert!(
            home.path()
                .join(".claude/skills/actionbook/SKILL.md")
                .exists()
        );
        assert!(
            home.path()
                .join(".agents/skills/actionbook/SKILL.md")
                .exists()
        );
        assert!(
            home.path()
                .join(".cursor/skills/actionbook/SKILL.md")
                .exists()
        );
        let out = install_guide(GuideTarget::Stdout, home.path(), "1", &table()).unwrap();
        assert_eq!(out.path, None);
        assert!(out.content.unwrap().contains("## Commands"));
        assert_eq!(
            "Claude-Code".parse::<GuideTarget>().unwrap(),
            GuideTarget::Claude
        );
        assert!("vim".parse::<GuideTarget>().is_err());
    }
}
