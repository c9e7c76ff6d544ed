//! The action names a session's policy speaks of (`browser start --confirm-actions click,fill
//! --deny-actions eval`): which commands each name covers, the groups a user expects (`all`,
//! `input`, `pointer`, `navigate`, `state`), their parsing, and the policy itself as the session's
//! record keeps it. A leaf (names and sets only): what the engine does with a policy, the tokens
//! and the answers, is `crate::action_policy`'s.

use std::collections::BTreeSet;
use std::fmt;

use envelope::CommandName;
use serde::{Deserialize, Serialize};

macro_rules! actions {
    ($( $variant:ident = $name:literal: [$($cmd:ident),+ $(,)?], $about:literal; )*) => {
        /// One thing a session's policy can ask confirmation for or refuse.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Action {
            $( #[doc = $about] $variant, )*
        }

        impl Action {
            /// Every action, in the order help lists them.
            pub const ALL: &'static [Action] = &[$(Action::$variant),*];

            /// The name a user writes (`mouse-move`).
            pub const fn as_str(self) -> &'static str {
                match self { $(Action::$variant => $name,)* }
            }

            /// The commands the action covers.
            pub const fn commands(self) -> &'static [CommandName] {
                match self { $(Action::$variant => &[$(CommandName::$cmd),+],)* }
            }

            /// What it covers, in a few words.
            pub const fn about(self) -> &'static str {
                match self { $(Action::$variant => $about,)* }
            }
        }
    };
}

actions! {
    Click = "click": [BrowserClick, BrowserBatchClick], "click, batch-click";
    Fill = "fill": [BrowserFill], "fill";
    Type = "type": [BrowserType], "type";
    Press = "press": [BrowserPress], "press";
    Select = "select": [BrowserSelect], "select";
    Upload = "upload": [BrowserUpload], "upload";
    Hover = "hover": [BrowserHover], "hover";
    Focus = "focus": [BrowserFocus], "focus";
    Drag = "drag": [BrowserDrag], "drag";
    Scroll = "scroll": [BrowserScroll], "scroll";
    MouseMove = "mouse-move": [BrowserMouseMove], "mouse-move";
    // `wait condition` runs the page's JavaScript as `eval` does.
    Eval = "eval": [BrowserEval, BrowserWaitCondition], "eval, wait condition (both run JavaScript in the page)";
    Goto = "goto": [BrowserGoto], "goto";
    Back = "back": [BrowserBack], "back";
    Forward = "forward": [BrowserForward], "forward";
    Reload = "reload": [BrowserReload], "reload";
    NewTab = "new-tab": [BrowserNewTab, BrowserBatchNewTab], "new-tab, batch-new-tab (they load URLs)";
    Download = "download": [BrowserWaitDownload], "wait download (it saves the file)";
    Cookies = "cookies": [BrowserCookiesSet, BrowserCookiesDelete, BrowserCookiesClear], "cookies set, delete, clear";
    Storage = "storage": [
        BrowserLocalStorageSet, BrowserLocalStorageDelete, BrowserLocalStorageClear,
        BrowserSessionStorageSet, BrowserSessionStorageDelete, BrowserSessionStorageClear,
    ], "local-storage and session-storage set, delete, clear";
    StorageState = "storage-state": [BrowserStorageStateSave, BrowserStorageStateLoad], "storage-state save, load (the session's cookies to or from a file)";
    Dialog = "dialog": [BrowserDialog], "dialog (accept or dismiss)";
    Route = "route": [BrowserNetworkRoute, BrowserNetworkUnroute], "network route, unroute";
    Emulate = "emulate": [BrowserEmulate], "emulate";
}

/// The groups a user may name instead of actions.
pub const GROUPS: &[(&str, &[Action])] = &[
    ("all", Action::ALL),
    (
        "input",
        &[
            Action::Fill,
            Action::Type,
            Action::Press,
            Action::Select,
            Action::Upload,
        ],
    ),
    (
        "pointer",
        &[
            Action::Click,
            Action::Hover,
            Action::Focus,
            Action::Drag,
            Action::Scroll,
            Action::MouseMove,
        ],
    ),
    (
        "navigate",
        &[
            Action::Goto,
            Action::Back,
            Action::Forward,
            Action::Reload,
            Action::NewTab,
        ],
    ),
    (
        "state",
        &[Action::Cookies, Action::Storage, Action::StorageState],
    ),
];

impl Action {
    /// The action that covers `command`; `None` for a command no policy speaks of (reads,
    /// waits, snapshots, and `close`, `restart`, `close-tab`, which a policy never keeps a user
    /// from).
    pub fn of(command: CommandName) -> Option<Action> {
        Action::ALL
            .iter()
            .copied()
            .find(|a| a.commands().contains(&command))
    }

    /// The action of the name `name` (exact, lower case).
    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL.iter().copied().find(|a| a.as_str() == name)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Action {
    // A name this build does not know fails the whole record: a session whose rules cannot be
    // read is not used (never run unpoliced).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        let name = String::deserialize(d)?;
        Action::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown action {name:?}")))
    }
}

/// What the names and groups are, for an error or help: `click, fill, … (groups: all, input, …)`.
pub fn known_names() -> String {
    let actions: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    let groups: Vec<&str> = GROUPS.iter().map(|(g, _)| *g).collect();
    format!("{} (groups: {})", actions.join(", "), groups.join(", "))
}

/// Parses a list of action and group names (`click,fill eval`: commas or spaces between, case
/// aside) into the actions it names. An unknown name is an error naming the known ones.
pub fn parse_list(list: &str) -> Result<BTreeSet<Action>, String> {
    let mut out = BTreeSet::new();
    for item in list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
    {
        let name = item.to_ascii_lowercase();
        if let Some(a) = Action::from_name(&name) {
            out.insert(a);
        } else if let Some((_, group)) = GROUPS.iter().find(|(g, _)| *g == name) {
            out.extend(group.iter().copied());
        } else {
            return Err(format!(
                "unknown action {item:?}: the actions are {}",
                known_names()
            ));
        }
    }
    Ok(out)
}

/// A session's action policy: the actions that need a confirmation, and those refused. Kept in
/// the session's record (it outlives the daemon); only ever tightened while the session lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionPolicy {
    /// Actions answered `CONFIRMATION_REQUIRED` until repeated with their token.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub confirm: BTreeSet<Action>,
    /// Actions refused (`ACCESS_DENIED`), token or not.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub deny: BTreeSet<Action>,
}

/// What the policy says of one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It runs.
    Allow,
    /// It runs once confirmed.
    Confirm,
    /// It never runs.
    Deny,
}

impl ActionPolicy {
    /// The policy of two lists (`--confirm-actions`, `--deny-actions`); `None` for none.
    pub fn parse(confirm: Option<&str>, deny: Option<&str>) -> Result<ActionPolicy, String> {
        let confirm = match confirm {
            Some(l) => parse_list(l).map_err(|e| format!("--confirm-actions: {e}"))?,
            None => BTreeSet::new(),
        };
        let deny = match deny {
            Some(l) => parse_list(l).map_err(|e| format!("--deny-actions: {e}"))?,
            None => BTreeSet::new(),
        };
        Ok(ActionPolicy { confirm, deny })
    }

    /// Whether it polices nothing.
    pub fn is_empty(&self) -> bool {
        self.confirm.is_empty() && self.deny.is_empty()
    }

    /// What it says of `action` (a refusal wins over a confirmation).
    pub fn verdict(&self, action: Action) -> Verdict {
        if self.deny.contains(&action) {
            Verdict::Deny
        } else if self.confirm.contains(&action) {
            Verdict::Confirm
        } else {
            Verdict::Allow
        }
    }

    /// Both policies at once: every action either polices, each as strictly as the stricter
    /// says (what a later `start` of a live session adds; nothing is ever loosened).
    #[must_use]
    pub fn tightened(&self, other: &ActionPolicy) -> ActionPolicy {
        let deny: BTreeSet<Action> = self.deny.union(&other.deny).copied().collect();
        let confirm = self
            .confirm
            .union(&other.confirm)
            .filter(|a| !deny.contains(a))
            .copied()
            .collect();
        ActionPolicy { confirm, deny }
    }

    /// The names of `set`, for an answer.
    pub fn names(set: &BTreeSet<Action>) -> Vec<String> {
        set.iter().map(|a| a.as_str().to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_action_covers_commands_of_the_table_and_none_twice() {
        let mut seen = std::collections::HashSet::new();
        for a in Action::ALL {
            assert!(!a.commands().is_empty(), "{a}");
            for c in a.commands() {
                assert!(seen.insert(*c), "{c} is under two actions");
                assert_eq!(Action::of(*c), Some(*a));
            }
        }
        // What a policy never keeps from a user: closing, and reading.
        for c in [
            CommandName::BrowserClose,
            CommandName::BrowserRestart,
            CommandName::BrowserCloseTab,
            CommandName::BrowserSnapshot,
            CommandName::BrowserText,
        ] {
            assert_eq!(Action::of(c), None, "{c}");
        }
    }

    #[test]
    fn lists_take_names_groups_commas_spaces_and_case() {
        let got = parse_list("Click, fill  eval").unwrap_or_default();
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            vec![Action::Click, Action::Fill, Action::Eval]
        );
        let input = parse_list("input").unwrap_or_default();
        assert!(input.contains(&Action::Upload) && !input.contains(&Action::Click));
        assert_eq!(
            parse_list("all").unwrap_or_default().len(),
            Action::ALL.len()
        );
        assert!(parse_list("").is_ok_and(|s| s.is_empty()));
        let err = parse_list("click,fly").err().unwrap_or_default();
        assert!(err.contains("\"fly\"") && err.contains("mouse-move") && err.contains("navigate"));
    }

    #[test]
    fn deny_wins_and_tightening_never_loosens() {
        let p = ActionPolicy::parse(Some("click,eval"), Some("eval")).unwrap_or_default();
        assert_eq!(p.verdict(Action::Eval), Verdict::Deny);
        assert_eq!(p.verdict(Action::Click), Verdict::Confirm);
        assert_eq!(p.verdict(Action::Fill), Verdict::Allow);
        let more = ActionPolicy::parse(None, Some("click")).unwrap_or_default();
        let t = p.tightened(&more);
        assert_eq!(t.verdict(Action::Click), Verdict::Deny);
        assert!(t.confirm.is_empty());
        let json = serde_json::to_string(&t).unwrap_or_default();
        assert_eq!(json, r#"{"deny":["click","eval"]}"#);
        let back: ActionPolicy = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, t);
        // A name this build does not know: the record does not decode (never unpoliced).
        assert!(serde_json::from_str::<ActionPolicy>(r#"{"deny":["teleport"]}"#).is_err());
    }

    fn names() -> impl Strategy<Value = String> {
        let mut all: Vec<String> = Action::ALL.iter().map(|a| a.as_str().into()).collect();
        all.extend(GROUPS.iter().map(|(g, _)| g.to_string()));
        proptest::sample::select(all)
    }

    proptest! {
        /// Any list of known names parses, whatever the separators and case, to the union of
        /// what each name covers; any other word is refused, never ignored.
        #[test]
        fn parsing_is_the_union_of_the_names(
            picked in proptest::collection::vec(names(), 0..6),
            seps in proptest::collection::vec(prop_oneof![Just(","), Just(" "), Just(", "), Just(",,")], 6),
            upper in any::<bool>(),
            junk in "[a-z]{1,8}",
        ) {
            let mut list = String::new();
            for (i, n) in picked.iter().enumerate() {
                list.push_str(seps[i % seps.len()]);
                list.push_str(&if upper { n.to_ascii_uppercase() } else { n.clone() });
            }
            let got = parse_list(&list);
            let mut want = BTreeSet::new();
            for n in &picked {
                match Action::from_name(n) {
                    Some(a) => { want.insert(a); }
                    None => {
                        let g = GROUPS.iter().find(|(g, _)| g == n).map(|(_, a)| *a).unwrap_or(&[]);
                        want.extend(g.iter().copied());
                    }
                }
            }
            prop_assert_eq!(got, Ok(want));
            let known = Action::from_name(&junk).is_some() || GROUPS.iter().any(|(g, _)| *g == junk);
            let with_junk = parse_list(&format!("{list},{junk}"));
            prop_assert_eq!(with_junk.is_ok(), known);
        }
    }
}
