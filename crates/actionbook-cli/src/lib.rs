//! The `actionbook` binary's side: the clap tree made from the engine's command table, lowering
//! arguments into typed requests, printing envelopes, `batch` files, `setup`, and the daemon's
//! client and process (the binary starts it). Everything a command does is the engine's
//! ([`actionbook`]); this crate only reads a process's arguments and writes its output.

pub mod cli;
