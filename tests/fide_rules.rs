//! FIDE's rating rules as FIDE publishes them: the table 8.1.2 row by row, single games from
//! FIDE's rating calculator, and a rating period from FIDE's own published calculation,
//! reproduced exactly by the `fide_table` model with the configuration reference's
//! "FIDE's rules" example (`docs/configuration.md`).
//!
//! Sources:
//! - FIDE Rating Regulations effective from 1 March 2024 (FIDE Handbook B.02), table
//!   8.1.2 and sections 8.3.2 to 8.3.4; the 400-point rule's amendment effective from
//!   1 October 2025 (not applied to players rated 2650 and above).
//! - ratings.fide.com, the individual calculation for FIDE id 2016192, period 2025-12-01
//!   (standard): Ro 2813, K 10, five games, rating change -3.
//! - FIDE's rating calculator (ratings.fide.com/calc.phtml) for single games.

use ranking_elo::period::PeriodGame;
use ranking_elo::{Config, Outcome, PlayerState, Rules};

/// FIDE's rules as the configuration reference writes them.
const FIDE: &str = r#"{"expected_score": {"model": "fide_table"}, "max_rating_difference": 400, "max_rating_difference_exempt_from": 2650,
    "k_policy": {"policy": "fide", "period_rule": true}, "rounding": "half_away_from_zero"}"#;

/// Table 8.1.2 as printed: the rating difference D from ... to, and PD of the higher- and
/// the lower-rated player (transcribed once more here, as the handbook lays it out, and
/// not from the engine's array).
const TABLE: [(u32, u32, f64, f64); 51] = [
    (0, 3, 0.50, 0.50),
    (4, 10, 0.51, 0.49),
    (11, 17, 0.52, 0.48),
    (18, 25, 0.53, 0.47),
    (26, 32, 0.54, 0.46),
    (33, 39, 0.55, 0.45),
    (40, 46, 0.56, 0.44),
    (47, 53, 0.57, 0.43),
    (54, 61, 0.58, 0.42),
    (62, 68, 0.59, 0.41),
    (69, 76, 0.60, 0.40),
    (77, 83, 0.61, 0.39),
    (84, 91, 0.62, 0.38),
    (92, 98, 0.63, 0.37),
    (99, 106, 0.64, 0.36),
    (107, 113, 0.65, 0.35),
    (114, 121, 0.66, 0.34),
    (122, 129, 0.67, 0.33),
    (130, 137, 0.68, 0.32),
    (138, 145, 0.69, 0.31),
    (146, 153, 0.70, 0.30),
    (154, 162, 0.71, 0.29),
    (163, 170, 0.72, 0.28),
    (171, 179, 0.73, 0.27),
    (180, 188, 0.74, 0.26),
    (189, 197, 0.75, 0.25),
    (198, 206, 0.76, 0.24),
    (207, 215, 0.77, 0.23),
    (216, 225, 0.78, 0.22),
    (226, 235, 0.79, 0.21),
    (236, 245, 0.80, 0.20),
    (246, 256, 0.81, 0.19),
    (257, 267, 0.82, 0.18),
    (268, 278, 0.83, 0.17),
    (279, 290, 0.84, 0.16),
    (291, 302, 0.85, 0.15),
    (303, 315, 0.86, 0.14),
    (316, 328, 0.87, 0.13),
    (329, 344, 0.88, 0.12),
    (345, 357, 0.89, 0.11),
    (358, 374, 0.90, 0.10),
    (375, 391, 0.91, 0.09),
    (392, 411, 0.92, 0.08),
    (412, 432, 0.93, 0.07),
    (433, 456, 0.94, 0.06),
    (457, 484, 0.95, 0.05),
    (485, 517, 0.96, 0.04),
    (518, 559, 0.97, 0.03),
    (560, 619, 0.98, 0.02),
    (620, 735, 0.99, 0.01),
    (736, 3000, 1.00, 0.00),
];

fn rules(json: &str) -> Rules {
    Config::from_json(json).unwrap()
}

fn games(list: &[(f32, Outcome)]) -> Vec<PeriodGame> {
    list.iter().map(|&(opponent_rating, outcome)| PeriodGame { opponent_rating, outcome }).collect()
}

/// Every D from 0 to 3000 in the row the handbook prints it in, for both players, with
/// and without fractions of a point (a team's mean rating). Without the cap: the table
/// itself.
#[test]
fn every_row_of_table_8_1_2() {
    let table = rules(r#"{"expected_score": {"model": "fide_table"}}"#);
    let mut checked = 0;
    for &(from, to, higher, lower) in &TABLE {
        for d in from..=to {
            for fraction in [0.0, 0.25, 0.5] {
                let d = d as f32 + fraction;
                assert_eq!(table.expected_score(1000.0 + d, 1000.0), higher, "D = {d}, the higher-rated player");
                assert_eq!(table.expected_score(1000.0, 1000.0 + d), lower, "D = {d}, the lower-rated player");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3001 * 3);
    // The rows are the engine's, and nothing else: the last bound of each row.
    let bounds: Vec<u16> = TABLE[..50].iter().map(|&(_, to, _, _)| to as u16).collect();
    assert_eq!(bounds, ranking_elo::expected::FIDE_TABLE_UPPER_BOUNDS);
}

/// The 400-point rule: D above 400 counts as 400 (PD .92) except for a player rated 2650
/// or more, who counts the whole difference; the opponent below 2650 keeps the cap.
#[test]
fn the_400_point_rule_and_its_2650_exemption() {
    let fide = rules(FIDE);
    assert_eq!(fide.expected_score(2600.0, 2100.0), 0.92);
    assert_eq!(fide.expected_score(2100.0, 2600.0), 0.08);
    // 2813 against 2310 (D = 503): .96 for the exempt player, .08 for the other.
    assert_eq!(fide.expected_score(2813.0, 2310.0), 0.96);
    assert_eq!(fide.expected_score(2310.0, 2813.0), 0.08);
    // One game, each player from their own view: 2813 wins: 10 x 0.04 = 0.4 -> 0;
    // 2310 loses: 20 x -0.08 = -1.6 -> -2 (K 20: 100 games, below 2400).
    let k = |rating: f32| if rating >= 2400.0 { 10.0 } else { 20.0 };
    let (high, low) = fide.rate_with_k(2813.0, 2310.0, Outcome::WIN, k(2813.0), k(2310.0));
    assert_eq!((high, low), (2813.0, 2308.0));
    // With the cap for everybody (the rule before October 2025): 10 x 0.08 = 0.8 -> +1.
    let capped = rules(&FIDE.replace(r#""max_rating_difference_exempt_from": 2650,"#, ""));
    assert_eq!(capped.expected_score(2813.0, 2310.0), 0.92);
    assert_eq!(capped.rate_with_k(2813.0, 2310.0, Outcome::WIN, 10.0, 20.0), (2814.0, 2308.0));
}

/// Single games as FIDE's rating calculator gives them (the change before rounding), and
/// the issue's example: 1500 beats 1600 with K 40: 40 x 0.64 = 25.6, +26.
#[test]
fn single_games_from_fides_calculator() {
    let exact = rules(r#"{"expected_score": {"model": "fide_table"}, "max_rating_difference": 400}"#);
    // The change of the first player, from a rating of 0 (the same difference) so that the
    // new rating is the change itself, as precise as an f32 holds it.
    let change = |a: f32, b: f32, outcome: Outcome, k: f64| exact.rate_with_k(0.0, b - a, outcome, k, k).0;
    // 2000 - 2000, a win, K 10: 10 x 0.5 = +5.
    assert_eq!(change(2000.0, 2000.0, Outcome::WIN, 10.0), 5.0);
    // 1500 - 2000, a draw, K 20: D 500 counts as 400, PD .08: 20 x 0.42 = +8.4.
    assert_eq!(change(1500.0, 2000.0, Outcome::DRAW, 20.0), 8.4);
    // 1655 - 2000, a loss, K 10: D 345, PD .11: 10 x -0.11 = -1.1.
    assert_eq!(change(1655.0, 2000.0, Outcome::LOSS, 10.0), -1.1);
    let fide = rules(FIDE);
    assert_eq!(fide.rate_with_k(1500.0, 1600.0, Outcome::WIN, 40.0, 40.0).0, 1526.0);
}

/// Exact halves: K 10, a draw at PD .45 is +0.5, which FIDE rounds to +1. In binary
/// floating point `10 x (0.5 - 0.45)` is 0.4999999999999999, which would round to 0.
#[test]
fn exact_halves_round_away_from_zero() {
    let fide = rules(FIDE);
    let table = rules(r#"{"expected_score": {"model": "fide_table"}, "rounding": "half_away_from_zero"}"#);
    // D = 35: PD .55 for the higher-rated player, .45 for the lower.
    assert_eq!(fide.rate_with_k(2000.0, 2035.0, Outcome::DRAW, 10.0, 10.0), (2001.0, 2034.0));
    assert!((10.0f64 * (0.5 - 0.45)).round() == 0.0, "the naive arithmetic gets it wrong");
    // Every row, every result, every K FIDE uses: the change is the exact decimal's
    // rounding (checked in integers: 100 x change = K x (100 S - PD in hundredths)).
    for &(from, _, higher, _) in &TABLE {
        let pd = (higher * 100.0f64).round() as i64;
        for (score, hundredths) in [(Outcome::WIN, 100), (Outcome::DRAW, 50), (Outcome::LOSS, 0)] {
            for k in [10i64, 15, 20, 30, 40] {
                let exact = k * (hundredths - pd);
                // Half away from zero, in integers.
                let rounded = if exact >= 0 { (exact + 50).div_euclid(100) } else { -((-exact + 50).div_euclid(100)) };
                let got = table.rate_with_k(1000.0 + from as f32, 1000.0, score, k as f64, k as f64).0;
                assert_eq!(f64::from(got) - (1000.0 + f64::from(from)), rounded as f64, "D {from}, score {}, K {k}", hundredths);
            }
        }
    }
}

/// FIDE's published calculation for id 2016192, period 2025-12-01 (standard): Ro 2813,
/// K 10; 1787 won, 2025 won, 2310 won, 2400 won, 2505 drawn; changes 0, 0, 0.04, 0.07,
/// -0.36; K x sum = -2.5, rounded once to -3: 2810. The two games above 400 points use
/// the whole difference (the player is rated 2650 or more).
#[test]
fn fides_published_rating_period() {
    let fide = rules(FIDE);
    let player = PlayerState { games_played: 1000, has_reached_2400: true, ..PlayerState::new(2813.0) };
    let list = games(&[(1787.0, Outcome::WIN), (2025.0, Outcome::WIN), (2310.0, Outcome::WIN), (2400.0, Outcome::WIN), (2505.0, Outcome::DRAW)]);
    let per_game: Vec<f64> = list.iter().map(|game| fide.period_game_change(1.0, 2813.0, game)).collect();
    assert_eq!(per_game, [0.0, 0.0, 0.04, 0.07, -0.36]);
    let after = fide.rate_period(&player, &list).unwrap();
    assert_eq!(after.rating, 2810.0);
    assert_eq!(after.games_played, 1005);
    // Rated game by game with each change rounded, the same games give 2813 + 0 + 0 + 0 +
    // 1 - 4 = 2810 by luck of the order; the sum of rounded changes differs from the
    // rounded sum in general: see a_period_is_rounded_once (src/rating/period.rs).
    // K x n <= 700: 39 games at K 20 give K 17 (FIDE's published 39-game period).
    let busy = PlayerState { games_played: 200, ..PlayerState::new(2054.0) };
    assert_eq!(fide.period_k(&busy, 39), 17.0);
    assert_eq!(fide.period_k(&busy, 35), 20.0);
}

/// Rounding the new rating instead of the change: from 1656.5 a change of -10.02 gives
/// 1646.5 rounding the change (FIDE), 1646 rounding the rating.
#[test]
fn the_rounding_target() {
    let base = r#"{"expected_score": {"model": "fide_table"}, "rounding": "half_away_from_zero", "k_policy": {"policy": "constant", "k": 20.04}"#;
    let change = rules(&format!("{base}}}"));
    let rating = rules(&format!(r#"{base}, "rounding_target": "rating"}}"#));
    // A loss against an equal opponent: 20.04 x -0.5 = -10.02.
    assert_eq!(change.rate(1656.5, 1656.5, Outcome::LOSS).unwrap().0, 1646.5);
    assert_eq!(rating.rate(1656.5, 1656.5, Outcome::LOSS).unwrap().0, 1646.0);
    // The configuration writes the target only when it is not the default.
    assert!(rating.config().to_json().contains(r#""rounding_target": "rating""#));
    assert!(!change.config().to_json().contains("rounding_target"));
    assert_eq!(Config::from_json(&rating.config().to_json()).unwrap(), rating);
    let error = Config::from_json(r#"{"rounding_target": "both"}"#).unwrap_err().to_string();
    assert!(error.contains("rounding_target") && error.contains(r#"expected "change" or "rating""#), "{error}");
    let error = Config::from_json(r#"{"max_rating_difference_exempt_from": 2650}"#).unwrap_err().to_string();
    assert!(error.contains("max_rating_difference_exempt_from") && error.contains("max_rating_difference,"), "{error}");
    let error = Config::from_json(r#"{"expected_score": {"model": "fide_table", "c": 400}}"#).unwrap_err().to_string();
    assert!(error.contains("\"c\""), "{error}");
}
