//! Team matches and free-for-all placements over flat arrays (docs/teams.md): single
//! matches on player states, and lists applied to a pool. Teams and entrants are given as
//! runs of one flat array delimited by offsets, the shape C# arrays, `NativeArray` and
//! game-server buffers have.

use super::args::{arg_len, arg_ref, arg_slice, arg_slice_mut, check_disjoint, reserve, Region};
use super::config::EloConfig;
use super::error::{EloResult, FfiError};
use super::events::{EloLeagueChange, EventsOut};
use super::pool::{list_error, lock, EloPool};
use super::rate::EloPlayerState;
use crate::error::Error;
use crate::ladder::group_matches::{PlacementMatch, TeamMatch};
use crate::outcome::Outcome;
use crate::placement::check_entrant_count;
use crate::player::PlayerState;
use crate::pool::PoolError;
use crate::team::{check_team_size, Team};

/// Checks `offsets` (`per_match * matches + 1` non-decreasing values from 0) as it reads
/// them, and each run's length with `check(run, length)` (`run` counts from 0 within a
/// match): no value is copied and nothing is allocated, so offsets near `INT32_MAX` are
/// refused at the first run they make too long. Returns the last offset, the length of the
/// flat array the runs delimit.
fn check_runs(offsets: &[i32], per_match: usize, name: &str, check: impl Fn(usize, usize) -> Result<(), Error>) -> Result<usize, FfiError> {
    let mut previous = 0usize;
    for (i, &offset) in offsets.iter().enumerate() {
        let value = usize::try_from(offset).map_err(|_| FfiError::new(EloResult::InvalidLength, format!("{name}[{i}] is negative ({offset})")))?;
        if i == 0 {
            if value != 0 {
                return Err(FfiError::new(EloResult::InvalidLength, format!("{name}[0] must be 0 (got {value})")));
            }
            continue;
        }
        if value < previous {
            return Err(FfiError::new(EloResult::InvalidLength, format!("{name}[{i}] ({value}) is below {name}[{}]", i - 1)));
        }
        check((i - 1) % per_match, value - previous).map_err(|error| list_error(PoolError::BadOutcome { position: (i - 1) / per_match, error }))?;
        previous = value;
    }
    Ok(previous)
}

/// The offsets as indices (checked by [`check_runs`]).
fn runs(offsets: &[i32]) -> impl Fn(usize) -> usize + '_ {
    |i| usize::try_from(offsets[i]).unwrap_or(0)
}

/// Player indices as `usize` (a negative index becomes out of range, reported with its
/// match), reserved without aborting.
fn indices(values: &[i32], what: &str) -> Result<Vec<usize>, FfiError> {
    let mut out = reserve(values.len(), what)?;
    out.extend(values.iter().map(|&v| usize::try_from(v).unwrap_or(usize::MAX)));
    Ok(out)
}

/// Weights as `f64`, reserved without aborting.
fn weights_of(weights: &[f32]) -> Result<Vec<f64>, FfiError> {
    let mut out = reserve(weights.len(), "weights")?;
    out.extend(weights.iter().map(|&x| f64::from(x)));
    Ok(out)
}

/// Rates one match between two teams of player states, in place: `members` holds team A's
/// `count_a` states then team B's `count_b` (1 to 64 each). `weights` is NULL or one weight
/// per member (needed by `team_rating = weighted_mean` and `team_split = weights`);
/// `score_a` is team A's score in `[0, 1]`. On any error no state changes.
///
/// # Safety
/// `config` must be a live handle; `members` valid for `count_a + count_b` states; `weights`
/// NULL or valid for as many floats.
#[no_mangle]
pub unsafe extern "C" fn elo_rate_teams(config: *const EloConfig, members: *mut EloPlayerState, count_a: i32, count_b: i32, weights: *const f32, score_a: f32) -> EloResult {
    ffi_boundary!(result => {
        let rules = &unsafe { arg_ref(config, "config")? }.rules;
        let (count_a, count_b) = (arg_len(count_a, "count_a")?, arg_len(count_b, "count_b")?);
        // The sizes bound everything below: at most 128 states are read.
        check_team_size(count_a, "team_a")?;
        check_team_size(count_b, "team_b")?;
        let n = count_a + count_b;
        check_disjoint(&[("members", Region::of(members.cast_const(), n))], &[("weights", Region::of(weights, n))])?;
        let weights = if weights.is_null() { None } else { Some(weights_of(unsafe { arg_slice(weights, n, "weights")? })?) };
        let members = unsafe { arg_slice_mut(members, n, "members")? };
        let states: Vec<PlayerState> = members.iter().map(PlayerState::from).collect();
        let (a, b) = states.split_at(count_a);
        let (weights_a, weights_b) = (weights.as_deref().map(|w| &w[..count_a]), weights.as_deref().map(|w| &w[count_a..]));
        let outcome = Outcome::from_score(f64::from(score_a))?;
        let (mut out_a, mut out_b) = (a.to_vec(), b.to_vec());
        rules.rate_teams(Team { members: a, weights: weights_a }, Team { members: b, weights: weights_b }, outcome, &mut out_a, &mut out_b)?;
        for (slot, state) in members.iter_mut().zip(out_a.iter().chain(&out_b)) {
            *slot = (*state).into();
        }
        Ok(())
    })
}

/// Rates one free-for-all of `count` player states (2 to 256), in place: `places[i]` is
/// entrant `i`'s finishing place, 1 to `count` (1 = first; ties share a place). On any
/// error no state changes.
///
/// # Safety
/// `config` must be a live handle; `players` and `places` valid for `count` elements.
#[no_mangle]
pub unsafe extern "C" fn elo_rate_placements(config: *const EloConfig, players: *mut EloPlayerState, count: i32, places: *const i32) -> EloResult {
    ffi_boundary!(result => {
        let rules = &unsafe { arg_ref(config, "config")? }.rules;
        let n = arg_len(count, "count")?;
        // The count bounds everything below: at most 256 states are read.
        check_entrant_count(n)?;
        check_disjoint(&[("players", Region::of(players.cast_const(), n))], &[("places", Region::of(places, n))])?;
        let places = unsafe { arg_slice(places, n, "places")? };
        let players = unsafe { arg_slice_mut(players, n, "players")? };
        let states: Vec<PlayerState> = players.iter().map(PlayerState::from).collect();
        let places: Vec<u32> = places.iter().map(|&p| u32::try_from(p).unwrap_or(0)).collect();
        let mut out = states.clone();
        rules.rate_placements(&states, &places, &mut out)?;
        for (slot, state) in players.iter_mut().zip(&out) {
            *slot = (*state).into();
        }
        Ok(())
    })
}

/// Applies `match_count` team matches to a pool, in order, atomically. Match `m`'s team A
/// is `members[team_offsets[2m] .. team_offsets[2m + 1]]` and its team B
/// `members[team_offsets[2m + 1] .. team_offsets[2m + 2]]` (player indices; `team_offsets`
/// has `2 * match_count + 1` non-decreasing entries from 0); `score_a[m]` is team A's
/// score. `weights` is NULL or one weight per entry of `members`. A bad match (index out of
/// range, a player twice in a match, a team of 0 or more than 64, a bad weight or score)
/// changes nothing and the message gives its position.
///
/// # Safety
/// `pool` must be a live handle; `team_offsets` valid for `2 * match_count + 1` elements,
/// `score_a` for `match_count`, `members` (and `weights` unless NULL) for the last offset.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_teams(
    pool: *mut EloPool,
    members: *const i32,
    team_offsets: *const i32,
    match_count: i32,
    weights: *const f32,
    score_a: *const f32,
) -> EloResult {
    ffi_boundary!(result => { unsafe { apply_teams(pool, members, team_offsets, match_count, weights, score_a, None) } })
}

/// [`elo_pool_apply_teams`] reporting the promotions and demotions the matches caused, in
/// match order, into `out_events` (at most one per member entry: the last offset never
/// loses one) with the number that happened in `*out_event_count` (see
/// `elo_pool_apply_events` for the array rules).
///
/// # Safety
/// As [`elo_pool_apply_teams`]; `out_events` valid for `events_capacity` elements,
/// `out_event_count` for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_teams_events(
    pool: *mut EloPool,
    members: *const i32,
    team_offsets: *const i32,
    match_count: i32,
    weights: *const f32,
    score_a: *const f32,
    out_events: *mut EloLeagueChange,
    events_capacity: i32,
    out_event_count: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        unsafe { apply_teams(pool, members, team_offsets, match_count, weights, score_a, Some((out_events, events_capacity, out_event_count))) }
    })
}

/// The event array's arguments of a `_events` function.
type EventArgs = (*mut EloLeagueChange, i32, *mut i32);

/// The body of the team-match functions: the offsets and team sizes first (nothing read
/// beyond them while a size is wrong), then the overlap of every array, then the copies.
unsafe fn apply_teams(
    pool: *mut EloPool,
    members: *const i32,
    team_offsets: *const i32,
    match_count: i32,
    weights: *const f32,
    score_a: *const f32,
    events: Option<EventArgs>,
) -> Result<(), FfiError> {
    let count = arg_len(match_count, "match_count")?;
    let offset_count = count.saturating_mul(2).saturating_add(1);
    let offsets = unsafe { arg_slice(team_offsets, offset_count, "team_offsets")? };
    let total = check_runs(offsets, 2, "team_offsets", |run, size| check_team_size(size, ["team_a", "team_b"][run]))?;
    let inputs = [
        ("members", Region::of(members, total)),
        ("team_offsets", Region::of(team_offsets, offset_count)),
        ("weights", Region::of(weights, total)),
        ("score_a", Region::of(score_a, count)),
    ];
    let events = events.map(|(out, capacity, out_count)| unsafe { EventsOut::new(out, capacity, out_count, &[], &inputs) }).transpose()?;
    let members = indices(unsafe { arg_slice(members, total, "members")? }, "members")?;
    let weights = if weights.is_null() { None } else { Some(weights_of(unsafe { arg_slice(weights, total, "weights")? })?) };
    let scores = unsafe { arg_slice(score_a, count, "score_a")? };
    let at = runs(offsets);
    let mut matches = reserve(count, "match_count")?;
    matches.extend((0..count).map(|m| {
        let (a, b) = (at(2 * m)..at(2 * m + 1), at(2 * m + 1)..at(2 * m + 2));
        TeamMatch {
            team_a: &members[a.clone()],
            team_b: &members[b.clone()],
            weights_a: weights.as_deref().map(|w| &w[a]),
            weights_b: weights.as_deref().map(|w| &w[b]),
            outcome: Outcome { score_a: f64::from(scores[m]), share_a: f64::from(scores[m]) },
        }
    }));
    let mut changes = Vec::new();
    let mut pool = unsafe { lock(pool)? };
    let applied = if events.as_ref().is_some_and(EventsOut::wanted) { pool.apply_teams_with_events(&matches, &mut changes) } else { pool.apply_teams(&matches) };
    applied.map_err(list_error)?;
    if let Some(events) = events {
        events.write(&changes);
    }
    Ok(())
}

/// Applies `match_count` free-for-alls to a pool, in order, atomically. Match `m`'s
/// entrants are `entrants[offsets[m] .. offsets[m + 1]]` (player indices; `offsets` has
/// `match_count + 1` non-decreasing entries from 0) and `places` gives each entry's place
/// (1 to the match's entrant count). A bad match changes nothing and the message gives its
/// position.
///
/// # Safety
/// `pool` must be a live handle; `offsets` valid for `match_count + 1` elements, `entrants`
/// and `places` for the last offset.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_placements(pool: *mut EloPool, entrants: *const i32, offsets: *const i32, match_count: i32, places: *const i32) -> EloResult {
    ffi_boundary!(result => { unsafe { apply_placements(pool, entrants, offsets, match_count, places, None) } })
}

/// [`elo_pool_apply_placements`] reporting the promotions and demotions the matches
/// caused, in match order, into `out_events` (at most one per entry: the last offset never
/// loses one) with the number that happened in `*out_event_count` (see
/// `elo_pool_apply_events` for the array rules).
///
/// # Safety
/// As [`elo_pool_apply_placements`]; `out_events` valid for `events_capacity` elements,
/// `out_event_count` for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_pool_apply_placements_events(
    pool: *mut EloPool,
    entrants: *const i32,
    offsets: *const i32,
    match_count: i32,
    places: *const i32,
    out_events: *mut EloLeagueChange,
    events_capacity: i32,
    out_event_count: *mut i32,
) -> EloResult {
    ffi_boundary!(result => {
        unsafe { apply_placements(pool, entrants, offsets, match_count, places, Some((out_events, events_capacity, out_event_count))) }
    })
}

/// The body of the free-for-all functions: the offsets and entrant counts first, then
/// the overlap of every array, then the copies.
unsafe fn apply_placements(pool: *mut EloPool, entrants: *const i32, offsets: *const i32, match_count: i32, places: *const i32, events: Option<EventArgs>) -> Result<(), FfiError> {
    let count = arg_len(match_count, "match_count")?;
    let offsets_len = count.saturating_add(1);
    let offset_values = unsafe { arg_slice(offsets, offsets_len, "offsets")? };
    let total = check_runs(offset_values, 1, "offsets", |_, entrants| check_entrant_count(entrants))?;
    let inputs = [("entrants", Region::of(entrants, total)), ("offsets", Region::of(offsets, offsets_len)), ("places", Region::of(places, total))];
    let events = events.map(|(out, capacity, out_count)| unsafe { EventsOut::new(out, capacity, out_count, &[], &inputs) }).transpose()?;
    let entrants = indices(unsafe { arg_slice(entrants, total, "entrants")? }, "entrants")?;
    let mut place_values = reserve(total, "places")?;
    place_values.extend(unsafe { arg_slice(places, total, "places")? }.iter().map(|&p| u32::try_from(p).unwrap_or(0)));
    let at = runs(offset_values);
    let mut matches = reserve(count, "match_count")?;
    matches.extend((0..count).map(|m| PlacementMatch { entrants: &entrants[at(m)..at(m + 1)], places: &place_values[at(m)..at(m + 1)] }));
    let mut changes = Vec::new();
    let mut pool = unsafe { lock(pool)? };
    let applied = if events.as_ref().is_some_and(EventsOut::wanted) { pool.apply_placements_with_events(&matches, &mut changes) } else { pool.apply_placements(&matches) };
    applied.map_err(list_error)?;
    if let Some(events) = events {
        events.write(&changes);
    }
    Ok(())
}
