//! SQLite: the webhooks resource ([`crate::webhooks`]). One server serves a SQLite file, so
//! its deliverer always holds the leases (they are kept anyway, as on PostgreSQL); a
//! delivery holds the ladder's names lock shared from reading its entry until it is sent,
//! and an erasure holds it exclusively.

use super::matches::journal_row;
use super::*;
use crate::store::{journal_entry, NamesHeld, NextDelivery, ReleaseNames, JOURNAL_COLUMNS};
use crate::webhooks::{Attempt, Start, Webhook, WebhookPut};

/// The columns [`webhook_row`] reads (`w` the subscription, `l` its ladder).
/// The newest entry a delivery may send is the ladder's chain head (every entry up to it is
/// committed and chained).
const WEBHOOK_COLUMNS: &str = "w.id, w.ladder_id, l.name, w.name, w.url, w.kinds, w.secret, w.paused, w.created_at, w.delivered_through, \
     coalesce((SELECT c.last_seq FROM chains c WHERE c.ladder_id = w.ladder_id), 0), \
     w.delivered, w.attempts, w.failing_since, w.last_error, w.last_attempt, w.next_attempt, w.revision";

/// A subscription's row ([`WEBHOOK_COLUMNS`]) and its stored kinds, read after.
fn webhook_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Webhook, String)> {
    let webhook = Webhook {
        id: r.get(0)?,
        ladder_id: r.get(1)?,
        ladder: r.get(2)?,
        name: r.get(3)?,
        url: r.get(4)?,
        kinds: Vec::new(),
        secret: r.get(6)?,
        paused: r.get(7)?,
        created: r.get(8)?,
        delivered_through: r.get(9)?,
        last_seq: r.get(10)?,
        delivered: r.get(11)?,
        attempts: r.get(12)?,
        failing_since: r.get(13)?,
        last_error: r.get(14)?,
        last_attempt: r.get(15)?,
        next_attempt: r.get(16)?,
        revision: r.get(17)?,
    };
    Ok((webhook, r.get(5)?))
}

/// The subscriptions matching `filter` (a condition on `w`, with `?1`), by ladder and name.
fn select(c: &Connection, filter: &str, value: i64) -> Result<Vec<Webhook>, ApiError> {
    let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks w JOIN ladders l ON l.id = w.ladder_id WHERE {filter} ORDER BY l.name, w.name");
    let rows: Vec<(Webhook, String)> = c.prepare_cached(&sql)?.query_map(params![value], webhook_row)?.collect::<Result<_, _>>()?;
    rows.into_iter().map(|(webhook, kinds)| Ok(Webhook { kinds: Webhook::kinds_from(&kinds)?, ..webhook })).collect()
}

/// The ladder's names held shared (released by dropping the guard).
struct Held(#[allow(dead_code)] tokio::sync::OwnedRwLockReadGuard<()>);

impl<'a> ReleaseNames<'a> for Held {
    fn release(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        drop(self);
        Box::pin(async {})
    }
}

impl crate::store::WebhooksStore for SqliteStore {
    fn put_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str, put: &'a WebhookPut, new_secret: &'a str) -> StoreFuture<'a, (bool, Webhook)> {
        let (ladder_id, name, put, new_secret) = (ladder.id, name.to_owned(), put.clone(), new_secret.to_owned());
        Box::pin(self.write(move |c| {
            let existing: Option<i64> =
                c.prepare_cached("SELECT id FROM webhooks WHERE ladder_id = ?1 AND name = ?2")?.query_row(params![ladder_id, name], |r| r.get(0)).optional()?;
            let (created, id) = match existing {
                Some(id) => {
                    c.prepare_cached(
                        "UPDATE webhooks SET url = ?2, kinds = ?3, paused = ?4, secret = coalesce(?5, secret), next_attempt = 0, revision = revision + 1 WHERE id = ?1",
                    )?
                    .execute(params![id, put.url, put.kinds_json(), put.paused, put.secret])?;
                    (false, id)
                }
                None => {
                    let count: i64 = c.prepare_cached("SELECT count(*) FROM webhooks WHERE ladder_id = ?1")?.query_row(params![ladder_id], |r| r.get(0))?;
                    if count >= crate::webhooks::MAX_PER_LADDER {
                        return Err(crate::webhooks::too_many(count));
                    }
                    let start = match put.from {
                        Start::After(seq) => seq,
                        Start::Now => c.prepare_cached("SELECT coalesce(max(seq), 0) FROM journal WHERE ladder_id = ?1")?.query_row(params![ladder_id], |r| r.get(0))?,
                    };
                    c.prepare_cached("INSERT INTO webhooks (ladder_id, name, url, kinds, secret, paused, created_at, delivered_through) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?
                        .execute(params![ladder_id, name, put.url, put.kinds_json(), put.secret.as_deref().unwrap_or(&new_secret), put.paused, model::now(), start])?;
                    (true, c.last_insert_rowid())
                }
            };
            let webhook = select(c, "w.id = ?1", id)?.pop().ok_or_else(|| ApiError::internal("a webhook just written is missing"))?;
            Ok((created, webhook))
        }))
    }

    fn webhooks<'a>(&'a self, ladder: Option<&'a Ladder>) -> StoreFuture<'a, Vec<Webhook>> {
        let ladder_id = ladder.map(|l| l.id);
        Box::pin(self.read(move |c| match ladder_id {
            Some(id) => select(c, "w.ladder_id = ?1", id),
            None => select(c, "?1 = 0", 0),
        }))
    }

    fn delete_webhook<'a>(&'a self, ladder: &'a Ladder, name: &'a str) -> StoreFuture<'a, bool> {
        let (ladder_id, name) = (ladder.id, name.to_owned());
        Box::pin(self.write(move |c| Ok(c.prepare_cached("DELETE FROM webhooks WHERE ladder_id = ?1 AND name = ?2")?.execute(params![ladder_id, name])? == 1)))
    }

    fn take_webhook_lease<'a>(&'a self, webhook: i64, holder: &'a str, seconds: f64) -> StoreFuture<'a, Option<Webhook>> {
        let holder = holder.to_owned();
        Box::pin(self.write(move |c| {
            let now = model::now();
            let taken = c
                .prepare_cached("UPDATE webhooks SET lease_holder = ?2, lease_until = ?3 WHERE id = ?1 AND (lease_holder = ?2 OR lease_holder IS NULL OR lease_until < ?4)")?
                .execute(params![webhook, holder, now + seconds, now])?;
            if taken == 0 {
                return Ok(None);
            }
            Ok(select(c, "w.id = ?1", webhook)?.pop())
        }))
    }

    fn next_delivery<'a>(&'a self, webhook: &'a Webhook, _holder: &'a str, _send_seconds: f64) -> StoreFuture<'a, NextDelivery<'a>> {
        // One server serves the file: its leases are its own (taken again at its start).
        let (ladder_id, after, kinds) = (webhook.ladder_id, webhook.delivered_through, serde_json::Value::from(webhook.kinds.clone()).to_string());
        let every_kind = webhook.kinds.is_empty();
        Box::pin(async move {
            let held = self.names(ladder_id)?.read_owned().await;
            let found = self
                .read(move |c| {
                    // The chain head first: the entry sought is at or below it.
                    let newest: i64 = c.prepare_cached("SELECT coalesce((SELECT last_seq FROM chains WHERE ladder_id = ?1), 0)")?.query_row(params![ladder_id], |r| r.get(0))?;
                    let sql = format!(
                        "SELECT {JOURNAL_COLUMNS} FROM journal WHERE ladder_id = ?1 AND seq > ?2 AND seq <= ?3 \
                         AND (?4 OR kind IN (SELECT value FROM json_each(?5))) ORDER BY seq LIMIT 1"
                    );
                    if let Some(row) = c.prepare_cached(&sql)?.query_row(params![ladder_id, after, newest, every_kind, kinds], journal_row).optional()? {
                        return Ok(Some(Ok(journal_entry(row)?)));
                    }
                    Ok((newest > after).then_some(Err(newest)))
                })
                .await?;
            Ok(match found {
                Some(Ok(entry)) => NextDelivery::Entry(Box::new(entry), NamesHeld::new(Held(held))),
                Some(Err(newest)) => NextDelivery::Skip(newest),
                None => NextDelivery::Nothing,
            })
        })
    }

    fn record_attempt<'a>(&'a self, webhook: i64, holder: &'a str, attempt: &'a Attempt) -> StoreFuture<'a, bool> {
        let (holder, attempt) = (holder.to_owned(), attempt.clone());
        Box::pin(self.write(move |c| {
            let now = model::now();
            let changed = match attempt {
                Attempt::Delivered(seq) => c
                    .prepare_cached(
                        "UPDATE webhooks SET delivered_through = ?3, delivered = delivered + 1, attempts = 0, next_attempt = 0, failing_since = NULL, \
                         last_attempt = ?4 WHERE id = ?1 AND lease_holder = ?2 AND delivered_through < ?3",
                    )?
                    .execute(params![webhook, holder, seq, now])?,
                Attempt::Skipped(seq) => c
                    .prepare_cached(
                        "UPDATE webhooks SET delivered_through = ?3, attempts = 0, next_attempt = 0, failing_since = NULL \
                         WHERE id = ?1 AND lease_holder = ?2 AND delivered_through < ?3",
                    )?
                    .execute(params![webhook, holder, seq])?,
                Attempt::Failed { error, retry_at, revision } => c
                    .prepare_cached(
                        "UPDATE webhooks SET attempts = attempts + 1, failing_since = coalesce(failing_since, ?3), last_error = ?4, last_attempt = ?3, next_attempt = ?5 \
                         WHERE id = ?1 AND lease_holder = ?2 AND revision = ?6",
                    )?
                    .execute(params![webhook, holder, now, error, retry_at, revision])?,
            };
            Ok(changed == 1)
        }))
    }
}
