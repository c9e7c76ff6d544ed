//! User text to an FTS5 `MATCH` expression that can never be a syntax error.
//!
//! The query is cut into words (runs of letters and digits, lower-cased, as FTS5's `unicode61`
//! tokenizer cuts the indexed text); each word becomes a quoted string, words of three or more
//! characters also match as prefixes (`"log"*` finds `login`), and words are joined with `OR` so
//! an area matching more of them ranks higher without the others being required. FTS5 operators
//! typed by the user (`AND`, `NEAR`, `-`, `"`, `*`, `:`) are thereby plain words or separators.

/// At most this many words are searched for (the rest are ignored): each word costs one more
/// posting list to rank, so this bounds a query's time.
pub const MAX_TERMS: usize = 8;

/// Words too common to search for on their own; dropped unless nothing else is left.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "the", "in", "on", "of", "for", "to", "from", "with", "or", "at", "by", "is",
    "my", "me", "i", "it", "this", "that", "your",
];

/// The words of `query` that are searched for, in order, without duplicates.
pub fn terms(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        if !words.contains(&w) {
            words.push(w);
        }
    }
    let content: Vec<String> = words
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    let mut chosen = if content.is_empty() { words } else { content };
    chosen.truncate(MAX_TERMS);
    chosen
}

/// One searched word: its text, and whether it also matches as a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWord {
    /// The word (lower-cased by [`terms`]; as an FTS5 token once the ranking tokenized it).
    pub text: String,
    /// Words of three or more characters also match longer words they begin (`log` → `login`).
    pub prefix: bool,
}

/// The searched words of `query`, in order: one FTS5 phrase each in [`match_expression`].
pub fn words(query: &str) -> Vec<QueryWord> {
    terms(query)
        .into_iter()
        .map(|text| QueryWord {
            prefix: text.chars().count() >= 3,
            text,
        })
        .collect()
}

/// The FTS5 expression for `query`, or `None` when it has no words.
pub fn match_expression(query: &str) -> Option<String> {
    let words = words(query);
    if words.is_empty() {
        return None;
    }
    let parts: Vec<String> = words
        .iter()
        .map(|w| {
            // A term has no '"' (it is alphanumeric), so quoting is enough to make it literal.
            if w.prefix {
                format!("\"{}\"*", w.text)
            } else {
                format!("\"{}\"", w.text)
            }
        })
        .collect();
    Some(parts.join(" OR "))
}

/// A phrase matching `text`'s words in order (`google.com` → `"google com"`), for column filters;
/// `None` when it has no words.
pub fn phrase(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    (!words.is_empty()).then(|| format!("\"{}\"", words.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_become_quoted_terms() {
        assert_eq!(
            match_expression("Google Login").as_deref(),
            Some("\"google\"* OR \"login\"*")
        );
        assert_eq!(
            match_expression("log-in \"x").as_deref(),
            Some("\"log\"* OR \"x\"")
        );
        assert_eq!(match_expression("AND").as_deref(), Some("\"and\"*"));
        assert_eq!(
            match_expression("the login form").as_deref(),
            Some("\"login\"* OR \"form\"*")
        );
        assert_eq!(match_expression("  \"*:^()  "), None);
        assert_eq!(
            match_expression("Übersicht straße").as_deref(),
            Some("\"übersicht\"* OR \"straße\"*")
        );
    }

    #[test]
    fn phrases() {
        assert_eq!(
            phrase("accounts.Google.com").as_deref(),
            Some("\"accounts google com\"")
        );
        assert_eq!(phrase("[::1]").as_deref(), Some("\"1\""));
        assert_eq!(phrase("..."), None);
    }

    #[test]
    fn duplicates_and_excess_words_are_dropped() {
        assert_eq!(terms("login LOGIN Login"), vec!["login"]);
        let many: String = (0..40).map(|i| format!("w{i} ")).collect();
        assert_eq!(terms(&many).len(), MAX_TERMS);
    }
}
