//! Reference vectors: inputs and the exact output bits of the Rust engine, committed at
//! `unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt`. This test checks that the file matches
//! what the engine computes now; the C# tests replay the same file through the Unity
//! wrapper and require the same bits (`README.md#determinism-and-accuracy` across
//! languages, and on any device that runs the Unity tests).
//!
//! Regenerate after an intended change of results:
//! `RANKING_ELO_UPDATE_VECTORS=1 cargo test --test reference_vectors`.

use std::fmt::Write as _;

use ranking_elo::pool::{Match, Pool};
use ranking_elo::{tutorial_probability, tutorial_update, Config, Outcome, PlayerState};
mod common;
use common::SplitMix;

const PATH: &str = "unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt";

/// FIDE's table, rounding targets and rating periods: a file of their own, so that the
/// digests of the file above (and of every platform's replay) stay as they were.
const FIDE_PATH: &str = "unity/Tests/Runtime/Vectors~/RankingEloFideVectors.txt";

const FIDE_CONFIGS: [&str; 4] = [
    r#"{"expected_score":{"model":"fide_table"},"max_rating_difference":400,"max_rating_difference_exempt_from":2650,"k_policy":{"policy":"constant","k":20},"rounding":"half_away_from_zero"}"#,
    r#"{"expected_score":{"model":"fide_table"},"k_policy":{"policy":"constant","k":40}}"#,
    r#"{"expected_score":{"model":"fide_table"},"max_rating_difference":400,"rounding":"truncate","rounding_target":"rating","victory_bonus":0.5}"#,
    r#"{"expected_score":{"model":"fide_table"},"max_rating_difference":400,"max_rating_difference_exempt_from":2650,"k_policy":{"policy":"fide","period_rule":true},"rounding":"half_away_from_zero"}"#,
];

const CONFIGS: [&str; 5] = [
    "{}",
    r#"{"rounding":"truncate"}"#,
    r#"{"rounding":"half_away_from_zero","max_rating_difference":400,"min_rating":1000,"victory_bonus":2,"score_share_bonus":4}"#,
    r#"{"expected_score":{"model":"normal","beta":200}}"#,
    r#"{"expected_score":{"model":"linear","k":0.001},"k_policy":{"policy":"league"},"k_combine":"average","leagues":[{"name":"Bronze","min_rating":0,"k":200},{"name":"Silver","min_rating":100,"k":150},{"name":"Gold","min_rating":200,"k":100},{"name":"Platinum","min_rating":300,"k":50}]}"#,
];

/// A float in `[low, high)` with a random fraction (not just integers).
fn range(rng: &mut SplitMix, low: f32, high: f32) -> f32 {
    low + (high - low) * rng.unit_f32()
}

fn hex(value: f32) -> String {
    format!("{:08x}", value.to_bits())
}

fn generate() -> String {
    let mut out = String::from(
        "# ranking-elo reference vectors: inputs and exact output bits (hex of IEEE-754 float32) of the Rust engine.\n\
         # Checked by tests/reference_vectors.rs, replayed by the C# tests (ReferenceVectorTests.cs).\n\
         # config <index> <json>\n\
         # rate <config> <rating_a> <rating_b> <score_a> <k or -> <new_a> <new_b>\n\
         # expected <config> <rating_a> <rating_b> <expected_a>\n\
         # mirror <rating_1> <rating_2> <multiplier> <player1_wins 0|1> <probability> <new_1> <new_2>\n",
    );
    let mut rng = SplitMix(0x00E1_0E1E_0001);
    for (index, json) in CONFIGS.iter().enumerate() {
        writeln!(out, "config {index} {json}").unwrap();
    }
    for (index, json) in CONFIGS.iter().enumerate() {
        let rules = Config::from_json(json).unwrap();
        let (low, high) = if index == 4 { (-400.0, 600.0) } else { (600.0, 3000.0) };
        for i in 0..40 {
            let a = range(&mut rng, low, high);
            let b = range(&mut rng, low, high);
            let score = match i % 4 {
                0 => 1.0,
                1 => 0.0,
                2 => 0.5,
                _ => range(&mut rng, 0.0, 1.0),
            };
            let outcome = Outcome::from_score(f64::from(score)).unwrap();
            let (new_a, new_b) = rules.rate(a, b, outcome).unwrap();
            writeln!(out, "rate {index} {} {} {} - {} {}", hex(a), hex(b), hex(score), hex(new_a), hex(new_b)).unwrap();
            let k = range(&mut rng, 0.0, 64.0);
            let (new_a, new_b) = rules.rate_with_k(a, b, outcome, f64::from(k), f64::from(k));
            writeln!(out, "rate {index} {} {} {} {} {} {}", hex(a), hex(b), hex(score), hex(k), hex(new_a), hex(new_b)).unwrap();
            let e = rules.expected_score(a, b) as f32;
            writeln!(out, "expected {index} {} {} {}", hex(a), hex(b), hex(e)).unwrap();
        }
    }
    for _ in 0..60 {
        let a = range(&mut rng, 0.0, 3000.0);
        let b = range(&mut rng, 0.0, 3000.0);
        let multiplier = range(&mut rng, 1.0, 64.0);
        let wins = rng.next() & 1 == 1;
        let p = tutorial_probability(a, b);
        let (x, y) = tutorial_update(a, b, multiplier, wins);
        writeln!(out, "mirror {} {} {} {} {} {} {}", hex(a), hex(b), hex(multiplier), u8::from(wins), hex(p), hex(x), hex(y)).unwrap();
    }
    out
}

/// Ratings of FIDE's range: whole numbers mostly (FIDE's ratings are), a fraction in one
/// of four.
fn fide_rating(rng: &mut SplitMix, i: u32) -> f32 {
    let rating = range(rng, 1000.0, 2900.0);
    if i % 4 == 3 {
        rating
    } else {
        rating.round()
    }
}

fn generate_fide() -> String {
    let mut out = String::from(
        "# ranking-elo FIDE vectors: FIDE's table 8.1.2, the 400-point rule with its 2650 exemption, the\n\
         # rounding target and rating periods; inputs and exact output bits (hex of IEEE-754 float32) of the\n\
         # Rust engine. Checked by tests/reference_vectors.rs, replayed by the C programs on every binary and\n\
         # by the C# tests. Lines as RankingEloReferenceVectors.txt, and:\n\
         # period <config> <rating_0..3> then six matches <a> <b> <score_a>, then <new_rating_0..3>:\n\
         # a pool of four new players with those ratings rates the six matches as one period.\n",
    );
    let mut rng = SplitMix(0x00F1_DE00_0001);
    for (index, json) in FIDE_CONFIGS.iter().enumerate() {
        writeln!(out, "config {index} {json}").unwrap();
    }
    for (index, json) in FIDE_CONFIGS.iter().enumerate().take(3) {
        let rules = Config::from_json(json).unwrap();
        for i in 0..60 {
            let a = fide_rating(&mut rng, i);
            // Near pairs as often as far ones: every row of the table is reached.
            let b = if i % 2 == 0 { (a + range(&mut rng, -120.0, 120.0)).round() } else { fide_rating(&mut rng, i / 2) };
            let score = [1.0, 0.0, 0.5][i as usize % 3];
            let outcome = Outcome::from_score(f64::from(score)).unwrap();
            let (new_a, new_b) = rules.rate(a, b, outcome).unwrap();
            writeln!(out, "rate {index} {} {} {} - {} {}", hex(a), hex(b), hex(score), hex(new_a), hex(new_b)).unwrap();
            let k = [10.0f32, 15.0, 20.0, 40.0][i as usize % 4];
            let (new_a, new_b) = rules.rate_with_k(a, b, outcome, f64::from(k), f64::from(k));
            writeln!(out, "rate {index} {} {} {} {} {} {}", hex(a), hex(b), hex(score), hex(k), hex(new_a), hex(new_b)).unwrap();
            let e = rules.expected_score(a, b) as f32;
            writeln!(out, "expected {index} {} {} {}", hex(a), hex(b), hex(e)).unwrap();
        }
    }
    for config in [0usize, 3] {
        let rules = Config::from_json(FIDE_CONFIGS[config]).unwrap();
        for i in 0..20 {
            let ratings: Vec<f32> = (0..4).map(|_| fide_rating(&mut rng, i)).collect();
            let mut pool = Pool::new(rules.clone());
            let states: Vec<PlayerState> = ratings.iter().map(|&r| PlayerState { rating: r, ..rules.new_player() }).collect();
            pool.add_player_states(&states).unwrap();
            let mut matches = Vec::new();
            let mut line = format!("period {config} {}", ratings.iter().map(|&r| hex(r)).collect::<Vec<_>>().join(" "));
            for _ in 0..6 {
                let a = (rng.next() % 4) as usize;
                let b = (a + 1 + (rng.next() % 3) as usize) % 4;
                let score = [1.0f32, 0.0, 0.5][(rng.next() % 3) as usize];
                matches.push(Match::new(a, b, Outcome::from_score(f64::from(score)).unwrap()));
                write!(line, " {a} {b} {}", hex(score)).unwrap();
            }
            pool.rate_period(&matches, None).unwrap();
            for p in 0..4 {
                write!(line, " {}", hex(pool.rating(p).unwrap())).unwrap();
            }
            writeln!(out, "{line}").unwrap();
        }
    }
    out
}

/// Checks a committed vectors file against the engine's results now (rewrites it with
/// `RANKING_ELO_UPDATE_VECTORS` set).
fn check_committed(relative: &str, fresh: &str) {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("RANKING_ELO_UPDATE_VECTORS").is_some() {
        std::fs::write(&path, fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{relative} differs from the engine's results; if the change is intended, regenerate it \
         with RANKING_ELO_UPDATE_VECTORS=1 cargo test --test reference_vectors"
    );
}

#[test]
fn committed_reference_vectors_match_the_engine() {
    check_committed(PATH, &generate());
}

#[test]
fn committed_fide_vectors_match_the_engine() {
    let fresh = generate_fide();
    // Every row of the table and both sides of the cap are in the file.
    assert!(fresh.lines().filter(|l| l.starts_with("rate ")).count() >= 360);
    assert_eq!(fresh.lines().filter(|l| l.starts_with("period ")).count(), 40);
    check_committed(FIDE_PATH, &fresh);
}
