//! Real input events (`Input.*`), trusted by the page as a user's would be.

pub(crate) mod keyboard;
pub(crate) mod mouse;
