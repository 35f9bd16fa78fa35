-- Exact ranks at any depth (docs/ladder-server.md, "Ranks"): how many players of each ladder
-- have a stored rating in each bucket, at two widths: level 0, a quarter of a point
-- (bucket = floor(rating * 4)), and level 1, sixteen points (bucket = floor(rating / 16)).
-- A rank is the players of the coarse buckets above, of the fine buckets above within the
-- coarse one, and an index count within one fine bucket. Triggers keep the counts on every
-- insert, rating change and delete, in the writer's transaction; a season end, decay or
-- rebuild sets rank_control.bulk and recounts the ladder once instead.
CREATE TABLE rank_buckets (
    ladder_id INTEGER NOT NULL,
    level     INTEGER NOT NULL,  -- 0: quarter points, 1: sixteen points
    bucket    INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, level, bucket)
) WITHOUT ROWID;

CREATE TABLE rank_control (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    bulk INTEGER NOT NULL  -- 1 while a bulk write recounts its ladder itself
);
INSERT INTO rank_control (only, bulk) VALUES (1, 0);

-- floor(x) for any sign, in SQL without the math functions: CAST truncates toward zero.
CREATE TRIGGER players_rank_insert AFTER INSERT ON players
WHEN (SELECT bulk FROM rank_control) = 0
BEGIN
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    VALUES (NEW.ladder_id, 0, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    VALUES (NEW.ladder_id, 1, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER players_rank_update AFTER UPDATE OF rating ON players
WHEN (SELECT bulk FROM rank_control) = 0
  AND CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
   <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER))
BEGIN
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER));
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER));
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    VALUES (NEW.ladder_id, 0, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    VALUES (NEW.ladder_id, 1, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER players_rank_delete AFTER DELETE ON players
WHEN (SELECT bulk FROM rank_control) = 0
BEGIN
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER));
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER));
END;

-- The ladders of earlier versions, counted once.
INSERT INTO rank_buckets (ladder_id, level, bucket, count)
SELECT ladder_id, 0, CAST(rating * 4 AS INTEGER) - (rating * 4 < CAST(rating * 4 AS INTEGER)) AS b, count(*) FROM players GROUP BY ladder_id, b;
INSERT INTO rank_buckets (ladder_id, level, bucket, count)
SELECT ladder_id, 1, CAST(rating / 16 AS INTEGER) - (rating / 16 < CAST(rating / 16 AS INTEGER)) AS b, count(*) FROM players GROUP BY ladder_id, b;
