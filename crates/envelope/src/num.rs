//! Numbers on the wire: integral floats are written as integers.
//!
//! Coordinates, sizes and scores are `f64` in Rust, but the spec writes `10`, not
//! `10.0`, whenever the value is whole. These helpers keep the JSON identical to the
//! spec's examples while accepting either form when reading.

use serde::Serializer;

/// Largest magnitude written as an integer (2^53: every integer below is exact in f64).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// Serialises `v` as an integer when it is whole, else as a float.
pub(crate) fn compact<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < MAX_EXACT {
        // Exact: |v| < 2^53 and whole, so the cast loses nothing.
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

/// [`compact`] for an optional number (`None` is written as `null`).
pub(crate) fn compact_opt<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => compact(v, s),
        None => s.serialize_none(),
    }
}

/// Formats a number for text output the same way: `10`, `407.625`.
pub(crate) fn fmt(v: f64) -> String {
    // f64's Display already omits ".0" for whole values and never uses exponents.
    format!("{v}")
}
