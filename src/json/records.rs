//! The configuration and the player record in JSON, read and written by hand: each type's
//! fields, defaults and names, in the order its declaration gives them (the order messages
//! list them in and serde writes them in). `tests/json_reading.rs` checks that the readers
//! and the types' serde derives agree on every value, the unit tests below that the writers
//! write what `serde_json` writes.

use super::read::{Read, Reader};
use super::write::Writer;
use crate::config::{Config, KCombine, PointsKTerm, Rounding, RoundingTarget};
use crate::expected::{ExpectedScoreModel, DEFAULT_LINEAR_SLOPE, DEFAULT_LOGISTIC_SCALE, DEFAULT_NORMAL_BETA};
use crate::kpolicy::{GamesTier, KPolicy, RatingTier, DEFAULT_K};
use crate::league::{League, Leagues};
use crate::placement::PlacementNormalization;
use crate::player::PlayerState;
use crate::rating::season_rules::{Decay, ResetAnchor, SeasonReset};
use crate::team::{TeamRating, TeamSplit};

/// The names of [`KCombine`]'s values, in declaration order (as for every table below).
const K_COMBINE: [&str; 2] = ["per_player", "average"];
/// [`PointsKTerm`].
const POINTS_K_TERM: [&str; 2] = ["share", "result"];
/// [`Rounding`].
const ROUNDING: [&str; 3] = ["none", "truncate", "half_away_from_zero"];
/// [`RoundingTarget`].
const ROUNDING_TARGET: [&str; 2] = ["change", "rating"];
/// [`TeamRating`].
const TEAM_RATING: [&str; 3] = ["mean", "sum", "weighted_mean"];
/// [`TeamSplit`].
const TEAM_SPLIT: [&str; 2] = ["equal", "weights"];
/// [`PlacementNormalization`].
const PLACEMENT_NORMALIZATION: [&str; 2] = ["n_minus_one", "none"];
/// [`ResetAnchor`].
const RESET_ANCHOR: [&str; 2] = ["initial_rating", "pool_mean"];
/// [`ExpectedScoreModel`]'s variants (the tag `model`).
const MODELS: [&str; 4] = ["logistic", "linear", "normal", "fide_table"];
/// [`KPolicy`]'s variants (the tag `policy`).
const POLICIES: [&str; 5] = ["constant", "fide", "games_played", "rating_bands", "league"];
/// A league's fields.
const LEAGUE_FIELDS: [&str; 6] = ["name", "min_rating", "k", "score_share_bonus", "victory_bonus", "season_keep"];
/// The decay's fields.
const DECAY_FIELDS: [&str; 5] = ["grace_days", "points_per_day", "min_rating", "min_league", "floor"];

/// The fields of a configuration.
const CONFIG_FIELDS: [&str; 22] = [
    "expected_score",
    "max_rating_difference",
    "max_rating_difference_exempt_from",
    "k_policy",
    "k_combine",
    "streak_alpha",
    "points_k_term",
    "score_share_bonus",
    "victory_bonus",
    "rounding",
    "rounding_target",
    "min_rating",
    "initial_rating",
    "leagues",
    "zero_sum_total",
    "team_rating",
    "team_split",
    "placement_normalization",
    "demotion_margin",
    "protected_games",
    "season_reset",
    "decay",
];

/// Reads a configuration (every field optional, defaults from [`Config::default`]).
pub(crate) fn config(reader: &mut Reader<'_>) -> Read<Config> {
    let mut config = Config::default();
    reader.object(&CONFIG_FIELDS, 0, "", &mut |reader, field| {
        match field {
            0 => config.expected_score = expected_score(reader)?,
            1 => config.max_rating_difference = reader.optional(Reader::f64)?,
            2 => config.max_rating_difference_exempt_from = reader.optional(Reader::f32)?,
            3 => config.k_policy = k_policy(reader)?,
            4 => config.k_combine = [KCombine::PerPlayer, KCombine::Average][reader.name(&K_COMBINE)?],
            5 => config.streak_alpha = reader.f64()?,
            6 => config.points_k_term = [PointsKTerm::Share, PointsKTerm::Result][reader.name(&POINTS_K_TERM)?],
            7 => config.score_share_bonus = reader.f64()?,
            8 => config.victory_bonus = reader.f64()?,
            9 => config.rounding = [Rounding::None, Rounding::Truncate, Rounding::HalfAwayFromZero][reader.name(&ROUNDING)?],
            10 => config.rounding_target = [RoundingTarget::Change, RoundingTarget::Rating][reader.name(&ROUNDING_TARGET)?],
            11 => config.min_rating = reader.optional(Reader::f32)?,
            12 => config.initial_rating = reader.f32()?,
            13 => config.leagues = leagues(reader)?,
            14 => config.zero_sum_total = reader.optional(Reader::f64)?,
            15 => config.team_rating = [TeamRating::Mean, TeamRating::Sum, TeamRating::WeightedMean][reader.name(&TEAM_RATING)?],
            16 => config.team_split = [TeamSplit::Equal, TeamSplit::Weights][reader.name(&TEAM_SPLIT)?],
            17 => config.placement_normalization = [PlacementNormalization::NMinusOne, PlacementNormalization::None][reader.name(&PLACEMENT_NORMALIZATION)?],
            18 => config.demotion_margin = reader.f64()?,
            19 => config.protected_games = reader.u32()?,
            20 => config.season_reset = season_reset(reader)?,
            21 => config.decay = decay(reader)?,
            _ => unreachable!("Reader::object passes only indices of the fields it is given"),
        }
        Ok(())
    })?;
    Ok(config)
}

/// Reads the expected-score model, tagged by `model`.
fn expected_score(reader: &mut Reader<'_>) -> Read<ExpectedScoreModel> {
    let variant = reader.variant("model", &MODELS)?;
    if variant == 3 {
        reader.object(&[], 0, "model", &mut |_, _| Ok(()))?;
        return Ok(ExpectedScoreModel::FideTable {});
    }
    let (field, default) = [("c", DEFAULT_LOGISTIC_SCALE), ("k", DEFAULT_LINEAR_SLOPE), ("beta", DEFAULT_NORMAL_BETA)][variant];
    let value = tagged_field(reader, "model", field, default, Reader::f64)?;
    Ok([ExpectedScoreModel::Logistic { c: value }, ExpectedScoreModel::Linear { k: value }, ExpectedScoreModel::Normal { beta: value }][variant])
}

/// Reads the K policy, tagged by `policy`.
fn k_policy(reader: &mut Reader<'_>) -> Read<KPolicy> {
    Ok(match reader.variant("policy", &POLICIES)? {
        0 => KPolicy::Constant { k: tagged_field(reader, "policy", "k", DEFAULT_K, Reader::f64)? },
        1 => KPolicy::Fide { period_rule: tagged_field(reader, "policy", "period_rule", false, Reader::bool)? },
        2 => KPolicy::GamesPlayed { tiers: tiers(reader, Reader::u32, |below, k| GamesTier { below, k })? },
        3 => KPolicy::RatingBands { tiers: tiers(reader, Reader::f32, |below, k| RatingTier { below, k })? },
        _ => {
            reader.object(&[], 0, "policy", &mut |_, _| Ok(()))?;
            KPolicy::League {}
        }
    })
}

/// Reads a tagged object (its tag `tag` already read by [`Reader::variant`]) whose one
/// field `field` is optional: read by `read`, `default` when absent.
fn tagged_field<'a, T>(reader: &mut Reader<'a>, tag: &str, field: &str, default: T, read: fn(&mut Reader<'a>) -> Read<T>) -> Read<T> {
    let mut value = default;
    reader.object(&[field], 0, tag, &mut |reader, _| {
        value = read(reader)?;
        Ok(())
    })?;
    Ok(value)
}

/// Reads a K policy tagged `policy` whose one field `tiers` (required) lists tiers: each
/// `below` (optional, read by `below`) and `k` (required), made into a `U` by `tier`.
fn tiers<'a, T, U>(reader: &mut Reader<'a>, below: fn(&mut Reader<'a>) -> Read<T>, tier: fn(Option<T>, f64) -> U) -> Read<Vec<U>> {
    let mut tiers = Vec::new();
    reader.object(&["tiers"], 1, "policy", &mut |reader, _| {
        reader.list(&mut |reader| {
            let (mut bound, mut k) = (None, 0.0);
            reader.object(&["below", "k"], 0b10, "", &mut |reader, field| {
                if field == 0 {
                    bound = reader.optional(below)?;
                } else {
                    k = reader.f64()?;
                }
                Ok(())
            })?;
            tiers.push(tier(bound, k));
            Ok(())
        })
    })?;
    Ok(tiers)
}

/// Reads the list of leagues.
fn leagues(reader: &mut Reader<'_>) -> Read<Leagues> {
    let mut leagues = Vec::new();
    reader.list(&mut |reader| {
        let mut league = League { name: String::new(), min_rating: 0.0, k: None, score_share_bonus: None, victory_bonus: None, season_keep: None };
        reader.object(&LEAGUE_FIELDS, 0b11, "", &mut |reader, field| {
            match field {
                0 => league.name = reader.string_value()?,
                1 => league.min_rating = reader.f32()?,
                2 => league.k = reader.optional(Reader::f64)?,
                3 => league.score_share_bonus = reader.optional(Reader::f64)?,
                4 => league.victory_bonus = reader.optional(Reader::f64)?,
                5 => league.season_keep = reader.optional(Reader::f64)?,
                _ => unreachable!("Reader::object passes only indices of the fields it is given"),
            }
            Ok(())
        })?;
        leagues.push(league);
        Ok(())
    })?;
    Ok(Leagues(leagues))
}

/// Reads the season reset.
fn season_reset(reader: &mut Reader<'_>) -> Read<SeasonReset> {
    let mut reset = SeasonReset::default();
    reader.object(&["anchor", "keep"], 0, "", &mut |reader, field| {
        if field == 0 {
            reset.anchor = [ResetAnchor::InitialRating, ResetAnchor::PoolMean][reader.name(&RESET_ANCHOR)?];
        } else {
            reset.keep = reader.f64()?;
        }
        Ok(())
    })?;
    Ok(reset)
}

/// Reads the inactivity decay.
fn decay(reader: &mut Reader<'_>) -> Read<Decay> {
    let mut decay = Decay::default();
    reader.object(&DECAY_FIELDS, 0, "", &mut |reader, field| {
        match field {
            0 => decay.grace_days = reader.f64()?,
            1 => decay.points_per_day = reader.f64()?,
            2 => decay.min_rating = reader.optional(Reader::f32)?,
            3 => decay.min_league = reader.optional(Reader::u32)?,
            4 => decay.floor = reader.optional(Reader::f32)?,
            _ => unreachable!("Reader::object passes only indices of the fields it is given"),
        }
        Ok(())
    })?;
    Ok(decay)
}

/// The fields of a player record.
const PLAYER_FIELDS: [&str; 13] = [
    "rating",
    "games_played",
    "win_streak",
    "period_games",
    "is_junior",
    "has_reached_2400",
    "league",
    "protected_games",
    "season_games",
    "season_wins",
    "peak_rating",
    "peak_league",
    "last_played",
];

/// Reads a player record (only `rating` is required; a missing `peak_rating` is
/// `f32::MIN`, which a pool replaces with the rating on load).
pub(crate) fn player(reader: &mut Reader<'_>) -> Read<PlayerState> {
    let mut player = PlayerState { peak_rating: f32::MIN, ..PlayerState::new(0.0) };
    reader.object(&PLAYER_FIELDS, 1, "", &mut |reader, field| {
        match field {
            0 => player.rating = reader.f32()?,
            1 => player.games_played = reader.u32()?,
            2 => player.win_streak = reader.u32()?,
            3 => player.period_games = reader.u32()?,
            4 => player.is_junior = reader.bool()?,
            5 => player.has_reached_2400 = reader.bool()?,
            6 => player.league = reader.optional(Reader::u32)?,
            7 => player.protected_games = reader.u32()?,
            8 => player.season_games = reader.u32()?,
            9 => player.season_wins = reader.u32()?,
            10 => player.peak_rating = reader.f32()?,
            11 => player.peak_league = reader.u32()?,
            12 => player.last_played = reader.f64()?,
            _ => unreachable!("Reader::object passes only indices of the fields it is given"),
        }
        Ok(())
    })?;
    Ok(player)
}

/// Writes `value` under `key` when it is there (serde's `skip_serializing_if = "Option::is_none"`).
fn some<T: Copy>(writer: &mut Writer, key: &str, value: Option<T>, write: fn(&mut Writer, T)) {
    if let Some(value) = value {
        writer.key(key);
        write(writer, value);
    }
}

/// Writes `value`, or `null`.
fn or_null<T: Copy>(writer: &mut Writer, value: Option<T>, write: fn(&mut Writer, T)) {
    match value {
        Some(value) => write(writer, value),
        None => writer.null(),
    }
}

/// Writes a configuration, every field (`Config::to_json`).
pub(crate) fn write_config(writer: &mut Writer, config: &Config) {
    let name = |writer: &mut Writer, key: &str, names: &[&str], index: usize| {
        writer.key(key);
        writer.string(names[index]);
    };
    writer.open('{');
    writer.key(CONFIG_FIELDS[0]);
    write_expected_score(writer, config.expected_score);
    writer.key(CONFIG_FIELDS[1]);
    or_null(writer, config.max_rating_difference, Writer::f64);
    // The fields added after 0.5.0 are written only when set, so that every configuration
    // written before them is written with the same bytes (saves and journals hold them).
    some(writer, CONFIG_FIELDS[2], config.max_rating_difference_exempt_from, Writer::f32);
    writer.key(CONFIG_FIELDS[3]);
    write_k_policy(writer, &config.k_policy);
    name(writer, CONFIG_FIELDS[4], &K_COMBINE, config.k_combine as usize);
    writer.key(CONFIG_FIELDS[5]);
    writer.f64(config.streak_alpha);
    name(writer, CONFIG_FIELDS[6], &POINTS_K_TERM, config.points_k_term as usize);
    writer.key(CONFIG_FIELDS[7]);
    writer.f64(config.score_share_bonus);
    writer.key(CONFIG_FIELDS[8]);
    writer.f64(config.victory_bonus);
    name(writer, CONFIG_FIELDS[9], &ROUNDING, config.rounding as usize);
    if config.rounding_target != RoundingTarget::Change {
        name(writer, CONFIG_FIELDS[10], &ROUNDING_TARGET, config.rounding_target as usize);
    }
    writer.key(CONFIG_FIELDS[11]);
    or_null(writer, config.min_rating, Writer::f32);
    writer.key(CONFIG_FIELDS[12]);
    writer.f32(config.initial_rating);
    writer.key(CONFIG_FIELDS[13]);
    writer.open('[');
    for league in config.leagues.as_slice() {
        writer.item();
        writer.open('{');
        writer.key(LEAGUE_FIELDS[0]);
        writer.string(&league.name);
        writer.key(LEAGUE_FIELDS[1]);
        writer.f32(league.min_rating);
        for (key, value) in LEAGUE_FIELDS[2..].iter().zip([league.k, league.score_share_bonus, league.victory_bonus, league.season_keep]) {
            some(writer, key, value, Writer::f64);
        }
        writer.close('}');
    }
    writer.close(']');
    writer.key(CONFIG_FIELDS[14]);
    or_null(writer, config.zero_sum_total, Writer::f64);
    name(writer, CONFIG_FIELDS[15], &TEAM_RATING, config.team_rating as usize);
    name(writer, CONFIG_FIELDS[16], &TEAM_SPLIT, config.team_split as usize);
    name(writer, CONFIG_FIELDS[17], &PLACEMENT_NORMALIZATION, config.placement_normalization as usize);
    writer.key(CONFIG_FIELDS[18]);
    writer.f64(config.demotion_margin);
    writer.key(CONFIG_FIELDS[19]);
    writer.whole(u64::from(config.protected_games));
    writer.key(CONFIG_FIELDS[20]);
    writer.open('{');
    name(writer, "anchor", &RESET_ANCHOR, config.season_reset.anchor as usize);
    writer.key("keep");
    writer.f64(config.season_reset.keep);
    writer.close('}');
    writer.key(CONFIG_FIELDS[21]);
    writer.open('{');
    writer.key(DECAY_FIELDS[0]);
    writer.f64(config.decay.grace_days);
    writer.key(DECAY_FIELDS[1]);
    writer.f64(config.decay.points_per_day);
    some(writer, DECAY_FIELDS[2], config.decay.min_rating, Writer::f32);
    some(writer, DECAY_FIELDS[3], config.decay.min_league.map(u64::from), Writer::whole);
    some(writer, DECAY_FIELDS[4], config.decay.floor, Writer::f32);
    writer.close('}');
    writer.close('}');
}

/// Writes the expected-score model: its tag first, then its parameter.
fn write_expected_score(writer: &mut Writer, model: ExpectedScoreModel) {
    let (variant, key, value) = match model {
        ExpectedScoreModel::Logistic { c } => (0, "c", c),
        ExpectedScoreModel::Linear { k } => (1, "k", k),
        ExpectedScoreModel::Normal { beta } => (2, "beta", beta),
        ExpectedScoreModel::FideTable {} => (3, "", 0.0),
    };
    writer.open('{');
    writer.key("model");
    writer.string(MODELS[variant]);
    if variant != 3 {
        writer.key(key);
        writer.f64(value);
    }
    writer.close('}');
}

/// Writes the K policy: its tag first, then its fields.
fn write_k_policy(writer: &mut Writer, policy: &KPolicy) {
    let variant = match policy {
        KPolicy::Constant { .. } => 0,
        KPolicy::Fide { .. } => 1,
        KPolicy::GamesPlayed { .. } => 2,
        KPolicy::RatingBands { .. } => 3,
        KPolicy::League {} => 4,
    };
    writer.open('{');
    writer.key("policy");
    writer.string(POLICIES[variant]);
    match policy {
        KPolicy::Constant { k } => {
            writer.key("k");
            writer.f64(*k);
        }
        KPolicy::Fide { period_rule } => {
            writer.key("period_rule");
            writer.bool(*period_rule);
        }
        KPolicy::GamesPlayed { tiers } => write_tiers(writer, tiers.iter().map(|tier| (tier.below.map(u64::from), tier.k)), Writer::whole),
        KPolicy::RatingBands { tiers } => write_tiers(writer, tiers.iter().map(|tier| (tier.below, tier.k)), Writer::f32),
        KPolicy::League {} => {}
    }
    writer.close('}');
}

/// Writes a K policy's tiers: `below` (games or a rating, written by `below`), `k`.
fn write_tiers<T: Copy>(writer: &mut Writer, tiers: impl Iterator<Item = (Option<T>, f64)>, below: fn(&mut Writer, T)) {
    writer.key("tiers");
    writer.open('[');
    for (bound, k) in tiers {
        writer.item();
        writer.open('{');
        some(writer, "below", bound, below);
        writer.key("k");
        writer.f64(k);
        writer.close('}');
    }
    writer.close(']');
}

/// Writes a player record (`league` only when placed).
pub(crate) fn write_player(writer: &mut Writer, player: &PlayerState) {
    writer.open('{');
    writer.key(PLAYER_FIELDS[0]);
    writer.f32(player.rating);
    for (key, value) in PLAYER_FIELDS[1..4].iter().zip([player.games_played, player.win_streak, player.period_games]) {
        writer.key(key);
        writer.whole(u64::from(value));
    }
    writer.key(PLAYER_FIELDS[4]);
    writer.bool(player.is_junior);
    writer.key(PLAYER_FIELDS[5]);
    writer.bool(player.has_reached_2400);
    some(writer, PLAYER_FIELDS[6], player.league.map(u64::from), Writer::whole);
    for (key, value) in PLAYER_FIELDS[7..10].iter().zip([player.protected_games, player.season_games, player.season_wins]) {
        writer.key(key);
        writer.whole(u64::from(value));
    }
    writer.key(PLAYER_FIELDS[10]);
    writer.f32(player.peak_rating);
    writer.key(PLAYER_FIELDS[11]);
    writer.whole(u64::from(player.peak_league));
    writer.key(PLAYER_FIELDS[12]);
    writer.f64(player.last_played);
    writer.close('}');
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Any `f64`, finite or not, often a plain one.
    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![any::<f64>(), -3000.0_f64..3000.0, Just(0.0), Just(-0.0), Just(f64::NAN)]
    }

    fn any_f32() -> impl Strategy<Value = f32> {
        prop_oneof![any::<f32>(), -3000.0_f32..3000.0, Just(-0.0)]
    }

    fn policy() -> impl Strategy<Value = KPolicy> {
        let games = proptest::collection::vec((proptest::option::of(any::<u32>()), any_f64()).prop_map(|(below, k)| GamesTier { below, k }), 0..3);
        let bands = proptest::collection::vec((proptest::option::of(any_f32()), any_f64()).prop_map(|(below, k)| RatingTier { below, k }), 0..3);
        prop_oneof![
            any_f64().prop_map(|k| KPolicy::Constant { k }),
            any::<bool>().prop_map(|period_rule| KPolicy::Fide { period_rule }),
            games.prop_map(|tiers| KPolicy::GamesPlayed { tiers }),
            bands.prop_map(|tiers| KPolicy::RatingBands { tiers }),
            Just(KPolicy::League {}),
        ]
    }

    fn league() -> impl Strategy<Value = League> {
        let optional = || proptest::option::of(any_f64());
        ("[ -~é\u{0}-\u{1f}\"\\\\]{0,8}", any_f32(), optional(), optional(), optional(), optional())
            .prop_map(|(name, min_rating, k, score_share_bonus, victory_bonus, season_keep)| League { name, min_rating, k, score_share_bonus, victory_bonus, season_keep })
    }

    prop_compose! {
        fn config()(
            model in (0..4_usize, any_f64()),
            cap in proptest::option::of(any_f64()),
            exempt in proptest::option::of(any_f32()),
            target in any::<bool>(),
            k_policy in policy(),
            names in proptest::array::uniform8(0..3_usize),
            factors in proptest::array::uniform4(any_f64()),
            min_rating in proptest::option::of(any_f32()),
            initial_rating in any_f32(),
            leagues in proptest::collection::vec(league(), 0..3),
            zero_sum_total in proptest::option::of(any_f64()),
            protected_games in any::<u32>(),
            keep in any_f64(),
            decay in (any_f64(), any_f64(), proptest::option::of(any_f32()), proptest::option::of(any::<u32>()), proptest::option::of(any_f32())),
        ) -> Config {
            let (variant, value) = model;
            Config {
                expected_score: [ExpectedScoreModel::Logistic { c: value }, ExpectedScoreModel::Linear { k: value }, ExpectedScoreModel::Normal { beta: value }, ExpectedScoreModel::FideTable {}][variant],
                max_rating_difference: cap,
                max_rating_difference_exempt_from: exempt,
                k_policy,
                k_combine: [KCombine::PerPlayer, KCombine::Average][names[0] % 2],
                streak_alpha: factors[0],
                points_k_term: [PointsKTerm::Share, PointsKTerm::Result][names[1] % 2],
                score_share_bonus: factors[1],
                victory_bonus: factors[2],
                rounding: [Rounding::None, Rounding::Truncate, Rounding::HalfAwayFromZero][names[2]],
                rounding_target: if target { RoundingTarget::Rating } else { RoundingTarget::Change },
                min_rating,
                initial_rating,
                leagues: Leagues(leagues),
                zero_sum_total,
                team_rating: [TeamRating::Mean, TeamRating::Sum, TeamRating::WeightedMean][names[3]],
                team_split: [TeamSplit::Equal, TeamSplit::Weights][names[4] % 2],
                placement_normalization: [PlacementNormalization::NMinusOne, PlacementNormalization::None][names[5] % 2],
                demotion_margin: factors[3],
                protected_games,
                season_reset: SeasonReset { anchor: [ResetAnchor::InitialRating, ResetAnchor::PoolMean][names[6] % 2], keep },
                decay: Decay { grace_days: decay.0, points_per_day: decay.1, min_rating: decay.2, min_league: decay.3, floor: decay.4 },
            }
        }
    }

    prop_compose! {
        pub(crate) fn player()(
            rating in any_f32(),
            counts in proptest::array::uniform8(any::<u32>()),
            flags in any::<(bool, bool)>(),
            league in proptest::option::of(any::<u32>()),
            peak_rating in any_f32(),
            last_played in any_f64(),
        ) -> PlayerState {
            PlayerState {
                rating,
                games_played: counts[0],
                win_streak: counts[1],
                period_games: counts[2],
                is_junior: flags.0,
                has_reached_2400: flags.1,
                league,
                protected_games: counts[3],
                season_games: counts[4],
                season_wins: counts[5],
                peak_rating,
                peak_league: counts[6],
                last_played,
            }
        }
    }

    /// Each field of each table is read by its own arm: a wrong value in it is reported at
    /// its path (an arm missing or out of order would leave the value unread, or read it
    /// as another field). Each value is alone in its object, so that the wrong value comes
    /// before any missing field is noticed.
    #[test]
    fn every_field_is_read_by_its_arm() {
        let at = |message: &str, path: &str| message.contains(&format!("{path}: expected")) || message.contains(&format!("{path}[0]: expected"));
        for field in CONFIG_FIELDS {
            let message = Config::from_json(&format!(r#"{{"{field}": [1]}}"#)).unwrap_err().to_string();
            assert!(at(&message, field), "{message}");
        }
        for field in LEAGUE_FIELDS {
            let message = Config::from_json(&format!(r#"{{"leagues": [{{"{field}": [1]}}]}}"#)).unwrap_err().to_string();
            assert!(at(&message, &format!("leagues[0].{field}")), "{message}");
        }
        for field in DECAY_FIELDS {
            let message = Config::from_json(&format!(r#"{{"decay": {{"{field}": [1]}}}}"#)).unwrap_err().to_string();
            assert!(at(&message, &format!("decay.{field}")), "{message}");
        }
        let save = |pool: &str| format!(r#"{{"format":"{}","version":3,"checksum":"{}","pool":{pool}}}"#, crate::save::FORMAT, crate::save::checksum(pool));
        for field in PLAYER_FIELDS {
            let message = crate::save::from_json(&save(&format!(r#"{{"players":[{{"{field}":[1]}}]}}"#))).unwrap_err().to_string();
            assert!(at(&message, &format!("pool.players[0].{field}")), "{message}");
        }
        for field in ["config", "players", "offset", "stored_sum", "clock", "decayed_through"] {
            let message = crate::save::from_json(&save(&format!(r#"{{"{field}":[1]}}"#))).unwrap_err().to_string();
            assert!(at(&message, &format!("pool.{field}")), "{message}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A configuration, valid or not, is written as `serde_json::to_string_pretty`
        /// writes it.
        #[test]
        fn configurations_are_written_as_serde_writes_them(config in config()) {
            prop_assert_eq!(config.to_json(), serde_json::to_string_pretty(&config).unwrap());
            let mut compact = Writer::new(false);
            write_config(&mut compact, &config);
            prop_assert_eq!(compact.finish(), serde_json::to_string(&config).unwrap());
        }

        /// A player record is written as `serde_json::to_string` writes it.
        #[test]
        fn players_are_written_as_serde_writes_them(player in player()) {
            let mut writer = Writer::new(false);
            write_player(&mut writer, &player);
            prop_assert_eq!(writer.finish(), serde_json::to_string(&player).unwrap());
        }
    }
}
