//! The build id hashes only the engine's own part of `Cargo.lock` (`build/locked.rs`):
//! dependencies of other workspace members (the ladder server) or dev-dependencies never
//! make the committed plugin binaries look stale, while a change to a dependency the
//! engine is built from does.

#[path = "../build/locked.rs"]
mod locked;

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("readable").replace("\r\n", "\n")
}

fn names(closure: &str) -> Vec<String> {
    closure.lines().filter_map(|l| l.strip_prefix("name = \"")).map(|n| n.trim_end_matches('"').to_owned()).collect()
}

#[test]
fn the_closure_holds_the_engine_dependencies_only() {
    let (lock, manifest) = (read("Cargo.lock"), read("Cargo.toml"));
    let wanted = locked::normal_and_build_dependencies(&manifest);
    for name in ["libc", "serde", "cbindgen", "csbindgen"] {
        assert!(wanted.contains(name), "{name} is a dependency of the engine: {wanted:?}");
    }
    // The engine reads and writes its JSON by hand (src/json); serde_json is for tests.
    assert!(!wanted.contains("serde_json"), "serde_json is not a dependency of the engine: {wanted:?}");
    assert!(!wanted.contains("proptest") && !wanted.contains("criterion"), "dev-dependencies are not: {wanted:?}");
    let closure = names(&locked::engine_closure(&lock, &manifest));
    for name in ["libc", "serde", "serde_derive", "proc-macro2", "cbindgen", "csbindgen"] {
        assert!(closure.iter().any(|n| n == name), "{name} is in the engine's closure: {closure:?}");
    }
    for name in ["tokio", "axum", "rusqlite", "tokio-postgres", "proptest", "criterion", "skillratings", "plotters", "ranking-elo", "ranking-elo-ladder"] {
        assert!(!closure.iter().any(|n| n == name), "{name} is not in the engine's closure");
    }
}

#[test]
fn server_only_changes_to_the_lock_file_keep_the_closure() {
    let (lock, manifest) = (read("Cargo.lock"), read("Cargo.toml"));
    let closure = locked::engine_closure(&lock, &manifest);
    // A new server-only dependency (a new package, listed by the server) and a server-only
    // version bump change the lock file but not the engine's part of it.
    let server_entry = lock.split("[[package]]").find(|b| b.contains("name = \"ranking-elo-ladder\"")).expect("the server is in the lock file");
    let more_dependencies = server_entry.replacen("dependencies = [\n", "dependencies = [\n \"some-server-only-crate\",\n", 1);
    let grown = lock.replacen(server_entry, &more_dependencies, 1)
        + "\n[[package]]\nname = \"some-server-only-crate\"\nversion = \"9.9.9\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"00\"\n";
    assert_ne!(grown, lock);
    assert_eq!(locked::engine_closure(&grown, &manifest), closure);
    let tokio_entry = lock.split("[[package]]").find(|b| b.contains("name = \"tokio\"\n")).expect("tokio is locked");
    let bumped = lock.replacen(tokio_entry, &tokio_entry.replacen("checksum = \"", "checksum = \"ff", 1), 1);
    assert_eq!(locked::engine_closure(&bumped, &manifest), closure);
    // Another member locking a second version of a crate the engine uses: the lock file
    // then names the engine's version with every use ("itoa 1.0.x"), which is the same
    // closure.
    let itoa_version = lock
        .split("[[package]]")
        .find(|b| b.contains("name = \"itoa\"\n"))
        .and_then(|b| b.lines().find_map(|l| l.strip_prefix("version = \"")).map(|v| v.trim_end_matches('"').to_owned()))
        .expect("itoa is locked");
    let qualified = lock.replace("\n \"itoa\",\n", &format!("\n \"itoa {itoa_version}\",\n"))
        + "\n[[package]]\nname = \"itoa\"\nversion = \"0.0.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"00\"\n";
    assert_ne!(qualified, lock);
    assert_eq!(locked::engine_closure(&qualified, &manifest), closure);
    // A change to a locked dependency of the engine changes it.
    let serde_entry = lock.split("[[package]]").find(|b| b.contains("name = \"serde_json\"\n")).expect("serde_json is locked");
    let changed = lock.replacen(serde_entry, &serde_entry.replacen("checksum = \"", "checksum = \"ff", 1), 1);
    assert_ne!(locked::engine_closure(&changed, &manifest), closure);
}
