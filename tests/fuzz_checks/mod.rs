//! The properties the fuzz targets check (`fuzz/fuzz_targets/*.rs` include this file), so
//! that the ordinary test suite can replay the committed corpus of past findings on stable
//! Rust (`tests/fuzz_corpus.rs`). Each function takes the fuzzer's bytes and panics when
//! an invariant breaks:
//!
//! * every rating the engine returns with success is finite;
//! * the library reads and writes a configuration as serde's derives do (`json.rs`);
//! * a pool's own save loads back equal, and its total is its ratings summed exactly;
//! * batch rating agrees bit for bit with one call per pair (and fails exactly when one
//!   of them does);
//! * a pool applying a list agrees with applying it one match at a time, and a refused
//!   list changes nothing;
//! * the matchmaker never pairs a player twice, pairs only players within both windows,
//!   and keeps the same waiting set as a simple model;
//! * every pool path (pairs, teams, free-for-alls, with and without zero-sum, leagues with
//!   hysteresis, decay, season ends, new rules, sets, adds, saves; the Rust API and the C
//!   ABI) gives what the reference model of `model.rs` gives, bit for bit, and the C ABI
//!   refuses sizes near `INT32_MAX` in sparse buffers and outputs aimed into inputs
//!   (`paths.rs`; the `group_matches` and `seasons` targets).
#![allow(dead_code)] // each fuzz target uses one check

pub mod json;
pub mod model;
pub mod paths;
pub mod sparse;

use std::collections::BTreeMap;

use ranking_elo::batch::{self, BatchInput};
use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome, PlayerState, Rules};

/// Reads typed values from the fuzzer's bytes (zeros once they run out).
pub struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self(data)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A float that is often ordinary (a small integer or fraction) and sometimes any bit
    /// pattern (NaN, infinities, denormals, huge values).
    pub fn f32(&mut self) -> f32 {
        match self.u8() % 4 {
            0 => f32::from_bits(self.u32()),
            1 => f32::from(self.u8()) / 255.0,
            _ => f32::from(self.u8()) * 16.0 - 1000.0 + f32::from(self.u8()) / 64.0,
        }
    }
}

/// Configurations covering every model, K policy and bonus, for the checks that need one.
pub const CONFIGS: [&str; 8] = [
    "{}",
    r#"{"rounding":"truncate","victory_bonus":2,"score_share_bonus":4}"#,
    r#"{"rounding":"half_away_from_zero","min_rating":100,"max_rating_difference":400}"#,
    r#"{"expected_score":{"model":"normal","beta":200},"k_combine":"average"}"#,
    r#"{"expected_score":{"model":"linear","k":0.002},"k_policy":{"policy":"league"},"leagues":[{"name":"B","min_rating":0,"k":200,"victory_bonus":3},{"name":"S","min_rating":100,"k":150}]}"#,
    r#"{"k_policy":{"policy":"constant","k":1000000},"victory_bonus":1000000,"score_share_bonus":1000000,"expected_score":{"model":"logistic","c":0.001}}"#,
    r#"{"k_policy":{"policy":"fide","period_rule":true},"streak_alpha":0.5,"zero_sum_total":100000}"#,
    r#"{"k_policy":{"policy":"rating_bands","tiers":[{"below":1000,"k":40},{"k":10}]},"points_k_term":"result","victory_bonus":1}"#,
];

fn rules(choice: u8) -> Rules {
    Config::from_json(CONFIGS[usize::from(choice) % CONFIGS.len()]).expect("fuzz configurations are valid")
}

/// Whatever the text, parsing either fails or gives rules that write themselves back
/// identically and rate to finite results.
pub fn config_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(disagreement) = json::disagreement(text) {
        panic!("the library's reader and serde's disagree: {disagreement}");
    }
    let Ok(rules) = Config::from_json(text) else { return };
    let again = Config::from_json(&rules.config().to_json()).expect("a configuration's own JSON parses");
    assert_eq!(again.config(), rules.config(), "configuration round trip");
    for (a, b) in [(1500.0, 1500.0), (-1e15, 1e15), (1e15, 1e15), (0.0, 3000.0)] {
        for score in [0.0, 0.5, 1.0, 0.3] {
            let outcome = Outcome::from_score(score).expect("valid score");
            let state = |rating| PlayerState { games_played: 31, ..PlayerState::new(rating) };
            let (na, nb) = rules.rate_players(&state(a), &state(b), outcome).expect("valid ratings");
            assert!(na.rating.is_finite() && nb.rating.is_finite(), "{text}: {a} {b} {score}");
            if let Ok((x, y)) = rules.rate(a, b, outcome) {
                assert!(x.is_finite() && y.is_finite());
            }
        }
    }
}

/// Checks a pool's invariants: finite ratings, total equal to the exact sum, its own save
/// loads back equal.
pub fn check_pool(pool: &Pool) {
    check_ratings(pool);
    let saved = ranking_elo::save::to_json(pool);
    let loaded = ranking_elo::save::from_json(&saved).expect("a pool's own save loads");
    if loaded != *pool {
        for i in 0..pool.len() {
            assert_eq!(loaded.player(i), pool.player(i), "player {i}");
        }
        panic!("save round trip (clock/offset)");
    }
}

/// The cheap invariants, checked after every list: finite ratings, total equal to the
/// exact sum.
pub fn check_ratings(pool: &Pool) {
    let mut exact: i128 = 0;
    for i in 0..pool.len() {
        let rating = pool.rating(i).expect("in range");
        assert!(rating.is_finite(), "player {i} has rating {rating}");
    }
    if pool.rules().config().zero_sum_total.is_none() {
        for i in 0..pool.len() {
            exact += (f64::from(pool.rating(i).unwrap_or_default()) * 1_099_511_627_776.0) as i128;
        }
        assert_eq!(pool.total(), exact as f64 / 1_099_511_627_776.0, "total equals the ratings summed");
    }
}

/// A save built from the fuzzer's text with a valid checksum, so the fuzzer gets past it.
pub fn pool_load(data: &[u8]) {
    let Ok(payload) = std::str::from_utf8(data) else { return };
    let text = format!(r#"{{"format":"ranking-elo-pool","version":2,"checksum":"{}","pool":{payload}}}"#, ranking_elo::save::checksum(payload));
    if let Ok(mut pool) = ranking_elo::save::from_json(&text) {
        check_pool(&pool);
        if pool.len() >= 2 {
            let matches: Vec<Match> = (0..pool.len().min(64)).map(|i| Match::new(i % pool.len(), (i + 1) % pool.len(), Outcome::WIN)).collect();
            if pool.apply(&matches, None).is_ok() {
                check_pool(&pool);
            }
        }
    }
}

/// Batch rating against one call per pair, bit for bit.
pub fn batch_vs_single(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let rules = rules(bytes.u8());
    let n = usize::from(bytes.u8() % 64);
    let with_k = bytes.u8().is_multiple_of(2);
    let (mut ra, mut rb, mut s, mut k) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        ra.push(bytes.f32());
        rb.push(bytes.f32());
        s.push(if bytes.u8().is_multiple_of(4) { bytes.f32() } else { f32::from(bytes.u8() % 3) / 2.0 });
        k.push(if bytes.u8().is_multiple_of(8) { bytes.f32() } else { f32::from(bytes.u8()) });
    }
    let input = BatchInput { rating_a: &ra, rating_b: &rb, score_a: &s, k: with_k.then_some(&k[..]) };
    let (mut out_a, mut out_b) = (vec![0.0; n], vec![0.0; n]);
    let batch = batch::rate(&rules, &input, &mut out_a, &mut out_b);
    let mut single_ok = true;
    for i in 0..n {
        let outcome = Outcome::from_score(f64::from(s[i]));
        let single = outcome.map_err(|_| ()).and_then(|outcome| {
            if with_k {
                rules.rate_checked_k(ra[i], rb[i], outcome, f64::from(k[i]), f64::from(k[i])).map_err(|_| ())
            } else {
                rules.rate(ra[i], rb[i], outcome).map_err(|_| ())
            }
        });
        match single {
            Ok((a, b)) => {
                assert!(a.is_finite() && b.is_finite());
                if batch.is_ok() {
                    assert_eq!((out_a[i].to_bits(), out_b[i].to_bits()), (a.to_bits(), b.to_bits()), "pair {i}");
                }
            }
            Err(()) => single_ok = false,
        }
    }
    // Without per-pair K, a policy that needs player state refuses the whole batch, even an
    // empty one (as every single call would); otherwise the batch fails exactly when a pair
    // does.
    let policy_refuses = !with_k && !rules.config().k_policy.depends_only_on_rating();
    assert_eq!(batch.is_ok(), single_ok && !policy_refuses, "the batch fails exactly when a pair does");
}

fn matches_from(bytes: &mut Bytes<'_>, players: usize) -> Vec<Match> {
    let n = usize::from(bytes.u8() % 48);
    (0..n)
        .map(|_| {
            let a = usize::from(bytes.u8()) % (players + 1);
            let b = usize::from(bytes.u8()) % (players + 1);
            let outcome = match bytes.u8() % 5 {
                0 => Outcome::WIN,
                1 => Outcome::LOSS,
                2 => Outcome::DRAW,
                3 => Outcome { score_a: f64::from(bytes.f32()), share_a: f64::from(bytes.f32()) },
                _ => Outcome::from_points(f64::from(bytes.u8()), f64::from(bytes.u8())).unwrap_or(Outcome::DRAW),
            };
            Match::new(a, b, outcome)
        })
        .collect()
}

/// A pool applying a list against one match at a time; refused lists change nothing.
pub fn pool_apply(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let rules = rules(bytes.u8());
    let players = 2 + usize::from(bytes.u8() % 30);
    let mut whole = Pool::new(rules);
    whole.add_players(players);
    for i in 0..players {
        if bytes.u8().is_multiple_of(4) {
            let _ = whole.set_player(i, PlayerState { games_played: u32::from(bytes.u8()), win_streak: u32::from(bytes.u8() % 4), ..PlayerState::new(bytes.f32()) });
        }
    }
    let mut single = whole.clone();
    while !bytes.is_empty() {
        let matches = matches_from(&mut bytes, players);
        let before = whole.clone();
        match whole.apply(&matches, None) {
            Ok(()) => {
                for m in &matches {
                    single.apply(std::slice::from_ref(m), None).expect("each match of an accepted list is valid alone");
                }
                assert!(whole == single, "list and one-by-one application agree");
            }
            Err(_) => assert!(whole == before, "a refused list changes nothing"),
        }
        check_ratings(&whole);
    }
    check_pool(&whole);
}

/// Team matches, free-for-alls and pairs in every pool path, against the reference model
/// (bit for bit), with hostile C ABI calls mixed in.
pub fn group_matches(data: &[u8]) {
    let (config, abi, ops) = paths::decode(data, paths::Focus::Matches);
    paths::run(&config, abi, &ops);
}

/// The matchmaker against a model of who is waiting.
pub fn matchmaker(data: &[u8]) {
    let mut bytes = Bytes::new(data);
    let settings = MatchmakingSettings {
        initial_distance: f64::from(bytes.u8()),
        growth_per_second: f64::from(bytes.u8()) / 8.0,
        max_distance: 255.0 + f64::from(bytes.u8()) * 4.0,
        candidates: 1 + u32::from(bytes.u8() % 8),
        seed: u64::from(bytes.u32()),
    };
    let mut queue = Matchmaker::new(settings).expect("valid settings");
    let mut waiting: BTreeMap<u64, (f32, f64)> = BTreeMap::new();
    let mut clock = 0.0f64;
    while !bytes.is_empty() {
        match bytes.u8() % 4 {
            0 | 1 => {
                let id = u64::from(bytes.u8() % 64);
                let rating = bytes.f32();
                let result = queue.join(id, rating, clock);
                let expected_ok = rating.is_finite() && !waiting.contains_key(&id);
                assert_eq!(result.is_ok(), expected_ok, "join {id} {rating}");
                if expected_ok {
                    waiting.insert(id, (rating, clock));
                }
            }
            2 => {
                let id = u64::from(bytes.u8() % 64);
                assert_eq!(queue.leave(id), waiting.remove(&id).is_some());
            }
            _ => {
                clock += f64::from(bytes.u8());
                let capacity = usize::from(bytes.u8() % 40);
                let pairs = queue.tick(clock, capacity);
                assert!(pairs.len() <= capacity);
                for (a, b) in pairs {
                    let (ra, ja) = waiting.remove(&a).expect("a waiting player");
                    let (rb, jb) = waiting.remove(&b).expect("a waiting player, not paired twice");
                    let gap = (f64::from(ra) - f64::from(rb)).abs();
                    let settings = queue.settings();
                    assert!(gap <= settings.distance(clock - ja) && gap <= settings.distance(clock - jb), "pair {a} {b} outside a window");
                }
            }
        }
        assert_eq!(queue.len(), waiting.len());
    }
}

/// A season's operations in any order (match lists with events, clock changes, decay,
/// season ends, new rules, states set by hand, players added, saves) in every pool path,
/// against the reference model, bit for bit.
pub fn seasons(data: &[u8]) {
    let (config, abi, ops) = paths::decode(data, paths::Focus::Seasons);
    paths::run(&config, abi, &ops);
}
