//! Leagues: rating ranges with their own K, L and V.
//!
//! ```
//! use ranking_elo::{League, Leagues};
//!
//! let leagues = Leagues::new(vec![
//!     League::new("Bronze", 0.0, 200.0),
//!     League::new("Silver", 100.0, 150.0),
//!     League::new("Gold", 200.0, 100.0),
//!     League::new("Platinum", 300.0, 50.0),
//! ])
//! .unwrap();
//! assert_eq!(leagues.league_of(-250.0), 0); // negative ratings: the lowest league
//! assert_eq!(leagues.league_of(150.0), 1);
//! assert_eq!(leagues.league_of(300.0), 3);
//! ```

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// The most leagues a configuration may have (pools keep league indices in 16 bits).
pub const MAX_LEAGUES: usize = 1024;

/// One league.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct League {
    /// Display name ("Bronze").
    pub name: String,
    /// Lowest rating of the league. Ratings below the first league's bound still belong
    /// to the first league.
    pub min_rating: f32,
    /// K used by the `league` K policy for players in this league: required by that policy
    /// (a league without it is refused), unused and optional under every other policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// Score-share bonus `L` for players in this league (the configuration's when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_share_bonus: Option<f64>,
    /// Victory bonus `V` for players in this league (the configuration's when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub victory_bonus: Option<f64>,
    /// Share of the distance to the anchor this league's players keep at a season's end
    /// (the configuration's `season_reset.keep` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season_keep: Option<f64>,
}

impl League {
    /// A league with a name, lower bound and K, and the configuration's L and V.
    #[must_use]
    pub fn new(name: impl Into<String>, min_rating: f32, k: f64) -> Self {
        Self { name: name.into(), min_rating, k: Some(k), score_share_bonus: None, victory_bonus: None, season_keep: None }
    }
}

/// An ordered, validated list of leagues (possibly empty).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Leagues(pub(crate) Vec<League>);

impl Leagues {
    /// Validates and wraps `leagues`.
    ///
    /// # Errors
    /// Bounds not strictly increasing or not finite, K/L/V negative or not finite, or an
    /// empty name.
    pub fn new(leagues: Vec<League>) -> Result<Self, ConfigError> {
        let leagues = Self(leagues);
        leagues.validate("leagues")?;
        Ok(leagues)
    }

    /// Checks the list; `field` is the configuration path used in messages.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.0.len() > MAX_LEAGUES {
            return Err(ConfigError::new(field, format!("has {} leagues; at most 1024 are allowed", self.0.len())));
        }
        for (i, league) in self.0.iter().enumerate() {
            let at = |name: &str| format!("{field}[{i}].{name}");
            if league.name.is_empty() {
                return Err(ConfigError::new(at("name"), "must not be empty"));
            }
            check_rating_setting(f64::from(league.min_rating), &at("min_rating"))?;
            if i > 0 && league.min_rating <= self.0[i - 1].min_rating {
                return Err(ConfigError::new(
                    at("min_rating"),
                    format!("leagues must be ordered by strictly increasing min_rating ({} follows {})", league.min_rating, self.0[i - 1].min_rating),
                ));
            }
            if let Some(k) = league.k {
                check_factor(k, &at("k"))?;
            }
            if let Some(l) = league.score_share_bonus {
                check_factor(l, &at("score_share_bonus"))?;
            }
            if let Some(v) = league.victory_bonus {
                check_factor(v, &at("victory_bonus"))?;
            }
            if let Some(keep) = league.season_keep {
                crate::rating::season_rules::check_keep(keep, &at("season_keep"))?;
            }
        }
        Ok(())
    }

    /// The leagues, lowest first.
    #[must_use]
    pub fn as_slice(&self) -> &[League] {
        &self.0
    }

    /// Number of leagues.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no league is configured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The K of every league for the `league` K policy: `field` names the policy in the
    /// message when a league has none.
    ///
    /// # Errors
    /// The first league without `k`.
    pub(crate) fn require_k(&self, field: &str) -> Result<(), ConfigError> {
        match self.0.iter().position(|league| league.k.is_none()) {
            Some(i) => Err(ConfigError::new(
                format!("leagues[{i}].k"),
                format!("is missing: the league K policy ({field}) takes each player's K from the league, so every league needs \"k\""),
            )),
            None => Ok(()),
        }
    }

    /// Index of the league a rating belongs to: the highest league whose lower bound is
    /// at most `rating`, and the first league below the first bound (and for NaN).
    /// Returns 0 when no league is configured.
    #[inline]
    #[must_use]
    pub fn league_of(&self, rating: f32) -> usize {
        self.0.iter().skip(1).take_while(|league| league.min_rating <= rating).count()
    }
}

/// Checks a K, `L`, `V` or streak `alpha` setting: a finite number from 0 to
/// [`MAX_FACTOR`](crate::error::MAX_FACTOR).
pub(crate) fn check_factor(value: f64, field: &str) -> Result<(), ConfigError> {
    if value.is_finite() && (0.0..=crate::error::MAX_FACTOR).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be a finite number from 0 to 1e6 (got {value})")))
    }
}

/// Checks a rating-valued setting (a bound, a floor, an initial rating, a total): within
/// `±`[`RATING_BOUND`](crate::error::RATING_BOUND), compared in `f64` (a float setting is
/// the JSON number rounded to the nearest float first).
pub(crate) fn check_rating_setting(value: f64, field: &str) -> Result<(), ConfigError> {
    if value.is_finite() && value.abs() <= crate::error::RATING_BOUND {
        Ok(())
    } else {
        Err(ConfigError::new(field, format!("must be {} (got {value})", crate::error::RATING_RANGE)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_unordered_bounds() {
        let error = Leagues::new(vec![League::new("A", 100.0, 10.0), League::new("B", 100.0, 10.0)]).unwrap_err();
        assert_eq!(error.field, "leagues[1].min_rating");
        let error = Leagues::new(vec![League::new("A", 0.0, -1.0)]).unwrap_err();
        assert_eq!(error.field, "leagues[0].k");
    }

    #[test]
    fn empty_league_list_maps_everything_to_zero() {
        assert_eq!(Leagues::default().league_of(1e9), 0);
    }
}
