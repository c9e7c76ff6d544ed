//! Recording times: milliseconds since the Unix epoch, written as RFC 3339 UTC with milliseconds
//! (`2026-11-29T20:19:29.123Z`) so exported files are readable and round-trip exactly.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in time with millisecond precision, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(i64);

/// Milliseconds of 9999-12-31T23:59:59.999Z, the last instant RFC 3339 can write.
const MAX_MS: i64 = 253_402_300_799_999;

impl Timestamp {
    /// Now, by the system clock (the epoch if the clock is before it).
    pub fn now() -> Timestamp {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(MAX_MS))
            .unwrap_or(0);
        Timestamp(ms.min(MAX_MS))
    }

    /// From milliseconds since the epoch, clamped to years 1970..=9999.
    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(ms.clamp(0, MAX_MS))
    }

    /// Milliseconds since the epoch.
    pub fn as_millis(self) -> i64 {
        self.0
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`; fractions beyond milliseconds are dropped.
    pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = b.get(r)?;
            if part.iter().all(u8::is_ascii_digit) {
                std::str::from_utf8(part).ok()?.parse().ok()
            } else {
                None
            }
        };
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        if b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        if hour > 23 || min > 59 || sec > 59 {
            return None;
        }
        let mut i = 19;
        let mut millis = 0;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let digits = &s[start..i];
            if digits.is_empty() {
                return None;
            }
            let three: String = digits.chars().chain("000".chars()).take(3).collect();
            millis = three.parse().ok()?;
        }
        let offset_min = match &s[i..] {
            "Z" | "z" => 0,
            rest if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
                if rest.as_bytes()[3] != b':' {
                    return None;
                }
                let (h, m) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
                if h > 23 || m > 59 {
                    return None;
                }
                let sign = if rest.starts_with('-') { -1 } else { 1 };
                sign * (h * 60 + m)
            }
            _ => return None,
        };
        let days = days_from_civil(year, month, day);
        let secs = days * 86_400 + hour * 3_600 + min * 60 + sec - offset_min * 60;
        let ms = secs.checked_mul(1_000)?.checked_add(millis)?;
        (0..=MAX_MS).contains(&ms).then_some(Timestamp(ms))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.rem_euclid(1_000);
        let secs = self.0.div_euclid(1_000);
        let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            rem / 3_600,
            rem % 3_600 / 60,
            rem % 60
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Millis(i64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Millis(ms) => Ok(Timestamp::from_millis(ms)),
            Raw::Text(s) => Timestamp::parse_rfc3339(&s).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "'{s}' is not an RFC 3339 time like 2026-11-29T20:19:29.123Z"
                ))
            }),
        }
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian, day 0 = 1970-01-01).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_instants() {
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00.000Z");
        let t = Timestamp::parse_rfc3339("2026-11-29T20:19:29.123Z").unwrap();
        assert_eq!(t.as_millis(), 1_795_983_569_123);
        assert_eq!(t.to_string(), "2026-11-29T20:19:29.123Z");
        let shifted = Timestamp::parse_rfc3339("2026-11-29T21:19:29.1+01:00").unwrap();
        assert_eq!(shifted.as_millis(), 1_795_983_569_100);
        assert_eq!(
            Timestamp::parse_rfc3339("2024-02-29T00:00:00Z").map(|t| t.to_string()),
            Some("2024-02-29T00:00:00.000Z".into())
        );
    }

    #[test]
    fn rejects_malformed_times() {
        for bad in [
            "",
            "2026-11-29",
            "2026-13-01T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2026-11-29T24:00:00Z",
            "2026-11-29T20:19:29.Z",
            "2026-11-29T20:19:29",
            "2026-11-29T20:19:29+0100",
            "1969-12-31T23:59:59Z",
            "2026-11-29T20:19:29.123Zjunk",
        ] {
            assert_eq!(Timestamp::parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn json_accepts_text_and_millis() {
        let t: Timestamp = serde_json::from_str("\"1970-01-01T00:00:01.500Z\"").unwrap();
        assert_eq!(t.as_millis(), 1_500);
        let t: Timestamp = serde_json::from_str("1500").unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"1970-01-01T00:00:01.500Z\""
        );
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
    }

    proptest! {
        #[test]
        fn text_round_trips(ms in 0..=MAX_MS) {
            let t = Timestamp(ms);
            prop_assert_eq!(Timestamp::parse_rfc3339(&t.to_string()), Some(t));
        }
    }
}
