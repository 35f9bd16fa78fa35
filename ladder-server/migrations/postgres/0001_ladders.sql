-- Ladders, players, the journal and API keys (docs/ladder-server.md explains each column).
CREATE TABLE ladders (
    id              BIGSERIAL PRIMARY KEY,
    name            TEXT             NOT NULL UNIQUE,
    config          TEXT             NOT NULL,
    zero_sum_offset DOUBLE PRECISION NOT NULL DEFAULT 0,
    zero_sum_sum    TEXT             NOT NULL DEFAULT '0',
    players         BIGINT           NOT NULL DEFAULT 0,
    decayed_through DOUBLE PRECISION,
    created_at      DOUBLE PRECISION NOT NULL
);

CREATE TABLE players (
    id               BIGSERIAL PRIMARY KEY,
    ladder_id        BIGINT           NOT NULL REFERENCES ladders (id),
    name             TEXT             NOT NULL,
    rating           REAL             NOT NULL,
    games_played     BIGINT           NOT NULL,
    win_streak       BIGINT           NOT NULL,
    period_games     BIGINT           NOT NULL,
    is_junior        BOOLEAN          NOT NULL,
    has_reached_2400 BOOLEAN          NOT NULL,
    league           BIGINT           NOT NULL,
    protected_games  BIGINT           NOT NULL,
    season_games     BIGINT           NOT NULL,
    season_wins      BIGINT           NOT NULL,
    peak_rating      REAL             NOT NULL,
    peak_league      BIGINT           NOT NULL,
    last_played      DOUBLE PRECISION NOT NULL,
    UNIQUE (ladder_id, name)
);
CREATE INDEX players_leaderboard ON players (ladder_id, rating DESC, id);

CREATE SEQUENCE journal_seq;
CREATE TABLE journal (
    seq       BIGINT           PRIMARY KEY,
    ladder_id BIGINT           NOT NULL REFERENCES ladders (id),
    match_id  TEXT,
    kind      TEXT             NOT NULL,
    inputs    TEXT             NOT NULL,
    time      DOUBLE PRECISION NOT NULL,
    joined    TEXT             NOT NULL,
    results   TEXT             NOT NULL,
    horizon   BIGINT           NOT NULL, -- a transaction id taken after seq (docs/ladder-server.md)
    UNIQUE (ladder_id, match_id)
);
CREATE INDEX journal_by_ladder ON journal (ladder_id, seq);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    hash       BYTEA            NOT NULL,
    scope      TEXT             NOT NULL,
    ladder     TEXT,
    created_at DOUBLE PRECISION NOT NULL,
    revoked_at DOUBLE PRECISION
);
