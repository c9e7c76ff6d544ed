//! Integration tests for cdp-protocol.
