//! The hash chain commits to everything the replay uses (issue 33's second finding): the
//! first season's rules, a decay's time and who played. Each forgery below changes one of
//! them in an export and then copies the replay's own results back into every entry that
//! no longer matches, as an attacker who can run `verify` would, until the replay agrees:
//! the chain must still refuse it. An erasure keeps the chain valid and drops the erased
//! player's salt; a ladder chained again from scratch gets the same hashes' shape and
//! verifies.

use serde_json::Value;

use crate::helpers::{self, Backend, TestApp};
use crate::{random_match, Lcg, RULES};

on_both!(
    changed_rules_do_not_verify_even_with_the_replays_results,
    a_moved_decay_does_not_verify_even_with_the_replays_results,
    swapped_players_do_not_verify,
    an_erasure_drops_the_salt_and_the_chain_still_verifies
);

/// A ladder with matches, a decay and more matches; its export's lines.
fn exported(app: &TestApp) -> Vec<String> {
    app.put_ladder("c", &RULES.replace("}}", r#"},"decay":{"grace_days":0,"points_per_day":5}}"#));
    let mut rng = Lcg(31);
    for i in 0..24 {
        app.ok("POST", "/v1/ladders/c/matches", &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 6, true)));
        if i == 12 {
            app.ok("POST", "/v1/ladders/c/decay", &app.admin, Some(r#"{"id":"d1"}"#));
        }
    }
    let (status, text) = app.call("GET", "/v1/ladders/c/export", &app.admin, None);
    assert_eq!(status, 200);
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let (ok, said) = verify(&lines);
    assert!(ok, "the export as made verifies: {said}");
    lines
}

fn verify(lines: &[String]) -> (bool, String) {
    let dir = helpers::TempDir::new("forged");
    let path = dir.0.join("export.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    helpers::verify_journal(&path)
}

/// Copies the replay's results into the entry `verify` names until it stops naming one (at
/// most `limit` rounds); what `verify` finally says.
fn fix_up_results(lines: &mut [String], limit: usize) -> (bool, String) {
    const SAYS: &str = "the replay gives other results: ";
    for _ in 0..limit {
        let (ok, said) = verify(lines);
        let Some(at) = said.find(SAYS) else { return (ok, said) };
        let replayed: Value = serde_json::from_str(said[at + SAYS.len()..].trim()).expect("the replay's results");
        let seq: i64 = said[..at].rsplit("seq ").next().and_then(|t| t.split_whitespace().next()).and_then(|t| t.parse().ok()).expect("a seq");
        let line = lines.iter().position(|l| serde_json::from_str::<Value>(l).is_ok_and(|e| e["seq"] == seq)).expect("the named entry");
        let mut entry: Value = serde_json::from_str(&lines[line]).unwrap();
        entry["results"] = replayed;
        lines[line] = entry.to_string();
    }
    verify(lines)
}

/// The header's K changed from 32 to 64 and every result made the replay's: refused at the
/// first entry, by the chain (the genesis is the rules' hash).
fn changed_rules_do_not_verify_even_with_the_replays_results(backend: Backend) {
    let app = TestApp::spawn(backend);
    let mut lines = exported(&app);
    let mut header: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(header["rules"]["k_policy"]["k"], 32.0);
    header["rules"]["k_policy"]["k"] = Value::from(64.0);
    lines[0] = header.to_string();
    let (ok, said) = fix_up_results(&mut lines, 200);
    assert!(!ok, "rules changed in the header verify: {said}");
    let first = serde_json::from_str::<Value>(&lines[1]).unwrap()["seq"].clone();
    assert!(said.contains(&format!("seq {first} does not verify")) && said.contains("hash"), "{said}");
}

/// The decay's `decayed_through` moved 30 days and every later result made the replay's:
/// refused at the decay, by the chain.
fn a_moved_decay_does_not_verify_even_with_the_replays_results(backend: Backend) {
    let app = TestApp::spawn(backend);
    let mut lines = exported(&app);
    let decay = lines.iter().position(|l| l.contains(r#""kind":"decay""#)).unwrap();
    let mut entry: Value = serde_json::from_str(&lines[decay]).unwrap();
    let through = entry["results"]["decayed_through"].as_f64().expect("decayed_through");
    entry["results"]["decayed_through"] = Value::from(through + 30.0 * 86_400.0);
    let seq = entry["seq"].clone();
    lines[decay] = entry.to_string();
    let (ok, said) = fix_up_results(&mut lines, 200);
    assert!(!ok, "a moved decay verifies: {said}");
    assert!(said.contains(&format!("seq {seq} does not verify")) && said.contains("hash"), "{said}");
}

/// Two players' names swapped in every entry (keys kept, or swapped too): refused.
fn swapped_players_do_not_verify(backend: Backend) {
    let app = TestApp::spawn(backend);
    let lines = exported(&app);
    let swap = |text: &str| text.replace("\"p1\"", "\"@@\"").replace("\"p2\"", "\"p1\"").replace("\"@@\"", "\"p2\"");
    let names_only: Vec<String> = lines.iter().map(|l| swap(l)).collect();
    let (ok, said) = verify(&names_only);
    assert!(!ok && said.contains("is not the player the chain committed to"), "{said}");
    // The keys moved with the names: the entries they joined with now commit to other
    // players than the chain did.
    let key_of = |name: &str| -> (usize, usize) {
        lines
            .iter()
            .enumerate()
            .find_map(|(i, l)| {
                let e: Value = serde_json::from_str(l).ok()?;
                let position = e["joined"].as_array()?.iter().position(|n| n == name)?;
                Some((i, position))
            })
            .unwrap()
    };
    let ((line_1, at_1), (line_2, at_2)) = (key_of("p1"), key_of("p2"));
    let mut both = names_only.clone();
    let key = |line: usize, at: usize| serde_json::from_str::<Value>(&lines[line]).unwrap()["keys"][at].clone();
    let (key_1, key_2) = (key(line_1, at_1), key(line_2, at_2));
    for (line, at, key) in [(line_1, at_1, key_2), (line_2, at_2, key_1)] {
        let mut entry: Value = serde_json::from_str(&both[line]).unwrap();
        entry["keys"][at] = key;
        both[line] = entry.to_string();
    }
    let (ok, said) = verify(&both);
    assert!(!ok && said.contains("does not verify"), "{said}");
}

/// After an erasure the erased player's key has no salt, its commitment is unchanged, and
/// the export and the database verify.
fn an_erasure_drops_the_salt_and_the_chain_still_verifies(backend: Backend) {
    let app = TestApp::spawn(backend);
    let before = exported(&app);
    let entries: Vec<Value> = before.iter().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(|e| e.get("seq").is_some()).collect();
    let entry = entries.iter().find(|e| e["joined"].as_array().is_some_and(|j| j.iter().any(|n| n == "p3"))).unwrap().clone();
    let at = entry["joined"].as_array().unwrap().iter().position(|n| n == "p3").unwrap();
    let key = entry["keys"][at].clone();
    assert!(key["salt"].as_str().is_some_and(|s| s.len() == 32), "{key}");
    let pseudonym = app.ok("DELETE", "/v1/ladders/c/players/p3", &app.admin, None)["pseudonym"].as_str().unwrap().to_owned();
    let (_, text) = app.call("GET", "/v1/ladders/c/export", &app.admin, None);
    let after: Vec<String> = text.lines().map(str::to_owned).collect();
    let (ok, said) = verify(&after);
    assert!(ok, "{said}");
    let erased = after.iter().filter_map(|l| serde_json::from_str::<Value>(l).ok()).find(|e| e["seq"] == entry["seq"]).unwrap();
    assert_eq!(erased["joined"][at].as_str(), Some(pseudonym.as_str()));
    assert_eq!(erased["keys"][at], serde_json::json!({ "commitment": key["commitment"] }), "the salt is gone, the commitment stays");
    assert_eq!(erased["hash"], entry["hash"], "the chain is unchanged");
    helpers::verify_database(&app.server.database, "c");
}
