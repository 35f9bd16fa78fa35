//! Errors of the rating engine (free of any FFI concern; `src/ffi/error.rs` maps them to
//! stable C result codes).

use std::fmt;

/// The documented bound of every rating and rating-valued setting: ratings passed to any
/// function, set in a pool or used in a configuration lie within `±1e15` (every setting has a
/// documented range: `docs/configuration.md`, `docs/ranges.md`). Range checks compare in `f64` against this
/// value, so a `double` setting of exactly `1e15` is accepted (docs/ranges.md).
pub const RATING_BOUND: f64 = 1e15;

/// The largest `f32` rating within [`RATING_BOUND`] (999999986991104, the float nearest
/// `1e15`; no float lies between it and the bound, so comparing a float with it or with
/// the bound in `f64` gives the same answer). With K, `L` and `V` at most [`MAX_FACTOR`],
/// one match changes a rating by at most [`MAX_CHANGE`], so every result is a finite
/// `f32`.
pub const MAX_RATING: f32 = 1e15;

/// The largest K, `L` (score-share bonus) or `V` (victory bonus), in a configuration or
/// given per call.
pub const MAX_FACTOR: f64 = 1e6;

/// An upper bound of one match's rating change: `K * M * |S - E| + L * share + V * W`
/// with every factor at most [`MAX_FACTOR`], `M <= 1`, plus one for rounding.
pub const MAX_CHANGE: f64 = 3.0 * MAX_FACTOR + 1.0;

/// The largest rating magnitude a pool holds (2^55): ratings reach past [`MAX_RATING`]
/// only through matches, and a pool refuses a list of matches that could take a rating
/// past this bound (its exact total, see `pool`, is sized for it).
pub const MAX_POOL_RATING: f64 = 36_028_797_018_963_968.0;

/// A configuration value that is missing, malformed or out of range.
///
/// `field` is the path of the offending setting (for example `k_policy.tiers[1].below`),
/// so that a message read in a Unity console points straight at the JSON to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the setting.
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl ConfigError {
    /// Creates an error about `field`.
    #[must_use]
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { field: field.into(), reason: reason.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}

/// Everything the engine can refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A rating, K, score, point count or setting that must be finite was NaN or infinite.
    NotFinite {
        /// Which argument.
        name: String,
    },
    /// A score outside `[0, 1]`.
    ScoreOutOfRange {
        /// Which argument.
        name: String,
        /// The value given, as the message shows it ([`shown`]).
        got: String,
    },
    /// Negative points for a score computed from points.
    NegativePoints {
        /// Which argument.
        name: String,
        /// The value given, as the message shows it ([`shown`]).
        got: String,
    },
    /// A K factor below zero.
    NegativeK {
        /// Which argument.
        name: String,
        /// The value given, as the message shows it ([`shown`]).
        got: String,
    },
    /// A finite number outside its documented range (a rating beyond `±MAX_RATING`, a K
    /// above `MAX_FACTOR`).
    OutOfRange {
        /// Which argument.
        name: String,
        /// The range it must lie in, in words.
        range: &'static str,
        /// The value given, as the message shows it, when it helps.
        got: Option<String>,
    },
    /// The K policy needs player state (games played, flags) that the call did not give.
    KPolicyNeedsPlayerState,
    /// Text that is not JSON, or JSON of the wrong shape.
    InvalidJson(String),
    /// A JSON object with a field the engine does not know.
    UnknownJsonField(String),
    /// A setting out of range or inconsistent.
    InvalidConfig(ConfigError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFinite { name } => write!(f, "{name} must be a finite number (not NaN or infinite)"),
            Self::ScoreOutOfRange { name, got } => write!(f, "{name} must be between 0 and 1 (got {got})"),
            Self::NegativePoints { name, got } | Self::NegativeK { name, got } => write!(f, "{name} must not be negative (got {got})"),
            Self::OutOfRange { name, range, got: None } => write!(f, "{name} must be {range}"),
            Self::OutOfRange { name, range, got: Some(got) } => write!(f, "{name} must be {range} (got {got})"),
            Self::KPolicyNeedsPlayerState => f.write_str(
                "the configured K policy (fide or games_played) needs player state: \
                 use the player-state functions or pass a K per pair",
            ),
            Self::InvalidJson(message) | Self::UnknownJsonField(message) => {
                write!(f, "invalid configuration JSON: {message}")
            }
            Self::InvalidConfig(error) => write!(f, "invalid configuration: {error}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(error: ConfigError) -> Self {
        Self::InvalidConfig(error)
    }
}

/// Checks that `value` is finite; `name` goes into the error.
///
/// # Errors
/// [`Error::NotFinite`] for NaN or an infinity.
#[inline]
pub fn check_finite(value: f64, name: &str) -> Result<f64, Error> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::NotFinite { name: name.to_owned() })
    }
}

/// The range of a rating, in words, for messages.
pub const RATING_RANGE: &str = "a finite number from -1e15 to 1e15 (MAX_RATING)";

/// Checks a rating given by a caller: finite and within `±`[`RATING_BOUND`].
///
/// # Errors
/// [`Error::NotFinite`] for NaN or an infinity, [`Error::OutOfRange`] beyond the range.
#[inline]
pub fn check_rating(value: f32, name: &str) -> Result<f32, Error> {
    check_finite(f64::from(value), name)?;
    if f64::from(value.abs()) <= RATING_BOUND {
        Ok(value)
    } else {
        Err(Error::OutOfRange { name: name.to_owned(), range: RATING_RANGE, got: Some(shown(f64::from(value))) })
    }
}

/// A number as error messages show it: the shortest text that reads back to the value
/// (`2`, `0.1` for a `float` 0.1, `-32`), in exponent form when very large or very small
/// (`3e38`).
#[must_use]
pub fn shown(value: f64) -> String {
    #[allow(clippy::cast_possible_truncation, reason = "checked: the f32 is used only when it is exact")]
    let single = value as f32;
    let magnitude = value.abs();
    let exponent = magnitude >= 1e16 || (magnitude > 0.0 && magnitude < 1e-5);
    match (f64::from(single) == value, exponent) {
        (true, false) => format!("{single}"),
        (true, true) => format!("{single:e}"),
        (false, false) => format!("{value}"),
        (false, true) => format!("{value:e}"),
    }
}

/// Whether `value` is a valid rating (finite, within `±`[`RATING_BOUND`]), branch-free:
/// a comparison of floats with [`MAX_RATING`], which gives the same answer as comparing
/// in `f64` with the bound (tested).
#[inline(always)]
#[must_use]
pub fn rating_in_range(value: f32) -> bool {
    value.abs() <= MAX_RATING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_float_bound_is_the_largest_float_within_the_documented_bound() {
        assert!(f64::from(MAX_RATING) <= RATING_BOUND);
        assert!(f64::from(MAX_RATING.next_up()) > RATING_BOUND);
        for value in [MAX_RATING, MAX_RATING.next_up(), -MAX_RATING, 1500.0, f32::MAX, f32::INFINITY, f32::NAN] {
            assert_eq!(rating_in_range(value), f64::from(value.abs()) <= RATING_BOUND, "{value}");
            assert_eq!(rating_in_range(value), check_rating(value, "r").is_ok(), "{value}");
        }
    }
}
