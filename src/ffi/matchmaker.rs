//! `EloMatchmaker`: a matchmaking queue behind an opaque handle.
//!
//! Thread safety: as for pools, every call takes the queue's lock, so concurrent use is
//! safe and each call is atomic.

use std::sync::{Mutex, MutexGuard};

use super::args::{arg_len, arg_mut, arg_ref, arg_slice_mut, check_disjoint, Region};
use super::error::{EloResult, FfiError};
use crate::matchmaking::{JoinError, Matchmaker, MatchmakingSettings};

/// A matchmaking queue. Create it with [`elo_matchmaker_new`], release it with
/// [`elo_matchmaker_free`].
pub struct EloMatchmaker {
    queue: Mutex<Matchmaker>,
}

/// Locks the queue of a handle (`ELO_RESULT_NULL_POINTER` for NULL, `ELO_RESULT_PANIC` for a
/// queue an earlier panic left unusable).
///
/// # Safety
/// A non-NULL `matchmaker` must be a live handle (from [`elo_matchmaker_new`] and not yet
/// freed) for the returned guard's lifetime `'a`, which the caller chooses: no longer than
/// the call.
unsafe fn lock<'a>(matchmaker: *const EloMatchmaker) -> Result<MutexGuard<'a, Matchmaker>, FfiError> {
    let matchmaker = unsafe { arg_ref(matchmaker, "matchmaker")? };
    matchmaker.queue.lock().map_err(|_| FfiError::new(EloResult::Panic, "the matchmaker is unusable after an internal error"))
}

/// Creates an empty queue. Two players may meet when their rating difference is within
/// both players' distance `min(initial_distance + growth_per_second * waited,
/// max_distance)`; each picks at random (from `seed`) among its `candidates` nearest
/// eligible opponents. Out-of-range settings give `ELO_RESULT_INVALID_CONFIG` naming the
/// setting.
///
/// # Safety
/// `out_matchmaker` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_new(
    initial_distance: f64,
    growth_per_second: f64,
    max_distance: f64,
    candidates: i32,
    seed: u64,
    out_matchmaker: *mut *mut EloMatchmaker,
) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_matchmaker, "out_matchmaker")? };
        let candidates = u32::try_from(candidates).map_err(|_| FfiError::new(EloResult::InvalidConfig, "candidates: must be at least 1"))?;
        let settings = MatchmakingSettings { initial_distance, growth_per_second, max_distance, candidates, seed };
        let queue = Matchmaker::new(settings)?;
        *out = Box::into_raw(Box::new(EloMatchmaker { queue: Mutex::new(queue) }));
        Ok(())
    })
}

/// Releases a queue. NULL is ignored.
///
/// # Safety
/// `matchmaker` must be NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_free(matchmaker: *mut EloMatchmaker) {
    ffi_boundary!(value () => {
        if !matchmaker.is_null() {
            drop(unsafe { Box::from_raw(matchmaker) });
        }
    });
}

/// Puts player `id` with `rating` in the queue at time `now` (seconds, any epoch, the
/// same clock as [`elo_matchmaker_tick`]). An id already waiting gives
/// `ELO_RESULT_DUPLICATE_ID`.
///
/// # Safety
/// `matchmaker` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_join(matchmaker: *mut EloMatchmaker, id: u64, rating: f32, now: f64) -> EloResult {
    ffi_boundary!(result => {
        unsafe { lock(matchmaker)? }.join(id, rating, now).map_err(|e| join_error(&e))
    })
}

/// Puts a party of `size` players (1 to 64) in the queue as one ticket `id` at time `now`,
/// with `rating` standing for the party (its players' mean rating, say). A party plays on
/// one side of a team match ([`elo_matchmaker_tick_team_matches`]); pairs and free-for-alls
/// leave it waiting. A size outside 1 to 64 gives `ELO_RESULT_OUT_OF_RANGE`, an id already
/// waiting `ELO_RESULT_DUPLICATE_ID`.
///
/// # Safety
/// `matchmaker` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_join_party(matchmaker: *mut EloMatchmaker, id: u64, rating: f32, size: i32, now: f64) -> EloResult {
    ffi_boundary!(result => {
        let size = usize::try_from(size).map_err(|_| FfiError::new(EloResult::OutOfRange, format!("size must be from 1 to 64 (got {size})")))?;
        unsafe { lock(matchmaker)? }.join_party(id, rating, size, now).map_err(|e| join_error(&e))
    })
}

/// A join's error as the C ABI reports it.
fn join_error(error: &JoinError) -> FfiError {
    let code = match error {
        JoinError::DuplicateId(_) => EloResult::DuplicateId,
        JoinError::NotFinite(_) => EloResult::NotFinite,
        JoinError::PartySize(_) => EloResult::OutOfRange,
    };
    FfiError::new(code, error.to_string())
}

/// Removes player `id` from the queue; `*out_was_waiting` is 1 if it was waiting, else 0.
///
/// # Safety
/// `matchmaker` must be a live handle; `out_was_waiting` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_leave(matchmaker: *mut EloMatchmaker, id: u64, out_was_waiting: *mut u8) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_was_waiting, "out_was_waiting")? };
        *out = u8::from(unsafe { lock(matchmaker)? }.leave(id));
        Ok(())
    })
}

/// The number of waiting players into `*out_len`.
///
/// # Safety
/// `matchmaker` must be a live handle; `out_len` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_len(matchmaker: *const EloMatchmaker, out_len: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_len, "out_len")? };
        *out = i32::try_from(unsafe { lock(matchmaker)? }.len()).unwrap_or(i32::MAX);
        Ok(())
    })
}

/// Forms up to `capacity` pairs at time `now` and removes them from the queue: the ids
/// go to `out_player_a[i]` and `out_player_b[i]` (the longer-waiting player first) and
/// the number of pairs to `*out_pairs`. Longest-waiting players are served first; no
/// player is in two pairs; the same seed and calls give the same pairs. The two arrays
/// must not overlap (`ELO_RESULT_OVERLAPPING_BUFFERS`).
///
/// # Safety
/// `matchmaker` must be a live handle; the two arrays valid for `capacity` writes.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_tick(
    matchmaker: *mut EloMatchmaker,
    now: f64,
    out_player_a: *mut u64,
    out_player_b: *mut u64,
    capacity: i32,
    out_pairs: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let capacity = arg_len(capacity, "capacity")?;
        let outputs = [
            ("out_player_a", Region::of(out_player_a.cast_const(), capacity)),
            ("out_player_b", Region::of(out_player_b.cast_const(), capacity)),
            ("out_pairs", Region::one(out_pairs.cast_const())),
        ];
        check_disjoint(&outputs, &[])?;
        let out_a = unsafe { arg_slice_mut(out_player_a, capacity, "out_player_a")? };
        let out_b = unsafe { arg_slice_mut(out_player_b, capacity, "out_player_b")? };
        let pairs_out = unsafe { arg_mut(out_pairs, "out_pairs")? };
        if !now.is_finite() {
            return Err(FfiError::new(EloResult::NotFinite, "now must be a finite number (not NaN or infinite)"));
        }
        let pairs = unsafe { lock(matchmaker)? }.tick(now, capacity);
        for (i, (a, b)) in pairs.iter().enumerate() {
            out_a[i] = *a;
            out_b[i] = *b;
        }
        *pairs_out = i32::try_from(pairs.len()).unwrap_or(i32::MAX);
        Ok(())
    })
}

/// Forms matches of two balanced teams of `team_size` players (1 to 64) at time `now` and
/// removes their players from the queue: match `m`'s ids go to
/// `out_players[m * 2 * team_size ..]`, team A's `team_size` then team B's (team A holds
/// the longest-waiting player), at most `capacity` matches; `*out_matches` receives how
/// many. The players of a match are within one another's widening windows as for pairs,
/// and the split minimises the difference of the teams' mean ratings.
///
/// # Safety
/// `matchmaker` must be a live handle; `out_players` valid for `capacity * 2 * team_size`
/// writes; `out_matches` for one.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_tick_teams(
    matchmaker: *mut EloMatchmaker,
    now: f64,
    team_size: i32,
    out_players: *mut u64,
    capacity: i32,
    out_matches: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let capacity = arg_len(capacity, "capacity")?;
        let team_size = arg_len(team_size, "team_size")?;
        if !(1..=crate::team::MAX_TEAM_SIZE).contains(&team_size) {
            return Err(FfiError::new(EloResult::OutOfRange, format!("team_size must be from 1 to 64 (got {team_size})")));
        }
        // SAFETY: the caller's guarantees, passed on.
        unsafe { write_equal_matches(matchmaker, now, 2 * team_size, out_players, capacity, out_matches, |queue| queue.tick_teams(now, team_size, capacity)) }
    })
}

/// Forms matches of two teams of `team_size` players (1 to 64) at time `now`, parties whole
/// on one side, and removes their tickets from the queue: match `m`'s ticket ids go to
/// `out_tickets[m * 2 * team_size ..]`, team A's `out_team_a[m]` tickets then team B's
/// `out_team_b[m]` (the rest of the match's slots are left as they were), at most
/// `capacity` matches; `*out_matches` receives how many. The arrays must not overlap.
///
/// # Safety
/// `matchmaker` must be a live handle; `out_tickets` valid for `capacity * 2 * team_size`
/// writes, `out_team_a` and `out_team_b` for `capacity`, `out_matches` for one.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_tick_team_matches(
    matchmaker: *mut EloMatchmaker,
    now: f64,
    team_size: i32,
    out_tickets: *mut u64,
    out_team_a: *mut i32,
    out_team_b: *mut i32,
    capacity: i32,
    out_matches: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let capacity = arg_len(capacity, "capacity")?;
        let team_size = arg_len(team_size, "team_size")?;
        if !(1..=crate::team::MAX_TEAM_SIZE).contains(&team_size) {
            return Err(FfiError::new(EloResult::OutOfRange, format!("team_size must be from 1 to 64 (got {team_size})")));
        }
        let per_match = 2 * team_size;
        let slots = capacity.saturating_mul(per_match);
        let outputs = [
            ("out_tickets", Region::of(out_tickets.cast_const(), slots)),
            ("out_team_a", Region::of(out_team_a.cast_const(), capacity)),
            ("out_team_b", Region::of(out_team_b.cast_const(), capacity)),
            ("out_matches", Region::one(out_matches.cast_const())),
        ];
        check_disjoint(&outputs, &[])?;
        let out = unsafe { arg_slice_mut(out_tickets, slots, "out_tickets")? };
        let counts_a = unsafe { arg_slice_mut(out_team_a, capacity, "out_team_a")? };
        let counts_b = unsafe { arg_slice_mut(out_team_b, capacity, "out_team_b")? };
        let count_out = unsafe { arg_mut(out_matches, "out_matches")? };
        if !now.is_finite() {
            return Err(FfiError::new(EloResult::NotFinite, "now must be a finite number (not NaN or infinite)"));
        }
        let matches = unsafe { lock(matchmaker)? }.tick_team_matches(now, team_size, capacity);
        for (m, formed) in matches.iter().enumerate() {
            let start = m * per_match;
            out[start..start + formed.team_a.len()].copy_from_slice(&formed.team_a);
            out[start + formed.team_a.len()..start + formed.team_a.len() + formed.team_b.len()].copy_from_slice(&formed.team_b);
            counts_a[m] = i32::try_from(formed.team_a.len()).unwrap_or(i32::MAX);
            counts_b[m] = i32::try_from(formed.team_b.len()).unwrap_or(i32::MAX);
        }
        *count_out = i32::try_from(matches.len()).unwrap_or(i32::MAX);
        Ok(())
    })
}

/// Forms free-for-all matches of `entrants` players (2 to 256) at time `now` and removes
/// their players from the queue: match `m`'s ids go to `out_players[m * entrants ..]`, the
/// longest-waiting player first, at most `capacity` matches; `*out_matches` receives how
/// many. Each entrant and the longest-waiting one are within each other's widening windows
/// (as for teams); parties wait.
///
/// # Safety
/// `matchmaker` must be a live handle; `out_players` valid for `capacity * entrants`
/// writes; `out_matches` for one.
#[no_mangle]
pub unsafe extern "C" fn elo_matchmaker_tick_free_for_all(
    matchmaker: *mut EloMatchmaker,
    now: f64,
    entrants: i32,
    out_players: *mut u64,
    capacity: i32,
    out_matches: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let capacity = arg_len(capacity, "capacity")?;
        let entrants = arg_len(entrants, "entrants")?;
        if !crate::matchmaking::free_for_all::ENTRANTS.contains(&entrants) {
            return Err(FfiError::new(EloResult::OutOfRange, format!("entrants must be from 2 to 256 (got {entrants})")));
        }
        // SAFETY: the caller's guarantees, passed on.
        unsafe { write_equal_matches(matchmaker, now, entrants, out_players, capacity, out_matches, |queue| queue.tick_free_for_all(now, entrants, capacity)) }
    })
}

/// The shared part of the ticks whose matches all have `per_match` players: checks the
/// outputs and `now`, runs `tick` on the locked queue, writes match `m`'s ids to
/// `out_players[m * per_match ..]` and their count to `*out_matches`.
///
/// # Safety
/// As for the calling function: `matchmaker` a live handle; `out_players` valid for
/// `capacity * per_match` writes; `out_matches` for one.
unsafe fn write_equal_matches(
    matchmaker: *mut EloMatchmaker,
    now: f64,
    per_match: usize,
    out_players: *mut u64,
    capacity: usize,
    out_matches: *mut i32,
    tick: impl FnOnce(&mut Matchmaker) -> Vec<Vec<u64>>,
) -> Result<(), FfiError> {
    let slots = capacity.saturating_mul(per_match);
    check_disjoint(&[("out_players", Region::of(out_players.cast_const(), slots)), ("out_matches", Region::one(out_matches.cast_const()))], &[])?;
    let out = unsafe { arg_slice_mut(out_players, slots, "out_players")? };
    let count_out = unsafe { arg_mut(out_matches, "out_matches")? };
    if !now.is_finite() {
        return Err(FfiError::new(EloResult::NotFinite, "now must be a finite number (not NaN or infinite)"));
    }
    let matches = tick(&mut *unsafe { lock(matchmaker)? });
    for (m, ids) in matches.iter().enumerate() {
        out[m * per_match..(m + 1) * per_match].copy_from_slice(ids);
    }
    *count_out = i32::try_from(matches.len()).unwrap_or(i32::MAX);
    Ok(())
}
