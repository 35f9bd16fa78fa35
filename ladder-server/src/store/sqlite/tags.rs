//! SQLite: the tags resource ([`crate::tags`]): players' tags and each tag's board.

use super::boards::{self, provisional_games, Board};
use super::*;
use crate::store::TagAround;
use crate::tags::{self, Tag, Tags};

impl crate::store::TagsStore for SqliteStore {
    fn tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str) -> StoreFuture<'a, Option<Tags>> {
        let (ladder_id, player) = (ladder.id, player.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let Some((id, _, _)) = find_player(c, ladder_id, &player)? else {
                return Ok(None);
            };
            Ok(Some(player_tags(c, id)?.into_iter().map(|(key, (value, _))| (key, value)).collect()))
        }))
    }

    fn set_tags<'a>(&'a self, ladder: &'a Ladder, player: &'a str, changes: &'a [(String, Option<String>)]) -> StoreFuture<'a, Option<Tags>> {
        let (ladder_id, player, changes) = (ladder.id, player.to_owned(), changes.to_vec());
        Box::pin(self.write_ladder(ladder_id, move |c| {
            let Some((id, rating, games)) = find_player(c, ladder_id, &player)? else {
                return Ok(None);
            };
            let current = player_tags(c, id)?;
            let after = tags::apply(current.iter().map(|(key, (value, _))| (key.clone(), value.clone())).collect(), &changes)?;
            // Off the tags the player leaves, then onto the new ones.
            for (key, (value, tag_id)) in &current {
                if after.get(key) != Some(value) {
                    c.prepare_cached("DELETE FROM tag_members WHERE tag_id = ?1 AND player_id = ?2")?.execute(params![tag_id, id])?;
                }
            }
            for (key, value) in &after {
                if current.get(key).map(|(v, _)| v) != Some(value) {
                    c.prepare_cached("INSERT INTO tags (ladder_id, key, value) VALUES (?1, ?2, ?3) ON CONFLICT (ladder_id, key, value) DO NOTHING")?
                        .execute(params![ladder_id, key, value])?;
                    let tag_id = tag_id(c, ladder_id, key, value)?.ok_or_else(|| ApiError::internal("a tag just written is missing"))?;
                    c.prepare_cached("INSERT INTO tag_members (tag_id, player_id, rating, games_played) VALUES (?1, ?2, ?3, ?4)")?.execute(params![tag_id, id, rating, games])?;
                }
            }
            Ok(Some(after))
        }))
    }

    fn tag_leaderboard<'a>(&'a self, ladder: &'a Ladder, tag: &'a Tag, limit: i64, offset: i64, mode: Provisional) -> StoreFuture<'a, Vec<BoardEntry>> {
        let (ladder_id, tag) = (ladder.id, tag.clone());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let Some(tag_id) = tag_id(c, ladder_id, &tag.key, &tag.value)? else {
                return Ok(Vec::new());
            };
            boards::page(c, Board { ladder: ladder_id, tag: Some(tag_id) }, limit, offset, mode)
        }))
    }

    fn tag_around<'a>(&'a self, ladder: &'a Ladder, tag: &'a Tag, player: &'a str, limit: i64, mode: Provisional) -> StoreFuture<'a, TagAround> {
        let (ladder_id, tag, player) = (ladder.id, tag.clone(), player.to_owned());
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let Some((id, _, _)) = find_player(c, ladder_id, &player)? else {
                return Ok(TagAround::UnknownPlayer);
            };
            let Some(tag_id) = tag_id(c, ladder_id, &tag.key, &tag.value)? else {
                return Ok(TagAround::NotTagged);
            };
            let member: Option<(f64, i64)> = c
                .prepare_cached("SELECT rating, games_played FROM tag_members WHERE tag_id = ?1 AND player_id = ?2")?
                .query_row(params![tag_id, id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((rating, games)) = member else {
                return Ok(TagAround::NotTagged);
            };
            if mode == Provisional::Excluded && games < provisional_games(c, ladder_id)? {
                return Ok(TagAround::Provisional(games));
            }
            Ok(TagAround::Lines(boards::around(c, Board { ladder: ladder_id, tag: Some(tag_id) }, id, rating, limit, mode)?))
        }))
    }

    fn tag_mismatches<'a>(&'a self, ladder: &'a Ladder) -> StoreFuture<'a, Vec<String>> {
        let ladder_id = ladder.id;
        Box::pin(self.read_ladder(ladder_id, move |c| {
            let mut found = Vec::new();
            let mut copies = c.prepare(
                "SELECT p.name, t.key, t.value, m.rating, p.rating, m.games_played, p.games_played FROM tag_members m \
                 JOIN players p ON p.id = m.player_id JOIN tags t ON t.id = m.tag_id \
                 WHERE t.ladder_id = ?1 AND (m.rating <> p.rating OR m.games_played <> p.games_played) LIMIT 10",
            )?;
            let rows = copies.query_map([ladder_id], |r| {
                Ok(format!(
                    "tag {}:{}: player {:?} is counted at rating {} with {} games, the player has {} and {}",
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(0)?,
                    r.get::<_, f64>(3)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, f64>(4)?,
                    r.get::<_, i64>(6)?
                ))
            })?;
            for row in rows {
                found.push(row?);
            }
            let mut counts = c.prepare(TAG_BUCKET_MISMATCHES)?;
            let rows = counts.query_map([ladder_id], |r| {
                Ok(format!(
                    "tag {}:{}: rank bucket {} (level {}) counts {} players, the tag has {} there",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?
                ))
            })?;
            for row in rows {
                found.push(row?);
            }
            found.truncate(10);
            Ok(found)
        }))
    }
}

/// The player's id, stored rating and games played.
fn find_player(c: &Connection, ladder_id: i64, name: &str) -> Result<Option<(i64, f64, i64)>, ApiError> {
    Ok(c.prepare_cached("SELECT id, rating, games_played FROM players WHERE ladder_id = ?1 AND name = ?2")?
        .query_row(params![ladder_id, name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?)
}

/// The player's tags: key to (value, tag id).
fn player_tags(c: &Connection, player_id: i64) -> Result<std::collections::BTreeMap<String, (String, i64)>, ApiError> {
    let mut statement = c.prepare_cached("SELECT t.key, t.value, t.id FROM tag_members m JOIN tags t ON t.id = m.tag_id WHERE m.player_id = ?1")?;
    let rows = statement.query_map([player_id], |r| Ok((r.get::<_, String>(0)?, (r.get::<_, String>(1)?, r.get::<_, i64>(2)?))))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The tag's id, when some player has ever held it.
fn tag_id(c: &Connection, ladder_id: i64, key: &str, value: &str) -> Result<Option<i64>, ApiError> {
    Ok(c.prepare_cached("SELECT id FROM tags WHERE ladder_id = ?1 AND key = ?2 AND value = ?3")?.query_row(params![ladder_id, key, value], |r| r.get(0)).optional()?)
}
