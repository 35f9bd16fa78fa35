//! Pools against the reference model (`tests/fuzz_checks/model.rs`), bit for bit: random
//! configurations (zero-sum or not, leagues with hysteresis, decay with every stop, every
//! rounding) and random operations (pairs, teams and free-for-alls through every function
//! variant, clock, decay, season ends, new rules, sets, adds, saves, and hostile C ABI
//! calls), applied through the Rust API and through the C ABI. The fuzz targets
//! `group_matches` and `seasons` run the same checks on decoded bytes.
//!
//! Also here: decay does not depend on how often it is called (daily calls give the
//! ratings of one call) for random configurations, days and rounding modes.

use proptest::prelude::*;

mod fuzz_checks;
use fuzz_checks::paths::{config_from, run, Op};

use ranking_elo::pool::Pool;
use ranking_elo::{Config, PlayerState, Rounding};

/// Player indices drawn from the players the run may have (a few beyond: out of range).
const PLAYERS: i32 = 14;

fn score() -> impl Strategy<Value = f32> {
    prop_oneof![4 => prop::sample::select(vec![0.0f32, 0.5, 1.0]), 1 => 0.0f32..=1.0, 1 => prop::sample::select(vec![f32::NAN, -0.5, 1.5])]
}

fn distinct(count: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Vec<i32>> {
    prop::sample::subsequence((0..PLAYERS).collect::<Vec<_>>(), count).prop_shuffle()
}

fn state() -> impl Strategy<Value = PlayerState> {
    (
        prop_oneof![4 => (1300.0f32..1800.0).prop_map(|r| (r * 4.0).round() / 4.0), 1 => prop::sample::select(vec![1e15f32, -1e15, f32::NAN, 0.0])],
        0u32..60,
        prop::option::of(0u32..5),
        0u32..4,
        prop_oneof![4 => Just(None), 1 => prop::sample::select(vec![Some(f32::NAN), Some(f32::NEG_INFINITY), Some(f32::MIN), Some(1e30)])],
        prop::sample::select(vec![0.0f64, 86_400.0, 5e5]),
    )
        .prop_map(|(rating, games, league, protected, peak, last)| PlayerState {
            games_played: games,
            season_games: games / 2,
            league,
            protected_games: protected,
            peak_rating: peak.unwrap_or(rating),
            last_played: last,
            ..PlayerState::new(rating)
        })
}

fn op() -> impl Strategy<Value = Op> {
    let index = prop_oneof![10 => 0..PLAYERS, 1 => Just(-1), 1 => Just(PLAYERS + 3)];
    let pairs = (prop::collection::vec((index.clone(), index.clone(), score()), 0..8), any::<u8>()).prop_map(|(matches, via)| Op::Pairs { matches, via });
    let points = (prop::collection::vec((index.clone(), index, 0.0f32..5.0, prop_oneof![5 => 0.0f32..5.0, 1 => Just(-1.0f32)]), 0..5), any::<u8>())
        .prop_map(|(matches, via)| Op::Points { matches, via });
    let teams =
        (prop::collection::vec((distinct(2..=8), 1usize..8, score()), 1..4), any::<u8>(), prop::collection::vec(0.0f32..3.0, 32)).prop_map(|(raw, via, pool_of_weights)| {
            let matches: Vec<(Vec<i32>, Vec<i32>, f32)> = raw
                .into_iter()
                .map(|(members, split, s)| {
                    let split = split.min(members.len() - 1).max(1);
                    (members[..split].to_vec(), members[split..].to_vec(), s)
                })
                .collect();
            let count: usize = matches.iter().map(|(a, b, _)| a.len() + b.len()).sum();
            let weights = (via % 3 != 0).then(|| (0..count).map(|i| pool_of_weights[i % 32]).collect());
            Op::Teams { matches, weights, via }
        });
    let placements = (prop::collection::vec((distinct(2..=8), prop::collection::vec(0u8..8, 8), any::<bool>()), 1..4), any::<u8>()).prop_map(|(raw, via)| {
        let matches = raw
            .into_iter()
            .map(|(entrants, places, bad)| {
                let n = entrants.len() as i32;
                let mut places: Vec<i32> = places[..entrants.len()].iter().map(|&p| i32::from(p) % n + 1).collect();
                if bad {
                    places[0] = n + 1;
                }
                (entrants, places)
            })
            .collect();
        Op::Placements { matches, via }
    });
    prop_oneof![
        6 => pairs,
        1 => points,
        4 => teams,
        3 => placements,
        2 => prop_oneof![4 => 0.0f64..4e6, 1 => Just(f64::NAN)].prop_map(Op::Clock),
        3 => (0.0f64..6e6, any::<u8>()).prop_map(|(now, via)| Op::Decay { now, via }),
        1 => any::<u8>().prop_map(|via| Op::EndSeason { via }),
        1 => any::<[u8; 16]>().prop_map(Op::Rules),
        2 => (0..PLAYERS + 1, state()).prop_map(|(index, state)| Op::SetPlayer { index, state }),
        1 => (0u8..3).prop_map(Op::AddPlayers),
        1 => prop::collection::vec(state(), 0..3).prop_map(Op::AddStates),
        1 => Just(Op::SaveLoad),
        1 => (any::<u8>(), any::<u8>(), prop::collection::vec(prop_oneof![0i32..8, (0i32..255).prop_map(|d| i32::MAX - d)], 0..8)).prop_map(|(kind, delta, values)| Op::Huge { kind, delta, values }),
        1 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(kind, target, at)| Op::Aliased { kind, target, at }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Every pool path equals the reference model after every operation.
    #[test]
    fn pools_equal_the_reference_model(config in any::<[u8; 16]>(), abi in any::<bool>(), players in 2u8..12, ops in prop::collection::vec(op(), 1..40)) {
        let mut all = vec![Op::AddPlayers(players)];
        all.extend(ops);
        run(&config, abi, &all);
    }

    /// Decay called every day gives the ratings of one call over the same days (any
    /// configuration without zero-sum and with a fixed anchor, any rounding), as long as
    /// each day's arithmetic is exact: whole points a day with integer rounding, ratings on
    /// quarter points.
    #[test]
    fn daily_decay_equals_one_call(
        config in any::<[u8; 16]>(),
        ratings in prop::collection::vec((1200.0f32..1900.0).prop_map(|r| (r * 4.0).round() / 4.0), 1..12),
        per_day in prop::sample::select(vec![1.0f64, 3.0, 4.0, 7.0, 10.0, 25.0, 0.5, 2.25]),
        grace in 0u32..5,
        days in 1u32..60,
        min_rating in prop::option::of((1300.0f32..1700.0).prop_map(|r| (r * 4.0).round() / 4.0)),
        floor in prop::option::of((1300.0f32..1700.0).prop_map(|r| (r * 2.0).round() / 2.0)),
        min_league in prop::option::of(0u32..4),
    ) {
        let base = config_from(&config).config().clone();
        let integer = base.rounding != Rounding::None;
        let mut decay = base.decay;
        decay.points_per_day = if integer { per_day.ceil() } else { per_day };
        decay.grace_days = f64::from(grace);
        decay.min_rating = min_rating;
        decay.floor = floor;
        decay.min_league = min_league.filter(|&l| (l as usize) < base.leagues.len().max(1));
        let config = Config {
            zero_sum_total: None,
            season_reset: ranking_elo::rating::season_rules::SeasonReset { anchor: ranking_elo::rating::season_rules::ResetAnchor::InitialRating, ..base.season_reset },
            decay,
            ..base
        };
        let rules = config.validate().unwrap();
        let mut once = Pool::new(rules);
        once.add_player_states(&ratings.iter().map(|&r| PlayerState::new(r)).collect::<Vec<_>>()).unwrap();
        let mut daily = once.clone();
        for day in 1..=days {
            daily.apply_decay(f64::from(day) * 86_400.0, None).unwrap();
        }
        once.apply_decay(f64::from(days) * 86_400.0, None).unwrap();
        for (i, &start) in ratings.iter().enumerate() {
            let (d, o) = (daily.player(i).unwrap(), once.player(i).unwrap());
            prop_assert_eq!(d.rating.to_bits(), o.rating.to_bits(), "player {} from {}: daily {} once {}", i, start, d.rating, o.rating);
            prop_assert_eq!(d.league, o.league);
            // The stop holds: nobody decays below the floor, min_rating, min_league's bound
            // or the anchor unless already there.
            let stop = [decay.floor, decay.min_rating].into_iter().flatten().fold(once.rules().config().initial_rating, f32::max);
            prop_assert!(o.rating >= stop.min(start), "{} below the stop {}", o.rating, stop);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The zero-sum rule (docs/configuration.md#zero-sum-pools) written the plainest way,
    /// without the shared offset: every player's rating a `double`, each match rated from
    /// the ratings before it, then every player shifted by `(T - sum) / N`. The pool (which
    /// keeps one offset and float ratings, as the reference model does bit for bit) stays
    /// within float rounding of it, through pairs, teams and free-for-alls.
    #[test]
    fn zero_sum_pools_follow_the_plain_rule(
        total in prop::sample::select(vec![6000.0f64, 1000.0, -300.0, 24000.0]),
        players in 2usize..10,
        matches in prop::collection::vec((distinct(2..=6), 1usize..6, 0u8..3, any::<bool>()), 1..30),
    ) {
        use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
        use ranking_elo::team::Team;
        let rules = Config::from_json(&format!(r#"{{"zero_sum_total": {total}}}"#)).unwrap();
        let mut pool = Pool::new(rules.clone());
        pool.add_players(players);
        let mut plain: Vec<f64> = (0..players).map(|i| f64::from(pool.rating(i).unwrap())).collect();
        for (members, split, result, free_for_all) in matches {
            let members: Vec<usize> = members.into_iter().map(|m| m as usize % players).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            if members.len() < 2 {
                continue;
            }
            let outcome = [ranking_elo::Outcome::LOSS, ranking_elo::Outcome::DRAW, ranking_elo::Outcome::WIN][usize::from(result)];
            let states: Vec<PlayerState> = members.iter().map(|&i| PlayerState::new(plain[i] as f32)).collect();
            let mut out = states.clone();
            if free_for_all {
                let places: Vec<u32> = (0..members.len() as u32).map(|p| p % 3 + 1).map(|p| p.min(members.len() as u32)).collect();
                rules.rate_placements(&states, &places, &mut out).unwrap();
                pool.apply_placements(&[PlacementMatch { entrants: &members, places: &places }]).unwrap();
            } else {
                let split = split.min(members.len() - 1).max(1);
                let (a, b) = states.split_at(split);
                let (out_a, out_b) = out.split_at_mut(split);
                rules.rate_teams(Team::new(a), Team::new(b), outcome, out_a, out_b).unwrap();
                pool.apply_teams(&[TeamMatch::new(&members[..split], &members[split..], outcome)]).unwrap();
            }
            for (&i, state) in members.iter().zip(&out) {
                plain[i] = f64::from(state.rating);
            }
            let shift = (total - plain.iter().sum::<f64>()) / players as f64;
            for rating in &mut plain {
                *rating += shift;
            }
            for (i, &want) in plain.iter().enumerate() {
                let got = f64::from(pool.rating(i).unwrap());
                prop_assert!((got - want).abs() <= 1e-2, "player {}: pool {} plain rule {}", i, got, want);
            }
            prop_assert!((pool.refresh_total() - total).abs() <= 1e-6 * total.abs().max(1.0));
        }
    }
}

/// The worked examples the model must reproduce (a check of the model itself): the 2v2 in
/// a zero-sum pool that a defect once got wrong, and a set player in one.
#[test]
fn the_model_gives_the_documented_numbers() {
    use fuzz_checks::model::{Model, TeamSpec};
    let mut model = Model::new(Config::from_json(r#"{"zero_sum_total": 6000}"#).unwrap());
    model.add_players(4).unwrap();
    let spec = TeamSpec { a: vec![0, 1], b: vec![2, 3], weights_a: None, weights_b: None, outcome: ranking_elo::Outcome::WIN };
    model.apply_teams(&[spec]).unwrap();
    let ratings: Vec<f32> = (0..4).map(|i| model.state(i).rating).collect();
    assert_eq!(ratings, [1516.0, 1516.0, 1484.0, 1484.0]);
    model.set_player(0, PlayerState::new(1600.0)).unwrap();
    assert_eq!(model.total(), 6000.0);
    assert_eq!(model.state(0).rating, 1579.0);
}
