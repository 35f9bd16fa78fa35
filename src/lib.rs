//! # ranking-elo
//!
//! A deterministic Elo rating engine for games, with a C ABI for Unity (P/Invoke),
//! C and C++ game servers, and this Rust API.
//!
//! ```
//! use ranking_elo::{Config, Outcome};
//!
//! // The classic system: logistic expectation with c = 400, K = 32.
//! let rules = Config::default().validate().unwrap();
//! let e = rules.expected_score(1700.0, 1300.0);
//! assert!((e - 1.0 / 1.1).abs() < 1e-9);
//!
//! // Player 1 (1700) loses to player 2 (1300).
//! let (a, b) = rules.rate(1700.0, 1300.0, Outcome::LOSS).unwrap();
//! assert!((a - 1670.909).abs() < 1e-3 && (b - 1329.091).abs() < 1e-3);
//! ```
//!
//! The formulas, defaults and reference values are those the repository's documentation
//! gives (the README's "The formulas in brief", `docs/configuration.md` for every setting):
//! expected score ([`expected`]), outcomes ([`outcome`]), the update rule ([`update`]), K
//! policies ([`kpolicy`]), leagues ([`league`]), win streaks ([`Rules::streak_multiplier`])
//! and the configuration ([`config`]). Ladders add pools ([`pool`]) with their zero-sum
//! ledger ([`ladder::zero_sum`]), leagues with hysteresis ([`standing`]), seasons with soft
//! resets and inactivity decay ([`season`], [`rating::season_rules`]) and saves ([`save`]);
//! matchmaking queues are [`matchmaking`].
//!
//! ## Valid ranges
//!
//! Every input and setting has a documented range (ratings within ±[`error::MAX_RATING`],
//! K, `L` and `V` at most [`error::MAX_FACTOR`], …; the repository's `docs/ranges.md` lists
//! them all), checked at every entry point, so a call that succeeds always returns finite
//! ratings.
//!
//! ## Determinism
//!
//! Ratings are stored as `f32`; all arithmetic is `f64` with IEEE-754 basic operations
//! only ([`detmath`]): no platform `pow`/`exp`/`erf`, no fused multiply-add. The same
//! inputs give the same bits on every platform and through every entry point (single
//! call, [`batch`], the C ABI in [`ffi`]). The expected score `E`, as the `f32` callers
//! receive, is within 3e-8 (half an `f32` ulp near 1) of an exact `f64` reference over rating differences
//! −4000…4000 (measured by the test `expected_score_error_sweep`).

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::pedantic)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
#![allow(clippy::cast_possible_truncation, reason = "ratings are f32 at rest and f64 in flight: narrowing is the documented design")]
#![allow(clippy::cast_precision_loss, reason = "counts become f64 only in statistics where 2^53 is out of reach")]
#![allow(clippy::module_name_repetitions, reason = "FFI names repeat the concept on purpose")]
#![allow(clippy::float_cmp, reason = "bit-exact comparisons are what determinism means")]
#![allow(clippy::inline_always, reason = "the math is inlined into the batch and pool loops so that it vectorizes there")]
#![allow(clippy::many_single_char_names, reason = "formula variables keep the formulas' names")]

// The layers, one folder each: the rating math, the batch kernel, ladders (pools,
// seasons, saves), matchmaking queues, and the C ABI on top.
pub mod batch;
pub mod error;
pub mod ffi;
mod json;
pub mod ladder;
pub mod matchmaking;
pub mod rating;

// Every module keeps its short path (`ranking_elo::pool`, `ranking_elo::config`, …).
pub use batch::kernel;
pub use ladder::{pool, save, season};
pub use rating::{config, detmath, expected, kpolicy, league, outcome, period, placement, player, standing, team, update};

pub use config::{Config, KCombine, Rounding, RoundingRule, RoundingTarget, Rules};
pub use error::{ConfigError, Error};
pub use expected::ExpectedScoreModel;
pub use kpolicy::KPolicy;
pub use league::{League, Leagues};
pub use outcome::Outcome;
pub use player::PlayerState;
pub use update::{tutorial_probability, tutorial_update};

/// The crate version, as `elo_version` reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The engine's build id, as `elo_build_id` reports it: 32 hex digits hashing the source,
/// the locked dependencies and the build settings (computed by `build.rs`). Two binaries
/// with the same id were built from the same engine.
pub const BUILD_ID: &str = env!("RANKING_ELO_BUILD_ID");

/// The text every binary carries so that its build id can be read without running it
/// (static libraries for iOS, Android and WebGL, Mach-O files): this prefix, the 32 hex
/// digits of [`BUILD_ID`], then a NUL.
pub const BUILD_ID_MARKER_PREFIX: &str = "RANKING_ELO_BUILD_ID=";
