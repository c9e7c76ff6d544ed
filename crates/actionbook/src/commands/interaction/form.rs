//! The form commands: `fill` (replace a field's text), `select` (choose options), `upload` (set a
//! file input's files).

use std::path::{Path, PathBuf};

use envelope::{InputData, InputKind, Target, ValueSummary};
use serde::{Deserialize, Serialize};

use super::pointer::{Spot, locate_waiting};
use crate::deadline::Deadline;
use crate::error::{CliError, Result};
use crate::model::{ClientEnv, TabTarget};
use crate::page::actionability::{self, KEY_EVENTS};
use crate::page::edit;
use crate::page::input::keyboard;
use crate::page::locate::{self, Located};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// `browser fill <selector|x,y> <text>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Fill {
    /// `@eN`, a CSS selector, an XPath (starting with `/`), or `x,y` viewport coordinates of the
    /// field.
    pub selector: String,
    /// The text that replaces the field's value (may start with `-`: `fill '#n' -5`). A field's
    /// `maxlength` cuts it as it cuts a user's typing: ok, with a warning saying how many
    /// characters it kept (`text_length` counts the text given).
    #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
    pub text: String,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser select <selector> <value>...`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Select {
    /// The `<select>` element: `@eN`, CSS (`query`'s extensions too) or an XPath.
    pub selector: String,
    /// The option values to choose (several for a `<select multiple>`).
    #[cfg_attr(feature = "cli", arg(required = true, num_args = 1..))]
    pub values: Vec<String>,
    /// Match the options' display text instead of their value attribute.
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub by_text: bool,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

/// `browser upload <selector> <file>...`. On a browser behind --cdp-endpoint or --provider
/// (perhaps on another machine) the files' bytes are sent to the page (at most 50 MiB together).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Upload {
    /// The file input: `@eN`, CSS (`query`'s extensions too) or an XPath.
    pub selector: String,
    /// The files (made absolute against the caller's working directory; each must exist and be
    /// readable).
    #[cfg_attr(feature = "cli", arg(required = true, num_args = 1..))]
    pub files: Vec<PathBuf>,
    /// The session and tab.
    #[serde(flatten)]
    #[cfg_attr(feature = "cli", command(flatten))]
    pub target: TabTarget,
}

fn with_article(what: &str) -> String {
    let vowel = what
        .trim_start_matches('<')
        .starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {what}", if vowel { "an" } else { "a" })
}

/// The element at a spot: located (waiting for a selector to match), or found at the point.
async fn element_at(cx: &mut TabCx<'_>, spot: &Spot) -> Result<Located> {
    match spot {
        Spot::Element(sel) => locate_waiting(cx, sel).await,
        Spot::Point(x, y, _) => {
            let page = cx.page.clone();
            let deadline = cx.deadline.clone();
            Ok(
                locate::at_point(&mut cx.state.frames, &page, *x, *y, &deadline)
                    .await?
                    .0,
            )
        }
    }
}

impl TabCommand for Fill {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Replaces the text of an input, textarea or contenteditable element: checks it takes text,
    /// focuses and selects it, checks focus really is on it, then inserts `text` (one trusted
    /// `input` event, as an input method gives; frameworks' value trackers see it), commits it
    /// with one `change`, and confirms the element saw the input.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        cx.load_refs();
        let spot = Spot::parse(&self.selector)?;
        let page = cx.page.clone();
        let deadline = cx.deadline.clone();
        let selector = spot.text().to_string();
        let selector = selector.as_str();
        let node = element_at(cx, &spot).await?;
        let kind = edit::field_kind(&node, selector, &deadline).await?;
        let mut warnings = Vec::new();
        let what = if kind.what.is_empty() {
            "element"
        } else {
            kind.what.as_str()
        };
        // A value the input's type rejects is refused before the field is touched: setting or
        // typing it empties the field, and its value was lost.
        if let Some(takes) = sanitized_form(what)
            && !self.text.is_empty()
            && !edit::keeps_value(&node, selector, &self.text, &deadline).await?
        {
            return Err(CliError::InvalidArgument(format!(
                "element {selector} is {}: {:?} is not a value it takes ({takes}); its value is \
                 unchanged",
                with_article(what),
                self.text
            )));
        }
        match kind.kind.as_str() {
            "text" | "editable" => {
                if !edit::focus_and_select(&node, selector, &deadline).await? {
                    return Err(CliError::InvalidArgument(format!(
                        "element {selector} ({what}) did not take keyboard focus (hidden, inert, or \
                         focus was moved by the page); nothing was typed"
                    )));
                }
                actionability::listen(&node, KEY_EVENTS, &deadline, selector).await?;
                // Whether the field's text changes (an empty field cleared stays as it is).
                let typed = if self.text.is_empty() {
                    edit::clear(&node, selector, &deadline).await
                } else {
                    keyboard::insert_text(&page, &self.text, &deadline)
                        .await
                        .map(|()| true)
                };
                let seen = actionability::finish_listening(&node, &deadline, selector).await;
                let changes = typed?;
                let arrived = !changes
                    || seen.gone
                    || seen.count_on_target("input") + seen.count_on_target("beforeinput") > 0;
                if !arrived {
                    return Err(CliError::NotDelivered {
                        action: "browser fill".into(),
                        selector: selector.to_string(),
                        reason: "input missed",
                        by: None,
                        detail: "saw no input event (the text went elsewhere)".into(),
                    });
                }
                if !self.text.is_empty() {
                    let committed = edit::commit(&node, selector, &deadline).await?;
                    let held = committed.room;
                    // The selection replaced was the whole value: as typed into an empty field.
                    let emptied = held.map(edit::Room::emptied);
                    if let Some(cut) = edit::cut_at_maxlength(emptied, held, &self.text) {
                        warnings.push(cut.warning(selector));
                    } else if let Some(changed) =
                        changed_by_page(held, committed.value.as_deref(), selector, &self.text)
                    {
                        warnings.push(changed);
                    }
                }
            }
            "value" => {
                if let Some(takes) = direct_value_refusal(what, &self.text) {
                    return Err(CliError::InvalidArgument(format!(
                        "element {selector} is {}: {:?} is not a value for it ({takes})",
                        with_article(what),
                        self.text
                    )));
                }
                let kept = edit::set_value(&node, selector, &self.text, &deadline).await?;
                if let Some(kept) = kept.as_deref().filter(|k| range_moved(what, &self.text, k)) {
                    warnings.push(format!(
                        "{selector} is a range: it kept {kept}, not {} (its min, max and step \
                         bound its value)",
                        self.text.trim()
                    ));
                }
                // The element normalises what it keeps (seconds dropped, ...); an empty value
                // means it rejected the text.
                if !self.text.is_empty() && kept.as_deref().is_none_or(str::is_empty) {
                    return Err(CliError::InvalidArgument(format!(
                        "element {selector} is {}: {:?} is not a valid value for it",
                        with_article(what),
                        self.text
                    )));
                }
            }
            _ => {
                let hint = kind.hint.as_deref().unwrap_or("fill sets text");
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is {}: {hint}",
                    with_article(what)
                )));
            }
        }
        let mut done = Done::data(InputData {
            action: InputKind::Fill,
            target: Some(spot.target()),
            value_summary: ValueSummary::Text {
                text_length: self.text.chars().count() as u64,
            },
        });
        done.warnings = warnings;
        Ok(done)
    }
}

/// Why `fill` refuses a value for an input it sets directly that would turn it into another
/// silently (a slider given a word goes to its middle, a color well given a name turns black).
fn direct_value_refusal(what: &str, text: &str) -> Option<&'static str> {
    let number = text.trim().parse::<f64>().is_ok_and(f64::is_finite);
    let hex = text.len() == 7
        && text.starts_with('#')
        && text[1..].chars().all(|c| c.is_ascii_hexdigit());
    match what {
        "<input type=range>" if !number => Some("a range takes a number"),
        "<input type=color>" if !hex => Some("a color input takes #rrggbb, e.g. #ff8800"),
        _ => None,
    }
}

/// The inputs whose type empties a value it rejects (checked before filling), and the form they
/// take.
fn sanitized_form(what: &str) -> Option<&'static str> {
    Some(match what {
        "<input type=number>" => "a number, e.g. 12.5 or -3",
        "<input type=date>" => "YYYY-MM-DD, e.g. 2027-01-15",
        "<input type=datetime-local>" => "YYYY-MM-DDThh:mm, e.g. 2027-01-15T09:30",
        "<input type=month>" => "YYYY-MM, e.g. 2027-01",
        "<input type=week>" => "YYYY-Www, e.g. 2027-W03",
        "<input type=time>" => "hh:mm or hh:mm:ss, 24-hour, e.g. 09:30",
        _ => return None,
    })
}

/// Whether a range kept another number than the one filled in (bounded by its min, max, step).
fn range_moved(what: &str, text: &str, kept: &str) -> bool {
    what == "<input type=range>" && text.trim().parse::<f64>().ok() != kept.parse::<f64>().ok()
}

/// What the field holds when it is not the text filled in (and no `maxlength` cut it): the
/// page's script changed it in its `input` or `change` handler (formatting, an input mask, a
/// reset). The fill happened; the warning says what stands.
fn changed_by_page(
    held: Option<edit::Room>,
    value: Option<&str>,
    selector: &str,
    text: &str,
) -> Option<String> {
    let (held, value) = (held?, value?);
    // What the field would hold from the text alone: a <textarea> keeps line breaks (as given,
    // or as `\n`), an <input> turns each into a space (Chromium's single-line editing).
    let lines = text.replace("\r\n", "\n").replace('\r', "\n");
    let as_filled = if held.multiline {
        value == text || value == lines
    } else {
        value == lines.replace('\n', " ")
    };
    if as_filled {
        return None;
    }
    if value.is_empty() {
        return Some(format!(
            "{selector} is empty after the fill: the page's script emptied it (its input or \
             change handler)"
        ));
    }
    let shown: String = value.chars().take(200).collect();
    let more = if shown.len() < value.len() { "…" } else { "" };
    Some(format!(
        "{selector} holds {shown:?}{more}, not the text filled in: the page's script changed it \
         (its input or change handler: formatting, an input mask)"
    ))
}

/// The options of a `<select>`, for an error: `red (Red), green (Green)`.
fn list_options(options: &[edit::SelectOption]) -> String {
    if options.is_empty() {
        return "it has no options".into();
    }
    let listed: Vec<String> = options
        .iter()
        .map(|o| {
            let mut s = format!("{:?}", o.value);
            if o.text != o.value {
                s.push_str(&format!(" (text {:?})", o.text));
            }
            if o.disabled {
                s.push_str(" [disabled]");
            }
            s
        })
        .collect();
    format!("its options are {}", listed.join(", "))
}

impl TabCommand for Select {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Chooses the options (every value must match one, by value or by display text); one
    /// `input` and one `change` when the selection changed. A value that matches nothing changes
    /// nothing and the error lists the options.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        cx.load_refs();
        let deadline = cx.deadline.clone();
        let selector = self.selector.as_str();
        let node = locate_waiting(cx, selector).await?;
        let out =
            edit::select_options(&node, selector, &self.values, self.by_text, &deadline).await?;
        let by = if self.by_text { "text" } else { "value" };
        match out.error.as_deref() {
            None => {}
            Some("notselect") => {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is {}: select chooses options of a <select> (use click for \
                     custom dropdowns)",
                    with_article(out.what.as_deref().unwrap_or("element"))
                )));
            }
            Some("disabled") => {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is disabled: nothing was selected"
                )));
            }
            Some("inert") => {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is inert (behind a modal dialog, or under [inert]): no \
                     user can reach it, nothing was selected"
                )));
            }
            Some("single") => {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} takes one option (it is not a <select multiple>), {} were \
                     given; {}",
                    self.values.len(),
                    list_options(&out.options)
                )));
            }
            Some(kind) => {
                let missing = out.missing.clone().unwrap_or_default();
                // A disabled option was found: the --by-text hint would not help.
                let (what, hint) = if kind == "optiondisabled" {
                    (
                        format!("the option of {selector} with {by} {missing:?} is disabled"),
                        "",
                    )
                } else if self.by_text {
                    (
                        format!("{by} {missing:?} matches no option of {selector}"),
                        "",
                    )
                } else {
                    (
                        format!("{by} {missing:?} matches no option of {selector}"),
                        " (--by-text matches the display text)",
                    )
                };
                return Err(CliError::OptionNotFound {
                    selector: selector.to_string(),
                    value: missing,
                    message: format!(
                        "{what}: nothing was selected; {}{hint}",
                        list_options(&out.options)
                    ),
                    options: out
                        .options
                        .iter()
                        .map(|o| (o.value.clone(), o.text.clone()))
                        .collect(),
                });
            }
        }
        // The options were chosen and `input`/`change` fired in the same call: an element that
        // does not hold them now had them undone by the page's own handler. Said, not hidden.
        let held = |v: &String| out.selected.contains(v);
        let mut warnings = Vec::new();
        if !self.by_text && !self.values.iter().all(held) {
            warnings.push(format!(
                "{selector} holds {:?} after choosing {:?}: the page's script set it back (its \
                 input or change handler)",
                out.selected, self.values
            ));
        }
        let value = self.values.join(",");
        let values = (self.values.len() > 1).then(|| self.values.clone());
        let mut done = Done::data(InputData {
            action: InputKind::Select,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Select {
                value,
                by_text: self.by_text,
                values,
            },
        });
        done.warnings = warnings;
        Ok(done)
    }
}

/// `browser click` on an `<option>` of a closed drop-down `<select>`: chooses it in its select as
/// `select` chooses an option (`input` and `change` when the selection changed), refusing what
/// `select` refuses (a disabled select or option, an inert one) with INVALID_ARGUMENT. Answers
/// the warnings (the page's handlers undid the choice).
pub(crate) async fn choose_option(
    node: &Located,
    selector: &str,
    deadline: &Deadline,
) -> Result<Vec<String>> {
    let out = edit::choose_option(node, selector, deadline).await?;
    let refusal = match out.error.as_deref() {
        None => None,
        Some("disabled") => Some(format!(
            "the <select> of option {selector} is disabled: nothing was selected"
        )),
        Some("inert") => Some(format!(
            "the <select> of option {selector} is inert (behind a modal dialog, or under \
             [inert]): no user can reach it, nothing was selected"
        )),
        Some("optiondisabled") => Some(format!(
            "option {selector} is disabled: nothing was selected; {}",
            list_options(&out.options)
        )),
        Some(_) => Some(format!(
            "element {selector} is {}: nothing was selected",
            out.what.as_deref().unwrap_or("not an option of a <select>")
        )),
    };
    if let Some(message) = refusal {
        return Err(CliError::InvalidArgument(message));
    }
    Ok(match out.held {
        Some(false) => vec![format!(
            "option {selector} is not selected after it was chosen: the page's script set the \
             <select> back (its input or change handler); it holds {:?}",
            out.selected
        )],
        _ => Vec::new(),
    })
}

/// The files of an upload as absolute paths (relative ones against the caller's working
/// directory), each checked to be a readable file. The CLI runs this before sending the request;
/// the engine again, for requests made in-process.
pub fn resolve_files(env: &ClientEnv, files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if files.is_empty() {
        return Err(CliError::InvalidArgument(
            "upload needs at least one file".into(),
        ));
    }
    files
        .iter()
        .map(|f| {
            let path = env.resolve_path(f);
            check_readable(&path)?;
            Ok(path)
        })
        .collect()
}

/// Most bytes `upload` sends to a remote browser's page (all files together): they travel in one
/// CDP message, base64.
const MAX_REMOTE_UPLOAD: u64 = 50 * 1024 * 1024;

/// The files' bytes for a page on a remote browser (blocking).
fn read_for_upload(files: &[std::path::PathBuf]) -> Result<Vec<edit::FileBytes>> {
    use base64::Engine as _;
    let total: u64 = files
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    if total > MAX_REMOTE_UPLOAD {
        return Err(CliError::InvalidArgument(format!(
            "upload to a browser behind --cdp-endpoint sends the files' bytes to the page, at most \
             {} MiB together ({} MiB given); put larger files on the browser's machine",
            MAX_REMOTE_UPLOAD >> 20,
            total >> 20
        )));
    }
    files
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).map_err(|e| {
                CliError::InvalidArgument(format!("cannot upload {}: {e}", p.display()))
            })?;
            let mtime = std::fs::metadata(p)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0.0, |d| d.as_millis() as f64);
            Ok(edit::FileBytes {
                name: p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                r#type: mime_of(p).into(),
                mtime,
                b64: base64::engine::general_purpose::STANDARD.encode(&bytes),
            })
        })
        .collect()
}

/// A MIME type by file extension (what a browser's file picker would give for common ones).
fn mime_of(p: &Path) -> &'static str {
    let ext = p
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "json" => "application/json",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "svg" => "image/svg+xml",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

fn check_readable(path: &Path) -> Result<()> {
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| CliError::InvalidArgument(format!("cannot upload {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(CliError::InvalidArgument(format!(
            "cannot upload {shown}: it is not a file"
        )));
    }
    std::fs::File::open(path)
        .map_err(|e| CliError::InvalidArgument(format!("cannot upload {shown}: {e}")))?;
    Ok(())
}

impl TabCommand for Upload {
    type Data = InputData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    /// Sets the file input's files (`DOM.setFileInputFiles`, in the frame's own session, so inside
    /// an out-of-process iframe too) and confirms the input holds them.
    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<InputData>> {
        cx.load_refs();
        let env = cx.env.clone();
        let files = tokio::task::spawn_blocking({
            let files = self.files.clone();
            move || resolve_files(&env, &files)
        })
        .await
        .map_err(|e| CliError::internal(format!("checking the files: {e}")))??;
        let deadline = cx.deadline.clone();
        let selector = self.selector.as_str();
        let node = locate_waiting(cx, selector).await?;
        let input = edit::file_input(&node, selector, &deadline).await?;
        match input.error.as_deref() {
            None => {}
            Some("disabled") => {
                return Err(CliError::InvalidArgument(format!(
                    "file input {selector} is disabled: nothing was uploaded"
                )));
            }
            Some(_) => {
                return Err(CliError::InvalidArgument(format!(
                    "element {selector} is {}: upload sets the files of an <input type=file>",
                    with_article(input.what.as_deref().unwrap_or("element"))
                )));
            }
        }
        if files.len() > 1 && !input.multiple {
            return Err(CliError::InvalidArgument(format!(
                "file input {selector} takes one file (it has no `multiple` attribute), {} were given",
                files.len()
            )));
        }
        // A browser we did not launch may be on another machine, where our paths are not: the
        // files go to the page as bytes instead.
        let remote = cx.session.with_record(|r| !r.launched);
        let paths: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let held = match remote {
            false => edit::set_files(&node, selector, &paths, &deadline).await?,
            true => {
                let bytes = tokio::task::spawn_blocking({
                    let files = files.clone();
                    move || read_for_upload(&files)
                })
                .await
                .map_err(|e| CliError::internal(format!("reading the files: {e}")))??;
                edit::set_files_from_bytes(&node, selector, &bytes, &deadline).await?
            }
        };
        let names: Vec<String> = files
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        if held != names {
            return Err(CliError::NotDelivered {
                action: "browser upload".into(),
                selector: selector.to_string(),
                reason: "input missed",
                by: None,
                detail: format!("holds {held:?} instead of {names:?}"),
            });
        }
        Ok(Done::data(InputData {
            action: InputKind::Upload,
            target: Some(Target::selector(self.selector)),
            value_summary: ValueSummary::Files {
                count: paths.len() as u64,
                files: paths,
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direct_values_that_would_turn_into_others_are_refused() {
        let range = "<input type=range>";
        let color = "<input type=color>";
        for ok in ["0", " 7 ", "-2.5", "1e2"] {
            assert_eq!(direct_value_refusal(range, ok), None, "{ok:?}");
        }
        for bad in ["", "abc", "NaN", "inf", "1,5"] {
            assert!(direct_value_refusal(range, bad).is_some(), "{bad:?}");
        }
        for ok in ["#ff8800", "#FFaa00", "#000000"] {
            assert_eq!(direct_value_refusal(color, ok), None, "{ok:?}");
        }
        for bad in [
            "", "orange", "#fff", "ff8800", "#ff880", "#ff88001", "#gg0000", "#ff88é",
        ] {
            assert!(direct_value_refusal(color, bad).is_some(), "{bad:?}");
        }
        assert_eq!(direct_value_refusal("<input type=date>", "x"), None);
        assert!(range_moved(range, "150", "100"));
        assert!(!range_moved(range, " 7.0", "7"));
        assert!(!range_moved("<input type=date>", "a", "b"));
    }
}
