//! How a pool keeps its players: a 32-byte record with what every game reads and writes
//! (two of them share a 64-byte cache line, none straddles one), and a 16-byte record that
//! games do not touch (the last match time, written for every player who played when the
//! clock changes, see `PlayedNow`; the season's starting game count).
//! [`PlayerState`] is the public view put together from both.
//!
//! A player's season game count is derived (`games_played` minus the count at the
//! season's start), so games never write it; the league fields are 16-bit (the
//! configuration allows at most [`crate::league::MAX_LEAGUES`] leagues and
//! [`crate::rating::standing::MAX_PROTECTED_GAMES`] protected games).

use crate::ladder::zero_sum::StoredRating;
use crate::player::PlayerState;

/// The per-game part of a pooled player (32 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Hot {
    /// Rating relative to the pool's zero-sum offset.
    pub(crate) rating: StoredRating,
    pub(crate) games_played: u32,
    pub(crate) win_streak: u32,
    pub(crate) period_games: u32,
    pub(crate) season_wins: u32,
    pub(crate) peak_rating: f32,
    pub(crate) league: u16,
    pub(crate) peak_league: u16,
    pub(crate) protected_games: u16,
    pub(crate) is_junior: bool,
    pub(crate) has_reached_2400: bool,
}

/// The rest of a pooled player (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cold {
    pub(crate) last_played: f64,
    /// `games_played` when the season started (season games = the difference).
    pub(crate) games_at_season_start: u32,
}

/// Narrows a league index or count the configuration bounds (see [`crate::league::MAX_LEAGUES`]).
#[inline(always)]
fn narrow(value: u32) -> u16 {
    u16::try_from(value).unwrap_or(u16::MAX)
}

impl Hot {
    /// The stored form of a placed state, with `rating` (its rating made relative to the
    /// offset) in place of the state's.
    #[inline(always)]
    pub(crate) fn of(state: &PlayerState, rating: StoredRating) -> Self {
        Self {
            rating,
            games_played: state.games_played,
            win_streak: state.win_streak,
            period_games: state.period_games,
            season_wins: state.season_wins,
            peak_rating: state.peak_rating,
            league: narrow(state.league.unwrap_or(0)),
            peak_league: narrow(state.peak_league),
            protected_games: narrow(state.protected_games),
            is_junior: state.is_junior,
            has_reached_2400: state.has_reached_2400,
        }
    }

    /// The state the rating math needs, with `rating` (the current rating). The season
    /// game count and the last match time are not read by any rule and are left at 0.
    #[inline(always)]
    pub(crate) fn game_state(&self, rating: f32) -> PlayerState {
        PlayerState {
            rating,
            games_played: self.games_played,
            win_streak: self.win_streak,
            period_games: self.period_games,
            is_junior: self.is_junior,
            has_reached_2400: self.has_reached_2400,
            league: Some(u32::from(self.league)),
            protected_games: u32::from(self.protected_games),
            season_games: 0,
            season_wins: self.season_wins,
            peak_rating: self.peak_rating,
            peak_league: u32::from(self.peak_league),
            last_played: 0.0,
        }
    }

    /// The whole public state, with `rating` (the current rating) and the cold part.
    #[inline]
    pub(crate) fn state(&self, cold: &Cold, rating: f32) -> PlayerState {
        PlayerState { season_games: self.games_played.saturating_sub(cold.games_at_season_start), last_played: cold.last_played, ..self.game_state(rating) }
    }
}

impl Cold {
    /// The cold part of a state.
    #[inline(always)]
    pub(crate) fn of(state: &PlayerState) -> Self {
        Self { last_played: state.last_played, games_at_season_start: state.games_played.saturating_sub(state.season_games) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_round_trip() {
        assert_eq!(std::mem::size_of::<Hot>(), 32);
        assert_eq!(std::mem::size_of::<Cold>(), 16);
        let state = PlayerState {
            games_played: 40,
            win_streak: 2,
            period_games: 7,
            is_junior: true,
            league: Some(3),
            protected_games: 2,
            season_games: 12,
            season_wins: 5,
            peak_rating: 1800.0,
            peak_league: 4,
            last_played: 1.7e9,
            ..PlayerState::new(1750.0)
        };
        let hot = Hot::of(&state, StoredRating::from_f32(state.rating));
        assert_eq!(hot.state(&Cold::of(&state), hot.rating.to_f32()), state);
    }
}

/// Which players have played at the pool's current clock, one bit each. A game sets its
/// players' bits in this small array (100,000 players: 12.5 KB, which stays in cache)
/// instead of writing the time into each cold record; the time is written for all marked
/// players at once when the clock changes ([`Self::flush`]). Until then a marked player's
/// last match time is the clock.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlayedNow {
    words: Vec<u64>,
}

impl PlayedNow {
    /// Room for `players` players (new ones unmarked).
    pub(crate) fn resize(&mut self, players: usize) {
        self.words.resize(players.div_ceil(64), 0);
    }

    /// Marks player `index` as having played at the current clock.
    #[inline(always)]
    pub(crate) fn mark(&mut self, index: usize) {
        self.words[index >> 6] |= 1 << (index & 63);
    }

    /// Unmarks player `index` (its cold record holds its time).
    #[inline]
    pub(crate) fn unmark(&mut self, index: usize) {
        self.words[index >> 6] &= !(1 << (index & 63));
    }

    /// Whether player `index` played at the current clock.
    #[inline]
    pub(crate) fn is_marked(&self, index: usize) -> bool {
        self.words[index >> 6] & (1 << (index & 63)) != 0
    }

    /// Writes `clock` as the last match time of every marked player and unmarks them:
    /// O(N / 64) plus one write per marked player.
    pub(crate) fn flush(&mut self, cold: &mut [Cold], clock: f64) {
        for (w, word) in self.words.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let index = w * 64 + bits.trailing_zeros() as usize;
                cold[index].last_played = clock;
                bits &= bits - 1;
            }
        }
    }
}
