//! End-to-end tests: the real `actionbook` binary, its daemon and a real headless Chromium, each test
//! with its own ACTIONBOOK_HOME and fixture server; every process is killed when a test ends.

mod support;

mod agent;
mod allowlist;
mod api;
mod atomic;
mod batch;
mod batched;
mod boundaries;
mod cli;
mod crash;
mod daemon;
mod doctor;
mod downloads;
mod emulate;
mod frames;
mod input;
mod interact;
mod landing;
mod layers;
mod lifecycle;
mod manuals;
mod mcp;
mod nav;
mod network;
mod observe;
mod oopif_matrix;
mod ownership;
mod page;
mod parallel;
mod pointer;
mod policy;
mod providers;
mod remote;
mod remote_net;
mod runtime;
mod secrets;
mod snapshot_diff;
mod snapshot_limits;
mod snapshot_truth;
mod storage;
mod storage_state;
mod transformed_frames;
mod waits;
mod windows;
