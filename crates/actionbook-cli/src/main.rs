//! The `actionbook` binary (work in progress).
fn main() {}
