//! Property tests (filled in next).
