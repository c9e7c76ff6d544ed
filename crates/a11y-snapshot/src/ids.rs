//! Element identifiers: frame-scoped encoded ids (`1-42`) and per-tab refs (`e7`, `@e7`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::SnapshotError;

/// A node address scoped to its frame: `<frameIndex>-<backendNodeId>`.
///
/// backendNodeIds of different renderer processes overlap, so a bare backendNodeId is ambiguous; the frame
/// index makes it unique within a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EncodedId {
    /// Ordinal of the frame in the page's frame graph (0 = main frame).
    pub frame_index: u32,
    /// Chromium's backendNodeId of the node inside that frame's document.
    pub backend_node_id: i64,
}

impl EncodedId {
    /// Builds an encoded id from its two parts.
    pub fn new(frame_index: u32, backend_node_id: i64) -> Self {
        EncodedId {
            frame_index,
            backend_node_id,
        }
    }
}

impl fmt::Display for EncodedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.frame_index, self.backend_node_id)
    }
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

impl FromStr for EncodedId {
    type Err = SnapshotError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SnapshotError::InvalidEncodedId {
            input: s.to_string(),
        };
        let (frame, node) = s.split_once('-').ok_or_else(bad)?;
        if !all_digits(frame) || !all_digits(node) {
            return Err(bad());
        }
        let frame_index = frame.parse::<u32>().map_err(|_| bad())?;
        let backend_node_id = node.parse::<i64>().map_err(|_| bad())?;
        Ok(EncodedId {
            frame_index,
            backend_node_id,
        })
    }
}

impl Serialize for EncodedId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for EncodedId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A per-tab element reference `eN` (N ≥ 1), printed `eN` and accepted as `eN` or `@eN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(u32);

impl Ref {
    /// The ref with number `n`; `None` for 0 (refs count from 1).
    pub fn new(n: u32) -> Option<Ref> {
        (n > 0).then_some(Ref(n))
    }

    /// The number N of `eN`.
    pub fn number(self) -> u32 {
        self.0
    }

    /// True when `s` looks like a ref (`@eN` or `eN`), i.e. it should be parsed as one rather than as CSS.
    pub fn looks_like(s: &str) -> bool {
        let t = s.strip_prefix('@').unwrap_or(s);
        t.strip_prefix('e').is_some_and(all_digits)
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl FromStr for Ref {
    type Err = SnapshotError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SnapshotError::InvalidRef {
            input: s.to_string(),
        };
        let t = s.strip_prefix('@').unwrap_or(s);
        let digits = t.strip_prefix('e').ok_or_else(bad)?;
        if !all_digits(digits) || digits.starts_with('0') {
            return Err(bad());
        }
        let n = digits.parse::<u32>().map_err(|_| bad())?;
        Ref::new(n).ok_or_else(bad)
    }
}

impl Serialize for Ref {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_examples() {
        assert_eq!(
            "1-42".parse::<EncodedId>().ok(),
            Some(EncodedId::new(1, 42))
        );
        assert_eq!("@e7".parse::<Ref>().ok(), Ref::new(7));
        assert_eq!("e7".parse::<Ref>().ok(), Ref::new(7));
        for bad in [
            "", "-", "1-", "-1", "1--2", "a-1", "1-2-3", "+1-2", "1-+2", " 1-2",
        ] {
            assert!(bad.parse::<EncodedId>().is_err(), "{bad:?}");
        }
        for bad in [
            "",
            "e",
            "@",
            "@e",
            "e0",
            "e01",
            "E1",
            "@@e1",
            "e-1",
            "e1x",
            "#e1",
            "e99999999999",
        ] {
            assert!(bad.parse::<Ref>().is_err(), "{bad:?}");
        }
        assert!(
            Ref::looks_like("@e12")
                && Ref::looks_like("e3")
                && !Ref::looks_like("em")
                && !Ref::looks_like("#e1")
        );
    }

    proptest! {
        #[test]
        fn encoded_id_round_trip(f in any::<u32>(), b in 0i64..=i64::MAX) {
            let id = EncodedId::new(f, b);
            let text = id.to_string();
            prop_assert_eq!(text.parse::<EncodedId>().ok(), Some(id));
            let json = serde_json::to_string(&id).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(serde_json::from_str::<EncodedId>(&json).ok(), Some(id));
        }

        #[test]
        fn ref_round_trip(n in 1u32..) {
            let r = Ref::new(n).ok_or_else(|| TestCaseError::fail("zero"))?;
            prop_assert_eq!(r.to_string().parse::<Ref>().ok(), Some(r));
            prop_assert_eq!(format!("@{r}").parse::<Ref>().ok(), Some(r));
            let json = serde_json::to_string(&r).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(serde_json::from_str::<Ref>(&json).ok(), Some(r));
        }

        #[test]
        fn arbitrary_text_never_panics(s in ".{0,24}") {
            let _ = s.parse::<Ref>();
            let _ = s.parse::<EncodedId>();
            // Whatever parses prints back to a canonical form that parses to the same value.
            if let Ok(id) = s.parse::<EncodedId>() {
                prop_assert_eq!(id.to_string().parse::<EncodedId>().ok(), Some(id));
            }
            if let Ok(r) = s.parse::<Ref>() {
                prop_assert_eq!(r.to_string().parse::<Ref>().ok(), Some(r));
            }
        }
    }
}
