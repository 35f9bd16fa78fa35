//! What the API takes and gives, and how one match is applied to stored players with the
//! engine: the part both databases share. The stores ([`crate::store`]) only load, lock and
//! write rows around [`apply_match`].

use std::collections::HashMap;

use ranking_elo::ladder::zero_sum::{RatingSum, StoredRating, ZeroSumLedger};
use ranking_elo::placement::ENTRANTS;
use ranking_elo::pool::effective_rating;
use ranking_elo::team::{Team, MAX_TEAM_SIZE};
use ranking_elo::{Outcome, PlayerState, Rules};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// The longest ladder name, player name or match id, in bytes.
pub const MAX_NAME: usize = 64;

/// Checks a ladder name, player name or match id: 1 to [`MAX_NAME`] characters from
/// `A-Z a-z 0-9 - _ . :` (ids chosen by a game server, not display names), and not `.` or
/// `..` (a URL path cannot name them: clients normalize them away).
///
/// # Errors
/// 422 naming `what`.
pub fn check_name(value: &str, what: &str) -> Result<(), ApiError> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
    if value == "." || value == ".." {
        return Err(ApiError::invalid("invalid_name", format!("{what} {value:?} is not a usable name (a URL cannot reach it)")));
    }
    if value.is_empty() || value.len() > MAX_NAME || !value.chars().all(ok_char) {
        let shown: String = value.chars().take(MAX_NAME + 1).collect();
        return Err(ApiError::invalid("invalid_name", format!("{what} {shown:?} must be 1 to {MAX_NAME} characters from A-Z, a-z, 0-9, '-', '_', '.', ':'")));
    }
    Ok(())
}

/// Joins the parts of an id the server writes itself (an annulment's, a correction's, a
/// scheduled event's) with `/`, which [`check_name`] refuses in every id a client sends: no
/// report, event or amendment of a client can take, or collide with, a server-written id.
#[must_use]
pub fn server_id(parts: &[&str]) -> String {
    parts.join("/")
}

/// The prefix of erasure pseudonyms ([`crate::erase::pseudonym`]); reserved, so that no
/// report creates a player named like one or plays as an erased player.
pub const PSEUDONYM_PREFIX: &str = "erased-";

/// Refuses a player name that a report may not use: one in the erasure pseudonyms' form
/// (compared without case, so that no name reads like one either).
///
/// # Errors
/// 422 naming the player.
pub fn check_reportable_player(name: &str) -> Result<(), ApiError> {
    let prefix = PSEUDONYM_PREFIX.len();
    if name.len() >= prefix && name.as_bytes()[..prefix].eq_ignore_ascii_case(PSEUDONYM_PREFIX.as_bytes()) {
        return Err(ApiError::invalid("reserved_name", format!("player {name:?}: names beginning with {PSEUDONYM_PREFIX:?} are reserved for erased players")));
    }
    Ok(())
}

/// A match report as posted (`POST /v1/ladders/{ladder}/matches`): one of the three shapes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchBody {
    id: String,
    a: Option<String>,
    b: Option<String>,
    score_a: Option<f64>,
    team_a: Option<Vec<String>>,
    team_b: Option<Vec<String>>,
    entrants: Option<Vec<String>>,
    places: Option<Vec<u32>>,
    /// Tags the report sets, by player (see [`MatchRequest::parse_report`]).
    tags: Option<serde_json::Value>,
}

/// The score the engine rates with: the reported number rounded once to the nearest `f32`,
/// as `elo_rate_players`, `elo_pool_apply` and C#'s `RatePlayers` take it (their `score_a`
/// is a `float`). The journal keeps this value, so a replay through any of them with
/// `(float)score_a` gives the server's bits.
#[must_use]
pub fn engine_score(reported: f64) -> f64 {
    #[allow(clippy::cast_possible_truncation)]
    let single = reported as f32;
    f64::from(single)
}

/// A checked match report: its id and what was played, in the canonical form that is
/// stored in the journal and compared on a retry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchRequest {
    /// The caller's id of the match (idempotency key).
    #[serde(skip)]
    pub id: String,
    /// What was played.
    #[serde(flatten)]
    pub game: Game,
}

/// The tags a report sets: each player named with its changes.
pub type ReportTags = Vec<(String, crate::tags::TagChanges)>;

/// The three kinds of match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Game {
    /// Two players; `score_a` in `[0, 1]`.
    Pair {
        /// Player A.
        a: String,
        /// Player B.
        b: String,
        /// A's score: 1 win, 0.5 draw, 0 loss, or any value between; always the value of
        /// an `f32` (see [`engine_score`]).
        score_a: f64,
    },
    /// Two teams of 1 to 64.
    Team {
        /// Team A's members.
        team_a: Vec<String>,
        /// Team B's members.
        team_b: Vec<String>,
        /// Team A's score.
        score_a: f64,
    },
    /// A free-for-all of 2 to 256 entrants with places (1 = first, ties share).
    FreeForAll {
        /// The entrants.
        entrants: Vec<String>,
        /// One place per entrant.
        places: Vec<u32>,
    },
}

impl Game {
    /// Every player of the match, in the order the match lists them.
    #[must_use]
    pub fn players(&self) -> Vec<&str> {
        match self {
            Self::Pair { a, b, .. } => vec![a.as_str(), b.as_str()],
            Self::Team { team_a, team_b, .. } => team_a.iter().chain(team_b).map(String::as_str).collect(),
            Self::FreeForAll { entrants, .. } => entrants.iter().map(String::as_str).collect(),
        }
    }

    /// The journal's `kind`: `pair`, `team` or `free_for_all`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Pair { .. } => "pair",
            Self::Team { .. } => "team",
            Self::FreeForAll { .. } => "free_for_all",
        }
    }
}

impl MatchRequest {
    /// Parses and checks a posted body: malformed JSON is 400, a report the engine would
    /// refuse (a score outside `[0, 1]`, a player twice, 65 in a team, bad places, a bad
    /// name) is 422. Nothing is stored before this passes.
    ///
    /// # Errors
    /// As described.
    pub fn parse(body: &[u8], rules: &Rules) -> Result<Self, ApiError> {
        Self::parse_report(body, rules).map(|(request, _)| request)
    }

    /// A checked report with the tags it sets: `"tags": {"alice": {"region": "eu"}}` names
    /// players of the match, each with its changes (see [`crate::tags::changes_from_json`]).
    ///
    /// # Errors
    /// As [`Self::parse`]; and 422 `invalid_tag` naming the field for tags out of form or of
    /// a player not in the match.
    pub fn parse_report(body: &[u8], rules: &Rules) -> Result<(Self, ReportTags), ApiError> {
        let mut body: MatchBody = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("match: {e}")))?;
        let tags = body.tags.take();
        check_name(&body.id, "id")?;
        let score = |score: Option<f64>| -> Result<f64, ApiError> {
            let score = score.ok_or_else(|| ApiError::invalid("invalid_match", "score_a is required (1 win, 0.5 draw, 0 loss)"))?;
            Outcome::from_score(score).map_err(|e| ApiError::invalid("invalid_match", e.to_string()))?;
            let score = engine_score(score);
            Outcome::from_score(score).map_err(|e| ApiError::invalid("invalid_match", e.to_string()))?;
            Ok(score + 0.0) // -0 is 0: one canonical form for retries
        };
        let mixed = |shape: &str, fields: &str| Err(ApiError::invalid("invalid_match", format!("a {shape} match takes {fields}; other fields are not allowed with it")));
        let game = match body {
            MatchBody { a: Some(a), b: Some(b), score_a, team_a: None, team_b: None, entrants: None, places: None, .. } => Game::Pair { a, b, score_a: score(score_a)? },
            MatchBody { team_a: Some(team_a), team_b: Some(team_b), score_a, a: None, b: None, entrants: None, places: None, .. } => {
                Game::Team { team_a, team_b, score_a: score(score_a)? }
            }
            MatchBody { entrants: Some(entrants), places: Some(places), a: None, b: None, team_a: None, team_b: None, score_a: None, .. } => Game::FreeForAll { entrants, places },
            MatchBody { a: Some(_), .. } | MatchBody { b: Some(_), .. } => return mixed("pair", "a, b and score_a"),
            MatchBody { team_a: Some(_), .. } | MatchBody { team_b: Some(_), .. } => return mixed("team", "team_a, team_b and score_a"),
            MatchBody { entrants: Some(_), .. } | MatchBody { places: Some(_), .. } => return mixed("free-for-all", "entrants and places"),
            _ => return Err(ApiError::invalid("invalid_match", "a match is a pair (a, b, score_a), teams (team_a, team_b, score_a) or a free-for-all (entrants, places)")),
        };
        let request = Self { id: body.id, game };
        request.check(rules)?;
        for name in request.players() {
            check_reportable_player(name)?;
        }
        let tags = match tags {
            None => Vec::new(),
            Some(serde_json::Value::Object(by_player)) => {
                let players = request.players();
                let mut tags = Vec::with_capacity(by_player.len());
                for (player, changes) in &by_player {
                    if !players.contains(&player.as_str()) {
                        return Err(ApiError::invalid("invalid_tag", format!("tags.{player}: {player:?} is not a player of this match")));
                    }
                    tags.push((player.clone(), crate::tags::changes_from_json(changes, &format!("tags.{player}"))?));
                }
                tags
            }
            Some(_) => return Err(ApiError::invalid("invalid_tag", "tags must be an object of the match's players to their tags, such as {\"alice\": {\"region\": \"eu\"}}")),
        };
        Ok((request, tags))
    }

    /// A checked request from a game (a correction's result): as [`Self::parse`] checks a
    /// report, with the score made the engine's `f32`.
    ///
    /// # Errors
    /// 422 when the engine would refuse it.
    pub fn from_game(id: &str, game: Game, rules: &Rules) -> Result<Self, ApiError> {
        let score = |score: f64| -> Result<f64, ApiError> {
            Outcome::from_score(score).map_err(|e| ApiError::invalid("invalid_match", e.to_string()))?;
            Ok(engine_score(score) + 0.0)
        };
        let game = match game {
            Game::Pair { a, b, score_a } => Game::Pair { a, b, score_a: score(score_a)? },
            Game::Team { team_a, team_b, score_a } => Game::Team { team_a, team_b, score_a: score(score_a)? },
            other => other,
        };
        let request = Self { id: id.to_owned(), game };
        request.check(rules)?;
        Ok(request)
    }

    /// Every player of the match, in the order the match lists them.
    #[must_use]
    pub fn players(&self) -> Vec<&str> {
        self.game.players()
    }

    /// Names, no player twice, and the shape the engine accepts (checked with new players,
    /// so that nothing is stored for a report that the engine would refuse).
    fn check(&self, rules: &Rules) -> Result<(), ApiError> {
        let players = self.players();
        for (i, name) in players.iter().enumerate() {
            check_name(name, "player")?;
            if players[..i].contains(name) {
                return Err(ApiError::invalid("invalid_match", format!("player {name:?} appears twice in the match")));
            }
        }
        let engine = |e: ranking_elo::Error| ApiError::invalid("invalid_match", e.to_string());
        match &self.game {
            Game::Pair { .. } => Ok(()),
            Game::Team { team_a, team_b, .. } => {
                for (team, name) in [(team_a, "team_a"), (team_b, "team_b")] {
                    if team.is_empty() || team.len() > MAX_TEAM_SIZE {
                        return Err(ApiError::invalid("invalid_match", format!("{name} has {} players; a team has 1 to {MAX_TEAM_SIZE}", team.len())));
                    }
                    rules.check_team(&Team::new(&vec![rules.new_player(); team.len()]), name).map_err(engine)?;
                }
                Ok(())
            }
            Game::FreeForAll { entrants, places } => {
                if !ENTRANTS.contains(&entrants.len()) {
                    return Err(ApiError::invalid("invalid_match", format!("a free-for-all has {} to {} entrants (got {})", ENTRANTS.start(), ENTRANTS.end(), entrants.len())));
                }
                rules.check_placements(&vec![rules.new_player(); entrants.len()], places).map_err(engine)
            }
        }
    }

    /// The canonical JSON of what was played (`{"kind": …, …}`), stored as the journal's
    /// inputs; a retry is the same match when this text is the same.
    #[must_use]
    pub fn inputs_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| unreachable!("a match request always serializes"))
    }
}

/// A player as the API shows it: the name, then the engine's state (the same fields and
/// encoding as a pool save: `rating`, `games_played`, `win_streak`, `league`, …).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlayerView {
    /// The player's name in the ladder.
    pub player: String,
    /// The state.
    #[serde(flatten)]
    pub state: PlayerState,
    /// The match is held for its rating period: the state is the player's before it, and
    /// the period's end rates it ([`crate::periods`]). Written only when true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

/// One stored player row (the rating relative to the ladder's zero-sum offset).
#[derive(Debug, Clone)]
pub struct PlayerRow {
    /// Row id (join order: ties on the leaderboard go to the earlier player).
    pub id: i64,
    /// Name.
    pub name: String,
    /// Stored state.
    pub state: PlayerState,
}

/// A zero-sum ladder's shared numbers, read and written under the ladder row's lock. They
/// change only through the engine's [`ZeroSumLedger`] ([`Self::ledger`], [`Self::keep`]),
/// exactly as a pool's do.
#[derive(Debug, Clone, Copy)]
pub struct ZeroSum {
    /// The configured total `T`.
    pub total: f64,
    /// Added to every stored rating.
    pub offset: f64,
    /// Exact sum of the stored ratings.
    pub sum: RatingSum,
    /// Number of players.
    pub players: usize,
}

impl ZeroSum {
    /// The numbers of a zero-sum ladder with no player yet.
    #[must_use]
    pub fn new(total: f64) -> Self {
        Self::numbers(total, &ZeroSumLedger::new(Some(total)))
    }

    /// The numbers of `ledger` when it is a zero-sum ledger (a pool's after a season end,
    /// whose next rules may bring in another total, or none).
    #[must_use]
    pub fn of(ledger: &ZeroSumLedger) -> Option<Self> {
        ledger.total().map(|total| Self::numbers(total, ledger))
    }

    /// `ledger`'s numbers under the total `total` (a zero-sum ledger always knows its sum).
    fn numbers(total: f64, ledger: &ZeroSumLedger) -> Self {
        Self { total, offset: ledger.offset(), sum: ledger.sum().unwrap_or_default(), players: ledger.count() }
    }

    /// Parses the stored exact sum (decimal `i128`).
    ///
    /// # Errors
    /// 500 when the stored text is not a number.
    pub fn from_stored(total: f64, offset: f64, sum: &str, players: i64) -> Result<Self, ApiError> {
        let fixed: i128 = sum.parse().map_err(|_| ApiError::internal(format!("ladder's stored sum {sum:?} is not a number")))?;
        Ok(Self { total, offset, sum: RatingSum::from_fixed_point(fixed), players: usize::try_from(players).unwrap_or(0) })
    }

    /// The exact sum as stored (decimal).
    #[must_use]
    pub fn sum_text(&self) -> String {
        self.sum.fixed_point().to_string()
    }

    /// The engine's ledger of these numbers, to change them with.
    #[must_use]
    pub fn ledger(&self) -> ZeroSumLedger {
        ZeroSumLedger::from_stored(self.total, self.offset, self.sum, self.players)
    }

    /// Keeps the numbers of `ledger` after a change.
    pub fn keep(&mut self, ledger: &ZeroSumLedger) {
        *self = Self::numbers(self.total, ledger);
    }
}

/// The state a player joining now starts with, as stored, and (zero-sum) the ladder's
/// numbers updated: exactly what a pool's `add_players(1)` does at clock `now`.
#[must_use]
pub fn joining_state(rules: &Rules, zero_sum: Option<&mut ZeroSum>, now: f64) -> PlayerState {
    match zero_sum {
        None => rules.placed(PlayerState { last_played: now, ..rules.new_player() }),
        Some(z) => {
            let mut ledger = z.ledger();
            let rating = ledger.joining_rating(1).unwrap_or(rules.config().initial_rating);
            let state = rules.placed(PlayerState { last_played: now, ..PlayerState::new(rating) });
            let stored = ledger.join(state.rating);
            ledger.rebalance();
            z.keep(&ledger);
            PlayerState { rating: stored.to_f32(), ..state }
        }
    }
}

/// A stored player made current for the API.
#[must_use]
pub fn view(row: PlayerRow, offset: f64) -> PlayerView {
    PlayerView { state: current(&row.state, offset), player: row.name, held: false }
}

/// The current state of a stored player: its rating plus the ladder's zero-sum offset
/// (`ladders.zero_sum_offset`, kept 0 while the ladder's rules have no zero-sum total).
#[must_use]
pub fn current(state: &PlayerState, offset: f64) -> PlayerState {
    PlayerState { rating: effective_rating(state.rating, offset), ..*state }
}

/// What one match did: the players' new states in the match's order (the engine's results,
/// as the API reports them) and the rows to write (stored form).
#[derive(Debug)]
pub struct Applied {
    /// The API's `players`, in the match's order.
    pub players: Vec<PlayerView>,
    /// New stored states by row id.
    pub writes: Vec<(i64, PlayerState)>,
    /// Each player's current rating before the match, in the match's order (for their
    /// history; the rating after is in `players`).
    pub before: Vec<f32>,
}

/// Applies a checked match to the locked rows (`rows` by name holds every player of the
/// match): the engine's `rate_players`, `rate_teams` or `rate_placements` on the current
/// states with the ladder's rules, every player stamped with `now`; in a zero-sum ladder
/// the results are stored relative to the offset and the offset moves once, as a pool
/// does.
///
/// # Errors
/// 422 when the engine refuses the match (a result out of range); nothing is written then.
pub fn apply_match(rules: &Rules, zero_sum: Option<&mut ZeroSum>, rows: &HashMap<String, PlayerRow>, request: &MatchRequest, now: f64) -> Result<Applied, ApiError> {
    let names = request.players();
    let before: Vec<PlayerState> = names.iter().map(|name| current(&rows[*name].state, zero_sum.as_deref().map_or(0.0, |z| z.offset))).collect();
    let engine = |e: ranking_elo::Error| ApiError::invalid("rating_refused", e.to_string());
    let mut after = before.clone();
    match &request.game {
        Game::Pair { score_a, .. } => {
            let outcome = Outcome::from_score(*score_a).map_err(engine)?;
            let (a, b) = rules.rate_players(&before[0], &before[1], outcome).map_err(engine)?;
            after = vec![a, b];
        }
        Game::Team { team_a, score_a, .. } => {
            let outcome = Outcome::from_score(*score_a).map_err(engine)?;
            let split = team_a.len();
            let (out_a, out_b) = after.split_at_mut(split);
            rules.rate_teams(Team::new(&before[..split]), Team::new(&before[split..]), outcome, out_a, out_b).map_err(engine)?;
        }
        Game::FreeForAll { places, .. } => rules.rate_placements(&before, places, &mut after).map_err(engine)?,
    }
    for (i, state) in after.iter_mut().enumerate() {
        state.last_played = now;
        rules.check_player(state, &format!("result of {}", names[i])).map_err(engine)?;
    }
    let mut writes = Vec::with_capacity(after.len());
    let mut ledger = zero_sum.as_deref().map(ZeroSum::ledger);
    for (name, state) in names.iter().zip(&after) {
        let row = &rows[*name];
        let rating = match &mut ledger {
            Some(ledger) => ledger.replace(StoredRating::from_f32(row.state.rating), state.rating).to_f32(),
            None => state.rating,
        };
        writes.push((row.id, PlayerState { rating, ..*state }));
    }
    if let (Some(z), Some(mut ledger)) = (zero_sum, ledger) {
        ledger.rebalance();
        z.keep(&ledger);
    }
    let before = before.iter().map(|state| state.rating).collect();
    let players = names.iter().zip(after).map(|(name, state)| PlayerView { player: (*name).to_owned(), state, held: false }).collect();
    Ok(Applied { players, writes, before })
}

/// The body of a match's 200: `{"seq": N, "players": [...]}`, built the same way for the
/// first answer and every retry (from the stored results text).
#[must_use]
pub fn match_response(seq: i64, results: &str) -> String {
    format!("{{\"seq\":{seq},\"players\":{results}}}")
}

/// The results of a match as stored in the journal: the `players` array.
#[must_use]
pub fn results_json(players: &[PlayerView]) -> String {
    serde_json::to_string(players).unwrap_or_else(|_| unreachable!("player views always serialize"))
}

/// One journal entry as `GET …/matches` shows it.
#[derive(Debug, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Position in the journal (increasing; shared by every ladder of the database, so a
    /// ladder's entries are not numbered densely).
    pub seq: i64,
    /// `pair`, `team`, `free_for_all`, `import` ([`crate::import`]), `season_end`, `decay`,
    /// `period_end` ([`crate::periods`]), `annul` or `correct`.
    pub kind: String,
    /// The match id, or the id of an import, season end or decay (none for those of version
    /// 0.1).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub id: Option<String>,
    /// Server time, Unix seconds.
    pub time: f64,
    /// What was played or asked (the canonical request).
    pub inputs: Box<serde_json::value::RawValue>,
    /// Players who joined the ladder with this entry, in joining order.
    pub joined: Vec<String>,
    /// The resulting states (matches) or the outcome (season end, decay), exactly as
    /// stored (floats keep their shortest round-trip text); rewritten when an earlier match
    /// is annulled or corrected.
    pub results: Box<serde_json::value::RawValue>,
    /// The match is annulled: it counts for nothing (its players still joined).
    pub annulled: bool,
    /// Why it was annulled.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub annul_reason: Option<String>,
    /// The latest correction's inputs: the match counts with these, at its place.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub corrected: Option<Box<serde_json::value::RawValue>>,
    /// SHA-256 of the previous entry's hash and this entry's canonical content, hex
    /// ([`crate::chain`]).
    pub hash: String,
    /// The joining players' keys, in `joined`'s order: each `{"commitment", "salt"}` (no
    /// salt once the player is erased), which the hash covers ([`crate::chain::PlayerKey`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub keys: Option<Box<serde_json::value::RawValue>>,
}

/// Server time in Unix seconds.
#[must_use]
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// The stored size of a journal entry (what a page counts).
#[must_use]
pub fn entry_bytes(inputs: &str, joined: &str, results: &str) -> i64 {
    i64::try_from(inputs.len() + joined.len() + results.len()).unwrap_or(i64::MAX)
}
