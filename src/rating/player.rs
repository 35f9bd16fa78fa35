//! The state a player carries between matches, including the
//! season standing: the league the player holds (leagues with hysteresis,
//! [`crate::rating::standing`]), the games of demotion protection left, this season's
//! record and the time of the last match (inactivity decay).

use serde::{Deserialize, Serialize};

/// One player's rating and the state the K policies, streak penalties, leagues and
/// seasons read.
///
/// `league` is the league the player holds. It is part of the state, not recomputed from
/// the rating, so that demotion can wait for a margin or for protected games
/// ([`crate::Rules::current_league`]). `None` means "not placed yet": the league is then
/// taken from the rating. A league that no longer fits the rating (a state typed in by
/// hand, a zero-sum shift) is corrected by the same hysteresis rule before it is used.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerState {
    /// Current rating.
    pub rating: f32,
    /// Rated games played so far.
    #[serde(default)]
    pub games_played: u32,
    /// Consecutive wins; a loss or a draw resets it to 0 (the streak penalty's `s`,
    /// `docs/configuration.md#k-how-far-a-rating-moves`).
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
    /// The league held (0 = lowest), or `None` before the player is placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<u32>,
    /// Games left in which a demotion cannot happen (set by a promotion to the
    /// configuration's `protected_games`).
    #[serde(default)]
    pub protected_games: u32,
    /// Rated games this season.
    #[serde(default)]
    pub season_games: u32,
    /// Wins this season (free-for-alls: first place, alone).
    #[serde(default)]
    pub season_wins: u32,
    /// The highest rating after a game this season (the rating at the season's start
    /// before any game). A pool fills it in for states loaded without it.
    #[serde(default = "unknown_peak")]
    pub peak_rating: f32,
    /// The highest league held this season.
    #[serde(default)]
    pub peak_league: u32,
    /// The time of the last match, in the caller's seconds (a pool stamps it with its
    /// clock); when the player joined a pool for a player without matches.
    #[serde(default)]
    pub last_played: f64,
}

/// Marks a peak rating a save did not have (older saves), replaced by the rating on load.
fn unknown_peak() -> f32 {
    f32::MIN
}

impl PlayerState {
    /// A new player with the given rating and no history, not yet placed in a league.
    #[must_use]
    pub const fn new(rating: f32) -> Self {
        Self {
            rating,
            games_played: 0,
            win_streak: 0,
            period_games: 0,
            is_junior: false,
            has_reached_2400: false,
            league: None,
            protected_games: 0,
            season_games: 0,
            season_wins: 0,
            peak_rating: rating,
            peak_league: 0,
            last_played: 0.0,
        }
    }

    /// The state after one more game that ended with `new_rating` and a win or not: games,
    /// streak, the 2400 flag and this season's record. The league is settled by
    /// [`crate::Rules`] (it needs the league settings), which every rating path does.
    #[must_use]
    pub fn after_game(self, new_rating: f32, won: bool) -> Self {
        // Branch-free (results are unpredictable): all ones when won, else zero.
        let won_mask = 0u32.wrapping_sub(u32::from(won));
        Self {
            rating: new_rating,
            games_played: self.games_played.saturating_add(1),
            win_streak: self.win_streak.saturating_add(1) & won_mask,
            has_reached_2400: self.has_reached_2400 || new_rating >= crate::kpolicy::FIDE_STICKY_RATING,
            season_games: self.season_games.saturating_add(1),
            season_wins: self.season_wins.saturating_add(u32::from(won)),
            peak_rating: self.peak_rating.max(new_rating),
            ..self
        }
    }
}
