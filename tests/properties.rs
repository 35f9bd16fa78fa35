//! Property tests of the rating math: the expected score, the update rule and leagues
//! (`README.md#the-formulas-in-brief`, `docs/configuration.md`).

use proptest::prelude::*;
use ranking_elo::{Config, ExpectedScoreModel, KCombine, KPolicy, League, Leagues, Outcome, Rules};

fn models() -> impl Strategy<Value = ExpectedScoreModel> {
    prop_oneof![
        (50.0f64..2000.0).prop_map(|c| ExpectedScoreModel::Logistic { c }),
        (0.0001f64..0.01).prop_map(|k| ExpectedScoreModel::Linear { k }),
        (20.0f64..1000.0).prop_map(|beta| ExpectedScoreModel::Normal { beta }),
    ]
}

fn rating() -> impl Strategy<Value = f32> {
    -3000.0f32..6000.0
}

fn rules_with(model: ExpectedScoreModel, k: f64) -> Rules {
    Config { expected_score: model, k_policy: KPolicy::Constant { k }, ..Config::default() }.validate().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// E_A + E_B = 1, and E_B is what A's expectation is seen from B's side.
    #[test]
    fn expected_scores_sum_to_one_and_are_symmetric(model in models(), a in rating(), b in rating()) {
        let e = model.prepare(None);
        let e_a = e.expected_a(a, b);
        let e_b = e.expected_a(b, a);
        prop_assert!((0.0..=1.0).contains(&e_a));
        // E_B is always computed as 1 - E_A; this checks that the model's approximation is
        // symmetric to far below the 6e-8 resolution of the f32 results.
        prop_assert!((e_a + e_b - 1.0).abs() <= 1e-9, "{} + {}", e_a, e_b);
    }

    /// A higher rating never lowers the expected score.
    #[test]
    fn expected_score_is_monotonic(model in models(), a in rating(), b in rating(), step in 0.0f32..500.0) {
        let e = model.prepare(None);
        prop_assert!(e.expected_a(a + step, b) >= e.expected_a(a, b));
    }

    /// Equal K and no bonuses: what A gains, B loses (up to the final rounding to f32).
    #[test]
    fn equal_k_is_zero_sum(model in models(), a in rating(), b in rating(), s in 0.0f64..=1.0, k in 0.0f64..300.0) {
        let rules = rules_with(model, k);
        let (a2, b2) = rules.rate(a, b, Outcome::from_score(s).unwrap()).unwrap();
        let before = f64::from(a) + f64::from(b);
        let after = f64::from(a2) + f64::from(b2);
        // Each new rating is rounded to f32 once: at most half an ulp of its own magnitude
        // each (which can exceed the ratings' before: 0 and 2.27 with K 131 end near ±65).
        let largest = [a, b, a2, b2].into_iter().fold(1.0f32, |m, r| m.max(r.abs()));
        let tolerance = f64::from(largest) * f64::from(f32::EPSILON) * 2.0;
        prop_assert!((after - before).abs() <= tolerance, "{} -> {}", before, after);
    }

    /// Average K keeps the match zero-sum even when the leagues' K differ.
    #[test]
    fn average_k_is_zero_sum(a in -500.0f32..800.0, b in -500.0f32..800.0, s in 0.0f64..=1.0) {
        let leagues = Leagues::new(vec![
            League::new("Bronze", 0.0, 200.0),
            League::new("Silver", 100.0, 150.0),
            League::new("Gold", 200.0, 100.0),
            League::new("Platinum", 300.0, 50.0),
        ]).unwrap();
        let rules = Config {
            expected_score: ExpectedScoreModel::Linear { k: 0.001 },
            k_policy: KPolicy::League {},
            k_combine: KCombine::Average,
            leagues,
            ..Config::default()
        }.validate().unwrap();
        let (a2, b2) = rules.rate(a, b, Outcome::from_score(s).unwrap()).unwrap();
        let drift = (f64::from(a2) + f64::from(b2)) - (f64::from(a) + f64::from(b));
        prop_assert!(drift.abs() <= 1e-4, "drift {}", drift);
    }

    /// The floor is never crossed, and a player at the floor never goes down.
    #[test]
    fn floor_is_never_crossed(a in 0.0f32..3000.0, b in 0.0f32..3000.0, s in 0.0f64..=1.0, floor in 0.0f32..1500.0, k in 0.0f64..100.0) {
        let rules = Config {
            k_policy: KPolicy::Constant { k },
            min_rating: Some(floor),
            initial_rating: floor,
            victory_bonus: 1.0,
            ..Config::default()
        }.validate().unwrap();
        let (a, b) = (a.max(floor), b.max(floor));
        let (a2, b2) = rules.rate(a, b, Outcome::from_score(s).unwrap()).unwrap();
        prop_assert!(a2 >= floor && b2 >= floor);
        if a == floor { prop_assert!(a2 >= a); }
    }

    /// Winning never lowers a rating and losing never raises it (K >= 0, no bonuses).
    #[test]
    fn results_move_ratings_the_right_way(model in models(), a in rating(), b in rating(), k in 0.0f64..100.0) {
        let rules = rules_with(model, k);
        let (won, _) = rules.rate(a, b, Outcome::WIN).unwrap();
        let (lost, _) = rules.rate(a, b, Outcome::LOSS).unwrap();
        prop_assert!(won >= a && lost <= a);
    }
}
