//! Page primitives on typed CDP, the pieces commands are made of. Each takes the page's flat
//! session (and a [`Deadline`](crate::deadline::Deadline)) and knows nothing of sessions, tabs or
//! records:
//! - [`navigation`]: the URL policy, navigate, history, and the one [`navigation::LoadWaiter`];
//! - [`eval`]: typed reads, `browser eval`, and [`eval::ObjectHandle`] (released on drop);
//! - [`locate`]: `@eN` / CSS / XPath in any frame to a [`locate::Located`] node;
//! - [`input`]: the mouse and the keyboard;
//! - [`edit`]: form fields (kind, focus, value, clear);
//! - [`frames`]: the tab's frame graph and ref table, and the snapshot.

pub(crate) mod edit;
pub(crate) mod eval;
pub(crate) mod frames;
pub(crate) mod input;
pub(crate) mod locate;
pub(crate) mod navigation;
