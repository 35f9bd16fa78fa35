//! Rating periods (FIDE, USCF): on a ladder with the option `rating_periods`, a reported
//! pair match is held: journaled with the players' states unchanged (each marked `held`),
//! and rated only when the period ends (`POST …/periods/end`, or the ladder's
//! `period_end` schedule). The period's end rates every held match since the previous
//! end at once through the engine's `Pool::rate_period`: each match against the ratings
//! the players hold at the end (which are their ratings at the period's start, since held
//! matches change nothing), each player's summed change rounded once. An annulled held
//! match is left out; a corrected one counts with its correction. The journal's order
//! says which period a match belongs to, so a replay (`verify`, an annulment's rebuild)
//! holds and rates exactly as the server did.

use std::collections::HashMap;

use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Outcome, PlayerState};

use crate::error::ApiError;
use crate::model::{current, Applied, Game, MatchRequest, PlayerRow, PlayerView, ZeroSum};

/// A held match: its players' names and A's score.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeldMatch {
    /// Player A.
    pub a: String,
    /// Player B.
    pub b: String,
    /// A's score.
    pub score_a: f64,
}

/// A match reported to a ladder in rating-period mode at `now`: checked as the engine would
/// rate it, and held: every player's stored state written back with only `last_played`
/// stamped (a player who plays is not inactive for decay, and one who joins with the match
/// gets a row), every view the state before the match, marked `held`.
///
/// # Errors
/// 422 `periods_rate_pairs` for a team or free-for-all match (FIDE's and USCF's periods
/// rate games between two players), 422 `rating_refused` for a score the engine refuses.
pub fn hold_match(zero_sum: Option<&ZeroSum>, rows: &HashMap<String, PlayerRow>, request: &MatchRequest, now: f64) -> Result<Applied, ApiError> {
    let Game::Pair { score_a, .. } = &request.game else {
        return Err(ApiError::invalid(
            "periods_rate_pairs",
            "this ladder rates in rating periods (the option rating_periods), which rate games between two players: report a pair match",
        ));
    };
    Outcome::from_score(*score_a).map_err(|e| ApiError::invalid("rating_refused", e.to_string()))?;
    let offset = zero_sum.map_or(0.0, |z| z.offset);
    let names = request.players();
    let states: Vec<PlayerState> = names.iter().map(|name| current(&rows[*name].state, offset)).collect();
    let before = states.iter().map(|state| state.rating).collect();
    let players = names.iter().zip(states).map(|(name, state)| PlayerView { player: (*name).to_owned(), state, held: true }).collect();
    let writes = names.iter().map(|name| (rows[*name].id, PlayerState { last_played: now, ..rows[*name].state })).collect();
    Ok(Applied { players, writes, before })
}

/// Whether a match entry's stored results say it is held for its period.
#[must_use]
pub fn is_held(results: &str) -> bool {
    serde_json::from_str::<Vec<serde_json::Value>>(results).is_ok_and(|players| players.first().is_some_and(|p| p.get("held") == Some(&serde_json::Value::Bool(true))))
}

/// The held match of a pair entry (its inputs, with any correction), when its results say
/// it is held.
///
/// # Errors
/// 500 for inputs that no longer parse (a damaged journal).
pub fn held_match(inputs: &str, results: &str) -> Result<Option<HeldMatch>, ApiError> {
    if !is_held(results) {
        return Ok(None);
    }
    match serde_json::from_str::<Game>(inputs).map_err(|e| ApiError::internal(format!("a held match's inputs: {e}")))? {
        Game::Pair { a, b, score_a } => Ok(Some(HeldMatch { a, b, score_a })),
        _ => Err(ApiError::internal("a held match that is not a pair")),
    }
}

/// `{"period_end", "matches", "players"}`: a period end's journal results and response fields.
#[derive(serde::Serialize)]
struct PeriodEndView {
    period_end: f64,
    matches: usize,
    players: usize,
}

/// Rates the held matches on a pool of every stored player (`rows` in id order); returns the
/// results text.
///
/// # Errors
/// 500 when a held match names a player without a row, or the engine refuses the matches
/// (a damaged journal).
pub fn rate_held(pool: &mut Pool, rows: &[PlayerRow], held: &[HeldMatch], now: f64) -> Result<String, ApiError> {
    let index: HashMap<&str, usize> = rows.iter().enumerate().map(|(i, row)| (row.name.as_str(), i)).collect();
    let find = |name: &str| index.get(name).copied().ok_or_else(|| ApiError::internal(format!("a held match's player {name:?} has no row")));
    let mut matches = Vec::with_capacity(held.len());
    let mut players = std::collections::HashSet::new();
    for m in held {
        let outcome = Outcome::from_score(m.score_a).map_err(|e| ApiError::internal(format!("a held match: {e}")))?;
        let (a, b) = (find(&m.a)?, find(&m.b)?);
        players.insert(a);
        players.insert(b);
        matches.push(Match::new(a, b, outcome));
    }
    pool.rate_period(&matches, None).map_err(|e| ApiError::internal(format!("the period's matches: {e}")))?;
    Ok(serde_json::to_string(&PeriodEndView { period_end: now, matches: matches.len(), players: players.len() }).unwrap_or_else(|_| unreachable!("views always serialize")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_results_are_recognized() {
        assert!(is_held(r#"[{"player":"a","rating":1500,"held":true},{"player":"b","rating":1500,"held":true}]"#));
        assert!(!is_held(r#"[{"player":"a","rating":1500},{"player":"b","rating":1500}]"#));
        assert!(!is_held(r#"{"season": 1}"#));
        let held = held_match(r#"{"kind":"pair","a":"x","b":"y","score_a":0.5}"#, r#"[{"player":"x","held":true}]"#).unwrap();
        assert_eq!(held, Some(HeldMatch { a: "x".into(), b: "y".into(), score_a: 0.5 }));
    }
}
