//! `EloPool`: a player pool behind an opaque handle.
//!
//! Thread safety: every pool function takes the pool's lock for the duration of the
//! call, so a pool used from several threads at once is safe (calls are serialized, each
//! one atomic); it is never corrupted. After an internal error (a caught panic) the pool
//! refuses further use with `ELO_RESULT_PANIC`.

use std::os::raw::c_char;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use super::args::{arg_len, arg_mut, arg_rating, arg_ref, arg_slice, arg_slice_mut, arg_utf8, check_disjoint, reserve, write_text, Region};
use super::config::EloConfig;
use super::error::{EloResult, FfiError};
use super::events::EventsOut;
use super::rate::EloPlayerState;
use crate::outcome::Outcome;
use crate::player::PlayerState;
use crate::pool::{Match, MatchOutputs, Pool, PoolError};

/// A pool of players with state, rated under one configuration. Create it with
/// [`elo_pool_new`], release it with [`elo_pool_free`].
pub struct EloPool {
    pool: Mutex<Pool>,
}

/// Locks the pool of a handle (`ELO_RESULT_NULL_POINTER` for NULL, `ELO_RESULT_PANIC` for
/// a pool an earlier panic left unusable).
///
/// # Safety
/// A non-NULL `pool` must be a live handle (from [`elo_pool_new`] and not yet freed) for
/// the returned guard's lifetime `'a`, which the caller chooses: no longer than the call.
pub(crate) unsafe fn lock<'a>(pool: *const EloPool) -> Result<MutexGuard<'a, Pool>, FfiError> {
    let pool = unsafe { arg_ref(pool, "pool")? };
    pool.pool.lock().map_err(|_| FfiError::new(EloResult::Panic, "the pool is unusable after an internal error"))
}

fn index_arg(index: i32, len: usize, name: &str) -> Result<usize, FfiError> {
    usize::try_from(index)
        .ok()
        .filter(|i| *i < len)
        .ok_or_else(|| FfiError::new(EloResult::IndexOutOfRange, format!("{name} {index} is out of range (the pool has {len} players)")))
}

/// The shared body of the per-player queries: check the output, lock, check the index,
/// write `query(pool, index)`.
unsafe fn query_player<T>(pool: *const EloPool, index: i32, out: *mut T, out_name: &str, query: impl FnOnce(&Pool, usize) -> T) -> Result<(), FfiError> {
    let out = unsafe { arg_mut(out, out_name)? };
    let pool = unsafe { lock(pool)? };
    let index = index_arg(index, pool.len(), "index")?;
    *out = query(&pool, index);
    Ok(())
}

fn count_out(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// Creates an empty pool rated under a copy of `config` into `*out_pool`.
///
/// # Safety
/// `config` must be a live handle; `out_pool` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_new(config: *const EloConfig, out_pool: *mut *mut EloPool) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out = unsafe { arg_mut(out_pool, "out_pool")? };
        *out = Box::into_raw(Box::new(EloPool { pool: Mutex::new(Pool::new(config.rules.clone())) }));
        Ok(())
    })
}

/// Replaces the pool's rules by a copy of `config`'s, for example between seasons, keeping
/// every player's rating and record: when the leagues differ, players are placed afresh by
/// rating; a zero-sum pool is re-based and takes the new total (see `Pool::set_rules`).
///
/// # Safety
/// `pool` and `config` must be live handles.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_set_config(pool: *mut EloPool, config: *const EloConfig) -> EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        unsafe { lock(pool)? }.set_rules(config.rules.clone());
        Ok(())
    })
}

/// Releases a pool. NULL is ignored.
///
/// # Safety
/// `pool` must be NULL or a live handle from `elo_pool_new`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_free(pool: *mut EloPool) {
    ffi_boundary!(value () => {
        if !pool.is_null() {
            drop(unsafe { Box::from_raw(pool) });
        }
    });
}

/// Adds `count` players at the configured initial rating (in an empty zero-sum pool, at
/// `T / count`); the index of the first goes to `*out_first_index`.
///
/// # Safety
/// `pool` must be a live handle; `out_first_index` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_add_players(pool: *mut EloPool, count: i32, out_first_index: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let count = arg_len(count, "count")?;
        let out = unsafe { arg_mut(out_first_index, "out_first_index")? };
        let mut pool = unsafe { lock(pool)? };
        if pool.len() + count > i32::MAX as usize {
            return Err(FfiError::new(EloResult::InvalidLength, "a pool holds at most 2^31 - 1 players"));
        }
        let first = pool.try_add_players(count).map_err(|error| {
            FfiError::new(EloResult::InvalidLength, format!("count {count}: the memory for that many players cannot be had ({error})"))
        })?;
        *out = count_out(first);
        Ok(())
    })
}

/// Adds `count` players with the given states; the index of the first goes to
/// `*out_first_index`. Nothing is added if a rating is NaN or infinite.
///
/// # Safety
/// `pool` must be a live handle; `states` valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_add_player_states(pool: *mut EloPool, states: *const EloPlayerState, count: i32, out_first_index: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let n = arg_len(count, "count")?;
        check_disjoint(&[("out_first_index", Region::one(out_first_index.cast_const()))], &[("states", Region::of(states, n))])?;
        let states = unsafe { arg_slice(states, n, "states")? };
        let out = unsafe { arg_mut(out_first_index, "out_first_index")? };
        let mut pool = unsafe { lock(pool)? };
        if pool.len() + n > i32::MAX as usize {
            return Err(FfiError::new(EloResult::InvalidLength, "a pool holds at most 2^31 - 1 players"));
        }
        let mut converted = reserve(n, "states")?;
        converted.extend(states.iter().map(PlayerState::from));
        *out = count_out(pool.add_player_states(&converted)?);
        Ok(())
    })
}

/// The number of players into `*out_len`.
///
/// # Safety
/// `pool` must be a live handle; `out_len` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_len(pool: *const EloPool, out_len: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_len, "out_len")? };
        *out = count_out(unsafe { lock(pool)? }.len());
        Ok(())
    })
}

/// Player `index`'s state (current rating, games, streak, flags) into `*out_player`.
///
/// # Safety
/// `pool` must be a live handle; `out_player` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_get_player(pool: *const EloPool, index: i32, out_player: *mut EloPlayerState) -> EloResult {
    ffi_boundary!(result => {
        unsafe {
            query_player(pool, index, out_player, "out_player", |pool, i| {
                pool.player(i).map_or_else(|| unreachable!("index checked"), EloPlayerState::from)
            })
        }
    })
}

/// Replaces player `index`'s state (for example to load ratings from a server). In a
/// zero-sum pool everybody, the player set included, then receives `(T - sum) / N`, as
/// after a match, so the total stays `T` (one of two players at 1500 set to 1600 with `T`
/// 3000 gives 1550 and 1450); to load many ratings, add them to an empty pool with
/// `elo_pool_add_player_states` (one shift for all) or load a save.
///
/// # Safety
/// `pool` must be a live handle; `player` valid for one read.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_set_player(pool: *mut EloPool, index: i32, player: *const EloPlayerState) -> EloResult {
    ffi_boundary!(result => {
        let state = PlayerState::from(unsafe { arg_ref(player, "player")? });
        arg_rating(state.rating, "player.rating")?;
        let mut pool = unsafe { lock(pool)? };
        let index = index_arg(index, pool.len(), "index")?;
        pool.set_player(index, state)?;
        Ok(())
    })
}

/// Copies the states of players `start .. start + count` into `out_players`.
///
/// # Safety
/// `pool` must be a live handle; `out_players` valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_get_players(pool: *const EloPool, start: i32, count: i32, out_players: *mut EloPlayerState) -> EloResult {
    ffi_boundary!(result => { unsafe { read_range(pool, start, count, out_players, "out_players", |_, p| EloPlayerState::from(*p)) } })
}

/// Copies the current ratings of players `start .. start + count` into `out_ratings`.
///
/// # Safety
/// `pool` must be a live handle; `out_ratings` valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_get_ratings(pool: *const EloPool, start: i32, count: i32, out_ratings: *mut f32) -> EloResult {
    ffi_boundary!(result => { unsafe { read_range(pool, start, count, out_ratings, "out_ratings", |_, p| p.rating) } })
}

/// Copies the league indices (0 = lowest) of players `start .. start + count` into
/// `out_leagues`.
///
/// # Safety
/// `pool` must be a live handle; `out_leagues` valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_get_leagues(pool: *const EloPool, start: i32, count: i32, out_leagues: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let leagues = |_: &Pool, p: &PlayerState| count_out(p.league.unwrap_or(0) as usize);
        unsafe { read_range(pool, start, count, out_leagues, "out_leagues", leagues) }
    })
}

/// The shared body of the bulk read-backs: check the range arguments and the output,
/// lock, and write `read(pool, player)` for each player of the range straight into the
/// caller's array.
unsafe fn read_range<T>(pool: *const EloPool, start: i32, count: i32, out: *mut T, out_name: &str, read: impl Fn(&Pool, &PlayerState) -> T) -> Result<(), FfiError> {
    let (start, n) = (arg_len(start, "start")?, arg_len(count, "count")?);
    let out = unsafe { arg_slice_mut(out, n, out_name)? };
    let pool = unsafe { lock(pool)? };
    pool.map_range(start, out, |p| read(&pool, p)).map_err(|_| range_error(start, n, pool.len()))
}

fn range_error(start: usize, count: usize, len: usize) -> FfiError {
    FfiError::new(EloResult::IndexOutOfRange, format!("players {start}..{} are not all in the pool (it has {len})", start + count))
}

/// Applies `count` matches in order, atomically: player `player_a[i]` against
/// `player_b[i]` with A's score `score_a[i]` in `[0, 1]`. The whole list is validated
/// first; on any bad match (index out of range, a player against themself, a bad score)
/// nothing changes and the message gives the match's position (`matches[17]: …`).
/// `out_delta_a`, `out_delta_b` (rating changes before any zero-sum adjustment) and
/// `out_expected_a` are optional (NULL) arrays of `count` elements.
///
/// # Safety
/// `pool` must be a live handle; the arrays valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply(
    pool: *mut EloPool,
    player_a: *const i32,
    player_b: *const i32,
    score_a: *const f32,
    count: i32,
    out_delta_a: *mut f32,
    out_delta_b: *mut f32,
    out_expected_a: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let n = arg_len(count, "count")?;
        unsafe { apply_scores(pool, player_a, player_b, score_a, n, [out_delta_a, out_delta_b, out_expected_a], None, Pool::apply_checked) }
    })
}

/// Rates `count` matches as one rating period, atomically: every match is scored against
/// the ratings the players hold before the call (the period's opening ratings), and each
/// player's change is summed over the player's matches and rounded once (FIDE's 8.3.4,
/// USCF). K is each player's at the start of the period, with FIDE's `K x n <= 700` for
/// the player's `n` matches when the `fide` policy's `period_rule` is on. Arguments and
/// checks as [`elo_pool_apply`]; `out_delta_a` and `out_delta_b` receive each match's
/// share of the players' changes before rounding (`K (S - E)`), `out_expected_a` A's
/// expected score.
///
/// # Safety
/// As [`elo_pool_apply`].
#[no_mangle]
pub unsafe extern "C" fn elo_pool_rate_period(
    pool: *mut EloPool,
    player_a: *const i32,
    player_b: *const i32,
    score_a: *const f32,
    count: i32,
    out_delta_a: *mut f32,
    out_delta_b: *mut f32,
    out_expected_a: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let n = arg_len(count, "count")?;
        unsafe { apply_scores(pool, player_a, player_b, score_a, n, [out_delta_a, out_delta_b, out_expected_a], None, Pool::rate_period_checked) }
    })
}

/// The caller memory a list of scored matches reads, for the overlap checks.
pub(crate) fn score_inputs<'a>(player_a: *const i32, player_b: *const i32, score_a: *const f32, n: usize) -> [(&'a str, Region); 3] {
    [("player_a", Region::of(player_a, n)), ("player_b", Region::of(player_b, n)), ("score_a", Region::of(score_a, n))]
}

/// The body of [`elo_pool_apply`], `elo_pool_apply_events` and [`elo_pool_rate_period`]
/// (`rate`: match by match, or as a rating period).
#[allow(clippy::too_many_arguments)] // the C function's arguments, passed through
pub(crate) unsafe fn apply_scores(
    pool: *mut EloPool,
    player_a: *const i32,
    player_b: *const i32,
    score_a: *const f32,
    n: usize,
    outputs: [*mut f32; 3],
    events: Option<EventsOut<'_>>,
    rate: RateList,
) -> Result<(), FfiError> {
    let inputs = score_inputs(player_a, player_b, score_a, n);
    unsafe {
        apply(pool, n, &inputs, outputs, events, rate, |pool| {
            let scores = arg_slice(score_a, n, "score_a")?;
            read_matches(pool, player_a, player_b, n, |i| Ok(Outcome { score_a: f64::from(scores[i]), share_a: f64::from(scores[i]) }))
        })
    }
}

/// [`elo_pool_apply`] with each result given as the points both players scored
/// (`P_A / (P_A + P_B)`, 0:0 a draw; negative, NaN or infinite points are refused). The
/// configuration's `points_k_term` chooses the score of the K term (the share, or the
/// result); the share feeds `L`, the result `V`.
///
/// # Safety
/// As [`elo_pool_apply`].
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_points(
    pool: *mut EloPool,
    player_a: *const i32,
    player_b: *const i32,
    points_a: *const f32,
    points_b: *const f32,
    count: i32,
    out_delta_a: *mut f32,
    out_delta_b: *mut f32,
    out_expected_a: *mut f32,
) -> EloResult {
    ffi_boundary!(result => {
        let n = arg_len(count, "count")?;
        let inputs = [("player_a", Region::of(player_a, n)), ("player_b", Region::of(player_b, n)), ("points_a", Region::of(points_a, n)), ("points_b", Region::of(points_b, n))];
        unsafe {
            apply(pool, n, &inputs, [out_delta_a, out_delta_b, out_expected_a], None, Pool::apply_checked, |pool| {
                let scored_a = arg_slice(points_a, n, "points_a")?;
                let scored_b = arg_slice(points_b, n, "points_b")?;
                read_matches(pool, player_a, player_b, n, |i| {
                    pool.rules().outcome_from_points(f64::from(scored_a[i]), f64::from(scored_b[i])).map_err(|error| {
                        let inner = FfiError::from(error);
                        FfiError::new(inner.code, format!("matches[{i}]: {}; nothing was applied", inner.message))
                    })
                })
            })
        }
    })
}

/// Reads the match list; `outcome(i)` gives match `i`'s outcome or the error to report.
/// Each match is checked against the pool as it is read, and the copy grows only with
/// matches already read (reserved without aborting): a list sized near `INT32_MAX` whose
/// first match is bad costs nothing, and a long one costs only what it holds.
unsafe fn read_matches(pool: &Pool, player_a: *const i32, player_b: *const i32, n: usize, outcome: impl Fn(usize) -> Result<Outcome, FfiError>) -> Result<Vec<Match>, FfiError> {
    let a = unsafe { arg_slice(player_a, n, "player_a")? };
    let b = unsafe { arg_slice(player_b, n, "player_b")? };
    let mut matches: Vec<Match> = reserve(n.min(READ_AHEAD), "count")?;
    for i in 0..n {
        // A negative index becomes usize::MAX: reported as out of range with its position.
        let index = |value: i32| usize::try_from(value).unwrap_or(usize::MAX);
        let m = Match::new(index(a[i]), index(b[i]), outcome(i)?);
        if !pool.match_is_valid(&m) {
            pool.check_match(i, &m).map_err(list_error)?;
        }
        if matches.len() == matches.capacity() {
            let more = matches.len().min(n - i);
            matches.try_reserve(more).map_err(|error| FfiError::new(EloResult::InvalidLength, format!("count {n}: the memory for the matches cannot be had ({error})")))?;
        }
        matches.push(m);
    }
    Ok(matches)
}

/// The matches [`read_matches`] reserves room for before it has read any (32 MiB of
/// address space at most, which costs memory only as matches are written into it).
const READ_AHEAD: usize = 1 << 20;

/// How a checked match list is rated: match by match ([`Pool::apply_checked`]) or as a
/// rating period ([`Pool::rate_period_checked`]).
pub(crate) type RateList = fn(&mut Pool, &[Match], Option<MatchOutputs<'_>>) -> Result<(), PoolError>;

/// The shared body of the apply functions: checks the optional outputs (each `n`
/// elements, overlapping neither each other nor an input), locks the pool, builds the
/// match list with the pool (checking each match as it is read) and applies it
/// atomically with `rate` (match by match, or as a rating period).
unsafe fn apply(
    pool: *mut EloPool,
    n: usize,
    inputs: &[(&str, Region)],
    outputs: [*mut f32; 3],
    events: Option<EventsOut<'_>>,
    rate: RateList,
    matches: impl FnOnce(&Pool) -> Result<Vec<Match>, FfiError>,
) -> Result<(), FfiError> {
    let names = ["out_delta_a", "out_delta_b", "out_expected_a"];
    let regions = [0, 1, 2].map(|i| (names[i], Region::of(outputs[i].cast_const(), n)));
    check_disjoint(&regions, inputs)?;
    let optional = |ptr: *mut f32, name: &str| -> Result<Option<&mut [f32]>, FfiError> {
        if ptr.is_null() {
            Ok(None)
        } else {
            Ok(Some(unsafe { arg_slice_mut(ptr, n, name)? }))
        }
    };
    let outputs = MatchOutputs { delta_a: optional(outputs[0], names[0])?, delta_b: optional(outputs[1], names[1])?, expected_a: optional(outputs[2], names[2])?, events: None };
    let mut changes = Vec::new();
    let wants_events = events.as_ref().is_some_and(EventsOut::wanted);
    let outputs = MatchOutputs { events: wants_events.then_some(&mut changes), ..outputs };
    let mut pool = unsafe { lock(pool)? };
    // Every match was checked as it was read.
    let matches = matches(&pool)?;
    rate(&mut pool, &matches, Some(outputs)).map_err(list_error)?;
    if let Some(events) = events {
        events.write(&changes);
    }
    Ok(())
}

/// A refused match list as the caller sees it: a negative index (read as `usize::MAX`) is
/// named as such.
pub(crate) fn list_error(error: PoolError) -> FfiError {
    match error {
        PoolError::IndexOutOfRange { position, index, len } if index == usize::MAX => {
            FfiError::new(EloResult::IndexOutOfRange, format!("matches[{position}]: a player index is negative (the pool has {len} players); nothing was applied"))
        }
        other => other.into(),
    }
}

/// The `n` best players' indices, best first, into `out_indices` (room for `n`);
/// `*out_count` receives how many were written (fewer when the pool is smaller).
///
/// # Safety
/// `pool` must be a live handle; `out_indices` valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_top(pool: *const EloPool, n: i32, out_indices: *mut i32, out_count: *mut i32) -> EloResult {
    ffi_boundary!(result => { unsafe { extreme(pool, n, out_indices, out_count, true) } })
}

/// The `n` lowest-rated players' indices, lowest first (see [`elo_pool_top`]).
///
/// # Safety
/// As [`elo_pool_top`].
#[no_mangle]
pub unsafe extern "C" fn elo_pool_bottom(pool: *const EloPool, n: i32, out_indices: *mut i32, out_count: *mut i32) -> EloResult {
    ffi_boundary!(result => { unsafe { extreme(pool, n, out_indices, out_count, false) } })
}

unsafe fn extreme(pool: *const EloPool, n: i32, out_indices: *mut i32, out_count: *mut i32, best: bool) -> Result<(), FfiError> {
    let n = arg_len(n, "n")?;
    check_disjoint(&[("out_indices", Region::of(out_indices.cast_const(), n)), ("out_count", Region::one(out_count.cast_const()))], &[])?;
    let out = unsafe { arg_slice_mut(out_indices, n, "out_indices")? };
    let count = unsafe { arg_mut(out_count, "out_count")? };
    let pool = unsafe { lock(pool)? };
    let indices = if best { pool.top(n) } else { pool.bottom(n) };
    for (target, index) in out.iter_mut().zip(&indices) {
        *target = count_out(*index);
    }
    *count = count_out(indices.len());
    Ok(())
}

/// Player `index`'s rank (1 = best; equal ratings: the lower index ranks higher) into
/// `*out_rank`.
///
/// # Safety
/// `pool` must be a live handle; `out_rank` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_rank(pool: *const EloPool, index: i32, out_rank: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        unsafe { query_player(pool, index, out_rank, "out_rank", |pool, i| count_out(pool.rank(i).unwrap_or_default())) }
    })
}

/// Player `index`'s league (0 = lowest) into `*out_league`.
///
/// # Safety
/// `pool` must be a live handle; `out_league` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_league_of(pool: *const EloPool, index: i32, out_league: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        unsafe { query_player(pool, index, out_league, "out_league", |pool, i| count_out(pool.league_of_player(i).unwrap_or_default())) }
    })
}

/// Players per league (index 0 = lowest) into `out_counts`, which has room for
/// `capacity` entries; `*out_leagues` receives the number of leagues (1 when none are
/// configured) even when `capacity` is too small (`ELO_RESULT_BUFFER_TOO_SMALL`).
///
/// # Safety
/// `pool` must be a live handle; `out_counts` valid for `capacity` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_league_counts(pool: *const EloPool, out_counts: *mut i32, capacity: i32, out_leagues: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let capacity = arg_len(capacity, "capacity")?;
        check_disjoint(&[("out_counts", Region::of(out_counts.cast_const(), capacity)), ("out_leagues", Region::one(out_leagues.cast_const()))], &[])?;
        let leagues = unsafe { arg_mut(out_leagues, "out_leagues")? };
        let counts = unsafe { lock(pool)? }.league_counts();
        *leagues = count_out(counts.len());
        if capacity < counts.len() {
            return Err(FfiError::new(EloResult::BufferTooSmall, format!("capacity is {capacity} but there are {} leagues", counts.len())));
        }
        let out = unsafe { arg_slice_mut(out_counts, counts.len(), "out_counts")? };
        for (target, count) in out.iter_mut().zip(counts) {
            *target = count_out(count);
        }
        Ok(())
    })
}

/// The sum of all ratings into `*out_total` (the configured total in a zero-sum pool).
///
/// # Safety
/// `pool` must be a live handle; `out_total` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_total(pool: *const EloPool, out_total: *mut f64) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_total, "out_total")? };
        *out = unsafe { lock(pool)? }.refresh_total();
        Ok(())
    })
}

/// Writes the pool (configuration, ratings, player state) as save JSON plus a NUL into
/// `buffer`, with the buffer rules of `elo_config_to_json`.
///
/// # Safety
/// `pool` must be a live handle; `buffer` valid for `buffer_len` bytes; `out_len` for one
/// write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_to_json(pool: *const EloPool, buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let text = crate::save::to_json(&*unsafe { lock(pool)? });
        unsafe { write_text(&text, buffer, buffer_len, out_len) }
    })
}

/// Replaces the pool's whole content (configuration included) with a save made by
/// [`elo_pool_to_json`]. The save is validated first (format, version, checksum, counts,
/// values); on failure (`ELO_RESULT_INVALID_SAVE`) the pool is left as it was.
///
/// # Safety
/// `pool` must be a live handle; `json` valid for `json_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_load_json(pool: *mut EloPool, json: *const c_char, json_len: i32) -> EloResult {
    ffi_boundary!(result => {
        let text = unsafe { arg_utf8(json, json_len, "json")? };
        let restored = crate::save::from_json(text)?;
        *unsafe { lock(pool)? } = restored;
        Ok(())
    })
}

/// Saves the pool to the file at `path` (`path_len` bytes of UTF-8) atomically: a
/// temporary file is written, flushed and renamed, so a crash never leaves a half-written
/// save.
///
/// # Safety
/// `pool` must be a live handle; `path` valid for `path_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_save_file(pool: *const EloPool, path: *const c_char, path_len: i32) -> EloResult {
    ffi_boundary!(result => {
        let path = unsafe { arg_utf8(path, path_len, "path")? };
        let pool = unsafe { lock(pool)? };
        crate::save::save_file(&pool, Path::new(path))?;
        Ok(())
    })
}

/// Replaces the pool's content with the save in the file at `path`; a missing file
/// (`ELO_RESULT_IO`) or a truncated, corrupted or inconsistent one
/// (`ELO_RESULT_INVALID_SAVE`) leaves the pool as it was.
///
/// # Safety
/// `pool` must be a live handle; `path` valid for `path_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_load_file(pool: *mut EloPool, path: *const c_char, path_len: i32) -> EloResult {
    ffi_boundary!(result => {
        let path = unsafe { arg_utf8(path, path_len, "path")? };
        let restored = crate::save::load_file(Path::new(path))?;
        *unsafe { lock(pool)? } = restored;
        Ok(())
    })
}

/// Creates a pool from a save made by [`elo_pool_to_json`] into `*out_pool`: the save's
/// configuration, players and clock, with no configuration to make first. A truncated,
/// corrupted or inconsistent save gives `ELO_RESULT_INVALID_SAVE` and leaves `*out_pool`
/// untouched.
///
/// To compare two pools, compare their JSON (`elo_pool_to_json`): equal pools give equal
/// text byte for byte. Do not `memcmp` `EloPlayerState` arrays: the struct has padding bytes
/// whose content is unspecified.
///
/// # Safety
/// `json` valid for `json_len` bytes; `out_pool` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_from_json(json: *const c_char, json_len: i32, out_pool: *mut *mut EloPool) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_pool, "out_pool")? };
        let text = unsafe { arg_utf8(json, json_len, "json")? };
        *out = boxed(crate::save::from_json(text)?);
        Ok(())
    })
}

/// Creates a pool from the save in the file at `path` (`path_len` bytes of UTF-8, written by
/// [`elo_pool_save_file`]) into `*out_pool`: the save's configuration, players and clock,
/// with no configuration to make first. A missing or unreadable file (`ELO_RESULT_IO`, the
/// message naming the path and the cause) or an invalid save (`ELO_RESULT_INVALID_SAVE`)
/// leaves `*out_pool` untouched.
///
/// # Safety
/// `path` valid for `path_len` bytes; `out_pool` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_from_file(path: *const c_char, path_len: i32, out_pool: *mut *mut EloPool) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_pool, "out_pool")? };
        let path = unsafe { arg_utf8(path, path_len, "path")? };
        *out = boxed(crate::save::load_file(Path::new(path))?);
        Ok(())
    })
}

/// A new handle owning `pool`.
fn boxed(pool: Pool) -> *mut EloPool {
    Box::into_raw(Box::new(EloPool { pool: Mutex::new(pool) }))
}
