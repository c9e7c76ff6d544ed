//! Integration tests for cdp-protocol: a fake CDP peer for the transport, property tests for
//! the types and routing, and real headless Chromium for launch/connect.

mod chromium;
mod detach;
mod fake_peer;
mod process;
mod props;
mod real_types;
mod redact;
mod surrogates;
mod tls;
mod transport;
