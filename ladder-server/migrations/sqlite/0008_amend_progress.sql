-- Annulments and corrections in steps (docs/ladder-server.md, "Annulments and
-- corrections"): while one is under way its ladder has a row here. The first step marks the
-- match and writes the row; each page of the rebuild is written in a transaction of its own
-- and adds its counts; the last step journals the amendment and removes the row. A server
-- that starts and finds one finishes it (the rebuild is a function of the journal: pages
-- written before are written again unchanged) before anything reads the ladder.
CREATE TABLE amend_progress (
    ladder_id       INTEGER PRIMARY KEY REFERENCES ladders (id),
    target_seq      INTEGER NOT NULL,  -- the amended match
    entry_id        TEXT    NOT NULL,  -- the amendment's journal id
    match_id        TEXT    NOT NULL,
    action          TEXT    NOT NULL,  -- annul | correct
    reason          TEXT,              -- an annulment's
    rerated         INTEGER NOT NULL DEFAULT 0,
    replayed        INTEGER NOT NULL DEFAULT 0,
    players_changed INTEGER,           -- counted before player rows are written
    players         TEXT               -- the first 1,000 of their names (JSON)
);
