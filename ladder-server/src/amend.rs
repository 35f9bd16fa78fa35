//! Annulments and corrections (`POST …/matches/{id}/annul`, `…/correct`): what an admin
//! posts, checked against the match it amends. The stores mark the match, rebuild every
//! later state with [`crate::replay`], and journal the amendment itself.

use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::ladder::Ladder;
use crate::model::{check_name, Game, MatchRequest};

/// The longest annulment reason, in bytes.
pub const MAX_REASON: usize = 500;

/// Unicode's format characters that change how text around them reads without showing
/// themselves: direction marks, embeddings, overrides and isolates, zero-width characters,
/// the soft hyphen and the byte-order mark. A reason shown in a console or a log cannot hide
/// or reorder text with them.
#[must_use]
pub fn is_invisible(c: char) -> bool {
    matches!(c, '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}')
}

/// What an admin asks.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The match counts for nothing.
    Annul {
        /// Why (shown in the journal).
        reason: String,
    },
    /// The match counts with another result (the same players).
    Correct {
        /// The corrected match, checked.
        game: Game,
    },
}

/// An amendment of match `match_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Amendment {
    /// The amended match's id.
    pub match_id: String,
    /// What to do.
    pub action: Action,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnnulBody {
    reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectBody {
    score_a: Option<f64>,
    places: Option<Vec<u32>>,
}

impl Amendment {
    /// An annulment: `{"reason": "…"}`.
    ///
    /// # Errors
    /// 400 for a malformed body, 422 for a bad id or an empty or long reason.
    pub fn annul(match_id: &str, body: &[u8]) -> Result<Self, ApiError> {
        check_name(match_id, "match id")?;
        let body: AnnulBody = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("annulment: {e} (send {{\"reason\": \"…\"}})")))?;
        let reason = body.reason.trim().to_owned();
        if reason.is_empty() || reason.len() > MAX_REASON || reason.chars().any(|c| c.is_control() || is_invisible(c)) {
            return Err(ApiError::invalid("invalid_reason", format!("the reason is 1 to {MAX_REASON} bytes of text without control, direction-override or zero-width characters")));
        }
        Ok(Self { match_id: match_id.to_owned(), action: Action::Annul { reason } })
    }

    /// A correction: `{"score_a": …}` for pairs and teams, `{"places": […]}` for
    /// free-for-alls; `original` is the match as reported (its players stay), `ladder` checks
    /// the corrected result as a report is checked.
    ///
    /// # Errors
    /// 400 for a malformed body, 422 for a result the match's shape does not take.
    pub fn correct(match_id: &str, body: &[u8], original: &Game, ladder: &Ladder) -> Result<Self, ApiError> {
        check_name(match_id, "match id")?;
        let body: CorrectBody = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("correction: {e}")))?;
        let shape = |what: &str| ApiError::invalid("invalid_correction", format!("this match is a {}; a correction gives {what}", original.kind()));
        let game = match (original, body) {
            (Game::Pair { a, b, .. }, CorrectBody { score_a: Some(score), places: None }) => Game::Pair { a: a.clone(), b: b.clone(), score_a: score },
            (Game::Team { team_a, team_b, .. }, CorrectBody { score_a: Some(score), places: None }) => {
                Game::Team { team_a: team_a.clone(), team_b: team_b.clone(), score_a: score }
            }
            (Game::FreeForAll { entrants, .. }, CorrectBody { score_a: None, places: Some(places) }) => Game::FreeForAll { entrants: entrants.clone(), places },
            (Game::FreeForAll { .. }, _) => return Err(shape("its places: {\"places\": […]}")),
            _ => return Err(shape("its score: {\"score_a\": …}")),
        };
        // Checked and made canonical exactly as a report is (the score as the engine's f32).
        let request = MatchRequest::from_game(match_id, game, &ladder.rules)?;
        Ok(Self { match_id: match_id.to_owned(), action: Action::Correct { game: request.game } })
    }

    /// The journal `kind` of the amendment's own entry.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self.action {
            Action::Annul { .. } => "annul",
            Action::Correct { .. } => "correct",
        }
    }

    /// The amendment entry's canonical inputs.
    #[must_use]
    pub fn inputs_json(&self) -> String {
        match &self.action {
            // The reason is free text (it may name a person): it stays out of the hashed
            // inputs, in the entry's results and the match's mark.
            Action::Annul { .. } => serde_json::json!({ "match": self.match_id }).to_string(),
            Action::Correct { game } => serde_json::json!({ "match": self.match_id, "result": game }).to_string(),
        }
    }
}

/// What an amendment did: the answer, also kept as its journal entry's results.
#[derive(Debug, Serialize)]
pub struct Outcome<'a> {
    /// The amended match.
    #[serde(rename = "match")]
    pub match_id: &'a str,
    /// `annul` or `correct`.
    pub action: &'static str,
    /// An annulment's reason: kept here, outside the hashed inputs, so that the chain never
    /// depends on free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// Later matches whose results changed.
    pub rerated: usize,
    /// Journal entries the rebuild replayed (from the latest checkpoint before the match,
    /// or from the first entry): what it cost.
    pub replayed: usize,
    /// Players whose state changed.
    pub players_changed: usize,
    /// Their names (the first 1,000).
    pub players: Vec<&'a str>,
}

impl<'a> Outcome<'a> {
    /// The outcome of `amendment`, which rerated `rerated` matches and changed `changed`
    /// players (the first [`LISTED_PLAYERS`] are listed).
    #[must_use]
    pub fn new(amendment: &'a Amendment, rerated: usize, replayed: usize, changed: &[&'a str]) -> Self {
        let reason = match &amendment.action {
            Action::Annul { reason } => Some(reason.as_str()),
            Action::Correct { .. } => None,
        };
        Self {
            match_id: &amendment.match_id,
            action: amendment.kind(),
            reason,
            rerated,
            replayed,
            players_changed: changed.len(),
            players: changed.iter().take(LISTED_PLAYERS).copied().collect(),
        }
    }
}

/// The answer's size limit: names listed in [`Outcome::players`].
pub const LISTED_PLAYERS: usize = 1000;

/// The 200 body: `{"seq", …outcome}`.
#[must_use]
pub fn response(seq: i64, results: &str) -> String {
    crate::events::event_response_without_id(seq, results)
}

/// `annul` or `correct`, as the route says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `POST …/annul`.
    Annul,
    /// `POST …/correct`.
    Correct,
}

/// An amendment as posted, before the match it amends is read.
#[derive(Debug, Clone)]
pub struct Request {
    /// The amended match's id (checked).
    pub match_id: String,
    /// Annul or correct.
    pub kind: Kind,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// Checks the id.
    ///
    /// # Errors
    /// 422 for a bad id.
    pub fn new(match_id: &str, kind: Kind, body: &[u8]) -> Result<Self, ApiError> {
        check_name(match_id, "match id")?;
        Ok(Self { match_id: match_id.to_owned(), kind, body: body.to_vec() })
    }

    /// The journal id of an annulment's entry: `annul/ID`, in the server's own id space
    /// ([`crate::model::server_id`]).
    #[must_use]
    pub fn annul_id(&self) -> String {
        crate::model::server_id(&["annul", &self.match_id])
    }

    /// The journal id of the match's `n`th correction: `correct/ID/N`.
    #[must_use]
    pub fn correction_id(&self, n: usize) -> String {
        crate::model::server_id(&["correct", &self.match_id, &n.to_string()])
    }
}

/// The amended match as the journal holds it.
#[derive(Debug, Clone)]
pub struct Target {
    /// Its seq.
    pub seq: i64,
    /// Its kind.
    pub kind: String,
    /// As reported.
    pub inputs: String,
    /// The latest correction's inputs.
    pub corrected: Option<String>,
    /// Annulled already.
    pub annulled: bool,
}

/// What a store does with a request.
#[derive(Debug)]
pub enum Plan {
    /// Answer this (the same amendment was applied before, or it changes nothing).
    Answer(Result<String, ApiError>),
    /// Apply it.
    Apply(Amendment),
}

/// Decides what an amendment does, given the match (`None`: unknown), an earlier annulment
/// of it (its seq and results) and its latest correction (the same).
///
/// # Errors
/// 400/422 for a bad body.
pub fn plan(request: &Request, target: Option<&Target>, annulment: Option<(i64, String)>, latest_correction: Option<(i64, String)>, ladder: &Ladder) -> Result<Plan, ApiError> {
    let Some(target) = target else {
        return Ok(Plan::Answer(Err(ApiError::not_found("unknown_match", format!("ladder {:?} has no match {:?}", ladder.name, request.match_id)))));
    };
    if !matches!(target.kind.as_str(), "pair" | "team" | "free_for_all") {
        return Ok(Plan::Answer(Err(ApiError::conflict("not_a_match", format!("{:?} is a {}; only matches can be annulled or corrected", request.match_id, target.kind)))));
    }
    match request.kind {
        Kind::Annul => {
            let amendment = Amendment::annul(&request.match_id, &request.body)?;
            if let Some((seq, results)) = annulment {
                return Ok(Plan::Answer(Ok(response(seq, &results))));
            }
            Ok(Plan::Apply(amendment))
        }
        Kind::Correct => {
            let original: Game = serde_json::from_str(&target.inputs).map_err(|e| ApiError::internal(format!("journal {}: {e}", target.seq)))?;
            let amendment = Amendment::correct(&request.match_id, &request.body, &original, ladder)?;
            if target.annulled {
                return Ok(Plan::Answer(Err(ApiError::conflict("match_annulled", format!("match {:?} is annulled; it cannot be corrected", request.match_id)))));
            }
            let Action::Correct { game } = &amendment.action else { unreachable!("a correction") };
            let wanted = serde_json::to_string(game).unwrap_or_default();
            let effective = target.corrected.as_deref().unwrap_or(&target.inputs);
            if wanted == effective {
                // Already so: the latest correction's answer, or nothing changes.
                return Ok(Plan::Answer(Ok(match latest_correction {
                    Some((seq, results)) => response(seq, &results),
                    None => response(
                        target.seq,
                        &serde_json::json!({ "match": request.match_id, "action": "correct", "rerated": 0, "replayed": 0, "players_changed": 0, "players": [] }).to_string(),
                    ),
                })));
            }
            Ok(Plan::Apply(amendment))
        }
    }
}
