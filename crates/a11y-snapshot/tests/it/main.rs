//! Integration tests against real headless Chromium: pages served by the test on 127.0.0.1, cross-site
//! iframes on localhost (out of process under --site-per-process).

mod support;

mod deep;
mod differential;
mod frames;
mod golden;
mod main_frame;
mod other_client;
mod refs_and_stale;
