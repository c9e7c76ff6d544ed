//! The typed-call traits and helpers shared by every domain module.

use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// A CDP method: its params are `Self`, its result is `Self::Response`.
pub trait Command: Serialize {
    /// The method name on the wire, e.g. `"DOM.getDocument"`.
    const METHOD: &'static str;
    /// The typed result.
    type Response: DeserializeOwned;
}

/// A CDP event: its params decode into `Self`.
pub trait Event: DeserializeOwned {
    /// The event name on the wire, e.g. `"Page.frameAttached"`.
    const METHOD: &'static str;
}

/// An empty params object or an empty result (`{}`); extra fields are ignored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Empty {}

/// Implements [`Command`] for a params struct.
macro_rules! command {
    ($ty:ty, $method:literal, $resp:ty) => {
        impl $crate::protocol::Command for $ty {
            const METHOD: &'static str = $method;
            type Response = $resp;
        }
    };
    ($ty:ty, $method:literal) => {
        impl $crate::protocol::Command for $ty {
            const METHOD: &'static str = $method;
            type Response = $crate::protocol::Empty;
        }
    };
}

/// Implements [`Event`] for an event params struct.
macro_rules! event {
    ($ty:ty, $method:literal) => {
        impl $crate::protocol::Event for $ty {
            const METHOD: &'static str = $method;
        }
    };
}

/// Defines a lenient string enum: unknown values decode to `Unknown`, and `From<&str>` lets callers
/// pass the wire string directly.
macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value this crate does not know (newer Chromium).
            Unknown,
        }

        impl $name {
            /// The wire string (`"unknown"` for [`Self::Unknown`]).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire,)+
                    Self::Unknown => "unknown",
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($wire => Self::$variant,)+
                    _ => Self::Unknown,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Ok(Self::from(s.as_ref()))
            }
        }
    };
}

pub(crate) use {command, event, string_enum};

/// Decodes `T` from raw JSON text (lone surrogate escapes read as U+FFFD); the error names
/// `what` for the message.
pub(crate) fn decode_raw<T: DeserializeOwned>(what: &str, raw: &str) -> Result<T, crate::CdpError> {
    crate::surrogates::from_str_lenient(raw).map_err(|source| crate::CdpError::Decode {
        what: what.to_owned(),
        source,
    })
}

/// Defines a params struct with no fields: a unit struct (so both `X` and `X {}` construct it)
/// that serializes as `{}`, plus its [`Command`] impl.
macro_rules! unit_command {
    ($(#[$doc:meta])* $name:ident, $method:literal) => {
        unit_command!($(#[$doc])* $name, $method, $crate::protocol::Empty);
    };
    ($(#[$doc:meta])* $name:ident, $method:literal, $resp:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                s.serialize_map(Some(0))?.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <serde::de::IgnoredAny as serde::Deserialize>::deserialize(d)?;
                Ok($name)
            }
        }

        $crate::protocol::command!($name, $method, $resp);
    };
}

pub(crate) use unit_command;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dom, input, page, target};

    #[test]
    fn unit_params_serialize_as_empty_object() {
        assert_eq!(serde_json::to_string(&page::Enable).unwrap(), "{}");
        assert_eq!(serde_json::to_string(&page::Enable {}).unwrap(), "{}");
        let _: page::Enable = serde_json::from_str("{\"x\":1}").unwrap();
    }

    #[test]
    fn unknown_fields_and_enum_values_are_tolerated() {
        let d: page::FrameDetached = decode_raw(
            "Page.frameDetached",
            r#"{"frameId":"F","reason":"teleport","new":1}"#,
        )
        .unwrap();
        assert_eq!(d.reason, Some(page::FrameDetachedReason::Unknown));
        let t: target::TargetInfo = serde_json::from_str(
            r#"{"targetId":"T","type":"tab","title":"","url":"","attached":false,"futureField":[1]}"#,
        )
        .unwrap();
        assert_eq!(t.r#type, "tab");
    }

    #[test]
    fn string_enums_use_wire_names() {
        let m = input::DispatchMouseEvent {
            r#type: "mousePressed".into(),
            x: 1.0,
            y: 2.0,
            button: Some(input::MouseButton::Left),
            click_count: Some(1),
            ..Default::default()
        };
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["type"], "mousePressed");
        assert_eq!(v["button"], "left");
        assert_eq!(v["clickCount"], 1);
        assert!(v.get("deltaX").is_none());
    }

    #[test]
    fn node_attribute_lookup_and_renames() {
        let n: dom::Node = serde_json::from_str(
            r#"{"nodeId":1,"backendNodeId":2,"nodeType":1,"nodeName":"IFRAME","localName":"iframe","nodeValue":"",
               "attributes":["id","f","src","x"],"frameId":"F1","documentURL":"http://a/"}"#,
        )
        .unwrap();
        assert_eq!(n.attribute("src"), Some("x"));
        assert_eq!(n.attribute("nope"), None);
        assert_eq!(n.document_url.as_deref(), Some("http://a/"));
        assert_eq!(n.frame_id, Some(crate::FrameId::from("F1")));
    }
}
