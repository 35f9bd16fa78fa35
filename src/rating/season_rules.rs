//! Season rules: the soft reset at a season's end and inactivity decay
//! (`docs/seasons.md#season-end`, `docs/seasons.md#inactivity-decay`). The formulas live
//! here; a [`crate::pool::Pool`] applies them to its players ([`crate::ladder::season`]).
//!
//! ```text
//! reset:  R' = anchor + (R - anchor) * keep            keep in [0, 1], per league if set
//! stop  = max(anchor, floor, min_rating, lower bound of min_league)
//! decay:  R' = max(R + round(max(R - per_day * days, stop) - R), stop)   for R above stop
//! ```
//!
//! `anchor` is the initial rating or the pool's mean rating; `days` counts only the time
//! past the grace period not decayed already. Both changes go through the configured
//! rounding, like a match's change; decay's stop is applied after the rounding, so it
//! holds for every rounding, and since decay never passes the stop, calling it daily or
//! once gives the same ratings (see [`Decay`]).

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
    /// Decay stops at this rating, as at a floor: it never takes a rating below it, and a
    /// rating at or below it does not decay (`None`: no such stop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rating: Option<f32>,
    /// Only players holding at least this league decay, and decay stops at its lower bound
    /// (`min_rating` of that league; league 0 has none), so it never demotes a player below
    /// it (`None`: any league, no such stop).
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
        if !(self.points_per_day.is_finite() && (0.0..=crate::error::RATING_BOUND).contains(&self.points_per_day)) {
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
                return Err(ConfigError::new(format!("{field}.min_league"), format!("is league {league} but the configuration has {} (indices from 0)", leagues.len())));
            }
        }
        Ok(())
    }

    /// Whether decay is on.
    #[must_use]
    pub fn is_on(&self) -> bool {
        self.points_per_day > 0.0
    }

    /// The rating decay stops at: the highest of `anchor`, `floor`, `min_rating` and the
    /// lower bound of league `min_league` in `leagues` (league 0 has none: it takes every
    /// rating below the next bound).
    #[must_use]
    pub fn stop(&self, anchor: f64, leagues: &Leagues) -> f64 {
        let bound = self.min_league.filter(|&league| league > 0).and_then(|league| leagues.as_slice().get(league as usize));
        [self.floor, self.min_rating, bound.map(|league| league.min_rating)].into_iter().flatten().fold(anchor, |stop, limit| stop.max(f64::from(limit)))
    }

    /// The rating after `days` more days of decay from `rating`, toward `stop` (see
    /// [`Self::stop`]) and never past it, the change rounded as a match's is:
    /// `max(R + round(max(R - per_day * days, stop) - R), stop)` in `f64`, then the nearest
    /// `f32` at or above the stop (the stop itself when it is a float). Ratings at or below
    /// the stop do not move. Because the stop is a floor applied after rounding, decay
    /// over `a + b` days equals decay over `a` days then over `b` days whenever each step's
    /// arithmetic is exact (whole points per step with integer rounding).
    #[must_use]
    pub fn decayed(&self, rating: f32, days: f64, stop: f64, rounding: crate::config::RoundingRule) -> f32 {
        let current = f64::from(rating);
        if current <= stop {
            return rating;
        }
        let target = (current - self.points_per_day * days).max(stop);
        let lowered = rounding.apply(current, target - current).max(stop);
        let narrowed = lowered as f32;
        // A stop that is not a float (a pool's mean) may round to the float below it.
        if f64::from(narrowed) < stop {
            narrowed.next_up()
        } else {
            narrowed
        }
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
    fn decay_stops_at_the_highest_stop_after_rounding() {
        use crate::config::{Rounding, RoundingRule, RoundingTarget};
        use crate::league::League;
        let rule = |rounding| RoundingRule { rounding, target: RoundingTarget::Change };
        let none = Leagues::default();
        let decay = Decay { points_per_day: 10.0, ..Decay::default() };
        let at = |decay: &Decay, rating, days, anchor, rounding| decay.decayed(rating, days, decay.stop(anchor, &none), rounding);
        assert_eq!(at(&decay, 1600.0, 3.0, 1500.0, rule(Rounding::None)), 1570.0);
        assert_eq!(at(&decay, 1600.0, 30.0, 1500.0, rule(Rounding::None)), 1500.0);
        assert_eq!(at(&decay, 1400.0, 30.0, 1500.0, rule(Rounding::None)), 1400.0);
        let floored = Decay { floor: Some(1550.0), ..decay };
        assert_eq!(at(&floored, 1600.0, 30.0, 1500.0, rule(Rounding::None)), 1550.0);
        // The stop holds after rounding: -49.5 rounds to -50, which would pass 1550.5.
        let floored = Decay { floor: Some(1550.5), points_per_day: 100.0, ..decay };
        assert_eq!(at(&floored, 1600.0, 10.0, 1500.0, rule(Rounding::HalfAwayFromZero)), 1550.5);
        assert_eq!(at(&decay, 1601.0, 100.0, 1500.5, rule(Rounding::HalfAwayFromZero)), 1500.5);
        // A stop that is no float: the float just above it.
        let stop = 1500.0 + 1.0 / 3.0;
        let got = decay.decayed(1600.0, 100.0, stop, rule(Rounding::None));
        assert!(f64::from(got) >= stop && f64::from(got.next_down()) < stop, "{got}");
        // min_rating and min_league's bound are stops too.
        let leagues = Leagues::new(vec![League::new("B", 0.0, 1.0), League::new("S", 1450.0, 1.0), League::new("G", 1550.0, 1.0)]).unwrap();
        assert_eq!(Decay { min_rating: Some(1580.0), ..decay }.stop(1500.0, &leagues), 1580.0);
        assert_eq!(Decay { min_league: Some(2), ..decay }.stop(1500.0, &leagues), 1550.0);
        assert_eq!(Decay { min_league: Some(0), ..decay }.stop(1500.0, &leagues), 1500.0, "league 0 has no lower bound");
        assert_eq!(Decay { min_league: Some(1), ..decay }.stop(1500.0, &leagues), 1500.0, "the anchor is higher");
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
