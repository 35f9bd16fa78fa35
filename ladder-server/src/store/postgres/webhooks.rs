//! PostgreSQL: the webhooks resource ([`crate::webhooks`]). Several servers share the
//! subscriptions: each is delivered by the server holding its lease, and the cursor moves
//! only under that lease. A delivery holds the ladder's names lock (an advisory lock of
//! class [`NAMES_LOCK_CLASS`]) shared, in a transaction open from reading its entry until
//! it is sent; an erasure takes it exclusively first, so it waits for the sends under way
//! and the deliveries after it read the renamed entries.

use super::matches::journal_row;
use super::*;
use crate::store::{journal_entry, NamesHeld, NextDelivery, ReleaseNames, JOURNAL_COLUMNS};
use crate::webhooks::{Attempt, Start, Webhook, WebhookPut};

/// The advisory lock class of the ladders' names locks (the object is the ladder's id).
pub(super) const NAMES_LOCK_CLASS: i32 = 0x454C_4F01; // "ELO\1"

/// The columns [`webhook`] reads (`w` the subscription, `l` its ladder). The newest entry a
/// delivery may send is the ladder's chain head: the chainer hashes entries in `seq` order
/// once every lower `seq` has committed.
const WEBHOOK_COLUMNS: &str = "w.id, w.ladder_id, l.name, w.name, w.url, w.kinds, w.secret, w.paused, w.created_at, w.delivered_through, \
     coalesce((SELECT c.last_seq FROM chains c WHERE c.ladder_id = w.ladder_id), 0), \
     w.delivered, w.attempts, w.failing_since, w.last_error, w.last_attempt, w.next_attempt, w.revision";

/// The database's clock in Unix seconds (leases are compared by one clock).
const DB_NOW: &str = "extract(epoch FROM clock_timestamp())::float8";

fn webhook(r: &tokio_postgres::Row) -> Result<Webhook, ApiError> {
    Ok(Webhook {
        id: r.get(0),
        ladder_id: r.get(1),
        ladder: r.get(2),
        name: r.get(3),
        url: r.get(4),
        kinds: Webhook::kinds_from(r.get(5))?,
        secret: r.get(6),
        paused: r.get(7),
        created: r.get(8),
        delivered_through: r.get(9),
        last_seq: r.get(10),
        delivered: r.get(11),
        attempts: r.get(12),
        failing_since: r.get(13),
        last_error: r.get(14),
        last_attempt: r.get(15),
        next_attempt: r.get(16),
        revision: r.get(17),
    })
}

/// The subscriptions matching `filter` (a condition on `w`, with `$1`), by ladder and name.
async fn select(c: &Client, filter: &str, value: i64) -> Result<Vec<Webhook>, ApiError> {
    let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks w JOIN ladders l ON l.id = w.ladder_id WHERE {filter} ORDER BY l.name, w.name");
    c.query(&sql, &[&value]).await?.iter().map(webhook).collect()
}

/// A connection in a transaction holding a ladder's names lock shared.
struct Held<'a>(Pooled<'a>);

impl<'a> ReleaseNames<'a> for Held<'a> {
    fn release(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        let mut conn = self.0;
        Box::pin(async move { conn.rollback().await })
    }
}

impl crate::store::WebhooksStore for PgStore {
    fn put_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str, put: &'a WebhookPut, new_secret: &'a str) -> StoreFuture<'a, (bool, Webhook)> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN").await?;
            let result = async {
                let c = &conn.client;
                // The ladder's row, locked: two creations of one ladder count in turn.
                c.execute("SELECT 1 FROM ladders WHERE id = $1 FOR UPDATE", &[&ladder.id]).await?;
                let kinds = put.kinds_json();
                let updated = c
                    .query_opt(
                        "UPDATE webhooks SET url = $3, kinds = $4, paused = $5, secret = coalesce($6, secret), next_attempt = 0, revision = revision + 1 \
                         WHERE ladder_id = $1 AND name = $2 RETURNING id",
                        &[&ladder.id, &name, &put.url, &kinds, &put.paused, &put.secret],
                    )
                    .await?;
                let (created, id) = match updated {
                    Some(row) => (false, row.get::<_, i64>(0)),
                    None => {
                        let count: i64 = c.query_one("SELECT count(*) FROM webhooks WHERE ladder_id = $1", &[&ladder.id]).await?.get(0);
                        if count >= crate::webhooks::MAX_PER_LADDER {
                            return Err(crate::webhooks::too_many(count));
                        }
                        let start: i64 = match put.from {
                            Start::After(seq) => seq,
                            Start::Now => c.query_one("SELECT coalesce(max(seq), 0) FROM journal WHERE ladder_id = $1", &[&ladder.id]).await?.get(0),
                        };
                        let secret = put.secret.as_deref().unwrap_or(new_secret);
                        let row = c
                            .query_one(
                                "INSERT INTO webhooks (ladder_id, name, url, kinds, secret, paused, created_at, delivered_through) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                                &[&ladder.id, &name, &put.url, &kinds, &secret, &put.paused, &model::now(), &start],
                            )
                            .await?;
                        (true, row.get(0))
                    }
                };
                let webhook = select(c, "w.id = $1", id).await?.pop().ok_or_else(|| ApiError::internal("a webhook just written is missing"))?;
                Ok((created, webhook))
            }
            .await;
            match result {
                Ok(done) => {
                    conn.client.batch_execute("COMMIT").await?;
                    conn.in_transaction = false;
                    Ok(done)
                }
                Err(error) => {
                    conn.rollback().await;
                    Err(error)
                }
            }
        })
    }

    fn webhooks<'a>(&'a self, ladder: Option<&'a Ladder>) -> StoreFuture<'a, Vec<Webhook>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            match ladder {
                Some(ladder) => select(&conn.client, "w.ladder_id = $1", ladder.id).await,
                None => select(&conn.client, "$1::bigint = 0", 0).await,
            }
        })
    }

    fn delete_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            Ok(conn.client.execute("DELETE FROM webhooks WHERE ladder_id = $1 AND name = $2", &[&ladder.id, &name]).await? == 1)
        })
    }

    fn take_webhook_lease<'a>(&'a self, webhook: i64, holder: &'a str, seconds: f64) -> StoreFuture<'a, Option<Webhook>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let sql = format!(
                "UPDATE webhooks SET lease_holder = $2, lease_until = {DB_NOW} + $3 WHERE id = $1 AND (lease_holder = $2 OR lease_holder IS NULL OR lease_until < {DB_NOW})"
            );
            let taken = conn.client.execute(&sql, &[&webhook, &holder, &seconds]).await?;
            if taken == 0 {
                return Ok(None);
            }
            Ok(select(&conn.client, "w.id = $1", webhook).await?.pop())
        })
    }

    fn next_delivery<'a>(&'a self, webhook: &'a Webhook, holder: &'a str, send_seconds: f64) -> StoreFuture<'a, NextDelivery<'a>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let ladder_key = i32::try_from(webhook.ladder_id).unwrap_or(i32::MAX);
            conn.in_transaction = true;
            conn.client.batch_execute("BEGIN").await?;
            // Read committed: each statement after the lock sees every erasure committed
            // before it was granted. An erasure holding the names (waiting itself for a long
            // season end, say) makes this delivery give way rather than hold its connection.
            let found = async {
                let c = &conn.client;
                #[allow(clippy::cast_possible_truncation)]
                let wait_ms = (send_seconds * 1000.0).round() as i64;
                c.batch_execute(&format!("SET LOCAL lock_timeout = {wait_ms}")).await?;
                match c.execute("SELECT pg_advisory_xact_lock_shared($1, $2)", &[&NAMES_LOCK_CLASS, &ladder_key]).await {
                    Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => return Ok(None),
                    other => other?,
                };
                c.batch_execute("SET LOCAL lock_timeout = 0").await?;
                // The lease must outlast the send: the waits above may have eaten it, and
                // another server may hold it by now.
                let left: Option<f64> =
                    c.query_opt(&format!("SELECT lease_until - {DB_NOW} FROM webhooks WHERE id = $1 AND lease_holder = $2"), &[&webhook.id, &holder]).await?.map(|r| r.get(0));
                if left.is_none_or(|left| left < send_seconds + 1.0) {
                    return Ok(None);
                }
                // The chain head first, then the entry at or below it: every statement sees
                // a later snapshot, and an entry chained between the two must not be skipped.
                let newest: i64 = c.query_one("SELECT coalesce((SELECT last_seq FROM chains WHERE ladder_id = $1), 0)", &[&webhook.ladder_id]).await?.get(0);
                let sql = format!(
                    "SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = $1 AND seq > $2 AND seq <= $3 \
                     AND ($4 OR kind = ANY($5::text[])) ORDER BY seq LIMIT 1"
                );
                let every_kind = webhook.kinds.is_empty();
                if let Some(row) = c.query_opt(&sql, &[&webhook.ladder_id, &webhook.delivered_through, &newest, &every_kind, &webhook.kinds]).await? {
                    return Ok(Some(Ok(journal_entry(journal_row(&row))?)));
                }
                Ok::<_, ApiError>((newest > webhook.delivered_through).then_some(Err(newest)))
            }
            .await;
            match found {
                Ok(Some(Ok(entry))) => Ok(NextDelivery::Entry(Box::new(entry), NamesHeld::new(Held(conn)))),
                other => {
                    conn.rollback().await;
                    Ok(match other? {
                        Some(Err(newest)) => NextDelivery::Skip(newest),
                        _ => NextDelivery::Nothing,
                    })
                }
            }
        })
    }

    fn record_attempt<'a>(&'a self, webhook: i64, holder: &'a str, attempt: &'a Attempt) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let c = &conn.client;
            let now = model::now();
            let changed = match attempt {
                Attempt::Delivered(seq) => {
                    c.execute(
                        "UPDATE webhooks SET delivered_through = $3, delivered = delivered + 1, attempts = 0, next_attempt = 0, failing_since = NULL, \
                         last_attempt = $4 WHERE id = $1 AND lease_holder = $2 AND delivered_through < $3",
                        &[&webhook, &holder, seq, &now],
                    )
                    .await?
                }
                Attempt::Skipped(seq) => {
                    c.execute(
                        "UPDATE webhooks SET delivered_through = $3, attempts = 0, next_attempt = 0, failing_since = NULL \
                         WHERE id = $1 AND lease_holder = $2 AND delivered_through < $3",
                        &[&webhook, &holder, seq],
                    )
                    .await?
                }
                Attempt::Failed { error, retry_at, revision } => {
                    c.execute(
                        "UPDATE webhooks SET attempts = attempts + 1, failing_since = coalesce(failing_since, $3), last_error = $4, last_attempt = $3, next_attempt = $5 \
                         WHERE id = $1 AND lease_holder = $2 AND revision = $6",
                        &[&webhook, &holder, &now, error, retry_at, revision],
                    )
                    .await?
                }
            };
            Ok(changed == 1)
        })
    }
}
