//! The keyboard commands: `press` (a key or chord to whatever has focus), `type` (text key by key
//! into an element), `focus`.

use envelope::{ActionData, ActionKind, Changed, InputData, InputKind, Target, ValueSummary};
use serde::{Deserialize, Serialize};

use super::aftermath::Before;
use super::pointer::locate_waiting;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::actionability::{self, KEY_EVENTS, Seen};
use crate::page::edit;
use crate::page::input::keyboard::{self, Chord};
use crate::page::locate::{self, Located};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// `browser press <key-or-chord>`. Keys that open a tab (Enter on a `target=_blank` link) name
/// it in `data.new_tab_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Press {
    /// A key as `KeyboardEvent.key` names it (`Enter`, `Tab`, `Escape`, `ArrowDown`, `a`), or a
    /// chord of modifiers and a key joined with `+` (`Control+A`, `Shift+Tab`, `Meta+Enter`).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub keys: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser type <selector> <text>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Type {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// The text, typed key by key at the caret (appended when the element did not have focus).
    /// A tab moves focus on, as a keyboard's does: what follows it goes to the next field. A
    /// field's `maxlength` cuts it as it cuts a user's typing: ok, with a warning saying how
    /// many characters it kept (`text_length` counts the text given).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub text: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser focus <selector>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Focus {
    /// `@eN`, CSS (`query`'s `:contains()`, `:has-text()`, `:visible` too), `role=button[name="..."]` or an XPath (`/...`).
    pub selector: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// Whether the keys arrived: the document the keyboard target is in saw `keydown` (a document
/// that went away was navigated by the keys: Enter submitting a form). Seen by the probe's
/// listener or counted by the browser: a page that stops keys before the listener (an editor's
/// or game's shortcut layer on the window) got them.
fn keys_arrived(seen: &Seen) -> bool {
    seen.gone || seen.first(&["keydown"]).is_some() || seen.dispatched("keydown") > Some(0)
}

/// How many keys reached the element being typed into: those its probe saw arrive on it, and
/// those the page stopped before the probe could see them (they reached its document), counted
/// as the element's while it kept focus (or a tab in the text moved focus on, as typing does).
fn typed_on_target(seen: &Seen, text: &str, to_target: usize) -> usize {
    let got = seen.count_on_target("keydown");
    let unseen = usize::try_from(seen.unseen("keydown")).unwrap_or(usize::MAX);
    if unseen > 0 && (seen.focused || text.contains('\t')) {
        got.saturating_add(unseen).min(to_target.max(got))
    } else {
        got
    }
}

/// What to describe an element by in an error (`<input type=text>`).
fn what_of(kind: &edit::FieldKind) -> &str {
    if kind.what.is_empty() {
        "element"
    } else {
        kind.what.as_str()
    }
}

impl TabCommand for Press {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Presses the key (modifiers down, key down and up, modifiers up) with the keyboard on the
    /// focused element of whichever frame has focus, and confirms its document saw it; a form
    /// Enter would submit that the browser's validation stopped is warned of.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        let chord = Chord::parse(self.keys.trim())?;
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let mut before = Before::read(cx).await?;
        let node = locate::focused(&mut cx.state.frames, &page, &deadline).await?;
        let what = "the focused element";
        actionability::listen(&node, KEY_EVENTS, &deadline, what).await?;
        before.arm(&page);
        let sent = keyboard::send_keys(
            &page,
            &keyboard::chord_events(&chord),
            &deadline,
            "browser press",
        )
        .await;
        let seen = actionability::finish_listening(&node, &deadline, what).await;
        sent?;
        // Enter in a form whose validation stopped the submission it started.
        let mut warnings: Vec<String> = seen.unsubmitted.iter().map(|u| u.warning()).collect();
        if !keys_arrived(&seen) {
            // Keys the document never saw went to a picker the focused control has open (a
            // `<select>`'s dropdown is a widget of its own): they acted there, as a user's would.
            match node.handle.probe::<Picker>(PICKER_JS).await {
                Some(picker) => warnings.push(picker.warning(&chord.display())),
                None => {
                    return Err(CliError::KeysNotDelivered {
                        action: "browser press".into(),
                        keys: chord.display(),
                        detail: "were not seen by the focused element's document".into(),
                    });
                }
            }
        }
        let after = before.after(cx).await?;
        let mut data = ActionData::new(ActionKind::Press, None);
        data.keys = Some(self.keys.trim().to_string());
        // Enter on a `target=_blank` link opens a tab: named as a click names it.
        data.new_tab_id = after.new_tabs.first().cloned();
        data.changed = Changed {
            url_changed: after.url_changed,
            focus_changed: after.focus_changed,
            scroll_changed: None,
        };
        let mut done = Done::data(data);
        done.warnings = warnings;
        Ok(done)
    }
}

/// The picker of the focused control, which takes the keys while it is open: a `<select>` (its
/// dropdown may have closed on the keys: Enter, Escape) or a control whose picker is `:open`
/// (a date or colour input's); `null` for anything else.
const PICKER_JS: &str = r#"function() {
  let open = false;
  try { open = this.matches(':open'); } catch (e) {}
  if (this.localName !== 'select' && !open) return null;
  return { tag: this.localName, open, value: String(this.value ?? '') };
}"#;

/// What [`PICKER_JS`] reads.
#[derive(Debug, Deserialize)]
struct Picker {
    tag: String,
    open: bool,
    value: String,
}

impl Picker {
    /// The warning of keys that went to the picker (the page sees no event of them).
    fn warning(&self, keys: &str) -> String {
        let now = if self.open { "still open" } else { "closed" };
        format!(
            "the keys {keys} went to the open picker of the focused <{}> (its page sees no key \
             events there); the picker is {now}, the value is {:?}",
            self.tag, self.value
        )
    }
}

/// Locates a field that takes typed text and focuses it for typing (the caret kept where it is,
/// or at the end of the text); with its value then (`None` without a text value).
async fn typing_target(
    cx: &mut TabCx<'_>,
    selector: &str,
) -> Result<(Located, Option<edit::Room>)> {
    let deadline = cx.deadline.clone();
    let node = locate_waiting(cx, selector).await?;
    let kind = edit::field_kind(&node, selector, &deadline).await?;
    match kind.kind.as_str() {
        "text" | "editable" => {}
        "value" => {
            return Err(CliError::InvalidArgument(format!(
                "element {selector} is {} and takes no typed text: use fill to set its value",
                what_of(&kind)
            )));
        }
        _ => {
            let hint = kind.hint.as_deref().unwrap_or("type enters text");
            return Err(CliError::InvalidArgument(format!(
                "element {selector} is {}: {}",
                what_of(&kind),
                hint.replace("fill sets text", "type enters text")
            )));
        }
    }
    let Some(room) = edit::prepare_typing(&node, selector, &deadline).await? else {
        return Err(CliError::InvalidArgument(format!(
            "element {selector} ({}) did not take keyboard focus (hidden, inert, or focus was moved \
             by the page); nothing was typed",
            what_of(&kind)
        )));
    };
    Ok((node, room))
}

impl TabCommand for Type {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Types the text key by key (`keydown`, `keypress`/`beforeinput`, `input`, `keyup` per
    /// character, as a keyboard gives; characters no key types come as an input method gives
    /// them), and confirms every key reached the element.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        cx.load_refs();
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let selector = self.selector.as_str();
        let mut before = Before::read(cx).await?;
        let (node, room) = typing_target(cx, selector).await?;
        actionability::listen(&node, KEY_EVENTS, &deadline, selector).await?;
        before.arm(&page);
        let sent = keyboard::send_keys(
            &page,
            &keyboard::typing_events(&self.text),
            &deadline,
            "browser type",
        )
        .await;
        let seen = actionability::finish_listening(&node, &deadline, selector).await;
        sent?;
        let want = keyboard::keystrokes(&self.text);
        let to_target = keyboard::keystrokes_to_target(&self.text);
        let got = typed_on_target(&seen, &self.text, to_target);
        if !seen.gone && got < to_target {
            let by = seen
                .events
                .iter()
                .find(|e| e.kind == "keydown" && !e.on_target)
                .and_then(|e| e.by.clone());
            let unseen = seen.unseen("keydown");
            let elsewhere = match by {
                Some(b) => format!("the rest went to {b}"),
                None if unseen > 0 => format!(
                    "the page stopped {unseen} before they could be seen, and focus left the element"
                ),
                None => "the rest did not arrive".to_string(),
            };
            return Err(CliError::NotDelivered {
                action: "browser type".into(),
                selector: selector.to_string(),
                reason: "input missed",
                by: None,
                detail: format!("got {got} of {to_target} keys ({elsewhere})"),
            });
        }
        // A field with a maxlength keeps what fits, as it would of a user's typing: said, not
        // hidden. A field that took none of it (letters in a number input, keys the page stops)
        // is said too: the keys arrived, but nothing was typed. (A field gone is not read.)
        // A newline in the text is Enter: a form it submits may be stopped by its validation.
        let mut warnings: Vec<String> = seen.unsubmitted.iter().map(|u| u.warning()).collect();
        if room.is_some() && !seen.gone {
            let to_field = self.text.split('\t').next().unwrap_or_default();
            let now = edit::room(&node, selector, &deadline).await.ok().flatten();
            if let Some(cut) = edit::cut_at_maxlength(room, now, to_field) {
                warnings.push(cut.warning(selector));
            } else if edit::took_nothing(room, now, to_field) {
                warnings.push(format!(
                    "{selector}'s value did not change: the keys arrived, but the field (or the \
                     page) took none of the {} characters typed",
                    to_field.chars().count()
                ));
            }
        }
        before.after(cx).await?;
        let mut done = Done::data(InputData {
            action: InputKind::Type,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Text {
                text_length: want as u64,
            },
        });
        done.warnings = warnings;
        Ok(done)
    }
}

impl TabCommand for Focus {
    type Data = ActionData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Focuses the element (waiting for it to appear) and confirms focus is on it.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ActionData>> {
        cx.load_refs();
        let deadline = cx.deadline.clone();
        let selector = self.selector.as_str();
        let before = Before::read(cx).await?;
        let node = locate_waiting(cx, selector).await?;
        if !edit::focus(&node, selector, &deadline).await? {
            return Err(CliError::InvalidArgument(format!(
                "element {selector} did not take focus (it is not focusable, hidden or inert; \
                 give it a tabindex, or focus the control inside it)"
            )));
        }
        let after = before.after(cx).await?;
        let mut data = ActionData::new(ActionKind::Focus, Target::selector(self.selector));
        data.changed = Changed {
            url_changed: after.url_changed,
            focus_changed: after.focus_changed,
            scroll_changed: None,
        };
        Ok(Done::data(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A probe's view with `dispatched` keydowns counted by the browser.
    fn seen(events: Vec<serde_json::Value>, dispatched: u64, focused: bool) -> Seen {
        Seen {
            dispatched: Some(vec![("keydown".into(), dispatched)]),
            focused,
            ..Seen::from_values(events)
        }
    }

    #[test]
    fn keys_the_page_stopped_first_count_as_arrived() {
        // Not seen and not counted: lost; counted only: the page stopped them, they arrived.
        assert!(!keys_arrived(&seen(vec![], 0, true)));
        assert!(!keys_arrived(&Seen::from_values(vec![])));
        assert!(keys_arrived(&seen(vec![], 2, false)));
        assert!(keys_arrived(&seen(vec![json!(["keydown", 1])], 1, true)));
        // type: unseen keys are the element's while it kept focus, or when a tab moved it on.
        assert_eq!(typed_on_target(&seen(vec![], 5, true), "hello", 5), 5);
        assert_eq!(typed_on_target(&seen(vec![], 5, false), "hello", 5), 0);
        assert_eq!(typed_on_target(&seen(vec![], 5, false), "ab\tcd", 2), 2);
        let partly = seen(vec![json!(["keydown", 1]), json!(["keydown", 1])], 5, true);
        assert_eq!(typed_on_target(&partly, "hello", 5), 5);
        // Seen going elsewhere is not made up for by the count.
        let astray = seen(vec![json!(["keydown", 0, "input#b"])], 1, false);
        assert_eq!(typed_on_target(&astray, "x", 1), 0);
    }
}
