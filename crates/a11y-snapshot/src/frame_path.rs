//! Selectors through frames, for an element inside an `<iframe>` (same-process or OOPIF) that a
//! selector of the top document cannot name: the iframe's selector, `>>`, then the selector in
//! its document (`iframe#login >> #user`; frames nest: `#outer >> #inner >> button`), as
//! Playwright chains them; and an XPath that goes on through the iframe's document
//! (`/html/body/iframe[2]/html/body/button`, Stagehand's cross-frame form: an `<iframe>` has no
//! `<html>` child in the DOM, so a step from one into `html` can only mean its document).
//!
//! Only the split is here; [`crate::resolve()`] finds the iframe, then the rest in its frame alone.

/// The parts of `s` between top-level ` >> ` (outside quotes, brackets, parentheses and
/// escapes), trimmed; `None` when it has no such separator. An empty part is kept (the caller
/// refuses it).
pub fn split_css(s: &str) -> Option<Vec<&str>> {
    let bytes = s.as_bytes();
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start, mut i) = (0i32, None::<u8>, 0usize, 0usize);
    while i < bytes.len() {
        let c = bytes[i];
        match (quote, c) {
            (_, b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'(' | b'[') => depth += 1,
            (None, b')' | b']') => depth -= 1,
            (None, b'>') if depth == 0 && bytes.get(i + 1) == Some(&b'>') => {
                parts.push(s[start..i].trim());
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if parts.is_empty() {
        return None;
    }
    parts.push(s[start.min(s.len())..].trim());
    Some(parts)
}

/// An XPath that steps from an `<iframe>` (or `<frame>`) into its document, split there: the
/// path to the iframe and the rest, from the frame's root (`/html/...`). `None` when the path
/// does not cross a frame.
pub fn split_xpath(xpath: &str) -> Option<(&str, String)> {
    let steps = top_level_steps(xpath)?;
    // steps[k] is (start, end) of the k-th step's text; a path starting with `/` has an empty
    // first step.
    for w in steps.windows(2) {
        let (host, next) = (&xpath[w[0].0..w[0].1], &xpath[w[1].0..w[1].1]);
        if is_frame_step(host) && step_name(next) == "html" {
            let rest = format!("/{}", &xpath[w[1].0..]);
            return Some((&xpath[..w[0].1], rest));
        }
    }
    None
}

/// The `(start, end)` of each `/`-separated step outside brackets and quotes; `None` for a path
/// in parentheses or with a union (not split: what it means across frames is unclear).
fn top_level_steps(xpath: &str) -> Option<Vec<(usize, usize)>> {
    let bytes = xpath.as_bytes();
    if !xpath.starts_with('/') {
        return None;
    }
    let mut steps = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<u8>, 0usize);
    for (i, &c) in bytes.iter().enumerate() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'[') => depth += 1,
            (None, b']') => depth -= 1,
            (None, b'(' | b'|') if depth == 0 => return None,
            (None, b'/') if depth == 0 => {
                steps.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    steps.push((start, xpath.len()));
    Some(steps)
}

/// The element name of a step (`iframe[2]` → `iframe`), lower case.
fn step_name(step: &str) -> String {
    let name = step.split('[').next().unwrap_or_default().trim();
    name.strip_prefix("child::")
        .unwrap_or(name)
        .to_ascii_lowercase()
}

fn is_frame_step(step: &str) -> bool {
    matches!(step_name(step).as_str(), "iframe" | "frame")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn css_splits_at_top_level_only() {
        assert_eq!(
            split_css("iframe#login >> #user"),
            Some(vec!["iframe#login", "#user"])
        );
        assert_eq!(split_css("#a>>#b >> c"), Some(vec!["#a", "#b", "c"]));
        assert_eq!(split_css("div > p"), None);
        assert_eq!(split_css("[title='a >> b'] p"), None);
        assert_eq!(split_css(":has(> a) > b"), None);
        assert_eq!(split_css("#a >> "), Some(vec!["#a", ""]));
    }

    #[test]
    fn xpath_splits_where_it_enters_a_frame() {
        assert_eq!(
            split_xpath("/html/body/iframe[2]/html/body/button"),
            Some(("/html/body/iframe[2]", "/html/body/button".to_string()))
        );
        assert_eq!(
            split_xpath("//iframe[@id='x']/html[1]/body[1]/a"),
            Some(("//iframe[@id='x']", "/html[1]/body[1]/a".to_string()))
        );
        // Nested: the first crossing; the rest is split again by the caller.
        assert_eq!(
            split_xpath("/html/body/iframe/html/body/frame/html/body/b"),
            Some((
                "/html/body/iframe",
                "/html/body/frame/html/body/b".to_string()
            ))
        );
        assert_eq!(split_xpath("/html/body/iframe"), None);
        assert_eq!(split_xpath("/html/body/div/html"), None);
        assert_eq!(split_xpath("(//iframe)[1]/html"), None);
        assert_eq!(split_xpath("//a[@href='/iframe/html']"), None);
    }

    proptest! {
        /// Splitting never panics, and the parts of a split are the text around its separators.
        #[test]
        fn splits_are_total(s in "[a-z#\\[\\]'\" >/()|=@0-9]{0,40}") {
            if let Some(parts) = split_css(&s) {
                prop_assert!(parts.len() >= 2);
                for p in &parts {
                    prop_assert!(s.contains(p));
                }
            }
            if let Some((host, rest)) = split_xpath(&s) {
                prop_assert!(s.starts_with(host));
                prop_assert!(rest.starts_with("/"));
                prop_assert_eq!(format!("{host}{rest}"), s.clone());
            }
        }
    }
}
