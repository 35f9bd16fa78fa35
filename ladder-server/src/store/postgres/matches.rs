//! PostgreSQL: the matches resource: reports (through the committers, see [`super::commit`]),
//! the journal's pages (only settled entries: see [`super::chainer`]), amendments (see
//! [`super::amend`]) and what `elo-ladder verify` and the checkpointer read.

use super::*;

impl crate::store::MatchesStore for PgStore {
    fn report(&self, ladder: Arc<Ladder>, request: MatchRequest) -> StoreFuture<'_, String> {
        let receiver = self.shared.queue.submit(ladder, request);
        Box::pin(async move { receiver.await.unwrap_or_else(|_| Err(ApiError::unavailable("the committer stopped"))) })
    }

    fn import<'a>(&'a self, ladder: Arc<Ladder>, lines: Vec<crate::import::Line>) -> StoreFuture<'a, crate::import::BatchOutcome> {
        Box::pin(async move { super::import::import_batch(self, &ladder, &lines).await })
    }

    fn journal<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // The sizes first (one more than asked, to know whether more exist) with what
            // says whether each entry is settled, then only the entries that fit on the
            // page; both in one snapshot.
            let sizes_statement = match kind {
                None => {
                    conn.prepare(
                        "SELECT seq, bytes, $4::text AS kind, hash IS NOT NULL AS chained \
                         FROM journal WHERE ladder_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                    )
                    .await?
                }
                Some(_) => {
                    conn.prepare(
                        "SELECT seq, bytes, kind, hash IS NOT NULL AS chained \
                         FROM journal WHERE ladder_id = $1 AND kind = $4 AND seq > $2 ORDER BY seq LIMIT $3",
                    )
                    .await?
                }
            };
            let entries_statement = conn.prepare(JOURNAL_PAGE).await?;
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result = async {
                let amendments: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                let rows = conn.client.query(&sizes_statement, &[&ladder.id, &after, &(limit + 1), &kind]).await?;
                // Entries up to the first one not chained: the chainer hashes only settled
                // entries, in seq order, so a chained entry has every lower seq committed.
                let settled_rows = rows.iter().take_while(|r| r.get::<_, bool>("chained")).count();
                let pending = settled_rows < rows.len();
                let sizes: Vec<(i64, i64)> = rows[..settled_rows].iter().map(|r| (r.get("seq"), r.get("bytes"))).collect();
                let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
                let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
                let Some(&(last, _)) = sizes[..fits].last() else {
                    return Ok(JournalPage { entries: Vec::new(), pending, more: pending, amendments: Some(amendments) });
                };
                let found = conn.client.query(&entries_statement, &[&ladder.id, &after, &last, &kind]).await?;
                let mut entries = Vec::with_capacity(found.len());
                for row in found {
                    entries.push(journal_entry(journal_row(&row))?);
                }
                Ok(JournalPage { entries, pending: pending && fits == sizes.len(), more: rows.len() > fits, amendments: Some(amendments) })
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn journal_newest<'a>(&'a self, ladder: &'a Ladder, before: i64, limit: i64, kind: Option<&'a str>) -> StoreFuture<'a, JournalPage> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // Chained entries only: the chainer hashes entries in seq order once every lower
            // seq has committed, so the chained ones are the journal up to some seq, and the
            // newest page below `before` starts at the newest chained entry. The sizes first
            // (one more than asked), then the entries that fit; both in one snapshot.
            let sizes_statement = match kind {
                None => conn.prepare("SELECT seq, bytes FROM journal WHERE ladder_id = $1 AND seq < $2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT $3").await?,
                Some(_) => conn.prepare("SELECT seq, bytes FROM journal WHERE ladder_id = $1 AND kind = $4 AND seq < $2 AND hash IS NOT NULL ORDER BY seq DESC LIMIT $3").await?,
            };
            let held_statement = conn.prepare("SELECT EXISTS (SELECT 1 FROM journal WHERE ladder_id = $1 AND seq < $2 AND hash IS NULL)").await?;
            let entries_statement = conn.prepare(JOURNAL_PAGE_NEWEST).await?;
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let result = async {
                let limit_plus_one = limit + 1;
                let rows = match kind {
                    None => conn.client.query(&sizes_statement, &[&ladder.id, &before, &limit_plus_one]).await?,
                    Some(kind) => conn.client.query(&sizes_statement, &[&ladder.id, &before, &limit_plus_one, &kind]).await?,
                };
                let pending: bool = conn.client.query_one(&held_statement, &[&ladder.id, &before]).await?.get(0);
                let sizes: Vec<(i64, i64)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
                let asked = sizes.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
                let fits = page_length(&sizes[..asked].iter().map(|(_, b)| *b).collect::<Vec<_>>());
                let (Some(&(newest, _)), Some(&(oldest, _))) = (sizes.first(), sizes[..fits].last()) else {
                    return Ok(JournalPage { entries: Vec::new(), pending, more: false, amendments: None });
                };
                let found = conn.client.query(&entries_statement, &[&ladder.id, &oldest, &newest, &kind]).await?;
                let mut entries = Vec::with_capacity(found.len());
                for row in found {
                    entries.push(journal_entry(journal_row(&row))?);
                }
                Ok(JournalPage { entries, pending, more: sizes.len() > fits, amendments: None })
            }
            .await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            result
        })
    }

    fn rebuild_base<'a>(&'a self, ladder: &'a Ladder, limit: i64) -> StoreFuture<'a, crate::store::RebuildBase> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let row = conn
                .client
                .query_one(
                    "WITH latest AS (SELECT seq, state FROM rebuild_checkpoints WHERE ladder_id = $1 ORDER BY seq DESC LIMIT 1) \
                     SELECT (SELECT amendments FROM ladders WHERE id = $1), (SELECT state FROM latest), coalesce((SELECT seq FROM latest), 0), \
                     (SELECT count(*) FROM (SELECT 1 FROM journal WHERE ladder_id = $1 AND seq > coalesce((SELECT seq FROM latest), 0) AND hash IS NOT NULL LIMIT $2) AS f)",
                    &[&ladder.id, &limit],
                )
                .await?;
            Ok(crate::store::RebuildBase { generation: row.get(0), state: row.get(1), seq: row.get(2), entries_after: row.get(3) })
        })
    }

    fn replay_page<'a>(&'a self, ladder: &'a Ladder, after: i64, limit: i64) -> StoreFuture<'a, Vec<crate::replay::StoredEntry>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    &format!("SELECT {} FROM journal WHERE ladder_id = $1 AND seq > $2 AND hash IS NOT NULL ORDER BY seq LIMIT $3", amend::REPLAY_COLUMNS),
                    &[&ladder.id, &after, &limit],
                )
                .await?;
            Ok(rows.iter().map(amend::stored_entry).collect())
        })
    }

    fn keep_checkpoint<'a>(&'a self, ladder: &'a Ladder, seq: i64, state: &'a str, generation: i64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            let key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
            let kept = async {
                conn.client.batch_execute("BEGIN").await?;
                // Shared with reports, exclusive with amendments and erasures: one of those
                // under way commits first, and its new generation refuses this checkpoint.
                conn.client.execute("SELECT pg_advisory_xact_lock_shared($1, $2)", &[&LOCK_CLASS, &key]).await?;
                let now: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
                if now == generation {
                    save_checkpoint(&conn.client, ladder.id, seq, state).await?;
                }
                conn.client.batch_execute("COMMIT").await?;
                Ok::<bool, tokio_postgres::Error>(now == generation)
            }
            .await;
            match kept {
                Ok(kept) => {
                    conn.in_transaction = false;
                    Ok(kept)
                }
                Err(error) => {
                    conn.rollback().await;
                    Err(error.into())
                }
            }
        })
    }

    fn history_kept_since<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, f64> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            Ok(history_lines_since(&conn.client, ladder.id).await?)
        })
    }

    fn history_lines<'a>(&'a self, ladder: &'a Ladder, after: i64, through: i64) -> StoreFuture<'a, Vec<crate::store::HistoryLine>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT e.seq, p.name, e.rating_before, e.rating_after FROM player_entries e JOIN players p ON p.id = e.player_id \
                     WHERE e.seq > $2 AND e.seq <= $3 AND e.ladder_id = $1 ORDER BY e.seq, p.name COLLATE \"C\"",
                    &[&ladder.id, &after, &through],
                )
                .await?;
            Ok(rows.iter().map(|r| crate::store::HistoryLine { seq: r.get(0), player: r.get(1), before: r.get(2), after: r.get(3) }).collect())
        })
    }

    fn amendment_generation<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, (i64, bool)> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            // (An amendment or event is one transaction here: never seen half done.)
            let generation: i64 = conn.client.query_one("SELECT amendments FROM ladders WHERE id = $1", &[&ladder.id]).await?.get(0);
            Ok((generation, false))
        })
    }

    fn amend(&self, ladder: Arc<Ladder>, request: crate::amend::Request) -> StoreFuture<'_, String> {
        Box::pin(async move {
            let _turn = self.shared.turn(ladder.id).await;
            let mut attempt = 0;
            loop {
                let mut conn = self.pool().get().await?;
                conn.in_transaction = true;
                match amend_once(&conn.client, &ladder, &request).await {
                    Ok(answer) => {
                        self.shared.chain_wake.notify_one();
                        // Ends a transaction left open by an early answer (a warning only
                        // after a COMMIT).
                        if conn.client.batch_execute("ROLLBACK").await.is_ok() {
                            conn.in_transaction = false;
                        }
                        return answer;
                    }
                    Err(error) => {
                        conn.rollback().await;
                        attempt += 1;
                        if !retryable(&error) || attempt >= ATTEMPTS {
                            return Err(error.into());
                        }
                    }
                }
            }
        })
    }
}

/// A journal row read by a statement selecting [`JOURNAL_COLUMNS`].
pub(super) fn journal_row(row: &tokio_postgres::Row) -> JournalRow {
    JournalRow {
        seq: row.get(0),
        kind: row.get(1),
        id: row.get(2),
        time: row.get(3),
        inputs: row.get(4),
        joined: row.get(5),
        results: row.get(6),
        annulled: row.get(7),
        annul_reason: row.get(8),
        corrected: row.get(9),
        hash: row.get::<_, Option<Vec<u8>>>(10).unwrap_or_default(),
        keys: row.get(11),
    }
}
