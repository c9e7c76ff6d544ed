//! Calls per second through one connection (filled in later).
fn main() {}
