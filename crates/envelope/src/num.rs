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

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct N(#[serde(serialize_with = "super::compact")] f64);

    fn json(v: f64) -> String {
        serde_json::to_string(&N(v)).unwrap()
    }

    #[test]
    fn whole_numbers_have_no_fraction() {
        assert_eq!(json(10.0), "10");
        assert_eq!(json(-3.0), "-3");
        assert_eq!(json(-0.0), "0");
        assert_eq!(json(1_710_000_000_000.0), "1710000000000");
    }

    #[test]
    fn fractions_and_huge_values_stay_floats() {
        assert_eq!(json(407.625), "407.625");
        assert_eq!(json(0.98), "0.98");
        assert_eq!(json(1e300), "1e+300");
    }

    #[test]
    fn text_matches_json_for_ordinary_values() {
        assert_eq!(super::fmt(10.0), "10");
        assert_eq!(super::fmt(57.484375), "57.484375");
    }
}
