//! Seasons on a pool (`docs/seasons.md`): the season end with its records and soft reset,
//! and inactivity decay. The formulas are in [`crate::rating::season_rules`]; league moves
//! follow the hysteresis rule of [`crate::rating::standing`].
//!
//! ```
//! use ranking_elo::pool::{Match, Pool};
//! use ranking_elo::{Config, Outcome};
//!
//! let rules = Config::from_json(r#"{"season_reset": {"keep": 0.5},
//!     "decay": {"grace_days": 7, "points_per_day": 10}}"#).unwrap();
//! let mut pool = Pool::new(rules);
//! pool.add_players(2);
//! pool.set_clock(0.0).unwrap();
//! pool.apply(&[Match::new(0, 1, Outcome::WIN)], None).unwrap(); // 1516 / 1484
//! // Ten days later: three days past the grace period, 30 points, down to 1500 at most.
//! let decayed = pool.apply_decay(10.0 * 86_400.0, None).unwrap();
//! assert_eq!((decayed, pool.rating(0), pool.rating(1)), (1, Some(1500.0), Some(1484.0)));
//! let records = pool.end_season(None);
//! assert_eq!((records[1].rating, records[1].games, records[1].wins), (1484.0, 1, 0));
//! assert_eq!(pool.rating(1), Some(1492.0)); // 1500 + (1484 - 1500) * 0.5
//! ```

use std::path::Path;

use serde::Serialize;

use super::stored::{Cold, Hot};
use super::{report, Pool};
use crate::error::{check_finite, Error};
use crate::json::Writer;
use crate::player::PlayerState;
use crate::rating::season_rules::{reset_rating, ResetAnchor, SECONDS_PER_DAY};
use crate::rating::standing::LeagueChange;
use crate::save::SaveError;
use crate::update::apply_delta;

/// One player's season, as [`Pool::end_season`] reports it before the reset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeasonRecord {
    /// The player's index in the pool.
    pub player: usize,
    /// Rating at the season's end (before the reset).
    pub rating: f32,
    /// Highest rating after a game this season.
    pub peak_rating: f32,
    /// League held at the season's end.
    pub league: u32,
    /// Highest league held this season.
    pub peak_league: u32,
    /// Games played this season.
    pub games: u32,
    /// Wins this season.
    pub wins: u32,
}

/// The version of the season-records JSON [`records_to_json`] writes.
pub const RECORDS_VERSION: u32 = 1;

/// The records file. (serde writes it in the tests, to check [`records_to_json`].)
#[cfg_attr(test, derive(Serialize))]
struct RecordsFile<'a> {
    format: &'static str,
    version: u32,
    /// The pool's clock at the season's end.
    season_end: f64,
    /// League names, lowest first (index = the records' league numbers).
    leagues: Vec<&'a str>,
    records: &'a [SeasonRecord],
}

/// The records as JSON: `{"format": "ranking-elo-season", "version": 1, "season_end":
/// <clock>, "leagues": [names], "records": [{"player", "rating", "peak_rating", "league",
/// "peak_league", "games", "wins"}, …]}`.
#[must_use]
pub fn records_to_json(pool: &Pool, records: &[SeasonRecord]) -> String {
    write_records(&RecordsFile::of(pool, records))
}

impl<'a> RecordsFile<'a> {
    /// The file of `records` at `pool`'s clock, with its league names.
    fn of(pool: &'a Pool, records: &'a [SeasonRecord]) -> Self {
        Self {
            format: "ranking-elo-season",
            version: RECORDS_VERSION,
            season_end: pool.clock,
            leagues: pool.rules.config.leagues.as_slice().iter().map(|l| l.name.as_str()).collect(),
            records,
        }
    }
}

/// Writes the records file (compact, the fields in declaration order).
fn write_records(file: &RecordsFile<'_>) -> String {
    let mut writer = Writer::new(false);
    writer.open('{');
    writer.key("format");
    writer.string(file.format);
    writer.key("version");
    writer.whole(u64::from(file.version));
    writer.key("season_end");
    writer.f64(file.season_end);
    writer.key("leagues");
    writer.open('[');
    for name in &file.leagues {
        writer.item();
        writer.string(name);
    }
    writer.close(']');
    writer.key("records");
    writer.open('[');
    for record in file.records {
        writer.item();
        writer.open('{');
        writer.key("player");
        writer.whole(record.player as u64);
        writer.key("rating");
        writer.f32(record.rating);
        writer.key("peak_rating");
        writer.f32(record.peak_rating);
        for (key, value) in ["league", "peak_league", "games", "wins"].into_iter().zip([record.league, record.peak_league, record.games, record.wins]) {
            writer.key(key);
            writer.whole(u64::from(value));
        }
        writer.close('}');
    }
    writer.close(']');
    writer.close('}');
    writer.finish()
}

impl Pool {
    /// Each player's record of the current season (nothing changes). O(N).
    #[must_use]
    pub fn season_records(&self) -> Vec<SeasonRecord> {
        (0..self.players.len())
            .map(|player| {
                let p = self.state_of(player);
                SeasonRecord {
                    player,
                    rating: p.rating,
                    peak_rating: p.peak_rating,
                    league: p.league.unwrap_or(0),
                    peak_league: p.peak_league,
                    games: p.season_games,
                    wins: p.season_wins,
                }
            })
            .collect()
    }

    /// The anchor of resets and decay: the initial rating or the pool's mean.
    fn anchor(&self) -> f64 {
        match self.rules.config.season_reset.anchor {
            ResetAnchor::InitialRating => f64::from(self.rules.config.initial_rating),
            ResetAnchor::PoolMean if self.players.is_empty() => f64::from(self.rules.config.initial_rating),
            ResetAnchor::PoolMean => self.total() / self.players.len() as f64,
        }
    }

    /// Ends the season: returns every player's [`SeasonRecord`], then applies the soft
    /// reset `R' = anchor + (R - anchor) * keep` (`keep` of the player's league when it
    /// sets one), through the configured rounding and floor. Every player is then placed
    /// afresh by the new rating, with no protection, and starts a new record (0 games,
    /// peaks = the new rating and league). League changes go to `events` (position =
    /// player). A zero-sum pool keeps its total, and its stored ratings are re-based (the
    /// shared offset folded in), so a large offset left by extreme ratings costs the next
    /// season no precision. Cannot fail: all players or none. O(N).
    pub fn end_season(&mut self, events: Option<&mut Vec<LeagueChange>>) -> Vec<SeasonRecord> {
        let records = self.season_records();
        self.reset_season(events);
        records
    }

    /// [`Self::end_season`], writing the records as JSON ([`records_to_json`]) to `path`
    /// first, atomically (as saves are written); when the file cannot be written nothing
    /// is reset.
    ///
    /// # Errors
    /// The path names no file, or writing fails.
    pub fn end_season_to_file(&mut self, path: &Path, events: Option<&mut Vec<LeagueChange>>) -> Result<Vec<SeasonRecord>, SaveError> {
        let records = self.season_records();
        crate::ladder::durable_file::write_atomic(path, &records_to_json(self, &records), crate::save::FileOperation::WriteSeasonRecords)?;
        self.reset_season(events);
        Ok(records)
    }

    fn reset_season(&mut self, mut events: Option<&mut Vec<LeagueChange>>) {
        let anchor = self.anchor();
        // The offset is folded into the ratings first (offset 0), so each reset rating is
        // stored as the rating itself: a large offset left by extreme ratings does not cost
        // the new season its precision.
        let Self { ledger, players, rules, .. } = self;
        ledger.rebase(rules.config.zero_sum_total, players.iter_mut().map(|p| &mut p.rating));
        let config = &self.rules.config;
        let (default_keep, rounding, floor) = (config.season_reset.keep, self.rules.rounding_rule(), self.rules.floor);
        for index in 0..self.players.len() {
            let p = self.players[index];
            let held = u32::from(p.league);
            let keep = self.rules.config.leagues.as_slice().get(held as usize).and_then(|l| l.season_keep).unwrap_or(default_keep);
            // The reset moves the rating as a match's change does: rounded, then the floor.
            let rating = self.ledger.current(p.rating);
            let rating = apply_delta(rating, reset_rating(rating, anchor, keep) - f64::from(rating), rounding, floor);
            let league = self.rules.league_of(rating) as u32;
            report(events.as_deref_mut(), index, index, Some(held), Some(league));
            let state = PlayerState { league: Some(league), protected_games: 0, season_games: 0, season_wins: 0, peak_rating: rating, peak_league: league, ..self.state_of(index) };
            let stored = self.ledger.set(p.rating, rating);
            self.players[index] = Hot::of(&state, stored);
            self.set_cold(index, Cold::of(&state));
        }
        self.rebalance();
    }

    /// Applies inactivity decay up to time `now` (seconds, the clock's scale): each player
    /// holding at least `decay.min_league` whose last match is more than `decay.grace_days`
    /// old loses `decay.points_per_day` per day of inactivity past the grace period not
    /// decayed by an earlier call, down to the stop and never past it: the highest of the
    /// anchor, `decay.floor`, `decay.min_rating` and the lower bound of `decay.min_league`
    /// ([`crate::rating::season_rules::Decay::decayed`]). The change goes through the configured
    /// rounding and the stop holds after it. Without zero-sum and with a fixed anchor, the
    /// call frequency does not matter: daily calls give the ratings of one call (with
    /// integer rounding, call it at intervals that decay whole points). A player who falls
    /// more than the demotion margin below the league's bound is demoted (protected games
    /// do not shield from decay); changes go to `events` (position = player). A zero-sum
    /// pool gives what decay takes to everybody equally. Returns the number of players
    /// whose rating moved. O(N).
    ///
    /// # Errors
    /// `now` is NaN, infinite, or earlier than a previous call's; nothing changes then.
    pub fn apply_decay(&mut self, now: f64, mut events: Option<&mut Vec<LeagueChange>>) -> Result<usize, Error> {
        check_finite(now, "now")?;
        if let Some(through) = self.decayed_through {
            if now < through {
                return Err(Error::OutOfRange { name: "now".to_owned(), range: "at least the time of the previous decay", got: Some(crate::error::shown(now)) });
            }
        }
        let decay = self.rules.config.decay;
        if !decay.is_on() {
            self.decayed_through = Some(now);
            return Ok(0);
        }
        let stop = decay.stop(self.anchor(), &self.rules.config.leagues);
        let (grace, margin) = (decay.grace_days * SECONDS_PER_DAY, self.rules.config.demotion_margin);
        let rounding = self.rules.rounding_rule();
        self.keep_sum();
        let mut moved_count = 0;
        for index in 0..self.players.len() {
            let p = self.players[index];
            let last_played = self.cold_of(index).last_played;
            let start = self.decayed_through.map_or(last_played + grace, |through| through.max(last_played + grace));
            let held = u32::from(p.league);
            if !(now > start && decay.min_league.is_none_or(|min| held >= min)) {
                continue;
            }
            let rating = self.ledger.current(p.rating);
            let new_rating = decay.decayed(rating, (now - start) / SECONDS_PER_DAY, stop, rounding);
            if new_rating == rating {
                continue;
            }
            moved_count += 1;
            // Decay can demote, never promote (a rating a zero-sum shift lifted past a bound
            // waits for the player's next game).
            let league = (self.rules.config.leagues.settle(held as usize, new_rating, margin, false) as u32).min(held);
            let stored = self.ledger.replace(p.rating, new_rating);
            report(events.as_deref_mut(), index, index, Some(held), Some(league));
            let protected_games = if league < held { 0 } else { p.protected_games };
            // A rule-bounded league index (at most 1024 leagues) fits in 16 bits.
            self.players[index] = Hot { rating: stored, league: league as u16, protected_games, ..p };
        }
        self.decayed_through = Some(now);
        self.rebalance();
        Ok(moved_count)
    }

    /// Replaces the rules, for example between seasons (new leagues, a new K, a new reset
    /// share), keeping every player's current rating, record and history. When the league
    /// bounds change (not just a league's K or bonuses), every player is placed afresh in
    /// the league of the rating, with no protection, and the season's peak league restarts
    /// there; otherwise leagues stay as held. A zero-sum pool is re-based (its offset folded into the ratings) and a new
    /// total applied by the usual equal shift; a new floor is not applied to ratings
    /// already below it. Cannot fail: the rules are valid by construction. O(N).
    pub fn set_rules(&mut self, rules: crate::config::Rules) {
        let bounds = |rules: &crate::config::Rules| rules.config.leagues.as_slice().iter().map(|l| l.min_rating.to_bits()).collect::<Vec<_>>();
        let leagues_changed = bounds(&rules) != bounds(&self.rules);
        // Every rating stays as it is: the offset is folded into the ratings, then a new
        // total applies by the usual equal shift.
        let Self { ledger, players, .. } = self;
        ledger.rebase(rules.config.zero_sum_total, players.iter_mut().map(|p| &mut p.rating));
        if leagues_changed {
            for hot in &mut self.players {
                // A rule-bounded league index (at most 1024 leagues) fits in 16 bits.
                let league = rules.league_of(self.ledger.current(hot.rating)) as u16;
                *hot = Hot { league, peak_league: league, protected_games: 0, ..*hot };
            }
        }
        self.rules = rules;
        self.rebalance();
    }

    /// The time up to which decay has been applied (`None` before the first call).
    #[must_use]
    pub fn decayed_through(&self) -> Option<f64> {
        self.decayed_through
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::league::{League, Leagues};
    use crate::pool::Match;
    use crate::Outcome;

    /// The records file is what `serde_json::to_string` writes for it, league names with
    /// characters that need escaping included.
    #[test]
    fn records_are_written_as_serde_writes_them() {
        let leagues = Leagues::new(vec![League::new("Bronze \"B\"", 0.0, 40.0), League::new("Silver\\\n", 1510.0, 20.0)]).unwrap();
        let mut pool = Pool::new(Config { leagues, ..Config::default() }.validate().unwrap());
        pool.add_players(5);
        let matches: Vec<Match> = (0..40).map(|i| Match::new(i % 5, (i * 3 + 1) % 5, if i % 3 == 0 { Outcome::DRAW } else { Outcome::WIN })).filter(|m| m.a != m.b).collect();
        pool.apply(&matches, None).unwrap();
        pool.set_clock(1.234_567e9).unwrap();
        let records = pool.season_records();
        assert_eq!(records_to_json(&pool, &records), serde_json::to_string(&RecordsFile::of(&pool, &records)).unwrap());
        assert!(records.iter().any(|r| r.rating.fract() != 0.0 && r.peak_league == 1), "{records:?}");
    }
}
