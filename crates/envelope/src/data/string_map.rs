//! [`StringMap`]: a JSON object of strings that keeps its order.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON object whose values are strings, kept in insertion order (attributes in
/// document order, styles in the order they were requested), so text output lists
/// them as the page or the caller did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StringMap(pub Vec<(String, String)>);

impl StringMap {
    /// An empty map.
    pub fn new() -> Self {
        StringMap(Vec::new())
    }

    /// Appends `key: value` (a later duplicate key replaces the earlier value in place).
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<String>) {
        let (key, value) = (key.into(), value.into());
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for StringMap {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = StringMap::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl Serialize for StringMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for StringMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> Visitor<'de> for MapVisitor {
            type Value = StringMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<StringMap, A::Error> {
                let mut map = StringMap::new();
                while let Some((k, v)) = access.next_entry::<String, String>()? {
                    map.insert(k, v);
                }
                Ok(map)
            }
        }
        d.deserialize_map(MapVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::StringMap;

    #[test]
    fn keeps_insertion_order_and_replaces_duplicates_in_place() {
        let mut m: StringMap = [("b", "1"), ("a", "2")].into_iter().collect();
        m.insert("b", "3");
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![("b", "3"), ("a", "2")]);
        assert_eq!(m.get("a"), Some("2"));
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"b":"3","a":"2"}"#);
    }

    #[test]
    fn reads_objects_in_document_order_and_rejects_non_strings() {
        let m: StringMap = serde_json::from_str(r#"{"z":"1","a":"2"}"#).unwrap();
        assert_eq!(m.iter().map(|(k, _)| k).collect::<Vec<_>>(), vec!["z", "a"]);
        assert!(serde_json::from_str::<StringMap>(r#"{"z":1}"#).is_err());
    }
}
