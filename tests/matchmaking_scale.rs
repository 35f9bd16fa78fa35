//! Matchmaking at scale (the README's "Pools, leagues, matchmaking and saves"): 100,000
//! waiting players are paired in one tick without O(n^2) work; every pair respects both
//! players' windows, nobody is paired twice, and the same seed gives the same pairs. The
//! time is printed, not asserted (benchmarks measure speed).

use std::collections::HashSet;

use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
mod common;
use common::SplitMix;

fn fill(seed: u64) -> (Matchmaker, Vec<(f32, f64)>) {
    let settings = MatchmakingSettings { initial_distance: 50.0, growth_per_second: 5.0, max_distance: 300.0, candidates: 4, seed };
    let mut queue = Matchmaker::new(settings).unwrap();
    let mut rng = SplitMix(99);
    let mut players = Vec::with_capacity(100_000);
    for id in 0..100_000u64 {
        // Ratings roughly normal around 1500 (sum of uniforms), joins over the last minute.
        let rating = 1500.0 + 300.0 * ((0..4).map(|_| rng.unit()).sum::<f64>() - 2.0) as f32;
        let joined = 60.0 * rng.unit();
        queue.join(id, rating, joined).unwrap();
        players.push((rating, joined));
    }
    (queue, players)
}

#[test]
fn one_hundred_thousand_waiting_players() {
    let (mut queue, players) = fill(5);
    let start = std::time::Instant::now();
    let pairs = queue.tick(60.0, usize::MAX);
    let elapsed = start.elapsed();
    println!("matchmaking: 100000 waiting, {} pairs formed, {} left waiting, tick took {elapsed:?}", pairs.len(), queue.len());

    let settings = *queue.settings();
    let mut seen = HashSet::new();
    for &(a, b) in &pairs {
        assert!(seen.insert(a) && seen.insert(b), "a player is in two pairs");
        let (ra, ja) = players[a as usize];
        let (rb, jb) = players[b as usize];
        let gap = (f64::from(ra) - f64::from(rb)).abs();
        assert!(gap <= settings.distance(60.0 - ja) && gap <= settings.distance(60.0 - jb), "pair ({a}, {b}) outside a window");
    }
    assert_eq!(seen.len() + queue.len(), 100_000);
    assert!(pairs.len() > 49_000, "{} pairs", pairs.len());

    let (mut again, _) = fill(5);
    assert_eq!(again.tick(60.0, usize::MAX), pairs, "same seed, same pairs");
    let (mut other, _) = fill(6);
    assert_ne!(other.tick(60.0, usize::MAX), pairs, "another seed, other pairs");
}
