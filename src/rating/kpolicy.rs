//! K policies: how large a player's rating change may be.
//!
//! ```
//! use ranking_elo::{KPolicy, Leagues, PlayerState};
//!
//! let fide = KPolicy::Fide { period_rule: false };
//! let newcomer = PlayerState::new(1500.0);
//! assert_eq!(fide.k_for(&newcomer, &Leagues::default()), 40.0);
//! let master = PlayerState { games_played: 300, has_reached_2400: true, ..PlayerState::new(2350.0) };
//! assert_eq!(fide.k_for(&master, &Leagues::default()), 10.0);
//! ```

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::league::{check_factor, check_rating_setting, Leagues};
use crate::player::PlayerState;

/// Default constant K.
pub const DEFAULT_K: f64 = 32.0;

/// FIDE: K for players with fewer than [`FIDE_NEW_PLAYER_GAMES`] games, and for juniors
/// below [`FIDE_JUNIOR_RATING_LIMIT`].
pub const FIDE_K_NEW: f64 = 40.0;
/// FIDE: K for everybody else below 2400.
pub const FIDE_K_STANDARD: f64 = 20.0;
/// FIDE: K once the rating has reached 2400 (permanent).
pub const FIDE_K_ESTABLISHED: f64 = 10.0;
/// FIDE: games before a player stops counting as new.
pub const FIDE_NEW_PLAYER_GAMES: u32 = 30;
/// FIDE: juniors keep K = 40 while their rating is below this.
pub const FIDE_JUNIOR_RATING_LIMIT: f32 = 2300.0;
/// FIDE: reaching this rating makes K = 10 permanent.
pub const FIDE_STICKY_RATING: f32 = 2400.0;
/// FIDE's rating-period rule: `K * n` may not exceed this for `n` games in a period.
pub const FIDE_PERIOD_LIMIT: u32 = 700;

/// A tier of the `games_played` policy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamesTier {
    /// The tier applies while the player has played fewer games than this; absent on
    /// the last, open-ended tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<u32>,
    /// K in this tier.
    pub k: f64,
}

/// A tier of the `rating_bands` policy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingTier {
    /// The tier applies while the rating is below this; absent on the last, open-ended
    /// tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<f32>,
    /// K in this tier.
    pub k: f64,
}

/// How a player's K is chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub enum KPolicy {
    /// The same K for everybody.
    Constant {
        /// The K factor.
        #[serde(default = "default_k")]
        k: f64,
    },
    /// FIDE's rules (handbook 2024): 40 for new players and juniors under 2300, 10 once
    /// 2400 has been reached, 20 otherwise; optionally the 700 rule per rating period.
    Fide {
        /// Apply `K * n <= 700` for the `n` games of a rating period.
        #[serde(default)]
        period_rule: bool,
    },
    /// K by games played, for example 40 below 30 games, then 20.
    GamesPlayed {
        /// Tiers ordered by `below`; the last one has no `below`.
        tiers: Vec<GamesTier>,
    },
    /// K by rating, for example 32 below 2100, 24 below 2400, then 16.
    RatingBands {
        /// Tiers ordered by `below`; the last one has no `below`.
        tiers: Vec<RatingTier>,
    },
    /// K from the player's league: every league needs `k`. (A struct variant without
    /// fields, so that unknown fields next to `"policy": "league"` are refused.)
    League {},
}

fn default_k() -> f64 {
    DEFAULT_K
}

impl Default for KPolicy {
    fn default() -> Self {
        Self::Constant { k: DEFAULT_K }
    }
}

impl KPolicy {
    /// Checks the policy; `field` is the configuration path used in messages.
    ///
    /// # Errors
    /// A negative or non-finite K, tiers that are empty, unordered, or whose last tier
    /// is not open-ended, or the `league` policy without leagues.
    #[allow(clippy::match_same_arms, reason = "the two tier types differ; the closures only look alike")]
    pub fn validate(&self, field: &str, leagues: &Leagues) -> Result<(), ConfigError> {
        match self {
            Self::Constant { k } => check_factor(*k, &format!("{field}.k")),
            Self::Fide { .. } => Ok(()),
            Self::GamesPlayed { tiers } => validate_tiers(field, false, tiers.iter().map(|t| (t.below.map(f64::from), t.k))),
            Self::RatingBands { tiers } => validate_tiers(field, true, tiers.iter().map(|t| (t.below.map(f64::from), t.k))),
            Self::League {} if leagues.is_empty() => Err(ConfigError::new(format!("{field}.policy"), "the league policy needs at least one entry in `leagues`")),
            Self::League {} => leagues.require_k(&format!("{field}.policy")),
        }
    }

    /// Whether K follows from the rating alone (constant, rating bands, league), so that
    /// calls without player state (batches, rating-only functions) can use the policy.
    #[must_use]
    pub fn depends_only_on_rating(&self) -> bool {
        matches!(self, Self::Constant { .. } | Self::RatingBands { .. } | Self::League {})
    }

    /// K for a player with the given state.
    #[must_use]
    pub fn k_for(&self, player: &PlayerState, leagues: &Leagues) -> f64 {
        match self {
            Self::Fide { period_rule } => fide_k(player, *period_rule),
            Self::GamesPlayed { tiers } => tiers.iter().find(|tier| tier.below.is_none_or(|below| player.games_played < below)).map_or(0.0, |tier| tier.k),
            _ => self.k_from_rating(player.rating, leagues).unwrap_or(0.0),
        }
    }

    /// K from the rating alone, or `None` for the policies that need player state.
    #[inline]
    #[must_use]
    pub fn k_from_rating(&self, rating: f32, leagues: &Leagues) -> Option<f64> {
        match self {
            Self::Constant { k } => Some(*k),
            Self::RatingBands { tiers } => Some(tiers.iter().find(|tier| tier.below.is_none_or(|below| rating < below)).map_or(0.0, |tier| tier.k)),
            Self::League {} => leagues.as_slice().get(leagues.league_of(rating)).map(|l| l.k.unwrap_or(0.0)),
            Self::Fide { .. } | Self::GamesPlayed { .. } => None,
        }
    }
}

/// FIDE's K (handbook 2024, section 8.3.3).
fn fide_k(player: &PlayerState, period_rule: bool) -> f64 {
    // Once 2400 has been reached K stays 10 for good, ahead of the new-player and junior
    // rules ("thereafter it remains permanently at 10", FIDE handbook).
    let is_new = player.games_played < FIDE_NEW_PLAYER_GAMES;
    let is_young = player.is_junior && player.rating < FIDE_JUNIOR_RATING_LIMIT;
    let k: u32 = if player.has_reached_2400 || player.rating >= FIDE_STICKY_RATING {
        10
    } else if is_new || is_young {
        40
    } else {
        20
    };
    let n = player.period_games;
    if period_rule && n > 0 && k.saturating_mul(n) > FIDE_PERIOD_LIMIT {
        // The largest whole K with K * n <= 700.
        f64::from(FIDE_PERIOD_LIMIT / n)
    } else {
        f64::from(k)
    }
}

/// Checks `(below, k)` tiers: K valid, every `below` but the last present, finite and
/// strictly increasing, the last tier open-ended.
fn validate_tiers(field: &str, ratings: bool, tiers: impl ExactSizeIterator<Item = (Option<f64>, f64)>) -> Result<(), ConfigError> {
    let count = tiers.len();
    if count == 0 {
        return Err(ConfigError::new(format!("{field}.tiers"), "needs at least one tier"));
    }
    let mut previous: Option<f64> = None;
    for (i, (bound, k)) in tiers.enumerate() {
        check_factor(k, &format!("{field}.tiers[{i}].k"))?;
        let at = format!("{field}.tiers[{i}].below");
        match (i + 1 == count, bound) {
            (true, Some(_)) => return Err(ConfigError::new(at, "the last tier is open-ended: leave `below` out")),
            (false, None) => return Err(ConfigError::new(at, "every tier but the last needs `below`")),
            (false, Some(b)) if !b.is_finite() => return Err(ConfigError::new(at, "must be a finite number")),
            (false, Some(b)) if previous.is_some_and(|p| b <= p) => return Err(ConfigError::new(at, "tiers must be ordered by strictly increasing `below`")),
            (false, Some(b)) if ratings => check_rating_setting(b, &at)?,
            _ => {}
        }
        previous = bound;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(rating: f32, games: u32) -> PlayerState {
        PlayerState { games_played: games, ..PlayerState::new(rating) }
    }

    #[test]
    fn fide_cases() {
        let fide = KPolicy::Fide { period_rule: false };
        let none = Leagues::default();
        // New player: 40 until 30 games, unless 2400 has been reached.
        assert_eq!(fide.k_for(&player(2399.0, 29), &none), 40.0);
        assert_eq!(fide.k_for(&player(2500.0, 29), &none), 10.0);
        assert_eq!(fide.k_for(&player(1800.0, 30), &none), 20.0);
        // Junior under 2300: 40; at 2300: 20.
        let junior = PlayerState { is_junior: true, ..player(2299.0, 100) };
        assert_eq!(fide.k_for(&junior, &none), 40.0);
        assert_eq!(fide.k_for(&PlayerState { rating: 2300.0, ..junior }, &none), 20.0);
        // 2400 reached once: 10 for good, even after dropping below.
        assert_eq!(fide.k_for(&player(2400.0, 100), &none), 10.0);
        let sticky = PlayerState { has_reached_2400: true, ..player(2350.0, 100) };
        assert_eq!(fide.k_for(&sticky, &none), 10.0);
        // A junior below 2300 who once reached 2400 got 40 (a defect fixed since): K stays
        // 10 for good once 2400 is reached, ahead of the junior rule
        // (docs/configuration.md#k-how-far-a-rating-moves).
        let fallen_junior = PlayerState { is_junior: true, has_reached_2400: true, ..player(2250.0, 100) };
        assert_eq!(fide.k_for(&fallen_junior, &none), 10.0);
        // The flag is set by a game that ends at 2400 or more.
        assert!(player(2390.0, 100).after_game(2401.0, true).has_reached_2400);
        assert!(!player(2390.0, 100).after_game(2399.0, true).has_reached_2400);
    }

    #[test]
    fn fide_700_rule() {
        let fide = KPolicy::Fide { period_rule: true };
        let none = Leagues::default();
        // 40 * 20 = 800 > 700: K = 35 (35 * 20 = 700).
        let busy_newcomer = PlayerState { period_games: 20, ..player(1500.0, 0) };
        assert_eq!(fide.k_for(&busy_newcomer, &none), 35.0);
        // 20 * 36 = 720 > 700: K = 19 (19 * 36 = 684, 20 * 36 = 720).
        let busy = PlayerState { period_games: 36, ..player(2000.0, 100) };
        assert_eq!(fide.k_for(&busy, &none), 19.0);
        // 40 * 17 = 680 <= 700: unchanged.
        let within_limit = PlayerState { period_games: 17, ..player(1500.0, 0) };
        assert_eq!(fide.k_for(&within_limit, &none), 40.0);
        // Without the rule the period is ignored.
        assert_eq!(KPolicy::Fide { period_rule: false }.k_for(&busy, &none), 20.0);
    }

    #[test]
    fn tiers() {
        let games = KPolicy::GamesPlayed { tiers: vec![GamesTier { below: Some(30), k: 40.0 }, GamesTier { below: Some(100), k: 24.0 }, GamesTier { below: None, k: 16.0 }] };
        let none = Leagues::default();
        games.validate("k_policy", &none).unwrap();
        assert_eq!(games.k_for(&player(0.0, 29), &none), 40.0);
        assert_eq!(games.k_for(&player(0.0, 30), &none), 24.0);
        assert_eq!(games.k_for(&player(0.0, 1000), &none), 16.0);
        let bands = KPolicy::RatingBands { tiers: vec![RatingTier { below: Some(2100.0), k: 32.0 }, RatingTier { below: None, k: 16.0 }] };
        assert_eq!(bands.k_from_rating(2099.0, &none), Some(32.0));
        assert_eq!(bands.k_from_rating(2100.0, &none), Some(16.0));
        let unordered =
            KPolicy::RatingBands { tiers: vec![RatingTier { below: Some(2100.0), k: 32.0 }, RatingTier { below: Some(2000.0), k: 24.0 }, RatingTier { below: None, k: 16.0 }] };
        assert_eq!(unordered.validate("k_policy", &none).unwrap_err().field, "k_policy.tiers[1].below");
        let closed = KPolicy::GamesPlayed { tiers: vec![GamesTier { below: Some(3), k: 1.0 }] };
        assert_eq!(closed.validate("k_policy", &none).unwrap_err().field, "k_policy.tiers[0].below");
    }
}
