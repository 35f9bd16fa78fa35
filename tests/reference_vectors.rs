//! Reference vectors: inputs and the exact output bits of the Rust engine, committed at
//! `unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt`. This test checks that the file matches
//! what the engine computes now; the C# tests replay the same file through the Unity
//! wrapper and require the same bits (`README.md#determinism-and-accuracy` across
//! languages, and on any device that runs the Unity tests).
//!
//! Regenerate after an intended change of results:
//! `RANKING_ELO_UPDATE_VECTORS=1 cargo test --test reference_vectors`.

use std::fmt::Write as _;

use ranking_elo::{tutorial_probability, tutorial_update, Config, Outcome};
mod common;
use common::SplitMix;

const PATH: &str = "unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt";

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

#[test]
fn committed_reference_vectors_match_the_engine() {
    let path = format!("{}/{PATH}", env!("CARGO_MANIFEST_DIR"));
    let fresh = generate();
    if std::env::var_os("RANKING_ELO_UPDATE_VECTORS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{PATH} differs from the engine's results; if the change is intended, regenerate it \
         with RANKING_ELO_UPDATE_VECTORS=1 cargo test --test reference_vectors"
    );
}
