-- Each annulment and correction points at the entry of the match it amends: amendments are
-- found by kind and match, never by the text of their ids (server-written ids now contain
-- '/', which no client id can; older ones, 'annul:ID' and 'correct:ID:N', could collide
-- with a client's match ids). Existing amendments are linked through their inputs' match.
ALTER TABLE journal ADD COLUMN amends INTEGER;
UPDATE journal SET amends = (
    SELECT m.seq FROM journal m
    WHERE m.ladder_id = journal.ladder_id AND m.kind IN ('pair', 'team', 'free_for_all')
      AND m.match_id = json_extract(journal.inputs, '$.match')
) WHERE kind IN ('annul', 'correct') AND json_valid(inputs);
CREATE INDEX journal_amendments ON journal (ladder_id, amends, kind, seq) WHERE amends IS NOT NULL;
