//! `elo-ladder verify --journal` against hostile exports, on stable Rust: the committed corpus
//! of the `verify_journal` fuzz target (`fuzz/corpus/verify_journal/`: real exports as seeds,
//! and whatever the fuzzer kept) replayed, then each seed mutated many times over the ways an
//! export can be damaged or forged (bytes, lines, numbers, strings, fields). Every input
//! must get an answer, never a panic; the seeds and only the seeds (among these) verify.

use std::path::PathBuf;

use serde_json::Value;

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/verify_journal");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).collect();
    files.sort();
    files.into_iter().map(|path| (path.clone(), std::fs::read(&path).unwrap())).collect()
}

/// Runs the verification; `Err` when it panicked.
fn answer(data: &[u8]) -> Result<Result<String, String>, String> {
    std::panic::catch_unwind(|| ranking_elo_ladder::verify::export(data))
        .map_err(|panic| panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned())).unwrap_or_default())
}

#[test]
fn the_corpus_gets_answers_and_the_seeds_verify() {
    let files = corpus();
    assert!(files.iter().filter(|(path, _)| path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seed-"))).count() >= 2, "the seeds are there");
    for (path, data) in &files {
        let outcome = answer(data).unwrap_or_else(|panic| panic!("{} panicked: {panic}", path.display()));
        if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seed-")) {
            assert!(outcome.is_ok(), "{}: {outcome:?}", path.display());
        }
    }
}

/// A small deterministic random sequence.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Values a forger or a broken disk may leave in a field.
fn odd_value(rng: &mut Rng) -> Value {
    let values = [
        Value::Null,
        Value::from(-1),
        Value::from(0),
        Value::from(1e308),
        Value::from(-1e308),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(0.5),
        Value::from(""),
        Value::from("s"),
        Value::from("erased-00"),
        serde_json::json!([]),
        serde_json::json!([1, 2]),
        serde_json::json!({}),
        serde_json::json!({ "kind": "pair", "a": "p0", "b": "p0", "score_a": 1 }),
        serde_json::json!({ "kind": "team", "team_a": [], "team_b": ["p0"], "score_a": 2 }),
        serde_json::json!({ "kind": "free_for_all", "entrants": ["p0", "p1"], "places": [1] }),
        serde_json::json!({ "match": "m1", "result": { "kind": "pair", "a": "x", "b": "y", "score_a": 0 } }),
        serde_json::json!([{ "commitment": "00", "salt": "zz" }]),
        serde_json::json!({ "decayed_through": -1e300 }),
    ];
    values[rng.below(values.len())].clone()
}

/// Replaces one value somewhere in a JSON tree (depth-first, the `pick`th node).
fn replace_somewhere(value: &mut Value, pick: &mut usize, with: &Value) -> bool {
    if *pick == 0 {
        *value = with.clone();
        return true;
    }
    *pick -= 1;
    match value {
        Value::Array(items) => items.iter_mut().any(|item| replace_somewhere(item, pick, with)),
        Value::Object(fields) => fields.values_mut().any(|item| replace_somewhere(item, pick, with)),
        _ => false,
    }
}

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let text = String::from_utf8_lossy(seed);
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut bytes = seed.to_vec();
    match rng.below(8) {
        0 => {
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
            return bytes;
        }
        1 => {
            let at = rng.below(bytes.len());
            bytes.truncate(at);
            return bytes;
        }
        2 => {
            let at = rng.below(lines.len());
            lines.remove(at);
        }
        3 => {
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(a, b);
        }
        4 => {
            let at = rng.below(lines.len());
            let copy = lines[at].clone();
            lines.insert(rng.below(lines.len()), copy);
        }
        _ => {
            // A field of one line replaced by an odd value.
            let at = rng.below(lines.len());
            if let Ok(mut line) = serde_json::from_str::<Value>(&lines[at]) {
                let with = odd_value(rng);
                let mut pick = rng.below(40);
                replace_somewhere(&mut line, &mut pick, &with);
                lines[at] = line.to_string();
            }
        }
    }
    (lines.join("\n") + "\n").into_bytes()
}

#[test]
fn mutated_exports_get_answers_never_panics() {
    let seeds: Vec<Vec<u8>> = corpus().into_iter().filter(|(path, _)| path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("seed-"))).map(|(_, data)| data).collect();
    let mut rng = Rng(2026);
    let (mut tried, mut verified) = (0, 0);
    for seed in &seeds {
        for _ in 0..1500 {
            let mut data = mutate(seed, &mut rng);
            if rng.below(3) == 0 {
                data = mutate(&data, &mut rng);
            }
            let outcome = answer(&data).unwrap_or_else(|panic| panic!("a mutated export panicked ({panic}):\n{}", String::from_utf8_lossy(&data)));
            tried += 1;
            verified += usize::from(outcome.is_ok() && data != *seed);
        }
    }
    assert_eq!(tried, 1500 * seeds.len());
    // A few mutations change nothing that counts (a blank line, a duplicated line after the
    // end, …); most must fail.
    assert!(verified * 20 < tried, "{verified} of {tried} mutated exports verified");
}
