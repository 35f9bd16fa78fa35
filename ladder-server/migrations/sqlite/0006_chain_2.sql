-- The hash chain, version 2 (chain.rs): it commits to the first season's rules (the
-- genesis), a decay's time and each joining player's keyed commitment, kept in `player_keys` with
-- the player's salt (an erasure drops the salt). Every ladder is chained again from its
-- first entry: the server does it when it starts (SQLite) or its chainer does, page by page
-- (PostgreSQL); until then the journal shows the entries chained so far. Chain heads
-- recorded before this version no longer apply.
ALTER TABLE journal ADD COLUMN player_keys TEXT;
UPDATE journal SET hash = NULL, player_keys = NULL;
DELETE FROM chains;
DELETE FROM player_numbers;
