//! The state a player carries between matches (SPEC sections 4, 5 and 7).

use serde::{Deserialize, Serialize};

/// One player's rating and the state the K policies and streak penalties read.
///
/// The league is not stored: it follows from the rating and the configured leagues
/// ([`crate::Leagues::league_of`]), so it can never disagree with the rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerState {
    /// Current rating.
    pub rating: f32,
    /// Rated games played so far.
    #[serde(default)]
    pub games_played: u32,
    /// Consecutive wins; a loss or a draw resets it to 0 (002).
    #[serde(default)]
    pub win_streak: u32,
    /// Games this player plays in the current rating period (FIDE's 700 rule); 0 when
    /// unknown or when the rule is not used.
    #[serde(default)]
    pub period_games: u32,
    /// Junior under FIDE rules (until the end of the year of the 18th birthday).
    #[serde(default)]
    pub is_junior: bool,
    /// The rating has reached 2400 at some point: FIDE's K = 10 is then permanent.
    #[serde(default)]
    pub has_reached_2400: bool,
}

impl PlayerState {
    /// A new player with the given rating and no history.
    #[must_use]
    pub const fn new(rating: f32) -> Self {
        Self {
            rating,
            games_played: 0,
            win_streak: 0,
            period_games: 0,
            is_junior: false,
            has_reached_2400: false,
        }
    }

    /// The state after one more game that ended with `new_rating` and a win or not.
    #[must_use]
    pub fn after_game(self, new_rating: f32, won: bool) -> Self {
        Self {
            rating: new_rating,
            games_played: self.games_played.saturating_add(1),
            // Branch-free (results are unpredictable): all ones when won, else zero.
            win_streak: self.win_streak.saturating_add(1) & 0u32.wrapping_sub(u32::from(won)),
            has_reached_2400: self.has_reached_2400 || new_rating >= crate::kpolicy::FIDE_STICKY_RATING,
            ..self
        }
    }
}
