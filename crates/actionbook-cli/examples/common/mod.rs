//! What the benchmark examples share: medians, printing, finding the binary.

use std::path::PathBuf;
use std::time::Duration;

/// The median (the upper one of an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// `$ACTIONBOOK_BIN`, else the `actionbook` binary of this example's target directory.
pub fn actionbook_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("ACTIONBOOK_BIN") {
        return PathBuf::from(p);
    }
    // target/<profile>/examples/<name> -> target/<profile>/actionbook
    std::env::current_exe()
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.parent())
                .map(|d| d.join("actionbook"))
        })
        .unwrap_or_else(|| PathBuf::from("actionbook"))
}
