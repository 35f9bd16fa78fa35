-- Exact ranks at any depth (docs/ladder-server.md, "Ranks"): how many players of each ladder
-- have a stored rating in each bucket, at two widths: level 0, a quarter of a point
-- (bucket = floor(rating * 4)), and level 1, sixteen points (bucket = floor(rating / 16)).
-- A rank is the players of the coarse buckets above, of the fine buckets above within the
-- coarse one, and an index count within one fine bucket.
--
-- Statement triggers with transition tables keep the counts: one grouped upsert per
-- statement, its rows in key order. Each bucket is split in four shards, by the writing
-- backend's pid, so concurrent transactions (two committers, several servers) rarely touch
-- the same row; a count of one shard may go below zero, the sum of a bucket's shards is
-- exact. A season end, decay or rebuild sets elo.rank_bulk and recounts its ladder once.
CREATE TABLE rank_buckets (
    ladder_id BIGINT   NOT NULL,
    level     SMALLINT NOT NULL,  -- 0: quarter points, 1: sixteen points
    bucket    BIGINT   NOT NULL,
    shard     SMALLINT NOT NULL,
    count     BIGINT   NOT NULL,
    PRIMARY KEY (ladder_id, level, bucket, shard)
);

CREATE FUNCTION rank_buckets_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('elo.rank_bulk', true), '') = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, 1 AS delta FROM new_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, 1 FROM new_rows
        ) d GROUP BY ladder_id, level, bucket ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, 1 AS delta FROM new_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, 1 FROM new_rows
            UNION ALL SELECT ladder_id, 0, floor(rating::float8 * 4)::bigint, -1 FROM old_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, -1 FROM old_rows
        ) d GROUP BY ladder_id, level, bucket HAVING sum(delta) <> 0 ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSE
        INSERT INTO rank_buckets AS r (ladder_id, level, bucket, shard, count)
        SELECT ladder_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT ladder_id, 0 AS level, floor(rating::float8 * 4)::bigint AS bucket, -1 AS delta FROM old_rows
            UNION ALL SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, -1 FROM old_rows
        ) d GROUP BY ladder_id, level, bucket ORDER BY ladder_id, level, bucket
        ON CONFLICT (ladder_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER players_rank_insert AFTER INSERT ON players
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rank_buckets_apply();
CREATE TRIGGER players_rank_update AFTER UPDATE ON players
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rank_buckets_apply();
CREATE TRIGGER players_rank_delete AFTER DELETE ON players
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rank_buckets_apply();

-- The ladders of earlier versions, counted once.
INSERT INTO rank_buckets (ladder_id, level, bucket, shard, count)
SELECT ladder_id, 0, floor(rating::float8 * 4)::bigint, 0, count(*) FROM players GROUP BY 1, 3;
INSERT INTO rank_buckets (ladder_id, level, bucket, shard, count)
SELECT ladder_id, 1, floor(rating::float8 / 16)::bigint, 0, count(*) FROM players GROUP BY 1, 3;
