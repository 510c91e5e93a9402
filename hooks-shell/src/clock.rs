//! ISO-8601 UTC timestamps as the reference writes them into the allowlist
//! (Python's `datetime.isoformat()` with `+00:00` turned into `Z`), and the
//! comparison the drift check needs.
//!
//! Two clocks, two roundings, both Python's: `approved_at` is `datetime.now()`,
//! which truncates to the microsecond; a script's mtime goes through
//! `os.path.getmtime` (a double) and `datetime.fromtimestamp`, which rounds
//! that double's fraction to the microsecond, half to even. Recording an mtime
//! any other way makes the two tools see drift that is not there.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `2026-04-17T09:30:12.123456Z`; the fraction is left out when it is zero, as Python does.
pub fn iso_utc(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let seconds = since_epoch.as_secs();
    let micros = since_epoch.subsec_micros();
    let (year, month, day) = civil_from_days(seconds / 86_400);
    let of_day = seconds % 86_400;
    let (hour, minute, second) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);
    let fraction = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}Z")
}

/// A file's mtime as the reference records it:
/// `datetime.fromtimestamp(os.path.getmtime(p), tz=utc).isoformat()`.
///
/// `st_mtime` is the double `sec + nsec * 1e-9`; `fromtimestamp` splits it with
/// `modf`, scales the fraction to microseconds and rounds half to even,
/// carrying a rounded-up million into the seconds.
pub fn iso_from_mtime(time: SystemTime) -> String {
    let (seconds, micros) = python_timestamp_parts(time);
    iso_utc(UNIX_EPOCH + Duration::new(seconds, micros * 1000))
}

/// Whole seconds and microseconds of `time` after Python's float round trip.
pub fn python_timestamp_parts(time: SystemTime) -> (u64, u32) {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    #[allow(clippy::cast_precision_loss)] // the precision loss is the point: Python's double
    let timestamp = since_epoch.as_secs() as f64 + f64::from(since_epoch.subsec_nanos()) * 1e-9;
    let whole = timestamp.trunc();
    let micros = round_half_even((timestamp - whole) * 1e6);
    let (whole, micros) = if micros >= 1e6 {
        (whole + 1.0, micros - 1e6)
    } else {
        (whole, micros)
    };
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // both are in range by construction
    (whole as u64, micros as u32)
}

/// CPython's `_PyTime_RoundHalfEven`.
fn round_half_even(x: f64) -> f64 {
    let rounded = x.round();
    if (x - rounded).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        rounded
    }
}

/// The current time, formatted by [`iso_utc`].
pub fn now_iso() -> String {
    iso_utc(SystemTime::now())
}

/// A UTC timestamp as comparable parts `(year, month, day, hour, minute,
/// second, microsecond)`, or `None` if `text` is not one we can read.
///
/// Accepts `YYYY-MM-DDTHH:MM:SS[.ffffff](Z|+00:00)`.
pub fn parse_iso(text: &str) -> Option<[u32; 7]> {
    let text = text
        .trim()
        .strip_suffix('Z')
        .or_else(|| text.trim().strip_suffix("+00:00"))?;
    let (date, time) = text.split_once('T')?;
    let mut date_parts = date.splitn(3, '-').map(|part| part.parse::<u32>().ok());
    let (year, month, day) = (
        date_parts.next()??,
        date_parts.next()??,
        date_parts.next()??,
    );
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, fraction),
        None => (time, ""),
    };
    let mut clock_parts = clock.splitn(3, ':').map(|part| part.parse::<u32>().ok());
    let (hour, minute, second) = (
        clock_parts.next()??,
        clock_parts.next()??,
        clock_parts.next()??,
    );
    let micros = if fraction.is_empty() {
        0
    } else {
        if fraction.len() > 6 || !fraction.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        format!("{fraction:0<6}").parse::<u32>().ok()?
    };
    Some([year, month, day, hour, minute, second, micros])
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // Howard Hinnant's algorithm, shifted so the era starts on 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_python_isoformat() {
        assert_eq!(iso_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let time = UNIX_EPOCH + Duration::new(1_776_418_212, 123_456_789);
        assert_eq!(iso_utc(time), "2026-04-17T09:30:12.123456Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(iso_utc(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn mtimes_round_like_python_fromtimestamp() {
        // Expected values computed with CPython 3.11:
        // datetime.fromtimestamp(sec + nsec * 1e-9, tz=timezone.utc).isoformat()
        for (seconds, nanos, expected) in [
            (1_776_418_212, 123_456_789, "2026-04-17T09:30:12.123457Z"),
            (1_776_418_212, 999_999_600, "2026-04-17T09:30:13Z"),
            (1_700_000_000, 500, "2023-11-14T22:13:20Z"),
            (1_700_000_000, 1_500, "2023-11-14T22:13:20.000001Z"),
            (1_700_000_000, 2_500, "2023-11-14T22:13:20.000002Z"),
            (1_700_000_000, 0, "2023-11-14T22:13:20Z"),
        ] {
            let time = UNIX_EPOCH + Duration::new(seconds, nanos);
            assert_eq!(iso_from_mtime(time), expected, "{seconds}.{nanos:09}");
        }
    }

    #[test]
    fn parses_what_it_writes() {
        let time = UNIX_EPOCH + Duration::new(1_776_418_212, 5_000);
        assert_eq!(parse_iso(&iso_utc(time)), Some([2026, 4, 17, 9, 30, 12, 5]));
        assert_eq!(
            parse_iso("2026-04-17T09:30:12.5+00:00"),
            Some([2026, 4, 17, 9, 30, 12, 500_000])
        );
        assert_eq!(parse_iso("yesterday"), None);
        assert_eq!(parse_iso("2026-04-17T09:30:12"), None);
    }
}
