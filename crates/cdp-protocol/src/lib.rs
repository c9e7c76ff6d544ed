//! Typed Chrome DevTools Protocol transport (work in progress).
