//! Action manuals (work in progress).

pub mod area;
pub mod bundled;
pub mod error;
pub mod fts;
pub mod store;
#[cfg(test)]
mod store_tests;
pub mod time;
pub mod transfer;

pub use error::ManualsError;
