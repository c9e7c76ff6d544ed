//! The browser commands: the list (`browser_commands!`), their data structs and handlers.
//!
//! Adding a command: its argument struct in [`crate::args`], its data struct and handler (an impl of
//! `GlobalCommand`, `SessionCommand` or `TabCommand`) in a module here, and one line in the list below.

use serde::{Deserialize, Serialize};

use crate::args;
use crate::engine::{Call, Engine};
use crate::output::Envelope;

mod interact;
mod lifecycle;
mod nav;
mod page;
mod tabs;

pub(crate) use lifecycle::{headless_from_env, refresh_tabs};

macro_rules! browser_commands {
    ($( $kind:ident $variant:ident($ty:ty) = $name:literal, about = $about:literal, example = $example:literal $(, alias = $alias:literal)?; )*) => {
        /// Every `actionbook browser` subcommand; serialisable, so it is also the daemon request.
        #[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize)]
        #[serde(tag = "command", content = "args")]
        pub enum BrowserCommand {
            $(
                #[doc = $about]
                #[command(about = $about, after_help = concat!("Example:\n  ", $example) $(, visible_alias = $alias)?)]
                #[serde(rename = $name)]
                $variant($ty),
            )*
        }

        impl BrowserCommand {
            /// The normalised command name (`browser goto`).
            pub fn name(&self) -> &'static str {
                match self { $( BrowserCommand::$variant(_) => $name, )* }
            }

            /// `(subcommand, about)` of every command, for `help`.
            pub fn summaries() -> &'static [(&'static str, &'static str)] {
                &[ $( ($name, $about), )* ]
            }

            pub(crate) async fn dispatch(self, engine: &Engine, call: &Call) -> Envelope {
                match self {
                    $( BrowserCommand::$variant(a) => browser_commands!(@run $kind, engine, $name, a, call), )*
                }
            }
        }
    };
    // Boxed: one heap future per command instead of a stack frame as large as the largest command.
    (@run global, $engine:ident, $name:literal, $a:ident, $call:ident) => { Box::pin($engine.run_global($name, $a, $call)).await };
    (@run session, $engine:ident, $name:literal, $a:ident, $call:ident) => { Box::pin($engine.run_session($name, $a, $call)).await };
    (@run tab, $engine:ident, $name:literal, $a:ident, $call:ident) => { Box::pin($engine.run_tab($name, $a, $call)).await };
}

browser_commands! {
    global Start(args::Start) = "browser start",
        about = "Start a browser session (or attach with --set-session-id / --cdp-endpoint)",
        example = "actionbook browser start --headless --open-url https://example.com";
    global ListSessions(args::ListSessions) = "browser list-sessions",
        about = "List all sessions",
        example = "actionbook browser list-sessions --json";
    session Status(args::Status) = "browser status",
        about = "Show a session's status and tabs",
        example = "actionbook browser status --session s1";
    global Close(args::Close) = "browser close",
        about = "Close a session and its browser",
        example = "actionbook browser close --session s1";
    session Restart(args::Restart) = "browser restart",
        about = "Relaunch a session's browser with the same profile and mode",
        example = "actionbook browser restart --session s1";
    session ListTabs(args::ListTabs) = "browser list-tabs",
        about = "List the tabs of a session",
        example = "actionbook browser list-tabs --session s1";
    session NewTab(args::NewTab) = "browser new-tab",
        about = "Open one or more URLs in new tabs (waits for the load)",
        example = "actionbook browser new-tab https://example.com --session s1",
        alias = "open";
    session CloseTab(args::CloseTab) = "browser close-tab",
        about = "Close a tab",
        example = "actionbook browser close-tab --session s1 --tab t2";
    tab Goto(args::Goto) = "browser goto",
        about = "Navigate to a URL and wait for the load",
        example = "actionbook browser goto https://example.com --session s1 --tab t1";
    tab Back(args::Back) = "browser back",
        about = "Go back in history",
        example = "actionbook browser back --session s1 --tab t1";
    tab Forward(args::Forward) = "browser forward",
        about = "Go forward in history",
        example = "actionbook browser forward --session s1 --tab t1";
    tab Reload(args::Reload) = "browser reload",
        about = "Reload the page",
        example = "actionbook browser reload --session s1 --tab t1";
    tab Snapshot(args::Snapshot) = "browser snapshot",
        about = "Capture an accessibility snapshot (all frames) to a file, with stable @eN refs",
        example = "actionbook browser snapshot --interactive --session s1 --tab t1";
    tab Click(args::Click) = "browser click",
        about = "Click an element (@eN, CSS or XPath; any frame)",
        example = "actionbook browser click @e3 --session s1 --tab t1";
    tab Fill(args::Fill) = "browser fill",
        about = "Replace an input's value (@eN, CSS or XPath; any frame)",
        example = "actionbook browser fill @e2 \"Alice\" --session s1 --tab t1";
    tab Eval(args::Eval) = "browser eval",
        about = "Evaluate JavaScript in the page (promises awaited)",
        example = "actionbook browser eval 'document.title' --session s1 --tab t1";
    tab Title(args::Title) = "browser title",
        about = "Print the page title",
        example = "actionbook browser title --session s1 --tab t1";
    tab Url(args::Url) = "browser url",
        about = "Print the page URL",
        example = "actionbook browser url --session s1 --tab t1";
}

/// The `help` text (also `data` of `help --json`).
pub fn help_text() -> String {
    let mut s = String::from(
        "Actionbook — browser automation for AI agents\n\n\
         Every command is stateless: pass --session and --tab explicitly.\n\n\
         Usage: actionbook <command> [options]\n\n\
         actionbook browser <subcommand>\n\n",
    );
    let summaries = BrowserCommand::summaries();
    let width = summaries
        .iter()
        .map(|(n, _)| n.trim_start_matches("browser ").len())
        .max()
        .unwrap_or(0);
    for (name, about) in summaries {
        let sub = name.trim_start_matches("browser ");
        s.push_str(&format!("{sub:<width$}  {about}\n"));
    }
    s.push_str(
        "\nOther commands:\n  help       Show this help\n  --version  Show the version\n\n\
         Global flags:\n  --json          Output the JSON envelope\n  --timeout <ms>  Command timeout in milliseconds\n\n\
         Quick start:\n  actionbook browser start --headless --open-url https://example.com\n  \
         actionbook browser snapshot --session s1 --tab t1\n  \
         actionbook browser fill @e3 \"San Francisco\" --session s1 --tab t1\n  \
         actionbook browser click @e7 --session s1 --tab t1\n\n\
         Run actionbook browser <subcommand> --help for its options and an example.",
    );
    s
}
