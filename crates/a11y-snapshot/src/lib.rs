//! Accessibility snapshot across frames (work in progress).
