//! SQLite: the queues resource (queues, tickets, the matches queues made). One server
//! serves a SQLite file, so its matcher always holds the lease; every change of a ticket
//! is a write in the writer's transaction, so a cancellation and a tick never interleave.

use super::*;
use crate::queue::{MatchBody, NewTicket, TicketRecord, TicketState, WaitingTicket};
use crate::store::{Joined, QueueListing, QueuePut, TickCommit};

/// The ticket columns [`ticket_record`] reads, with the match's body (joined).
const TICKET_COLUMNS: &str = "t.id, t.queue, t.players, t.attributes, t.state, t.created, t.updated, t.request, m.body";

/// A ticket row's values ([`TICKET_COLUMNS`]), before the JSON is read.
type TicketRow = (String, String, String, String, String, f64, f64, String, Option<String>);

/// A ticket row ([`TICKET_COLUMNS`]).
fn ticket_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<TicketRow> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
}

/// A ticket from its row's values.
fn to_record(row: TicketRow) -> Result<TicketRecord, ApiError> {
    let (id, queue, players, attributes, state, created, updated, request, matched) = row;
    Ok(TicketRecord {
        id,
        queue,
        players: serde_json::from_str(&players).map_err(|e| ApiError::internal(format!("stored ticket players: {e}")))?,
        attributes,
        state: TicketState::parse(&state)?,
        created,
        updated,
        request,
        matched,
    })
}

/// A ticket by public id, in one ladder's queue.
fn find_ticket(c: &Connection, ladder_id: i64, queue: &str, id: &str) -> Result<Option<TicketRecord>, ApiError> {
    let sql = format!(
        "SELECT {TICKET_COLUMNS} FROM tickets t LEFT JOIN queue_matches m ON m.ladder_id = t.ladder_id AND m.id = t.match_id WHERE t.id = ?1 AND t.ladder_id = ?2 AND t.queue = ?3"
    );
    c.prepare_cached(&sql)?.query_row(params![id, ladder_id, queue], ticket_record).optional()?.map(to_record).transpose()
}

/// The current ratings of `names` in the ladder (a player new to it: the rating it would
/// join with).
fn current_ratings(c: &Connection, ladder: &Ladder, names: &[String]) -> Result<Vec<f32>, ApiError> {
    let offset = stored_offset(c, ladder.id)?;
    let mut ratings = Vec::with_capacity(names.len());
    let mut zero_sum = zero_sum(c, ladder.id, ladder.zero_sum_total())?;
    for name in names {
        let stored: Option<f64> =
            c.prepare_cached("SELECT rating FROM players WHERE ladder_id = ?1 AND name = ?2")?.query_row(params![ladder.id, name], |r| r.get(0)).optional()?;
        #[allow(clippy::cast_possible_truncation)]
        ratings.push(match stored {
            Some(rating) => model::current(&PlayerState::new(rating as f32), offset).rating,
            // Where the player would join, among the others as they are now (in a zero-sum
            // ladder a join moves everyone: its stored rating with the offset before it).
            None => model::current(&model::joining_state(&ladder.rules, zero_sum.as_mut(), model::now()), offset).rating,
        });
    }
    Ok(ratings)
}

impl crate::store::QueuesStore for SqliteStore {
    fn put_queue<'a>(&'a self, ladder: &'a Ladder, name: &'a str, settings_json: &'a str) -> StoreFuture<'a, QueuePut> {
        let (ladder_id, name, settings_json) = (ladder.id, name.to_owned(), settings_json.to_owned());
        Box::pin(self.write(move |c| {
            let updated = c.execute("UPDATE queues SET settings = ?3 WHERE ladder_id = ?1 AND name = ?2", params![ladder_id, name, settings_json])?;
            if updated == 1 {
                return Ok(QueuePut::Replaced);
            }
            c.execute("INSERT INTO queues (ladder_id, name, settings, created_at) VALUES (?1, ?2, ?3, ?4)", params![ladder_id, name, settings_json, model::now()])?;
            Ok(QueuePut::Created)
        }))
    }

    fn queues<'a>(&'a self, ladder: &'a Ladder, only: Option<&'a str>) -> StoreFuture<'a, Vec<QueueListing>> {
        let (ladder_id, only) = (ladder.id, only.map(str::to_owned));
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached(
                "SELECT q.name, q.settings, \
                 (SELECT count(*) FROM tickets t WHERE t.ladder_id = q.ladder_id AND t.queue = q.name AND t.state = 'waiting'), \
                 (SELECT min(created) FROM tickets t WHERE t.ladder_id = q.ladder_id AND t.queue = q.name AND t.state = 'waiting'), q.match_seq \
                 FROM queues q WHERE q.ladder_id = ?1 AND (?2 IS NULL OR q.name = ?2) ORDER BY q.name",
            )?;
            let rows: Vec<(String, String, i64, Option<f64>, i64)> =
                statement.query_map(params![ladder_id, only], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?.collect::<Result<_, _>>()?;
            rows.into_iter()
                .map(|(name, settings, waiting, oldest_waiting, matches)| {
                    Ok(QueueListing { name, settings: crate::queue::QueueSettings::stored(&settings)?, waiting, oldest_waiting, matches })
                })
                .collect()
        }))
    }

    fn queue_settings<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, Option<crate::queue::QueueSettings>> {
        let (ladder_id, name) = (ladder.id, name.to_owned());
        Box::pin(self.read(move |c| {
            let stored: Option<String> =
                c.prepare_cached("SELECT settings FROM queues WHERE ladder_id = ?1 AND name = ?2")?.query_row(params![ladder_id, name], |r| r.get(0)).optional()?;
            stored.map(|text| crate::queue::QueueSettings::stored(&text)).transpose()
        }))
    }

    fn all_queues(&self) -> StoreFuture<'_, Vec<(String, String)>> {
        Box::pin(self.read(|c| {
            let mut statement = c.prepare_cached("SELECT l.name, q.name FROM queues q JOIN ladders l ON l.id = q.ladder_id ORDER BY l.name, q.name")?;
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn join_queue(&self, ladder: Arc<Ladder>, queue: String, ticket: NewTicket) -> StoreFuture<'_, Joined> {
        Box::pin(self.write_ladder(ladder.id, move |c| {
            let request = ticket.canonical();
            if let Some(client_id) = &ticket.client_id {
                let earlier: Option<String> = c
                    .prepare_cached("SELECT id FROM tickets WHERE ladder_id = ?1 AND queue = ?2 AND client_id = ?3")?
                    .query_row(params![ladder.id, queue, client_id], |r| r.get(0))
                    .optional()?;
                if let Some(earlier) = earlier {
                    let record = find_ticket(c, ladder.id, &queue, &earlier)?.ok_or_else(|| ApiError::internal("a ticket vanished"))?;
                    if record.request != request {
                        return Err(ApiError::conflict(
                            "ticket_id_reused",
                            format!("this id was already used for ticket {earlier}, joined with another request; nothing was changed"),
                        ));
                    }
                    return Ok(Joined::Again(record));
                }
            }
            for player in &ticket.players {
                let waiting: Option<String> = c
                    .prepare_cached("SELECT t.id FROM waiting_players w JOIN tickets t ON t.row_id = w.ticket_row WHERE w.ladder_id = ?1 AND w.queue = ?2 AND w.player = ?3")?
                    .query_row(params![ladder.id, queue, player], |r| r.get(0))
                    .optional()?;
                if let Some(waiting) = waiting {
                    return Err(ApiError::conflict("already_waiting", format!("player {player:?} already waits in queue {queue:?} with ticket {waiting}")));
                }
            }
            let rating = crate::queue::ticket_rating(&current_ratings(c, &ladder, &ticket.players)?);
            let id = crate::queue::random_id("t-")?;
            let now = model::now();
            let players = serde_json::to_string(&ticket.players).map_err(|e| ApiError::internal(e.to_string()))?;
            c.prepare_cached(
                "INSERT INTO tickets (id, ladder_id, queue, client_id, request, players, size, rating, attributes, state, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'waiting', ?10, ?10)",
            )?
            .execute(params![
                id,
                ladder.id,
                queue,
                ticket.client_id,
                request,
                players,
                i64::try_from(ticket.players.len()).unwrap_or(i64::MAX),
                f64::from(rating),
                ticket.attributes_json(),
                now
            ])?;
            let row = c.last_insert_rowid();
            for player in &ticket.players {
                c.prepare_cached("INSERT INTO waiting_players (ladder_id, queue, player, ticket_row) VALUES (?1, ?2, ?3, ?4)")?.execute(params![ladder.id, queue, player, row])?;
            }
            Ok(Joined::Created(find_ticket(c, ladder.id, &queue, &id)?.ok_or_else(|| ApiError::internal("a ticket vanished"))?))
        }))
    }

    fn ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<TicketRecord>> {
        let (ladder_id, queue, id) = (ladder.id, queue.to_owned(), id.to_owned());
        Box::pin(self.read(move |c| find_ticket(c, ladder_id, &queue, &id)))
    }

    fn cancel_ticket<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, id: &'a str) -> StoreFuture<'a, Option<TicketRecord>> {
        let (ladder_id, queue, id) = (ladder.id, queue.to_owned(), id.to_owned());
        Box::pin(self.write(move |c| {
            let row: Option<i64> = c
                .prepare_cached("UPDATE tickets SET state = 'cancelled', updated = ?4 WHERE id = ?1 AND ladder_id = ?2 AND queue = ?3 AND state = 'waiting' RETURNING row_id")?
                .query_row(params![id, ladder_id, queue, model::now()], |r| r.get(0))
                .optional()?;
            if let Some(row) = row {
                c.prepare_cached("DELETE FROM waiting_players WHERE ticket_row = ?1")?.execute([row])?;
            }
            find_ticket(c, ladder_id, &queue, &id)
        }))
    }

    fn take_lease<'a>(&'a self, _ladder: &'a Ladder, _queue: &'a str, _holder: &'a str, _seconds: f64) -> StoreFuture<'a, bool> {
        // One server serves the file (its serve lock): its matcher is the only one.
        Box::pin(async { Ok(true) })
    }

    fn waiting_tickets<'a>(&'a self, ladder: &'a Ladder, queue: &'a str) -> StoreFuture<'a, Vec<WaitingTicket>> {
        let (ladder_id, queue) = (ladder.id, queue.to_owned());
        Box::pin(self.read(move |c| {
            let mut statement =
                c.prepare_cached("SELECT row_id, id, players, rating, created, attributes FROM tickets WHERE ladder_id = ?1 AND queue = ?2 AND state = 'waiting' ORDER BY row_id")?;
            let rows = statement.query_map(params![ladder_id, queue], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, f64>(3)?, r.get::<_, f64>(4)?, r.get::<_, String>(5)?))
            })?;
            let mut tickets = Vec::new();
            for row in rows {
                let (row, id, players, rating, created, attributes) = row?;
                let players = serde_json::from_str(&players).map_err(|e| ApiError::internal(format!("stored ticket players: {e}")))?;
                #[allow(clippy::cast_possible_truncation)]
                tickets.push(WaitingTicket { row, id, players, rating: rating as f32, created, attributes });
            }
            Ok(tickets)
        }))
    }

    fn queue_players<'a>(&'a self, ladder: &'a Ladder, names: &'a [String]) -> StoreFuture<'a, (Option<ZeroSum>, HashMap<String, PlayerRow>)> {
        let (ladder_id, total, names) = (ladder.id, ladder.zero_sum_total(), names.to_vec());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let zero_sum = zero_sum(c, ladder_id, total)?;
            let select = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE ladder_id = ?1 AND name = ?2");
            let mut rows = HashMap::with_capacity(names.len());
            for name in names {
                let mut statement = c.prepare_cached(&select)?;
                let mut result = statement.query(params![ladder_id, name])?;
                if let Some(row) = result.next()? {
                    let row = player_row(row)?;
                    rows.insert(row.name.clone(), row);
                }
            }
            Ok((zero_sum, rows))
        }))
    }

    fn commit_tick<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, _holder: &'a str, tick: TickCommit) -> StoreFuture<'a, Vec<String>> {
        let (ladder_id, queue) = (ladder.id, queue.to_owned());
        Box::pin(self.write(move |c| {
            let now = model::now();
            let mut changed = Vec::new();
            let still_waiting = |row: i64| -> Result<Option<String>, ApiError> {
                Ok(c.prepare_cached("SELECT id FROM tickets WHERE row_id = ?1 AND state = 'waiting'")?.query_row([row], |r| r.get(0)).optional()?)
            };
            'matches: for (rows, mut body) in tick.matches {
                let mut ids = Vec::with_capacity(rows.len());
                for &row in &rows {
                    match still_waiting(row)? {
                        Some(id) => ids.push(id),
                        // Cancelled (or erased) since the tick read it: the match is dropped, its
                        // other tickets wait on.
                        None => continue 'matches,
                    }
                }
                let seq: i64 = c
                    .prepare_cached("UPDATE queues SET match_seq = match_seq + 1 WHERE ladder_id = ?1 AND name = ?2 RETURNING match_seq")?
                    .query_row(params![ladder_id, queue], |r| r.get(0))?;
                body.seq = seq;
                let text = serde_json::to_string(&body).map_err(|e| ApiError::internal(e.to_string()))?;
                c.prepare_cached("INSERT INTO queue_matches (ladder_id, queue, seq, id, body, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?
                    .execute(params![ladder_id, queue, seq, body.id, text, now])?;
                for &row in &rows {
                    c.prepare_cached("UPDATE tickets SET state = 'matched', match_id = ?2, updated = ?3 WHERE row_id = ?1")?.execute(params![row, body.id, now])?;
                    c.prepare_cached("DELETE FROM waiting_players WHERE ticket_row = ?1")?.execute([row])?;
                }
                changed.extend(ids);
            }
            for row in tick.expired {
                if let Some(id) = still_waiting(row)? {
                    c.prepare_cached("UPDATE tickets SET state = 'expired', updated = ?2 WHERE row_id = ?1")?.execute(params![row, now])?;
                    c.prepare_cached("DELETE FROM waiting_players WHERE ticket_row = ?1")?.execute([row])?;
                    changed.push(id);
                }
            }
            Ok(changed)
        }))
    }

    fn queue_matches<'a>(&'a self, ladder: &'a Ladder, queue: &'a str, after: i64, limit: i64) -> StoreFuture<'a, Vec<MatchBody>> {
        let (ladder_id, queue) = (ladder.id, queue.to_owned());
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached("SELECT body FROM queue_matches WHERE ladder_id = ?1 AND queue = ?2 AND seq > ?3 ORDER BY seq LIMIT ?4")?;
            let rows: Vec<String> = statement.query_map(params![ladder_id, queue, after, limit], |r| r.get(0))?.collect::<Result<_, _>>()?;
            rows.iter().map(|text| MatchBody::stored(text)).collect()
        }))
    }

    fn queue_match<'a>(&'a self, ladder: &'a Ladder, id: &'a str) -> StoreFuture<'a, Option<MatchBody>> {
        let (ladder_id, id) = (ladder.id, id.to_owned());
        Box::pin(self.read(move |c| {
            let body: Option<String> =
                c.prepare_cached("SELECT body FROM queue_matches WHERE ladder_id = ?1 AND id = ?2")?.query_row(params![ladder_id, id], |r| r.get(0)).optional()?;
            body.map(|text| MatchBody::stored(&text)).transpose()
        }))
    }

    fn ticket_changes(&self, since: f64) -> StoreFuture<'_, Vec<String>> {
        Box::pin(self.read(move |c| {
            let mut statement = c.prepare_cached("SELECT id FROM tickets WHERE updated >= ?1 AND state <> 'waiting'")?;
            let rows = statement.query_map([since], |r| r.get(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }
}

/// Cancels the waiting tickets of an erased player in the ladder and writes the pseudonym
/// for the name wherever a ticket or queue match names the player (read and rewritten as
/// JSON: a key, a queue or an attribute value spelled like the name stays), in the erasure's
/// transaction; a ticket naming the player loses its retry id (which the client may have
/// made from the name). Whether any ticket or match named the player.
pub(super) fn erase_from_queues(c: &Connection, ladder_id: i64, name: &str, pseudonym: &str) -> Result<bool, ApiError> {
    let now = model::now();
    let rows: Vec<i64> = c
        .prepare_cached("SELECT ticket_row FROM waiting_players WHERE ladder_id = ?1 AND player = ?2")?
        .query_map(params![ladder_id, name], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for row in rows {
        c.prepare_cached("UPDATE tickets SET state = 'cancelled', updated = ?2 WHERE row_id = ?1 AND state = 'waiting'")?.execute(params![row, now])?;
        c.prepare_cached("DELETE FROM waiting_players WHERE ticket_row = ?1")?.execute([row])?;
    }
    // (The quoted name narrows the rows read; the JSON decides what is renamed.)
    let quoted = format!("\"{name}\"");
    let tickets: Vec<(i64, String, String)> = c
        .prepare_cached("SELECT row_id, players, request FROM tickets WHERE ladder_id = ?1 AND instr(players, ?2) > 0")?
        .query_map(params![ladder_id, quoted], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut named = false;
    for (row, players, request) in tickets {
        let (renamed_players, renamed_request) = crate::queue::rename_in_ticket(&players, &request, name, pseudonym)?;
        if renamed_players != players {
            named = true;
            c.prepare_cached("UPDATE tickets SET players = ?2, request = ?3, client_id = NULL WHERE row_id = ?1")?.execute(params![row, renamed_players, renamed_request])?;
        }
    }
    let matches: Vec<(i64, String, String)> = c
        .prepare_cached("SELECT seq, queue, body FROM queue_matches WHERE ladder_id = ?1 AND instr(body, ?2) > 0")?
        .query_map(params![ladder_id, quoted], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    for (seq, queue, body) in matches {
        let renamed = crate::queue::rename_in_match(&body, name, pseudonym)?;
        if renamed != body {
            named = true;
            c.prepare_cached("UPDATE queue_matches SET body = ?4 WHERE ladder_id = ?1 AND queue = ?2 AND seq = ?3")?.execute(params![ladder_id, queue, seq, renamed])?;
        }
    }
    Ok(named)
}
