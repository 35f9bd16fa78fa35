//! PostgreSQL: API keys, and each key's request budget shared by every server.

use super::*;

impl crate::store::KeysStore for PgStore {
    fn key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<KeyRecord>> {
        Box::pin(async move {
            let mut conn = self.pool().get().await?;
            let statement = conn.prepare("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = $1").await?;
            let row = conn.client.query_opt(&statement, &[&id]).await?;
            Ok(row.and_then(|row| {
                let hash: Vec<u8> = row.get("hash");
                Some(KeyRecord { hash: hash.try_into().ok()?, scope: row.get("scope"), ladder: row.get("ladder"), revoked: row.get::<_, Option<f64>>("revoked_at").is_some() })
            }))
        })
    }

    fn create_key<'a>(&'a self, id: &'a str, hash: &'a [u8; 32], scope: &'a str, ladder: Option<&'a str>) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            conn.client
                .execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES ($1, $2, $3, $4, $5)", &[&id, &hash.as_slice(), &scope, &ladder, &model::now()])
                .await?;
            Ok(())
        })
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            Ok(conn.client.execute("UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL", &[&id, &model::now()]).await? > 0)
        })
    }

    fn list_keys(&self) -> StoreFuture<'_, Vec<KeyListing>> {
        Box::pin(async move {
            let conn = self.pool().get().await?;
            let rows = conn.client.query("SELECT id, scope, ladder, created_at, revoked_at FROM api_keys ORDER BY created_at, id", &[]).await?;
            Ok(rows
                .iter()
                .map(|r| KeyListing { id: r.get("id"), scope: r.get("scope"), ladder: r.get("ladder"), created: r.get("created_at"), revoked: r.get("revoked_at") })
                .collect())
        })
    }

    fn lease_tokens<'a>(&'a self, key: &'a str, rate: f64, burst: f64, want: u32) -> Option<StoreFuture<'a, u32>> {
        Some(Box::pin(async move {
            let mut conn = self.pool().get().await?;
            // One statement: refill the key's shared bucket to now (the database's clock,
            // so servers' clocks do not matter), take up to `want` whole tokens.
            let statement = conn
                .prepare(
                    "INSERT INTO rate_buckets AS b (key_id, tokens, at, granted) \
                     VALUES ($1, $2 - least($3, floor($2)), extract(epoch from now()), least($3, floor($2))) \
                     ON CONFLICT (key_id) DO UPDATE SET \
                     granted = least($3, floor(least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4))), \
                     tokens = least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4) \
                              - least($3, floor(least($2, b.tokens + greatest(0, extract(epoch from now()) - b.at) * $4))), \
                     at = greatest(b.at, extract(epoch from now())) \
                     RETURNING granted",
                )
                .await?;
            let row = conn.client.query_one(&statement, &[&key, &burst, &f64::from(want), &rate]).await?;
            let granted: f64 = row.get(0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Ok(granted.max(0.0) as u32)
        }))
    }
}
