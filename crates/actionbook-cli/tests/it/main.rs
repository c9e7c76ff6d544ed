//! End-to-end tests: the real `actionbook` binary, its daemon and a real headless Chromium, each test
//! with its own ACTIONBOOK_HOME and fixture server; every process is killed when a test ends.

mod support;

mod cli;
mod crash;
mod daemon;
mod frames;
mod interact;
mod layers;
mod lifecycle;
mod nav;
mod ownership;
mod page;
mod parallel;
mod windows;
