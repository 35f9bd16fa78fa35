//! `cargo xtask fuzz [--seconds N] [target…]`: runs the cargo-fuzz targets in `fuzz/`
//! (libFuzzer, AddressSanitizer, nightly Rust) for a bounded time each, starting from the
//! committed corpus (`fuzz/corpus/<target>/`) in a working copy under `target/`, then merges
//! the inputs that reached new code back into the committed corpus (`-merge=1`: only inputs
//! that add coverage, to commit), and prints the executions per target. A finding stops the run: its input is
//! in `fuzz/artifacts/<target>/`; add it to the corpus once fixed, and the ordinary test
//! suite (`tests/fuzz_corpus.rs`) replays it on stable Rust from then on.

use crate::tools::root;
use crate::tools::Step;

/// The targets, as `fuzz/Cargo.toml` names them.
/// `verify_journal` is the ladder server's (`elo-ladder verify --journal` on any input); its
/// corpus is replayed by `ladder-server/tests/fuzz_corpus.rs`.
pub const TARGETS: [&str; 8] = ["config_json", "pool_load", "batch_vs_single", "pool_apply", "matchmaker", "group_matches", "seasons", "verify_journal"];

/// Runs the fuzzers; `args` are `--seconds N` and optional target names.
pub fn fuzz(args: &[String]) -> Result<(), String> {
    let mut seconds = 60u64;
    let mut targets: Vec<&str> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if arg == "--seconds" {
            let value = rest.next().ok_or("--seconds needs a value")?;
            seconds = value.parse().map_err(|_| format!("--seconds: {value:?} is not a number"))?;
        } else if let Some(target) = TARGETS.iter().find(|t| **t == arg.as_str()) {
            targets.push(target);
        } else {
            return Err(format!("unknown fuzz target {arg:?} (targets: {})", TARGETS.join(", ")));
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    if !crate::tools::has("cargo-fuzz") {
        Step::new("install cargo-fuzz", "cargo").args(["install", "--locked", "cargo-fuzz"]).run()?;
    }
    let mut report = Vec::new();
    for target in targets {
        let committed = root().join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&committed).map_err(|e| e.to_string())?;
        // The fuzzer works in a copy, so the committed corpus never changes under a test run.
        let corpus = root().join("target/fuzz-corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
        for entry in std::fs::read_dir(&committed).map_err(|e| e.to_string())?.flatten() {
            std::fs::copy(entry.path(), corpus.join(entry.file_name())).map_err(|e| e.to_string())?;
        }
        let log = root().join(format!("target/fuzz-{target}.log"));
        let log_file = std::fs::File::create(&log).map_err(|e| e.to_string())?;
        println!("==> fuzz {target} for {seconds} s (log: {})", log.display());
        let status = std::process::Command::new("cargo")
            .current_dir(root().join("fuzz"))
            .args(["+nightly", "fuzz", "run", "--sanitizer", "address", target])
            .arg(&corpus)
            .args(["--", &format!("-max_total_time={seconds}"), "-rss_limit_mb=4096", "-print_final_stats=1"])
            .stdout(log_file.try_clone().map_err(|e| e.to_string())?)
            .stderr(log_file)
            .status()
            .map_err(|e| format!("cargo fuzz: {e}"))?;
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let runs = text.lines().filter_map(|l| l.strip_prefix("stat::number_of_executed_units:")).filter_map(|v| v.trim().parse::<u64>().ok()).next_back().unwrap_or(0);
        if !status.success() {
            let tail: Vec<&str> = text.lines().rev().take(30).collect();
            return Err(format!("fuzz target {target} found a problem after {runs} executions:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n")));
        }
        Step::new(&format!("merge the new {target} inputs into the committed corpus"), "cargo")
            .current_dir(&root().join("fuzz"))
            .args(["+nightly", "fuzz", "run", "--sanitizer", "address", target])
            .arg(&committed)
            .arg(&corpus)
            .args(["--", "-merge=1"])
            .run()?;
        let kept = std::fs::read_dir(&committed).map(Iterator::count).unwrap_or(0);
        report.push(format!("{target}: {runs} executions in {seconds} s, no finding; corpus {kept} inputs"));
    }
    for line in &report {
        println!("==> {line}");
    }
    Ok(())
}
