-- Ladders, players, the journal and API keys (docs/ladder-server.md explains each column).
CREATE TABLE ladders (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE,
    config          TEXT    NOT NULL,            -- the engine configuration, canonical JSON
    zero_sum_offset REAL    NOT NULL DEFAULT 0,  -- zero-sum ladders: the shared offset
    zero_sum_sum    TEXT    NOT NULL DEFAULT '0',-- exact sum of stored ratings (2^-40 units)
    players         INTEGER NOT NULL DEFAULT 0,  -- zero-sum ladders: the player count
    decayed_through REAL,                        -- time decay was applied up to
    created_at      REAL    NOT NULL
);

CREATE TABLE players (
    id               INTEGER PRIMARY KEY,
    ladder_id        INTEGER NOT NULL REFERENCES ladders (id),
    name             TEXT    NOT NULL,
    rating           REAL    NOT NULL,  -- an f32, relative to zero_sum_offset
    games_played     INTEGER NOT NULL,
    win_streak       INTEGER NOT NULL,
    period_games     INTEGER NOT NULL,
    is_junior        INTEGER NOT NULL,
    has_reached_2400 INTEGER NOT NULL,
    league           INTEGER NOT NULL,
    protected_games  INTEGER NOT NULL,
    season_games     INTEGER NOT NULL,
    season_wins      INTEGER NOT NULL,
    peak_rating      REAL    NOT NULL,
    peak_league      INTEGER NOT NULL,
    last_played      REAL    NOT NULL,
    UNIQUE (ladder_id, name)
);
CREATE INDEX players_leaderboard ON players (ladder_id, rating DESC, id);

CREATE TABLE journal (
    seq       INTEGER PRIMARY KEY,
    ladder_id INTEGER NOT NULL REFERENCES ladders (id),
    match_id  TEXT,            -- NULL for season ends and decay
    kind      TEXT    NOT NULL,
    inputs    TEXT    NOT NULL,
    time      REAL    NOT NULL,
    joined    TEXT    NOT NULL,
    results   TEXT    NOT NULL,
    horizon   INTEGER,         -- PostgreSQL only
    UNIQUE (ladder_id, match_id)
);
CREATE INDEX journal_by_ladder ON journal (ladder_id, seq);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    hash       BLOB NOT NULL,   -- SHA-256 of the secret
    scope      TEXT NOT NULL,
    ladder     TEXT,
    created_at REAL NOT NULL,
    revoked_at REAL
);
