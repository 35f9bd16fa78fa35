//! Replays the fuzz targets' committed corpus (`fuzz/corpus/<target>/`: inputs that
//! reached new code and every past finding) through the same checks the fuzzers run
//! (`tests/fuzz_checks/mod.rs`), on stable Rust, so every regression the fuzzers found
//! stays covered without nightly. It also feeds each check a fixed set of pseudo-random
//! inputs, so the checks run even for a target whose corpus is small.

use std::path::Path;

mod common;
mod fuzz_checks;
use common::SplitMix;

type Check = fn(&[u8]);

const TARGETS: [(&str, Check); 7] = [
    ("config_json", fuzz_checks::config_json),
    ("pool_load", fuzz_checks::pool_load),
    ("batch_vs_single", fuzz_checks::batch_vs_single),
    ("pool_apply", fuzz_checks::pool_apply),
    ("matchmaker", fuzz_checks::matchmaker),
    ("group_matches", fuzz_checks::group_matches),
    ("seasons", fuzz_checks::seasons),
];

fn replay(target: &str, check: Check) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut count = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = match std::fs::read(&file) {
                Ok(data) => data,
                // A fuzzer running on this corpus replaces inputs with smaller ones.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => panic!("{}: {error}", file.display()),
            };
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "{target}: {} fails its check", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn committed_corpus_passes_every_check() {
    let mut total = 0;
    for (target, check) in TARGETS {
        let count = replay(target, check);
        assert!(count > 0, "fuzz/corpus/{target} is empty: run `cargo xtask fuzz` and commit its corpus");
        total += count;
    }
    println!("replayed {total} corpus inputs");
}

#[test]
fn checks_hold_on_pseudo_random_inputs() {
    let mut rng = SplitMix(0xF022);
    for (_, check) in TARGETS {
        for round in 0..300 {
            let len = (rng.next() % 512) as usize;
            let mut data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            if round % 3 == 0 {
                // Mostly printable text, for the JSON targets.
                const TEXT: &[u8] = b"{}[]\":,.0123456789eE-+ abcdefghijklmnopqrstuvwxyz_";
                for byte in &mut data {
                    *byte = TEXT[usize::from(*byte) % TEXT.len()];
                }
            }
            check(&data);
        }
    }
    // Valid JSON the text targets should accept.
    fuzz_checks::config_json(br#"{"k_policy":{"policy":"fide"},"victory_bonus":3}"#);
    let pool = {
        let mut pool = ranking_elo::pool::Pool::new(ranking_elo::Config::default().validate().unwrap());
        pool.add_players(3);
        ranking_elo::save::to_json(&pool)
    };
    let payload = pool.split("\"pool\":").nth(1).unwrap().strip_suffix('}').unwrap();
    fuzz_checks::pool_load(payload.as_bytes());
}
