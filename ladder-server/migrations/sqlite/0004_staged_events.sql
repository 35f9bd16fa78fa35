-- Season ends and decay of large ladders in steps (docs/ladder-server.md, "What a season end
-- costs"): while one is under way its ladder has a row here (its journal entry, written
-- first and chained last, and the season it ends), and every player row it has changed
-- keeps its state from before in event_undo. The last step removes the event_progress row;
-- a server that starts and finds one undoes the event (the rows put back, its journal
-- entry, history and standings deleted) before anything reads the ladder.
CREATE TABLE event_progress (
    ladder_id INTEGER PRIMARY KEY REFERENCES ladders (id),
    seq       INTEGER NOT NULL,  -- the event's journal entry (not chained until done)
    season    INTEGER NOT NULL   -- the ladder's season when it began
);

CREATE TABLE event_undo (
    seq              INTEGER NOT NULL,  -- the event's journal entry
    player_id        INTEGER NOT NULL,
    rating           REAL    NOT NULL,
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
    PRIMARY KEY (seq, player_id)
) WITHOUT ROWID;

-- An entry's history lines by its seq: an amendment rewrites those of every entry after the
-- amended match, and an unfinished event's are deleted (without it, each was a scan of every
-- player's history).
CREATE INDEX player_entries_by_seq ON player_entries (seq);
