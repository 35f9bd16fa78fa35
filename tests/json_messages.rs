//! Every message a configuration or a pool save gets when it cannot be read, pinned case by
//! case in `tests/fixtures/json_messages.txt`.
//!
//! The messages are part of the product (the README, the C and C# docs quote them, and
//! people act on them): the path of the value at fault, the plain words, `at line L column
//! C`. The library's own reader (`src/json`) produces them; the table was recorded
//! with the serde-based reader it replaced and then changed on purpose where the new one
//! says more (the full path inside `k_policy`, `expected_score` and a save's pool, the
//! position of the value itself, the range of a whole number, the names a tag accepts).
//!
//! Each line of the table is `kind<TAB>input<TAB>message`:
//! - `config`: the input is a configuration for `Config::from_json`;
//! - `pool`: the input is the `pool` value of a save, wrapped here into a save of this
//!   build's format and version with the right checksum, for `save::from_json`;
//! - `save`: the input is a whole save file.
//!
//! In inputs, `\n` stands for a line break and `\t` for a tab. `RANKING_ELO_BLESS=1 cargo
//! test --test json_messages` rewrites the messages from this build and then fails, so that
//! the new table is read and committed on purpose.

use std::fmt::Write as _;
use std::path::PathBuf;

use ranking_elo::save;
use ranking_elo::Config;

fn table_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json_messages.txt")
}

fn unescape(text: &str) -> String {
    text.replace("\\n", "\n").replace("\\t", "\t")
}

/// The message this build gives for one case.
fn message(kind: &str, input: &str) -> String {
    let input = unescape(input);
    match kind {
        "config" => match Config::from_json(&input) {
            Ok(_) => "OK".to_owned(),
            Err(error) => error.to_string(),
        },
        "pool" => {
            let text = format!(r#"{{"format":"{}","version":{},"checksum":"{}","pool":{input}}}"#, save::FORMAT, save::VERSION, save::checksum(&input));
            match save::from_json(&text) {
                Ok(_) => "OK".to_owned(),
                Err(error) => error.to_string(),
            }
        }
        "save" => match save::from_json(&input) {
            Ok(_) => "OK".to_owned(),
            Err(error) => error.to_string(),
        },
        other => panic!("unknown kind {other:?} in {}", table_path().display()),
    }
}

#[test]
fn reading_messages_are_the_recorded_ones() {
    let table = std::fs::read_to_string(table_path()).expect("the message table");
    let bless = std::env::var_os("RANKING_ELO_BLESS").is_some();
    let (mut cases, mut failures, mut blessed) = (0, String::new(), String::new());
    let mut kinds = std::collections::BTreeMap::new();
    for (number, line) in table.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            blessed.push_str(line);
            blessed.push('\n');
            continue;
        }
        let mut fields = line.splitn(3, '\t');
        let (Some(kind), Some(input), Some(expected)) = (fields.next(), fields.next(), fields.next()) else {
            panic!("line {}: expected kind<TAB>input<TAB>message: {line:?}", number + 1);
        };
        let got = message(kind, input);
        assert!(!got.contains('\n'), "line {}: a message with a line break cannot be recorded: {got:?}", number + 1);
        cases += 1;
        *kinds.entry(kind.to_owned()).or_insert(0) += 1;
        if got != expected {
            let _ = writeln!(failures, "line {}: {kind} {input}\n  recorded: {expected}\n  this build: {got}", number + 1);
        }
        let _ = writeln!(blessed, "{kind}\t{input}\t{got}");
    }
    if bless {
        std::fs::write(table_path(), blessed).expect("write the message table");
        panic!("RANKING_ELO_BLESS: {} rewritten from this build ({cases} cases); review the diff and commit it", table_path().display());
    }
    assert!(failures.is_empty(), "messages differ from tests/fixtures/json_messages.txt:\n{failures}");
    // The table covers both readers with many cases (an emptied table must not pass).
    assert!(cases >= 80, "only {cases} cases");
    assert!(kinds.get("config").copied().unwrap_or(0) >= 50 && kinds.get("pool").copied().unwrap_or(0) >= 15, "{kinds:?}");
}

/// Every syntax error in the table is the one `serde_json` gives for the same text, word
/// for word and position for position (the reader promises `serde_json`'s syntax
/// messages): a configuration whose text `serde_json` cannot parse gets exactly its message.
#[test]
fn syntax_errors_are_serde_jsons() {
    let table = std::fs::read_to_string(table_path()).expect("the message table");
    let mut compared = 0;
    for line in table.lines().filter(|line| line.starts_with("config\t")) {
        let input = unescape(line.split('\t').nth(1).expect("an input"));
        if let Err(error) = serde_json::from_str::<serde_json::Value>(&input) {
            let got = message("config", line.split('\t').nth(1).expect("an input"));
            // serde_json has no message for numbers beyond f32 or f64 that is about the
            // field; the library's says which field (`victory_bonus: number out of range`).
            if error.to_string().starts_with("number out of range") {
                assert!(got.ends_with(&format!(": {error}")), "{input}: {got}");
            } else {
                assert_eq!(got, format!("invalid configuration JSON: {error}"), "{input}");
            }
            compared += 1;
        }
    }
    assert!(compared >= 25, "only {compared} syntax errors in the table");
}
