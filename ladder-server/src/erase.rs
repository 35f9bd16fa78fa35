//! Erasure (`DELETE /v1/ladders/{ladder}/players/{player}`): a player's name is replaced by a
//! pseudonym in every table (the player's row, and the journal entries the player is in:
//! their inputs, latest correction, joined list and results), so no later read shows it.
//! The player's salt is dropped from the entry they joined with, so the chain's commitment
//! to them no longer leads back to the name ([`crate::chain::PlayerKey`]). Nothing else
//! changes: states, ranks and the hash chain (which numbers players and commits to them
//! without naming them) stay as they were, and the name is free to join again as a new
//! player.

use crate::error::ApiError;
use crate::model::{Game, MatchRequest, PlayerView};

/// A new pseudonym: `erased-` and 16 random hex digits (a valid player name).
///
/// # Errors
/// The OS has no randomness.
pub fn pseudonym() -> Result<String, ApiError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::internal(format!("no randomness: {e}")))?;
    Ok(format!("{}{}", crate::model::PSEUDONYM_PREFIX, crate::chain::hex(&bytes)))
}

fn swap(name: &mut String, old: &str, new: &str) {
    if name == old {
        new.clone_into(name);
    }
}

/// A match's stored inputs (or a correction's) with `old` renamed `new`, in the same
/// canonical form.
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn inputs(text: &str, old: &str, new: &str) -> Result<String, ApiError> {
    let mut game: Game = serde_json::from_str(text).map_err(|e| ApiError::internal(format!("stored inputs: {e}")))?;
    match &mut game {
        Game::Pair { a, b, .. } => {
            swap(a, old, new);
            swap(b, old, new);
        }
        Game::Team { team_a, team_b, .. } => team_a.iter_mut().chain(team_b.iter_mut()).for_each(|p| swap(p, old, new)),
        Game::FreeForAll { entrants, .. } => entrants.iter_mut().for_each(|p| swap(p, old, new)),
    }
    Ok(MatchRequest { id: String::new(), game }.inputs_json())
}

/// An imported player's stored inputs ([`crate::import`]) with `old` renamed `new`.
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn import_inputs(text: &str, old: &str, new: &str) -> Result<String, ApiError> {
    let (mut player, state) = crate::import::read_player_inputs(text)?;
    swap(&mut player, old, new);
    Ok(crate::import::player_inputs(&player, &state))
}

/// A match's stored results with `old` renamed `new` (other entries' results name nobody).
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn results(text: &str, old: &str, new: &str) -> Result<String, ApiError> {
    let Ok(mut players) = serde_json::from_str::<Vec<PlayerView>>(text) else {
        return Ok(text.to_owned());
    };
    players.iter_mut().for_each(|p| swap(&mut p.player, old, new));
    Ok(crate::model::results_json(&players))
}

/// A stored `joined` list with `old` renamed `new`.
///
/// # Errors
/// 500 when the stored text does not parse.
pub fn joined(text: &str, old: &str, new: &str) -> Result<String, ApiError> {
    let mut names: Vec<String> = serde_json::from_str(text).map_err(|e| ApiError::internal(format!("stored joined list: {e}")))?;
    names.iter_mut().for_each(|p| swap(p, old, new));
    serde_json::to_string(&names).map_err(|e| ApiError::internal(e.to_string()))
}

/// An entry rewritten for an erasure: its seq and new texts (inputs, correction, joined,
/// results) and stored size.
pub struct Renamed {
    /// The entry.
    pub seq: i64,
    /// Inputs.
    pub inputs: String,
    /// The latest correction's inputs.
    pub corrected: Option<String>,
    /// Joined.
    pub joined: String,
    /// Results.
    pub results: String,
    /// The joining players' keys ([`crate::chain::PlayerKey`]; `None` before the entry is
    /// chained): the erased player's salt dropped.
    pub keys: Option<String>,
    /// Stored size.
    pub bytes: i64,
}

/// A match entry's stored texts: inputs, latest correction, joined, results, keys.
pub type StoredTexts<'a> = (&'a str, Option<&'a str>, &'a str, &'a str, Option<&'a str>);

impl Renamed {
    /// Whether the entry is as `stored` (inputs, correction, joined, results): it did not
    /// name the erased player.
    #[must_use]
    pub fn unchanged(&self, stored: StoredTexts<'_>) -> bool {
        (self.inputs.as_str(), self.corrected.as_deref(), self.joined.as_str(), self.results.as_str(), self.keys.as_deref()) == stored
    }
}

/// Rewrites one journal entry (of a match) for an erasure.
///
/// # Errors
/// 500 when stored text does not parse.
pub fn rename(seq: i64, kind: &str, stored: StoredTexts<'_>, old: &str, new: &str) -> Result<Renamed, ApiError> {
    let (inputs_text, corrected, joined_text, results_text, keys_text) = stored;
    let is_match = matches!(kind, "pair" | "team" | "free_for_all");
    let is_import = kind == crate::import::KIND;
    let new_inputs = if is_match {
        inputs(inputs_text, old, new)?
    } else if is_import {
        import_inputs(inputs_text, old, new)?
    } else {
        inputs_text.to_owned()
    };
    let new_corrected = corrected.map(|c| inputs(c, old, new)).transpose()?;
    let new_joined = joined(joined_text, old, new)?;
    let new_results = if is_match || is_import { results(results_text, old, new)? } else { results_text.to_owned() };
    let new_keys = keys_text.map(|keys| erase_key(keys, joined_text, old)).transpose()?;
    let bytes = crate::model::entry_bytes(&new_inputs, &new_joined, &new_results);
    Ok(Renamed { seq, inputs: new_inputs, corrected: new_corrected, joined: new_joined, results: new_results, keys: new_keys, bytes })
}

/// A stored keys list with the salt of `old` (a name in the stored `joined` list, at the
/// same position) dropped: its commitment no longer leads back to the name.
fn erase_key(keys_text: &str, joined_text: &str, old: &str) -> Result<String, ApiError> {
    let mut keys: Vec<crate::chain::PlayerKey> = serde_json::from_str(keys_text).map_err(|e| ApiError::internal(format!("stored keys: {e}")))?;
    let names: Vec<String> = serde_json::from_str(joined_text).map_err(|e| ApiError::internal(format!("stored joined list: {e}")))?;
    for (key, name) in keys.iter_mut().zip(&names) {
        if name == old {
            *key = key.erased();
        }
    }
    serde_json::to_string(&keys).map_err(|e| ApiError::internal(e.to_string()))
}

/// An amendment entry rewritten for an erasure: a correction's result and the list of
/// players an amendment changed; `None` when it does not name `old`.
///
/// # Errors
/// 500 when stored text does not parse.
pub fn rename_amendment(seq: i64, stored: (&str, &str, &str), old: &str, new: &str) -> Result<Option<Renamed>, ApiError> {
    let (inputs_text, joined_text, results_text) = stored;
    let mut inputs: serde_json::Value = serde_json::from_str(inputs_text).map_err(|e| ApiError::internal(format!("stored amendment: {e}")))?;
    let mut results: serde_json::Value = serde_json::from_str(results_text).map_err(|e| ApiError::internal(format!("stored amendment: {e}")))?;
    let mut changed = false;
    if inputs.get("result").is_some() {
        let renamed = self::inputs(&inputs["result"].to_string(), old, new)?;
        let renamed: serde_json::Value = serde_json::from_str(&renamed).map_err(|e| ApiError::internal(e.to_string()))?;
        changed |= renamed != inputs["result"];
        inputs["result"] = renamed;
    }
    if let Some(players) = results.get_mut("players").and_then(serde_json::Value::as_array_mut) {
        for player in players.iter_mut() {
            if player.as_str() == Some(old) {
                *player = serde_json::Value::from(new);
                changed = true;
            }
        }
    }
    if !changed {
        return Ok(None);
    }
    let (inputs, results) = (inputs.to_string(), results.to_string());
    let bytes = crate::model::entry_bytes(&inputs, joined_text, &results);
    Ok(Some(Renamed { seq, inputs, corrected: None, joined: joined_text.to_owned(), results, keys: None, bytes }))
}
