//! Errors of the rating engine (free of any FFI concern; `src/ffi/error.rs` maps them to
//! stable C result codes).

use std::fmt;

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
        Self {
            field: field.into(),
            reason: reason.into(),
        }
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
    },
    /// Negative points for a score computed from points.
    NegativePoints {
        /// Which argument.
        name: String,
    },
    /// A K factor below zero.
    NegativeK {
        /// Which argument.
        name: String,
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
            Self::ScoreOutOfRange { name } => write!(f, "{name} must be between 0 and 1"),
            Self::NegativePoints { name } | Self::NegativeK { name } => write!(f, "{name} must not be negative"),
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
