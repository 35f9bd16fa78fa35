//! Rebuild checkpoints: a ladder's replayed state after one of its entries
//! ([`Checkpoint`]), so that an annulment or correction replays the journal from the latest
//! checkpoint before the amended match instead of from the first entry: its cost follows the
//! entries after the match (and the checkpoint interval), not the journal's length.
//!
//! They are laid every [`every`] entries by every server's checkpointer ([`run`]), off the
//! writer: it replays a ladder's chained entries from its latest checkpoint on read
//! snapshots and stores the next ones (only within the newest [`KEPT`] intervals: older
//! ones would be dropped at once) unless the ladder was amended or erased meanwhile (a
//! generation counter, `ladders.amendments`, that both bump). An amendment drops the
//! checkpoints at or after its match, and the checkpointer lays them again from the latest
//! one left; an erasure drops all of the ladder's (they hold names). Each ladder keeps its
//! newest [`KEPT`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::ApiError;
use crate::http::AppState;
use crate::ladder::Ladder;
use crate::replay::{Checkpoint, Rebuild};

/// The default interval, in journal entries of a ladder.
pub const DEFAULT_EVERY: usize = 50_000;

/// Checkpoints kept per ladder (the newest).
pub const KEPT: i64 = 8;

static EVERY: AtomicUsize = AtomicUsize::new(DEFAULT_EVERY);

/// Sets the interval (`elo-ladder serve --checkpoint-every N`).
pub fn set_every(entries: usize) {
    EVERY.store(entries.max(1), Ordering::Relaxed);
}

/// The interval, in journal entries of a ladder.
#[must_use]
pub fn every() -> usize {
    EVERY.load(Ordering::Relaxed)
}

/// The rebuild to start from and the seq it follows: a stored checkpoint's, or the ladder's
/// first season (0).
///
/// # Errors
/// 500 for a stored checkpoint that does not read.
pub fn start(ladder: &Ladder, stored: Option<&str>) -> Result<(Rebuild, i64), ApiError> {
    match stored {
        Some(text) => {
            let checkpoint: Checkpoint = serde_json::from_str(text).map_err(|e| ApiError::internal(format!("a stored checkpoint: {e}")))?;
            Ok((Rebuild::from_checkpoint(&checkpoint)?, checkpoint.seq))
        }
        None => Ok((Rebuild::new(ladder)?, 0)),
    }
}

/// How often a server looks for ladders due a checkpoint.
const TICK: Duration = Duration::from_secs(2);

/// The checkpointer: runs until the server drains.
pub async fn run(state: Arc<AppState>) {
    // Each ladder's newest checkpoint seen (a ladder whose last seq is less than an
    // interval past it cannot be due: seqs are shared by every ladder, so a ladder has at
    // most that many entries after it).
    let mut seen: HashMap<String, i64> = HashMap::new();
    loop {
        tokio::time::sleep(TICK).await;
        if state.draining.load(Ordering::SeqCst) {
            return;
        }
        if let Err(error) = tick(&state, &mut seen).await {
            tracing::warn!(error = %error, "laying rebuild checkpoints failed; trying again");
        }
    }
}

async fn tick(state: &AppState, seen: &mut HashMap<String, i64>) -> Result<(), ApiError> {
    let interval = i64::try_from(every()).unwrap_or(i64::MAX);
    for summary in state.store.ladders(None).await? {
        if state.draining.load(Ordering::SeqCst) {
            return Ok(());
        }
        if seen.get(&summary.name).is_some_and(|&seq| summary.last_seq.saturating_sub(seq) < interval) {
            continue;
        }
        let Some(ladder) = state.store.ladder(&summary.name).await? else { continue };
        let newest = lay(state, &ladder).await?;
        seen.insert(summary.name, newest);
    }
    Ok(())
}

/// Replays `ladder` from its latest checkpoint and stores one every [`every`] entries, while
/// enough chained entries follow; the newest checkpoint's seq after it.
async fn lay(state: &AppState, ladder: &Ladder) -> Result<i64, ApiError> {
    let base = state.store.rebuild_base(ladder, i64::MAX).await?;
    let mut newest = base.seq;
    let interval = i64::try_from(every()).unwrap_or(i64::MAX);
    if base.entries_after < interval {
        return Ok(newest);
    }
    let (mut rebuild, mut after) = start(ladder, base.state.as_deref())?;
    let (mut since, mut remaining) = (0, base.entries_after);
    loop {
        let entries = state.store.replay_page(ladder, after, crate::store::REBUILD_PAGE).await?;
        let Some(last) = entries.last().map(|e| e.seq) else { return Ok(newest) };
        for entry in &entries {
            rebuild.step(entry)?;
        }
        after = last;
        let count = i64::try_from(entries.len()).unwrap_or(0);
        (since, remaining) = (since + count, remaining - count);
        // One every interval, among the newest KEPT intervals only.
        if since >= interval && remaining < KEPT * interval {
            since = 0;
            let checkpoint = serde_json::to_string(&rebuild.checkpoint(last)).map_err(|e| ApiError::internal(e.to_string()))?;
            if !state.store.keep_checkpoint(ladder, last, &checkpoint, base.generation).await? {
                // Amended or erased meanwhile: the next look starts again.
                return Ok(0);
            }
            newest = last;
            tracing::debug!(ladder = %ladder.name, seq = last, "laid a rebuild checkpoint");
        }
        if i64::try_from(entries.len()).unwrap_or(i64::MAX) < crate::store::REBUILD_PAGE {
            return Ok(newest);
        }
    }
}
