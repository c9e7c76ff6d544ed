//! Integration tests of the envelope crate: golden tests against every example of the
//! spec (and the reference CLI's observed outputs where the spec is silent), plus
//! property tests of the wire-format invariants.

mod util;

mod spec_envelope;
mod spec_interaction;
mod spec_lifecycle;
mod spec_non_browser;
mod spec_observation;
mod spec_storage;

mod reference;

mod props;
