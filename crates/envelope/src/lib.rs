//! The unified actionbook response envelope (work in progress).
