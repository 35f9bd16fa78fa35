//! The properties the fuzz targets check (`fuzz/fuzz_targets/*.rs` include this file), so
//! that the ordinary test suite can replay the committed corpus of past findings on stable
//! Rust (`tests/fuzz_corpus.rs`). Each function takes the fuzzer's bytes and panics when
//! an invariant breaks:
//!
//! * every rating the engine returns with success is finite;
//! * a pool's own save loads back equal, and its total is its ratings summed exactly;
//! * batch rating agrees bit for bit with one call per pair (and fails exactly when one
//!   of them does);
//! * a pool applying a list agrees with applying it one match at a time, and a refused
//!   list changes nothing;
//! * the matchmaker never pairs a player twice, pairs only players within both windows,
//!   and keeps the same waiting set as a simple model.
#![allow(dead_code)] // each fuzz target uses one check

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
    let text = format!(
        r#"{{"format":"ranking-elo-pool","version":2,"checksum":"{}","pool":{payload}}}"#,
        ranking_elo::save::checksum(payload)
    );
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
    let with_k = bytes.u8() % 2 == 0;
    let (mut ra, mut rb, mut s, mut k) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        ra.push(bytes.f32());
        rb.push(bytes.f32());
        s.push(if bytes.u8() % 4 == 0 { bytes.f32() } else { f32::from(bytes.u8() % 3) / 2.0 });
        k.push(if bytes.u8() % 8 == 0 { bytes.f32() } else { f32::from(bytes.u8()) });
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
        if bytes.u8() % 4 == 0 {
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

/// Team matches and free-for-alls applied to a pool: a list either applies exactly as the
/// rules rate each match on the players' states in turn, or is refused and changes nothing.
pub fn group_matches(data: &[u8]) {
    use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
    use ranking_elo::team::Team;
    let mut bytes = Bytes::new(data);
    let json = match bytes.u8() % 4 {
        0 => "{}",
        1 => r#"{"team_rating":"sum","k_combine":"average","streak_alpha":0.3,"victory_bonus":2}"#,
        2 => r#"{"team_rating":"weighted_mean","team_split":"weights","rounding":"truncate","zero_sum_total":24000}"#,
        _ => r#"{"placement_normalization":"none","k_policy":{"policy":"fide"},"expected_score":{"model":"normal"}}"#,
    };
    let rules = Config::from_json(json).expect("valid");
    let players = 4 + usize::from(bytes.u8() % 20);
    let mut pool = Pool::new(rules.clone());
    pool.add_players(players);
    while !bytes.is_empty() {
        let before = pool.clone();
        let indices: Vec<usize> = (0..2 + usize::from(bytes.u8() % 10)).map(|_| usize::from(bytes.u8()) % (players + 1)).collect();
        let mut expected: Vec<PlayerState> = (0..players).filter_map(|i| pool.player(i)).collect();
        if bytes.u8() % 2 == 0 {
            let split = 1 + usize::from(bytes.u8()) % (indices.len() - 1);
            let weights: Vec<f64> = (0..indices.len()).map(|_| f64::from(bytes.u8() % 5)).collect();
            let (a, b) = indices.split_at(split);
            let (wa, wb) = weights.split_at(split);
            let outcome = Outcome::from_score(f64::from(bytes.u8() % 3) / 2.0).expect("valid");
            let result = pool.apply_teams(&[TeamMatch { team_a: a, team_b: b, weights_a: Some(wa), weights_b: Some(wb), outcome }]);
            if result.is_ok() {
                let sa: Vec<PlayerState> = a.iter().map(|&i| expected[i]).collect();
                let sb: Vec<PlayerState> = b.iter().map(|&i| expected[i]).collect();
                let (mut oa, mut ob) = (sa.clone(), sb.clone());
                rules.rate_teams(Team::weighted(&sa, wa), Team::weighted(&sb, wb), outcome, &mut oa, &mut ob).expect("the pool accepted it");
                for (&i, s) in a.iter().zip(&oa).chain(b.iter().zip(&ob)) {
                    expected[i] = *s;
                }
            }
            check_group_result(&pool, &before, &expected, result.is_ok(), rules.config().zero_sum_total.is_some());
        } else {
            let places: Vec<u32> = indices.iter().map(|_| u32::from(bytes.u8() % 12)).collect();
            let result = pool.apply_placements(&[PlacementMatch { entrants: &indices, places: &places }]);
            if result.is_ok() {
                let states: Vec<PlayerState> = indices.iter().map(|&i| expected[i]).collect();
                let mut out = states.clone();
                rules.rate_placements(&states, &places, &mut out).expect("the pool accepted it");
                for (&i, s) in indices.iter().zip(&out) {
                    expected[i] = *s;
                }
            }
            check_group_result(&pool, &before, &expected, result.is_ok(), rules.config().zero_sum_total.is_some());
        }
        check_ratings(&pool);
    }
    check_pool(&pool);
}

/// After one group match: a refused match changed nothing; an applied one left every
/// player as the rules say (in a zero-sum pool, up to the shared adjustment).
fn check_group_result(pool: &Pool, before: &Pool, expected: &[PlayerState], applied: bool, zero_sum: bool) {
    if !applied {
        assert!(pool == before, "a refused match changes nothing");
        return;
    }
    if zero_sum {
        return;
    }
    for (i, state) in expected.iter().enumerate() {
        assert_eq!(pool.player(i).expect("in range"), *state, "player {i}");
    }
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

/// Season configurations: hysteresis with protection, decay by league and by rating,
/// per-league reset shares, integer rounding, a zero-sum ladder.
pub const SEASON_CONFIGS: [&str; 3] = [
    r#"{"k_policy":{"policy":"league"},"demotion_margin":30,"protected_games":2,"leagues":[{"name":"B","min_rating":0,"k":40},{"name":"S","min_rating":1450,"k":32,"season_keep":0.8},{"name":"G","min_rating":1550,"k":24,"victory_bonus":2,"season_keep":0.25}],"season_reset":{"keep":0.5},"decay":{"grace_days":1,"points_per_day":7,"min_league":1}}"#,
    r#"{"rounding":"half_away_from_zero","min_rating":1000,"demotion_margin":15,"leagues":[{"name":"L","min_rating":0,"k":1},{"name":"M","min_rating":1500,"k":1},{"name":"H","min_rating":1600,"k":1}],"season_reset":{"anchor":"pool_mean","keep":0.3},"decay":{"grace_days":0.5,"points_per_day":3,"min_rating":1520,"floor":1510}}"#,
    r#"{"zero_sum_total":15000,"protected_games":65535,"demotion_margin":1e12,"leagues":[{"name":"A","min_rating":0,"k":1},{"name":"B","min_rating":1500,"k":1}],"season_reset":{"anchor":"pool_mean","keep":0}, "decay":{"grace_days":0,"points_per_day":1000}}"#,
];

/// The held league of every player of a pool.
fn held_leagues(pool: &Pool) -> Vec<u32> {
    (0..pool.len()).map(|i| pool.player(i).and_then(|p| p.league).expect("pools place every player")).collect()
}

/// A season's operations in any order (match lists with events, clock changes, decay,
/// season ends, states set by hand): the events replay to the leagues the pool holds,
/// list application equals one match at a time, a refused operation changes nothing, a
/// season end reports the records and keeps a zero-sum total, and the pool's state
/// invariants hold (a league the rules have, peaks at least the held league, protection
/// within the setting, season games at most games); the save round trips.
pub fn seasons(data: &[u8]) {
    use ranking_elo::pool::MatchOutputs;
    let mut bytes = Bytes::new(data);
    let rules = Config::from_json(SEASON_CONFIGS[usize::from(bytes.u8()) % SEASON_CONFIGS.len()]).expect("valid");
    let players = 2 + usize::from(bytes.u8() % 20);
    let mut pool = Pool::new(rules.clone());
    pool.add_players(players);
    let mut held = held_leagues(&pool);
    let mut rules = rules;
    let mut leagues = rules.config().leagues.len() as u32;
    while !bytes.is_empty() {
        let before = pool.clone();
        match bytes.u8() % 7 {
            6 => {
                // The next season's rules: ratings and records stay, leagues re-placed when
                // the bounds differ, a zero-sum total applied.
                rules = Config::from_json(SEASON_CONFIGS[usize::from(bytes.u8()) % SEASON_CONFIGS.len()]).expect("valid");
                leagues = rules.config().leagues.len() as u32;
                pool.set_rules(rules.clone());
                for i in 0..players {
                    let (old, new) = (before.player(i).expect("in range"), pool.player(i).expect("in range"));
                    assert_eq!((old.games_played, old.season_games, old.season_wins, old.last_played.to_bits()), (new.games_played, new.season_games, new.season_wins, new.last_played.to_bits()));
                    if rules.config().zero_sum_total.is_none() && before.rules().config().zero_sum_total.is_none() {
                        assert_eq!(old.rating.to_bits(), new.rating.to_bits(), "ratings stay");
                    }
                }
                held = held_leagues(&pool);
            }
            0 | 1 => {
                let matches = matches_from(&mut bytes, players);
                let mut events = Vec::new();
                let outputs = MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() };
                match pool.apply(&matches, Some(outputs)) {
                    Ok(()) => {
                        let mut single = before.clone();
                        for m in &matches {
                            single.apply(std::slice::from_ref(m), None).expect("valid alone");
                        }
                        assert!(single == pool, "list and one at a time agree");
                        for e in &events {
                            assert_eq!(held[e.player], e.from, "event {e:?} starts from the held league");
                            held[e.player] = e.to;
                        }
                    }
                    Err(_) => assert!(pool == before && events.is_empty(), "a refused list changes nothing"),
                }
            }
            2 => {
                let seconds = match bytes.u8() % 4 {
                    0 => f64::from(bytes.f32()),
                    _ => pool.clock() + f64::from(bytes.u8()) * 3600.0,
                };
                if pool.set_clock(seconds).is_err() {
                    assert!(!seconds.is_finite() && pool == before);
                }
            }
            3 => {
                let now = pool.decayed_through().unwrap_or(0.0).max(pool.clock()) + f64::from(bytes.u8()) * 7200.0 - 3600.0;
                let mut events = Vec::new();
                match pool.apply_decay(now, Some(&mut events)) {
                    Ok(_) => {
                        for e in &events {
                            assert!(e.to < e.from && held[e.player] == e.from, "decay only demotes: {e:?}");
                            held[e.player] = e.to;
                        }
                    }
                    Err(_) => assert!(pool == before && events.is_empty(), "a refused decay changes nothing"),
                }
            }
            4 => {
                let mut events = Vec::new();
                let records = pool.end_season(Some(&mut events));
                for (i, record) in records.iter().enumerate() {
                    let old = before.player(i).expect("in range");
                    assert_eq!((record.rating, record.league, record.games, record.wins), (old.rating, old.league.expect("placed"), old.season_games, old.season_wins));
                    let now = pool.player(i).expect("in range");
                    assert_eq!((now.season_games, now.season_wins, now.protected_games), (0, 0, 0));
                }
                if let Some(total) = rules.config().zero_sum_total {
                    // Up to the rounding of the shared offset, which grows with the largest
                    // rating (states set by hand may be huge).
                    let now = pool.refresh_total();
                    let largest = (0..players).map(|i| f64::from(before.rating(i).expect("in range").abs())).fold(total.abs(), f64::max);
                    let tolerance = largest * players as f64 * 1e-12;
                    assert!((now - total).abs() <= tolerance.max(1e-6), "a reset leaves the zero-sum total: {now} vs {total} (largest rating {largest})");
                }
                for e in &events {
                    assert_eq!(held[e.player], e.from);
                    held[e.player] = e.to;
                }
            }
            _ => {
                let index = usize::from(bytes.u8()) % players;
                let state = PlayerState {
                    league: (bytes.u8() % 2 == 0).then(|| u32::from(bytes.u8() % 5)),
                    protected_games: u32::from(bytes.u8() % 4),
                    games_played: u32::from(bytes.u8()),
                    season_games: u32::from(bytes.u8() % 8),
                    last_played: f64::from(bytes.f32()),
                    ..PlayerState::new(bytes.f32())
                };
                match pool.set_player(index, state) {
                    Ok(()) => held[index] = pool.player(index).and_then(|p| p.league).expect("placed"),
                    Err(_) => assert!(pool == before, "a refused state changes nothing"),
                }
            }
        }
        assert_eq!(held, held_leagues(&pool), "events replay to the held leagues");
        for i in 0..players {
            let p = pool.player(i).expect("in range");
            let league = p.league.expect("placed");
            assert!(league < leagues.max(1) && p.peak_league >= league && p.peak_league < leagues.max(1), "{p:?}");
            assert!(p.season_games <= p.games_played && p.last_played.is_finite() && p.peak_rating.is_finite(), "{p:?}");
        }
        check_ratings(&pool);
    }
    check_pool(&pool);
}
