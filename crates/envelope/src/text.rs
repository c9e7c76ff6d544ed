//! The fixed text output (spec section 2.5): the [`RenderText`] trait each data type
//! implements, the [`TextBody`] line writer, and the envelope renderer.
//!
//! ```text
//! [<session_id> <tab_id>] <url>      header: from the context (omitted without one)
//! ok <command>                       action commands only (RenderText::is_action)
//! <body lines>                       RenderText::render_body
//! warning: <w>                       one per meta.warnings entry
//! ```
//!
//! A failure replaces the `ok` and body lines with `error <CODE>: <message>` and, when
//! the error has a hint, `hint: <hint>`. Every line ends with `\n`.
//!
//! A new data type gets its text by implementing [`RenderText`]:
//!
//! ```
//! use envelope::{RenderText, TextBody};
//!
//! struct Downloads { files: Vec<String> }
//!
//! impl RenderText for Downloads {
//!     fn render_body(&self, body: &mut TextBody<'_>) {
//!         body.count(self.files.len(), "file", "files");
//!         for f in &self.files {
//!             body.line(f);
//!         }
//!     }
//! }
//!
//! let mut out = String::new();
//! Downloads { files: vec!["/tmp/a.pdf".into()] }.render_body(&mut TextBody::new(&mut out));
//! assert_eq!(out, "1 file\n/tmp/a.pdf\n");
//! ```

use std::fmt::{self, Display, Write as _};

use crate::{Context, Envelope};

/// Text rendering of one command's `data`: implemented by every data type, so each
/// type knows its own body lines (there is no table keyed by command name).
pub trait RenderText {
    /// Whether the output is an action result, printed after the header as
    /// `ok <command>` before the body. Read commands print their value directly.
    fn is_action(&self) -> bool {
        false
    }

    /// Whether a tab header shows the URL (`[s1 t1] <url>`). `false` for the spec's
    /// documented exceptions (`close-tab`, `restart`), whose header is just `[s1 t1]`.
    fn header_shows_url(&self) -> bool {
        true
    }

    /// Writes the body lines (everything after the header and `ok` line).
    fn render_body(&self, body: &mut TextBody<'_>);
}

/// Appends body lines to the text output; each call writes whole lines.
#[derive(Debug)]
pub struct TextBody<'a> {
    out: &'a mut String,
}

impl<'a> TextBody<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut String) -> Self {
        TextBody { out }
    }

    /// Writes `text` followed by a newline (text containing newlines spans several lines).
    pub fn line(&mut self, text: impl Display) {
        // Writing to a String cannot fail.
        let _ = writeln!(self.out, "{text}");
    }

    /// Writes `key: value`.
    pub fn field(&mut self, key: &str, value: impl Display) {
        let _ = writeln!(self.out, "{key}: {value}");
    }

    /// Writes a count line: `1 match`, `3 matches`, `0 tabs`.
    pub fn count(&mut self, n: usize, singular: &str, plural: &str) {
        let noun = if n == 1 { singular } else { plural };
        let _ = writeln!(self.out, "{n} {noun}");
    }
}

/// Text kept on one line: line breaks shown as `\n` and `\r` (a list prints one entry a line).
#[derive(Debug, Clone, Copy)]
pub struct OneLine<'a>(pub &'a str);

impl Display for OneLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['\n', '\r']) {
            f.write_str(&rest[..at])?;
            f.write_str(if rest[at..].starts_with('\n') {
                "\\n"
            } else {
                "\\r"
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// The header line for a context: `[sid tid] url`, `[sid tid]` or `[sid]`.
pub(crate) struct Header<'a> {
    pub(crate) context: &'a Context,
    pub(crate) show_url: bool,
}

impl Display for Header<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ctx = self.context;
        match &ctx.tab_id {
            Some(tab) => {
                write!(f, "[{} {}]", ctx.session_id, tab)?;
                match &ctx.url {
                    Some(url) if self.show_url && !url.is_empty() => write!(f, " {url}"),
                    _ => Ok(()),
                }
            }
            None => write!(f, "[{}]", ctx.session_id),
        }
    }
}

impl Envelope {
    /// The envelope in the fixed text format (the default, non-`--json` output).
    ///
    /// See the [`text`](crate::text) module for the layout. The reference CLI prints
    /// a failure's text to stderr and nothing to stdout; that choice is the caller's.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(128);
        self.write_text(&mut out);
        out
    }

    /// Appends [`Envelope::to_text`] to `out` (lets a caller reuse one buffer).
    pub fn write_text(&self, out: &mut String) {
        let show_url = self.data().is_none_or(RenderText::header_shows_url);
        if let Some(context) = self.context() {
            let _ = writeln!(out, "{}", Header { context, show_url });
        }
        match (self.data(), self.error()) {
            (Some(data), _) => {
                if data.is_action() {
                    let _ = writeln!(out, "ok {}", self.command());
                }
                data.render_body(&mut TextBody::new(out));
            }
            (None, Some(error)) => {
                let _ = writeln!(out, "error {}: {}", error.code, error.message);
                if let Some(hint) = &error.hint {
                    let _ = writeln!(out, "hint: {hint}");
                }
            }
            (None, None) => {}
        }
        for warning in &self.meta.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
    }
}
