-- Version 0.2: seasons and their final standings, idempotent season ends and decay (their
-- id in journal.match_id), and each journal entry's stored size (pages are cut by size).
ALTER TABLE ladders ADD COLUMN season INTEGER NOT NULL DEFAULT 1;  -- the current season
ALTER TABLE journal ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;    -- inputs + joined + results
UPDATE journal SET bytes = length(CAST(inputs AS BLOB)) + length(CAST(joined AS BLOB)) + length(CAST(results AS BLOB));
UPDATE ladders SET season = 1 + (SELECT count(*) FROM journal WHERE journal.ladder_id = ladders.id AND journal.kind = 'season_end');

CREATE TABLE seasons (
    ladder_id INTEGER NOT NULL REFERENCES ladders (id),
    season    INTEGER NOT NULL,
    ended     REAL    NOT NULL,
    players   INTEGER NOT NULL,
    seq       INTEGER NOT NULL,  -- the journal entry of the season's end
    PRIMARY KEY (ladder_id, season)
);
-- Season ends of version 0.1 kept no standings: their seasons are listed without records.
INSERT INTO seasons (ladder_id, season, ended, players, seq)
SELECT j.ladder_id, (SELECT count(*) FROM journal k WHERE k.ladder_id = j.ladder_id AND k.kind = 'season_end' AND k.seq <= j.seq), j.time,
       coalesce(json_extract(j.results, '$.players'), 0), j.seq
FROM journal j WHERE j.kind = 'season_end';

CREATE TABLE season_records (
    ladder_id   INTEGER NOT NULL,
    season      INTEGER NOT NULL,
    rank        INTEGER NOT NULL,  -- 1 = best at the season's end
    player_id   INTEGER NOT NULL REFERENCES players (id),
    rating      REAL    NOT NULL,
    peak_rating REAL    NOT NULL,
    league      INTEGER NOT NULL,
    peak_league INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, season, rank)
);

-- Every ladder's player count (zero-sum ladders kept it already).
UPDATE ladders SET players = (SELECT count(*) FROM players WHERE players.ladder_id = ladders.id);

-- Each player's journal entries, for their history (rating before and after each).
CREATE TABLE player_entries (
    player_id     INTEGER NOT NULL REFERENCES players (id),
    seq           INTEGER NOT NULL,
    ladder_id     INTEGER NOT NULL,
    rating_before REAL    NOT NULL,
    rating_after  REAL    NOT NULL,
    PRIMARY KEY (player_id, seq)
);
CREATE INDEX journal_by_kind ON journal (ladder_id, kind, seq);
-- Annulled matches stay in the journal, marked with the reason; a corrected match keeps its
-- reported inputs and the latest correction's.
ALTER TABLE journal ADD COLUMN annulled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE journal ADD COLUMN annul_reason TEXT;
ALTER TABLE journal ADD COLUMN corrected_inputs TEXT;

-- The hash chain (ladder-server/src/chain.rs): each entry's hash, each player's number (its
-- place in the ladder's joining order; insert-only, so chaining never waits for a match's
-- row locks), and each ladder's chain head. Entries of version
-- 0.1 are chained when the server starts (SQLite) or by the chainer (PostgreSQL).
ALTER TABLE journal ADD COLUMN hash BLOB;
CREATE TABLE player_numbers (
    player_id INTEGER PRIMARY KEY,
    number    INTEGER NOT NULL
);
CREATE INDEX journal_unchained ON journal (ladder_id, seq) WHERE hash IS NULL;
CREATE TABLE chains (
    ladder_id INTEGER PRIMARY KEY REFERENCES ladders (id),
    last_hash BLOB NOT NULL,
    last_seq  INTEGER NOT NULL,
    numbered  INTEGER NOT NULL  -- players numbered so far
);

-- Rules that change at a season end, and schedules the servers run themselves.
ALTER TABLE ladders ADD COLUMN initial_config TEXT;        -- the first season's rules (replays start there)
UPDATE ladders SET initial_config = config;
ALTER TABLE ladders ADD COLUMN next_config TEXT;           -- the rules from the next season end on
ALTER TABLE ladders ADD COLUMN schedule_season_end TEXT;   -- five-field cron, UTC
ALTER TABLE ladders ADD COLUMN schedule_decay TEXT;
ALTER TABLE ladders ADD COLUMN next_season_end REAL;     -- the next scheduled time (Unix seconds)
ALTER TABLE ladders ADD COLUMN next_decay REAL;
