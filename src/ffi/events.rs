//! League-change events through the C ABI: the event struct and the caller's event array
//! that every match list, decay and season end can fill.
//!
//! Events go to a caller's array of `events_capacity` elements; `*out_event_count`
//! receives how many happened, which may exceed the capacity: then only the first
//! `events_capacity` were written (size the array to the bound each function documents
//! to never lose one). The pool's change itself never depends on the array.

use super::args::{arg_len, arg_mut, arg_slice_mut, check_disjoint, Region};
use super::error::{EloResult, FfiError};
use crate::rating::standing::LeagueChange;

/// A promotion or demotion ("Promoted to Gold!").
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EloLeagueChange {
    /// Position of the match in the list that caused it; for a season end or a decay, the
    /// player's index.
    pub position: i32,
    /// The player's index in the pool.
    pub player: i32,
    /// League held before (0 = lowest).
    pub from_league: i32,
    /// League held after; above `from_league` for a promotion.
    pub to_league: i32,
}

/// An index or count as C sees it (saturated at `INT32_MAX`; pools hold fewer players).
pub(crate) fn index(value: usize) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

impl From<&LeagueChange> for EloLeagueChange {
    fn from(change: &LeagueChange) -> Self {
        Self { position: index(change.position), player: index(change.player), from_league: index(change.from as usize), to_league: index(change.to as usize) }
    }
}

/// A caller's event array, checked: `capacity` elements at `events` (NULL with capacity
/// 0 for none) and the count to `out_count` (which may be NULL only when no array is
/// given; a count without an array still receives how many events happened).
pub(crate) struct EventsOut<'a> {
    slots: &'a mut [EloLeagueChange],
    count: Option<&'a mut i32>,
}

impl EventsOut<'_> {
    /// Checks the arguments: the capacity, NULL only where allowed, and the array and the
    /// count apart from each other, from the function's other `outputs` and from its
    /// `inputs` (all checked together, before any of them is referenced).
    ///
    /// # Safety
    /// A non-NULL `events` must be valid for `capacity` writes and a non-NULL `out_count`
    /// for one, for the lifetime of the result.
    pub(crate) unsafe fn new(events: *mut EloLeagueChange, capacity: i32, out_count: *mut i32, outputs: &[(&str, Region)], inputs: &[(&str, Region)]) -> Result<Self, FfiError> {
        let capacity = arg_len(capacity, "events_capacity")?;
        if events.is_null() && capacity > 0 {
            return Err(FfiError::new(EloResult::NullPointer, format!("out_events must not be NULL when events_capacity is {capacity} (pass NULL with 0 for no events)")));
        }
        if !events.is_null() && out_count.is_null() {
            return Err(FfiError::new(EloResult::NullPointer, "out_event_count must not be NULL when out_events is given"));
        }
        let mut all = vec![("out_events", Region::of(events.cast_const(), capacity)), ("out_event_count", Region::one(out_count.cast_const()))];
        all.extend_from_slice(outputs);
        check_disjoint(&all, inputs)?;
        let slots = unsafe { arg_slice_mut(events, capacity, "out_events")? };
        let count = if out_count.is_null() { None } else { Some(unsafe { arg_mut(out_count, "out_event_count")? }) };
        Ok(Self { slots, count })
    }

    /// Whether the caller wants events at all.
    pub(crate) fn wanted(&self) -> bool {
        self.count.is_some()
    }

    /// Writes the events that fit and the total count.
    pub(crate) fn write(self, changes: &[LeagueChange]) {
        for (slot, change) in self.slots.iter_mut().zip(changes) {
            *slot = EloLeagueChange::from(change);
        }
        if let Some(count) = self.count {
            *count = index(changes.len());
        }
    }
}
