//! Lone UTF-16 surrogate escapes in CDP JSON.
//!
//! Chromium serialises page text as UTF-16 and writes an unpaired surrogate as a `\uD800`-style
//! escape, which is not a Unicode scalar value: serde_json refuses it in a `String`. The typed
//! decode path retries once with every lone surrogate escape replaced by `\ufffd` (U+FFFD, the
//! replacement character), so one odd character in page text does not fail a whole response.

use serde::de::DeserializeOwned;

/// Decodes `T` from `text`; if that fails and `text` holds a lone surrogate escape, decodes the
/// text with those escapes replaced by `\ufffd` instead (the first error is kept otherwise).
pub(crate) fn from_str_lenient<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => match replace_lone_surrogates(text) {
            Some(fixed) => serde_json::from_str(&fixed),
            None => Err(first),
        },
    }
}

/// Returns `text` with every lone surrogate escape (`\uD800`-`\uDFFF` not part of a high-low
/// pair of escapes) replaced by `\ufffd`, or `None` when there is none. The replacement has the
/// same length, and nothing else in the text changes.
pub(crate) fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // Escapes only occur inside strings and a backslash never appears inside a multi-byte
    // UTF-8 sequence, so a byte scan that steps over every two-byte escape is exact.
    let mut lone: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match unicode_escape(bytes, i) {
            Some(0xD800..=0xDBFF) => {
                if matches!(unicode_escape(bytes, i + 6), Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    // Whatever follows (another high, say) is looked at on its own.
                    lone.push(i);
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                lone.push(i);
                i += 6;
            }
            Some(_) => i += 6,
            // `\\`, `\"`, `\n`, ...: skip the escaped character so `\\ud800` is not read as an escape.
            None => i += 2,
        }
    }
    if lone.is_empty() {
        return None;
    }
    let mut out = bytes.to_vec();
    for at in lone {
        out[at..at + 6].copy_from_slice(b"\\ufffd");
    }
    // Only ASCII bytes of escapes were overwritten with ASCII: still valid UTF-8.
    String::from_utf8(out).ok()
}

/// The code unit of a `\uXXXX` escape starting at `at`, if there is one.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<u32> {
    let esc = bytes.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    let mut v = 0u32;
    for &b in &esc[2..] {
        v = v * 16 + char::from(b).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lone_surrogates_are_replaced() {
        let cases = [
            (r#"{"a":"x\ud800y"}"#, r#"{"a":"x\ufffdy"}"#),
            (r#"{"a":"\uDC00"}"#, r#"{"a":"\ufffd"}"#),
            (
                r#"{"a":"\ud800\ud800\udc00"}"#,
                r#"{"a":"\ufffd\ud800\udc00"}"#,
            ),
            (r#"{"a":"\ud800\n"}"#, r#"{"a":"\ufffd\n"}"#),
            (r#"{"a":"\ud800"}"#, r#"{"a":"\ufffd"}"#),
            (r#"{"a":"\\\ud800"}"#, r#"{"a":"\\\ufffd"}"#),
        ];
        for (input, want) in cases {
            assert_eq!(
                replace_lone_surrogates(input).as_deref(),
                Some(want),
                "{input}"
            );
        }
    }

    #[test]
    fn pairs_and_escaped_backslashes_are_left_alone() {
        for input in [
            r#"{"a":"\ud83d\ude00"}"#,
            r#"{"a":"\\ud800"}"#,
            r#"{"a":"\\\\ud800 \u00e9 \""}"#,
            r#"{"a":"é\\"}"#,
        ] {
            assert_eq!(replace_lone_surrogates(input), None, "{input}");
        }
    }

    #[test]
    fn lenient_decode_reads_a_lone_surrogate_as_replacement_character() {
        #[derive(serde::Deserialize)]
        struct S {
            a: String,
        }
        assert!(serde_json::from_str::<S>(r#"{"a":"x\ud800y"}"#).is_err());
        let s: S = from_str_lenient(r#"{"a":"x\ud800y"}"#).expect("decodes");
        assert_eq!(s.a, "x\u{fffd}y");
        // Other errors are reported as they are.
        assert!(from_str_lenient::<S>(r#"{"a":1}"#).is_err());
    }

    /// A piece of JSON string content: a character (escaped or not) or a UTF-16 code unit escape.
    #[derive(Debug, Clone)]
    enum Piece {
        Char(char),
        Escaped(char),
        Unit(u16),
    }

    fn piece() -> impl Strategy<Value = Piece> {
        prop_oneof![
            any::<char>().prop_map(Piece::Char),
            any::<char>().prop_map(Piece::Escaped),
            prop_oneof![Just('\\'), Just('"'), Just('u')].prop_map(Piece::Char),
            prop_oneof![Just('\\'), Just('"'), Just('u')].prop_map(Piece::Escaped),
            (0xD7F0u16..=0xE010).prop_map(Piece::Unit),
            any::<u16>().prop_map(Piece::Unit),
        ]
    }

    /// The JSON text of `pieces` as one string, and the code units it stands for.
    fn render(pieces: &[Piece]) -> (String, Vec<u16>) {
        let mut json = String::from("{\"s\":\"");
        let mut units = Vec::new();
        for p in pieces {
            match p {
                Piece::Char(c) => {
                    // serde_json writes the content part of a string literal.
                    let lit = serde_json::to_string(&c.to_string()).unwrap_or_default();
                    json.push_str(&lit[1..lit.len() - 1]);
                    units.extend(c.encode_utf16(&mut [0; 2]).iter());
                }
                Piece::Escaped(c) => {
                    let mut buf = [0u16; 2];
                    for u in c.encode_utf16(&mut buf).iter() {
                        json.push_str(&format!("\\u{u:04x}"));
                        units.push(*u);
                    }
                }
                Piece::Unit(u) => {
                    json.push_str(&format!("\\u{u:04X}"));
                    units.push(*u);
                }
            }
        }
        json.push_str("\"}");
        (json, units)
    }

    proptest! {
        #[test]
        fn valid_json_stays_byte_identical(s in any::<String>()) {
            let json = serde_json::to_string(&serde_json::json!({ "s": s, "k": [1, "\\"] }))
                .unwrap_or_default();
            prop_assert_eq!(replace_lone_surrogates(&json), None);
        }

        #[test]
        fn lone_surrogates_replaced_and_pairs_kept(pieces in proptest::collection::vec(piece(), 0..24)) {
            let (json, units) = render(&pieces);
            // What the text means, with every unpaired surrogate read as U+FFFD.
            let want: String = char::decode_utf16(units.iter().copied())
                .map(|r| r.unwrap_or('\u{fffd}'))
                .collect();
            let has_lone = char::decode_utf16(units.iter().copied()).any(|r| r.is_err());
            let fixed = replace_lone_surrogates(&json);
            prop_assert_eq!(fixed.is_some(), has_lone);
            let text = fixed.clone().unwrap_or_else(|| json.clone());
            prop_assert_eq!(text.len(), json.len());
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                TestCaseError::fail(format!("{e}: {text}"))
            })?;
            prop_assert_eq!(v["s"].as_str(), Some(want.as_str()));
        }
    }
}
