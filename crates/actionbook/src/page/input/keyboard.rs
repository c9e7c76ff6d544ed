//! The keyboard: keys named as the DOM's `KeyboardEvent.key` names them, chords of modifiers and
//! a key (`Control+A`, `Shift+Tab`), typing text key by key, and inserting text at once. Events go
//! to the page session; the browser delivers them to whatever has focus (in any frame).

use cdp_protocol::Session;
use cdp_protocol::input::{self, DispatchKeyEvent, KeyEventType};
use futures::future::try_join_all;

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};

/// One key of a US keyboard: what `keydown` reports and what it types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    /// `KeyboardEvent.key` (`a`, `A`, `Enter`, `ArrowLeft`, `é`).
    pub key: String,
    /// `KeyboardEvent.code` (`KeyA`, `Enter`); empty for characters no key types.
    pub code: &'static str,
    /// The Windows virtual key code (`keyCode`).
    pub key_code: i64,
    /// The text the key types (`\r` for Enter: without it a form is not submitted).
    pub text: Option<String>,
    /// 1 left, 2 right (modifiers), 0 otherwise.
    pub location: i64,
}

/// Named (non-character) keys: `key`, `code`, `keyCode`, typed text.
const NAMED: &[(&str, &str, i64, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, None),
    ("Escape", "Escape", 27, None),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("Insert", "Insert", 45, None),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("CapsLock", "CapsLock", 20, None),
    ("ContextMenu", "ContextMenu", 93, None),
    ("Pause", "Pause", 19, None),
    ("PrintScreen", "PrintScreen", 44, None),
    ("ScrollLock", "ScrollLock", 145, None),
    ("NumLock", "NumLock", 144, None),
    ("Shift", "ShiftLeft", 16, None),
    ("Control", "ControlLeft", 17, None),
    ("Alt", "AltLeft", 18, None),
    ("Meta", "MetaLeft", 91, None),
];

/// Other names people use for keys, mapped to the DOM names.
const ALIASES: &[(&str, &str)] = &[
    ("ctrl", "Control"),
    ("control", "Control"),
    ("cmd", "Meta"),
    ("command", "Meta"),
    ("super", "Meta"),
    ("win", "Meta"),
    ("option", "Alt"),
    ("esc", "Escape"),
    ("return", "Enter"),
    ("del", "Delete"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
    ("space", " "),
    ("spacebar", " "),
    ("plus", "+"),
];

/// The characters of a US keyboard: unshifted, shifted, `code`, `keyCode`.
const CHARS: &[(char, char, &str, i64)] = &[
    ('`', '~', "Backquote", 192),
    ('1', '!', "Digit1", 49),
    ('2', '@', "Digit2", 50),
    ('3', '#', "Digit3", 51),
    ('4', '$', "Digit4", 52),
    ('5', '%', "Digit5", 53),
    ('6', '^', "Digit6", 54),
    ('7', '&', "Digit7", 55),
    ('8', '*', "Digit8", 56),
    ('9', '(', "Digit9", 57),
    ('0', ')', "Digit0", 48),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
    (' ', ' ', "Space", 32),
];

const LETTER_CODES: [&str; 26] = [
    "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK", "KeyL",
    "KeyM", "KeyN", "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV", "KeyW", "KeyX",
    "KeyY", "KeyZ",
];

const FUNCTION_CODES: [&str; 12] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
];

/// The forms `press` accepts, for the error of an unknown key.
pub(crate) const VALID_KEYS: &str = "a DOM KeyboardEvent.key name (Enter, Tab, Escape, Backspace, \
     Delete, Insert, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, F1-F12, \
     Shift, Control, Alt, Meta, Space) or one character (a, A, 1, /), optionally after modifiers \
     joined with '+' (Control+A, Shift+Tab, Control+Shift+ArrowLeft, Meta+Enter)";

impl Key {
    /// The key a character is typed with (US layout); characters no key types get a key event
    /// with just the text (as an input method would deliver it).
    pub fn for_char(c: char) -> Key {
        if c == '\n' || c == '\r' {
            return Key::named("Enter").unwrap_or_else(|| Key::text_only(c));
        }
        if c == '\t' {
            return Key::named("Tab").unwrap_or_else(|| Key::text_only(c));
        }
        if c.is_ascii_alphabetic() {
            let i = (c.to_ascii_lowercase() as u8 - b'a') as usize;
            return Key {
                key: c.to_string(),
                code: LETTER_CODES[i],
                key_code: i64::from(c.to_ascii_uppercase() as u8),
                text: Some(c.to_string()),
                location: 0,
            };
        }
        for &(plain, shifted, code, key_code) in CHARS {
            if c == plain || c == shifted {
                return Key {
                    key: c.to_string(),
                    code,
                    key_code,
                    text: Some(c.to_string()),
                    location: 0,
                };
            }
        }
        Key::text_only(c)
    }

    fn text_only(c: char) -> Key {
        Key {
            key: c.to_string(),
            code: "",
            key_code: 0,
            text: Some(c.to_string()),
            location: 0,
        }
    }

    /// A named key (`Enter`, `F5`, `Shift`), matched without regard to case, aliases included.
    pub fn named(name: &str) -> Option<Key> {
        let lower = name.to_ascii_lowercase();
        let name = ALIASES
            .iter()
            .find(|(a, _)| *a == lower)
            .map_or(name, |(_, n)| *n);
        if name.chars().count() == 1 {
            return name.chars().next().map(Key::for_char);
        }
        if let Some(&(key, code, key_code, text)) =
            NAMED.iter().find(|(k, ..)| k.eq_ignore_ascii_case(name))
        {
            let location = match key {
                "Shift" | "Control" | "Alt" | "Meta" => 1,
                _ => 0,
            };
            return Some(Key {
                key: key.to_string(),
                code,
                key_code,
                text: text.map(str::to_string),
                location,
            });
        }
        let n: usize = name
            .strip_prefix(['F', 'f'])
            .and_then(|d| d.parse().ok())
            .filter(|n| (1..=12).contains(n))?;
        Some(Key {
            key: format!("F{n}"),
            code: FUNCTION_CODES[n - 1],
            key_code: 111 + n as i64,
            text: None,
            location: 0,
        })
    }

    /// The modifier bit of a modifier key.
    fn modifier_bit(&self) -> Option<i64> {
        match self.key.as_str() {
            "Alt" => Some(input::MODIFIER_ALT),
            "Control" => Some(input::MODIFIER_CTRL),
            "Meta" => Some(input::MODIFIER_META),
            "Shift" => Some(input::MODIFIER_SHIFT),
            _ => None,
        }
    }
}

/// A key or chord: modifiers held while the last key is pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chord {
    /// The modifiers, in the order pressed.
    pub modifiers: Vec<Key>,
    /// The key.
    pub key: Key,
}

impl Chord {
    /// Parses `Enter`, `a`, `Control+A`, `Shift+Tab`, `Control++` (the `+` key).
    pub fn parse(text: &str) -> Result<Chord> {
        let unknown = |part: &str| {
            CliError::InvalidArgument(format!(
                "unknown key {part:?} in {text:?}: use {VALID_KEYS}"
            ))
        };
        if text.is_empty() {
            return Err(CliError::InvalidArgument(format!(
                "no key given: use {VALID_KEYS}"
            )));
        }
        let mut parts: Vec<&str> = Vec::new();
        let mut rest = text;
        // Split on '+', a '+' right after a separator (or alone) being the key itself.
        while !rest.is_empty() {
            match rest.find('+') {
                Some(0) => {
                    parts.push("+");
                    rest = rest[1..].strip_prefix('+').unwrap_or(&rest[1..]);
                }
                Some(i) => {
                    parts.push(&rest[..i]);
                    rest = &rest[i + 1..];
                    if rest.is_empty() {
                        return Err(unknown(text));
                    }
                }
                None => {
                    parts.push(rest);
                    rest = "";
                }
            }
        }
        let mut keys = parts
            .iter()
            .map(|p| Key::named(p.trim()).ok_or_else(|| unknown(p)))
            .collect::<Result<Vec<Key>>>()?;
        let key = keys.pop().ok_or_else(|| unknown(text))?;
        if let Some(bad) = keys.iter().find(|k| k.modifier_bit().is_none()) {
            return Err(CliError::InvalidArgument(format!(
                "{:?} in {text:?} is not a modifier: only Shift, Control, Alt and Meta can be held \
                 in a chord ({VALID_KEYS})",
                bad.key
            )));
        }
        Ok(Chord {
            modifiers: keys,
            key,
        })
    }

    /// The chord as it is reported (`Control+a`).
    pub fn display(&self) -> String {
        let mut s: Vec<&str> = self.modifiers.iter().map(|k| k.key.as_str()).collect();
        s.push(self.key.key.as_str());
        s.join("+")
    }
}

/// The keyDown (or rawKeyDown) and keyUp of `key` with `modifiers` held.
fn down_up(key: &Key, modifiers: i64) -> [DispatchKeyEvent; 2] {
    // With Control, Alt or Meta held a key types nothing (it is a shortcut).
    let typing = modifiers & !input::MODIFIER_SHIFT == 0;
    let mut text = key.text.clone().filter(|_| typing);
    let mut name = key.key.clone();
    if modifiers & input::MODIFIER_SHIFT != 0 && name.len() == 1 {
        name = name.to_uppercase();
        text = text.map(|t| t.to_uppercase());
    }
    let code = (!key.code.is_empty()).then(|| key.code.to_string());
    let key_code = (key.key_code != 0).then_some(key.key_code);
    let down = DispatchKeyEvent {
        r#type: if text.is_some() {
            KeyEventType::KeyDown
        } else {
            KeyEventType::RawKeyDown
        },
        modifiers: Some(modifiers),
        unmodified_text: text.clone(),
        text,
        code: code.clone(),
        key: Some(name.clone()),
        windows_virtual_key_code: key_code,
        native_virtual_key_code: key_code,
        location: (key.location != 0).then_some(key.location),
        ..Default::default()
    };
    let up = DispatchKeyEvent {
        r#type: KeyEventType::KeyUp,
        modifiers: Some(modifiers),
        code,
        key: Some(name),
        windows_virtual_key_code: key_code,
        native_virtual_key_code: key_code,
        location: (key.location != 0).then_some(key.location),
        ..Default::default()
    };
    [down, up]
}

/// The events of a chord: each modifier down (its own bit set), the key, the modifiers up in
/// reverse order.
pub(crate) fn chord_events(chord: &Chord) -> Vec<DispatchKeyEvent> {
    let mut held = 0;
    let mut downs = Vec::new();
    let mut ups = Vec::new();
    for m in &chord.modifiers {
        held |= m.modifier_bit().unwrap_or(0);
        let [d, _] = down_up(m, held);
        downs.push(d);
    }
    let [d, u] = down_up(&chord.key, held);
    downs.push(d);
    downs.push(u);
    for m in chord.modifiers.iter().rev() {
        held &= !m.modifier_bit().unwrap_or(0);
        let [_, u] = down_up(m, held);
        ups.push(u);
    }
    downs.extend(ups);
    downs
}

/// The events typing `text` sends: one key per character.
pub(crate) fn typing_events(text: &str) -> Vec<DispatchKeyEvent> {
    text.chars()
        .flat_map(|c| down_up(&Key::for_char(c), 0))
        .collect()
}

/// How many `keydown`s typing `text` produces.
pub(crate) fn keystrokes(text: &str) -> usize {
    text.chars().count()
}

/// How many of them reach the element typed into: up to and including the first tab, which
/// moves focus on as a keyboard's does (the keys after it go to the element focused next).
pub(crate) fn keystrokes_to_target(text: &str) -> usize {
    match text.find('\t') {
        Some(i) => keystrokes(&text[..=i]),
        None => keystrokes(text),
    }
}

/// Key events sent before waiting for their answers. Chromium keeps the order of key events
/// only while a hundred or so are in flight: 200 characters (400 events) sent at once came out
/// with the last 140 inserted at one caret position, in reverse; 64 and 128 at a time were
/// typed exactly.
const KEY_EVENTS_IN_FLIGHT: usize = 32;

/// Sends key events in order, [`KEY_EVENTS_IN_FLIGHT`] at a time without waiting for each
/// answer in turn (a session's input is handled in the order sent), then waits for all.
pub(crate) async fn send_keys(
    page: &Session,
    events: &[DispatchKeyEvent],
    deadline: &Deadline,
    what: &str,
) -> Result<()> {
    for (i, batch) in events.chunks(KEY_EVENTS_IN_FLIGHT).enumerate() {
        // Stops at the deadline (a long text must not run on, holding the tab, after the
        // command has given up), saying how far it got.
        if deadline.is_over() {
            let sent = i * KEY_EVENTS_IN_FLIGHT;
            return Err(deadline.timeout(&format!(
                "{what} (stopped after {sent} of {} key events)",
                events.len()
            )));
        }
        let cap = deadline.remaining().max(deadline::INSERT_TEXT_MIN);
        try_join_all(batch.iter().map(|e| page.send_timeout(e, cap))).await?;
    }
    Ok(())
}

/// Types `text` into the focused element in one `Input.insertText` (trusted input events, as an
/// IME commit gives).
pub(crate) async fn insert_text(page: &Session, text: &str, deadline: &Deadline) -> Result<()> {
    page.send_timeout(
        &input::InsertText {
            text: text.to_string(),
        },
        deadline.remaining().max(deadline::INSERT_TEXT_MIN),
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn named_keys_and_aliases() {
        let enter = Key::named("Enter");
        assert_eq!(enter.as_ref().and_then(|k| k.text.as_deref()), Some("\r"));
        assert_eq!(Key::named("enter"), enter);
        assert_eq!(Key::named("Return"), enter);
        assert_eq!(Key::named("esc").map(|k| k.key), Some("Escape".into()));
        assert_eq!(Key::named("F12").map(|k| k.key_code), Some(123));
        assert_eq!(Key::named("F13"), None);
        assert_eq!(Key::named("Space").map(|k| k.code), Some("Space"));
        assert_eq!(Key::named("Nope"), None);
        let a = Key::for_char('A');
        assert_eq!((a.code, a.key_code), ("KeyA", 65));
        assert_eq!(Key::for_char('?').code, "Slash");
        let e = Key::for_char('é');
        assert_eq!((e.code, e.text.as_deref()), ("", Some("é")));
    }

    #[test]
    fn keys_after_a_tab_go_to_the_next_field() {
        assert_eq!(keystrokes("héllo"), 5);
        assert_eq!(keystrokes_to_target("héllo"), 5);
        assert_eq!(keystrokes_to_target("é\tpass"), 2);
        assert_eq!(keystrokes_to_target("\t\tx"), 1);
        assert_eq!(keystrokes_to_target(""), 0);
    }

    #[test]
    fn chords_parse() {
        let c = Chord::parse("Control+A").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.modifiers.len(), 1);
        assert_eq!(c.display(), "Control+A");
        let ev = chord_events(&c);
        assert_eq!(ev.len(), 4);
        // Control down, 'A' down with Control held and no text, 'A' up, Control up.
        assert_eq!(ev[1].modifiers, Some(input::MODIFIER_CTRL));
        assert_eq!(ev[1].text, None);
        assert_eq!(ev[1].r#type, KeyEventType::RawKeyDown);
        assert_eq!(ev[3].modifiers, Some(0));
        let shift_tab = Chord::parse("Shift+Tab").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            chord_events(&shift_tab)[1].modifiers,
            Some(input::MODIFIER_SHIFT)
        );
        let plus = Chord::parse("Control++").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plus.key.key, "+");
        assert_eq!(Chord::parse("+").map(|c| c.key.key).ok(), Some("+".into()));
        let shifted = chord_events(&Chord::parse("Shift+a").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(shifted[1].text.as_deref(), Some("A"));
        for bad in ["", "Foo", "Control+", "a+b", "Control+Foo"] {
            let e = Chord::parse(bad).err();
            assert!(
                e.as_ref().is_some_and(|e| e.to_string().contains("Enter")),
                "{bad}: {e:?}"
            );
        }
        let enter = chord_events(&Chord::parse("Enter").unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(enter[0].text.as_deref(), Some("\r"));
        assert_eq!(enter[0].r#type, KeyEventType::KeyDown);
    }

    #[test]
    fn typing_sends_a_key_per_character() {
        let ev = typing_events("a😀\n");
        assert_eq!(ev.len(), 6);
        assert_eq!(ev[2].text.as_deref(), Some("😀"));
        assert_eq!(ev[4].key.as_deref(), Some("Enter"));
        assert_eq!(keystrokes("a😀\n"), 3);
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,12}") {
            let _ = Chord::parse(&s);
        }

        #[test]
        fn every_char_types_itself(c in any::<char>().prop_filter("not a line or tab", |c| !matches!(c, '\n' | '\r' | '\t'))) {
            let ev = typing_events(&c.to_string());
            prop_assert_eq!(ev[0].text.clone(), Some(c.to_string()));
        }
    }
}
