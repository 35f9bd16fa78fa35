//! Benchmarks of the engine with baselines measured in the same run:
//! `skillratings`' `elo()` on the same inputs, a plain Rust loop calling the platform's
//! `powf` (not deterministic across platforms; the speed we give up nothing against), and a
//! memory reference that reads and writes the same bytes as a batch.
//!
//! `cargo bench --bench engine`; BENCHMARKS.md reports the figures as ratios.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use ranking_elo::batch::{self, BatchInput};
use ranking_elo::matchmaking::{Matchmaker, MatchmakingSettings};
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome, PlayerState, Rules};
#[path = "../tests/common/mod.rs"]
mod common;
use common::SplitMix;

struct Pairs {
    a: Vec<f32>,
    b: Vec<f32>,
    s: Vec<f32>,
}

fn pairs(n: usize) -> Pairs {
    let mut rng = SplitMix(n as u64);
    Pairs {
        a: (0..n).map(|_| 1000.0 + 1000.0 * rng.unit_f32()).collect(),
        b: (0..n).map(|_| 1000.0 + 1000.0 * rng.unit_f32()).collect(),
        s: (0..n).map(|_| if rng.next() & 1 == 1 { 1.0 } else { 0.0 }).collect(),
    }
}

fn single(c: &mut Criterion) {
    let rules = Rules::default();
    let p = pairs(1024);
    let mut group = c.benchmark_group("single");
    group.throughput(Throughput::Elements(1024));
    group.bench_function("expected_score", |bench| {
        bench.iter(|| {
            let mut sum = 0.0;
            for i in 0..1024 {
                sum += rules.expected_score(black_box(p.a[i]), black_box(p.b[i]));
            }
            sum
        });
    });
    group.bench_function("rate", |bench| {
        bench.iter(|| {
            let mut sum = 0.0;
            for i in 0..1024 {
                let outcome = if p.s[i] == 1.0 { Outcome::WIN } else { Outcome::LOSS };
                let (x, y) = rules.rate(black_box(p.a[i]), black_box(p.b[i]), outcome).unwrap_or_default();
                sum += x - y;
            }
            sum
        });
    });
    group.bench_function("tutorial_mirror", |bench| {
        bench.iter(|| {
            let mut sum = 0.0;
            for i in 0..1024 {
                let (x, y) = ranking_elo::tutorial_update(black_box(p.a[i]), black_box(p.b[i]), 32.0, p.s[i] == 1.0);
                sum += x - y;
            }
            sum
        });
    });
    group.finish();
}

fn batches(c: &mut Criterion) {
    let rules = Rules::default();
    let elo = skillratings::elo::EloConfig::new();
    let mut group = c.benchmark_group("batch");
    for n in [1 << 10, 1 << 16, 1 << 20, 1 << 24] {
        let p = pairs(n);
        let (mut out_a, mut out_b) = (vec![0.0f32; n], vec![0.0f32; n]);
        group.throughput(Throughput::Elements(n as u64));
        if n >= 1 << 20 {
            group.sample_size(10);
        }
        group.bench_with_input(BenchmarkId::new("ranking_elo", n), &n, |bench, _| {
            bench.iter(|| {
                let input = BatchInput { rating_a: &p.a, rating_b: &p.b, score_a: &p.s, k: None };
                batch::rate(&rules, &input, &mut out_a, &mut out_b)
            });
        });
        if let Some((plan, source)) = ranking_elo::kernel::Plan::new(&rules, None) {
            use ranking_elo::kernel::{run_with, Isa};
            for (name, isa) in [("kernel_baseline_sse2", Isa::Baseline), ("kernel_avx2", Isa::Avx2), ("kernel_avx512", Isa::Avx512)] {
                group.bench_with_input(BenchmarkId::new(name, n), &n, |bench, _| {
                    bench.iter(|| run_with(isa, &plan, source, &p.a, &p.b, &p.s, &mut out_a, &mut out_b));
                });
            }
        }
        group.bench_with_input(BenchmarkId::new("skillratings_elo", n), &n, |bench, _| {
            bench.iter(|| {
                for i in 0..n {
                    let one = skillratings::elo::EloRating { rating: f64::from(p.a[i]) };
                    let two = skillratings::elo::EloRating { rating: f64::from(p.b[i]) };
                    let outcome = if p.s[i] == 1.0 { skillratings::Outcomes::WIN } else { skillratings::Outcomes::LOSS };
                    let (x, y) = skillratings::elo::elo(&one, &two, &outcome, &elo);
                    out_a[i] = x.rating as f32;
                    out_b[i] = y.rating as f32;
                }
            });
        });
        group.bench_with_input(BenchmarkId::new("plain_powf_loop", n), &n, |bench, _| {
            bench.iter(|| {
                for i in 0..n {
                    let e = 1.0 / (1.0 + 10f32.powf((p.b[i] - p.a[i]) / 400.0));
                    let d = 32.0 * (p.s[i] - e);
                    out_a[i] = p.a[i] + d;
                    out_b[i] = p.b[i] - d;
                }
            });
        });
        group.bench_with_input(BenchmarkId::new("memory_reference", n), &n, |bench, _| {
            bench.iter(|| {
                // Reads the three input arrays and writes the two outputs: the same bytes as a
                // batch, with the least work per byte.
                for (((out_a, out_b), a), (b, s)) in out_a.iter_mut().zip(out_b.iter_mut()).zip(&p.a).zip(p.b.iter().zip(&p.s)) {
                    *out_a = a + s;
                    *out_b = b - s;
                }
            });
        });
    }
    group.finish();
}

/// A pool behind the C ABI, freed on drop.
struct FfiPool(*mut ranking_elo::ffi::EloPool);

impl FfiPool {
    fn new(json: &str, players: usize) -> Self {
        use ranking_elo::ffi::*;
        let (mut config, mut pool, mut first) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);
        unsafe {
            assert_eq!(elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut config), EloResult::Ok);
            assert_eq!(elo_pool_new(config, &mut pool), EloResult::Ok);
            elo_config_free(config);
            assert_eq!(elo_pool_add_players(pool, players as i32, &mut first), EloResult::Ok);
        }
        Self(pool)
    }
}

impl Drop for FfiPool {
    fn drop(&mut self) {
        unsafe { ranking_elo::ffi::elo_pool_free(self.0) };
    }
}

fn pool_apply(c: &mut Criterion) {
    const PLAYERS: usize = 100_000;
    const MATCHES: usize = 1_000_000;
    let mut rng = SplitMix(3);
    let matches: Vec<Match> = (0..MATCHES)
        .map(|_| {
            let a = (rng.next() % PLAYERS as u64) as usize;
            let b = (a + 1 + (rng.next() % (PLAYERS as u64 - 1)) as usize) % PLAYERS;
            Match::new(a, b, if rng.next() & 1 == 1 { Outcome::WIN } else { Outcome::LOSS })
        })
        .collect();
    let mut group = c.benchmark_group("pool");
    group.sample_size(10);
    group.throughput(Throughput::Elements(MATCHES as u64));
    for (name, json) in [("apply_constant_k", "{}"), ("apply_zero_sum_leagues_002", include_str!("system_002.json"))] {
        let rules = Config::from_json(json).unwrap_or_default();
        group.bench_function(name, |bench| {
            bench.iter_batched_ref(
                || {
                    let mut pool = Pool::new(rules.clone());
                    pool.add_players(PLAYERS);
                    pool
                },
                |pool| pool.apply(&matches, None),
                BatchSize::LargeInput,
            );
        });
    }
    // The same list through the C ABI (what C# and C callers run): the arrays are read,
    // checked and copied into a match list first.
    let a: Vec<i32> = matches.iter().map(|m| m.a as i32).collect();
    let b: Vec<i32> = matches.iter().map(|m| m.b as i32).collect();
    let s: Vec<f32> = matches.iter().map(|m| m.outcome.score_a as f32).collect();
    group.bench_function("ffi_apply_constant_k", |bench| {
        bench.iter_batched_ref(
            || FfiPool::new("{}", PLAYERS),
            |pool| unsafe {
                ranking_elo::ffi::elo_pool_apply(pool.0, a.as_ptr(), b.as_ptr(), s.as_ptr(), MATCHES as i32, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut())
            },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

/// Team matches and free-for-alls: one 5v5 match, one 100-player free-for-all, and a pool
/// applying 100,000 5v5 matches over 10,000 players. Throughput is in member updates (10
/// per 5v5 match, 100 per free-for-all), to compare with the pair figures (2 per match).
fn group_matches(c: &mut Criterion) {
    use ranking_elo::ladder::group_matches::TeamMatch;
    use ranking_elo::rating::team::Team;
    let rules = Rules::default();
    let mut rng = SplitMix(12);
    let mut group = c.benchmark_group("groups");
    let five: Vec<PlayerState> = (0..10).map(|_| PlayerState::new(1000.0 + 1000.0 * rng.unit_f32())).collect();
    let (a, b) = five.split_at(5);
    let (mut out_a, mut out_b) = (a.to_vec(), b.to_vec());
    group.throughput(Throughput::Elements(10));
    group.bench_function("team_5v5", |bench| {
        bench.iter(|| rules.rate_teams(Team::new(black_box(a)), Team::new(black_box(b)), Outcome::WIN, &mut out_a, &mut out_b));
    });
    let field: Vec<PlayerState> = (0..100).map(|_| PlayerState::new(1000.0 + 1000.0 * rng.unit_f32())).collect();
    let places: Vec<u32> = (1..=100).collect();
    let mut out = field.clone();
    group.throughput(Throughput::Elements(100));
    group.bench_function("free_for_all_100", |bench| {
        bench.iter(|| rules.rate_placements(black_box(&field), black_box(&places), &mut out));
    });
    const PLAYERS: usize = 10_000;
    const MATCHES: usize = 100_000;
    let members: Vec<usize> = (0..MATCHES * 10)
        .map(|_| (rng.next() % PLAYERS as u64) as usize)
        .collect::<Vec<_>>()
        .chunks(10)
        .flat_map(|chunk| {
            // Ten distinct players per match.
            let mut seen: Vec<usize> = Vec::with_capacity(10);
            for &p in chunk {
                let mut q = p;
                while seen.contains(&q) {
                    q = (q + 1) % PLAYERS;
                }
                seen.push(q);
            }
            seen
        })
        .collect();
    let matches: Vec<TeamMatch<'_>> = members.chunks(10).map(|m| TeamMatch::new(&m[..5], &m[5..], if m[0] % 2 == 0 { Outcome::WIN } else { Outcome::LOSS })).collect();
    group.sample_size(10);
    group.throughput(Throughput::Elements((MATCHES * 10) as u64));
    group.bench_function("pool_apply_100k_5v5", |bench| {
        bench.iter_batched_ref(
            || {
                let mut pool = Pool::new(rules.clone());
                pool.add_players(PLAYERS);
                pool
            },
            |pool| pool.apply_teams(&matches),
            BatchSize::LargeInput,
        );
    });
    // The same list through the C ABI: members and offsets as C# and C give them.
    let flat: Vec<i32> = members.iter().map(|&m| m as i32).collect();
    let offsets: Vec<i32> = (0..=2 * MATCHES as i32).map(|i| i * 5).collect();
    let scores: Vec<f32> = matches.iter().map(|m| m.outcome.score_a as f32).collect();
    group.bench_function("pool_ffi_apply_100k_5v5", |bench| {
        bench.iter_batched_ref(
            || FfiPool::new("{}", PLAYERS),
            |pool| unsafe { ranking_elo::ffi::elo_pool_apply_teams(pool.0, flat.as_ptr(), offsets.as_ptr(), MATCHES as i32, std::ptr::null(), scores.as_ptr()) },
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn matchmaking(c: &mut Criterion) {
    let mut rng = SplitMix(4);
    let players: Vec<(f32, f64)> = (0..100_000).map(|_| (1000.0 + 1000.0 * rng.unit_f32(), 60.0 * f64::from(rng.unit_f32()))).collect();
    let mut group = c.benchmark_group("matchmaking");
    group.sample_size(10);
    group.throughput(Throughput::Elements(100_000));
    group.bench_function("tick_100k_waiting", |bench| {
        bench.iter_batched_ref(
            || {
                let mut queue = Matchmaker::new(MatchmakingSettings::default()).unwrap_or_else(|_| unreachable!());
                for (id, (rating, joined)) in players.iter().enumerate() {
                    let _ = queue.join(id as u64, *rating, *joined);
                }
                queue
            },
            |queue| queue.tick(60.0, usize::MAX),
            BatchSize::LargeInput,
        );
    });
    group.finish();
}

fn config_json(c: &mut Criterion) {
    let json = include_str!("system_002.json");
    c.bench_function("config/parse_json_002", |bench| bench.iter(|| Config::from_json(black_box(json))));
}

/// Writing and reading a save of 100,000 players who have played (002's leagues, so every
/// record has its season fields).
fn saves(c: &mut Criterion) {
    const PLAYERS: usize = 100_000;
    let mut rng = SplitMix(7);
    let rules = Config::from_json(include_str!("system_002.json")).unwrap_or_default();
    let mut pool = Pool::new(rules);
    pool.add_players(PLAYERS);
    let matches: Vec<Match> = (0..PLAYERS * 5)
        .map(|_| {
            let a = (rng.next() % PLAYERS as u64) as usize;
            let b = (a + 1 + (rng.next() % (PLAYERS as u64 - 1)) as usize) % PLAYERS;
            Match::new(a, b, if rng.next() & 1 == 1 { Outcome::WIN } else { Outcome::DRAW })
        })
        .collect();
    let _ = pool.apply(&matches, None);
    let text = ranking_elo::save::to_json(&pool);
    let mut group = c.benchmark_group("save");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("write_100k", |bench| bench.iter(|| ranking_elo::save::to_json(black_box(&pool))));
    group.bench_function("read_100k", |bench| bench.iter(|| ranking_elo::save::from_json(black_box(&text))));
    group.finish();
}

criterion_group!(benches, single, batches, pool_apply, group_matches, matchmaking, config_json, saves);
criterion_main!(benches);
