//! The matchers: every server runs one task that ticks each queue of the database once per
//! interval, but only while it holds the queue's lease (PostgreSQL: one instance at a time,
//! taken over within [`LEASE_SECONDS`] when the holder dies; SQLite: the one server). A tick
//! reads the waiting tickets, lets the engine form matches ([`crate::queue::plan`]), adds
//! each player's rating and preview, and commits the matches whose tickets all still wait.
//!
//! Long-polls wait on [`TicketWatch`]: a tick or a cancellation on this server wakes them at
//! once; a change made by another server is seen by a watcher task that reads the tickets
//! changed lately (every [`WATCH_INTERVAL`], only while someone waits), and a waiter reads
//! its ticket again at least every second whatever happens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use crate::error::ApiError;
use crate::http::AppState;
use crate::model;
use crate::queue::{self, MatchBody, MatchPlayer, MatchTicket, QueueSettings};
use crate::store::{Ladder, TickCommit};

/// How long a matcher's lease lasts without renewal.
pub const LEASE_SECONDS: f64 = 5.0;

/// How often the watcher reads the tickets changed lately, while long-polls wait.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(100);

/// How far back the watcher reads: a change committed by another server up to this long
/// after its time stamp (or stamped by a clock this far behind) is still seen.
const WATCH_MARGIN: f64 = 2.0;

/// Long-polls waiting for tickets, by ticket id.
#[derive(Default)]
pub struct TicketWatch {
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
}

/// One long-poll's registration; dropping it unregisters.
pub struct Waiter<'a> {
    watch: &'a TicketWatch,
    ticket: String,
    notify: Arc<Notify>,
}

impl Waiter<'_> {
    /// The notification to wait on.
    #[must_use]
    pub fn notify(&self) -> &Notify {
        &self.notify
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        if let Ok(mut waiters) = self.watch.waiters.lock() {
            // The map's reference and this one: no other waiter of the ticket.
            if Arc::strong_count(&self.notify) == 2 {
                waiters.remove(&self.ticket);
            }
        }
    }
}

impl TicketWatch {
    /// Registers a long-poll of `ticket`.
    #[must_use]
    pub fn subscribe(&self, ticket: &str) -> Waiter<'_> {
        let notify = self.waiters.lock().map(|mut waiters| Arc::clone(waiters.entry(ticket.to_owned()).or_default())).unwrap_or_default();
        Waiter { watch: self, ticket: ticket.to_owned(), notify }
    }

    /// Wakes the long-polls of `tickets`.
    pub fn wake(&self, tickets: &[String]) {
        if let Ok(waiters) = self.waiters.lock() {
            for ticket in tickets {
                if let Some(notify) = waiters.get(ticket) {
                    notify.notify_waiters();
                }
            }
        }
    }

    /// Long-polls waiting now.
    #[must_use]
    pub fn waiting(&self) -> usize {
        self.waiters.lock().map_or(0, |waiters| waiters.len())
    }
}

/// Runs the matchers of every queue until the server stops.
pub async fn run(state: Arc<AppState>) {
    let mut interval = tokio::time::interval(state.settings.matchmaking_interval);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if state.draining.load(std::sync::atomic::Ordering::SeqCst) {
            continue;
        }
        let queues = match state.store.all_queues().await {
            Ok(queues) => queues,
            Err(error) => {
                tracing::warn!(error = %error.message, "matchmaking: the queues could not be read");
                continue;
            }
        };
        // Each queue on its own: a ladder held by a long amendment delays its queues only.
        let ticks = queues.iter().map(|(ladder, queue)| {
            let state = &state;
            async move {
                if let Err(error) = tick(state, ladder, queue).await {
                    tracing::warn!(ladder = %ladder, queue = %queue, error = %error.message, "matchmaking: a tick failed; the next one tries again");
                }
            }
        });
        futures_util::future::join_all(ticks).await;
    }
}

/// Wakes long-polls of tickets that another server changed, until the server stops.
pub async fn watch(state: Arc<AppState>) {
    let mut since = model::now();
    loop {
        tokio::time::sleep(WATCH_INTERVAL).await;
        if state.tickets.waiting() == 0 {
            since = model::now();
            continue;
        }
        let read_at = model::now();
        match state.store.ticket_changes(since - WATCH_MARGIN).await {
            Ok(changed) => {
                state.tickets.wake(&changed);
                since = read_at;
            }
            Err(error) => tracing::warn!(error = %error.message, "matchmaking: ticket changes could not be read"),
        }
    }
}

/// One tick of one queue: nothing unless this server holds its lease.
///
/// # Errors
/// A store error; nothing of the tick is committed then.
pub async fn tick(state: &AppState, ladder_name: &str, queue_name: &str) -> Result<usize, ApiError> {
    let ladder = state.ladder(ladder_name).await?;
    let store = &state.store;
    let labels = [("ladder", ladder_name.to_owned()), ("queue", queue_name.to_owned())];
    if !store.take_lease(&ladder, queue_name, &state.instance, LEASE_SECONDS).await? {
        // Another server counts this queue's tickets (a sum over servers counts them once).
        metrics::gauge!(crate::telemetry::QUEUE_WAITING, &labels).set(0.0);
        return Ok(0);
    }
    let Some(listing) = store.queues(&ladder, Some(queue_name)).await?.into_iter().next() else {
        return Ok(0);
    };
    #[allow(clippy::cast_precision_loss)]
    metrics::gauge!(crate::telemetry::QUEUE_WAITING, &labels).set(listing.waiting as f64);
    if listing.waiting == 0 {
        return Ok(0);
    }
    let started = std::time::Instant::now();
    let tickets = store.waiting_tickets(&ladder, queue_name).await?;
    let now = model::now();
    let plan = queue::plan(&listing.settings, &tickets, now)?;
    if plan.matches.is_empty() && plan.expired.is_empty() {
        metrics::histogram!(crate::telemetry::QUEUE_TICK_SECONDS, &labels).record(started.elapsed().as_secs_f64());
        return Ok(0);
    }
    let by_row: HashMap<i64, &queue::WaitingTicket> = tickets.iter().map(|t| (t.row, t)).collect();
    let names: Vec<String> = plan.matches.iter().flat_map(|m| m.sides.iter().flatten()).flat_map(|row| by_row[row].players.clone()).collect();
    let (zero_sum, rows) = if names.is_empty() { (None, HashMap::new()) } else { store.queue_players(&ladder, &names).await? };
    let mut commit = TickCommit { expired: plan.expired.clone(), ..TickCommit::default() };
    for formed in &plan.matches {
        // A match the engine refuses to preview (rules changed by a season end since the
        // ladder was cached, say) is left out: its tickets wait for the next tick, the rest
        // of the tick goes on.
        match match_body(&ladder, &listing.settings, queue_name, formed, &by_row, zero_sum.as_ref(), &rows, now) {
            Ok(body) => commit.matches.push((formed.sides.iter().flatten().copied().collect(), body)),
            Err(error) => tracing::warn!(ladder = %ladder_name, queue = %queue_name, error = %error.message, "matchmaking: a match was left out"),
        }
    }
    let observed: Vec<Quality> = commit.matches.iter().map(|(_, body)| quality(body)).collect();
    let changed = store.commit_tick(&ladder, queue_name, &state.instance, commit).await?;
    state.tickets.wake(&changed);
    metrics::histogram!(crate::telemetry::QUEUE_TICK_SECONDS, &labels).record(started.elapsed().as_secs_f64());
    // Only the matches committed (a match whose ticket was cancelled meanwhile is not).
    let committed: std::collections::HashSet<&str> = changed.iter().map(String::as_str).collect();
    for seen in observed.into_iter().filter(|seen| committed.contains(seen.ticket.as_str())) {
        metrics::histogram!(crate::telemetry::QUEUE_MATCH_DISTANCE, &labels).record(seen.distance);
        metrics::histogram!(crate::telemetry::QUEUE_MATCH_SPREAD, &labels).record(seen.spread);
        for waited in seen.waits {
            metrics::histogram!(crate::telemetry::QUEUE_WAIT_SECONDS, &labels).record(waited);
        }
    }
    Ok(changed.len())
}

/// A formed match as stored and shown: its players with ratings and previews, its tickets'
/// waits.
#[allow(clippy::too_many_arguments)]
fn match_body(
    ladder: &Ladder,
    settings: &QueueSettings,
    queue_name: &str,
    formed: &queue::Formed,
    by_row: &HashMap<i64, &queue::WaitingTicket>,
    zero_sum: Option<&model::ZeroSum>,
    rows: &HashMap<String, model::PlayerRow>,
    now: f64,
) -> Result<MatchBody, ApiError> {
    let side_names: Vec<Vec<String>> = formed.sides.iter().map(|side| side.iter().flat_map(|row| by_row[row].players.clone()).collect()).collect();
    let previews = queue::preview(&ladder.rules, zero_sum, rows, settings.mode, &side_names, now)?;
    let offset = zero_sum.map_or(0.0, |z| z.offset);
    // Players new to the ladder join in the order of their names, as a report makes them
    // join; each shown where it joins among the others as they are now (in a zero-sum ladder
    // a join moves everyone: its stored rating with the offset before the joins).
    let mut joining = zero_sum.copied();
    let mut newcomers: Vec<&String> = side_names.iter().flatten().filter(|name| !rows.contains_key(*name)).collect();
    newcomers.sort_unstable();
    let mut joined = HashMap::with_capacity(newcomers.len());
    for name in newcomers {
        let state = model::joining_state(&ladder.rules, joining.as_mut(), now);
        joined.insert(name.as_str(), model::current(&state, offset).rating);
    }
    let mut sides = Vec::with_capacity(side_names.len());
    for (s, names) in side_names.iter().enumerate() {
        let mut players = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let rating = match rows.get(name) {
                Some(row) => model::current(&row.state, offset).rating,
                None => joined.get(name.as_str()).copied().unwrap_or_default(),
            };
            let preview = previews.as_ref().map(|p| p[s][i]);
            players.push(MatchPlayer { player: name.clone(), rating, preview });
        }
        sides.push(players);
    }
    let tickets = formed.sides.iter().enumerate().flat_map(|(side, rows)| rows.iter().map(move |row| (side, row))).map(|(side, row)| MatchTicket {
        ticket: by_row[row].id.clone(),
        side,
        waited: (now - by_row[row].created).max(0.0),
    });
    Ok(MatchBody { id: queue::random_id("m-")?, queue: queue_name.to_owned(), mode: settings.mode, time: now, sides, tickets: tickets.collect(), seq: 0 })
}

/// A match's quality for the metrics.
struct Quality {
    /// One of its tickets (to tell whether it was committed).
    ticket: String,
    /// The distance between its sides' mean ratings (a free-for-all: its highest and lowest
    /// entrant).
    distance: f64,
    /// The spread of all its ratings.
    spread: f64,
    /// Each ticket's wait.
    waits: Vec<f64>,
}

fn quality(body: &MatchBody) -> Quality {
    let means: Vec<f64> = body.sides.iter().map(|side| side.iter().map(|p| f64::from(p.rating)).sum::<f64>() / side.len().max(1) as f64).collect();
    let ratings: Vec<f64> = body.sides.iter().flatten().map(|p| f64::from(p.rating)).collect();
    let spread_of = |values: &[f64]| values.iter().copied().fold(f64::NEG_INFINITY, f64::max) - values.iter().copied().fold(f64::INFINITY, f64::min);
    Quality {
        ticket: body.tickets.first().map(|t| t.ticket.clone()).unwrap_or_default(),
        distance: spread_of(&means),
        spread: spread_of(&ratings),
        waits: body.tickets.iter().map(|t| t.waited).collect(),
    }
}
