//! The journal's hash chain. Each entry's `hash` is SHA-256 over the previous entry's hash
//! (of the same ladder; 32 zero bytes before the first) and the entry's canonical content:
//! its `seq`, `kind`, `id`, `time` and inputs, with every player written as their number
//! (the order in which they joined the ladder, from 0) instead of their name. Results are
//! not hashed (a replay recomputes them, and an annulment rewrites them), nor are the marks
//! an amendment leaves (the amendment is an entry of its own), nor names (an erasure
//! replaces them): so annulments, corrections and erasures keep the chain valid, while a
//! changed result, a deleted entry or a swapped order does not verify.
//!
//! Anyone can recompute the numbers from an export: they are the positions of the names in
//! the entries' `joined` lists, in `seq` order.

use std::collections::HashMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::Game;

/// The hash before a ladder's first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// A journal entry's hashed fields.
pub struct Content<'a> {
    /// Its seq.
    pub seq: i64,
    /// Its kind.
    pub kind: &'a str,
    /// Its id (match, event or amendment).
    pub id: Option<&'a str>,
    /// Server time.
    pub time: f64,
    /// Its inputs as stored (the reported match, `{}` for events, the amendment's).
    pub inputs: &'a str,
    /// Players who joined with it.
    pub joined: &'a [String],
}

/// A match with players as numbers.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum NumberedGame {
    Pair { a: u64, b: u64, score_a: f64 },
    Team { team_a: Vec<u64>, team_b: Vec<u64>, score_a: f64 },
    FreeForAll { entrants: Vec<u64>, places: Vec<u32> },
}

#[derive(Serialize)]
struct Hashed<'a> {
    seq: i64,
    kind: &'a str,
    id: Option<&'a str>,
    time: f64,
    inputs: serde_json::Value,
    joined: usize,
}

/// The canonical text an entry's hash covers; `number` gives each player's number.
///
/// # Errors
/// A player without a number, or inputs that do not parse (a damaged journal).
pub fn canonical(content: &Content<'_>, number: impl Fn(&str) -> Option<u64>) -> Result<String, String> {
    let n = |name: &str| number(name).ok_or_else(|| format!("seq {}: player {name:?} has no number", content.seq));
    let inputs = match content.kind {
        "pair" | "team" | "free_for_all" => {
            let game: Game = serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?;
            serde_json::to_value(numbered(game, &n)?).map_err(|e| e.to_string())?
        }
        "correct" => {
            // {"match": id, "result": a match}: the result's players as numbers too.
            let mut value: serde_json::Value = serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?;
            let game: Game = serde_json::from_value(value["result"].take()).map_err(|e| format!("seq {}: correction: {e}", content.seq))?;
            value["result"] = serde_json::to_value(numbered(game, &n)?).map_err(|e| e.to_string())?;
            value
        }
        _ => serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?,
    };
    serde_json::to_string(&Hashed { seq: content.seq, kind: content.kind, id: content.id, time: content.time, inputs, joined: content.joined.len() }).map_err(|e| e.to_string())
}

/// A match with its players as numbers.
fn numbered(game: Game, n: &impl Fn(&str) -> Result<u64, String>) -> Result<NumberedGame, String> {
    Ok(match game {
        Game::Pair { a, b, score_a } => NumberedGame::Pair { a: n(&a)?, b: n(&b)?, score_a },
        Game::Team { team_a, team_b, score_a } => {
            NumberedGame::Team { team_a: team_a.iter().map(|p| n(p)).collect::<Result<_, _>>()?, team_b: team_b.iter().map(|p| n(p)).collect::<Result<_, _>>()?, score_a }
        }
        Game::FreeForAll { entrants, places } => NumberedGame::FreeForAll { entrants: entrants.iter().map(|p| n(p)).collect::<Result<_, _>>()?, places },
    })
}

/// The next link: SHA-256 of the previous hash and the canonical content.
#[must_use]
pub fn link(previous: &[u8; 32], canonical: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(previous);
    hasher.update(canonical.as_bytes());
    hasher.finalize().into()
}

/// Lower-case hex.
#[must_use]
pub fn hex(hash: &[u8]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// Players' numbers as a ladder's journal assigns them: each entry's `joined` names take the
/// next numbers, in order.
#[derive(Debug, Default, Clone)]
pub struct Numbers {
    by_name: HashMap<String, u64>,
}

impl Numbers {
    /// Gives the next numbers to `joined`.
    pub fn join(&mut self, joined: &[String]) {
        for name in joined {
            let next = self.by_name.len() as u64;
            self.by_name.entry(name.clone()).or_insert(next);
        }
    }

    /// A player's number.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<u64> {
        self.by_name.get(name).copied()
    }

    /// How many players have numbers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether nobody has joined.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// A ladder's chain head: the last chained entry's hash and seq, and how many players have
/// numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// The last chained entry's hash ([`GENESIS`] before the first).
    pub hash: [u8; 32],
    /// Its seq (0 before the first).
    pub seq: i64,
    /// Players numbered so far (the next joining player's number).
    pub numbered: u64,
}

impl Default for Head {
    fn default() -> Self {
        Self { hash: GENESIS, seq: 0, numbered: 0 }
    }
}

/// An entry to chain.
#[derive(Debug, Clone)]
pub struct Unchained {
    /// Its seq.
    pub seq: i64,
    /// Its kind.
    pub kind: String,
    /// Its id.
    pub id: Option<String>,
    /// Server time.
    pub time: f64,
    /// Inputs as stored.
    pub inputs: String,
    /// Joined players.
    pub joined: Vec<String>,
}

/// What chaining a run of entries gives.
#[derive(Debug, Default)]
pub struct Chained {
    /// Each entry's hash: seq, hash.
    pub hashes: Vec<(i64, [u8; 32])>,
    /// Numbers given to joining players: name, number.
    pub numbers: Vec<(String, u64)>,
}

/// Chains `entries` (in seq order, all after `head`) onto `head`, numbering joining players;
/// `known` gives the numbers of players who joined earlier.
///
/// # Errors
/// As [`canonical`].
pub fn extend(head: &mut Head, entries: &[Unchained], known: &HashMap<String, u64>) -> Result<Chained, String> {
    let mut chained = Chained::default();
    let mut fresh: HashMap<String, u64> = HashMap::new();
    for entry in entries {
        for name in &entry.joined {
            fresh.insert(name.clone(), head.numbered);
            chained.numbers.push((name.clone(), head.numbered));
            head.numbered += 1;
        }
        let content = Content { seq: entry.seq, kind: &entry.kind, id: entry.id.as_deref(), time: entry.time, inputs: &entry.inputs, joined: &entry.joined };
        let text = canonical(&content, |name| fresh.get(name).or_else(|| known.get(name)).copied())?;
        head.hash = link(&head.hash, &text);
        head.seq = entry.seq;
        chained.hashes.push((entry.seq, head.hash));
    }
    Ok(chained)
}

/// Every player name an entry refers to (for looking up their numbers).
#[must_use]
pub fn names(entry: &Unchained) -> Vec<String> {
    let game = match entry.kind.as_str() {
        "pair" | "team" | "free_for_all" => serde_json::from_str::<Game>(&entry.inputs).ok(),
        "correct" => serde_json::from_str::<serde_json::Value>(&entry.inputs).ok().and_then(|mut v| serde_json::from_value::<Game>(v["result"].take()).ok()),
        _ => None,
    };
    game.map(|g| g.players().into_iter().map(str::to_owned).collect()).unwrap_or_default()
}
