//! The rating configuration: every setting (`docs/configuration.md` lists each field), read from and written to
//! JSON, and its validated form [`Rules`].
//!
//! Every field has a default, so `{}` is the classic Elo system (logistic, c = 400,
//! K = 32, initial rating 1500). Unknown fields and out-of-range values are refused with
//! a message that names the field.
//!
//! ```
//! use ranking_elo::Config;
//!
//! let rules = Config::from_json(r#"{ "k_policy": { "policy": "constant", "k": 24 },
//!                                    "rounding": "half_away_from_zero" }"#).unwrap();
//! assert_eq!(rules.config().initial_rating, 1500.0);
//!
//! let error = Config::from_json(r#"{ "k_polcy": {} }"#).unwrap_err();
//! assert!(error.to_string().contains("k_polcy"));
//! let error = Config::from_json(r#"{ "expected_score": { "model": "logistic", "c": -1 } }"#).unwrap_err();
//! assert!(error.to_string().contains("expected_score.c"));
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Error, RATING_BOUND};
use crate::expected::{Expectation, ExpectedScoreModel};
use crate::json;
use crate::kpolicy::KPolicy;
use crate::league::{check_factor, check_rating_setting, Leagues};
use crate::outcome::Outcome;

/// Default initial rating `R_0` (`docs/configuration.md#ratings`).
pub const DEFAULT_INITIAL_RATING: f32 = 1500.0;

/// How the two players' K factors combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KCombine {
    /// Each player uses their own K; not zero-sum when the K differ.
    #[default]
    PerPlayer,
    /// Both use `(K_A + K_B) / 2`: zero-sum.
    Average,
}

/// How a rating change is rounded before it is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rounding {
    /// Fractional ratings.
    #[default]
    None,
    /// Toward zero, as integer Elo with an `(int)` cast.
    Truncate,
    /// To the nearest integer, halves away from zero (FIDE).
    HalfAwayFromZero,
}

impl Rounding {
    /// Rounds a rating change.
    #[inline(always)]
    #[must_use]
    pub fn apply(self, delta: f64) -> f64 {
        match self {
            Self::None => delta,
            Self::Truncate => delta.trunc(),
            Self::HalfAwayFromZero => delta.round(),
        }
    }
}

/// What the rounding applies to: the change (`R + round(delta)`) or the new rating
/// (`round(R + delta)`). They differ only for fractional ratings: from 1656.5 with a change
/// of -10.02, rounding the change gives 1646.5, rounding the rating 1646.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundingTarget {
    /// Round the change, then add it (FIDE's 8.3.4; the default).
    #[default]
    Change,
    /// Add the change, then round the new rating.
    Rating,
}

/// The configuration's `rounding` and `rounding_target` together: how a change is applied
/// to a rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoundingRule {
    /// How.
    pub rounding: Rounding,
    /// To what.
    pub target: RoundingTarget,
}

impl RoundingTarget {
    /// Whether this is the default, [`Self::Change`] (left out when a configuration is
    /// written, as every field added after 0.5.0 is when it has its default).
    #[must_use]
    pub fn is_change(&self) -> bool {
        *self == Self::Change
    }
}

impl RoundingRule {
    /// No rounding: fractional ratings.
    pub const NONE: Self = Self { rounding: Rounding::None, target: RoundingTarget::Change };

    /// The rating after a change, rounded as the rule says (before any floor).
    #[inline(always)]
    #[must_use]
    pub fn apply(self, rating: f64, delta: f64) -> f64 {
        match self.target {
            RoundingTarget::Change => rating + self.rounding.apply(delta),
            RoundingTarget::Rating => self.rounding.apply(rating + delta),
        }
    }
}

/// Which score enters the K term when a result is given as points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointsKTerm {
    /// The points share `P_X / (P_X + P_Y)` (the default).
    #[default]
    Share,
    /// The match result: 1, 1/2 or 0 (the points then feed only `L`).
    Result,
}

/// Every setting of the rating engine. Build one in code or with [`Config::from_json`],
/// then turn it into [`Rules`] with [`Config::validate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Expected-score model.
    pub expected_score: ExpectedScoreModel,
    /// Cap on the rating difference fed to the model (FIDE: 400); `None` for no cap.
    pub max_rating_difference: Option<f64>,
    /// Players rated at least this count the whole difference, uncapped (FIDE since
    /// October 2025: 2650); `None` when the cap holds for everybody.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rating_difference_exempt_from: Option<f32>,
    /// How each player's K is chosen.
    pub k_policy: KPolicy,
    /// Own K per player, or the average of both.
    pub k_combine: KCombine,
    /// Streak penalty `alpha`; 0 turns streak penalties off.
    pub streak_alpha: f64,
    /// Score in the K term when points are reported: the share (default) or the result.
    pub points_k_term: PointsKTerm,
    /// Score-share bonus `L` (`docs/configuration.md#results-and-bonuses`).
    pub score_share_bonus: f64,
    /// Victory bonus `V` (`docs/configuration.md#results-and-bonuses`).
    pub victory_bonus: f64,
    /// Rounding of rating changes.
    pub rounding: Rounding,
    /// What `rounding` applies to: the change (default) or the new rating.
    #[serde(skip_serializing_if = "RoundingTarget::is_change")]
    pub rounding_target: RoundingTarget,
    /// Rating floor `R_min`; `None` for no floor (`docs/configuration.md#ratings`).
    pub min_rating: Option<f32>,
    /// Rating of a new player `R_0`.
    pub initial_rating: f32,
    /// Leagues, lowest first; may be empty.
    pub leagues: Leagues,
    /// Zero-sum pools keep their rating total at this value; `None` for off.
    pub zero_sum_total: Option<f64>,
    /// A team's rating from its members' (team matches).
    pub team_rating: crate::rating::team::TeamRating,
    /// How a team's change is shared among its members.
    pub team_split: crate::rating::team::TeamSplit,
    /// What a free-for-all's summed pair terms are divided by.
    pub placement_normalization: crate::rating::placement::PlacementNormalization,
    /// League hysteresis: a player is demoted only once the rating is more than this
    /// below the held league's lower bound (0: at the bound, as plain leagues by rating).
    pub demotion_margin: f64,
    /// Games after a promotion during which no demotion happens (0: none).
    pub protected_games: u32,
    /// The soft reset at a season's end.
    pub season_reset: crate::rating::season_rules::SeasonReset,
    /// Inactivity decay (off unless `points_per_day` is set).
    pub decay: crate::rating::season_rules::Decay,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            expected_score: ExpectedScoreModel::default(),
            max_rating_difference: None,
            max_rating_difference_exempt_from: None,
            k_policy: KPolicy::default(),
            k_combine: KCombine::default(),
            streak_alpha: 0.0,
            points_k_term: PointsKTerm::Share,
            score_share_bonus: 0.0,
            victory_bonus: 0.0,
            rounding: Rounding::default(),
            rounding_target: RoundingTarget::default(),
            min_rating: None,
            initial_rating: DEFAULT_INITIAL_RATING,
            leagues: Leagues::default(),
            zero_sum_total: None,
            team_rating: crate::rating::team::TeamRating::Mean,
            team_split: crate::rating::team::TeamSplit::Equal,
            placement_normalization: crate::rating::placement::PlacementNormalization::NMinusOne,
            demotion_margin: 0.0,
            protected_games: 0,
            season_reset: crate::rating::season_rules::SeasonReset::default(),
            decay: crate::rating::season_rules::Decay::default(),
        }
    }
}

impl Config {
    /// Parses and validates a JSON configuration.
    ///
    /// # Errors
    /// [`Error::InvalidJson`] for malformed JSON or a value of the wrong type,
    /// [`Error::UnknownJsonField`] for a field the engine does not know, and
    /// [`Error::InvalidConfig`] for out-of-range or inconsistent settings. Every message
    /// names the field.
    pub fn from_json(json: &str) -> Result<Rules, Error> {
        let config = json::read_text(json, "the configuration", json::records::config).map_err(|error| match error {
            json::JsonError { message, unknown_field: true } => Error::UnknownJsonField(message),
            json::JsonError { message, unknown_field: false } => Error::InvalidJson(message),
        })?;
        Ok(config.validate()?)
    }

    /// The configuration as JSON, every field written out (so the output documents the
    /// defaults). [`Config::from_json`] reads it back to an identical configuration.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut writer = json::Writer::new(true);
        json::records::write_config(&mut writer, self);
        writer.finish()
    }

    /// Checks every setting and precomputes what the math needs.
    ///
    /// # Errors
    /// The first setting that is out of range, with its path.
    pub fn validate(self) -> Result<Rules, ConfigError> {
        self.expected_score.validate("expected_score")?;
        if let Some(cap) = self.max_rating_difference {
            if !(cap.is_finite() && cap > 0.0 && cap <= 2.0 * RATING_BOUND) {
                return Err(ConfigError::new("max_rating_difference", format!("must be a finite number greater than 0 and at most 2e15 (got {cap})")));
            }
        }
        if let Some(exempt) = self.max_rating_difference_exempt_from {
            check_rating_setting(f64::from(exempt), "max_rating_difference_exempt_from")?;
            if self.max_rating_difference.is_none() {
                return Err(ConfigError::new("max_rating_difference_exempt_from", "exempts players from max_rating_difference, which is not set: set both or neither"));
            }
        }
        self.leagues.validate("leagues")?;
        self.k_policy.validate("k_policy", &self.leagues)?;
        check_factor(self.streak_alpha, "streak_alpha")?;
        check_factor(self.score_share_bonus, "score_share_bonus")?;
        check_factor(self.victory_bonus, "victory_bonus")?;
        check_rating_setting(f64::from(self.initial_rating), "initial_rating")?;
        if let Some(floor) = self.min_rating {
            check_rating_setting(f64::from(floor), "min_rating")?;
            if self.zero_sum_total.is_some() {
                return Err(ConfigError::new(
                    "min_rating",
                    "a rating floor cannot be honoured together with zero_sum_total (the total stays fixed, so a floor could not hold): set one of them",
                ));
            }
            if self.initial_rating < floor {
                return Err(ConfigError::new("initial_rating", format!("must not be below min_rating ({} < {floor})", self.initial_rating)));
            }
        }
        if let Some(total) = self.zero_sum_total {
            check_rating_setting(total, "zero_sum_total")?;
        }
        if !(self.demotion_margin >= 0.0 && self.demotion_margin <= RATING_BOUND) {
            return Err(ConfigError::new("demotion_margin", format!("must be a finite number from 0 to 1e15 (got {})", self.demotion_margin)));
        }
        if self.protected_games > crate::rating::standing::MAX_PROTECTED_GAMES {
            return Err(ConfigError::new("protected_games", format!("must be at most 65535 (got {})", self.protected_games)));
        }
        self.season_reset.validate("season_reset")?;
        self.decay.validate("decay", &self.leagues)?;
        let league_bonuses = self.leagues.as_slice().iter().any(|league| league.score_share_bonus.is_some() || league.victory_bonus.is_some());
        let mut expectation = self.expected_score.prepare(self.max_rating_difference);
        expectation.exempt_from = self.max_rating_difference_exempt_from.map_or(f64::INFINITY, f64::from);
        Ok(Rules { expectation, floor: self.min_rating.map_or(f64::NEG_INFINITY, f64::from), league_bonuses, config: self })
    }
}

/// A validated [`Config`] with the constants of its formulas precomputed: what every
/// rating function takes. Cheap to share (`&Rules`), immutable, `Send + Sync`.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    pub(crate) config: Config,
    pub(crate) expectation: Expectation,
    /// `R_min`, or `-inf` for none.
    pub(crate) floor: f64,
    /// Whether any league overrides `L` or `V`.
    pub(crate) league_bonuses: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Config::default().validate().unwrap_or_else(|_| unreachable!("the default configuration is valid"))
    }
}

impl Rules {
    /// The configuration these rules were made from.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The prepared expected-score model.
    #[must_use]
    pub fn expectation(&self) -> &Expectation {
        &self.expectation
    }

    /// How changes are rounded and applied (`rounding`, `rounding_target`).
    #[inline(always)]
    #[must_use]
    pub fn rounding_rule(&self) -> RoundingRule {
        RoundingRule { rounding: self.config.rounding, target: self.config.rounding_target }
    }

    /// The outcome of a match reported as points, with the score in the K term chosen by
    /// `points_k_term`: the share `P_A / (P_A + P_B)` or the result (1, 1/2, 0). The share
    /// always feeds `L` and the result `V`.
    ///
    /// # Errors
    /// Negative, NaN or infinite points.
    pub fn outcome_from_points(&self, points_a: f64, points_b: f64) -> Result<Outcome, Error> {
        let shared = Outcome::from_points(points_a, points_b)?;
        Ok(match self.config.points_k_term {
            PointsKTerm::Share => shared,
            PointsKTerm::Result => Outcome { score_a: shared.result_a(), share_a: shared.share_a },
        })
    }

    /// Expected score of A against B under these rules, in `[0, 1]`.
    #[must_use]
    pub fn expected_score(&self, rating_a: f32, rating_b: f32) -> f64 {
        self.expectation.expected_a(rating_a, rating_b)
    }

    /// Index of the league a rating belongs to (0 when no leagues are configured).
    #[must_use]
    pub fn league_of(&self, rating: f32) -> usize {
        self.config.leagues.league_of(rating)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpolicy::RatingTier;

    #[test]
    fn empty_object_is_the_default() {
        assert_eq!(Config::from_json("{}").unwrap(), Rules::default());
    }

    #[test]
    fn json_round_trip_is_exact() {
        let mut config = Config {
            k_policy: KPolicy::RatingBands { tiers: vec![RatingTier { below: Some(2100.0), k: 32.0 }, RatingTier { below: None, k: 16.0 }] },
            rounding: Rounding::Truncate,
            min_rating: Some(100.0),
            max_rating_difference: Some(400.0),
            ..Config::default()
        };
        config.victory_bonus = 0.1;
        let text = config.to_json();
        assert_eq!(Config::from_json(&text).unwrap().config, config);
    }

    #[test]
    fn type_errors_are_in_plain_words() {
        let cases = [
            (r#"{"demotion_margin": "30"}"#, r#"invalid configuration JSON: demotion_margin: expected a number (got the string "30") at line 1 column 24"#),
            (r#"{"protected_games": -1}"#, "invalid configuration JSON: protected_games: expected a whole number from 0 to 4294967295 (got the number -1) at line 1 column 22"),
            (r#"{"protected_games": 1.5}"#, "invalid configuration JSON: protected_games: expected a whole number from 0 to 4294967295 (got the number 1.5) at line 1 column 23"),
            (r#"{"initial_rating": true}"#, "invalid configuration JSON: initial_rating: expected a number (got true) at line 1 column 23"),
            (r#"{"leagues": {}}"#, "invalid configuration JSON: leagues: expected a list ([...]) (got an object) at line 1 column 13"),
            (r#"{"k_policy": 5}"#, "invalid configuration JSON: k_policy: expected an object ({...}) (got the number 5) at line 1 column 14"),
            (r#"{"leagues": [{"min_rating": 0}]}"#, r#"invalid configuration JSON: leagues[0]: the field "name" is missing (it is required here) at line 1 column 30"#),
            (r#"{"rounding": "up"}"#, r#"invalid configuration JSON: rounding: unknown value "up": expected one of "none", "truncate", "half_away_from_zero" at line 1 column 17"#),
            (r#"{"rounding": 5}"#, r#"invalid configuration JSON: rounding: expected one of "none", "truncate", "half_away_from_zero" (got the number 5) at line 1 column 14"#),
            (
                r#"{"season_reset": {"anchor": null}}"#,
                r#"invalid configuration JSON: season_reset.anchor: expected "initial_rating" or "pool_mean" (got null) at line 1 column 32"#,
            ),
        ];
        for (json, expected) in cases {
            assert_eq!(Config::from_json(json).unwrap_err().to_string(), expected, "{json}");
        }
    }

    #[test]
    fn league_k_is_needed_only_by_the_league_policy() {
        let leagues = r#""leagues": [{"name": "Bronze", "min_rating": 0}, {"name": "Silver", "min_rating": 1600}]"#;
        let rules = Config::from_json(&format!("{{{leagues}}}")).unwrap();
        assert_eq!(rules.config().leagues.as_slice()[1].k, None);
        assert!(!rules.config().to_json().contains("\"k\": null"));
        let message = Config::from_json(&format!(r#"{{"k_policy": {{"policy": "league"}}, {leagues}}}"#)).unwrap_err().to_string();
        assert_eq!(
            message,
            r#"invalid configuration: leagues[0].k: is missing: the league K policy (k_policy.policy) takes each player's K from the league, so every league needs "k""#
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (r#"{"k_policy":{"policy":"constant","k":-1}}"#, "k_policy.k"),
            (r#"{"expected_score":{"model":"normal","beta":0}}"#, "expected_score.beta"),
            (r#"{"streak_alpha":-0.5}"#, "streak_alpha"),
            (r#"{"min_rating":2000,"initial_rating":1500}"#, "initial_rating"),
            (r#"{"k_policy":{"policy":"league"}}"#, "k_policy.policy"),
            // Inside tagged objects too the path names the field.
            (r#"{"k_policy":{"policy":"constant","k":"x"}}"#, "k_policy.k: expected a number (got the string \"x\")"),
            (r#"{"leagues":[{"name":"A","min_rating":0,"k":1,"kk":2}]}"#, "kk"),
            (r#"{"expected_score":{"model":"logistic","scale":3}}"#, "scale"),
            (r#"{"k_policy":{"policy":"elo"}}"#, "k_policy"),
        ];
        for (json, field) in cases {
            let message = Config::from_json(json).unwrap_err().to_string();
            assert!(message.contains(field), "{json}: {message}");
        }
        assert!(matches!(Config::from_json(r#"{"x":1}"#), Err(Error::UnknownJsonField(_))));
        assert!(matches!(Config::from_json(r#"{"k_policy":{"policy":"league","x":1}}"#), Err(Error::UnknownJsonField(_))));
        assert!(matches!(Config::from_json("{"), Err(Error::InvalidJson(_))));
        assert!(matches!(Config::from_json("{} {}"), Err(Error::InvalidJson(_))));
        assert!(matches!(Config::from_json(r#"{"k_policy":{"policy":"constant","k":-1}}"#), Err(Error::InvalidConfig(_))));
    }
}
