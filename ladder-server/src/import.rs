//! Import: a studio moving an existing ladder to elo-ladder brings its players' ratings and
//! its match history (`elo-ladder import`, `POST /v1/ladders/{ladder}/import`). The input is
//! NDJSON, one object per line:
//!
//! - a player with the state they have now: `{"id", "time", "player", "state": {…}}`, where
//!   `state` holds any fields of a player state (`rating` required; the others default as
//!   for a new player, `last_played` to the line's time). It is journaled as an entry of
//!   kind `import` that the replay and `elo-ladder verify` reproduce; the player joins with
//!   exactly that state;
//! - a match as it was played, at its own time: `{"id", "time", …}` with the fields of a
//!   report (`a`, `b`, `score_a`; `team_a`, `team_b`, `score_a`; `entrants`, `places`). It is
//!   applied through the engine as a report would be, with the line's time.
//!
//! Every line is checked before anything is applied (a malformed line, a bad name, a score
//! the engine refuses: each such line is named with its number, and nothing is applied).
//! The lines are then applied in order, each once per id: an import run again skips the
//! lines it applied (a match line is a report with its own id; a player line's entry has the
//! id `import/{id}`, which no report can take). A line the ladder refuses (a player who is
//! already in the ladder, a time before the ladder's latest entry, an id reused for another
//! line) stops the import there, with its line number: the lines before it stay applied, and
//! the same import runs on from there once the line is fixed.

use ranking_elo::{PlayerState, Rules};
use serde::Deserialize;

use crate::error::ApiError;
use crate::model::{check_name, check_reportable_player, server_id, MatchRequest, PlayerView};

/// The journal kind of an imported player.
pub const KIND: &str = "import";

/// The longest line read, in bytes (a free-for-all of 256 long names is about 20 KB).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The most line errors one answer lists (the count says how many there were).
pub const MAX_REPORTED_ERRORS: usize = 20;

/// Lines applied in one transaction.
pub const BATCH_LINES: usize = 2000;

/// One checked line.
#[derive(Debug, Clone)]
pub struct Line {
    /// Its number in the input (1 = first).
    pub number: u64,
    /// When it happened (Unix seconds): the journal entry's time.
    pub time: f64,
    /// What it is.
    pub item: Item,
}

/// What a line brings.
#[derive(Debug, Clone)]
pub enum Item {
    /// A player joining with the state they have (the entry's id is `import/{id}`).
    Player {
        /// The journal id (`import/{id}`).
        journal_id: String,
        /// The player's name.
        player: String,
        /// The state (placed in a league by the ladder's rules).
        state: PlayerState,
    },
    /// A match, applied as a report with its id.
    Match(MatchRequest),
}

impl Line {
    /// The id the line is journaled with.
    #[must_use]
    pub fn journal_id(&self) -> &str {
        match &self.item {
            Item::Player { journal_id, .. } => journal_id,
            Item::Match(request) => &request.id,
        }
    }

    /// The journal kind: `import`, or the match's kind.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match &self.item {
            Item::Player { .. } => KIND,
            Item::Match(request) => request.game.kind(),
        }
    }

    /// The canonical inputs stored in the journal (compared when the line is imported again).
    #[must_use]
    pub fn inputs_json(&self) -> String {
        match &self.item {
            Item::Player { player, state, .. } => player_inputs(player, state),
            Item::Match(request) => request.inputs_json(),
        }
    }
}

/// The stored inputs of an imported player: `{"player", "state"}` (the whole state).
#[must_use]
pub fn player_inputs(player: &str, state: &PlayerState) -> String {
    #[derive(serde::Serialize)]
    struct Inputs<'a> {
        player: &'a str,
        state: &'a PlayerState,
    }
    serde_json::to_string(&Inputs { player, state }).unwrap_or_else(|_| unreachable!("a player state always serializes"))
}

/// The stored inputs of an `import` entry, read back.
///
/// # Errors
/// 500 when the stored text is not an import's inputs (a damaged journal).
pub fn read_player_inputs(inputs: &str) -> Result<(String, PlayerState), ApiError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inputs {
        player: String,
        state: PlayerState,
    }
    let parsed: Inputs = serde_json::from_str(inputs).map_err(|e| ApiError::internal(format!("an import entry's inputs: {e}")))?;
    Ok((parsed.player, parsed.state))
}

/// The stored results of an imported player: the `players` array of one view, as a match's.
#[must_use]
pub fn player_results(player: &str, state: &PlayerState) -> String {
    crate::model::results_json(&[PlayerView { player: player.to_owned(), state: *state, held: false }])
}

/// A player line as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerBody {
    id: String,
    /// Read before (and checked there).
    #[serde(rename = "time")]
    _time: serde::de::IgnoredAny,
    player: String,
    state: serde_json::Map<String, serde_json::Value>,
}

/// Reads one line (`None` for a blank one). `now` bounds the times (no line from the
/// future).
///
/// # Errors
/// What is wrong with the line, without its number (the caller adds it).
pub fn parse_line(text: &str, number: u64, rules: &Rules, now: f64) -> Result<Option<Line>, ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() > MAX_LINE_BYTES {
        return Err(ApiError::bad_request(format!("the line is {} bytes; a line has at most {MAX_LINE_BYTES}", text.len())));
    }
    let mut object: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).map_err(|e| ApiError::bad_request(format!("not a JSON object: {e}")))?;
    let time = match object.get("time") {
        Some(serde_json::Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => return Err(ApiError::bad_request(format!("time must be a number of Unix seconds (got {other})"))),
        None => return Err(ApiError::bad_request("time is required: when the line happened, in Unix seconds")),
    };
    if !(time.is_finite() && time >= 0.0) {
        return Err(ApiError::invalid("invalid_import", format!("time must be a finite number of Unix seconds from 0 (got {time})")));
    }
    if time > now + 60.0 {
        return Err(ApiError::invalid("invalid_import", format!("time {time} is in the future (the server's clock is at {now:.0})")));
    }
    if object.contains_key("player") {
        let body: PlayerBody = serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| ApiError::bad_request(format!("a player line is {{\"id\", \"time\", \"player\", \"state\"}}: {e}")))?;
        check_name(&body.id, "id")?;
        check_name(&body.player, "player")?;
        check_reportable_player(&body.player)?;
        let state = player_state(body.state, time, rules)?;
        let journal_id = server_id(&[KIND, &body.id]);
        return Ok(Some(Line { number, time, item: Item::Player { journal_id, player: body.player, state } }));
    }
    object.remove("time");
    if object.contains_key("tags") {
        return Err(ApiError::invalid("invalid_import", "tags are not imported with a match: set them with PUT …/players/{player}/tags"));
    }
    let request = MatchRequest::parse(serde_json::Value::Object(object).to_string().as_bytes(), rules)?;
    Ok(Some(Line { number, time, item: Item::Match(request) }))
}

/// A player line's state: the fields given (the rest as for a new player; `last_played` the
/// line's time), placed in its league by the rules and checked by the engine.
fn player_state(fields: serde_json::Map<String, serde_json::Value>, time: f64, rules: &Rules) -> Result<PlayerState, ApiError> {
    if !fields.contains_key("rating") {
        return Err(ApiError::invalid("invalid_import", "state.rating is required"));
    }
    let given_last_played = fields.contains_key("last_played");
    let mut state: PlayerState = serde_json::from_value(serde_json::Value::Object(fields)).map_err(|e| ApiError::bad_request(format!("state: {e}")))?;
    if !given_last_played {
        state.last_played = time;
    }
    rules.check_player(&state, "state").map_err(|e| ApiError::invalid("invalid_import", e.to_string()))?;
    Ok(rules.placed(state))
}

/// A line's error with its number.
#[must_use]
pub fn at_line(number: u64, error: ApiError) -> ApiError {
    ApiError { message: format!("line {number}: {}", error.message), ..error }
}

/// Checks every line (nothing is applied): the number of lines to apply, or the errors (at
/// most [`MAX_REPORTED_ERRORS`] listed, all counted) as one 400 or 422 whose message names
/// each line. An input that cannot be read is its own error.
///
/// # Errors
/// As described.
pub fn check_all<T: AsRef<str>>(lines: impl Iterator<Item = Result<T, ApiError>>, rules: &Rules, now: f64) -> Result<u64, ApiError> {
    let mut count = 0;
    let mut errors = Vec::new();
    let mut failed = 0_u64;
    let mut status_invalid = true;
    for (index, text) in lines.enumerate() {
        let number = u64::try_from(index).unwrap_or(u64::MAX) + 1;
        match parse_line(text.map_err(|e| at_line(number, e))?.as_ref(), number, rules, now) {
            Ok(Some(_)) => count += 1,
            Ok(None) => {}
            Err(error) => {
                failed += 1;
                status_invalid &= error.status == axum::http::StatusCode::UNPROCESSABLE_ENTITY;
                if errors.len() < MAX_REPORTED_ERRORS {
                    errors.push(at_line(number, error).message);
                }
            }
        }
    }
    if failed == 0 {
        return Ok(count);
    }
    let listed = u64::try_from(errors.len()).unwrap_or(u64::MAX);
    let more = if failed > listed { format!("; and {} more", failed - listed) } else { String::new() };
    let message = format!("{failed} line(s) cannot be imported, nothing was applied: {}{more}", errors.join("; "));
    Err(if status_invalid { ApiError::invalid("invalid_import", message) } else { ApiError::bad_request(message) })
}

/// Reads checked lines in batches from the lines of an input (numbered from 1).
pub struct Batches<I> {
    lines: I,
    next_number: u64,
}

impl<I, T> Batches<I>
where
    I: Iterator<Item = Result<T, ApiError>>,
    T: AsRef<str>,
{
    /// Batches of `lines`.
    pub fn new(lines: I) -> Self {
        Self { lines, next_number: 1 }
    }

    /// The next at most `limit` lines to apply (blank lines skipped); empty at the end.
    ///
    /// # Errors
    /// An input that cannot be read, or a line that does not parse (after [`check_all`]
    /// passed: only an input that changed in between).
    pub fn next_batch(&mut self, limit: usize, rules: &Rules, now: f64) -> Result<Vec<Line>, ApiError> {
        let mut batch = Vec::with_capacity(limit.min(BATCH_LINES));
        while batch.len() < limit {
            let Some(raw) = self.lines.next() else { break };
            let number = self.next_number;
            self.next_number += 1;
            if let Some(line) = parse_line(raw.map_err(|e| at_line(number, e))?.as_ref(), number, rules, now).map_err(|e| at_line(number, e))? {
                batch.push(line);
            }
        }
        Ok(batch)
    }
}

/// The lines of a shared text, each as its own string (`\n` or `\r\n` ends a line).
pub struct TextLines {
    text: std::sync::Arc<String>,
    at: usize,
}

impl TextLines {
    /// The lines of `text`.
    #[must_use]
    pub fn new(text: std::sync::Arc<String>) -> Self {
        Self { text, at: 0 }
    }
}

impl Iterator for TextLines {
    type Item = Result<String, ApiError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.text.get(self.at..).filter(|rest| !rest.is_empty())?;
        let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
        self.at += end;
        let line = rest[..end].trim_end_matches('\n').trim_end_matches('\r');
        Some(Ok(line.to_owned()))
    }
}

/// An input's lines, read once to check them and once to apply them.
pub type LineSource<'a> = dyn Fn() -> Result<Box<dyn Iterator<Item = Result<String, ApiError>> + Send + 'a>, ApiError> + Send + Sync + 'a;

/// What an import answers: the lines read and the tally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Lines to apply in the input (blank lines not counted).
    pub lines: u64,
    /// Applied now.
    pub applied: u64,
    /// Applied by an earlier run (nothing changed).
    pub already_applied: u64,
}

/// Imports the lines of `source` into `ladder`: all checked first (nothing applied when one
/// is bad), then applied in batches of [`BATCH_LINES`] (one transaction each) until the end
/// or a line the ladder refuses; `progress` hears of every batch.
///
/// # Errors
/// The lines' errors ([`check_all`]); a refused line ([`stopped`], with what was applied);
/// the store's failures.
pub async fn run(
    store: &crate::store::Store,
    ladder: std::sync::Arc<crate::ladder::Ladder>,
    source: &LineSource<'_>,
    mut progress: impl FnMut(Tally) + Send,
) -> Result<Summary, ApiError> {
    let now = crate::model::now();
    let lines = check_all(source()?, &ladder.rules, now)?;
    let mut batches = Batches::new(source()?);
    let mut tally = Tally::default();
    loop {
        let batch = batches.next_batch(BATCH_LINES, &ladder.rules, now)?;
        if batch.is_empty() {
            break;
        }
        let outcome = store.import(std::sync::Arc::clone(&ladder), batch).await?;
        tally += outcome.tally;
        progress(tally);
        if let Some(refusal) = outcome.refused {
            return Err(stopped(tally, refusal));
        }
    }
    Ok(Summary { lines, applied: tally.applied, already_applied: tally.already_applied })
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Lines applied now.
    pub applied: u64,
    /// Lines an earlier run had applied (the same line again: nothing changed).
    pub already_applied: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Self) {
        self.applied += other.applied;
        self.already_applied += other.already_applied;
    }
}

/// Where an import batch stopped: its tally, and the refusal of the line it stopped at.
#[derive(Debug)]
pub struct BatchOutcome {
    /// Lines applied or found applied before the stop.
    pub tally: Tally,
    /// The line the ladder refused (with its number in the message), if any.
    pub refused: Option<ApiError>,
}

/// The error of an import that stopped at a line: the line's refusal with what was applied.
#[must_use]
pub fn stopped(tally: Tally, refusal: ApiError) -> ApiError {
    ApiError {
        message: format!(
            "{}; the import stopped there: {} line(s) before it were applied now, {} had been applied before (run the import again once the line is fixed: applied lines are skipped)",
            refusal.message, tally.applied, tally.already_applied
        ),
        ..refusal
    }
}

/// The refusal of a line whose time is before the ladder's latest entry.
#[must_use]
pub fn out_of_order(time: f64, latest: f64) -> ApiError {
    ApiError::invalid(
        "import_out_of_order",
        format!("time {time} is before the ladder's latest entry ({latest}): lines are imported in time order, before the ladder's own matches"),
    )
}

/// The refusal of a player line for a player the ladder has.
#[must_use]
pub fn player_exists(player: &str) -> ApiError {
    ApiError::invalid("player_exists", format!("player {player:?} is already in the ladder: import each player once, before their matches"))
}

/// The refusal of a player line in a zero-sum ladder.
#[must_use]
pub fn zero_sum_refused() -> ApiError {
    ApiError::invalid(
        "import_zero_sum",
        "a zero-sum ladder keeps its ratings summing to its total, so players cannot be imported with ratings of their own: import their matches instead",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        crate::ladder::stored_rules("{}").unwrap()
    }

    #[test]
    fn a_player_line_is_read_with_defaults_and_placed() {
        let line = parse_line(r#"{"id":"p1","time":100,"player":"alice","state":{"rating":1612.5,"games_played":40}}"#, 3, &rules(), 1e9).unwrap().unwrap();
        assert_eq!(line.number, 3);
        assert_eq!(line.journal_id(), "import/p1");
        assert_eq!(line.kind(), "import");
        let Item::Player { player, state, .. } = &line.item else { panic!("a player line") };
        assert_eq!(player, "alice");
        assert_eq!((state.rating, state.games_played, state.last_played, state.league), (1612.5, 40, 100.0, Some(0)));
        assert_eq!(state.peak_rating, 1612.5, "placed: the peak is at least the rating");
        assert_eq!(read_player_inputs(&line.inputs_json()).unwrap(), ("alice".to_owned(), *state));
    }

    #[test]
    fn a_match_line_is_a_report_with_a_time() {
        let line = parse_line(r#"{"id":"m1","time":5,"a":"x","b":"y","score_a":1}"#, 1, &rules(), 1e9).unwrap().unwrap();
        assert_eq!((line.journal_id(), line.kind(), line.time), ("m1", "pair", 5.0));
        assert!(parse_line("   ", 2, &rules(), 1e9).unwrap().is_none(), "a blank line");
    }

    #[test]
    fn bad_lines_name_what_is_wrong() {
        let r = rules();
        let message = |text: &str| parse_line(text, 1, &r, 1e9).unwrap_err().message;
        assert!(message(r#"{"id":"m1","a":"x","b":"y","score_a":1}"#).contains("time is required"));
        assert!(message(r#"{"id":"m1","time":-1,"a":"x","b":"y","score_a":1}"#).contains("from 0"));
        assert!(message(r#"{"id":"m1","time":2e9,"a":"x","b":"y","score_a":1}"#).contains("in the future"));
        assert!(message(r#"{"id":"m1","time":1,"a":"x","b":"y","score_a":2}"#).contains("score"));
        assert!(message(r#"{"id":"p","time":1,"player":"z","state":{"games_played":3}}"#).contains("state.rating is required"));
        assert!(message(r#"{"id":"p","time":1,"player":"z","state":{"rating":1,"mood":3}}"#).contains("mood"));
        assert!(message(r#"{"id":"p","time":1,"player":"z","state":{"rating":1,"league":7}}"#).contains("league"));
        assert!(message(r#"{"id":"p","time":1,"player":"erased-x","state":{"rating":1}}"#).contains("reserved"));
        assert!(message("[1,2]").contains("not a JSON object"));
    }

    #[test]
    fn check_all_lists_every_bad_line_with_its_number() {
        let text = "{\"id\":\"m1\",\"time\":1,\"a\":\"x\",\"b\":\"y\",\"score_a\":1}\n\n{\"id\":\"m2\",\"time\":1,\"a\":\"x\",\"b\":\"x\",\"score_a\":1}\nnot json\n";
        let error = check_all(text.lines().map(Ok), &rules(), 1e9).unwrap_err();
        assert!(error.message.starts_with("2 line(s) cannot be imported, nothing was applied: line 3: "), "{}", error.message);
        assert!(error.message.contains("line 4: not a JSON object"), "{}", error.message);
        assert_eq!(check_all(text.lines().take(2).map(Ok), &rules(), 1e9).unwrap(), 1);
        let mut batches = Batches::new(text.lines().take(2).map(Ok));
        let first = batches.next_batch(5, &rules(), 1e9).unwrap();
        assert_eq!((first.len(), first[0].number), (1, 1));
        assert!(batches.next_batch(5, &rules(), 1e9).unwrap().is_empty());
        let split: Vec<String> = TextLines::new(std::sync::Arc::new("a\r\nb\n\nc".to_owned())).map(Result::unwrap).collect();
        assert_eq!(split, ["a", "b", "", "c"]);
    }
}
