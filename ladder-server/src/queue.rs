//! Matchmaking queues: what an admin configures (`PUT …/queues/{queue}`), what a player or a
//! game backend posts to join one (a ticket), and how a tick turns waiting tickets into
//! matches with the engine's [`Matchmaker`] (pairs, teams with parties, free-for-alls) and
//! gives each player the rating a report of each result would give ([`preview`]). The
//! stores keep tickets and matches; [`crate::matcher`] runs the ticks; this module decides.

use std::collections::{BTreeMap, HashMap};

use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
use ranking_elo::Rules;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::model::{self, check_name, check_reportable_player, Game, MatchRequest, PlayerRow, ZeroSum};

/// The most attribute keys a queue may have.
pub const MAX_ATTRIBUTES: usize = 8;

/// The longest a ticket may wait, in seconds (a day).
pub const MAX_TICKET_SECONDS: u32 = 86_400;

/// How a queue makes matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One player against one.
    Pair,
    /// Two teams of `team_size`, parties whole on one side.
    Teams,
    /// `entrants` players, each for themselves.
    FreeForAll,
}

/// A queue's settings, as `PUT …/queues/{queue}` takes them and `GET` shows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSettings {
    /// How matches are made.
    pub mode: Mode,
    /// Players per team (`teams` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_size: Option<u32>,
    /// Players per match (`free_for_all` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrants: Option<u32>,
    /// The engine's matchmaking settings (widening windows, the seeded choice).
    #[serde(default)]
    pub matchmaking: MatchmakingSettings,
    /// The largest party one ticket may hold (1 for pairs and free-for-alls).
    #[serde(default = "one")]
    pub party_max: u32,
    /// A ticket not matched within this many seconds expires.
    #[serde(default = "ten_minutes")]
    pub ticket_seconds: u32,
    /// Keys whose values every ticket gives and must be equal within a match (`region`).
    #[serde(default)]
    pub attributes: Vec<String>,
}

fn one() -> u32 {
    1
}

fn ten_minutes() -> u32 {
    600
}

impl QueueSettings {
    /// Settings from a request body, every bad field named.
    ///
    /// # Errors
    /// 400 naming the field.
    pub fn from_body(body: &[u8]) -> Result<Self, ApiError> {
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("queue: {e}")))?;
        let object = fields(&value, "queue", &["mode", "team_size", "entrants", "matchmaking", "party_max", "ticket_seconds", "attributes"])?;
        let mode = field(object, "queue", "mode")?.ok_or_else(|| ApiError::bad_request("queue: mode is required: \"pair\", \"teams\" or \"free_for_all\""))?;
        let mut matchmaking = MatchmakingSettings::default();
        if let Some(given) = object.get("matchmaking") {
            let names = ["initial_distance", "growth_per_second", "max_distance", "candidates", "seed"];
            let given = fields(given, "queue: matchmaking", &names)?;
            let what = "queue: matchmaking";
            matchmaking = MatchmakingSettings {
                initial_distance: field(given, what, "initial_distance")?.unwrap_or(matchmaking.initial_distance),
                growth_per_second: field(given, what, "growth_per_second")?.unwrap_or(matchmaking.growth_per_second),
                max_distance: field(given, what, "max_distance")?.unwrap_or(matchmaking.max_distance),
                candidates: field(given, what, "candidates")?.unwrap_or(matchmaking.candidates),
                seed: field(given, what, "seed")?.unwrap_or(matchmaking.seed),
            };
        }
        let settings = Self {
            mode,
            team_size: field(object, "queue", "team_size")?,
            entrants: field(object, "queue", "entrants")?,
            matchmaking,
            party_max: field(object, "queue", "party_max")?.unwrap_or_else(one),
            ticket_seconds: field(object, "queue", "ticket_seconds")?.unwrap_or_else(ten_minutes),
            attributes: field(object, "queue", "attributes")?.unwrap_or_default(),
        };
        settings.check()?;
        Ok(settings)
    }

    /// Checks the fields together.
    fn check(&self) -> Result<(), ApiError> {
        let field = |name: &str, message: String| Err(ApiError::bad_request(format!("queue: {name}: {message}")));
        self.matchmaking.validate().map_err(|e| ApiError::bad_request(format!("queue: matchmaking.{e}")))?;
        match self.mode {
            Mode::Pair | Mode::FreeForAll if self.team_size.is_some() => return field("team_size", "only a teams queue has a team size".to_owned()),
            Mode::Pair | Mode::Teams if self.entrants.is_some() => return field("entrants", "only a free_for_all queue has entrants".to_owned()),
            Mode::Teams => match self.team_size {
                Some(size) if (1..=64).contains(&size) => {
                    if !(1..=size).contains(&self.party_max) {
                        return field("party_max", format!("must be from 1 to team_size ({size}) (got {})", self.party_max));
                    }
                }
                Some(size) => return field("team_size", format!("must be from 1 to 64 (got {size})")),
                None => return field("team_size", "a teams queue needs team_size (1 to 64)".to_owned()),
            },
            Mode::FreeForAll => match self.entrants {
                Some(n) if (2..=256).contains(&n) => {}
                Some(n) => return field("entrants", format!("must be from 2 to 256 (got {n})")),
                None => return field("entrants", "a free_for_all queue needs entrants (2 to 256)".to_owned()),
            },
            Mode::Pair => {}
        }
        if self.mode != Mode::Teams && self.party_max != 1 {
            return field("party_max", format!("must be 1: a party plays on one side, which only a teams queue has (got {})", self.party_max));
        }
        if !(1..=MAX_TICKET_SECONDS).contains(&self.ticket_seconds) {
            return field("ticket_seconds", format!("must be from 1 to {MAX_TICKET_SECONDS} (got {})", self.ticket_seconds));
        }
        if self.attributes.len() > MAX_ATTRIBUTES {
            return field("attributes", format!("at most {MAX_ATTRIBUTES} keys (got {})", self.attributes.len()));
        }
        for (i, key) in self.attributes.iter().enumerate() {
            check_name(key, "attributes key").map_err(|e| ApiError::bad_request(format!("queue: attributes: {}", e.message)))?;
            if self.attributes[..i].contains(key) {
                return field("attributes", format!("{key:?} is listed twice"));
            }
        }
        Ok(())
    }

    /// The stored (canonical) JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("queue settings always serialize"))
    }

    /// Settings as stored.
    ///
    /// # Errors
    /// 500 when the stored text no longer parses.
    pub fn stored(json: &str) -> Result<Self, ApiError> {
        serde_json::from_str(json).map_err(|e| ApiError::internal(format!("stored queue settings: {e}")))
    }

    /// Players in one match.
    #[must_use]
    pub fn players_per_match(&self) -> usize {
        match self.mode {
            Mode::Pair => 2,
            Mode::Teams => 2 * self.team_size.unwrap_or(1) as usize,
            Mode::FreeForAll => self.entrants.unwrap_or(2) as usize,
        }
    }
}

/// The fields of a JSON object body, every one of them known (`what` names the body).
///
/// # Errors
/// 400 for something other than an object, or naming an unknown field.
fn fields<'a>(value: &'a serde_json::Value, what: &str, known: &[&str]) -> Result<&'a serde_json::Map<String, serde_json::Value>, ApiError> {
    let object = value.as_object().ok_or_else(|| ApiError::bad_request(format!("{what}: send an object with {}", known.join(", "))))?;
    if let Some(unknown) = object.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(ApiError::bad_request(format!("{what}: unknown field {unknown:?} (known: {})", known.join(", "))));
    }
    Ok(object)
}

/// One field of an object, typed; `None` when absent.
///
/// # Errors
/// 400 naming the field when it has another type.
fn field<T: serde::de::DeserializeOwned>(object: &serde_json::Map<String, serde_json::Value>, what: &str, name: &str) -> Result<Option<T>, ApiError> {
    object.get(name).map(|v| serde_json::from_value(v.clone()).map_err(|e| ApiError::bad_request(format!("{what}: {name}: {e}")))).transpose()
}

/// `POST …/tickets`: `{"players": […], "attributes": {…}, "id": "…"}`.
struct TicketBody {
    players: Vec<String>,
    attributes: BTreeMap<String, String>,
    id: Option<String>,
}

/// A checked request to join a queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewTicket {
    /// The players (a party plays on one side).
    pub players: Vec<String>,
    /// The queue's attributes, each with its value.
    pub attributes: BTreeMap<String, String>,
    /// The caller's idempotency id: a retry with the same id gets the same ticket.
    #[serde(skip)]
    pub client_id: Option<String>,
}

impl NewTicket {
    /// Parses and checks a ticket for `settings`.
    ///
    /// # Errors
    /// 400 naming the field.
    pub fn parse(body: &[u8], settings: &QueueSettings) -> Result<Self, ApiError> {
        let refuse = |e: String| ApiError::bad_request(format!("ticket: {e}"));
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| refuse(e.to_string()))?;
        let object = fields(&value, "ticket", &["players", "attributes", "id"])?;
        let body = TicketBody {
            players: field(object, "ticket", "players")?.ok_or_else(|| refuse("players is required (the ticket's players)".to_owned()))?,
            attributes: field(object, "ticket", "attributes")?.unwrap_or_default(),
            id: field(object, "ticket", "id")?,
        };
        if let Some(id) = &body.id {
            check_name(id, "id").map_err(|e| refuse(e.message))?;
        }
        let max = settings.party_max as usize;
        if body.players.is_empty() || body.players.len() > max {
            return Err(refuse(format!("players: a ticket holds 1 to {max} players in this queue (got {})", body.players.len())));
        }
        for (i, player) in body.players.iter().enumerate() {
            check_name(player, "player").and_then(|()| check_reportable_player(player)).map_err(|e| refuse(format!("players: {}", e.message)))?;
            if body.players[..i].contains(player) {
                return Err(refuse(format!("players: {player:?} is listed twice")));
            }
        }
        for key in body.attributes.keys() {
            if !settings.attributes.contains(key) {
                return Err(refuse(format!("attributes: this queue has no attribute {key:?} (it has {:?})", settings.attributes)));
            }
        }
        for key in &settings.attributes {
            let value = body.attributes.get(key).ok_or_else(|| refuse(format!("attributes: {key:?} is required in this queue")))?;
            check_name(value, &format!("attributes.{key}")).map_err(|e| refuse(e.message))?;
        }
        Ok(Self { players: body.players, attributes: body.attributes, client_id: body.id })
    }

    /// The canonical request (a retry with the same id must send the same).
    #[must_use]
    pub fn canonical(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("a ticket always serializes"))
    }

    /// The attributes' canonical text: tickets match only with equal texts.
    #[must_use]
    pub fn attributes_json(&self) -> String {
        serde_json::to_string(&self.attributes).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// The rating a ticket waits with: its players' mean current rating (a player new to the
/// ladder counts with the rating it would join with), to `f32` once.
#[must_use]
pub fn ticket_rating(ratings: &[f32]) -> f32 {
    let sum: f64 = ratings.iter().map(|&r| f64::from(r)).sum();
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    let mean = (sum / ratings.len().max(1) as f64) as f32;
    mean
}

/// A ticket's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TicketState {
    /// In the queue.
    Waiting,
    /// In a match.
    Matched,
    /// Cancelled by its player, a key, or the player's erasure.
    Cancelled,
    /// Not matched within the queue's `ticket_seconds`.
    Expired,
}

impl TicketState {
    /// The stored text.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Matched => "matched",
            Self::Cancelled => "cancelled",
            Self::Expired => "expired",
        }
    }

    /// The state from its stored text.
    ///
    /// # Errors
    /// 500 for an unknown text.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        match text {
            "waiting" => Ok(Self::Waiting),
            "matched" => Ok(Self::Matched),
            "cancelled" => Ok(Self::Cancelled),
            "expired" => Ok(Self::Expired),
            other => Err(ApiError::internal(format!("stored ticket state {other:?}"))),
        }
    }
}

/// A ticket as stored.
#[derive(Debug, Clone)]
pub struct TicketRecord {
    /// Public id (`t-…`).
    pub id: String,
    /// The queue's name.
    pub queue: String,
    /// The players.
    pub players: Vec<String>,
    /// The attributes (canonical JSON).
    pub attributes: String,
    /// The state.
    pub state: TicketState,
    /// When it joined (Unix seconds).
    pub created: f64,
    /// When its state last changed.
    pub updated: f64,
    /// The canonical request (for retries).
    pub request: String,
    /// The match (JSON as [`MatchBody`]), once matched.
    pub matched: Option<String>,
}

/// A ticket as the API shows it.
#[derive(Debug, Serialize)]
pub struct TicketView {
    /// Public id.
    pub ticket: String,
    /// The queue.
    pub queue: String,
    /// `waiting`, `matched`, `cancelled` or `expired`.
    pub state: TicketState,
    /// The players.
    pub players: Vec<String>,
    /// The attributes.
    pub attributes: Box<serde_json::value::RawValue>,
    /// When it joined.
    pub created: f64,
    /// Seconds waited so far (`waiting`) or until its state changed.
    pub waited: f64,
    /// The distance it accepts now (`waiting` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// The match (`matched` only).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matched: Option<Box<serde_json::value::RawValue>>,
}

impl TicketRecord {
    /// The API's view at `now` under `settings`.
    ///
    /// # Errors
    /// 500 when stored JSON does not parse.
    pub fn view(&self, settings: &QueueSettings, now: f64) -> Result<TicketView, ApiError> {
        let raw = |text: String| serde_json::value::RawValue::from_string(text).map_err(|e| ApiError::internal(format!("stored ticket: {e}")));
        let waiting = self.state == TicketState::Waiting;
        let waited = if waiting { now - self.created } else { self.updated - self.created }.max(0.0);
        Ok(TicketView {
            ticket: self.id.clone(),
            queue: self.queue.clone(),
            state: self.state,
            players: self.players.clone(),
            attributes: raw(self.attributes.clone())?,
            created: self.created,
            waited,
            distance: waiting.then(|| settings.matchmaking.distance(waited)),
            matched: self.matched.clone().map(raw).transpose()?,
        })
    }
}

/// A waiting ticket as a tick reads it.
#[derive(Debug, Clone)]
pub struct WaitingTicket {
    /// Row id (the engine's ticket id; increasing in arrival order).
    pub row: i64,
    /// Public id.
    pub id: String,
    /// The players.
    pub players: Vec<String>,
    /// The rating it waits with.
    pub rating: f32,
    /// When it joined.
    pub created: f64,
    /// The attributes (canonical JSON).
    pub attributes: String,
}

/// Tickets that make one match: each side's tickets (a free-for-all: one ticket per side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formed {
    /// Row ids by side.
    pub sides: Vec<Vec<i64>>,
}

/// What one tick decided: the matches, and the tickets that expire.
#[derive(Debug, Default)]
pub struct TickPlan {
    /// Matches formed, in the order the engine formed them.
    pub matches: Vec<Formed>,
    /// Waiting tickets past their time (not in a match).
    pub expired: Vec<i64>,
}

/// Forms matches among `tickets` (in arrival order) at `now`: one engine [`Matchmaker`] per
/// set of equal values of the queue's attributes, in the values' order, each fed the tickets in arrival order
/// (so the same tickets, seed and time give the same matches); then the tickets past
/// `ticket_seconds` that were not matched expire.
///
/// # Errors
/// 500 when the settings or a stored ticket no longer fit the engine.
pub fn plan(settings: &QueueSettings, tickets: &[WaitingTicket], now: f64) -> Result<TickPlan, ApiError> {
    // Grouped by the values of the queue's attributes now (a ticket's other attributes, left
    // from settings since replaced, do not part it from others).
    let mut groups: BTreeMap<Vec<Option<String>>, Vec<&WaitingTicket>> = BTreeMap::new();
    for ticket in tickets {
        let key = if settings.attributes.is_empty() {
            Vec::new()
        } else {
            let values: BTreeMap<String, String> = serde_json::from_str(&ticket.attributes).map_err(|e| ApiError::internal(format!("stored ticket attributes: {e}")))?;
            settings.attributes.iter().map(|name| values.get(name).cloned()).collect()
        };
        groups.entry(key).or_default().push(ticket);
    }
    let engine = |e: String| ApiError::internal(format!("matchmaking: {e}"));
    let mut plan = TickPlan::default();
    let as_row = |id: u64| i64::try_from(id).unwrap_or(i64::MAX);
    for group in groups.values() {
        let mut queue = Matchmaker::new(settings.matchmaking).map_err(|e| engine(e.to_string()))?;
        for ticket in group {
            let id = u64::try_from(ticket.row).map_err(|e| engine(e.to_string()))?;
            queue.join_party(id, ticket.rating, ticket.players.len(), ticket.created).map_err(|e| engine(e.to_string()))?;
        }
        match settings.mode {
            Mode::Pair => plan.matches.extend(queue.tick(now, usize::MAX).into_iter().map(|(a, b)| Formed { sides: vec![vec![as_row(a)], vec![as_row(b)]] })),
            Mode::Teams => plan.matches.extend(
                queue
                    .tick_team_matches(now, settings.team_size.unwrap_or(1) as usize, usize::MAX)
                    .into_iter()
                    .map(|m| Formed { sides: vec![m.team_a.into_iter().map(as_row).collect(), m.team_b.into_iter().map(as_row).collect()] }),
            ),
            Mode::FreeForAll => plan.matches.extend(
                queue
                    .tick_free_for_all(now, settings.entrants.unwrap_or(2) as usize, usize::MAX)
                    .into_iter()
                    .map(|ids| Formed { sides: ids.into_iter().map(|id| vec![as_row(id)]).collect() }),
            ),
        }
    }
    let matched: std::collections::HashSet<i64> = plan.matches.iter().flat_map(|m| m.sides.iter().flatten().copied()).collect();
    let limit = f64::from(settings.ticket_seconds);
    plan.expired = tickets.iter().filter(|t| now - t.created >= limit && !matched.contains(&t.row)).map(|t| t.row).collect();
    Ok(plan)
}

/// What a report of each result gives a player: the rating after a win, a draw and a loss
/// (of their side), bit for bit what `POST …/matches` then writes when nothing else
/// happened to the players in between.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// After a win.
    pub win: f32,
    /// After a draw.
    pub draw: f32,
    /// After a loss.
    pub loss: f32,
}

/// A player of a match, as the match shows them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchPlayer {
    /// The player.
    pub player: String,
    /// Their current rating when matched.
    pub rating: f32,
    /// Their rating after each result (pairs and teams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
}

/// How long a ticket of the match waited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchTicket {
    /// The ticket.
    pub ticket: String,
    /// Its side (0 = the first).
    pub side: usize,
    /// Seconds it waited.
    pub waited: f64,
}

/// A match a queue made: what the ticket's `match` and `GET …/queues/{queue}/matches` show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchBody {
    /// The match id: report the game with it (`POST …/matches`, `"id"`).
    pub id: String,
    /// The queue.
    pub queue: String,
    /// `pair`, `teams` or `free_for_all`.
    pub mode: Mode,
    /// When it was made.
    pub time: f64,
    /// Each side's players (a pair: two sides of one; teams: two; a free-for-all: one per
    /// entrant).
    pub sides: Vec<Vec<MatchPlayer>>,
    /// Each ticket's wait.
    pub tickets: Vec<MatchTicket>,
    /// Its position in the queue's list of matches (set when stored).
    #[serde(default)]
    pub seq: i64,
}

impl MatchBody {
    /// Every player, side by side.
    #[must_use]
    pub fn players(&self) -> Vec<&str> {
        self.sides.iter().flatten().map(|p| p.player.as_str()).collect()
    }

    /// The match from its stored JSON.
    ///
    /// # Errors
    /// 500 when it does not parse.
    pub fn stored(json: &str) -> Result<Self, ApiError> {
        serde_json::from_str(json).map_err(|e| ApiError::internal(format!("stored queue match: {e}")))
    }

    /// Checks that a report of this match names its players as matched: player A (team A)
    /// is side 0, in the match's order (so that its previews are the report's results, bit
    /// for bit: the engine rates side B as the complement of side A); a free-for-all's
    /// entrants in any order.
    ///
    /// # Errors
    /// 400 naming what differs.
    pub fn check_report(&self, game: &Game) -> Result<(), ApiError> {
        fn listed(names: &[String]) -> Vec<&str> {
            names.iter().map(String::as_str).collect()
        }
        let sides: Vec<Vec<&str>> = self.sides.iter().map(|side| side.iter().map(|p| p.player.as_str()).collect()).collect();
        let refuse = |what: &str| {
            Err(ApiError::bad_request(format!(
                "match {:?} was made by queue {:?} as {}; report it as made (a or team_a: the first side, in its order): this report {what}",
                self.id,
                self.queue,
                serde_json::to_string(&sides).unwrap_or_default()
            )))
        };
        match (self.mode, game) {
            (Mode::Pair, Game::Pair { a, b, .. }) => {
                if sides == [vec![a.as_str()], vec![b.as_str()]] {
                    Ok(())
                } else {
                    refuse("names other players, or names them in another order")
                }
            }
            (Mode::Teams, Game::Team { team_a, team_b, .. }) => {
                if sides == [listed(team_a), listed(team_b)] {
                    Ok(())
                } else {
                    refuse("names other teams, or names them in another order")
                }
            }
            (Mode::FreeForAll, Game::FreeForAll { entrants, .. }) => {
                let (mut given, mut made) = (listed(entrants), self.players());
                given.sort_unstable();
                made.sort_unstable();
                if given == made {
                    Ok(())
                } else {
                    refuse("names other entrants")
                }
            }
            _ => refuse(&format!("is a {} match", game.kind())),
        }
    }
}

/// Each player's rating after a win, a draw and a loss of their side, computed exactly as a
/// report would apply it ([`model::apply_match`] on the players' stored states, a player new
/// to the ladder with the state it would join with). `None` for a free-for-all.
///
/// # Errors
/// 422 when the engine refuses the match.
pub fn preview(
    rules: &Rules,
    zero_sum: Option<&ZeroSum>,
    rows: &HashMap<String, PlayerRow>,
    mode: Mode,
    sides: &[Vec<String>],
    now: f64,
) -> Result<Option<Vec<Vec<Preview>>>, ApiError> {
    if mode == Mode::FreeForAll || sides.len() != 2 {
        return Ok(None);
    }
    let mut zero_sum = zero_sum.copied();
    let mut rows = rows.clone();
    // A player new to the ladder joins as a report would make them join: in the order of
    // their names (the row id is never written).
    let mut names: Vec<&String> = sides.iter().flatten().collect();
    names.sort_unstable();
    for (fresh, name) in (1i64..).zip(names) {
        if !rows.contains_key(name) {
            let state = model::joining_state(rules, zero_sum.as_mut(), now);
            rows.insert(name.clone(), PlayerRow { id: -fresh, name: name.clone(), state });
        }
    }
    let rate = |score_a: f64| -> Result<Vec<f32>, ApiError> {
        let game = match mode {
            Mode::Pair => Game::Pair { a: sides[0][0].clone(), b: sides[1][0].clone(), score_a },
            _ => Game::Team { team_a: sides[0].clone(), team_b: sides[1].clone(), score_a },
        };
        let request = MatchRequest { id: "preview".to_owned(), game };
        let mut copy = zero_sum;
        let applied = model::apply_match(rules, copy.as_mut(), &rows, &request, now)?;
        Ok(applied.players.iter().map(|p| p.state.rating).collect())
    };
    let (won, drawn, lost) = (rate(1.0)?, rate(0.5)?, rate(0.0)?);
    let split = sides[0].len();
    let side = |range: std::ops::Range<usize>, a: bool| -> Vec<Preview> {
        range.map(|i| if a { Preview { win: won[i], draw: drawn[i], loss: lost[i] } } else { Preview { win: lost[i], draw: drawn[i], loss: won[i] } }).collect()
    };
    Ok(Some(vec![side(0..split, true), side(split..won.len(), false)]))
}

/// The pseudonym `new` for the player `old` in a ticket's stored players and request (only
/// where a player is named: an attribute value or a queue named like the player stays).
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn rename_in_ticket(players: &str, request: &str, old: &str, new: &str) -> Result<(String, String), ApiError> {
    #[derive(Deserialize)]
    struct Stored {
        players: Vec<String>,
        attributes: BTreeMap<String, String>,
    }
    let broken = |e: serde_json::Error| ApiError::internal(format!("stored ticket: {e}"));
    let swap = |names: Vec<String>| names.into_iter().map(|n| if n == old { new.to_owned() } else { n }).collect::<Vec<_>>();
    let listed: Vec<String> = serde_json::from_str(players).map_err(broken)?;
    let asked: Stored = serde_json::from_str(request).map_err(broken)?;
    let renamed = NewTicket { players: swap(asked.players), attributes: asked.attributes, client_id: None };
    Ok((serde_json::to_string(&swap(listed)).map_err(broken)?, renamed.canonical()))
}

/// The pseudonym `new` for the player `old` in a stored queue match (its sides' players
/// only).
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn rename_in_match(body: &str, old: &str, new: &str) -> Result<String, ApiError> {
    let mut stored = MatchBody::stored(body)?;
    for player in stored.sides.iter_mut().flatten() {
        if player.player == old {
            new.clone_into(&mut player.player);
        }
    }
    serde_json::to_string(&stored).map_err(|e| ApiError::internal(e.to_string()))
}

/// A random public id with `prefix` (`t-` tickets, `m-` matches): 128 bits from the
/// operating system, in hex (an id a report can carry: [`check_name`] takes it).
///
/// # Errors
/// 500 when the operating system gives no random bytes.
pub fn random_id(prefix: &str) -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::internal(format!("no random bytes: {e}")))?;
    Ok(format!("{prefix}{}", crate::chain::hex(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(json: &str) -> Result<QueueSettings, String> {
        QueueSettings::from_body(json.as_bytes()).map_err(|e| e.message)
    }

    #[test]
    fn bad_settings_name_their_field() {
        let cases = [
            (r#"{"mode": "pairs"}"#, "mode"),
            (r#"{"mode": "teams"}"#, "team_size"),
            (r#"{"mode": "teams", "team_size": 65}"#, "team_size"),
            (r#"{"mode": "teams", "team_size": 3, "party_max": 4}"#, "party_max"),
            (r#"{"mode": "pair", "party_max": 2}"#, "party_max"),
            (r#"{"mode": "pair", "entrants": 4}"#, "entrants"),
            (r#"{"mode": "free_for_all", "entrants": 1}"#, "entrants"),
            (r#"{"mode": "pair", "matchmaking": {"candidates": 0}}"#, "matchmaking.candidates"),
            (r#"{"mode": "pair", "matchmaking": {"max_distance": 10, "initial_distance": 20}}"#, "matchmaking.max_distance"),
            (r#"{"mode": "pair", "matchmaking": {"speed": 1}}"#, "speed"),
            (r#"{"mode": "pair", "matchmaking": {"candidates": "4"}}"#, "candidates"),
            (r#"{"mode": "pair", "party_max": -1}"#, "party_max"),
            (r#"{"team_size": 2}"#, "mode is required"),
            (r#"{"mode": "pair", "ticket_seconds": 0}"#, "ticket_seconds"),
            (r#"{"mode": "pair", "attributes": ["region", "region"]}"#, "attributes"),
            (r#"{"mode": "pair", "attributes": ["a b"]}"#, "attributes"),
            (r#"{"mode": "pair", "colour": 1}"#, "colour"),
            (r#"[]"#, "object"),
        ];
        for (body, field) in cases {
            let error = settings(body).unwrap_err();
            assert!(error.contains(field), "{body}: {error}");
        }
        let ok = settings(r#"{"mode": "teams", "team_size": 2, "party_max": 2, "attributes": ["region"]}"#).unwrap();
        assert_eq!(QueueSettings::stored(&ok.to_json()).unwrap(), ok);
    }

    #[test]
    fn tickets_are_checked_against_their_queue() {
        let queue = settings(r#"{"mode": "teams", "team_size": 2, "party_max": 2, "attributes": ["region"]}"#).unwrap();
        let parse = |body: &str| NewTicket::parse(body.as_bytes(), &queue).map_err(|e| e.message);
        assert!(parse(r#"{"players": ["a", "b"], "attributes": {"region": "eu"}}"#).is_ok());
        for (body, what) in [
            (r#"{"players": ["a", "b", "c"], "attributes": {"region": "eu"}}"#, "1 to 2"),
            (r#"{"players": ["a", "a"], "attributes": {"region": "eu"}}"#, "twice"),
            (r#"{"players": ["a"]}"#, "required"),
            (r#"{"players": ["a"], "attributes": {"region": "eu", "mode": "x"}}"#, "no attribute"),
            (r#"{"players": ["a"], "attributes": {"region": "e u"}}"#, "attributes.region"),
            (r#"{"players": ["erased-1"], "attributes": {"region": "eu"}}"#, "reserved"),
            (r#"{"players": [], "attributes": {"region": "eu"}}"#, "players"),
            (r#"{"players": ["a"], "attributes": {"region": "eu"}, "id": ""}"#, "id"),
        ] {
            let error = parse(body).unwrap_err();
            assert!(error.contains(what), "{body}: {error}");
        }
    }

    #[test]
    fn renames_touch_player_names_only() {
        // A player named like a key, the queue or an attribute value.
        let request = NewTicket { players: vec!["ticket".into(), "eu".into()], attributes: BTreeMap::from([("region".into(), "eu".into())]), client_id: None }.canonical();
        let (players, renamed) = rename_in_ticket(r#"["ticket","eu"]"#, &request, "eu", "erased-1").unwrap();
        assert_eq!(players, r#"["ticket","erased-1"]"#);
        assert_eq!(renamed, r#"{"players":["ticket","erased-1"],"attributes":{"region":"eu"}}"#);
        let body = MatchBody {
            id: "m-1".into(),
            queue: "player".into(),
            mode: Mode::Pair,
            time: 1.0,
            sides: vec![vec![MatchPlayer { player: "player".into(), rating: 1500.0, preview: None }], vec![MatchPlayer { player: "rating".into(), rating: 1490.0, preview: None }]],
            tickets: vec![MatchTicket { ticket: "t-1".into(), side: 0, waited: 1.0 }],
            seq: 3,
        };
        let text = serde_json::to_string(&body).unwrap();
        let renamed = MatchBody::stored(&rename_in_match(&text, "player", "erased-2").unwrap()).unwrap();
        assert_eq!((renamed.queue.as_str(), renamed.sides[0][0].player.as_str(), renamed.sides[1][0].player.as_str()), ("player", "erased-2", "rating"));
        assert_eq!(MatchBody::stored(&rename_in_match(&text, "rating", "erased-3").unwrap()).unwrap().sides[0][0].rating, 1500.0, "a key is no name");
    }

    #[test]
    fn a_plan_keeps_attributes_apart_and_expires_the_old() {
        let queue = settings(r#"{"mode": "pair", "attributes": ["region"], "ticket_seconds": 60, "matchmaking": {"initial_distance": 100}}"#).unwrap();
        let ticket = |row: i64, rating: f32, created: f64, region: &str| WaitingTicket {
            row,
            id: format!("t{row}"),
            players: vec![format!("p{row}")],
            rating,
            created,
            attributes: format!("{{\"region\":\"{region}\"}}"),
        };
        let tickets = [ticket(1, 1500.0, 0.0, "eu"), ticket(2, 1510.0, 50.0, "us"), ticket(3, 1520.0, 50.0, "eu"), ticket(4, 1530.0, 50.0, "us"), ticket(5, 2500.0, 0.0, "eu")];
        let plan = plan(&queue, &tickets, 61.0).unwrap();
        assert_eq!(plan.matches, vec![Formed { sides: vec![vec![1], vec![3]] }, Formed { sides: vec![vec![2], vec![4]] }]);
        assert_eq!(plan.expired, vec![5], "1 is matched, not expired");
        // The queue's attributes now decide: without them, 1 meets 2 (arrival order first).
        let open = settings(r#"{"mode": "pair", "ticket_seconds": 60, "matchmaking": {"initial_distance": 100, "candidates": 1}}"#).unwrap();
        assert_eq!(super::plan(&open, &tickets, 61.0).unwrap().matches[0], Formed { sides: vec![vec![1], vec![2]] });
    }
}
