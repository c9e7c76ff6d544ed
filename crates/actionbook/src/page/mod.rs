//! Page primitives on typed CDP, the pieces commands are made of. Each takes the page's flat
//! session (and a [`Deadline`](crate::deadline::Deadline)) and knows nothing of sessions, tabs or
//! records:
//! - [`navigation`]: the URL policy, navigate, history, and the one [`navigation::LoadWaiter`];
//! - [`eval`]: typed reads, `browser eval`, and [`eval::ObjectHandle`] (released on drop);
//! - [`locate`]: `@eN` / CSS / XPath in any frame to a [`locate::Located`] node;
//! - [`actionability`]: whether an element can take a pointer action, where, and whether the
//!   input sent arrived at it;
//! - [`quick_aim`]: the same for an element of the top document in one round trip before the
//!   input and one after, with no object handle (the common click);
//! - [`input`]: the mouse and the keyboard;
//! - [`edit`]: form fields (kind, focus, caret, value, clear, options, files);
//! - [`scroll`]: scrolling the page, a container, an element into view;
//! - [`frames`]: the tab's frame graph and ref table, and the snapshot;
//! - [`query`]: `browser query` matching (CSS with extensions, XPath) and unique selectors;
//! - [`read`]: reading an element (HTML, text, value, attributes, styles, box, state, AX facts);
//! - [`screenshot`]: screenshots and PDFs written to the user's file, the annotation overlay;
//! - [`hit_test`]: the element under a viewport point, through every frame;
//! - [`quad`]: a box drawn transformed (a CDP quad) as an affine map of its layout rectangle;
//! - [`watch`]: waking on page changes, visibility, truthiness (the waits).

pub(crate) mod actionability;
pub(crate) mod edit;
pub(crate) mod eval;
pub(crate) mod frames;
pub(crate) mod hit_test;
pub(crate) mod input;
pub(crate) mod locate;
pub(crate) mod navigation;
pub(crate) mod quad;
pub(crate) mod query;
pub(crate) mod quick_aim;
pub(crate) mod read;
pub(crate) mod screenshot;
pub(crate) mod scroll;
pub(crate) mod watch;
