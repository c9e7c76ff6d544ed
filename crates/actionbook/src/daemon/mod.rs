//! The daemon: one per home, serving the [`Engine`](crate::Engine) to short-lived CLI processes.
//!
//! - [`wire`]: the versioned, tolerant frame format;
//! - [`server`]: the daemon itself (lock, socket, drain on restart);
//! - [`client`]: send one request, starting (or replacing) the daemon when needed.

pub mod client;
pub mod server;
pub mod wire;
