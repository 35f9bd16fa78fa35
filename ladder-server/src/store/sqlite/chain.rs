//! The hash chain on SQLite: the writer chains each ladder's new entries in the same
//! transaction as their append (see [`crate::chain`]).

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::ApiError;

/// Chains the ladder's unchained entries (in seq order) onto its chain head, numbering
/// joining players (see [`crate::chain`]): after every append, in the same transaction, and
/// for a database of version 0.1 when the server starts.
pub(super) fn chain_ladder(c: &Connection, ladder_id: i64) -> Result<(), ApiError> {
    use crate::chain::{extend, names, Head, Unchained};
    loop {
        let head: Option<(Vec<u8>, i64, i64)> = c
            .prepare_cached("SELECT last_hash, last_seq, numbered FROM chains WHERE ladder_id = ?1")?
            .query_row([ladder_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let mut head = match head {
            Some((hash, seq, numbered)) => {
                Head { hash: hash.try_into().map_err(|_| ApiError::internal("a chain head is not 32 bytes"))?, seq, numbered: u64::try_from(numbered).unwrap_or(0) }
            }
            None => {
                let rules: String = c.prepare_cached("SELECT initial_config FROM ladders WHERE id = ?1")?.query_row([ladder_id], |r| r.get(0))?;
                Head::start(&rules).map_err(ApiError::internal)?
            }
        };
        let entries: Vec<Unchained> = c
            .prepare_cached(
                "SELECT seq, kind, match_id, time, inputs, joined, CASE WHEN kind IN ('decay', 'pair') THEN results END FROM journal \
                 WHERE ladder_id = ?1 AND hash IS NULL ORDER BY seq LIMIT 1000",
            )?
            .query_map([ladder_id], |r| {
                let (kind, joined, results): (String, String, Option<String>) = (r.get(1)?, r.get(5)?, r.get(6)?);
                Ok(Unchained {
                    seq: r.get(0)?,
                    decayed_through: Unchained::decayed_through(&kind, results.as_deref()),
                    held: Unchained::held(&kind, results.as_deref()),
                    kind,
                    id: r.get(2)?,
                    time: r.get(3)?,
                    inputs: r.get(4)?,
                    joined: serde_json::from_str(&joined).unwrap_or_default(),
                })
            })?
            .collect::<Result<_, _>>()?;
        if entries.is_empty() {
            return Ok(());
        }
        let mut known: HashMap<String, u64> = HashMap::new();
        for entry in &entries {
            for name in names(entry) {
                if known.contains_key(&name) || entry.joined.contains(&name) {
                    continue;
                }
                let number: Option<i64> = c
                    .prepare_cached("SELECT n.number FROM players p JOIN player_numbers n ON n.player_id = p.id WHERE p.ladder_id = ?1 AND p.name = ?2")?
                    .query_row(params![ladder_id, name], |r| r.get(0))
                    .optional()?;
                if let Some(number) = number {
                    known.insert(name, u64::try_from(number).unwrap_or(0));
                }
            }
        }
        let chained = extend(&mut head, &entries, &known).map_err(ApiError::internal)?;
        for (name, number) in &chained.numbers {
            c.prepare_cached("INSERT INTO player_numbers (player_id, number) SELECT id, ?3 FROM players WHERE ladder_id = ?1 AND name = ?2")?.execute(params![
                ladder_id,
                name,
                i64::try_from(*number).unwrap_or(i64::MAX)
            ])?;
        }
        for (seq, hash, keys) in &chained.hashes {
            c.prepare_cached("UPDATE journal SET hash = ?2, player_keys = ?3 WHERE seq = ?1")?.execute(params![seq, hash.as_slice(), keys])?;
        }
        c.prepare_cached(
            "INSERT INTO chains (ladder_id, last_hash, last_seq, numbered) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (ladder_id) DO UPDATE SET last_hash = excluded.last_hash, last_seq = excluded.last_seq, numbered = excluded.numbered",
        )?
        .execute(params![ladder_id, head.hash.as_slice(), head.seq, i64::try_from(head.numbered).unwrap_or(i64::MAX)])?;
    }
}

/// Chains what a database of version 0.1 left unchained (once, at start).
pub(super) fn chain_everything(c: &Connection) -> Result<(), ApiError> {
    let ladders: Vec<i64> = c.prepare("SELECT DISTINCT ladder_id FROM journal WHERE hash IS NULL")?.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    for ladder in ladders {
        chain_ladder(c, ladder)?;
    }
    Ok(())
}
