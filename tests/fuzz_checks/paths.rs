//! Every pool path against the reference model ([`super::model`]), bit for bit: a run
//! applies a list of operations to the model and to one engine pool, through the Rust API
//! or through the C ABI (each operation picking one of the function variants: with or
//! without outputs, events, truncated event arrays, counts), and after each operation
//! requires the same players (every field, ratings as bits), the same total (as bits), the
//! same clock, events, records and per-match outputs; a refused operation must leave the
//! engine as the model (unchanged). Hostile C ABI operations give sizes and offsets near
//! `INT32_MAX` in sparse buffers and aim count outputs into inputs: they must be refused
//! and change nothing, without a huge allocation (libFuzzer's malloc limit catches one).
//!
//! The fuzz targets `group_matches` and `seasons` decode their bytes into a configuration
//! and operations ([`decode`]); the property test `tests/pool_model.rs` generates them.
#![allow(dead_code)] // each user takes what it needs

use std::ptr::{null, null_mut};

use ranking_elo::config::{Config, KCombine, Rounding};
use ranking_elo::ffi::*;
use ranking_elo::kpolicy::KPolicy;
use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::{Match, MatchOutputs, Pool};
use ranking_elo::rating::placement::PlacementNormalization;
use ranking_elo::rating::season_rules::{Decay, ResetAnchor, SeasonReset};
use ranking_elo::rating::team::{TeamRating, TeamSplit};
use ranking_elo::{ExpectedScoreModel, League, Leagues, Outcome, PlayerState, Rules};

use super::model::{same_state, Event, Model, PairOutputs, Record, TeamSpec};
use super::Bytes;

/// The bytes a configuration is made from.
pub type ConfigBytes = [u8; 16];

/// A configuration from 16 bytes: rounding, K policies, `k_combine`, streaks, bonuses,
/// leagues (with season shares), hysteresis, zero-sum totals or a floor, team and
/// free-for-all settings, expectation models, reset anchors and shares, decay with every
/// stop. Combinations the engine refuses are simplified until valid.
pub fn config_from(b: &ConfigBytes) -> Rules {
    let leagues = match b[4] % 4 {
        0 => vec![],
        1 => vec![League::new("B", 0.0, 40.0), League::new("S", 1450.0, 32.0), League::new("G", 1550.0, 24.0)],
        2 => vec![
            League { season_keep: Some(0.8), ..League::new("B", -100.0, 40.0) },
            League { victory_bonus: Some(3.0), ..League::new("S", 1480.5, 32.0) },
            League { season_keep: Some(0.25), ..League::new("G", 1520.0, 24.0) },
            League::new("P", 1600.0, 16.0),
        ],
        _ => vec![League::new("L", 0.0, 10.0), League { score_share_bonus: Some(4.0), ..League::new("H", 1500.0, 20.0) }],
    };
    let has_leagues = !leagues.is_empty();
    let zero_sum = [None, None, Some(6000.0), Some(15000.0), Some(1000.0), Some(-300.0), Some(24000.0)][usize::from(b[6] % 7)];
    let floor = if zero_sum.is_some() { None } else { [None, Some(1400.0), Some(1480.5)][usize::from(b[6] / 7 % 3)] };
    let k_policy = match b[1] % 5 {
        0 | 1 => KPolicy::Constant { k: [32.0, 16.0, 40.0, 24.0][usize::from(b[1] / 5 % 4)] },
        2 if has_leagues => KPolicy::League {},
        3 => KPolicy::Fide { period_rule: (b[1] / 5).is_multiple_of(2) },
        _ => KPolicy::Constant { k: 32.0 },
    };
    let league_count = leagues.len() as u32;
    let config = Config {
        rounding: [Rounding::None, Rounding::Truncate, Rounding::HalfAwayFromZero][usize::from(b[0] % 3)],
        k_policy,
        k_combine: if b[2].is_multiple_of(2) { KCombine::PerPlayer } else { KCombine::Average },
        streak_alpha: [0.0, 0.0, 0.3][usize::from(b[3] % 3)],
        score_share_bonus: [0.0, 4.0, 0.0][usize::from(b[3] / 3 % 3)],
        victory_bonus: [0.0, 2.0, 1.0][usize::from(b[3] / 3 % 3)],
        leagues: Leagues::new(leagues).expect("valid leagues"),
        demotion_margin: [0.0, 15.0, 30.0, 60.0][usize::from(b[5] % 4)],
        protected_games: u32::from(b[5] / 4 % 4),
        zero_sum_total: zero_sum,
        min_rating: floor,
        initial_rating: [1500.0, 1500.25, 1480.5, 1600.0][usize::from(b[13] % 4)],
        team_rating: [TeamRating::Mean, TeamRating::Sum, TeamRating::WeightedMean][usize::from(b[7] % 3)],
        team_split: if (b[7] / 3).is_multiple_of(2) { TeamSplit::Equal } else { TeamSplit::Weights },
        placement_normalization: if b[8].is_multiple_of(2) { PlacementNormalization::NMinusOne } else { PlacementNormalization::None },
        expected_score: match b[8] / 2 % 4 {
            0 | 1 => ExpectedScoreModel::Logistic { c: 400.0 },
            2 => ExpectedScoreModel::Normal { beta: 200.0 },
            _ => ExpectedScoreModel::Linear { k: 0.002 },
        },
        season_reset: SeasonReset {
            anchor: if b[9].is_multiple_of(2) { ResetAnchor::InitialRating } else { ResetAnchor::PoolMean },
            keep: [0.5, 0.0, 1.0, 0.3][usize::from(b[9] / 2 % 4)],
        },
        decay: Decay {
            points_per_day: [0.0, 4.0, 7.0, 10.0, 100.0, 2.5][usize::from(b[10] % 6)],
            grace_days: [0.0, 1.0, 7.0, 0.5][usize::from(b[10] / 6 % 4)],
            min_rating: [None, Some(1520.0), Some(1580.5)][usize::from(b[11] % 3)],
            floor: [None, Some(1510.0), Some(1550.5)][usize::from(b[11] / 3 % 3)],
            min_league: [None, Some(0), Some(1), Some(2)][usize::from(b[12] % 4)].filter(|&l| l < league_count.max(1)),
        },
        ..Config::default()
    };
    let config = Config { initial_rating: config.initial_rating.max(floor.unwrap_or(f32::MIN)), ..config };
    config.validate().expect("the configurations built here are valid")
}

/// One operation on a pool. Indices are the C ABI's `int32_t` (negative: out of range);
/// `via` picks the function variant.
#[derive(Debug, Clone)]
pub enum Op {
    /// Pair matches with scores.
    Pairs { matches: Vec<(i32, i32, f32)>, via: u8 },
    /// Pair matches with points scored.
    Points { matches: Vec<(i32, i32, f32, f32)>, via: u8 },
    /// Team matches (team A, team B, team A's score); weights for every member or none.
    Teams { matches: Vec<(Vec<i32>, Vec<i32>, f32)>, weights: Option<Vec<f32>>, via: u8 },
    /// Free-for-alls (entrants, places).
    Placements { matches: Vec<(Vec<i32>, Vec<i32>)>, via: u8 },
    /// The clock set.
    Clock(f64),
    /// Decay up to a time.
    Decay { now: f64, via: u8 },
    /// The season's end.
    EndSeason { via: u8 },
    /// New rules.
    Rules(ConfigBytes),
    /// A player set by hand.
    SetPlayer { index: i32, state: PlayerState },
    /// New players.
    AddPlayers(u8),
    /// New players with states.
    AddStates(Vec<PlayerState>),
    /// Saved and loaded back.
    SaveLoad,
    /// C ABI only: sizes and offsets near `INT32_MAX` in sparse buffers.
    Huge { kind: u8, delta: u8, values: Vec<i32> },
    /// C ABI only: an output aimed at an input or another output.
    Aliased { kind: u8, target: u8, at: u8 },
}

/// Which operations a decoded run favours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// Pairs, teams and free-for-alls.
    Matches,
    /// Season operations.
    Seasons,
}

fn index(bytes: &mut Bytes<'_>, players: usize) -> i32 {
    match bytes.u8() {
        255 => -1,
        254 => i32::MAX,
        x => i32::from(x) % (players as i32 + 1),
    }
}

fn score(bytes: &mut Bytes<'_>) -> f32 {
    match bytes.u8() % 8 {
        0 => bytes.f32(),
        1 => f32::from(bytes.u8()) / 255.0,
        x => f32::from((x - 2) % 3) / 2.0,
    }
}

fn state(bytes: &mut Bytes<'_>) -> PlayerState {
    let rating = match bytes.u8() % 6 {
        0 => bytes.f32(),
        1 => [1e15, -1e15, f32::NAN, 1e15f32.next_up(), 0.0, -0.0][usize::from(bytes.u8() % 6)],
        _ => 1300.0 + f32::from(bytes.u8()) * 2.0 + f32::from(bytes.u8() % 4) / 4.0,
    };
    let games_played = u32::from(bytes.u8());
    PlayerState {
        games_played,
        win_streak: u32::from(bytes.u8() % 4),
        league: bytes.u8().is_multiple_of(2).then(|| u32::from(bytes.u8() % 5)),
        protected_games: u32::from(bytes.u8() % 4),
        season_games: u32::from(bytes.u8()) % (games_played + 2),
        peak_rating: match bytes.u8() % 8 {
            0 => f32::NAN,
            1 => f32::NEG_INFINITY,
            2 => f32::MIN,
            3 => bytes.f32(),
            _ => rating,
        },
        last_played: [0.0, 86_400.0, f64::from(bytes.f32())][usize::from(bytes.u8() % 3)],
        is_junior: bytes.u8().is_multiple_of(4),
        ..PlayerState::new(rating)
    }
}

/// Decodes a fuzzer's bytes: the configuration, the engine (Rust API or C ABI), the
/// players, then operations until the bytes run out.
pub fn decode(data: &[u8], focus: Focus) -> (ConfigBytes, bool, Vec<Op>) {
    let mut bytes = Bytes::new(data);
    let mut config = [0u8; 16];
    for b in &mut config {
        *b = bytes.u8();
    }
    let abi = bytes.u8() % 2 == 1;
    let mut players = 2 + usize::from(bytes.u8() % 20);
    let mut ops = vec![Op::AddPlayers(players as u8)];
    while !bytes.is_empty() {
        let pick = bytes.u8();
        let pick = match focus {
            Focus::Matches => [0, 0, 1, 2, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13][usize::from(pick) % 19],
            Focus::Seasons => [0, 0, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 7, 8, 8, 9, 10, 11, 12, 13][usize::from(pick) % 20],
        };
        let via = bytes.u8();
        let op = match pick {
            0 => Op::Pairs { matches: (0..bytes.u8() % 12).map(|_| (index(&mut bytes, players), index(&mut bytes, players), score(&mut bytes))).collect(), via },
            1 => Op::Points {
                matches: (0..bytes.u8() % 8)
                    .map(|_| {
                        let (a, b) = (index(&mut bytes, players), index(&mut bytes, players));
                        let points = |bytes: &mut Bytes<'_>| if bytes.u8().is_multiple_of(8) { bytes.f32() } else { f32::from(bytes.u8() % 6) };
                        (a, b, points(&mut bytes), points(&mut bytes))
                    })
                    .collect(),
                via,
            },
            2 => {
                let count = bytes.u8() % 4;
                let mut matches = Vec::new();
                for _ in 0..count {
                    let size = |bytes: &mut Bytes<'_>| match bytes.u8() % 16 {
                        0 => 0,
                        1 => 65,
                        x => usize::from(x % 5) + 1,
                    };
                    let (sa, sb) = (size(&mut bytes), size(&mut bytes));
                    let a: Vec<i32> = (0..sa).map(|_| index(&mut bytes, players)).collect();
                    let b: Vec<i32> = (0..sb).map(|_| index(&mut bytes, players)).collect();
                    matches.push((a, b, score(&mut bytes)));
                }
                let members: usize = matches.iter().map(|(a, b, _)| a.len() + b.len()).sum();
                let weights = (!via.is_multiple_of(3)).then(|| (0..members).map(|_| if bytes.u8().is_multiple_of(16) { bytes.f32() } else { f32::from(bytes.u8() % 5) }).collect());
                Op::Teams { matches, weights, via }
            }
            3 => {
                let count = bytes.u8() % 4;
                let matches = (0..count)
                    .map(|_| {
                        let n = match bytes.u8() % 16 {
                            0 => 1,
                            1 => 257,
                            x => usize::from(x % 7) + 2,
                        };
                        let entrants: Vec<i32> = (0..n).map(|_| index(&mut bytes, players)).collect();
                        let places: Vec<i32> = (0..n).map(|_| i32::from(bytes.u8() % 10) - 1).collect();
                        (entrants, places)
                    })
                    .collect();
                Op::Placements { matches, via }
            }
            4 => Op::Clock(match bytes.u8() % 6 {
                0 => f64::from(bytes.f32()),
                1 => f64::NAN,
                x => f64::from(x) * 43_200.0 * f64::from(bytes.u8()),
            }),
            5 => Op::Decay { now: if bytes.u8().is_multiple_of(16) { f64::from(bytes.f32()) } else { f64::from(bytes.u8()) * 21_600.0 * f64::from(bytes.u8() % 8 + 1) }, via },
            6 => Op::EndSeason { via },
            7 => {
                let mut next = [0u8; 16];
                for b in &mut next {
                    *b = bytes.u8();
                }
                Op::Rules(next)
            }
            8 => Op::SetPlayer { index: index(&mut bytes, players), state: state(&mut bytes) },
            9 => {
                let count = bytes.u8() % 4;
                players += usize::from(count);
                Op::AddPlayers(count)
            }
            10 => {
                let states: Vec<PlayerState> = (0..bytes.u8() % 3).map(|_| state(&mut bytes)).collect();
                players += states.len();
                Op::AddStates(states)
            }
            11 => Op::SaveLoad,
            12 => Op::Huge {
                kind: bytes.u8(),
                delta: bytes.u8(),
                values: (0..bytes.u8() % 8).map(|_| if bytes.u8().is_multiple_of(4) { i32::MAX - i32::from(bytes.u8()) } else { i32::from(bytes.u8() % 8) }).collect(),
            },
            _ => Op::Aliased { kind: bytes.u8(), target: bytes.u8(), at: bytes.u8() },
        };
        ops.push(op);
    }
    (config, abi, ops)
}

/// A pool behind the C ABI, freed on drop.
pub struct AbiPool(*mut EloPool);

impl Drop for AbiPool {
    fn drop(&mut self) {
        unsafe { elo_pool_free(self.0) };
    }
}

/// The engine pool under test.
pub enum Engine {
    Rust(Box<Pool>),
    Abi(AbiPool),
}

fn abi_config(rules: &Rules) -> *mut EloConfig {
    let json = rules.config().to_json();
    let mut handle = null_mut();
    assert_eq!(unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) }, EloResult::Ok, "{json}");
    handle
}

fn usize_index(i: i32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

fn outcome(score: f32) -> Outcome {
    Outcome { score_a: f64::from(score), share_a: f64::from(score) }
}

fn events_of(raw: &[EloLeagueChange]) -> Vec<Event> {
    raw.iter().map(|e| (e.position as usize, e.player as usize, e.from_league as u32, e.to_league as u32)).collect()
}

fn events_from(changes: &[ranking_elo::standing::LeagueChange]) -> Vec<Event> {
    changes.iter().map(|e| (e.position, e.player, e.from, e.to)).collect()
}

/// How many event slots a C call gets: all it may need, a few, or none (count only).
fn capacity(via: u8, bound: usize) -> usize {
    match via / 4 % 3 {
        0 => bound,
        1 => bound.min(1),
        _ => 0,
    }
}

/// The model, the engine, and the checks between them.
pub struct Run {
    pub model: Model,
    pub engine: Engine,
}

impl Run {
    pub fn new(config: &ConfigBytes, abi: bool) -> Self {
        let rules = config_from(config);
        let engine = if abi {
            let handle = abi_config(&rules);
            let mut pool = null_mut();
            assert_eq!(unsafe { elo_pool_new(handle, &mut pool) }, EloResult::Ok);
            unsafe { elo_config_free(handle) };
            Engine::Abi(AbiPool(pool))
        } else {
            Engine::Rust(Box::new(Pool::new(rules.clone())))
        };
        Self { model: Model::new(rules), engine }
    }

    fn handle(&self) -> Option<*mut EloPool> {
        match &self.engine {
            Engine::Abi(pool) => Some(pool.0),
            Engine::Rust(_) => None,
        }
    }

    /// The engine's players, total and clock.
    fn engine_view(&self) -> (Vec<PlayerState>, f64, f64) {
        match &self.engine {
            Engine::Rust(pool) => ((0..pool.len()).map(|i| pool.player(i).expect("in range")).collect(), pool.total(), pool.clock()),
            Engine::Abi(pool) => {
                let mut len = 0;
                assert_eq!(unsafe { elo_pool_len(pool.0, &mut len) }, EloResult::Ok);
                let mut states = vec![EloPlayerState::from(PlayerState::new(0.0)); len as usize];
                assert_eq!(unsafe { elo_pool_get_players(pool.0, 0, len, states.as_mut_ptr()) }, EloResult::Ok);
                let (mut total, mut clock) = (f64::NAN, f64::NAN);
                assert_eq!(unsafe { elo_pool_total(pool.0, &mut total) }, EloResult::Ok);
                assert_eq!(unsafe { elo_pool_get_clock(pool.0, &mut clock) }, EloResult::Ok);
                (states.iter().map(PlayerState::from).collect(), total, clock)
            }
        }
    }

    /// The engine equals the model: every player, the total, the clock (and, for the Rust
    /// API, the decay time).
    pub fn check(&self, context: &dyn std::fmt::Debug) {
        let (players, total, clock) = self.engine_view();
        assert_eq!(players.len(), self.model.len(), "player count after {context:?}");
        for (i, got) in players.iter().enumerate() {
            let want = self.model.state(i);
            assert!(same_state(got, &want), "player {i} after {context:?}:\n engine {got:?}\n model  {want:?}");
        }
        assert_eq!(total.to_bits(), self.model.total().to_bits(), "total after {context:?}: engine {total}, model {}", self.model.total());
        assert_eq!(clock.to_bits(), self.model.clock.to_bits(), "clock after {context:?}");
        if let Engine::Rust(pool) = &self.engine {
            assert_eq!(pool.decayed_through().map(f64::to_bits), self.model.decayed_through.map(f64::to_bits), "decay time after {context:?}");
        }
    }

    /// Applies `op` to both and checks them.
    pub fn apply(&mut self, op: &Op) {
        match op {
            Op::Pairs { matches, via } => self.pairs(matches, *via),
            Op::Points { matches, via } => self.points(matches, *via),
            Op::Teams { matches, weights, via } => self.teams(matches, weights.as_deref(), *via),
            Op::Placements { matches, via } => self.placements(matches, *via),
            Op::Clock(seconds) => {
                let want = self.model.set_clock(*seconds);
                let got = match &mut self.engine {
                    Engine::Rust(pool) => pool.set_clock(*seconds).is_ok(),
                    Engine::Abi(pool) => (unsafe { elo_pool_set_clock(pool.0, *seconds) }) == EloResult::Ok,
                };
                assert_eq!(got, want.is_ok(), "set_clock({seconds})");
            }
            Op::Decay { now, via } => self.decay(*now, *via),
            Op::EndSeason { via } => self.end_season(*via),
            Op::Rules(bytes) => {
                let rules = config_from(bytes);
                match &mut self.engine {
                    Engine::Rust(pool) => pool.set_rules(rules.clone()),
                    Engine::Abi(pool) => {
                        let handle = abi_config(&rules);
                        assert_eq!(unsafe { elo_pool_set_config(pool.0, handle) }, EloResult::Ok);
                        unsafe { elo_config_free(handle) };
                    }
                }
                self.model.set_rules(rules);
            }
            Op::SetPlayer { index, state } => {
                let want = self.model.set_player(usize_index(*index), *state);
                let got = match &mut self.engine {
                    Engine::Rust(pool) => pool.set_player(usize_index(*index), *state).is_ok(),
                    Engine::Abi(pool) => (unsafe { elo_pool_set_player(pool.0, *index, &EloPlayerState::from(*state)) }) == EloResult::Ok,
                };
                assert_eq!(got, want.is_ok(), "set_player({index}, {state:?})");
            }
            Op::AddPlayers(count) => {
                let want = self.model.add_players(usize::from(*count)).expect("small counts");
                let got = match &mut self.engine {
                    Engine::Rust(pool) => pool.add_players(usize::from(*count)),
                    Engine::Abi(pool) => {
                        let mut first = -1;
                        assert_eq!(unsafe { elo_pool_add_players(pool.0, i32::from(*count), &mut first) }, EloResult::Ok);
                        first as usize
                    }
                };
                assert_eq!(got, want);
            }
            Op::AddStates(states) => {
                let want = self.model.add_states(states);
                let got = match &mut self.engine {
                    Engine::Rust(pool) => pool.add_player_states(states).ok(),
                    Engine::Abi(pool) => {
                        let raw: Vec<EloPlayerState> = states.iter().map(|s| EloPlayerState::from(*s)).collect();
                        let mut first = -1;
                        let code = unsafe { elo_pool_add_player_states(pool.0, raw.as_ptr(), raw.len() as i32, &mut first) };
                        (code == EloResult::Ok).then_some(first as usize)
                    }
                };
                assert_eq!(got, want.ok(), "add_player_states({states:?})");
            }
            Op::SaveLoad => match &mut self.engine {
                Engine::Rust(pool) => {
                    let loaded = ranking_elo::save::from_json(&ranking_elo::save::to_json(pool)).expect("a pool's own save loads");
                    assert!(loaded == **pool, "the save round trips");
                    **pool = loaded;
                }
                Engine::Abi(pool) => {
                    let mut len = 0;
                    assert_eq!(unsafe { elo_pool_to_json(pool.0, null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
                    let mut text = vec![0u8; len as usize + 1];
                    assert_eq!(unsafe { elo_pool_to_json(pool.0, text.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
                    assert_eq!(unsafe { elo_pool_load_json(pool.0, text.as_ptr().cast(), len) }, EloResult::Ok);
                }
            },
            Op::Huge { kind, delta, values } => {
                if let Some(handle) = self.handle() {
                    hostile::huge(handle, &self.model.rules, *kind, *delta, values);
                }
            }
            Op::Aliased { kind, target, at } => {
                if let Some(handle) = self.handle() {
                    if self.model.len() >= 4 {
                        hostile::aliased(handle, *kind, *target, *at);
                    }
                }
            }
        }
        self.check(op);
    }

    fn pairs(&mut self, raw: &[(i32, i32, f32)], via: u8) {
        let matches: Vec<(usize, usize, Outcome)> = raw.iter().map(|&(a, b, s)| (usize_index(a), usize_index(b), outcome(s))).collect();
        let want = self.model.apply_pairs(&matches);
        let n = raw.len();
        match &mut self.engine {
            Engine::Rust(pool) => {
                let list: Vec<Match> = matches.iter().map(|&(a, b, o)| Match::new(a, b, o)).collect();
                let (mut da, mut db, mut ea, mut events) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], Vec::new());
                let result = match via % 3 {
                    0 => pool.apply(&list, None),
                    1 => pool.apply(&list, Some(MatchOutputs { delta_a: Some(&mut da), delta_b: Some(&mut db), expected_a: Some(&mut ea), events: Some(&mut events) })),
                    _ => pool.apply(&list, Some(MatchOutputs { events: Some(&mut events), ..MatchOutputs::default() })),
                };
                assert_eq!(result.is_ok(), want.is_ok(), "apply({raw:?}): {result:?}");
                if let Ok((outputs, want_events)) = &want {
                    if via % 3 == 1 {
                        same_outputs(&PairOutputs { delta_a: da, delta_b: db, expected_a: ea }, outputs);
                    }
                    if !via.is_multiple_of(3) {
                        assert_eq!(events_from(&events), *want_events, "events of {raw:?}");
                    }
                }
            }
            Engine::Abi(pool) => {
                let a: Vec<i32> = raw.iter().map(|m| m.0).collect();
                let b: Vec<i32> = raw.iter().map(|m| m.1).collect();
                let s: Vec<f32> = raw.iter().map(|m| m.2).collect();
                let (mut da, mut db, mut ea) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
                if via.is_multiple_of(2) {
                    let with = via % 4 == 2;
                    let out = |v: &mut Vec<f32>| if with { v.as_mut_ptr() } else { null_mut() };
                    let code = unsafe { elo_pool_apply(pool.0, a.as_ptr(), b.as_ptr(), s.as_ptr(), n as i32, out(&mut da), out(&mut db), out(&mut ea)) };
                    assert_eq!(code == EloResult::Ok, want.is_ok(), "elo_pool_apply({raw:?}): {code:?}");
                    if let (true, Ok((outputs, _))) = (with, &want) {
                        same_outputs(&PairOutputs { delta_a: da, delta_b: db, expected_a: ea }, outputs);
                    }
                } else {
                    let want_events = want.as_ref().ok().map(|(_, events)| events.as_slice());
                    with_events(capacity(via, 2 * n), want_events, &format!("elo_pool_apply_events({raw:?})"), |events, cap, count| unsafe {
                        elo_pool_apply_events(pool.0, a.as_ptr(), b.as_ptr(), s.as_ptr(), n as i32, events, cap, count)
                    });
                }
            }
        }
    }

    fn points(&mut self, raw: &[(i32, i32, f32, f32)], via: u8) {
        let outcomes: Result<Vec<Outcome>, _> = raw.iter().map(|m| self.model.rules.outcome_from_points(f64::from(m.2), f64::from(m.3))).collect();
        let matches: Option<Vec<(usize, usize, Outcome)>> = outcomes.ok().map(|o| raw.iter().zip(o).map(|(m, o)| (usize_index(m.0), usize_index(m.1), o)).collect());
        let want = matches.as_ref().map_or(Err(()), |m| self.model.apply_pairs(m).map(|(outputs, _)| outputs));
        match &mut self.engine {
            Engine::Rust(pool) => {
                let result = matches.map(|m| pool.apply(&m.iter().map(|&(a, b, o)| Match::new(a, b, o)).collect::<Vec<_>>(), None));
                assert_eq!(result.is_some_and(|r| r.is_ok()), want.is_ok(), "points {raw:?}");
            }
            Engine::Abi(pool) => {
                let n = raw.len();
                let (a, b): (Vec<i32>, Vec<i32>) = raw.iter().map(|m| (m.0, m.1)).unzip();
                let (pa, pb): (Vec<f32>, Vec<f32>) = raw.iter().map(|m| (m.2, m.3)).unzip();
                let (mut da, mut db, mut ea) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
                let code = unsafe {
                    elo_pool_apply_points(
                        pool.0,
                        a.as_ptr(),
                        b.as_ptr(),
                        pa.as_ptr(),
                        pb.as_ptr(),
                        n as i32,
                        da.as_mut_ptr(),
                        db.as_mut_ptr(),
                        if via.is_multiple_of(2) { ea.as_mut_ptr() } else { null_mut() },
                    )
                };
                assert_eq!(code == EloResult::Ok, want.is_ok(), "elo_pool_apply_points({raw:?}): {code:?}");
                if let Ok(outputs) = &want {
                    let expected_a = if via.is_multiple_of(2) { ea } else { outputs.expected_a.clone() };
                    same_outputs(&PairOutputs { delta_a: da, delta_b: db, expected_a }, outputs);
                }
            }
        }
    }

    fn teams(&mut self, raw: &[(Vec<i32>, Vec<i32>, f32)], weights: Option<&[f32]>, via: u8) {
        let members: Vec<usize> = raw.iter().flat_map(|(a, b, _)| a.iter().chain(b)).map(|&i| usize_index(i)).collect();
        let weights64: Option<Vec<f64>> = weights.map(|w| w.iter().map(|&x| f64::from(x)).collect());
        let weights_ok = weights.is_none_or(|w| w.len() == members.len());
        assert!(weights_ok, "decoded weights cover every member");
        let mut specs = Vec::new();
        let mut at = 0;
        for (a, b, s) in raw {
            let (ra, rb) = (at..at + a.len(), at + a.len()..at + a.len() + b.len());
            at = rb.end;
            specs.push(TeamSpec {
                a: members[ra.clone()].to_vec(),
                b: members[rb.clone()].to_vec(),
                weights_a: weights64.as_ref().map(|w| w[ra].to_vec()),
                weights_b: weights64.as_ref().map(|w| w[rb].to_vec()),
                outcome: outcome(*s),
            });
        }
        let want = self.model.apply_teams(&specs);
        match &mut self.engine {
            Engine::Rust(pool) => {
                let list: Vec<TeamMatch<'_>> = specs
                    .iter()
                    .map(|m| TeamMatch { team_a: &m.a, team_b: &m.b, weights_a: m.weights_a.as_deref(), weights_b: m.weights_b.as_deref(), outcome: m.outcome })
                    .collect();
                let mut events = Vec::new();
                let result = if via.is_multiple_of(2) { pool.apply_teams(&list) } else { pool.apply_teams_with_events(&list, &mut events) };
                same_list_result(&result, &want, &events, via % 2 == 1, &format!("apply_teams({raw:?}, {weights:?})"));
            }
            Engine::Abi(pool) => {
                let flat: Vec<i32> = raw.iter().flat_map(|(a, b, _)| a.iter().chain(b).copied()).collect();
                let mut offsets = vec![0i32];
                for (a, b, _) in raw {
                    offsets.push(offsets.last().copied().unwrap_or(0) + a.len() as i32);
                    offsets.push(offsets.last().copied().unwrap_or(0) + b.len() as i32);
                }
                let scores: Vec<f32> = raw.iter().map(|m| m.2).collect();
                let w = weights.map_or(null(), <[f32]>::as_ptr);
                if via.is_multiple_of(2) {
                    let code = unsafe { elo_pool_apply_teams(pool.0, flat.as_ptr(), offsets.as_ptr(), raw.len() as i32, w, scores.as_ptr()) };
                    assert_eq!(code == EloResult::Ok, want.is_ok(), "elo_pool_apply_teams({raw:?}): {code:?}");
                } else {
                    with_events(capacity(via, flat.len()), want.as_deref().ok(), &format!("elo_pool_apply_teams_events({raw:?})"), |events, cap, count| unsafe {
                        elo_pool_apply_teams_events(pool.0, flat.as_ptr(), offsets.as_ptr(), raw.len() as i32, w, scores.as_ptr(), events, cap, count)
                    });
                }
            }
        }
    }

    fn placements(&mut self, raw: &[(Vec<i32>, Vec<i32>)], via: u8) {
        let specs: Vec<(Vec<usize>, Vec<u32>)> =
            raw.iter().map(|(e, p)| (e.iter().map(|&i| usize_index(i)).collect(), p.iter().map(|&x| u32::try_from(x).unwrap_or(0)).collect())).collect();
        let want = self.model.apply_placements(&specs);
        match &mut self.engine {
            Engine::Rust(pool) => {
                let list: Vec<PlacementMatch<'_>> = specs.iter().map(|(e, p)| PlacementMatch { entrants: e, places: p }).collect();
                let mut events = Vec::new();
                let result = if via.is_multiple_of(2) { pool.apply_placements(&list) } else { pool.apply_placements_with_events(&list, &mut events) };
                same_list_result(&result, &want, &events, via % 2 == 1, &format!("apply_placements({raw:?})"));
            }
            Engine::Abi(pool) => {
                let entrants: Vec<i32> = raw.iter().flat_map(|(e, _)| e.iter().copied()).collect();
                let places: Vec<i32> = raw.iter().flat_map(|(_, p)| p.iter().copied()).collect();
                let mut offsets = vec![0i32];
                for (e, _) in raw {
                    offsets.push(offsets.last().copied().unwrap_or(0) + e.len() as i32);
                }
                if via.is_multiple_of(2) {
                    let code = unsafe { elo_pool_apply_placements(pool.0, entrants.as_ptr(), offsets.as_ptr(), raw.len() as i32, places.as_ptr()) };
                    assert_eq!(code == EloResult::Ok, want.is_ok(), "elo_pool_apply_placements({raw:?}): {code:?}");
                } else {
                    with_events(capacity(via, entrants.len()), want.as_deref().ok(), &format!("elo_pool_apply_placements_events({raw:?})"), |events, cap, count| unsafe {
                        elo_pool_apply_placements_events(pool.0, entrants.as_ptr(), offsets.as_ptr(), raw.len() as i32, places.as_ptr(), events, cap, count)
                    });
                }
            }
        }
    }

    fn decay(&mut self, now: f64, via: u8) {
        let want = self.model.apply_decay(now);
        match &mut self.engine {
            Engine::Rust(pool) => {
                let mut events = Vec::new();
                let result = pool.apply_decay(now, (via % 2 == 1).then_some(&mut events));
                assert_eq!(result.is_ok(), want.is_ok(), "apply_decay({now}): {result:?}");
                if let (Ok(moved), Ok((want_moved, want_events))) = (&result, &want) {
                    assert_eq!(moved, want_moved, "players decayed");
                    if via % 2 == 1 {
                        assert_eq!(events_from(&events), *want_events, "decay events");
                    }
                }
            }
            Engine::Abi(pool) => {
                let n = self.model.len();
                let cap = if via % 2 == 1 { capacity(via, n) } else { 0 };
                let mut events = vec![EloLeagueChange { position: -1, player: -1, from_league: -1, to_league: -1 }; cap];
                let (mut count, mut moved) = (-1, -1);
                let count_out = if via % 2 == 1 { &mut count as *mut i32 } else { null_mut() };
                let code = unsafe { elo_pool_apply_decay(pool.0, now, if cap == 0 { null_mut() } else { events.as_mut_ptr() }, cap as i32, count_out, &mut moved) };
                assert_eq!(code == EloResult::Ok, want.is_ok(), "elo_pool_apply_decay({now}): {code:?}");
                if let Ok((want_moved, want_events)) = &want {
                    assert_eq!(moved as usize, *want_moved, "players decayed");
                    if via % 2 == 1 {
                        same_events(count, &events, want_events);
                    }
                }
            }
        }
    }

    fn end_season(&mut self, via: u8) {
        let (want_records, want_events) = self.model.end_season();
        match &mut self.engine {
            Engine::Rust(pool) => {
                let mut events = Vec::new();
                let records = pool.end_season((via % 2 == 1).then_some(&mut events));
                let got: Vec<Record> = records.iter().map(|r| (r.player, r.rating, r.peak_rating, r.league, r.peak_league, r.games, r.wins)).collect();
                same_records(&got, &want_records);
                if via % 2 == 1 {
                    assert_eq!(events_from(&events), want_events, "season end events");
                }
            }
            Engine::Abi(pool) => {
                let n = want_records.len();
                let mut records = vec![EloSeasonRecord { player: -1, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; n];
                let cap = capacity(via, n);
                let mut events = vec![EloLeagueChange { position: -1, player: -1, from_league: -1, to_league: -1 }; cap];
                let mut count = -1;
                let with_records = via.is_multiple_of(2);
                let code = unsafe {
                    elo_pool_end_season(
                        pool.0,
                        if with_records { records.as_mut_ptr() } else { null_mut() },
                        n as i32,
                        null(),
                        0,
                        if cap == 0 { null_mut() } else { events.as_mut_ptr() },
                        cap as i32,
                        &mut count,
                    )
                };
                assert_eq!(code, EloResult::Ok, "elo_pool_end_season");
                if with_records {
                    let got: Vec<Record> = records.iter().map(|r| (r.player as usize, r.rating, r.peak_rating, r.league as u32, r.peak_league as u32, r.games, r.wins)).collect();
                    same_records(&got, &want_records);
                }
                same_events(count, &events, &want_events);
            }
        }
    }
}

fn same_outputs(got: &PairOutputs, want: &PairOutputs) {
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got.delta_a), bits(&want.delta_a), "delta_a: {:?} vs {:?}", got.delta_a, want.delta_a);
    assert_eq!(bits(&got.delta_b), bits(&want.delta_b), "delta_b");
    assert_eq!(bits(&got.expected_a), bits(&want.expected_a), "expected_a");
}

/// A Rust list call's result and (when collected) its events against the model's.
fn same_list_result(result: &Result<(), ranking_elo::pool::PoolError>, want: &Result<Vec<Event>, ()>, events: &[ranking_elo::standing::LeagueChange], collected: bool, what: &str) {
    assert_eq!(result.is_ok(), want.is_ok(), "{what}: {result:?}");
    if let (true, Ok(want)) = (collected, want) {
        assert_eq!(events_from(events), *want, "events of {what}");
    }
}

/// Calls a C function with an event array of `cap` slots (NULL for none) and a count, and
/// checks its result and events against the model's (`None`: refused).
fn with_events(cap: usize, want: Option<&[Event]>, what: &str, call: impl FnOnce(*mut EloLeagueChange, i32, *mut i32) -> EloResult) {
    let mut events = vec![EloLeagueChange { position: -1, player: -1, from_league: -1, to_league: -1 }; cap];
    let mut count = -1;
    let code = call(if cap == 0 { null_mut() } else { events.as_mut_ptr() }, cap as i32, &mut count);
    assert_eq!(code == EloResult::Ok, want.is_some(), "{what}: {code:?}");
    if let Some(want) = want {
        same_events(count, &events, want);
    }
}

/// A C event array: the count says how many happened, the slots hold the first ones.
fn same_events(count: i32, slots: &[EloLeagueChange], want: &[Event]) {
    assert_eq!(count as usize, want.len(), "event count");
    let written = slots.len().min(want.len());
    assert_eq!(events_of(&slots[..written]), want[..written], "events");
    assert!(slots[written..].iter().all(|e| e.player == -1), "slots past the events are untouched");
}

fn same_records(got: &[Record], want: &[Record]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(g.0 == w.0 && g.1.to_bits() == w.1.to_bits() && g.2.to_bits() == w.2.to_bits() && (g.3, g.4, g.5, g.6) == (w.3, w.4, w.5, w.6), "record {g:?} vs {w:?}");
    }
}

/// Runs `ops` on a model and an engine made from `config`, checking after each.
pub fn run(config: &ConfigBytes, abi: bool, ops: &[Op]) {
    let mut run = Run::new(config, abi);
    for op in ops {
        run.apply(op);
    }
}

/// The hostile C ABI operations.
mod hostile {
    use super::*;

    /// The sparse buffers the huge operations share (one process-wide set, locked: tests
    /// run on several threads). Each spans `INT32_MAX` elements of its type.
    #[cfg(unix)]
    struct Buffers {
        a: super::super::sparse::Sparse,
        b: super::super::sparse::Sparse,
        c: super::super::sparse::Sparse,
        scores: super::super::sparse::Sparse,
        states: super::super::sparse::Sparse,
        events: super::super::sparse::Sparse,
        records: super::super::sparse::Sparse,
    }

    #[cfg(unix)]
    fn buffers() -> &'static std::sync::Mutex<Buffers> {
        use super::super::sparse::Sparse;
        static BUFFERS: std::sync::OnceLock<std::sync::Mutex<Buffers>> = std::sync::OnceLock::new();
        BUFFERS.get_or_init(|| {
            let max = i32::MAX as usize;
            std::sync::Mutex::new(Buffers {
                a: Sparse::of::<i32>(max),
                b: Sparse::of::<i32>(max),
                c: Sparse::of::<i32>(max),
                scores: Sparse::of::<f32>(max),
                states: Sparse::of::<EloPlayerState>(max),
                events: Sparse::of::<EloLeagueChange>(max),
                records: Sparse::of::<EloSeasonRecord>(max),
            })
        })
    }

    /// Zeroes the first bytes of a buffer again (what a call or a test wrote there).
    #[cfg(unix)]
    fn clear(buffer: &super::super::sparse::Sparse) {
        unsafe { std::ptr::write_bytes(buffer.ptr::<u8>(), 0, 1 << 16) };
    }

    /// A call with sizes or offsets near `INT32_MAX` (`values` written at the start of the
    /// sparse index and offset arrays, zeros after): always refused (a zeroed tail makes a
    /// list bad: a == b, an empty team, offsets going back), so the caller's check of the
    /// pool against the model sees nothing changed.
    #[cfg(unix)]
    pub(super) fn huge(pool: *mut EloPool, rules: &Rules, kind: u8, delta: u8, values: &[i32]) {
        let guard = buffers().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let buffers = &*guard;
        for (i, &v) in values.iter().enumerate() {
            buffers.a.set(i, v);
            buffers.b.set(i, v.wrapping_add(1));
            buffers.c.set(i, v);
        }
        let max = i32::MAX;
        let delta = i32::from(delta);
        let code = unsafe {
            match kind % 7 {
                0 => {
                    elo_pool_apply_teams(pool, buffers.a.ptr(), buffers.c.ptr(), max / 2 - delta, if delta % 2 == 0 { null() } else { buffers.scores.ptr() }, buffers.scores.ptr())
                }
                1 => elo_pool_apply_placements(pool, buffers.a.ptr(), buffers.c.ptr(), max - 1 - delta, buffers.b.ptr()),
                2 => elo_pool_apply(pool, buffers.a.ptr(), buffers.a.ptr(), buffers.scores.ptr(), max - delta, null_mut(), null_mut(), null_mut()),
                3 => {
                    let mut events_count = 0;
                    elo_pool_apply_teams_events(pool, buffers.a.ptr(), buffers.c.ptr(), max / 2 - delta, null(), buffers.scores.ptr(), buffers.events.ptr(), max, &mut events_count)
                }
                4 => {
                    let config = abi_config(rules);
                    let (count_a, count_b) = (max - delta, values.first().copied().unwrap_or(1));
                    let teams = elo_rate_teams(config, buffers.states.ptr(), count_a, count_b, null(), 1.0);
                    let placements = elo_rate_placements(config, buffers.states.ptr(), max - delta, buffers.b.ptr());
                    elo_config_free(config);
                    assert_eq!(placements, EloResult::OutOfRange, "{} entrants", max - delta);
                    teams
                }
                5 => elo_pool_end_season(pool, buffers.records.ptr(), max - delta, null(), 0, buffers.events.ptr(), max, null_mut()),
                _ => elo_pool_get_players(pool, i32::from(!values.is_empty()), max - delta, buffers.states.ptr()),
            }
        };
        assert_ne!(code, EloResult::Ok, "a huge call (kind {kind}, delta {delta}, values {values:?}) was accepted");
        assert_ne!(code, EloResult::Panic, "a huge call panicked");
        for buffer in [&buffers.a, &buffers.b, &buffers.c, &buffers.scores, &buffers.states, &buffers.events, &buffers.records] {
            clear(buffer);
        }
    }

    #[cfg(not(unix))]
    pub(super) fn huge(_: *mut EloPool, _: &Rules, _: u8, _: u8, _: &[i32]) {}

    /// A call whose count (or another output) lies in one of its inputs or other outputs
    /// (`target` picks which, `at` where): it must be refused with
    /// `ELO_RESULT_OVERLAPPING_BUFFERS`, leaving the pool (checked against the model by the
    /// caller) and the inputs as they were. The same calls with memory of their own are
    /// the ordinary operations.
    pub(super) fn aliased(pool: *mut EloPool, kind: u8, target: u8, at: u8) {
        let mut a = [0i32, 2, 0, 1];
        let mut b = [1i32, 3, 3, 2];
        let mut scores = [1.0f32, 0.0, 0.5, 1.0];
        let mut offsets = [0i32, 2, 4];
        let mut places = [1i32, 2, 2, 4];
        let mut events = [EloLeagueChange { position: 0, player: 0, from_league: 0, to_league: 0 }; 8];
        let mut len = 0;
        assert_eq!(unsafe { elo_pool_len(pool, &mut len) }, EloResult::Ok);
        let mut records = vec![EloSeasonRecord { player: 0, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; len as usize];
        let inputs_before = (a, b, scores, offsets, places);
        let at = usize::from(at);
        // A pointer to a 4-byte slot inside one of the arrays.
        let slot =
            |choice: u8, a: &mut [i32; 4], b: &mut [i32; 4], scores: &mut [f32; 4], offsets: &mut [i32; 3], places: &mut [i32; 4], events: &mut [EloLeagueChange; 8]| -> *mut i32 {
                match choice % 6 {
                    0 => &mut a[at % 4],
                    1 => &mut b[at % 4],
                    2 => scores[at % 4..].as_mut_ptr().cast(),
                    3 => &mut offsets[at % 3],
                    4 => &mut places[at % 4],
                    _ => unsafe { events.as_mut_ptr().cast::<i32>().add(at % 32) },
                }
            };
        let aim = slot(target, &mut a, &mut b, &mut scores, &mut offsets, &mut places, &mut events);
        let (pa, pb, ps, po, pp, pe) = (a.as_ptr(), b.as_ptr(), scores.as_ptr(), offsets.as_ptr(), places.as_ptr(), events.as_mut_ptr());
        let code = unsafe {
            match kind % 8 {
                // Each call's inputs are the arrays `slot` can aim into (or the aim is moved
                // into the events array, which is an output of every call using it).
                0 => {
                    let aim = if target % 6 >= 3 && target % 6 < 5 { pe.cast::<i32>().add(at % 32) } else { aim };
                    elo_pool_apply_events(pool, pa, pb, ps, 4, pe, 8, aim)
                }
                1 => {
                    // members a (4), offsets (3), scores (1 used), events.
                    let aim = match target % 6 {
                        1 | 4 => pe.cast::<i32>().add(at % 32),
                        2 => ps.cast::<i32>().cast_mut(),
                        _ => aim,
                    };
                    elo_pool_apply_teams_events(pool, pa, po, 1, null(), ps, pe, 8, aim)
                }
                2 => {
                    let aim = match target % 6 {
                        1..=3 => pe.cast::<i32>().add(at % 32),
                        _ => aim,
                    };
                    elo_pool_apply_placements_events(pool, pa, [0, 4].as_ptr(), 1, pp, pe, 8, aim)
                }
                3 => {
                    let count = pe.cast::<i32>().add(at % 32);
                    match target % 3 {
                        0 => elo_pool_apply_decay(pool, 1e12, null_mut(), 0, count, count),
                        1 => elo_pool_apply_decay(pool, 1e12, pe, 8, count, null_mut()),
                        _ => elo_pool_apply_decay(pool, 1e12, pe, 8, b.as_mut_ptr(), count),
                    }
                }
                4 => {
                    let rec = records.as_mut_ptr();
                    let inside = rec.cast::<i32>().add(at % (7 * records.len()).max(1));
                    if target.is_multiple_of(2) {
                        elo_pool_end_season(pool, rec, len, null(), 0, pe, 8, inside)
                    } else {
                        elo_pool_end_season(pool, rec, len, null(), 0, inside.cast(), 1, b.as_mut_ptr())
                    }
                }
                5 => {
                    let (d1, d2) = match target % 4 {
                        0 => (pa.cast::<f32>().cast_mut(), null_mut()),
                        1 => (null_mut(), ps.cast_mut()),
                        2 => (scores.as_mut_ptr(), null_mut()),
                        _ => (pe.cast::<f32>(), pe.cast::<f32>().add(at % 4)),
                    };
                    elo_pool_apply(pool, pa, pb, ps, 4, d1, d2, null_mut())
                }
                6 => elo_pool_top(pool, 4, a.as_mut_ptr(), a.as_mut_ptr().add(at % 4)),
                _ => elo_pool_league_counts(pool, b.as_mut_ptr(), 4, b.as_mut_ptr().add(at % 4)),
            }
        };
        assert_eq!(code, EloResult::OverlappingBuffers, "aliased call kind {kind} target {target} at {at}");
        assert!(
            (a, b, scores.map(f32::to_bits), offsets, places) == (inputs_before.0, inputs_before.1, inputs_before.2.map(f32::to_bits), inputs_before.3, inputs_before.4),
            "inputs unchanged"
        );
    }
}
