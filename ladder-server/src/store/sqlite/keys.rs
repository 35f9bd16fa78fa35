//! SQLite: API keys (SQLite keeps no shared request budget: one server serves the file).

use super::*;

impl crate::store::KeysStore for SqliteStore {
    fn key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<KeyRecord>> {
        let id = id.to_owned();
        Box::pin(self.read(move |c| {
            let row = c
                .prepare_cached("SELECT hash, scope, ladder, revoked_at FROM api_keys WHERE id = ?1")?
                .query_row([&id], |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?, r.get::<_, Option<f64>>(3)?)))
                .optional()?;
            Ok(row.and_then(|(hash, scope, ladder, revoked)| Some(KeyRecord { hash: hash.try_into().ok()?, scope, ladder, revoked: revoked.is_some() })))
        }))
    }

    fn create_key<'a>(&'a self, id: &'a str, hash: &'a [u8; 32], scope: &'a str, ladder: Option<&'a str>) -> StoreFuture<'a, ()> {
        let (id, hash, scope, ladder) = (id.to_owned(), hash.to_vec(), scope.to_owned(), ladder.map(str::to_owned));
        Box::pin(self.write(move |c| {
            c.execute("INSERT INTO api_keys (id, hash, scope, ladder, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", params![id, hash, scope, ladder, model::now()])?;
            Ok(())
        }))
    }

    fn revoke_key<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let id = id.to_owned();
        Box::pin(self.write(move |c| Ok(c.execute("UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", params![id, model::now()])? > 0)))
    }

    fn list_keys(&self) -> StoreFuture<'_, Vec<KeyListing>> {
        Box::pin(self.read(|c| {
            let mut statement = c.prepare("SELECT id, scope, ladder, created_at, revoked_at FROM api_keys ORDER BY created_at, id")?;
            let rows = statement.query_map([], |r| Ok(KeyListing { id: r.get(0)?, scope: r.get(1)?, ladder: r.get(2)?, created: r.get(3)?, revoked: r.get(4)? }))?;
            Ok(rows.collect::<Result<_, _>>()?)
        }))
    }

    fn lease_tokens<'a>(&'a self, _key: &'a str, _rate: f64, _burst: f64, _want: u32) -> Option<StoreFuture<'a, u32>> {
        None
    }
}
