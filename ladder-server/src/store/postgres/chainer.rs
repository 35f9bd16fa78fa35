//! The hash chain on PostgreSQL. Matches commit concurrently (their `seq` values are not
//! known in order until every lower one has settled), so entries are appended without a
//! hash and chained afterwards: one chainer at a time in the cluster (a transaction-level
//! advisory lock), woken after each commit and every 200 ms, hashes each ladder's settled
//! entries in `seq` order onto its chain head (see [`crate::chain`]) and numbers the players
//! who joined. The journal shows an entry once it is chained.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::types::ToSql;
use tokio_postgres::Client;

use super::{settled, Shared, LOCK_CLASS};
use crate::chain::{extend, names, Head, Unchained};
use crate::error::describe_postgres;

/// The advisory lock object held by the cluster's chainer.
const CHAINER_LOCK: i32 = -2;

/// Entries of a ladder chained per transaction.
const PAGE: i64 = 2000;

/// Runs until the process ends.
pub async fn chainer(shared: Arc<Shared>) {
    loop {
        tokio::select! {
            () = shared.chain_wake.notified() => {}
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
        let Ok(mut conn) = shared.pool.get().await else { continue };
        conn.in_transaction = true;
        match round(&conn.client).await {
            Ok(more) => {
                conn.in_transaction = false;
                if more {
                    shared.chain_wake.notify_one();
                }
            }
            Err(error) => {
                tracing::warn!(error = %describe_postgres(&error), "chaining the journal failed; trying again");
                conn.rollback().await;
            }
        }
    }
}

/// Chains `ladder`'s journal up to its newest settled entry before returning (an import's
/// batches, so that what an import wrote is in the journal when it returns, instead of left
/// to the chainers, which find the ladder locked while the import runs). Gives up after a
/// minute of waiting for another transaction (the chainers then finish it).
pub(super) async fn catch_up(shared: &Shared, ladder: i64) -> Result<(), tokio_postgres::Error> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let mut conn = match shared.pool.get().await {
            Ok(conn) => conn,
            Err(_) => return Ok(()),
        };
        conn.in_transaction = true;
        let more = match round(&conn.client).await {
            Ok(more) => {
                conn.in_transaction = false;
                more
            }
            Err(error) => {
                conn.rollback().await;
                return Err(error);
            }
        };
        if !more {
            let waiting: bool = conn.client.query_one("SELECT EXISTS (SELECT 1 FROM journal WHERE ladder_id = $1 AND hash IS NULL)", &[&ladder]).await?.get(0);
            if !waiting || tokio::time::Instant::now() > deadline {
                return Ok(());
            }
            // Another server's chainer leads, or an entry is not settled yet.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// One transaction: chains what is settled; whether more may be waiting.
async fn round(c: &Client) -> Result<bool, tokio_postgres::Error> {
    c.batch_execute("BEGIN").await?;
    let leader: bool = c.query_one("SELECT pg_try_advisory_xact_lock($1, $2)", &[&LOCK_CLASS, &CHAINER_LOCK]).await?.get(0);
    if !leader {
        c.batch_execute("ROLLBACK").await?;
        return Ok(false);
    }
    let ladders: Vec<i64> = c.query("SELECT DISTINCT ladder_id FROM journal WHERE hash IS NULL", &[]).await?.iter().map(|r| r.get(0)).collect();
    let mut more = false;
    for ladder in ladders {
        // A season end, decay, amendment or erasure of the ladder holds it: later.
        let key = i32::try_from(ladder).unwrap_or(i32::MAX);
        let free: bool = c.query_one("SELECT pg_try_advisory_xact_lock_shared($1, $2)", &[&LOCK_CLASS, &key]).await?.get(0);
        if free {
            more |= chain_ladder(c, ladder).await?;
        }
    }
    c.batch_execute("COMMIT").await?;
    Ok(more)
}

/// Chains one ladder's settled entries; whether a full page was chained.
async fn chain_ladder(c: &Client, ladder: i64) -> Result<bool, tokio_postgres::Error> {
    let head = c.query_opt("SELECT last_hash, last_seq, numbered FROM chains WHERE ladder_id = $1 FOR UPDATE", &[&ladder]).await?;
    let mut head = match head {
        Some(row) => {
            let hash: Vec<u8> = row.get(0);
            Head { hash: hash.try_into().unwrap_or([0; 32]), seq: row.get(1), numbered: u64::try_from(row.get::<_, i64>(2)).unwrap_or(0) }
        }
        None => {
            let rules: String = c.query_one("SELECT initial_config FROM ladders WHERE id = $1", &[&ladder]).await?.get(0);
            match Head::start(&rules) {
                Ok(head) => head,
                Err(message) => {
                    tracing::error!(ladder, "the journal cannot be chained: {message}");
                    return Ok(false);
                }
            }
        }
    };
    let rows = c
        .query(
            "SELECT seq, kind, match_id, time, inputs, joined, xmin::text::bigint, pg_snapshot_xmin(pg_current_snapshot())::text::bigint, \
             CASE WHEN kind IN ('decay', 'pair') THEN results END \
             FROM journal WHERE ladder_id = $1 AND hash IS NULL ORDER BY seq LIMIT $2",
            &[&ladder, &PAGE],
        )
        .await?;
    // Only a settled prefix: every lower seq has committed or rolled back.
    let entries: Vec<Unchained> = rows
        .iter()
        .take_while(|r| settled(r.get(6), r.get(7)))
        .map(|r| Unchained {
            seq: r.get(0),
            kind: r.get(1),
            id: r.get(2),
            time: r.get(3),
            inputs: r.get(4),
            joined: serde_json::from_str(r.get::<_, &str>(5)).unwrap_or_default(),
            decayed_through: Unchained::decayed_through(r.get(1), r.get(8)),
            held: Unchained::held(r.get(1), r.get(8)),
        })
        .collect();
    if entries.is_empty() {
        return Ok(false);
    }
    let mut wanted: Vec<String> = entries.iter().flat_map(names).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let known: HashMap<String, u64> = c
        .query("SELECT p.name, n.number FROM players p JOIN player_numbers n ON n.player_id = p.id WHERE p.ladder_id = $1 AND p.name = ANY($2)", &[&ladder, &wanted])
        .await?
        .iter()
        .map(|r| (r.get::<_, String>(0), u64::try_from(r.get::<_, i64>(1)).unwrap_or(0)))
        .collect();
    let chained = match extend(&mut head, &entries, &known) {
        Ok(chained) => chained,
        Err(message) => {
            tracing::error!(ladder, "the journal cannot be chained: {message}");
            return Ok(false);
        }
    };
    let numbered_names: Vec<&str> = chained.numbers.iter().map(|(name, _)| name.as_str()).collect();
    let numbers: Vec<i64> = chained.numbers.iter().map(|(_, n)| i64::try_from(*n).unwrap_or(i64::MAX)).collect();
    let seqs: Vec<i64> = chained.hashes.iter().map(|(seq, _, _)| *seq).collect();
    let hashes: Vec<&[u8]> = chained.hashes.iter().map(|(_, hash, _)| hash.as_slice()).collect();
    let keys: Vec<&str> = chained.hashes.iter().map(|(_, _, keys)| keys.as_str()).collect();
    let numbered = i64::try_from(head.numbered).unwrap_or(i64::MAX);
    let number_params: [&(dyn ToSql + Sync); 3] = [&ladder, &numbered_names, &numbers];
    let hash_params: [&(dyn ToSql + Sync); 3] = [&seqs, &hashes, &keys];
    let head_hash = head.hash.as_slice();
    let head_params: [&(dyn ToSql + Sync); 4] = [&ladder, &head_hash, &head.seq, &numbered];
    let (numbered_ok, hashed, headed) = tokio::join!(
        async {
            if numbers.is_empty() {
                Ok(0)
            } else {
                c.execute(
                    "INSERT INTO player_numbers (player_id, number) SELECT p.id, u.number FROM players p \
                     JOIN unnest($2::text[], $3::bigint[]) AS u(name, number) ON p.ladder_id = $1 AND p.name = u.name",
                    &number_params,
                )
                .await
            }
        },
        c.execute(
            "UPDATE journal j SET hash = u.hash, player_keys = u.keys FROM unnest($1::bigint[], $2::bytea[], $3::text[]) AS u(seq, hash, keys) WHERE j.seq = u.seq",
            &hash_params
        ),
        c.execute(
            "INSERT INTO chains (ladder_id, last_hash, last_seq, numbered) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (ladder_id) DO UPDATE SET last_hash = excluded.last_hash, last_seq = excluded.last_seq, numbered = excluded.numbered",
            &head_params,
        ),
    );
    numbered_ok?;
    hashed?;
    headed?;
    Ok(i64::try_from(entries.len()).unwrap_or(0) == PAGE)
}
