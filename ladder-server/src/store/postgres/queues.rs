//! PostgreSQL: the queues resource (queues, tickets, the matches queues made), shared by
//! every server on the database. One matcher per queue at a time holds the queue row's
//! lease; whatever the leases do, a ticket enters at most one match: a tick locks the
//! tickets it matches and takes only those still waiting, and a cancellation changes only a
//! waiting ticket, so the two are ordered by the rows' locks.

use super::*;
use crate::model::PlayerRow;
use crate::queue::{MatchBody, NewTicket, TicketRecord, TicketState, WaitingTicket};
use crate::store::{Joined, QueueListing, QueuePut, TickCommit};

/// The ticket columns [`to_record`] reads, with the match's body (joined).
const TICKET: &str = "SELECT t.id, t.queue, t.players, t.attributes, t.state, t.created, t.updated, t.request, m.body \
     FROM tickets t LEFT JOIN queue_matches m ON m.ladder_id = t.ladder_id AND m.id = t.match_id WHERE t.id = $1 AND t.ladder_id = $2 AND t.queue = $3";

fn to_record(r: &tokio_postgres::Row) -> Result<TicketRecord, ApiError> {
    Ok(TicketRecord {
        id: r.get(0),
        queue: r.get(1),
        players: serde_json::from_str(r.get::<_, &str>(2)).map_err(|e| ApiError::internal(format!("stored ticket players: {e}")))?,
        attributes: r.get(3),
        state: TicketState::parse(r.get(4))?,
        created: r.get(5),
        updated: r.get(6),
        request: r.get(7),
        matched: r.get(8),
    })
}

async fn find_ticket(c: &Client, ladder_id: i64, queue: &str, id: &str) -> Result<Option<TicketRecord>, ApiError> {
    c.query_opt(TICKET, &[&id, &ladder_id, &queue]).await?.as_ref().map(to_record).transpose()
}

/// The ladder's zero-sum numbers and its stored players among `names`.
async fn players_of(c: &Client, ladder: &Ladder, names: &[String]) -> Result<(Option<ZeroSum>, HashMap<String, PlayerRow>), ApiError> {
    let numbers = c.query_one("SELECT zero_sum_offset, zero_sum_sum, players FROM ladders WHERE id = $1", &[&ladder.id]).await?;
    let zero_sum = match ladder.zero_sum_total() {
        Some(total) => Some(ZeroSum::from_stored(total, numbers.get(0), numbers.get::<_, &str>(1), numbers.get(2))?),
        None => None,
    };
    let rows = c.query(&format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = $1 AND name = ANY($2)"), &[&ladder.id, &names]).await?;
    let mut players = HashMap::with_capacity(rows.len());
    for row in &rows {
        let row = player_row(row)?;
        players.insert(row.name.clone(), row);
    }
    Ok((zero_sum, players))
}

/// Runs `work` in a transaction on one pooled connection: committed when it returns `Ok`,
/// rolled back otherwise.
macro_rules! in_transaction {
    ($store:expr, |$c:ident| $work:expr) => {{
        let mut conn = $store.pool().get().await?;
        conn.in_transaction = true;
        conn.client.batch_execute("BEGIN").await?;
        let result: Result<_, ApiError> = {
            let $c: &Client = &conn.client;
            async { $work }.await
        };
        match result {
            Ok(value) => {
                conn.client.batch_execute("COMMIT").await?;
                conn.in_transaction = false;
                Ok(value)
            }
            Err(error) => {
                conn.rollback().await;
                Err(error)
            }
        }
    }};
}

impl crate::store::QueuesStore for PgStore {
    fn put_queue<'a>(&'a self, ladder: &'a Ladder, name: &'a str, settings_json: &'a str) -> StoreFuture<'a, QueuePut> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let inserted: bool = conn
                .client
                .query_one(
                    "INSERT INTO queues (ladder_id, name, settings, created_at) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (ladder_id, name) DO UPDATE SET settings = EXCLUDED.settings RETURNING (xmax = 0)",
                    &[&ladder.id, &name, &settings_json, &model::now()],
                )
                .await?
                .get(0);
            Ok(if inserted { QueuePut::Created } else { QueuePut::Replaced })
        })
    }

    fn queues<'a>(&'a self, ladder: &'a Ladder, only: Option<&'a str>) -> StoreFuture<'a, Vec<QueueListing>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT q.name, q.settings, w.waiting, w.oldest, q.match_seq FROM queues q, LATERAL \
                     (SELECT count(*) AS waiting, min(created) AS oldest FROM tickets t WHERE t.ladder_id = q.ladder_id AND t.queue = q.name AND t.state = 'waiting') w \
                     WHERE q.ladder_id = $1 AND ($2::text IS NULL OR q.name = $2) ORDER BY q.name",
                    &[&ladder.id, &only],
                )
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(QueueListing { name: r.get(0), settings: crate::queue::QueueSettings::stored(r.get(1))?, waiting: r.get(2), oldest_waiting: r.get(3), matches: r.get(4) })
                })
                .collect()
        })
    }

    fn queue_settings<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, Option<crate::queue::QueueSettings>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn.prepare("SELECT settings FROM queues WHERE ladder_id = $1 AND name = $2").await?;
            let row = conn.client.query_opt(&statement, &[&ladder.id, &name]).await?;
            row.map(|r| crate::queue::QueueSettings::stored(r.get(0))).transpose()
        })
    }

    fn all_queues(&self) -> StoreFuture<'_, Vec<(String, String)>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT l.name, q.name FROM queues q JOIN ladders l ON l.id = q.ladder_id ORDER BY l.name, q.name", &[]).await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
    }

    fn join_queue(&self, ladder: Arc<Ladder>, queue: String, ticket: NewTicket) -> StoreFuture<'_, Joined> {
        Box::pin(async move {
            let request = ticket.canonical();
            let id = crate::queue::random_id("t-")?;
            let outcome: Result<Option<i64>, ApiError> = in_transaction!(self, |c| {
                // The ladder's lock, shared: an erasure (exclusive) of one of these players is
                // before or after this join, never beside it.
                let ladder_key = i32::try_from(ladder.id).unwrap_or(i32::MAX);
                c.execute("SELECT pg_advisory_xact_lock_shared($1, $2)", &[&LOCK_CLASS, &ladder_key]).await?;
                let (zero_sum, rows) = players_of(c, &ladder, &ticket.players).await?;
                let offset = zero_sum.map_or(0.0, |z| z.offset);
                let mut joining = zero_sum;
                let ratings: Vec<f32> = ticket
                    .players
                    .iter()
                    .map(|name| match rows.get(name) {
                        Some(row) => model::current(&row.state, offset).rating,
                        // Where the player would join, among the others as they are now (in a
                        // zero-sum ladder a join moves everyone: its stored rating with the
                        // offset before it).
                        None => model::current(&model::joining_state(&ladder.rules, joining.as_mut(), model::now()), offset).rating,
                    })
                    .collect();
                let rating = f64::from(crate::queue::ticket_rating(&ratings));
                let now = model::now();
                let players = serde_json::to_string(&ticket.players).map_err(|e| ApiError::internal(e.to_string()))?;
                let size = i64::try_from(ticket.players.len()).unwrap_or(i64::MAX);
                let row: Option<i64> = c
                    .query_opt(
                        "INSERT INTO tickets (id, ladder_id, queue, client_id, request, players, size, rating, attributes, state, created, updated) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'waiting', $10, $10) \
                         ON CONFLICT (ladder_id, queue, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING row_id",
                        &[&id, &ladder.id, &queue, &ticket.client_id, &request, &players, &size, &rating, &ticket.attributes_json(), &now],
                    )
                    .await?
                    .map(|r| r.get(0));
                let Some(row) = row else {
                    return Ok(None); // the client id was used: read that ticket below
                };
                for player in &ticket.players {
                    let taken = c
                        .execute(
                            "INSERT INTO waiting_players (ladder_id, queue, player, ticket_row) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                            &[&ladder.id, &queue, player, &row],
                        )
                        .await?;
                    if taken == 0 {
                        let waiting: Option<String> = c
                            .query_opt(
                                "SELECT t.id FROM waiting_players w JOIN tickets t ON t.row_id = w.ticket_row WHERE w.ladder_id = $1 AND w.queue = $2 AND w.player = $3",
                                &[&ladder.id, &queue, player],
                            )
                            .await?
                            .map(|r| r.get(0));
                        return Err(ApiError::conflict(
                            "already_waiting",
                            format!("player {player:?} already waits in queue {queue:?} with ticket {}", waiting.unwrap_or_else(|| "(just matched)".to_owned())),
                        ));
                    }
                }
                Ok(Some(row))
            });
            let conn = self.pool().get().await?;
            if outcome?.is_some() {
                return Ok(Joined::Created(find_ticket(&conn.client, ladder.id, &queue, &id).await?.ok_or_else(|| ApiError::internal("a ticket vanished"))?));
            }
            let client_id = ticket.client_id.unwrap_or_default();
            let earlier: String =
                conn.client.query_one("SELECT id FROM tickets WHERE ladder_id = $1 AND queue = $2 AND client_id = $3", &[&ladder.id, &queue, &client_id]).await?.get(0);
            let record = find_ticket(&conn.client, ladder.id, &queue, &earlier).await?.ok_or_else(|| ApiError::internal("a ticket vanished"))?;
            if record.request != request {
                return Err(ApiError::conflict("ticket_id_reused", format!("this id was already used for ticket {earlier}, joined with another request; nothing was changed")));
            }
            Ok(Joined::Again(record))
        })
    }

    fn ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<TicketRecord>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            find_ticket(&conn.client, ladder.id, queue, id).await
        })
    }

    fn cancel_ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<TicketRecord>> {
        Box::pin(async move {
            in_transaction!(self, |c| {
                let row: Option<i64> = c
                    .query_opt(
                        "UPDATE tickets SET state = 'cancelled', updated = $4 WHERE id = $1 AND ladder_id = $2 AND queue = $3 AND state = 'waiting' RETURNING row_id",
                        &[&id, &ladder.id, &queue, &model::now()],
                    )
                    .await?
                    .map(|r| r.get(0));
                if let Some(row) = row {
                    c.execute("DELETE FROM waiting_players WHERE ticket_row = $1", &[&row]).await?;
                }
                find_ticket(c, ladder.id, queue, id).await
            })
        })
    }

    fn take_lease<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, holder: &'a str, seconds: f64) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let now = model::now();
            let held = conn
                .client
                .execute(
                    "UPDATE queues SET lease_holder = $3, lease_until = $4 WHERE ladder_id = $1 AND name = $2 AND (lease_holder = $3 OR lease_holder IS NULL OR lease_until < $5)",
                    &[&ladder.id, &queue, &holder, &(now + seconds), &now],
                )
                .await?;
            Ok(held == 1)
        })
    }

    fn waiting_tickets<'a>(&'a self, ladder: &'a Ladder, queue: &'a str) -> StoreFuture<'a, Vec<WaitingTicket>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query(
                    "SELECT row_id, id, players, rating, created, attributes FROM tickets WHERE ladder_id = $1 AND queue = $2 AND state = 'waiting' ORDER BY row_id",
                    &[&ladder.id, &queue],
                )
                .await?;
            rows.iter()
                .map(|r| {
                    #[allow(clippy::cast_possible_truncation)]
                    let rating = r.get::<_, f64>(3) as f32;
                    Ok(WaitingTicket {
                        row: r.get(0),
                        id: r.get(1),
                        players: serde_json::from_str(r.get::<_, &str>(2)).map_err(|e| ApiError::internal(format!("stored ticket players: {e}")))?,
                        rating,
                        created: r.get(4),
                        attributes: r.get(5),
                    })
                })
                .collect()
        })
    }

    fn queue_players<'a>(&'a self, ladder: &'a Ladder, names: &'a [String]) -> StoreFuture<'a, (Option<ZeroSum>, HashMap<String, PlayerRow>)> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // One snapshot for the numbers and the rows.
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").await?;
            let read = players_of(&conn.client, ladder, names).await;
            conn.client.batch_execute("COMMIT").await?;
            conn.in_transaction = false;
            read
        })
    }

    fn commit_tick<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, holder: &'a str, tick: TickCommit) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            in_transaction!(self, |c| {
                // The queue row, locked: the lease still this server's, and the match numbers.
                let Some(queue_row) =
                    c.query_opt("SELECT match_seq FROM queues WHERE ladder_id = $1 AND name = $2 AND lease_holder = $3 FOR UPDATE", &[&ladder.id, &queue, &holder]).await?
                else {
                    return Ok(Vec::new()); // another server took the lease: its tick decides
                };
                let mut seq: i64 = queue_row.get(0);
                let all: Vec<i64> = tick.matches.iter().flat_map(|(rows, _)| rows.iter().copied()).chain(tick.expired.iter().copied()).collect();
                let waiting: HashMap<i64, String> = c
                    .query("SELECT row_id, id FROM tickets WHERE row_id = ANY($1) AND state = 'waiting' ORDER BY row_id FOR UPDATE", &[&all])
                    .await?
                    .iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect();
                let now = model::now();
                let (mut matched_rows, mut matched_ids, mut changed) = (Vec::new(), Vec::new(), Vec::new());
                let (mut seqs, mut match_ids, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
                for (rows, mut body) in tick.matches {
                    // A ticket cancelled (or erased) since the tick read it drops the match; its
                    // other tickets wait on.
                    if !rows.iter().all(|row| waiting.contains_key(row)) {
                        continue;
                    }
                    seq += 1;
                    body.seq = seq;
                    bodies.push(serde_json::to_string(&body).map_err(|e| ApiError::internal(e.to_string()))?);
                    seqs.push(seq);
                    for row in &rows {
                        matched_rows.push(*row);
                        matched_ids.push(body.id.clone());
                        changed.push(waiting[row].clone());
                    }
                    match_ids.push(body.id);
                }
                let expired: Vec<i64> = tick.expired.into_iter().filter(|row| waiting.contains_key(row)).collect();
                changed.extend(expired.iter().map(|row| waiting[row].clone()));
                c.execute(
                    "INSERT INTO queue_matches (ladder_id, queue, seq, id, body, created) SELECT $1, $2, u.seq, u.id, u.body, $6 \
                     FROM unnest($3::bigint[], $4::text[], $5::text[]) AS u(seq, id, body)",
                    &[&ladder.id, &queue, &seqs, &match_ids, &bodies, &now],
                )
                .await?;
                c.execute(
                    "UPDATE tickets t SET state = 'matched', match_id = u.match_id, updated = $3 FROM unnest($1::bigint[], $2::text[]) AS u(row_id, match_id) WHERE t.row_id = u.row_id",
                    &[&matched_rows, &matched_ids, &now],
                )
                .await?;
                c.execute("UPDATE tickets SET state = 'expired', updated = $2 WHERE row_id = ANY($1)", &[&expired, &now]).await?;
                let done: Vec<i64> = matched_rows.iter().chain(&expired).copied().collect();
                c.execute("DELETE FROM waiting_players WHERE ticket_row = ANY($1)", &[&done]).await?;
                c.execute("UPDATE queues SET match_seq = $3 WHERE ladder_id = $1 AND name = $2", &[&ladder.id, &queue, &seq]).await?;
                Ok(changed)
            })
        })
    }

    fn queue_matches<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, after: i64, limit: i64) -> StoreFuture<'a, Vec<MatchBody>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn
                .client
                .query("SELECT body FROM queue_matches WHERE ladder_id = $1 AND queue = $2 AND seq > $3 ORDER BY seq LIMIT $4", &[&ladder.id, &queue, &after, &limit])
                .await?;
            rows.iter().map(|r| MatchBody::stored(r.get(0))).collect()
        })
    }

    fn queue_match<'a>(&'a self, ladder: &'a Ladder, id: &'a str) -> StoreFuture<'a, Option<MatchBody>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let row = conn.client.query_opt("SELECT body FROM queue_matches WHERE ladder_id = $1 AND id = $2", &[&ladder.id, &id]).await?;
            row.map(|r| MatchBody::stored(r.get(0))).transpose()
        })
    }

    fn ticket_changes(&self, since: f64) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT id FROM tickets WHERE updated >= $1 AND state <> 'waiting'", &[&since]).await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }
}

/// Cancels the waiting tickets of an erased player in the ladder and writes the pseudonym
/// for the name wherever a ticket or queue match names the player (read and rewritten as
/// JSON: a key, a queue or an attribute value spelled like the name stays), in the erasure's
/// transaction; a ticket naming the player loses its retry id (which the client may have
/// made from the name). Whether any ticket or match named the player.
pub(super) async fn erase_from_queues(c: &Client, ladder_id: i64, name: &str, pseudonym: &str) -> Result<bool, ApiError> {
    let rows: Vec<i64> = c.query("SELECT ticket_row FROM waiting_players WHERE ladder_id = $1 AND player = $2", &[&ladder_id, &name]).await?.iter().map(|r| r.get(0)).collect();
    c.execute("UPDATE tickets SET state = 'cancelled', updated = $2 WHERE row_id = ANY($1) AND state = 'waiting'", &[&rows, &model::now()]).await?;
    c.execute("DELETE FROM waiting_players WHERE ticket_row = ANY($1)", &[&rows]).await?;
    // (The quoted name narrows the rows read; the JSON decides what is renamed.)
    let quoted = format!("\"{name}\"");
    let mut named = false;
    for r in c.query("SELECT row_id, players, request FROM tickets WHERE ladder_id = $1 AND strpos(players, $2) > 0", &[&ladder_id, &quoted]).await? {
        let (players, request): (&str, &str) = (r.get(1), r.get(2));
        let (renamed_players, renamed_request) = crate::queue::rename_in_ticket(players, request, name, pseudonym)?;
        if renamed_players != players {
            named = true;
            c.execute("UPDATE tickets SET players = $2, request = $3, client_id = NULL WHERE row_id = $1", &[&r.get::<_, i64>(0), &renamed_players, &renamed_request]).await?;
        }
    }
    for r in c.query("SELECT seq, queue, body FROM queue_matches WHERE ladder_id = $1 AND strpos(body, $2) > 0", &[&ladder_id, &quoted]).await? {
        let body: &str = r.get(2);
        let renamed = crate::queue::rename_in_match(body, name, pseudonym)?;
        if renamed != body {
            named = true;
            c.execute("UPDATE queue_matches SET body = $4 WHERE ladder_id = $1 AND queue = $2 AND seq = $3", &[&ladder_id, &r.get::<_, String>(1), &r.get::<_, i64>(0), &renamed])
                .await?;
        }
    }
    Ok(named)
}
