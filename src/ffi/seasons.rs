//! Seasons through the C ABI: the pool's clock, league-change events (`events.rs`),
//! season ends with records and soft reset, and inactivity decay (`docs/seasons.md`).

use std::os::raw::c_char;
use std::path::Path;

use super::args::{arg_len, arg_mut, arg_slice_mut, arg_utf8, Region};
use super::error::{EloResult, FfiError};
use super::events::{index, EloLeagueChange, EventsOut};
use super::pool::{lock, EloPool};
use crate::season::SeasonRecord;

/// One player's season, as `elo_pool_end_season` reports it before the reset.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloSeasonRecord {
    /// The player's index in the pool.
    pub player: i32,
    /// Rating at the season's end (before the reset).
    pub rating: f32,
    /// Highest rating after a game this season.
    pub peak_rating: f32,
    /// League held at the season's end.
    pub league: i32,
    /// Highest league held this season.
    pub peak_league: i32,
    /// Games played this season.
    pub games: u32,
    /// Wins this season.
    pub wins: u32,
}

impl From<&SeasonRecord> for EloSeasonRecord {
    fn from(r: &SeasonRecord) -> Self {
        Self {
            player: index(r.player),
            rating: r.rating,
            peak_rating: r.peak_rating,
            league: index(r.league as usize),
            peak_league: index(r.peak_league as usize),
            games: r.games,
            wins: r.wins,
        }
    }
}

/// Sets the pool's clock: the caller's time in seconds (any finite value, for example
/// Unix time), stamped on every following match as the players' `last_played` and on new
/// players. The engine never reads the wall clock.
///
/// # Safety
/// `pool` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_set_clock(pool: *mut EloPool, seconds: f64) -> EloResult {
    ffi_boundary!(result => {
        unsafe { lock(pool)? }.set_clock(seconds)?;
        Ok(())
    })
}

/// The pool's clock into `*out_seconds`.
///
/// # Safety
/// `pool` must be a live handle; `out_seconds` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_get_clock(pool: *const EloPool, out_seconds: *mut f64) -> EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_seconds, "out_seconds")? };
        *out = unsafe { lock(pool)? }.clock();
        Ok(())
    })
}

/// `elo_pool_apply`, reporting the promotions and demotions the matches caused, in match
/// order, into `out_events` (at most 2 per match: `2 * count` never loses one) with the
/// number that happened in `*out_event_count`. `out_events` may be NULL with
/// `events_capacity` 0 (then `out_event_count` may be NULL too).
///
/// # Safety
/// `pool` must be a live handle; `player_a`, `player_b`, `score_a` valid for `count`
/// elements, `out_events` for `events_capacity`, `out_event_count` for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_events(
    pool: *mut EloPool,
    player_a: *const i32,
    player_b: *const i32,
    score_a: *const f32,
    count: i32,
    out_events: *mut EloLeagueChange,
    events_capacity: i32,
    out_event_count: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let n = arg_len(count, "count")?;
        let inputs = super::pool::score_inputs(player_a, player_b, score_a, n);
        let events = unsafe { EventsOut::new(out_events, events_capacity, out_event_count, &[], &inputs)? };
        unsafe { super::pool::apply_scores(pool, player_a, player_b, score_a, n, [std::ptr::null_mut(); 3], Some(events), crate::pool::Pool::apply_checked) }
    })
}

/// Ends the season: writes every player's record (before the reset) into `out_records`
/// (NULL, or exactly the pool's player count in `records_len`), writes them as JSON to
/// `json_path` (NULL for none; `json_path_len` bytes of UTF-8, written atomically
/// first: if it fails nothing is reset), then soft-resets every rating toward the anchor
/// (`season_reset` of the configuration), places everybody afresh and starts new season
/// records. League changes go to `out_events` (at most one per player). A zero-sum pool
/// keeps its total.
///
/// # Safety
/// `pool` must be a live handle; `out_records` valid for `records_len` elements,
/// `json_path` for `json_path_len` bytes, `out_events` for `events_capacity`,
/// `out_event_count` for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_end_season(
    pool: *mut EloPool,
    out_records: *mut EloSeasonRecord,
    records_len: i32,
    json_path: *const c_char,
    json_path_len: i32,
    out_events: *mut EloLeagueChange,
    events_capacity: i32,
    out_event_count: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let records_len = arg_len(records_len, "records_len")?;
        let path_len = if json_path.is_null() { 0 } else { arg_len(json_path_len, "json_path_len")? };
        let records = [("out_records", Region::of(out_records.cast_const(), records_len))];
        let path_region = [("json_path", Region::of(json_path, path_len))];
        let events = unsafe { EventsOut::new(out_events, events_capacity, out_event_count, &records, &path_region)? };
        let path = if json_path.is_null() { None } else { Some(unsafe { arg_utf8(json_path, json_path_len, "json_path")? }) };
        let mut pool = unsafe { lock(pool)? };
        let records_out = if out_records.is_null() {
            None
        } else {
            if records_len != pool.len() {
                return Err(FfiError::new(EloResult::InvalidLength, format!("records_len is {records_len} but the pool has {} players", pool.len())));
            }
            Some(unsafe { arg_slice_mut(out_records, records_len, "out_records")? })
        };
        let mut changes = Vec::new();
        let sink = events.wanted().then_some(&mut changes);
        let records = match path {
            Some(path) => pool.end_season_to_file(Path::new(path), sink)?,
            None => pool.end_season(sink),
        };
        if let Some(out) = records_out {
            for (slot, record) in out.iter_mut().zip(&records) {
                *slot = EloSeasonRecord::from(record);
            }
        }
        events.write(&changes);
        Ok(())
    })
}

/// Applies inactivity decay up to time `now` (seconds, the clock's scale; not earlier
/// than a previous call's): players inactive past the grace period lose the configured
/// points per day down to the stop, never past it: the highest of the anchor, the decay
/// floor, `decay.min_rating` and the bound of `decay.min_league` (docs/seasons.md). The
/// number of players whose rating moved goes to `*out_decayed` (NULL allowed); demotions
/// to `out_events` (at most one per player). Every output must be memory of its own
/// (`ELO_RESULT_OVERLAPPING_BUFFERS`). O(N).
///
/// # Safety
/// `pool` must be a live handle; `out_events` valid for `events_capacity` elements,
/// `out_event_count` and `out_decayed` for one write each.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_decay(
    pool: *mut EloPool,
    now: f64,
    out_events: *mut EloLeagueChange,
    events_capacity: i32,
    out_event_count: *mut i32,
    out_decayed: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        let decayed = [("out_decayed", Region::one(out_decayed.cast_const()))];
        let events = unsafe { EventsOut::new(out_events, events_capacity, out_event_count, &decayed, &[])? };
        let decayed_out = if out_decayed.is_null() { None } else { Some(unsafe { arg_mut(out_decayed, "out_decayed")? }) };
        let mut changes = Vec::new();
        let moved = unsafe { lock(pool)? }.apply_decay(now, events.wanted().then_some(&mut changes))?;
        if let Some(out) = decayed_out {
            *out = index(moved);
        }
        events.write(&changes);
        Ok(())
    })
}
