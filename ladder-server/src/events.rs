//! Ladder-wide events (season ends, decay and the ends of rating periods): what an admin
//! posts, and how the engine's [`Pool`] applies one to every stored player, so the server
//! runs exactly the engine's season and period rules. The stores only load, lock and write rows around [`run_event`].

use ranking_elo::pool::{effective_rating, Pool, StoredPlayer};
use ranking_elo::PlayerState;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::model::{check_name, PlayerRow, ZeroSum};
use crate::periods::HeldMatch;
use ranking_elo::Rules;

/// A ladder-wide change (admin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LadderEvent {
    /// `POST …/seasons/end`.
    SeasonEnd,
    /// `POST …/decay`.
    Decay,
    /// `POST …/periods/end`: the held matches of a rating period rated at once
    /// ([`crate::periods`]).
    PeriodEnd,
}

impl LadderEvent {
    /// The journal's `kind`.
    #[must_use]
    pub fn kind(self) -> &'static str {
        match self {
            Self::SeasonEnd => "season_end",
            Self::Decay => "decay",
            Self::PeriodEnd => "period_end",
        }
    }
}

/// `{"id": "…"}`: the caller's id of the event, applied once per id (as match ids are).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventBody {
    id: String,
}

/// A checked season end or decay request.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRequest {
    /// The caller's id (idempotency key, in the same namespace as the ladder's match ids).
    pub id: String,
    /// What to do.
    pub event: LadderEvent,
    /// The scheduled time, when the server's schedule runs it.
    pub scheduled: Option<f64>,
    /// Earlier scheduled times of the same schedule that passed while no server ran, folded
    /// into this one (a season end runs once after downtime, not once per missed time).
    pub missed: u64,
}

impl EventRequest {
    /// Parses `{"id": "…"}`.
    ///
    /// # Errors
    /// 400 for a missing or malformed body, 422 for a bad id.
    pub fn parse(body: &[u8], event: LadderEvent) -> Result<Self, ApiError> {
        let what = event.kind();
        if body.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request(format!("send {{\"id\": \"…\"}}: a {what} is applied once per id, so that a retried request cannot apply it twice")));
        }
        let body: EventBody = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("{what}: {e}")))?;
        check_name(&body.id, "id")?;
        Ok(Self { id: body.id, event, scheduled: None, missed: 0 })
    }

    /// The event a schedule runs for its time `at`, standing for `missed` earlier times too
    /// (its id, `scheduled/KIND/TIME`, names the time, so every server running the schedule
    /// asks for the same event, applied once; no client id can take it).
    #[must_use]
    pub fn scheduled(event: LadderEvent, at: f64, missed: u64) -> Self {
        #[allow(clippy::cast_possible_truncation)]
        let id = crate::model::server_id(&["scheduled", event.kind(), &(at as i64).to_string()]);
        Self { id, event, scheduled: Some(at), missed }
    }

    /// The id a scheduled event had before version 0.2 (`scheduled-KIND-TIME`): a server
    /// that finds an event of the same kind under it (run by an older server, or before a
    /// restart) does not run it again.
    #[must_use]
    pub fn legacy_id(&self) -> Option<String> {
        #[allow(clippy::cast_possible_truncation)]
        self.scheduled.map(|at| format!("scheduled-{}-{}", self.event.kind(), at as i64))
    }

    /// What the journal keeps as the event's inputs: the scheduled time, and for a season
    /// end the rules it brings in (a retry is the same event when the kind is the same).
    #[must_use]
    pub fn inputs_json(&self, next_rules: Option<&str>) -> String {
        let mut inputs = serde_json::Map::new();
        if let Some(at) = self.scheduled {
            inputs.insert("scheduled".to_owned(), serde_json::Value::from(at));
        }
        if self.missed > 0 {
            inputs.insert("missed".to_owned(), serde_json::Value::from(self.missed));
        }
        if let Some(rules) = next_rules.and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok()) {
            inputs.insert("next_rules".to_owned(), rules);
        }
        serde_json::Value::Object(inputs).to_string()
    }
}

/// One player's final standing of an ended season (kept in `season_records`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Standing {
    /// 1 = best: by rating at the season's end, ties to the earlier player.
    pub rank: i64,
    /// The player's row id.
    pub player_id: i64,
    /// Rating at the season's end (before the reset).
    pub rating: f32,
    /// Highest rating after a game this season.
    pub peak_rating: f32,
    /// League held at the season's end.
    pub league: u32,
    /// Highest league held this season.
    pub peak_league: u32,
    /// Games played this season.
    pub games: u32,
    /// Wins this season.
    pub wins: u32,
}

/// What a ladder-wide event did.
pub struct EventOutcome {
    /// Changed stored states by row id.
    pub writes: Vec<(i64, PlayerState)>,
    /// The zero-sum numbers after it.
    pub zero_sum: Option<ZeroSum>,
    /// The time decay has been applied through.
    pub decayed_through: Option<f64>,
    /// A season end's final standings, best first (empty for decay).
    pub standings: Vec<Standing>,
    /// The journal entry's `results` (a JSON object's text), also the response's fields.
    pub results: String,
    /// The players whose rating changed: row id, current rating before and after (their
    /// history).
    pub history: Vec<(i64, f32, f32)>,
}

/// A season end's journal results and response fields.
#[derive(Serialize)]
struct SeasonEndView<'a> {
    season: i64,
    season_end: f64,
    players: usize,
    leagues: Vec<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    rules_changed: bool,
    /// Held matches of the open rating period rated before the season ended (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    held_matches: Option<usize>,
}

/// A decay's journal results and response fields.
#[derive(Serialize)]
struct DecayView {
    decayed_through: f64,
    moved: usize,
}

/// A ladder-wide event to run: the ladder's rules now, and for a season end the rules the
/// next season brings in (applied after the reset, as `Pool::set_rules` does).
pub struct EventRules<'a> {
    /// The rules of the season that ends (or in which decay runs).
    pub rules: &'a Rules,
    /// The next season's rules, if they change.
    pub next: Option<&'a Rules>,
}

/// What a ladder-wide event finds in the ladder: its season, how far decay has run, and for
/// a period's end the matches held since the previous one (in journal order).
#[derive(Clone, Copy)]
pub struct EventContext<'a> {
    /// The zero-sum numbers now.
    pub zero_sum: Option<ZeroSum>,
    /// The time decay has been applied through.
    pub decayed_through: Option<f64>,
    /// The event's time.
    pub now: f64,
    /// The current season.
    pub season: i64,
    /// The matches held since the last period or season end, which a period end or a season
    /// end rates (empty for decay).
    pub held: &'a [HeldMatch],
}

/// Runs a season end (of season `season`), decay or a period's end through the engine's
/// [`Pool`] built from every stored player (`rows` in id order).
///
/// # Errors
/// 500 when a stored state is refused by the engine (a damaged database).
pub fn run_event(rules: &EventRules<'_>, event: LadderEvent, rows: &[PlayerRow], context: &EventContext<'_>) -> Result<EventOutcome, ApiError> {
    let EventContext { zero_sum, decayed_through, now, season, held } = *context;
    let states = rows.iter().map(|row| StoredPlayer::from_fields(row.state)).collect();
    let offset = zero_sum.map_or(0.0, |z| z.offset);
    let mut pool = Pool::from_stored(rules.rules.clone(), states, offset, now, decayed_through).map_err(|e| ApiError::internal(format!("stored ladder: {e}")))?;
    let (results, standings, decayed_through) = match event {
        LadderEvent::SeasonEnd => {
            // A season end closes the open rating period first: its held matches count in the
            // season that ends (its standings, games and wins), against the ratings they were
            // played at.
            if !held.is_empty() {
                crate::periods::rate_held(&mut pool, rows, held, now)?;
            }
            let records = pool.end_season(None);
            let mut order: Vec<usize> = (0..records.len()).collect();
            // Best first; ties to the earlier player (lower id), as the leaderboard.
            order.sort_by(|&x, &y| records[y].rating.total_cmp(&records[x].rating).then(x.cmp(&y)));
            let standings = order
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    let record = &records[r];
                    Standing {
                        rank: i as i64 + 1,
                        player_id: rows[record.player].id,
                        rating: record.rating,
                        peak_rating: record.peak_rating,
                        league: record.league,
                        peak_league: record.peak_league,
                        games: record.games,
                        wins: record.wins,
                    }
                })
                .collect();
            let leagues: Vec<&str> = rules.rules.config().leagues.as_slice().iter().map(|l| l.name.as_str()).collect();
            if let Some(next) = rules.next {
                pool.set_rules(next.clone());
            }
            (
                json_text(&SeasonEndView {
                    season,
                    season_end: now,
                    players: rows.len(),
                    leagues,
                    rules_changed: rules.next.is_some(),
                    held_matches: (!held.is_empty()).then_some(held.len()),
                }),
                standings,
                decayed_through,
            )
        }
        LadderEvent::Decay => {
            let at = decayed_through.map_or(now, |through| now.max(through));
            let moved = pool.apply_decay(at, None).map_err(|e| ApiError::internal(format!("decay: {e}")))?;
            (json_text(&DecayView { decayed_through: at, moved }), Vec::new(), pool.decayed_through())
        }
        LadderEvent::PeriodEnd => (crate::periods::rate_held(&mut pool, rows, held, now)?, Vec::new(), decayed_through),
    };
    let mut writes = Vec::new();
    let mut history = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let state = pool.stored_player(i).ok_or_else(|| ApiError::internal("pool lost a player"))?.fields();
        if state != row.state {
            writes.push((row.id, state));
        }
        let (before, after) = (effective_rating(row.state.rating, offset), pool.rating(i).unwrap_or(state.rating));
        if before.to_bits() != after.to_bits() {
            history.push((row.id, before, after));
        }
    }
    // The zero-sum numbers of the rules in force after the event (a season end may bring in
    // another total, or none): the pool's ledger.
    let zero_sum = ZeroSum::of(pool.ledger());
    Ok(EventOutcome { writes, zero_sum, decayed_through, standings, results, history })
}

/// The body of a season end's or decay's 200: `{"seq": N, "id": …, …results}` (`results`
/// is a JSON object's text), the same for the first answer and every retry.
#[must_use]
pub fn event_response(seq: i64, id: &str, results: &str) -> String {
    let fields = results.trim().trim_start_matches('{');
    let id = serde_json::Value::from(id);
    if fields.trim_start().starts_with('}') {
        format!("{{\"seq\":{seq},\"id\":{id}}}")
    } else {
        format!("{{\"seq\":{seq},\"id\":{id},{fields}")
    }
}

/// `{"seq": N, …results}` (`results` is a JSON object's text).
#[must_use]
pub fn event_response_without_id(seq: i64, results: &str) -> String {
    let fields = results.trim().trim_start_matches('{');
    if fields.trim_start().starts_with('}') {
        format!("{{\"seq\":{seq}}}")
    } else {
        format!("{{\"seq\":{seq},{fields}")
    }
}

/// A view as JSON text.
fn json_text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| unreachable!("views always serialize"))
}
