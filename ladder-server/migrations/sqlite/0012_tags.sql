-- Player tags (docs/ladder-server.md, "Tags"): a player has at most one value per key
-- (`region: eu`), and each tag (a key and a value of one ladder) has a board of its own with
-- exact ranks. A tag's members carry a copy of their player's rating and games played,
-- kept by a trigger in the transaction that writes the player, so the board's index
-- (tag, rating, player) serves a tag's pages and counts as the players' index serves the
-- ladder's. A tag's rank buckets count its members as rank_buckets counts a ladder's
-- players (levels 0 and 1 everybody, 2 and 3 the provisional players).
CREATE TABLE tags (
    id        INTEGER PRIMARY KEY,
    ladder_id INTEGER NOT NULL REFERENCES ladders(id),
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    UNIQUE (ladder_id, key, value)
);

CREATE TABLE tag_members (
    tag_id       INTEGER NOT NULL REFERENCES tags(id),
    player_id    INTEGER NOT NULL REFERENCES players(id),
    rating       REAL NOT NULL,     -- the player's, as stored
    games_played INTEGER NOT NULL,  -- the player's
    PRIMARY KEY (tag_id, player_id)
);
CREATE INDEX tag_members_board ON tag_members (tag_id, rating DESC, player_id, games_played);
CREATE INDEX tag_members_by_player ON tag_members (player_id);

CREATE TABLE tag_buckets (
    tag_id INTEGER NOT NULL,
    level  INTEGER NOT NULL,
    bucket INTEGER NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (tag_id, level, bucket)
) WITHOUT ROWID;

-- The members follow their player (every write of a rating or a game count: reports,
-- season ends, decay, rebuilds, imports; not gated by rank_control, which only the
-- ladder's own counts follow).
CREATE TRIGGER players_tags_follow AFTER UPDATE OF rating, games_played ON players
WHEN OLD.rating <> NEW.rating OR OLD.games_played <> NEW.games_played
BEGIN
    UPDATE tag_members SET rating = NEW.rating, games_played = NEW.games_played WHERE player_id = NEW.id;
END;

-- floor(x) for any sign, in SQL without the math functions: CAST truncates toward zero.
CREATE TRIGGER tag_members_rank_insert AFTER INSERT ON tag_members
BEGIN
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 0, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 1, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 2, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id)
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 3, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id)
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER tag_members_rank_update AFTER UPDATE OF rating, games_played ON tag_members
WHEN CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER)) <> CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER))
  OR (OLD.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id)) <> (NEW.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id))
BEGIN
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER));
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER));
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 2 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER)) AND OLD.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = OLD.tag_id);
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 3 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER)) AND OLD.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = OLD.tag_id);
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 0, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 1, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 2, CAST(NEW.rating * 4 AS INTEGER) - (NEW.rating * 4 < CAST(NEW.rating * 4 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id)
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
    INSERT INTO tag_buckets (tag_id, level, bucket, count)
    SELECT NEW.tag_id, 3, CAST(NEW.rating / 16 AS INTEGER) - (NEW.rating / 16 < CAST(NEW.rating / 16 AS INTEGER)), 1
    WHERE NEW.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = NEW.tag_id)
    ON CONFLICT (tag_id, level, bucket) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER tag_members_rank_delete AFTER DELETE ON tag_members
BEGIN
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 0 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER));
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 1 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER));
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 2 AND bucket = CAST(OLD.rating * 4 AS INTEGER) - (OLD.rating * 4 < CAST(OLD.rating * 4 AS INTEGER)) AND OLD.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = OLD.tag_id);
    UPDATE tag_buckets SET count = count - 1
    WHERE tag_id = OLD.tag_id AND level = 3 AND bucket = CAST(OLD.rating / 16 AS INTEGER) - (OLD.rating / 16 < CAST(OLD.rating / 16 AS INTEGER)) AND OLD.games_played < (SELECT l.provisional_games FROM tags t JOIN ladders l ON l.id = t.ladder_id WHERE t.id = OLD.tag_id);
END;
