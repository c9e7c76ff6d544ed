//! Role names and text clean-up: Chromium's internal roles mapped to ARIA roles, the interactive and
//! content role sets, and name normalisation.

/// What the tree builder does with a Chromium role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKind {
    /// Dropped together with its subtree (inline text boxes, list bullets, line breaks).
    DropSubtree,
    /// Replaced by its children (the frame document, select popups, presentational nodes).
    Transparent,
    /// A wrapper without meaning of its own: dropped when empty, replaced by its child when it has one.
    Structural,
    /// Text content.
    Text,
    /// Anything else.
    Semantic,
}

/// Maps a Chromium AX role to the role this crate prints, and how the tree builder treats it.
pub fn map_role(raw: &str) -> (&str, RoleKind) {
    use RoleKind::*;
    match raw {
        "InlineTextBox" | "ListMarker" | "LineBreak" => ("", DropSubtree),
        "RootWebArea" | "WebArea" | "MenuListPopup" | "none" | "presentation" => {
            ("none", Transparent)
        }
        "StaticText" => ("text", Text),
        "generic" | "GenericContainer" | "LabelText" | "Section" | "SectionWithoutName" | "Pre"
        | "Abbr" | "Ruby" | "RubyAnnotation" | "Legend" | "Unknown" | "" => ("generic", Structural),
        "Iframe" | "IframePresentational" => ("iframe", Semantic),
        "MenuListOption" => ("option", Semantic),
        "DescriptionList" => ("list", Semantic),
        "DescriptionListTerm" => ("term", Semantic),
        "DescriptionListDetail" => ("definition", Semantic),
        "Canvas" => ("img", Semantic),
        // An SVG with links or text in it (one without is an `image`): a wrapper of its content.
        "SvgRoot" => ("generic", Structural),
        "Figcaption" => ("caption", Semantic),
        "Details" => ("group", Semantic),
        "DisclosureTriangle" | "ColorWell" | "PopUpButton" => ("button", Semantic),
        "Date" | "DateTime" | "InputTime" => ("textbox", Semantic),
        "Mark" => ("mark", Semantic),
        "Video" => ("video", Semantic),
        "Audio" => ("audio", Semantic),
        "Emphasis" => ("emphasis", Semantic),
        "Strong" => ("strong", Semantic),
        "Subscript" => ("subscript", Semantic),
        "Superscript" => ("superscript", Semantic),
        "Time" => ("time", Semantic),
        "Code" => ("code", Semantic),
        "Insertion" => ("insertion", Semantic),
        "Deletion" => ("deletion", Semantic),
        "Blockquote" => ("blockquote", Semantic),
        "Paragraph" => ("paragraph", Semantic),
        "Caption" => ("caption", Semantic),
        "Meter" => ("meter", Semantic),
        "HeaderAsNonLandmark" | "FooterAsNonLandmark" => ("generic", Structural),
        other => (other, Semantic),
    }
}

/// Roles a user acts on; nodes with these roles always get a ref.
pub fn is_interactive_role(role: &str) -> bool {
    matches!(
        role,
        "button"
            | "checkbox"
            | "combobox"
            | "iframe"
            | "link"
            | "listbox"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "radio"
            | "searchbox"
            | "slider"
            | "spinbutton"
            | "switch"
            | "tab"
            | "textbox"
            | "treeitem"
    )
}

/// Roles whose children are never shown (form controls and images).
pub fn is_leaf_role(role: &str) -> bool {
    matches!(
        role,
        "textbox"
            | "searchbox"
            | "spinbutton"
            | "slider"
            | "checkbox"
            | "radio"
            | "switch"
            | "progressbar"
            | "meter"
            | "separator"
            | "scrollbar"
            | "img"
            | "image"
            | "graphics-document"
            | "graphics-symbol"
    )
}

/// Content roles that get a ref when they have a name (as the reference CLI does).
pub fn is_content_role(role: &str) -> bool {
    matches!(
        role,
        "heading"
            | "cell"
            | "gridcell"
            | "columnheader"
            | "rowheader"
            | "listitem"
            | "article"
            | "region"
            | "main"
            | "navigation"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "form"
            | "search"
            | "dialog"
            | "alertdialog"
            | "img"
            | "image"
            | "table"
            | "grid"
            | "treegrid"
            | "tabpanel"
            | "menu"
            | "menubar"
            | "tablist"
            | "tree"
            | "radiogroup"
            | "toolbar"
            | "figure"
            | "alert"
    )
}

fn is_dropped_char(c: char) -> bool {
    matches!(c,
        '\u{E000}'..='\u{F8FF}'            // Private Use Area: icon-font glyphs
        | '\u{F0000}'..='\u{FFFFD}'
        | '\u{100000}'..='\u{10FFFD}'
        | '\u{FFFD}'                        // what a lone surrogate decodes to
        | '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}')
}

/// Zero-width (non-)joiners: they join emoji into one (👨‍👩‍👧) and shape Persian or Indic words,
/// so they stay between two kept characters.
fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

fn is_space_char(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{00A0}' | '\u{202F}' | '\u{2007}') || c.is_control()
}

/// Cleans an accessible name or text: drops icon-font glyphs (Private Use Area), zero-width spaces,
/// soft hyphens and broken surrogates, keeps zero-width joiners only between two characters it
/// keeps, turns non-breaking and other spaces into one plain space, and trims.
pub fn clean_text(s: String) -> String {
    let simple = s.bytes().all(|b| (0x21..0x7f).contains(&b) || b == b' ')
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ");
    if simple {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    let mut pending_joiner = None;
    for c in s.chars() {
        if is_dropped_char(c) {
            continue;
        }
        if is_joiner(c) {
            // Only right after a kept character (not a space): emitted before the next one.
            pending_joiner = (!pending_space && !out.is_empty()).then_some(c);
            continue;
        }
        if is_space_char(c) {
            pending_space = !out.is_empty();
            pending_joiner = None;
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if let Some(j) = pending_joiner.take() {
            out.push(j);
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_glyphs_spaces_and_surrogates() {
        assert_eq!(
            clean_text("\u{e001} Save\u{a0}\u{a0}all \u{fffd}\n".into()),
            "Save all"
        );
        assert_eq!(clean_text("plain".into()), "plain");
        assert_eq!(clean_text("  \u{202f} ".into()), "");
        assert_eq!(clean_text("a\u{200b}b\u{feff}".into()), "ab");
        // Joiners stay inside an emoji sequence or a word, not at an edge or beside a space.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        assert_eq!(
            clean_text(format!("fam {family} x")),
            format!("fam {family} x")
        );
        assert_eq!(clean_text("\u{200D}a \u{200C} b\u{200D}".into()), "a b");
        assert_eq!(clean_text("shy\u{ad}x".into()), "shyx");
        assert_eq!(map_role("StaticText").0, "text");
        assert_eq!(map_role("Iframe").0, "iframe");
        assert!(is_interactive_role("iframe") && !is_interactive_role("heading"));
    }

    proptest::proptest! {
        /// Cleaned text is trimmed, has single spaces, no joiner at an edge or beside a space,
        /// and cleaning it again changes nothing.
        #[test]
        fn cleaned_text_is_a_fixed_point(s in "[ a\u{a0}\u{200b}\u{200c}\u{200d}\u{ad}\u{e001}\u{1F468}\n]{0,24}") {
            let once = clean_text(s);
            proptest::prop_assert_eq!(clean_text(once.clone()), once.clone());
            proptest::prop_assert!(!once.starts_with(' ') && !once.ends_with(' ') && !once.contains("  "));
            proptest::prop_assert!(!once.starts_with(is_joiner) && !once.ends_with(is_joiner));
            let joiner_by_space = once
                .chars()
                .zip(once.chars().skip(1))
                .any(|(a, b)| (a == ' ' && is_joiner(b)) || (is_joiner(a) && b == ' '));
            proptest::prop_assert!(!joiner_by_space, "{:?}", once);
        }
    }
}
