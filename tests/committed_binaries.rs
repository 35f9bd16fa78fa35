//! The Unity package ships a prebuilt binary for every platform
//! (`unity/Runtime/Plugins/**`, built by `cargo xtask dist`). Each carries the engine's
//! build id (`elo_build_id()`, a hash of the source, the locked dependencies and the
//! build settings, see `build.rs`) as the text `RANKING_ELO_BUILD_ID=<32 hex digits>`.
//! This test reads that text out of every binary (shared libraries, static archives and
//! universal Mach-O files alike, without running them) and fails when a binary is older
//! than the source it sits beside, so an engine change cannot land without its binaries.
//! (`cargo xtask test` also runs the binaries this machine can run.)

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
