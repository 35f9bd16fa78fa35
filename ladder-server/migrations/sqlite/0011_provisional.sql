-- Provisional players (docs/ladder-server.md, "Provisional players"): a ladder's option
-- provisional_games, kept here for the triggers; a player with fewer games is provisional.
-- The rank buckets gain two levels counting the provisional players alone: level 2, quarter
-- points, and level 3, sixteen points (as levels 0 and 1 count every player), so a rank or
-- a page of the board without them is the counts of levels 0 and 1 minus those of 2 and 3.
ALTER TABLE ladders ADD COLUMN provisional_games INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER players_rank_insert;
DROP TRIGGER players_rank_update;
DROP TRIGGER players_rank_delete;

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
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 2, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 3, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
END;

-- Runs when the fine bucket or the provisional state changes; each statement changes only
-- what moved.
CREATE TRIGGER players_rank_update AFTER UPDATE OF rating, games_played ON players
WHEN (SELECT bulk FROM rank_control) = 0
  AND (CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
       <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER))
    OR (OLD.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id))
       <> (NEW.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id)))
BEGIN
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
      AND CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
       <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER));
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER))
      AND CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
       <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER));
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 0, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    WHERE CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
       <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER))
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 1, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    WHERE CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
       <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER))
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 2 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
      AND OLD.games_played < (SELECT provisional_games FROM ladders WHERE id = OLD.ladder_id);
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 3 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER))
      AND OLD.games_played < (SELECT provisional_games FROM ladders WHERE id = OLD.ladder_id);
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 2, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO rank_buckets (ladder_id, level, bucket, count)
    SELECT NEW.ladder_id, 3, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT provisional_games FROM ladders WHERE id = NEW.ladder_id)
    ON CONFLICT (ladder_id, level, bucket) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER players_rank_delete AFTER DELETE ON players
WHEN (SELECT bulk FROM rank_control) = 0
BEGIN
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER));
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER));
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 2 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER))
      AND OLD.games_played < (SELECT provisional_games FROM ladders WHERE id = OLD.ladder_id);
    UPDATE rank_buckets SET count = count - 1
    WHERE ladder_id = OLD.ladder_id AND level = 3 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER))
      AND OLD.games_played < (SELECT provisional_games FROM ladders WHERE id = OLD.ladder_id);
END;

-- The board's index holds games_played too, so that a count or a page of the board without
-- the provisional players reads the index alone.
CREATE INDEX players_board ON players (ladder_id, rating DESC, id, games_played);
DROP INDEX players_leaderboard;
