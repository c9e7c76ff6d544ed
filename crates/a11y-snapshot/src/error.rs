//! The crate's error type.

use thiserror::Error;

/// Everything that can go wrong while capturing a snapshot or resolving a node.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The text is not an encoded id of the form `<frameIndex>-<backendNodeId>`.
    #[error("invalid encoded id {input:?}: expected <frameIndex>-<backendNodeId>, e.g. 0-42")]
    InvalidEncodedId {
        /// The rejected text.
        input: String,
    },
    /// The text is not a ref of the form `eN` / `@eN`.
    #[error("invalid ref {input:?}: expected @eN, e.g. @e5")]
    InvalidRef {
        /// The rejected text.
        input: String,
    },
    /// The ref is well formed but this tab's ref table does not know it.
    #[error("ref {reference} not found: take a new snapshot")]
    RefNotFound {
        /// The unknown ref, as printed (`e9`).
        reference: String,
    },
    /// The encoded id names a node that was not in the last snapshot and cannot be looked up.
    #[error("element {id} not found in the last snapshot")]
    UnknownEncodedId {
        /// The encoded id.
        id: String,
    },
    /// No element matches the CSS selector or XPath.
    #[error("no element matches {selector:?}")]
    NotFound {
        /// The selector that matched nothing.
        selector: String,
    },
    /// The selector names a node that is no element (the document, a comment, an attribute).
    #[error("{target} is {node}, not an element: name an element instead")]
    NotAnElement {
        /// The selector, ref or encoded id as given.
        target: String,
        /// What it names (`the document`, `a comment`, ...).
        node: &'static str,
    },
    /// The selector is not valid CSS / XPath.
    #[error("invalid selector {selector:?}: {reason}")]
    InvalidSelector {
        /// The rejected selector.
        selector: String,
        /// What the browser said.
        reason: String,
    },
    /// The node is gone and what now sits at its old position is not the same element.
    #[error("element {target} is stale: {reason}; take a new snapshot")]
    Stale {
        /// The ref or encoded id that was asked for.
        target: String,
        /// Why it is considered stale.
        reason: String,
    },
    /// A child frame did not answer a search that had to hear from every frame
    /// ([`crate::resolve::ResolveOptions::require_every_frame`]).
    #[error("frame {frame} did not answer: {reason}")]
    FrameUnanswered {
        /// The frame index.
        frame: String,
        /// Why (its error).
        reason: String,
    },
    /// The frame the node lives in is not (or no longer) part of the page.
    #[error("frame {frame} not found")]
    FrameNotFound {
        /// The frame index or id.
        frame: String,
    },
    /// A stored XPath does not follow this crate's step grammar.
    #[error("invalid xpath {xpath:?}")]
    InvalidXPath {
        /// The rejected path.
        xpath: String,
    },
    /// The ref table file/bytes could not be read back.
    #[error("could not decode {what}: {source}")]
    Decode {
        /// What was being decoded.
        what: String,
        /// The underlying decode error.
        #[source]
        source: serde_json::Error,
    },
    /// A CDP call failed.
    #[error("cdp: {0}")]
    Cdp(#[from] cdp_protocol::CdpError),
    /// The frame graph could not answer.
    #[error("frame graph: {0}")]
    FrameGraph(#[from] frame_graph::FrameGraphError),
    /// The browser answered something this crate did not expect.
    #[error("unexpected browser answer to {method}: {detail}")]
    Unexpected {
        /// The CDP method.
        method: String,
        /// What was wrong.
        detail: String,
    },
}
