//! The part of `Cargo.lock` that decides the engine's binaries: the `[[package]]` entries
//! in the `ranking-elo` library's own dependency closure (its `[dependencies]` and
//! `[build-dependencies]`, then everything those depend on). Other workspace members'
//! dependencies (the ladder server's, the simulator's) and the engine's dev-dependencies
//! never enter the plugin, so they must not change its build id.
//!
//! Used by `build.rs` and by `tests/build_id.rs` (a plain file, no dependencies: the
//! lock file and manifest formats are simple enough to read line by line).

use std::collections::{BTreeSet, HashMap};

/// The engine package's name.
pub const ENGINE: &str = "ranking-elo";

/// One `[[package]]` entry: its text and what it names.
struct Entry<'a> {
    text: &'a str,
    name: &'a str,
    version: &'a str,
    dependencies: Vec<&'a str>,
}

/// The value of `key = "value"` on a line.
fn string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}

fn entries(lock: &str) -> Vec<Entry<'_>> {
    let mut found = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        // A block ends where the next table starts (`[metadata]` in old lock files).
        let text = block.split("\n[").next().unwrap_or(block).trim_end();
        let (mut name, mut version, mut dependencies, mut in_list) = ("", "", Vec::new(), false);
        for line in text.lines().map(str::trim) {
            if in_list {
                if line.starts_with(']') {
                    in_list = false;
                } else if let Some(dep) = line.trim_end_matches(',').strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
                    dependencies.push(dep);
                }
            } else if let Some(value) = string_value(line, "name") {
                name = value;
            } else if let Some(value) = string_value(line, "version") {
                version = value;
            } else if line.starts_with("dependencies") {
                let list = line.split_once('[').map_or("", |(_, rest)| rest);
                in_list = !list.contains(']');
                for dep in list.trim_end_matches(']').split(',') {
                    if let Some(dep) = dep.trim().strip_prefix('"').and_then(|d| d.strip_suffix('"')) {
                        dependencies.push(dep);
                    }
                }
            }
        }
        found.push(Entry { text, name, version, dependencies });
    }
    found
}

/// The names under `[dependencies]`, `[build-dependencies]` and their `[target.….…]`
/// forms of a manifest (not `[dev-dependencies]`).
pub fn normal_and_build_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_section = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            let section = line.trim_matches(|c| c == '[' || c == ']');
            in_section = (section.ends_with("dependencies") && !section.ends_with("dev-dependencies"))
                && (section == "dependencies" || section == "build-dependencies" || section.starts_with("target."));
            continue;
        }
        if in_section {
            if let Some((key, _)) = line.split_once('=') {
                let key = key.trim().trim_matches('"');
                if !key.is_empty() && !key.starts_with('#') {
                    names.insert(key.to_owned());
                }
            }
        }
    }
    names
}

/// The `[[package]]` entries of the engine's closure, in lock-file order, as one text.
pub fn engine_closure(lock: &str, manifest: &str) -> String {
    let entries = entries(lock);
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, entry) in entries.iter().enumerate() {
        by_name.entry(entry.name).or_default().push(i);
    }
    // A dependency is written `name`, `name version` or `name version (source)`.
    let resolve = |dep: &str| -> Option<usize> {
        let mut parts = dep.split_whitespace();
        let name = parts.next()?;
        let version = parts.next();
        let candidates = by_name.get(name)?;
        candidates.iter().copied().find(|&i| version.is_none_or(|v| entries[i].version == v))
    };
    let wanted = normal_and_build_dependencies(manifest);
    let mut stack: Vec<usize> = Vec::new();
    if let Some(&root) = by_name.get(ENGINE).and_then(|roots| roots.first()) {
        for dep in &entries[root].dependencies {
            if wanted.contains(dep.split_whitespace().next().unwrap_or("")) {
                stack.extend(resolve(dep));
            }
        }
    }
    let mut closure = BTreeSet::new();
    while let Some(i) = stack.pop() {
        if closure.insert(i) {
            stack.extend(entries[i].dependencies.iter().filter_map(|dep| resolve(dep)));
        }
    }
    // Each entry written canonically: its own lines (name, version, source, checksum) and
    // its dependencies always as `name version`. The lock file writes a dependency as a bare
    // name while one version of it is locked and with its version once another member
    // locks a second one; that must not change the engine's part.
    closure
        .into_iter()
        .map(|i| {
            let entry = &entries[i];
            let own: Vec<&str> = entry.text.lines().map(str::trim).filter(|l| ["name ", "version ", "source ", "checksum "].iter().any(|key| l.starts_with(key))).collect();
            let mut dependencies: Vec<String> =
                entry.dependencies.iter().map(|dep| resolve(dep).map_or_else(|| (*dep).to_owned(), |d| format!("{} {}", entries[d].name, entries[d].version))).collect();
            dependencies.sort();
            format!("[[package]]\n{}\ndependencies = {dependencies:?}\n\n", own.join("\n"))
        })
        .collect()
}
