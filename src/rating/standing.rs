//! Leagues with hysteresis: where a player stands after a game
//! (`docs/seasons.md#leagues-with-hysteresis`).
//!
//! Promotion happens the moment the rating reaches a higher league's lower bound, as in
//! plain leagues by rating. Demotion waits: a player leaves league `j` only when the rating
//! falls below `min_rating_j - demotion_margin`, and not at all during the
//! `protected_games` games that follow a promotion. The league is therefore part of the
//! player's state ([`PlayerState::league`]); with a margin of 0 and no protected games it
//! always equals [`crate::Leagues::league_of`] of the rating, as before.
//!
//! ```
//! use ranking_elo::{Config, Outcome, PlayerState};
//!
//! let rules = Config::from_json(r#"{"leagues": [{"name": "Silver", "min_rating": 0, "k": 32},
//!                                               {"name": "Gold", "min_rating": 1500, "k": 32}],
//!                                   "demotion_margin": 50}"#).unwrap();
//! let gold = PlayerState { league: Some(1), ..PlayerState::new(1480.0) };
//! assert_eq!(rules.current_league(&gold), 1); // 20 below the bound: still Gold
//! let (after, _) = rules.rate_players(&gold, &PlayerState::new(1480.0), Outcome::LOSS).unwrap();
//! assert_eq!((after.rating, after.league), (1464.0, Some(1)));
//! let fallen = PlayerState { rating: 1449.0, ..gold };
//! assert_eq!(rules.current_league(&fallen), 0); // 51 below: Silver
//! ```

use crate::config::Rules;
use crate::error::{check_finite, check_rating, Error};
use crate::league::Leagues;
use crate::player::PlayerState;

/// The most protected games after a promotion (pools keep the count in 16 bits).
pub const MAX_PROTECTED_GAMES: u32 = u16::MAX as u32;

/// A league change reported by a pool operation ("Promoted to Gold!").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeagueChange {
    /// Position of the match in the list that caused it (for a season end or a decay:
    /// the position of the player in the pool, the same as `player`).
    pub position: usize,
    /// The player's index in the pool.
    pub player: usize,
    /// The league held before.
    pub from: u32,
    /// The league held after.
    pub to: u32,
}

impl LeagueChange {
    /// Whether the player moved up.
    #[must_use]
    pub fn is_promotion(&self) -> bool {
        self.to > self.from
    }
}

impl Leagues {
    /// The league held at `rating` by a player who held `current`: a higher league as soon
    /// as the rating reaches its bound; a lower one only once the rating is more than
    /// `margin` below the held league's bound, and then the highest league `j` with
    /// `rating >= min_rating_j - margin`; `current` while `protected`.
    #[inline]
    #[must_use]
    pub fn settle(&self, current: usize, rating: f32, margin: f64, protected: bool) -> usize {
        let plain = self.league_of(rating);
        if plain >= current || protected {
            return plain.max(current);
        }
        let bounds = self.as_slice();
        let mut league = current.min(bounds.len().saturating_sub(1));
        while league > 0 && f64::from(rating) < f64::from(bounds[league].min_rating) - margin {
            league -= 1;
        }
        league
    }
}

impl Rules {
    /// The league player `p` holds now: its stored league, corrected by the hysteresis rule
    /// if the rating has moved since it was stored (a state typed in by hand, a zero-sum
    /// shift), or the league of its rating when not placed yet. 0 without leagues.
    #[inline]
    #[must_use]
    pub fn current_league(&self, p: &PlayerState) -> usize {
        let leagues = &self.config.leagues;
        if leagues.len() < 2 {
            return 0;
        }
        match p.league {
            None => leagues.league_of(p.rating),
            Some(held) => leagues.settle((held as usize).min(leagues.len() - 1), p.rating, self.config.demotion_margin, p.protected_games > 0),
        }
    }

    /// Checks a player state given by a caller: a rating within range, a league and peak
    /// league the rules have (or none), a finite peak rating within range (or `f32::MIN`,
    /// which marks a peak not known, replaced by the rating) and a finite time. Every value
    /// is checked as given, before anything is clamped or placed. `name` prefixes the field
    /// in the message (`player_a` gives `player_a.league`).
    ///
    /// # Errors
    /// The first field out of range.
    pub fn check_player(&self, p: &PlayerState, name: &str) -> Result<(), Error> {
        check_rating(p.rating, &format!("{name}.rating"))?;
        // f32::MIN marks a peak an older save did not have (replaced by the rating); NaN and
        // infinities are refused first, whatever comes after.
        if p.peak_rating != f32::MIN {
            check_rating(p.peak_rating, &format!("{name}.peak_rating"))?;
        }
        check_finite(p.last_played, &format!("{name}.last_played"))?;
        if p.season_games > p.games_played {
            return Err(Error::OutOfRange { name: format!("{name}.season_games"), range: "at most games_played", got: Some(p.season_games.to_string()) });
        }
        if p.protected_games > MAX_PROTECTED_GAMES {
            return Err(Error::OutOfRange { name: format!("{name}.protected_games"), range: "at most 65535", got: Some(p.protected_games.to_string()) });
        }
        let leagues = self.config.leagues.len().max(1);
        for (field, league) in [("league", p.league.unwrap_or(0)), ("peak_league", p.peak_league)] {
            if league as usize >= leagues {
                return Err(Error::OutOfRange {
                    name: format!("{name}.{field}"),
                    range: "a league index of the configuration (0 = lowest), or unplaced",
                    got: Some(league.to_string()),
                });
            }
        }
        Ok(())
    }

    /// `p` placed in [`Self::current_league`] (what a pool stores for a new state).
    #[must_use]
    pub fn placed(&self, p: PlayerState) -> PlayerState {
        let league = self.current_league(&p) as u32;
        PlayerState { league: Some(league), peak_league: p.peak_league.max(league), peak_rating: p.peak_rating.max(p.rating), ..p }
    }

    /// The state after a game that took `before` to `new_rating`: the record of
    /// [`PlayerState::after_game`], then the league by the hysteresis rule. A promotion
    /// starts `protected_games` games of protection; any other game uses one up.
    #[inline(always)]
    #[must_use]
    pub fn finish_game(&self, before: &PlayerState, new_rating: f32, won: bool) -> PlayerState {
        self.finish_game_from(before, self.current_league(before), new_rating, won)
    }

    /// [`Self::finish_game`] with the league held before the game already known
    /// ([`Self::current_league`] of `before`).
    #[inline(always)]
    pub(crate) fn finish_game_from(&self, before: &PlayerState, from: usize, new_rating: f32, won: bool) -> PlayerState {
        let mut after = before.after_game(new_rating, won);
        let leagues = &self.config.leagues;
        if leagues.len() < 2 {
            after.league = Some(0);
            return after;
        }
        let protected = before.protected_games > 0;
        let to = leagues.settle(from, new_rating, self.config.demotion_margin, protected);
        after.protected_games = if to > from { self.config.protected_games } else { before.protected_games.saturating_sub(1) };
        after.league = Some(to as u32);
        after.peak_league = after.peak_league.max(to as u32);
        after
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, League, Outcome};

    fn ladder(margin: f64, protected: u32) -> Rules {
        let leagues =
            Leagues::new(vec![League::new("Bronze", 0.0, 32.0), League::new("Silver", 1000.0, 32.0), League::new("Gold", 1500.0, 32.0), League::new("Platinum", 2000.0, 32.0)])
                .unwrap();
        Config { leagues, demotion_margin: margin, protected_games: protected, ..Config::default() }.validate().unwrap()
    }

    #[test]
    fn without_margin_the_league_follows_the_rating() {
        let rules = ladder(0.0, 0);
        for rating in [-5.0, 0.0, 999.9, 1000.0, 1499.0, 1500.0, 2500.0] {
            for held in 0..4 {
                let p = PlayerState { league: Some(held), ..PlayerState::new(rating) };
                assert_eq!(rules.current_league(&p), rules.league_of(rating), "{rating} held {held}");
            }
        }
    }

    #[test]
    fn demotion_waits_for_the_margin_and_lands_within_it() {
        let leagues = ladder(0.0, 0).config.leagues;
        assert_eq!(leagues.settle(2, 1460.0, 50.0, false), 2);
        assert_eq!(leagues.settle(2, 1450.0, 50.0, false), 2); // exactly bound - margin: stays
        assert_eq!(leagues.settle(2, 1449.5, 50.0, false), 1);
        // A fall through two bounds lands in the highest league within the margin.
        assert_eq!(leagues.settle(3, 960.0, 50.0, false), 1);
        assert_eq!(leagues.settle(3, 949.0, 50.0, false), 0);
        // Promotion is immediate, several leagues at once if need be.
        assert_eq!(leagues.settle(0, 2000.0, 50.0, false), 3);
        // Protection blocks demotion only.
        assert_eq!(leagues.settle(2, 0.0, 50.0, true), 2);
        assert_eq!(leagues.settle(1, 1600.0, 50.0, true), 2);
    }

    #[test]
    fn protected_games_follow_a_promotion() {
        let rules = ladder(0.0, 2);
        let p = PlayerState { league: Some(1), ..PlayerState::new(1490.0) };
        let promoted = rules.finish_game(&p, 1510.0, true);
        assert_eq!((promoted.league, promoted.protected_games, promoted.peak_league), (Some(2), 2, 2));
        let first = rules.finish_game(&promoted, 1400.0, false); // protected
        assert_eq!((first.league, first.protected_games), (Some(2), 1));
        let second = rules.finish_game(&first, 1390.0, false); // protected, the last one
        assert_eq!((second.league, second.protected_games), (Some(2), 0));
        let third = rules.finish_game(&second, 1380.0, false);
        assert_eq!((third.league, third.protected_games, third.peak_league), (Some(1), 0, 2));
        assert_eq!((third.season_games, third.season_wins, third.peak_rating), (4, 1, 1510.0));
    }

    #[test]
    fn the_league_policy_reads_the_held_league() {
        let json = r#"{"k_policy":{"policy":"league"},"demotion_margin":100,
            "leagues":[{"name":"Low","min_rating":0,"k":40},{"name":"High","min_rating":1500,"k":10}]}"#;
        let rules = Config::from_json(json).unwrap();
        let high = PlayerState { league: Some(1), ..PlayerState::new(1450.0) };
        let low = PlayerState::new(1450.0);
        let (after_high, after_low) = rules.rate_players(&high, &low, Outcome::LOSS).unwrap();
        assert_eq!(after_high.rating, 1445.0); // K 10
        assert_eq!(after_low.rating, 1470.0); // K 40
        assert_eq!((after_high.league, after_low.league), (Some(1), Some(0)));
    }
}
