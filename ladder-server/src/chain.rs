//! The journal's hash chain (version 2). Each entry's `hash` is SHA-256 over the previous
//! entry's hash (of the same ladder) and the entry's canonical content: its `seq`, `kind`,
//! `id`, `time` and inputs, with every player written as their number (the order in which
//! they joined the ladder, from 0) instead of their name, a decay's `decayed_through`, and
//! the keyed commitment of each player who joined with it. Before the first entry comes the
//! ladder's genesis: SHA-256 of the first season's rules ([`genesis`]); later rules come in
//! with season ends, whose inputs carry them. So the chain commits to everything the replay
//! uses: the rules, every event's time and parameters, and who played.
//!
//! Who played: a player's commitment is SHA-256 of a random salt of their own and their name
//! ([`PlayerKey`]). An export shows each joining player's salt, so anyone can check that the
//! name beside it is the one committed to (two players' names swapped do not verify). An
//! erasure replaces the name by a pseudonym and destroys the salt: the commitment stays
//! (the chain stays valid) but no longer leads back to the name.
//!
//! Results are not hashed (a replay recomputes them, and an annulment rewrites them), nor
//! are the marks an amendment leaves (the amendment is an entry of its own), nor an
//! annulment's reason (free text), nor names: so annulments, corrections and erasures keep
//! the chain valid, while a changed result, rule, time, input or name, a deleted entry or a
//! swapped order does not verify. Anyone can recompute the numbers from an export: they are
//! the positions of the names in the entries' `joined` lists, in `seq` order.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::Game;

/// The hash before a ladder's first entry: SHA-256 of the chain's version and the first
/// season's rules (as canonical JSON with sorted keys, so that the export's header, parsed
/// and written again, gives the same text).
///
/// # Errors
/// Rules that are not JSON.
pub fn genesis(rules_json: &str) -> Result<[u8; 32], String> {
    let rules: serde_json::Value = serde_json::from_str(rules_json).map_err(|e| format!("the rules: {e}"))?;
    let mut hasher = Sha256::new();
    hasher.update(b"elo-ladder chain 2\n");
    hasher.update(rules.to_string().as_bytes());
    Ok(hasher.finalize().into())
}

/// A joining player's key: the commitment the chain hashes, and the salt that ties it to the
/// name (absent once the player is erased).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerKey {
    /// SHA-256 of the salt and the name, hex.
    pub commitment: String,
    /// 16 random bytes, hex; `None` after an erasure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
}

impl PlayerKey {
    /// A new key for `name`, with a random salt.
    ///
    /// # Errors
    /// The OS has no randomness.
    pub fn new(name: &str) -> Result<Self, String> {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| format!("no randomness: {e}"))?;
        Ok(Self { commitment: hex(&commit(&salt, name)), salt: Some(hex(&salt)) })
    }

    /// Checks the key against the name shown beside it: its salt and the name give its
    /// commitment, or (erased: no salt) the name is a pseudonym.
    ///
    /// # Errors
    /// A commitment of the wrong form, a salt that is not 16 bytes of hex, or one that with
    /// `name` does not give the commitment.
    pub fn check(&self, name: &str) -> Result<(), String> {
        if self.commitment.len() != 64 || !self.commitment.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("player {name:?}: a commitment is 64 hex digits"));
        }
        match &self.salt {
            Some(salt) => {
                let salt = unhex(salt).filter(|s| s.len() == 16).ok_or_else(|| format!("player {name:?}: a salt is 32 hex digits"))?;
                if hex(&commit(&salt, name)) == self.commitment {
                    Ok(())
                } else {
                    Err(format!("player {name:?} is not the player the chain committed to"))
                }
            }
            None if name.starts_with(crate::model::PSEUDONYM_PREFIX) => Ok(()),
            None => Err(format!("player {name:?} has no salt, and is not erased")),
        }
    }

    /// The key after an erasure: the commitment without its salt.
    #[must_use]
    pub fn erased(&self) -> Self {
        Self { commitment: self.commitment.clone(), salt: None }
    }
}

/// SHA-256 of a player's salt and name.
fn commit(salt: &[u8], name: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"elo-ladder player\n");
    hasher.update(salt);
    hasher.update(name.as_bytes());
    hasher.finalize().into()
}

/// Bytes from hex (`None` for anything else).
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| text.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok())).collect()
}

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
    /// Their keys, in the same order.
    pub keys: &'a [PlayerKey],
    /// A decay's `decayed_through` (the time it decays to, which the replay uses).
    pub decayed_through: Option<f64>,
    /// A pair match held for its rating period (which the replay uses: [`crate::periods`]).
    pub held: bool,
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
    joined: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decayed_through: Option<f64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    held: bool,
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
        "import" => {
            // {"player", "state"}: the player as a number, so that an erasure keeps the hash.
            let mut value: serde_json::Value = serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?;
            let player =
                value.get("player").and_then(serde_json::Value::as_str).ok_or_else(|| format!("seq {}: an import's inputs are {{\"player\", \"state\"}}", content.seq))?.to_owned();
            value["player"] = serde_json::Value::from(n(&player)?);
            value
        }
        "correct" => {
            // {"match": id, "result": a match}: the result's players as numbers too.
            let mut value: serde_json::Value = serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?;
            let result = value.get_mut("result").ok_or_else(|| format!("seq {}: a correction's inputs are {{\"match\", \"result\"}}", content.seq))?;
            let game: Game = serde_json::from_value(result.take()).map_err(|e| format!("seq {}: correction: {e}", content.seq))?;
            *result = serde_json::to_value(numbered(game, &n)?).map_err(|e| e.to_string())?;
            value
        }
        _ => serde_json::from_str(content.inputs).map_err(|e| format!("seq {}: inputs: {e}", content.seq))?,
    };
    if content.keys.len() != content.joined.len() {
        return Err(format!("seq {}: {} players joined with {} keys", content.seq, content.joined.len(), content.keys.len()));
    }
    if (content.kind == "decay") != content.decayed_through.is_some() {
        return Err(format!("seq {}: decayed_through belongs to a decay, and every decay has one", content.seq));
    }
    let joined = content.keys.iter().map(|k| k.commitment.as_str()).collect();
    if content.held && content.kind != "pair" {
        return Err(format!("seq {}: only a pair match is held for a rating period", content.seq));
    }
    let hashed = Hashed { seq: content.seq, kind: content.kind, id: content.id, time: content.time, inputs, joined, decayed_through: content.decayed_through, held: content.held };
    serde_json::to_string(&hashed).map_err(|e| e.to_string())
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
    /// The last chained entry's hash (the ladder's [`genesis`] before the first).
    pub hash: [u8; 32],
    /// Its seq (0 before the first).
    pub seq: i64,
    /// Players numbered so far (the next joining player's number).
    pub numbered: u64,
}

impl Head {
    /// The head of a ladder with no entry yet, whose first season's rules are `rules_json`.
    ///
    /// # Errors
    /// As [`genesis`].
    pub fn start(rules_json: &str) -> Result<Self, String> {
        Ok(Self { hash: genesis(rules_json)?, seq: 0, numbered: 0 })
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
    /// A decay's `decayed_through` (from its results).
    pub decayed_through: Option<f64>,
    /// A pair match held for its rating period (from its results).
    pub held: bool,
}

impl Unchained {
    /// Whether a pair match is held for its rating period, read from its stored results.
    #[must_use]
    pub fn held(kind: &str, results: Option<&str>) -> bool {
        kind == "pair" && results.is_some_and(crate::periods::is_held)
    }

    /// A decay's `decayed_through`, read from its stored results (`None` for other kinds).
    #[must_use]
    pub fn decayed_through(kind: &str, results: Option<&str>) -> Option<f64> {
        (kind == "decay").then(|| results.and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok()).and_then(|r| r["decayed_through"].as_f64())).flatten()
    }
}

/// What chaining a run of entries gives.
#[derive(Debug, Default)]
pub struct Chained {
    /// Each entry's hash and its joining players' keys (JSON): seq, hash, keys.
    pub hashes: Vec<(i64, [u8; 32], String)>,
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
        let mut keys = Vec::with_capacity(entry.joined.len());
        for name in &entry.joined {
            fresh.insert(name.clone(), head.numbered);
            chained.numbers.push((name.clone(), head.numbered));
            head.numbered += 1;
            keys.push(PlayerKey::new(name)?);
        }
        let content = Content {
            seq: entry.seq,
            kind: &entry.kind,
            id: entry.id.as_deref(),
            time: entry.time,
            inputs: &entry.inputs,
            joined: &entry.joined,
            keys: &keys,
            decayed_through: entry.decayed_through,
            held: entry.held,
        };
        let text = canonical(&content, |name| fresh.get(name).or_else(|| known.get(name)).copied())?;
        head.hash = link(&head.hash, &text);
        head.seq = entry.seq;
        chained.hashes.push((entry.seq, head.hash, serde_json::to_string(&keys).map_err(|e| e.to_string())?));
    }
    Ok(chained)
}

/// Every player name an entry refers to (for looking up their numbers).
#[must_use]
pub fn names(entry: &Unchained) -> Vec<String> {
    let game = match entry.kind.as_str() {
        "pair" | "team" | "free_for_all" => serde_json::from_str::<Game>(&entry.inputs).ok(),
        "correct" => serde_json::from_str::<serde_json::Value>(&entry.inputs)
            .ok()
            .and_then(|mut v| v.get_mut("result").map(serde_json::Value::take))
            .and_then(|v| serde_json::from_value::<Game>(v).ok()),
        "import" => {
            return serde_json::from_str::<serde_json::Value>(&entry.inputs)
                .ok()
                .and_then(|v| v.get("player").and_then(serde_json::Value::as_str).map(str::to_owned))
                .into_iter()
                .collect();
        }
        _ => None,
    };
    game.map(|g| g.players().into_iter().map(str::to_owned).collect()).unwrap_or_default()
}
