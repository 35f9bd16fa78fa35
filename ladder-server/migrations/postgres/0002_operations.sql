-- Version 0.2: seasons and their final standings, idempotent season ends and decay (their
-- id in journal.match_id), each journal entry's stored size (pages are cut by size), the
-- shared request budgets of API keys, and no stored horizon: the journal rows' own xmin
-- (a subtransaction's id taken after their seq) says when an entry is settled, and new
-- players' ids are made from their entry's seq (2^40 + seq * 1024 + position).
ALTER TABLE ladders ADD COLUMN season BIGINT NOT NULL DEFAULT 1;
UPDATE ladders SET season = 1 + (SELECT count(*) FROM journal WHERE journal.ladder_id = ladders.id AND journal.kind = 'season_end');
ALTER TABLE journal ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
UPDATE journal SET bytes = octet_length(inputs) + octet_length(joined) + octet_length(results);
ALTER TABLE journal DROP COLUMN horizon;

CREATE TABLE seasons (
    ladder_id BIGINT           NOT NULL REFERENCES ladders (id),
    season    BIGINT           NOT NULL,
    ended     DOUBLE PRECISION NOT NULL,
    players   BIGINT           NOT NULL,
    seq       BIGINT           NOT NULL,
    PRIMARY KEY (ladder_id, season)
);
INSERT INTO seasons (ladder_id, season, ended, players, seq)
SELECT j.ladder_id, row_number() OVER (PARTITION BY j.ladder_id ORDER BY j.seq), j.time, coalesce((j.results::json ->> 'players')::bigint, 0), j.seq
FROM journal j WHERE j.kind = 'season_end';

CREATE TABLE season_records (
    ladder_id   BIGINT NOT NULL,
    season      BIGINT NOT NULL,
    rank        BIGINT NOT NULL,
    player_id   BIGINT NOT NULL REFERENCES players (id),
    rating      REAL   NOT NULL,
    peak_rating REAL   NOT NULL,
    league      BIGINT NOT NULL,
    peak_league BIGINT NOT NULL,
    games       BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    PRIMARY KEY (ladder_id, season, rank)
);

-- Each API key's request budget, shared by every server: servers lease tokens from it in
-- blocks (ladder-server/src/limits.rs).
CREATE TABLE rate_buckets (
    key_id  TEXT             PRIMARY KEY,
    tokens  DOUBLE PRECISION NOT NULL,
    at      DOUBLE PRECISION NOT NULL,
    granted DOUBLE PRECISION NOT NULL
);

-- Every ladder's player count (zero-sum ladders kept it already).
UPDATE ladders SET players = (SELECT count(*) FROM players WHERE players.ladder_id = ladders.id);

-- Each player's journal entries, for their history (rating before and after each).
CREATE TABLE player_entries (
    player_id     BIGINT NOT NULL REFERENCES players (id),
    seq           BIGINT NOT NULL,
    ladder_id     BIGINT NOT NULL,
    rating_before REAL   NOT NULL,
    rating_after  REAL   NOT NULL,
    PRIMARY KEY (player_id, seq)
);
CREATE INDEX journal_by_kind ON journal (ladder_id, kind, seq);
-- Annulled matches stay in the journal, marked with the reason; a corrected match keeps its
-- reported inputs and the latest correction's.
ALTER TABLE journal ADD COLUMN annulled BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE journal ADD COLUMN annul_reason TEXT;
ALTER TABLE journal ADD COLUMN corrected_inputs TEXT;

-- The hash chain (ladder-server/src/chain.rs): each entry's hash, each player's number (its
-- place in the ladder's joining order; insert-only, so chaining never waits for a match's
-- row locks), and each ladder's chain head. Entries of version
-- 0.1 are chained when the server starts (SQLite) or by the chainer (PostgreSQL).
ALTER TABLE journal ADD COLUMN hash BYTEA;
CREATE TABLE player_numbers (
    player_id BIGINT PRIMARY KEY,
    number    BIGINT NOT NULL
);
CREATE INDEX journal_unchained ON journal (ladder_id, seq) WHERE hash IS NULL;
CREATE TABLE chains (
    ladder_id BIGINT PRIMARY KEY REFERENCES ladders (id),
    last_hash BYTEA NOT NULL,
    last_seq  BIGINT NOT NULL,
    numbered  BIGINT NOT NULL  -- players numbered so far
);

-- Rules that change at a season end, and schedules the servers run themselves.
ALTER TABLE ladders ADD COLUMN initial_config TEXT;        -- the first season's rules (replays start there)
UPDATE ladders SET initial_config = config;
ALTER TABLE ladders ADD COLUMN next_config TEXT;           -- the rules from the next season end on
ALTER TABLE ladders ADD COLUMN schedule_season_end TEXT;   -- five-field cron, UTC
ALTER TABLE ladders ADD COLUMN schedule_decay TEXT;
ALTER TABLE ladders ADD COLUMN next_season_end DOUBLE PRECISION;     -- the next scheduled time (Unix seconds)
ALTER TABLE ladders ADD COLUMN next_decay DOUBLE PRECISION;
