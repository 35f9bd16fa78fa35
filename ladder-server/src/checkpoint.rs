//! Rebuild checkpoints: a ladder's replayed state after one of its entries
//! ([`Checkpoint`]), so that an annulment or correction replays the journal from the latest
//! checkpoint before the amended match instead of from the first entry: its cost follows the
//! entries after the match (and the checkpoint interval), not the journal's length.
//!
//! They are laid every [`every`] entries: by each rebuild as it passes (in its transaction),
//! and by every server's checkpointer ([`run`]), which replays a ladder's chained entries
//! from its latest checkpoint on a read snapshot and stores the next one unless the ladder
//! was amended or erased meanwhile (a generation counter, `ladders.amendments`, that both
//! bump). An amendment drops the checkpoints at or after its match; an erasure drops all of
//! the ladder's (they hold names). Each ladder keeps its newest [`KEPT`].

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

/// Lays checkpoints as a replay goes: one each time [`every`] entries have passed since the
/// last.
#[derive(Debug, Default)]
pub struct Laying {
    since: usize,
}

impl Laying {
    /// After a page of `entries` entries ending at `last`: the checkpoint to store there (JSON),
    /// when one is due.
    ///
    /// # Errors
    /// 500 when the state does not serialize.
    pub fn after_page(&mut self, rebuild: &Rebuild, last: i64, entries: usize) -> Result<Option<String>, ApiError> {
        self.since += entries;
        if self.since < every() {
            return Ok(None);
        }
        self.since = 0;
        serde_json::to_string(&rebuild.checkpoint(last)).map(Some).map_err(|e| ApiError::internal(e.to_string()))
    }
}

/// How often a server looks for ladders due a checkpoint.
const TICK: Duration = Duration::from_secs(2);

/// The checkpointer: runs until the server drains.
pub async fn run(state: Arc<AppState>) {
    loop {
        tokio::time::sleep(TICK).await;
        if state.draining.load(Ordering::SeqCst) {
            return;
        }
        if let Err(error) = tick(&state).await {
            tracing::warn!(error = %error, "laying rebuild checkpoints failed; trying again");
        }
    }
}

async fn tick(state: &AppState) -> Result<(), ApiError> {
    for summary in state.store.ladders(None).await? {
        if state.draining.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some(ladder) = state.store.ladder(&summary.name).await? else { continue };
        lay(state, &ladder).await?;
    }
    Ok(())
}

/// Replays `ladder` from its latest checkpoint and stores one every [`every`] entries, while
/// enough chained entries follow.
async fn lay(state: &AppState, ladder: &Ladder) -> Result<(), ApiError> {
    let base = state.store.rebuild_base(ladder, i64::try_from(every()).unwrap_or(i64::MAX)).await?;
    if usize::try_from(base.entries_after).unwrap_or(0) < every() {
        return Ok(());
    }
    let (mut rebuild, mut after) = start(ladder, base.state.as_deref())?;
    let mut laying = Laying::default();
    loop {
        let entries = state.store.replay_page(ladder, after, crate::store::REBUILD_PAGE).await?;
        let Some(last) = entries.last().map(|e| e.seq) else { return Ok(()) };
        for entry in &entries {
            rebuild.step(entry)?;
        }
        after = last;
        if let Some(checkpoint) = laying.after_page(&rebuild, last, entries.len())? {
            if !state.store.keep_checkpoint(ladder, last, &checkpoint, base.generation).await? {
                // Amended or erased meanwhile: the next look starts again.
                return Ok(());
            }
            tracing::debug!(ladder = %ladder.name, seq = last, "laid a rebuild checkpoint");
        }
        if i64::try_from(entries.len()).unwrap_or(i64::MAX) < crate::store::REBUILD_PAGE {
            return Ok(());
        }
    }
}
