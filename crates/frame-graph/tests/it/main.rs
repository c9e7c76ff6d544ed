//! Integration tests of frame-graph against a real headless Chromium (--site-per-process),
//! pages served on 127.0.0.1 with cross-site iframes from localhost.

mod support;

mod s10_lost_attach;
mod s11_crash;
mod s12_shadow_owner;
mod s13_bfcache;
mod s1_same_origin;
mod s2_oopif;
mod s3_nesting;
mod s4_insert;
mod s5_navigation;
mod s6_removal;
mod s7_churn;
mod s8_coordinates;
mod s9_deep_dom;
