//! Season rules: the soft reset at a season's end and inactivity decay (issue 13). The
//! formulas live here; a [`crate::pool::Pool`] applies them to its players
//! ([`crate::ladder::season`]).
//!
//! ```text
//! reset:  R' = anchor + (R - anchor) * keep            keep in [0, 1], per league if set
//! decay:  R' = max(R - per_day * days, anchor, floor)  for R above the stop, once inactive
//! ```
//!
//! `anchor` is the initial rating or the pool's mean rating; `days` counts only the time
//! past the grace period not decayed already. Both changes go through the configured
//! rounding, like a match's change.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::league::{check_rating_setting, Leagues};

/// Seconds in a day: decay is configured per day, time is given in seconds.
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// Default share of the distance to the anchor a rating keeps at a season's end.
pub const DEFAULT_KEEP: f64 = 0.5;

/// Default inactivity before decay starts, in days.
pub const DEFAULT_GRACE_DAYS: f64 = 28.0;

/// The longest grace period, in days (about 2,700 years).
pub const MAX_GRACE_DAYS: f64 = 1e6;

/// What ratings are pulled toward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResetAnchor {
    /// The configuration's initial rating.
    #[default]
    InitialRating,
    /// The pool's mean rating at the time of the reset or decay.
    PoolMean,
}

/// The soft reset at a season's end.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeasonReset {
    /// What ratings are pulled toward (also the point decay stops at).
    pub anchor: ResetAnchor,
    /// Share of the distance to the anchor a rating keeps, 0 (everybody back to the
    /// anchor) to 1 (no reset). A league's `season_keep` overrides it for its players.
    pub keep: f64,
}

impl Default for SeasonReset {
    fn default() -> Self {
        Self { anchor: ResetAnchor::InitialRating, keep: DEFAULT_KEEP }
    }
}

/// Inactivity decay (off while `points_per_day` is 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Decay {
    /// Days without a match before decay starts.
    pub grace_days: f64,
    /// Rating lost per day of inactivity past the grace period; 0 turns decay off.
    pub points_per_day: f64,
    /// Only players rated at least this decay (`None`: everybody above the anchor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rating: Option<f32>,
    /// Only players holding at least this league decay (`None`: any league).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_league: Option<u32>,
    /// Decay never takes a rating below this (`None`: the anchor is the only stop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<f32>,
}

impl Default for Decay {
    fn default() -> Self {
        Self { grace_days: DEFAULT_GRACE_DAYS, points_per_day: 0.0, min_rating: None, min_league: None, floor: None }
    }
}

/// Checks a share in `[0, 1]`.
pub(crate) fn check_keep(keep: f64, field: &str) -> Result<(), ConfigError> {
    if (0.0..=1.0).contains(&keep) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be a number from 0 to 1 (got {keep})")))
    }
}

impl SeasonReset {
    /// Checks the settings.
    ///
    /// # Errors
    /// `keep` outside `[0, 1]` (or NaN).
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        check_keep(self.keep, &format!("{field}.keep"))
    }
}

impl Decay {
    /// Checks the settings against the leagues.
    ///
    /// # Errors
    /// A grace period or rate out of range, a rating outside the rating range, or a league
    /// the configuration does not have.
    pub fn validate(&self, field: &str, leagues: &Leagues) -> Result<(), ConfigError> {
        if !(self.grace_days.is_finite() && (0.0..=MAX_GRACE_DAYS).contains(&self.grace_days)) {
            return Err(ConfigError::new(format!("{field}.grace_days"), format!("must be a number of days from 0 to 1e6 (got {})", self.grace_days)));
        }
        let max = f64::from(crate::error::MAX_RATING);
        if !(self.points_per_day.is_finite() && (0.0..=max).contains(&self.points_per_day)) {
            return Err(ConfigError::new(format!("{field}.points_per_day"), format!("must be a finite number from 0 to 1e15 (got {})", self.points_per_day)));
        }
        if let Some(rating) = self.min_rating {
            check_rating_setting(f64::from(rating), &format!("{field}.min_rating"))?;
        }
        if let Some(floor) = self.floor {
            check_rating_setting(f64::from(floor), &format!("{field}.floor"))?;
        }
        if let Some(league) = self.min_league {
            if league as usize >= leagues.len().max(1) {
                return Err(ConfigError::new(
                    format!("{field}.min_league"),
                    format!("is league {league} but the configuration has {} (indices from 0)", leagues.len()),
                ));
            }
        }
        Ok(())
    }

    /// Whether decay is on.
    #[must_use]
    pub fn is_on(&self) -> bool {
        self.points_per_day > 0.0
    }

    /// The rating after `days` more days of decay from `rating` (f64 in, before rounding):
    /// lowered toward `stop` (the anchor or the floor, whichever is higher), never past it.
    /// Ratings at or below the stop do not move.
    #[must_use]
    pub fn decayed(&self, rating: f32, days: f64, anchor: f64) -> f64 {
        let stop = self.floor.map_or(anchor, |floor| anchor.max(f64::from(floor)));
        let rating = f64::from(rating);
        if rating <= stop {
            return rating;
        }
        (rating - self.points_per_day * days).max(stop)
    }
}

/// The soft-reset formula `anchor + (rating - anchor) * keep`, in `f64`.
#[must_use]
pub fn reset_rating(rating: f32, anchor: f64, keep: f64) -> f64 {
    anchor + (f64::from(rating) - anchor) * keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_pulls_toward_the_anchor() {
        assert_eq!(reset_rating(2000.0, 1500.0, 0.5), 1750.0);
        assert_eq!(reset_rating(1000.0, 1500.0, 0.5), 1250.0);
        assert_eq!(reset_rating(2000.0, 1500.0, 0.0), 1500.0);
        assert_eq!(reset_rating(2000.0, 1500.0, 1.0), 2000.0);
    }

    #[test]
    fn decay_stops_at_the_anchor_or_floor() {
        let decay = Decay { points_per_day: 10.0, ..Decay::default() };
        assert_eq!(decay.decayed(1600.0, 3.0, 1500.0), 1570.0);
        assert_eq!(decay.decayed(1600.0, 30.0, 1500.0), 1500.0);
        assert_eq!(decay.decayed(1400.0, 30.0, 1500.0), 1400.0);
        let floored = Decay { floor: Some(1550.0), ..decay };
        assert_eq!(floored.decayed(1600.0, 30.0, 1500.0), 1550.0);
    }

    #[test]
    fn settings_are_checked() {
        let leagues = Leagues::default();
        assert_eq!(SeasonReset { keep: 1.5, ..SeasonReset::default() }.validate("season_reset").unwrap_err().field, "season_reset.keep");
        assert!(SeasonReset { keep: f64::NAN, ..SeasonReset::default() }.validate("s").is_err());
        let bad = Decay { grace_days: -1.0, ..Decay::default() };
        assert_eq!(bad.validate("decay", &leagues).unwrap_err().field, "decay.grace_days");
        let bad = Decay { min_league: Some(1), ..Decay::default() };
        assert_eq!(bad.validate("decay", &leagues).unwrap_err().field, "decay.min_league");
        let bad = Decay { points_per_day: f64::INFINITY, ..Decay::default() };
        assert_eq!(bad.validate("decay", &leagues).unwrap_err().field, "decay.points_per_day");
    }
}
