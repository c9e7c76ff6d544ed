//! Shared support for the workspace's integration tests, examples and benches (work in progress).
