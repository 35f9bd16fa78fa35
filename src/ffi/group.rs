//! Team matches and free-for-all placements over flat arrays (docs/teams.md): single
//! matches on player states, and lists applied to a pool. Teams and entrants are given as
//! runs of one flat array delimited by offsets, the shape C# arrays, `NativeArray` and
//! game-server buffers have.

use super::args::{arg_len, arg_ref, arg_slice, arg_slice_mut, Region};
use super::config::EloConfig;
use super::error::{EloResult, FfiError};
use super::pool::{list_error, lock, EloPool};
use super::rate::EloPlayerState;
use super::season::{EloLeagueChange, EventsOut};
use crate::ladder::group_matches::{PlacementMatch, TeamMatch};
use crate::outcome::Outcome;
use crate::player::PlayerState;
use crate::team::Team;

/// Reads `offsets` (`runs + 1` non-decreasing values from 0) and returns them as indices;
/// the last one is the length of the flat array they delimit.
fn read_offsets(offsets: &[i32], name: &str) -> Result<Vec<usize>, FfiError> {
    let mut out = Vec::with_capacity(offsets.len());
    for (i, &offset) in offsets.iter().enumerate() {
        let value = usize::try_from(offset).map_err(|_| FfiError::new(EloResult::InvalidLength, format!("{name}[{i}] is negative ({offset})")))?;
        if i == 0 && value != 0 {
            return Err(FfiError::new(EloResult::InvalidLength, format!("{name}[0] must be 0 (got {value})")));
        }
        if out.last().is_some_and(|&previous| value < previous) {
            return Err(FfiError::new(EloResult::InvalidLength, format!("{name}[{i}] ({value}) is below {name}[{}]", i - 1)));
        }
        out.push(value);
    }
    Ok(out)
}

/// Player indices as `usize` (a negative index becomes out of range, reported with its match).
fn indices(values: &[i32]) -> Vec<usize> {
    values.iter().map(|&v| usize::try_from(v).unwrap_or(usize::MAX)).collect()
}

fn weights_of(weights: Option<&[f32]>, range: std::ops::Range<usize>) -> Option<Vec<f64>> {
    weights.map(|w| w[range].iter().map(|&x| f64::from(x)).collect())
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
        let n = count_a.saturating_add(count_b);
        let weights = if weights.is_null() { None } else { Some(unsafe { arg_slice(weights, n, "weights")? }) };
        let members = unsafe { arg_slice_mut(members, n, "members")? };
        let states: Vec<PlayerState> = members.iter().map(PlayerState::from).collect();
        let (a, b) = states.split_at(count_a);
        let (weights_a, weights_b) = (weights_of(weights, 0..count_a), weights_of(weights, count_a..n));
        let outcome = Outcome::from_score(f64::from(score_a))?;
        let (mut out_a, mut out_b) = (a.to_vec(), b.to_vec());
        rules.rate_teams(Team { members: a, weights: weights_a.as_deref() }, Team { members: b, weights: weights_b.as_deref() }, outcome, &mut out_a, &mut out_b)?;
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
pub unsafe extern "C" fn elo_pool_apply_teams(pool: *mut EloPool, members: *const i32, team_offsets: *const i32, match_count: i32, weights: *const f32, score_a: *const f32) -> EloResult {
    ffi_boundary!(result => { unsafe { apply_teams(pool, members, team_offsets, match_count, weights, score_a, |_| Ok(None)) } })
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
        unsafe {
            apply_teams(pool, members, team_offsets, match_count, weights, score_a, |inputs| {
                Ok(Some(EventsOut::new(out_events, events_capacity, out_event_count, inputs)?))
            })
        }
    })
}

/// The body of the team-match functions; `events` checks the event array against the
/// input regions.
unsafe fn apply_teams(
    pool: *mut EloPool,
    members: *const i32,
    team_offsets: *const i32,
    match_count: i32,
    weights: *const f32,
    score_a: *const f32,
    events: impl FnOnce(&[Region]) -> Result<Option<EventsOut<'static>>, FfiError>,
) -> Result<(), FfiError> {
    let count = arg_len(match_count, "match_count")?;
    let offset_count = count.saturating_mul(2).saturating_add(1);
    let offsets = read_offsets(unsafe { arg_slice(team_offsets, offset_count, "team_offsets")? }, "team_offsets")?;
    let total = offsets.last().copied().unwrap_or(0);
    let inputs = [Region::of(members, total), Region::of(team_offsets, offset_count), Region::of(weights, if weights.is_null() { 0 } else { total }), Region::of(score_a, count)];
    let events = events(&inputs)?;
    let members = indices(unsafe { arg_slice(members, total, "members")? });
    let weights = if weights.is_null() { None } else { Some(unsafe { arg_slice(weights, total, "weights")? }) };
    let weights: Option<Vec<f64>> = weights.map(|w| w.iter().map(|&x| f64::from(x)).collect());
    let scores = unsafe { arg_slice(score_a, count, "score_a")? };
    let matches: Vec<TeamMatch<'_>> = (0..count)
        .map(|m| {
            let (a, b) = (offsets[2 * m]..offsets[2 * m + 1], offsets[2 * m + 1]..offsets[2 * m + 2]);
            TeamMatch {
                team_a: &members[a.clone()],
                team_b: &members[b.clone()],
                weights_a: weights.as_deref().map(|w| &w[a]),
                weights_b: weights.as_deref().map(|w| &w[b]),
                outcome: Outcome { score_a: f64::from(scores[m]), share_a: f64::from(scores[m]) },
            }
        })
        .collect();
    let mut changes = Vec::new();
    let mut pool = lock(pool)?;
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
    ffi_boundary!(result => { unsafe { apply_placements(pool, entrants, offsets, match_count, places, |_| Ok(None)) } })
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
        unsafe {
            apply_placements(pool, entrants, offsets, match_count, places, |inputs| {
                Ok(Some(EventsOut::new(out_events, events_capacity, out_event_count, inputs)?))
            })
        }
    })
}

/// The body of the free-for-all functions; `events` checks the event array against the
/// input regions.
unsafe fn apply_placements(
    pool: *mut EloPool,
    entrants: *const i32,
    offsets: *const i32,
    match_count: i32,
    places: *const i32,
    events: impl FnOnce(&[Region]) -> Result<Option<EventsOut<'static>>, FfiError>,
) -> Result<(), FfiError> {
    let count = arg_len(match_count, "match_count")?;
    let offsets_len = count.saturating_add(1);
    let offset_values = read_offsets(unsafe { arg_slice(offsets, offsets_len, "offsets")? }, "offsets")?;
    let total = offset_values.last().copied().unwrap_or(0);
    let inputs = [Region::of(entrants, total), Region::of(offsets, offsets_len), Region::of(places, total)];
    let events = events(&inputs)?;
    let entrants = indices(unsafe { arg_slice(entrants, total, "entrants")? });
    let places: Vec<u32> = unsafe { arg_slice(places, total, "places")? }.iter().map(|&p| u32::try_from(p).unwrap_or(0)).collect();
    let matches: Vec<PlacementMatch<'_>> = (0..count)
        .map(|m| PlacementMatch { entrants: &entrants[offset_values[m]..offset_values[m + 1]], places: &places[offset_values[m]..offset_values[m + 1]] })
        .collect();
    let mut changes = Vec::new();
    let mut pool = lock(pool)?;
    let applied = if events.as_ref().is_some_and(EventsOut::wanted) {
        pool.apply_placements_with_events(&matches, &mut changes)
    } else {
        pool.apply_placements(&matches)
    };
    applied.map_err(list_error)?;
    if let Some(events) = events {
        events.write(&changes);
    }
    Ok(())
}
