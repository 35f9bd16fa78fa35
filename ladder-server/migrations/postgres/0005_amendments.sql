-- Each annulment and correction points at the entry of the match it amends: amendments are
-- found by kind and match, never by the text of their ids (server-written ids now contain
-- '/', which no client id can; older ones, 'annul:ID' and 'correct:ID:N', could collide
-- with a client's match ids). Existing amendments are linked through their inputs' match.
ALTER TABLE journal ADD COLUMN amends BIGINT;
UPDATE journal a SET amends = m.seq FROM journal m
WHERE a.kind IN ('annul', 'correct') AND m.ladder_id = a.ladder_id
  AND m.kind IN ('pair', 'team', 'free_for_all') AND m.match_id = (a.inputs::json ->> 'match');
CREATE INDEX journal_amendments ON journal (ladder_id, amends, kind, seq) WHERE amends IS NOT NULL;
-- A batch that finds one of its new players added by another server meanwhile fails with a
-- serialization failure that names nobody (a unique violation's message would put the
-- player's name in the database's log); the server runs the batch again.
CREATE FUNCTION elo_ladder_lost_race() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'serialization_failure',
        MESSAGE = 'elo-ladder: another server added one of the batch''s new players first; the batch runs again';
END $$;
