//! Player pools: players with state, matches applied in order, atomically,
//! an optional zero-sum total kept in O(1) per match, and leaderboard queries.
//!
//! ```
//! use ranking_elo::pool::{Match, Pool};
//! use ranking_elo::{Outcome, Rules};
//!
//! let mut pool = Pool::new(Rules::default());
//! let first = pool.add_players(3);
//! pool.apply(&[Match::new(first, first + 1, Outcome::WIN), Match::new(first + 2, first, Outcome::DRAW)], None).unwrap();
//! assert_eq!(pool.player(first).unwrap().games_played, 2);
//! assert_eq!(pool.top(1), vec![first]);
//! ```

use crate::config::Rules;
use crate::error::{Error, MAX_CHANGE};
use crate::ladder::zero_sum::Unshifted;
use crate::outcome::{check_score, Outcome};
use crate::player::PlayerState;
use crate::rating::standing::LeagueChange;
use stored::{Cold, Hot, PlayedNow};

pub use crate::ladder::zero_sum::{effective_rating, RatingSum, StoredPlayer, StoredRating, ZeroSumLedger};

mod blocks;
pub mod group_matches;
mod leaderboard;
mod period;
pub mod season;
mod stored;

/// One match of a list applied to a pool: player indices and the outcome seen from `a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match {
    /// Index of player A.
    pub a: usize,
    /// Index of player B.
    pub b: usize,
    /// The result seen from A.
    pub outcome: Outcome,
}

impl Match {
    /// A match between players `a` and `b`.
    #[must_use]
    pub const fn new(a: usize, b: usize, outcome: Outcome) -> Self {
        Self { a, b, outcome }
    }
}

/// Why a list of matches was refused (nothing was applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolError {
    /// A match names a player index the pool does not have.
    IndexOutOfRange {
        /// Position of the match in the list.
        position: usize,
        /// The bad index.
        index: usize,
        /// Number of players.
        len: usize,
    },
    /// A match pairs a player with themself.
    SamePlayer {
        /// Position of the match in the list.
        position: usize,
    },
    /// A match's score is invalid (NaN, outside `[0, 1]`, negative points…).
    BadOutcome {
        /// Position of the match in the list.
        position: usize,
        /// What is wrong.
        error: Error,
    },
    /// A player state given to the pool is invalid (a NaN or infinite rating).
    InvalidPlayer(Error),
    /// The list could take a rating past `MAX_POOL_RATING` (2^55); nothing was applied.
    RatingRange {
        /// Matches in the list.
        matches: usize,
    },
    /// A player appears twice in one team or free-for-all match.
    DuplicatePlayer {
        /// Position of the match in the list.
        position: usize,
        /// The repeated index.
        index: usize,
    },
    /// An output array does not have one slot per match.
    OutputLength {
        /// Which output.
        name: &'static str,
        /// Its length.
        len: usize,
        /// Matches in the list.
        expected: usize,
    },
}

impl std::fmt::Display for PoolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::IndexOutOfRange { position, index, len } => {
                write!(f, "matches[{position}]: player index {index} is out of range (the pool has {len} players); nothing was applied")
            }
            Self::SamePlayer { position } => {
                write!(f, "matches[{position}]: a player cannot play themself; nothing was applied")
            }
            Self::BadOutcome { position, error } => write!(f, "matches[{position}]: {error}; nothing was applied"),
            Self::InvalidPlayer(error) => error.fmt(f),
            Self::DuplicatePlayer { position, index } => {
                write!(f, "matches[{position}]: player {index} appears twice in the match; nothing was applied")
            }
            Self::RatingRange { matches } => write!(f, "these {matches} matches could take a rating past 2^55, the largest a pool holds; nothing was applied"),
            Self::OutputLength { name, len, expected } => {
                write!(f, "{name} has {len} elements but there are {expected} matches")
            }
        }
    }
}

impl std::error::Error for PoolError {}

/// Optional per-match outputs of [`Pool::apply`], each with one slot per match.
#[derive(Debug, Default)]
pub struct MatchOutputs<'a> {
    /// Rating change of player A (before any zero-sum adjustment).
    pub delta_a: Option<&'a mut [f32]>,
    /// Rating change of player B (before any zero-sum adjustment).
    pub delta_b: Option<&'a mut [f32]>,
    /// Expected score of A before the match.
    pub expected_a: Option<&'a mut [f32]>,
    /// League changes (promotions and demotions), appended in match order.
    pub events: Option<&'a mut Vec<LeagueChange>>,
}

impl MatchOutputs<'_> {
    /// Checks that every output given has one slot per match.
    fn check_lengths(&self, matches: usize) -> Result<(), PoolError> {
        for (name, output) in [("delta_a", self.delta_a.as_deref()), ("delta_b", self.delta_b.as_deref()), ("expected_a", self.expected_a.as_deref())] {
            if let Some(output) = output {
                if output.len() != matches {
                    return Err(PoolError::OutputLength { name, len: output.len(), expected: matches });
                }
            }
        }
        Ok(())
    }
}

/// A pool of players rated under one set of [`Rules`].
///
/// In zero-sum mode (`zero_sum_total` configured) the total of all ratings is brought back
/// to `T` after every match (and every other change: a player set or added, a decay, a
/// season end, new rules, a load) by giving each player `(T - sum R) / N`
/// (`docs/configuration.md#zero-sum-pools`). This costs O(1) per match: the pool stores
/// each player's rating relative to one shared offset, and its [`ZeroSumLedger`] keeps the
/// offset and the exact sum of the stored ratings (the arithmetic is described in
/// [`crate::ladder::zero_sum`]).
#[derive(Debug, Clone)]
pub struct Pool {
    rules: Rules,
    /// What every game reads and writes, per player; `rating` is relative to the ledger's
    /// offset.
    players: Vec<Hot>,
    /// The rest of each player's state (last match time, season start).
    cold: Vec<Cold>,
    /// Players who played at the current clock (their `cold.last_played` is the clock).
    played_now: PlayedNow,
    /// The zero-sum offset, the exact sum of the stored ratings, their bound and count.
    ledger: ZeroSumLedger,
    /// The caller's time (seconds) stamped on every match as `last_played`.
    clock: f64,
    /// The time up to which inactivity decay has been applied (`None`: never).
    decayed_through: Option<f64>,
}

/// Pools are equal when their rules, players, zero-sum offset, clock and decay time are
/// (the total follows from the players; the sum and the magnitude bound are caches).
impl PartialEq for Pool {
    fn eq(&self, other: &Self) -> bool {
        self.rules == other.rules
            && self.players == other.players
            && (0..self.players.len()).all(|i| self.cold_of(i) == other.cold_of(i))
            && self.ledger.offset().to_bits() == other.ledger.offset().to_bits()
            && self.clock.to_bits() == other.clock.to_bits()
            && self.decayed_through.map(f64::to_bits) == other.decayed_through.map(f64::to_bits)
    }
}

impl Pool {
    /// An empty pool.
    #[must_use]
    pub fn new(rules: Rules) -> Self {
        let ledger = ZeroSumLedger::new(rules.config.zero_sum_total);
        Self { rules, players: Vec::new(), cold: Vec::new(), played_now: PlayedNow::default(), ledger, clock: 0.0, decayed_through: None }
    }

    /// A pool holding `stored` (stored ratings relative to `offset`) at `clock`, decayed
    /// through `decayed_through`, its ledger computed from them. Players not placed in a
    /// league yet (older saves) are placed by their rating, and a missing peak rating
    /// becomes the rating.
    pub(crate) fn from_parts(rules: Rules, stored: Vec<StoredPlayer>, offset: f64, clock: f64, decayed_through: Option<f64>) -> Self {
        let ledger = ZeroSumLedger::of_stored(rules.config.zero_sum_total, offset, stored.iter().map(StoredPlayer::rating));
        let count = stored.len();
        let (mut players, mut cold) = (Vec::with_capacity(count), Vec::with_capacity(count));
        for player in stored {
            let mut state = player.current(&ledger);
            if state.league.is_none() {
                let league = rules.league_of(state.rating) as u32;
                state = PlayerState { league: Some(league), peak_league: state.peak_league.max(league), ..state };
            }
            if state.peak_rating == f32::MIN {
                state.peak_rating = state.rating;
            }
            players.push(Hot::of(&state, player.rating()));
            cold.push(Cold::of(&state));
        }
        let mut played_now = PlayedNow::default();
        played_now.resize(count);
        Self { rules, players, cold, played_now, ledger, clock, decayed_through }
    }

    /// A pool from parts kept elsewhere (a database, as the ladder server keeps ladders):
    /// the players as [`Self::stored_player`] gave them (ratings relative to `offset`), the
    /// zero-sum offset ([`Self::offset`]), the clock and the time decay was applied
    /// through. The same pool a save of those parts restores.
    ///
    /// # Errors
    /// A state the rules refuse ([`Rules::check_player`] of the stored fields, naming
    /// `players[i]`), a non-finite offset or time, or an offset other than 0 without
    /// `zero_sum_total`.
    pub fn from_stored(rules: Rules, states: Vec<StoredPlayer>, offset: f64, clock: f64, decayed_through: Option<f64>) -> Result<Self, Error> {
        crate::error::check_finite(offset, "offset")?;
        crate::error::check_finite(clock, "clock")?;
        crate::error::check_finite(decayed_through.unwrap_or(0.0), "decayed_through")?;
        if rules.config.zero_sum_total.is_none() && offset != 0.0 {
            return Err(Error::OutOfRange { name: "offset".to_owned(), range: "0 when zero_sum_total is not set", got: Some(crate::error::shown(offset)) });
        }
        for (i, state) in states.iter().enumerate() {
            rules.check_player(&state.fields(), &format!("players[{i}]"))?;
        }
        Ok(Self::from_parts(rules, states, offset, clock, decayed_through))
    }

    /// Player `index` as the pool stores it: the rating relative to the zero-sum offset
    /// ([`StoredPlayer::current`] with [`Self::ledger`] gives the current state).
    #[must_use]
    pub fn stored_player(&self, index: usize) -> Option<StoredPlayer> {
        let hot = self.players.get(index)?;
        Some(StoredPlayer::from_fields(hot.state(&self.cold_of(index), hot.rating.to_f32())))
    }

    /// The zero-sum offset added to every stored rating (0 without `zero_sum_total`).
    #[must_use]
    pub fn offset(&self) -> f64 {
        self.ledger.offset()
    }

    /// The pool's zero-sum numbers: offset, exact sum, player count.
    #[must_use]
    pub fn ledger(&self) -> &ZeroSumLedger {
        &self.ledger
    }

    /// Every player as the pool stores it, as saves keep them.
    pub(crate) fn stored_players(&self) -> Vec<StoredPlayer> {
        (0..self.players.len()).filter_map(|i| self.stored_player(i)).collect()
    }

    /// Every player's stored rating, for the ledger to recompute what it needs from them.
    fn stored_ratings(&self) -> impl Iterator<Item = StoredRating> + '_ {
        self.players.iter().map(|p| p.rating)
    }

    /// Player `index`'s whole current state (index in range).
    #[inline]
    fn state_of(&self, index: usize) -> PlayerState {
        let hot = &self.players[index];
        hot.state(&self.cold_of(index), self.ledger.current(hot.rating))
    }

    /// Player `index`'s cold record with its true last match time.
    #[inline]
    fn cold_of(&self, index: usize) -> Cold {
        let mut cold = self.cold[index];
        if self.played_now.is_marked(index) {
            cold.last_played = self.clock;
        }
        cold
    }

    /// Sets player `index`'s cold record (its time no longer the clock's).
    fn set_cold(&mut self, index: usize, cold: Cold) {
        self.cold[index] = cold;
        self.played_now.unmark(index);
    }

    /// The clock: the caller's time in seconds, stamped on every match as the players'
    /// `last_played` (the engine never reads the wall clock, so results stay
    /// deterministic). 0 until set.
    #[must_use]
    pub fn clock(&self) -> f64 {
        self.clock
    }

    /// Sets the clock (any finite number of seconds, for example Unix time; it may go
    /// back, for replays). New players and matches from now on carry this time.
    ///
    /// # Errors
    /// A NaN or infinite time.
    pub fn set_clock(&mut self, seconds: f64) -> Result<(), Error> {
        crate::error::check_finite(seconds, "clock")?;
        if seconds.to_bits() != self.clock.to_bits() {
            self.played_now.flush(&mut self.cold, self.clock);
        }
        self.clock = seconds;
        Ok(())
    }

    /// [`Self::total`], keeping the exact sum so that the next queries are O(1) until the
    /// next list of matches.
    pub fn refresh_total(&mut self) -> f64 {
        self.keep_sum();
        self.total()
    }

    /// Makes the kept sum known again (after a list of matches), so that the next queries
    /// and changes are O(1).
    fn keep_sum(&mut self) {
        let Self { ledger, players, .. } = self;
        ledger.know_sum(players.iter().map(|p| p.rating));
    }

    /// The rules the pool rates with.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Number of players.
    #[must_use]
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// Whether the pool has no player.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }

    /// Adds `count` new players; returns the index of the first. They start at the initial
    /// rating, except in a zero-sum pool: players created in an empty pool start
    /// at `T / N`, and players added later at the pool's mean rating; everybody is then
    /// shifted equally so that the total is `T` again.
    ///
    /// # Panics
    /// When the memory for `count` players cannot be had, as any `Vec` growth;
    /// [`Self::try_add_players`] reports that instead.
    pub fn add_players(&mut self, count: usize) -> usize {
        self.try_add_players(count).unwrap_or_else(|error| panic!("adding {count} players: {error}"))
    }

    /// [`Self::add_players`], reporting a failed allocation (a count too large for the
    /// memory) instead of aborting; nothing is added then.
    ///
    /// # Errors
    /// The memory for `count` more players cannot be reserved.
    pub fn try_add_players(&mut self, count: usize) -> Result<usize, std::collections::TryReserveError> {
        self.players.try_reserve_exact(count)?;
        self.cold.try_reserve_exact(count)?;
        let first = self.players.len();
        let rating = self.ledger.joining_rating(count).unwrap_or(self.rules.config.initial_rating);
        let template = PlayerState { last_played: self.clock, ..PlayerState::new(rating) };
        for _ in 0..count {
            self.push(template);
        }
        self.rebalance();
        Ok(first)
    }

    /// Adds players with given state (ratings must be finite); returns the index of the
    /// first. Nothing is added if any state is invalid. A state without a league is placed
    /// by its rating; a league that does not fit the rating is corrected by the hysteresis
    /// rule ([`Rules::current_league`]).
    ///
    /// # Errors
    /// A non-finite rating or time, or a league the rules do not have (the message names
    /// its position).
    pub fn add_player_states(&mut self, states: &[PlayerState]) -> Result<usize, Error> {
        for (i, state) in states.iter().enumerate() {
            self.rules.check_player(state, &format!("players[{i}]"))?;
        }
        let first = self.players.len();
        for state in states {
            self.push(*state);
        }
        self.rebalance();
        Ok(first)
    }

    /// Adds a player (placed in a league) to the pool and its ledger; the caller
    /// rebalances.
    fn push(&mut self, state: PlayerState) {
        let state = self.rules.placed(state);
        let stored = self.ledger.join(state.rating);
        self.players.push(Hot::of(&state, stored));
        self.cold.push(Cold::of(&state));
        self.played_now.resize(self.cold.len());
    }

    /// Player `index` with its current rating, or `None` out of range.
    #[must_use]
    pub fn player(&self, index: usize) -> Option<PlayerState> {
        (index < self.players.len()).then(|| self.state_of(index))
    }

    /// Current rating of player `index`.
    #[must_use]
    pub fn rating(&self, index: usize) -> Option<f32> {
        self.players.get(index).map(|p| self.ledger.current(p.rating))
    }

    /// Replaces player `index`'s state (placed in a league as
    /// [`Self::add_player_states`] does). In a zero-sum pool the total is then brought back
    /// to `T` at once, as after a match: everybody, the player set included, receives
    /// `(T - sum R) / N` (setting one of two players at 1500 to 1600 with `T` 3000 gives
    /// 1550 and 1450). To load many ratings into a zero-sum pool, add them with
    /// [`Self::add_player_states`] to an empty pool (one shift for all) or load a save.
    ///
    /// # Errors
    /// An index out of range, a non-finite rating or time, or a league the rules do not
    /// have.
    pub fn set_player(&mut self, index: usize, state: PlayerState) -> Result<(), PoolError> {
        let len = self.players.len();
        if index >= len {
            return Err(PoolError::IndexOutOfRange { position: 0, index, len });
        }
        self.rules.check_player(&state, "player").map_err(PoolError::InvalidPlayer)?;
        let state = self.rules.placed(state);
        let stored = self.ledger.set(self.players[index].rating, state.rating);
        self.players[index] = Hot::of(&state, stored);
        self.set_cold(index, Cold::of(&state));
        self.rebalance();
        Ok(())
    }

    /// Writes `read(player)` for players `start..start + out.len()` into `out`, each
    /// player with its current rating: the one way the bulk read-backs walk the pool.
    ///
    /// # Errors
    /// The range does not lie within the pool.
    pub fn map_range<T>(&self, start: usize, out: &mut [T], read: impl Fn(&PlayerState) -> T) -> Result<(), PoolError> {
        let range = self.range(start, out.len())?;
        for (target, index) in out.iter_mut().zip(range) {
            *target = read(&self.state_of(index));
        }
        Ok(())
    }

    /// Copies the states of players `start..start + out.len()` into `out`.
    ///
    /// # Errors
    /// The range does not lie within the pool.
    pub fn players_into(&self, start: usize, out: &mut [PlayerState]) -> Result<(), PoolError> {
        self.map_range(start, out, |p| *p)
    }

    /// Copies the ratings of players `start..start + out.len()` into `out`.
    ///
    /// # Errors
    /// The range does not lie within the pool.
    pub fn ratings_into(&self, start: usize, out: &mut [f32]) -> Result<(), PoolError> {
        let range = self.range(start, out.len())?;
        for (target, hot) in out.iter_mut().zip(&self.players[range]) {
            *target = self.ledger.current(hot.rating);
        }
        Ok(())
    }

    /// Copies the league indices of players `start..start + out.len()` into `out`.
    ///
    /// # Errors
    /// The range does not lie within the pool.
    pub fn leagues_into(&self, start: usize, out: &mut [usize]) -> Result<(), PoolError> {
        let range = self.range(start, out.len())?;
        for (target, hot) in out.iter_mut().zip(&self.players[range]) {
            *target = usize::from(hot.league);
        }
        Ok(())
    }

    fn range(&self, start: usize, count: usize) -> Result<std::ops::Range<usize>, PoolError> {
        let len = self.players.len();
        let end = start.checked_add(count).filter(|end| *end <= len);
        end.map(|end| start..end).ok_or(PoolError::IndexOutOfRange { position: 0, index: start.saturating_add(count).saturating_sub(1).max(start), len })
    }

    /// Checks a list of matches without changing anything.
    ///
    /// # Errors
    /// The first invalid match, with its position.
    pub fn validate(&self, matches: &[Match]) -> Result<(), PoolError> {
        // A branch-light pass first; the detailed one below runs only to name a failure.
        let all_valid = matches.iter().fold(true, |ok, m| ok & self.match_is_valid(m));
        if all_valid {
            return Ok(());
        }
        for (position, m) in matches.iter().enumerate() {
            self.check_match(position, m)?;
        }
        Ok(())
    }

    /// Whether a match is valid (indices in range, two players, scores in `[0, 1]`),
    /// branch-free: the fast test [`Self::check_match`] explains when it fails.
    #[inline(always)]
    #[must_use]
    pub fn match_is_valid(&self, m: &Match) -> bool {
        let len = self.players.len();
        let unit = |x: f64| (0.0..=1.0).contains(&x);
        #[allow(clippy::needless_bitwise_bool, reason = "branch-free on purpose")]
        let valid = (m.a < len) & (m.b < len) & (m.a != m.b) & unit(m.outcome.score_a) & unit(m.outcome.share_a);
        valid
    }

    /// Checks one match of a list at `position` (what [`Self::validate`] checks for each):
    /// for callers that check a list as they read it, before they copy it.
    ///
    /// # Errors
    /// An index out of range, a == b, or a bad score, with the position.
    pub fn check_match(&self, position: usize, m: &Match) -> Result<(), PoolError> {
        let len = self.players.len();
        for index in [m.a, m.b] {
            if index >= len {
                return Err(PoolError::IndexOutOfRange { position, index, len });
            }
        }
        if m.a == m.b {
            return Err(PoolError::SamePlayer { position });
        }
        let bad = |error| PoolError::BadOutcome { position, error };
        check_score(m.outcome.score_a, "score_a").map_err(bad)?;
        check_score(m.outcome.share_a, "share_a").map_err(bad)?;
        Ok(())
    }

    /// Applies `matches` in order, atomically: the whole list is validated first, and on
    /// any invalid match nothing changes. Optional outputs receive one value per match.
    ///
    /// # Errors
    /// The first invalid match (index out of range, a == b, bad score), with its
    /// position, or an output of the wrong length.
    pub fn apply(&mut self, matches: &[Match], outputs: Option<MatchOutputs<'_>>) -> Result<(), PoolError> {
        self.validate(matches)?;
        self.apply_checked(matches, outputs)
    }

    /// [`Self::apply`] for a list whose every match the caller has already checked with
    /// [`Self::match_is_valid`] (the C ABI checks each match as it reads it): the range of
    /// the ratings and the outputs are still checked.
    pub(crate) fn apply_checked(&mut self, matches: &[Match], outputs: Option<MatchOutputs<'_>>) -> Result<(), PoolError> {
        debug_assert!(matches.iter().all(|m| self.match_is_valid(m)), "checked matches");
        self.ensure_room(matches.len())?;
        let mut outputs = outputs.unwrap_or_default();
        outputs.check_lengths(matches.len())?;
        if let Some(unshifted) = self.ledger.unshifted() {
            self.apply_blocks(unshifted, matches, &mut outputs);
        } else {
            for (i, m) in matches.iter().enumerate() {
                // One match at a time (each depends on the last through the offset): ask
                // for the players of a match a few places ahead now, so their records are
                // cached when it comes.
                if let Some(ahead) = matches.get(i + blocks::PREFETCH_DISTANCE) {
                    blocks::prefetch(&self.players, ahead.a);
                    blocks::prefetch(&self.players, ahead.b);
                }
                let (before_a, before_b, after_a, after_b) = self.apply_one(i, m, outputs.events.as_deref_mut());
                record(&mut outputs, i, [before_a, before_b, after_a, after_b], || self.rules.expected_score(before_a, before_b));
            }
        }
        Ok(())
    }

    /// Validated matches on a pool without offset, in blocks of matches whose players are
    /// all different: the block's players are loaded first (independent memory accesses),
    /// its expected scores computed in one vectorized loop, then each match is finished in
    /// order. The same results as one match at a time, bit for bit: within a block no
    /// match reads a rating another one writes.
    fn apply_blocks(&mut self, unshifted: Unshifted, matches: &[Match], outputs: &mut MatchOutputs<'_>) {
        // Separate borrows: the compiler then knows that storing a player never changes
        // the rules, and keeps their fields in registers for the whole loop.
        let Self { rules, players, played_now, ledger, .. } = self;
        blocks::apply_blocks(rules, players, played_now, unshifted, matches, outputs);
        // The loop does not keep the exact sum (nothing there needs it).
        ledger.forget_sum(unshifted);
    }

    /// One validated match; returns the ratings before and after (before any zero-sum
    /// adjustment).
    #[inline(always)]
    fn apply_one(&mut self, position: usize, m: &Match, mut events: Option<&mut Vec<LeagueChange>>) -> (f32, f32, f32, f32) {
        let a = self.players[m.a].game_state(self.ledger.current(self.players[m.a].rating));
        let b = self.players[m.b].game_state(self.ledger.current(self.players[m.b].rating));
        let expected_a = self.rules.expectation.expected_a(a.rating, b.rating);
        let (new_a, new_b) = self.rules.rate_players_expected(&a, &b, m.outcome, expected_a);
        self.store_played(position, m.a, new_a, None, events.as_deref_mut());
        self.store_played(position, m.b, new_b, None, events);
        self.rebalance();
        (a.rating, b.rating, new_a.rating, new_b.rating)
    }

    /// Stores player `index`'s state after a game (its current rating made relative to
    /// the offset, the exact sum kept, the clock stamped) and reports a league change. The
    /// caller rebalances a zero-sum pool. With `unshifted` (a pool without zero-sum offset,
    /// in a list of matches) the exact sum is not kept: the caller forgets it after the
    /// list, as [`Self::apply_blocks`] does, and the stored rating is the rating itself.
    #[inline(always)]
    fn store_played(&mut self, position: usize, index: usize, state: PlayerState, unshifted: Option<Unshifted>, events: Option<&mut Vec<LeagueChange>>) {
        let before = &self.players[index];
        let stored = match unshifted {
            Some(unshifted) => unshifted.stored(state.rating),
            None => self.ledger.replace(before.rating, state.rating),
        };
        report(events, position, index, Some(u32::from(before.league)), state.league);
        self.players[index] = Hot::of(&state, stored);
        self.played_now.mark(index);
    }

    /// Checks that `matches` more matches cannot take any rating past
    /// [`crate::error::MAX_POOL_RATING`]: one match moves a rating by at most
    /// [`MAX_CHANGE`] (plus as much again through a zero-sum adjustment). The ledger keeps
    /// an upper bound of the largest stored rating that grows by that much per match and is
    /// recomputed exactly (O(N)) only when it gets near the limit, which ratings of any
    /// real game never do.
    ///
    /// # Errors
    /// [`PoolError::RatingRange`] when even the exact bound leaves no room.
    fn ensure_room(&mut self, matches: usize) -> Result<(), PoolError> {
        self.ensure_room_for(matches, matches as f64 * 2.0 * MAX_CHANGE)
    }

    /// [`Self::ensure_room`] for `matches` matches that can move ratings by `growth` in all
    /// ([`ZeroSumLedger::reserve`]).
    fn ensure_room_for(&mut self, matches: usize, growth: f64) -> Result<(), PoolError> {
        let Self { ledger, players, .. } = self;
        if ledger.reserve(growth, players.iter().map(|p| p.rating)) {
            Ok(())
        } else {
            Err(PoolError::RatingRange { matches })
        }
    }

    /// Zero-sum mode: everybody receives `(T - sum R) / N`, as one shared offset (O(1)).
    #[inline(always)]
    pub(crate) fn rebalance(&mut self) {
        self.ledger.rebalance();
    }

    /// Sum of all current ratings: the exact sum of the stored ratings (128-bit fixed point
    /// with 40 fraction bits: exact for every rating of magnitude `2^-17` or more), rounded once to
    /// `f64`, plus `N` times the zero-sum offset. Without zero-sum the offset is 0 and this
    /// is the players' ratings summed, exactly as they are, rounded once. In zero-sum mode
    /// it is the configured total up to the rounding of the offset, after every call (a
    /// pool with players is never left unbalanced). O(1) while the sum is
    /// kept; after a list of matches (not zero-sum) it is recomputed in O(N) until a
    /// `&mut` call keeps it again ([`Self::refresh_total`]).
    #[must_use]
    pub fn total(&self) -> f64 {
        self.ledger.current_total(self.stored_ratings())
    }
}

/// Appends a league change to `events` when `from` and `to` differ.
#[inline(always)]
pub(crate) fn report(events: Option<&mut Vec<LeagueChange>>, position: usize, player: usize, from: Option<u32>, to: Option<u32>) {
    if let Some(events) = events {
        let (from, to) = (from.unwrap_or(0), to.unwrap_or(0));
        if from != to {
            events.push(LeagueChange { position, player, from, to });
        }
    }
}

/// Writes the optional per-match outputs of match `i`: ratings before and after, and the
/// expected score (computed only when asked for).
#[inline(always)]
fn record(outputs: &mut MatchOutputs<'_>, i: usize, [before_a, before_b, after_a, after_b]: [f32; 4], expected: impl FnOnce() -> f64) {
    if let Some(out) = outputs.delta_a.as_deref_mut() {
        out[i] = (f64::from(after_a) - f64::from(before_a)) as f32;
    }
    if let Some(out) = outputs.delta_b.as_deref_mut() {
        out[i] = (f64::from(after_b) - f64::from(before_b)) as f32;
    }
    if let Some(out) = outputs.expected_a.as_deref_mut() {
        out[i] = expected() as f32;
    }
}

/// Writes a period match's outputs for one side (`is_a`): the game's share of the change,
/// and A's expected score when given.
fn record_period(outputs: &mut MatchOutputs<'_>, i: usize, is_a: bool, change: f64, expected_a: Option<f64>) {
    let side = if is_a { outputs.delta_a.as_deref_mut() } else { outputs.delta_b.as_deref_mut() };
    if let Some(out) = side {
        out[i] = change as f32;
    }
    if let (Some(out), Some(expected)) = (outputs.expected_a.as_deref_mut(), expected_a) {
        out[i] = expected as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn bad_match_changes_nothing_and_names_its_position() {
        let mut pool = Pool::new(Rules::default());
        pool.add_players(4);
        let before = pool.clone();
        let matches = [Match::new(0, 1, Outcome::WIN), Match::new(2, 3, Outcome::LOSS), Match::new(1, 9, Outcome::WIN)];
        let error = pool.apply(&matches, None).unwrap_err();
        assert_eq!(error, PoolError::IndexOutOfRange { position: 2, index: 9, len: 4 });
        assert!(error.to_string().starts_with("matches[2]"));
        assert_eq!(pool, before);
        assert_eq!(pool.apply(&[Match::new(3, 3, Outcome::WIN)], None), Err(PoolError::SamePlayer { position: 0 }));
        let nan = Outcome { score_a: f64::NAN, share_a: 0.5 };
        assert!(matches!(pool.apply(&[Match::new(0, 1, Outcome::WIN), Match::new(0, 1, nan)], None), Err(PoolError::BadOutcome { position: 1, .. })));
        assert_eq!(pool, before);
    }

    #[test]
    fn pool_matches_single_calls_bit_for_bit() {
        let rules = Config::from_json(r#"{"k_policy":{"policy":"fide"},"streak_alpha":0.2,"rounding":"half_away_from_zero"}"#).unwrap();
        let mut pool = Pool::new(rules.clone());
        pool.add_players(3);
        let mut states = [rules.new_player(); 3];
        let plan = [(0, 1, 1.0), (1, 2, 0.5), (0, 2, 1.0), (0, 1, 1.0), (2, 0, 0.0)];
        for (a, b, s) in plan {
            let outcome = Outcome::from_score(s).unwrap();
            pool.apply(&[Match::new(a, b, outcome)], None).unwrap();
            let (na, nb) = rules.rate_players(&states[a], &states[b], outcome).unwrap();
            states[a] = na;
            states[b] = nb;
        }
        for (i, state) in states.iter().enumerate() {
            assert_eq!(pool.player(i).unwrap(), *state);
        }
    }

    #[test]
    fn outputs_and_leaderboard() {
        let mut pool = Pool::new(Rules::default());
        pool.add_players(5);
        let (mut da, mut db, mut ea) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        let outputs = MatchOutputs { delta_a: Some(&mut da), delta_b: Some(&mut db), expected_a: Some(&mut ea), events: None };
        pool.apply(&[Match::new(3, 1, Outcome::WIN), Match::new(3, 4, Outcome::WIN)], Some(outputs)).unwrap();
        assert_eq!((da[0], db[0], ea[0]), (16.0, -16.0, 0.5));
        assert!(da[1] < 16.0 && ea[1] > 0.5);
        assert_eq!(pool.top(2)[0], 3);
        assert_eq!(pool.bottom(2), vec![1, 4]);
        assert_eq!(pool.rank(3), Some(1));
        assert_eq!(pool.rank(0), Some(2)); // 0, 2 tie at 1500: lower index first
        assert_eq!(pool.rank(1), Some(5));
        let error = pool.set_player(0, PlayerState::new(f32::NAN)).unwrap_err();
        assert!(matches!(error, PoolError::InvalidPlayer(_)) && error.to_string().starts_with("player.rating"), "{error}");
        assert_eq!(pool.top(10).len(), 5);
        assert_eq!(pool.league_counts(), vec![5]);
    }
}
