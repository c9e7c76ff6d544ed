//! Frames of a page (work in progress).
