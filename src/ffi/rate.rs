//! Single matches under a configuration: by rating alone, with K given, or with full
//! player state.

use super::args::{arg_mut, arg_rating, arg_ref, check_disjoint, Region};
use super::config::EloConfig;
use super::error::{EloResult, FfiError};
use crate::outcome::Outcome;
use crate::player::PlayerState;
use crate::update::check_k;

/// A player's state as C sees it: the Rust `PlayerState` with `uint8_t` flags and `-1`
/// for "not placed in a league yet". A new state from [`elo_player_new`] is unplaced; a
/// zeroed struct holds league 0, which the engine corrects by the hysteresis rule before
/// use, so zero-initialising is safe too.
///
/// The struct ends with padding bytes whose content is unspecified: compare two states
/// field by field, never with `memcmp`, and compare two pools by their JSON
/// (`elo_pool_to_json`), which is equal byte for byte for equal pools.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloPlayerState {
    /// Current rating.
    pub rating: f32,
    /// Rated games played so far.
    pub games_played: u32,
    /// Consecutive wins.
    pub win_streak: u32,
    /// Games in the current rating period (FIDE 700 rule); 0 when unused.
    pub period_games: u32,
    /// The league held (0 = lowest), or -1 (any negative value) when not placed yet: the
    /// league is then taken from the rating.
    pub league: i32,
    /// Games left in which a demotion cannot happen (after a promotion).
    pub protected_games: u32,
    /// Rated games this season.
    pub season_games: u32,
    /// Wins this season.
    pub season_wins: u32,
    /// The highest rating after a game this season.
    pub peak_rating: f32,
    /// The highest league held this season.
    pub peak_league: i32,
    /// Time of the last match in the caller's seconds (a pool's clock).
    pub last_played: f64,
    /// 1 for a FIDE junior, else 0.
    pub is_junior: u8,
    /// 1 once the rating has reached 2400 (FIDE K = 10 for good), else 0.
    pub has_reached_2400: u8,
}

impl From<&EloPlayerState> for PlayerState {
    fn from(state: &EloPlayerState) -> Self {
        Self {
            rating: state.rating,
            games_played: state.games_played,
            win_streak: state.win_streak,
            period_games: state.period_games,
            is_junior: state.is_junior != 0,
            has_reached_2400: state.has_reached_2400 != 0,
            league: u32::try_from(state.league).ok(),
            protected_games: state.protected_games,
            season_games: state.season_games,
            season_wins: state.season_wins,
            peak_rating: state.peak_rating,
            peak_league: u32::try_from(state.peak_league).unwrap_or(0),
            last_played: state.last_played,
        }
    }
}

impl From<PlayerState> for EloPlayerState {
    fn from(state: PlayerState) -> Self {
        let index = |league: u32| i32::try_from(league).unwrap_or(i32::MAX);
        Self {
            rating: state.rating,
            games_played: state.games_played,
            win_streak: state.win_streak,
            period_games: state.period_games,
            league: state.league.map_or(-1, index),
            protected_games: state.protected_games,
            season_games: state.season_games,
            season_wins: state.season_wins,
            peak_rating: state.peak_rating,
            peak_league: index(state.peak_league),
            last_played: state.last_played,
            is_junior: u8::from(state.is_junior),
            has_reached_2400: u8::from(state.has_reached_2400),
        }
    }
}

/// The expected score of player A against player B under the configuration's model,
/// into `*out_expected_a` (`E_B = 1 - E_A`).
///
/// # Safety
/// `config` must be a live handle; `out_expected_a` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_expected_score(config: *const EloConfig, rating_a: f32, rating_b: f32, out_expected_a: *mut f32) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out = unsafe { arg_mut(out_expected_a, "out_expected_a")? };
        let (a, b) = (arg_rating(rating_a, "rating_a")?, arg_rating(rating_b, "rating_b")?);
        *out = config.rules.expected_score(a, b) as f32;
        Ok(())
    })
}

/// Rates one match between players known by rating alone; K comes from the configured
/// policy, which must depend on the rating only (constant, rating bands, league;
/// otherwise `ELO_RESULT_K_POLICY_NEEDS_PLAYER_STATE`). `score_a` is player A's score in
/// `[0, 1]` (1 win, 0.5 draw, 0 loss).
///
/// # Safety
/// `config` must be a live handle; the outputs valid for one write each.
#[no_mangle]
pub unsafe extern "C" fn elo_rate(config: *const EloConfig, rating_a: f32, rating_b: f32, score_a: f32, out_rating_a: *mut f32, out_rating_b: *mut f32) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let outcome = Outcome::from_score(f64::from(score_a))?;
        let (a, b) = config.rules.rate(rating_a, rating_b, outcome)?;
        unsafe { write_pair(out_rating_a, out_rating_b, a, b) }
    })
}

/// Rates one match with the K factors given (before `k_combine`), ignoring the
/// configured K policy. This is what `elo_rate_batch` computes for each pair when it is
/// given a K array (with `k_a = k_b = k[i]`).
///
/// # Safety
/// As [`elo_rate`].
#[no_mangle]
pub unsafe extern "C" fn elo_rate_with_k(
    config: *const EloConfig,
    rating_a: f32,
    rating_b: f32,
    score_a: f32,
    k_a: f32,
    k_b: f32,
    out_rating_a: *mut f32,
    out_rating_b: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let outcome = Outcome::from_score(f64::from(score_a))?;
        check_k(f64::from(k_a), "k_a")?;
        check_k(f64::from(k_b), "k_b")?;
        let (a, b) = config.rules.rate_checked_k(rating_a, rating_b, outcome, f64::from(k_a), f64::from(k_b))?;
        unsafe { write_pair(out_rating_a, out_rating_b, a, b) }
    })
}

/// Rates one match from the points both players scored: `S_A = P_A / (P_A + P_B)`
/// (0:0 is a draw), which also feeds the score-share bonus `L`. Negative, NaN or infinite
/// points are refused.
///
/// # Safety
/// As [`elo_rate`].
#[no_mangle]
pub unsafe extern "C" fn elo_rate_points(
    config: *const EloConfig,
    rating_a: f32,
    rating_b: f32,
    points_a: f32,
    points_b: f32,
    out_rating_a: *mut f32,
    out_rating_b: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let outcome = config.rules.outcome_from_points(f64::from(points_a), f64::from(points_b))?;
        let (a, b) = config.rules.rate(rating_a, rating_b, outcome)?;
        unsafe { write_pair(out_rating_a, out_rating_b, a, b) }
    })
}

/// Rates one match between two players with full state, updating both states in place
/// (rating, games played + 1, win streak, the 2400 flag): any K policy, streak
/// penalties and league bonuses apply. On failure neither state changes.
///
/// # Safety
/// `config` must be a live handle; `player_a` and `player_b` valid, distinct states.
#[no_mangle]
pub unsafe extern "C" fn elo_rate_players(config: *const EloConfig, player_a: *mut EloPlayerState, player_b: *mut EloPlayerState, score_a: f32) -> EloResult {
    ffi_boundary!(result => {
        let outcome = Outcome::from_score(f64::from(score_a))?;
        unsafe { rate_players(config, player_a, player_b, outcome) }
    })
}

/// [`elo_rate_players`] with the outcome given as points scored.
///
/// # Safety
/// As [`elo_rate_players`].
#[no_mangle]
pub unsafe extern "C" fn elo_rate_players_points(
    config: *const EloConfig,
    player_a: *mut EloPlayerState,
    player_b: *mut EloPlayerState,
    points_a: f32,
    points_b: f32,
) -> EloResult {
    ffi_boundary!(result => {
        let rules = &unsafe { arg_ref(config, "config")? }.rules;
        let outcome = rules.outcome_from_points(f64::from(points_a), f64::from(points_b))?;
        unsafe { rate_players(config, player_a, player_b, outcome) }
    })
}

/// Writes a new player at the configuration's initial rating (no games, no streak, no
/// flags) into `*out_player`.
///
/// # Safety
/// `config` must be a live handle; `out_player` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_player_new(config: *const EloConfig, out_player: *mut EloPlayerState) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out = unsafe { arg_mut(out_player, "out_player")? };
        *out = config.rules.new_player().into();
        Ok(())
    })
}

unsafe fn rate_players(config: *const EloConfig, player_a: *mut EloPlayerState, player_b: *mut EloPlayerState, outcome: Outcome) -> Result<(), FfiError> {
    let config = unsafe { arg_ref(config, "config")? };
    if std::ptr::eq(player_a, player_b) && !player_a.is_null() {
        return Err(FfiError::new(EloResult::SamePlayer, "player_a and player_b point to the same state"));
    }
    check_disjoint(&[("player_a", Region::one(player_a.cast_const())), ("player_b", Region::one(player_b.cast_const()))], &[])?;
    let state_a = PlayerState::from(unsafe { arg_ref(player_a, "player_a")? });
    let state_b = PlayerState::from(unsafe { arg_ref(player_b, "player_b")? });
    let (new_a, new_b) = config.rules.rate_players(&state_a, &state_b, outcome)?;
    *unsafe { arg_mut(player_a, "player_a")? } = new_a.into();
    *unsafe { arg_mut(player_b, "player_b")? } = new_b.into();
    Ok(())
}

/// Writes a pair of new ratings to two separate outputs.
pub(crate) unsafe fn write_pair(out_a: *mut f32, out_b: *mut f32, a: f32, b: f32) -> Result<(), FfiError> {
    check_disjoint(&[("out_rating_a", Region::one(out_a.cast_const())), ("out_rating_b", Region::one(out_b.cast_const()))], &[])?;
    let out_a = unsafe { arg_mut(out_a, "out_rating_a")? };
    let out_b = unsafe { arg_mut(out_b, "out_rating_b")? };
    *out_a = a;
    *out_b = b;
    Ok(())
}
