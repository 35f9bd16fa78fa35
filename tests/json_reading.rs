//! The library reads configurations and saves with its own reader (`src/json`), not
//! with the serde derives its types keep for Rust users. These properties hold the two to
//! the same answers (`tests/fuzz_checks/json.rs` says which) on generated texts, valid and
//! broken: numbers generated as decimal text (long, short, with exponents, halfway between
//! two `f32`s, at the edges of `f32` and `f64`), every field and value, wrong types,
//! unknown and repeated fields; and saves, whose players the library must read as serde
//! reads them.
//!
//! The messages themselves are pinned in `tests/fixtures/json_messages.txt`.

#[path = "fuzz_checks/json.rs"]
mod agreement;

use agreement::library;
use proptest::prelude::*;
use ranking_elo::{save, Config, PlayerState};

/// The two readers agree on `text` (`tests/fuzz_checks/json.rs`).
fn agree(text: &str) -> Result<(), TestCaseError> {
    match agreement::disagreement(text) {
        Some(disagreement) => Err(TestCaseError::fail(disagreement)),
        None => Ok(()),
    }
}

/// Decimal numbers as people and programs write them, valid JSON all.
fn number() -> impl Strategy<Value = String> {
    let digits = (any::<bool>(), "[1-9][0-9]{0,24}", proptest::option::of("[0-9]{1,24}"), proptest::option::of(-50_i32..50)).prop_map(|(negative, whole, fraction, exponent)| {
        let sign = if negative { "-" } else { "" };
        let fraction = fraction.map_or(String::new(), |digits| format!(".{digits}"));
        let exponent = exponent.map_or(String::new(), |e| format!("e{e}"));
        format!("{sign}{whole}{fraction}{exponent}")
    });
    // Halfway between two neighbouring `f32`s, and just above: rounding the decimal once
    // to `f32` and rounding it to `f64` first differ here (double rounding).
    let halfway = (-1e6_f32..1e6, any::<bool>()).prop_map(|(x, above)| {
        let midpoint = (f64::from(x) + f64::from(f32::from_bits(x.to_bits() + 1))) / 2.0;
        let exact = format!("{midpoint:.70e}");
        let (mantissa, exponent) = exact.split_once('e').unwrap();
        format!("{mantissa}{}e{exponent}", if above { "1" } else { "" })
    });
    prop_oneof![
        digits,
        halfway,
        any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| format!("{x:e}")),
        any::<f32>().prop_filter("finite", |x| x.is_finite()).prop_map(|x| format!("{x:e}")),
        (-3000.0_f64..6000.0).prop_map(|x| format!("{x}")),
        (0_u64..5_000_000_000).prop_map(|x| x.to_string()),
        "0\\.[0-9]{1,30}",
        "-?0",
        Just("1e400".to_owned()),
        Just("1e39".to_owned()),
        Just("-3.4028236e38".to_owned()),
        Just("1E+2".to_owned()),
    ]
}

/// Every name a configuration's enums take, and a few they do not.
const NAMES: [&str; 24] = [
    "\"logistic\"",
    "\"linear\"",
    "\"normal\"",
    "\"constant\"",
    "\"fide\"",
    "\"games_played\"",
    "\"rating_bands\"",
    "\"league\"",
    "\"per_player\"",
    "\"average\"",
    "\"share\"",
    "\"result\"",
    "\"none\"",
    "\"truncate\"",
    "\"half_away_from_zero\"",
    "\"mean\"",
    "\"sum\"",
    "\"weighted_mean\"",
    "\"equal\"",
    "\"weights\"",
    "\"n_minus_one\"",
    "\"initial_rating\"",
    "\"pool_mean\"",
    "\"Mean\"",
];

/// A scalar, or a small object or list where a scalar may not belong.
fn scalar() -> BoxedStrategy<String> {
    prop_oneof![
        4 => number(),
        2 => proptest::sample::select(&NAMES[..]).prop_map(str::to_owned),
        1 => prop_oneof![Just("null"), Just("true"), Just("false"), Just("\"30\""), Just("\"A\\u0042\""), Just("[]"), Just("[1500, 3]"), Just("{}"), Just("{\"truncate\": null}")]
            .prop_map(str::to_owned),
    ]
    .boxed()
}

/// An object of some of `keys` (and now and then one it does not have, or one twice),
/// with values from `value`.
fn object(keys: &'static [&'static str], value: BoxedStrategy<String>) -> BoxedStrategy<String> {
    proptest::collection::vec((0..keys.len() + 1, value), 0..6)
        .prop_map(move |members| {
            let members: Vec<String> = members.into_iter().map(|(key, value)| format!("\"{}\": {value}", keys.get(key).copied().unwrap_or("extra"))).collect();
            format!("{{{}}}", members.join(", "))
        })
        .boxed()
}

/// A list of values from `value`.
fn list(value: BoxedStrategy<String>) -> BoxedStrategy<String> {
    proptest::collection::vec(value, 0..4).prop_map(|items| format!("[{}]", items.join(", "))).boxed()
}

/// Any value a configuration field may be given, right or wrong.
fn field_value() -> BoxedStrategy<String> {
    let tier = object(&["below", "k"], scalar());
    let tagged = object(&["policy", "model", "k", "c", "beta", "period_rule", "tiers"], prop_oneof![3 => scalar(), 1 => list(tier)].boxed());
    let league = object(&["name", "min_rating", "k", "score_share_bonus", "victory_bonus", "season_keep"], prop_oneof![3 => scalar(), 1 => Just("\"Gold\"".to_owned())].boxed());
    prop_oneof![
        4 => scalar(),
        2 => tagged,
        1 => list(league),
        1 => object(&["anchor", "keep", "grace_days", "points_per_day", "min_rating", "min_league", "floor"], scalar()),
    ]
    .boxed()
}

/// The fields of a configuration, as serde's derive names them (not a copy kept here: a
/// field the library's reader lacks is then generated, and refused by it alone).
static CONFIG_FIELDS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| match serde_json::to_value(Config::default()) {
    Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
    other => panic!("a configuration serializes to an object: {other:?}"),
});

/// Valid configurations, serialized by serde, with every field present.
fn valid_config() -> impl Strategy<Value = Config> {
    use ranking_elo::{ExpectedScoreModel, KPolicy};
    let model = prop_oneof![
        (1.0_f64..1e4).prop_map(|c| ExpectedScoreModel::Logistic { c }),
        (1e-4_f64..0.01).prop_map(|k| ExpectedScoreModel::Linear { k }),
        (1.0_f64..1e3).prop_map(|beta| ExpectedScoreModel::Normal { beta }),
    ];
    let policy = prop_oneof![(0.0_f64..100.0).prop_map(|k| KPolicy::Constant { k }), any::<bool>().prop_map(|period_rule| KPolicy::Fide { period_rule })];
    (model, policy, 0.0_f64..1.0, -1e4_f32..1e4, proptest::option::of(1.0_f64..1000.0), 0_u32..100).prop_map(|(expected_score, k_policy, alpha, initial, cap, protected)| Config {
        expected_score,
        k_policy,
        streak_alpha: alpha,
        initial_rating: initial,
        max_rating_difference: cap,
        protected_games: protected,
        ..Config::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Generated configurations, mostly broken: the same verdicts and the same values.
    #[test]
    fn both_readers_agree_on_configurations(members in proptest::collection::vec((0..CONFIG_FIELDS.len() + 1, field_value()), 0..5)) {
        let members: Vec<String> = members.into_iter().map(|(key, value)| format!("\"{}\": {value}", CONFIG_FIELDS.get(key).map_or("k", String::as_str))).collect();
        agree(&format!("{{{}}}", members.join(", ")))?;
        agree(&format!("{{\n  {}\n}}", members.join(",\n  ")))?;
    }

    /// One field with a number written any way: read to the same bits.
    #[test]
    fn numbers_read_to_the_same_bits(field in proptest::sample::select(&["initial_rating", "min_rating", "max_rating_difference", "zero_sum_total", "streak_alpha", "demotion_margin"][..]), value in number()) {
        agree(&format!("{{\"{field}\": {value}}}"))?;
        agree(&format!("{{\"leagues\": [{{\"name\": \"A\", \"min_rating\": {value}, \"k\": {value}}}]}}"))?;
        let bands = format!("{{\"k_policy\": {{\"policy\": \"rating_bands\", \"tiers\": [{{\"below\": {value}, \"k\": 10}}, {{\"k\": 5}}]}}}}");
        agree(&bands)?;
        // The band's bound is the decimal rounded once to `f32` (as `serde_json` reads a
        // lone `f32`).
        if let Ok(config) = library(&bands) {
            let ranking_elo::KPolicy::RatingBands { tiers } = &config.k_policy else { unreachable!() };
            prop_assert_eq!(tiers[0].below.map(f32::to_bits), serde_json::from_str::<f32>(&value).ok().map(f32::to_bits));
        }
        agree(&format!("{{\"decay\": {{\"points_per_day\": 1, \"floor\": {value}, \"min_league\": {value}}}}}"))?;
    }

    /// Valid configurations written by the library read back the same both ways.
    #[test]
    fn written_configurations_read_back(config in valid_config()) {
        let text = config.to_json();
        agree(&text)?;
        prop_assert_eq!(library(&text).unwrap(), config);
    }

    /// Players in a save read to the same states as serde reads them.
    #[test]
    fn saves_read_players_as_serde_does(players in proptest::collection::vec(object(&["rating", "games_played", "win_streak", "period_games", "is_junior", "has_reached_2400", "league", "protected_games", "season_games", "season_wins", "peak_rating", "peak_league", "last_played"], scalar()), 0..4)) {
        let players = format!("[{}]", players.join(", "));
        let ours = save::from_json(&save_text(&players));
        match serde_json::from_str::<Vec<PlayerState>>(&players) {
            Ok(states) => {
                // serde's states written back in their shortest exact form, read by the
                // library: the same pool only if both read the original the same.
                let canonical = save::from_json(&save_text(&serde_json::to_string(&states).unwrap()));
                match (ours, canonical) {
                    (Ok(ours), Ok(canonical)) => prop_assert_eq!(ours, canonical, "{}", players),
                    (Err(ours), Err(_)) => prop_assert!(!ours.to_string().contains(" at line "), "a reading error for what serde reads: {}: {}", ours, players),
                    (ours, canonical) => prop_assert!(ours.as_ref().err().is_some_and(|e| agreement::record_as_list_or_name_as_object(&e.to_string())), "{:?} against {:?}: {}", ours.map(|p| p.len()), canonical.map(|p| p.len()), players),
                }
            }
            Err(_) => prop_assert!(ours.is_err(), "the library reads players serde refuses: {}", players),
        }
    }
}

/// A save of an empty configuration holding `players` (a JSON list).
fn save_text(players: &str) -> String {
    let pool = format!(r#"{{"config":{{}},"players":{players},"offset":0}}"#);
    format!(r#"{{"format":"{}","version":{},"checksum":"{}","pool":{pool}}}"#, save::FORMAT, save::VERSION, save::checksum(&pool))
}

/// Texts at the edges of the grammar: both refuse, or both read the same.
#[test]
fn both_readers_agree_at_the_edges_of_the_grammar() {
    let texts = [
        "",
        " ",
        "{",
        "}",
        "{}",
        " {} ",
        "{} x",
        "{}}",
        "[]",
        "null",
        "1",
        "\"x\"",
        "{\"k_combine\": \"average\",}",
        "{,}",
        "{\"a\" 1}",
        "{\"k_combine\" : \"average\" }",
        "{\"k_combine\":\"aver\\u0061ge\"}",
        "{\"k\\u005fcombine\": \"average\"}",
        "{\"streak_alpha\": 01}",
        "{\"streak_alpha\": 1.}",
        "{\"streak_alpha\": .5}",
        "{\"streak_alpha\": -}",
        "{\"streak_alpha\": 1e}",
        "{\"streak_alpha\": 1e+}",
        "{\"streak_alpha\": +1}",
        "{\"streak_alpha\": 0.5e-1}",
        "{\"streak_alpha\": tru}",
        "{\"streak_alpha\": nul}",
        "{\"rounding\": \"none\"\u{0}}",
        "{\"leagues\": [{\"name\": \"\\ud800\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"\\ud83d\\ude00\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"\\udc00\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"a\u{1}\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"\\x\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"\\u12\", \"min_rating\": 0}]}",
        "{\"leagues\": [{\"name\": \"Ünïcødé\", \"min_rating\": 0}]}",
        "{\"leagues\": [,]}",
        "{\"leagues\": [{\"name\": \"A\", \"min_rating\": 0},]}",
        "{\"k_policy\": {\"policy\": \"constant\", \"policy\": \"fide\"}}",
        "{\"k_policy\": {\"k\": 3, \"policy\": \"constant\"}}",
        "{\"k_policy\": {\"policy\": \"league\"}, \"leagues\": [{\"name\": \"A\", \"min_rating\": 0, \"k\": 20}]}",
        "{\"expected_score\": {\"model\": \"normal\"}}",
        "{\"max_rating_difference\": null}",
        "{\"zero_sum_total\": null, \"min_rating\": null}",
        "{\"decay\": {\"min_league\": null, \"floor\": null}}",
        "{\"protected_games\": 4294967295}",
        "{\"protected_games\": 4294967296}",
        "{\"protected_games\": -0}",
        "{\"protected_games\": 1e2}",
        "{\"initial_rating\": 3.4028235e38}",
        "{\"initial_rating\": 1e-50}",
    ];
    for text in texts {
        agree(text).unwrap_or_else(|error| panic!("{error}"));
    }
    let deep = format!("{{\"decay\": {}{}}}", "[".repeat(200), "]".repeat(200));
    assert!(library(&deep).unwrap_err().contains("recursion limit exceeded"), "{:?}", library(&deep));
    assert!(agreement::serde(&deep).is_err());
}
