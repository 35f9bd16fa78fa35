-- An entry's history lines by its seq: an amendment rewrites those of every entry after the
-- amended match (without it, each page of the rebuild scanned every player's history).
CREATE INDEX player_entries_by_seq ON player_entries (seq);
