-- Player tags (docs/ladder-server.md, "Tags"): a player has at most one value per key
-- (`region: eu`), and each tag (a key and a value of one ladder) has a board of its own with
-- exact ranks. A tag's members carry a copy of their player's rating and games played,
-- kept by a trigger in the statement that writes the players, so the board's index (tag,
-- rating, player, with games played) serves a tag's pages and counts as the players' index
-- serves the ladder's. A tag's rank buckets count its members as rank_buckets counts a
-- ladder's players (levels 0 and 1 everybody, 2 and 3 the provisional players; four shards
-- by the writing backend).
CREATE TABLE tags (
    id        BIGSERIAL PRIMARY KEY,
    ladder_id BIGINT NOT NULL REFERENCES ladders(id),
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    UNIQUE (ladder_id, key, value)
);

CREATE TABLE tag_members (
    tag_id       BIGINT NOT NULL REFERENCES tags(id),
    player_id    BIGINT NOT NULL REFERENCES players(id),
    rating       REAL NOT NULL,    -- the player's, as stored
    games_played BIGINT NOT NULL,  -- the player's
    PRIMARY KEY (tag_id, player_id)
);
CREATE INDEX tag_members_board ON tag_members (tag_id, rating DESC, player_id) INCLUDE (games_played);
CREATE INDEX tag_members_by_player ON tag_members (player_id);

CREATE TABLE tag_buckets (
    tag_id BIGINT   NOT NULL,
    level  SMALLINT NOT NULL,
    bucket BIGINT   NOT NULL,
    shard  SMALLINT NOT NULL,
    count  BIGINT   NOT NULL,
    PRIMARY KEY (tag_id, level, bucket, shard)
);

-- The members follow their players (every write of ratings or game counts: reports, season
-- ends, decay, rebuilds, imports; not gated by elo.rank_bulk, which only the ladder's own
-- counts follow).
CREATE FUNCTION players_tags_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tag_members m SET rating = n.rating, games_played = n.games_played
    FROM new_rows n
    WHERE m.player_id = n.id AND (m.rating <> n.rating OR m.games_played <> n.games_played);
    RETURN NULL;
END
$$;
CREATE TRIGGER players_tags_follow AFTER UPDATE ON players
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION players_tags_follow();

-- The buckets a member is counted in: levels 0 and 1 always, 2 and 3 while provisional.
CREATE FUNCTION tag_bucket_levels(rating real, games bigint, threshold bigint) RETURNS TABLE (level smallint, bucket bigint)
LANGUAGE sql IMMUTABLE AS $$
    SELECT v.level, v.bucket FROM (VALUES
        (0::smallint, floor(rating::float8 * 4)::bigint, true),
        (1::smallint, floor(rating::float8 / 16)::bigint, true),
        (2::smallint, floor(rating::float8 * 4)::bigint, games < threshold),
        (3::smallint, floor(rating::float8 / 16)::bigint, games < threshold)
    ) AS v(level, bucket, counted) WHERE v.counted
$$;

-- One grouped upsert per statement, as rank_buckets_apply (each branch names only the
-- transition tables its operation has).
CREATE FUNCTION tag_buckets_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tag_buckets AS r (tag_id, level, bucket, shard, count)
        SELECT n.tag_id, v.level, v.bucket, pg_backend_pid() % 4, count(*) FROM new_rows n
        JOIN tags t ON t.id = n.tag_id JOIN ladders l ON l.id = t.ladder_id
        CROSS JOIN LATERAL tag_bucket_levels(n.rating, n.games_played, l.provisional_games) AS v
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (tag_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO tag_buckets AS r (tag_id, level, bucket, shard, count)
        SELECT o.tag_id, v.level, v.bucket, pg_backend_pid() % 4, -count(*) FROM old_rows o
        JOIN tags t ON t.id = o.tag_id JOIN ladders l ON l.id = t.ladder_id
        CROSS JOIN LATERAL tag_bucket_levels(o.rating, o.games_played, l.provisional_games) AS v
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
        ON CONFLICT (tag_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    ELSE
        INSERT INTO tag_buckets AS r (tag_id, level, bucket, shard, count)
        SELECT tag_id, level, bucket, pg_backend_pid() % 4, sum(delta) FROM (
            SELECT n.tag_id, v.level, v.bucket, 1 AS delta FROM new_rows n
            JOIN tags t ON t.id = n.tag_id JOIN ladders l ON l.id = t.ladder_id
            CROSS JOIN LATERAL tag_bucket_levels(n.rating, n.games_played, l.provisional_games) AS v
            UNION ALL
            SELECT o.tag_id, v.level, v.bucket, -1 FROM old_rows o
            JOIN tags t ON t.id = o.tag_id JOIN ladders l ON l.id = t.ladder_id
            CROSS JOIN LATERAL tag_bucket_levels(o.rating, o.games_played, l.provisional_games) AS v
        ) d GROUP BY tag_id, level, bucket HAVING sum(delta) <> 0 ORDER BY tag_id, level, bucket
        ON CONFLICT (tag_id, level, bucket, shard) DO UPDATE SET count = r.count + excluded.count;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER tag_members_rank_insert AFTER INSERT ON tag_members
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_buckets_apply();
CREATE TRIGGER tag_members_rank_update AFTER UPDATE ON tag_members
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_buckets_apply();
CREATE TRIGGER tag_members_rank_delete AFTER DELETE ON tag_members
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tag_buckets_apply();
