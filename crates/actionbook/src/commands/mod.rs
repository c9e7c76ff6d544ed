//! The command table: every command, keyed by its [`CommandName`], with its request type, its
//! stage, what it does ([`CommandTraits`]) and its help; and one module per spec section with the
//! request types and their handlers.
//!
//! - [`lifecycle`] (spec 7): `start`, `list-sessions`, `status`, `close`, `restart`;
//! - [`tabs`] (spec 8): `list-tabs`, `new-tab`, `close-tab`;
//! - [`navigation`] (spec 9): `goto`, `back`, `forward`, `reload`;
//! - [`observation`] (spec 10): `snapshot`, `screenshot`, `pdf`, `title`, `url`, `viewport`,
//!   `query`, the read commands, `describe`, `state`, `inspect-point`, `logs console|errors`;
//! - [`interaction`] (spec 11): `click`, `hover`, `focus`, `press`, `drag`, `mouse-move`,
//!   `cursor-position`, `scroll`, `type`, `fill`, `select`, `upload`, `eval`;
//! - [`waits`] (spec 12): `wait element`, `navigation`, `network-idle`, `condition`;
//! - [`cookies`] (spec 13): `cookies list`, `get`, `set`, `delete`, `clear`;
//! - [`storage`] (spec 14): `local-storage` / `session-storage` `list`, `get`, `set`, `delete`,
//!   `clear`;
//! - [`storage_state`] (ours, after Playwright's `storageState`): `storage-state save`, `load`,
//!   and what `start --state` does;
//! - [`manuals`] (spec 6.1–6.3 and ours): `search`, `get`, `setup`, `manual`, `areas …`;
//! - [`record`]: `areas record`, a tab's page as an area;
//! - [`batched`] (the reference CLI's, not in the spec): `batch-new-tab` / `batch-open`,
//!   `batch-snapshot`, `batch-click`, made of the single commands.
//! - [`network`] (ours, after the reference CLI): `network requests`, `request`, `har start|stop`,
//!   `route`, `unroute`, `routes`.
//! - [`downloads`] (ours, after agent-browser and Playwright): `downloads`, `wait download`.
//! - [`dialog`] (ours, after agent-browser and Playwright MCP): `dialog`.
//! - [`emulate`] (ours, after Playwright's context options): `emulate`.
//!
//! A request type is a plain serde struct with documented fields: it is the daemon's wire format
//! and its JSON Schema ([`CommandSpec::schema`]) is what an MCP server publishes. With the `cli`
//! feature the same struct derives `clap::Args` (its `arg` attributes are `cfg_attr`-gated), and
//! the `actionbook browser` subcommands are [`Command`]'s variants, made from the rows below.
//!
//! Adding a command: its request type and handler (an impl of `GlobalCommand`,
//! `SessionCommand` or `TabCommand`) in its section's module, and one row in
//! `command_table!` below. Its addressing level is [`CommandName::level`]; the row's stage says
//! which pipeline runs it (a tab-level command may run as a session command when it only changes
//! the tab list, as `close-tab` does), checked at compile time.

use std::sync::Arc;

use envelope::{AddressingLevel, CommandName, Context, Data, Envelope};
use serde::de::Error as _;
use serde::{Deserialize, Serialize};

use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, CommandTraits};
use crate::reply::{Done, failure, failure_of, success};
use crate::tab::pipeline::run_tab;
use crate::tab::{BrowserSession, Sessions};

#[cfg(feature = "cli")]
mod cli_tree;
/// Inserts `name` into a clap tree as the table does (the CLI crate's tests of the tree).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn cli_tree_insert_for_test(cmd: clap::Command, name: CommandName) -> clap::Command {
    cli_tree::insert(cmd, name, "about", "example", None, |c| c)
}
/// Takes the command out of parsed matches as the table does (the CLI crate's tests).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn cli_tree_take_for_test(
    m: &mut clap::ArgMatches,
) -> std::result::Result<(CommandName, clap::ArgMatches), clap::Error> {
    cli_tree::take_command(m)
}
pub mod batched;
pub mod cookies;
pub mod dialog;
pub mod downloads;
pub mod emulate;
pub mod extension;
pub mod interaction;
pub mod lifecycle;
pub mod manuals;
pub mod navigation;
pub mod network;
pub mod observation;
pub mod record;
mod remote_start;
mod request;
pub mod secret;
pub mod storage;
pub mod storage_state;
pub mod tabs;
pub mod waits;

pub use request::Request;

/// What every handler gets besides its request.
#[derive(Debug)]
pub(crate) struct Cx<'a> {
    /// Every session.
    pub sessions: &'a Sessions,
    /// The command's deadline.
    pub deadline: &'a Deadline,
    /// The caller's environment.
    pub env: &'a ClientEnv,
}

/// A command that needs no session (`browser start`, `browser list-sessions`).
pub(crate) trait GlobalCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// Runs the command.
    async fn run(self, cx: &Cx<'_>) -> Result<Done<Self::Data>>;
}

/// A command that runs on a session (its structure, its tab list, its browser).
pub(crate) trait SessionCommand: Sized {
    /// The data type.
    type Data: Into<Data>;
    /// The session addressed.
    fn session_id(&self) -> &str;
    /// The answer when the session does not exist (default: SESSION_NOT_FOUND).
    fn when_missing(&self) -> Option<Done<Self::Data>> {
        None
    }
    /// Runs the command.
    async fn run(self, cx: &Cx<'_>, session: &Arc<BrowserSession>) -> Result<Done<Self::Data>>;
}

/// Which pipeline runs a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Not a browser command (`search`, `get`, `setup`): no session, no context in the envelope.
    NonBrowser = 0,
    /// No session is looked up.
    Global = 1,
    /// The session is looked up (SESSION_NOT_FOUND otherwise) and handed to the handler.
    Session = 2,
    /// The tab pipeline (`crate::tab::pipeline`): the tab's queue, attach, crash watch, context.
    Tab = 3,
}

impl Stage {
    /// Whether a command of `level` may run in this stage (a stage never needs more addressing
    /// than the request carries).
    pub const fn fits(self, level: AddressingLevel) -> bool {
        let level = match level {
            AddressingLevel::NonBrowser => 0,
            AddressingLevel::Global => 1,
            AddressingLevel::Session => 2,
            AddressingLevel::Tab => 3,
        };
        // A non-browser command has no session to look up; a browser command always reports one.
        match self {
            Stage::NonBrowser => level == 0,
            _ => self as u8 <= level,
        }
    }
}

/// One row of the command table.
#[derive(Debug, Clone, Copy)]
pub struct CommandSpec {
    /// The command.
    pub name: CommandName,
    /// Its addressing level: always `name.level()` (the one truth, in the `envelope` crate).
    pub level: AddressingLevel,
    /// The pipeline that runs it.
    pub stage: Stage,
    /// What it does.
    pub traits: CommandTraits,
    /// One line of help.
    pub about: &'static str,
    /// An example command line.
    pub example: &'static str,
    /// Another name it answers to (`open` for `new-tab`).
    pub alias: Option<&'static str>,
    /// The JSON Schema of its request type (doc comments are descriptions).
    pub schema: fn() -> schemars::Schema,
}

impl CommandSpec {
    /// Whether the command stops when whoever asked for it is gone (a CLI client killed, an MCP
    /// call cancelled): a read or a wait, whose answer nobody reads and which would hold its tab
    /// until its own `--timeout`. Other commands finish: a start, a close or an eval cut midway
    /// would leave things half done.
    pub fn stops_without_its_caller(&self) -> bool {
        self.traits.read_only || self.traits.needs_timeout
    }

    /// The row of `name`, if the command is implemented.
    pub fn of(name: CommandName) -> Option<&'static CommandSpec> {
        COMMANDS
            .iter()
            .find(|c| c.name == name)
            .or_else(|| extension::extension(name).map(|e| e.spec()))
    }

    /// The subcommand word(s) after `browser` (`goto` for `browser goto`, `wait element` for
    /// `browser wait element`; the whole name for a non-browser command).
    pub fn subcommand(&self) -> &'static str {
        subcommand_name(self.name)
    }

    /// The words of the command's name: its path in the CLI (`["browser", "wait", "element"]`).
    pub fn words(&self) -> Vec<&'static str> {
        self.name.as_str().split(' ').collect()
    }
}

/// The words after `browser` of a command name.
pub fn subcommand_name(name: CommandName) -> &'static str {
    let s = name.as_str();
    s.strip_prefix("browser ").unwrap_or(s)
}

fn schema_of<T: schemars::JsonSchema>() -> schemars::Schema {
    schemars::SchemaGenerator::default().into_root_schema_for::<T>()
}

macro_rules! optional {
    () => {
        None
    };
    ($v:literal) => {
        Some($v)
    };
}

macro_rules! command_table {
    ($( $name:ident($req:ty) => $stage:ident, $traits:expr,
        about = $about:literal, example = $example:literal $(, alias = $alias:literal)?; )*) => {
        /// A typed command: one variant per row of the table, holding its request.
        ///
        /// On the wire (and in JSON generally) `{"command": "browser goto", "args": {...}}`; with
        /// the `cli` feature, also the `actionbook browser` subcommands.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Command {
            $(
                #[doc = $about]
                $name($req),
            )*
            /// A command of a registered [`extension`] (the agent layer's, say).
            Extended(extension::ExtendedCommand),
        }

        // The clap side: every row becomes a subcommand at the path its name spells
        // (`browser wait element` is `wait` > `element` under `browser`; `search` is top level).
        #[cfg(feature = "cli")]
        impl clap::Subcommand for Command {
            fn augment_subcommands(cmd: clap::Command) -> clap::Command {
                let mut cmd = cmd;
                $(
                    cmd = cli_tree::insert(
                        cmd,
                        CommandName::$name,
                        $about,
                        $example,
                        optional!($($alias)?),
                        <$req as clap::Args>::augment_args,
                    );
                )*
                for ext in extension::extensions() {
                    let spec = ext.spec();
                    cmd = cli_tree::insert(cmd, spec.name, spec.about, spec.example, spec.alias, |c| ext.augment_args(c));
                }
                cmd
            }

            fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment_subcommands(cmd)
            }

            fn has_subcommand(name: &str) -> bool {
                extension::all_commands().iter().any(|c| c.words().first() == Some(&name))
            }
        }

        #[cfg(feature = "cli")]
        impl clap::FromArgMatches for Command {
            fn from_arg_matches(m: &clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
                Self::from_arg_matches_mut(&mut m.clone())
            }

            fn from_arg_matches_mut(m: &mut clap::ArgMatches) -> std::result::Result<Self, clap::Error> {
                let (name, mut leaf) = cli_tree::take_command(m)?;
                match name {
                    $( CommandName::$name => <$req as clap::FromArgMatches>::from_arg_matches_mut(&mut leaf).map(Command::$name), )*
                    other => match extension::extension(other) {
                        Some(ext) => ext.args_from_matches(&mut leaf).map(|args| Command::Extended(extension::ExtendedCommand { name: other, args })),
                        None => Err(cli_tree::not_a_command(other.as_str())),
                    },
                }
            }

            fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> std::result::Result<(), clap::Error> {
                *self = Self::from_arg_matches(m)?;
                Ok(())
            }
        }

        /// Every implemented command, in the order the help lists them.
        pub static COMMANDS: &[CommandSpec] = &[
            $(
                CommandSpec {
                    name: CommandName::$name,
                    level: CommandName::$name.level(),
                    stage: Stage::$stage,
                    traits: $traits,
                    about: $about,
                    example: $example,
                    alias: optional!($($alias)?),
                    schema: schema_of::<$req>,
                },
            )*
        ];

        // A row's stage must fit its level: a tab pipeline needs a tab in the request.
        $( const _: () = assert!(Stage::$stage.fits(CommandName::$name.level())); )*

        $(
            impl From<$req> for Command {
                fn from(request: $req) -> Command {
                    Command::$name(request)
                }
            }
        )*

        impl Command {
            /// The command's normalised name.
            pub fn name(&self) -> CommandName {
                match self { $( Command::$name(_) => CommandName::$name, )* Command::Extended(e) => e.name }
            }

            /// The command's row in the table.
            pub fn spec(&self) -> &'static CommandSpec {
                CommandSpec::of(self.name()).unwrap_or(&COMMANDS[0])
            }

            /// The session and tab the command names (`--session`, `--tab`), as the context of
            /// a failure met before the command ran or without its answer.
            pub fn addressed(&self) -> Option<Context> {
                let args = self.args_json().ok()?;
                let session = args.get("session")?.as_str()?;
                Some(match args.get("tab").and_then(|t| t.as_str()) {
                    Some(tab) => Context::tab(session, tab),
                    None => Context::session(session),
                })
            }

            /// The request as JSON (the `args` of the wire form).
            pub fn args_json(&self) -> serde_json::Result<serde_json::Value> {
                match self { $( Command::$name(r) => serde_json::to_value(r), )* Command::Extended(e) => Ok(e.args.clone()) }
            }

            /// The command `name` with its request decoded from `args`.
            pub fn from_json(name: CommandName, args: serde_json::Value) -> serde_json::Result<Command> {
                match name {
                    $( CommandName::$name => serde_json::from_value(args).map(Command::$name), )*
                    _ if extension::extension(name).is_some() => Ok(Command::Extended(extension::ExtendedCommand { name, args })),
                    _ => Err(serde_json::Error::custom(format!("{name} is not implemented"))),
                }
            }

            fn serialize_args<M: serde::ser::SerializeStruct>(&self, m: &mut M) -> std::result::Result<(), M::Error> {
                match self { $( Command::$name(r) => m.serialize_field("args", r), )* Command::Extended(e) => m.serialize_field("args", &e.args) }
            }

            /// Runs the command through its stage.
            pub(crate) async fn dispatch(self, cx: &Cx<'_>) -> Envelope {
                // Boxed: one heap future per command instead of a stack frame as large as the
                // largest command. Each future is made and boxed in a function of its own: made
                // in this match, a debug build gave every arm a stack slot of its future's size
                // (1.1 MiB in all), which overflowed a 2 MiB thread running the agent's perform.
                match self {
                    $( Command::$name(r) => {
                        fn boxed<'a>(
                            r: $req,
                            cx: &'a Cx<'_>,
                        ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Envelope> + Send + 'a>> {
                            Box::pin(command_table!(@stage $stage, $name, $traits, r, cx))
                        }
                        boxed(r, cx).await
                    } )*
                    // Extensions run through `Engine::execute`, which hands them a runner.
                    Command::Extended(e) => failure(e.name, None, &CliError::internal(format!("{} runs only through Engine::execute", e.name))),
                }
            }
        }
    };
    (@stage NonBrowser, $name:ident, $traits:expr, $r:ident, $cx:ident) => {
        run_non_browser(CommandName::$name, $traits, $r, $cx)
    };
    (@stage Global, $name:ident, $traits:expr, $r:ident, $cx:ident) => {
        run_global(CommandName::$name, $traits, $r, $cx)
    };
    (@stage Session, $name:ident, $traits:expr, $r:ident, $cx:ident) => {
        run_session(CommandName::$name, $traits, $r, $cx)
    };
    (@stage Tab, $name:ident, $traits:expr, $r:ident, $cx:ident) => {
        run_tab($cx.sessions, CommandName::$name, $traits, $r, $cx.deadline, $cx.env)
    };
}

use CommandTraits as T;

command_table! {
    BrowserStart(lifecycle::Start) => Global, T::CHANGES,
        about = "Start a browser session (or attach with --set-session-id / --cdp-endpoint)",
        example = "actionbook browser start --headless --open-url https://example.com";
    BrowserListSessions(lifecycle::ListSessions) => Global, T::READ_ONLY,
        about = "List all sessions",
        example = "actionbook browser list-sessions --json";
    BrowserStatus(lifecycle::Status) => Session, T::READ_ONLY,
        about = "Show a session's status and tabs",
        example = "actionbook browser status --session s1";
    BrowserClose(lifecycle::Close) => Session, T::CHANGES.destructive().idempotent(),
        about = "Close a session and its browser",
        example = "actionbook browser close --session s1";
    BrowserRestart(lifecycle::Restart) => Session, T::CHANGES.destructive(),
        about = "Relaunch a session's browser with the same profile and mode",
        example = "actionbook browser restart --session s1";
    BrowserListTabs(tabs::ListTabs) => Session, T::READ_ONLY,
        about = "List the tabs of a session",
        example = "actionbook browser list-tabs --session s1";
    BrowserNewTab(tabs::NewTab) => Session, T::CHANGES,
        about = "Open one or more URLs in new tabs (waits for the load)",
        example = "actionbook browser new-tab https://example.com --session s1",
        alias = "open";
    BrowserCloseTab(tabs::CloseTab) => Session, T::CHANGES.destructive().idempotent(),
        about = "Close a tab",
        example = "actionbook browser close-tab --session s1 --tab t2";
    BrowserBatchNewTab(batched::BatchNewTab) => Session, T::CHANGES,
        about = "Open several URLs in new tabs at once (--urls ...; --tabs for their ids); each URL's failure is reported",
        example = "actionbook browser batch-new-tab --urls https://a.example https://b.example --session s1",
        alias = "batch-open";
    BrowserGoto(navigation::Goto) => Tab, T::CHANGES.loads_page().idempotent(),
        about = "Navigate to a URL and wait for the load",
        example = "actionbook browser goto https://example.com --session s1 --tab t1";
    BrowserBack(navigation::Back) => Tab, T::CHANGES.loads_page(),
        about = "Go back in history",
        example = "actionbook browser back --session s1 --tab t1";
    BrowserForward(navigation::Forward) => Tab, T::CHANGES.loads_page(),
        about = "Go forward in history",
        example = "actionbook browser forward --session s1 --tab t1";
    BrowserReload(navigation::Reload) => Tab, T::CHANGES.loads_page().idempotent(),
        about = "Reload the page",
        example = "actionbook browser reload --session s1 --tab t1";
    BrowserSnapshot(observation::Snapshot) => Tab, T::READ_ONLY,
        about = "Capture an accessibility snapshot (all frames) to a file, with stable @eN refs",
        example = "actionbook browser snapshot --interactive --session s1 --tab t1";
    BrowserBatchSnapshot(batched::BatchSnapshot) => Session, T::READ_ONLY,
        about = "Snapshot several tabs in one call (--tabs t1 t2 ...); each tab's failure is reported in its result",
        example = "actionbook browser batch-snapshot --tabs t1 t2 --interactive --session s1";
    BrowserClick(interaction::Click) => Tab, T::CHANGES.destructive(),
        about = "Click an element (@eN, CSS, XPath or x,y; any frame) once it is actionable; the click is confirmed to land",
        example = "actionbook browser click @e3 --session s1 --tab t1";
    BrowserBatchClick(batched::BatchClick) => Tab, T::CHANGES.destructive(),
        about = "Click several elements in order, each checked and confirmed; stops at the first failure (BATCH_CLICK_ERROR)",
        example = "actionbook browser batch-click @e5 @e6 @e7 --session s1 --tab t1";
    BrowserFill(interaction::Fill) => Tab, T::CHANGES.idempotent(),
        about = "Replace an input's value (@eN, CSS, XPath or x,y; any frame)",
        example = "actionbook browser fill @e2 \"Alice\" --session s1 --tab t1";
    BrowserEval(interaction::Eval) => Tab, T::CHANGES.destructive(),
        about = "Evaluate JavaScript in the page (top-level await; --file or - for stdin)",
        example = "actionbook browser eval 'document.title' --session s1 --tab t1";
    BrowserHover(interaction::Hover) => Tab, T::CHANGES.idempotent(),
        about = "Move the pointer onto an element once it is actionable (:hover applies)",
        example = "actionbook browser hover @e4 --session s1 --tab t1";
    BrowserFocus(interaction::Focus) => Tab, T::CHANGES.idempotent(),
        about = "Focus an element",
        example = "actionbook browser focus @e2 --session s1 --tab t1";
    BrowserPress(interaction::Press) => Tab, T::CHANGES.destructive(),
        about = "Press a key or chord on the focused element (Enter, Tab, Control+A, Shift+Tab)",
        example = "actionbook browser press Enter --session s1 --tab t1";
    BrowserDrag(interaction::Drag) => Tab, T::CHANGES.destructive(),
        about = "Drag an element onto another element or to x,y (HTML5 drag and drop too)",
        example = "actionbook browser drag @e5 @e9 --session s1 --tab t1";
    BrowserMouseMove(interaction::MouseMove) => Tab, T::CHANGES.idempotent(),
        about = "Move the pointer to x,y viewport coordinates",
        example = "actionbook browser mouse-move 420,310 --session s1 --tab t1";
    BrowserCursorPosition(interaction::CursorPosition) => Tab, T::READ_ONLY,
        about = "Print where the pointer was last moved in the tab",
        example = "actionbook browser cursor-position --session s1 --tab t1";
    BrowserScroll(interaction::Scroll) => Tab, T::CHANGES.idempotent(),
        about = "Scroll up|down|left|right <px>, top|bottom, or into-view <selector> (--container, --align)",
        example = "actionbook browser scroll down 500 --session s1 --tab t1";
    BrowserType(interaction::Type) => Tab, T::CHANGES.destructive(),
        about = "Type text key by key into an element, at its caret",
        example = "actionbook browser type @e2 \"hello\" --session s1 --tab t1";
    BrowserSelect(interaction::Select) => Tab, T::CHANGES.idempotent(),
        about = "Choose options of a <select> by value (or --by-text); several for multiple",
        example = "actionbook browser select @e3 green --session s1 --tab t1";
    BrowserUpload(interaction::Upload) => Tab, T::CHANGES.idempotent(),
        about = "Set the files of a file input (paths relative to the current directory)",
        example = "actionbook browser upload @e6 ./report.pdf --session s1 --tab t1";
    BrowserTitle(observation::Title) => Tab, T::READ_ONLY,
        about = "Print the page title",
        example = "actionbook browser title --session s1 --tab t1";
    BrowserUrl(observation::Url) => Tab, T::READ_ONLY,
        about = "Print the page URL",
        example = "actionbook browser url --session s1 --tab t1";
    Search(manuals::Search) => NonBrowser, T::READ_ONLY,
        about = "Search the action manuals (local store, plus the remote API when configured)",
        example = "actionbook search login form -d example.com";
    Get(manuals::Get) => NonBrowser, T::READ_ONLY,
        about = "Show an area's elements with their selectors and methods",
        example = "actionbook get example.com:/login:default";
    Manual(manuals::Manual) => NonBrowser, T::READ_ONLY,
        about = "Show a site's manual: its groups, a group's actions, or one action",
        example = "actionbook manual example.com /login:default email",
        alias = "man";
    AreasRecord(record::AreasRecord) => Tab, T::CHANGES.idempotent(),
        about = "Record the tab's page as an area: its interactive elements with verified selectors",
        example = "actionbook areas record --session s1 --tab t1 --name login";
    AreasList(manuals::AreasList) => NonBrowser, T::READ_ONLY,
        about = "List the stored areas",
        example = "actionbook areas list -d example.com";
    AreasImport(manuals::AreasImport) => NonBrowser, T::CHANGES.idempotent(),
        about = "Import areas from a file in the `areas export` format",
        example = "actionbook areas import areas.json";
    AreasExport(manuals::AreasExport) => NonBrowser, T::READ_ONLY,
        about = "Export areas (all, or those named) as JSON",
        example = "actionbook areas export example.com:/login:default";
    AreasDelete(manuals::AreasDelete) => NonBrowser, T::CHANGES.destructive(),
        about = "Delete a stored area",
        example = "actionbook areas delete example.com:/login:default";
    Setup(manuals::Setup) => NonBrowser, T::CHANGES.idempotent(),
        about = "Configure actionbook (config.toml), or --target <agent> to install its usage guide",
        example = "actionbook setup --non-interactive --browser auto";
    BrowserScreenshot(observation::Screenshot) => Tab, T::READ_ONLY,
        about = "Save a screenshot (viewport, --full page, --selector element; --annotate numbers refs)",
        example = "actionbook browser screenshot shot.png --annotate --session s1 --tab t1";
    BrowserPdf(observation::Pdf) => Tab, T::READ_ONLY,
        about = "Save the page as a PDF",
        example = "actionbook browser pdf page.pdf --session s1 --tab t1";
    BrowserViewport(observation::Viewport) => Tab, T::READ_ONLY,
        about = "Print the viewport size (CSS pixels)",
        example = "actionbook browser viewport --session s1 --tab t1";
    BrowserQuery(observation::Query) => Tab, T::READ_ONLY,
        about = "Query elements: one|all|nth <n>|count (CSS + :visible :contains() :has-text() :has(), or XPath)",
        example = "actionbook browser query all '.item:visible' --session s1 --tab t1";
    BrowserHtml(observation::Html) => Tab, T::READ_ONLY,
        about = "Print an element's outer HTML",
        example = "actionbook browser html '#intro' --session s1 --tab t1";
    BrowserText(observation::Text) => Tab, T::READ_ONLY,
        about = "Print an element's text (--mode readability: the main article only)",
        example = "actionbook browser text body --mode readability --session s1 --tab t1";
    BrowserValue(observation::Value) => Tab, T::READ_ONLY,
        about = "Print a form field's value",
        example = "actionbook browser value '#email' --session s1 --tab t1";
    BrowserAttr(observation::Attr) => Tab, T::READ_ONLY,
        about = "Print one attribute of an element",
        example = "actionbook browser attr a.link href --session s1 --tab t1";
    BrowserAttrs(observation::Attrs) => Tab, T::READ_ONLY,
        about = "Print every attribute of an element",
        example = "actionbook browser attrs '#btn' --session s1 --tab t1";
    BrowserBox(observation::ElementBox) => Tab, T::READ_ONLY,
        about = "Print an element's box in viewport CSS pixels (any frame)",
        example = "actionbook browser box '#btn' --session s1 --tab t1";
    BrowserStyles(observation::Styles) => Tab, T::READ_ONLY,
        about = "Print computed styles of an element",
        example = "actionbook browser styles '#btn' color font-size --session s1 --tab t1";
    BrowserDescribe(observation::Describe) => Tab, T::READ_ONLY,
        about = "Describe an element: role, name, key attributes, state (--nearby: its neighbours)",
        example = "actionbook browser describe @e4 --nearby --session s1 --tab t1";
    BrowserState(observation::State) => Tab, T::READ_ONLY,
        about = "Print an element's state: visible, enabled, checked, focused, editable, selected",
        example = "actionbook browser state '#agree' --session s1 --tab t1";
    BrowserInspectPoint(observation::InspectPoint) => Tab, T::READ_ONLY,
        about = "Inspect the element at viewport point x,y (through every frame)",
        example = "actionbook browser inspect-point 420,310 --session s1 --tab t1";
    BrowserLogsConsole(observation::LogsConsole) => Tab, T::READ_ONLY,
        about = "Print the tab's console messages (every frame, since the tab was opened)",
        example = "actionbook browser logs console --level warn,error --tail 20 --session s1 --tab t1";
    BrowserLogsErrors(observation::LogsErrors) => Tab, T::READ_ONLY,
        about = "Print the tab's uncaught exceptions, unhandled rejections and failed loads",
        example = "actionbook browser logs errors --session s1 --tab t1";
    BrowserWaitElement(waits::WaitElement) => Tab, T::READ_ONLY.needs_timeout(),
        about = "Wait for an element to be in the DOM (any frame; --state visible|hidden|detached)",
        example = "actionbook browser wait element '#loaded' --session s1 --tab t1 --timeout 5000";
    BrowserWaitText(waits::WaitText) => Tab, T::READ_ONLY.needs_timeout(),
        about = "Wait for a text to show in the page (any frame; case and spacing aside; --gone: until nothing shows it)",
        example = "actionbook browser wait text 'Saved' --session s1 --tab t1 --timeout 5000";
    BrowserWaitUrl(waits::WaitUrl) => Tab, T::READ_ONLY.needs_timeout(),
        about = "Wait for the page's URL to match a pattern (`*` wildcards, text it contains, or /regex/; pushState too)",
        example = "actionbook browser wait url '**/dashboard*' --session s1 --tab t1 --timeout 10000";
    BrowserWaitNavigation(waits::WaitNavigation) => Tab, T::READ_ONLY.needs_timeout(),
        about = "Wait for the next navigation of the page to commit and load",
        example = "actionbook browser wait navigation --session s1 --tab t1 --timeout 10000";
    BrowserWaitNetworkIdle(waits::WaitNetworkIdle) => Tab, T::READ_ONLY.needs_timeout(),
        about = "Wait until no request (any frame or worker) is in flight for 500 ms",
        example = "actionbook browser wait network-idle --session s1 --tab t1 --timeout 10000";
    BrowserWaitCondition(waits::WaitCondition) => Tab, T::CHANGES.destructive().needs_timeout(),
        about = "Wait for a JavaScript expression to be truthy (promises awaited)",
        example = "actionbook browser wait condition 'window.ready === true' --session s1 --tab t1 --timeout 5000";
    BrowserCookiesList(cookies::CookiesList) => Session, T::READ_ONLY,
        about = "List the session's cookies (--domain to filter)",
        example = "actionbook browser cookies list --session s1";
    BrowserCookiesGet(cookies::CookiesGet) => Session, T::READ_ONLY,
        about = "Show one cookie by name",
        example = "actionbook browser cookies get SID --session s1";
    BrowserCookiesSet(cookies::CookiesSet) => Session, T::CHANGES.idempotent(),
        about = "Set a cookie (default domain: the active tab's host)",
        example = "actionbook browser cookies set theme dark --session s1";
    BrowserCookiesDelete(cookies::CookiesDelete) => Session, T::CHANGES.destructive().idempotent(),
        about = "Delete a cookie by name (every domain and path)",
        example = "actionbook browser cookies delete theme --session s1";
    BrowserCookiesClear(cookies::CookiesClear) => Session, T::CHANGES.destructive().idempotent(),
        about = "Delete every cookie (--domain: only that domain's)",
        example = "actionbook browser cookies clear --session s1";
    BrowserStorageStateSave(storage_state::StorageStateSave) => Session, T::CHANGES.idempotent(),
        about = "Save the session's auth state to a file: every cookie (httpOnly too) and each origin's localStorage and sessionStorage, OOPIFs included, as Playwright's storageState JSON (IndexedDB not kept; encrypted with ACTIONBOOK_STATE_KEY)",
        example = "actionbook browser storage-state save ./auth.json --session s1";
    BrowserStorageStateLoad(storage_state::StorageStateLoad) => Session, T::CHANGES.idempotent(),
        about = "Load an auth state file (ours or Playwright's storageState) into the running session: cookies, each origin's localStorage, sessionStorage where a tab shows its origin",
        example = "actionbook browser storage-state load ./auth.json --session s1";
    BrowserLocalStorageList(storage::LocalStorageList) => Tab, T::READ_ONLY,
        about = "List the keys and values of the page's local-storage",
        example = "actionbook browser local-storage list --session s1 --tab t1";
    BrowserLocalStorageGet(storage::LocalStorageGet) => Tab, T::READ_ONLY,
        about = "Read one key of the page's local-storage",
        example = "actionbook browser local-storage get theme --session s1 --tab t1";
    BrowserLocalStorageSet(storage::LocalStorageSet) => Tab, T::CHANGES.idempotent(),
        about = "Set a key of the page's local-storage",
        example = "actionbook browser local-storage set theme dark --session s1 --tab t1";
    BrowserLocalStorageDelete(storage::LocalStorageDelete) => Tab, T::CHANGES.destructive().idempotent(),
        about = "Remove a key of the page's local-storage",
        example = "actionbook browser local-storage delete theme --session s1 --tab t1";
    BrowserLocalStorageClear(storage::LocalStorageClear) => Tab, T::CHANGES.destructive().idempotent(),
        about = "Remove a key of the page's local-storage (without a key: every key)",
        example = "actionbook browser local-storage clear theme --session s1 --tab t1";
    BrowserNetworkRequests(network::Requests) => Tab, T::READ_ONLY,
        about = "List the tab's recorded requests (every frame and worker; --filter, --type, --status, --method, --clear)",
        example = "actionbook browser network requests --type fetch,xhr --status 4xx --session s1 --tab t1";
    BrowserNetworkRequest(network::Request) => Tab, T::READ_ONLY,
        about = "Show one recorded request: headers, timing and its response body while Chromium still has it",
        example = "actionbook browser network request 1234.56 --session s1 --tab t1";
    BrowserNetworkHarStart(network::HarStart) => Tab, T::CHANGES,
        about = "Start recording the tab's requests for a HAR file (--content, --resource-types, --max-entries)",
        example = "actionbook browser network har start --content text --session s1 --tab t1";
    BrowserNetworkHarStop(network::HarStop) => Tab, T::CHANGES,
        about = "Stop the HAR recording and write the HAR 1.2 file",
        example = "actionbook browser network har stop ./trace.har --session s1 --tab t1";
    BrowserNetworkRoute(network::Route) => Tab, T::CHANGES.idempotent(),
        about = "Abort, mock (--fulfill) or amend (--continue --header) the tab's requests matching a URL pattern, OOPIFs included",
        example = "actionbook browser network route '*/api/user' --fulfill --status 200 --body '{\"name\":\"mock\"}' --session s1 --tab t1";
    BrowserNetworkUnroute(network::Unroute) => Tab, T::CHANGES.idempotent(),
        about = "Remove the tab's route with this pattern (without one: every route)",
        example = "actionbook browser network unroute '*/api/user' --session s1 --tab t1";
    BrowserNetworkRoutes(network::Routes) => Tab, T::READ_ONLY,
        about = "List the tab's routes",
        example = "actionbook browser network routes --session s1 --tab t1";
    BrowserSessionStorageList(storage::SessionStorageList) => Tab, T::READ_ONLY,
        about = "List the keys and values of the page's session-storage",
        example = "actionbook browser session-storage list --session s1 --tab t1";
    BrowserSessionStorageGet(storage::SessionStorageGet) => Tab, T::READ_ONLY,
        about = "Read one key of the page's session-storage",
        example = "actionbook browser session-storage get theme --session s1 --tab t1";
    BrowserSessionStorageSet(storage::SessionStorageSet) => Tab, T::CHANGES.idempotent(),
        about = "Set a key of the page's session-storage",
        example = "actionbook browser session-storage set theme dark --session s1 --tab t1";
    BrowserSessionStorageDelete(storage::SessionStorageDelete) => Tab, T::CHANGES.destructive().idempotent(),
        about = "Remove a key of the page's session-storage",
        example = "actionbook browser session-storage delete theme --session s1 --tab t1";
    BrowserSessionStorageClear(storage::SessionStorageClear) => Tab, T::CHANGES.destructive().idempotent(),
        about = "Remove a key of the page's session-storage (without a key: every key)",
        example = "actionbook browser session-storage clear theme --session s1 --tab t1";
    BrowserDownloads(downloads::ListDownloads) => Tab, T::READ_ONLY,
        about = "List the tab's downloads: state, size and file (saved in <home>/downloads/<session>/)",
        example = "actionbook browser downloads --session s1 --tab t1";
    BrowserWaitDownload(downloads::WaitDownload) => Tab, T::CHANGES.needs_timeout(),
        about = "Wait for a download of the tab to complete (its id, or the next one); --save-as moves its file",
        example = "actionbook browser wait download --save-as ./report.csv --session s1 --tab t1 --timeout 30000";
    BrowserDialog(dialog::Dialog) => Tab, T::CHANGES.idempotent(),
        about = "Answer the tab's next confirm/prompt/beforeunload dialog with accept or dismiss (--always: every one; default: back to dismissing)",
        example = "actionbook browser dialog accept --session s1 --tab t1";
    BrowserEmulate(emulate::Emulate) => Tab, T::CHANGES.idempotent(),
        about = "Emulate a device, geolocation, timezone, locale, offline, color-scheme, reduced-motion, user-agent, headers or media on the tab (kept with it; reset: the session's defaults; show: what is in effect)",
        example = "actionbook browser emulate device \"iPhone 13\" --session s1 --tab t1";
    BrowserSecretSet(secret::SecretSet) => Session, T::CHANGES.idempotent(),
        about = "Add or replace secrets of a live session (name=value, typed where fill/type/select say <<name>>, masked in every answer; memory only: give them again after a daemon restart)",
        example = "actionbook browser secret set pw=hunter2 --session s1";
    BrowserSecretList(secret::SecretList) => Session, T::READ_ONLY,
        about = "List the names of the session's secrets (never their values)",
        example = "actionbook browser secret list --session s1";
}

impl Serialize for Command {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut m = s.serialize_struct("Command", 2)?;
        m.serialize_field("command", &self.name())?;
        self.serialize_args(&mut m)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for Command {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = RawCommand::deserialize(d)?;
        let name: CommandName = raw
            .command
            .parse()
            .map_err(|_| D::Error::custom(format!("unknown command {:?}", raw.command)))?;
        Command::from_json(name, raw.args).map_err(|e| D::Error::custom(format!("{name}: {e}")))
    }
}

/// A command on the wire before its request is decoded: the name can be read even when the
/// request does not decode (an older or newer client), so the error names the right command.
#[derive(Debug, Clone, Deserialize)]
pub struct RawCommand {
    /// The normalised name as sent.
    pub command: String,
    /// The request.
    #[serde(default = "empty_object")]
    pub args: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

async fn run_global<C: GlobalCommand>(
    name: CommandName,
    traits: CommandTraits,
    cmd: C,
    cx: &Cx<'_>,
) -> Envelope {
    match cmd.run(cx).await {
        Ok(done) => success(name, done.context, done.data, done.warnings),
        Err(e) => failure_of(name, traits, None, &e),
    }
}

async fn run_non_browser<C: GlobalCommand>(
    name: CommandName,
    traits: CommandTraits,
    cmd: C,
    cx: &Cx<'_>,
) -> Envelope {
    match cmd.run(cx).await {
        Ok(done) => {
            let mut env = success(name, None, done.data, done.warnings);
            env.meta.pagination = done.pagination;
            env
        }
        Err(e) => failure_of(name, traits, None, &e),
    }
}

async fn run_session<C: SessionCommand>(
    name: CommandName,
    traits: CommandTraits,
    cmd: C,
    cx: &Cx<'_>,
) -> Envelope {
    let sid = cmd.session_id().to_string();
    let Some(slot) = cx.sessions.get(&sid) else {
        let missing = cx.sessions.missing(&sid);
        return match cmd
            .when_missing()
            .filter(|_| matches!(missing, CliError::SessionNotFound(_)))
        {
            Some(done) => {
                let context = done.context.or_else(|| Some(Context::session(&sid)));
                success(name, context, done.data, done.warnings)
            }
            None => failure(name, Some(Context::session(&sid)), &missing),
        };
    };
    match cmd.run(cx, &slot).await {
        Ok(done) => {
            let context = done.context.unwrap_or_else(|| Context::session(&sid));
            success(name, Some(context), done.data, done.warnings)
        }
        Err(e) => failure_of(name, traits, Some(Context::session(&sid)), &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_row_per_command_and_the_envelopes_levels() {
        let mut seen = std::collections::HashSet::new();
        for spec in COMMANDS {
            assert!(
                seen.insert(spec.name),
                "{} is in the table twice",
                spec.name
            );
            assert_eq!(spec.level, spec.name.level(), "{}", spec.name);
            assert!(spec.stage.fits(spec.level), "{}", spec.name);
            assert!(
                spec.example
                    .starts_with(&format!("actionbook {}", spec.name)),
                "{}: {}",
                spec.name,
                spec.example
            );
            assert!(
                !(spec.traits.read_only && spec.traits.destructive),
                "{}",
                spec.name
            );
        }
    }

    /// The request types carry exactly the addressing their level asks for: `session` for session
    /// commands, `session` and `tab` for tab commands, neither for global ones.
    #[test]
    fn every_request_carries_the_addressing_of_its_level() {
        for spec in COMMANDS {
            let schema = (spec.schema)().to_value();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .collect();
            let properties = schema["properties"].as_object();
            let has = |field: &str| properties.is_some_and(|p| p.contains_key(field));
            let (session, tab) = match spec.level {
                AddressingLevel::Tab => (true, true),
                AddressingLevel::Session => (true, false),
                _ => (false, false),
            };
            assert_eq!(
                has("session") && required.contains(&"session"),
                session,
                "{}: {schema}",
                spec.name
            );
            assert_eq!(
                has("tab") && required.contains(&"tab"),
                tab,
                "{}: {schema}",
                spec.name
            );
        }
    }

    #[test]
    fn every_request_field_is_documented() {
        for spec in COMMANDS {
            let schema = (spec.schema)().to_value();
            for (field, s) in schema["properties"].as_object().into_iter().flatten() {
                assert!(
                    s.get("description")
                        .and_then(|d| d.as_str())
                        .is_some_and(|d| !d.is_empty()),
                    "{} field {field} has no description: {schema}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn fixed_choices_are_enums_in_the_schema() {
        let start = CommandSpec::of(CommandName::BrowserStart).map(|s| (s.schema)().to_value());
        let mode = start.as_ref().map(|s| s["properties"]["mode"].clone());
        let names: Vec<&str> = crate::model::MODES
            .iter()
            .map(|(m, _)| m.as_str())
            .collect();
        assert_eq!(
            mode.as_ref().map(|m| m["enum"].clone()),
            Some(serde_json::json!(names)),
            "{start:?}"
        );
        let close = CommandSpec::of(CommandName::BrowserClose);
        assert!(close.is_some_and(|c| c.traits.destructive && c.traits.idempotent));
    }

    #[test]
    fn commands_round_trip_through_the_wire_form() {
        let goto = Command::from(navigation::Goto {
            url: "http://x/".into(),
            wait_until: None,
            target: crate::model::TabTarget::new("s1", "t1"),
        });
        let json = serde_json::to_string(&goto).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"command":"browser goto","args":{"url":"http://x/","session":"s1","tab":"t1"}}"#
        );
        let back: Command = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, goto);
        let unknown = serde_json::from_str::<Command>(r#"{"command":"browser fly","args":{}}"#);
        assert!(unknown.is_err_and(|e| e.to_string().contains("unknown command")));
        let bad = serde_json::from_str::<Command>(r#"{"command":"browser goto","args":{}}"#);
        assert!(bad.is_err_and(|e| e.to_string().contains("browser goto")));
        // A request of a newer client with a field this build does not know still decodes.
        let newer: Command = serde_json::from_str(
            r#"{"command":"browser title","args":{"session":"s1","tab":"t1","frame":"f2"}}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(newer.name(), CommandName::BrowserTitle);
        let list: Command = serde_json::from_str(r#"{"command":"browser list-sessions"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(list.name(), CommandName::BrowserListSessions);
    }
}
