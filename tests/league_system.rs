//! A league system end to end (the one of `benches/system_002.json` and the README's "Pools,
//! leagues, matchmaking and saves"): linear expectation, streak penalty, league K table,
//! average K, a zero-sum pool of 10,000 players with total 1000, leagues by rating with
//! negative ratings in the lowest league.
//!
//! Its author reports Bronze 7992, Silver 1780, Gold 304, Platinum 2. That simulation draws
//! each result at random; with k = 0.002 and alpha = 0.1 (it gives neither) this engine
//! reproduces the shape: most players in Bronze, each league smaller than the one below,
//! a handful in Platinum, and the total held at 1000 after 1,000,000 matches.

use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome};
mod common;
use common::SplitMix;

const SYSTEM_002: &str = r#"{
    "expected_score": {"model": "linear", "k": 0.002},
    "k_policy": {"policy": "league"},
    "k_combine": "average",
    "streak_alpha": 0.1,
    "zero_sum_total": 1000,
    "leagues": [
        {"name": "Bronze", "min_rating": 0, "k": 200},
        {"name": "Silver", "min_rating": 100, "k": 150},
        {"name": "Gold", "min_rating": 200, "k": 100},
        {"name": "Platinum", "min_rating": 300, "k": 50}
    ]
}"#;

#[test]
fn system_002_ten_thousand_players_one_million_matches() {
    let rules = Config::from_json(SYSTEM_002).unwrap();
    let mut pool = Pool::new(rules);
    pool.add_players(10_000);
    assert!((pool.total() - 1000.0).abs() < 1e-9);
    let mut rng = SplitMix(2025);
    let mut batch = Vec::with_capacity(1000);
    let start = std::time::Instant::now();
    for _ in 0..1000 {
        batch.clear();
        for _ in 0..1000 {
            let a = (rng.next() % 10_000) as usize;
            let mut b = (rng.next() % 9_999) as usize;
            if b >= a {
                b += 1;
            }
            let outcome = if rng.next() & 1 == 1 { Outcome::WIN } else { Outcome::LOSS };
            batch.push(Match::new(a, b, outcome));
        }
        pool.apply(&batch, None).unwrap();
    }
    let elapsed = start.elapsed();

    let counts = pool.league_counts();
    let mut ratings = vec![0.0f32; 10_000];
    pool.ratings_into(0, &mut ratings).unwrap();
    let reported_sum: f64 = ratings.iter().map(|&r| f64::from(r)).sum();
    let top: Vec<f32> = pool.top(5).iter().map(|&i| pool.rating(i).unwrap()).collect();
    let bottom: Vec<f32> = pool.bottom(5).iter().map(|&i| pool.rating(i).unwrap()).collect();
    println!("002 run: leagues {counts:?}, total {:.9} (sum of f32 ratings {reported_sum:.6}), top {top:?}, bottom {bottom:?}, 1M matches in {elapsed:?}", pool.total());

    assert_eq!(counts.iter().sum::<usize>(), 10_000);
    assert!(counts[0] > 6_500, "most players in Bronze: {counts:?}");
    assert!(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > counts[3], "{counts:?}");
    assert!(counts[3] < 50, "very few in Platinum: {counts:?}");
    assert!(bottom[0] < 0.0, "negative ratings exist and sit in Bronze");
    assert_eq!(pool.league_of_player(pool.bottom(1)[0]), Some(0));
    assert!((pool.total() - 1000.0).abs() < 1e-6, "total {}", pool.total());
    assert!((reported_sum - 1000.0).abs() < 0.05, "sum of reported ratings {reported_sum}");
}
