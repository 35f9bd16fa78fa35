//! A ladder as the server caches it: its row id, name and rules (the current season's and
//! the first season's). A leaf module: the stores load ladders, and the replay, amendments
//! and verify read them, without importing each other.

use ranking_elo::{Config, Rules};

use crate::error::ApiError;

/// A ladder as the server caches it.
#[derive(Debug, Clone)]
pub struct Ladder {
    /// Row id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The validated rules.
    pub rules: Rules,
    /// The canonical configuration JSON (what `PUT` compares).
    pub config_json: String,
    /// The season these rules are for (rules change only at season ends, so a report's
    /// transaction re-reads them when the ladder's season is another).
    pub season: i64,
    /// The first season's rules (a replay starts with them).
    pub initial_config_json: String,
    /// The server-side options (`PUT …/options`).
    pub options: LadderOptions,
}

/// A ladder's server-side options, which the engine's rules do not cover:
/// `PUT /v1/ladders/{ladder}/options` replaces them, `GET /v1/ladders/{ladder}` shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderOptions {
    /// Whether a player token may read other players' histories (by default it reads its own
    /// player's only; keys read every history).
    #[serde(default)]
    pub public_histories: bool,
    /// Whether only matches a queue made may be reported (by their match id): a guard
    /// against arranged results. Off by default.
    #[serde(default)]
    pub matched_only: bool,
    /// A player with fewer games is provisional: marked so in every read, and left out of
    /// the leaderboard and of everybody's ranks unless a read asks for them
    /// (`?provisional=include`). 0 (the default): nobody is provisional.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub provisional_games: u32,
    /// Rating periods (FIDE, USCF): pair matches are held when reported and rated together
    /// when the period ends (`POST …/periods/end`), each player's change rounded once
    /// ([`crate::periods`]). Off by default; team and free-for-all matches are refused while
    /// it is on. Turning it off leaves the matches already held for the next period end.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rating_periods: bool,
}

/// The most games `provisional_games` may ask for.
pub const MAX_PROVISIONAL_GAMES: u32 = 10_000;

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl LadderOptions {
    /// Options from a request body.
    ///
    /// # Errors
    /// 400 naming the field that is unknown or of the wrong type.
    pub fn from_body(body: &[u8]) -> Result<Self, ApiError> {
        let refuse = |e: String| ApiError::bad_request(format!("options: {e} (send an object; known: public_histories, matched_only, provisional_games, rating_periods)"));
        // (An object only: serde would also read a struct from an array.)
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| refuse(e.to_string()))?;
        if !value.is_object() {
            return Err(refuse("not an object".to_owned()));
        }
        let options: Self = serde_json::from_value(value).map_err(|e| refuse(e.to_string()))?;
        if options.provisional_games > MAX_PROVISIONAL_GAMES {
            return Err(ApiError::invalid("invalid_options", format!("options: provisional_games must be from 0 to {MAX_PROVISIONAL_GAMES} (got {})", options.provisional_games)));
        }
        Ok(options)
    }

    /// The stored JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

impl Ladder {
    /// A ladder from its stored row.
    ///
    /// # Errors
    /// 500 when the stored configuration no longer parses.
    pub fn from_row(id: i64, name: String, config_json: String, season: i64, initial_config_json: Option<String>) -> Result<Self, ApiError> {
        let rules = stored_rules(&config_json)?;
        let initial_config_json = initial_config_json.unwrap_or_else(|| config_json.clone());
        Ok(Self { id, name, rules, config_json, season, initial_config_json, options: LadderOptions::default() })
    }

    /// The ladder with its stored options.
    ///
    /// # Errors
    /// 500 when the stored text no longer parses.
    pub fn with_options(mut self, stored: &str) -> Result<Self, ApiError> {
        self.options = serde_json::from_str(stored).map_err(|e| ApiError::internal(format!("stored ladder options: {e}")))?;
        Ok(self)
    }

    /// The first season's rules.
    ///
    /// # Errors
    /// 500 when the stored configuration no longer parses.
    pub fn initial_rules(&self) -> Result<Rules, ApiError> {
        stored_rules(&self.initial_config_json)
    }

    /// The zero-sum total, when the ladder has one.
    #[must_use]
    pub fn zero_sum_total(&self) -> Option<f64> {
        self.rules.config().zero_sum_total
    }
}

/// The canonical JSON of a configuration: every field written out.
#[must_use]
pub fn canonical_config(rules: &Rules) -> String {
    rules.config().to_json()
}

/// Rules from the stored canonical JSON.
///
/// # Errors
/// 500 when the stored text no longer parses (it was written by this server).
pub fn stored_rules(json: &str) -> Result<Rules, ApiError> {
    Config::from_json(json).map_err(|e| ApiError::internal(format!("stored ladder configuration: {e}")))
}
