//! Normalised command names (`browser snapshot`, `browser wait element`, `version`, ...).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{DataKind, Error};

/// How a command is addressed (spec section 2.3), which decides whether its
/// envelope carries a `context` and what its text header looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressingLevel {
    /// Not a browser command (`search`, `get`, `setup`, `help`, `version`): no context, no header.
    NonBrowser,
    /// A browser command that needs no session (`browser start`, `browser list-sessions`).
    Global,
    /// Needs `--session` (`browser status`, `browser list-tabs`, `browser cookies *`, ...).
    Session,
    /// Needs `--session` and `--tab` (`browser goto`, `browser click`, storage, ...).
    Tab,
}

macro_rules! commands {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $level:ident, $kind:ident; )*) => {
        /// A normalised command name, the envelope's `command` field.
        ///
        /// Serialises as the spec's string (`"browser wait element"`). Consumers use the
        /// variant, never argv: aliases are already resolved (`browser open` is
        /// [`CommandName::BrowserNewTab`]) and sub-modes that the spec reports in `data`
        /// share one name (`browser query` for one/all/nth/count, `browser scroll` for
        /// every scroll form).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum CommandName {
            $( $(#[$doc])* $variant, )*
        }

        impl CommandName {
            /// Every command name, in the order of the spec's appendix.
            pub const ALL: &'static [CommandName] = &[ $( CommandName::$variant, )* ];

            /// The normalised wire string, e.g. `"browser local-storage get"`.
            pub const fn as_str(self) -> &'static str {
                match self { $( CommandName::$variant => $name, )* }
            }

            /// The addressing level of the command (spec section 2.3 and appendix).
            pub const fn level(self) -> AddressingLevel {
                match self { $( CommandName::$variant => AddressingLevel::$level, )* }
            }

            /// Which [`Data`](crate::Data) variant a successful envelope of this command carries.
            pub const fn data_kind(self) -> DataKind {
                match self { $( CommandName::$variant => DataKind::$kind, )* }
            }
        }
    };
}

commands! {
    /// `search`
    Search => "search", NonBrowser, Search;
    /// `get`
    Get => "get", NonBrowser, Area;
    /// `setup`
    Setup => "setup", NonBrowser, Document;
    /// `manual` (alias `man`): a site's groups and actions (not in the spec; the reference CLI's)
    Manual => "manual", NonBrowser, Document;
    /// `areas record`: the tab's page recorded as an area (not in the spec)
    AreasRecord => "areas record", Tab, Document;
    /// `areas import` (not in the spec)
    AreasImport => "areas import", NonBrowser, Document;
    /// `areas export` (not in the spec)
    AreasExport => "areas export", NonBrowser, Document;
    /// `areas list` (not in the spec)
    AreasList => "areas list", NonBrowser, Document;
    /// `areas delete` (not in the spec)
    AreasDelete => "areas delete", NonBrowser, Document;
    /// `help`
    Help => "help", NonBrowser, Text;
    /// `version` (the `--version` flag)
    Version => "version", NonBrowser, Text;
    /// `daemon status`: whether the home's daemon runs (not in the spec)
    DaemonStatus => "daemon status", NonBrowser, Document;
    /// `daemon stop` (not in the spec; sessions outlive it)
    DaemonStop => "daemon stop", NonBrowser, Document;
    /// `daemon restart` (the reference CLI's)
    DaemonRestart => "daemon restart", NonBrowser, Document;
    /// `doctor`: checks of the installation, run in the asking process (not in the spec)
    Doctor => "doctor", NonBrowser, Document;
    /// `browser start`
    BrowserStart => "browser start", Global, Start;
    /// `browser list-sessions`
    BrowserListSessions => "browser list-sessions", Global, SessionList;
    /// `browser status`
    BrowserStatus => "browser status", Session, Status;
    /// `browser close`
    BrowserClose => "browser close", Session, Close;
    /// `browser restart`
    BrowserRestart => "browser restart", Session, Restart;
    /// `browser list-tabs`
    BrowserListTabs => "browser list-tabs", Session, TabList;
    /// `browser new-tab` (alias `browser open`)
    BrowserNewTab => "browser new-tab", Session, NewTab;
    /// `browser close-tab`
    BrowserCloseTab => "browser close-tab", Tab, CloseTab;
    /// `browser goto`
    BrowserGoto => "browser goto", Tab, Navigation;
    /// `browser back`
    BrowserBack => "browser back", Tab, Navigation;
    /// `browser forward`
    BrowserForward => "browser forward", Tab, Navigation;
    /// `browser reload`
    BrowserReload => "browser reload", Tab, Navigation;
    /// `browser snapshot`
    BrowserSnapshot => "browser snapshot", Tab, Snapshot;
    /// `browser screenshot`
    BrowserScreenshot => "browser screenshot", Tab, Artifact;
    /// `browser pdf`
    BrowserPdf => "browser pdf", Tab, Artifact;
    /// `browser title`
    BrowserTitle => "browser title", Tab, PageValue;
    /// `browser url`
    BrowserUrl => "browser url", Tab, PageValue;
    /// `browser viewport`
    BrowserViewport => "browser viewport", Tab, Viewport;
    /// `browser query` (all four modes)
    BrowserQuery => "browser query", Tab, Query;
    /// `browser html`
    BrowserHtml => "browser html", Tab, Read;
    /// `browser text`
    BrowserText => "browser text", Tab, Read;
    /// `browser value`
    BrowserValue => "browser value", Tab, Read;
    /// `browser attr`
    BrowserAttr => "browser attr", Tab, Read;
    /// `browser attrs`
    BrowserAttrs => "browser attrs", Tab, Attributes;
    /// `browser box`
    BrowserBox => "browser box", Tab, BoundingBox;
    /// `browser styles`
    BrowserStyles => "browser styles", Tab, Attributes;
    /// `browser describe`
    BrowserDescribe => "browser describe", Tab, Describe;
    /// `browser state`
    BrowserState => "browser state", Tab, State;
    /// `browser inspect-point`
    BrowserInspectPoint => "browser inspect-point", Tab, InspectPoint;
    /// `browser logs console`
    BrowserLogsConsole => "browser logs console", Tab, Logs;
    /// `browser logs errors`
    BrowserLogsErrors => "browser logs errors", Tab, Logs;
    /// `browser click`
    BrowserClick => "browser click", Tab, Action;
    /// `browser type`
    BrowserType => "browser type", Tab, Input;
    /// `browser fill`
    BrowserFill => "browser fill", Tab, Input;
    /// `browser select`
    BrowserSelect => "browser select", Tab, Input;
    /// `browser hover`
    BrowserHover => "browser hover", Tab, Action;
    /// `browser focus`
    BrowserFocus => "browser focus", Tab, Action;
    /// `browser press`
    BrowserPress => "browser press", Tab, Action;
    /// `browser drag`
    BrowserDrag => "browser drag", Tab, Action;
    /// `browser upload`
    BrowserUpload => "browser upload", Tab, Input;
    /// `browser eval`
    BrowserEval => "browser eval", Tab, Eval;
    /// `browser mouse-move`
    BrowserMouseMove => "browser mouse-move", Tab, Action;
    /// `browser cursor-position`
    BrowserCursorPosition => "browser cursor-position", Tab, CursorPosition;
    /// `browser scroll` (every form: direction, top/bottom, into-view)
    BrowserScroll => "browser scroll", Tab, Action;
    /// `browser wait element`
    BrowserWaitElement => "browser wait element", Tab, Wait;
    /// `browser wait text` (not in the spec)
    BrowserWaitText => "browser wait text", Tab, Wait;
    /// `browser wait url` (not in the spec)
    BrowserWaitUrl => "browser wait url", Tab, Wait;
    /// `browser wait navigation`
    BrowserWaitNavigation => "browser wait navigation", Tab, Wait;
    /// `browser wait network-idle`
    BrowserWaitNetworkIdle => "browser wait network-idle", Tab, Wait;
    /// `browser wait condition`
    BrowserWaitCondition => "browser wait condition", Tab, Wait;
    /// `browser cookies list`
    BrowserCookiesList => "browser cookies list", Session, CookieList;
    /// `browser cookies get`
    BrowserCookiesGet => "browser cookies get", Session, CookieGet;
    /// `browser cookies set`
    BrowserCookiesSet => "browser cookies set", Session, CookieChange;
    /// `browser cookies delete`
    BrowserCookiesDelete => "browser cookies delete", Session, CookieChange;
    /// `browser cookies clear`
    BrowserCookiesClear => "browser cookies clear", Session, CookieChange;
    /// `browser session-storage list`
    BrowserSessionStorageList => "browser session-storage list", Tab, StorageList;
    /// `browser session-storage get`
    BrowserSessionStorageGet => "browser session-storage get", Tab, StorageGet;
    /// `browser session-storage set`
    BrowserSessionStorageSet => "browser session-storage set", Tab, StorageChange;
    /// `browser session-storage delete`
    BrowserSessionStorageDelete => "browser session-storage delete", Tab, StorageChange;
    /// `browser session-storage clear`
    BrowserSessionStorageClear => "browser session-storage clear", Tab, StorageChange;
    /// `browser local-storage list`
    BrowserLocalStorageList => "browser local-storage list", Tab, StorageList;
    /// `browser local-storage get`
    BrowserLocalStorageGet => "browser local-storage get", Tab, StorageGet;
    /// `browser local-storage set`
    BrowserLocalStorageSet => "browser local-storage set", Tab, StorageChange;
    /// `browser local-storage delete`
    BrowserLocalStorageDelete => "browser local-storage delete", Tab, StorageChange;
    /// `browser local-storage clear`
    BrowserLocalStorageClear => "browser local-storage clear", Tab, StorageChange;
    /// `browser storage-state save`: the session's cookies and web storage to a Playwright
    /// `storageState` file (not in the spec)
    BrowserStorageStateSave => "browser storage-state save", Session, Document;
    /// `browser storage-state load`: a `storageState` file into the running session (not in the
    /// spec)
    BrowserStorageStateLoad => "browser storage-state load", Session, Document;
    /// `browser batch-new-tab` (alias `batch-open`): several URLs (not in the spec; the
    /// reference CLI's)
    BrowserBatchNewTab => "browser batch-new-tab", Session, BatchNewTab;
    /// `browser batch-snapshot --tabs ...`: several tabs' snapshots in one envelope (not in the
    /// spec; the reference CLI's)
    BrowserBatchSnapshot => "browser batch-snapshot", Session, BatchSnapshot;
    /// `browser batch-click`: several clicks in order (not in the spec; the reference CLI's)
    BrowserBatchClick => "browser batch-click", Tab, BatchClick;
    /// `browser network requests` (not in the spec; the reference CLI's)
    BrowserNetworkRequests => "browser network requests", Tab, Document;
    /// `browser network request` (not in the spec; the reference CLI's)
    BrowserNetworkRequest => "browser network request", Tab, Document;
    /// `browser network har start` (not in the spec; the reference CLI's)
    BrowserNetworkHarStart => "browser network har start", Tab, Document;
    /// `browser network har stop` (not in the spec; the reference CLI's)
    BrowserNetworkHarStop => "browser network har stop", Tab, Document;
    /// `browser network route` (not in the spec)
    BrowserNetworkRoute => "browser network route", Tab, Document;
    /// `browser network unroute` (not in the spec)
    BrowserNetworkUnroute => "browser network unroute", Tab, Document;
    /// `browser network routes` (not in the spec)
    BrowserNetworkRoutes => "browser network routes", Tab, Document;
    /// `browser downloads` (not in the spec)
    BrowserDownloads => "browser downloads", Tab, Document;
    /// `browser wait download` (not in the spec)
    BrowserWaitDownload => "browser wait download", Tab, Document;
    /// `browser dialog` (not in the spec)
    BrowserDialog => "browser dialog", Tab, Document;
    /// `browser emulate` (not in the spec)
    BrowserEmulate => "browser emulate", Tab, Document;
    /// `browser secret set` (not in the spec)
    BrowserSecretSet => "browser secret set", Session, Document;
    /// `browser secret list` (not in the spec)
    BrowserSecretList => "browser secret list", Session, Document;
    /// `browser perform`: one instruction, one model call, one action (the agent layer; not in the spec)
    BrowserPerform => "browser perform", Tab, Document;
    /// `browser ai`: a task run as a loop of model calls and actions (the agent layer; not in the spec)
    BrowserAi => "browser ai", Tab, Document;
    /// `browser extract`: structured data out of the page by a model (the agent layer; not in the spec)
    BrowserExtract => "browser extract", Tab, Document;
    /// `ai`: a task in a headless session of its own, closed after (the agent layer; not in the spec)
    Ai => "ai", NonBrowser, Document;
    /// `ai-cache list`: the agent layer's cached actions (not in the spec)
    AiCacheList => "ai-cache list", NonBrowser, Document;
    /// `ai-cache clear`: forget the agent layer's cached actions (not in the spec)
    AiCacheClear => "ai-cache clear", NonBrowser, Document;
}

impl CommandName {
    /// Whether envelopes of this command carry a `context` (spec sections 1.2 and 4).
    ///
    /// True for Session- and Tab-level commands and for `browser start` (which creates
    /// a session); false for non-browser commands and `browser list-sessions`.
    pub const fn returns_context(self) -> bool {
        match self.level() {
            AddressingLevel::NonBrowser => false,
            AddressingLevel::Global => matches!(self, CommandName::BrowserStart),
            AddressingLevel::Session | AddressingLevel::Tab => true,
        }
    }
}

impl fmt::Display for CommandName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CommandName {
    type Err = Error;

    /// Parses a normalised name (`"browser goto"`); aliases and argv forms are rejected.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CommandName::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| Error::UnknownCommand { name: s.to_owned() })
    }
}

impl Serialize for CommandName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CommandName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_lists_seventy_interfaces_as_sixty_eight_names() {
        // The appendix counts 70 interfaces; the three scroll forms share one name. Twenty-four
        // more are ours: `manual`, `areas record|import|export|list|delete`, the seven `network`
        // commands, `downloads`, `wait download|text|url`, `dialog`, and the reference CLI's
        // batch commands (`batch-new-tab`, `batch-snapshot`, `batch-click`); `daemon
        // status|stop|restart`; the agent layer's `perform`, `ai`, `extract`, one-shot `ai`,
        // `ai-cache list|clear`; `storage-state save|load`; `doctor`; `emulate`; `secret
        // set|list`.
        assert_eq!(
            CommandName::ALL.len(),
            68 + 6 + 7 + 4 + 1 + 3 + 3 + 3 + 3 + 2 + 1 + 1 + 2
        );
    }

    #[test]
    fn names_are_unique_and_parse_back() {
        let mut seen = std::collections::HashSet::new();
        for c in CommandName::ALL {
            assert!(seen.insert(c.as_str()), "duplicate {c}");
            assert_eq!(c.as_str().parse::<CommandName>().unwrap(), *c);
        }
    }

    #[test]
    fn context_rules() {
        assert!(!CommandName::Search.returns_context());
        assert!(!CommandName::Version.returns_context());
        assert!(!CommandName::BrowserListSessions.returns_context());
        assert!(CommandName::BrowserStart.returns_context());
        assert!(CommandName::BrowserCookiesList.returns_context());
        assert!(CommandName::BrowserLocalStorageGet.returns_context());
    }

    #[test]
    fn alias_is_not_a_normalised_name() {
        assert!("browser open".parse::<CommandName>().is_err());
    }
}
