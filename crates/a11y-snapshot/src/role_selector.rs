//! Playwright's role selector, which agents write from habit (`getByRole`): `role=button`,
//! `role=button[name="Sign in"]`, matched against the snapshot's roles and accessible names (so
//! only what the accessibility tree shows: hidden elements never match). A name matches as a
//! substring, case and runs of whitespace aside; `[name="Sign in" s]` asks for the exact name.
//! States narrow it as Playwright's do: `[checked]` (`=false`, `=mixed`), `[disabled]`,
//! `[expanded]`, `[pressed]`, `[selected]` (each `=true` or `=false`).

use std::fmt;

use crate::error::SnapshotError;
use crate::tree::{Node, Snapshot};

/// How a role selector's name is matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameMatch {
    /// The name asked for.
    pub text: String,
    /// Exact and case-sensitive (`s`), rather than a substring with case and whitespace aside.
    pub exact: bool,
}

/// A state a role selector can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateName {
    /// `checked` (a checkbox, radio, switch, menu item).
    Checked,
    /// `disabled`.
    Disabled,
    /// `expanded`.
    Expanded,
    /// `pressed` (a toggle button).
    Pressed,
    /// `selected` (an option, a tab, a row).
    Selected,
}

impl StateName {
    const ALL: [(StateName, &'static str); 5] = [
        (StateName::Checked, "checked"),
        (StateName::Disabled, "disabled"),
        (StateName::Expanded, "expanded"),
        (StateName::Pressed, "pressed"),
        (StateName::Selected, "selected"),
    ];

    fn as_str(self) -> &'static str {
        StateName::ALL
            .iter()
            .find(|(n, _)| *n == self)
            .map_or("", |(_, s)| s)
    }
}

/// The value a state is asked to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateValue {
    /// `[checked]`, `[checked=true]`.
    True,
    /// `[checked=false]`.
    False,
    /// `[checked=mixed]` (checked only).
    Mixed,
}

/// `role=<role>[name="..."][checked]...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleSelector {
    /// The role, lower case (`button`, `link`, `textbox`, ...).
    pub role: String,
    /// The accessible name, when asked for.
    pub name: Option<NameMatch>,
    /// States asked for, in the order written.
    pub states: Vec<(StateName, StateValue)>,
}

impl fmt::Display for RoleSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "role={}", self.role)?;
        if let Some(n) = &self.name {
            let quoted = n.text.replace('\\', "\\\\").replace('"', "\\\"");
            write!(f, "[name=\"{quoted}\"{}]", if n.exact { " s" } else { "" })?;
        }
        for (state, value) in &self.states {
            match value {
                StateValue::True => write!(f, "[{}]", state.as_str())?,
                StateValue::False => write!(f, "[{}=false]", state.as_str())?,
                StateValue::Mixed => write!(f, "[{}=mixed]", state.as_str())?,
            }
        }
        Ok(())
    }
}

/// Case and runs of whitespace aside.
fn fold(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl RoleSelector {
    /// Parses `role=<role>` with an optional `[name=<"quoted"|bare>( i| s)?]` and states
    /// (`[checked]`, `[expanded=false]`, ...); `None` when `s` is no role selector at all (it does
    /// not start with `role=`).
    pub fn parse(s: &str) -> Option<Result<RoleSelector, SnapshotError>> {
        let rest = s.trim().strip_prefix("role=")?;
        let bad = |reason: &str| SnapshotError::InvalidSelector {
            selector: s.to_string(),
            reason: reason.to_string(),
        };
        let role_end = rest.find('[').unwrap_or(rest.len());
        let role = rest[..role_end].trim().to_ascii_lowercase();
        if role.is_empty() || !role.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Some(Err(bad(
                "expected role=<role>[name=\"...\"], e.g. role=button[name=\"Sign in\"]",
            )));
        }
        let mut name = None;
        let mut states = Vec::new();
        let mut attrs = rest[role_end..].trim();
        const SUPPORTED: &str = "[name=\"...\"], [checked], [disabled], [expanded], [pressed] and [selected] are supported";
        while !attrs.is_empty() {
            let Some(inner) = attrs.strip_prefix('[') else {
                return Some(Err(bad(
                    "expected [name=\"...\"] or a state in brackets after the role",
                )));
            };
            let key_end = inner.find(['=', ']']).unwrap_or(inner.len());
            let key = inner[..key_end].trim();
            if key == "name" {
                let Some(after) = inner[key_end..].strip_prefix('=') else {
                    return Some(Err(bad("[name] needs a value: [name=\"...\"]")));
                };
                let Some((text, after)) = value(after.trim_start()) else {
                    return Some(Err(bad("unterminated [name=...]")));
                };
                let after = after.trim_start();
                let (exact, after) = match after.chars().next() {
                    Some('s' | 'S') => (true, &after[1..]),
                    Some('i' | 'I') => (false, &after[1..]),
                    _ => (false, after),
                };
                let Some(after) = after.trim_start().strip_prefix(']') else {
                    return Some(Err(bad("expected ] after the name")));
                };
                name = Some(NameMatch { text, exact });
                attrs = after.trim_start();
                continue;
            }
            let Some(&(state, _)) = StateName::ALL.iter().find(|(_, n)| *n == key) else {
                return Some(Err(bad(&format!("[{key}] is not supported: {SUPPORTED}"))));
            };
            let Some(close) = inner.find(']') else {
                return Some(Err(bad(&format!("expected ] after [{key}"))));
            };
            let wanted = match inner[key_end..close].trim() {
                "" => StateValue::True,
                v => match v.trim_start_matches('=').trim() {
                    "true" => StateValue::True,
                    "false" => StateValue::False,
                    "mixed" if state == StateName::Checked => StateValue::Mixed,
                    other => {
                        return Some(Err(bad(&format!(
                            "[{key}={other}]: the value is true or false{}",
                            if state == StateName::Checked {
                                " (or mixed)"
                            } else {
                                ""
                            }
                        ))));
                    }
                },
            };
            states.push((state, wanted));
            attrs = inner[close + 1..].trim_start();
        }
        Some(Ok(RoleSelector { role, name, states }))
    }

    /// Whether a snapshot node matches.
    pub fn matches(&self, node: &Node) -> bool {
        if !node.role.eq_ignore_ascii_case(&self.role) || node.backend_node_id == 0 {
            return false;
        }
        let named = match &self.name {
            None => true,
            Some(n) if n.exact => node.name == n.text,
            Some(n) => fold(&node.name).contains(&fold(&n.text)),
        };
        named
            && self
                .states
                .iter()
                .all(|&(state, wanted)| has(node, state, wanted))
    }

    /// The snapshot's nodes that match, in document order (frames at their `<iframe>`).
    pub fn find(&self, snap: &Snapshot) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack: Vec<u32> = snap.roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            let Some(node) = snap.nodes.get(i as usize) else {
                continue;
            };
            if self.matches(node) {
                out.push(i);
            }
            stack.extend(node.children.iter().rev().copied());
        }
        out
    }
}

/// Whether the node's state is the one asked for.
fn has(node: &Node, state: StateName, wanted: StateValue) -> bool {
    let s = &node.states;
    let on = match state {
        StateName::Checked => {
            return match wanted {
                StateValue::Mixed => s.mixed,
                StateValue::True => s.checked && !s.mixed,
                StateValue::False => !s.checked && !s.mixed,
            };
        }
        StateName::Disabled => s.disabled,
        StateName::Expanded => s.expanded == Some(true),
        StateName::Pressed => s.pressed,
        StateName::Selected => s.selected,
    };
    match wanted {
        StateValue::True => on,
        StateValue::False => !on,
        StateValue::Mixed => false,
    }
}

/// A quoted (with `\` escapes) or bare value at the start of `s`, and what follows it.
fn value(s: &str) -> Option<(String, &str)> {
    let mut chars = s.char_indices();
    match chars.next() {
        Some((_, q @ ('"' | '\''))) => {
            let mut out = String::new();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => out.push(chars.next()?.1),
                    c if c == q => return Some((out, &s[i + 1..])),
                    c => out.push(c),
                }
            }
            None
        }
        Some(_) => {
            let end = s.find([']', ' '])?;
            Some((s[..end].to_string(), &s[end..]))
        }
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parsed(s: &str) -> RoleSelector {
        match RoleSelector::parse(s) {
            Some(Ok(r)) => r,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn parses_playwrights_forms() {
        assert_eq!(
            parsed("role=button"),
            RoleSelector {
                role: "button".into(),
                name: None,
                states: Vec::new(),
            }
        );
        let r = parsed(r#"role=Button[name="Sign \"in\""]"#);
        assert_eq!(r.role, "button");
        assert_eq!(
            r.name,
            Some(NameMatch {
                text: "Sign \"in\"".into(),
                exact: false
            })
        );
        assert_eq!(
            parsed("role=link[name='Next page' s]")
                .name
                .map(|n| n.exact),
            Some(true)
        );
        assert_eq!(
            parsed("role=link[name=Next i]").name.map(|n| n.text),
            Some("Next".into())
        );
        assert!(RoleSelector::parse("button.role").is_none());
        assert!(RoleSelector::parse("[role=button]").is_none());
        assert_eq!(
            parsed("role=checkbox[checked=mixed][name=All][disabled=false]").states,
            vec![
                (StateName::Checked, StateValue::Mixed),
                (StateName::Disabled, StateValue::False)
            ]
        );
        assert_eq!(
            parsed("role=tab[selected]").states,
            vec![(StateName::Selected, StateValue::True)]
        );
        for bad in [
            "role=",
            "role=button[",
            "role=button[name=\"x]",
            "role=button[name]",
            "role=button[pressed=mixed]",
            "role=button[checked=maybe]",
            "role=button[checked",
            "role=button[level=2]",
            "role=button x",
            "role=but ton",
        ] {
            assert!(matches!(RoleSelector::parse(bad), Some(Err(_))), "{bad}");
        }
    }

    proptest! {
        /// A selector printed back parses to itself.
        #[test]
        fn round_trips(
            role in "[a-z]{1,12}",
            name in proptest::option::of(("[ -~]{0,20}", any::<bool>())),
            states in proptest::collection::vec((0usize..5, 0usize..3), 0..3),
        ) {
            let states = states
                .into_iter()
                .map(|(n, v)| {
                    let name = StateName::ALL[n].0;
                    let value = match (v, name) {
                        (0, _) => StateValue::True,
                        (1, _) => StateValue::False,
                        (_, StateName::Checked) => StateValue::Mixed,
                        _ => StateValue::True,
                    };
                    (name, value)
                })
                .collect();
            let r = RoleSelector {
                role,
                name: name.map(|(text, exact)| NameMatch { text, exact }),
                states,
            };
            let printed = r.to_string();
            prop_assert_eq!(RoleSelector::parse(&printed).and_then(Result::ok), Some(r), "{}", printed);
        }

        /// Parsing never panics, whatever follows `role=`.
        #[test]
        fn never_panics(rest in "\\PC{0,40}") {
            let _ = RoleSelector::parse(&format!("role={rest}"));
        }
    }
}
