//! The actionbook engine (work in progress).
