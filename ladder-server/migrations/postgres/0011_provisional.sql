-- Provisional players (docs/ladder-server.md, "Provisional players"): a ladder's option
-- provisional_games, kept here for the rank triggers; a player with fewer games is
-- provisional. The rank buckets gain two levels counting the provisional players alone:
-- level 2, quarter points, and level 3, sixteen points (as levels 0 and 1 count every
-- player), so a rank or a page of the board without them is the counts of levels 0 and 1
-- minus those of 2 and 3. Batches that count their buckets themselves (elo.rank_bulk) count
-- these levels too.
ALTER TABLE ladders ADD COLUMN provisional_games BIGINT NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION rank_buckets_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('elo.rank_bulk', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, 1 AS delta FROM new_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, 1 FROM new_rows
            UNION ALL SELECT n.ladder_id, 2, floor(n.rating::float8 * 4)::bigint, 1 FROM new_rows n JOIN ladders l ON l.id = n.ladder_id WHERE n.games_played < l.provisional_games
            UNION ALL SELECT n.ladder_id, 3, floor(n.rating::float8 / 16)::bigint, 1 FROM new_rows n JOIN ladders l ON l.id = n.ladder_id WHERE n.games_played < l.provisional_games
        ) d GROUP BY ladder_id, level, bucket ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, 1 AS delta FROM new_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, 1 FROM new_rows
            UNION ALL SELECT ladder_id, 0, floor(rating::float8 * 4)::bigint, -1 FROM old_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, -1 FROM old_rows
            UNION ALL SELECT n.ladder_id, 2, floor(n.rating::float8 * 4)::bigint, 1 FROM new_rows n JOIN ladders l ON l.id = n.ladder_id WHERE n.games_played < l.provisional_games
            UNION ALL SELECT n.ladder_id, 3, floor(n.rating::float8 / 16)::bigint, 1 FROM new_rows n JOIN ladders l ON l.id = n.ladder_id WHERE n.games_played < l.provisional_games
            UNION ALL SELECT o.ladder_id, 2, floor(o.rating::float8 * 4)::bigint, -1 FROM old_rows o JOIN ladders l ON l.id = o.ladder_id WHERE o.games_played < l.provisional_games
            UNION ALL SELECT o.ladder_id, 3, floor(o.rating::float8 / 16)::bigint, -1 FROM old_rows o JOIN ladders l ON l.id = o.ladder_id WHERE o.games_played < l.provisional_games
        ) d GROUP BY ladder_id, level, bucket HAVING sum(delta) <> 0 ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSE
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, -1 AS delta FROM old_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, -1 FROM old_rows
            UNION ALL SELECT o.ladder_id, 2, floor(o.rating::float8 * 4)::bigint, -1 FROM old_rows o JOIN ladders l ON l.id = o.ladder_id WHERE o.games_played < l.provisional_games
            UNION ALL SELECT o.ladder_id, 3, floor(o.rating::float8 / 16)::bigint, -1 FROM old_rows o JOIN ladders l ON l.id = o.ladder_id WHERE o.games_played < l.provisional_games
        ) d GROUP BY ladder_id, level, bucket ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    END IF;
    RETURN NULL;
END
$$;

-- The board's index holds games_played too, so that a count or a page of the board without
-- the provisional players reads the index alone.
CREATE INDEX players_board ON players (ladder_id, rating DESC, id) INCLUDE (games_played);
DROP INDEX players_leaderboard;
