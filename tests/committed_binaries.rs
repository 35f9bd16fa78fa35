//! The Unity package ships a prebuilt binary for every platform
//! (`unity/Runtime/Plugins/**`, built by `cargo xtask dist`). Each carries the engine's
//! build id (`elo_build_id()`, a hash of the source, the locked dependencies and the
//! build settings, see `build.rs`) as the text `RANKING_ELO_BUILD_ID=<32 hex digits>`.
//! This test reads that text out of every binary (shared libraries, static archives and
//! universal Mach-O files alike, without running them) and fails when a binary is older
//! than the source it sits beside, so an engine change cannot land without its binaries.
//! (`cargo xtask test` also runs the binaries this machine can run.)
//!
//! It also holds their sizes to the record in `tests/data/binary_sizes.txt`: a binary more
//! than 5% larger than its line fails, so that growth is a decision, not an accident.

use std::path::{Path, PathBuf};

const MARKER: &[u8] = b"RANKING_ELO_BUILD_ID=";

/// Every native binary below `unity/Runtime/Plugins`.
fn binaries() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if ["so", "dll", "dylib", "a"].iter().any(|ext| path.extension().is_some_and(|e| e == *ext)) {
                out.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("unity/Runtime/Plugins"), &mut found);
    found.sort();
    found
}

/// Every build id written in `bytes` (one per slice of a universal file).
fn build_ids(bytes: &[u8]) -> Vec<String> {
    let mut ids = Vec::new();
    let mut at = 0;
    while let Some(offset) = bytes[at..].windows(MARKER.len()).position(|w| w == MARKER) {
        let start = at + offset + MARKER.len();
        let id = &bytes[start..bytes.len().min(start + 33)];
        if id.len() == 33 && id[32] == 0 && id[..32].iter().all(|c| c.is_ascii_hexdigit()) {
            ids.push(String::from_utf8_lossy(&id[..32]).into_owned());
        }
        at = start;
    }
    ids
}

#[test]
fn committed_binaries_are_built_from_this_source() {
    let binaries = binaries();
    assert!(binaries.len() >= 9, "expected a binary for every platform, found {binaries:?}: run `cargo xtask dist`");
    let mut stale = Vec::new();
    for path in &binaries {
        let bytes = std::fs::read(path).unwrap();
        let ids = build_ids(&bytes);
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path).display().to_string();
        if ids.is_empty() {
            stale.push(format!("{name}: no build id (built before build ids existed)"));
        } else if let Some(other) = ids.iter().find(|id| *id != ranking_elo::BUILD_ID) {
            stale.push(format!("{name}: build {other}"));
        }
    }
    assert!(
        stale.is_empty(),
        "the Unity package's binaries are older than the engine's source (build {}):\n  {}\n\
         Rebuild them with `cargo xtask dist` and commit unity/Runtime/Plugins with the change.",
        ranking_elo::BUILD_ID,
        stale.join("\n  ")
    );
}

#[test]
fn the_build_id_is_what_the_c_abi_reports() {
    let id = unsafe { std::ffi::CStr::from_ptr(ranking_elo::ffi::elo_build_id()) };
    assert_eq!(id.to_str().unwrap(), ranking_elo::BUILD_ID);
    assert_eq!(ranking_elo::BUILD_ID.len(), 32);
    assert!(ranking_elo::BUILD_ID.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
}

/// The record of the committed binaries' sizes (`<path> <bytes>` per line).
const SIZES: &str = "tests/data/binary_sizes.txt";

/// How much larger than its record a binary may be: 5%.
const SIZE_TOLERANCE_PERCENT: u64 = 5;

/// What is wrong with the binaries' sizes (`actual`: path relative to the repository and
/// bytes) against `record` (the text of [`SIZES`]): a binary more than
/// [`SIZE_TOLERANCE_PERCENT`] larger than its line, or without a line.
fn size_problems(record: &str, actual: &[(String, u64)]) -> Vec<String> {
    let mut recorded = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    for line in record.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        match line.rsplit_once(' ').map(|(path, bytes)| (path.trim(), bytes.parse::<u64>())) {
            Some((path, Ok(bytes))) => {
                recorded.insert(path.to_owned(), bytes);
            }
            _ => problems.push(format!("{SIZES}: `{line}` is not `<path> <bytes>`")),
        }
    }
    for (path, bytes) in actual {
        match recorded.get(path) {
            None => problems.push(format!("{path}: {bytes} bytes, no size recorded")),
            Some(&limit) if bytes * 100 > limit * (100 + SIZE_TOLERANCE_PERCENT) => {
                problems.push(format!("{path}: {bytes} bytes, {:+.1}% against the {limit} recorded", (*bytes as f64 / limit as f64 - 1.0) * 100.0));
            }
            Some(_) => {}
        }
    }
    problems
}

#[test]
fn committed_binaries_are_no_larger_than_recorded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let record = std::fs::read_to_string(root.join(SIZES)).unwrap();
    let actual: Vec<(String, u64)> =
        binaries().iter().map(|path| (path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"), std::fs::metadata(path).unwrap().len())).collect();
    let problems = size_problems(&record, &actual);
    assert!(
        problems.is_empty(),
        "binaries larger than {SIZE_TOLERANCE_PERCENT}% over their recorded size, or without one:\n  {}\n\
         Decide whether the growth is worth it (BENCHMARKS.md, \"Binary sizes\", shows where the bytes go), \
         then write the new sizes in {SIZES} (`cargo xtask dist` prints them).",
        problems.join("\n  ")
    );
}

/// The size check's negative test: 6% over fails, 4% over passes, as does a smaller
/// binary; a binary without a record fails, and so does a malformed line.
#[test]
fn the_size_check_catches_growth_and_missing_records() {
    let record = "# comment\nA/lib.so 1000000\nB/lib.a 500\n";
    let one = |path: &str, bytes: u64| size_problems(record, &[(path.to_owned(), bytes)]);
    assert_eq!(one("A/lib.so", 1_060_000), ["A/lib.so: 1060000 bytes, +6.0% against the 1000000 recorded"]);
    assert!(one("A/lib.so", 1_040_000).is_empty());
    assert!(one("A/lib.so", 1_050_000).is_empty(), "exactly 5% over is allowed");
    assert_eq!(one("A/lib.so", 1_050_001).len(), 1);
    assert!(one("A/lib.so", 400_000).is_empty());
    assert_eq!(one("C/lib.dll", 10), ["C/lib.dll: 10 bytes, no size recorded"]);
    assert_eq!(size_problems("A/lib.so many\n", &[]), [format!("{SIZES}: `A/lib.so many` is not `<path> <bytes>`")]);
}
