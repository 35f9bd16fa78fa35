//! Result codes, the failure type every exported function returns, and the per-thread
//! last error (read through the functions of `messages.rs`). This module depends on no
//! other part of the C ABI: the argument checks (`args.rs`) build on it.

use std::cell::RefCell;

use crate::batch::BatchError;
use crate::error::Error;

/// Result of every fallible `elo_*` function. Values are stable: they are never
/// renumbered or reused.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EloResult {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullPointer = 1,
    /// A count or buffer length was negative, or arrays disagree in length.
    InvalidLength = 2,
    /// A rating, K, score, point count or other number was NaN or infinite.
    NotFinite = 3,
    /// A score was outside `[0, 1]`.
    ScoreOutOfRange = 4,
    /// A point count was negative.
    NegativePoints = 5,
    /// A K factor was negative.
    NegativeK = 6,
    /// The JSON text is malformed or has a value of the wrong type.
    InvalidJson = 7,
    /// The JSON has a field the engine does not know.
    UnknownJsonField = 8,
    /// A configuration setting is out of range or inconsistent.
    InvalidConfig = 9,
    /// The caller's buffer is too small; the needed length was reported.
    BufferTooSmall = 10,
    /// The configured K policy needs player state this function does not take.
    KPolicyNeedsPlayerState = 11,
    /// An output (an array, or a single value such as a count) overlaps another output or
    /// an input, other than an array updated exactly in place.
    OverlappingBuffers = 12,
    /// Text that should be UTF-8 is not.
    InvalidUtf8 = 13,
    /// Both players of a match are the same player.
    SamePlayer = 14,
    /// An index is out of range: a player outside the pool, a league the configuration does
    /// not have.
    IndexOutOfRange = 15,
    /// A pool save is truncated, corrupted, of another format or version, or inconsistent.
    InvalidSave = 16,
    /// A file could not be read or written.
    Io = 17,
    /// A player id is already waiting in the matchmaker.
    DuplicateId = 18,
    /// A finite number is outside its documented range (a rating beyond ±1e15, a K, `L`
    /// or `V` above 1e6).
    OutOfRange = 19,
    /// An argument is invalid in a way no other code names (for example a path that does
    /// not name a file).
    InvalidArgument = 20,
    /// A Rust panic was caught at the boundary (a bug: please report it).
    Panic = 99,
}

impl EloResult {
    /// Every code, for tests and documentation tables.
    pub const ALL: [Self; 22] = [
        Self::Ok,
        Self::NullPointer,
        Self::InvalidLength,
        Self::NotFinite,
        Self::ScoreOutOfRange,
        Self::NegativePoints,
        Self::NegativeK,
        Self::InvalidJson,
        Self::UnknownJsonField,
        Self::InvalidConfig,
        Self::BufferTooSmall,
        Self::KPolicyNeedsPlayerState,
        Self::OverlappingBuffers,
        Self::InvalidUtf8,
        Self::SamePlayer,
        Self::IndexOutOfRange,
        Self::InvalidSave,
        Self::Io,
        Self::DuplicateId,
        Self::OutOfRange,
        Self::InvalidArgument,
        Self::Panic,
    ];

    /// The code for a raw value, if it is one.
    #[must_use]
    pub fn from_u32(value: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|code| *code as u32 == value)
    }

    /// A fixed one-line description of the code.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Self::Ok => "success",
            Self::NullPointer => "a required pointer argument was NULL",
            Self::InvalidLength => "a count or buffer length was negative, or array lengths disagree",
            Self::NotFinite => "a number was NaN or infinite",
            Self::ScoreOutOfRange => "a score was outside [0, 1]",
            Self::NegativePoints => "a point count was negative",
            Self::NegativeK => "a K factor was negative",
            Self::InvalidJson => "the JSON is malformed or has a value of the wrong type",
            Self::UnknownJsonField => "the JSON has an unknown field",
            Self::InvalidConfig => "a configuration setting is out of range",
            Self::BufferTooSmall => "the buffer is too small",
            Self::KPolicyNeedsPlayerState => "the K policy needs player state",
            Self::OverlappingBuffers => "an output overlaps another output or an input other than exactly in place",
            Self::InvalidUtf8 => "text is not valid UTF-8",
            Self::SamePlayer => "both players of a match are the same player",
            Self::IndexOutOfRange => "an index is out of range (a player outside the pool, a league the configuration does not have)",
            Self::InvalidSave => "the pool save is truncated, corrupted or inconsistent",
            Self::Io => "a file could not be read or written",
            Self::DuplicateId => "the player id is already waiting",
            Self::OutOfRange => "a number is outside its documented range",
            Self::InvalidArgument => "an argument is invalid",
            Self::Panic => "internal error (a caught Rust panic)",
        }
    }
}

/// A failure on its way to the caller: a code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfiError {
    /// The code returned.
    pub code: EloResult,
    /// The message stored for `elo_last_error_message`.
    pub message: String,
}

impl FfiError {
    /// An error with a code and message.
    #[must_use]
    pub fn new(code: EloResult, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

impl From<Error> for FfiError {
    fn from(error: Error) -> Self {
        let code = match &error {
            Error::NotFinite { .. } => EloResult::NotFinite,
            Error::ScoreOutOfRange { .. } => EloResult::ScoreOutOfRange,
            Error::NegativePoints { .. } => EloResult::NegativePoints,
            Error::NegativeK { .. } => EloResult::NegativeK,
            Error::OutOfRange { .. } => EloResult::OutOfRange,
            Error::KPolicyNeedsPlayerState => EloResult::KPolicyNeedsPlayerState,
            Error::InvalidJson(_) => EloResult::InvalidJson,
            Error::UnknownJsonField(_) => EloResult::UnknownJsonField,
            Error::InvalidConfig(_) => EloResult::InvalidConfig,
        };
        Self::new(code, error.to_string())
    }
}

impl From<crate::pool::PoolError> for FfiError {
    fn from(error: crate::pool::PoolError) -> Self {
        use crate::pool::PoolError;
        let code = match &error {
            PoolError::IndexOutOfRange { .. } => EloResult::IndexOutOfRange,
            PoolError::SamePlayer { .. } | PoolError::DuplicatePlayer { .. } => EloResult::SamePlayer,
            PoolError::BadOutcome { error, .. } | PoolError::InvalidPlayer(error) => FfiError::from(error.clone()).code,
            PoolError::OutputLength { .. } => EloResult::InvalidLength,
            PoolError::RatingRange { .. } => EloResult::OutOfRange,
        };
        Self::new(code, error.to_string())
    }
}

impl From<crate::save::SaveError> for FfiError {
    fn from(error: crate::save::SaveError) -> Self {
        let code = match error {
            crate::save::SaveError::Invalid(_) => EloResult::InvalidSave,
            crate::save::SaveError::Io(_) => EloResult::Io,
            crate::save::SaveError::Path(_) => EloResult::InvalidArgument,
        };
        Self::new(code, error.to_string())
    }
}

impl From<crate::error::ConfigError> for FfiError {
    fn from(error: crate::error::ConfigError) -> Self {
        Self::new(EloResult::InvalidConfig, error.to_string())
    }
}

impl From<BatchError> for FfiError {
    fn from(error: BatchError) -> Self {
        match error {
            BatchError::LengthMismatch { .. } => Self::new(EloResult::InvalidLength, error.to_string()),
            BatchError::Element { error, .. } | BatchError::Policy(error) => error.into(),
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<Option<FfiError>> = const { RefCell::new(None) };
}

/// Stores `error` as this thread's last error.
pub(crate) fn record_error(error: FfiError) {
    LAST_ERROR.with(|last| *last.borrow_mut() = Some(error));
}

/// A copy of the last error recorded on the calling thread, if any.
pub(crate) fn last_error() -> Option<FfiError> {
    LAST_ERROR.with(|last| last.borrow().clone())
}
